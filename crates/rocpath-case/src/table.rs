//! The case table: one row per case of a folder — the "assessment" view (case, dtype,
//! problem, forced solver, outcome, selected solver, kernel).

use crate::model::CaseReport;
use rocpath_evidence::Evidence;
use serde::Serialize;

/// One row.
#[derive(Debug, Clone, Serialize)]
pub struct CaseRow {
    /// Case name.
    pub case: String,
    /// Data type of the first problem (`FP32`, `INT8`), or of the GEMMs.
    pub dtype: String,
    /// The first problem, short form.
    pub problem: String,
    /// Forced solver (`id/name`), empty when none.
    pub forced: String,
    /// Outcome (`kind` or `kind/sub_kind`).
    pub outcome: String,
    /// Selected solver (`id/name`), empty when none.
    pub selected: String,
    /// Kernels of the selected solver, `;`-joined.
    pub kernel: String,
    /// Exit (`0`, `134 (SIGABRT)`, `SIGSEGV`, or empty).
    pub exit: String,
    /// Path of the case.
    pub path: String,
    /// The outcome's evidence.
    pub evidence: Evidence,
}

fn id_name(id: Option<u64>, name: &str) -> String {
    match id {
        Some(i) => format!("{i}/{name}"),
        None => name.to_string(),
    }
}

/// The row of a report.
pub fn row(r: &CaseReport) -> CaseRow {
    let first = r.problems.first();
    let dtype = first
        .map(|p| format!("{}{}", p.problem.types_key(), p.problem.casts_key()))
        .or_else(|| r.gemm_calls.first().and_then(|g| g.types.a.clone()))
        .unwrap_or_default();
    let exit = match (&r.exit.code, &r.exit.signal) {
        (Some(c), Some(s)) => format!("{c} ({s})"),
        (Some(c), None) => c.to_string(),
        (None, Some(s)) => s.clone(),
        (None, None) => String::new(),
    };
    CaseRow {
        case: r.name.clone(),
        dtype,
        problem: first.map(|p| p.problem.short()).unwrap_or_else(|| {
            r.gemm_calls
                .first()
                .map(|g| format!("gemm {}x{}x{} {}{}", g.m, g.n, g.k, g.trans_a, g.trans_b))
                .unwrap_or_default()
        }),
        forced: r
            .forced
            .as_ref()
            .map(|f| id_name(f.id, &f.solver))
            .unwrap_or_default(),
        outcome: match &r.outcome.sub_kind {
            Some(s) => format!("{}/{s}", r.outcome.kind.as_str()),
            None => r.outcome.kind.as_str().to_string(),
        },
        selected: r
            .selected
            .as_ref()
            .map(|s| id_name(s.solver_id, &s.solver))
            .unwrap_or_default(),
        kernel: r
            .selected
            .as_ref()
            .map(|s| s.kernels.join(";"))
            .unwrap_or_default(),
        exit,
        path: r.path.clone(),
        evidence: r.outcome.evidence.clone(),
    }
}
