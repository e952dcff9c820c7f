//! ggml's predicted matrix-multiplication path next to the kernels a trace shows ran.
//!
//! The observation is a `rocpath trace --json` document (schema `rocpath.trace/1`; fields
//! read: `traces[].path`, `traces[].agents[]`, `traces[].kernels[]` with `name`, `family`,
//! `library`, `dispatches`, `prefill_dispatches`, `decode_dispatches`). Each ggml
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

use crate::ggml::{self, Decision, FaQuery, Query, Rules};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::path::Path;

/// One kernel (and phase) compared.
#[derive(Debug, Clone, Serialize)]
pub struct KernelComparison {
    /// The trace file.
    pub trace: String,
    /// Device the prediction is for.
    pub arch: String,
    /// Kernel name as traced.
    pub kernel: String,
    /// Trace family (`mul_mat_q`, …).
    pub family: String,
    /// Weight type from the template (`q4_k`).
    pub ggml_type: String,
    /// `decode`, `prefill` or `all` (no phase split in the trace).
    pub phase: String,
    /// Dispatches in that phase.
    pub dispatches: u64,
    /// The path the kernel stands for (`mmq`, `mmvq`, `mmf`, `mmvf`).
    pub observed: String,
    /// The batch the prediction was made for, when the trace fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ne11: Option<i64>,
    /// The predicted path at `ne11`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<String>,
    /// Where ggml takes the observed path: `[from, to]` ranges of `ne11` within 1…4096.
    pub observed_path_ne11: Vec<(i64, i64)>,
    /// `agree`, `consistent`, `disagree`, `no_prediction`.
    pub verdict: String,
    /// The statement.
    pub statement: String,
    /// For a disagreement: the open question for the ledger.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
    /// The prediction in full, when one was made at a fixed `ne11`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
}

fn fa_path(family: &str) -> Option<&'static str> {
    Some(match family {
        "flash_attn_vec" => "fa_vec",
        "flash_attn_tile" => "fa_tile",
        "flash_attn_mma" => "fa_mma_f16",
        _ => return None,
    })
}

/// A flash-attention kernel against ggml's flash-attention rules. The head size and the K
/// type are in the template; the Q batch, the GQA ratio and the KV length are not in the
/// trace, so the rules are asked over a grid of them: the observed kernel is consistent when
/// some point of the grid selects it, a disagreement when none does.
fn flash_attn_one(
    rules: &Rules,
    arch: &str,
    trace: &str,
    k: &serde_json::Value,
    family: &str,
    name: &str,
    loc: &Locator,
) -> Option<KernelComparison> {
    let observed = fa_path(family)?;
    let args = rocpath_trace::ggml::template_args(name);
    let head = args.first().and_then(|a| a.parse::<i64>().ok())?;
    let kv_type = rocpath_trace::ggml::decode(name)
        .map(|g| g.weight_type)
        .unwrap_or_else(|| "f16".into());
    const BATCH: [i64; 11] = [1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512];
    const GQA: [i64; 5] = [1, 2, 4, 7, 8];
    const KV: [i64; 3] = [512, 4096, 32768];
    let mut batches: Vec<i64> = Vec::new();
    let mut seen_paths: Vec<String> = Vec::new();
    for &batch in &BATCH {
        for &gqa in &GQA {
            for &kv_len in &KV {
                let q = FaQuery {
                    target: arch.to_string(),
                    head,
                    head_v: head,
                    batch,
                    gqa,
                    kv_type: kv_type.clone(),
                    kv_len,
                };
                let Ok(d) = ggml::flash_attn(rules, &q) else {
                    continue;
                };
                if d.path == observed && !batches.contains(&batch) {
                    batches.push(batch);
                }
                if !seen_paths.contains(&d.path) {
                    seen_paths.push(d.path.clone());
                }
            }
        }
    }
    let n = u(k, "dispatches");
    let list = batches
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let mut c = KernelComparison {
        trace: trace.to_string(),
        arch: arch.to_string(),
        kernel: name.to_string(),
        family: family.to_string(),
        ggml_type: kv_type.clone(),
        phase: "all".into(),
        dispatches: n,
        observed: observed.to_string(),
        ne11: None,
        predicted: None,
        observed_path_ne11: batches.iter().map(|&b| (b, b)).collect(),
        verdict: String::new(),
        statement: String::new(),
        question: None,
        evidence: Evidence::new(Class::Unresolved, Proof::Hypothesis, "compare.ggml")
            .at(loc.clone()),
        decision: None,
    };
    if batches.is_empty() {
        c.verdict = "disagree".into();
        c.statement = format!(
            "{n} dispatch(es) of {observed} (head {head}, K {kv_type}) on {arch}, but the rules of {} choose {} for every Q batch, GQA ratio and KV length tried",
            rules.version(),
            seen_paths.join("/")
        );
        c.question = Some(format!(
            "Why did flash attention run {observed} on {arch} (head {head}, K {kv_type}) when the rules choose {}? (another ggml version in the application, or a rule to correct)",
            seen_paths.join("/")
        ));
        c.evidence = Evidence::new(
            Class::Unresolved,
            Proof::Hypothesis,
            "compare.ggml.disagree",
        )
        .at(loc.clone());
    } else {
        c.verdict = "consistent".into();
        c.statement = format!(
            "{n} dispatch(es) of {observed} (head {head}, K {kv_type}) on {arch}: ggml takes {observed} for Q batch {list} (GQA 1–8, KV 512–32768 tried); the trace does not give the batch"
        );
        c.evidence = Evidence::new(
            Class::Inferred,
            Proof::Hypothesis,
            "compare.ggml.consistent",
        )
        .at(loc.clone())
        .because("the batch, GQA ratio and KV length are not in the trace".to_string());
    }
    Some(c)
}

fn u(v: &serde_json::Value, k: &str) -> u64 {
    v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0)
}

/// Compares every ggml matrix-multiplication kernel of a `rocpath.trace/1` document with
/// ggml's rules for `target` (or the gfx agent the trace names). Traces without a device
/// and without `target` give no comparison for their kernels.
pub fn compare_trace(
    doc: &serde_json::Value,
    doc_path: &Path,
    target: Option<&str>,
    rules: &Rules,
) -> Vec<KernelComparison> {
    let mut out = Vec::new();
    let traces = doc
        .get("traces")
        .and_then(|t| t.as_array())
        .cloned()
        .unwrap_or_default();
    for (ti, t) in traces.iter().enumerate() {
        let trace = t
            .get("path")
            .and_then(|p| p.as_str())
            .unwrap_or("trace")
            .to_string();
        let agent = t
            .get("agents")
            .and_then(|a| a.as_array())
            .into_iter()
            .flatten()
            .find_map(|a| {
                let s = a.as_str().or_else(|| a.get("name")?.as_str())?;
                s.starts_with("gfx").then(|| s.to_string())
            });
        let Some(arch) = target.map(str::to_string).or(agent) else {
            continue;
        };
        let split = t.get("phase").is_some_and(|p| !p.is_null());
        for (ki, k) in t
            .get("kernels")
            .and_then(|k| k.as_array())
            .into_iter()
            .flatten()
            .enumerate()
        {
            let family = k.get("family").and_then(|f| f.as_str()).unwrap_or("");
            let name = k.get("name").and_then(|n| n.as_str()).unwrap_or("");
            let loc = Locator::file(format!("{}#/traces/{ti}/kernels/{ki}", doc_path.display()));
            if let Some(c) = flash_attn_one(rules, &arch, &trace, k, family, name, &loc) {
                out.push(c);
                continue;
            }
            let Some(g) = rocpath_trace::ggml::decode(name) else {
                continue;
            };
            let Some(observed) = g.path else {
                continue;
            };
            let ty = g.weight_type;
            // mul_mat_vec_*<type, ncols_dst, …>: the batch is in the template.
            let vec_cols = g.ncols;
            let phases: Vec<(&str, u64)> = if split {
                [
                    ("decode", u(k, "decode_dispatches")),
                    ("prefill", u(k, "prefill_dispatches")),
                ]
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .collect()
            } else {
                vec![("all", u(k, "dispatches"))]
            };
            let q = Query {
                target: arch.clone(),
                src0_type: ty.clone(),
                ne11: 1,
                experts: 0,
                ne01: 4096,
            };
            let ranges: Vec<(i64, i64)> = match ggml::sweep(rules, &q, 1, 4096) {
                Ok(v) => v
                    .into_iter()
                    .filter(|(_, _, d)| d.path == observed)
                    .map(|(a, b, _)| (a, b))
                    .collect(),
                Err(_) => Vec::new(),
            };
            for (phase, n) in phases {
                let fixed = vec_cols;
                let mut c = KernelComparison {
                    trace: trace.clone(),
                    arch: arch.clone(),
                    kernel: name.to_string(),
                    family: family.to_string(),
                    ggml_type: ty.clone(),
                    phase: phase.to_string(),
                    dispatches: n,
                    observed: observed.to_string(),
                    ne11: fixed,
                    predicted: None,
                    observed_path_ne11: ranges.clone(),
                    verdict: String::new(),
                    statement: String::new(),
                    question: None,
                    evidence: Evidence::new(Class::Unresolved, Proof::Hypothesis, "compare.ggml")
                        .at(loc.clone()),
                    decision: None,
                };
                let rng = ranges
                    .iter()
                    .map(|(a, b)| {
                        if a == b {
                            a.to_string()
                        } else {
                            format!("{a}..{b}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                match fixed {
                    Some(ne11) => match ggml::mul_mat(rules, &Query { ne11, ..q.clone() }) {
                        Ok(d) => {
                            c.predicted = Some(d.path.clone());
                            if d.path == observed {
                                c.verdict = "agree".into();
                                c.statement = format!(
                                    "{n} {phase} dispatch(es) of {observed} for {ty} on {arch}: ggml predicts {} at ne11={ne11} ({})",
                                    d.path, d.at
                                );
                                c.evidence = Evidence::new(
                                    Class::Confirmed,
                                    Proof::RuntimeVerified,
                                    "compare.ggml.agree",
                                )
                                .at(loc.clone());
                            } else {
                                c.verdict = "disagree".into();
                                c.statement = format!(
                                    "{n} {phase} dispatch(es) ran {observed} for {ty} on {arch}, but ggml's rules predict {} at ne11={ne11} ({}: {})",
                                    d.path, d.at, d.rule
                                );
                                c.question = Some(format!(
                                    "Why did {ty} on {arch} run {observed} at ne11={ne11} when the rules say {}? (another ggml version in the application, a MoE or batched op, or a rule to correct)",
                                    d.path
                                ));
                                c.evidence = Evidence::new(
                                    Class::Unresolved,
                                    Proof::Hypothesis,
                                    "compare.ggml.disagree",
                                )
                                .at(loc.clone());
                            }
                            c.decision = Some(d);
                        }
                        Err(e) => {
                            c.verdict = "no_prediction".into();
                            c.statement = format!("no prediction for {ty} on {arch}: {e}");
                        }
                    },
                    None if !ranges.is_empty() => {
                        c.verdict = "consistent".into();
                        c.statement = format!(
                            "{n} {phase} dispatch(es) of {observed} for {ty} on {arch}: ggml takes {observed} for dense ne11 in {rng}; the trace does not give the batch"
                        );
                        c.evidence = Evidence::new(
                            Class::Inferred,
                            Proof::Hypothesis,
                            "compare.ggml.consistent",
                        )
                        .at(loc.clone())
                        .because("the batch size is not in the trace".to_string());
                    }
                    None => {
                        c.verdict = "disagree".into();
                        let moe: Vec<String> = ggml::sweep(
                            rules,
                            &Query {
                                experts: 8,
                                ..q.clone()
                            },
                            1,
                            4096,
                        )
                        .map(|v| {
                            v.into_iter()
                                .filter(|(_, _, d)| d.path == observed)
                                .map(|(a, b, _)| {
                                    if a == b {
                                        a.to_string()
                                    } else {
                                        format!("{a}..{b}")
                                    }
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                        let also = if moe.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "; they choose it for MUL_MAT_ID (experts > 0) at ne11 {}",
                                moe.join(", ")
                            )
                        };
                        c.statement = format!(
                            "{n} {phase} dispatch(es) ran {observed} for {ty} on {arch}, but the rules of {} take {observed} for no dense batch from 1 to 4096{also}",
                            rules.version()
                        );
                        c.question = Some(format!(
                            "Why did {ty} on {arch} run {observed}, which the rules never choose for a dense MUL_MAT? (another ggml version in the application, MUL_MAT_ID of a MoE model, or a rule to correct)"
                        ));
                        c.evidence = Evidence::new(
                            Class::Unresolved,
                            Proof::Hypothesis,
                            "compare.ggml.disagree",
                        )
                        .at(loc.clone());
                    }
                }
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(phase: bool) -> serde_json::Value {
        serde_json::json!({
            "schema": "rocpath.trace/1",
            "traces": [{
                "path": "k.csv",
                "agents": [],
                "phase": if phase { serde_json::json!({"boundary_ns": 1}) } else { serde_json::Value::Null },
                "kernels": [
                    {"name": "void mul_mat_vec_q<(ggml_type)12, 1, true>(void const*)", "family": "mul_mat_vec_q",
                     "library": "ggml", "dispatches": 974, "decode_dispatches": 974, "prefill_dispatches": 0},
                    {"name": "void mul_mat_q<(ggml_type)12, 40, false>(char const*)", "family": "mul_mat_q",
                     "library": "ggml", "dispatches": 166, "decode_dispatches": 0, "prefill_dispatches": 166},
                    {"name": "quantize_q8_1(float const*)", "family": "quantize", "library": "ggml", "dispatches": 5},
                    {"name": "void flash_attn_ext_vec<128, 1, (ggml_type)1, (ggml_type)1, false>(char const*)",
                     "family": "flash_attn_vec", "library": "ggml", "dispatches": 196}
                ]
            }]
        })
    }

    #[test]
    fn decode_agrees_and_dense_mmq_on_gfx900_disagrees() {
        let r = ggml::rules(None).unwrap();
        let v = compare_trace(&doc(true), Path::new("t.json"), Some("gfx900"), &r);
        assert_eq!(v.len(), 3);
        // Flash attention: the vector kernel is what ggml runs for a single-row Q batch.
        assert_eq!(v[2].observed, "fa_vec");
        assert_eq!(v[2].verdict, "consistent");
        assert_eq!(v[2].observed_path_ne11, [(1, 1)]);
        assert_eq!(v[0].phase, "decode");
        assert_eq!(v[0].verdict, "agree");
        assert_eq!(v[0].ne11, Some(1));
        assert_eq!(v[0].evidence.class, Class::Confirmed);
        // Dense quantized MUL_MAT above 8 columns is hipBLAS on gfx900 in these rules: MMQ
        // in a trace is a question, not an agreement.
        assert_eq!(v[1].phase, "prefill");
        assert_eq!(v[1].observed, "mmq");
        assert_eq!(v[1].verdict, "disagree");
        assert!(v[1].question.is_some());
        // On gfx1201 MMQ is the dense path above 8 columns.
        let v = compare_trace(&doc(true), Path::new("t.json"), Some("gfx1201"), &r);
        assert_eq!(v[1].verdict, "consistent");
        assert_eq!(v[1].observed_path_ne11.first().map(|x| x.0), Some(9));
        // No device and no --target: nothing to compare.
        assert!(compare_trace(&doc(false), Path::new("t.json"), None, &r).is_empty());
        let v = compare_trace(&doc(false), Path::new("t.json"), Some("gfx900"), &r);
        assert!(v.iter().all(|c| c.phase == "all"));
    }
}
