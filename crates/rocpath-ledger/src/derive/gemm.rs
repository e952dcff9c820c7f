//! Rule over `explain gemm` documents: which kernel a GEMM takes on a device, read from the
//! install's catalogs (inferred, shipped_artifact_verified: the catalogs were read, the choice
//! is the host library's rules applied to them). One claim per call and device, in that
//! device's world, naming what the same call takes on the other devices of the document.

use super::digest::{Doc, ObsDigest};
use super::{Finding, record_support, rule};
use crate::model::*;
use rocpath_evidence::{Class, Proof};
use rocpath_gemm::doc::{CallDoc, GemmExplanation, GemmOutcome};
use serde::Serialize;
use std::collections::HashMap;

/// A value's word in the document (`gemm_ex`, `f16`, `N`), as the producer prints it.
fn word(v: &impl Serialize) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

fn words<T: Serialize>(v: &[T]) -> Vec<String> {
    v.iter().map(word).collect()
}

fn shape(e: &GemmExplanation) -> String {
    let (api, types, compute, trans, mnk, batch) = match &e.call {
        CallDoc::Rocblas(c) => (
            word(&c.api),
            words(&c.types),
            word(&c.compute),
            words(&c.trans),
            (c.m, c.n, c.k),
            c.batch,
        ),
        CallDoc::Hipblaslt { api, matmul: m } => (
            api.to_string(),
            words(&m.types),
            word(&m.compute),
            words(&m.trans),
            (m.m, m.n, m.k),
            m.batch,
        ),
    };
    let batch = match batch {
        1 => String::new(),
        b => format!(" batch {b}"),
    };
    let (m, n, k) = mnk;
    format!(
        "{api} {} M={m} N={n} K={k}{batch} {} (compute {compute})",
        trans.concat(),
        types.join("/"),
    )
}

fn device(e: &GemmExplanation) -> String {
    format!("{} ({} CUs)", e.device.target, e.device.cu_count)
}

fn answer(e: &GemmExplanation) -> Option<(String, String)> {
    match (e.outcome, &e.chosen) {
        (GemmOutcome::Chosen, Some(c)) => Some((
            format!("{} をとる(solution {})", c.name, c.index),
            format!("takes {} (solution {})", c.name, c.index),
        )),
        (GemmOutcome::NoSolution, _) => Some((
            "解なし(No Tensile solution found)".into(),
            "has no solution (No Tensile solution found)".into(),
        )),
        (GemmOutcome::NoCatalog, _) => Some((
            "カタログがない(Cannot read … for GPU arch で中断)".into(),
            "has no catalog (rocBLAS aborts: Cannot read … for GPU arch)".into(),
        )),
        _ => None,
    }
}

/// The GEMM findings.
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    let mut out = Vec::new();
    for o in obs {
        let Doc::Gemm(d) = &o.doc else { continue };
        // Each call's shape once, and the explanations of one call and catalog folder
        // together, so naming the other devices is not a walk over the whole document.
        let shapes: Vec<String> = d.explanations.iter().map(shape).collect();
        let mut same: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
        for (i, e) in d.explanations.iter().enumerate() {
            same.entry((&shapes[i], &e.library_dir))
                .or_default()
                .push(i);
        }
        for (i, e) in d.explanations.iter().enumerate() {
            let Some((ja, en)) = answer(e) else { continue };
            let call = &shapes[i];
            let others: Vec<(String, String)> = same[&(call.as_str(), e.library_dir.as_str())]
                .iter()
                .map(|&j| &d.explanations[j])
                .filter(|x| x.device.target != e.device.target)
                .filter_map(|x| {
                    answer(x).map(|(j, n)| {
                        (format!("{}: {j}", device(x)), format!("{}: {n}", device(x)))
                    })
                })
                .take(6)
                .collect();
            let lib = e.library_dir.as_str();
            let (oj, on) = if others.is_empty() {
                (String::new(), String::new())
            } else {
                (
                    format!(
                        " 同じ呼び出しは {}",
                        others
                            .iter()
                            .map(|x| x.0.as_str())
                            .collect::<Vec<_>>()
                            .join("、")
                    ),
                    format!(
                        "; the same call {}",
                        others
                            .iter()
                            .map(|x| x.1.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            };
            out.push(Finding {
                rule: rule::EXPLAIN_GEMM,
                key: format!("{lib} {call} {}", device(e)),
                statement: Text::new(
                    format!("カタログ {lib} で {call} は {} 上で{ja}。{oj}", device(e)),
                    format!(
                        "With the catalogs of {lib}, {call} on {} {en}{on}",
                        device(e)
                    ),
                ),
                // A missing catalog is read directly off the install; a choice is derived.
                class: if e.outcome == GemmOutcome::NoCatalog {
                    Class::Confirmed
                } else {
                    Class::Inferred
                },
                kind: Proof::ShippedArtifactVerified,
                world: e.device.target.processor.clone(),
                floor: Some(Floor::MathLibrary),
                layer: Some(Layer::Selection),
                selection: None,
                agree: 0,
                of: 0,
                exceptions: Vec::new(),
                support: vec![record_support(
                    &o.id,
                    &format!("/explanations/{i}"),
                    Text::default(),
                )],
                cases: Vec::new(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn one_claim_per_call_and_device_naming_the_other_devices() {
        let ev = r#"{"class":"inferred","kind":"shipped_artifact_verified","rule":"r"}"#;
        let call = r#"{"api":"gemm","types":["f32","f32","f32","f32"],"compute":"f32",
            "trans":["N","N"],"m":64,"n":64,"k":64,"ld":[64,64,64,64],"stride":[4096,4096,4096,4096],
            "batch":1,"alpha":1.0,"beta":0.0,"c_is_d":true,"flags":0,"xf32":false}"#;
        let chosen = format!(
            r#"{{"name":"Cijk_A","index":7,"file":"TensileLibrary_Type_SS_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx900.co",
            "macro_tile":[64,64],"depth_u":16,"global_split_u":1,"source_kernel":false,
            "code_object":{{"file":"f.co","present":true,"evidence":{ev}}},"evidence":{ev}}}"#
        );
        let text = format!(
            r#"{{"schema":"rocpath.ledger.observation/1","id":"g1",
            "imported":{{"file":"g.json","sha256":"","base":"."}},"inputs":[],"quotes":[],
            "document":{{"schema":"rocpath.explain.gemm/1","explanations":[
              {{"call":{call},"device":{{"target":"gfx900","cu_count":64,"is_apu":false}},
               "library_dir":"lib","route":[],"backend":"tensile","outcome":"chosen",
               "chosen":{chosen},"evidence":{ev}}},
              {{"call":{call},"device":{{"target":"gfx1201","cu_count":64,"is_apu":false}},
               "library_dir":"lib","route":[],"backend":"tensile","outcome":"no_catalog",
               "evidence":{ev}}}],"errors":[]}}}}"#
        );
        let d = super::super::digest::parse(text.as_bytes()).unwrap();
        let f = findings(&[d]);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].world, "gfx900");
        assert_eq!(f[0].class, Class::Inferred);
        assert!(
            f[0].statement.en.contains("takes Cijk_A (solution 7)"),
            "{:?}",
            f[0].statement
        );
        assert!(
            f[0].statement
                .en
                .contains("gfx1201 (64 CUs): has no catalog"),
            "{:?}",
            f[0].statement
        );
        assert_eq!(f[1].class, Class::Confirmed);
        assert_eq!(f[1].support[0].record.as_deref(), Some("/explanations/1"));
    }
}
