//! Records of host binaries packed for kpack: the marker, each archive it leads to and what
//! was found there, each with its evidence.

use crate::rules;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_sources::Origin;
use rocpath_sources::kpack_ref::{ArchiveRef, ArchiveStatus, KpackRef, Wrappers};
use serde::{Deserialize, Serialize};

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
    /// The library (as [`crate::CodeObjectRecord::library`]).
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
    /// Evidence for the marker; the note names what the binary lost, if anything.
    pub evidence: Evidence,
}

impl KpackRefRecord {
    /// The record of `r`, found in `origin`.
    pub fn new(origin: &Origin, r: &KpackRef) -> KpackRefRecord {
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
        if !r.resolved {
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
            evidence,
        }
    }

    /// Archives the binary references that give it no code.
    pub fn problems(&self) -> impl Iterator<Item = &KpackArchiveRecord> {
        self.archives
            .iter()
            .filter(|a| a.archive.status.is_problem())
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
