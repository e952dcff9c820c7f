//! `rocpath ollama read PATH...`

use crate::cli::{OllamaArgs, OllamaCommand};
use crate::output::{Printer, Status};
use rocpath_ollama::VerdictKind;
use serde::Serialize;

#[derive(Serialize)]
struct Doc<'a> {
    runs: &'a [rocpath_ollama::RunReport],
    notes: &'a [String],
    errors: &'a [String],
}

pub fn run(a: OllamaArgs, p: &Printer) -> anyhow::Result<Status> {
    let OllamaCommand::Read(a) = a.command;
    super::check_paths(&a.paths)?;
    let (runs, notes, errors) = rocpath_ollama::run::read_paths(&a.paths, a.single);
    let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
    for e in &errors {
        p.error_text(&format!("error: {e}\n"));
    }
    if p.global.json {
        p.json(
            rocpath_ollama::SCHEMA,
            &Doc {
                runs: &runs,
                notes: &notes,
                errors: &errors,
            },
        )?;
    } else {
        p.data(&rocpath_render::ollama::runs(&runs, &notes))?;
    }
    Ok(if !errors.is_empty() {
        Status::Error
    } else if runs.is_empty()
        || runs
            .iter()
            .any(|r| r.verdict.verdict != VerdictKind::Gpu || !r.failures.is_empty())
    {
        Status::Negative
    } else {
        Status::Ok
    })
}
