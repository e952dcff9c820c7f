#![no_main]
//! The bounded MessagePack reader: skipping whole values never panics or over-allocates.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut rd = rocpath_mpack::Reader::new(data);
    while !rd.is_empty() {
        if rd.skip().is_err() {
            break;
        }
    }
});
