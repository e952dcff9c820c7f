#![no_main]
//! AOTriton AKS2 images on arbitrary bytes: the header sizes and the xz stream, the directory and
//! its entries (lying sizes, xz bombs, broken directories), under a small budget that refuses
//! at once. Seeds: images written by `crates/rocpath-sources/tests/aks2.rs`.
use libfuzzer_sys::fuzz_target;
use rocpath_sources::{Found, Limits, MemoryBudget, Origin, Sink, scan_memory};

struct Drain;
impl Sink for Drain {
    fn found(&self, f: Found<'_>) {
        if let Found::CodeObject { bytes, .. } = f {
            let _ = rocpath_codeobj::parse(bytes);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let name = "FONLY__.aks2";
    let memory = MemoryBudget::with_wait(32 << 20, std::time::Duration::ZERO);
    let limits = Limits { max_decompressed: 16 << 20, memory, ..Limits::default() };
    scan_memory(data, &Origin::file(name), name, &limits, &Drain);
});
