//! MIOpen's solver registry: id ↔ name, from `data/miopen_solvers.tsv` (derived from MIOpen's
//! source, MIT licence; see `SOURCES.md`). Ids are what MIOpenDriver prints
//! (`Solution: 14/ConvBinWinograd3x3U`) and what `-S` accepts.

use std::sync::OnceLock;

const TSV: &str = include_str!("../data/miopen_solvers.tsv");

/// One registry row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solver {
    /// Registry id.
    pub id: u64,
    /// Name in the current registry (`(removed)` when gone).
    pub name: &'static str,
    /// Name in the 2024 registry (MIOpen 2d1fd997), empty after it.
    pub legacy_name: &'static str,
    /// `Convolution`, `Fusion`, `BatchNorm`, …
    pub primitive: &'static str,
    /// `miopenConvolutionAlgoDirect`, …
    pub algo: &'static str,
    /// `active`, `renamed_since_2024`, `removed_since_2024`, `removed`, `added_after_2024`.
    pub status: &'static str,
}

fn table() -> &'static [Solver] {
    static T: OnceLock<Vec<Solver>> = OnceLock::new();
    T.get_or_init(|| {
        TSV.lines()
            .skip(1)
            .filter_map(|l| {
                let f: Vec<&'static str> = l.split('\t').collect();
                Some(Solver {
                    id: f.first()?.parse().ok()?,
                    name: f.get(1)?,
                    legacy_name: f.get(2).copied().unwrap_or(""),
                    primitive: f.get(3).copied().unwrap_or(""),
                    algo: f.get(4).copied().unwrap_or(""),
                    status: f.get(6).copied().unwrap_or(""),
                })
            })
            .collect()
    })
}

/// All rows, by id.
pub fn all() -> &'static [Solver] {
    table()
}

/// The row for an id.
pub fn by_id(id: u64) -> Option<&'static Solver> {
    table().iter().find(|s| s.id == id)
}

/// The row for a name: the current registry first, then the 2024 one.
pub fn by_name(name: &str) -> Option<&'static Solver> {
    let t = table();
    t.iter()
        .find(|s| s.name == name)
        .or_else(|| t.iter().find(|s| s.legacy_name == name))
}

/// The name to show for an id: the current name, or the 2024 name for removed solvers.
pub fn display_name(s: &Solver) -> &'static str {
    if s.name.starts_with('(') && !s.legacy_name.is_empty() {
        s.legacy_name
    } else {
        s.name
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn known_ids_match_real_logs() {
        // Pairs printed by MIOpen 3.5.1 (MIOpenDriver `Solution: id/name`, `Solution id (n)`).
        for (id, name) in [
            (2, "ConvAsm1x1U"),
            (11, "ConvOclDirectFwd"),
            (14, "ConvBinWinograd3x3U"),
            (26, "ConvHipImplicitGemmV4R1Fwd"),
            (53, "ConvBinWinogradRxSf2x3"),
            (80, "ConvHipImplicitGemmForwardV4R5Xdlops"),
            (85, "ConvDirectNaiveConvFwd"),
            (89, "GemmFwd1x1_0_1_int8"),
            (91, "GemmFwdRest"),
            (98, "ConvMlirIgemmFwd"),
            (114, "ConvCkIgemmFwdV6r1DlopsNchw"),
            (128, "ConvHipImplicitGemmFwdXdlops"),
        ] {
            assert_eq!(by_name(name).map(|s| s.id), Some(id), "{name}");
            assert_eq!(by_id(id).map(display_name), Some(name), "{id}");
        }
        assert!(all().len() >= 217);
        assert_eq!(by_name("NoSuchSolver"), None);
    }
}
