//! Readable output of `rocpath explain`: MIOpen predictions, ggml decisions, rocBLAS backends
//! and prediction-vs-observation comparisons.

use rocpath_evidence::Evidence;
use rocpath_explain::compare::Comparison;
use rocpath_explain::ggml::Decision;
use rocpath_explain::miopen::MiopenExplanation;
use rocpath_explain::rocblas::RocblasExplanation;
use rocpath_miopen::model::ir::Source;
use rocpath_miopen::select::{Mode, Tri};
use rocpath_miopen_derive::Report;
use std::fmt::Write;

fn ev(e: &Evidence) -> String {
    let mut s = format!("[{} / {} / {}", e.class, e.kind, e.rule);
    if let Some(l) = e.sources.first() {
        let _ = write!(s, " @ {l}");
    }
    s.push(']');
    s
}

/// One MIOpen explanation: the path, the prediction, the solvers (the applicable, the
/// unresolved and the forced one; every solver with `all`).
pub fn miopen(e: &MiopenExplanation, all: bool) -> String {
    let mut s = String::new();
    let cus = e
        .device
        .cus
        .map(|c| format!(", {c} CUs"))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "device          {} (DbId {}{cus})",
        e.device.target, e.device.db_id
    );
    let _ = writeln!(s, "problem         {}", e.problem.short());
    let _ = writeln!(s, "find-db key     {}", e.problem_key);
    let _ = writeln!(s, "network config  {}", e.network_config);
    let _ = writeln!(s, "perf-db key     {}", e.perf_db_key);
    let release = e
        .model
        .release
        .as_deref()
        .map(|r| format!(" with the {r} differences"))
        .unwrap_or_default();
    let _ = writeln!(s, "model           {}{release}", e.model.source);
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
    if let Some(k) = &e.kernel_cache {
        s.push_str(&kernel_cache(k));
    }
    if !e.ranked.is_empty() {
        s.push_str(&ranked(e));
    }
    let mode = match &e.mode {
        Mode::Find => format!("find ({:?})", e.find_mode),
        Mode::Immediate => "immediate (fastest)".into(),
        Mode::Forced(f) => format!("forced -S {f}"),
    };
    let _ = writeln!(s, "mode            {mode}");
    let _ = writeln!(s, "path");
    for (i, st) in e.path.iter().enumerate() {
        let _ = writeln!(s, "  {}. {}  ({})", i + 1, st.step, st.cite);
    }
    if !e.tunanet_ranked.is_empty() {
        s.push_str(&tunanet_ranked(e));
    }
    if !e.wti_ranked.is_empty() {
        s.push_str(&wti_ranked(e));
    }
    s.push_str(&predicted_line(e));
    s.push_str(&solver_table(e, all));
    if !e.gemms.is_empty() {
        s.push_str(&gemm_table(&e.gemms));
    }
    for r in &e.reasons {
        let _ = writeln!(s, "  - {}  {}", r.statement, ev(&r.evidence));
    }
    for n in &e.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

/// The `predicted` line: the solver, the failure or why there is no prediction.
fn predicted_line(e: &MiopenExplanation) -> String {
    let mut s = String::new();
    match (&e.predicted, &e.failure, &e.no_prediction) {
        (Some(p), _, _) => {
            let _ = writeln!(
                s,
                "predicted       {} ({})  {}",
                p.solver,
                p.algorithm,
                ev(&p.evidence)
            );
        }
        (None, Some(f), _) => {
            let _ = writeln!(
                s,
                "predicted       failure {}: {}  {}",
                f.failure,
                f.statement,
                ev(&f.evidence)
            );
        }
        (None, None, Some(r)) => {
            let _ = writeln!(
                s,
                "predicted       unresolved: {}  {}",
                r.statement,
                ev(&r.evidence)
            );
        }
        _ => {}
    }
    s
}

/// One line per rocBLAS call a GEMM solver issues, with the kernel the GEMM model predicts.
fn gemm_table(gemms: &[rocpath_explain::miopen::gemm::IssuedGemm]) -> String {
    let mut t = crate::table(&["solver", "rocBLAS call", "times", "kernel"]);
    for g in gemms {
        let call = match (&g.call, &g.unresolved) {
            (Some(c), _) => {
                let op = |o: &rocpath_gemm::problem::Op| format!("{o:?}");
                let ty: Vec<&str> = c.types.iter().map(|t| t.name()).collect();
                let mut text = format!(
                    "{} {}{} m={} n={} k={} lda={} ldb={} ldc={}",
                    c.api.name(),
                    op(&c.trans[0]),
                    op(&c.trans[1]),
                    c.m,
                    c.n,
                    c.k,
                    c.ld[0],
                    c.ld[1],
                    c.ld[2]
                );
                if c.api == rocpath_gemm::rocblas::Api::GemmStridedBatchedEx {
                    let _ = write!(
                        text,
                        " strides={}/{}/{} batch={}",
                        c.stride[0], c.stride[1], c.stride[2], c.batch
                    );
                }
                let _ = write!(
                    text,
                    " {} compute {} beta={}",
                    ty.join("/"),
                    c.compute.name(),
                    c.beta
                );
                if c.flags != 0 {
                    let _ = write!(text, " flags={:#x}", c.flags);
                }
                format!("{text}\n{}", g.cites.join(" "))
            }
            (None, Some(u)) => format!("unresolved: {u}"),
            (None, None) => String::new(),
        };
        let kernel = match &g.kernel {
            None => "-".to_string(),
            Some(k) => match (&k.name, k.index) {
                (Some(n), Some(i)) => format!("{n} (solution {i})  {}", ev(&k.evidence)),
                _ => format!(
                    "{}{}  {}",
                    k.outcome,
                    k.unresolved
                        .as_deref()
                        .map(|u| format!(": {u}"))
                        .unwrap_or_default(),
                    ev(&k.evidence)
                ),
            },
        };
        t.add_row(vec![
            comfy_table::Cell::new(&g.solver),
            comfy_table::Cell::new(call),
            crate::right(format!("{} per {}", g.times, g.per)),
            comfy_table::Cell::new(kernel),
        ]);
    }
    format!("gemm            the rocBLAS calls of the applicable GEMM solvers\n{t}\n")
}

fn ranked(e: &MiopenExplanation) -> String {
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
    format!("{t}\n")
}

/// TunaNet's order: each solver's output and what the immediate fallback did with it.
fn tunanet_ranked(e: &MiopenExplanation) -> String {
    let mut t = crate::table(&["#", "solver", "TunaNet output", "fallback"]);
    for (i, r) in e.tunanet_ranked.iter().enumerate() {
        t.add_row(vec![
            crate::right(i + 1),
            comfy_table::Cell::new(&r.solver),
            crate::right(format!("{:.4}", r.score)),
            comfy_table::Cell::new(r.fate.word()),
        ]);
    }
    format!("tunanet         the immediate fallback's order\n{t}\n")
}

/// The WTI ranking: each solver's estimate, the time MIOpen derives from it, and the fate.
fn wti_ranked(e: &MiopenExplanation) -> String {
    let mut t = crate::table(&["#", "solver", "WTI", "time ms", "fallback"]);
    for (i, r) in e.wti_ranked.iter().enumerate() {
        t.add_row(vec![
            crate::right(i + 1),
            comfy_table::Cell::new(&r.solver),
            crate::right(
                r.wti
                    .map(|w| format!("{w:.4}"))
                    .unwrap_or_else(|| "?".into()),
            ),
            crate::right(r.time_ms.map(|w| format!("{w:.4}")).unwrap_or_default()),
            comfy_table::Cell::new(r.fate.word()),
        ]);
    }
    format!("wti             the immediate fallback's WTI ranking\n{t}\n")
}

fn tri(t: Tri) -> &'static str {
    match t {
        Tri::Yes => "yes",
        Tri::No => "no",
        Tri::Unknown => "?",
    }
}

fn solver_table(e: &MiopenExplanation, all: bool) -> String {
    let forced = match &e.mode {
        Mode::Forced(f) => Some(f.as_str()),
        _ => None,
    };
    let count = |a: &str| e.solvers.iter().filter(|r| r.applicability == a).count();
    let s = format!(
        "solvers         {} applicable, {} unresolved, {} not applicable{}\n",
        count("applicable"),
        count("unresolved"),
        count("not_applicable"),
        if all {
            ""
        } else {
            " (--all lists every solver)"
        }
    );
    let mut t = crate::table(&[
        "id",
        "solver",
        "applicable",
        "dyn",
        "ws",
        "decided at",
        "condition / values",
    ]);
    for r in &e.solvers {
        let shown = all
            || r.applicability != "not_applicable"
            || forced.is_some_and(|f| f == r.solver || f.parse::<u64>().ok() == Some(r.id));
        if !shown {
            continue;
        }
        let mut cond = r
            .decided_at
            .as_ref()
            .and_then(|d| d.text.clone())
            .unwrap_or_default();
        if let Some(u) = &r.unresolved {
            cond = u.clone();
        }
        let reads: Vec<String> = r
            .reads
            .iter()
            .take(3)
            .map(|x| format!("{} = {}", x.what, x.value))
            .collect();
        if !reads.is_empty() && r.applicability == "not_applicable" {
            cond = format!("{cond}  [{}]", reads.join("; "));
        }
        t.add_row(vec![
            crate::right(r.id),
            comfy_table::Cell::new(&r.solver),
            comfy_table::Cell::new(match r.applicability.as_str() {
                "applicable" => "yes",
                "not_applicable" => "no",
                _ => "?",
            }),
            comfy_table::Cell::new(tri(r.dynamic)),
            comfy_table::Cell::new(tri(r.may_need_workspace)),
            comfy_table::Cell::new(
                r.decided_at
                    .as_ref()
                    .map(|d| d.at.clone())
                    .unwrap_or_default(),
            ),
            comfy_table::Cell::new(cond.chars().take(160).collect::<String>()),
        ]);
    }
    format!("{s}{t}\n")
}

/// What `explain miopen-derive` read and what it could not.
pub fn derive_report(source: &Source, r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "source          {}{}",
        source.short(),
        if source.prefix.is_empty() {
            String::new()
        } else {
            format!(" ({})", source.prefix)
        }
    );
    let _ = writeln!(s, "files parsed    {}", r.files);
    let _ = writeln!(
        s,
        "solvers         {} registered convolution solvers",
        r.solvers
    );
    let _ = writeln!(s, "functions       {} in the model", r.functions);
    let _ = writeln!(
        s,
        "rules           {} checked against the checkout, {} moved, {} changed, {} cite another repository",
        r.rules_checked,
        r.rules_moved.len(),
        r.rules_drifted.len(),
        r.rules_not_checked.len()
    );
    for (id, cite) in &r.rules_moved {
        let _ = writeln!(s, "  moved, unchanged: {id} now at {cite}");
    }
    for (id, why) in &r.rules_drifted {
        let _ = writeln!(s, "  not re-derived: {id}: {why}");
    }
    for n in &r.solvers_without_is_applicable {
        let _ = writeln!(s, "  no IsApplicable: {n}");
    }
    for n in &r.entries_missing {
        let _ = writeln!(s, "  entry point not found: {n}");
    }
    if !r.unresolved_calls.is_empty() {
        let list: Vec<String> = r
            .unresolved_calls
            .iter()
            .map(|(k, v)| format!("{k} ×{v}"))
            .collect();
        let _ = writeln!(
            s,
            "unresolved calls (verdicts reaching them are unresolved): {}",
            list.join(", ")
        );
    }
    if !r.unsupported.is_empty() {
        let list: Vec<String> = r
            .unsupported
            .iter()
            .map(|(k, v)| format!("{k} ×{v}"))
            .collect();
        let _ = writeln!(s, "constructs not translated: {}", list.join(", "));
    }
    if !r.unknown_build_flags.is_empty() {
        let _ = writeln!(
            s,
            "build switches without a release value: {}",
            r.unknown_build_flags.join(", ")
        );
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
            comfy_table::Cell::new(r.phase),
            comfy_table::Cell::new(r.dispatches),
            comfy_table::Cell::new(&r.observed),
            comfy_table::Cell::new(r.ne11.map(|n| n.to_string()).unwrap_or_else(|| "-".into())),
            comfy_table::Cell::new(r.predicted.as_deref().unwrap_or("-")),
            comfy_table::Cell::new(r.verdict.as_str()),
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
    let mut t = crate::table(&[
        "case",
        "mode",
        "observed",
        "predicted",
        "verdict",
        "solver statements",
    ]);
    for r in c {
        let n = |k: &str| r.solver_counts.get(k).copied().unwrap_or(0);
        t.add_row(vec![
            comfy_table::Cell::new(&r.case),
            comfy_table::Cell::new(r.mode.as_deref().unwrap_or("-")),
            comfy_table::Cell::new(match (&r.observed, &r.observed_outcome) {
                (Some(o), _) => o.clone(),
                (None, Some(k)) => k.clone(),
                _ => "-".into(),
            }),
            comfy_table::Cell::new(r.predicted.as_deref().unwrap_or("-")),
            comfy_table::Cell::new(r.verdict.as_str()),
            comfy_table::Cell::new(format!(
                "{} agree, {} disagree, {} unresolved",
                n("agree"),
                n("disagree"),
                n("unresolved")
            )),
        ]);
    }
    let mut s = format!("{t}\n");
    for r in c {
        let _ = writeln!(s, "{}: {}  {}", r.case, r.statement, ev(&r.evidence));
        if let Some(q) = &r.question {
            let _ = writeln!(s, "  open question: {q}");
        }
        for d in r
            .solvers
            .iter()
            .filter(|d| d.verdict == rocpath_explain::compare::Verdict::Disagree)
        {
            let _ = writeln!(
                s,
                "  disagree: {} logged {} (line {}), model says {}{}",
                d.solver,
                d.logged,
                d.line,
                d.model,
                d.decided_at
                    .as_deref()
                    .map(|a| format!(" at {a}"))
                    .unwrap_or_default()
            );
        }
    }
    s
}

/// The kernel databases a device opens, and what compiles on the first run.
fn kernel_cache(k: &rocpath_explain::miopen::kcache::KernelCache) -> String {
    let mut s = String::new();
    for d in &k.databases {
        let what = match (&d.kernels, &d.error) {
            (Some(n), _) => format!("{n} kernels"),
            (None, Some(e)) => format!("unreadable: {e}"),
            (None, None) => "unread".into(),
        };
        let _ = writeln!(
            s,
            "kernel db       {} ({}, {})  {what}",
            d.path.display(),
            d.role,
            d.choice
        );
    }
    let _ = writeln!(
        s,
        "first run       {}  {}",
        k.first_run.statement,
        ev(&k.first_run.evidence)
    );
    s
}
