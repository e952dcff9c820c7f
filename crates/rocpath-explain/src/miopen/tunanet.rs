//! TunaNet's files in MIOpen's system database folder (`GetSystemDbPath()`:
//! `<arch>.tn.model` and `<arch>_metadata.tn.model`, ai_heuristics.cpp:65-67 and :178-184
//! @2d1fd997), read once per folder and class for the whole run.

use rocpath_miopen::tunanet::{ModelClass, ParseError, TunaNet};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Largest TunaNet file read (MIOpen's are 10 KB – 1.2 MB).
const MAX_FILE: u64 = 64 << 20;

type Loaded = Arc<Result<TunaNet, String>>;

fn cache() -> &'static Mutex<HashMap<(PathBuf, ModelClass), Loaded>> {
    static C: OnceLock<Mutex<HashMap<(PathBuf, ModelClass), Loaded>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

fn json(path: &Path) -> Result<serde_json::Value, String> {
    let text = rocpath_budget::read_small_text(path, MAX_FILE).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{}: not found (MIOpen installs it with its databases; give --db the folder that has it)",
                path.display()
            )
        } else {
            format!("{}: {e}", path.display())
        }
    })?;
    serde_json::from_str(&text).map_err(|e| format!("{}: line {}: {e}", path.display(), e.line()))
}

fn read(dir: &Path, class: ModelClass) -> Result<TunaNet, String> {
    let model_path = dir.join(class.model_file());
    let meta_path = dir.join(class.metadata_file());
    let model = json(&model_path)?;
    let meta = json(&meta_path)?;
    TunaNet::parse(class, &model, &meta).map_err(|e| {
        let file = match e {
            ParseError::Metadata(_) => &meta_path,
            ParseError::Network(_) | ParseError::Mismatch { .. } => &model_path,
        };
        format!("{}: {e}", file.display())
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
