//! What an Ollama / llama.cpp run leaves behind, read into evidence: did it run on the GPU,
//! how fast, and what went wrong.
//!
//! | module | reads |
//! |---|---|
//! | [`generate`] | `/api/generate` responses, error objects, streams (`<ns>\t<json>` captures), benchmark JSONL (tolerant) |
//! | [`log`] | `ollama serve` output and journals (English and Japanese locales): devices, loads, offload, backends, failures |
//! | [`smi`] | `rocm-smi` sample logs in every layout seen, any number of GPUs |
//! | [`input`] | regular files only, streamed line by line with bounded memory |
//! | [`run`] | grouping files into runs, the GPU / CPU / MIXED / UNSURE verdict, the run report |
//!
//! Parsers are pure (text in, values out); [`run::read_paths`] is the only function that
//! reads files.

pub mod generate;
pub mod input;
pub mod log;
pub mod run;
pub mod smi;

pub use run::{RunReport, VerdictKind};

/// JSON schema name of `rocpath ollama read --json`.
pub const SCHEMA: &str = "rocpath.ollama/1";
