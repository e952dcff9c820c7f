//! `ledger check`: the consistency rules. Each problem names its rule, the file and record it
//! is in, and what to do about it.
//!
//! | rule | severity | fires when |
//! |---|---|---|
//! | `ledger.unreadable` | error | a file is not valid TOML/JSON, has another schema, or its id is not its file name |
//! | `ledger.claim_without_class` | error | a claim has no `class` |
//! | `ledger.claim_without_support` | error | a claim has no `[[support]]` |
//! | `ledger.confirmed_by_inference` | error | a `confirmed` claim whose supports are all weaker than confirmed (inferred claims or records) |
//! | `ledger.missing_record` | error | a support, case, or question names an observation, record, claim or question that is not there |
//! | `ledger.stale_evidence` | error | a raw input's sha256 differs from the one recorded at import (or in a cited source) |
//! | `ledger.forced_as_natural` | error | a claim about `natural` selection rests on a forced run |
//! | `ledger.input_unavailable` | warning | a hashed raw input cannot be found here to re-check |

use crate::import::{resolve_input, sha256_file};
use crate::index::{Index, Resolved};
use crate::model::*;
use crate::schemas;
use crate::store::Loaded;
use rocpath_evidence::Class;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Rule ids.
pub mod rule {
    /// A file could not be read.
    pub const UNREADABLE: &str = "ledger.unreadable";
    /// A claim has no class.
    pub const CLAIM_WITHOUT_CLASS: &str = "ledger.claim_without_class";
    /// A claim has no support.
    pub const CLAIM_WITHOUT_SUPPORT: &str = "ledger.claim_without_support";
    /// A confirmed claim supported only by weaker evidence.
    pub const CONFIRMED_BY_INFERENCE: &str = "ledger.confirmed_by_inference";
    /// A link to a record that is not there.
    pub const MISSING_RECORD: &str = "ledger.missing_record";
    /// A raw input changed since import.
    pub const STALE_EVIDENCE: &str = "ledger.stale_evidence";
    /// A forced run supports a natural-selection claim.
    pub const FORCED_AS_NATURAL: &str = "ledger.forced_as_natural";
    /// A raw input cannot be re-checked here (warning).
    pub const INPUT_UNAVAILABLE: &str = "ledger.input_unavailable";
}

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// `ledger check` fails.
    Error,
    /// Reported; the check still passes.
    Warning,
}

/// One finding of `ledger check`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Rule id.
    pub rule: &'static str,
    /// Severity.
    pub severity: Severity,
    /// The ledger file, relative to the ledger folder.
    pub file: String,
    /// The record id.
    pub record: String,
    /// What is wrong and what to do.
    pub message: String,
    /// For stale evidence: the raw input, as the ledger names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}[{}]: {}: {}", self.rule, self.file, self.message)
    }
}

/// Runs every rule over a loaded ledger. `root` is the ledger folder (raw inputs are found
/// relative to it).
pub fn check(root: &Path, l: &Loaded) -> Vec<Problem> {
    let mut out = Vec::new();
    for (file, e) in &l.unreadable {
        out.push(Problem {
            rule: rule::UNREADABLE,
            severity: Severity::Error,
            file: file.clone(),
            record: String::new(),
            message: e.to_string(),
            input: None,
        });
    }
    let ix = Index::new(l);
    let mut hashes = HashCache::default();
    for c in &l.claims {
        check_claim(root, &ix, c, &mut hashes, &mut out);
    }
    for q in &l.questions {
        let file = format!("questions/{}.toml", q.id);
        for a in &q.answer {
            if !ix.claims.contains_key(a.as_str()) {
                out.push(missing(&file, &q.id, format!("question {:?} gives claim {a:?} as its answer, but that claim is not in the ledger", q.id)));
            }
        }
    }
    for c in &l.cases {
        let file = format!("cases/{}.toml", c.id);
        for o in &c.observations {
            if !ix.observations.contains_key(o.as_str()) {
                out.push(missing(
                    &file,
                    &c.id,
                    format!(
                        "case {:?} lists observation {o:?}, which is not in the ledger",
                        c.id
                    ),
                ));
            }
        }
        for cl in &c.claims {
            if !ix.claims.contains_key(cl.as_str()) {
                out.push(missing(
                    &file,
                    &c.id,
                    format!(
                        "case {:?} lists claim {cl:?}, which is not in the ledger",
                        c.id
                    ),
                ));
            }
        }
        for q in &c.questions {
            if !ix.questions.contains_key(q.as_str()) {
                out.push(missing(
                    &file,
                    &c.id,
                    format!(
                        "case {:?} lists question {q:?}, which is not in the ledger",
                        c.id
                    ),
                ));
            }
        }
    }
    for o in &l.observations {
        let file = format!("observations/{}.json", o.id);
        for i in &o.inputs {
            let Some(want) = &i.sha256 else { continue };
            let at = resolve_input(root, &o.imported.base, &i.path);
            stale(
                &mut hashes,
                &at,
                want,
                &file,
                &o.id,
                &i.path,
                "observation",
                &mut out,
            );
        }
    }
    out.sort_by(|a, b| (a.severity, &a.file, a.rule).cmp(&(b.severity, &b.file, b.rule)));
    out
}

fn missing(file: &str, id: &str, message: String) -> Problem {
    Problem {
        rule: rule::MISSING_RECORD,
        severity: Severity::Error,
        file: file.to_string(),
        record: id.to_string(),
        message,
        input: None,
    }
}

fn check_claim(
    root: &Path,
    ix: &Index<'_>,
    c: &Claim,
    hashes: &mut HashCache,
    out: &mut Vec<Problem>,
) {
    let file = format!("claims/{}.toml", c.id);
    let p = |rule: &'static str, message: String| Problem {
        rule,
        severity: Severity::Error,
        file: file.clone(),
        record: c.id.clone(),
        message,
        input: None,
    };
    if c.class.is_none() {
        out.push(p(
            rule::CLAIM_WITHOUT_CLASS,
            format!(
                "claim {:?} has no class; set class = \"confirmed\", \"inferred\", \"unresolved\" or \"limited\"",
                c.id
            ),
        ));
    }
    if c.support.is_empty() {
        out.push(p(
            rule::CLAIM_WITHOUT_SUPPORT,
            format!(
                "claim {:?} has no support; add a [[support]] naming the observation, record, claim or source it rests on (an unresolved claim names the observation that was attempted)",
                c.id
            ),
        ));
    }
    let mut weaker = Vec::new();
    let mut any_confirmed = false;
    for s in &c.support {
        let r = ix.resolve(s);
        if let Resolved::Missing(why) = &r {
            out.push(p(
                rule::MISSING_RECORD,
                format!("claim {:?}: support {}: {why}", c.id, s.reference()),
            ));
            continue;
        }
        match r.class() {
            Some(Class::Confirmed) => any_confirmed = true,
            Some(k) => weaker.push(format!("{} ({k})", s.reference())),
            None => weaker.push(format!("{} (no class)", s.reference())),
        }
        if c.selection == Some(SelectionKind::Natural) {
            if let Some(why) = forced_support(&r) {
                out.push(p(
                    rule::FORCED_AS_NATURAL,
                    format!(
                        "claim {:?} is about natural selection, but its support {} is a forced run ({why}); a forced run shows what the forced solver does, not what the library would choose — support it with a run without forcing, or set selection = \"forced\"",
                        c.id,
                        s.reference()
                    ),
                ));
            }
        }
        if let (Resolved::Source(l), Some(want)) =
            (&r, s.source.as_ref().and_then(|l| l.sha256.as_ref()))
        {
            let at = resolve_input(root, ".", &l.path);
            stale(hashes, &at, want, &file, &c.id, &l.path, "source", out);
        }
    }
    if c.class == Some(Class::Confirmed) && !any_confirmed && !weaker.is_empty() {
        out.push(p(
            rule::CONFIRMED_BY_INFERENCE,
            format!(
                "claim {:?} is confirmed, but none of its support is confirmed: {}; add a direct observation or lower its class to inferred",
                c.id,
                weaker.join(", ")
            ),
        ));
    }
}

/// Why a resolved support is a forced run, if it is one.
fn forced_support(r: &Resolved<'_>) -> Option<String> {
    match r {
        Resolved::Observation(o, _) => schemas::forced_in(o, None),
        Resolved::Records(o, recs) => schemas::forced_in(o, Some(recs)),
        Resolved::Claim(c) if c.selection == Some(SelectionKind::Forced) => {
            Some(format!("claim {:?} has selection = \"forced\"", c.id))
        }
        _ => None,
    }
}

#[derive(Default)]
struct HashCache(HashMap<PathBuf, Result<String, String>>);

impl HashCache {
    fn get(&mut self, p: &Path) -> &Result<String, String> {
        self.0
            .entry(p.to_path_buf())
            .or_insert_with(|| sha256_file(p).map(|(h, _)| h).map_err(|e| e.to_string()))
    }
}

#[allow(clippy::too_many_arguments)]
fn stale(
    hashes: &mut HashCache,
    at: &Path,
    want: &str,
    file: &str,
    id: &str,
    path: &str,
    what: &str,
    out: &mut Vec<Problem>,
) {
    match hashes.get(at) {
        Ok(now) if now == want => {}
        Ok(now) => out.push(Problem {
            rule: rule::STALE_EVIDENCE,
            severity: Severity::Error,
            file: file.to_string(),
            record: id.to_string(),
            message: format!(
                "{what} {id:?}: raw input {path} ({}) changed since it was recorded: sha256 was {want}, is now {now}; re-run the producer and import again, then review the claims that rest on it",
                at.display()
            ),
            input: Some(path.to_string()),
        }),
        Err(e) => out.push(Problem {
            rule: rule::INPUT_UNAVAILABLE,
            severity: Severity::Warning,
            file: file.to_string(),
            record: id.to_string(),
            message: format!(
                "{what} {id:?}: raw input {path} ({}) cannot be re-checked here: {e}",
                at.display()
            ),
            input: Some(path.to_string()),
        }),
    }
}
