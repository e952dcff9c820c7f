//! The records inside an imported document. Every rocpath JSON document is
//! `{"schema", "observed", ...payload}` and every record in the payload is a JSON object with
//! an `evidence` member (`class`, `kind`, `rule`, `sources[]`). This module finds them without
//! knowing the schema, so documents of new producers import without changes.

use rocpath_evidence::{Class, Evidence, Locator};
use serde_json::Value;

/// One record of a document: where it is and its evidence.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    /// JSON pointer from the document root (`/code_objects/3`).
    pub pointer: String,
    /// The record object.
    pub value: &'a Value,
    /// Its evidence, parsed.
    pub evidence: Evidence,
}

/// Parses the `evidence` member of an object, if it is well-formed.
pub fn evidence_of(v: &Value) -> Option<Evidence> {
    let e = v.as_object()?.get("evidence")?;
    serde_json::from_value(e.clone()).ok()
}

/// Every record in the document, in document order (parents before their children).
pub fn records(doc: &Value) -> Vec<Record<'_>> {
    let mut out = Vec::new();
    walk(doc, &mut String::new(), &mut out);
    out
}

fn walk<'a>(v: &'a Value, ptr: &mut String, out: &mut Vec<Record<'a>>) {
    match v {
        Value::Object(m) => {
            if let Some(ev) = evidence_of(v) {
                out.push(Record {
                    pointer: ptr.clone(),
                    value: v,
                    evidence: ev,
                });
            }
            for (k, child) in m {
                if k == "evidence" || k == "observed" {
                    continue;
                }
                if child.is_object() || child.is_array() {
                    let len = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&escape_token(k));
                    walk(child, ptr, out);
                    ptr.truncate(len);
                }
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                if child.is_object() || child.is_array() {
                    let len = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&i.to_string());
                    walk(child, ptr, out);
                    ptr.truncate(len);
                }
            }
        }
        _ => {}
    }
}

fn escape_token(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

/// The record at `pointer`, if the pointer resolves to an object that carries evidence.
pub fn record_at<'a>(doc: &'a Value, pointer: &str) -> Option<Record<'a>> {
    let v = doc.pointer(pointer)?;
    Some(Record {
        pointer: pointer.to_string(),
        value: v,
        evidence: evidence_of(v)?,
    })
}

/// The records whose scalar fields equal every `(field, value)` of `filter` (numbers and
/// booleans compare by their JSON text).
pub fn records_where<'a>(
    doc: &'a Value,
    filter: &std::collections::BTreeMap<String, String>,
) -> Vec<Record<'a>> {
    records(doc)
        .into_iter()
        .filter(|r| {
            filter.iter().all(|(k, want)| match r.value.get(k) {
                Some(Value::String(s)) => s == want,
                Some(Value::Number(n)) => n.to_string() == *want,
                Some(Value::Bool(b)) => b.to_string() == *want,
                _ => false,
            })
        })
        .collect()
}

/// The strongest class among records (confirmed > inferred > unresolved > limited); `None`
/// when there are none.
pub fn strongest<'r, I: IntoIterator<Item = &'r Record<'r>>>(recs: I) -> Option<Class> {
    recs.into_iter().map(|r| r.evidence.class).min()
}

/// Every locator of every record's evidence.
pub fn locators(doc: &Value) -> Vec<Locator> {
    records(doc)
        .into_iter()
        .flat_map(|r| r.evidence.sources)
        .collect()
}

/// A short label for a record: the first of `name`, `solver`, `target`, `path`, `case`, `id`
/// that it has, else its pointer.
pub fn label(r: &Record<'_>) -> String {
    for k in ["name", "solver", "case", "target", "library", "path", "id"] {
        if let Some(Value::String(s)) = r.value.get(k) {
            if !s.is_empty() {
                return s.clone();
            }
        }
    }
    r.pointer.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(class: &str) -> Value {
        json!({"class": class, "kind": "shipped_artifact_verified", "rule": "r",
               "sources": [{"path": "a.so", "line": 3}]})
    }

    #[test]
    fn finds_nested_records_with_pointers() {
        let doc = json!({
            "schema": "rocpath.isa/1",
            "observed": {"tool": "rocpath"},
            "code_objects": [
                {"target": "gfx900", "evidence": ev("confirmed"),
                 "kernels": [{"name": "k/1", "evidence": ev("inferred")}]},
                {"target": "gfx906", "evidence": ev("limited")}
            ],
            "odd~key": {"x": {"evidence": ev("unresolved")}}
        });
        let rs = records(&doc);
        let ptrs: Vec<&str> = rs.iter().map(|r| r.pointer.as_str()).collect();
        assert_eq!(
            ptrs,
            [
                "/code_objects/0",
                "/code_objects/0/kernels/0",
                "/code_objects/1",
                "/odd~0key/x"
            ]
        );
        assert_eq!(
            record_at(&doc, "/code_objects/0/kernels/0").map(|r| label(&r)),
            Some("k/1".into())
        );
        assert!(record_at(&doc, "/code_objects/9").is_none());
        assert!(record_at(&doc, "/code_objects").is_none());
        let f = [("target".to_string(), "gfx906".to_string())]
            .into_iter()
            .collect();
        let m = records_where(&doc, &f);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].evidence.class, Class::Limited);
        assert_eq!(strongest(&rs), Some(Class::Confirmed));
        assert_eq!(locators(&doc).len(), 4);
    }

    #[test]
    fn malformed_evidence_is_not_a_record() {
        let doc = json!({"a": {"evidence": {"class": "sure"}}, "b": {"evidence": "x"}});
        assert!(records(&doc).is_empty());
    }
}
