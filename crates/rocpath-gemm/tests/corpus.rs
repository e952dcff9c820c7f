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
    let root = std::env::var_os("ROCPATH_CORPUS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/rocpath-corpus"))
        })?;
    let d = root.join("unpacked/librocblas4/usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library");
    d.is_dir().then_some(d)
}

#[test]
fn every_recorded_call_gets_the_oracles_solution() {
    let Some(dir) = library_dir() else {
        rocpath_testdata::skip("Debian librocblas4 6.4.4 not unpacked in ROCPATH_CORPUS");
        return;
    };
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
