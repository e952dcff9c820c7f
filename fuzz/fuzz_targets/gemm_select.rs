#![no_main]
//! A catalog from arbitrary bytes as the master file of a library, then a few GEMMs walked
//! through it; and arbitrary text as a rocBLAS bench or trace line.
use libfuzzer_sys::fuzz_target;
use rocpath_gemm::rocblas::{BlasType, Call, Settings};
use rocpath_gemm::{Device, Library, Op, batch};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = rocpath_gemm::logline::parse(text);
    }
    let budget = rocpath_budget::MemoryBudget::new(256 << 20);
    let Ok(held) = budget.reserve(data.len() as u64) else {
        return;
    };
    let path = std::path::Path::new("/nonexistent/TensileLibrary_lazy_gfx90a.dat");
    let Ok(file) = rocpath_gemm::library::parse_file(path, data, held, &budget) else {
        return;
    };
    let lib = Library::from_master(file, &budget);
    let Ok(t) = rocpath_arch::TargetId::parse("gfx90a") else {
        return;
    };
    let dev = Device::new(t, 104);
    for (m, n, k) in [(64, 64, 64), (1000, 3, 4097), (1, 1, 0)] {
        for ty in [BlasType::F32, BlasType::F16, BlasType::C64] {
            let call = Call::simple(ty, [Op::N, Op::T], m, n, k);
            let _ = batch::predict(&lib, &dev, &Settings::default(), &call);
        }
    }
});
