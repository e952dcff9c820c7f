//! ggml's predicted matrix-multiplication path next to the kernels a trace shows ran.
//!
//! The observation is a `rocpath trace --json` document (schema `rocpath.trace/2`), read with
//! its own type ([`rocpath_docs::trace::TraceDoc`]): each trace's path, agents and kernels
//! (name, family, dispatches and their prefill/decode split). Each ggml
//! matrix-multiplication kernel (`mul_mat_q`, `mul_mat_vec_q`, `mul_mat_f`, `mul_mat_vec_f`)
//! names its weight type in its template (`(ggml_type)12` is `q4_K`); the prediction is
//! [`crate::ggml::mul_mat`] for that type on the device. A `mul_mat_vec_*` kernel carries its
//! batch (`ncols_dst`) in the template: it is compared with the prediction at that `ne11`.
//! For the others the batch is not in the trace (and the prefill/decode split is a proxy), so
//! the comparison asks for which dense `ne11` (1…4096) ggml would take the observed path:
//! none is a disagreement — the rules of the pinned ggml never choose it, so the application
//! ran other rules (another ggml version) or another op (MUL_MAT_ID) — some is consistent
//! (inferred). Counts are given per phase as the trace splits them. Flash-attention kernels
//! (`flash_attn_ext_vec`, `flash_attn_tile`, `flash_attn_ext_f16`) are asked of
//! [`crate::ggml::flash_attn`] over a grid of Q batch, GQA ratio and KV length, with the head
//! size and K type of their template.

use crate::compare::Verdict;
use crate::ggml::{self, Decision, FaQuery, Query, Rules};
use rocpath_arch::TargetId;
use rocpath_docs::trace::{Family, KernelRecord, TraceDoc, TraceRecord};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::path::Path;

pub use rocpath_docs::compare::Phase;

/// One kernel (and phase) compared, with ggml's decision.
pub type KernelComparison = rocpath_docs::compare::KernelComparison<Decision>;

fn fa_path(family: Family) -> Option<&'static str> {
    Some(match family {
        Family::FlashAttnVec => "fa_vec",
        Family::FlashAttnTile => "fa_tile",
        Family::FlashAttnMma => "fa_mma_f16",
        _ => return None,
    })
}

/// `1..8, 64` from `[(1, 8), (64, 64)]`.
fn ranges_text(r: &[(i64, i64)]) -> String {
    r.iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}..{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What one kernel's comparison found, before it is stated per phase.
struct Finding {
    verdict: Verdict,
    /// The statement after "`N` `phase` dispatch(es) ".
    tail: String,
    question: Option<String>,
    evidence: Evidence,
    predicted: Option<String>,
    decision: Option<Decision>,
    ranges: Vec<(i64, i64)>,
}

impl Finding {
    fn new(verdict: Verdict, class: Class, proof: Proof, rule: &str, loc: &Locator) -> Self {
        Finding {
            verdict,
            tail: String::new(),
            question: None,
            evidence: Evidence::new(class, proof, rule).at(loc.clone()),
            predicted: None,
            decision: None,
            ranges: Vec::new(),
        }
    }
}

/// Sweeps of `ggml::mul_mat` over ne11 = 1…4096, kept per (type, experts): several kernels
/// of a trace share a weight type, and a sweep is 4096 rule evaluations.
type Sweeps = std::collections::HashMap<(String, i64), Option<Vec<(i64, i64, Decision)>>>;

fn sweep<'a>(
    cache: &'a mut Sweeps,
    rules: &Rules,
    q: &Query,
) -> Option<&'a Vec<(i64, i64, Decision)>> {
    cache
        .entry((q.src0_type.clone(), q.experts))
        .or_insert_with(|| ggml::sweep(rules, q, 1, 4096).ok())
        .as_ref()
}

fn ranges_of(runs: &[(i64, i64, Decision)], path: &str) -> Vec<(i64, i64)> {
    runs.iter()
        .filter(|(_, _, d)| d.path == path)
        .map(|(a, b, _)| (*a, *b))
        .collect()
}

/// A ggml matrix-multiplication kernel against `ggml::mul_mat`.
fn mul_mat_one(
    rules: &Rules,
    cache: &mut Sweeps,
    q: &Query,
    observed: &str,
    fixed: Option<i64>,
    loc: &Locator,
) -> Finding {
    let (ty, arch) = (&q.src0_type, &q.target);
    let Some(dense) = sweep(cache, rules, q) else {
        let mut f = Finding::new(
            Verdict::NoPrediction,
            Class::Unresolved,
            Proof::Hypothesis,
            "compare.ggml.no_prediction",
            loc,
        );
        f.tail = format!(
            "of {observed} for {ty} on {arch}: the rules of {} cannot answer for this device or type",
            rules.version()
        );
        return f;
    };
    let ranges = ranges_of(dense, observed);
    let mut f = match fixed {
        Some(ne11) => at_batch(rules, q, observed, ne11, loc),
        None if !ranges.is_empty() => {
            let mut f = Finding::new(
                Verdict::Consistent,
                Class::Inferred,
                Proof::Hypothesis,
                "compare.ggml.consistent",
                loc,
            );
            f.evidence = f
                .evidence
                .because("the batch size is not in the trace".to_string());
            f.tail = format!(
                "of {observed} for {ty} on {arch}: ggml takes {observed} for dense ne11 in {}; the trace does not give the batch",
                ranges_text(&ranges)
            );
            f
        }
        None => never_dense(rules, cache, q, observed, loc),
    };
    f.ranges = ranges;
    f
}

/// The observed kernel against the rules at the batch size the trace gives.
fn at_batch(rules: &Rules, q: &Query, observed: &str, ne11: i64, loc: &Locator) -> Finding {
    let (ty, arch) = (&q.src0_type, &q.target);
    let d = ggml::mul_mat(rules, &Query { ne11, ..q.clone() }).ok();
    match d {
        None => {
            let mut f = Finding::new(
                Verdict::NoPrediction,
                Class::Unresolved,
                Proof::Hypothesis,
                "compare.ggml.no_prediction",
                loc,
            );
            f.tail = format!("of {observed} for {ty} on {arch}: no prediction at ne11={ne11}");
            f
        }
        Some(d) if d.path == observed => {
            let mut f = Finding::new(
                Verdict::Agree,
                Class::Confirmed,
                Proof::RuntimeVerified,
                "compare.ggml.agree",
                loc,
            );
            f.tail = format!(
                "of {observed} for {ty} on {arch}: ggml predicts {} at ne11={ne11} ({})",
                d.path, d.at
            );
            f.predicted = Some(d.path.clone());
            f.decision = Some(d);
            f
        }
        Some(d) => {
            let mut f = Finding::new(
                Verdict::Disagree,
                Class::Unresolved,
                Proof::Hypothesis,
                "compare.ggml.disagree",
                loc,
            );
            f.tail = format!(
                "ran {observed} for {ty} on {arch}, but ggml's rules predict {} at ne11={ne11} ({}: {})",
                d.path, d.at, d.rule
            );
            f.question = Some(format!(
                "Why did {ty} on {arch} run {observed} at ne11={ne11} when the rules say {}? (another ggml version in the application, a MoE or batched op, or a rule to correct)",
                d.path
            ));
            f.predicted = Some(d.path.clone());
            f.decision = Some(d);
            f
        }
    }
}

/// A kernel the rules never take for a dense batch: a disagreement, naming the batches of a
/// MoE's `MUL_MAT_ID` that would take it.
fn never_dense(
    rules: &Rules,
    cache: &mut Sweeps,
    q: &Query,
    observed: &str,
    loc: &Locator,
) -> Finding {
    let (ty, arch) = (&q.src0_type, &q.target);
    let moe = sweep(
        cache,
        rules,
        &Query {
            experts: 8,
            ..q.clone()
        },
    )
    .map(|runs| ranges_of(runs, observed))
    .unwrap_or_default();
    let also = if moe.is_empty() {
        String::new()
    } else {
        format!(
            "; they choose it for MUL_MAT_ID (experts > 0) at ne11 {}",
            ranges_text(&moe)
        )
    };
    let mut f = Finding::new(
        Verdict::Disagree,
        Class::Unresolved,
        Proof::Hypothesis,
        "compare.ggml.disagree",
        loc,
    );
    f.tail = format!(
        "ran {observed} for {ty} on {arch}, but the rules of {} take {observed} for no dense batch from 1 to 4096{also}",
        rules.version()
    );
    f.question = Some(format!(
        "Why did {ty} on {arch} run {observed}, which the rules never choose for a dense MUL_MAT? (another ggml version in the application, MUL_MAT_ID of a MoE model, or a rule to correct)"
    ));
    f
}

/// A flash-attention kernel against ggml's flash-attention rules. The head size and the K
/// type are in the template; the Q batch, the GQA ratio and the KV length are not in the
/// trace, so the rules are asked over a grid of them: the observed kernel is consistent when
/// some point of the grid selects it, a disagreement when none does, no prediction when the
/// rules answer for no point.
fn flash_attn_one(
    rules: &Rules,
    arch: &TargetId,
    head: i64,
    kv_type: &str,
    observed: &str,
    loc: &Locator,
) -> Finding {
    const BATCH: [i64; 11] = [1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512];
    const GQA: [i64; 5] = [1, 2, 4, 7, 8];
    const KV: [i64; 3] = [512, 4096, 32768];
    let mut batches: Vec<i64> = Vec::new();
    let mut seen_paths: Vec<String> = Vec::new();
    for &batch in &BATCH {
        for &gqa in &GQA {
            for &kv_len in &KV {
                let q = FaQuery {
                    target: arch.clone(),
                    head,
                    head_v: head,
                    batch,
                    gqa,
                    kv_type: kv_type.to_string(),
                    kv_len,
                };
                let Ok(d) = ggml::flash_attn(rules, &q) else {
                    continue;
                };
                if d.path == observed && !batches.contains(&batch) {
                    batches.push(batch);
                }
                if !seen_paths.contains(&d.path) {
                    seen_paths.push(d.path);
                }
            }
        }
    }
    let what = format!("{observed} (head {head}, K {kv_type}) on {arch}");
    let mut f = if seen_paths.is_empty() {
        let mut f = Finding::new(
            Verdict::NoPrediction,
            Class::Unresolved,
            Proof::Hypothesis,
            "compare.ggml.no_prediction",
            loc,
        );
        f.tail = format!(
            "of {what}: the rules of {} cannot answer for this device or head size",
            rules.version()
        );
        f
    } else if batches.is_empty() {
        let mut f = Finding::new(
            Verdict::Disagree,
            Class::Unresolved,
            Proof::Hypothesis,
            "compare.ggml.disagree",
            loc,
        );
        f.tail = format!(
            "of {what}, but the rules of {} choose {} for every Q batch, GQA ratio and KV length tried",
            rules.version(),
            seen_paths.join("/")
        );
        f.question = Some(format!(
            "Why did flash attention run {what} when the rules choose {}? (another ggml version in the application, or a rule to correct)",
            seen_paths.join("/")
        ));
        f
    } else {
        let mut f = Finding::new(
            Verdict::Consistent,
            Class::Inferred,
            Proof::Hypothesis,
            "compare.ggml.consistent",
            loc,
        );
        f.evidence = f
            .evidence
            .because("the batch, GQA ratio and KV length are not in the trace".to_string());
        f.tail = format!(
            "of {what}: ggml takes {observed} for Q batch {} (GQA 1–8, KV 512–32768 tried); the trace does not give the batch",
            batches
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        f
    };
    f.ranges = batches.iter().map(|&b| (b, b)).collect();
    f
}

/// The GPU a trace's agents name (the first `gfx…` one).
fn trace_agent(t: &TraceRecord) -> Option<TargetId> {
    t.agents
        .iter()
        .filter(|a| a.name.starts_with("gfx"))
        .find_map(|a| TargetId::parse(&a.name).ok())
}

/// A kernel's dispatches by phase (decode and prefill, those with any) when the trace is
/// split, else all of them.
fn phases(k: &KernelRecord, split: bool) -> Vec<(Phase, u64)> {
    if split {
        [
            (Phase::Decode, k.decode_dispatches.unwrap_or(0)),
            (Phase::Prefill, k.prefill_dispatches.unwrap_or(0)),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    } else {
        vec![(Phase::All, k.dispatches)]
    }
}

/// What one kernel's comparison found: the observed path, the weight type, the batch the
/// template fixes and the finding; `None` for a kernel that is no ggml matrix multiplication
/// or flash attention the rules know.
fn kernel_finding(
    rules: &Rules,
    cache: &mut Sweeps,
    arch: &TargetId,
    k: &KernelRecord,
    loc: &Locator,
) -> Option<(&'static str, String, Option<i64>, Finding)> {
    let decoded = rocpath_trace::ggml::decode(&k.name);
    if let Some(obs) = fa_path(k.family) {
        let head = rocpath_trace::ggml::template_args(&k.name)
            .first()
            .and_then(|a| a.parse::<i64>().ok())?;
        let kv = decoded.map_or_else(|| "f16".to_string(), |g| g.weight_type);
        let f = flash_attn_one(rules, arch, head, &kv, obs, loc);
        return Some((obs, kv, None, f));
    }
    let g = decoded?;
    let obs = g.path?.as_str();
    let q = Query {
        target: arch.clone(),
        src0_type: g.weight_type.clone(),
        ne11: 1,
        experts: 0,
        ne01: 4096,
    };
    // mul_mat_vec_*<type, ncols_dst, …>: the batch is in the template.
    let f = mul_mat_one(rules, cache, &q, obs, g.ncols, loc);
    Some((obs, g.weight_type, g.ncols, f))
}

/// Compares every ggml matrix-multiplication and flash-attention kernel of a
/// `rocpath.trace/2` document with ggml's rules for `target` (or the gfx agent the trace
/// names). Traces without a device and without `target` give no comparison for their kernels.
pub fn compare_trace(
    doc: &TraceDoc,
    doc_path: &Path,
    target: Option<&TargetId>,
    rules: &Rules,
) -> Vec<KernelComparison> {
    let mut out = Vec::new();
    let mut cache = Sweeps::new();
    for (ti, t) in doc.report.traces.iter().enumerate() {
        let Some(arch) = target.cloned().or_else(|| trace_agent(t)) else {
            continue;
        };
        let split = t.phase.is_some();
        for (ki, k) in t.kernels.iter().enumerate() {
            let loc = Locator::file(format!("{}#/traces/{ti}/kernels/{ki}", doc_path.display()));
            let Some((observed, ty, fixed, f)) = kernel_finding(rules, &mut cache, &arch, k, &loc)
            else {
                continue;
            };
            // Flash attention is reported for the whole trace; matmuls per phase when split.
            for (phase, n) in phases(k, split && fa_path(k.family).is_none()) {
                let when = if phase == Phase::All {
                    String::new()
                } else {
                    format!("{phase} ")
                };
                out.push(KernelComparison {
                    trace: t.path.clone(),
                    arch: arch.clone(),
                    kernel: k.name.clone(),
                    family: k.family.as_str().to_string(),
                    ggml_type: ty.clone(),
                    phase,
                    dispatches: n,
                    observed: observed.to_string(),
                    ne11: fixed,
                    predicted: f.predicted.clone(),
                    observed_path_ne11: f.ranges.clone(),
                    verdict: f.verdict,
                    statement: format!("{n} {when}dispatch(es) {}", f.tail),
                    question: f.question.clone(),
                    evidence: f.evidence.clone(),
                    decision: f.decision.clone(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(name: &str, family: Family, n: u64, decode: u64, prefill: u64) -> KernelRecord {
        KernelRecord {
            name: name.to_string(),
            family,
            library: family.library(),
            dispatches: n,
            total_ns: 0,
            mean_ns: 0,
            min_ns: 0,
            max_ns: 0,
            resources: rocpath_docs::trace::Resources::default(),
            prefill_dispatches: Some(prefill),
            decode_dispatches: Some(decode),
            tensile: None,
            ggml: None,
            evidence: Evidence::new(Class::Confirmed, Proof::RuntimeVerified, "t"),
        }
    }

    fn doc(phase: bool) -> TraceDoc {
        use rocpath_docs::trace::{Boundary, PhaseSplit, PhaseStatus, Report, TraceFormat};
        let e = || Evidence::new(Class::Confirmed, Proof::RuntimeVerified, "t");
        let kernels = vec![
            kernel(
                "void mul_mat_vec_q<(ggml_type)12, 1, true>(void const*)",
                Family::MulMatVecQ,
                974,
                974,
                0,
            ),
            kernel(
                "void mul_mat_q<(ggml_type)12, 40, false>(char const*)",
                Family::MulMatQ,
                166,
                0,
                166,
            ),
            kernel("quantize_q8_1(float const*)", Family::Quantize, 5, 0, 5),
            kernel(
                "void flash_attn_ext_vec<128, 1, (ggml_type)1, (ggml_type)1, false>(char const*)",
                Family::FlashAttnVec,
                196,
                98,
                98,
            ),
        ];
        let split = phase.then(|| PhaseSplit {
            boundary: Boundary::Absolute { boundary_ns: 1 },
            boundary_ns: Some(1),
            prefill_dispatches: 0,
            decode_dispatches: 0,
            prefill_blas_dispatches: 0,
            decode_blas_dispatches: 0,
            status: PhaseStatus::PrefillDominantSignature,
            evidence: e(),
        });
        let trace = TraceRecord {
            path: "k.csv".to_string(),
            format: TraceFormat::Csv,
            agents: Vec::new(),
            dispatches: 0,
            skipped_rows: 0,
            first_start_ns: None,
            last_end_ns: None,
            research: Default::default(),
            families: Vec::new(),
            kernels,
            phase: split,
            evidence: e(),
            errors: Vec::new(),
        };
        TraceDoc {
            report: Report {
                dispatches: 0,
                blas_dispatches: 0,
                families: Vec::new(),
                kernels: Vec::new(),
                research: Default::default(),
                evidence: e(),
                traces: vec![trace],
            },
            notes: Vec::new(),
            errors: Vec::new(),
        }
    }

    #[test]
    fn decode_agrees_and_dense_mmq_on_gfx900_disagrees() {
        let r = ggml::rules(None).unwrap();
        let v = compare_trace(
            &doc(true),
            Path::new("t.json"),
            Some(&"gfx900".parse().unwrap()),
            &r,
        );
        assert_eq!(v.len(), 3);
        // Flash attention: the vector kernel is what ggml runs for a single-row Q batch.
        assert_eq!(v[2].observed, "fa_vec");
        assert_eq!(v[2].verdict, Verdict::Consistent);
        assert_eq!(v[2].observed_path_ne11, [(1, 1)]);
        assert_eq!(v[0].phase, Phase::Decode);
        assert_eq!(v[0].verdict, Verdict::Agree);
        assert_eq!(v[0].ne11, Some(1));
        assert_eq!(v[0].evidence.class, Class::Confirmed);
        // Dense quantized MUL_MAT above 8 columns is hipBLAS on gfx900 in these rules: MMQ
        // in a trace is a question, not an agreement.
        assert_eq!(v[1].phase, Phase::Prefill);
        assert_eq!(v[1].observed, "mmq");
        assert_eq!(v[1].verdict, Verdict::Disagree);
        assert!(v[1].question.is_some());
        // On gfx1201 MMQ is the dense path above 8 columns.
        let v = compare_trace(
            &doc(true),
            Path::new("t.json"),
            Some(&"gfx1201".parse().unwrap()),
            &r,
        );
        assert_eq!(v[1].verdict, Verdict::Consistent);
        assert_eq!(v[1].observed_path_ne11.first().map(|x| x.0), Some(9));
        // No device and no --target: nothing to compare.
        assert!(compare_trace(&doc(false), Path::new("t.json"), None, &r).is_empty());
        let v = compare_trace(
            &doc(false),
            Path::new("t.json"),
            Some(&"gfx900".parse().unwrap()),
            &r,
        );
        assert!(v.iter().all(|c| c.phase == Phase::All));
        // A device the rules cannot place (a generic target has no cc): no prediction, never
        // a disagreement.
        let v = compare_trace(
            &doc(true),
            Path::new("t.json"),
            Some(&"gfx9-generic".parse().unwrap()),
            &r,
        );
        assert_eq!(v.len(), 3);
        assert!(
            v.iter()
                .all(|c| c.verdict == Verdict::NoPrediction && c.question.is_none()),
            "{v:?}"
        );
        assert!(v.iter().all(|c| c.evidence.class == Class::Unresolved));
    }
}
