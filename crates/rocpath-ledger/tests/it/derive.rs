#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `ledger derive` on a ledger folder: deterministic and idempotent, a person's edit survives,
//! a forced case never changes a natural claim, a contradicting case of the same problem turns
//! a confirmed claim unresolved with a dated history entry. Case documents are whole, as
//! `rocpath --json case read` prints them for the Vega64 logs of the shared fixtures
//! (`vega64_int8_*`): the fields the rules read with the same values, the others empty
//! (`common::whole_case`).

use super::common;
use common::Fixture;
use rocpath_evidence::Class;
use rocpath_ledger::check;
use rocpath_ledger::derive::{self, claim_id, rule};
use rocpath_ledger::model::*;
use serde_json::{Value, json};

const NATURAL_INT8: &str = "gfx900|MIOpen 3.5.1|conv_fwd|F|INT8/INT8/INT8|-/-/-|NCHW/NCHW/NCHW|natural|natural|MIOpenDriver";

fn case(name: &str, forced: Option<&str>, outcome: &str, selected: Option<&str>) -> Value {
    let ev = json!({"class": "confirmed", "kind": "runtime_verified",
                    "rule": format!("case.outcome.{outcome}")});
    json!({
        "schema": "rocpath.case/1",
        "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json case read",
                     "time": "2026-03-18T00:00:00Z", "host": "test"},
        "cases": [common::whole_case(json!({
            "name": name,
            "meta": {"schema": "rocpath.case-meta/1",
                     "command_line": "MIOpenDriver convint8 -n 16 -c 32 -H 28 -W 28 -k 32 -y 1 -x 1 -F 1 -t 1",
                     "env": {"MIOPEN_LOG_LEVEL": "6"}},
            "device": {"arch": "gfx900:xnack-", "evidence": ev},
            "libraries": [{"what": "miopen_version", "value": "3.5.1.5b515cf1bca-dirty", "evidence": ev}],
            "problems": [{"key": "32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F", "evidence": ev}],
            "forced": forced.map(|s| json!({"solver": s, "id": null, "via": "driver_flag", "evidence": ev})),
            "selected": selected.map(|s| json!({"solver": s, "kernels": [], "evidence": ev})),
            "outcome": {"kind": outcome, "reason": "as logged", "evidence": ev}
        }))],
        "errors": []
    })
}

fn natural_pair() -> Fixture {
    let f = Fixture::new();
    let naive = Some("ConvDirectNaiveConvFwd");
    f.import(
        "vega64_i8_case1",
        case("vega64_i8_case1", None, "natural", naive),
    );
    f.import(
        "vega64_int8_nchw_1x1_fwd_n32",
        case("vega64_int8_nchw_1x1_fwd_n32", None, "natural", naive),
    );
    f
}

#[test]
fn deriving_twice_writes_the_same_bytes() {
    let f = natural_pair();
    let first = f.derive("2026-03-18");
    assert_eq!(first.created.len(), 3, "{first:?}");
    let a = f.claims_dir();
    let again = f.derive("2026-04-01");
    assert!(
        again.created.is_empty() && again.updated.is_empty(),
        "{again:?}"
    );
    assert_eq!(again.unchanged, 3);
    assert_eq!(f.claims_dir(), a);
    let c = f.claim(rule::CASE_GROUP, NATURAL_INT8);
    assert_eq!(c.class, Some(Class::Confirmed));
    assert_eq!(c.derived_by, rule::CASE_GROUP);
    assert_eq!(c.support.len(), 2);
    assert_eq!(c.support[0].record.as_deref(), Some("/cases/0/outcome"));
    assert_eq!(
        c.statement.en,
        "Natural INT8 NCHW forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver selected ConvDirectNaiveConvFwd in 2 of 2 cases."
    );
    assert!(
        c.statement.ja.contains("2 件中 2 件で"),
        "{}",
        c.statement.ja
    );
    let loaded = f.ledger.load().unwrap();
    let problems = check::check(f.ledger.root(), &loaded);
    assert!(problems.is_empty(), "{problems:?}");
    // The case pages list their outcome claim.
    let case = loaded
        .cases
        .iter()
        .find(|c| c.id == "vega64_i8_case1")
        .unwrap();
    assert!(
        case.claims
            .contains(&claim_id(rule::CASE_OUTCOME, "vega64_i8_case1"))
    );
}

#[test]
fn a_persons_edit_survives_derivation() {
    let f = natural_pair();
    f.derive("2026-03-18");
    let id = claim_id(rule::CASE_GROUP, NATURAL_INT8);
    let path = f.ledger.root().join("claims").join(format!("{id}.toml"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut c = rocpath_ledger::files::parse_claim(&text).unwrap();
    c.statement.ja = "gfx900 の INT8 畳み込みは素朴な直接法に落ちる。".into();
    c.statement.en = "INT8 convolution on gfx900 falls to the naive direct solver.".into();
    c.review = Some(Review::Edited);
    std::fs::write(&path, rocpath_ledger::files::to_toml(&c).unwrap()).unwrap();
    f.import(
        "vega64_int8_3x3_s1_n32_c64_k64",
        case(
            "vega64_int8_3x3_s1_n32_c64_k64",
            None,
            "natural",
            Some("ConvDirectNaiveConvFwd"),
        ),
    );
    let r = f.derive("2026-03-20");
    assert!(r.updated.contains(&id), "{r:?}");
    let after = f.claim(rule::CASE_GROUP, NATURAL_INT8);
    assert_eq!(after.statement, c.statement);
    assert_eq!(after.review, Some(Review::Edited));
    assert_eq!(after.derived.as_ref().unwrap().of, 3);
    assert_eq!(after.history.last().unwrap().date, "2026-03-20");
}

#[test]
fn a_forced_case_never_changes_the_natural_claim() {
    let f = natural_pair();
    f.derive("2026-03-18");
    let id = claim_id(rule::CASE_GROUP, NATURAL_INT8);
    let before = f.claims_dir()[&format!("{id}.toml")].clone();
    f.import(
        "vega64_int8_force_dlops_ck",
        case(
            "vega64_int8_force_dlops_ck",
            Some("ConvCkIgemmFwdV6r1DlopsNchw"),
            "applicability_reject",
            None,
        ),
    );
    let r = f.derive("2026-03-19");
    assert!(!r.updated.contains(&id), "{r:?}");
    assert_eq!(f.claims_dir()[&format!("{id}.toml")], before);
    let forced = f.claim(rule::CASE_OUTCOME, "vega64_int8_force_dlops_ck");
    assert_eq!(forced.selection, Some(SelectionKind::Forced));
    assert!(
        forced
            .statement
            .en
            .contains("forced ConvCkIgemmFwdV6r1DlopsNchw"),
        "{}",
        forced.statement.en
    );
}

#[test]
fn a_contradicting_case_of_the_same_problem_turns_confirmed_into_unresolved_with_a_dated_entry() {
    let f = natural_pair();
    f.derive("2026-03-18");
    f.import(
        "vega64_int8_other",
        case("vega64_int8_other", None, "natural", Some("GemmFwdRest")),
    );
    f.derive("2026-03-21");
    let c = f.claim(rule::CASE_GROUP, NATURAL_INT8);
    assert_eq!(c.class, Some(Class::Unresolved));
    let d = c.derived.as_ref().unwrap();
    assert_eq!((d.agree, d.of), (2, 3));
    assert_eq!(d.exceptions, ["vega64_int8_other: selected GemmFwdRest"]);
    let last = c.history.last().unwrap();
    assert_eq!(last.date, "2026-03-21");
    assert_eq!(last.class, Some(Class::Unresolved));
    assert_eq!(
        last.note.en,
        "derived again: confirmed 2/2 → unresolved 2/3"
    );
    assert!(
        c.statement
            .en
            .contains("of the same problem. Exceptions: vega64_int8_other"),
        "{}",
        c.statement.en
    );
}

#[test]
fn an_unreadable_observation_is_named_and_the_rest_derived() {
    let f = natural_pair();
    std::fs::write(
        f.ledger.root().join("observations/broken.json"),
        b"{\"schema\": \"rocpath.ledger.observation/1\", \"id\": \"broken\", \"docu",
    )
    .unwrap();
    let r = f.derive("2026-03-18");
    assert_eq!(r.errors.len(), 1);
    assert_eq!(r.errors[0].path, "observations/broken.json");
    assert_eq!(r.created.len(), 3);
    let g = f.ledger.lock("t").unwrap();
    assert!(derive::derive(&g, &f.ledger, "2026-3-1").is_err());
}

/// The rocBLAS GEMM case of the Vega64 logs (`vega64_rocblas_int8_gemm_128_128_128_20260318`)
/// as `case read` prints it: rocblas-bench finished, and the log names no kernel.
fn rocblas_gemm_case() -> Value {
    let ev =
        json!({"class": "confirmed", "kind": "runtime_verified", "rule": "case.outcome.natural"});
    json!({
        "schema": "rocpath.case/1",
        "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json case read",
                     "time": "2026-03-18T00:00:00Z", "host": "test"},
        "cases": [common::whole_case(json!({
            "name": "vega64_rocblas_int8_gemm_128_128_128_20260318",
            "device": {"arch": "gfx900:xnack-", "name": "AMD Radeon RX Vega", "evidence": ev},
            "outcome": {"kind": "natural", "evidence": ev,
                        "reason": "rocblas-bench completed 1 call(s) and printed results: NN 128x128x128 at 51.195 rocblas-Gflops, 81.928 us, norm error 0 against the CPU reference"},
            "gemm_calls": [{"api": "rocblas-bench", "backend": null, "trans_a": "N", "trans_b": "N",
                            "m": 128, "n": 128, "k": 128, "types": {}, "count": 1, "source": "bench",
                            "evidence": ev}]
        }))],
        "errors": []
    })
}

#[test]
fn a_case_whose_record_lacks_the_selected_kernel_writes_no_claim() {
    let f = natural_pair();
    f.import(
        "vega64_rocblas_int8_gemm_128_128_128_20260318",
        rocblas_gemm_case(),
    );
    f.import("vega64_rocblas_again", {
        let mut d = rocblas_gemm_case();
        d["cases"][0]["name"] = json!("vega64_rocblas_again");
        d
    });
    f.derive("2026-03-18");
    let claims = f.claims_dir();
    for (name, bytes) in &claims {
        let c = rocpath_ledger::files::parse_claim(std::str::from_utf8(bytes).unwrap()).unwrap();
        assert_eq!(c.statement.placeholder(), None, "{name}: {:?}", c.statement);
    }
    let id = claim_id(
        rule::CASE_OUTCOME,
        "vega64_rocblas_int8_gemm_128_128_128_20260318",
    );
    assert!(!claims.contains_key(&format!("{id}.toml")), "{claims:?}");
    let loaded = f.ledger.load().unwrap();
    let problems = check::check(f.ledger.root(), &loaded);
    assert!(problems.is_empty(), "{problems:?}");
}
