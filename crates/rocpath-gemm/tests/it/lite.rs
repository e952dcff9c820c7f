//! hipBLASLt 7.1.1's selection rules on small TensileLite catalogs written here (YAML → the
//! `.dat` MessagePack the loader reads): each test builds the situation one rule decides and
//! checks the solutions the heuristic returns, or why it cannot say.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use rocpath_arch::TargetId;
use rocpath_budget::MemoryBudget;
use rocpath_gemm::lite::{
    ComputeType, HipType, LiteLibrary, LiteLoadError, Matmul, Rank0, heuristic,
};
use rocpath_gemm::{Device, Op};
use std::path::Path;

fn write(dir: &Path, name: &str, yaml: &str) {
    let bytes = rocpath_tensile::yaml_to_msgpack(yaml).unwrap_or_else(|e| panic!("{name}: {e}"));
    std::fs::write(dir.join(name), bytes).unwrap();
}

const OP: &str = "Contraction_l_Ailk_Bljk_Cijk_Dijk";

/// A TensileLite HPA f16 solution (TypesEqual with the compute-input type, the usual leaves)
/// with `extra` problem predicates and a GSU.
fn solution(index: i64, extra: &str, gsu: i64) -> String {
    let extra = match extra.strip_prefix(", ") {
        Some(leaf) => format!("\n    - {leaf}"),
        None => String::new(),
    };
    format!(
        r#"- name: K{index}
  kernelName: K{index}
  index: {index}
  debugKernel: false
  internalArgsSupport: {{version: 2, gsu: true, wgm: true, staggerU: true, useUniversalArgs: true}}
  hardwarePredicate: {{type: TruePred}}
  problemPredicate:
    type: And
    value:
    - {{type: OperationIdentifierEqual, value: {OP}}}
    - {{type: TypesEqual, value: [Half, Half, Half, Half, Half]}}
    - {{type: HighPrecisionAccumulate, value: true}}
    - {{type: GlobalSplitUCheckMinK, value: [32, {gsu}]}}
    - {{type: WorkgroupNumberCheck, index: 0, value: [64, 64, {gsu}]}}
    - {{type: BufferLoadOffsetLimitCheck_Beta, value: 64}}
    - {{type: Activation, value: Hipblaslt_all}}
    - {{type: ActivationEnumWhiteList, value: [None, Relu]}}
    - {{type: UseBias, value: 1}}
    - {{type: BiasDataTypeWhiteList, value: [Float, Half]}}
    - {{type: BiasSrcWhiteList, value: [3]}}
    - {{type: UseScaleAB, value: ""}}
    - {{type: WorkgroupMappingXCCCheck, value: [1, -1]}}
    - {{type: F32XdlMathOp, value: Float}}{extra}
  taskPredicate: {{type: WorkspaceCheck}}
  sizeMapping: {{waveNum: 4, workGroup: [32, 4, 1], macroTile: [64, 64, 1], threadTile: [1, 1], matrixInstruction: [16, 16, 16, 1], grvwA: 8, grvwB: 8, gwvwC: 8, gwvwD: 8, depthU: 32, staggerU: 32, staggerUMapping: 0, globalSplitUPGR: 16, globalSplitU: {gsu}, staggerStrideShift: 2, workGroupMapping: 8, packBatchDims: 0, magicDivAlg: 2, streamK: 0, streamKAtomic: 0, sourceKernel: false, globalAccumulation: 2, workspaceSizePerElemC: 4, workspaceSizePerElemBias: 0, workGroupMappingXCC: 1, workGroupMappingXCCGroup: -1, globalSplitUCoalesced: false, globalSplitUWorkGroupMappingRoundRobin: false}}
  problemType: {{operationIdentifier: {OP}, transA: false, transB: false, aType: Half, bType: Half, cType: Half, dType: Half, computeInputType: Half, computeType: Float, useBeta: true, highPrecisionAccumulate: true, useBias: 1, groupedGemm: false, outputAmaxD: false, useGradient: false, stridedBatched: true}}
"#
    )
}

/// The master for gfx1201: the processor row, the NN map, the type row(s) leading to
/// `placeholders` in order.
fn master(dir: &Path, placeholders: &[&str]) {
    let rows: String = placeholders
        .iter()
        .map(|p| {
            format!(
                "          - predicate: {{type: And, value: [{{type: TypesEqual, value: [Half, Half, Half, Half, Half]}}, {{type: HighPrecisionAccumulate, value: true}}, {{type: Activation, value: Hipblaslt_all}}, {{type: UseBias, value: 1}}, {{type: F32XdlMathOp, value: Float}}]}}\n            library: {{type: Placeholder, value: {p}}}\n"
            )
        })
        .collect();
    write(
        dir,
        "TensileLibrary_lazy_gfx1201.dat",
        &format!(
            r#"solutions: []
library:
  type: Hardware
  rows:
  - predicate: {{type: AMDGPU, value: {{type: Processor, value: gfx1201}}}}
    library:
      type: ProblemMap
      property: {{type: OperationIdentifier}}
      map:
        {OP}:
          type: Problem
          rows:
{rows}"#
        ),
    );
}

/// A per-type file: `solutions`, one table of `distance` with keys (M, N, batch, K).
fn types_file(dir: &Path, name: &str, solutions: &[String], table: &str, distance: &str) {
    write(
        dir,
        &format!("{name}.dat"),
        &format!(
            "solutions:\n{}library:\n  type: Problem\n  rows:\n  - predicate: {{type: TruePred}}\n    library:\n      type: Matching\n      properties: [{{type: FreeSizeA, index: 0}}, {{type: FreeSizeB, index: 0}}, {{type: BatchSize, index: 0}}, {{type: BoundSize, index: 0}}]\n      distance: {distance}\n      table:\n{table}",
            solutions.concat()
        ),
    );
}

fn dev() -> Device {
    Device::new(TargetId::parse("gfx1201").unwrap(), 64)
}

fn open(dir: &Path) -> LiteLibrary {
    LiteLibrary::open(dir, "gfx1201", true, &MemoryBudget::new(1 << 30)).unwrap()
}

fn hgemm(m: i64, n: i64, k: i64) -> Matmul {
    Matmul::simple(
        HipType::F16,
        HipType::F16,
        ComputeType::F32,
        [Op::N, Op::N],
        m,
        n,
        k,
    )
}

/// The solution indices returned, rank by rank, as far as they are determined.
fn ranks(dir: &Path, m: &Matmul) -> Vec<i64> {
    let lib = open(dir);
    let h = heuristic(&lib, &dev(), m, true).unwrap();
    h.determined_ranks().iter().map(|p| p.index()).collect()
}

fn rank0(dir: &Path, m: &Matmul) -> Rank0 {
    let lib = open(dir);
    heuristic(&lib, &dev(), m, false).unwrap().rank0()
}

fn entries(v: &[([i64; 4], i64)]) -> String {
    v.iter()
        .map(|(k, i)| {
            format!(
                "      - {{key: [{}, {}, {}, {}], index: {i}}}\n",
                k[0], k[1], k[2], k[3]
            )
        })
        .collect()
}

const T: &str = "T_HH";

/// A folder for one test's catalogs: temporary, or kept under `$LITE_TEST_DIR/<name>` to run the
/// reference on them (`build/oracle $LITE_TEST_DIR/<name> gfx1201 64`).
enum Dir {
    Temp(tempfile::TempDir),
    Kept(std::path::PathBuf),
}

impl Dir {
    fn path(&self) -> &Path {
        match self {
            Dir::Temp(t) => t.path(),
            Dir::Kept(p) => p,
        }
    }
}

fn folder(name: &str) -> Dir {
    match std::env::var_os("LITE_TEST_DIR") {
        Some(root) => {
            let p = std::path::PathBuf::from(root).join(name);
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            Dir::Kept(p)
        }
        None => Dir::Temp(tempfile::tempdir().unwrap()),
    }
}

#[test]
fn the_grid_takes_the_nearest_m_n_batch_group_and_the_nearest_k_last_tie_winning() {
    let d =
        folder("the_grid_takes_the_nearest_m_n_batch_group_and_the_nearest_k_last_tie_winning_1");
    master(d.path(), &[T]);
    let sols: Vec<String> = (1..=6).map(|i| solution(i, "", 1)).collect();
    types_file(
        d.path(),
        T,
        &sols,
        &entries(&[
            ([64, 64, 1, 64], 1),
            ([128, 64, 1, 32], 2),
            ([128, 64, 1, 96], 3),
            ([128, 64, 1, 160], 4),
            ([128, 128, 1, 64], 5),
            ([256, 256, 1, 64], 6),
        ]),
        "GridBased",
    );
    // M 100 → the M group 128 (the first at or above); N 50 → N 64; K 64: 32 and 96 are equally
    // near, the later (96) wins.
    assert_eq!(ranks(d.path(), &hgemm(100, 50, 64)), [3]);
    // K 40: 32 is nearest.
    assert_eq!(ranks(d.path(), &hgemm(100, 50, 40)), [2]);
    // Past the largest M and N: clamped to the last group.
    assert_eq!(ranks(d.path(), &hgemm(9000, 9000, 64)), [6]);
}

#[test]
fn a_rejected_group_moves_to_the_next_n_group_and_more_solutions_come_from_later_groups() {
    let d = folder(
        "a_rejected_group_moves_to_the_next_n_group_and_more_solutions_come_from_later_groups_1",
    );
    master(d.path(), &[T]);
    let m64 = ", {type: Free0SizeMultiple, index: 0, value: 64}";
    let sols = vec![
        solution(1, m64, 1),
        solution(2, "", 1),
        solution(3, "", 1),
        solution(4, "", 1),
    ];
    types_file(
        d.path(),
        T,
        &sols,
        &entries(&[
            ([128, 64, 1, 64], 1),
            ([128, 128, 1, 64], 2),
            ([128, 256, 1, 64], 3),
            ([256, 64, 1, 64], 4),
        ]),
        "GridBased",
    );
    // M 100 is not a multiple of 64: the (128, 64) group has nothing, the next N group gives 2.
    assert_eq!(ranks(d.path(), &hgemm(100, 50, 64)), [2]);
    assert_eq!(ranks(d.path(), &hgemm(128, 50, 64)), [1]);
    // Three asked: baseN = 2, so two N groups of M 128, then the next M group.
    let mut m = hgemm(128, 50, 64);
    m.requested = 3;
    assert_eq!(ranks(d.path(), &m), [1, 2, 4]);
}

#[test]
fn when_the_forward_search_runs_out_it_walks_back_from_the_last_group() {
    let d = folder("when_the_forward_search_runs_out_it_walks_back_from_the_last_group_1");
    master(d.path(), &[T]);
    let m64 = ", {type: Free0SizeMultiple, index: 0, value: 64}";
    let sols = vec![solution(1, "", 1), solution(2, "", 1), solution(3, m64, 1)];
    types_file(
        d.path(),
        T,
        &sols,
        &entries(&[
            ([32, 32, 1, 64], 1),
            ([64, 32, 1, 64], 2),
            ([128, 128, 1, 64], 3),
        ]),
        "GridBased",
    );
    // M 1000: the last group (128, 128) rejects (not a multiple of 64); backwards, 2 first.
    assert_eq!(ranks(d.path(), &hgemm(1000, 1000, 64)), [2]);
    let mut m = hgemm(1000, 1000, 64);
    m.requested = 2;
    assert_eq!(ranks(d.path(), &m), [2, 1]);
}

#[test]
fn a_batch_is_folded_into_the_larger_of_m_and_n_once() {
    let d = folder("a_batch_is_folded_into_the_larger_of_m_and_n_once_1");
    master(d.path(), &[T]);
    let sols: Vec<String> = (1..=3).map(|i| solution(i, "", 1)).collect();
    types_file(
        d.path(),
        T,
        &sols,
        &entries(&[
            ([64, 64, 1, 64], 1),
            ([256, 64, 1, 64], 2),
            ([64, 64, 4, 64], 3),
        ]),
        "GridBased",
    );
    // Batch 4 with a batch-4 group: that group's solution.
    let mut m = hgemm(64, 64, 64);
    m.batch = 4;
    m.stride = [4096; 4];
    assert_eq!(ranks(d.path(), &m), [3]);
    // Batch 3 at M 64 × N 32: the batch group found is batch 4 (the nearest at or above).
    m.batch = 3;
    assert_eq!(ranks(d.path(), &m), [3]);
    // Batch 4 where the M group has only batch 1: M·4 = 256 and the search starts again.
    let mut m2 = hgemm(200, 16, 64);
    m2.batch = 4;
    m2.stride = [4096; 4];
    assert_eq!(ranks(d.path(), &m2), [2]);
}

#[test]
fn split_k_kernels_need_workspace_and_hipblaslt_gives_none_by_default() {
    let d = folder("split_k_kernels_need_workspace_and_hipblaslt_gives_none_by_default_1");
    master(d.path(), &[T]);
    let sols = vec![solution(1, "", 4), solution(2, "", 1)];
    types_file(
        d.path(),
        T,
        &sols,
        &entries(&[([64, 64, 1, 256], 2), ([64, 64, 1, 4096], 1)]),
        "GridBased",
    );
    let m = hgemm(64, 64, 4096);
    // GSU 4 needs 4·1·64·64·4 bytes; the default preference allows 0: the other K wins.
    assert_eq!(ranks(d.path(), &m), [2]);
    let mut big = m.clone();
    big.workspace = 1 << 20;
    assert_eq!(ranks(d.path(), &big), [1]);
    // GlobalSplitUCheckMinK: K >= 32·4 for the GSU-4 kernel.
    let mut small_k = big.clone();
    small_k.k = 100;
    assert_eq!(ranks(d.path(), &small_k), [2]);
}

#[test]
fn rows_append_until_enough_and_a_later_file_completes_the_list() {
    let d = folder("rows_append_until_enough_and_a_later_file_completes_the_list_1");
    master(d.path(), &[T, "T_HH_2"]);
    types_file(
        d.path(),
        T,
        &[solution(1, "", 1)],
        &entries(&[([64, 64, 1, 64], 1)]),
        "GridBased",
    );
    types_file(
        d.path(),
        "T_HH_2",
        &[solution(7, "", 1), solution(8, "", 1)],
        &entries(&[([64, 64, 1, 64], 7), ([128, 64, 1, 64], 8)]),
        "GridBased",
    );
    assert_eq!(ranks(d.path(), &hgemm(64, 64, 64)), [1]);
    let mut m = hgemm(64, 64, 64);
    m.requested = 3;
    assert_eq!(ranks(d.path(), &m), [1, 7, 8]);
}

#[test]
fn the_epilogue_is_part_of_the_problem() {
    let d = folder("the_epilogue_is_part_of_the_problem_1");
    master(d.path(), &[T]);
    types_file(
        d.path(),
        T,
        &[solution(1, "", 1)],
        &entries(&[([64, 64, 1, 64], 1)]),
        "GridBased",
    );
    let mut m = hgemm(64, 64, 64);
    m.activation = rocpath_gemm::lite::Activation::Relu;
    m.bias = true;
    assert_eq!(ranks(d.path(), &m), [1]);
    // GELU is not in the solution's activation list; a bf16 bias is not in its type list.
    m.activation = rocpath_gemm::lite::Activation::Gelu;
    assert!(matches!(rank0(d.path(), &m), Rank0::None));
    m.activation = rocpath_gemm::lite::Activation::None;
    m.bias_type = Some(HipType::Bf16);
    assert!(matches!(rank0(d.path(), &m), Rank0::None));
}

#[test]
fn xf32_finds_nothing_and_is_retried_as_fp32() {
    let s = solution(1, "", 1)
        .replace(
            "[Half, Half, Half, Half, Half]",
            "[Float, Float, Float, Float, Float]",
        )
        .replace(
            "HighPrecisionAccumulate, value: true",
            "HighPrecisionAccumulate, value: false",
        )
        .replace("Type: Half", "Type: Float")
        .replace("computeInputType: Half", "computeInputType: Float");
    let dir = folder("xf32_finds_nothing_and_is_retried_as_fp32_1");
    write(
        dir.path(),
        "TensileLibrary_lazy_gfx1201.dat",
        &format!(
            r#"solutions: []
library:
  type: Hardware
  rows:
  - predicate: {{type: AMDGPU, value: {{type: Processor, value: gfx1201}}}}
    library:
      type: ProblemMap
      property: {{type: OperationIdentifier}}
      map:
        {OP}:
          type: Problem
          rows:
          - predicate: {{type: And, value: [{{type: TypesEqual, value: [Float, Float, Float, Float, Float]}}, {{type: F32XdlMathOp, value: Float}}]}}
            library: {{type: Placeholder, value: T_SS}}
"#
        ),
    );
    types_file(
        dir.path(),
        "T_SS",
        &[s],
        &entries(&[([64, 64, 1, 64], 1)]),
        "GridBased",
    );
    let mut x = Matmul::simple(
        HipType::F32,
        HipType::F32,
        ComputeType::Xf32,
        [Op::N, Op::N],
        64,
        64,
        64,
    );
    let lib = open(dir.path());
    // The type row asks F32XdlMathOp Float: XF32 finds nothing, the FP32 retry finds 1.
    let h = heuristic(&lib, &dev(), &x, false).unwrap();
    assert!(h.xf32_retry);
    assert_eq!(h.determined_ranks()[0].index(), 1);
    x.compute = ComputeType::F32;
    let h = heuristic(&lib, &dev(), &x, false).unwrap();
    assert!(!h.xf32_retry);
    assert_eq!(h.determined_ranks()[0].index(), 1);
}

#[test]
fn an_empty_table_answer_is_filled_in_and_its_order_is_not_the_catalogs() {
    let d = folder("an_empty_table_answer_is_filled_in_and_its_order_is_not_the_catalogs_1");
    master(d.path(), &[T]);
    // An Equality table: only the exact tuned size.
    types_file(
        d.path(),
        T,
        &[solution(1, "", 1), solution(2, "", 1)],
        &entries(&[([64, 64, 1, 64], 1), ([128, 128, 1, 128], 2)]),
        "Equality",
    );
    assert_eq!(ranks(d.path(), &hgemm(128, 128, 128)), [2]);
    // Any other size: the table gives nothing; both solutions fit: run-dependent.
    match rank0(d.path(), &hgemm(100, 100, 100)) {
        Rank0::Unresolved(w) => assert!(w.contains("address-ordered set: run-dependent"), "{w}"),
        other => panic!("{other:?}"),
    }
    // One candidate: determined.
    let d2 = folder("an_empty_table_answer_is_filled_in_and_its_order_is_not_the_catalogs_2");
    master(d2.path(), &[T]);
    let m64 = ", {type: Free0SizeMultiple, index: 0, value: 64}";
    types_file(
        d2.path(),
        T,
        &[solution(1, m64, 1), solution(2, "", 1)],
        &entries(&[([64, 64, 1, 64], 1), ([128, 128, 1, 128], 2)]),
        "Equality",
    );
    assert!(matches!(rank0(d2.path(), &hgemm(100, 100, 100)), Rank0::FillIn(p) if p.index() == 2));
    // None: nothing of the type fits.
    let mut f = hgemm(100, 100, 100);
    f.types[2] = HipType::F32;
    f.types[3] = HipType::F32;
    assert!(matches!(rank0(d2.path(), &f), Rank0::None));
}

#[test]
fn what_the_model_does_not_know_stops_it_with_the_reason() {
    let d = folder("what_the_model_does_not_know_stops_it_with_the_reason_1");
    master(d.path(), &[T]);
    types_file(
        d.path(),
        T,
        &[solution(1, ", {type: NewInSeven2, value: 3}", 1)],
        &entries(&[([64, 64, 1, 64], 1)]),
        "GridBased",
    );
    match rank0(d.path(), &hgemm(64, 64, 64)) {
        Rank0::Unresolved(w) => assert!(w.contains("NewInSeven2"), "{w}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_folder_is_found_as_hipblaslt_finds_it() {
    let d = folder("the_folder_is_found_as_hipblaslt_finds_it_1");
    let sub = d.path().join("gfx1201");
    std::fs::create_dir(&sub).unwrap();
    master(&sub, &[T]);
    types_file(
        &sub,
        T,
        &[solution(1, "", 1)],
        &entries(&[([64, 64, 1, 64], 1)]),
        "GridBased",
    );
    let budget = MemoryBudget::new(1 << 30);
    // The default path looks in the <processor> sub-folder; HIPBLASLT_TENSILE_LIBPATH does not.
    let lib = LiteLibrary::open(d.path(), "gfx1201", false, &budget).unwrap();
    assert_eq!(lib.dir, sub);
    assert!(matches!(
        LiteLibrary::open(d.path(), "gfx1201", true, &budget),
        Err(LiteLoadError::NoCatalog { .. })
    ));
    assert!(matches!(
        LiteLibrary::open(d.path(), "gfx1100", false, &budget),
        Err(LiteLoadError::NoCatalog { .. })
    ));
    // No mapping file: said, and selection still works.
    assert!(lib.mapping_error.is_some());
    let h = heuristic(&lib, &dev(), &hgemm(64, 64, 64), false).unwrap();
    assert_eq!(h.determined_ranks()[0].index(), 1);
    // The mapping names the file of an index: the last first-index not above it.
    write(
        &sub,
        rocpath_gemm::lite::library::MAPPING_FILE,
        "{0: A, 100: B}\n",
    );
    let lib = LiteLibrary::open(d.path(), "gfx1201", false, &budget).unwrap();
    assert_eq!(lib.file_for_index(99), Some("A"));
    assert_eq!(lib.file_for_index(100), Some("B"));
    assert_eq!(lib.file_for_index(-1), None);
    assert!(rocpath_gemm::lite::library::is_hipblaslt_folder(&sub));
}

#[test]
fn another_processor_matches_no_row() {
    let d = folder("another_processor_matches_no_row_1");
    master(d.path(), &[T]);
    types_file(
        d.path(),
        T,
        &[solution(1, "", 1)],
        &entries(&[([64, 64, 1, 64], 1)]),
        "GridBased",
    );
    let lib = open(d.path());
    let other = Device::new(TargetId::parse("gfx1200").unwrap(), 32);
    let h = heuristic(&lib, &other, &hgemm(64, 64, 64), false).unwrap();
    assert!(matches!(h.rank0(), Rank0::None));
}
