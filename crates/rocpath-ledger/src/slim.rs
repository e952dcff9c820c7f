//! Observations read for the checks only: streamed from the file, with every subtree that
//! holds no record left out.
//!
//! An imported document can be large (an inventory of a whole install lists every kernel's
//! metadata), and as a JSON tree in memory it costs five to seven times its file. The checks
//! read only the records (objects with `evidence`: their scalar fields and evidence) and the
//! fields [`schemas::CHECK_FIELDS`] names (`forced`, `outcome`); every other object or array
//! is kept as an empty one, so that pointers to it still resolve to a value. The file is
//! parsed from a buffered reader, one observation at a time.

use crate::files::{ParseError, check_id, check_schema};
use crate::model::{Imported, Input, OBSERVATION_SCHEMA, Observation};
use crate::schemas;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::path::Path;

/// An observation file as the checks need it: its document pruned (see the module notes).
pub fn read_observation(path: &Path) -> Result<Observation, ParseError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Envelope {
        schema: String,
        id: String,
        imported: Imported,
        #[serde(default)]
        inputs: Vec<Input>,
        #[serde(default)]
        #[allow(dead_code)]
        quotes: IgnoredAny,
        document: Pruned,
    }
    let f = std::fs::File::open(path).map_err(|e| ParseError::Read(e.to_string()))?;
    let rd = std::io::BufReader::with_capacity(1 << 16, f);
    let e: Envelope = serde_json::from_reader(rd).map_err(|e| ParseError::json(&e))?;
    check_schema(&e.schema, OBSERVATION_SCHEMA)?;
    check_id(&e.id)?;
    if !e.document.value.is_object() {
        return Err(ParseError::Form(
            "document is not a JSON object; import the rocpath --json output again".into(),
        ));
    }
    let mut document = e.document.value;
    crate::files::current_version(&mut document)?;
    Ok(Observation {
        schema: e.schema,
        id: e.id,
        imported: e.imported,
        inputs: e.inputs,
        quotes: Vec::new(),
        document,
    })
}

/// A JSON value with the subtrees that hold no record emptied.
struct Pruned {
    value: Value,
    /// True when the value holds a record or a field the checks read.
    keep: bool,
}

impl Pruned {
    fn scalar(value: Value) -> Pruned {
        Pruned { value, keep: false }
    }
}

impl<'de> Deserialize<'de> for Pruned {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PrunedVisitor)
    }
}

struct PrunedVisitor;

impl<'de> Visitor<'de> for PrunedVisitor {
    type Value = Pruned;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::String(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::String(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::Null))
    }
    fn visit_none<E: de::Error>(self) -> Result<Pruned, E> {
        Ok(Pruned::scalar(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pruned, A::Error> {
        let mut items = Vec::new();
        let mut keep = false;
        while let Some(p) = seq.next_element::<Pruned>()? {
            keep |= p.keep;
            items.push(p.value);
        }
        if !keep {
            items = Vec::new();
        }
        Ok(Pruned {
            value: Value::Array(items),
            keep,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pruned, A::Error> {
        let mut m = Map::new();
        let mut keep = false;
        while let Some(k) = map.next_key::<String>()? {
            if k == "evidence" || schemas::CHECK_FIELDS.contains(&k.as_str()) {
                let v: Value = map.next_value()?;
                keep = true;
                m.insert(k, v);
            } else {
                let p: Pruned = map.next_value()?;
                keep |= p.keep;
                m.insert(k, p.value);
            }
        }
        if !keep {
            m = Map::new();
        }
        Ok(Pruned {
            value: Value::Object(m),
            keep,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prune(text: &str) -> Value {
        serde_json::from_str::<Pruned>(text)
            .map(|p| p.value)
            .unwrap_or(Value::Null)
    }

    #[test]
    fn keeps_records_and_the_path_to_them_only() {
        let doc = r#"{"schema": "rocpath.inventory/1", "observed": {"tool": "rocpath"},
            "code_objects": [{"target": "gfx900", "size": 3, "kernels": [{"name": "k"}],
                              "evidence": {"class": "confirmed"}}],
            "targets": {"gfx900": {"code_objects": 1}},
            "cases": [{"outcome": "success", "forced": {"solver": "S"}, "lines": [1, 2]}]}"#;
        let v = prune(doc);
        assert_eq!(v["schema"], "rocpath.inventory/1");
        assert_eq!(v["observed"], serde_json::json!({}));
        assert_eq!(v["targets"], serde_json::json!({}));
        let co = &v["code_objects"][0];
        assert_eq!(co["target"], "gfx900");
        assert_eq!(co["size"], 3);
        assert_eq!(co["kernels"], serde_json::json!([]));
        assert_eq!(co["evidence"]["class"], "confirmed");
        assert_eq!(v["cases"][0]["forced"]["solver"], "S");
        assert_eq!(v["cases"][0]["lines"], serde_json::json!([]));
    }
}
