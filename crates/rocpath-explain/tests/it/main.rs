//! rocpath-explain's integration tests, one binary: each file a module.

mod compare;
mod miopen_install;
mod miopen_vega64;
mod rocblas_corpus;
mod rocblas_lite;
