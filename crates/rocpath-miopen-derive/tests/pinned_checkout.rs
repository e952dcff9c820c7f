#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
//! Re-deriving from ROCm/MIOpen at 2d1fd997 gives the committed model byte for byte, with every
//! rule checked (`cargo test -p rocpath-miopen-derive -- --ignored` with the checkout in
//! `ROCPATH_MIOPEN_SRC`; `git clone https://github.com/ROCm/MIOpen && git -C MIOpen checkout
//! 2d1fd997`).

#[test]
#[ignore = "needs a ROCm/MIOpen checkout at 2d1fd997 in ROCPATH_MIOPEN_SRC"]
fn re_deriving_the_pinned_checkout_reproduces_the_committed_model() {
    let src =
        std::env::var_os("ROCPATH_MIOPEN_SRC").expect("ROCPATH_MIOPEN_SRC names the checkout");
    let (model, report) =
        rocpath_miopen_derive::derive(std::path::Path::new(&src), &|_, _| {}).unwrap();
    assert!(
        model.source.commit.starts_with("2d1fd997"),
        "{}",
        model.source.commit
    );
    assert!(
        report.rules_drifted.is_empty(),
        "{:?}",
        report.rules_drifted
    );
    assert!(report.rules_moved.is_empty(), "{:?}", report.rules_moved);
    let committed = include_str!("../../rocpath-miopen/data/miopen-model-2d1fd997.json");
    let derived = serde_json::to_string(&model).unwrap();
    assert!(
        derived == committed,
        "the derived model differs from the committed one: regenerate it with `rocpath explain miopen-derive $ROCPATH_MIOPEN_SRC --out crates/rocpath-miopen/data/miopen-model-2d1fd997.json`"
    );
}

/// The same for the rocm-6.2.2 tag (`ROCPATH_MIOPEN_SRC_ROCM_6_2_2`): the shipped model of MIOpen
/// 3.2.0. Ten hand-written rules cite lines that release changed; the model names them in its
/// notes, and they must stay the ones listed here.
#[test]
#[ignore = "needs a ROCm/MIOpen checkout at rocm-6.2.2 in ROCPATH_MIOPEN_SRC_ROCM_6_2_2"]
fn re_deriving_rocm_6_2_2_reproduces_the_shipped_model() {
    let src = std::env::var_os("ROCPATH_MIOPEN_SRC_ROCM_6_2_2")
        .expect("ROCPATH_MIOPEN_SRC_ROCM_6_2_2 names the checkout");
    let (model, report) =
        rocpath_miopen_derive::derive(std::path::Path::new(&src), &|_, _| {}).unwrap();
    assert!(
        model.source.commit.starts_with("d62f7730"),
        "{}",
        model.source.commit
    );
    assert_eq!(report.rules_drifted.len(), 10, "{:?}", report.rules_drifted);
    let committed = include_str!("../../rocpath-miopen/data/miopen-model-rocm-6.2.2.json");
    let derived = serde_json::to_string(&model).unwrap();
    assert!(
        derived == committed,
        "the derived model differs from the shipped one: regenerate it with `rocpath explain miopen-derive $ROCPATH_MIOPEN_SRC_ROCM_6_2_2 --out crates/rocpath-miopen/data/miopen-model-rocm-6.2.2.json`"
    );
}

/// The same for the rocm-6.3.1 tag (`ROCPATH_MIOPEN_SRC_ROCM_6_3_1`, commit b0800f61, MIOpen
/// 3.3.0): every hand-written rule's cited lines are unchanged there (four moved).
#[test]
#[ignore = "needs a ROCm/MIOpen checkout at rocm-6.3.1 in ROCPATH_MIOPEN_SRC_ROCM_6_3_1"]
fn re_deriving_rocm_6_3_1_reproduces_the_shipped_model() {
    let src = std::env::var_os("ROCPATH_MIOPEN_SRC_ROCM_6_3_1")
        .expect("ROCPATH_MIOPEN_SRC_ROCM_6_3_1 names the checkout");
    let (model, report) =
        rocpath_miopen_derive::derive(std::path::Path::new(&src), &|_, _| {}).unwrap();
    assert!(
        model.source.commit.starts_with("b0800f61"),
        "{}",
        model.source.commit
    );
    assert!(
        report.rules_drifted.is_empty(),
        "{:?}",
        report.rules_drifted
    );
    let committed = include_str!("../../rocpath-miopen/data/miopen-model-rocm-6.3.1.json");
    let derived = serde_json::to_string(&model).unwrap();
    assert!(
        derived == committed,
        "the derived model differs from the shipped one: regenerate it with `rocpath explain miopen-derive $ROCPATH_MIOPEN_SRC_ROCM_6_3_1 --out crates/rocpath-miopen/data/miopen-model-rocm-6.3.1.json`"
    );
}
