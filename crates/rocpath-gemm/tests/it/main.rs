//! rocpath-gemm's integration tests, one binary: each file a module.

mod corpus;
mod libstdcxx_sort;
mod lite;
mod lite_corpus;
mod selection;
