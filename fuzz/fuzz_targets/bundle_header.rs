#![no_main]
//! Offload bundle and CCOB headers, with the magic prepended so the parser is reached.
use libfuzzer_sys::fuzz_target;
use rocpath_sources::Limits;
use rocpath_sources::bundle::{decompress_ccob, parse_bundle_header};

fuzz_target!(|data: &[u8]| {
    let limits = Limits { max_decompressed: 64 << 20, ..Limits::default() };
    let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    b.extend_from_slice(data);
    let _ = parse_bundle_header(&b, Some(b.len() as u64), &limits);
    let _ = parse_bundle_header(&b, None, &limits);
    let mut c = b"CCOB".to_vec();
    c.extend_from_slice(data);
    let _ = decompress_ccob(&c, &limits);
});
