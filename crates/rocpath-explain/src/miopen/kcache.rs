//! MIOpen's kernel cache for one device: the system kernel database it opens and the user
//! cache of earlier runs, and what that means for the first run.
//!
//! `GetDb` (ROCm/MIOpen@2d1fd997 `src/binary_cache.cpp:125-140`) opens
//! `<system db folder>/<basename>.kdb` (`gfx900_64.kdb`), else `<DbId>.kdb` (`gfx900.kdb`),
//! never another CU count, and `<user cache>/<basename>.ukdb`, where the user cache is
//! `~/.cache/miopen/<version>/` (`MIOPEN_CUSTOM_CACHE_DIR` replaces it). A kernel is looked up
//! by object file name and build options (`LoadBinary`, `:154-177`); one found in neither is
//! compiled, then stored in the user cache (`SaveBinary`). Which kernels a solver builds is not
//! in the applicability model, so whether the database holds *its* kernels stays unresolved
//! unless there is no database at all.

use super::{MIOPEN_SOURCE, Reason};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_miopen::dbname::db_basename;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Rule ids.
pub mod rules {
    /// No kernel database and no user cache for the device: every kernel compiles on the
    /// first run.
    pub const COMPILE_FIRST_RUN: &str = "explain.miopen.kernels_compile_first_run";
    /// A kernel database or user cache exists; whether it holds the solver's kernels is not
    /// decided.
    pub const KERNEL_DB_LOOKUP: &str = "explain.miopen.kernel_db_lookup";
}

/// Kernel file names listed per database.
const LISTED: usize = 32;

/// One kernel database the device opens.
#[derive(Debug, Clone, Serialize)]
pub struct KernelDb {
    /// The file.
    pub path: PathBuf,
    /// `system` (`.kdb`) or `user` (`.ukdb`).
    pub role: &'static str,
    /// How it was chosen: `exact` (`<basename>`) or `db_id` (no CU count).
    pub choice: &'static str,
    /// Kernels stored (rows), when it could be read.
    pub kernels: Option<u64>,
    /// Distinct kernel file names, the first 32.
    pub files: Vec<String>,
    /// Why it could not be read.
    pub error: Option<String>,
}

/// The kernel cache of a device and what it means for the first run.
#[derive(Debug, Clone, Serialize)]
pub struct KernelCache {
    /// The databases the device opens (system first).
    pub databases: Vec<KernelDb>,
    /// What compiles on the first run.
    pub first_run: Reason,
}

fn read(path: PathBuf, role: &'static str, choice: &'static str) -> KernelDb {
    let (kernels, files, error) = match rocpath_sources::kdb::list_kdb(&path, LISTED) {
        Ok(l) => (Some(l.rows), l.names, None),
        Err(e) => (None, Vec::new(), Some(e.to_string())),
    };
    KernelDb {
        path,
        role,
        choice,
        kernels,
        files,
        error,
    }
}

/// The system database in `dir` for `db_id` with `cus` CUs (`GetDb`).
fn system_db(dir: &Path, db_id: &str, cus: Option<u32>) -> Option<KernelDb> {
    if let Some(c) = cus {
        let p = dir.join(format!("{}.kdb", db_basename(db_id, c)));
        if p.is_file() {
            return Some(read(p, "system", "exact"));
        }
    }
    let p = dir.join(format!("{db_id}.kdb"));
    p.is_file().then(|| read(p, "system", "db_id"))
}

/// The user caches for the device: `<basename>.ukdb` in `dir` or in its version folders
/// (`~/.cache/miopen` holds one folder per MIOpen version).
fn user_dbs(dir: &Path, db_id: &str, cus: Option<u32>) -> Vec<KernelDb> {
    let Some(c) = cus else { return Vec::new() };
    let name = format!("{}.ukdb", db_basename(db_id, c));
    let mut found: Vec<PathBuf> = std::iter::once(dir.join(&name))
        .chain(
            std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .filter_map(|e| e.ok())
                .map(|e| e.path().join(&name)),
        )
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|p| read(p, "user", "exact"))
        .collect()
}

/// The kernel cache of a device (`db_id`, `cus`) given the system db folder and the user cache
/// folder; `solver` is the predicted solver, if any.
pub fn kernel_cache(
    system_dir: Option<&Path>,
    user_dir: Option<&Path>,
    db_id: &str,
    cus: Option<u32>,
    solver: Option<&str>,
) -> KernelCache {
    let mut databases: Vec<KernelDb> = system_dir
        .and_then(|d| system_db(d, db_id, cus))
        .into_iter()
        .collect();
    databases.extend(
        user_dir
            .map(|d| user_dbs(d, db_id, cus))
            .unwrap_or_default(),
    );
    let who = solver.map_or_else(|| "the solver".to_string(), |s| s.to_string());
    let src = Locator::file(format!("{MIOPEN_SOURCE}:src/binary_cache.cpp")).with_line(125);
    let usable: Vec<&KernelDb> = databases
        .iter()
        .filter(|d| d.kernels.is_some_and(|n| n > 0))
        .collect();
    let first_run = if usable.is_empty() {
        let mut statement = format!(
            "no kernel database {db_id} opens holds kernels: every kernel {who} needs compiles on the first run, then loads from the user cache"
        );
        if cus.is_none() {
            statement.push_str(" (no CU count given: only a database without one was looked for)");
        }
        let mut ev = Evidence::new(
            Class::Inferred,
            Proof::CodeVerified,
            rules::COMPILE_FIRST_RUN,
        )
        .at(src);
        for d in &databases {
            ev = ev.at(Locator::file(d.path.display().to_string()));
        }
        Reason {
            solver: solver.unwrap_or_default().into(),
            statement: statement.clone(),
            evidence: ev.because(statement),
        }
    } else {
        let held: Vec<String> = usable
            .iter()
            .map(|d| {
                format!(
                    "{} ({} kernels)",
                    d.path.file_name().unwrap_or_default().to_string_lossy(),
                    d.kernels.unwrap_or(0)
                )
            })
            .collect();
        let statement = format!(
            "{} {} precompiled kernels: those of {who} built with the same file and options load from there, any other compiles on the first run (which kernels {who} builds is not in the model)",
            held.join(" and "),
            if held.len() == 1 { "holds" } else { "hold" }
        );
        let mut ev = Evidence::new(
            Class::Unresolved,
            Proof::CodeVerified,
            rules::KERNEL_DB_LOOKUP,
        )
        .at(src);
        for d in &usable {
            ev = ev.at(Locator::file(d.path.display().to_string()));
        }
        Reason {
            solver: solver.unwrap_or_default().into(),
            statement: statement.clone(),
            evidence: ev.because(statement),
        }
    };
    KernelCache {
        databases,
        first_run,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../rocpath-sources/tests/data/gfx1201_32.kdb")
    }

    #[test]
    fn system_and_user_databases_are_found_and_read() {
        let tmp = tempfile::tempdir().unwrap();
        let sys = tmp.path().join("db");
        let user = tmp.path().join("cache/3.4.0.0");
        std::fs::create_dir_all(&sys).unwrap();
        std::fs::create_dir_all(&user).unwrap();

        let k = kernel_cache(
            Some(&sys),
            Some(&tmp.path().join("cache")),
            "gfx1201",
            Some(32),
            Some("ConvDirectNaiveConvFwd"),
        );
        assert!(k.databases.is_empty());
        assert_eq!(k.first_run.evidence.rule, rules::COMPILE_FIRST_RUN);
        assert!(
            k.first_run
                .statement
                .contains("every kernel ConvDirectNaiveConvFwd needs compiles on the first run")
        );

        std::fs::copy(fixture(), user.join("gfx1201_32.ukdb")).unwrap();
        std::fs::copy(fixture(), sys.join("gfx1201.kdb")).unwrap();
        std::fs::write(sys.join("gfx1201_64.kdb"), b"not sqlite").unwrap();
        let k = kernel_cache(
            Some(&sys),
            Some(&tmp.path().join("cache")),
            "gfx1201",
            Some(32),
            None,
        );
        let got: Vec<(&str, &str, Option<u64>)> = k
            .databases
            .iter()
            .map(|d| (d.role, d.choice, d.kernels))
            .collect();
        assert_eq!(
            got,
            vec![("system", "db_id", Some(2)), ("user", "exact", Some(2))]
        );
        assert_eq!(
            k.databases[0].files,
            vec!["blit_gfx1201.co.o", "extop_gfx1201.co.o"]
        );
        assert_eq!(k.first_run.evidence.class, Class::Unresolved);
        assert!(
            k.first_run
                .statement
                .starts_with("gfx1201.kdb (2 kernels) and gfx1201_32.ukdb (2 kernels) hold"),
            "{}",
            k.first_run.statement
        );

        // An unreadable exact database is named, and holds nothing.
        let k = kernel_cache(Some(&sys), None, "gfx1201", Some(64), None);
        assert_eq!(k.databases.len(), 1);
        assert!(k.databases[0].error.as_deref().unwrap().contains("SQLite"));
        assert_eq!(k.first_run.evidence.rule, rules::COMPILE_FIRST_RUN);
    }
}
