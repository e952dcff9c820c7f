//! Files recognised by name: Tensile library indexes and MIOpen databases (names decoded by
//! `rocpath_miopen::dbname`).

use rocpath_miopen::dbname::DbName;

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

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;

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
