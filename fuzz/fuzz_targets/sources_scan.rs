#![no_main]
//! The container scanner (bundles, CCOB, host ELF/PE, archives) on arbitrary bytes, under
//! several names so that name-based dispatch (tar.*, .deb, Tensile, MIOpen) is reached.
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
    let names = ["x.so", "x.deb", "x.tar.gz", "x.whl", "TensileLibrary_gfx90a.dat", "x.hipfb"];
    let name = names[data.first().copied().unwrap_or(0) as usize % names.len()];
    // A small budget that refuses at once, so that the refusal paths are reached too.
    let memory = MemoryBudget::with_wait(32 << 20, std::time::Duration::ZERO);
    let limits = Limits { max_decompressed: 64 << 20, max_member_buffer: 1 << 16, max_archive_bytes: 256 << 20, memory, ..Limits::default() };
    scan_memory(data, &Origin::file(name), name, &limits, &Drain);
});
