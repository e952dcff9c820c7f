//! `rocpath loads PROGRAM|LIBRARY [--env NAME=VALUE] [--no-env] [--cache FILE] [--root DIR]`,
//! `rocpath loads --pid PID [--cache FILE]`

use crate::cli::LoadsArgs;
use crate::output::{Printer, Status};
use rocpath_docs::schema;
use rocpath_loads::Options;
use rocpath_survey::root::Root;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The variables the loader and the ROCm libraries read for what `loads` reports.
const READ: [&str; 7] = [
    "LD_LIBRARY_PATH",
    "ROCBLAS_TENSILE_LIBPATH",
    "HIPBLASLT_TENSILE_LIBPATH",
    "MIOPEN_SYSTEM_DB_PATH",
    "MIOPEN_USER_DB_PATH",
    "MIOPEN_CUSTOM_CACHE_DIR",
    "HOME",
];

/// A running process: what it mapped and holds open, beside the prediction.
fn run_pid(pid: u32, a: &LoadsArgs, p: &Printer) -> anyhow::Result<Status> {
    let r = rocpath_loads::process::running(Path::new("/proc"), pid, &a.cache)?;
    for e in &r.errors {
        p.note(&e.to_string());
    }
    if p.global.json {
        p.json(&schema::LOADS_PROCESS, &r)?;
    } else {
        p.data(&rocpath_render::loads::process_table(&r))?;
    }
    Ok(Status::Ok)
}

/// A Python module: every extension module in it, as the interpreter finds it.
fn run_module(name: &str, opts: &Options, a: &LoadsArgs, p: &Printer) -> anyhow::Result<Status> {
    let python = a.python.clone().unwrap_or_else(|| PathBuf::from("python3"));
    let spec = rocpath_loads::python::find_module(&python, name)?;
    if !spec.found {
        anyhow::bail!(
            "{name}: no file by that name, and {} ({} in {}) finds no module by it{} (give the path of a program or library, or the interpreter of the environment the module is in with --python)",
            python.display(),
            spec.version,
            spec.prefix,
            spec.error
                .as_deref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        );
    }
    let m = rocpath_loads::python::module_loads(name, spec, opts);
    for e in &m.errors {
        p.note(&e.to_string());
    }
    if p.global.json {
        p.json(&schema::LOADS_MODULE, &m)?;
    } else {
        p.data(&rocpath_render::loads::module_table(&m))?;
    }
    Ok(if m.missing.is_empty() {
        Status::Ok
    } else {
        Status::Negative
    })
}

pub fn run(a: LoadsArgs, p: &Printer) -> anyhow::Result<Status> {
    if let Some(pid) = a.pid {
        return run_pid(pid, &a, p);
    }
    let Some(target) = a.target.clone() else {
        anyhow::bail!("give a program or library, or --pid PID");
    };
    let mut opts = Options::new(&target);
    opts.cache = a.cache.clone();
    if let Some(r) = &a.root {
        if !r.is_dir() {
            anyhow::bail!("--root {}: not a folder", r.display());
        }
        if !target.is_absolute() {
            anyhow::bail!(
                "{}: with --root, give the path in the machine (/usr/bin/python3)",
                target.display()
            );
        }
        opts.tree = Arc::new(Root::new(r));
    }
    if !a.no_env && a.root.is_none() {
        for k in READ {
            if let Ok(v) = std::env::var(k) {
                opts.env.insert(k.to_string(), v);
            }
        }
    }
    for kv in &a.env {
        let Some((k, v)) = kv.split_once('=') else {
            anyhow::bail!("--env {kv:?}: write NAME=VALUE");
        };
        opts.env.insert(k.to_string(), v.to_string());
    }
    let name = target.to_string_lossy();
    if a.root.is_none() && !target.exists() && rocpath_loads::python::is_module_name(&name) {
        return run_module(&name, &opts, &a, p);
    }
    let l = rocpath_loads::loads(&opts)?;
    if let Some(e) = &l.cache.error {
        p.note(&format!(
            "{}: {e}; the loader goes on without it",
            l.cache.path
        ));
    }
    if p.global.json {
        p.json(&schema::LOADS, &l)?;
    } else {
        p.data(&rocpath_render::loads::loads_table(&l))?;
    }
    Ok(if !l.missing.is_empty() {
        Status::Negative
    } else {
        Status::Ok
    })
}
