#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Prediction vs observation on documents that follow the `rocpath.case/1` contract (the fields
//! `rocpath case read --json` prints), against MIOpen's shipped gfx900 databases.

use rocpath_explain::compare::compare;
use serde_json::json;
use std::path::Path;

fn case(name: &str, key: &str, selected: Option<&str>, forced: bool) -> serde_json::Value {
    json!({
        "name": name,
        "device": {"arch": "gfx900:xnack-"},
        "problems": [{"key": key}],
        "selected": selected.map(|s| json!({"solver": s})),
        "forced": if forced { json!({"solver": "ConvHipImplicitGemmFwdXdlops"}) } else { json!(null) },
        "outcome": {"kind": "natural"},
        "db_lookups": [{"db": "find_db", "file": "/opt/rocm/share/miopen/db/gfx900_64.HIP.fdb.txt"}],
    })
}

#[test]
fn agree_disagree_forced_and_no_record() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::skip("shared data not found");
        return;
    };
    let db = shared.join("data/miopen-db");
    if !db.is_dir() {
        return;
    }
    let k3 = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    let doc = json!({"schema": "rocpath.case/1", "cases": [
        case("agree", k3, Some("ConvBinWinograd3x3U"), false),
        case("disagree", k3, Some("ConvOclDirectFwd"), false),
        case("forced", k3, None, true),
        case("bf16", "64-56-56-3x3-64-56-56-16-1x1-1x1-1x1-0-NCHW-BF16-F", Some("GemmFwdRest"), false),
        json!({"name": "rocblas only", "device": {"arch": null}, "problems": []}),
    ]});
    let r = compare(&doc, Path::new("case.json"), &db, None);
    let v: Vec<&str> = r.iter().map(|c| c.verdict.as_str()).collect();
    assert_eq!(
        v,
        ["agree", "disagree", "forced", "no_prediction", "not_miopen"]
    );
    assert_eq!(r[0].evidence.class.as_str(), "confirmed");
    assert_eq!(r[0].evidence.rule, "explain.compare.agree");
    // The CU count came from the find-db name in the lookups (gfx900_64).
    let e = r[0].explanation.as_ref().unwrap();
    assert_eq!(
        e.db_file.as_ref().unwrap().file.name,
        "gfx900_64.HIP.fdb.txt"
    );
    assert!(
        r[1].question
            .as_deref()
            .unwrap()
            .contains("ConvOclDirectFwd")
    );
    assert_eq!(r[1].evidence.class.as_str(), "unresolved");
    assert_eq!(r[3].evidence.class.as_str(), "unresolved");
}
