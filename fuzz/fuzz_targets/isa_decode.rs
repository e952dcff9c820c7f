//! Decode random bytes for a processor chosen by the first byte; walk them as a section.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rocpath_isa::{Census, Decoded, Decoder, SymbolKind, SymbolStart};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let procs: Vec<&str> = Decoder::processors().collect();
    let Some(dec) = procs
        .get(usize::from(sel) % procs.len())
        .and_then(|p| Decoder::for_target(p))
    else {
        return;
    };
    let mut at = 0;
    while at < rest.len() {
        match dec.decode(&rest[at..]) {
            Decoded::Inst(i) => {
                assert!(i.len >= 4 && at + usize::from(i.len) <= rest.len());
                at += usize::from(i.len);
            }
            Decoded::Unknown => at += 4,
            Decoded::Truncated { needed } => {
                assert!(usize::from(needed) > rest.len() - at);
                break;
            }
        }
    }
    let syms = [
        SymbolStart {
            address: 0x1000 + u64::from(sel & 0x3c),
            kind: SymbolKind::Code,
        },
        SymbolStart {
            address: 0x1040,
            kind: SymbolKind::LegacyKernel,
        },
    ];
    let mut c = Census::new();
    for it in dec.walk(rest, 0x1000, &syms) {
        assert!((it.offset as usize) < rest.len());
        c.add_item(&it);
    }
    let _ = c.histogram();
});
