//! Decode + classify throughput (bytes of executable sections per second, one thread).
//!
//! Inputs: every fixture code object (`../shared/fixtures/codeobjects`, or `$ROCPATH_SHARED`),
//! and, when `$ROCPATH_CORPUS` is set, the large benchmark objects from the corpus.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use rocpath_isa::{Census, Decoder, SymbolStart};

struct Section {
    dec: Decoder,
    bytes: Vec<u8>,
    address: u64,
    symbols: Vec<SymbolStart>,
}

fn sections_of(elf: &[u8]) -> Vec<Section> {
    let Some(dec) =
        Decoder::for_mach(common::e_flags(elf)).or_else(|| Decoder::for_target("gfx900"))
    else {
        return Vec::new();
    };
    common::exec_sections(elf)
        .into_iter()
        .map(|s| Section {
            dec,
            bytes: s.bytes.to_vec(),
            address: s.address,
            symbols: s.symbols,
        })
        .collect()
}

fn run(secs: &[Section]) -> u64 {
    let mut c = Census::new();
    for s in secs {
        for it in s.dec.walk(&s.bytes, s.address, &s.symbols) {
            c.add_item(&it);
        }
    }
    black_box(c.class_count(rocpath_isa::Class::Valu)) + c.instructions()
}

fn bench(c: &mut Criterion) {
    let mut groups: Vec<(String, Vec<Section>)> = Vec::new();
    if let Some(objs) = common::code_objects() {
        let secs: Vec<Section> = objs.iter().flat_map(|o| sections_of(&o.bytes)).collect();
        groups.push(("fixtures (63 code objects)".to_string(), secs));
    }
    if let Some(corpus) = std::env::var_os("ROCPATH_CORPUS") {
        let corpus = std::path::PathBuf::from(corpus);
        for rel in [
            "unpacked/libhipblaslt1/usr/lib/x86_64-linux-gnu/hipblaslt/library/Kernels.so-000-gfx1201.hsaco",
            "unpacked/librocblas0/usr/lib/x86_64-linux-gnu/rocblas/2.47.0/library/TensileLibrary_gfx90a.co",
            "unpacked/librocblas4/usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library/TensileLibrary_Type_I8I_HPA_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx908.co",
        ] {
            if let Ok(data) = std::fs::read(corpus.join(rel)) {
                let name = rel.rsplit('/').next().unwrap_or(rel).to_string();
                groups.push((name, sections_of(&data)));
            }
        }
    }
    for (name, secs) in &groups {
        let bytes: u64 = secs.iter().map(|s| s.bytes.len() as u64).sum();
        let mut g = c.benchmark_group("decode+classify");
        g.throughput(Throughput::Bytes(bytes));
        if bytes > 50 << 20 {
            g.sample_size(10);
        }
        g.bench_function(name.as_str(), |b| b.iter(|| run(secs)));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
