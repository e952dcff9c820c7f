#![no_main]
//! kpack archives and markers: the header and TOC parse, every entry is bounded by the file
//! and the memory budget, and a marker of any bytes is parsed or refused.
use libfuzzer_sys::fuzz_target;
use rocpath_sources::kpack;

fuzz_target!(|data: &[u8]| {
    let _ = rocpath_sources::kpack_ref::parse_marker(data);
    let Ok(toc) = kpack::parse(data) else {
        return;
    };
    let limits = rocpath_sources::Limits {
        memory: rocpath_sources::MemoryBudget::new(64 << 20),
        max_decompressed: 16 << 20,
        ..Default::default()
    };
    let Ok(frames) = kpack::frames_of(data, &toc) else {
        return;
    };
    for e in &toc.entries {
        let _ = kpack::entry_bytes(data, &toc, &frames, e, &limits);
    }
});
