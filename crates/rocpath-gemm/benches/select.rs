//! Selection speed on Debian's rocBLAS 6.4.4 catalogs (`$ROCPATH_CORPUS`, else
//! `~/.cache/rocpath-corpus`; the bench prints a note and does nothing without them):
//! - `predict`: one prediction (route + walk) after the catalog is loaded, over 1,000 random
//!   calls (f32, f16 HPA, f64; random transpositions and shapes);
//! - `load`: decoding and preparing the largest per-type catalog file of a processor;
//! - `sweep`: a cold 10,000-shape sweep of one target (open the library, load what the shapes
//!   need, predict each).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    missing_docs
)]

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use rocpath_arch::TargetId;
use rocpath_budget::MemoryBudget;
use rocpath_gemm::batch;
use rocpath_gemm::rocblas::{BlasType, Call, Settings};
use rocpath_gemm::{Device, Library, Op};
use std::path::PathBuf;

fn dir() -> Option<PathBuf> {
    let root = std::env::var_os("ROCPATH_CORPUS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/rocpath-corpus"))
        })?;
    let d = root.join("unpacked/librocblas4/usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library");
    d.is_dir().then_some(d)
}

fn calls(n: usize, seed: u64) -> Vec<Call> {
    let mut s = seed;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    (0..n)
        .map(|_| {
            let mut dim = || {
                let e = (next() % 13_000) as f64 / 1000.0;
                (2f64.powf(e) as i64).max(1)
            };
            let (m, nn, k) = (dim(), dim(), dim());
            let tr = [Op::N, Op::T];
            let trans = [tr[(next() % 2) as usize], tr[(next() % 2) as usize]];
            match next() % 3 {
                0 => Call::simple(BlasType::F32, trans, m, nn, k),
                1 => Call::simple(BlasType::F64, trans, m, nn, k),
                _ => {
                    let mut c = Call::simple(BlasType::F16, trans, m, nn, k);
                    c.api = rocpath_gemm::rocblas::Api::GemmEx;
                    c.compute = BlasType::F32;
                    c
                }
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let Some(dir) = dir() else {
        println!(
            "selection bench: Debian librocblas4 6.4.4 not unpacked in ROCPATH_CORPUS; nothing to measure"
        );
        return;
    };
    let budget = MemoryBudget::new(8 << 30);
    let settings = Settings {
        built_with_hipblaslt: Some(false),
        ..Settings::default()
    };
    let dev = Device::new(TargetId::parse("gfx90a").unwrap(), 104);
    let lib = Library::open(&dir, "gfx90a", &budget).unwrap();
    let work = calls(1000, 0x2545_f491_4f6c_dd1d);
    for call in &work {
        black_box(batch::predict(&lib, &dev, &settings, call));
    }
    let mut g = c.benchmark_group("gemm");
    g.bench_function("predict_1000_calls_gfx90a", |b| {
        b.iter(|| {
            for call in &work {
                black_box(batch::predict(&lib, &dev, &settings, call));
            }
        })
    });
    let largest = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.ends_with("_gfx90a.dat") && n.contains("_Type_")
        })
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .unwrap();
    println!(
        "largest gfx90a type file: {} ({} bytes)",
        largest.display(),
        std::fs::metadata(&largest).unwrap().len()
    );
    g.sample_size(10);
    g.bench_function("load_largest_type_file_gfx90a", |b| {
        b.iter(|| black_box(rocpath_gemm::library::load_file(&largest, &budget).unwrap()))
    });
    let sweep = calls(10_000, 0x9e37_79b9_7f4a_7c15);
    let dev900 = Device::new(TargetId::parse("gfx900").unwrap(), 64);
    g.bench_function("sweep_10000_shapes_gfx900_cold", |b| {
        b.iter(|| {
            let lib = Library::open(&dir, "gfx900", &budget).unwrap();
            for call in &sweep {
                black_box(batch::predict(&lib, &dev900, &settings, call));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
