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

pub use rocpath_docs::ollama::ReadDoc;

/// The `rocpath.ollama` document ([`rocpath_docs::schema::OLLAMA`]) of [`run::read_paths`]'s
/// answer: the runs read, notes on how files were grouped, and the files that could not be read.
pub fn document(runs: Vec<RunReport>, notes: Vec<String>, errors: &[input::ReadError]) -> ReadDoc {
    ReadDoc {
        runs,
        notes,
        errors: errors.iter().map(Into::into).collect(),
    }
}
