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

/// Why a file is not a model `explain miopen --model` can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelFileError {
    /// Not JSON of a model's shape.
    #[error("not a rocpath MIOpen model (line {line}, column {column}): {message}")]
    NotAModel {
        /// Line of the first problem (1-based).
        line: usize,
        /// Its column.
        column: usize,
        /// What the JSON reader said.
        message: String,
    },
    /// A model of another schema (version).
    #[error("schema {found:?}, expected {:?} (derive the model again with this rocpath: `rocpath explain miopen-derive SRC --out FILE`)", rocpath_docs::schema::MIOPEN_MODEL.id)]
    OtherSchema {
        /// The schema the file names.
        found: String,
    },
}

/// Reads a model document (the output of `rocpath explain miopen-derive SRC --out FILE`).
pub fn from_json(text: &str) -> Result<ir::Model, ModelFileError> {
    let m: ir::Model = serde_json::from_str(text).map_err(|e| ModelFileError::NotAModel {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    if m.schema != rocpath_docs::schema::MIOPEN_MODEL.id {
        return Err(ModelFileError::OtherSchema { found: m.schema });
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that is no model says where the reading stopped; a model of another version
    /// says how to make one this build reads.
    #[test]
    fn a_file_that_is_no_model_is_named_by_what_is_wrong() {
        assert!(matches!(
            from_json("{\n  \"schema\": 3"),
            Err(ModelFileError::NotAModel { line: 2, .. })
        ));
        let Some(embedded) = release::by_name("2d1fd997") else {
            unreachable!("the pinned model is embedded")
        };
        let text = embedded.text().unwrap();
        let other = text.replacen(
            rocpath_docs::schema::MIOPEN_MODEL.id,
            "rocpath.miopen-model/0",
            1,
        );
        let e = from_json(&other).err();
        assert!(
            matches!(&e, Some(ModelFileError::OtherSchema { found }) if found == "rocpath.miopen-model/0"),
            "{e:?}"
        );
        assert!(from_json(&text).is_ok());
    }
}
