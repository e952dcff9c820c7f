//! What changed between two installs: gfx targets and kernels that appeared or disappeared,
//! overall and per library (the "gfx906 dropped from rocBLAS in 6.4" class of question).
//!
//! Libraries are matched across installs by a normalised name: the path inside the scanned
//! root (or archive), with shared-object version suffixes (`.so.4.4` → `.so`) and
//! version-number folders (`rocblas/4.4.1/library` → `rocblas/*/library`) folded, so
//! `librocblas.so.0.1` in one install meets `librocblas.so.4.4` in the other.

use crate::check::group_key;
use crate::{CodeObjectRecord, Inventory};
use rocpath_arch::TargetId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How a library differs between OLD and NEW.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Only in NEW.
    Added,
    /// Only in OLD.
    Removed,
    /// In both, with different targets or kernels.
    Changed,
}

impl Change {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// Changes in one library.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct LibraryDiff {
    /// Normalised library name.
    pub library: String,
    /// Added, removed or changed.
    pub status: Change,
    /// Target ids only in NEW.
    pub targets_added: Vec<TargetId>,
    /// Target ids only in OLD.
    pub targets_removed: Vec<TargetId>,
    /// Target ids in both.
    pub targets_kept: Vec<TargetId>,
    /// Per kept target whose kernels or number of code objects changed: kernels only in NEW /
    /// only in OLD.
    pub kernels: Vec<KernelDiff>,
}

/// Kernel changes for one library and target.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct KernelDiff {
    /// Target id.
    pub target: TargetId,
    /// Kernels in OLD.
    pub old: usize,
    /// Kernels in NEW.
    pub new: usize,
    /// Code objects in OLD.
    pub objects_old: usize,
    /// Code objects in NEW.
    pub objects_new: usize,
    /// Names only in NEW.
    pub added: Vec<String>,
    /// Names only in OLD.
    pub removed: Vec<String>,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Diff {
    /// Target ids present (anywhere) only in NEW.
    pub targets_added: Vec<TargetId>,
    /// Target ids present only in OLD.
    pub targets_removed: Vec<TargetId>,
    /// Libraries with any change, sorted by name.
    pub libraries: Vec<LibraryDiff>,
    /// Libraries identical in both.
    pub unchanged: usize,
    /// What packing for kpack left behind, on either side: wrappers without code, archives
    /// missing or empty (one line per library and problem).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kpack: Vec<String>,
}

impl Diff {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.targets_added.is_empty()
            && self.targets_removed.is_empty()
            && self.libraries.is_empty()
    }
}

/// Normalises a library name for matching across versions.
pub fn normalize_library(name: &str, roots: &[&str]) -> String {
    let mut s = name.to_string();
    for r in roots {
        if let Some(rest) = s.strip_prefix(r) {
            s = rest.trim_start_matches('/').to_string();
            break;
        }
    }
    let parts: Vec<String> = s
        .split('/')
        .map(|seg| {
            if seg.chars().any(|c| c.is_ascii_digit())
                && seg.chars().all(|c| c.is_ascii_digit() || c == '.')
            {
                return "*".to_string();
            }
            if let Some(i) = seg.find(".so.") {
                return seg[..i + 3].to_string();
            }
            seg.to_string()
        })
        .collect();
    parts.join("/").trim_start_matches("./").to_string()
}

/// Per library and target: kernel names and the number of code objects.
type Index = BTreeMap<String, BTreeMap<TargetId, Side>>;

#[derive(Default, PartialEq, Eq)]
struct Side {
    names: BTreeSet<String>,
    objects: usize,
}

fn index(inv: &Inventory, roots: &[&str]) -> Index {
    let mut m: Index = BTreeMap::new();
    for co in &inv.code_objects {
        let lib = normalize_library(&group_key(co), roots);
        let side = m
            .entry(lib)
            .or_default()
            .entry(co.target.clone())
            .or_default();
        side.objects += 1;
        let names = &mut side.names;
        names.extend(co.kernels.iter().map(|k| k.name.clone()));
        if co.kernels.is_empty() && co.kernel_count > 0 {
            names.insert(format!(
                "({} kernels without metadata in {})",
                co.kernel_count,
                short(co)
            ));
        }
    }
    m
}

fn short(co: &CodeObjectRecord) -> String {
    co.library
        .rsplit('/')
        .next()
        .unwrap_or(&co.library)
        .to_string()
}

/// The JSON document of `rocpath diff`: the two installs as named, what changed, and the
/// items of either scan that could not be read.
#[derive(Debug, Serialize)]
pub struct DiffDoc<'a> {
    /// The old install.
    pub old: String,
    /// The new install.
    pub new: String,
    /// What changed.
    #[serde(flatten)]
    pub diff: &'a Diff,
    /// Errors of both scans.
    pub errors: &'a [crate::ErrorItem],
}

/// Compares OLD with NEW. The paths each side was scanned from (`Inventory::roots`) are
/// stripped from library names before matching.
pub fn diff(old: &Inventory, new: &Inventory) -> Diff {
    let ro: Vec<&str> = old.roots.iter().map(String::as_str).collect();
    let rn: Vec<&str> = new.roots.iter().map(String::as_str).collect();
    let a = index(old, &ro);
    let b = index(new, &rn);
    let ta: BTreeSet<&TargetId> = a.values().flat_map(|t| t.keys()).collect();
    let tb: BTreeSet<&TargetId> = b.values().flat_map(|t| t.keys()).collect();
    let mut libraries = Vec::new();
    let mut unchanged = 0;
    let libs: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for lib in libs {
        let empty = BTreeMap::new();
        let la = a.get(lib).unwrap_or(&empty);
        let lb = b.get(lib).unwrap_or(&empty);
        let status = match (a.contains_key(lib), b.contains_key(lib)) {
            (false, true) => Change::Added,
            (true, false) => Change::Removed,
            _ => Change::Changed,
        };
        let added: Vec<TargetId> = lb
            .keys()
            .filter(|t| !la.contains_key(*t))
            .cloned()
            .collect();
        let removed: Vec<TargetId> = la
            .keys()
            .filter(|t| !lb.contains_key(*t))
            .cloned()
            .collect();
        let kept: Vec<TargetId> = la.keys().filter(|t| lb.contains_key(*t)).cloned().collect();
        let mut kernels = Vec::new();
        for t in &kept {
            let (ka, kb) = (&la[t], &lb[t]);
            let plus: Vec<String> = kb.names.difference(&ka.names).cloned().collect();
            let minus: Vec<String> = ka.names.difference(&kb.names).cloned().collect();
            if !plus.is_empty() || !minus.is_empty() || ka.objects != kb.objects {
                kernels.push(KernelDiff {
                    target: t.clone(),
                    old: ka.names.len(),
                    new: kb.names.len(),
                    objects_old: ka.objects,
                    objects_new: kb.objects,
                    added: plus,
                    removed: minus,
                });
            }
        }
        if status == Change::Changed && added.is_empty() && removed.is_empty() && kernels.is_empty()
        {
            unchanged += 1;
            continue;
        }
        libraries.push(LibraryDiff {
            library: lib.clone(),
            status,
            targets_added: added,
            targets_removed: removed,
            targets_kept: kept,
            kernels,
        });
    }
    Diff {
        targets_added: tb.difference(&ta).map(|&t| t.clone()).collect(),
        targets_removed: ta.difference(&tb).map(|&t| t.clone()).collect(),
        libraries,
        unchanged,
        kpack: kpack_notes("OLD", old, &ro)
            .chain(kpack_notes("NEW", new, &rn))
            .collect(),
    }
}

/// One line per kpack problem of a side: wrappers left without code, archives not read.
fn kpack_notes<'a>(
    side: &'a str,
    inv: &'a Inventory,
    roots: &'a [&'a str],
) -> impl Iterator<Item = String> + 'a {
    inv.kpack_refs.iter().flat_map(move |r| {
        let lib = normalize_library(&r.library, roots);
        let mut v = Vec::new();
        if r.stale_wrappers > 0 {
            v.push(format!(
                "{side} {lib}: {} of {} fat-binary wrappers still HIPF over the emptied .hip_fatbin (their code was not packed)",
                r.stale_wrappers, r.wrappers.total
            ));
        }
        for m in &r.missing_indices {
            v.push(format!(
                "{side} {lib}: {} has no object for wrappers {:?}",
                m.arch, m.indices
            ));
        }
        for a in r.problems() {
            v.push(format!(
                "{side} {lib}: kpack archive {} {}",
                a.archive.search_path,
                a.archive.status.as_str()
            ));
        }
        v
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_versions() {
        assert_eq!(
            normalize_library(
                "/x/old/usr/lib/x86_64-linux-gnu/librocblas.so.0.1",
                &["/x/old"]
            ),
            "usr/lib/x86_64-linux-gnu/librocblas.so"
        );
        assert_eq!(
            normalize_library(
                "usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library/ (Tensile kernels)",
                &[]
            ),
            "usr/lib/x86_64-linux-gnu/rocblas/*/library/ (Tensile kernels)"
        );
    }
}
