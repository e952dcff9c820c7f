#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! The read-path memo answers exactly what a full evaluation answers: for a stream of
//! generated problems, every solver's `IsApplicable` and `IsDynamic` outcome from
//! `solver_fn_memo` equals `solver_fn`'s, on four targets, with one memo per device.

use proptest::prelude::*;
use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::Input;
use rocpath_miopen::model::eval::{Evaluator, Memo};
use rocpath_miopen::model::pinned;
use rocpath_miopen::problem::Square2d;
use rocpath_miopen::{DataType, Direction, Problem};
use std::collections::HashMap;

fn problem() -> impl Strategy<Value = Problem> {
    let ty = prop_oneof![
        Just(DataType::Fp32),
        Just(DataType::Fp16),
        Just(DataType::Bf16),
        Just(DataType::Int8)
    ];
    let dir = prop_oneof![
        Just(Direction::Forward),
        Just(Direction::BackwardData),
        Just(Direction::BackwardWeights)
    ];
    let layout = prop_oneof![Just("NCHW"), Just("NHWC")];
    (
        (ty, dir, layout),
        (
            prop::sample::select(vec![1u64, 3, 5, 7]),
            1i64..=2,
            any::<bool>(),
        ),
        (
            prop::sample::select(vec![1u64, 2, 4]),
            1u64..=260,
            1u64..=260,
        ),
        (1u64..=120, 1u64..=64),
    )
        .prop_filter_map(
            "no output",
            |((t, d, l), (f, s, padded), (g, c, k), (h, n))| {
                Square2d {
                    ty: t,
                    direction: d,
                    layout: l,
                    c: c * g,
                    k: k * g,
                    hw: h,
                    filter: f,
                    pad: if padded { (f / 2) as i64 } else { 0 },
                    stride: s,
                    groups: g,
                    batch: n,
                }
                .problem()
            },
        )
}

fn same_outcomes(target: &str, problems: &[Problem]) {
    let model = pinned().unwrap();
    let ev = Evaluator::new(model, Some("3.5.1"));
    let mut dev = Device::parse(target, Some(60)).unwrap();
    dev.vram = Some(16 << 30);
    let env = Env::default();
    let build = HashMap::new();
    let mut memo = Memo::new();
    for p in problems {
        let inp = Input {
            problem: p,
            device: &dev,
            env: &env,
            build: &build,
            always_enable_naive: false,
        };
        for s in &model.solvers {
            for f in [s.is_applicable, s.is_dynamic].into_iter().flatten() {
                let full = ev.solver_fn(s, f, &inp, false).outcome;
                let memo_says = ev.solver_fn_memo(&mut memo, s, f, &inp);
                assert_eq!(
                    memo_says,
                    full,
                    "{} on {target} for {}",
                    s.name,
                    p.fdb_key()
                );
            }
        }
    }
    assert!(memo.hits > 0, "a stream of problems reuses verdicts");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]
    #[test]
    fn memo_equals_full_evaluation(ps in prop::collection::vec(problem(), 24..40)) {
        for t in ["gfx900:xnack-", "gfx942:sramecc+:xnack-", "gfx90a:sramecc+:xnack-", "gfx1201"] {
            same_outcomes(t, &ps);
        }
    }
}
