//! rocpath-loads's integration tests, one binary: each file a module.

mod cache;
mod ldd;
mod process;
mod rocm;
