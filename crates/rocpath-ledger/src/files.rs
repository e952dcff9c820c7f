//! Reading and writing the ledger's files: TOML for what people write (claims, questions,
//! cases, `ledger.toml`), JSON for imported observations. Pure: text in, values or errors out.

use crate::model::*;
use thiserror::Error;

/// Why a ledger file could not be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not valid TOML / JSON, or a field of the wrong type.
    #[error("{0}")]
    Syntax(String),
    /// The `schema` field names another record type or a newer version.
    #[error("schema {found:?}: expected {expected:?}{hint}")]
    Schema {
        /// What the file says.
        found: String,
        /// What this reader reads.
        expected: &'static str,
        /// A hint (newer version).
        hint: &'static str,
    },
    /// An id that cannot be a file name.
    #[error(
        "id {0:?} is not valid: use letters, digits, '.', '_' and '-' (at most 128, not starting with '.' or '-')"
    )]
    Id(String),
    /// A date that is not `YYYY-MM-DD`.
    #[error("date {0:?} is not YYYY-MM-DD")]
    Date(String),
}

/// Whether `s` can be a record id (and so a file name).
pub fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && !s.starts_with('.')
        && !s.starts_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

/// Whether `s` is a `YYYY-MM-DD` date (digits in the right places, month 01-12, day 01-31).
pub fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if !(digits(0..4) && digits(5..7) && digits(8..10)) {
        return false;
    }
    let month = (b[5] - b'0') * 10 + (b[6] - b'0');
    let day = (b[8] - b'0') * 10 + (b[9] - b'0');
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

pub(crate) fn check_schema(found: &str, expected: &'static str) -> Result<(), ParseError> {
    if found == expected {
        return Ok(());
    }
    let same_kind =
        found.rsplit_once('/').map(|(k, _)| k) == expected.rsplit_once('/').map(|(k, _)| k);
    Err(ParseError::Schema {
        found: found.to_string(),
        expected,
        hint: if same_kind {
            " (another version of the ledger format; this rocpath reads version 1)"
        } else {
            ""
        },
    })
}

pub(crate) fn check_id(id: &str) -> Result<(), ParseError> {
    if valid_id(id) {
        Ok(())
    } else {
        Err(ParseError::Id(id.to_string()))
    }
}

fn toml_err(e: toml::de::Error) -> ParseError {
    ParseError::Syntax(e.to_string().trim_end().to_string())
}

/// Parses `ledger.toml`.
pub fn parse_meta(text: &str) -> Result<LedgerMeta, ParseError> {
    let m: LedgerMeta = toml::from_str(text).map_err(toml_err)?;
    check_schema(&m.schema, LEDGER_SCHEMA)?;
    for w in &m.worlds {
        if w.id.trim().is_empty() {
            return Err(ParseError::Syntax("a [[world]] has an empty id".into()));
        }
    }
    Ok(m)
}

/// Parses `claims/<id>.toml`. A missing class or support is not a parse error: `check`
/// reports it with its rule.
pub fn parse_claim(text: &str) -> Result<Claim, ParseError> {
    let c: Claim = toml::from_str(text).map_err(toml_err)?;
    check_schema(&c.schema, CLAIM_SCHEMA)?;
    check_id(&c.id)?;
    for h in &c.history {
        if !valid_date(&h.date) {
            return Err(ParseError::Date(h.date.clone()));
        }
    }
    for s in &c.support {
        let n = usize::from(s.observation.is_some())
            + usize::from(s.claim.is_some())
            + usize::from(s.source.is_some());
        if n != 1 {
            return Err(ParseError::Syntax(format!(
                "a [[support]] names {n} of observation / claim / source; it must name exactly one"
            )));
        }
        if s.observation.is_none() && (s.record.is_some() || !s.filter.is_empty()) {
            return Err(ParseError::Syntax(
                "record and where select inside an observation; this [[support]] names none".into(),
            ));
        }
        if let Some(r) = &s.record {
            if !(r.is_empty() || r.starts_with('/')) {
                return Err(ParseError::Syntax(format!(
                    "record {r:?} is not a JSON pointer (it starts with '/')"
                )));
            }
        }
    }
    Ok(c)
}

/// Parses `questions/<id>.toml`.
pub fn parse_question(text: &str) -> Result<Question, ParseError> {
    let q: Question = toml::from_str(text).map_err(toml_err)?;
    check_schema(&q.schema, QUESTION_SCHEMA)?;
    check_id(&q.id)?;
    Ok(q)
}

/// Parses `cases/<id>.toml`.
pub fn parse_case(text: &str) -> Result<Case, ParseError> {
    let c: Case = toml::from_str(text).map_err(toml_err)?;
    check_schema(&c.schema, CASE_SCHEMA)?;
    check_id(&c.id)?;
    if !c.date.is_empty() && !valid_date(&c.date) {
        return Err(ParseError::Date(c.date.clone()));
    }
    Ok(c)
}

/// Parses `observations/<id>.json`.
pub fn parse_observation(bytes: &[u8]) -> Result<Observation, ParseError> {
    let o: Observation =
        serde_json::from_slice(bytes).map_err(|e| ParseError::Syntax(e.to_string()))?;
    check_schema(&o.schema, OBSERVATION_SCHEMA)?;
    check_id(&o.id)?;
    if !o.document.is_object() {
        return Err(ParseError::Syntax("document is not a JSON object".into()));
    }
    Ok(o)
}

/// Which kind of ledger file a path inside the ledger is, by its folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `ledger.toml`.
    Meta,
    /// `claims/*.toml`.
    Claim,
    /// `questions/*.toml`.
    Question,
    /// `cases/*.toml`.
    Case,
    /// `observations/*.json`.
    Observation,
}

/// Parses any ledger file by kind; for fuzzing and for tools that validate one file.
pub fn parse_any(kind: FileKind, bytes: &[u8]) -> Result<(), ParseError> {
    let text = || std::str::from_utf8(bytes).map_err(|e| ParseError::Syntax(e.to_string()));
    match kind {
        FileKind::Meta => parse_meta(text()?).map(drop),
        FileKind::Claim => parse_claim(text()?).map(drop),
        FileKind::Question => parse_question(text()?).map(drop),
        FileKind::Case => parse_case(text()?).map(drop),
        FileKind::Observation => parse_observation(bytes).map(drop),
    }
}

/// Serializes a TOML record (claims, questions, cases, `ledger.toml`).
pub fn to_toml<T: serde::Serialize>(v: &T) -> Result<String, String> {
    toml::to_string_pretty(v).map_err(|e| e.to_string())
}

/// Serializes an observation: pretty JSON with a final newline.
pub fn observation_to_json(o: &Observation) -> Result<Vec<u8>, String> {
    let mut v = serde_json::to_vec_pretty(o).map_err(|e| e.to_string())?;
    v.push(b'\n');
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_dates() {
        assert!(valid_id("gfx900-dot4.fallback_1"));
        for bad in ["", ".x", "-x", "a/b", "a b", "é", &"x".repeat(129)] {
            assert!(!valid_id(bad), "{bad:?}");
        }
        assert!(valid_date("2026-03-14"));
        for bad in [
            "2026-3-14",
            "2026-13-01",
            "2026-00-10",
            "2026-01-32",
            "20260314xx",
            "abcd-ef-gh",
        ] {
            assert!(!valid_date(bad), "{bad:?}");
        }
    }

    #[test]
    fn claim_round_trip() {
        let text = r#"
schema = "rocpath.ledger.claim/1"
id = "c1"
class = "confirmed"
kind = "shipped_artifact_verified"
world = "gfx900"
floor = "math_library"
layer = "fallback"

[statement]
ja = "gfx900 は積和フォールバック"
en = "gfx900 takes the multiply-add fallback"

[[support]]
observation = "isa-1"
where = { target = "gfx900:xnack-" }

[[history]]
date = "2026-11-20"
class = "confirmed"
"#;
        let c = parse_claim(text).unwrap();
        assert_eq!(c.floor, Some(Floor::MathLibrary));
        assert_eq!(c.support[0].filter["target"], "gfx900:xnack-");
        let again = parse_claim(&to_toml(&c).unwrap()).unwrap();
        assert_eq!(again, c);
    }

    #[test]
    fn schema_version_is_checked() {
        let e = parse_claim("schema = \"rocpath.ledger.claim/2\"\nid = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("another version"), "{e}");
        let e = parse_case("schema = \"rocpath.ledger.claim/1\"\nid = \"x\"\n").unwrap_err();
        assert!(matches!(e, ParseError::Schema { .. }));
    }

    #[test]
    fn support_names_exactly_one_target() {
        let text = "schema = \"rocpath.ledger.claim/1\"\nid = \"x\"\n[[support]]\nobservation = \"a\"\nclaim = \"b\"\n";
        assert!(
            parse_claim(text)
                .unwrap_err()
                .to_string()
                .contains("exactly one")
        );
        let text = "schema = \"rocpath.ledger.claim/1\"\nid = \"x\"\n[[support]]\nclaim = \"b\"\nrecord = \"/a\"\n";
        assert!(parse_claim(text).is_err());
    }

    #[test]
    fn unknown_fields_are_refused() {
        let text = "schema = \"rocpath.ledger.claim/1\"\nid = \"x\"\nclas = \"confirmed\"\n";
        assert!(parse_claim(text).unwrap_err().to_string().contains("clas"));
    }
}
