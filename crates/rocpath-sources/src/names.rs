//! Files recognised by name: Tensile library indexes and MIOpen databases (names decoded by
//! `rocpath_miopen_names`).

use rocpath_miopen_names::DbName;

/// What a file's name says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamedKind {
    /// A Tensile/hipBLASLt library file (`TensileLibrary*.dat`, `.yaml`).
    TensileLibrary,
    /// A MIOpen database.
    MiopenDb(DbName),
}

/// Classifies a file by its name alone.
pub fn classify(name: &str) -> Option<NamedKind> {
    let lower = name.to_ascii_lowercase();
    if (name.contains("TensileLibrary")
        || name.contains("TensileLiteLibrary")
        || name.contains("hipblasltExtOpLibrary"))
        && (lower.ends_with(".dat")
            || lower.ends_with(".dat.zlib")
            || lower.ends_with(".yaml")
            || lower.ends_with(".yml"))
    {
        return Some(NamedKind::TensileLibrary);
    }
    DbName::parse(name).map(NamedKind::MiopenDb)
}

/// A per-problem catalog of a lazily loaded library (rocBLAS's
/// `TensileLibrary_Type_HH_Contraction_…_gfx906.dat`, hipBLASLt's
/// `TensileLibrary_HH_HH_…_Contraction_…_gfx942.dat`): a file an index names and the library
/// reads on first use of its problem type, not the catalog it reads first.
pub fn per_problem_catalog(name: &str) -> bool {
    name.contains("TensileLibrary") && name.contains("_Contraction_")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;

    #[test]
    fn per_problem_catalogs() {
        assert!(per_problem_catalog(
            "TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx906.dat"
        ));
        assert!(per_problem_catalog(
            "TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat"
        ));
        assert!(!per_problem_catalog("TensileLibrary_lazy_gfx906.dat"));
        assert!(!per_problem_catalog("TensileLibrary.dat"));
        // A whole catalog named by its type (hipBLASLt's indexed catalogs) is read first.
        assert!(!per_problem_catalog("TensileLibrary_Type_SS_gfx942.dat"));
    }

    #[test]
    fn miopen_names() {
        let Some(NamedKind::MiopenDb(n)) = classify("gfx900_64.HIP.fdb.txt.bz2") else {
            panic!("not a MIOpen db");
        };
        assert_eq!((n.processor.as_str(), n.cus), ("gfx900", Some(64)));
        assert_eq!(classify("libfoo.db"), None);
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
        assert_eq!(
            classify("TensileLibrary_lazy_gfx942.dat.zlib"),
            Some(NamedKind::TensileLibrary)
        );
    }
}
