//! Explain and predict which execution path the ROCm stack takes on a GPU, and why.
//!
//! - [`miopen`]: the solver MIOpen's find step takes for a convolution, read from the shipped
//!   find-db / perf-db the device would use, with the reasons the other solvers cannot apply;
//! - [`ggml`]: ggml-hip's matrix-multiplication and flash-attention dispatch, from rules kept as
//!   data (`data/ggml-<version>.toml`) with the ggml version and file:line of every rule;
//! - [`rocblas`]: rocBLAS's GEMM backend (hipBLASLt or Tensile), whether the installed libraries
//!   have solutions for a type on a target, and the fallbacks that apply;
//! - [`gemm`]: which Tensile kernel a GEMM takes on a GPU, from the install's catalogs (the
//!   selection model of `rocpath-gemm`), with the route, the walk and the code object;
//! - [`compare`]: a prediction next to an observation (`rocpath case read --json`), as evidence.
//!
//! Every statement carries [`rocpath_evidence::Evidence`]; rule ids are listed in
//! ARCHITECTURE.md (`explain.*`).

pub mod compare;
pub mod compare_trace;
pub mod gemm;
pub mod ggml;
pub mod miopen;
pub mod rocblas;
