//! rocpath-sources's integration tests, one binary: each file a module.

mod aks2;
mod fixtures;
mod hostile;
mod in_place;
mod kdb;
mod kpack;
