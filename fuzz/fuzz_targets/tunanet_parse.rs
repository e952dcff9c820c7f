#![no_main]
//! TunaNet's files from arbitrary bytes: a frugally-deep network document and a metadata
//! document (the input split at its first NUL) are parsed as each model class reads them;
//! never a panic, and a network that parses runs on a vector of its width and gives as many
//! outputs as its last layer has.
use libfuzzer_sys::fuzz_target;
use rocpath_miopen::tunanet::{ModelClass, Net, TunaNet};

fuzz_target!(|data: &[u8]| {
    let (a, b) = match data.iter().position(|&c| c == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(model) = serde_json::from_slice::<serde_json::Value>(a) else {
        return;
    };
    if let Ok(net) = Net::parse(&model) {
        if net.inputs() <= 4096 {
            let out = net.run(&vec![0.5; net.inputs()]);
            assert!(out.len() <= 1 << 26);
        }
    }
    let Ok(meta) = serde_json::from_slice::<serde_json::Value>(b) else {
        return;
    };
    for class in [ModelClass::Gfx908, ModelClass::Gfx90a, ModelClass::Gfx942] {
        let _ = TunaNet::parse(class, &model, &meta);
    }
});
