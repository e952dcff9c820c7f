//! A ledger in a temporary folder, for the derivation tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_ledger::derive::{self, claim_id};
use rocpath_ledger::model::{Claim, Text};
use rocpath_ledger::store::Ledger;
use rocpath_ledger::{import::import_file_in, starter_meta};
use serde_json::Value;
use std::collections::BTreeMap;

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub ledger: Ledger,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::init(
            &dir.path().join("ledger"),
            &starter_meta(Text::new("t", "t")),
        )
        .unwrap();
        Fixture { dir, ledger }
    }

    /// Imports `doc` as `NAME.json`, in no world.
    pub fn import(&self, name: &str, doc: Value) {
        self.import_in(name, &doc, "");
    }

    /// Imports `doc` as `NAME.json` into `world` (`""`: none).
    pub fn import_in(&self, name: &str, doc: &Value, world: &str) {
        let f = self.dir.path().join(format!("{name}.json"));
        std::fs::write(&f, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
        let g = self.ledger.lock("test").unwrap();
        import_file_in(&g, &self.ledger, &f, Some(name), self.dir.path(), world).unwrap();
    }

    pub fn derive(&self, date: &str) -> derive::DeriveReport {
        let g = self.ledger.lock("test").unwrap();
        derive::derive(&g, &self.ledger, date).unwrap()
    }

    /// The claim a rule derived for `key`.
    pub fn claim(&self, rule: &str, key: &str) -> Claim {
        let p = self
            .ledger
            .root()
            .join("claims")
            .join(format!("{}.toml", claim_id(rule, key)));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        rocpath_ledger::files::parse_claim(&text).unwrap()
    }

    /// Every claim file, by name, with its bytes.
    pub fn claims_dir(&self) -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(self.ledger.root().join("claims"))
            .unwrap()
            .flatten()
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect()
    }
}

pub use rocpath_testdata::docs::whole_case;
