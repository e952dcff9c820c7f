//! Rule over `explain gemm` documents: which kernel a GEMM takes on a device, read from the
//! install's catalogs (inferred, shipped_artifact_verified: the catalogs were read, the choice
//! is the host library's rules applied to them). One claim per call and device, in that
//! device's world, naming what the same call takes on the other devices of the document.

use super::digest::{Doc, GemmD, ObsDigest};
use super::{Finding, record_support, rule};
use crate::model::*;
use crate::schemas::processor_of;
use rocpath_evidence::{Class, Proof};

fn shape(e: &GemmD) -> String {
    let c = &e.call;
    let trans: String = c.trans.iter().map(|t| t.as_str()).collect();
    let types: Vec<&str> = c.types.iter().map(|t| t.as_str()).collect();
    let batch = match c.batch.as_str() {
        "" | "1" => String::new(),
        b => format!(" batch {b}"),
    };
    format!(
        "{} {trans} M={} N={} K={}{batch} {} (compute {})",
        c.api.as_str(),
        c.m.as_str(),
        c.n.as_str(),
        c.k.as_str(),
        types.join("/"),
        c.compute.as_str()
    )
}

fn device(e: &GemmD) -> String {
    format!(
        "{} ({} CUs)",
        e.device.target.as_str(),
        e.device.cu_count.as_str()
    )
}

fn answer(e: &GemmD) -> Option<(String, String)> {
    match (e.outcome.as_str(), &e.chosen) {
        ("chosen", Some(c)) => Some((
            format!("{} をとる(solution {})", c.name.as_str(), c.index.as_str()),
            format!("takes {} (solution {})", c.name.as_str(), c.index.as_str()),
        )),
        ("no_solution", _) => Some((
            "解なし(No Tensile solution found)".into(),
            "has no solution (No Tensile solution found)".into(),
        )),
        ("no_catalog", _) => Some((
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
        for (i, e) in d.explanations.iter().enumerate() {
            let Some((ja, en)) = answer(e) else { continue };
            let call = shape(e);
            let others: Vec<(String, String)> = d
                .explanations
                .iter()
                .filter(|x| {
                    shape(x) == call
                        && x.device.target.as_str() != e.device.target.as_str()
                        && x.library_dir.as_str() == e.library_dir.as_str()
                })
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
                class: if e.outcome.as_str() == "no_catalog" {
                    Class::Confirmed
                } else {
                    Class::Inferred
                },
                kind: Proof::ShippedArtifactVerified,
                world: processor_of(e.device.target.as_str()),
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
        let text = r#"{"schema":"rocpath.ledger.observation/1","id":"g1",
            "imported":{"file":"g.json","sha256":"","base":"."},"inputs":[],"quotes":[],
            "document":{"schema":"rocpath.explain.gemm/1","explanations":[
              {"call":{"api":"gemm","types":["f32","f32","f32","f32"],"compute":"f32","trans":["N","N"],"m":64,"n":64,"k":64,"batch":1},
               "device":{"target":"gfx900","cu_count":64},"library_dir":"lib","outcome":"chosen",
               "chosen":{"name":"Cijk_A","index":7}},
              {"call":{"api":"gemm","types":["f32","f32","f32","f32"],"compute":"f32","trans":["N","N"],"m":64,"n":64,"k":64,"batch":1},
               "device":{"target":"gfx1201","cu_count":64},"library_dir":"lib","outcome":"no_catalog"}]}}"#;
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
