//! `rocpath arch NAME`: which rows a name selects, and the JSON document of the table.

use crate::{TARGETS, TargetId, TargetInfo};
use rocpath_evidence::{Class, Evidence, Proof};
use serde::Serialize;

/// A name that selects no row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown gfx target {name:?}; `rocpath arch` lists the {known} targets LLVM 22 knows")]
pub struct UnknownTarget {
    /// The name as given.
    pub name: String,
    /// How many targets the table has.
    pub known: usize,
}

/// The rows a name selects: the whole table without one; the one row of a processor
/// (`gfx900`) or target id (`gfx90a:xnack+`), in detail (`true`); or the rows whose name
/// starts with it (`gfx11`).
pub fn select(name: Option<&str>) -> Result<(Vec<&'static TargetInfo>, bool), UnknownTarget> {
    let Some(n) = name else {
        return Ok((TARGETS.iter().collect(), false));
    };
    let processor = if n.contains(':') {
        TargetId::parse(n).map_or_else(|_| n.to_string(), |t| t.processor)
    } else {
        n.to_string()
    };
    if let Some(t) = crate::target(&processor) {
        return Ok((vec![t], true));
    }
    let rows: Vec<&TargetInfo> = TARGETS
        .iter()
        .filter(|t| t.name.starts_with(processor.as_str()))
        .collect();
    if rows.is_empty() {
        return Err(UnknownTarget {
            name: n.to_string(),
            known: TARGETS.len(),
        });
    }
    Ok((rows, false))
}

/// One row of the JSON table, with its evidence.
#[derive(Debug, Serialize)]
pub struct ArchRow<'a> {
    /// The row.
    #[serde(flatten)]
    pub info: &'a TargetInfo,
    /// Evidence: `arch.llvm22_processor_table`, because of the row's LLVM source.
    pub evidence: Evidence,
}

/// The JSON document of `rocpath arch`.
#[derive(Debug, Serialize)]
pub struct ArchDoc<'a> {
    /// The rows selected.
    pub targets: Vec<ArchRow<'a>>,
}

impl<'a> ArchDoc<'a> {
    /// The document of `rows`.
    pub fn new(rows: &[&'a TargetInfo]) -> ArchDoc<'a> {
        let targets = rows
            .iter()
            .map(|t| ArchRow {
                info: t,
                evidence: Evidence::new(
                    Class::Confirmed,
                    Proof::CodeVerified,
                    "arch.llvm22_processor_table",
                )
                .because(t.source),
            })
            .collect();
        ArchDoc { targets }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_selects_one_row_a_prefix_several() {
        let (rows, detail) = select(Some("gfx90a:xnack+")).unwrap();
        assert_eq!((rows[0].name, rows.len(), detail), ("gfx90a", 1, true));
        let (rows, detail) = select(Some("gfx11")).unwrap();
        assert!(!detail && rows.len() > 1 && rows.iter().all(|r| r.name.starts_with("gfx11")));
        assert_eq!(select(None).unwrap().0.len(), TARGETS.len());
        assert_eq!(
            select(Some("vega")).unwrap_err(),
            UnknownTarget {
                name: "vega".into(),
                known: TARGETS.len()
            }
        );
    }
}
