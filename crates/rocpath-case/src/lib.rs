//! Runtime cases: run a program with the ROCm libraries' logging switched on and keep
//! everything it wrote (`run`), then read the logs of a case into a path report
//! (`read_case`): the device, the problems, the solvers MIOpen considered and what became of
//! each, the forced solver, the one that ran and its kernels, find-db and perf-db lookups,
//! GEMM calls with their backend, Tensile kernels, fallbacks, errors, the exit — and the case
//! outcome, each with evidence naming the lines that decided it.
//!
//! Data flow: files → `rocpath_logs` parsers (events) → [`collect::Collector`] (bounded
//! accumulation) → [`model::CaseReport`] (typed observations with evidence) → renderers.

mod bench;
mod capped;
pub mod collect;
pub mod doc;
mod error;
pub mod meta;
pub mod model;
mod outcome;
pub mod read;
mod report;
pub mod run;
pub mod table;

pub use model::{CaseReport, OutcomeKind};
pub use read::{CaseError, CaseSource, case_source, cases_at, discover, read_bytes, read_case};
