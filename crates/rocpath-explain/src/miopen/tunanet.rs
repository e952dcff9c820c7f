//! TunaNet's files in MIOpen's system database folder (`GetSystemDbPath()`:
//! `<arch>.tn.model` and `<arch>_metadata.tn.model`, ai_heuristics.cpp:65-67 and :178-184
//! @2d1fd997), read once per folder and class for the whole run.

use rocpath_miopen::tunanet::{ModelClass, ParseError, TunaNet};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Largest TunaNet file read (MIOpen's are 10 KB – 1.2 MB).
const MAX_FILE: u64 = 64 << 20;

type Loaded = Arc<Result<TunaNet, LoadError>>;

/// Why a device's TunaNet files could not be read, the file named.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file is not in the folder.
    #[error(
        "{}: not found (MIOpen installs it with its databases; give --db the folder that has it)",
        .0.display()
    )]
    NotFound(PathBuf),
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{}: line {line}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The line where it stops being JSON.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// The JSON is not the model or metadata the file should hold.
    #[error("{}: {error}", path.display())]
    Model {
        /// The file that does not fit.
        path: PathBuf,
        /// How.
        error: ParseError,
    },
}

fn cache() -> &'static Mutex<HashMap<(PathBuf, ModelClass), Loaded>> {
    static C: OnceLock<Mutex<HashMap<(PathBuf, ModelClass), Loaded>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

fn json(path: &Path) -> Result<serde_json::Value, LoadError> {
    let text = rocpath_budget::read_small_text(path, MAX_FILE).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            LoadError::NotFound(path.to_path_buf())
        } else {
            LoadError::Io {
                path: path.to_path_buf(),
                source: e,
            }
        }
    })?;
    serde_json::from_str(&text).map_err(|e| LoadError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })
}

fn read(dir: &Path, class: ModelClass) -> Result<TunaNet, LoadError> {
    let model_path = dir.join(class.model_file());
    let meta_path = dir.join(class.metadata_file());
    let model = json(&model_path)?;
    let meta = json(&meta_path)?;
    TunaNet::parse(class, &model, &meta).map_err(|error| {
        let file = match error {
            ParseError::Metadata(_) => meta_path,
            ParseError::Network(_) | ParseError::Mismatch { .. } => model_path,
        };
        LoadError::Model { path: file, error }
    })
}

/// The device class's TunaNet from `dir`, or why it could not be read (the file named).
pub fn load(dir: &Path, class: ModelClass) -> Loaded {
    let key = (dir.to_path_buf(), class);
    if let Some(l) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return l;
    }
    let loaded = Arc::new(read(dir, class));
    if let Ok(mut c) = cache().lock() {
        c.insert(key, loaded.clone());
    }
    loaded
}

/// The file a class's network is read from.
pub fn model_path(dir: &Path, class: ModelClass) -> PathBuf {
    dir.join(class.model_file())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_missing_or_broken_file_is_named_with_what_to_do() {
        let d = tempfile::tempdir().unwrap();
        let class = ModelClass::Gfx942;
        let e = read(d.path(), class).unwrap_err();
        assert!(matches!(&e, LoadError::NotFound(p) if p.ends_with(class.model_file())));
        assert!(e.to_string().contains("give --db the folder"), "{e}");
        std::fs::write(d.path().join(class.model_file()), "{\n \"config\": [").unwrap();
        let e = read(d.path(), class).unwrap_err();
        assert!(matches!(&e, LoadError::Json { line: 2, .. }), "{e}");
        std::fs::write(d.path().join(class.model_file()), "{}").unwrap();
        std::fs::write(d.path().join(class.metadata_file()), "{}").unwrap();
        let e = read(d.path(), class).unwrap_err();
        assert!(matches!(&e, LoadError::Model { .. }), "{e}");
    }
}
