//! The applicability model: which convolution solvers MIOpen can use for a problem on a
//! device, decided by the conditions of their `IsApplicable` (and `IsDynamic`,
//! `MayNeedWorkspace`, `GetWti`) as MIOpen's source writes them.
//!
//! The model is data ([`ir::Model`]) read from a MIOpen checkout by `rocpath-miopen-derive`;
//! the ones rocpath ships are listed in [`release`] (`data/miopen-model-*.json`; [`pinned`] is
//! ROCm/MIOpen@2d1fd997's). [`eval::Evaluator`] runs one.

pub mod builtins;
pub mod context;
pub mod eval;
pub mod ir;
pub mod release;

/// The hand-written rules (primitives, build defaults, release overlays), each with its
/// citation; the source reader checks them against the checkout it reads.
pub const RULES: &str = include_str!("../../data/miopen-rules.toml");

/// The model derived from ROCm/MIOpen@2d1fd997, loaded once.
pub fn pinned() -> Result<&'static ir::Model, String> {
    release::by_name("2d1fd997")
        .ok_or_else(|| "no embedded 2d1fd997 model".to_string())?
        .model()
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
