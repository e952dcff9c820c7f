//! Every document the ledger reads, read with its own type: what a producer prints reads back
//! as that type and writes again as it was printed (the producers' CLI tests call
//! [`reads_back`] on their output; the ledger's test documents are checked here), so a field
//! renamed, dropped or of another shape on either side fails a test instead of reading as
//! missing. The ledger keeps no projection of any producer's document.

use rocpath_docs::schema as s;
use serde_json::Value;

/// Every document of the schema among the ledger's test documents (printed by this
/// workspace's binary: a gates scan with `--blame`, …).
fn samples(schema: &str) -> Vec<Value> {
    let mut out = Vec::new();
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

/// As [`reads_back`], for a document whose type skips some values when read (the model's own
/// derived values, printed for people): the document as printed without the fields named
/// `skipped`, wherever they are, is what the type writes again.
pub(crate) fn reads_back_except<T: serde::de::DeserializeOwned + serde::Serialize>(
    json: Value,
    skipped: &[&str],
) {
    fn strip(v: &mut Value, skipped: &[&str]) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| !skipped.contains(&k.as_str()));
                m.values_mut().for_each(|c| strip(c, skipped));
            }
            Value::Array(a) => a.iter_mut().for_each(|c| strip(c, skipped)),
            _ => {}
        }
    }
    let (mut printed, again) = typed_again::<T>(json);
    strip(&mut printed, skipped);
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
        for v in samples(schema.id) {
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
