//! `rocpath survey [--root DIR] [--rocminfo FILE] [--paths P,...] [--only]`

use crate::cli::SurveyArgs;
use crate::output::{Printer, Status};
use indicatif::ProgressBar;
use rocpath_docs::schema;
use rocpath_survey::{AnswerKind, Options, Rocminfo};
use std::time::Duration;

/// How long `rocminfo` may take before the survey goes on without it.
const ROCMINFO_TIMEOUT: Duration = Duration::from_secs(20);

/// The bar: one stage after another, each scan's bytes within its stage.
struct Progress(ProgressBar);

impl rocpath_inventory::Progress for Progress {
    fn begin(&self, _files: u64, bytes: u64) {
        self.0.set_length(bytes);
    }
    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }
}

impl rocpath_survey::Progress for Progress {
    fn stage(&self, what: &str) {
        self.0.set_position(0);
        self.0.set_length(0);
        self.0.set_message(what.to_string());
    }
}

fn rocminfo(a: &SurveyArgs) -> anyhow::Result<Option<Rocminfo>> {
    if let Some(f) = &a.rocminfo {
        let text = rocpath_budget::read_small_text(f, rocpath_inventory::device::MAX_TEXT)
            .map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        return Ok(Some(Rocminfo {
            text,
            source: f.display().to_string(),
        }));
    }
    if a.root.is_some() || a.no_rocminfo {
        return Ok(None);
    }
    Ok(rocpath_survey::devices::run_rocminfo(ROCMINFO_TIMEOUT))
}

pub fn run(a: SurveyArgs, p: &Printer) -> anyhow::Result<Status> {
    if let Some(r) = &a.root {
        if !r.is_dir() {
            anyhow::bail!("--root {}: not a folder", r.display());
        }
    }
    let opts = Options {
        root: a.root.clone().unwrap_or_else(|| "/".into()),
        process_env: a.root.is_none().then(|| std::env::vars().collect()),
        rocminfo: rocminfo(&a)?,
        homes: a.home.clone(),
        paths: a.paths.clone(),
        only_paths: a.only,
        max_depth: a.max_depth,
        max_time: a.max_time,
        limits: super::limits(&a.scan, p),
    };
    let bar = p.bar("surveying");
    let s = rocpath_survey::survey(&opts, &Progress(bar.clone()));
    super::save_hashes(&opts.limits, p);
    bar.finish_and_clear();
    p.error_text(&rocpath_render::survey::survey_errors(&s));
    if p.global.json {
        p.json(&schema::SURVEY, &s)?;
    } else {
        p.data(&rocpath_render::survey::survey_table(
            &s,
            p.global.verbose > 0,
        ))?;
    }
    p.note(&format!(
        "surveyed {} and {} ({}) in {:.2} s",
        rocpath_survey::count(s.stats.folders as usize, "folder"),
        rocpath_survey::count(s.stats.files as usize, "file"),
        rocpath_render::bytes(s.stats.bytes),
        s.stats.seconds
    ));
    if !s.errors.is_empty() || !s.scan_errors.is_empty() {
        return Ok(Status::Error);
    }
    Ok(match s.answer.kind {
        AnswerKind::GpuWork => Status::Ok,
        _ => Status::Negative,
    })
}
