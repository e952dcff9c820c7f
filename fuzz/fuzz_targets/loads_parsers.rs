#![no_main]
//! What the loader reads: an ELF file's dynamic section and `/etc/ld.so.cache` — values or
//! named errors with an offset, never a panic.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rocpath_loads::elf::parse(data);
    if let Ok(c) = rocpath_loads::cache::parse(data) {
        let _ = c.lookup("libc.so.6", 0x303, &["x86-64-v3", "x86-64-v2"]);
    }
});
