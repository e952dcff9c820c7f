//! The hipBLASLt model against reference answers on Debian's `libhipblaslt1` 7.1.1 catalogs
//! (see `tests/data/PROVENANCE.md`): every recorded query must get the reference's first
//! solution — from the tuned table, or none — and where the reference's first solution came from
//! hipBLASLt's address-ordered fill-in, the model must say it is run-dependent (or name the one
//! candidate there is). Runs when `libhipblaslt1` is unpacked under `$ROCPATH_CORPUS` (or
//! `~/.cache/rocpath-corpus`).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use rocpath_arch::TargetId;
use rocpath_budget::MemoryBudget;
use rocpath_gemm::Device;
use rocpath_gemm::lite::batch::Header;
use rocpath_gemm::lite::{LiteLibrary, Rank0, heuristic};
use std::collections::HashMap;
use std::path::PathBuf;

fn library_dir() -> Option<PathBuf> {
    rocpath_testdata::corpus_path(
        "libhipblaslt1",
        "usr/lib/x86_64-linux-gnu/hipblaslt/library",
    )
}

#[test]
fn every_recorded_query_gets_the_references_first_solution() {
    let Some(dir) = library_dir() else { return };
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle-hipblaslt-7.1.1.tsv"),
    )
    .unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap();
    let cols: Vec<&str> = head.split('\t').collect();
    let col = |n: &str| cols.iter().position(|c| *c == n).unwrap();
    let header = Header::parse(head).unwrap();
    let budget = MemoryBudget::new(4 << 30);
    let mut libs: HashMap<String, LiteLibrary> = HashMap::new();
    let (mut checked, mut run_dependent) = (0, 0);
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        let (target, cu) = (f[col("target")], f[col("cu")].parse::<u32>().unwrap());
        let want: i64 = f[col("index")].parse().unwrap();
        let from = f[col("from")];
        let (id, m) = header.matmul(line, i + 2).unwrap();
        let dev = Device::new(TargetId::parse(target).unwrap(), cu);
        let lib = libs
            .entry(target.to_string())
            .or_insert_with(|| LiteLibrary::open(&dir, target, true, &budget).unwrap());
        let got = heuristic(lib, &dev, &m, false).unwrap().rank0();
        match (from, &got) {
            ("table", Rank0::Table(p)) => assert_eq!(p.index(), want, "{id}: {line}"),
            ("none", Rank0::None) => {}
            ("fillin", Rank0::FillIn(p)) => assert_eq!(p.index(), want, "{id}: {line}"),
            ("fillin", Rank0::Unresolved(w)) => {
                assert!(w.contains("run-dependent"), "{id}: {w}");
                run_dependent += 1;
            }
            _ => panic!("{id}: the reference's {from} {want}, the model's {got:?}: {line}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 304);
    assert_eq!(run_dependent, 9);
}

/// The untraced search (which passes over entries whose solution is known to reject the problem,
/// gallops to the next group and stops when every solution of the table rejects it) and the
/// traced one (every group and entry, as the host library visits them) give the same answer:
/// the same table solutions in the same order, or the same reason they cannot be decided.
/// Skinny and odd shapes make the search walk far, where the shortcuts apply.
#[test]
fn the_fast_search_answers_what_the_traced_one_does() {
    use rocpath_gemm::Op;
    use rocpath_gemm::lite::{ComputeType, HipType, Matmul};
    let Some(dir) = library_dir() else { return };
    let budget = MemoryBudget::new(4 << 30);
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for (target, cu) in [("gfx90a", 104), ("gfx1201", 64)] {
        let dev = Device::new(TargetId::parse(target).unwrap(), cu);
        let lib = LiteLibrary::open(&dir, target, true, &budget).unwrap();
        // Shapes whose search visits every group of a 144,189-entry gfx90a table (N = 1).
        let far = [
            (HipType::F16, 53, 124),
            (HipType::F16, 57, 780),
            (HipType::F16, 33, 5776),
            (HipType::Bf16, 520, 1),
            (HipType::Bf16, 1458, 4048),
            (HipType::Bf16, 2242, 1),
        ];
        for (t, m, k) in far {
            let q = Matmul::simple(t, t, ComputeType::F32, [Op::N, Op::T], m, 1, k);
            let answer = |trace: bool| {
                heuristic(&lib, &dev, &q, trace).map(|h| {
                    let table: Vec<i64> = h.table.iter().map(|p| p.index()).collect();
                    (table, format!("{:?}", h.rank0()), h.table_unresolved)
                })
            };
            assert_eq!(answer(false), answer(true), "{target} {q:?}");
        }
        for _ in 0..300 {
            let mut dim = || match next() % 4 {
                0 => (next() % 64 + 1) as i64,
                _ => (2f64.powf((next() % 13_000) as f64 / 1000.0) as i64).max(1),
            };
            let (m, n, k) = (dim(), dim(), dim());
            let tr = [Op::N, Op::T];
            let trans = [tr[(next() % 2) as usize], tr[(next() % 2) as usize]];
            let (i, o, c) = match next() % 4 {
                0 => (HipType::F16, HipType::F16, ComputeType::F32),
                1 => (HipType::Bf16, HipType::Bf16, ComputeType::F32),
                2 => (HipType::F32, HipType::F32, ComputeType::F32),
                _ => (HipType::F64, HipType::F64, ComputeType::F64),
            };
            let mut q = Matmul::simple(i, o, c, trans, m, n, k);
            q.requested = [1, 1, 4, 16][(next() % 4) as usize];
            let answer = |trace: bool| match heuristic(&lib, &dev, &q, trace) {
                Ok(h) => Ok((
                    h.table.iter().map(|p| p.index()).collect::<Vec<_>>(),
                    h.table_unresolved,
                )),
                Err(e) => Err(e),
            };
            assert_eq!(answer(false), answer(true), "{target} {q:?}");
        }
    }
}
