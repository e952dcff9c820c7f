//! rocpath-inventory's integration tests, one binary: each file a module.

mod catalog;
mod corpus;
mod generic;
mod hostile;
mod kpack;
mod miopen_cache;
mod python;
mod settle;
