//! Speed of one hipBLASLt heuristic query once the files it needs are loaded: 1,000 random
//! queries (f16 HPA, bf16, f32, f64; random transpositions; M, N, K log-uniform in 1…8192), the
//! best of 40 runs per query, then the distribution over queries.
//! `cargo run --release -p rocpath-gemm --example lite_bench -- LIBDIR TARGET CUS`
#![allow(clippy::print_stdout, clippy::unwrap_used, missing_docs)]
use rocpath_arch::TargetId;
use rocpath_gemm::lite::{ComputeType, HipType, LiteLibrary, Matmul, heuristic};
use rocpath_gemm::{Device, Op};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&args[1]);
    let dev = Device::new(TargetId::parse(&args[2]).unwrap(), args[3].parse().unwrap());
    let budget = rocpath_budget::MemoryBudget::new(8 << 30);
    let lib = LiteLibrary::open(&dir, dev.processor(), true, &budget).unwrap();
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let qs: Vec<Matmul> = (0..1000)
        .map(|_| {
            let mut dim = || (2f64.powf((next() % 13_000) as f64 / 1000.0) as i64).max(1);
            let (m, n, k) = (dim(), dim(), dim());
            let tr = [Op::N, Op::T];
            let trans = [tr[(next() % 2) as usize], tr[(next() % 2) as usize]];
            let (i, o, c) = match next() % 4 {
                0 => (HipType::F16, HipType::F16, ComputeType::F32),
                1 => (HipType::Bf16, HipType::Bf16, ComputeType::F32),
                2 => (HipType::F32, HipType::F32, ComputeType::F32),
                _ => (HipType::F64, HipType::F64, ComputeType::F64),
            };
            Matmul::simple(i, o, c, trans, m, n, k)
        })
        .collect();
    for q in &qs {
        std::hint::black_box(heuristic(&lib, &dev, q, false).ok());
    }
    let mut per: Vec<f64> = vec![f64::MAX; qs.len()];
    let mut best_all = f64::MAX;
    for _ in 0..40 {
        let t0 = std::time::Instant::now();
        for (i, q) in qs.iter().enumerate() {
            let t = std::time::Instant::now();
            std::hint::black_box(heuristic(&lib, &dev, q, false).ok());
            per[i] = per[i].min(t.elapsed().as_secs_f64());
        }
        best_all = best_all.min(t0.elapsed().as_secs_f64());
    }
    per.sort_by(f64::total_cmp);
    println!(
        "{} {} CUs: min {:.2} us per query over 1000 (one run); per query best-of-40: median {:.2} us, p90 {:.2} us, p99 {:.2} us, max {:.1} us; {} files loaded",
        dev.processor(),
        dev.cu_count,
        best_all / qs.len() as f64 * 1e6,
        per[per.len() / 2] * 1e6,
        per[per.len() * 9 / 10] * 1e6,
        per[per.len() * 99 / 100] * 1e6,
        per[per.len() - 1] * 1e6,
        lib.loaded().len()
    );
}
