//! rocpath's integration tests, one binary (each file a module): the CLI run on the bundled
//! example data and the shared recordings, snapshots of what people read, and the checks on the
//! repository's own documents.

mod architecture;
mod browser;
mod case_cli;
mod cli;
mod completions_cli;
mod doc_contract;
mod explain_cli;
mod follow_cli;
mod gates_cli;
mod gemm_cli;
mod input_layer;
mod ledger_cli;
mod limits_cli;
mod loads_cli;
mod rules_doc;
mod site_cli;
mod snapshots_cli;
mod snapshots_readers;
mod study_cli;
