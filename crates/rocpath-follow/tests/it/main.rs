//! rocpath-follow's integration tests, one binary: each file a module.

mod constructs;
mod ignore_files;
mod nesting;
mod ollama_checkout;
mod props;
mod trails;
