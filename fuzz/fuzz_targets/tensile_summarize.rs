#![no_main]
//! Tensile library summaries from arbitrary MessagePack and YAML.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rocpath_tensile::summarize("TensileLibrary.dat", data);
    if data.len() < 4096 {
        let _ = rocpath_tensile::summarize("TensileLibrary.yaml", data);
    }
});
