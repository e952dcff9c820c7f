#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Prediction vs observation on documents that follow the `rocpath.case/1` contract (the fields
//! `rocpath case read --json` prints): the applicability model's path against the selection,
//! the failure and every logged statement about a solver. Records come from the logged
//! lookups, so no database folder is needed.

use rocpath_explain::compare::{Comparison, Options, compare, release_of};
use serde_json::{Value, json};
use std::path::Path;

const K3: &str = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
const I8: &str = "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F";

/// A whole case (`rocpath_testdata::docs::whole_case`) with the fields the comparison reads.
fn case(name: &str, key: &str, cmd: &str, selected: Option<&str>, outcome: &str) -> Value {
    let ev = json!({"class": "confirmed", "kind": "runtime_verified", "rule": "t"});
    rocpath_testdata::docs::whole_case(json!({
        "name": name,
        "device": {"arch": "gfx900:xnack-", "evidence": ev},
        "problems": [{"key": key}],
        "meta": {"schema": "rocpath.case-meta/1", "command_line": cmd, "env": {"MIOPEN_LOG_LEVEL": "6"}},
        "libraries": [{"what": "miopen_version", "value": "3.5.1.5b515cf1bca-dirty", "evidence": ev}],
        "selected": selected.map(|s| json!({"solver": s, "kernels": [], "evidence": ev})),
        "outcome": {"kind": outcome, "reason": "", "evidence": ev},
    }))
}

/// A candidate's fates: (fate, phase, line).
type Seen<'a> = &'a [(&'a str, &'a str, u64)];

/// Whole candidates from (solver, fates), as `case read` prints them.
fn candidates(list: &[(&str, Seen<'_>)]) -> Value {
    let ev = json!({"class": "confirmed", "kind": "runtime_verified", "rule": "t"});
    Value::Array(
        list.iter()
            .map(|(solver, seen)| {
                let seen: Vec<Value> = seen
                    .iter()
                    .map(|(f, p, l)| json!({"fate": f, "phase": p, "line": l, "file": "x.log"}))
                    .collect();
                json!({"solver": solver, "id": null, "fate": seen[0]["fate"], "seen": seen, "evidence": ev})
            })
            .collect(),
    )
}

fn with_record(mut c: Value, items: Value) -> Value {
    let ev = json!({"class": "confirmed", "kind": "runtime_verified", "rule": "t"});
    c["db_lookups"] = json!([
        {"db": "user_find_db", "file": "/home/u/.config/miopen/gfx900_64.HIP.3_5_1.ufdb.txt",
         "key": "k", "found": false, "count": 1, "evidence": ev},
        {"db": "find_db", "file": "/opt/rocm/share/miopen/db/gfx900_64.HIP.fdb.txt",
         "key": "k", "found": true, "record": items, "count": 1, "evidence": ev},
    ]);
    c
}

fn run(cases: Vec<Value>) -> Vec<Comparison> {
    let model = rocpath_miopen::model::pinned().unwrap();
    let doc = serde_json::from_value(json!({"cases": cases})).unwrap();
    let opts = Options {
        model,
        by_release: true,
        db_dir: None,
        cu: None,
        vram: Some(8 << 30),
    };
    compare(&doc, Path::new("case.json"), &opts)
}

#[test]
fn cases_agree_disagree_or_stay_unresolved() {
    let wino = json!([{"solver": "ConvBinWinograd3x3U", "algorithm": "miopenConvolutionFwdAlgoWinograd", "time_ms": 0.67, "workspace": 0}]);
    let fp32 =
        "bash -lc MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1 -t 1";
    let int8 = "MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -F 1 -t 1";
    let naive = naive_int8(int8);
    let r = run(vec![
        with_record(
            case(
                "record agrees",
                K3,
                fp32,
                Some("ConvBinWinograd3x3U"),
                "natural",
            ),
            wino.clone(),
        ),
        with_record(
            case(
                "record disagrees",
                K3,
                fp32,
                Some("ConvOclDirectFwd"),
                "natural",
            ),
            wino,
        ),
        naive,
        case(
            "forced dlops",
            I8,
            &format!("{int8} -S ConvCkIgemmFwdV6r1DlopsNchw"),
            None,
            "applicability_reject",
        ),
        case(
            "cast refused",
            I8,
            &format!("{int8} --out_cast_type int32"),
            None,
            "cli_error",
        ),
        case(
            "timing decides",
            "64-56-56-3x3-64-56-56-16-1x1-1x1-1x1-0-NCHW-BF16-F",
            "MIOpenDriver convbfp16 -n 16 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1",
            Some("GemmFwdRest"),
            "natural",
        ),
        case(
            "outside the candidates",
            "64-56-56-3x3-64-56-56-16-1x1-1x1-1x1-0-NCHW-BF16-F",
            "MIOpenDriver convbfp16 -n 16 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1",
            Some("ConvAsm3x3U"),
            "natural",
        ),
        rocpath_testdata::docs::whole_case(json!({"name": "rocblas only"})),
        case("c api probe", I8, "./probe --int8", None, "natural"),
    ]);
    let v: Vec<&str> = r.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(
        v,
        [
            "agree",
            "disagree",
            "agree",
            "agree",
            "agree",
            "unresolved",
            "disagree",
            "not_miopen",
            "not_miopen"
        ]
    );
    assert_eq!(r[0].evidence.class.as_str(), "confirmed");
    assert_eq!(r[0].evidence.rule, "explain.compare.agree");
    assert_eq!(r[0].release.as_deref(), Some("3.5.1"));
    assert!(
        r[1].question
            .as_deref()
            .unwrap()
            .contains("ConvOclDirectFwd")
    );
    assert_eq!(r[1].evidence.class.as_str(), "unresolved");
    assert_eq!(
        r[3].predicted.as_deref(),
        Some("failure: rejected_not_applicable")
    );
    assert_eq!(r[4].predicted.as_deref(), Some("failure: cli_error"));
    assert!(
        r[5].statement
            .contains("the run's GemmFwdRest is one of them"),
        "{}",
        r[5].statement
    );
}

/// The natural INT8 case with the solvers its log names (as a real Vega64 log of it does).
fn naive_int8(int8: &str) -> serde_json::Value {
    let mut naive = case(
        "int8 natural",
        I8,
        int8,
        Some("ConvDirectNaiveConvFwd"),
        "natural",
    );
    naive["candidates"] = candidates(&[
        ("GemmFwd1x1_0_1_int8", &[("not_applicable", "search", 342)]),
        ("fft", &[("skipped_non_dynamic", "search", 352)]),
        (
            "ConvDirectNaiveConvFwd",
            &[
                ("succeeded", "search", 309),
                ("immediate_candidate", "immediate_fallback", 152),
            ],
        ),
        ("ConvWinoRageRxS<2-3>", &[("not_applicable", "search", 300)]),
        (
            "ConvMPBidirectWinograd<2-3>",
            &[("succeeded", "search", 301)],
        ),
    ]);
    naive
}

#[test]
fn logged_solvers_agree_stay_unresolved_or_disagree_one_by_one() {
    let int8 = "MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -F 1 -t 1";
    let r = run(vec![naive_int8(int8)]);
    assert_eq!(r[0].verdict, rocpath_explain::compare::Verdict::Agree);
    // Per-solver statements: the model agrees with every logged one it can decide; a solver
    // of a newer release is unresolved, and a solver the model rejects but the log ran is a
    // disagreement.
    let s: Vec<(&str, &str, &str)> = r[0]
        .solvers
        .iter()
        .map(|c| (c.solver.as_str(), c.logged.as_str(), c.verdict.as_str()))
        .collect();
    assert_eq!(
        s,
        [
            ("GemmFwd1x1_0_1_int8", "not_applicable", "agree"),
            ("fft", "skipped_non_dynamic", "agree"),
            ("ConvDirectNaiveConvFwd", "succeeded", "agree"),
            ("ConvDirectNaiveConvFwd", "immediate_candidate", "agree"),
            ("ConvWinoRageRxS<2-3>", "not_applicable", "unresolved"),
            ("ConvMPBidirectWinograd<2-3>", "succeeded", "disagree"),
        ]
    );
    assert_eq!(r[0].solver_counts.get("agree"), Some(&4));
}

#[test]
fn releases_follow_the_logged_version() {
    assert_eq!(
        release_of("3.5.1.5b515cf1bca-dirty").as_deref(),
        Some("3.5.1")
    );
    assert_eq!(release_of("3.6.0"), Some("3.5.1".into()));
    assert_eq!(release_of("3.3.0.abc"), None);
    assert_eq!(release_of("garbage"), None);
}

#[test]
fn a_forced_run_registering_its_solver_proves_no_applicability() {
    // SetAsFound1_0 (`best_for_algorithm`) follows CompileSolution in a forced run, which never
    // asks IsApplicable; in Find it follows the timing of applicable solvers.
    let k3 = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8-F";
    let int8 = "MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1 -t 1";
    let registered = |solver: &str| candidates(&[(solver, &[("best_for_algorithm", "find", 190)])]);
    let v4r5 = "ConvHipImplicitGemmForwardV4R5Xdlops";
    let mut forced = case(
        "forced v4r5",
        k3,
        &format!("{int8} -S {v4r5}"),
        None,
        "build_failure",
    );
    forced["candidates"] = registered(v4r5);
    let mut find = case("find", k3, int8, Some("ConvDirectNaiveConvFwd"), "natural");
    find["candidates"] = registered(v4r5);
    let r = run(vec![forced, find]);
    assert_eq!(
        r[0].verdict,
        rocpath_explain::compare::Verdict::Agree,
        "{}",
        r[0].statement
    );
    assert!(r[0].solvers.is_empty(), "{:?}", r[0].solvers);
    // The build failure comes from a forced.* rule fitted to such runs: a hypothesis.
    let f = r[0].explanation.as_ref().unwrap().failure.as_ref().unwrap();
    assert_eq!(f.failure, "build_failure");
    assert_eq!(f.evidence.rule, "explain.miopen.forced_fate_calibrated");
    assert_eq!(f.evidence.kind.as_str(), "hypothesis");
    assert!(
        f.evidence.note.contains("forced.hip_xdlops_needs_mfma"),
        "{}",
        f.evidence.note
    );
    let s: Vec<(&str, &str)> = r[1]
        .solvers
        .iter()
        .map(|c| (c.logged.as_str(), c.verdict.as_str()))
        .collect();
    assert_eq!(s, [("best_for_algorithm", "disagree")]);
}

#[test]
fn an_empty_fallback_agrees_with_the_not_supported_error() {
    // Without a logged version the pinned IsInt8 rejects an all-int8 problem: nothing is in
    // the fallback, GetSolutionCountFallback fails with rc 0x6 before the workspace query.
    let int8 = "MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -F 1 -t 1";
    let mut c = case(
        "forced, nothing counted",
        I8,
        &format!("{int8} -S ConvCkIgemmFwdV6r1DlopsNchw"),
        None,
        "library_error",
    );
    c["libraries"] = json!([]);
    c["outcome"]["sub_kind"] = json!("not_supported");
    let mut rejected = c.clone();
    rejected["outcome"]["kind"] = json!("applicability_reject");
    rejected["outcome"]["sub_kind"] = json!("immediate");
    let r = run(vec![c, rejected]);
    assert_eq!(r[0].predicted.as_deref(), Some("failure: not_implemented"));
    assert_eq!(
        r[0].verdict,
        rocpath_explain::compare::Verdict::Agree,
        "{}",
        r[0].statement
    );
    assert_eq!(
        r[1].verdict,
        rocpath_explain::compare::Verdict::Disagree,
        "{}",
        r[1].statement
    );
}

/// An immediate-mode run on gfx942 whose log shows the find-db looked up and not found: the
/// fallback asks TunaNet, whose files are read from the database folder given even though the
/// log gave the lookup, and the run that took TunaNet's first solver agrees.
#[test]
fn a_logged_miss_still_reads_tunanet_from_the_database_folder() {
    let key = "48-37-37-3x3-80-37-37-3-1x1-1x1-1x1-0-NCHW-FP16-F";
    let mut c = case(
        "mi300_fp16_immediate",
        key,
        "MIOpenDriver convfp16 -n 3 -c 48 -H 37 -W 37 -k 80 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1 -S 0",
        Some("ConvBinWinogradRxSf2x3g1"),
        "natural",
    );
    let ev = json!({"class": "confirmed", "kind": "runtime_verified", "rule": "t"});
    c["device"] = json!({"arch": "gfx942", "evidence": ev});
    c["libraries"] = json!([{"what": "miopen_version", "value": "3.3.0", "evidence": ev}]);
    c["db_lookups"] = json!([
        {"db": "find_db", "file": "/opt/rocm/share/miopen/db/gfx942130.HIP.fdb.txt", "key": "k",
         "found": false, "count": 1, "evidence": ev},
    ]);
    let got = on_mi300(c);
    assert_eq!(
        got[0].predicted.as_deref(),
        Some("ConvBinWinogradRxSf2x3g1"),
        "{got:?}"
    );
    assert_eq!(
        got[0].verdict,
        rocpath_explain::compare::Verdict::Agree,
        "{got:?}"
    );
}

/// The library's reason for not asking TunaNet (`TunaNet Inapplicable: …`, a `notes[]` message
/// of the case) is held against the model's TunaNet verdict.
#[test]
fn a_logged_tunanet_refusal_is_checked_against_the_model() {
    let key = "48-37-37-3x3-80-37-37-3-1x1-1x1-1x1-0-NCHW-INT8-F";
    let mut c = case(
        "mi300_int8_immediate",
        key,
        "MIOpenDriver convint8 -n 3 -c 48 -H 37 -W 37 -k 80 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1 -S 0",
        None,
        "natural",
    );
    let ev = json!({"class": "confirmed", "kind": "runtime_verified", "rule": "t"});
    c["device"] = json!({"arch": "gfx942", "evidence": ev});
    let at = json!({"class": "confirmed", "kind": "runtime_verified", "rule": "t",
                    "sources": [{"path": "x.log", "line": 41}]});
    c["notes"] = json!([{"library": "miopen", "count": 1, "evidence": at,
        "message": "TunaNet Inapplicable: Unsupported data type"}]);
    let got = on_mi300(c);
    let tuna: Vec<_> = got[0]
        .solvers
        .iter()
        .filter(|s| s.solver == "TunaNet")
        .collect();
    assert_eq!(tuna.len(), 1, "{:?}", got[0].solvers);
    assert_eq!(
        tuna[0].verdict,
        rocpath_explain::compare::Verdict::Agree,
        "{tuna:?}"
    );
}

/// Compares one case as on an MI300X (304 CUs, 192 GiB), TunaNet's files from the database
/// folder given.
fn on_mi300(c: Value) -> Vec<Comparison> {
    let model = rocpath_miopen::model::pinned().unwrap();
    let doc = serde_json::from_value(json!({"cases": [c]})).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rocpath-miopen/tests/data/tunanet");
    let opts = Options {
        model,
        by_release: true,
        db_dir: Some(dir),
        cu: Some(304),
        vram: Some(192 << 30),
    };
    compare(&doc, Path::new("case.json"), &opts)
}
