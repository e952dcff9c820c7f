//! Records of host binaries packed for kpack: the marker, each archive it leads to and what
//! was found there, each with its evidence.

use crate::rules;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_sources::Origin;
use rocpath_sources::kpack_ref::{ArchiveRef, ArchiveStatus, KpackRef};

pub use rocpath_docs::inventory::{KpackArchiveRecord, KpackRefRecord};

/// The record of `r`, found in `origin`.
pub fn record(origin: &Origin, r: &KpackRef) -> KpackRefRecord {
    {
        let container = origin.member();
        let at = || Locator::file(&origin.path).with_member(container.clone());
        let stale = r.stale_wrappers();
        let mut evidence = if stale > 0 {
            Evidence::new(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                rules::KPACK_STALE_WRAPPERS,
            )
            .because(format!(
                "{stale} of {} fat-binary wrappers still say HIPF while .hip_fatbin holds no bytes: \
                 their code objects are not in the file nor in any archive",
                r.wrappers.total
            ))
        } else {
            Evidence::new(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                rules::KPACK_REF,
            )
        }
        .at(at());
        if let Some(m) = r.missing_indices.first() {
            evidence = evidence.because(format!(
                "{} of {} code objects missing for {} (wrappers #{})",
                m.indices.len(),
                r.wrappers.hipk,
                m.arch,
                m.indices
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", #")
            ));
        }
        if !r.resolved {
            // What the archives hold for it is not known from the marker alone; archives in
            // the same archive file are listed by their own entries (`kpack:KEY`).
            evidence.class = Class::Limited;
            evidence = evidence.because(
                "inside an archive file: the referenced kpack archives were not looked for",
            );
        }
        let archives = r
            .archives
            .iter()
            .map(|a| KpackArchiveRecord {
                evidence: archive_evidence(a).at(Locator::file(&a.path)),
                archive: a.clone(),
            })
            .collect();
        KpackRefRecord {
            path: origin.path.clone(),
            library: origin.library(),
            container,
            kernel_name: r.kernel_name.clone(),
            search_paths: r.search_paths.clone(),
            wrappers: r.wrappers,
            fatbin_emptied: r.fatbin_emptied,
            resolved: r.resolved,
            stale_wrappers: stale,
            archives,
            missing_indices: r.missing_indices.clone(),
            evidence,
        }
    }
}

fn archive_evidence(a: &ArchiveRef) -> Evidence {
    let e = |class, rule| Evidence::new(class, Proof::ShippedArtifactVerified, rule);
    let ev = match a.status {
        ArchiveStatus::Found => e(Class::Confirmed, rules::CODEOBJ_PRESENT),
        ArchiveStatus::Missing
        | ArchiveStatus::Empty
        | ArchiveStatus::NotAFile
        | ArchiveStatus::PatternUnmatched => e(Class::Confirmed, rules::KPACK_ARCHIVE_MISSING),
        ArchiveStatus::NoEntries => e(Class::Confirmed, rules::KPACK_NO_ENTRIES),
        ArchiveStatus::Unreadable => e(Class::Limited, rules::UNREADABLE),
    };
    match &a.message {
        Some(m) => ev.because(format!("{}: {m}", a.status.as_str())),
        None => ev,
    }
}

/// The architecture names a loader tries for a device, most specific first: the target id
/// with all its features, then dropping the rightmost feature first down to the bare
/// processor (rocm-kpack's feature-subset order), then the processor's generic target (what
/// HIP adds to the list).
pub fn loader_arch_names(dev: &rocpath_arch::TargetId) -> Vec<String> {
    let canonical = dev.canonical();
    let mut parts = canonical.split(':');
    let processor = parts.next().unwrap_or_default().to_string();
    let features: Vec<&str> = parts.collect();
    let n = features.len();
    let mut subsets: Vec<Vec<&str>> = Vec::new();
    // Subsets by size, largest first; within a size, those keeping the leftmost features first.
    for size in (0..=n).rev() {
        for mask in (0u32..(1 << n)).rev() {
            if mask.count_ones() as usize == size {
                subsets.push(
                    (0..n)
                        .filter(|i| mask & (1 << (n - 1 - i)) != 0)
                        .map(|i| features[i])
                        .collect(),
                );
            }
        }
    }
    let mut out: Vec<String> = subsets
        .into_iter()
        .map(|s| {
            std::iter::once(processor.as_str())
                .chain(s)
                .collect::<Vec<_>>()
                .join(":")
        })
        .collect();
    if let Some(g) = rocpath_arch::target(&processor).and_then(|t| t.generic) {
        out.push(g.to_string());
    }
    out.dedup();
    out
}

/// What a binary's kpack archives hold for one device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceArchives {
    /// Archives the loader would look for and that are absent, empty or lack the binary.
    pub missing: Vec<String>,
    /// Archives the loader would look for that could not be read.
    pub unreadable: Vec<String>,
    /// Archives that store code for the device without listing it in `gfx_arches`.
    pub not_advertised: Vec<String>,
}

/// The archives of `rec` that matter for `dev`, by the loader's search.
pub fn for_device(rec: &KpackRefRecord, dev: &rocpath_arch::TargetId) -> DeviceArchives {
    {
        let names = loader_arch_names(dev);
        let mut out = DeviceArchives::default();
        for sp in &rec.search_paths {
            let mine: Vec<&ArchiveRef> = rec
                .archives
                .iter()
                .map(|a| &a.archive)
                .filter(|a| &a.search_path == sp)
                .collect();
            let relevant: Vec<&ArchiveRef> = if sp.contains(rocpath_sources::kpack_ref::GFXARCH) {
                mine.into_iter()
                    .filter(|a| a.arch.as_ref().is_some_and(|x| names.contains(x)))
                    .collect()
            } else {
                mine
            };
            if relevant.is_empty() {
                let first = names.first().map(String::as_str).unwrap_or_default();
                out.missing.push(format!(
                    "{} (none of {})",
                    sp.replacen(rocpath_sources::kpack_ref::GFXARCH, first, 1),
                    names.join(", ")
                ));
                continue;
            }
            for a in relevant {
                match a.status {
                    ArchiveStatus::Found => {
                        let stores = a.arches.iter().any(|x| names.contains(x));
                        let lists = a.gfx_arches.iter().any(|x| names.contains(x));
                        if stores && !lists && a.arch.is_none() {
                            out.not_advertised.push(a.path.clone());
                        }
                    }
                    ArchiveStatus::Unreadable => out.unreadable.push(a.path.clone()),
                    _ => out
                        .missing
                        .push(format!("{} ({})", a.path, a.status.as_str())),
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loader_order() {
        let t = |s: &str| loader_arch_names(&rocpath_arch::TargetId::parse(s).unwrap());
        assert_eq!(
            t("gfx942:sramecc+:xnack-"),
            [
                "gfx942:sramecc+:xnack-",
                "gfx942:sramecc+",
                "gfx942:xnack-",
                "gfx942",
                "gfx9-4-generic"
            ]
        );
        assert_eq!(t("gfx90a:xnack-"), ["gfx90a:xnack-", "gfx90a"]);
        assert_eq!(
            t("gfx906:xnack-"),
            ["gfx906:xnack-", "gfx906", "gfx9-generic"]
        );
        assert_eq!(t("gfx1100"), ["gfx1100", "gfx11-generic"]);
    }
}
