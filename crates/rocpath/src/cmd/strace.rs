//! `rocpath strace PATH... [--trace T] [--rocblas-trace F]`

use crate::cli::StraceArgs;
use crate::output::{Printer, Status};

pub fn run(a: StraceArgs, p: &Printer) -> anyhow::Result<Status> {
    let (catalog, mut errors) = rocpath_strace::read_files(&a.paths);
    let trace = if a.trace.is_empty() {
        None
    } else {
        super::check_paths(&a.trace)?;
        let d = rocpath_trace::discover(&a.trace);
        for n in &d.notes {
            p.note(n);
        }
        errors.extend(d.errors.iter().map(ToString::to_string));
        let mut t = Vec::new();
        for i in &d.inputs {
            match rocpath_trace::read_input(i, None) {
                Ok(r) => t.push(r),
                Err(e) => errors.push(e.to_string()),
            }
        }
        Some(rocpath_trace::merge(t))
    };
    let mut rocblas = Vec::new();
    for f in &a.rocblas_trace {
        match rocpath_budget::input::read_bytes(
            f,
            &super::budget(p),
            rocpath_strace::MAX_LOG_BYTES,
            "a rocBLAS trace log",
        ) {
            Ok((b, _held)) => rocblas.push(rocpath_strace::link::rocblas_trace(
                &f.display().to_string(),
                &String::from_utf8_lossy(&b),
            )),
            Err(e) => errors.push(e.to_string()),
        }
    }
    let link = rocpath_strace::link::link(&catalog, trace.as_ref(), &rocblas);
    for e in &errors {
        p.error_text(&format!("error: {e}\n"));
    }
    if p.global.json {
        p.json(
            &rocpath_docs::schema::STRACE,
            &rocpath_strace::document(&catalog, &rocblas, &link, &errors),
        )?;
    } else {
        p.data(&rocpath_render::strace::report(&catalog, &rocblas, &link))?;
    }
    Ok(if !errors.is_empty() || catalog.files == 0 {
        Status::Error
    } else if catalog.tensile.iter().any(|t| t.ok > 0) || link.direct_rocblas_or_tensile_dispatch {
        Status::Ok
    } else {
        Status::Negative
    })
}
