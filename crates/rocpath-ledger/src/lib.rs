//! The evidence ledger: a folder of text files a researcher keeps in git.
//!
//! - *observations* (`observations/<id>.json`): rocpath JSON documents as imported, with the
//!   sha256 of every raw input their evidence names and the raw lines it points at;
//! - *claims* (`claims/<id>.toml`): a statement in Japanese and English, evidence class, kind
//!   of proof, world, stack floor, layer, supports, what would falsify it, dated history;
//! - *questions* (`questions/<id>.toml`): open questions and the observation that would
//!   answer them;
//! - *cases* (`cases/<id>.toml`): the observations of one experiment, read as Fact /
//!   Interpretation / Open Question.
//!
//! Writes are atomic and serialized by a lock ([`store`]); [`check`] holds the consistency
//! rules; [`schemas`] is the one place that knows producer-specific fields.
//!
//! ```no_run
//! use rocpath_ledger::{store::Ledger, model::LedgerMeta};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (ledger, _meta) = Ledger::open(std::path::Path::new("my-ledger"))?;
//! let loaded = ledger.load()?;
//! for p in rocpath_ledger::check::check(ledger.root(), &loaded) {
//!     eprintln!("{p}");
//! }
//! # Ok(()) }
//! ```

pub mod chain;
pub mod check;
pub mod claims;
pub mod derive;
pub mod doc;
pub mod files;
pub mod follow;
pub mod import;
pub mod index;
pub mod model;
pub mod publish;
pub mod records;
pub mod schemas;
pub mod slim;
pub mod store;

pub use import::QUOTE_MAX;

use model::*;
use rocpath_evidence::{Class, Proof};
use store::{Ledger, StoreError, WriteGuard};

/// Errors of [`add_claim`] and [`change_claim`]. Each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum AddClaimError {
    /// The id or a date is not valid.
    #[error(transparent)]
    Invalid(#[from] files::ParseError),
    /// A new claim without a statement.
    #[error("claim {0:?} has no statement (give --en and/or --ja)")]
    NoStatement(String),
    /// A change without a reason.
    #[error("say why the claim changes (give --en and/or --ja)")]
    NoReason,
    /// A change that changes nothing.
    #[error("nothing to change: give --class, --kind or --support")]
    NothingToChange,
    /// A change dated before the claim's last history entry.
    #[error(
        "the claim's history already has an entry of {last}, after {date}; give --date {last} or later"
    )]
    OutOfOrder {
        /// Date of the last history entry.
        last: String,
        /// Date of the change.
        date: String,
    },
    /// A claim with this id exists.
    #[error("claim {0:?} already exists (change its class with `rocpath ledger set-class`)")]
    Exists(String),
    /// No claim with this id.
    #[error("{}: no claim {id:?} ({source}); record it with `rocpath ledger add-claim`", path.display())]
    NotFound {
        /// Where the claim would be.
        path: std::path::PathBuf,
        /// The id.
        id: String,
        /// Why it could not be read.
        #[source]
        source: std::io::Error,
    },
    /// The claim's file does not read.
    #[error("{}: {error}", path.display())]
    Unreadable {
        /// The claim's file.
        path: std::path::PathBuf,
        /// Why.
        error: files::ParseError,
    },
    /// Writing failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<files::SerializeError> for AddClaimError {
    fn from(e: files::SerializeError) -> Self {
        AddClaimError::Store(StoreError::Serialize(e))
    }
}

/// Serializes a claim and reads it back as a reader would: the same validation.
fn validated_toml(claim: &Claim) -> Result<String, AddClaimError> {
    let text = files::to_toml(claim)?;
    files::parse_claim(&text)?;
    Ok(text)
}

/// Adds a new claim. `date` (`YYYY-MM-DD`) opens its history with its class and kind. The
/// claim is written whatever `check` will say about it (a claim may be recorded before its
/// support is imported); only its form is validated here.
pub fn add_claim(
    guard: &WriteGuard,
    ledger: &Ledger,
    mut claim: Claim,
    date: &str,
) -> Result<(), AddClaimError> {
    claim.schema = CLAIM_SCHEMA.to_string();
    if !files::valid_id(&claim.id) {
        return Err(files::ParseError::Id(claim.id.clone()).into());
    }
    if claim.statement.is_empty() {
        return Err(AddClaimError::NoStatement(claim.id));
    }
    if !files::valid_date(date) {
        return Err(files::ParseError::Date(date.to_string()).into());
    }
    if claim.history.is_empty() {
        claim.history.push(HistoryEntry {
            date: date.to_string(),
            class: claim.class,
            kind: claim.kind,
            note: Text::new("記録", "recorded"),
        });
    }
    // The same validation a reader applies.
    validated_toml(&claim)?;
    if ledger
        .record_path(files::FileKind::Claim, &claim.id)
        .exists()
    {
        return Err(AddClaimError::Exists(claim.id));
    }
    guard.write_claim(&claim)?;
    Ok(())
}

/// A dated change of a claim's standing: its class and/or kind of proof from `date` on,
/// why (`note`), and supports added with it.
#[derive(Debug, Clone, Default)]
pub struct ClaimChange {
    /// New class.
    pub class: Option<Class>,
    /// New kind of proof.
    pub kind: Option<Proof>,
    /// Why, in Japanese and English (required).
    pub note: Text,
    /// Supports to add (kept once each).
    pub support: Vec<Support>,
    /// `YYYY-MM-DD`.
    pub date: String,
}

/// Changes an existing claim: sets its class and/or kind, adds supports, and appends the
/// change to its history (the record of how the finding moved — an `inferred` that a run
/// confirmed, a `confirmed` a later release retracted). Returns the claim as written.
pub fn change_claim(
    guard: &WriteGuard,
    ledger: &Ledger,
    id: &str,
    change: ClaimChange,
) -> Result<Claim, AddClaimError> {
    if !files::valid_id(id) {
        return Err(files::ParseError::Id(id.to_string()).into());
    }
    if !files::valid_date(&change.date) {
        return Err(files::ParseError::Date(change.date.clone()).into());
    }
    if change.note.is_empty() {
        return Err(AddClaimError::NoReason);
    }
    if change.class.is_none() && change.kind.is_none() && change.support.is_empty() {
        return Err(AddClaimError::NothingToChange);
    }
    let mut claim = read_claim(ledger, id)?;
    if let Some(last) = claim.history.last() {
        if last.date.as_str() > change.date.as_str() {
            return Err(AddClaimError::OutOfOrder {
                last: last.date.clone(),
                date: change.date,
            });
        }
    }
    if change.class.is_some() {
        claim.class = change.class;
    }
    if change.kind.is_some() {
        claim.kind = change.kind;
    }
    for s in change.support {
        if !claim.support.contains(&s) {
            claim.support.push(s);
        }
    }
    claim.history.push(HistoryEntry {
        date: change.date,
        class: change.class,
        kind: change.kind,
        note: change.note,
    });
    validated_toml(&claim)?;
    guard.write_claim(&claim)?;
    Ok(claim)
}

/// Reads the claim `id` of the ledger.
fn read_claim(ledger: &Ledger, id: &str) -> Result<Claim, AddClaimError> {
    let path = ledger.record_path(files::FileKind::Claim, id);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(source) => {
            return Err(AddClaimError::NotFound {
                path,
                id: id.to_string(),
                source,
            });
        }
    };
    files::parse_claim(&text).map_err(|error| AddClaimError::Unreadable { path, error })
}

/// The `ledger.toml` of a new ledger: the three observation worlds of the research pages
/// (gfx900, gfx1201, gfx942) with their character, which a researcher edits.
pub fn starter_meta(title: Text) -> LedgerMeta {
    let w = |id: &str, name: &str, ja: &str, en: &str| WorldDecl {
        id: id.to_string(),
        name: name.to_string(),
        character: Text::new(ja, en),
        status: Text::default(),
        lead: Text::default(),
    };
    LedgerMeta {
        schema: LEDGER_SCHEMA.to_string(),
        title,
        description: Text::new(
            "GPU の中で何がどの経路で実行されたか——動いたかどうかではなく、なぜその経路を通ったかを、証拠クラスを明示して記録する。",
            "What ran inside the GPU and which path it took — not whether it worked, but why it took that path — recorded with explicit evidence classes.",
        ),
        data_root: String::new(),
        worlds: vec![
            w(
                "gfx900",
                "GCN5 / Vega, MI25",
                "fallback が主戦場。本命経路は通らない前提で観測する。",
                "Fallback is the main stage. Observe assuming the primary path won't run.",
            ),
            w(
                "gfx1201",
                "RDNA4 / RX 9070 XT",
                "通るものと通らないものが混在。観測しないと分からない。",
                "Mixed: some paths run, some don't. Must observe to know.",
            ),
            w(
                "gfx942",
                "CDNA3 / MI300X",
                "ほぼ本命が通る(要確認)。正規ルートの確認が主。",
                "Primary path expected to run (needs confirmation). Verifying the canonical path is the main work.",
            ),
        ],
    }
}

/// Why a support reference does not parse; each message names the form to use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SupportRefError {
    /// `claim:` followed by something that is not an id.
    #[error("{reference:?}: {id:?} is not a claim id")]
    ClaimId {
        /// The reference as given.
        reference: String,
        /// The id part.
        id: String,
    },
    /// `source:` with no path.
    #[error("{0:?}: no path after source:")]
    NoSourcePath(String),
    /// Not an observation id.
    #[error("{reference:?}: {id:?} is not an observation id (or use claim:ID / source:PATH:LINE)")]
    ObservationId {
        /// The reference as given.
        reference: String,
        /// The id part.
        id: String,
    },
    /// `#` not followed by a JSON pointer.
    #[error("{0:?}: the record after '#' is a JSON pointer starting with '/'")]
    Pointer(String),
    /// A `?` filter that is not `field=value`.
    #[error("{reference:?}: {pair:?} is not field=value")]
    Filter {
        /// The reference as given.
        reference: String,
        /// The pair.
        pair: String,
    },
    /// A cited source line that cannot be read.
    #[error("{reference}: cannot read line {line} of {} (paths of sources are relative to the ledger folder)", path.display())]
    Unquotable {
        /// The reference as given.
        reference: String,
        /// The line.
        line: u64,
        /// The file as looked for.
        path: std::path::PathBuf,
    },
}

/// Parses support references ([`parse_support_ref`]) for a claim of `ledger`; a cited source
/// line is quoted now, so that the site shows what was read.
pub fn supports(ledger: &Ledger, refs: &[String]) -> Result<Vec<Support>, SupportRefError> {
    let mut out = Vec::new();
    for s in refs {
        let mut sup = parse_support_ref(s)?;
        if let Some((path, Some(line))) = sup.source.as_ref().map(|l| (l.path.clone(), l.line)) {
            let at = ledger.root().join(&path);
            let q = import::quote_lines(&at, &path, &[line].into_iter().collect());
            match q.into_iter().next() {
                Some(q) => sup.quote = q.text,
                None => {
                    return Err(SupportRefError::Unquotable {
                        reference: s.clone(),
                        line,
                        path: at,
                    });
                }
            }
        }
        out.push(sup);
    }
    Ok(out)
}

/// Parses a support reference as given on the command line: `OBS_ID`, `OBS_ID#/json/pointer`,
/// `OBS_ID?field=value&field=value`, `claim:ID`, or `source:PATH[:LINE][@SHA256]`.
pub fn parse_support_ref(s: &str) -> Result<Support, SupportRefError> {
    if let Some(c) = s.strip_prefix("claim:") {
        if !files::valid_id(c) {
            return Err(SupportRefError::ClaimId {
                reference: s.to_string(),
                id: c.to_string(),
            });
        }
        return Ok(Support {
            claim: Some(c.to_string()),
            ..Support::default()
        });
    }
    if let Some(rest) = s.strip_prefix("source:") {
        let (loc, sha) = match rest.rsplit_once('@') {
            Some((l, h)) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                (l, Some(h.to_ascii_lowercase()))
            }
            _ => (rest, None),
        };
        let (path, line) = match loc.rsplit_once(':') {
            Some((p, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                (p, n.parse().ok())
            }
            _ => (loc, None),
        };
        if path.is_empty() {
            return Err(SupportRefError::NoSourcePath(s.to_string()));
        }
        let mut l = rocpath_evidence::Locator::file(path);
        l.line = line;
        l.sha256 = sha;
        return Ok(Support {
            source: Some(l),
            ..Support::default()
        });
    }
    let (id, rest) = match s.find(['#', '?']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    if !files::valid_id(id) {
        return Err(SupportRefError::ObservationId {
            reference: s.to_string(),
            id: id.to_string(),
        });
    }
    let mut sup = Support {
        observation: Some(id.to_string()),
        ..Support::default()
    };
    if let Some(ptr) = rest.strip_prefix('#') {
        if !ptr.starts_with('/') {
            return Err(SupportRefError::Pointer(s.to_string()));
        }
        sup.record = Some(ptr.to_string());
    } else if let Some(q) = rest.strip_prefix('?') {
        for kv in q.split('&') {
            let Some((k, v)) = kv.split_once('=') else {
                return Err(SupportRefError::Filter {
                    reference: s.to_string(),
                    pair: kv.to_string(),
                });
            };
            sup.filter.insert(k.to_string(), v.to_string());
        }
    }
    Ok(sup)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn support_refs() {
        let s = parse_support_ref("example-isa?target=gfx900:xnack-&name=x").unwrap();
        assert_eq!(s.observation.as_deref(), Some("example-isa"));
        assert_eq!(s.filter["target"], "gfx900:xnack-");
        assert_eq!(s.filter["name"], "x");
        let s = parse_support_ref("inv-1#/code_objects/0").unwrap();
        assert_eq!(s.record.as_deref(), Some("/code_objects/0"));
        let s = parse_support_ref("claim:abc").unwrap();
        assert_eq!(s.claim.as_deref(), Some("abc"));
        let h = "a".repeat(64);
        let s = parse_support_ref(&format!("source:src/x.cpp:120@{h}")).unwrap();
        let l = s.source.unwrap();
        assert_eq!(
            (l.path.as_str(), l.line, l.sha256.as_deref()),
            ("src/x.cpp", Some(120), Some(h.as_str()))
        );
        let s = parse_support_ref("source:C:/x").unwrap();
        assert_eq!(s.source.unwrap().path, "C:/x");
        let o = |r: &str, id: &str| SupportRefError::ObservationId {
            reference: r.into(),
            id: id.into(),
        };
        let bad = [
            ("", o("", "")),
            ("a b", o("a b", "a b")),
            ("x#code", SupportRefError::Pointer("x#code".into())),
            (
                "x?novalue",
                SupportRefError::Filter {
                    reference: "x?novalue".into(),
                    pair: "novalue".into(),
                },
            ),
            (
                "claim:",
                SupportRefError::ClaimId {
                    reference: "claim:".into(),
                    id: String::new(),
                },
            ),
            ("source:", SupportRefError::NoSourcePath("source:".into())),
        ];
        for (text, want) in bad {
            assert_eq!(parse_support_ref(text), Err(want), "{text}");
        }
    }
}
