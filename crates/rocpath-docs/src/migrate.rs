//! Reading older versions of a document: one explicit step per version change.
//!
//! A step takes a document of version N of a schema to version N+1, in place; [`upgrade`]
//! chains them up to the version this build writes and sets the new `schema`. A reader then
//! handles one shape per schema. A document of a newer version than this build writes is
//! refused (its fields may mean something this build does not know); a document of a schema
//! this build does not write is left as it is.

use crate::schema::{self, SchemaId};
use serde_json::{Map, Value};
use thiserror::Error;

/// One step: version `from` of schema `name` to `from + 1`.
struct Step {
    name: &'static str,
    from: u32,
    apply: fn(&mut Map<String, Value>),
}

/// Every step, by schema and version.
const STEPS: &[Step] = &[
    Step {
        name: "lanes",
        from: 1,
        apply: errors_as_items,
    },
    Step {
        name: "ledger.derive",
        from: 1,
        apply: errors_as_items,
    },
    Step {
        name: "loads.module",
        from: 1,
        apply: errors_as_items,
    },
    Step {
        name: "loads.process",
        from: 1,
        apply: errors_as_items,
    },
    Step {
        name: "ollama",
        from: 1,
        apply: errors_as_items,
    },
    Step {
        name: "trace",
        from: 1,
        apply: trace_row_errors_name_their_line,
    },
];

/// What [`upgrade`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrated {
    /// The schema id the document had.
    pub from: String,
    /// The schema id it has now.
    pub to: &'static str,
}

/// Why a document cannot be read as the current version.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MigrateError {
    /// Written by a newer rocpath.
    #[error(
        "{found} is newer than this rocpath reads ({current}); read it with the rocpath that wrote it, or a newer one"
    )]
    Newer {
        /// The document's schema.
        found: String,
        /// The version this build writes.
        current: &'static str,
    },
    /// A version with no step from it (never released).
    #[error("{found}: no migration from this version to {current}")]
    NoStep {
        /// The document's schema.
        found: String,
        /// The version this build writes.
        current: &'static str,
    },
    /// The top level is not an object with a `schema` string.
    #[error("not a rocpath document (no \"schema\" string at the top)")]
    NoSchema,
}

/// Brings `doc` to the version this build writes. `Ok(None)`: it already was, or it is of a
/// schema this build does not write.
pub fn upgrade(doc: &mut Value) -> Result<Option<Migrated>, MigrateError> {
    let map = doc.as_object_mut().ok_or(MigrateError::NoSchema)?;
    let found = map
        .get("schema")
        .and_then(Value::as_str)
        .ok_or(MigrateError::NoSchema)?
        .to_string();
    let Some(id) = SchemaId::parse(&found) else {
        return Ok(None);
    };
    let Some(current) = schema::by_name(id.name) else {
        return Ok(None);
    };
    if id.version == current.version {
        return Ok(None);
    }
    if id.version > current.version {
        return Err(MigrateError::Newer {
            found,
            current: current.id,
        });
    }
    for v in id.version..current.version {
        let step = STEPS
            .iter()
            .find(|s| s.name == current.name && s.from == v)
            .ok_or_else(|| MigrateError::NoStep {
                found: found.clone(),
                current: current.id,
            })?;
        (step.apply)(map);
    }
    map.insert("schema".into(), Value::from(current.id));
    Ok(Some(Migrated {
        from: found,
        to: current.id,
    }))
}

/// Whether a schema id needs [`upgrade`] before it reads as the current version.
pub fn is_older(id: &str) -> bool {
    SchemaId::parse(id)
        .and_then(|s| s.current().map(|c| s.version < c.version))
        .unwrap_or(false)
}

/// `errors[]` of strings (version 1 of lanes, loads.*, ollama) or of `[path, why]` pairs
/// (version 1 of ledger.derive) → items.
fn errors_as_items(doc: &mut Map<String, Value>) {
    let Some(Value::Array(errors)) = doc.get_mut("errors") else {
        return;
    };
    for e in errors.iter_mut() {
        let mut item = Map::new();
        match e {
            Value::String(s) => {
                item.insert("message".into(), Value::String(std::mem::take(s)));
            }
            Value::Array(pair) if pair.len() == 2 && pair.iter().all(Value::is_string) => {
                let why = pair.pop().unwrap_or_default();
                let path = pair.pop().unwrap_or_default();
                item.insert("path".into(), path);
                item.insert("message".into(), why);
            }
            _ => continue,
        }
        *e = Value::Object(item);
    }
}

/// `traces[].errors[].at` → `line` (version 1 of trace).
fn trace_row_errors_name_their_line(doc: &mut Map<String, Value>) {
    let Some(Value::Array(traces)) = doc.get_mut("traces") else {
        return;
    };
    for t in traces {
        let Some(Value::Array(errors)) = t.get_mut("errors") else {
            continue;
        };
        for e in errors {
            if let Some(item) = e.as_object_mut()
                && let Some(at) = item.remove("at")
            {
                item.insert("line".into(), at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_step_leads_to_a_written_version() {
        for s in STEPS {
            let cur = schema::by_name(s.name).unwrap_or_else(|| panic!("{}", s.name));
            assert!(s.from < cur.version, "{} {}", s.name, s.from);
        }
        // Every version below the current one has its step.
        for cur in schema::ALL {
            for v in 1..cur.version {
                assert!(
                    STEPS.iter().any(|s| s.name == cur.name && s.from == v),
                    "{} has no step from {v}",
                    cur.name
                );
            }
        }
    }

    #[test]
    fn lanes_1_errors_become_items() {
        let mut d =
            json!({"schema": "rocpath.lanes/1", "errors": ["a.json: bad", {"message": "x"}]});
        let m = upgrade(&mut d).unwrap().unwrap();
        assert_eq!(
            (m.from.as_str(), m.to),
            ("rocpath.lanes/1", "rocpath.lanes/2")
        );
        assert_eq!(d["schema"], "rocpath.lanes/2");
        assert_eq!(
            d["errors"],
            json!([{"message": "a.json: bad"}, {"message": "x"}])
        );
        let item: Vec<crate::ErrorItem> = serde_json::from_value(d["errors"].clone()).unwrap();
        assert_eq!(item[0].message, "a.json: bad");
    }

    #[test]
    fn derive_1_pairs_become_items() {
        let mut d = json!({"schema": "rocpath.ledger.derive/1", "errors": [["observations/a.json", "bad"]]});
        upgrade(&mut d).unwrap();
        assert_eq!(
            d["errors"],
            json!([{"path": "observations/a.json", "message": "bad"}])
        );
    }

    #[test]
    fn trace_1_row_errors_name_their_line() {
        let mut d = json!({"schema": "rocpath.trace/1",
            "traces": [{"errors": [{"at": 7, "message": "short row"}]}, {"path": "t"}]});
        upgrade(&mut d).unwrap();
        assert_eq!(
            d["traces"][0]["errors"][0],
            json!({"line": 7, "message": "short row"})
        );
    }

    #[test]
    fn current_other_newer_and_broken() {
        let mut d = json!({"schema": "rocpath.inventory/1", "errors": ["kept"]});
        assert_eq!(upgrade(&mut d), Ok(None));
        assert_eq!(d["errors"][0], "kept");
        let mut d = json!({"schema": "other.tool/3"});
        assert_eq!(upgrade(&mut d), Ok(None));
        let mut d = json!({"schema": "rocpath.lanes/9"});
        assert!(matches!(upgrade(&mut d), Err(MigrateError::Newer { .. })));
        let mut d = json!({"schema": "rocpath.lanes/0"});
        assert!(matches!(upgrade(&mut d), Err(MigrateError::NoStep { .. })));
        assert_eq!(upgrade(&mut json!([1])), Err(MigrateError::NoSchema));
        assert_eq!(
            upgrade(&mut json!({"schema": 1})),
            Err(MigrateError::NoSchema)
        );
        assert!(is_older("rocpath.trace/1") && !is_older("rocpath.trace/2"));
        assert!(!is_older("rocpath.nothing/1"));
    }

    proptest::proptest! {
        #[test]
        fn upgrade_never_panics(s in "\\PC{0,40}", errs in proptest::collection::vec("\\PC{0,8}", 0..4)) {
            let mut d = json!({"schema": s, "errors": errs, "traces": [{"errors": [{"at": 1}, 3]}]});
            let _ = upgrade(&mut d);
            let mut d = json!({"schema": "rocpath.lanes/1", "errors": errs});
            upgrade(&mut d).unwrap();
            proptest::prop_assert!(d["errors"].as_array().unwrap().iter().all(|e| e.get("message").is_some()));
        }
    }
}
