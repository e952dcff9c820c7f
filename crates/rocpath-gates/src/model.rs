//! The records the scanner produces: the `rocpath.gates/1` document's own types
//! ([`rocpath_docs::gates`]), which the ledger reads back.

pub use rocpath_docs::gates::{
    Effect, Gate, Kind, Language, Layer, Pattern, RepoSummary, ScanIssue, TargetRow, Verdict,
};
