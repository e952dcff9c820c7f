#![no_main]
//! A whole case read from arbitrary bytes: the collector, the outcome decision and the JSON of
//! the report must hold whatever the log says.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let r = rocpath_case::read_bytes("fuzz.log", &[("fuzz.log", data)]);
    assert!(r.outcome.evidence.rule.starts_with("case.outcome."));
    let _ = serde_json::to_string(&r);
});
