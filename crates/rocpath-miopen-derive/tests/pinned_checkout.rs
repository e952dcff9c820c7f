#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! Re-deriving from ROCm/MIOpen at 2d1fd997, and at the `rocm-6.2.2` and `rocm-6.3.1` tags,
//! gives each shipped model byte for byte, with every rule checked (`cargo test -p
//! rocpath-miopen-derive -- --ignored` with the checkouts in `ROCPATH_MIOPEN_SRC`,
//! `ROCPATH_MIOPEN_SRC_ROCM_6_2_2` and `ROCPATH_MIOPEN_SRC_ROCM_6_3_1`; `git clone
//! https://github.com/ROCm/MIOpen && git -C MIOpen checkout 2d1fd997`).

use rocpath_miopen_derive::Report;

/// Derives the checkout `var` names, checks it is at `commit`, and holds the model against the
/// shipped `data/miopen-model-<name>.json` (`committed`); the report, for the rules' checks.
fn rederive(var: &str, commit: &str, name: &str, committed: &str) -> Report {
    let src = std::env::var_os(var).unwrap_or_else(|| panic!("{var} names the checkout"));
    let (model, report) =
        rocpath_miopen_derive::derive(std::path::Path::new(&src), &|_, _| {}).unwrap();
    assert!(
        model.source.commit.starts_with(commit),
        "{}",
        model.source.commit
    );
    let derived = serde_json::to_string(&model).unwrap();
    assert!(
        derived == committed,
        "the derived model differs from the shipped one: regenerate it with `rocpath explain miopen-derive ${var} --out crates/rocpath-miopen/data/miopen-model-{name}.json`"
    );
    report
}

#[test]
#[ignore = "needs a ROCm/MIOpen checkout at 2d1fd997 in ROCPATH_MIOPEN_SRC"]
fn re_deriving_the_pinned_checkout_reproduces_the_committed_model() {
    let committed = include_str!("../../rocpath-miopen/data/miopen-model-2d1fd997.json");
    let report = rederive("ROCPATH_MIOPEN_SRC", "2d1fd997", "2d1fd997", committed);
    assert!(
        report.rules_drifted.is_empty(),
        "{:?}",
        report.rules_drifted
    );
    assert!(report.rules_moved.is_empty(), "{:?}", report.rules_moved);
}

/// The shipped model of MIOpen 3.2.0. Ten hand-written rules cite lines that release changed;
/// the model names them in its notes, and they must stay the ones listed here.
#[test]
#[ignore = "needs a ROCm/MIOpen checkout at rocm-6.2.2 in ROCPATH_MIOPEN_SRC_ROCM_6_2_2"]
fn re_deriving_rocm_6_2_2_reproduces_the_shipped_model() {
    let committed = include_str!("../../rocpath-miopen/data/miopen-model-rocm-6.2.2.json");
    let report = rederive(
        "ROCPATH_MIOPEN_SRC_ROCM_6_2_2",
        "d62f7730",
        "rocm-6.2.2",
        committed,
    );
    assert_eq!(report.rules_drifted.len(), 10, "{:?}", report.rules_drifted);
}

/// The shipped model of MIOpen 3.3.0 (commit b0800f61): every hand-written rule's cited lines
/// are unchanged there (four moved).
#[test]
#[ignore = "needs a ROCm/MIOpen checkout at rocm-6.3.1 in ROCPATH_MIOPEN_SRC_ROCM_6_3_1"]
fn re_deriving_rocm_6_3_1_reproduces_the_shipped_model() {
    let committed = include_str!("../../rocpath-miopen/data/miopen-model-rocm-6.3.1.json");
    let report = rederive(
        "ROCPATH_MIOPEN_SRC_ROCM_6_3_1",
        "b0800f61",
        "rocm-6.3.1",
        committed,
    );
    assert!(
        report.rules_drifted.is_empty(),
        "{:?}",
        report.rules_drifted
    );
}
