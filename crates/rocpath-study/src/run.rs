//! Running a study: the readers, then import, derive, check and the site.

use crate::{Plan, Study, StudyError, plan};
use rocpath_ledger::derive::DeriveReport;
use rocpath_ledger::store::Ledger;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a study run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The data root used.
    pub data_root: String,
    /// Documents written by the readers.
    pub documents: usize,
    /// Observations imported (new or replaced).
    pub imported: usize,
    /// Sets left out (recordings not there).
    pub skipped: Vec<String>,
    /// Steps that failed: command, why.
    pub failed: Vec<(String, String)>,
    /// The derivation.
    pub derive: DeriveReport,
    /// `ledger check` errors.
    pub check_errors: usize,
    /// `ledger check` warnings.
    pub check_warnings: usize,
    /// The site: pages, files, bytes.
    pub site: Option<rocpath_site::Report>,
    /// The raw files copied beside the site.
    pub raw: Option<rocpath_site::raw::RawReport>,
}

/// Progress of a run: `(done, total, what)` before each step.
pub type Progress<'a> = &'a (dyn Fn(usize, usize, &str) + Sync);

/// Runs one reader; its JSON goes to `file`. A reader that printed a document counts as run
/// whatever its exit status (1 is a negative answer, 2 names unreadable items inside).
fn read(exe: &Path, args: &[String], file: &Path) -> Result<(), String> {
    let out = std::fs::File::create(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let status = Command::new(exe)
        .args(["--json", "--no-progress", "-q"])
        .args(args)
        .stdout(out)
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let printed = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0) > 0;
    if printed {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&status.stderr);
        Err(format!(
            "exit {}: {}",
            status.status.code().unwrap_or(-1),
            err.lines().next().unwrap_or("no output")
        ))
    }
}

/// Runs a study read from `file` with the rocpath binary `exe` into `out` (`documents/`,
/// `ledger/`, `site/`); `date` dates the derived claims' history.
pub fn run(
    study: &Study,
    file: &Path,
    exe: &Path,
    out: &Path,
    date: &str,
    copy_raw: bool,
    progress: Progress<'_>,
) -> Result<Report, StudyError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| StudyError::Io { path, source }
    };
    let documents = out.join("documents");
    std::fs::create_dir_all(&documents).map_err(io(&documents))?;
    let documents = std::fs::canonicalize(&documents).map_err(io(&documents))?;
    let plan: Plan = plan(study, file, &documents)?;
    let mut report = Report {
        data_root: plan.data_root.display().to_string(),
        skipped: plan.skipped.clone(),
        ..Report::default()
    };
    let total = plan.steps.len() + 3;
    let mut to_import: Vec<(PathBuf, &crate::Step)> = Vec::new();
    for (i, s) in plan.steps.iter().enumerate() {
        progress(
            i,
            total,
            &format!("rocpath {}", s.args[..2.min(s.args.len())].join(" ")),
        );
        let f = documents.join(format!("{}.json", s.id));
        match read(exe, &s.args, &f) {
            Ok(()) => {
                report.documents += 1;
                if s.import {
                    to_import.push((f, s));
                }
            }
            Err(why) => report
                .failed
                .push((format!("rocpath --json {}", s.args.join(" ")), why)),
        }
    }
    let ledger_dir = out.join("ledger");
    let ledger = open_ledger(study, &ledger_dir, &plan.data_root)?;
    let guard = ledger.lock("rocpath study build")?;
    progress(plan.steps.len(), total, "ledger import");
    let cwd = std::env::current_dir().map_err(io(Path::new(".")))?;
    for (f, s) in &to_import {
        match rocpath_ledger::import::import_file_in(
            &guard,
            &ledger,
            f,
            Some(&s.id),
            &cwd,
            &s.world,
        ) {
            Ok(r) if r.outcome != rocpath_ledger::import::ImportOutcome::Unchanged => {
                report.imported += 1
            }
            Ok(_) => {}
            Err(e) => report
                .failed
                .push((format!("import {}", f.display()), e.to_string())),
        }
    }
    progress(plan.steps.len() + 1, total, "ledger derive");
    report.derive = rocpath_ledger::derive::derive(&guard, &ledger, date)?;
    drop(guard);
    progress(plan.steps.len() + 2, total, "ledger check, site build");
    let checked = rocpath_ledger::check::check_ledger(&ledger)?;
    report.check_errors = checked.count(rocpath_ledger::check::Severity::Error);
    report.check_warnings = checked.count(rocpath_ledger::check::Severity::Warning);
    let loaded = ledger.load()?;
    let opts = rocpath_site::Options {
        version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let (site, raw) =
        rocpath_site::build_published(&ledger_dir, loaded, &out.join("site"), &opts, copy_raw)?;
    report.site = Some(site);
    report.raw = raw;
    Ok(report)
}

/// Opens the study's ledger, or creates it with the study's title and data root.
fn open_ledger(study: &Study, dir: &Path, data_root: &Path) -> Result<Ledger, StudyError> {
    if dir.join("ledger.toml").is_file() {
        return Ok(Ledger::open(dir)?.0);
    }
    let mut meta = rocpath_ledger::starter_meta(study.title.clone());
    std::fs::create_dir_all(dir).map_err(|source| StudyError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    meta.data_root = rocpath_ledger::import::relative(&abs, data_root)
        .to_string_lossy()
        .replace('\\', "/");
    Ok(Ledger::init(dir, &meta)?)
}
