//! Provenance of source gates: the blame queries of gate lines, every gate of a scan traced
//! in one batched walk per checkout, and the JSON documents of `rocpath gates` and
//! `rocpath provenance`.

use crate::blame::{self, LineProvenance, Query};
use rocpath_evidence::{Class, Evidence, Proof};
use rocpath_gates::{Gate, RepoSummary, Report, ScanIssue};

use std::path::{Path, PathBuf};

/// The blame query of a gate: its line, the tokens that make it a gate (a rewrite that keeps
/// one is followed back) and the references of its comment.
pub fn query_of(g: &Gate) -> Query {
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

/// The blame query of line `line` of `path` in the working tree of `repo`: when the line is
/// a gate, its gate tokens and predicate are the keys and its comment's references are kept.
pub fn query_at(repo: &Path, path: String, line: u64) -> Query {
    let found = rocpath_budget::input::read_bytes(
        &repo.join(&path),
        &rocpath_budget::MemoryBudget::default(),
        64 << 20,
        "a source file",
    )
    .ok()
    .map(|(b, _)| b)
    .and_then(|src| rocpath_gates::scan_bytes(&path, &src).ok())
    .and_then(|found| found.into_iter().find(|f| f.line == line));
    let (keys, comment_refs) = match found {
        Some(f) => (
            f.patterns
                .iter()
                .map(|p| p.text.clone())
                .chain(f.predicate)
                .collect(),
            f.references,
        ),
        None => (Vec::new(), Vec::new()),
    };
    Query {
        path,
        line,
        keys,
        comment_refs,
    }
}

/// How many gate lines [`blame_gates`] traces (gates without a line are not traced).
pub fn lines_to_trace(report: &Report) -> u64 {
    report.gates.iter().filter(|g| g.line.is_some()).count() as u64
}

/// Blames every gate line of `report`, one batched trace per checkout. `roots` are the
/// checkouts in the order they were scanned (the report's `repos`). Returns the provenance
/// of each gate, by index, and one issue (`provenance.unavailable`, unresolved) per checkout
/// whose history could not be read. `progress` gets the number of lines traced.
pub fn blame_gates(
    roots: &[PathBuf],
    report: &Report,
    progress: &(dyn Fn(u64) + Sync),
) -> (Vec<Option<LineProvenance>>, Vec<ScanIssue>) {
    let mut out: Vec<Option<LineProvenance>> = vec![None; report.gates.len()];
    let mut issues = Vec::new();
    for (root, summary) in roots.iter().zip(&report.repos) {
        let idx: Vec<usize> = gates_of(report, summary);
        if idx.is_empty() {
            continue;
        }
        let queries: Vec<Query> = idx.iter().map(|&i| query_of(&report.gates[i])).collect();
        match blame::trace_with(root, &queries, &blame::Options::default(), progress) {
            Ok(lines) => {
                for (i, l) in idx.into_iter().zip(lines) {
                    out[i] = Some(l);
                }
            }
            Err(e) => issues.push(unavailable(&summary.name, &e)),
        }
    }
    (out, issues)
}

/// Indices of the gates of one checkout that have a line.
fn gates_of(report: &Report, summary: &RepoSummary) -> Vec<usize> {
    report
        .gates
        .iter()
        .enumerate()
        .filter(|(_, g)| g.repo == summary.name && g.line.is_some())
        .map(|(i, _)| i)
        .collect()
}

fn unavailable(repo: &str, e: &blame::Error) -> ScanIssue {
    ScanIssue {
        repo: repo.to_string(),
        path: String::new(),
        message: format!("provenance not available: {e}"),
        evidence: Evidence::new(
            Class::Unresolved,
            Proof::HistoryVerified,
            "provenance.unavailable",
        ),
    }
}

pub use rocpath_docs::gates::{GateOut, GatesDoc, TargetOut};
pub use rocpath_docs::provenance::ProvenanceDoc;

/// The document of a scan, its provenance (by gate index), tables and errors.
pub fn gates_doc(
    report: &Report,
    provenance: Option<&[Option<LineProvenance>]>,
    targets: Vec<TargetOut>,
    errors: Vec<ScanIssue>,
) -> GatesDoc {
    let gates = report
        .gates
        .iter()
        .enumerate()
        .map(|(i, g)| GateOut {
            gate: g.clone(),
            provenance: provenance
                .and_then(|v| v.get(i))
                .and_then(Option::as_ref)
                .cloned(),
        })
        .collect();
    GatesDoc {
        repos: report.repos.clone(),
        gates,
        targets,
        errors,
    }
}
