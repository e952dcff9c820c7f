//! Reading and writing the ledger's files: TOML for what people write (claims, questions,
//! cases, `ledger.toml`), JSON for imported observations. Pure: text in, values or errors out.

use crate::model::*;
use thiserror::Error;

/// A place in a file: 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` in `text` (an offset past the end is the end).
    pub fn of_offset(text: &str, offset: usize) -> Position {
        let mut end = offset.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &text[..end];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Position {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Why a ledger file could not be read. Each message ends with what to do about it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// Not valid TOML or JSON, or a field of the wrong name or type.
    #[error("{}{message}; correct the file there", at_prefix(at))]
    Syntax {
        /// Where the reader stopped, when it knows.
        at: Option<Position>,
        /// What it found there.
        message: String,
    },
    /// Not UTF-8 text.
    #[error("not UTF-8 text from byte offset {offset} on; save the file as UTF-8")]
    NotUtf8 {
        /// Offset of the first byte that is not UTF-8.
        offset: usize,
    },
    /// Well-formed, but against a rule of the format (the message says which and how to fix it).
    #[error("{0}")]
    Form(String),
    /// The record's id is not its file name.
    #[error("id {id:?} does not match the file name ({stem:?}); rename the file or change the id")]
    IdMismatch {
        /// The id in the file.
        id: String,
        /// The file name without its extension.
        stem: String,
    },
    /// The file could not be opened or read.
    #[error("cannot be read: {0}")]
    Read(String),
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

impl ParseError {
    /// Where in the file the error is, when the reader knows.
    pub fn position(&self) -> Option<Position> {
        match self {
            ParseError::Syntax { at, .. } => *at,
            _ => None,
        }
    }

    /// A TOML error in `text`, at the line and column of its span.
    pub(crate) fn toml(text: &str, e: &toml::de::Error) -> ParseError {
        ParseError::Syntax {
            at: e.span().map(|s| Position::of_offset(text, s.start)),
            message: e.message().trim_end().to_string(),
        }
    }

    /// A JSON error, at its line and column.
    pub(crate) fn json(e: &serde_json::Error) -> ParseError {
        let (at, message) = json_error(e);
        ParseError::Syntax { at, message }
    }

    /// Text that is not UTF-8.
    pub(crate) fn utf8(e: &std::str::Utf8Error) -> ParseError {
        ParseError::NotUtf8 {
            offset: e.valid_up_to(),
        }
    }
}

/// Where a JSON reader stopped (serde_json's line 0 means "no position") and why, without
/// the position serde_json appends to its message.
pub(crate) fn json_error(e: &serde_json::Error) -> (Option<Position>, String) {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    // At the end of the input serde_json counts column 0; the end is after the last column.
    let at = (e.line() > 0).then_some(Position {
        line: e.line(),
        column: e.column().max(1),
    });
    (at, message)
}

/// `"line L, column C: "`, or nothing without a position.
pub(crate) fn at_prefix(p: &Option<Position>) -> String {
    p.map(|p| format!("{p}: ")).unwrap_or_default()
}

/// A record that could not be written (serialized); a fault of the program, not of the ledger.
#[derive(Debug, Error)]
pub enum SerializeError {
    /// As TOML.
    #[error("cannot write the record as TOML: {0}")]
    Toml(#[from] toml::ser::Error),
    /// As JSON.
    #[error("cannot write the record as JSON: {0}")]
    Json(#[from] serde_json::Error),
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

/// Parses `ledger.toml`.
pub fn parse_meta(text: &str) -> Result<LedgerMeta, ParseError> {
    let m: LedgerMeta = toml::from_str(text).map_err(|e| ParseError::toml(text, &e))?;
    check_schema(&m.schema, LEDGER_SCHEMA)?;
    for w in &m.worlds {
        if w.id.trim().is_empty() {
            return Err(ParseError::Form(
                "a [[world]] has an empty id; give it one (a gfx target or a generation)".into(),
            ));
        }
    }
    Ok(m)
}

/// Parses `claims/<id>.toml`. A missing class or support is not a parse error: `check`
/// reports it with its rule.
pub fn parse_claim(text: &str) -> Result<Claim, ParseError> {
    let c: Claim = toml::from_str(text).map_err(|e| ParseError::toml(text, &e))?;
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
            return Err(ParseError::Form(format!(
                "a [[support]] names {n} of observation / claim / source; it must name exactly one"
            )));
        }
        if s.observation.is_none() && (s.record.is_some() || !s.filter.is_empty()) {
            return Err(ParseError::Form(
                "record and where select inside an observation; this [[support]] names none: add its observation, or remove them".into(),
            ));
        }
        if let Some(r) = &s.record {
            if !(r.is_empty() || r.starts_with('/')) {
                return Err(ParseError::Form(format!(
                    "record {r:?} is not a JSON pointer: start it with '/'"
                )));
            }
        }
    }
    Ok(c)
}

/// Parses `questions/<id>.toml`.
pub fn parse_question(text: &str) -> Result<Question, ParseError> {
    let q: Question = toml::from_str(text).map_err(|e| ParseError::toml(text, &e))?;
    check_schema(&q.schema, QUESTION_SCHEMA)?;
    check_id(&q.id)?;
    Ok(q)
}

/// Parses `cases/<id>.toml`.
pub fn parse_case(text: &str) -> Result<Case, ParseError> {
    let c: Case = toml::from_str(text).map_err(|e| ParseError::toml(text, &e))?;
    check_schema(&c.schema, CASE_SCHEMA)?;
    check_id(&c.id)?;
    if !c.date.is_empty() && !valid_date(&c.date) {
        return Err(ParseError::Date(c.date.clone()));
    }
    Ok(c)
}

/// Parses `observations/<id>.json`.
pub fn parse_observation(bytes: &[u8]) -> Result<Observation, ParseError> {
    let mut o: Observation = serde_json::from_slice(bytes).map_err(|e| ParseError::json(&e))?;
    check_schema(&o.schema, OBSERVATION_SCHEMA)?;
    check_id(&o.id)?;
    if !o.document.is_object() {
        return Err(ParseError::Form(
            "document is not a JSON object; import the rocpath --json output again".into(),
        ));
    }
    current_version(&mut o.document)?;
    Ok(o)
}

/// Brings an imported document to the version this build reads (the file keeps the version
/// the producer printed); a document of a newer version is an error of that file.
pub(crate) fn current_version(doc: &mut serde_json::Value) -> Result<(), ParseError> {
    match rocpath_docs::upgrade(doc) {
        Ok(_) | Err(rocpath_docs::MigrateError::NoSchema) => Ok(()),
        Err(e) => Err(ParseError::Form(format!("document: {e}"))),
    }
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
    let text = || std::str::from_utf8(bytes).map_err(|e| ParseError::utf8(&e));
    match kind {
        FileKind::Meta => parse_meta(text()?).map(drop),
        FileKind::Claim => parse_claim(text()?).map(drop),
        FileKind::Question => parse_question(text()?).map(drop),
        FileKind::Case => parse_case(text()?).map(drop),
        FileKind::Observation => parse_observation(bytes).map(drop),
    }
}

/// Serializes a TOML record (claims, questions, cases, `ledger.toml`).
pub fn to_toml<T: serde::Serialize>(v: &T) -> Result<String, SerializeError> {
    Ok(toml::to_string_pretty(v)?)
}

/// Serializes an observation: pretty JSON with a final newline.
pub fn observation_to_json(o: &Observation) -> Result<Vec<u8>, SerializeError> {
    let mut v = serde_json::to_vec_pretty(o)?;
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
    fn syntax_errors_name_their_line_and_column() {
        let text = "schema = \"rocpath.ledger.claim/1\"\nid = \"x\"\nclas = \"confirmed\"\n";
        let e = parse_claim(text).unwrap_err();
        assert_eq!(e.position(), Some(Position { line: 3, column: 1 }));
        assert!(e.to_string().starts_with("line 3, column 1: "), "{e}");
        assert!(e.to_string().ends_with("; correct the file there"), "{e}");
        let e = parse_observation(b"{\n  \"schema\": 1}").unwrap_err();
        assert_eq!(e.position().map(|p| p.line), Some(2), "{e}");
        assert!(!e.to_string().contains(" at line "), "{e}");
        let e = parse_observation(b"").unwrap_err();
        assert_eq!(e.position(), Some(Position { line: 1, column: 1 }), "{e}");
        let e = parse_any(FileKind::Claim, b"id = \"\xff\"").unwrap_err();
        assert_eq!(e, ParseError::NotUtf8 { offset: 6 });
    }

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\nçd\ne";
        assert_eq!(
            Position::of_offset(text, 0),
            Position { line: 1, column: 1 }
        );
        // `ç` is two bytes and one column; an offset inside it is the character's.
        assert_eq!(
            Position::of_offset(text, 5),
            Position { line: 2, column: 2 }
        );
        assert_eq!(
            Position::of_offset(text, 4),
            Position { line: 2, column: 1 }
        );
        assert_eq!(
            Position::of_offset(text, 99),
            Position { line: 3, column: 2 }
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        let text = "schema = \"rocpath.ledger.claim/1\"\nid = \"x\"\nclas = \"confirmed\"\n";
        assert!(parse_claim(text).unwrap_err().to_string().contains("clas"));
    }
}
