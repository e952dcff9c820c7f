//! Readable output of `rocpath explain`: MIOpen predictions, ggml decisions, rocBLAS backends
//! and prediction-vs-observation comparisons.

use rocpath_evidence::Evidence;
use rocpath_explain::compare::Comparison;
use rocpath_explain::ggml::Decision;
use rocpath_explain::miopen::MiopenExplanation;
use rocpath_explain::rocblas::RocblasExplanation;
use std::fmt::Write;

fn ev(e: &Evidence) -> String {
    let mut s = format!("[{} / {} / {}", e.class, e.kind, e.rule);
    if let Some(l) = e.sources.first() {
        let _ = write!(s, " @ {l}");
    }
    s.push(']');
    s
}

/// One MIOpen explanation.
pub fn miopen(e: &MiopenExplanation) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "device          {} (DbId {})",
        e.device.target, e.device.db_id
    );
    let _ = writeln!(s, "find-db key     {}", e.problem_key);
    let _ = writeln!(s, "network config  {}", e.network_config);
    let _ = writeln!(s, "perf-db key     {}", e.perf_db_key);
    match &e.db_file {
        Some(f) => {
            let _ = writeln!(s, "find-db file    {}  {}", f.file.name, ev(&f.evidence));
        }
        None => {
            let _ = writeln!(s, "find-db file    none");
        }
    }
    if let Some(f) = &e.perf_db_file {
        let _ = writeln!(s, "perf-db file    {}  {}", f.file.name, ev(&f.evidence));
    }
    let _ = writeln!(
        s,
        "record          {}",
        e.record_source.as_deref().unwrap_or("not found")
    );
    if !e.ranked.is_empty() {
        let mut t = crate::table(&[
            "#",
            "solver",
            "id",
            "algorithm",
            "time ms",
            "workspace",
            "perf-db",
        ]);
        for (i, r) in e.ranked.iter().enumerate() {
            t.add_row(vec![
                crate::right(i + 1),
                comfy_table::Cell::new(&r.solver),
                crate::right(r.id.map(|i| i.to_string()).unwrap_or_default()),
                comfy_table::Cell::new(&r.algorithm),
                crate::right(r.time_ms),
                crate::right(r.workspace),
                comfy_table::Cell::new(match r.perf_db_record {
                    Some(true) => "tuned",
                    Some(false) => "none",
                    None => "-",
                }),
            ]);
        }
        let _ = writeln!(s, "{t}");
    }
    match (&e.predicted, &e.no_prediction) {
        (Some(p), _) => {
            let _ = writeln!(
                s,
                "predicted       {} ({})  {}",
                p.solver,
                p.algorithm,
                ev(&p.evidence)
            );
        }
        (None, Some(r)) => {
            let _ = writeln!(
                s,
                "predicted       none: {}  {}",
                r.statement,
                ev(&r.evidence)
            );
        }
        _ => {}
    }
    for r in &e.reasons {
        let _ = writeln!(s, "  - {}  {}", r.statement, ev(&r.evidence));
    }
    for n in &e.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

/// One ggml decision.
pub fn ggml(d: &Decision) -> String {
    let mut s = format!(
        "path  {}\nrule  {}\nat    {}\ncc    {}\n",
        d.path, d.rule, d.at, d.cc
    );
    for t in &d.trace {
        let _ = writeln!(s, "  before: {t}");
    }
    let _ = writeln!(s, "{}", ev(&d.evidence));
    s
}

/// A sweep: one row per run of equal decisions.
pub fn ggml_sweep(runs: &[(i64, i64, Decision)]) -> String {
    let mut t = crate::table(&["ne11", "path", "rule at"]);
    for (a, b, d) in runs {
        let range = if a == b {
            a.to_string()
        } else {
            format!("{a}..{b}")
        };
        t.add_row(vec![
            crate::right(range),
            comfy_table::Cell::new(&d.path),
            comfy_table::Cell::new(&d.at),
        ]);
    }
    format!("{t}\n")
}

/// One rocBLAS explanation.
pub fn rocblas(e: &RocblasExplanation) -> String {
    let mut s = format!(
        "{} {}: backend {} — {}  {}\n",
        e.processor,
        e.dtype,
        e.backend,
        e.backend_reason.statement,
        ev(&e.backend_reason.evidence)
    );
    for (name, p) in [("Tensile", &e.tensile), ("hipBLASLt", &e.hipblaslt)] {
        if let Some(p) = p {
            let _ = writeln!(
                s,
                "{name:9} {}: index {}, {} tuned file(s) / {} solutions, {} fallback file(s) / {} solutions",
                p.dir,
                p.index.as_deref().unwrap_or("none"),
                p.target_files.len(),
                p.target_solutions,
                p.fallback_files.len(),
                p.fallback_solutions
            );
        }
    }
    for f in &e.fallbacks {
        let _ = writeln!(s, "  - {}  {}", f.statement, ev(&f.evidence));
    }
    let _ = writeln!(s, "outcome {}", e.outcome);
    s
}

/// Trace kernels next to ggml's prediction: a table, then each statement.
pub fn kernel_comparisons(c: &[rocpath_explain::compare_trace::KernelComparison]) -> String {
    let mut t = crate::table(&[
        "kernel",
        "type",
        "phase",
        "dispatches",
        "observed",
        "ne11",
        "predicted",
        "verdict",
    ]);
    for r in c {
        let k: String = r.kernel.chars().take(60).collect();
        t.add_row(vec![
            comfy_table::Cell::new(k),
            comfy_table::Cell::new(&r.ggml_type),
            comfy_table::Cell::new(&r.phase),
            comfy_table::Cell::new(r.dispatches),
            comfy_table::Cell::new(&r.observed),
            comfy_table::Cell::new(r.ne11.map(|n| n.to_string()).unwrap_or_else(|| "-".into())),
            comfy_table::Cell::new(r.predicted.as_deref().unwrap_or("-")),
            comfy_table::Cell::new(&r.verdict),
        ]);
    }
    let mut s = format!("{t}\n");
    for r in c {
        let _ = writeln!(s, "{}: {}  {}", r.trace, r.statement, ev(&r.evidence));
        if let Some(q) = &r.question {
            let _ = writeln!(s, "  open question: {q}");
        }
    }
    s
}

/// Comparisons, one row per case.
pub fn comparisons(c: &[Comparison]) -> String {
    let mut t = crate::table(&["case", "observed", "predicted", "verdict"]);
    for r in c {
        t.add_row(vec![
            comfy_table::Cell::new(&r.case),
            comfy_table::Cell::new(r.observed.as_deref().unwrap_or("-")),
            comfy_table::Cell::new(r.predicted.as_deref().unwrap_or("-")),
            comfy_table::Cell::new(&r.verdict),
        ]);
    }
    let mut s = format!("{t}\n");
    for r in c {
        let _ = writeln!(s, "{}: {}  {}", r.case, r.statement, ev(&r.evidence));
        if let Some(q) = &r.question {
            let _ = writeln!(s, "  open question: {q}");
        }
    }
    s
}
