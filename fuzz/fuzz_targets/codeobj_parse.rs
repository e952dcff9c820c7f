#![no_main]
//! Code object reader: headers, notes, metadata, symbols on arbitrary bytes.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(co) = rocpath_codeobj::parse(data) {
        let _ = co.target_id.canonical();
    }
    let _ = rocpath_codeobj::symbols(data);
    let _ = rocpath_codeobj::code_sections(data);
    let _ = rocpath_codeobj::elf_extent(data);
});
