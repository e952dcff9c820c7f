//! Host binaries packed for kpack: `.hip_fatbin` emptied (NOBITS), the fat-binary wrapper's
//! magic `HIPK` instead of `HIPF`, and a `.rocm_kpack_ref` section (`.kpackrf` in PE) holding
//! MessagePack `{kpack_search_paths: [..], kernel_name: ".."}`.
//!
//! The archives are resolved the way the reference loader does: each search path relative to
//! the binary's folder (absolute ones as given), `@GFXARCH@` replaced by each architecture that
//! has an archive next to the pattern (feature-split names such as `…_gfx90a:xnack-.kpack`
//! included), and the table-of-contents entries whose key is the marker's `kernel_name`
//! (optionally with `#N`, the code-object index) read from every archive found. Missing and
//! empty archives are part of the result, not errors: the loader skips them and fails with
//! ARCHIVE_NOT_FOUND, which HIP reports as an invalid device image.

use crate::kpack::{self, Toc};
use crate::{Ctx, Found, Origin, SourceError};
use rocpath_mpack::Reader;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// Section names of the kpack marker (ELF, PE).
pub const REF_SECTIONS: [&str; 2] = [".rocm_kpack_ref", ".kpackrf"];
/// Section names of the fat-binary wrappers (ELF, PE).
pub const WRAPPER_SECTIONS: [&str; 2] = [".hipFatBinSegment", ".hipFatB"];
/// Wrapper magic of an ordinary fat binary (`HIPF` as a little-endian u32).
pub const HIPF: u32 = 0x4849_5046;
/// Wrapper magic of a kpack'd fat binary.
pub const HIPK: u32 = 0x4B50_4948;
/// Largest marker read (the loader's cap).
pub const MAX_MARKER: usize = 64 << 10;
/// Most search paths followed per binary.
pub const MAX_SEARCH_PATHS: usize = 64;
/// Most folder entries looked at to expand one `@GFXARCH@` pattern.
pub const MAX_DIR_ENTRIES: usize = 4096;
/// The architecture placeholder.
pub const GFXARCH: &str = "@GFXARCH@";

/// The marker of `.rocm_kpack_ref`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// The binary's key in the archives' tables of contents.
    pub kernel_name: String,
    /// Archive paths, relative to the binary's folder unless absolute.
    pub search_paths: Vec<String>,
}

/// Reads the marker as the loader does: a map with a string `kernel_name` and an array
/// `kpack_search_paths` of at least one string (other items skipped).
pub fn parse_marker(bytes: &[u8]) -> Result<Marker, SourceError> {
    let bad = |offset: u64, msg: String| SourceError::Format { offset, msg };
    if bytes.len() > MAX_MARKER {
        return Err(SourceError::Limit {
            offset: 0,
            msg: format!(
                "kpack marker of {} bytes, more than the loader's {MAX_MARKER}",
                bytes.len()
            ),
        });
    }
    let mut rd = Reader::new(bytes);
    let mut kernel_name = None;
    let mut search_paths = Vec::new();
    rd.for_each_entry(|k, rd| {
        match k {
            "kernel_name" => kernel_name = rd.str_or_skip()?.map(str::to_string),
            "kpack_search_paths" => {
                let n = rd.array_len()?;
                for _ in 0..n {
                    if let Some(s) = rd.str_or_skip()? {
                        if search_paths.len() < MAX_SEARCH_PATHS {
                            search_paths.push(s.to_string());
                        }
                    }
                }
            }
            _ => rd.skip()?,
        }
        Ok(())
    })
    .map_err(|e| bad(0, format!("kpack marker: {e}")))?;
    let Some(kernel_name) = kernel_name else {
        return Err(bad(0, "kpack marker without kernel_name".into()));
    };
    if search_paths.is_empty() {
        return Err(bad(0, "kpack marker without kpack_search_paths".into()));
    }
    Ok(Marker {
        kernel_name,
        search_paths,
    })
}

pub use rocpath_docs::object::{ArchiveRef, ArchiveStatus, MissingIndices, Wrappers};

/// Counts the wrapper records of a `.hipFatBinSegment` section.
pub fn count_wrappers(seg: &[u8]) -> Wrappers {
    let mut w = Wrappers::default();
    for rec in seg.chunks_exact(24) {
        w.total += 1;
        match rec
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
        {
            Some(HIPK) => w.hipk += 1,
            Some(HIPF) => w.hipf += 1,
            _ => {}
        }
    }
    w
}

/// A host binary's kpack reference and what it resolves to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KpackRef {
    /// The binary's key in the archives.
    pub kernel_name: String,
    /// The marker's search paths.
    pub search_paths: Vec<String>,
    /// Wrapper records by magic.
    pub wrappers: Wrappers,
    /// `.hip_fatbin` holds no bytes in the file (SHT_NOBITS): only the archives have code.
    pub fatbin_emptied: bool,
    /// Whether the archives could be looked for (not for a binary inside an archive file).
    pub resolved: bool,
    /// Every candidate archive, in the loader's order.
    pub archives: Vec<ArchiveRef>,
    /// Per architecture found in the archives, the wrapper indices (`#N`) no archive holds an
    /// object for, when the binary has several `HIPK` wrappers: those wrappers have no code
    /// for that architecture.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_indices: Vec<MissingIndices>,
}

/// Indices of `HIPK` wrappers that no entry covers, per architecture present in `seen`.
fn missing_indices(hipk: u32, seen: &BTreeMap<String, BTreeSet<u32>>) -> Vec<MissingIndices> {
    if hipk < 2 {
        return Vec::new();
    }
    seen.iter()
        .filter_map(|(arch, have)| {
            let indices: Vec<u32> = (0..hipk).filter(|i| !have.contains(i)).collect();
            (!indices.is_empty()).then(|| MissingIndices {
                arch: arch.clone(),
                indices,
            })
        })
        .collect()
}

impl KpackRef {
    /// Wrappers still marked `HIPF` while `.hip_fatbin` holds no bytes: their images are zero
    /// pages at run time (a packer that moved only the first bundle of several).
    pub fn stale_wrappers(&self) -> u32 {
        if self.fatbin_emptied {
            self.wrappers.hipf
        } else {
            0
        }
    }
}

/// (archive file, binary key) pairs read through a host binary, so a scan that also meets
/// the archive itself lists only the entries no scanned binary claimed.
#[derive(Debug, Default)]
pub struct Claims(Mutex<HashSet<(PathBuf, String)>>);

impl Claims {
    fn add(&self, archive: &Path, key: &str) {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        g.insert((archive.to_path_buf(), key.to_string()));
    }
    /// Whether a binary read `key` from `archive` (a canonical path).
    pub fn has(&self, archive: &Path, key: &str) -> bool {
        let g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        g.contains(&(archive.to_path_buf(), key.to_string()))
    }
}

/// Folds `.` and `..` without touching the disk (for display).
fn fold(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// A candidate archive: (search path, file, `@GFXARCH@` value).
struct Candidate {
    search_path: String,
    path: PathBuf,
    arch: Option<String>,
    unmatched: Option<String>,
}

/// The archives `marker` names for a binary in folder `dir`, in the loader's order.
fn candidates(dir: &Path, marker: &Marker) -> Vec<Candidate> {
    let mut out = Vec::new();
    for sp in &marker.search_paths {
        let Some((pre, post)) = sp.split_once(GFXARCH) else {
            out.push(Candidate {
                search_path: sp.clone(),
                path: dir.join(sp),
                arch: None,
                unmatched: None,
            });
            continue;
        };
        let pattern = dir.join(sp);
        let (folder, prefix) = match pre.rsplit_once('/') {
            Some((f, p)) => (dir.join(if f.is_empty() { "/" } else { f }), p),
            None => (dir.to_path_buf(), pre),
        };
        let found = if post.contains('/') {
            Err("the placeholder is in a folder name, which is not expanded".to_string())
        } else {
            expand(&folder, prefix, post)
        };
        match found {
            Ok(v) if !v.is_empty() => {
                for (arch, path) in v {
                    out.push(Candidate {
                        search_path: sp.clone(),
                        path,
                        arch: Some(arch),
                        unmatched: None,
                    });
                }
            }
            Ok(_) => out.push(Candidate {
                search_path: sp.clone(),
                path: pattern,
                arch: None,
                unmatched: Some(format!("no file in {} matches", fold(&folder).display())),
            }),
            Err(why) => out.push(Candidate {
                search_path: sp.clone(),
                path: pattern,
                arch: None,
                unmatched: Some(why),
            }),
        }
    }
    out
}

/// Files `prefix<arch>suffix` in `folder`, sorted by architecture.
fn expand(folder: &Path, prefix: &str, suffix: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let rd = std::fs::read_dir(folder).map_err(|e| format!("{}: {e}", fold(folder).display()))?;
    let mut v = Vec::new();
    for (i, entry) in rd.enumerate() {
        if i >= MAX_DIR_ENTRIES {
            return Err(format!(
                "{} has more than {MAX_DIR_ENTRIES} entries; only the first were looked at",
                fold(folder).display()
            ));
        }
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        let arch = name
            .strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(suffix))
            .filter(|a| !a.is_empty());
        if let Some(a) = arch {
            v.push((a.to_string(), entry.path()));
        }
    }
    v.sort();
    Ok(v)
}

/// Reads a host binary's kpack marker and the archives it leads to: every code object of
/// the binary goes to the sink with the chain `kpack_ref > ARCHIVE > binary#N > ARCH`, then
/// the reference itself as [`Found::KpackRef`].
pub(crate) fn scan_host_ref(
    marker_bytes: &[u8],
    marker_at: u64,
    wrappers: Wrappers,
    fatbin_emptied: bool,
    origin: &Origin,
    ctx: &Ctx<'_>,
) {
    let marker = match parse_marker(marker_bytes) {
        Ok(m) => m,
        Err(e) => {
            ctx.sink.found(Found::Error {
                origin: &origin.child("kpack_ref"),
                error: e.shifted(marker_at),
            });
            return;
        }
    };
    let mut r = KpackRef {
        kernel_name: marker.kernel_name.clone(),
        search_paths: marker.search_paths.clone(),
        wrappers,
        fatbin_emptied,
        resolved: false,
        archives: Vec::new(),
        missing_indices: Vec::new(),
    };
    // Only a binary that is a file on disk has a folder to resolve against.
    if origin.chain.is_empty() {
        r.resolved = true;
        let mut seen = BTreeMap::new();
        let dir = Path::new(&origin.path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        for c in candidates(&dir, &marker) {
            let a = read_candidate(&c, &marker.kernel_name, origin, ctx, &mut seen);
            r.archives.push(a);
        }
        r.missing_indices = missing_indices(wrappers.hipk, &seen);
    }
    ctx.sink.found(Found::KpackRef {
        origin,
        reference: &r,
    });
}

/// Reads one candidate archive; the `#N` indices of its entries go into `seen` per arch.
fn read_candidate(
    c: &Candidate,
    key: &str,
    origin: &Origin,
    ctx: &Ctx<'_>,
    seen: &mut BTreeMap<String, BTreeSet<u32>>,
) -> ArchiveRef {
    let shown = fold(&c.path).display().to_string();
    let mut a = ArchiveRef {
        search_path: c.search_path.clone(),
        path: shown.clone(),
        arch: c.arch.clone(),
        status: ArchiveStatus::Found,
        group_name: None,
        gfx_arch_family: None,
        gfx_arches: Vec::new(),
        arches: Vec::new(),
        code_objects: 0,
        message: None,
    };
    let (map, toc) = match open_archive(c) {
        Ok(x) => x,
        Err((status, why)) => {
            a.status = status;
            a.message = Some(why);
            return a;
        }
    };
    a.group_name = toc.group_name.clone();
    a.gfx_arch_family = toc.gfx_arch_family.clone();
    a.gfx_arches = toc.gfx_arches.clone();
    let mine: Vec<&kpack::TocEntry> = toc
        .entries
        .iter()
        .filter(|e| e.binary == key || kpack::split_index(&e.binary).0 == key)
        .collect();
    if mine.is_empty() {
        let mut others: Vec<&str> = toc.entries.iter().map(|e| e.binary.as_str()).collect();
        others.dedup();
        others.truncate(3);
        let held = if others.is_empty() {
            "nothing".to_string()
        } else {
            others.join(", ")
        };
        a.status = ArchiveStatus::NoEntries;
        a.message = Some(format!("no entry for {key} (the archive holds {held})"));
        return a;
    }
    let mut arches: Vec<String> = mine.iter().map(|e| e.arch.clone()).collect();
    arches.sort();
    arches.dedup();
    a.arches = arches;
    a.code_objects = mine.len() as u32;
    let canonical = std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone());
    for e in &mine {
        seen.entry(e.arch.clone())
            .or_default()
            .insert(e.binary_and_index().1);
        if let Some(claims) = ctx.claims {
            claims.add(&canonical, &e.binary);
        }
    }
    let inner = Ctx {
        limits: ctx.limits,
        sink: ctx.sink,
        map: Some(&map),
        // Entries of an archive, not the scanned file's bytes: hashed, never cached.
        file: None,
        claims: ctx.claims,
    };
    let base = origin.child("kpack_ref").child(shown);
    emit_entries(&map, &toc, &mine, &base, true, &inner);
    if map.shrank() {
        a.status = ArchiveStatus::Unreadable;
        a.message = Some(
            "the archive shrank while it was read (another process truncated or rewrote it); \
             read it again once it is complete"
                .into(),
        );
    }
    a
}

/// Opens and maps a candidate archive and reads its TOC, or says why the loader would skip it.
/// Only regular files are opened (a FIFO or device named by a marker is refused first).
fn open_archive(c: &Candidate) -> Result<(rocpath_budget::map::Map, Toc), (ArchiveStatus, String)> {
    if let Some(why) = &c.unmatched {
        return Err((ArchiveStatus::PatternUnmatched, why.clone()));
    }
    let meta = std::fs::metadata(&c.path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => (ArchiveStatus::Missing, "no such file".to_string()),
        // ELOOP (symbolic links in a loop), permissions.
        _ => (ArchiveStatus::Unreadable, format!("cannot open: {e}")),
    })?;
    if !meta.is_file() {
        let what = rocpath_budget::non_regular(meta.file_type()).unwrap_or("a folder");
        return Err((ArchiveStatus::NotAFile, format!("{what}, not a file")));
    }
    if meta.len() == 0 {
        let why = "0 bytes: the loader cannot open it".to_string();
        return Err((ArchiveStatus::Empty, why));
    }
    // Guarded, as for every scanned file (see `scan_file`).
    let map = std::fs::File::open(&c.path)
        .and_then(|f| rocpath_budget::map::Map::new(&f))
        .map_err(|e| (ArchiveStatus::Unreadable, format!("cannot read: {e}")))?;
    let toc = kpack::parse(&map).map_err(|e| {
        let at = e
            .offset()
            .map(|o| format!(" at offset {o}"))
            .unwrap_or_default();
        (ArchiveStatus::Unreadable, format!("{e}{at}"))
    })?;
    Ok((map, toc))
}

/// Reads the entries and hands each code object to the sink. With `host`, each is under
/// `binary#N > ARCH`; otherwise under `kpack:KEY > ARCH`.
pub(crate) fn emit_entries(
    data: &[u8],
    toc: &Toc,
    entries: &[&kpack::TocEntry],
    base: &Origin,
    host: bool,
    ctx: &Ctx<'_>,
) {
    let frames = match kpack::frames_of(data, toc) {
        Ok(f) => f,
        Err(e) => {
            ctx.sink.found(Found::Error {
                origin: base,
                error: e,
            });
            return;
        }
    };
    use rayon::prelude::*;
    // Entries that name the same stored bytes (the same ordinal, or blobs at one offset) are
    // read once, under the first of them, and the others listed as sharing it: a TOC of many
    // entries over one payload is not decompressed many times.
    let groups = group_shared(toc, &frames, entries);
    groups.par_iter().for_each(|(e, shared)| {
        let e = *e;
        let link = if host {
            format!("binary#{}", e.binary_and_index().1)
        } else {
            format!("kpack:{}", e.binary)
        };
        let origin = base.child(link).child(e.arch.clone());
        let offset = kpack::stored_range(toc, &frames, e)
            .map(|r| r.0)
            .unwrap_or(0);
        match kpack::entry_bytes(data, toc, &frames, e, ctx.limits) {
            Ok(bytes) => {
                if rocpath_codeobj::is_amdgpu_elf(&bytes) {
                    let release = |b: &[u8]| ctx.release(b);
                    ctx.sink.found(Found::CodeObject {
                        sha256: &ctx.digest(&bytes),
                        release: &release,
                        origin: &origin,
                        offset,
                        bytes: &bytes,
                        bundle_id: None,
                        shared_by: shared.as_ref(),
                    });
                } else {
                    let head: Vec<String> =
                        bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
                    ctx.sink.found(Found::Error {
                        origin: &origin,
                        error: SourceError::Format {
                            offset,
                            msg: format!(
                                "kpack entry is not an AMDGPU ELF (starts with {})",
                                head.join(" ")
                            ),
                        },
                    });
                }
            }
            Err(error) => ctx.sink.found(Found::Error {
                origin: &origin,
                error,
            }),
        }
    });
}

/// The entries grouped by the stored bytes they name, in TOC order: the first of each group
/// with the others (`binary / arch`) as its [`SharedBy`]. An entry whose range cannot be
/// found stands alone (reading it reports why).
fn group_shared<'t>(
    toc: &Toc,
    frames: &[(u64, u64)],
    entries: &[&'t kpack::TocEntry],
) -> Vec<(&'t kpack::TocEntry, Option<crate::bundle::SharedBy>)> {
    let mut first: HashMap<(u64, u64), usize> = HashMap::new();
    let mut out: Vec<(&kpack::TocEntry, Option<crate::bundle::SharedBy>)> = Vec::new();
    for &e in entries {
        let Ok(range) = kpack::stored_range(toc, frames, e) else {
            out.push((e, None));
            continue;
        };
        match first.get(&range) {
            Some(&i) => {
                let shared = out[i].1.get_or_insert_with(Default::default);
                shared.entries += 1;
                if shared.ids.len() < crate::bundle::SharedBy::MAX_IDS {
                    shared.ids.push(format!("{} / {}", e.binary, e.arch));
                }
            }
            None => {
                first.insert(range, out.len());
                out.push((e, None));
            }
        }
    }
    out
}

/// Scans an archive met as a file: lists the entries no scanned host binary read.
pub(crate) fn scan_archive(data: &[u8], origin: &Origin, ctx: &Ctx<'_>) {
    let toc = match kpack::parse(data) {
        Ok(t) => t,
        Err(error) => {
            ctx.sink.found(Found::Error { origin, error });
            return;
        }
    };
    let canonical = if origin.chain.is_empty() {
        std::fs::canonicalize(&origin.path).ok()
    } else {
        None
    };
    let open: Vec<&kpack::TocEntry> = toc
        .entries
        .iter()
        .filter(|e| match (ctx.claims, &canonical) {
            (Some(c), Some(p)) => !c.has(p, &e.binary),
            _ => true,
        })
        .collect();
    emit_entries(data, &toc, &open, origin, false, ctx);
}

/// Whether a file name is a kpack archive's.
pub fn is_kpack_name(name: &str) -> bool {
    name.ends_with(".kpack")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(paths: &[&str], name: Option<&str>) -> Vec<u8> {
        let mut m = Vec::new();
        let mut entries = vec![(
            rmpv::Value::from("kpack_search_paths"),
            rmpv::Value::Array(paths.iter().map(|p| rmpv::Value::from(*p)).collect()),
        )];
        if let Some(n) = name {
            entries.push(("kernel_name".into(), n.into()));
        }
        rmpv::encode::write_value(&mut m, &rmpv::Value::Map(entries)).unwrap();
        m
    }

    #[test]
    fn marker_as_the_loader_reads_it() {
        let m = parse_marker(&marker(&["../.kpack/x.kpack"], Some("lib/x.so"))).unwrap();
        assert_eq!(m.kernel_name, "lib/x.so");
        assert_eq!(m.search_paths, ["../.kpack/x.kpack"]);
        assert!(parse_marker(&marker(&[], Some("lib/x.so"))).is_err());
        assert!(parse_marker(&marker(&["a"], None)).is_err());
        // A length bomb: an array that claims 2^32-1 items in 5 bytes.
        let bomb = [0x81, 0xa1, b'k', 0xdd, 0xff, 0xff, 0xff, 0xff];
        assert!(parse_marker(&bomb).is_err());
        assert!(parse_marker(&vec![0u8; MAX_MARKER + 1]).is_err());
    }

    #[test]
    fn wrappers_by_magic() {
        let mut seg = Vec::new();
        for m in [HIPK, HIPF, HIPF, 7] {
            seg.extend_from_slice(&m.to_le_bytes());
            seg.extend_from_slice(&[0; 20]);
        }
        let w = count_wrappers(&seg);
        assert_eq!((w.total, w.hipk, w.hipf), (4, 1, 2));
        assert_eq!(&HIPK.to_le_bytes(), b"HIPK");
        assert_eq!(&HIPF.to_le_bytes(), b"FPIH");
    }

    #[test]
    fn wrapper_indices_without_objects() {
        let mut seen = BTreeMap::new();
        seen.insert("gfx900".to_string(), BTreeSet::from([0, 2]));
        seen.insert("gfx906".to_string(), BTreeSet::from([0, 1, 2]));
        let m = missing_indices(3, &seen);
        assert_eq!(
            m,
            [MissingIndices {
                arch: "gfx900".into(),
                indices: vec![1]
            }]
        );
        assert!(missing_indices(1, &seen).is_empty());
    }

    #[test]
    fn folds_paths() {
        assert_eq!(
            fold(Path::new("t/lib/../.kpack/./a.kpack")),
            Path::new("t/.kpack/a.kpack")
        );
        assert_eq!(fold(Path::new("lib/../../a")), Path::new("../a"));
    }

    #[test]
    fn expands_the_placeholder_per_file() {
        let d = tempfile::tempdir().unwrap();
        let k = d.path().join(".kpack");
        std::fs::create_dir(&k).unwrap();
        for n in ["t_gfx90a:xnack-.kpack", "t_gfx1100.kpack", "u_gfx900.kpack"] {
            std::fs::write(k.join(n), b"").unwrap();
        }
        let lib = d.path().join("lib");
        std::fs::create_dir(&lib).unwrap();
        let m = Marker {
            kernel_name: "lib/x.so".into(),
            search_paths: vec![
                "../.kpack/t_@GFXARCH@.kpack".into(),
                "nope_@GFXARCH@.kpack".into(),
            ],
        };
        let c = candidates(&lib, &m);
        let arches: Vec<_> = c.iter().map(|c| c.arch.clone()).collect();
        assert_eq!(
            arches,
            [Some("gfx1100".into()), Some("gfx90a:xnack-".into()), None]
        );
        assert!(c[2].unmatched.is_some());
    }
}
