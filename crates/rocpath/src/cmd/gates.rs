//! `rocpath gates REPO… [--arch gfxNNN] [--blame] [--timeline --tags PATTERN]` and
//! `rocpath provenance REPO FILE:LINE…`

use crate::cli::{GatesArgs, ProvenanceArgs};
use crate::output::{Printer, Status};
use rocpath_docs::schema;
use rocpath_provenance::blame;
use rocpath_provenance::gates::{ProvenanceDoc, TargetOut, blame_gates, gates_doc, query_at};

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
        memory: Some(super::budget(p)),
    };
    let bar = p.bar("scanning sources");
    let report = rocpath_gates::scan_with(&a.repos, &opts, &|n| bar.inc_length(n), &|n| bar.inc(n));
    bar.finish_and_clear();
    let report = report?;
    let mut errors = report.issues.clone();
    let prov = if a.blame {
        let bar = p.counter(
            "tracing gate lines through history",
            rocpath_provenance::gates::lines_to_trace(&report),
        );
        let (prov, issues) = blame_gates(&a.repos, &report, &|n| bar.inc(n));
        bar.finish_and_clear();
        errors.extend(issues);
        Some(prov)
    } else {
        None
    };
    for e in &errors {
        // A checkout without git history is a limit of what gates can carry, not an error.
        let kind = if e.evidence.rule == "gates.no_commit" {
            "note"
        } else {
            "error"
        };
        let line = if e.path.is_empty() {
            format!("{kind}: {}\n", e.message)
        } else {
            format!("{kind}: {}:{}: {}\n", e.repo, e.path, e.message)
        };
        p.error_text(&line);
    }
    let targets: Vec<TargetOut> = arches
        .iter()
        .map(|arch| TargetOut {
            arch: arch.clone(),
            rows: rocpath_gates::for_target(&report, arch),
        })
        .collect();
    if p.global.json {
        let doc = gates_doc(&report, prov.as_deref(), targets, errors);
        p.json(&schema::GATES, &doc)?;
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
        p.json(&schema::GATES_TIMELINE, &t)?;
    } else {
        p.data(&rocpath_render::gates::timeline(&t))?;
    }
    Ok(if t.tags.is_empty() {
        Status::Negative
    } else {
        Status::Ok
    })
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
        queries.push(query_at(&a.repo, path, line));
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
            &schema::PROVENANCE,
            &ProvenanceDoc {
                repo: a.repo.display().to_string(),
                lines: lines.clone(),
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
