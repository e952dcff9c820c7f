//! `rocpath ollama read PATH...`

use crate::cli::{OllamaArgs, OllamaCommand};
use crate::output::{Printer, Status};
use rocpath_ollama::VerdictKind;

pub fn run(a: OllamaArgs, p: &Printer) -> anyhow::Result<Status> {
    let OllamaCommand::Read(a) = a.command;
    super::check_paths(&a.paths)?;
    let (runs, notes, errors) = rocpath_ollama::run::read_paths(&a.paths, a.single);
    for e in &errors {
        p.error_text(&format!("error: {e}\n"));
    }
    let negative = runs.is_empty()
        || runs
            .iter()
            .any(|r| r.verdict.verdict != VerdictKind::Gpu || !r.failures.is_empty());
    if p.global.json {
        p.json(
            &rocpath_docs::schema::OLLAMA,
            &rocpath_ollama::document(runs, notes, &errors),
        )?;
    } else {
        p.data(&rocpath_render::ollama::runs(&runs, &notes))?;
    }
    Ok(if !errors.is_empty() {
        Status::Error
    } else if negative {
        Status::Negative
    } else {
        Status::Ok
    })
}
