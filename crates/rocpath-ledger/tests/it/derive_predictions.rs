#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Predictions of the applicability model against runs: worded with their problem shapes and
//! scope, confirmed only when two or more runs agree, and never "timing decides" for a forced
//! run. Comparisons are shaped as `rocpath --json explain --compare` prints them for the
//! Vega64 logs of the shared fixtures (`vega64_fp32_nchw_1x1_fwd_n32`, `vega64_int8_*`).

use super::common;
use common::Fixture;
use rocpath_evidence::Class;
use rocpath_ledger::check;
use rocpath_ledger::derive::rule;
use rocpath_ledger::model::Claim;
use serde_json::{Value, json};

fn cmp(case: &str, key: &str, mode: &str, predicted: &str, verdict: &str) -> Value {
    json!({"case": case, "arch": "gfx900:xnack-", "problem_key": key, "mode": mode,
           "release": "3.5.1", "observed": "ConvAsm1x1U", "predicted": predicted,
           "observed_outcome": "natural", "verdict": verdict, "statement": "as compared",
           "question": null, "solvers": [], "solver_counts": {}, "explanation": null,
           "evidence": {"class": if verdict == "agree" {"confirmed"} else {"unresolved"},
                        "kind": "runtime_verified", "rule": format!("explain.compare.{verdict}")}})
}

fn doc(comparisons: Vec<Value>) -> Value {
    json!({"schema": "rocpath.explain.compare/1",
           "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json explain --compare",
                        "time": "2026-03-18T00:00:00Z", "host": "test"},
           "comparisons": comparisons})
}

fn predictions(f: &Fixture) -> Vec<Claim> {
    f.ledger
        .load()
        .unwrap()
        .claims
        .into_iter()
        .filter(|c| c.derived_by == rule::EXPLAIN_PREDICTION)
        .collect()
}

#[test]
fn one_agreeing_run_does_not_confirm_and_the_shape_is_named() {
    let f = Fixture::new();
    f.import(
        "compare",
        doc(vec![
            cmp(
                "vega64_fp32_nchw_1x1_fwd_n32",
                "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F",
                "find",
                "ConvAsm1x1U",
                "agree",
            ),
            cmp(
                "vega64_int8_a",
                "32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F",
                "find",
                "ConvDirectNaiveConvFwd",
                "agree",
            ),
            cmp(
                "vega64_int8_b",
                "64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-INT8-F",
                "find",
                "ConvDirectNaiveConvFwd",
                "agree",
            ),
            cmp(
                "vega64_mlir_forced",
                "64-56-56-3x3-64-56-56-16-1x1-1x1-1x1-0-NCHW-INT8-F",
                "forced: ConvMlirIgemmFwd",
                "unresolved",
                "unresolved",
            ),
        ]),
    );
    f.derive("2026-03-18");
    let ps = predictions(&f);
    let find = |s: &str| {
        ps.iter()
            .find(|c| c.statement.en.contains(s))
            .unwrap_or_else(|| panic!("{s}: {ps:#?}"))
    };
    let one = find("ConvAsm1x1U");
    assert_eq!(one.class, Some(Class::Inferred));
    assert!(
        one.statement.en.contains("FP32 NCHW forward convolution"),
        "{}",
        one.statement.en
    );
    assert!(
        one.statement.en.contains("shape N32 C64 56×56 K64 1×1"),
        "{}",
        one.statement.en
    );
    assert!(
        one.statement.en.contains("One run only"),
        "{}",
        one.statement.en
    );
    let two = find("ConvDirectNaiveConvFwd");
    assert_eq!(two.class, Some(Class::Confirmed));
    assert!(
        two.statement
            .en
            .contains("2 shapes: N16 C32 28×28 K32 1×1; N32 C64 56×56 K128 3×3 pad 1×1 stride 2×2"),
        "{}",
        two.statement.en
    );
    let forced = find("forced: ConvMlirIgemmFwd");
    assert!(
        !forced.statement.en.contains("timing"),
        "{}",
        forced.statement.en
    );
    assert!(
        !forced.statement.ja.contains("タイミング"),
        "{}",
        forced.statement.ja
    );
    let problems = check::check(f.ledger.root(), &f.ledger.load().unwrap());
    assert!(problems.is_empty(), "{problems:?}");
}

/// A prediction is listed on the page of each case it was compared on: the case record,
/// found by the case's name in its own document, lists the claim.
#[test]
fn a_prediction_is_listed_on_the_cases_it_was_compared_on() {
    let f = Fixture::new();
    let case = json!({
        "schema": "rocpath.case/1",
        "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json case read x.log",
                     "time": "2026-03-18T00:00:00Z", "host": "test"},
        "cases": [common::whole_case(json!({"name": "vega64_int8_a",
                   "device": {"arch": "gfx900:xnack-", "evidence": {"class": "confirmed", "kind": "runtime_verified", "rule": "case.device"}},
                   "outcome": {"kind": "natural", "reason": "r", "evidence": {"class": "confirmed", "kind": "runtime_verified", "rule": "case.outcome"}}}))]
    });
    f.import("int8_a_log", case);
    f.import(
        "compare",
        doc(vec![cmp(
            "vega64_int8_a",
            "32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F",
            "find",
            "ConvDirectNaiveConvFwd",
            "agree",
        )]),
    );
    f.derive("2026-03-18");
    let p = predictions(&f);
    assert_eq!(p.len(), 1, "{p:?}");
    let loaded = f.ledger.load().unwrap();
    let record = loaded
        .cases
        .iter()
        .find(|c| c.observations.iter().any(|o| o == "int8_a_log"))
        .unwrap_or_else(|| panic!("no case record for the log: {:?}", loaded.cases));
    assert!(record.claims.contains(&p[0].id), "{record:?}");
}
