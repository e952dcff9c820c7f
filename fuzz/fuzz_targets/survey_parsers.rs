#![no_main]
//! What the survey and the fleet read from text: mountinfo, systemd words, os-release,
//! `/proc/self/status`, a ROCm SDK init file, a survey document — values or named errors, never
//! a panic.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rocpath_survey::fleet::aspects_of(data);
    let text = String::from_utf8_lossy(data);
    let _ = rocpath_survey::mounts::parse(&text, std::path::Path::new("mountinfo"));
    let _ = rocpath_survey::env::words(&text);
    let _ = rocpath_survey::machine::pretty_name(&text);
    let _ = rocpath_survey::access::ids(&text);
    let _ = rocpath_survey::python::init_file(&text);
});
