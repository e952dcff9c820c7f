//! The applicability model: which convolution solvers MIOpen can use for a problem on a
//! device, decided by the conditions of their `IsApplicable` (and `IsDynamic`,
//! `MayNeedWorkspace`, `GetWti`) as MIOpen's source writes them.
//!
//! The model is data ([`ir::Model`]) read from a MIOpen checkout by `rocpath-miopen-derive`;
//! the one derived from the pinned commit ships with rocpath (`data/miopen-model-2d1fd997.json`,
//! [`pinned`]). [`eval::Evaluator`] runs it.

pub mod builtins;
pub mod context;
pub mod eval;
pub mod ir;

use std::sync::OnceLock;

/// The hand-written rules (primitives, build defaults, release overlays), each with its
/// citation; the source reader checks them against the checkout it reads.
pub const RULES: &str = include_str!("../../data/miopen-rules.toml");

const PINNED: &str = include_str!("../../data/miopen-model-2d1fd997.json");

/// The model derived from ROCm/MIOpen@2d1fd997, loaded once.
pub fn pinned() -> Result<&'static ir::Model, String> {
    static M: OnceLock<Result<ir::Model, String>> = OnceLock::new();
    M.get_or_init(|| serde_json::from_str(PINNED).map_err(|e| format!("embedded model: {e}")))
        .as_ref()
        .map_err(Clone::clone)
}

/// Reads a model document (the output of `rocpath explain miopen derive --out FILE`).
pub fn from_json(text: &str) -> Result<ir::Model, String> {
    let m: ir::Model =
        serde_json::from_str(text).map_err(|e| format!("not a rocpath MIOpen model: {e}"))?;
    if m.schema != rocpath_docs::schema::MIOPEN_MODEL.id {
        return Err(format!(
            "schema {:?}, expected {:?}",
            m.schema,
            rocpath_docs::schema::MIOPEN_MODEL.id
        ));
    }
    Ok(m)
}
