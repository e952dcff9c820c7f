//! The model against reference answers on Debian's rocBLAS 6.4.4 catalogs (see
//! `tests/data/PROVENANCE.md`): every recorded call must get the same solution index. Runs
//! when `librocblas4` is unpacked under `$ROCPATH_CORPUS` (or `~/.cache/rocpath-corpus`).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use rocpath_arch::TargetId;
use rocpath_budget::MemoryBudget;
use rocpath_gemm::batch::{self, Header, Outcome};
use rocpath_gemm::rocblas::Settings;
use rocpath_gemm::{Device, Library};
use std::collections::HashMap;
use std::path::PathBuf;

fn library_dir() -> Option<PathBuf> {
    rocpath_testdata::corpus_path(
        "librocblas4",
        "usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library",
    )
}

#[test]
fn every_recorded_call_gets_the_oracles_solution() {
    let Some(dir) = library_dir() else { return };
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle-rocblas-6.4.4.tsv"),
    )
    .unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    let cols: Vec<&str> = head.split('\t').collect();
    let col = |n: &str| cols.iter().position(|c| *c == n).unwrap();
    let header = Header::parse(head).unwrap();
    let budget = MemoryBudget::new(4 << 30);
    let mut libs: HashMap<String, Library> = HashMap::new();
    let settings = Settings {
        built_with_hipblaslt: Some(false),
        ..Settings::default()
    };
    let mut checked = 0;
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        let (target, cu) = (f[col("target")], f[col("cu")].parse::<u32>().unwrap());
        let want: i64 = f[col("index")].parse().unwrap();
        let (id, call) = header.call(line, i + 2).unwrap();
        let dev = Device::new(TargetId::parse(target).unwrap(), cu);
        let lib = libs
            .entry(target.to_string())
            .or_insert_with(|| Library::open(&dir, target, &budget).unwrap());
        let got = match batch::predict(lib, &dev, &settings, &call) {
            Outcome::Solution { index, .. } => index,
            Outcome::QuickReturn => -1,
            other => panic!("{id}: {other:?}"),
        };
        assert_eq!(got, want, "{id}: {line}");
        checked += 1;
    }
    assert_eq!(checked, 308);
}

/// The untraced walk (which steps over entries that can change nothing) and the traced walk
/// (every entry, as the host library visits them) choose the same solution.
#[test]
fn the_fast_walk_chooses_what_the_full_walk_chooses() {
    use rocpath_gemm::rocblas::{Api, BlasType, Call, Route};
    use rocpath_gemm::{Found, Op, Walk};
    let Some(dir) = library_dir() else { return };
    let budget = MemoryBudget::new(4 << 30);
    let settings = Settings::default();
    let mut s: u64 = 0x1234_5678_9abc_def1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for (target, cu) in [("gfx900", 64), ("gfx90a", 104), ("gfx1100", 96)] {
        let dev = Device::new(TargetId::parse(target).unwrap(), cu);
        let lib = Library::open(&dir, target, &budget).unwrap();
        for _ in 0..1500 {
            let mut dim = || (2f64.powf((next() % 13_000) as f64 / 1000.0) as i64).max(1);
            let (m, n, k) = (dim(), dim(), dim());
            let tr = [Op::N, Op::T];
            let trans = [tr[(next() % 2) as usize], tr[(next() % 2) as usize]];
            let call = match next() % 3 {
                0 => Call::simple(BlasType::F32, trans, m, n, k),
                1 => Call::simple(BlasType::F64, trans, m, n, k),
                _ => {
                    let mut c = Call::simple(BlasType::F16, trans, m, n, k);
                    c.api = Api::GemmEx;
                    c.compute = BlasType::F32;
                    c
                }
            };
            let Route::Tensile { problem } =
                rocpath_gemm::rocblas::route_quiet(&call, &settings, &dev)
            else {
                continue;
            };
            let pick = |trace: bool| match Walk::new(&lib, &dev, &problem, trace).run() {
                Found::Solution(c) => c.solution().map(|s| s.index),
                Found::None => None,
                Found::Unresolved(w) => panic!("{w}"),
            };
            assert_eq!(pick(false), pick(true), "{target} {call:?}");
        }
    }
}
