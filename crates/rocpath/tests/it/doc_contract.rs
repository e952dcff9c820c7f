//! What the ledger's derivation reads of each producer's document, held against what the
//! producer prints: every field path `rocpath_ledger::derive::reads::fields_read` names for a
//! schema must be in the shape of that producer's `--json` output, as its shape snapshot
//! (`snapshots/cli_*_json_shape.snap`, kept true by the producers' own tests) and the ledger's
//! test documents (printed by this workspace's binary) record it. A field
//! renamed or moved on either side fails here, naming the path, instead of reading as missing.
//!
//! A path below a value the sample prints as `null` or `[]` cannot be checked from the sample
//! and is counted apart; a field only some documents carry is listed in `SOMETIMES` with why.

use rocpath_docs::schema as s;
use serde_json::Value;
use std::collections::BTreeSet;

/// Schema, and the shape snapshot of a document of it.
const PRODUCERS: &[(s::Schema, Option<&str>)] =
    &[(s::EXPLAIN_GEMM, Some("cli_explain_gemm_json_shape"))];

/// Fields the derivation reads that no sample document carries: each is printed only when it
/// has a value (`skip_serializing_if`), in the producer's type named.
const SOMETIMES: &[(&str, &str, &str)] = &[];

/// A path as its parts (`cases[]`, `device`, `arch`); map keys may hold dots.
type Parts = Vec<String>;

/// The shape's paths, and the paths below which the sample says nothing (`null`, `[]`, `{}`).
fn shape_paths(v: &Value, at: &Parts, known: &mut BTreeSet<Parts>, open: &mut BTreeSet<Parts>) {
    match v {
        Value::Object(m) if m.is_empty() => {
            open.insert(at.clone());
        }
        Value::Object(m) => {
            for (k, c) in m {
                let mut p = at.clone();
                p.push(k.clone());
                known.insert(p.clone());
                shape_paths(c, &p, known, open);
            }
        }
        Value::Array(a) => match (a.first(), at.last()) {
            (Some(c), Some(last)) => {
                let mut p = at.clone();
                *p.last_mut().unwrap_or(&mut String::new()) = format!("{last}[]");
                known.insert(p.clone());
                shape_paths(c, &p, known, open);
            }
            (None, Some(last)) => {
                let mut p = at.clone();
                *p.last_mut().unwrap_or(&mut String::new()) = format!("{last}[]");
                open.insert(p);
            }
            (_, None) => {
                open.insert(at.clone());
            }
        },
        Value::Null => {
            open.insert(at.clone());
        }
        _ => {}
    }
}

/// The shape snapshot's document, and every document of the schema among the ledger's test
/// documents (printed by this workspace's binary: a gates scan with `--blame`, …).
fn samples(schema: &str, snap: Option<&str>) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(snap) = snap {
        let path = format!(
            "{}/tests/it/snapshots/{snap}.snap",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| unreachable!("{path}: {e}"));
        let body = text.splitn(3, "---").nth(2).unwrap_or_default();
        out.push(serde_json::from_str(body).unwrap_or_else(|e| unreachable!("{path}: {e}")));
    }
    let dir = format!(
        "{}/../rocpath-ledger/tests/data/derive",
        env!("CARGO_MANIFEST_DIR")
    );
    for e in std::fs::read_dir(&dir)
        .unwrap_or_else(|e| unreachable!("{dir}: {e}"))
        .flatten()
    {
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            if v["schema"] == schema {
                out.push(v);
            }
        }
    }
    out
}

/// Whether `path` (a `*` part standing for any key of a map) is among `known`.
fn matches(path: &[&str], known: &BTreeSet<Parts>) -> bool {
    known.iter().any(|k| {
        k.len() == path.len()
            && path
                .iter()
                .zip(k)
                .all(|(p, k)| p == k || p.strip_prefix('*').is_some_and(|rest| k.ends_with(rest)))
    })
}

#[test]
fn the_ledger_reads_only_fields_the_producers_print() {
    let mut missing = Vec::new();
    let (mut checked, mut unknowable) = (0, 0);
    for (schema, snap) in PRODUCERS {
        let Some(paths) = rocpath_ledger::derive::reads::fields_read(schema.id) else {
            unreachable!("{}: the derivation reads no field of it", schema.id)
        };
        let (mut known, mut open) = (BTreeSet::new(), BTreeSet::new());
        let docs = samples(schema.id, *snap);
        assert!(!docs.is_empty(), "{}: no sample document", schema.id);
        for doc in docs {
            shape_paths(&doc, &Vec::new(), &mut known, &mut open);
        }
        for p in paths {
            let parts: Vec<&str> = p.split('.').collect();
            let below_open = open.iter().any(|o| {
                !o.is_empty()
                    && o.len() < parts.len()
                    && matches(&parts[..o.len()], &BTreeSet::from([o.clone()]))
            });
            if matches(&parts, &known) {
                checked += 1;
            } else if below_open {
                unknowable += 1;
            } else if !SOMETIMES
                .iter()
                .any(|(id, q, _)| *id == schema.id && *q == p)
            {
                missing.push(format!("{}: {p}", schema.id));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "read but not printed:\n{}",
        missing.join("\n")
    );
    // Every exception still names a field the derivation reads (a stale one would hide drift).
    for (id, path, _) in SOMETIMES {
        let reads = rocpath_ledger::derive::reads::fields_read(id).unwrap_or_default();
        assert!(
            reads.iter().any(|r| r == path),
            "{id}: {path} is no longer read"
        );
    }
    assert!(
        checked >= 15,
        "{checked} paths checked, {unknowable} below null, [] or {{}}"
    );
}

/// `json` without the envelope (`schema`, `observed`), and the same read as `T` and written
/// again.
fn typed_again<T: serde::de::DeserializeOwned + serde::Serialize>(
    mut json: Value,
) -> (Value, Value) {
    if let Some(m) = json.as_object_mut() {
        m.remove("schema");
        m.remove("observed");
    }
    let typed: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| unreachable!("the document does not read as its type: {e}"));
    let again = serde_json::to_value(&typed).unwrap_or_else(|e| unreachable!("{e}"));
    (json, again)
}

/// A document the ledger reads with its own type (`rocpath-docs`) reads back whole: the type
/// written again is the document as printed (without the envelope's `schema` and `observed`),
/// so no field is dropped or misnamed on either side.
pub(crate) fn reads_back<T: serde::de::DeserializeOwned + serde::Serialize>(json: Value) {
    let (printed, again) = typed_again::<T>(json);
    assert_eq!(again, printed);
}

/// Whether every field and value of `printed` is in `typed` (which may add fields a newer
/// version prints).
fn holds(typed: &Value, printed: &Value) -> bool {
    match (typed, printed) {
        (Value::Object(t), Value::Object(p)) => p
            .iter()
            .all(|(k, v)| t.get(k).is_some_and(|tv| holds(tv, v))),
        (Value::Array(t), Value::Array(p)) => {
            t.len() == p.len() && t.iter().zip(p).all(|(a, b)| holds(a, b))
        }
        (t, p) => t == p,
    }
}

/// The ledger's test documents of the schemas it reads with their own types (`rocpath-docs`)
/// read as those types and write back with every field they were printed with: nothing
/// printed is dropped or misnamed on the reading side.
#[test]
fn documents_read_whole_read_back_as_printed() {
    fn back<T: serde::de::DeserializeOwned + serde::Serialize>(v: Value) {
        let (printed, again) = typed_again::<T>(v);
        assert!(holds(&again, &printed), "read back as {again:#}");
    }
    let mut n = 0;
    for schema in [s::CHECK, s::GATES, s::PROVENANCE, s::FOLLOW] {
        assert!(rocpath_ledger::derive::reads::fields_read(schema.id).is_none());
        for v in samples(schema.id, None) {
            n += 1;
            match schema.id {
                x if x == s::CHECK.id => back::<rocpath_docs::check::CheckDoc>(v),
                x if x == s::GATES.id => back::<rocpath_docs::gates::GatesDoc>(v),
                x if x == s::PROVENANCE.id => back::<rocpath_docs::provenance::ProvenanceDoc>(v),
                _ => back::<rocpath_docs::follow::FollowDoc>(v),
            }
        }
    }
    assert_eq!(n, 4, "one test document per schema");
}
