#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Claims written by rocpath read back to the same value, whatever their text (Japanese,
//! quotes, newlines, markup, TOML syntax), and the readers never panic on arbitrary bytes.

use proptest::prelude::*;
use rocpath_evidence::{Class, Locator, Proof};
use rocpath_ledger::files::{self, FileKind};
use rocpath_ledger::model::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-zA-Z0-9 <>&\"'=#\\[\\]{}\\\\\n\t]{0,40}",
        "[ぁ-んァ-ン一-龥、。()]{0,20}",
    ]
}

fn claim() -> impl Strategy<Value = Claim> {
    (
        "[a-z0-9][a-z0-9._-]{0,20}",
        text(),
        text(),
        prop::option::of(prop::sample::select(Class::ALL.to_vec())),
        prop::option::of(prop::sample::select(Proof::ALL.to_vec())),
        prop::option::of(prop::sample::select(Floor::ALL.to_vec())),
        text(),
        prop::collection::vec((text(), prop::option::of(1u64..100_000)), 0..3),
    )
        .prop_map(|(id, ja, en, class, kind, floor, world, sources)| Claim {
            schema: CLAIM_SCHEMA.into(),
            id,
            statement: Text::new(ja, en),
            class,
            kind,
            world,
            floor,
            support: sources
                .into_iter()
                .map(|(p, line)| Support {
                    source: Some(Locator {
                        path: format!("src/{}", p.len()),
                        line,
                        ..Locator::default()
                    }),
                    quote: p,
                    ..Support::default()
                })
                .collect(),
            history: vec![HistoryEntry {
                date: "2026-03-14".into(),
                class,
                kind,
                note: Text::default(),
            }],
            ..Claim::default()
        })
}

proptest! {
    #[test]
    fn claims_round_trip(c in claim()) {
        let text = files::to_toml(&c).unwrap();
        prop_assert_eq!(files::parse_claim(&text).unwrap(), c);
    }

    #[test]
    fn readers_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400), k in 0u8..5) {
        let kind = [FileKind::Meta, FileKind::Claim, FileKind::Question, FileKind::Case, FileKind::Observation][k as usize];
        match files::parse_any(kind, &bytes) {
            Err(files::ParseError::NotUtf8 { offset }) => prop_assert!(offset < bytes.len()),
            Err(e) => {
                // A position names a line of the input.
                let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
                prop_assert!(e.position().is_none_or(|p| p.line <= lines && p.column >= 1), "{e}");
                prop_assert!(!e.to_string().is_empty());
            }
            Ok(()) => {}
        }
    }
}
