#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! TunaNet against MIOpen's own code: `tests/data/oracle-tunanet-2d1fd997-<device>.tsv` holds,
//! for random problems, what ROCm/MIOpen@2d1fd997's `ai_heuristics.cpp` with frugally-deep at the
//! commit MIOpen pins answers on this CPU (`scripts/oracle/tunanet/agree.sh`; set
//! `ROCPATH_TUNANET_ORACLE` to its work folder to compare a fresh run): whether the device's
//! network takes the problem (the model's `IsProblemSupported` must say the same) and, when it
//! does, `PredictSolver`'s order with each solver's output (rocpath's network must give the same
//! order and the outputs within float rounding).
//!
//! The networks and metadata in `tests/data/tunanet/` are MIOpen's `src/kernels/*.tn.model` at
//! 2d1fd997 (MIT, `data/LICENSE.MIOpen.txt`), as ROCm installs them in
//! `/opt/rocm/share/miopen/db`.

use rocpath_miopen::Problem;
use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input, Outcome};
use rocpath_miopen::model::pinned;
use rocpath_miopen::select::tunanet_class;
use rocpath_miopen::tunanet::{ModelClass, TunaNet};
use std::collections::HashMap;
use std::path::PathBuf;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn net(class: ModelClass) -> TunaNet {
    let dir = data().join("tunanet");
    let read = |name: String| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    TunaNet::parse(
        class,
        &read(class.model_file()),
        &read(class.metadata_file()),
    )
    .unwrap()
}

fn oracle(device: &str) -> String {
    let dir = std::env::var_os("ROCPATH_TUNANET_ORACLE").map_or_else(data, PathBuf::from);
    std::fs::read_to_string(dir.join(format!("oracle-tunanet-2d1fd997-{device}.tsv"))).unwrap()
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

fn compare(device: &str, target: &str) -> Tally {
    let dev = Device::parse(target, Some(64)).unwrap();
    let env = Env::default();
    let class = tunanet_class(&dev, &env);
    let tn = net(class);
    let ev = Evaluator::new(pinned().unwrap(), None);
    let build = HashMap::new();
    let mut t = Tally {
        supported: 0,
        unsupported: 0,
        differ: Vec::new(),
    };
    for line in oracle(device).lines() {
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
    let t = compare(device, target);
    assert!(
        t.supported > 100 && t.unsupported > 50,
        "{device}: too few problems of a kind"
    );
    assert!(
        t.differ.is_empty(),
        "{device}: {} of {} differ:\n{}",
        t.differ.len(),
        t.supported + t.unsupported,
        t.differ.join("\n")
    );
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
    let dir = data().join("tunanet");
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    // gfx942's network (18 inputs) with gfx908's class (24 features).
    let e = TunaNet::parse(
        ModelClass::Gfx908,
        &read("gfx942.tn.model"),
        &read("gfx908_metadata.tn.model"),
    )
    .unwrap_err();
    assert!(e.contains("18 inputs"), "{e}");
    let mut meta = read("gfx942_metadata.tn.model");
    meta["stats"]["test"]["features"]["mean"]
        .as_object_mut()
        .unwrap()
        .remove("Inp_0");
    let e = TunaNet::parse(ModelClass::Gfx942, &read("gfx942.tn.model"), &meta).unwrap_err();
    assert!(e.contains("Inp_0"), "{e}");
}
