//! A study file → the rocpath commands that read its recordings.

use crate::{Set, Study, StudyError, matches};
use std::path::{Path, PathBuf};

/// One rocpath command: it prints one JSON document, imported under `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Observation id (also the document's file name in `OUT/documents/`).
    pub id: String,
    /// The world of the recordings.
    pub world: String,
    /// Arguments after `rocpath --json`.
    pub args: Vec<String>,
    /// Whether the document is imported (a document only another step reads is not).
    pub import: bool,
}

/// The steps of a study.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The data root found.
    pub data_root: PathBuf,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// Sets left out, with why (their recordings are not there).
    pub skipped: Vec<String>,
}

/// The first data root that exists: entries relative to the study file's folder, or
/// `$VAR/…` under an environment variable.
fn data_root(study: &Study, file: &Path) -> Result<PathBuf, StudyError> {
    let base = file.parent().unwrap_or(Path::new("."));
    let mut tried = Vec::new();
    for r in &study.data_roots {
        let p = match r.strip_prefix('$') {
            Some(v) => {
                let (var, rest) = v.split_once('/').unwrap_or((v, ""));
                match std::env::var_os(var) {
                    Some(val) => PathBuf::from(val).join(rest),
                    None => continue,
                }
            }
            None => base.join(r),
        };
        if p.is_dir() {
            return Ok(std::fs::canonicalize(&p).unwrap_or(p));
        }
        tried.push(p.display().to_string());
    }
    Err(StudyError::NoData {
        path: file.to_path_buf(),
        tried: tried.join(", "),
    })
}

/// The files of a set that exist: its `paths`, and the files of `dir` that `files` names and
/// `exclude` does not, sorted.
fn inputs(root: &Path, s: &Set) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = s
        .paths
        .iter()
        .map(|p| root.join(p))
        // A file or a folder (a checkout, an install); never a FIFO or a device.
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() || m.is_dir()))
        .collect();
    if !s.dir.is_empty() {
        if let Ok(rd) = std::fs::read_dir(root.join(&s.dir)) {
            let mut found: Vec<PathBuf> = rd
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    s.files.iter().any(|p| matches(p, &n))
                        && !s.exclude.iter().any(|p| matches(p, &n))
                })
                .map(|e| e.path())
                .collect();
            found.sort();
            out.extend(found);
        }
    }
    out
}

fn text(p: &Path) -> String {
    p.display().to_string()
}

fn stem(p: &Path) -> String {
    let n = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = n.strip_suffix(".log").unwrap_or(&n).to_string();
    n.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Plans a study read from `file`; `documents` is the folder the documents go to.
pub fn plan(study: &Study, file: &Path, documents: &Path) -> Result<Plan, StudyError> {
    let root = data_root(study, file)?;
    let mut p = Plan {
        data_root: root.clone(),
        ..Plan::default()
    };
    let step = |id: String, world: &str, args: Vec<String>, import: bool| Step {
        id,
        world: world.to_string(),
        args,
        import,
    };
    for s in &study.cases {
        let logs = inputs(&root, s);
        if logs.is_empty() {
            p.skipped.push(format!("cases {}: no logs", s.name));
            continue;
        }
        for l in &logs {
            let mut args = vec!["case".into(), "read".into(), text(l)];
            args.extend(s.args.iter().cloned());
            p.steps.push(step(stem(l), &s.world, args, true));
        }
        if s.compare {
            let all = format!("{}-cases", s.name);
            let mut args = vec!["case".into(), "read".into()];
            args.extend(logs.iter().map(|l| text(l)));
            p.steps.push(step(all.clone(), &s.world, args, false));
            let mut args = vec![
                "explain".into(),
                "--compare".into(),
                text(&documents.join(format!("{all}.json"))),
            ];
            if !s.db.is_empty() {
                args.extend(["--db".into(), text(&root.join(&s.db))]);
            }
            p.steps
                .push(step(format!("{}-compare", s.name), &s.world, args, true));
        }
    }
    let sets: [(&str, &[Set], &[&str]); 7] = [
        ("traces", &study.traces, &["trace"]),
        ("runs", &study.runs, &["ollama", "read"]),
        ("strace", &study.strace, &["strace"]),
        ("repositories", &study.repositories, &["gates"]),
        ("inventory", &study.inventory, &["inventory"]),
        ("check", &study.check, &["check"]),
        ("isa", &study.isa, &["isa"]),
    ];
    for (what, list, cmd) in sets {
        for s in list {
            let files = inputs(&root, s);
            if files.is_empty() {
                p.skipped.push(format!("{what} {}: no recordings", s.name));
                continue;
            }
            let mut args: Vec<String> = cmd.iter().map(|c| c.to_string()).collect();
            args.extend(s.args.iter().cloned());
            args.extend(files.iter().map(|f| text(f)));
            p.steps.push(step(s.name.clone(), &s.world, args, true));
        }
    }
    for l in &study.lanes {
        let mut args = vec!["lanes".to_string(), "summarize".to_string()];
        if !l.metric.is_empty() {
            args.extend(["--metric".to_string(), l.metric.clone()]);
        }
        let mut all_there = true;
        for lane in &l.lanes {
            let (name, files) = lane.split_once('=').unwrap_or(("", lane));
            let files: Vec<PathBuf> = files.split(',').map(|f| root.join(f)).collect();
            all_there &= files.iter().all(|f| f.is_file());
            let joined: Vec<String> = files.iter().map(|f| text(f)).collect();
            args.push(if name.is_empty() {
                joined.join(",")
            } else {
                format!("{name}={}", joined.join(","))
            });
        }
        if all_there && !l.lanes.is_empty() {
            p.steps.push(step(l.name.clone(), &l.world, args, true));
        } else {
            p.skipped
                .push(format!("lanes {}: a lane file is missing", l.name));
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_for_present_recordings_only() {
        let d = tempfile::tempdir().unwrap();
        let data = d.path().join("data");
        std::fs::create_dir_all(data.join("logs")).unwrap();
        for f in ["a.log", "b.log", "a.solver_extract.log", "notes.md"] {
            std::fs::write(data.join("logs").join(f), "x").unwrap();
        }
        let file = d.path().join("study.toml");
        let study = Study {
            schema: crate::STUDY_SCHEMA.into(),
            data_roots: vec!["missing".into(), "data".into()],
            cases: vec![Set {
                name: "v".into(),
                world: "gfx900".into(),
                dir: "logs".into(),
                files: vec!["*.log".into()],
                exclude: vec!["*_extract.log".into()],
                compare: true,
                ..Set::default()
            }],
            traces: vec![Set {
                name: "t".into(),
                paths: vec!["nothing-here".into()],
                ..Set::default()
            }],
            ..Study::default()
        };
        let p = plan(&study, &file, Path::new("/out/documents")).unwrap();
        let ids: Vec<&str> = p.steps.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "v-cases", "v-compare"]);
        assert!(!p.steps[2].import && p.steps[3].import);
        assert_eq!(p.steps[3].args[2], "/out/documents/v-cases.json");
        assert_eq!(p.skipped, ["traces t: no recordings"]);
        let none = Study {
            data_roots: vec!["missing".into()],
            ..study
        };
        assert!(matches!(
            plan(&none, &file, Path::new("/o")),
            Err(StudyError::NoData { .. })
        ));
    }
}
