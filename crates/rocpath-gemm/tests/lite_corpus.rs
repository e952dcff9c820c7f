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
