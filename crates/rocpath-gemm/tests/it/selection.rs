//! The selection rules on small catalogs written here (YAML → the `.dat` MessagePack the
//! loader reads): each test builds the situation one rule decides and checks the solution the
//! walk returns, or why it cannot decide.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use rocpath_arch::TargetId;
use rocpath_budget::MemoryBudget;
use rocpath_gemm::batch::{self, Outcome};
use rocpath_gemm::rocblas::{Api, BlasType, Call, Settings};
use rocpath_gemm::{Device, Library, Op};
use std::path::Path;

fn write(dir: &Path, name: &str, yaml: &str) {
    let bytes = rocpath_tensile::yaml_to_msgpack(yaml).unwrap_or_else(|e| panic!("{name}: {e}"));
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// A solution of `Contraction_l_Ailk_Bljk_Cijk_Dijk` f32 with extra problem predicates.
fn solution(index: i64, name: &str, extra: &str, ws: u64) -> String {
    format!(
        r#"- name: {name}
  index: {index}
  hardwarePredicate: {{type: TruePred}}
  problemPredicate: {{type: And, value: [{{type: OperationIdentifierEqual, value: Contraction_l_Ailk_Bljk_Cijk_Dijk}}, {{type: TypesEqual, value: [Float, Float, Float, Float]}}{extra}]}}
  taskPredicate: {{type: WorkspaceCheck}}
  debugKernel: false
  sizeMapping: {{workGroup: [16, 16, 1], macroTile: [64, 64, 1], depthU: 16, globalSplitU: 1, persistentKernel: 0, sourceKernel: false, workspaceSizePerElemC: {ws}, persistentKernelAlongBatch: false, globalAccumulation: 0}}
  problemType: {{operationIdentifier: Contraction_l_Ailk_Bljk_Cijk_Dijk, aType: Float, bType: Float, cType: Float, dType: Float, useBeta: true, highPrecisionAccumulate: false, stridedBatched: true}}
"#
    )
}

/// A lazy master for gfx90a: a CU-104 row whose map lacks NN, then the processor row.
fn master(dir: &Path, placeholder: &str) {
    write(
        dir,
        "TensileLibrary_lazy_gfx90a.dat",
        &format!(
            r#"solutions: []
library:
  type: Hardware
  rows:
  - predicate: {{type: AMDGPU, value: {{type: And, value: [{{type: Processor, value: gfx90a}}, {{type: CUCount, value: 104}}]}}}}
    library: {{type: ProblemMap, property: {{type: OperationIdentifier}}, map: {{Contraction_l_Alik_Bljk_Cijk_Dijk: {{type: Placeholder, value: {placeholder}}}}}}}
  - predicate: {{type: AMDGPU, value: {{type: Processor, value: gfx90a}}}}
    library:
      type: ProblemMap
      property: {{type: OperationIdentifier}}
      map:
        Contraction_l_Ailk_Bljk_Cijk_Dijk:
          type: Problem
          rows:
          - predicate: {{type: And, value: [{{type: TypesEqual, value: [Float, Float, Float, Float]}}, {{type: HighPrecisionAccumulate, value: false}}, {{type: F32XdlMathOp, value: Float}}]}}
            library: {{type: Placeholder, value: {placeholder}}}
"#
        ),
    );
}

fn types_file(dir: &Path, name: &str, solutions: &[String], table: &str, distance: &str) {
    write(
        dir,
        &format!("{name}.dat"),
        &format!(
            "solutions:\n{}library:\n  type: Matching\n  properties: [{{type: FreeSizeA, index: 0}}, {{type: FreeSizeB, index: 0}}, {{type: BoundSize, index: 0}}]\n  distance: {distance}\n  table:\n{table}",
            solutions.concat()
        ),
    );
}

fn predict(dir: &Path, cu: u32, call: &Call) -> Outcome {
    predict_with(dir, cu, call, &Settings::default())
}

fn predict_with(dir: &Path, cu: u32, call: &Call, s: &Settings) -> Outcome {
    let budget = MemoryBudget::new(1 << 30);
    let dev = Device::new(TargetId::parse("gfx90a").unwrap(), cu);
    let lib = Library::open(dir, "gfx90a", &budget).unwrap_or_else(|e| panic!("{e}"));
    batch::predict(&lib, &dev, s, call)
}

fn index(o: &Outcome) -> i64 {
    match o {
        Outcome::Solution { index, .. } => *index,
        other => panic!("no solution: {other:?}"),
    }
}

fn sgemm(m: i64, n: i64, k: i64) -> Call {
    Call::simple(BlasType::F32, [Op::N, Op::N], m, n, k)
}

const T: &str = "T_SS";

#[test]
fn the_nearest_entry_whose_solution_accepts_the_problem_wins() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[
            solution(
                1,
                "K_mult64",
                ", {type: Free0SizeMultiple, index: 0, value: 64}",
                0,
            ),
            solution(2, "K_any", "", 0),
        ],
        "  - {key: [1000, 1000, 1000], index: 1, speed: 9}\n  - {key: [900, 900, 900], index: 2, speed: 5}\n",
        "Euclidean",
    );
    // M = 1000 is not a multiple of 64: the nearest entry's solution is rejected, the walk goes on.
    assert_eq!(index(&predict(d.path(), 110, &sgemm(1000, 1000, 1000))), 2);
    assert_eq!(index(&predict(d.path(), 110, &sgemm(1024, 1000, 1000))), 1);
}

#[test]
fn a_row_whose_library_finds_nothing_falls_through_to_the_next() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[solution(7, "K", "", 0)],
        "  - {key: [64, 64, 64], index: 7, speed: 1}\n",
        "Euclidean",
    );
    // CU 104 matches the first row, whose map has no NN entry; the processor row answers.
    assert_eq!(index(&predict(d.path(), 104, &sgemm(64, 64, 64))), 7);
    assert_eq!(index(&predict(d.path(), 110, &sgemm(64, 64, 64))), 7);
}

#[test]
fn at_equal_distance_the_faster_entry_wins_and_equal_twins_keep_the_loaders_order() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[
            solution(1, "A", "", 0),
            solution(2, "B", "", 0),
            solution(3, "C", "", 0),
        ],
        "  - {key: [100, 100, 100], index: 1, speed: 1}\n  - {key: [100, 100, 100], index: 2, speed: 3}\n  - {key: [100, 100, 100], index: 3, speed: 3}\n",
        "Euclidean",
    );
    // Sorted by speed descending; 2 and 3 tie and (insertion sort, under 16 entries) keep
    // their file order, so 2 is met first and 3 is not strictly faster.
    assert_eq!(index(&predict(d.path(), 110, &sgemm(100, 100, 100))), 2);
}

#[test]
fn equality_tables_take_only_the_exact_key() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[solution(4, "E", "", 0)],
        "  - {key: [128, 128, 128], index: 4, speed: 1}\n",
        "Equality",
    );
    assert_eq!(index(&predict(d.path(), 110, &sgemm(128, 128, 128))), 4);
    assert!(matches!(
        predict(d.path(), 110, &sgemm(128, 128, 129)),
        Outcome::None
    ));
}

#[test]
fn arrays_of_pointers_reject_strided_batched_solutions_and_pass_to_the_general_batched() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[
            solution(1, "SB", ", {type: StridedBatched, value: true}", 0),
            solution(2, "GB", ", {type: StridedBatched, value: false}", 0),
        ],
        "  - {key: [256, 256, 256], index: 1, speed: 9}\n  - {key: [200, 200, 200], index: 2, speed: 1}\n",
        "Euclidean",
    );
    let mut c = sgemm(256, 256, 256);
    assert_eq!(index(&predict(d.path(), 110, &c)), 1);
    c.api = Api::GemmBatched;
    c.batch = 4;
    assert_eq!(index(&predict(d.path(), 110, &c)), 2);
}

#[test]
fn a_solution_needing_more_workspace_than_the_handle_has_is_passed_over() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    // 64 bytes per element of D: 4096² × 64 = 1 GiB, over the default 32 MiB.
    types_file(
        d.path(),
        T,
        &[solution(1, "GSU", "", 64), solution(2, "Plain", "", 0)],
        "  - {key: [4096, 4096, 4096], index: 1, speed: 9}\n  - {key: [4000, 4000, 4000], index: 2, speed: 1}\n",
        "Euclidean",
    );
    assert_eq!(index(&predict(d.path(), 110, &sgemm(4096, 4096, 4096))), 2);
    let s = Settings {
        workspace: Some(2 << 30),
        ..Settings::default()
    };
    assert_eq!(
        index(&predict_with(d.path(), 110, &sgemm(4096, 4096, 4096), &s)),
        1
    );
}

#[test]
fn what_the_model_cannot_decide_is_unresolved_with_the_reason() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[solution(
            1,
            "New",
            ", {type: SomePredicateFromTheFuture, value: 3}",
            0,
        )],
        "  - {key: [64, 64, 64], index: 1, speed: 1}\n",
        "Euclidean",
    );
    match predict(d.path(), 110, &sgemm(64, 64, 64)) {
        Outcome::Unresolved(w) => assert!(w.contains("SomePredicateFromTheFuture"), "{w}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_placeholder_file_and_a_placeholder_cycle_are_unresolved_by_name() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), "T_missing");
    match predict(d.path(), 110, &sgemm(64, 64, 64)) {
        Outcome::Unresolved(w) => assert!(w.contains("T_missing.dat"), "{w}"),
        other => panic!("{other:?}"),
    }
    let d = tempfile::tempdir().unwrap();
    master(d.path(), "T_loop");
    write(
        d.path(),
        "T_loop.dat",
        "solutions: []\nlibrary: {type: Placeholder, value: T_loop}\n",
    );
    match predict(d.path(), 110, &sgemm(64, 64, 64)) {
        Outcome::Unresolved(w) => assert!(w.contains("cycle"), "{w}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn calls_rocblas_refuses_or_returns_early_never_reach_the_tree() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[solution(1, "K", "", 0)],
        "  - {key: [64, 64, 64], index: 1, speed: 1}\n",
        "Euclidean",
    );
    assert!(matches!(
        predict(d.path(), 110, &sgemm(0, 64, 64)),
        Outcome::QuickReturn
    ));
    let mut c = sgemm(64, 64, 64);
    c.ld[0] = 10;
    assert!(matches!(predict(d.path(), 110, &c), Outcome::Invalid));
    let mut c = sgemm(64, 64, 64);
    c.beta = 1.0;
    c.alpha = 0.0;
    assert!(matches!(predict(d.path(), 110, &c), Outcome::QuickReturn));
}

#[test]
fn a_processor_without_a_master_file_is_a_named_load_error() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    let e = Library::open(d.path(), "gfx1201", &MemoryBudget::new(1 << 20)).unwrap_err();
    assert!(
        e.to_string().contains("TensileLibrary_lazy_gfx1201.dat"),
        "{e}"
    );
}

/// Settings with the environment `pairs` (as `explain gemm --env` gives them).
fn env(pairs: &[(&str, &str)]) -> Settings {
    Settings::from_env(|k| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    })
}

#[test]
fn tensile_metric_replaces_every_tables_distance() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[solution(1, "Square", "", 0), solution(2, "Long", "", 0)],
        "  - {key: [100, 100, 100], index: 1, speed: 1}\n  - {key: [1, 1, 190], index: 2, speed: 1}\n",
        "Euclidean",
    );
    // (1, 1, 100): Euclidean 99²·2 = 19,602 to the first, 90² = 8,100 to the second;
    // Manhattan 198 to the first, 90 to the second; Equality: neither key is the problem's.
    let call = sgemm(1, 1, 100);
    assert_eq!(index(&predict(d.path(), 110, &call)), 2);
    let m = predict_with(
        d.path(),
        110,
        &call,
        &env(&[("TENSILE_METRIC", "Manhattan")]),
    );
    assert_eq!(index(&m), 2);
    let e = predict_with(
        d.path(),
        110,
        &call,
        &env(&[("TENSILE_METRIC", "Equality")]),
    );
    assert!(matches!(e, Outcome::None), "{e:?}");
    let at = sgemm(100, 100, 100);
    let e = predict_with(d.path(), 110, &at, &env(&[("TENSILE_METRIC", "Equality")]));
    assert_eq!(index(&e), 1);
    match predict_with(d.path(), 110, &call, &env(&[("TENSILE_METRIC", "Cosine")])) {
        Outcome::Unresolved(w) => assert!(w.contains("Unknown distance function"), "{w}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn naive_search_keeps_the_first_of_equal_distances_whatever_the_speed() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[solution(1, "Below", "", 0), solution(2, "Above", "", 0)],
        "  - {key: [150, 150, 150], index: 2, speed: 9}\n  - {key: [50, 50, 50], index: 1, speed: 1}\n",
        "Euclidean",
    );
    // (100, 100, 100) is as far from both. The binary search starts at the first key not
    // below the problem's (Above) and keeps it, the slower Below being no faster; the naive
    // search takes the table's first entry (Below, after sorting) and nothing strictly nearer.
    let call = sgemm(100, 100, 100);
    assert_eq!(index(&predict(d.path(), 110, &call)), 2);
    let naive = env(&[("TENSILE_NAIVE_SEARCH", "1")]);
    assert_eq!(index(&predict_with(d.path(), 110, &call, &naive)), 1);
    // `strtol(v, nullptr, 0)`: "0x0" is zero, so the switch stays off.
    let off = env(&[("TENSILE_NAIVE_SEARCH", "0x0")]);
    assert_eq!(index(&predict_with(d.path(), 110, &call, &off)), 2);
}

#[test]
fn switches_the_model_cannot_follow_are_unresolved_with_the_source() {
    let d = tempfile::tempdir().unwrap();
    master(d.path(), T);
    types_file(
        d.path(),
        T,
        &[solution(1, "K", "", 0)],
        "  - {key: [64, 64, 64], index: 1, speed: 1}\n",
        "Euclidean",
    );
    let call = sgemm(64, 64, 64);
    for (name, value, cite) in [
        (
            "TENSILE_SOLUTION_INDEX",
            "0x1",
            "MasterSolutionLibrary.hpp:124-143",
        ),
        (
            "ROCBLAS_TENSILE_GEMM_OVERRIDE_PATH",
            "/tmp/o.csv",
            "tensile_host.cpp:990-1004",
        ),
    ] {
        match predict_with(d.path(), 110, &call, &env(&[(name, value)])) {
            Outcome::Unresolved(w) => assert!(w.contains(cite) && w.contains(name), "{w}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    // A negative index restores the default selection.
    let neg = env(&[("TENSILE_SOLUTION_INDEX", "-1")]);
    assert_eq!(index(&predict_with(d.path(), 110, &call, &neg)), 1);
}
