//! Files recognised by name: Tensile library indexes and MIOpen databases.
//!
//! MIOpen names its databases `<DbId><CU suffix>.<backend>.<kind>` (`Handle::GetDbBasename`):
//! the CU suffix is `_<decimal>` up to 64 CUs and bare lower-case hex above
//! (`gfx900_64`, `gfx90878` = gfx908 with 0x78 = 120 CUs, `gfx942130` = 304 CUs). Some newer
//! files use the hex form below 64 too (`gfx110136`); the hex form is always parsed as hex,
//! as MIOpen's own "inexact" search does.

/// What a file's name says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamedKind {
    /// A Tensile/hipBLASLt library file (`TensileLibrary*.dat`, `.yaml`).
    TensileLibrary,
    /// A MIOpen database.
    MiopenDb(MiopenDbName),
}

/// A decoded MIOpen database file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MiopenDbName {
    /// The processor (`gfx900`).
    pub processor: String,
    /// CU count from the suffix, if any.
    pub cus: Option<u32>,
    /// `_sramecc` / `_nosramecc` / `_xnack` qualifiers found in the DbId.
    pub qualifiers: Vec<String>,
    /// Backend (`HIP`, `OpenCL`), for find-dbs.
    pub backend: Option<String>,
    /// Kind of database.
    pub kind: MiopenKind,
    /// Whether the file is bzip2-compressed (`.bz2`).
    pub compressed: bool,
}

/// Kind of MIOpen database file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MiopenKind {
    /// System find-db (`.fdb.txt`).
    FindDb,
    /// User find-db (`.ufdb.txt`).
    UserFindDb,
    /// System perf-db, SQLite (`.db`) or text (`.db.txt`).
    PerfDb,
    /// User perf-db (`.udb`, `.udb.txt`).
    UserPerfDb,
    /// Kernel binary cache (`.kdb`, `.ukdb`).
    KernelDb,
}

impl MiopenKind {
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            MiopenKind::FindDb => "find-db",
            MiopenKind::UserFindDb => "user-find-db",
            MiopenKind::PerfDb => "perf-db",
            MiopenKind::UserPerfDb => "user-perf-db",
            MiopenKind::KernelDb => "kernel-db",
        }
    }
}

/// Classifies a file by its name alone.
pub fn classify(name: &str) -> Option<NamedKind> {
    let lower = name.to_ascii_lowercase();
    if (name.contains("TensileLibrary")
        || name.contains("TensileLiteLibrary")
        || name.contains("hipblasltExtOpLibrary"))
        && (lower.ends_with(".dat") || lower.ends_with(".yaml") || lower.ends_with(".yml"))
    {
        return Some(NamedKind::TensileLibrary);
    }
    miopen_db_name(name).map(NamedKind::MiopenDb)
}

/// Decodes a MIOpen database file name (`gfx900_64.HIP.fdb.txt.bz2`, `gfx942130.db`).
pub fn miopen_db_name(name: &str) -> Option<MiopenDbName> {
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
        [b, "fdb", "txt"] => (MiopenKind::FindDb, Some(b.to_string())),
        [b, .., "ufdb", "txt"] => (MiopenKind::UserFindDb, Some(b.to_string())),
        ["db"] | ["db", "txt"] => (MiopenKind::PerfDb, None),
        [.., "udb"] | [.., "udb", "txt"] => (MiopenKind::UserPerfDb, None),
        ["kdb"] | [.., "ukdb"] => (MiopenKind::KernelDb, None),
        _ => return None,
    };
    // Longest known processor name that prefixes the base.
    let processor = rocpath_arch::TARGETS
        .iter()
        .map(|t| t.name)
        .filter(|n| !n.contains("generic") && base.starts_with(n))
        .max_by_key(|n| n.len())?;
    let mut tail = &base[processor.len()..];
    let mut qualifiers = Vec::new();
    for q in ["_nosramecc", "_sramecc", "_xnack"] {
        if let Some(t) = tail.strip_prefix(q) {
            qualifiers.push(q.trim_start_matches('_').to_string());
            tail = t;
        }
    }
    let cus = if tail.is_empty() {
        None
    } else if let Some(d) = tail.strip_prefix('_') {
        Some(d.parse().ok()?)
    } else {
        Some(u32::from_str_radix(tail, 16).ok()?)
    };
    Some(MiopenDbName {
        processor: processor.to_string(),
        cus,
        qualifiers,
        backend,
        kind,
        compressed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miopen_names() {
        let n = miopen_db_name("gfx900_64.HIP.fdb.txt.bz2").unwrap();
        assert_eq!(
            (n.processor.as_str(), n.cus, n.kind, n.compressed),
            ("gfx900", Some(64), MiopenKind::FindDb, true)
        );
        let n = miopen_db_name("gfx90878.HIP.fdb.txt").unwrap();
        assert_eq!((n.processor.as_str(), n.cus), ("gfx908", Some(120)));
        let n = miopen_db_name("gfx942130.db").unwrap();
        assert_eq!(
            (n.processor.as_str(), n.cus, n.kind),
            ("gfx942", Some(304), MiopenKind::PerfDb)
        );
        let n = miopen_db_name("gfx90a68.HIP.fdb.txt.bz2").unwrap();
        assert_eq!((n.processor.as_str(), n.cus), ("gfx90a", Some(104)));
        let n = miopen_db_name("gfx110136.HIP.fdb.txt.bz2").unwrap();
        assert_eq!((n.processor.as_str(), n.cus), ("gfx1101", Some(54)));
        let n = miopen_db_name("gfx1030_36.db.bz2").unwrap();
        assert_eq!((n.processor.as_str(), n.cus), ("gfx1030", Some(36)));
        let n = miopen_db_name("gfx900_64.HIP.3_5_1_5b515cf1bca-dirty.ufdb.txt").unwrap();
        assert_eq!(n.kind, MiopenKind::UserFindDb);
        let n = miopen_db_name("gfx900.kdb").unwrap();
        assert_eq!((n.kind, n.cus), (MiopenKind::KernelDb, None));
        assert!(miopen_db_name("gfx900_64.txt").is_none());
        assert!(miopen_db_name("libfoo.db").is_none());
    }

    #[test]
    fn tensile_names() {
        assert_eq!(
            classify("TensileLibrary_lazy_gfx90a.dat"),
            Some(NamedKind::TensileLibrary)
        );
        assert_eq!(
            classify("TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback.dat"),
            Some(NamedKind::TensileLibrary)
        );
        assert_eq!(classify("TensileLibrary_gfx90a.co"), None);
    }
}
