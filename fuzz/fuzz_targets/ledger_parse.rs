#![no_main]
//! The ledger's file parsers (ledger.toml, claims, questions, cases: TOML; observations: JSON),
//! chosen by the first byte: they return a value or an error, never panic. A parsed claim is
//! written back and must parse again to the same value. Observation bytes also go through
//! the derivation's digest reader and its rules, which must not panic either.
use libfuzzer_sys::fuzz_target;
use rocpath_ledger::files::{self, FileKind};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let kind = match sel % 5 {
        0 => FileKind::Meta,
        1 => FileKind::Claim,
        2 => FileKind::Question,
        3 => FileKind::Case,
        _ => FileKind::Observation,
    };
    let _ = files::parse_any(kind, rest);
    if kind == FileKind::Observation {
        if let Ok(d) = rocpath_ledger::derive::digest::parse(rest) {
            let _ = rocpath_ledger::derive::findings(&[d]);
        }
    }
    if kind == FileKind::Claim {
        if let Ok(c) = std::str::from_utf8(rest).map_err(drop).and_then(|t| files::parse_claim(t).map_err(drop)) {
            let text = files::to_toml(&c).unwrap_or_default();
            assert_eq!(files::parse_claim(&text).ok(), Some(c));
        }
    }
});
