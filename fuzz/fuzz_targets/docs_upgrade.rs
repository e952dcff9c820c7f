#![no_main]
//! A document of any shape brought to the current version: never panics, and what comes out
//! of an older known version reads as the current one.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(Some(m)) = rocpath_docs::upgrade(&mut v) {
        assert_eq!(v["schema"], m.to);
        assert_eq!(rocpath_docs::upgrade(&mut v), Ok(None));
    }
});
