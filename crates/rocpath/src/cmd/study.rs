//! `rocpath study build STUDY.toml -o OUT`

use crate::cli::{StudyArgs, StudyBuildArgs, StudyCommand};
use crate::output::{Printer, Status};
use rocpath_docs::schema;

pub fn run(a: StudyArgs, p: &Printer) -> anyhow::Result<Status> {
    match a.command {
        StudyCommand::Build(a) => build(a, p),
    }
}

fn build(a: StudyBuildArgs, p: &Printer) -> anyhow::Result<Status> {
    let study = rocpath_study::load(&a.study)?;
    let date = a
        .date
        .unwrap_or_else(|| p.run.time.chars().take(10).collect());
    let exe = std::env::current_exe()?;
    let bar = p.counter("study", 0);
    let progress = |done: usize, total: usize, what: &str| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(what.to_string());
    };
    let report = rocpath_study::run(&study, &a.study, &exe, &a.out, &date, a.copy_raw, &progress)?;
    bar.finish_and_clear();
    for (what, why) in &report.failed {
        p.error_text(&format!("error: {what}: {why}\n"));
    }
    let failed = !report.failed.is_empty();
    let negative = report.check_errors > 0;
    if p.global.json {
        p.json(
            &schema::STUDY_BUILD,
            &rocpath_study::BuildDoc::new(&a.study, &a.out, report),
        )?;
    } else {
        p.data(&rocpath_render::ledger::study(&a.out, &report))?;
    }
    Ok(if failed {
        Status::Error
    } else if negative {
        Status::Negative
    } else {
        Status::Ok
    })
}
