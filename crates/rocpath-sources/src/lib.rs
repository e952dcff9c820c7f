//! Finds AMDGPU code objects, Tensile libraries and MIOpen databases wherever ROCm ships them.
//!
//! Containers read, recursively:
//! - standalone AMDGPU ELF code objects (`.hsaco`, `.co`, `.o`);
//! - clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`), several concatenated, and compressed
//!   bundles (`CCOB` v1–v3, zstd or zlib);
//! - host ELF libraries and executables: the `.hip_fatbin` section, and AMDGPU ELFs embedded
//!   raw in data sections (ROCr's blit kernels);
//! - Windows PE DLLs: the `.hip_fat` section and raw ELFs in data sections;
//! - MIOpen kernel databases (`*.kdb`, `*.ukdb`: SQLite, bzip2 code objects; see [`kdb`]);
//! - AOTriton kernel images (`*.aks2`: a directory and code objects in one xz stream; see
//!   [`aks2`]);
//! - archives read in place, never unpacked to disk: `.deb` (ar + `data.tar.{xz,zst,gz,bz2}`),
//!   `.whl`/`.zip`, `.tar`, `.tar.{gz,xz,zst,bz2}`. A member is read as the file it would be
//!   once unpacked, at the same offsets. Members too large to buffer are scanned as a stream
//!   (see [`stream`]), so memory stays bounded by the largest single code object; those that
//!   cannot be streamed (a lone code object, a nested zip) are read whole within the memory
//!   budget or refused by name;
//! - kpack archives (`.kpack`, see [`kpack`]) and host binaries packed for them: their
//!   `.rocm_kpack_ref` marker is resolved to the archives the loader would read ([`kpack_ref`]).
//!
//! Every find is reported to a [`Sink`] as a [`Found`] with an [`Origin`]: the file and the
//! chain of containers down to the item. Problems are reported as [`Found::Error`] for that
//! item and the scan goes on. Files are memory-mapped and only the bytes that structure
//! parsing needs are touched.

pub mod aks2;
pub mod archive;
pub mod bundle;
pub mod hash;
pub mod host;
pub mod kdb;
pub mod kpack;
pub mod kpack_ref;
pub mod names;
pub mod stream;

use std::fmt;
use std::path::{Path, PathBuf};

pub use hash::{HashCache, HashSource, Hashing, ObjectHash};
pub use names::NamedKind;
pub use rocpath_budget::{
    MemoryBudget, OverBudget, Reservation, SizeError, format_size, parse_limit, parse_size,
};
pub use rocpath_miopen_names::{DbKind, DbName};

/// Limits that keep time and memory bounded on hostile input. All sizes in bytes.
///
/// The per-item limits bound one item; [`Limits::memory`] bounds all of them together: every
/// decompressed payload, buffered archive member and streamed object is reserved from it
/// before it is allocated, and an item that does not fit is reported as
/// [`SourceError::Budget`] while the scan goes on.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Most entries accepted in one offload bundle.
    pub max_bundle_entries: u64,
    /// Longest bundle entry id accepted.
    pub max_bundle_id_len: u64,
    /// Largest decompressed CCOB payload accepted, and largest archive member read whole when
    /// it cannot be streamed (a zip, a Tensile library, a kernel database inside an archive).
    pub max_decompressed: u64,
    /// Archive members up to this size are read into memory and parsed like files; larger
    /// ones are scanned as a stream when their content allows it, else read whole.
    pub max_member_buffer: u64,
    /// Bytes a streamed member is read at a time: the least its window holds (at least
    /// 4 KiB). Objects larger than it are read whole across its edge.
    pub stream_chunk: u64,
    /// Most uncompressed bytes read from one archive (zip-bomb guard).
    pub max_archive_bytes: u64,
    /// Deepest container nesting followed.
    pub max_depth: u32,
    /// Largest code object accepted from a stream scan.
    pub max_streamed_object: u64,
    /// The run's memory budget, shared by every item scanned in parallel (clones share it).
    pub memory: MemoryBudget,
    /// Whether code objects are hashed (sha256), and whether through the hash cache.
    pub hashing: Hashing,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bundle_entries: 1 << 16,
            max_bundle_id_len: 4096,
            max_decompressed: 4 << 30,
            max_member_buffer: 32 << 20,
            stream_chunk: 4 << 20,
            max_archive_bytes: 256 << 30,
            max_depth: 6,
            max_streamed_object: 2 << 30,
            memory: MemoryBudget::default(),
            hashing: Hashing::default(),
        }
    }
}

/// A problem with one item. Offsets are relative to the innermost container named by the
/// [`Origin`] the error is reported with.
///
/// The message (`Display`) does not repeat the location: the offset is [`SourceError::offset`]
/// and the file and container chain are the [`Origin`]; renderers print each once
/// (`error: FILE [CHAIN] at offset N: MESSAGE`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Reading failed.
    #[error("I/O error: {0}")]
    Io(String),
    /// The bytes do not follow the format.
    #[error("{msg}")]
    Format {
        /// Offset.
        offset: u64,
        /// What is wrong.
        msg: String,
    },
    /// The data ends early.
    #[error("truncated {what}")]
    Truncated {
        /// Offset.
        offset: u64,
        /// What is missing.
        what: String,
    },
    /// A declared size is over a [`Limits`] value.
    #[error("{msg}")]
    Limit {
        /// Offset.
        offset: u64,
        /// What is over the limit.
        msg: String,
    },
    /// The item does not fit in the run's memory budget ([`Limits::memory`]).
    #[error("{what} {source}")]
    Budget {
        /// Offset of the item.
        offset: u64,
        /// The item (`CCOB payload`, `archive member`, ...).
        what: String,
        /// The refusal.
        source: OverBudget,
    },
    /// A path given as input is neither a file nor a folder (a FIFO, a device).
    #[error(
        "not a regular file or folder ({0}); rocpath reads files and folders only — copy the data to a file first"
    )]
    NotAFile(&'static str),
    /// A code object that could not be parsed.
    #[error("code object: {0}")]
    CodeObject(#[from] rocpath_codeobj::Error),
}

impl SourceError {
    /// The same error with its offset moved by `by` (an error of an inner item, placed in the
    /// file that holds it).
    pub(crate) fn shifted(self, by: u64) -> SourceError {
        match self {
            SourceError::Format { offset, msg } => SourceError::Format {
                offset: offset + by,
                msg,
            },
            SourceError::Truncated { offset, what } => SourceError::Truncated {
                offset: offset + by,
                what,
            },
            SourceError::Limit { offset, msg } => SourceError::Limit {
                offset: offset + by,
                msg,
            },
            SourceError::Budget {
                offset,
                what,
                source,
            } => SourceError::Budget {
                offset: offset + by,
                what,
                source,
            },
            other => other,
        }
    }
}

impl SourceError {
    /// The offset the error concerns, when it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            SourceError::Format { offset, .. }
            | SourceError::Truncated { offset, .. }
            | SourceError::Limit { offset, .. }
            | SourceError::Budget { offset, .. } => Some(*offset),
            SourceError::CodeObject(e) => e.offset(),
            SourceError::Io(_) | SourceError::NotAFile(_) => None,
        }
    }

    /// The refusal of [`SourceError::Budget`] for `what` at `offset`.
    pub(crate) fn budget(offset: u64, what: impl Into<String>, source: OverBudget) -> Self {
        SourceError::Budget {
            offset,
            what: what.into(),
            source,
        }
    }
}

impl From<std::io::Error> for SourceError {
    fn from(e: std::io::Error) -> Self {
        SourceError::Io(e.to_string())
    }
}

/// Where an item is: the input file, then the containers inside it, outermost first.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// The file as found on disk.
    pub path: String,
    /// Container links, e.g. `["deb:data.tar.xz:./usr/lib/librocsparse.so.0", "hip_fatbin",
    /// "bundle#3@0x1000", "hipv4-amdgcn-amd-amdhsa--gfx900"]`.
    pub chain: Vec<String>,
}

impl Origin {
    /// The origin of a whole file.
    pub fn file(path: impl Into<String>) -> Self {
        Origin {
            path: path.into(),
            chain: Vec::new(),
        }
    }
    /// This origin with one more link.
    pub fn child(&self, link: impl Into<String>) -> Self {
        let mut o = self.clone();
        o.chain.push(link.into());
        o
    }
    /// The chain joined with ` > `.
    pub fn member(&self) -> String {
        self.chain.join(" > ")
    }
    /// The library an item belongs to in coverage tables: the file, or for an archive
    /// member `<archive path>:<member path>` (innermost member).
    pub fn library(&self) -> String {
        for link in self.chain.iter().rev() {
            for prefix in ["deb:", "tar:", "zip:", "ar:", "kpack:"] {
                if let Some(rest) = link.strip_prefix(prefix) {
                    let m = rest.rsplit_once(':').map(|x| x.1).unwrap_or(rest);
                    return format!("{}:{}", self.path, m.trim_start_matches("./"));
                }
            }
        }
        self.path.clone()
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        for c in &self.chain {
            write!(f, " > {c}")?;
        }
        Ok(())
    }
}

/// Something found by a scan.
pub enum Found<'a> {
    /// An AMDGPU code object.
    CodeObject {
        /// Where it is (the chain ends with the bundle entry id when it came from a bundle).
        origin: &'a Origin,
        /// Offset of its first byte in the innermost addressable container: the file (or
        /// archive member) for plain and bundled objects, the decompressed payload for CCOB.
        offset: u64,
        /// Its bytes.
        bytes: &'a [u8],
        /// The offload bundle entry id, when it came from a bundle.
        bundle_id: Option<&'a str>,
        /// Other entries of the same bundle that point at these bytes (read once, here).
        shared_by: Option<&'a bundle::SharedBy>,
        /// sha256 of `bytes` and how it was obtained, under [`Limits::hashing`] (computed
        /// here, reading the bytes once in chunks whose pages are released as they are
        /// hashed, or taken from the hash cache; absent when hashing is off).
        sha256: &'a ObjectHash,
        /// Call with sub-slices of `bytes` already processed, to drop their pages from memory
        /// (a no-op unless the bytes are memory-mapped).
        release: &'a (dyn Fn(&[u8]) + Sync),
    },
    /// A Tensile library index or solution file (`TensileLibrary*.dat`/`.yaml`).
    Tensile {
        /// Where it is.
        origin: &'a Origin,
        /// File name.
        name: &'a str,
        /// Its bytes.
        bytes: &'a [u8],
        /// Call with sub-slices of `bytes` already parsed, to drop their pages from memory
        /// (a no-op unless the bytes are memory-mapped).
        release: &'a (dyn Fn(&[u8]) + Sync),
    },
    /// A file recognised by its name only (MIOpen databases).
    Named {
        /// Where it is.
        origin: &'a Origin,
        /// File name.
        name: &'a str,
        /// What the name says.
        kind: NamedKind,
        /// Size in bytes.
        size: u64,
    },
    /// A host binary packed for kpack: its marker and the archives it resolves to (their
    /// code objects were reported before, as [`Found::CodeObject`]).
    KpackRef {
        /// The host binary.
        origin: &'a Origin,
        /// The marker and every candidate archive.
        reference: &'a kpack_ref::KpackRef,
    },
    /// A problem with one item; the scan goes on.
    Error {
        /// Where it is.
        origin: &'a Origin,
        /// The problem.
        error: SourceError,
    },
}

/// Receives finds. Implementations must be thread-safe: files, and bundles inside a file,
/// are scanned in parallel.
pub trait Sink: Sync {
    /// One find.
    fn found(&self, f: Found<'_>);
    /// `bytes` more input bytes were processed (for progress bars).
    fn progress(&self, _bytes: u64) {}
}

/// Scan context passed down the container recursion.
pub(crate) struct Ctx<'s> {
    pub limits: &'s Limits,
    pub sink: &'s dyn Sink,
    /// The memory map of the file being scanned, if any: pages of handled code objects are
    /// handed back to the kernel so a multi-gigabyte library does not stay resident.
    pub map: Option<&'s rocpath_budget::map::Map>,
    /// Identity of the file being scanned (device, inode, size, mtime) and its bytes, for
    /// the hash cache.
    pub file: Option<(hash::FileKey, &'s [u8])>,
    /// kpack entries read through host binaries (see [`kpack_ref::Claims`]).
    pub claims: Option<&'s kpack_ref::Claims>,
}

impl Ctx<'_> {
    /// sha256 of `bytes` under [`Limits::hashing`]: not at all, computed (in chunks, each
    /// chunk's pages released afterwards when they belong to the file's memory map), or from
    /// the hash cache when `bytes` are the file's own bytes.
    pub(crate) fn digest(&self, bytes: &[u8]) -> ObjectHash {
        let at = self.file.and_then(|(k, own)| hash::key_in(k, own, bytes));
        hash::object_hash(&self.limits.hashing, bytes, at, |c| self.release(c))
    }

    /// Drops the resident pages under `bytes` when they belong to the file's memory map.
    /// The mapping is read-only and file-backed: a later read of the same bytes faults them
    /// in again from the page cache, so nothing is lost.
    pub(crate) fn release(&self, bytes: &[u8]) {
        let Some(map) = self.map else { return };
        let base = map.as_ptr() as usize;
        let start = bytes.as_ptr() as usize;
        if start < base || start + bytes.len() > base + map.len() {
            return;
        }
        const PAGE: usize = 4096;
        let off = (start - base).div_ceil(PAGE) * PAGE;
        let end = ((start - base + bytes.len()) / PAGE) * PAGE;
        if end > off {
            map.release(off, end - off);
        }
    }
}

/// A file to scan, found by [`discover`].
#[derive(Debug, Clone)]
pub struct InputFile {
    /// Path on disk.
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
}

/// Walks the given paths (files or directories, recursively, following no symlinked
/// directories) and lists regular files, sorted by path. Unreadable entries are returned
/// as errors, and so is a path given by name that is neither a file nor a folder (a FIFO
/// would block the open and a device such as `/dev/zero` never ends); inside folders such
/// entries are skipped, as every reader of rocpath does.
pub fn discover(paths: &[PathBuf]) -> (Vec<InputFile>, Vec<(String, SourceError)>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        for entry in walkdir::WalkDir::new(p)
            .follow_links(false)
            .sort_by_file_name()
        {
            match entry {
                Ok(e) => {
                    let ft = e.file_type();
                    let is_file =
                        ft.is_file() || (ft.is_symlink() && e.path().is_file() && e.depth() == 0);
                    if e.depth() == 0 && !is_file && !e.path().is_dir() {
                        errors.push((
                            e.path().display().to_string(),
                            SourceError::NotAFile(special_kind(e.path())),
                        ));
                        continue;
                    }
                    if is_file {
                        match e.metadata() {
                            Ok(m) => files.push(InputFile {
                                path: e.into_path(),
                                size: m.len(),
                            }),
                            Err(err) => errors.push((
                                e.path().display().to_string(),
                                SourceError::Io(err.to_string()),
                            )),
                        }
                    }
                }
                Err(err) => {
                    let path = err
                        .path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|| p.display().to_string());
                    errors.push((path, SourceError::Io(err.to_string())));
                }
            }
        }
    }
    (files, errors)
}

/// What a path that is neither a file nor a folder is, for messages.
fn special_kind(p: &Path) -> &'static str {
    #[cfg(unix)]
    {
        if let Ok(m) = std::fs::metadata(p) {
            if let Some(what) = rocpath_budget::non_regular(m.file_type()) {
                return what;
            }
        } else {
            return "a dangling symbolic link";
        }
    }
    "a special file"
}

/// Totals of a multi-file scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanTotals {
    /// Files read.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Files not started because the run's `--max-time` had passed (each also reported); at the
    /// end of a scan, `bytes` counts only the files started.
    pub not_started: u64,
}

/// Finds the files under `paths` and scans them on the current rayon pool, largest first
/// (so one huge library does not start last and run alone). Unreadable directory entries
/// are reported to the sink as errors. `begin` is called with the totals before scanning.
pub fn scan_paths(
    paths: &[PathBuf],
    limits: &Limits,
    sink: &dyn Sink,
    begin: impl FnOnce(&ScanTotals),
) -> ScanTotals {
    let (mut files, walk_errors) = discover(paths);
    let totals = ScanTotals {
        files: files.len() as u64,
        bytes: files.iter().map(|f| f.size).sum(),
        not_started: 0,
    };
    begin(&totals);
    for (path, error) in walk_errors {
        sink.found(Found::Error {
            origin: &Origin::file(path),
            error,
        });
    }
    files.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.path.cmp(&b.path)));
    // kpack archives last: host binaries claim the entries they read through their marker,
    // and an archive then lists only what no scanned binary read.
    let (archives, files): (Vec<InputFile>, Vec<InputFile>) = files.into_iter().partition(|f| {
        f.path
            .file_name()
            .is_some_and(|n| kpack_ref::is_kpack_name(&n.to_string_lossy()))
    });
    let claims = kpack_ref::Claims::default();
    let not_started = std::sync::atomic::AtomicU64::new(0);
    let not_started_bytes = std::sync::atomic::AtomicU64::new(0);
    use rayon::prelude::*;
    for group in [files, archives] {
        group.par_iter().for_each(|f| {
            if rocpath_budget::deadline::passed() {
                not_started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                not_started_bytes.fetch_add(f.size, std::sync::atomic::Ordering::Relaxed);
                sink.found(Found::Error {
                    origin: &Origin::file(f.path.display().to_string()),
                    error: SourceError::Limit {
                        offset: 0,
                        msg: rocpath_budget::deadline::skipped(),
                    },
                });
                sink.progress(f.size);
                return;
            }
            scan_file_with(&f.path, limits, sink, Some(&claims))
        });
    }
    ScanTotals {
        not_started: not_started.into_inner(),
        bytes: totals.bytes - not_started_bytes.into_inner().min(totals.bytes),
        ..totals
    }
}

/// Scans one file on disk.
pub fn scan_file(path: &Path, limits: &Limits, sink: &dyn Sink) {
    scan_file_with(path, limits, sink, None)
}

fn scan_file_with(
    path: &Path,
    limits: &Limits,
    sink: &dyn Sink,
    claims: Option<&kpack_ref::Claims>,
) {
    let origin = Origin::file(path.display().to_string());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Names alone decide MIOpen databases: their content is not needed for the inventory,
    // except kernel databases, whose code objects are read.
    if let Some(kind @ NamedKind::MiopenDb(_)) = names::classify(&name) {
        scan_miopen_db(path, &origin, &name, kind, limits, sink);
        return;
    }
    let opened = std::fs::File::open(path)
        .map_err(|e| format!("cannot open: {e}"))
        .and_then(|file| {
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            let held = if len < 4 {
                None
            } else {
                Some(hold(path, &file, len)?)
            };
            Ok((file, len, held))
        });
    let (file, len, held) = match opened {
        Ok((_, len, None)) => {
            sink.progress(len);
            return;
        }
        Ok((file, len, Some(held))) => (file, len, held),
        Err(msg) => {
            sink.found(Found::Error {
                origin: &origin,
                error: SourceError::Io(msg),
            });
            return;
        }
    };
    let (data, map): (&[u8], Option<&rocpath_budget::map::Map>) = match &held {
        Held::Buf(b) => (b, None),
        Held::Map(m) => (m, Some(m)),
    };
    let file_key = file.metadata().ok().and_then(|m| hash::FileKey::of(&m));
    let ctx = Ctx {
        limits,
        sink,
        map,
        file: file_key.map(|k| (k, data)),
        claims,
    };
    scan_bytes(data, &origin, &name, 0, &ctx);
    if map.is_some_and(|m| m.shrank()) {
        sink.found(Found::Error {
            origin: &origin,
            error: SourceError::Io(
                "the file shrank while it was read (another process truncated or rewrote it): \
                 what was found in it is not reliable; read it again once it is complete"
                    .into(),
            ),
        });
    }
    sink.progress(len);
}

/// A file's bytes while it is scanned: small files are read, larger ones memory-mapped.
enum Held {
    Buf(Vec<u8>),
    Map(rocpath_budget::map::Map),
}

/// Reads or maps a file of `len` bytes; the error says which failed.
fn hold(path: &Path, file: &std::fs::File, len: u64) -> Result<Held, String> {
    if len <= 64 * 1024 {
        std::fs::read(path)
            .map(Held::Buf)
            .map_err(|e| format!("cannot read: {e}"))
    } else {
        // Guarded: a file truncated while it is scanned reads as zeros past its new end and
        // is reported by the caller, instead of killing the run with SIGBUS.
        rocpath_budget::map::Map::new(file)
            .map(Held::Map)
            .map_err(|e| format!("cannot map: {e}"))
    }
}

/// A MIOpen database, known by its name; a kernel database's code objects are read.
fn scan_miopen_db(
    path: &Path,
    origin: &Origin,
    name: &str,
    kind: NamedKind,
    limits: &Limits,
    sink: &dyn Sink,
) {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    sink.found(Found::Named {
        origin,
        name,
        kind,
        size,
    });
    // An empty kernel database is an empty cache (MIOpen creates its table on the first
    // write): nothing to read.
    if kdb::is_kdb_name(name) && size > 0 {
        // Rows of the database, not the file's own bytes: hashed, never cached.
        let ctx = Ctx {
            limits,
            sink,
            map: None,
            file: None,
            claims: None,
        };
        kdb::scan_kdb_path(path, origin, 0, &ctx);
    }
    sink.progress(size);
}

/// Scans bytes already in memory (a file, an archive member) whose name is `name`.
pub fn scan_memory(data: &[u8], origin: &Origin, name: &str, limits: &Limits, sink: &dyn Sink) {
    let ctx = Ctx {
        limits,
        sink,
        map: None,
        file: None,
        claims: None,
    };
    scan_bytes(data, origin, name, 0, &ctx);
}

pub(crate) fn is_tar(data: &[u8]) -> bool {
    data.get(257..262) == Some(b"ustar")
}

/// Compression of a stream, by magic number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    Gzip,
    Xz,
    Zstd,
    Bzip2,
}

pub(crate) fn compression(data: &[u8]) -> Option<Compression> {
    if data.starts_with(&[0x1f, 0x8b]) {
        Some(Compression::Gzip)
    } else if data.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Some(Compression::Xz)
    } else if data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Compression::Zstd)
    } else if data.starts_with(b"BZh") {
        Some(Compression::Bzip2)
    } else {
        None
    }
}

pub(crate) fn looks_like_tar_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains(".tar")
        || n.ends_with(".tgz")
        || n.ends_with(".tbz2")
        || n.ends_with(".txz")
        || n.ends_with(".tzst")
}

/// Dispatches on the content (and, for a few kinds, the name) of `data`.
pub(crate) fn scan_bytes(data: &[u8], origin: &Origin, name: &str, depth: u32, ctx: &Ctx<'_>) {
    if depth > ctx.limits.max_depth {
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Limit {
                offset: 0,
                msg: format!("containers nested deeper than {}", ctx.limits.max_depth),
            },
        });
        return;
    }
    if let Some(kind) = names::classify(name) {
        match kind {
            NamedKind::TensileLibrary => {
                let release = |b: &[u8]| ctx.release(b);
                ctx.sink.found(Found::Tensile {
                    origin,
                    name,
                    bytes: data,
                    release: &release,
                });
                return;
            }
            NamedKind::MiopenDb(_) => {
                ctx.sink.found(Found::Named {
                    origin,
                    name,
                    kind,
                    size: data.len() as u64,
                });
                if kdb::is_kdb_name(name) {
                    kdb::scan_kdb_memory(data, origin, depth, ctx);
                }
                return;
            }
        }
    }
    if data.starts_with(b"\x7fELF") {
        if rocpath_codeobj::is_amdgpu_elf(data) {
            let release = |b: &[u8]| ctx.release(b);
            ctx.sink.found(Found::CodeObject {
                sha256: &ctx.digest(data),
                release: &release,
                origin,
                offset: 0,
                bytes: data,
                bundle_id: None,
                shared_by: None,
            });
        } else {
            host::scan_host_elf(data, origin, depth, ctx);
        }
    } else if data.starts_with(bundle::BUNDLE_MAGIC) || data.starts_with(bundle::CCOB_MAGIC) {
        host::scan_fatbin_region(data, 0, origin, depth, true, ctx);
    } else if data.starts_with(aks2::AKS2_MAGIC) {
        aks2::scan_aks2(data, origin, depth, ctx);
    } else if data.starts_with(kpack::KPACK_MAGIC) {
        kpack_ref::scan_archive(data, origin, ctx);
    } else if data.starts_with(b"MZ") {
        host::scan_pe(data, origin, depth, ctx);
    } else if data.starts_with(b"!<arch>\n") {
        archive::scan_ar(data, origin, name, depth, ctx);
    } else if data.starts_with(b"PK\x03\x04") || data.starts_with(b"PK\x05\x06") {
        archive::scan_zip(data, origin, depth, ctx);
    } else if is_tar(data) {
        archive::scan_tar(data, None, origin, "", depth, ctx);
    } else if let Some(c) = compression(data) {
        if looks_like_tar_name(name) {
            archive::scan_tar(data, Some(c), origin, "", depth, ctx);
        }
    }
}
