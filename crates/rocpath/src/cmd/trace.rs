//! `rocpath trace PATH...`

use crate::cli::TraceArgs;
use crate::output::{Printer, Status};
use rocpath_trace::PhaseRequest;

fn prompt_eval_of(path: &std::path::Path) -> anyhow::Result<u64> {
    let resp = match rocpath_ollama::generate::read_file(path, None)? {
        rocpath_ollama::generate::Document::Single(r, _) => r,
        rocpath_ollama::generate::Document::Stream(_, Some((r, _))) => r,
        _ => anyhow::bail!("{}: not an /api/generate response", path.display()),
    };
    resp.prompt_eval_duration_ns
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{}: no prompt_eval_duration (the phase cannot be split)",
                path.display()
            )
        })
}

pub fn run(a: TraceArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(&a.paths)?;
    let phase = match (&a.generate, a.prompt_eval_ns, a.boundary_ns) {
        (Some(g), _, _) => Some(PhaseRequest::PromptEval(prompt_eval_of(g)?)),
        (None, Some(n), _) => Some(PhaseRequest::PromptEval(n)),
        (None, None, Some(b)) => Some(PhaseRequest::Absolute(b)),
        _ => None,
    };
    let rocpath_trace::Discovered {
        inputs,
        notes,
        mut errors,
    } = rocpath_trace::discover(&a.paths);
    let mut traces = Vec::new();
    let bar = p.bar("reading traces");
    for i in &inputs {
        match rocpath_trace::read_input(i, phase) {
            Ok(t) => traces.push(t),
            Err(e) => errors.push(e),
        }
    }
    bar.finish_and_clear();
    let report = rocpath_trace::merge(traces);
    for n in &notes {
        p.note(n);
    }
    for e in &errors {
        p.error_text(&format!("error: {e}\n"));
    }
    let (dispatches, failed) = (report.dispatches, !errors.is_empty());
    if p.global.json {
        p.json(
            &rocpath_docs::schema::TRACE,
            &rocpath_trace::document(report, notes, &errors),
        )?;
    } else if a.tsv {
        p.data(&rocpath_render::trace::tsv(&report))?;
    } else {
        p.data(&rocpath_render::trace::report(&report, a.top))?;
    }
    Ok(if failed {
        Status::Error
    } else if dispatches == 0 {
        Status::Negative
    } else {
        Status::Ok
    })
}
