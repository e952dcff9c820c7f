#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! The model derived from ROCm/MIOpen@2d1fd997 against what the source and the Vega64 logs
//! (MIOpen 3.5.1) show: who can run an INT8 convolution on gfx900, where a forced solver is
//! rejected, which gates hold on other generations.

use rocpath_miopen::Problem;
use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input, Outcome, Verdict};
use rocpath_miopen::model::ir::{Model, Solver};
use rocpath_miopen::model::pinned;
use std::collections::HashMap;

fn model() -> &'static Model {
    pinned().expect("the embedded model loads")
}

fn device(t: &str) -> Device {
    let mut d = Device::parse(t, Some(64)).unwrap();
    d.vram = Some(8 << 30);
    d
}

/// Runs `check` over the verdicts of one problem on one device, environment and release.
fn with_input<T>(
    release: Option<&str>,
    target: &str,
    key: &str,
    env: &[&str],
    check: impl FnOnce(&Evaluator<'static>, &Input) -> T,
) -> T {
    let ev = Evaluator::new(model(), release);
    let p = Problem::from_fdb_key(key).unwrap();
    let d = device(target);
    let env = Env::from_pairs(env.iter().copied()).unwrap();
    let build = HashMap::new();
    let inp = Input {
        problem: &p,
        device: &d,
        env: &env,
        build: &build,
        always_enable_naive: false,
    };
    check(&ev, &inp)
}

fn solver(name: &str) -> &'static Solver {
    model()
        .solvers
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

fn verdict(release: Option<&str>, target: &str, key: &str, name: &str, env: &[&str]) -> Verdict {
    let s = solver(name);
    with_input(release, target, key, env, |ev, inp| {
        ev.solver_fn(s, s.is_applicable.unwrap(), inp, true)
    })
}

fn applicable(release: Option<&str>, target: &str, key: &str) -> Vec<&'static str> {
    with_input(release, target, key, &[], |ev, inp| {
        model()
            .solvers
            .iter()
            .filter(|s| {
                let v = ev.solver_fn(s, s.is_applicable.unwrap(), inp, false);
                matches!(v.outcome, Outcome::Bool { v: true })
            })
            .map(|s| s.name.as_str())
            .collect()
    })
}

/// `file:line` of every step of a verdict's chain, from the decisive one.
fn sites(v: &Verdict) -> Vec<String> {
    let m = model();
    let start = v
        .decisive()
        .and_then(|d| v.blame.iter().position(|s| s == d))
        .unwrap_or(0);
    v.blame[start..]
        .iter()
        .map(|s| {
            let f = &m.functions[s.func as usize];
            format!("{}:{}", m.files[f.site.file as usize], s.line)
        })
        .collect()
}

const INT8_1X1: &str = "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F";

#[test]
fn registry_matches_the_logged_ids_and_names() {
    let m = model();
    assert_eq!(m.source.repository, "ROCm/MIOpen");
    assert!(m.source.commit.starts_with("2d1fd997"));
    assert_eq!(m.solvers.len(), 104);
    for s in &m.solvers {
        let row = rocpath_miopen::registry::by_id(s.id).unwrap_or_else(|| panic!("id {}", s.id));
        assert_eq!(s.name, row.legacy_name, "id {}", s.id);
        assert!(s.is_applicable.is_some(), "{} has IsApplicable", s.name);
    }
}

#[test]
fn int8_on_gfx900_only_the_naive_solver_is_applicable_under_3_5_1() {
    assert_eq!(
        applicable(Some("3.5.1"), "gfx900:xnack-", INT8_1X1),
        ["ConvDirectNaiveConvFwd"]
    );
    let key3 = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8-F";
    assert_eq!(
        applicable(Some("3.5.1"), "gfx900:xnack-", key3),
        ["ConvDirectNaiveConvFwd"]
    );
    let nhwc = "64-32-32-1x1-64-32-32-16-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-INT8-F";
    assert_eq!(
        applicable(Some("3.5.1"), "gfx900:xnack-", nhwc),
        ["ConvDirectNaiveConvFwd"]
    );
}

#[test]
fn the_pinned_is_int8_rejects_an_int8_output() {
    // At 2d1fd997 IsInt8() wants an int32 or float output: nothing is left for an all-int8
    // problem, and the naive solver's rejection goes through IsInt8.
    assert!(applicable(None, "gfx900:xnack-", INT8_1X1).is_empty());
    let v = verdict(
        None,
        "gfx900:xnack-",
        INT8_1X1,
        "ConvDirectNaiveConvFwd",
        &[],
    );
    assert_eq!(v.outcome, Outcome::Bool { v: false });
    let s = sites(&v);
    assert!(
        s[0].starts_with("src/solver/conv/conv_direct_naive_conv_fwd.cpp:"),
        "{s:?}"
    );
    assert!(
        s.iter()
            .any(|x| x.starts_with("src/include/miopen/conv/problem_description.hpp:")),
        "{s:?}"
    );
    // With an int32 output GEMM comes back (the C-API probe: 89 listed first).
    let i32out = "64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8INT8INT32-F";
    let a = applicable(None, "gfx900:xnack-", i32out);
    assert!(
        a.contains(&"GemmFwd1x1_0_1_int8") && a.contains(&"ConvDirectNaiveConvFwd"),
        "{a:?}"
    );
}

#[test]
fn forced_solvers_are_rejected_at_their_gates() {
    // DLOPS v6r1: opt-in switch first (conv_ck_igemm_fwd_v6r1_dlops_nchw.cpp:93).
    let v = verdict(
        Some("3.5.1"),
        "gfx900:xnack-",
        INT8_1X1,
        "ConvCkIgemmFwdV6r1DlopsNchw",
        &[],
    );
    assert_eq!(v.outcome, Outcome::Bool { v: false });
    assert_eq!(
        sites(&v)[0],
        "src/solver/conv/conv_ck_igemm_fwd_v6r1_dlops_nchw.cpp:93"
    );
    // Switched on, the data type decides (fp32/fp16 only, :112).
    let v = verdict(
        Some("3.5.1"),
        "gfx900:xnack-",
        INT8_1X1,
        "ConvCkIgemmFwdV6r1DlopsNchw",
        &["MIOPEN_DEBUG_CONV_CK_IGEMM_FWD_V6R1_DLOPS_NCHW=1"],
    );
    assert_eq!(v.outcome, Outcome::Bool { v: false });
    assert_eq!(
        sites(&v)[0],
        "src/solver/conv/conv_ck_igemm_fwd_v6r1_dlops_nchw.cpp:112"
    );
    // XDLops needs MFMA: IsXdlopsSupport.
    let v = verdict(
        Some("3.5.1"),
        "gfx900:xnack-",
        INT8_1X1,
        "ConvHipImplicitGemmFwdXdlops",
        &[],
    );
    assert_eq!(v.outcome, Outcome::Bool { v: false });
    let s = sites(&v);
    assert_eq!(
        s[0], "src/solver/conv/conv_hip_implicit_gemm_fwd_xdlops.cpp:289",
        "{s:?}"
    );
    assert!(
        s.iter()
            .any(|x| x.starts_with("src/include/miopen/solver/implicitgemm_util.hpp:")),
        "{s:?}"
    );
    // MLIR excludes gfx900 by name; on gfx906 rocMLIR decides, which the model cannot know.
    let fp32 = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    let v = verdict(None, "gfx900:xnack-", fp32, "ConvMlirIgemmFwd", &[]);
    assert_eq!(sites(&v)[0], "src/solver/conv/conv_mlir_igemm_fwd.cpp:188");
    let v = verdict(None, "gfx906", fp32, "ConvMlirIgemmFwd", &[]);
    assert!(matches!(v.outcome, Outcome::Unknown(_)), "{v:?}");
}

#[test]
fn generations_take_different_gates() {
    let fp32 = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
    let gfx900 = applicable(None, "gfx900:xnack-", fp32);
    assert!(gfx900.contains(&"ConvBinWinograd3x3U"), "{gfx900:?}");
    // gfx942: the deprecated solvers are off, Winograd 3x3U is gfx8/gfx9-listed only.
    let gfx942 = applicable(None, "gfx942", fp32);
    assert!(
        !gfx942.contains(&"ConvBinWinograd3x3U") && !gfx942.contains(&"ConvAsm3x3U"),
        "{gfx942:?}"
    );
    let v = verdict(None, "gfx942", fp32, "ConvAsm3x3U", &[]);
    assert!(sites(&v)[0].starts_with("src/solver/conv/conv_asm_3x3u.cpp:"));
    // gfx1201: naive and GEMM only among these.
    let gfx1201 = applicable(None, "gfx1201", fp32);
    assert!(
        gfx1201.contains(&"ConvDirectNaiveConvFwd") && gfx1201.contains(&"GemmFwdRest"),
        "{gfx1201:?}"
    );
    assert!(
        !gfx1201
            .iter()
            .any(|s| s.contains("Winograd") || s.contains("Xdlops")),
        "{gfx1201:?}"
    );
}

#[test]
fn environment_switches_turn_solvers_off() {
    let v = verdict(
        None,
        "gfx900:xnack-",
        INT8_1X1,
        "ConvDirectNaiveConvFwd",
        &["MIOPEN_DEBUG_CONV_DIRECT_NAIVE_CONV_FWD=0"],
    );
    assert_eq!(v.outcome, Outcome::Bool { v: false });
    assert!(sites(&v)[0].starts_with("src/solver/conv/conv_direct_naive_conv_fwd.cpp:"));
    let v = verdict(
        Some("3.5.1"),
        "gfx900:xnack-",
        INT8_1X1,
        "ConvDirectNaiveConvFwd",
        &["MIOPEN_DEBUG_CONV_DIRECT_NAIVE_CONV_FWD=maybe"],
    );
    match v.outcome {
        Outcome::Unknown(u) => assert!(u.why.contains("MIOpen throws"), "{u:?}"),
        o => panic!("an invalid value makes MIOpen throw: {o:?}"),
    }
}

mod paths {
    use super::*;
    use rocpath_miopen::findrec::FindItem;
    use rocpath_miopen::select::{Mode, Prediction, Query, select};

    fn predict(
        release: Option<&str>,
        target: &str,
        key: &str,
        mode: Mode,
        env: &[&str],
        record: Option<&[FindItem]>,
    ) -> Prediction {
        let p = Problem::from_fdb_key(key).unwrap();
        let d = device(target);
        let env = Env::from_pairs(env.iter().copied()).unwrap();
        let build = HashMap::new();
        let q = Query {
            problem: &p,
            device: &d,
            env: &env,
            build: &build,
            release,
            record,
            mode,
            tunanet: rocpath_miopen::select::TunaNetFiles::NotRead,
        };
        select(model(), &q).prediction
    }

    fn solver(name: &str) -> Prediction {
        let id = rocpath_miopen::registry::by_name(name).unwrap().id;
        Prediction::Solver {
            name: name.into(),
            id,
        }
    }

    fn failure(p: &Prediction) -> &str {
        match p {
            Prediction::Failure { failure, .. } => failure,
            other => panic!("not a failure: {other:?}"),
        }
    }

    #[test]
    fn natural_int8_ends_at_naive_in_find_and_in_the_wti_fallback() {
        let r = Some("3.5.1");
        assert_eq!(
            predict(r, "gfx900:xnack-", INT8_1X1, Mode::Find, &[], None),
            solver("ConvDirectNaiveConvFwd")
        );
        assert_eq!(
            predict(r, "gfx900:xnack-", INT8_1X1, Mode::Immediate, &[], None),
            solver("ConvDirectNaiveConvFwd")
        );
    }

    #[test]
    fn forced_solvers_meet_their_fates() {
        let r = Some("3.5.1");
        let dlops = Mode::Forced("ConvCkIgemmFwdV6r1DlopsNchw".into());
        assert_eq!(
            failure(&predict(r, "gfx900:xnack-", INT8_1X1, dlops, &[], None)),
            "rejected_not_applicable"
        );
        let gemm = Mode::Forced("GemmFwd1x1_0_1_int8".into());
        assert_eq!(
            failure(&predict(r, "gfx900:xnack-", INT8_1X1, gemm, &[], None)),
            "rejected_not_applicable"
        );
        let k3 = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8-F";
        let v4r5 = Mode::Forced("ConvHipImplicitGemmForwardV4R5Xdlops".into());
        assert_eq!(
            failure(&predict(r, "gfx900:xnack-", k3, v4r5, &[], None)),
            "build_failure"
        );
        let ck = Mode::Forced("ConvHipImplicitGemmFwdXdlops".into());
        assert_eq!(
            failure(&predict(r, "gfx900:xnack-", k3, ck, &[], None)),
            "runtime_abort"
        );
        let mlir = Mode::Forced("ConvMlirIgemmFwd".into());
        assert_eq!(
            failure(&predict(r, "gfx900:xnack-", k3, mlir, &[], None)),
            "build_failure"
        );
        // The naive solver forced on its own problem runs.
        assert_eq!(
            predict(r, "gfx900:xnack-", k3, Mode::Forced("85".into()), &[], None),
            solver("ConvDirectNaiveConvFwd")
        );
    }

    #[test]
    fn an_empty_fallback_ends_the_driver_before_the_workspace_query() {
        // At 2d1fd997 IsInt8 rejects an int8 output, so nothing applies to an all-int8
        // problem: GetSolutionCountFallback throws rc 0x6 before the forced solver's
        // workspace query could reject it (rc 0x3), and -S 0 ends the same way.
        let dlops = || Mode::Forced("ConvCkIgemmFwdV6r1DlopsNchw".into());
        let g = "gfx900:xnack-";
        assert_eq!(
            failure(&predict(None, g, INT8_1X1, dlops(), &[], None)),
            "not_implemented"
        );
        assert_eq!(
            failure(&predict(None, g, INT8_1X1, Mode::Immediate, &[], None)),
            "not_implemented"
        );
        // Under 3.5.1 the naive solver is in the fallback: the count passes and the workspace
        // query rejects the forced solver.
        let r = Some("3.5.1");
        assert_eq!(
            failure(&predict(r, g, INT8_1X1, dlops(), &[], None)),
            "rejected_not_applicable"
        );
        // The fallback switched off: nothing to count without a record ...
        let off = ["MIOPEN_DEBUG_CONV_IMMED_FALLBACK=0"];
        assert_eq!(
            failure(&predict(r, g, INT8_1X1, dlops(), &off, None)),
            "not_implemented"
        );
        // ... while a record's entries are counted unchecked, so the run goes on.
        let rec = rocpath_miopen::findrec::parse_record(
            "ConvDirectNaiveConvFwd:1.0,0,miopenConvolutionFwdAlgoDirect",
        );
        assert_eq!(
            failure(&predict(r, g, INT8_1X1, dlops(), &off, Some(&rec))),
            "rejected_not_applicable"
        );
    }

    #[test]
    fn find_only_solver_with_enforce_leaves_nothing() {
        let env = [
            "MIOPEN_DEBUG_FIND_ONLY_SOLVER=89",
            "MIOPEN_FIND_ENFORCE=SEARCH_DB_UPDATE",
        ];
        let p = predict(
            Some("3.5.1"),
            "gfx900:xnack-",
            INT8_1X1,
            Mode::Find,
            &env,
            None,
        );
        assert_eq!(failure(&p), "no_solution");
    }

    #[test]
    fn a_record_answers_first_and_must_still_apply() {
        let fp32 = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F";
        let rec = rocpath_miopen::findrec::parse_record(
            "ConvBinWinograd3x3U:0.67,0,miopenConvolutionFwdAlgoWinograd;ConvAsm3x3U:0.5,0,miopenConvolutionFwdAlgoDirect",
        );
        // ConvAsm3x3U is faster but deprecated-gated off gfx942; Winograd 3x3U too: on gfx900
        // the fastest applicable entry wins.
        assert_eq!(
            predict(None, "gfx900:xnack-", fp32, Mode::Find, &[], Some(&rec)),
            solver("ConvAsm3x3U")
        );
        let d = predict(
            None,
            "gfx900:xnack-",
            fp32,
            Mode::Find,
            &["MIOPEN_DEBUG_CONV_DIRECT=0"],
            Some(&rec),
        );
        assert_eq!(d, solver("ConvBinWinograd3x3U"));
        // Without a record, timing decides among several.
        assert!(matches!(
            predict(None, "gfx900:xnack-", fp32, Mode::Find, &[], None),
            Prediction::Unresolved { .. }
        ));
    }
}

#[test]
fn a_member_of_a_temporary_uses_the_base_default() {
    // `ConvHipImplicitGemmForwardV4R4Xdlops{}.IsDynamic() && …`: the first class does not
    // override IsDynamic, so the base's `false` decides (the logs say `Skipped (non-dynamic)`).
    let s = solver("ConvMPBidirectWinograd_xdlops<2-3>");
    let key = "128-1-1-1x1-128-1-1-16-0x0-1x1-1x1-0-NCHW-INT8-F";
    let v = with_input(Some("3.5.1"), "gfx900:xnack-", key, &[], |ev, inp| {
        ev.solver_fn(s, s.is_dynamic.unwrap(), inp, true)
    });
    assert_eq!(v.outcome, Outcome::Bool { v: false }, "{v:?}");
}

#[test]
fn values_unpacked_with_std_tie_decide() {
    // `std::tie(gemm_m, gemm_n, gemm_k) = CalculateGemmSize(problem);` then
    // `gemm_n % 32 == 0`: gemm_n = N·Ho·Wo is 49 for N = 1 and 1568 for N = 32.
    let fate = |n: u32| {
        let key = format!("64-7-7-3x3-64-7-7-{n}-1x1-1x1-1x1-0-NCHW-FP32-F");
        verdict(
            None,
            "gfx900:xnack-",
            &key,
            "ConvHipImplicitGemmV4R4Fwd",
            &[],
        )
        .outcome
    };
    assert_eq!(fate(1), Outcome::Bool { v: false });
    assert_eq!(fate(32), Outcome::Bool { v: true });
}

#[test]
fn fp32_backward_on_gfx90a_decides_the_winograd_rxs_solvers() {
    // IsGfx90aFp16altRequired (conv/problem_description.hpp:300-311@2d1fd997) starts with
    // conv::ProblemDescription's own IsFp16(), not batchnorm::ProblemDescription's of the same
    // name: an FP32 problem needs no FP16-alt, whatever the direction, so the RxS gates reach
    // their decision.
    let key = "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-B";
    for name in [
        "ConvBinWinogradRxS",
        "ConvBinWinogradRxSf3x2",
        "ConvBinWinogradRxSf2x3",
        "ConvBinWinogradRxSf2x3g1",
    ] {
        let v = verdict(None, "gfx90a:sramecc+:xnack-", key, name, &[]);
        assert!(
            matches!(v.outcome, Outcome::Bool { .. }),
            "{name}: {:?}",
            v.outcome
        );
    }
    assert!(applicable(None, "gfx90a:sramecc+:xnack-", key).contains(&"ConvBinWinogradRxSf2x3g1"));
}

/// A perf config built from a brace list by its constructor (and the base constructor it
/// forwards to) is a value the model reads: the GTC NHWC solvers' last test on gfx942 —
/// block size (the product of `tensor_a_cluster_lengths`, `BlockSize()`) × grid × splits
/// against 2^32 — is decided, where it was unresolved at the brace list.
#[test]
fn a_perf_config_built_from_a_brace_list_decides_the_gtc_nhwc_solvers() {
    // FP16 WrW, NCHW, on gfx942: the largest FP16 tile's kernel fits, so it applies.
    let key = "64-28-28-3x3-128-28-28-8-1x1-1x1-1x1-0-NCHW-FP16-W";
    let v = verdict(
        None,
        "gfx942",
        key,
        "ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC",
        &[],
    );
    assert!(
        matches!(v.outcome, Outcome::Bool { v: true }),
        "{:?}",
        v.outcome
    );
    let fwd = "64-28-28-3x3-128-28-28-8-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-F";
    let v = verdict(
        None,
        "gfx942",
        fwd,
        "ConvAsmImplicitGemmGTCDynamicFwdXdlopsNHWC",
        &[],
    );
    assert!(!matches!(v.outcome, Outcome::Unknown(_)), "{:?}", v.outcome);
    // Not on a device without MFMA, whatever the config.
    let v = verdict(
        None,
        "gfx1201",
        key,
        "ConvAsmImplicitGemmGTCDynamicWrwXdlopsNHWC",
        &[],
    );
    assert!(
        matches!(v.outcome, Outcome::Bool { v: false }),
        "{:?}",
        v.outcome
    );
}

/// `std::tie(in_n, in_c) = tie_pick<0, 1>()(lengths)` is read, so the GEMM solvers' WTI is a
/// number (gemm_wrw.cpp:99-140@2d1fd997: 0.7 × slowdown factors), and `fft`'s
/// `std::tie(in_h, in_w) != std::make_tuple(28, 28)` tests decide it.
#[test]
fn gemm_wti_and_fft_are_decided() {
    let key = "64-28-28-3x3-128-28-28-8-1x1-1x1-1x1-0-NCHW-FP32-W";
    let s = solver("GemmWrwUniversal");
    let w = with_input(None, "gfx1201", key, &[], |ev, inp| {
        ev.solver_fn(s, s.wti.unwrap(), inp, false).outcome
    });
    match w {
        Outcome::Number { v } => assert!(v > 0.0 && v < 0.7, "{v}"),
        o => panic!("{o:?}"),
    }
    let v = verdict(
        None,
        "gfx900:xnack-",
        "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F",
        "fft",
        &[],
    );
    assert!(
        matches!(v.outcome, Outcome::Bool { v: false }),
        "{:?}",
        v.outcome
    );
}
