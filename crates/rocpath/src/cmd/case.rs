//! `rocpath case run|read|table`

use crate::cli::{CaseArgs, CaseCommand, CaseReadArgs, CaseRunArgs, CaseTableArgs};
use crate::output::{Printer, Status};
use rocpath_case::meta::GpuInfo;
use rocpath_case::run::{Knob, RunOptions};
use rocpath_case::{CaseError, CaseReport};
use rocpath_docs::schema;

pub fn run(a: CaseArgs, p: &Printer) -> anyhow::Result<Status> {
    match a.command {
        CaseCommand::Run(a) => run_case(a, p),
        CaseCommand::Read(a) => read(a, p),
        CaseCommand::Table(a) => table(a, p),
    }
}

fn status_of(reports: &[CaseReport], errors: &[CaseError]) -> Status {
    if !errors.is_empty() {
        Status::Error
    } else if reports.iter().any(|r| r.outcome.kind.is_failure()) {
        Status::Negative
    } else {
        Status::Ok
    }
}

fn print_reports(
    p: &Printer,
    reports: &[CaseReport],
    errors: &[CaseError],
    markdown: bool,
) -> anyhow::Result<Status> {
    for e in errors {
        p.error_text(&format!("error: {e}\n"));
    }
    if p.global.json {
        p.json(
            &schema::CASE,
            &rocpath_case::doc::case_doc(reports.to_vec(), errors),
        )?;
    } else {
        let mut out = String::new();
        for (i, r) in reports.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&if markdown {
                rocpath_render::case::trace_map(r)
            } else {
                rocpath_render::case::case_report(r)
            });
        }
        p.data(&out)?;
    }
    Ok(status_of(reports, errors))
}

fn read(a: CaseReadArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(&a.paths)?;
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for path in &a.paths {
        match rocpath_case::cases_at(path) {
            Ok(sources) => {
                for src in &sources {
                    let (r, e) = rocpath_case::read_case(src);
                    reports.push(r);
                    errors.extend(e);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    print_reports(p, &reports, &errors, a.markdown)
}

fn table(a: CaseTableArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(std::slice::from_ref(&a.dir))?;
    let sources = rocpath_case::discover(&a.dir)?;
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for src in &sources {
        let (r, e) = rocpath_case::read_case(src);
        rows.push(rocpath_case::table::row(&r));
        errors.extend(e);
    }
    for e in &errors {
        p.error_text(&format!("error: {e}\n"));
    }
    if p.global.json {
        p.json(
            &schema::CASE_TABLE,
            &rocpath_case::doc::TableDoc::new(&rows, &errors),
        )?;
    } else if a.tsv {
        p.data(&rocpath_render::case::case_table_tsv(&rows))?;
    } else {
        p.data(&rocpath_render::case::case_table(&rows))?;
    }
    Ok(if !errors.is_empty() {
        Status::Error
    } else if rows.is_empty() {
        Status::Negative
    } else {
        Status::Ok
    })
}

fn run_case(a: CaseRunArgs, p: &Printer) -> anyhow::Result<Status> {
    let knobs = if a.knobs.is_empty() {
        Knob::DEFAULT.to_vec()
    } else {
        a.knobs
            .iter()
            .map(|k| {
                Knob::parse(k).ok_or_else(|| {
                    anyhow::anyhow!("unknown knob {k:?} (miopen, rocblas, hipblaslt, tensile, hip)")
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let gpu = rocpath_inventory::device::detect()
        .into_iter()
        .map(|d| GpuInfo {
            source: d.source,
            name: d.name,
            target: d.target,
            cus: d.cus,
        })
        .collect();
    let opts = RunOptions {
        name: a.name,
        out: a.out,
        knobs,
        command: a.command,
        gpu,
        echo: if a.no_echo { None } else { p.passthrough() },
        tool_version: env!("CARGO_PKG_VERSION").into(),
        drain_timeout: std::time::Duration::from_secs(5),
        env: Vec::new(),
    };
    let res = rocpath_case::run::run(opts)?;
    p.note(&format!(
        "case {} recorded in {} (status {}{})",
        res.meta.name.clone().unwrap_or_default(),
        res.dir.display(),
        res.meta.status,
        res.meta
            .exit
            .as_ref()
            .map(|x| match (&x.code, &x.signal) {
                (Some(c), _) => format!(", exit {c}"),
                (None, Some(s)) => format!(", {s}"),
                _ => String::new(),
            })
            .unwrap_or_default()
    ));
    let src = rocpath_case::case_source(&res.dir)?;
    let (report, errors) = rocpath_case::read_case(&src);
    print_reports(p, std::slice::from_ref(&report), &errors, false)?;
    Ok(
        if !errors.is_empty() || res.meta.status == rocpath_case::meta::RunStatus::SpawnFailed {
            Status::Error
        } else if res.meta.status != rocpath_case::meta::RunStatus::Exited
            || res.meta.exit.as_ref().and_then(|x| x.code) != Some(0)
        {
            Status::Negative
        } else {
            Status::Ok
        },
    )
}
