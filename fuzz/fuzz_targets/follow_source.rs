//! `rocpath follow` through one arbitrary source file (Go, C++ or Python by the first byte),
//! from a name taken from the input: never panics, and every hop points at a line of the
//! file.
#![no_main]

use libfuzzer_sys::fuzz_target;

const NAMES: &[&str] = &["a.go", "a.cpp", "a.py"];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, src)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(sel) % NAMES.len()];
    let dir = std::env::temp_dir().join(format!("rocpath-fuzz-follow-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() || std::fs::write(dir.join(name), src).is_err() {
        return;
    }
    let lines = src.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let spec = rocpath_follow::index::tokens(src)
        .first()
        .map(|t| t.to_string())
        .unwrap_or_else(|| format!("{name}:1"));
    let opts = rocpath_follow::Options {
        cache: false,
        limit: 100,
        ..rocpath_follow::Options::default()
    };
    if let Ok(doc) = rocpath_follow::follow(&spec, &[dir.clone()], &opts) {
        for root in &doc.hops {
            for (_, h) in root.walk() {
                assert!(h.line >= 1 && h.line <= lines, "{name}: line {} of {lines}", h.line);
            }
        }
    }
});
