//! The code-object inventory: "what GPU code does this install ship, for which gfx targets?"
//!
//! [`scan`] walks files and directories in parallel (via `rocpath-sources`), reads every code
//! object it finds (via `rocpath-codeobj`), every Tensile library (via `rocpath-tensile`) and
//! every MIOpen database name, and returns an [`Inventory`]: typed observations, each with its
//! evidence (presence of shipped code is `confirmed` / `shipped_artifact_verified`), plus the
//! per-target totals and the coverage matrix that the renderers print.
//!
//! [`check`] decides, per library, whether a device can load any of its code objects;
//! [`diff`] compares two inventories.

pub mod check;
pub use check::{catalog, miopen_cache};
pub mod device;
pub mod diff;
pub mod kpack;
pub mod python;

use rocpath_arch::TargetId;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
pub use rocpath_sources::HashSource;
use rocpath_sources::bundle::SharedBy;
use rocpath_sources::{Found, Hashing, Limits, NamedKind, ObjectHash, Origin, Sink};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// Evidence rule ids assigned by the inventory.
pub mod rules {
    /// A code object was read from a shipped file.
    pub const CODEOBJ_PRESENT: &str = "inventory.codeobj_present";
    /// A Tensile library file was read.
    pub const TENSILE_PRESENT: &str = "inventory.tensile_library_present";
    /// A MIOpen database was recognised by its file name.
    pub const MIOPEN_DB_NAME: &str = "inventory.miopen_db_by_name";
    /// An item could not be read.
    pub const UNREADABLE: &str = "inventory.unreadable";
    /// A host binary packed for kpack: its marker was read.
    pub const KPACK_REF: &str = "inventory.kpack_ref";
    /// A referenced kpack archive is absent, empty, not a file, or matches no file.
    pub const KPACK_ARCHIVE_MISSING: &str = "inventory.kpack_archive_missing";
    /// A referenced kpack archive has no entry for the binary.
    pub const KPACK_NO_ENTRIES: &str = "inventory.kpack_no_entries";
    /// Fat-binary wrappers still `HIPF` while `.hip_fatbin` was emptied.
    pub const KPACK_STALE_WRAPPERS: &str = "inventory.kpack_stale_wrappers";
}

/// Options of a scan.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Container limits.
    pub limits: Limits,
    /// Keep only code objects whose processor is this one (`gfx900`), or whose target id
    /// matches it exactly when it carries features (`gfx90a:xnack+`).
    pub target: Option<TargetId>,
    /// Leave the per-kernel metadata out of the records (counts are kept).
    pub no_kernels: bool,
    /// Record the per-problem catalogs of lazily loaded libraries by name only (their
    /// processor from the name; neither parsed nor hashed): the index a library reads first
    /// decides whether a processor has kernels, and the per-problem files are most of the
    /// bytes (`survey`).
    pub index_only: bool,
}

/// Receives progress from a scan (implemented by the CLI with a progress bar).
pub trait Progress: Sync {
    /// The scan will read `files` files of `bytes` bytes in all.
    fn begin(&self, _files: u64, _bytes: u64) {}
    /// `bytes` more bytes were processed.
    fn advance(&self, _bytes: u64) {}
}

/// A progress receiver that ignores everything.
pub struct NoProgress;
impl Progress for NoProgress {}

pub use rocpath_docs::inventory::{
    Cell, CodeObjectRecord, HashingMode, HashingSummary, Inventory, KpackArchiveRecord,
    KpackRefRecord, MiopenDbRecord, Stats, TargetTotals, TensileKind, TensileRecord,
};

/// An item that could not be read: one `errors[]` item of the documents layer, with its
/// container, library, offset and `limited` evidence.
pub use rocpath_docs::ErrorItem;

/// The mode of a hashing policy (`HashingSummary::mode`).
pub fn hashing_mode(h: &Hashing) -> HashingMode {
    match h {
        Hashing::Off => HashingMode::Off,
        Hashing::Compute => HashingMode::Compute,
        Hashing::Cached(_) => HashingMode::Cached,
    }
}

struct Collector<'a> {
    opts: &'a Options,
    progress: &'a dyn Progress,
    objects: Mutex<Vec<CodeObjectRecord>>,
    tensile: Mutex<Vec<TensileRecord>>,
    dbs: Mutex<Vec<MiopenDbRecord>>,
    errors: Mutex<Vec<ErrorItem>>,
    kpack_refs: Mutex<Vec<KpackRefRecord>>,
}

fn push<T>(m: &Mutex<Vec<T>>, v: T) {
    match m.lock() {
        Ok(mut g) => g.push(v),
        Err(p) => p.into_inner().push(v),
    }
}

fn take<T>(m: Mutex<Vec<T>>) -> Vec<T> {
    m.into_inner().unwrap_or_else(|p| p.into_inner())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn family_name(f: rocpath_arch::Family) -> &'static str {
    use rocpath_arch::Family::*;
    match f {
        Gcn1 => "GCN1",
        Gcn2 => "GCN2",
        Gcn3 => "GCN3",
        Gcn4 => "GCN4",
        Gcn5 => "GCN5",
        Cdna1 => "CDNA1",
        Cdna2 => "CDNA2",
        Cdna3 => "CDNA3",
        Cdna4 => "CDNA4",
        Rdna1 => "RDNA1",
        Rdna2 => "RDNA2",
        Rdna3 => "RDNA3",
        Rdna3_5 => "RDNA3.5",
        Rdna4 => "RDNA4",
        Gfx12_5 => "GFX12.5",
        Generic => "generic",
    }
}

/// Display name of a target family.
pub fn family_of(processor: &str) -> Option<&'static str> {
    rocpath_arch::target(processor).map(|t| family_name(t.family))
}

impl Collector<'_> {
    fn error(&self, origin: &Origin, offset: Option<u64>, message: String) {
        let loc = Locator::in_container(&origin.path, origin.member(), offset);
        let evidence = Evidence::new(
            Class::Limited,
            Proof::ShippedArtifactVerified,
            rules::UNREADABLE,
        )
        .at(loc);
        push(
            &self.errors,
            ErrorItem::at(origin.path.clone(), message)
                .inside(origin.member(), offset)
                .library(origin.library())
                .evidence(evidence),
        );
    }

    fn code_object(&self, found: Object<'_>) {
        let Object {
            origin,
            offset,
            bytes,
            bundle_id,
            shared_by,
            sha,
        } = found;
        let co = match rocpath_codeobj::parse(bytes) {
            Ok(co) => co,
            Err(e) => {
                let off = offset + e.offset().unwrap_or(0);
                self.error(origin, Some(off), format!("code object: {e}"));
                return;
            }
        };
        if let Some(f) = &self.opts.target {
            if !co.target_id.matches(f) {
                return;
            }
        }
        let container = origin.member();
        let mut at = Locator::file(&origin.path)
            .with_member(container.clone())
            .with_offset(offset);
        if let Some(h) = sha.as_str() {
            at = at.with_sha256(h);
        }
        let mut evidence = Evidence::new(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            rules::CODEOBJ_PRESENT,
        )
        .at(at);
        if let Some(s) = shared_by {
            evidence = evidence.because(s.note("read"));
        }
        let kernel_count = co.kernels.len();
        let rec = CodeObjectRecord {
            path: origin.path.clone(),
            library: origin.library(),
            container,
            offset,
            size: bytes.len() as u64,
            sha256: sha.sha256.clone(),
            sha256_source: sha.source,
            family: family_of(&co.target_id.processor).map(str::to_string),
            target: co.target_id,
            code_object_version: co.version,
            generic_version: (co.generic_version > 0).then_some(co.generic_version),
            e_flags: format!("0x{:x}", co.e_flags),
            bundle_id: bundle_id.map(str::to_string),
            shared_by: shared_by.cloned(),
            metadata_target: co.metadata.target,
            metadata_version: co.metadata.version,
            metadata_notes: co.metadata.notes,
            kernel_count,
            kernels: if self.opts.no_kernels {
                Vec::new()
            } else {
                co.kernels
            },
            text_bytes: co.text_bytes,
            warnings: co.warnings,
            evidence,
        };
        push(&self.objects, rec);
    }

    fn tensile(&self, origin: &Origin, name: &str, bytes: &[u8], release: &(dyn Fn(&[u8]) + Sync)) {
        let by_name = self.opts.index_only && rocpath_sources::names::per_problem_catalog(name);
        let summary = if by_name {
            Ok(rocpath_tensile::LibrarySummary::default())
        } else {
            rocpath_tensile::summarize_with(name, bytes, Some(release), &self.opts.limits.memory)
        };
        let summary = match summary {
            Ok(s) => s,
            Err(e) => {
                self.error(origin, None, format!("Tensile library: {e}"));
                return;
            }
        };
        let processor = rocpath_arch::TargetId::from_file_name(name)
            .map(|t| t.processor)
            .filter(|p| rocpath_arch::target(p).is_some());
        if let (Some(f), Some(p)) = (&self.opts.target, &processor) {
            if f.processor != *p {
                return;
            }
        }
        let kind = if summary.is_lazy_index() {
            TensileKind::LazyIndex
        } else if name.contains("_fallback") && processor.is_none() {
            TensileKind::Fallback
        } else {
            TensileKind::Solutions
        };
        let container = origin.member();
        let mut at = Locator::file(&origin.path).with_member(container.clone());
        if !by_name && !matches!(self.opts.limits.hashing, Hashing::Off) {
            at = at.with_sha256(hex(&Sha256::digest(bytes)));
        }
        let evidence = Evidence::new(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            rules::TENSILE_PRESENT,
        )
        .at(at);
        let library_dir = library_dir(origin);
        push(
            &self.tensile,
            TensileRecord {
                path: origin.path.clone(),
                container,
                library_dir,
                name: name.to_string(),
                kind,
                processor,
                processors: summary.processors.into_iter().collect(),
                solutions: summary.solutions,
                problem_types: summary.problem_types,
                placeholders: summary.placeholders.len(),
                missing_placeholders: summary.placeholders,
                format_version: summary.format_version,
                loader_rejects: summary.loader_rejects,
                evidence,
            },
        );
    }

    fn named(&self, origin: &Origin, name: &str, kind: NamedKind, size: u64) {
        let NamedKind::MiopenDb(db) = kind else {
            return;
        };
        if let Some(f) = &self.opts.target {
            if f.processor != db.processor {
                return;
            }
        }
        let container = origin.member();
        let evidence = Evidence::new(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            rules::MIOPEN_DB_NAME,
        )
        .at(Locator::file(&origin.path).with_member(container.clone()));
        push(
            &self.dbs,
            MiopenDbRecord {
                path: origin.path.clone(),
                container,
                name: name.to_string(),
                processor: db.processor,
                cus: db.cus,
                kind: db.kind,
                backend: db.backend,
                size,
                evidence,
            },
        );
    }
}

/// A code object as the sources layer hands it over.
struct Object<'a> {
    origin: &'a Origin,
    offset: u64,
    bytes: &'a [u8],
    bundle_id: Option<&'a str>,
    shared_by: Option<&'a SharedBy>,
    sha: &'a ObjectHash,
}

/// The folder a Tensile file sits in: its parent directory on disk, or inside an archive.
fn library_dir(origin: &Origin) -> String {
    let inner = origin
        .chain
        .last()
        .cloned()
        .unwrap_or_else(|| origin.path.clone());
    let inner = inner
        .rsplit_once(':')
        .map(|x| x.1.to_string())
        .unwrap_or(inner);
    let dir = inner
        .rsplit_once('/')
        .map(|x| x.0.to_string())
        .unwrap_or_default();
    if origin.chain.is_empty() {
        dir
    } else {
        format!("{}:{}", origin.path, dir)
    }
}

impl Sink for Collector<'_> {
    fn found(&self, f: Found<'_>) {
        match f {
            Found::CodeObject {
                origin,
                offset,
                bytes,
                bundle_id,
                shared_by,
                sha256,
                ..
            } => self.code_object(Object {
                origin,
                offset,
                bytes,
                bundle_id,
                shared_by,
                sha: sha256,
            }),
            Found::Tensile {
                origin,
                name,
                bytes,
                release,
            } => self.tensile(origin, name, bytes, release),
            Found::Named {
                origin,
                name,
                kind,
                size,
            } => self.named(origin, name, kind, size),
            Found::KpackRef { origin, reference } => {
                push(&self.kpack_refs, kpack::record(origin, reference))
            }
            Found::Error { origin, error } => {
                let off = error.offset();
                self.error(origin, off, error.to_string())
            }
        }
    }
    fn progress(&self, bytes: u64) {
        self.progress.advance(bytes);
    }
}

/// Scans files and directories. Runs on the current rayon thread pool.
pub fn scan(paths: &[PathBuf], opts: &Options, progress: &dyn Progress) -> Inventory {
    let c = Collector {
        opts,
        progress,
        objects: Mutex::new(Vec::new()),
        tensile: Mutex::new(Vec::new()),
        dbs: Mutex::new(Vec::new()),
        errors: Mutex::new(Vec::new()),
        kpack_refs: Mutex::new(Vec::new()),
    };
    let totals = rocpath_sources::scan_paths(paths, &opts.limits, &c, |t| {
        progress.begin(t.files, t.bytes)
    });
    let mut inv = Inventory {
        code_objects: take(c.objects),
        tensile: take(c.tensile),
        miopen_dbs: take(c.dbs),
        errors: take(c.errors),
        kpack_refs: take(c.kpack_refs),
        stats: Stats {
            files: totals.files,
            bytes: totals.bytes,
            not_started: totals.not_started,
        },
        roots: paths.iter().map(|p| p.display().to_string()).collect(),
        ..Inventory::default()
    };
    inv.hashing.mode = hashing_mode(&opts.limits.hashing);
    finish(&mut inv);
    catalog::judge_loaders(&mut inv.tensile);
    python::attach_python(&mut inv, paths);
    inv
}

/// Sorts an inventory's records and computes totals, coverage and missing placeholders.
pub fn finish(inv: &mut Inventory) {
    {
        inv.code_objects.sort_by(|a, b| {
            (&a.path, &a.container, a.offset).cmp(&(&b.path, &b.container, b.offset))
        });
        inv.tensile.sort_by(|a, b| {
            (&a.library_dir, &a.name, &a.path).cmp(&(&b.library_dir, &b.name, &b.path))
        });
        inv.miopen_dbs
            .sort_by(|a, b| (&a.path, &a.container).cmp(&(&b.path, &b.container)));
        inv.kpack_refs
            .sort_by(|a, b| (&a.path, &a.container).cmp(&(&b.path, &b.container)));
        inv.errors.sort_by(|a, b| {
            (&a.path, &a.container, a.offset, &a.message).cmp(&(
                &b.path,
                &b.container,
                b.offset,
                &b.message,
            ))
        });
        inv.targets.clear();
        inv.coverage.clear();
        let h = &mut inv.hashing;
        (h.computed, h.cached, h.not_hashed) = (0, 0, 0);
        for co in &inv.code_objects {
            match co.sha256_source {
                HashSource::Computed => h.computed += 1,
                HashSource::Cached => h.cached += 1,
                HashSource::NotHashed => h.not_hashed += 1,
            }
        }
        let mut libs_per_target: BTreeMap<&TargetId, std::collections::BTreeSet<&str>> =
            BTreeMap::new();
        for co in &inv.code_objects {
            let t = inv.targets.entry(co.target.clone()).or_default();
            t.code_objects += 1;
            t.kernels += co.kernel_count as u64;
            t.bytes += co.size;
            libs_per_target
                .entry(&co.target)
                .or_default()
                .insert(&co.library);
            let cell = inv
                .coverage
                .entry(co.library.clone())
                .or_default()
                .entry(co.target.clone())
                .or_default();
            cell.code_objects += 1;
            cell.kernels += co.kernel_count as u64;
            cell.bytes += co.size;
        }
        for (t, libs) in libs_per_target {
            if let Some(tt) = inv.targets.get_mut(t) {
                tt.libraries = libs.len() as u64;
            }
        }
        // Placeholders of lazy indexes that name no scanned file in the same folder.
        let present: std::collections::BTreeSet<(String, String)> = inv
            .tensile
            .iter()
            .map(|t| {
                (
                    t.library_dir.clone(),
                    t.name
                        .trim_end_matches(".zlib")
                        .trim_end_matches(".dat")
                        .trim_end_matches(".yaml")
                        .to_string(),
                )
            })
            .collect();
        for t in &mut inv.tensile {
            if t.kind != TensileKind::LazyIndex {
                t.missing_placeholders.clear();
                continue;
            }
            let dir = t.library_dir.clone();
            t.missing_placeholders
                .retain(|p| !present.contains(&(dir.clone(), p.clone())));
        }
    }
}
