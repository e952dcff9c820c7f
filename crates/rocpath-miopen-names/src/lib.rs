//! MIOpen database file names: `<DbId><CU suffix>.<backend>.<kind>[.bz2]`.
//!
//! `Handle::GetDbBasename` writes the CU count as `_<decimal>` up to 64 CUs and as bare
//! lower-case hex above (`gfx900_64`, `gfx90878` = gfx908 with 0x78 = 120 CUs, `gfx942130` =
//! 304 CUs); some newer files use the hex form below 64 too (`gfx110136`). MIOpen's inexact
//! search reads a stem back as decimal after the first `_`, else hex after the `DbId`, leading
//! digits only (`std::stoi`), and takes the file with the nearest CU count.
//!
//! Source: ROCm/MIOpen@2d1fd997 `src/include/miopen/handle.hpp:225-241` (basename),
//! `src/find_db.cpp:124-197` (find-db choice), `src/include/miopen/execution_context.hpp:183-264`
//! (perf-db choice), `src/target_properties.cpp:40-134` (`DbId`).

use serde::Serialize;

pub use rocpath_docs::inventory::DbKind;

/// A decoded MIOpen database file name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DbName {
    /// The processor (`gfx900`).
    pub processor: String,
    /// CU count from the suffix, if any.
    pub cus: Option<u32>,
    /// `sramecc` / `nosramecc` / `xnack` qualifiers of the `DbId`.
    pub qualifiers: Vec<String>,
    /// Backend (`HIP`, `OpenCL`), for find-dbs.
    pub backend: Option<String>,
    /// Kind of database.
    pub kind: DbKind,
    /// Whether the file is bzip2-compressed (`.bz2`).
    pub compressed: bool,
}

/// `Handle::GetDbBasename`: `_<decimal>` up to 64 CUs, bare lower-case hex above.
pub fn db_basename(db_id: &str, cus: u32) -> String {
    if cus <= 64 {
        format!("{db_id}_{cus}")
    } else {
        format!("{db_id}{cus:x}")
    }
}

/// The CU count of a db stem as MIOpen reads it back: decimal after the first `_`, else hex
/// after the `DbId`, leading digits only.
pub fn cu_of_stem(stem: &str, db_id: &str) -> Option<u32> {
    let (digits, radix) = match stem.find('_') {
        Some(i) => (&stem[i + 1..], 10),
        None => (stem.get(db_id.len()..)?, 16),
    };
    let end = digits
        .char_indices()
        .find(|(_, c)| !c.is_digit(radix))
        .map_or(digits.len(), |(i, _)| i);
    u32::from_str_radix(&digits[..end], radix).ok()
}

impl DbName {
    /// Decodes a file name (`gfx900_64.HIP.fdb.txt.bz2`, `gfx942130.db`,
    /// `gfx900_64.HIP.3_5_1_5b515cf1bca-dirty.ufdb.txt`).
    pub fn parse(name: &str) -> Option<DbName> {
        if !name.starts_with("gfx") {
            return None;
        }
        let (stem, compressed) = match name.strip_suffix(".bz2") {
            Some(s) => (s, true),
            None => (name, false),
        };
        let (base, rest) = stem.split_once('.')?;
        let parts: Vec<&str> = rest.split('.').collect();
        let (kind, backend) = match parts.as_slice() {
            [b, "fdb", "txt"] => (DbKind::FindDb, Some(b.to_string())),
            [b, .., "ufdb", "txt"] => (DbKind::UserFindDb, Some(b.to_string())),
            ["db"] | ["db", "txt"] => (DbKind::PerfDb, None),
            [.., "udb"] | [.., "udb", "txt"] => (DbKind::UserPerfDb, None),
            ["kdb"] | [.., "ukdb"] => (DbKind::KernelDb, None),
            _ => return None,
        };
        // Longest known processor name that prefixes the base.
        let processor = rocpath_arch::TARGETS
            .iter()
            .map(|t| t.name)
            .filter(|n| !n.contains("generic") && base.starts_with(n))
            .max_by_key(|n| n.len())?;
        let mut db_id_len = processor.len();
        let mut qualifiers = Vec::new();
        for q in ["_nosramecc", "_sramecc", "_xnack"] {
            if base[db_id_len..].starts_with(q) {
                qualifiers.push(q.trim_start_matches('_').to_string());
                db_id_len += q.len();
            }
        }
        let tail = &base[db_id_len..];
        let cus = if tail.is_empty() {
            None
        } else {
            // Only a whole suffix counts here (a name, not MIOpen's lenient stoi).
            let ok = match tail.strip_prefix('_') {
                Some(d) => !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()),
                None => tail.bytes().all(|c| c.is_ascii_hexdigit()),
            };
            if !ok {
                return None;
            }
            Some(cu_of_stem(tail, "")?)
        };
        Some(DbName {
            processor: processor.to_string(),
            cus,
            qualifiers,
            backend,
            kind,
            compressed,
        })
    }
}

/// How a database file was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// `<basename>.<backend>.fdb.txt` / `<basename>.db` exists.
    Exact,
    /// Find-db only: another backend's file of the same basename (find_db.cpp:164-168).
    AlternateBackend,
    /// The file of the same `DbId` with the nearest CU count (find_db.cpp:169-185,
    /// execution_context.hpp:218-253).
    NearestCu,
}

/// The file a device would read among `names` (installed names, without `.bz2`), and how it
/// was chosen. `suffix` is `.fdb.txt` for the find-db or `.db` for the perf-db; `exact` the
/// exact file name wanted. Names are taken in the given order (MIOpen iterates in directory
/// order; give them sorted for a deterministic answer).
pub fn choose<'a>(
    names: impl IntoIterator<Item = &'a str> + Clone,
    db_id: &str,
    cus: u32,
    exact: &str,
    suffix: &str,
) -> Option<(&'a str, Choice, Option<u32>)> {
    let base = db_basename(db_id, cus);
    if let Some(n) = names.clone().into_iter().find(|n| *n == exact) {
        return Some((n, Choice::Exact, Some(cus)));
    }
    let mut best: Option<(u32, &'a str, u32)> = None;
    for name in names {
        let Some(stem) = name.strip_suffix(suffix) else {
            continue;
        };
        if suffix == ".fdb.txt" && stem.starts_with(&base) {
            return Some((name, Choice::AlternateBackend, Some(cus)));
        }
        if !db_id.starts_with("gfx") || cus == 0 || !stem.starts_with(db_id) {
            continue;
        }
        if let Some(c) = cu_of_stem(stem, db_id) {
            let dist = c.abs_diff(cus);
            if best.is_none_or(|(d, _, _)| dist < d) {
                best = Some((dist, name, c));
            }
        }
    }
    best.map(|(_, n, c)| (n, Choice::NearestCu, Some(c)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_decode() {
        let n = DbName::parse("gfx900_64.HIP.fdb.txt.bz2").unwrap();
        assert_eq!(
            (n.processor.as_str(), n.cus, n.kind, n.compressed),
            ("gfx900", Some(64), DbKind::FindDb, true)
        );
        assert_eq!(
            DbName::parse("gfx90878.HIP.fdb.txt").unwrap().cus,
            Some(120)
        );
        assert_eq!(DbName::parse("gfx942130.db").unwrap().cus, Some(304));
        let n = DbName::parse("gfx90a68.HIP.fdb.txt.bz2").unwrap();
        assert_eq!((n.processor.as_str(), n.cus), ("gfx90a", Some(104)));
        assert_eq!(
            DbName::parse("gfx110136.HIP.fdb.txt.bz2").unwrap().cus,
            Some(54)
        );
        assert_eq!(DbName::parse("gfx1030_36.db.bz2").unwrap().cus, Some(36));
        let u = DbName::parse("gfx900_64.HIP.3_5_1_5b515cf1bca-dirty.ufdb.txt").unwrap();
        assert_eq!(u.kind, DbKind::UserFindDb);
        assert_eq!(DbName::parse("gfx900.kdb").unwrap().cus, None);
        let q = DbName::parse("gfx906_nosramecc_60.db").unwrap();
        assert_eq!(
            (q.qualifiers.as_slice(), q.cus),
            (&["nosramecc".to_string()][..], Some(60))
        );
        assert!(DbName::parse("gfx900_64.txt").is_none());
        assert!(DbName::parse("libfoo.db").is_none());
        assert!(DbName::parse("gfx900_zz.db").is_none());
    }

    #[test]
    fn choice_exact_alternate_nearest() {
        let names = [
            "gfx900_56.HIP.fdb.txt",
            "gfx900_64.HIP.fdb.txt",
            "gfx906_60.HIP.fdb.txt",
        ];
        let c = choose(
            names.iter().copied(),
            "gfx900",
            64,
            "gfx900_64.HIP.fdb.txt",
            ".fdb.txt",
        );
        assert_eq!(c, Some(("gfx900_64.HIP.fdb.txt", Choice::Exact, Some(64))));
        let c = choose(
            names.iter().copied(),
            "gfx900",
            64,
            "gfx900_64.OpenCL.fdb.txt",
            ".fdb.txt",
        );
        assert_eq!(c.map(|c| c.1), Some(Choice::AlternateBackend));
        let c = choose(
            names.iter().copied(),
            "gfx900",
            58,
            "gfx900_58.HIP.fdb.txt",
            ".fdb.txt",
        );
        assert_eq!(
            c,
            Some(("gfx900_56.HIP.fdb.txt", Choice::NearestCu, Some(56)))
        );
        let db = ["gfx90878.db", "gfx90a68.db"];
        let c = choose(db.iter().copied(), "gfx908", 110, "gfx9086e.db", ".db");
        assert_eq!(c, Some(("gfx90878.db", Choice::NearestCu, Some(120))));
        assert_eq!(
            choose(db.iter().copied(), "gfx1030", 36, "gfx1030_36.db", ".db"),
            None
        );
    }
}
