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

/// The `rocpath.ollama` document ([`rocpath_docs::schema::OLLAMA`]): the runs read, notes on
/// how files were grouped, and the files that could not be read.
#[derive(Debug, serde::Serialize)]
pub struct ReadDoc<'a> {
    /// The runs.
    pub runs: &'a [RunReport],
    /// How files were grouped into runs.
    pub notes: &'a [String],
    /// Files that could not be read.
    pub errors: Vec<rocpath_docs::ErrorItem>,
}

impl<'a> ReadDoc<'a> {
    /// The document of [`run::read_paths`]'s answer.
    pub fn new(runs: &'a [RunReport], notes: &'a [String], errors: &[input::ReadError]) -> Self {
        ReadDoc {
            runs,
            notes,
            errors: errors.iter().map(Into::into).collect(),
        }
    }
}
