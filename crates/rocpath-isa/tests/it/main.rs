//! rocpath-isa's integration tests, one binary: each file a module.

mod common;
mod corpus;
mod fixtures;
mod sequence;
mod vectors;
