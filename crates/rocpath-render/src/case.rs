//! Case renderers: the readable path report, the Markdown trace map (the template the
//! research workflow filled by hand, filled from the report), and the case table.

use crate::{table, tsv_line};
use rocpath_case::model::{CaseReport, Fate};
use rocpath_case::table::CaseRow;
use rocpath_evidence::Evidence;
use std::fmt::Write;

fn lines_of(e: &Evidence) -> String {
    let mut out: Vec<String> = e
        .sources
        .iter()
        .map(|l| {
            let file = l.path.rsplit('/').next().unwrap_or(&l.path);
            match l.line {
                Some(n) => format!("{file}:{n}"),
                None => file.to_string(),
            }
        })
        .collect();
    out.dedup();
    out.join(", ")
}

fn id_name(id: Option<u64>, name: &str) -> String {
    id.map_or_else(|| name.to_string(), |i| format!("{i}/{name}"))
}

fn fate_str(f: Fate) -> &'static str {
    match f {
        Fate::Selected => "selected",
        Fate::Failed => "failed",
        Fate::Forced => "forced",
        Fate::BestForAlgorithm => "best for its algorithm",
        Fate::Evaluated => "evaluated",
        Fate::Succeeded => "solution found",
        Fate::FindDbRecord => "in find-db record",
        Fate::ImmediateCandidate => "immediate-mode candidate",
        Fate::NotApplicable => "not applicable",
        Fate::SkippedNonDynamic => "skipped (non-dynamic)",
        Fate::WorkspaceQueryOnly => "workspace query only",
    }
}

/// The readable report of one case.
pub fn case_report(r: &CaseReport) -> String {
    let mut o = String::new();
    head(&mut o, r);
    candidates(&mut o, r);
    lookups(&mut o, r);
    gemm(&mut o, r);
    problems_and_files(&mut o, r);
    o
}

/// The case, its outcome and why, the device and versions, the command, the exit, the
/// problem, the forced and the selected solver.
fn head(o: &mut String, r: &CaseReport) {
    let _ = writeln!(o, "case {}  ({})", r.name, r.path);
    let sub = sub_kind(r);
    let _ = writeln!(
        o,
        "outcome   {}{sub}  [{}]  {}",
        r.outcome.kind.as_str(),
        r.outcome.evidence.class,
        r.outcome.reason
    );
    let _ = writeln!(
        o,
        "          decided by {} at {}",
        r.outcome.evidence.rule,
        lines_of(&r.outcome.evidence)
    );
    if let Some(d) = &r.device {
        let _ = writeln!(
            o,
            "device    {}{}  ({})",
            d.arch,
            d.name
                .as_deref()
                .map(|n| format!(" {n}"))
                .unwrap_or_default(),
            lines_of(&d.evidence)
        );
    }
    for f in &r.libraries {
        let _ = writeln!(o, "          {} = {}", f.what, f.value);
    }
    if let Some(m) = &r.meta {
        if !m.command_line.is_empty() {
            let _ = writeln!(o, "command   {}", m.command_line);
        }
    }
    let exit = exit_text(r);
    let _ = writeln!(
        o,
        "exit      {exit}{}",
        r.exit
            .evidence
            .as_ref()
            .map(|e| format!("  [{} {}]", e.class, e.rule))
            .unwrap_or_default()
    );
    for p in &r.problems {
        let _ = writeln!(
            o,
            "problem   {}  (key {}; seen as {})",
            p.problem.short(),
            p.key,
            p.seen_as.join(", ")
        );
    }
    if let Some(f) = &r.forced {
        let _ = writeln!(
            o,
            "forced    {} via {}  [{}] {}",
            id_name(f.id, &f.solver),
            f.via,
            f.evidence.class,
            lines_of(&f.evidence)
        );
    }
    match &r.selected {
        Some(s) => {
            let _ = writeln!(
                o,
                "selected  {}{}  [{}] {}",
                id_name(s.solver_id, &s.solver),
                s.algorithm
                    .as_deref()
                    .map(|a| format!(" ({a})"))
                    .unwrap_or_default(),
                s.evidence.class,
                lines_of(&s.evidence)
            );
            if !s.kernels.is_empty() {
                let _ = writeln!(o, "kernels   {}", s.kernels.join(", "));
            }
        }
        None => {
            let _ = writeln!(o, "selected  none");
        }
    }
}

/// The solvers tried, by fate, and the kernels Find ran for each.
fn candidates(o: &mut String, r: &CaseReport) {
    if !r.candidates.is_empty() {
        let mut counts: std::collections::BTreeMap<Fate, Vec<&str>> = Default::default();
        for c in &r.candidates {
            counts.entry(c.fate).or_default().push(&c.solver);
        }
        let _ = writeln!(o, "\ncandidates ({}):", r.candidates.len());
        for (f, names) in &counts {
            let shown: Vec<&str> = names.iter().take(8).copied().collect();
            let more = if names.len() > 8 {
                format!(" … (+{})", names.len() - 8)
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "  {:26} {:3}  {}{more}",
                fate_str(*f),
                names.len(),
                shown.join(", ")
            );
        }
        let evaluated: Vec<_> = r
            .candidates
            .iter()
            .filter(|c| !c.kernels.is_empty())
            .collect();
        if !evaluated.is_empty() {
            let _ = writeln!(o, "kernels Find ran, by the solver evaluated:");
            for c in evaluated {
                let _ = writeln!(o, "  {:28} {}", c.solver, c.kernels.join(", "));
            }
        }
    }
}

/// The C-API probe's blocks and the database lookups.
fn lookups(o: &mut String, r: &CaseReport) {
    if !r.capi_blocks.is_empty() {
        let _ = writeln!(o, "\nMIOpen C-API probe:");
        for b in &r.capi_blocks {
            let _ = writeln!(o, "  {}  ({})", b.summary, lines_of(&b.evidence));
        }
    }
    if !r.db_lookups.is_empty() {
        let _ = writeln!(o, "\ndatabase lookups:");
        for l in &r.db_lookups {
            let found = match l.found {
                Some(true) => "found",
                Some(false) => "not found",
                None => "?",
            };
            let rec = if l.record.is_empty() {
                String::new()
            } else {
                format!(
                    " → {}",
                    l.record
                        .iter()
                        .map(|i| format!("{} {} ms", i.solver, i.time_ms))
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            };
            let file = l.file.rsplit('/').next().unwrap_or(&l.file);
            let _ = writeln!(o, "  {:13} {:9} {} {}{rec}", l.db, found, file, l.key);
        }
    }
}

/// The GEMM calls, the rocblas-bench results and the Tensile kernels.
fn gemm(o: &mut String, r: &CaseReport) {
    if !r.gemm_calls.is_empty() {
        let mut t = table(&[
            "api",
            "backend",
            "op",
            "m",
            "n",
            "k",
            "batch",
            "a/b/c/d/compute",
            "count",
            "from",
        ]);
        for g in &r.gemm_calls {
            let ty = |x: &Option<String>| x.clone().unwrap_or_else(|| "?".into());
            t.add_row(vec![
                g.api.clone(),
                g.backend.clone().unwrap_or_else(|| "-".into()),
                format!("{}{}", g.trans_a, g.trans_b),
                g.m.to_string(),
                g.n.to_string(),
                g.k.to_string(),
                g.batch_count.map(|b| b.to_string()).unwrap_or_default(),
                format!(
                    "{}/{}/{}/{}/{}",
                    ty(&g.types.a),
                    ty(&g.types.b),
                    ty(&g.types.c),
                    ty(&g.types.d),
                    ty(&g.types.compute)
                ),
                g.count.to_string(),
                g.source.clone(),
            ]);
        }
        let _ = writeln!(o, "\nGEMM calls:\n{t}");
    }
    for b in &r.bench_results {
        let cols: Vec<String> = b
            .columns
            .iter()
            .filter(|(c, _)| {
                !matches!(
                    c.as_str(),
                    "alpha" | "beta" | "lda" | "ldb" | "ldc" | "ldd" | "cold_iters" | "hot_iters"
                )
            })
            .map(|(c, v)| format!("{c}={v}"))
            .collect();
        let _ = writeln!(o, "bench     {}", cols.join(" "));
    }
    for k in &r.tensile_kernels {
        let d = k.decoded.as_ref().map(|d| {
            format!(
                " ({}{}{}, MT {:?}, {}{})",
                d.data_type,
                if d.trans_a { " Aᵀ" } else { "" },
                if d.trans_b { " Bᵀ" } else { "" },
                d.macro_tile.unwrap_or_default(),
                k.instruction_kind,
                d.global_split_u()
                    .map(|g| format!(", GSU {g}"))
                    .unwrap_or_default()
            )
        });
        let _ = writeln!(
            o,
            "tensile   {} ×{}{}",
            k.name,
            k.count,
            d.unwrap_or_default()
        );
    }
}

/// Fallbacks, errors, notes, the verification, timings and the files read.
fn problems_and_files(o: &mut String, r: &CaseReport) {
    for f in &r.fallbacks {
        let _ = writeln!(
            o,
            "fallback  {} {}: {} ×{} ({})",
            f.library,
            f.kind,
            f.message,
            f.count,
            lines_of(&f.evidence)
        );
    }
    for e in &r.errors {
        let _ = writeln!(
            o,
            "error     {} {}: {}{} ×{} ({})",
            e.library,
            e.kind,
            e.message,
            e.rc.map(|rc| format!(" [rc {rc:#x}]")).unwrap_or_default(),
            e.count,
            lines_of(&e.evidence)
        );
    }
    for n in &r.notes {
        let _ = writeln!(o, "note      {}: {} ×{}", n.library, n.message, n.count);
    }
    if let Some(v) = &r.verification {
        let _ = writeln!(
            o,
            "verify    {}  {}",
            if v.ok { "ok" } else { "FAILED" },
            v.detail
        );
    }
    for t in r.timings.iter().filter(|t| !t.what.starts_with("find ")) {
        let _ = writeln!(o, "time      {} {} ms", t.what, t.ms);
    }
    let _ = writeln!(o, "\nfiles:");
    for f in &r.files {
        let _ = writeln!(
            o,
            "  {}  {} bytes, {} lines, sha256 {}",
            f.path, f.bytes, f.lines, f.sha256
        );
    }
}

/// The trace map: the Markdown page the research workflow filled by hand for each case, filled
/// from the report. Every statement names the lines it rests on.
pub fn trace_map(r: &CaseReport) -> String {
    let mut o = String::new();
    let status = match r.outcome.kind {
        rocpath_case::model::OutcomeKind::FallbackObserved => "fallback_confirmed",
        rocpath_case::model::OutcomeKind::Natural => "fallback_not_confirmed",
        _ => "need_more_cases",
    };
    let _ = writeln!(o, "# TRACE MAP\n");
    let _ = writeln!(o, "- case_id: {}", r.name);
    let _ = writeln!(o, "- status: {status}");
    let sub = sub_kind(r);
    let _ = writeln!(
        o,
        "- outcome: `{}{sub}` ({}, rule `{}`)",
        r.outcome.kind.as_str(),
        r.outcome.evidence.class,
        r.outcome.evidence.rule
    );
    if let Some(d) = &r.device {
        let _ = writeln!(o, "- device: `{}`", d.arch);
    }
    if let Some(m) = &r.meta {
        if !m.command_line.is_empty() {
            let _ = writeln!(o, "- command: `{}`", m.command_line);
        }
    }
    let _ = writeln!(o, "\n## 1. Observed Lines\n");
    for f in &r.files {
        let _ = writeln!(
            o,
            "- log: `{}` (sha256 `{}`, {} lines)",
            f.path, f.sha256, f.lines
        );
    }
    key_evidence(&mut o, r);
    let _ = writeln!(o, "\n## 3. Decision\n");
    for s in [
        "fallback_confirmed",
        "fallback_not_confirmed",
        "need_more_cases",
    ] {
        let _ = writeln!(o, "- [{}] {s}", if s == status { "x" } else { " " });
    }
    let _ = writeln!(o, "\n## 4. Notes\n");
    let _ = writeln!(o, "- {}", r.outcome.reason);
    let _ = writeln!(
        o,
        "- decided by `{}` at {}",
        r.outcome.evidence.rule,
        lines_of(&r.outcome.evidence)
    );
    o
}

/// How the run ended, as the report and the trace map say it.
fn exit_text(r: &CaseReport) -> String {
    match (&r.exit.code, &r.exit.signal) {
        (Some(c), Some(s)) => format!("{c} ({s})"),
        (Some(c), None) => c.to_string(),
        (None, Some(s)) => s.clone(),
        (None, None) => "not recorded".into(),
    }
}

/// `/<sub kind>` of the outcome, when it has one.
fn sub_kind(r: &CaseReport) -> String {
    r.outcome
        .sub_kind
        .as_deref()
        .map(|s| format!("/{s}"))
        .unwrap_or_default()
}

/// One row of the trace map's evidence table.
fn row(o: &mut String, what: &str, value: &str, e: &Evidence) {
    let _ = writeln!(
        o,
        "| {what} | {} | {} | {} |",
        value.replace('|', "\\|"),
        e.class,
        lines_of(e)
    );
}

/// The trace map's "Key Evidence" table: the forced and selected solver, the problem, the
/// candidates that matter, the db lookups, fallbacks, errors, GEMM calls, the exit.
fn key_evidence(o: &mut String, r: &CaseReport) {
    let _ = writeln!(o, "\n## 2. Key Evidence\n");
    let _ = writeln!(o, "| observation | value | class | lines |");
    let _ = writeln!(o, "|---|---|---|---|");
    if let Some(f) = &r.forced {
        row(
            o,
            "forced solver",
            &format!("`{}` via {}", id_name(f.id, &f.solver), f.via),
            &f.evidence,
        );
    }
    if let Some(s) = &r.selected {
        row(
            o,
            "solver selected",
            &format!("`{}`", id_name(s.solver_id, &s.solver)),
            &s.evidence,
        );
        if !s.kernels.is_empty() {
            row(
                o,
                "kernel selected",
                &format!("`{}`", s.kernels.join("`, `")),
                &s.evidence,
            );
        }
    } else {
        let _ = writeln!(o, "| solver selected | none | | |");
    }
    for p in &r.problems {
        row(o, "problem", &format!("`{}`", p.key), &p.evidence);
    }
    for c in r.candidates.iter().filter(|c| {
        matches!(
            c.fate,
            Fate::NotApplicable | Fate::SkippedNonDynamic | Fate::Failed
        ) && (c.solver.contains("Mlir")
            || c.solver.contains("ImplicitGemm")
            || c.solver.contains("Ck")
            || c.solver.contains("lops"))
    }) {
        row(
            o,
            "candidate",
            &format!("`{}`: {}", c.solver, fate_str(c.fate)),
            &c.evidence,
        );
    }
    for l in r
        .db_lookups
        .iter()
        .filter(|l| l.db == "find_db" || l.db == "perf_db")
    {
        let found = match l.found {
            Some(true) => "found",
            Some(false) => "not found",
            None => "unknown",
        };
        row(
            o,
            &format!("{} lookup", l.db),
            &format!("`{}`: {found}", l.key),
            &l.evidence,
        );
    }
    for f in &r.fallbacks {
        row(
            o,
            "fallback",
            &format!("{} {}: {}", f.library, f.kind, f.message),
            &f.evidence,
        );
    }
    for e in &r.errors {
        row(
            o,
            "error",
            &format!("{} {}: {}", e.library, e.kind, e.message),
            &e.evidence,
        );
    }
    runtime_rows(o, r);
}

/// The GEMM calls (the first 20) and the exit, as rows of the evidence table.
fn runtime_rows(o: &mut String, r: &CaseReport) {
    for g in r.gemm_calls.iter().take(20) {
        row(
            o,
            "gemm",
            &format!(
                "{} {}{} {}x{}x{} backend {} ×{}",
                g.api,
                g.trans_a,
                g.trans_b,
                g.m,
                g.n,
                g.k,
                g.backend.as_deref().unwrap_or("?"),
                g.count
            ),
            &g.evidence,
        );
    }
    if let Some(e) = &r.exit.evidence {
        row(o, "exit", &exit_text(r), e);
    }
}

/// The case table for people.
pub fn case_table(rows: &[CaseRow]) -> String {
    let mut t = table(&[
        "case", "dtype", "problem", "forced", "outcome", "selected", "kernel", "exit",
    ]);
    for r in rows {
        t.add_row(vec![
            r.case.clone(),
            r.dtype.clone(),
            r.problem.clone(),
            r.forced.clone(),
            r.outcome.clone(),
            r.selected.clone(),
            r.kernel.clone(),
            r.exit.clone(),
        ]);
    }
    format!("{t}\n")
}

/// The case table as TSV (header line first).
pub fn case_table_tsv(rows: &[CaseRow]) -> String {
    let mut o = String::new();
    tsv_line(
        &mut o,
        &[
            "case", "dtype", "problem", "forced", "outcome", "selected", "kernel", "exit", "path",
        ]
        .map(String::from),
    );
    for r in rows {
        tsv_line(
            &mut o,
            &[
                r.case.clone(),
                r.dtype.clone(),
                r.problem.clone(),
                r.forced.clone(),
                r.outcome.clone(),
                r.selected.clone(),
                r.kernel.clone(),
                r.exit.clone(),
                r.path.clone(),
            ],
        );
    }
    o
}
