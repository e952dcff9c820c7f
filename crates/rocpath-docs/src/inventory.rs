//! The `rocpath.inventory/1` document (`rocpath inventory`): what an install ships — every code
//! object with its target id and kernels, Tensile library files, MIOpen databases, kpack
//! markers, Python packages with GPU code — and the coverage matrix (library × target id).
//! `rocpath-inventory` scans into these records (and `diff` reads saved ones back); the ledger
//! reads them.

use crate::ErrorItem;
use crate::object::{ArchiveRef, HashSource, Kernel, MissingIndices, SharedBy, Wrappers};
use rocpath_arch::TargetId;
use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything a scan found.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Inventory {
    /// The paths the scan was given.
    #[serde(default)]
    pub roots: Vec<String>,
    /// Code objects, sorted by path, container and offset.
    pub code_objects: Vec<CodeObjectRecord>,
    /// Tensile library files.
    pub tensile: Vec<TensileRecord>,
    /// MIOpen databases.
    pub miopen_dbs: Vec<MiopenDbRecord>,
    /// Totals per short target id.
    pub targets: BTreeMap<TargetId, TargetTotals>,
    /// Coverage: library → target id → cell.
    pub coverage: BTreeMap<String, BTreeMap<TargetId, Cell>>,
    /// Items that could not be read.
    pub errors: Vec<ErrorItem>,
    /// Host binaries packed for kpack and the archives they resolve to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kpack_refs: Vec<KpackRefRecord>,
    /// Statistics.
    pub stats: Stats,
    /// Python packages with GPU code among the scanned paths (site-packages folders).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub python: Vec<PythonPackage>,
    /// How the code objects were hashed.
    #[serde(default)]
    pub hashing: HashingSummary,
}

/// One code object found in the scanned files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeObjectRecord {
    /// The file on disk.
    pub path: String,
    /// Chain of containers inside the file (`hip_fatbin > bundle#3@0x1000 > hipv4-…`); empty
    /// for a standalone code object.
    pub container: String,
    /// The library the object belongs to: the innermost archive member, or the file.
    pub library: String,
    /// Offset of the object in its innermost addressable container.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// sha256 of the object's bytes, when hashing was asked for (`--hash`, `diff`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// How `sha256` was obtained: `computed`, `cached` (from the hash cache: the same file,
    /// unchanged, hashed by an earlier run) or `not_hashed`.
    #[serde(default)]
    pub sha256_source: HashSource,
    /// Target id, written as `target` (full, `amdgcn-amd-amdhsa--gfx90a:xnack+`),
    /// `target_id` (`gfx90a:xnack+`) and `processor` (`gfx90a`).
    #[serde(flatten, with = "rocpath_arch::fields")]
    pub target: TargetId,
    /// Family (`CDNA2`), when the processor is known.
    pub family: Option<String>,
    /// Code object version (2..6).
    pub code_object_version: Option<u8>,
    /// `EF_AMDGPU_GENERIC_VERSION` of a generic-target object (code object v6): the loader
    /// accepts it only if it knows this version of the generic target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generic_version: Option<u8>,
    /// `e_flags`, hex.
    pub e_flags: String,
    /// Offload bundle entry id, when it came from a bundle.
    pub bundle_id: Option<String>,
    /// Other entries of the same bundle that point at this object (the same offset): it is
    /// read and listed once, here, and they are referenced by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by: Option<SharedBy>,
    /// `amdhsa.target` of the metadata, verbatim.
    pub metadata_target: Option<String>,
    /// `amdhsa.version`.
    pub metadata_version: Option<String>,
    /// Number of metadata notes.
    pub metadata_notes: u32,
    /// Number of kernels.
    pub kernel_count: usize,
    /// Kernels with their metadata (empty with `no_kernels`).
    pub kernels: Vec<Kernel>,
    /// Bytes of executable code.
    pub text_bytes: u64,
    /// Problems that did not stop the read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// What a Tensile library file is to the library that loads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TensileKind {
    /// The index of a lazily loaded library (`TensileLibrary_lazy_<arch>`).
    LazyIndex,
    /// Solutions for a processor.
    Solutions,
    /// Solutions for any processor (`…_fallback`, no processor in the name).
    Fallback,
}

crate::words!(TensileKind {
    LazyIndex => "lazy_index",
    Solutions => "solutions",
    Fallback => "fallback",
});

/// A Tensile library file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TensileRecord {
    /// File on disk.
    pub path: String,
    /// Container chain.
    pub container: String,
    /// Directory (or archive directory) holding the library: the Tensile "library path".
    pub library_dir: String,
    /// File name.
    pub name: String,
    /// What the file is to the loading library.
    pub kind: TensileKind,
    /// Processor the file is for, from its name (`…_gfx90a.dat`), if any.
    pub processor: Option<String>,
    /// Processors named by its predicates.
    pub processors: Vec<String>,
    /// Number of solutions.
    pub solutions: u64,
    /// Solutions per problem type.
    pub problem_types: BTreeMap<String, u64>,
    /// Placeholders (lazy references).
    pub placeholders: usize,
    /// Placeholders whose `.dat` file is not in the scanned set (filled by `rocpath_inventory::scan`).
    pub missing_placeholders: Vec<String>,
    /// `format_version` of an indexed TensileLite catalog (2), if the file has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_version: Option<i64>,
    /// Why the loading library would refuse the file (present but not loadable), if it would.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loader_rejects: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A MIOpen database file recognised by its name.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MiopenDbRecord {
    /// File on disk.
    pub path: String,
    /// Container chain.
    pub container: String,
    /// File name.
    pub name: String,
    /// Processor.
    pub processor: String,
    /// CU count from the name.
    pub cus: Option<u32>,
    /// Kind (`find-db`, `perf-db`, `kernel-db`, ...).
    pub kind: DbKind,
    /// Backend (`HIP`, `OpenCL`).
    pub backend: Option<String>,
    /// Size in bytes.
    pub size: u64,
    /// Evidence.
    pub evidence: Evidence,
}

/// Totals for one target id.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TargetTotals {
    /// Code objects.
    pub code_objects: u64,
    /// Kernels.
    pub kernels: u64,
    /// Bytes of code objects.
    pub bytes: u64,
    /// Libraries that ship code for it.
    pub libraries: u64,
}

/// One cell of the coverage matrix.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Cell {
    /// Code objects.
    pub code_objects: u64,
    /// Kernels.
    pub kernels: u64,
    /// Bytes.
    pub bytes: u64,
}

/// Scan statistics.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Files read.
    pub files: u64,
    /// Bytes of input files.
    pub bytes: u64,
    /// Files of `files` not read because the run's `--max-time` had passed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_started: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The hashing policy of a scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HashingMode {
    /// No object hashed.
    Off,
    /// Every object hashed in this run (what documents written before hashing became optional
    /// did).
    #[default]
    Compute,
    /// Hashed through the hash cache.
    Cached,
}

crate::words!(HashingMode {
    Off => "off",
    Compute => "compute",
    Cached => "cached",
});

/// How the code objects of a scan were hashed.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct HashingSummary {
    /// The policy.
    pub mode: HashingMode,
    /// Objects whose sha256 was computed in this run.
    pub computed: u64,
    /// Objects whose sha256 came from the hash cache.
    pub cached: u64,
    /// Objects not hashed.
    pub not_hashed: u64,
}

/// One archive a host binary's marker leads to, with evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpackArchiveRecord {
    /// The archive and what was found there.
    #[serde(flatten)]
    pub archive: ArchiveRef,
    /// Evidence: `confirmed` when the archive is read or shown absent or empty, `limited`
    /// when it could not be read.
    pub evidence: Evidence,
}

/// A host binary packed for kpack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpackRefRecord {
    /// File on disk.
    pub path: String,
    /// Container chain down to the binary (empty for a file).
    pub container: String,
    /// The library (as [`CodeObjectRecord::library`]).
    pub library: String,
    /// The binary's key in the archives.
    pub kernel_name: String,
    /// The marker's search paths.
    pub search_paths: Vec<String>,
    /// Fat-binary wrappers by magic.
    pub wrappers: Wrappers,
    /// `.hip_fatbin` holds no bytes in the file.
    pub fatbin_emptied: bool,
    /// Whether archives were looked for (not inside archive files).
    pub resolved: bool,
    /// Wrappers still `HIPF` over the emptied `.hip_fatbin`: their code is gone.
    pub stale_wrappers: u32,
    /// Candidate archives, in the loader's order.
    pub archives: Vec<KpackArchiveRecord>,
    /// `HIPK` wrapper indices without an object, per architecture.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_indices: Vec<MissingIndices>,
    /// Evidence for the marker; the note names what the binary lost, if anything.
    pub evidence: Evidence,
}

impl KpackRefRecord {
    /// Archives the binary references that give it no code.
    pub fn problems(&self) -> impl Iterator<Item = &KpackArchiveRecord> {
        self.archives
            .iter()
            .filter(|a| a.archive.status.is_problem())
    }
}

/// A ROCm library a package needs, and where the loader finds it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Resolved {
    /// `libamdhip64.so.7`.
    pub needed: String,
    /// The file the runpath leads to, or None: the system search path decides.
    pub found: Option<String>,
}

/// One package of a Python environment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PythonPackage {
    /// `torch`, `jax_rocm7_plugin`, `_rocm_sdk_device_gfx942`.
    pub name: String,
    /// Its folder.
    pub dir: String,
    /// Version from its `.dist-info` folder, if any.
    pub version: Option<String>,
    /// `rocm`, `cuda` or `cpu`.
    pub build: String,
    /// What decided the build.
    pub build_by: String,
    /// ROCm libraries its modules need, resolved.
    pub resolves: Vec<Resolved>,
    /// Code objects per target id inside the package.
    pub targets: BTreeMap<String, u64>,
    /// Evidence.
    pub evidence: Evidence,
}

/// Kind of MIOpen database file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DbKind {
    /// System find-db (`.fdb.txt`).
    FindDb,
    /// User find-db (`.ufdb.txt`).
    UserFindDb,
    /// System perf-db, SQLite (`.db`) or text (`.db.txt`).
    PerfDb,
    /// User perf-db (`.udb`, `.udb.txt`).
    UserPerfDb,
    /// Kernel binary cache (`.kdb`, `.ukdb`).
    KernelDb,
}

crate::words!(DbKind {
    FindDb => "find-db",
    UserFindDb => "user-find-db",
    PerfDb => "perf-db",
    UserPerfDb => "user-perf-db",
    KernelDb => "kernel-db",
});
