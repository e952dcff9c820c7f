#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! TunaNet against MIOpen's own code: `tests/data/oracle-tunanet-<release>-<device>.tsv` holds,
//! for random problems, what the release's `ai_heuristics.cpp` (ROCm/MIOpen 2d1fd997 and
//! rocm-6.2.2) with frugally-deep at the commit MIOpen pins answers on this CPU (`scripts/oracle/tunanet/agree.sh`; set
//! `ROCPATH_TUNANET_ORACLE` to its work folder to compare a fresh run): whether the device's
//! network takes the problem (the model's `IsProblemSupported` must say the same) and, when it
//! does, `PredictSolver`'s order with each solver's output (rocpath's network must give the same
//! order and the outputs within float rounding).
//!
//! The networks and metadata in `tests/data/tunanet/` are MIOpen's `src/kernels/*.tn.model` at
//! 2d1fd997 (MIT, `data/LICENSE.MIOpen.txt`), as ROCm installs them in
//! `/opt/rocm/share/miopen/db`; `tunanet/rocm-6.2.2/` holds the files that release ships
//! differently (its gfx942 network takes 19 features: the layout too); the others are the same
//! bytes in both.

use rocpath_miopen::Problem;
use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input, Outcome};
use rocpath_miopen::model::release::by_name;
use rocpath_miopen::select::tunanet_class;
use rocpath_miopen::tunanet::{ModelClass, ParseError, TunaNet};
use std::collections::HashMap;
use std::path::PathBuf;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn read_json(release: &str, name: &str) -> serde_json::Value {
    let dir = data().join("tunanet");
    let own = dir.join(release).join(name);
    let path = if own.is_file() { own } else { dir.join(name) };
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn net(release: &str, class: ModelClass) -> TunaNet {
    TunaNet::parse(
        class,
        &read_json(release, &class.model_file()),
        &read_json(release, &class.metadata_file()),
    )
    .unwrap()
}

fn oracle(release: &str, device: &str) -> String {
    let dir = std::env::var_os("ROCPATH_TUNANET_ORACLE").map_or_else(data, PathBuf::from);
    std::fs::read_to_string(dir.join(format!("oracle-tunanet-{release}-{device}.tsv"))).unwrap()
}

/// The order and outputs MIOpen printed: `name:score;…`.
fn expected(list: &str) -> Vec<(String, f32)> {
    list.split(';')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (n, v) = s.rsplit_once(':').unwrap();
            (n.to_string(), v.parse().unwrap())
        })
        .collect()
}

struct Tally {
    supported: usize,
    unsupported: usize,
    differ: Vec<String>,
}

fn compare(release: &str, device: &str, target: &str) -> Tally {
    let dev = Device::parse(target, Some(64)).unwrap();
    let env = Env::default();
    let class = tunanet_class(&dev, &env);
    let tn = net(release, class);
    let model = by_name(release).unwrap().model().unwrap();
    let ev = Evaluator::new(model, None);
    let build = HashMap::new();
    let mut t = Tally {
        supported: 0,
        unsupported: 0,
        differ: Vec::new(),
    };
    for line in oracle(release, device).lines() {
        let mut f = line.split('\t');
        let (key, what, rest) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap_or(""));
        let p = Problem::from_fdb_key(key).unwrap();
        let input = Input {
            problem: &p,
            device: &dev,
            env: &env,
            build: &build,
            always_enable_naive: false,
        };
        let verdict = ev.tunanet_supported(&input, false).unwrap().outcome;
        let refused = matches!(verdict, Outcome::Bool { v: false });
        match what {
            "unsupported" => {
                t.unsupported += 1;
                if !refused {
                    t.differ
                        .push(format!("{key}: MIOpen: {rest}; the model: {verdict:?}"));
                }
            }
            "supported" => {
                t.supported += 1;
                if refused {
                    t.differ
                        .push(format!("{key}: MIOpen takes it; the model refuses it"));
                }
                let want = expected(rest);
                let got: Vec<(String, f32)> = tn
                    .rank(&p)
                    .unwrap()
                    .into_iter()
                    .filter(|s| rocpath_miopen::registry::by_name(&s.solver).is_some())
                    .map(|s| (s.solver, s.score))
                    .collect();
                if !same(&want, &got) {
                    t.differ
                        .push(format!("{key}:\n  MIOpen  {want:?}\n  rocpath {got:?}"));
                }
            }
            o => panic!("{key}: MIOpen threw or the line is bad: {o} {rest}"),
        }
    }
    t
}

/// Same order and outputs within float rounding (frugally-deep sums with Eigen's kernels).
fn same(want: &[(String, f32)], got: &[(String, f32)]) -> bool {
    want.len() == got.len()
        && want
            .iter()
            .zip(got)
            .all(|((a, x), (b, y))| a == b && (x - y).abs() <= 1e-4 * x.abs().max(1.0))
}

fn check(device: &str, target: &str) {
    for release in ["2d1fd997", "rocm-6.2.2"] {
        let t = compare(release, device, target);
        assert!(
            t.supported > 100 && t.unsupported > 50,
            "{release} {device}: too few problems of a kind"
        );
        assert!(
            t.differ.is_empty(),
            "{release} {device}: {} of {} differ:\n{}",
            t.differ.len(),
            t.supported + t.unsupported,
            t.differ.join("\n")
        );
    }
}

#[test]
fn gfx942_network_and_support_agree_with_miopen() {
    check("gfx942", "gfx942");
}

#[test]
fn gfx90a_network_and_support_agree_with_miopen() {
    check("gfx90a", "gfx90a");
}

#[test]
fn gfx900_is_ranked_by_gfx908s_network_as_miopen_does() {
    let dev = Device::parse("gfx900:xnack-", Some(64)).unwrap();
    assert_eq!(tunanet_class(&dev, &Env::default()), ModelClass::Gfx908);
    check("gfx900", "gfx900:xnack-");
}

#[test]
fn a_network_that_does_not_fit_its_metadata_is_refused_by_name() {
    let read = |name: &str| read_json("2d1fd997", name);
    // gfx942's network (18 inputs) with gfx908's metadata (24 features).
    let e = TunaNet::parse(
        ModelClass::Gfx908,
        &read("gfx942.tn.model"),
        &read("gfx908_metadata.tn.model"),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            ParseError::Mismatch {
                inputs: 18,
                features: 24,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("18 inputs"), "{e}");
    // rocm-6.2.2's gfx942 network (19 inputs, the layout too) with 2d1fd997's metadata.
    let e = TunaNet::parse(
        ModelClass::Gfx942,
        &read_json("rocm-6.2.2", "gfx942.tn.model"),
        &read("gfx942_metadata.tn.model"),
    )
    .unwrap_err();
    assert!(matches!(e, ParseError::Mismatch { inputs: 19, .. }), "{e}");
    let mut meta = read("gfx942_metadata.tn.model");
    meta["stats"]["test"]["features"]["mean"]
        .as_object_mut()
        .unwrap()
        .remove("Inp_0");
    let e = TunaNet::parse(ModelClass::Gfx942, &read("gfx942.tn.model"), &meta).unwrap_err();
    // The metadata is at fault, and named so (the reader names its file).
    assert!(
        matches!(&e, ParseError::Metadata(m) if m.contains("Inp_0")),
        "{e}"
    );
}

mod hostile {
    use super::*;
    use proptest::prelude::*;
    use rocpath_miopen::tunanet::Net;

    fn mutate(doc: &mut serde_json::Value, layer: usize, what: u8, n: i64) {
        let layers = doc["architecture"]["config"]["layers"]
            .as_array_mut()
            .unwrap();
        let k = layer % layers.len();
        let name = layers[k]["name"].as_str().unwrap_or("").to_string();
        match what % 6 {
            0 => layers[k]["config"]["units"] = n.into(),
            1 => {
                layers[k]["class_name"] = ["Conv2D", "Dense", "Add", "ReLU", "Lambda"]
                    [n.unsigned_abs() as usize % 5]
                    .into()
            }
            2 => layers[k]["inbound_nodes"] = serde_json::json!([[["nowhere", 0, 0, {}]]]),
            3 => {
                if let Some(p) = doc["trainable_params"].get_mut(&name) {
                    p["weights"] = serde_json::json!(["AAAA"]);
                }
            }
            4 => {
                if let Some(p) = doc["trainable_params"].get_mut(&name) {
                    p["bias"] = serde_json::json!(["not base64!"]);
                }
            }
            _ => layers[k]["config"]["batch_input_shape"] = serde_json::json!([null, n]),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// A damaged network is refused with a reason or still runs: never a panic, and a
        /// network that parses gives an output for any input of its width.
        #[test]
        fn a_damaged_network_is_refused_or_runs(layer in 0usize..32, what in 0u8..6, n in -3i64..100_000, x in -10f32..10.0) {
            let mut doc = read_json("2d1fd997", "gfx908.tn.model");
            mutate(&mut doc, layer, what, n);
            if let Ok(net) = Net::parse(&doc) {
                let out = net.run(&vec![x; net.inputs()]);
                prop_assert!(!out.is_empty());
            }
            let meta = read_json("2d1fd997", "gfx908_metadata.tn.model");
            let _ = TunaNet::parse(ModelClass::Gfx908, &doc, &meta);
        }
    }
}
