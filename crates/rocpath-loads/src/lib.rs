//! Which shared libraries the dynamic loader (glibc's ld.so) resolves for a program or a
//! library, from where and by which rule: a prediction from the files, following
//! `elf/dl-load.c` and `elf/dl-deps.c` and the ld.so(8) manual page.
//!
//! `elf.rs` reads what the loader reads of an ELF file, `cache.rs` parses `/etc/ld.so.cache`,
//! `resolve.rs` applies the search rules, `rocm.rs` says where each ROCm library found
//! reads its data (catalogs, databases, kernel caches, AOTriton images, kpack archives), `process.rs` reads what a running process has mapped and open and sets it
//! beside the prediction, `python.rs` resolves every extension module of a Python module as
//! an interpreter finds it. The model is [`Loads`] ([`process::Running`] for a process);
//! rendering is in `rocpath-render`.

pub mod cache;
pub mod elf;
pub mod process;
pub mod python;
mod resolve;
pub mod rocm;

use rocpath_evidence::Evidence;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use resolve::loads;

/// The file tree the loader sees: this machine, or a saved image of one (paths in the
/// machine resolved inside the image, as `survey --root` resolves them).
pub trait Tree: Send + Sync {
    /// The file on this machine a machine path names.
    fn host(&self, machine: &str) -> PathBuf;
    /// A machine path with every link followed (a program's real folder is its `$ORIGIN`).
    fn real(&self, machine: &str) -> Option<String>;
}

/// This machine's own tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct Live;

impl Tree for Live {
    fn host(&self, machine: &str) -> PathBuf {
        PathBuf::from(machine)
    }
    fn real(&self, machine: &str) -> Option<String> {
        std::fs::canonicalize(Path::new(machine))
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }
}

/// What to resolve, and in which environment.
#[derive(Clone)]
pub struct Options {
    /// The program or library.
    pub target: PathBuf,
    /// The environment the loader and the libraries see (`LD_LIBRARY_PATH`,
    /// `ROCBLAS_TENSILE_LIBPATH`, …).
    pub env: BTreeMap<String, String>,
    /// The cache file (`/etc/ld.so.cache`).
    pub cache: PathBuf,
    /// Most objects loaded before the walk stops (and says so).
    pub max_objects: usize,
    /// The tree the paths are in (this machine by default).
    pub tree: Arc<dyn Tree>,
}

impl Options {
    /// Options for `target` with this process's environment and the system cache.
    pub fn new(target: impl Into<PathBuf>) -> Options {
        Options {
            target: target.into(),
            env: BTreeMap::new(),
            cache: PathBuf::from("/etc/ld.so.cache"),
            max_objects: 4096,
            tree: Arc::new(Live),
        }
    }
}

/// The rule that found a library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The name has a slash: it is a path, opened as is.
    Path,
    /// `DT_RPATH` of the requesting object or of an object that loaded it.
    Rpath,
    /// `LD_LIBRARY_PATH`.
    LdLibraryPath,
    /// `DT_RUNPATH` of the requesting object.
    Runpath,
    /// `/etc/ld.so.cache`.
    Cache,
    /// The default folders.
    Default,
    /// The program interpreter (ld.so itself), already loaded.
    Interpreter,
}

impl Rule {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Path => "path",
            Rule::Rpath => "rpath",
            Rule::LdLibraryPath => "ld_library_path",
            Rule::Runpath => "runpath",
            Rule::Cache => "cache",
            Rule::Default => "default",
            Rule::Interpreter => "interpreter",
        }
    }
}

/// A library the loader resolves.
#[derive(Debug, Clone, Serialize)]
pub struct Library {
    /// The name asked for (`DT_NEEDED`).
    pub name: String,
    /// The path the loader opens (as it names it: search folder + name, not made canonical).
    pub path: String,
    /// The rule that found it.
    pub rule: Rule,
    /// The object whose `DT_NEEDED` asked for it.
    pub needed_by: String,
    /// 1 for the program's own `DT_NEEDED`, 2 for theirs, …
    pub depth: u32,
    /// `DT_RUNPATH` / `DT_RPATH` of the library itself, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runpath: Option<String>,
    /// `DT_RPATH`, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpath: Option<String>,
    /// The ROCm library it is (`rocblas`, `hip`, …), when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rocm: Option<&'static str>,
    /// The search paths of its kpack marker (where its packed device code is).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kpack_search_paths: Vec<String>,
    /// Why.
    pub evidence: Evidence,
}

/// A folder the loader looked in for a name, and by which rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Searched {
    /// The rule.
    pub rule: Rule,
    /// The folder (or the cache file).
    pub place: String,
}

/// A candidate the loader opened and passed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejected {
    /// The file.
    pub path: String,
    /// Why (`wrong ELF class`, `another machine`, `invalid ELF header`).
    pub why: String,
    /// Where in the file, for a file that is not a readable ELF object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The loader stops here: a file by that name that is not a readable ELF object of its
    /// kind ends the search with an error (`open_verify`: "invalid ELF header"), where
    /// another class or machine is passed over.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fatal: bool,
}

/// A name the loader does not find: "error while loading shared libraries".
#[derive(Debug, Clone, Serialize)]
pub struct Missing {
    /// The name.
    pub name: String,
    /// The object that needs it.
    pub needed_by: String,
    /// Its depth.
    pub depth: u32,
    /// Where it was looked for, in order.
    pub searched: Vec<Searched>,
    /// Files found by that name and passed over.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<Rejected>,
    /// Why.
    pub evidence: Evidence,
}

/// The cache as read.
#[derive(Debug, Clone, Serialize)]
pub struct CacheInfo {
    /// The file.
    pub path: String,
    /// Its entries (0 when unreadable).
    pub entries: usize,
    /// Why it could not be read; the loader then goes on without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer.
#[derive(Debug, Clone, Serialize)]
pub struct Loads {
    /// The program or library asked about.
    pub target: String,
    /// `ELF32` / `ELF64`.
    pub class: String,
    /// The machine (`x86_64`).
    pub machine: String,
    /// The interpreter (`PT_INTERP`), or the machine's usual one for a library.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<String>,
    /// `DT_RPATH` of the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpath: Option<String>,
    /// `DT_RUNPATH` of the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runpath: Option<String>,
    /// `LD_LIBRARY_PATH` as the loader sees it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ld_library_path: Option<String>,
    /// The default folders of the machine, in order.
    pub default_dirs: Vec<String>,
    /// The `glibc-hwcaps` subfolders searched first in every folder, best first.
    pub hwcaps: Vec<String>,
    /// The cache.
    pub cache: CacheInfo,
    /// Libraries resolved, in load order (breadth first).
    pub libraries: Vec<Library>,
    /// Names not found.
    pub missing: Vec<Missing>,
    /// Where each ROCm library found reads its data.
    pub rocm_data: Vec<rocm::DataPath>,
    /// Whether the walk stopped at `max_objects`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Why the target itself could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadsError {
    /// The file could not be opened.
    #[error("{0}")]
    Input(#[from] rocpath_budget::input::InputError),
    /// It could not be mapped.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// It is not an ELF file the loader can read.
    #[error("{path}: {source}")]
    Elf {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: elf::ElfError,
    },
    /// It is a static program: the loader is not involved.
    #[error(
        "{path}: no dynamic section (a statically linked program): the dynamic loader loads nothing for it"
    )]
    Static {
        /// The file.
        path: PathBuf,
    },
}
