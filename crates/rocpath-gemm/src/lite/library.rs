//! A hipBLASLt library folder loaded as hipBLASLt 7.1.1 loads it: the lazy master file of the
//! processor, the index → file map beside it, each per-type file on first use (once, whatever
//! the threads), every matching table sorted by libstdc++'s `std::sort` as the loader sorts it.
//!
//! Sources: hipBLASLt `tensile_host.cpp` `TensileHost::initialize` (@003add59, chars
//! ~83000-96000): the folder is `HIPBLASLT_TENSILE_LIBPATH` when set, else
//! `<folder of libhipblaslt.so>/hipblaslt/library` and, when it exists, its `<processor>`
//! sub-folder; the master is `TensileLibrary_lazy_<processor>.dat` (lazy-loading build, no YAML);
//! a missing master prints "rocblaslt error: Cannot read …" and leaves no library. TensileLite
//! `MasterSolutionLibrary.hpp:108-123` (`TensileLiteLibrary_lazy_Mapping.dat` beside the
//! master, else "No library mapping found in …"), `:125-175` (`loadLibrary`: the file of an
//! index is the mapping's last key not above it), `Serialization/PlaceholderLibrary.hpp:51-78`
//! (a placeholder names `<folder of the file>/<value><suffix of the file>`),
//! `PlaceholderLibrary.hpp:159-206, 292-309` (loaded on first use),
//! `Serialization/MatchingLibrary.hpp:56-68` (tables sorted by key, then speed descending),
//! `:241-289` (an entry's `index` is looked up in its own file's solutions).

use crate::library::{File, LoadError, load_file};
use rocpath_budget::MemoryBudget;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The file name of the index → file map.
pub const MAPPING_FILE: &str = "TensileLiteLibrary_lazy_Mapping.dat";

/// Why a hipBLASLt library could not be opened.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LiteLoadError {
    /// No lazy master file for the processor.
    #[error(
        "no {file} in {dir}: hipBLASLt prints \"rocblaslt error: Cannot read {file}\" and has no library, so every heuristic query fails (rocblaslt_status_invalid_pointer)"
    )]
    NoCatalog {
        /// The folder searched.
        dir: PathBuf,
        /// The file looked for.
        file: String,
    },
    /// The master file could not be loaded.
    #[error("{0}")]
    Load(#[from] LoadError),
}

/// The folder hipBLASLt reads for `processor`: `dir` itself when it comes from
/// `HIPBLASLT_TENSILE_LIBPATH` (`from_env`), else its `<processor>` sub-folder when there is one.
pub fn library_folder(dir: &Path, processor: &str, from_env: bool) -> PathBuf {
    let sub = dir.join(processor);
    if !from_env && sub.exists() {
        sub
    } else {
        dir.to_path_buf()
    }
}

/// The master file name for `processor`.
pub fn master_name(processor: &str) -> String {
    format!("TensileLibrary_lazy_{processor}.dat")
}

/// True when `dir` looks like a hipBLASLt library folder: it is named `hipblaslt/library`, or
/// holds the mapping file, or a `<processor>` sub-folder holds it.
pub fn is_hipblaslt_folder(dir: &Path) -> bool {
    let named = dir.file_name().is_some_and(|n| n == "library")
        && dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n.eq_ignore_ascii_case("hipblaslt"));
    named
        || dir.join(MAPPING_FILE).is_file()
        || std::fs::read_dir(dir).is_ok_and(|rd| {
            rd.flatten()
                .take(64)
                .any(|e| e.path().join(MAPPING_FILE).is_file())
        })
}

/// A placeholder file, loaded once.
type Slot = OnceLock<Result<Arc<File>, LoadError>>;

/// A `GEMM_TYPE_ONLY` search's answer, shared.
pub(crate) type TypeSet = Arc<Result<Vec<super::select::Pick>, String>>;

/// A hipBLASLt library for one processor.
pub struct LiteLibrary {
    /// The folder of the master file.
    pub dir: PathBuf,
    /// The master file.
    pub master: Arc<File>,
    /// The suffix placeholders take (the master's, from its last `.`).
    pub suffix: String,
    /// The index → file map (first index of each file, in key order); empty when the file is
    /// missing or unreadable (`mapping_error` says why).
    pub mapping: Vec<(i64, String)>,
    /// Why there is no mapping, when there is none.
    pub mapping_error: Option<String>,
    placeholders: Mutex<HashMap<String, Arc<Slot>>>,
    /// `findAllSolutions(GEMM_TYPE_ONLY)` answers by what they depend on (device, operation,
    /// types): the same for every problem of a type.
    gemm_type_sets: Mutex<HashMap<String, TypeSet>>,
    budget: MemoryBudget,
}

impl std::fmt::Debug for LiteLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiteLibrary")
            .field("dir", &self.dir)
            .field("master", &self.master.path)
            .finish()
    }
}

impl LiteLibrary {
    /// Opens the library of `processor` under `dir` (`from_env`: `dir` is
    /// `HIPBLASLT_TENSILE_LIBPATH`, so no `<processor>` sub-folder is looked for).
    pub fn open(
        dir: &Path,
        processor: &str,
        from_env: bool,
        budget: &MemoryBudget,
    ) -> Result<LiteLibrary, LiteLoadError> {
        let folder = library_folder(dir, processor, from_env);
        let name = master_name(processor);
        let path = folder.join(&name);
        if !path.is_file() {
            return Err(LiteLoadError::NoCatalog {
                dir: folder,
                file: name,
            });
        }
        Self::open_file(&path, budget)
    }

    /// Opens a given master file.
    pub fn open_file(path: &Path, budget: &MemoryBudget) -> Result<LiteLibrary, LiteLoadError> {
        let master = load_file(path, budget)?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `ctx->filename.substr(rfind('.'))`; a `.dat.zlib` master keeps both (7.1.1 reads
        // `.dat` only; later versions read the compressed files under the same names).
        let suffix = if name.to_ascii_lowercase().ends_with(".dat.zlib") {
            ".dat.zlib".to_string()
        } else {
            name.rfind('.')
                .map(|i| name[i..].to_string())
                .unwrap_or_default()
        };
        let (mapping, mapping_error) = match read_mapping(&dir.join(MAPPING_FILE), budget) {
            Ok(m) if !m.is_empty() => (m, None),
            Ok(_) => (
                Vec::new(),
                Some(format!("No library mapping found in {}", dir.display())),
            ),
            Err(e) => (Vec::new(), Some(e)),
        };
        Ok(LiteLibrary {
            dir,
            master: Arc::new(master),
            suffix,
            mapping,
            mapping_error,
            placeholders: Mutex::new(HashMap::new()),
            gemm_type_sets: Mutex::new(HashMap::new()),
            budget: budget.clone(),
        })
    }

    /// The path a placeholder names.
    pub fn placeholder_path(&self, value: &str) -> PathBuf {
        self.dir.join(format!("{value}{}", self.suffix))
    }

    /// The file a placeholder names, loaded on first use (once, whatever the threads).
    pub fn placeholder(&self, value: &str) -> Result<Arc<File>, LoadError> {
        let cell = {
            let mut map = match self.placeholders.lock() {
                Ok(m) => m,
                Err(p) => p.into_inner(),
            };
            map.entry(value.to_string())
                .or_insert_with(|| Arc::new(OnceLock::new()))
                .clone()
        };
        cell.get_or_init(|| load_file(&self.placeholder_path(value), &self.budget).map(Arc::new))
            .clone()
    }

    /// A `GEMM_TYPE_ONLY` set computed once per `key` by `make`.
    pub(crate) fn gemm_type_set(
        &self,
        key: String,
        make: impl FnOnce() -> Result<Vec<super::select::Pick>, String>,
    ) -> TypeSet {
        let hit = match self.gemm_type_sets.lock() {
            Ok(m) => m.get(&key).cloned(),
            Err(p) => p.into_inner().get(&key).cloned(),
        };
        if let Some(h) = hit {
            return h;
        }
        let v = Arc::new(make());
        match self.gemm_type_sets.lock() {
            Ok(mut m) => m.insert(key, v.clone()),
            Err(p) => p.into_inner().insert(key, v.clone()),
        };
        v
    }

    /// The placeholder files loaded so far, by name.
    pub fn loaded(&self) -> Vec<String> {
        let map = match self.placeholders.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        let mut v: Vec<String> = map
            .iter()
            .filter(|(_, c)| matches!(c.get(), Some(Ok(_))))
            .map(|(k, _)| k.clone())
            .collect();
        v.sort();
        v
    }

    /// The file the mapping names for a solution index (`loadLibrary`: the last key not above
    /// it, `std::map::upper_bound` then one back).
    pub fn file_for_index(&self, index: i64) -> Option<&str> {
        let after = self.mapping.partition_point(|(k, _)| *k <= index);
        after
            .checked_sub(1)
            .and_then(|i| self.mapping.get(i))
            .map(|(_, f)| f.as_str())
    }
}

fn read_mapping(path: &Path, budget: &MemoryBudget) -> Result<Vec<(i64, String)>, String> {
    let (bytes, _held) = rocpath_budget::input::read_bytes(
        path,
        budget,
        crate::library::MAX_FILE_BYTES,
        "hipBLASLt library mapping",
    )
    .map_err(|e| e.to_string())?;
    rocpath_tensile::catalog::decode_mapping(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}
