#![no_main]
//! MIOpen kernel databases on arbitrary bytes: the SQLite file is deserialized from memory and
//! every row read (lying sizes, bzip2 bombs, wrong hashes), under a small budget that refuses
//! at once. Seeds: `crates/rocpath-sources/tests/data/gfx1201_32.kdb`.
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
    let name = if data.len() % 2 == 0 { "gfx900_64.kdb" } else { "gfx90a6e.ukdb" };
    let memory = MemoryBudget::with_wait(32 << 20, std::time::Duration::ZERO);
    let limits = Limits { max_decompressed: 16 << 20, memory, ..Limits::default() };
    scan_memory(data, &Origin::file(name), name, &limits, &Drain);
});
