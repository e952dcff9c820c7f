//! MIOpen's kernel cache as `check` sees it: which kernels a device loads precompiled and which
//! compile on the first run.
//!
//! MIOpen looks a kernel up by (object file name, build options) in two SQLite databases
//! (ROCm/MIOpen@2d1fd997 `src/binary_cache.cpp:125-140`, `GetDb`): the system database
//! `<basename>.kdb` (`gfx900_64.kdb`: processor and CU count, `Handle::GetDbBasename`), else
//! `<DbId>.kdb` (`gfx900.kdb`) — never another CU count —, and the user database
//! `~/.cache/miopen/<version>/<basename>.ukdb`, where it stores every kernel it had to compile.
//! A kernel in neither is compiled on its first use. The user find-db (`*.ufdb.txt`) and
//! perf-db (`*.udb.txt`) keep the Find results and tuned configs of earlier runs.

use super::{LibraryCheck, OverrideEffect, Verdict};
use crate::device::Device;
use crate::{CodeObjectRecord, Inventory, MiopenDbRecord};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_miopen_names::DbKind;

/// Rule ids of the kernel-cache verdict.
pub mod rules {
    /// The system kernel database the device opens holds precompiled kernels.
    pub const KERNEL_DB: &str = "check.miopen_kernel_db";
    /// No system kernel database the device would open: kernels compile on first use.
    pub const NO_KERNEL_DB: &str = "check.miopen_no_kernel_db";
    /// Only databases for a CU count given by name exist and the device's CU count is unknown.
    pub const KERNEL_DB_CUS_UNKNOWN: &str = "check.miopen_kernel_db_cus_unknown";
}

/// Where the rule is read.
const SOURCE: &str = "ROCm/MIOpen@2d1fd997 src/binary_cache.cpp:125-140";

/// Code objects read from inside a database file.
fn kernels_in<'a>(inv: &'a Inventory, db: &MiopenDbRecord) -> Vec<&'a CodeObjectRecord> {
    let prefix = if db.container.is_empty() {
        "kdb:".to_string()
    } else {
        format!("{} > kdb:", db.container)
    };
    inv.code_objects
        .iter()
        .filter(|c| c.path == db.path && c.container.starts_with(&prefix))
        .collect()
}

/// The system kernel database a device with `cus` CUs opens among `kdbs` (all for its
/// processor): the exact basename, else the one without a CU count. `Err` when the choice
/// depends on an unknown CU count.
fn choose<'a>(
    kdbs: &[&'a MiopenDbRecord],
    processor: &str,
    cus: Option<u32>,
) -> Result<Option<&'a MiopenDbRecord>, ()> {
    let bare = kdbs.iter().copied().find(|d| d.cus.is_none());
    match cus {
        Some(c) => {
            let exact = format!("{}.kdb", rocpath_miopen_names::db_basename(processor, c));
            Ok(kdbs.iter().copied().find(|d| d.name == exact).or(bare))
        }
        None if bare.is_some() || kdbs.is_empty() => Ok(bare),
        None => Err(()),
    }
}

/// The kernel-cache verdict for a device, when the inventory holds MIOpen kernel databases
/// (system or user): without any, nothing is said (an install without them compiles every
/// kernel on first use, which `explain miopen` states).
pub fn check_kernel_cache(
    inv: &Inventory,
    device: &Device,
    override_processor: Option<&str>,
) -> Vec<LibraryCheck> {
    if !inv.miopen_dbs.iter().any(|d| d.kind == DbKind::KernelDb) {
        return Vec::new();
    }
    let p = device.target.processor.as_str();
    let (verdict, compatible, why, evidence) = evaluate(inv, p, device.cus);
    let with_override = override_processor.map(|q| {
        let (v, n, w, _) = evaluate(inv, q, device.cus);
        OverrideEffect {
            verdict: v,
            compatible: n,
            why: format!("as {q}: {w}"),
        }
    });
    let kdbs: Vec<&MiopenDbRecord> = inv.miopen_dbs.iter().filter(|d| is_kdb(d)).collect();
    let mut targets: Vec<String> = kdbs.iter().map(|d| d.name.clone()).collect();
    targets.sort();
    targets.dedup();
    vec![LibraryCheck {
        library: "MIOpen kernel cache".into(),
        kind: super::Checked::MiopenKernelDb,
        verdict,
        compatible,
        total: kdbs.iter().map(|d| kernels_in(inv, d).len()).sum::<usize>(),
        targets,
        deciders: Vec::new(),
        why,
        with_override,
        evidence,
    }]
}

fn is_kdb(d: &MiopenDbRecord) -> bool {
    d.kind == DbKind::KernelDb && d.name.to_ascii_lowercase().ends_with(".kdb")
}

fn evaluate(inv: &Inventory, p: &str, cus: Option<u32>) -> (Verdict, usize, String, Evidence) {
    let mine = |f: &dyn Fn(&MiopenDbRecord) -> bool| -> Vec<&MiopenDbRecord> {
        inv.miopen_dbs
            .iter()
            .filter(|d| d.processor == p && f(d))
            .collect()
    };
    let kdbs = mine(&is_kdb);
    let user = user_caches(
        &mine(&|d| {
            matches!(d.kind.as_str(), "user-find-db" | "user-perf-db")
                || (d.kind == DbKind::KernelDb && !is_kdb(d))
        }),
        inv,
    );
    let (verdict, n, mut why, ev) = match choose(&kdbs, p, cus) {
        Ok(Some(db)) => {
            let objs = kernels_in(inv, db);
            let kernels: usize = objs.iter().map(|c| c.kernel_count).sum();
            let why = format!(
                "{} holds {} code objects ({kernels} kernels) MIOpen loads precompiled on {p}; a kernel it lacks compiles on first use",
                db.name,
                objs.len()
            );
            let ev = Evidence::new(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                rules::KERNEL_DB,
            )
            .at(Locator::file(&db.path).with_member(db.container.clone()));
            (Verdict::Runs, objs.len(), why, ev)
        }
        Ok(None) => {
            let others: Vec<&str> = kdbs.iter().map(|d| d.name.as_str()).collect();
            let mut why = format!(
                "no kernel database {p} opens: MIOpen compiles each kernel on its first use (a slow first run) and stores it in the user cache"
            );
            if !others.is_empty() {
                why.push_str(&format!(
                    " ({} is for another CU count, which MIOpen does not take)",
                    others.join(", ")
                ));
            }
            let ev = Evidence::new(Class::Inferred, Proof::CodeVerified, rules::NO_KERNEL_DB)
                .at(Locator::file(SOURCE));
            (Verdict::Untuned, 0, why, ev)
        }
        Err(()) => {
            let names: Vec<&str> = kdbs.iter().map(|d| d.name.as_str()).collect();
            let why = format!(
                "kernel databases for {p} exist only per CU count ({}); which one MIOpen opens depends on the device's CU count (give it with --cu or a rocminfo)",
                names.join(", ")
            );
            let ev = Evidence::new(
                Class::Unresolved,
                Proof::CodeVerified,
                rules::KERNEL_DB_CUS_UNKNOWN,
            )
            .at(Locator::file(SOURCE));
            (Verdict::Depends, 0, why, ev)
        }
    };
    if !user.is_empty() {
        why.push_str(&format!(
            "; user caches of earlier runs: {}",
            user.join(", ")
        ));
    }
    (verdict, n, why.clone(), ev.because(why))
}

/// One line per user database: what it keeps for later runs.
fn user_caches(dbs: &[&MiopenDbRecord], inv: &Inventory) -> Vec<String> {
    dbs.iter()
        .map(|d| match d.kind {
            DbKind::KernelDb => format!(
                "{} ({} compiled code objects, not compiled again)",
                d.name,
                kernels_in(inv, d).len()
            ),
            DbKind::UserFindDb => format!("{} (Find results)", d.name),
            _ => format!("{} (tuned configs)", d.name),
        })
        .collect()
}
