//! `rocpath gates REPO… [--arch gfxNNN] [--blame] [--timeline --tags PATTERN]` and
//! `rocpath provenance REPO FILE:LINE…`

use crate::cli::{GatesArgs, ProvenanceArgs};
use crate::output::{Printer, Status};
use rocpath_gates::{Gate, Report, TargetRow};
use rocpath_provenance::blame::{self, LineProvenance, Query};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Serialize)]
struct GateOut<'a> {
    #[serde(flatten)]
    gate: &'a Gate,
    #[serde(skip_serializing_if = "Option::is_none")]
    provenance: Option<&'a LineProvenance>,
}

#[derive(Serialize)]
struct TargetOut {
    arch: String,
    rows: Vec<TargetRow>,
}

#[derive(Serialize)]
struct Doc<'a> {
    repos: &'a [rocpath_gates::RepoSummary],
    gates: Vec<GateOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    targets: Vec<TargetOut>,
    errors: Vec<ErrorOut>,
}

#[derive(Serialize)]
struct ErrorOut {
    repo: String,
    path: String,
    message: String,
    evidence: rocpath_evidence::Evidence,
}

fn processor(a: &str) -> anyhow::Result<String> {
    let p = a.split(':').next().unwrap_or(a).to_ascii_lowercase();
    if !rocpath_gates::targets::is_known(&p) {
        anyhow::bail!("unknown gfx target {a:?}; `rocpath arch` lists the targets");
    }
    Ok(p)
}

pub fn run(a: GatesArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(&a.repos)?;
    let arches: Vec<String> = a
        .arch
        .iter()
        .map(|s| processor(s))
        .collect::<anyhow::Result<_>>()?;
    if a.timeline {
        return run_timeline(&a, &arches, p);
    }
    let opts = rocpath_gates::Options {
        max_file_bytes: a.max_file_bytes,
        include_tests: a.include_tests,
    };
    let bar = p.bar("scanning sources");
    let report = rocpath_gates::scan_with(&a.repos, &opts, &|n| bar.inc_length(n), &|n| bar.inc(n));
    bar.finish_and_clear();
    let report = report?;
    let mut errors: Vec<ErrorOut> = report
        .issues
        .iter()
        .map(|i| ErrorOut {
            repo: i.repo.clone(),
            path: i.path.clone(),
            message: i.message.clone(),
            evidence: i.evidence.clone(),
        })
        .collect();
    let prov = if a.blame {
        Some(blame_gates(&a.repos, &report, &mut errors, p))
    } else {
        None
    };
    for e in &errors {
        p.error_text(&format!("error: {}:{}: {}\n", e.repo, e.path, e.message));
    }
    let targets: Vec<TargetOut> = arches
        .iter()
        .map(|arch| TargetOut {
            arch: arch.clone(),
            rows: rocpath_gates::for_target(&report, arch),
        })
        .collect();
    if p.global.json {
        let gates = report
            .gates
            .iter()
            .enumerate()
            .map(|(i, g)| GateOut {
                gate: g,
                provenance: prov
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .and_then(|x| x.as_ref()),
            })
            .collect();
        p.json(
            "rocpath.gates/1",
            &Doc {
                repos: &report.repos,
                gates,
                targets,
                errors,
            },
        )?;
    } else if a.tsv {
        if targets.is_empty() {
            p.data(&rocpath_render::gates::gates_tsv(&report, prov.as_deref()))?;
        } else {
            for t in &targets {
                p.data(&rocpath_render::gates::target_tsv(&t.rows, &report))?;
            }
        }
    } else if targets.is_empty() {
        p.data(&rocpath_render::gates::gates(&report, prov.as_deref()))?;
    } else {
        for t in &targets {
            p.data(&rocpath_render::gates::target(
                &t.arch,
                &t.rows,
                &report,
                prov.as_deref(),
            ))?;
        }
    }
    Ok(if !report.issues.is_empty() && report.gates.is_empty() {
        Status::Error
    } else if report.gates.is_empty() {
        Status::Negative
    } else {
        Status::Ok
    })
}

/// Blames every gate line, one batched trace per repository.
fn blame_gates(
    roots: &[PathBuf],
    report: &Report,
    errors: &mut Vec<ErrorOut>,
    p: &Printer,
) -> Vec<Option<LineProvenance>> {
    let mut out: Vec<Option<LineProvenance>> = vec![None; report.gates.len()];
    let total = report.gates.iter().filter(|g| g.line.is_some()).count() as u64;
    let bar = p.counter("tracing gate lines through history", total);
    for (ri, root) in roots.iter().enumerate() {
        let Some(summary) = report.repos.get(ri) else {
            continue;
        };
        let idx: Vec<usize> = report
            .gates
            .iter()
            .enumerate()
            .filter(|(_, g)| g.repo == summary.name && g.line.is_some())
            .map(|(i, _)| i)
            .collect();
        if idx.is_empty() {
            continue;
        }
        let queries: Vec<Query> = idx
            .iter()
            .filter_map(|&i| report.gates.get(i))
            .map(query_of)
            .collect();
        let inc = |n: u64| bar.inc(n);
        match blame::trace_with(root, &queries, &blame::Options::default(), &inc) {
            Ok(lines) => {
                for (i, l) in idx.into_iter().zip(lines) {
                    out[i] = Some(l);
                }
            }
            Err(e) => errors.push(ErrorOut {
                repo: summary.name.clone(),
                path: String::new(),
                message: format!("provenance not available: {e}"),
                evidence: rocpath_evidence::Evidence::new(
                    rocpath_evidence::Class::Unresolved,
                    rocpath_evidence::Proof::HistoryVerified,
                    "provenance.unavailable",
                ),
            }),
        }
    }
    bar.finish_and_clear();
    out
}

fn query_of(g: &Gate) -> Query {
    let mut keys: Vec<String> = g
        .patterns
        .iter()
        .map(|p| p.text.clone())
        .filter(|t| !t.is_empty())
        .collect();
    keys.dedup();
    Query {
        path: g.path.clone(),
        line: g.line.unwrap_or(1),
        keys,
        comment_refs: g.references.clone(),
    }
}

fn run_timeline(a: &GatesArgs, arches: &[String], p: &Printer) -> anyhow::Result<Status> {
    let (Some(repo), [arch]) = (a.repos.first(), arches) else {
        anyhow::bail!("--timeline takes one repository and one --arch");
    };
    if a.repos.len() != 1 {
        anyhow::bail!("--timeline takes one repository and one --arch");
    }
    let bar = p.counter("reading release tags", 0);
    let t = rocpath_provenance::timeline::timeline_with(
        repo,
        arch,
        &a.tags,
        a.max_file_bytes,
        &|done, all| {
            bar.set_length(all);
            bar.set_position(done);
        },
    );
    bar.finish_and_clear();
    let t = t?;
    for i in &t.issues {
        p.error_text(&format!("error: {}:{}: {}\n", i.repo, i.path, i.message));
    }
    if t.tags.is_empty() {
        p.note(&format!(
            "no tag of {} matches {:?}",
            repo.display(),
            a.tags
        ));
    }
    if p.global.json {
        p.json("rocpath.gates.timeline/1", &t)?;
    } else {
        p.data(&rocpath_render::gates::timeline(&t))?;
    }
    Ok(if t.tags.is_empty() {
        Status::Negative
    } else {
        Status::Ok
    })
}

#[derive(Serialize)]
struct ProvDoc<'a> {
    repo: String,
    lines: &'a [LineProvenance],
}

/// Parses `FILE:LINE`.
fn file_line(s: &str) -> anyhow::Result<(String, u64)> {
    let (f, l) = s
        .rsplit_once(':')
        .ok_or_else(|| anyhow::anyhow!("{s:?}: give FILE:LINE"))?;
    let line: u64 = l
        .parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| anyhow::anyhow!("{s:?}: the line must be a number from 1"))?;
    Ok((f.trim_start_matches("./").to_string(), line))
}

pub fn run_provenance(a: ProvenanceArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(std::slice::from_ref(&a.repo))?;
    let mut queries = Vec::new();
    for s in &a.lines {
        let (path, line) = file_line(s)?;
        let (keys, refs) = keys_for(&a.repo, &path, line);
        queries.push(Query {
            path,
            line,
            keys,
            comment_refs: refs,
        });
    }
    let opts = blame::Options {
        rev: a.rev.clone(),
        ..blame::Options::default()
    };
    let bar = p.counter("tracing lines through history", queries.len() as u64);
    let inc = |n: u64| bar.inc(n);
    let lines = blame::trace_with(&a.repo, &queries, &opts, &inc);
    bar.finish_and_clear();
    let lines = lines?;
    for l in &lines {
        if let Some(e) = &l.error {
            p.error_text(&format!("error: {}:{}: {e}\n", l.path, l.line));
        }
    }
    if p.global.json {
        p.json(
            "rocpath.provenance/1",
            &ProvDoc {
                repo: a.repo.display().to_string(),
                lines: &lines,
            },
        )?;
    } else if a.tsv {
        p.data(&rocpath_render::gates::provenance_tsv(&lines))?;
    } else {
        p.data(&rocpath_render::gates::provenance(&lines))?;
    }
    Ok(if lines.iter().any(|l| l.error.is_some()) {
        Status::Error
    } else if lines.iter().all(|l| l.introduced.is_some()) {
        Status::Ok
    } else {
        Status::Negative
    })
}

/// The gate keys and comment references of a line in the working tree, when it is a gate.
fn keys_for(repo: &Path, path: &str, line: u64) -> (Vec<String>, Vec<String>) {
    let Ok(src) = std::fs::read(repo.join(path)) else {
        return (Vec::new(), Vec::new());
    };
    let Ok(found) = rocpath_gates::scan_bytes(path, &src) else {
        return (Vec::new(), Vec::new());
    };
    match found.iter().find(|f| f.line == line) {
        Some(f) => (
            f.patterns
                .iter()
                .map(|p| p.text.clone())
                .chain(f.predicate.clone())
                .collect(),
            f.references.clone(),
        ),
        None => (Vec::new(), Vec::new()),
    }
}
