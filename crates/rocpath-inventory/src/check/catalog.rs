//! Tensile and TensileLite catalogs in `check`: does a library folder hold a catalog the
//! device's processor reads, and can the loading library read it?
//!
//! Folders: rocBLAS and older hipBLASLt keep every catalog in `library/`; newer hipBLASLt keeps
//! one subfolder per processor (`library/gfx942/`), grouped here under `library/`. The catalog
//! for a device is the one named after its processor; without one, the catalog of its generic
//! family (`TensileLibrary_lazy_gfx11-generic.dat` for a gfx1100), as a specific object is
//! preferred to a generic one. A catalog that the loader refuses (an unknown `format_version`,
//! a bad index table: [`rocpath_tensile::LibrarySummary::loader_rejects`]) is present but not
//! loadable, and is reported as such — and so is an indexed catalog (`format_version` 2) next
//! to a hipBLASLt library without the indexed loader ([`judge_loaders`]).

use super::{LibraryCheck, Override, OverrideEffect, Verdict, rules};
use crate::Inventory;
use crate::TensileRecord;
use rocpath_arch::TargetId;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::BTreeMap;

/// The catalog folder of a Tensile file's folder: a trailing per-processor subfolder
/// (`…/library/gfx942`) belongs to its parent.
pub fn catalog_root(dir: &str) -> &str {
    match dir.rsplit_once('/') {
        Some((parent, last)) if is_processor(last) => parent,
        _ => dir,
    }
}

fn is_processor(name: &str) -> bool {
    name.starts_with("gfx") && rocpath_arch::target(name).is_some()
}

/// What a folder holds for one processor.
struct Found<'a> {
    verdict: Verdict,
    /// Usable files for the processor (or its generic family).
    usable: Vec<&'a TensileRecord>,
    /// Files for it that the loader refuses.
    refused: Vec<&'a TensileRecord>,
    solutions: u64,
    /// The generic family the files are for, when no specific catalog exists.
    via_generic: Option<&'static str>,
}

fn find<'a>(files: &[&'a TensileRecord], p: &str) -> Found<'a> {
    let of = |q: &str| -> Vec<&'a TensileRecord> {
        files
            .iter()
            .copied()
            .filter(|t| t.processor.as_deref() == Some(q))
            .collect()
    };
    let mut mine = of(p);
    let mut via_generic = None;
    if mine.is_empty() {
        if let Some(g) = rocpath_arch::target(p).and_then(|t| t.generic) {
            mine = of(g);
            via_generic = (!mine.is_empty()).then_some(g);
        }
    }
    let (usable, refused): (Vec<_>, Vec<_>) =
        mine.into_iter().partition(|t| t.loader_rejects.is_none());
    let solutions = usable.iter().map(|t| t.solutions).sum();
    let runs = usable
        .iter()
        .any(|t| t.kind == crate::TensileKind::LazyIndex)
        || solutions > 0;
    Found {
        verdict: if runs { Verdict::Runs } else { Verdict::NoCode },
        usable,
        refused,
        solutions,
        via_generic,
    }
}

fn why(f: &Found<'_>, p: &str, procs: &[String]) -> (Class, &'static str, String) {
    let n = f.usable.len();
    let s = f.solutions;
    let indexed = if f.usable.iter().any(|t| t.format_version == Some(2)) {
        " (indexed catalogs, format_version 2)"
    } else {
        ""
    };
    match (f.verdict, f.via_generic, f.refused.first()) {
        (Verdict::Runs, None, _) => (
            Class::Inferred,
            rules::TENSILE_INDEX,
            format!(
                "{n} Tensile files for {p} ({s} solutions in the solution files scanned){indexed}"
            ),
        ),
        (Verdict::Runs, Some(g), _) => (
            Class::Inferred,
            rules::TENSILE_INDEX,
            format!(
                "no catalog for {p}; {n} Tensile files for its generic family {g} ({s} solutions in the solution files scanned){indexed}"
            ),
        ),
        (_, _, Some(bad)) => (
            Class::Confirmed,
            rules::TENSILE_UNLOADABLE,
            format!(
                "Tensile files for {p} are present but the loader refuses {}: {} ({})",
                if f.refused.len() == 1 { "it" } else { "them" },
                bad.loader_rejects.as_deref().unwrap_or_default(),
                bad.name
            ),
        ),
        _ => (
            Class::Inferred,
            rules::TENSILE_MISSING,
            format!(
                "no Tensile file for {p}: rocBLAS/hipBLASLt would report \"Cannot read …TensileLibrary.dat … for GPU arch\" and have no GEMM kernels here (the folder has {})",
                procs.join(" ")
            ),
        ),
    }
}

/// The catalog verdict of every Tensile folder for a device.
pub(crate) fn check_catalogs(
    inv: &Inventory,
    dev: &TargetId,
    ov: Option<&Override>,
) -> Vec<LibraryCheck> {
    let mut dirs: BTreeMap<&str, Vec<&TensileRecord>> = BTreeMap::new();
    for t in &inv.tensile {
        dirs.entry(catalog_root(&t.library_dir))
            .or_default()
            .push(t);
    }
    let p = dev.processor.as_str();
    let mut out = Vec::new();
    for (dir, files) in dirs {
        let mut procs: Vec<String> = files.iter().filter_map(|t| t.processor.clone()).collect();
        procs.sort();
        procs.dedup();
        let f = find(&files, p);
        let (class, rule, why) = why(&f, p, &procs);
        let mut evidence =
            Evidence::new(class, Proof::ShippedArtifactVerified, rule).because(why.clone());
        if let Some(t) = f.usable.first().or(f.refused.first()).or(files.first()) {
            evidence = evidence.at(Locator::file(&t.path).with_member(t.container.clone()));
        }
        let with_override = ov.and_then(|o| o.processor.as_ref()).map(|q| {
            let g = find(&files, q);
            OverrideEffect {
                verdict: g.verdict,
                compatible: g.usable.len(),
                why: format!(
                    "as {q}: {} Tensile files, {} solutions",
                    g.usable.len(),
                    g.solutions
                ),
            }
        });
        out.push(LibraryCheck {
            library: format!("{dir}/ (Tensile library)"),
            kind: super::Checked::Tensile,
            verdict: f.verdict,
            compatible: f.usable.len(),
            total: files.len(),
            targets: procs,
            deciders: Vec::new(),
            why,
            with_override,
            evidence,
        });
    }
    out
}

/// The string only a hipBLASLt build with the indexed-catalog loader holds.
const INDEXED_LOADER_MARK: &[u8] = b"solutions_index";

/// The hipBLASLt host library that loads the catalogs of `dir` (`…/hipblaslt/library`, or a
/// per-processor subfolder of it): `libhipblaslt.so*` two or one levels up, on disk.
fn loader_of(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let root = std::path::Path::new(catalog_root(dir.to_str()?));
    for up in [root.parent()?.parent(), root.parent()]
        .into_iter()
        .flatten()
    {
        let mut libs: Vec<std::path::PathBuf> = std::fs::read_dir(up)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libhipblaslt.so"))
                    && p.is_file()
            })
            .collect();
        libs.sort();
        if let Some(l) = libs.pop() {
            return Some(l);
        }
    }
    None
}

/// Whether a host library holds the indexed-catalog loader (its format-2 key names).
fn reads_indexed(lib: &std::path::Path) -> Option<bool> {
    let mut input = rocpath_budget::input::open(lib).ok()?;
    let map = rocpath_budget::map::Map::new(input.file()).ok()?;
    let found = memchr::memmem::find(&map, INDEXED_LOADER_MARK).is_some();
    // A library that shrank while read gives no answer (its bytes were not all there).
    (!map.shrank()).then_some(found)
}

/// Marks the indexed catalogs (`format_version` 2) whose hipBLASLt library on disk has no
/// indexed loader as refused: that library fails to load them.
pub(crate) fn judge_loaders(tensile: &mut [TensileRecord]) {
    let mut seen: BTreeMap<String, Option<(std::path::PathBuf, bool)>> = BTreeMap::new();
    for t in tensile.iter_mut() {
        if t.format_version != Some(2) || t.loader_rejects.is_some() || !t.container.is_empty() {
            continue;
        }
        let verdict = seen.entry(t.library_dir.clone()).or_insert_with(|| {
            let lib = loader_of(std::path::Path::new(&t.library_dir))?;
            let ok = reads_indexed(&lib)?;
            Some((lib, ok))
        });
        if let Some((lib, false)) = verdict {
            t.loader_rejects = Some(format!(
                "format_version 2 (indexed), but {} has no indexed-catalog loader (no `solutions_index` in it): it cannot read this catalog",
                lib.display()
            ));
        }
    }
}
