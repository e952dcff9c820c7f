//! The source-gate scanner on arbitrary bytes under every reader (C++, Python, Go, CMake,
//! JSON, shell): never panics, and every gate it reports points at a line of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

const NAMES: &[&str] = &[
    "a.cpp",
    "a.py",
    "a.go",
    "CMakeLists.txt",
    "CMakePresets.json",
    "Dockerfile",
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, src)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(sel) % NAMES.len()];
    let lines = src.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    if let Ok(found) = rocpath_gates::scan_bytes(name, src) {
        for f in found {
            assert!(
                f.line >= 1 && f.line <= lines,
                "{name}: line {} of {lines}",
                f.line
            );
        }
    }
});
