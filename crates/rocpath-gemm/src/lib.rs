//! Which kernel a GEMM runs: the selection model of Tensile's host library over an install's
//! catalogs.
//!
//! rocBLAS (and hipBLASLt) choose a GEMM kernel at run time by walking a tree loaded from the
//! install's catalog files: hardware rows (processor, CU count), a map by operation, problem
//! rows (types, HPA, modes), and matching tables of tuned sizes whose nearest entry wins if its
//! solution's predicates accept the problem. The choice is a deterministic function of the
//! catalog files, the problem and the device, which this crate computes without a GPU:
//!
//! - [`library`] loads a catalog folder as the host library does (master file per processor,
//!   placeholders on first use, tables sorted by libstdc++'s `std::sort` — [`sort`]);
//! - [`problem`] is the problem (Tensile's `ContractionProblem` for a GEMM), [`device`] the GPU;
//! - [`eval`] evaluates predicates, [`select::matching`] the table searches and distances;
//! - [`select`] walks the tree (`findBestSolution`), recording a [`trace`] when asked;
//! - [`rocblas`] is the routing above it: the call a user makes → the problem rocBLAS builds;
//! - [`lite`] is hipBLASLt 7.1.1's own selection (TensileLite catalogs, `findTopSolutions`, the
//!   fill-in), for the calls hipBLASLt answers.

pub mod batch;
pub mod device;
pub mod doc;
pub mod eval;
pub mod library;
pub mod lite;
pub mod logline;
pub mod problem;
pub mod rocblas;
pub mod select;
pub mod sort;
pub mod trace;
pub mod verdict;

pub use device::Device;
pub use library::{Library, LoadError};
pub use problem::{Gemm, Metric, Modes, Op, Problem};
pub use select::{Chosen, Found, Walk};
