//! rocpath-ledger's integration tests, one binary: each file a module.

mod check_rules;
mod common;
mod derive;
mod derive_predictions;
mod derive_runs;
mod derive_source;
mod follow_import;
mod roundtrip;
