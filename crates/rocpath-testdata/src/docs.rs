//! Whole documents for tests that build them by hand: the readers take documents with their
//! own types (`rocpath-docs`), so a test document must carry every field its producer prints.

use serde_json::{Value, json};

/// A `rocpath.case/1` case as `case read` prints one: `fields` over a case with every field
/// the document has, empty (the ledger reads cases with their own type, so a test case
/// must be whole). A `problems[]` item given as `{"key": …}` alone gets the problem that key
/// decodes to.
#[allow(clippy::panic)] // test support: a key that does not decode fails the calling test
pub fn whole_case(fields: Value) -> Value {
    let ev = json!({"class": "unresolved", "kind": "hypothesis", "rule": "test"});
    let mut case = json!({
        "name": "", "path": "", "complete": true, "files": [], "meta": null, "device": null,
        "libraries": [], "problems": [], "candidates": [], "forced": null, "selected": null,
        "db_lookups": [], "code_objects": [], "timings": [], "verification": null,
        "outcome": {"kind": "undetermined", "reason": "", "evidence": ev},
        "exit": {"code": 0, "signal": null}, "gemm_calls": [], "api_calls": [],
        "tensile_kernels": [], "fallbacks": [], "errors": [], "notes": []
    });
    if let (Some(to), Value::Object(from)) = (case.as_object_mut(), fields) {
        to.extend(from);
    }
    if let Some(problems) = case["problems"].as_array_mut() {
        for p in problems.iter_mut().filter(|p| p.get("problem").is_none()) {
            let key = p["key"].as_str().unwrap_or_default();
            let decoded =
                rocpath_docs::conv::Problem::from_fdb_key(key).unwrap_or_else(|e| panic!("{e}"));
            p["problem"] = serde_json::to_value(decoded).unwrap_or_else(|e| panic!("{e}"));
            p["seen_as"] = json!(["db_key"]);
            if p.get("evidence").is_none() {
                p["evidence"] = ev.clone();
            }
        }
    }
    case
}
