//! Derivation: the rules that turn a ledger's observations into claims.
//!
//! Each rule reads observations (through [`digest`], which keeps only the fields rules read)
//! and returns [`Finding`]s: a statement in Japanese and English, its class and kind of proof,
//! the counts (`agree` of `of`) and the named exceptions, and one support per observation
//! record it rests on. [`merge`] turns findings into ordinary claim files:
//!
//! - the id is stable — the rule and its key (`case.group.gfx900.miopen-3.5.1…-1a2b3c4d`) —,
//!   so deriving again updates a claim instead of adding one;
//! - a changed count, class or exception list appends a dated history entry;
//! - what a person changed survives: a statement (per language) or class that differs from
//!   what the rule generated last time, `review` (accepted / edited / rejected) and
//!   `falsified_by`;
//! - nothing changes on disk when nothing changed (deriving twice gives the same bytes).
//!
//! | rule | reads | claim |
//! |---|---|---|
//! | `derive.case.outcome` | `rocpath.case/1` | one case's outcome (forced runs say forced) |
//! | `derive.case.group` | `rocpath.case/1` | cases grouped by world, library and version, operation, data type, selection (and layout and mode): N of N, exceptions named |
//! | `derive.explain.prediction` | `rocpath.explain.compare/1` | the model's prediction, raised by the runs that agree |
//! | `derive.explain.gemm` | `rocpath.explain.gemm/1` | the kernel a GEMM takes on a device, from the catalogs, beside the other devices' |
//! | `derive.trace.dispatch` | `rocpath.trace/2` | dispatches per kernel family of a run, BLAS-like dispatches |
//! | `derive.ollama.placement` | `rocpath.ollama/2` | GPU / CPU placement of one run |
//! | `derive.ollama.placement_group` | `rocpath.ollama/2` | placement across the runs of a model |
//! | `derive.strace.catalog` | `rocpath.strace/1` | catalog reads (fallback `.dat` / `.hsaco`, ggml-hip) |
//! | `derive.strace.link` | `rocpath.strace/1` | the link status of catalog reads and dispatches |
//! | `derive.lanes.ratio` | `rocpath.lanes/2` | the ratio of medians with its interval |
//! | `derive.inventory.shipped` | `rocpath.inventory/1` | the code shipped for a processor |
//! | `derive.isa.instructions` | `rocpath.isa/1` | the instruction classes of the code shipped for a processor |
//! | `derive.check.verdict` | `rocpath.check/1` | runs / no code / depends for one library on one device |
//! | `derive.gates.target` | `rocpath.gates/1` | the gates of a checkout that cover a processor |
//! | `derive.gates.table` | `rocpath.gates/1` | how a checkout's gates read for a processor (`--arch`) |
//! | `derive.provenance.gate` | `rocpath.provenance/1`, `rocpath.gates/1` (`--blame`) | who added a gate, and when |
//! | `derive.follow.end` | `rocpath.follow/1` | where a followed value ends up, through how many hops |
//! | `derive.follow.boundary` | `rocpath.follow/1` | where a trail stops unresolved (an open question) |

pub mod cases;
pub mod digest;
pub mod explain;
pub mod gemm;
pub mod merge;
pub mod runs;
pub mod shipped;
pub mod source;
pub mod text;

use crate::model::*;
use crate::store::{Ledger, StoreError, WriteGuard};
use digest::ObsDigest;
use rocpath_evidence::{Class, Proof};
use std::collections::{BTreeMap, BTreeSet};

/// Rule ids.
pub mod rule {
    /// One case's outcome.
    pub const CASE_OUTCOME: &str = "derive.case.outcome";
    /// Cases grouped.
    pub const CASE_GROUP: &str = "derive.case.group";
    /// A prediction and the runs compared with it.
    pub const EXPLAIN_PREDICTION: &str = "derive.explain.prediction";
    /// The kernel a GEMM takes on a device.
    pub const EXPLAIN_GEMM: &str = "derive.explain.gemm";
    /// Dispatches of a traced run.
    pub const TRACE_DISPATCH: &str = "derive.trace.dispatch";
    /// Placement of one Ollama run.
    pub const OLLAMA_PLACEMENT: &str = "derive.ollama.placement";
    /// Placement across the runs of a model.
    pub const OLLAMA_PLACEMENT_GROUP: &str = "derive.ollama.placement_group";
    /// Catalog reads of an strace.
    pub const STRACE_CATALOG: &str = "derive.strace.catalog";
    /// Link status of an strace.
    pub const STRACE_LINK: &str = "derive.strace.link";
    /// A lane comparison.
    pub const LANES_RATIO: &str = "derive.lanes.ratio";
    /// Code shipped for a processor.
    pub const INVENTORY_SHIPPED: &str = "derive.inventory.shipped";
    /// Instruction classes of the shipped code.
    pub const ISA_INSTRUCTIONS: &str = "derive.isa.instructions";
    /// A check's verdict for one library on one device.
    pub const CHECK_VERDICT: &str = "derive.check.verdict";
    /// The gates of a checkout that cover a processor.
    pub const GATES_TARGET: &str = "derive.gates.target";
    /// How a checkout's gates read for one processor (`gates --arch`).
    pub const GATES_TABLE: &str = "derive.gates.table";
    /// Who added a gate, and when.
    pub const PROVENANCE_GATE: &str = "derive.provenance.gate";
    /// Where a followed value ends up.
    pub const FOLLOW_END: &str = "derive.follow.end";
    /// Where a trail stops unresolved.
    pub const FOLLOW_BOUNDARY: &str = "derive.follow.boundary";
    /// Every rule, in the order they run.
    pub const ALL: [&str; 17] = [
        CASE_OUTCOME,
        CASE_GROUP,
        EXPLAIN_PREDICTION,
        TRACE_DISPATCH,
        OLLAMA_PLACEMENT,
        OLLAMA_PLACEMENT_GROUP,
        STRACE_CATALOG,
        STRACE_LINK,
        LANES_RATIO,
        INVENTORY_SHIPPED,
        ISA_INSTRUCTIONS,
        CHECK_VERDICT,
        GATES_TARGET,
        GATES_TABLE,
        PROVENANCE_GATE,
        FOLLOW_END,
        FOLLOW_BOUNDARY,
    ];
}

/// The four blocks of a research page a claim is listed in (the fourth, planned
/// observations, lists what would answer the open questions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Block {
    /// What was observed directly: one case, one run, one install (confirmed).
    ObservedFacts,
    /// What the observations add up to: groups, predictions, comparisons, interpretations.
    CurrentFindings,
    /// What is not settled (unresolved).
    OpenQuestions,
}

/// The rules whose claims state one observation (the others state what several add up to).
pub const PER_OBSERVATION: [&str; 11] = [
    rule::CASE_OUTCOME,
    rule::TRACE_DISPATCH,
    rule::OLLAMA_PLACEMENT,
    rule::STRACE_CATALOG,
    rule::STRACE_LINK,
    rule::INVENTORY_SHIPPED,
    rule::ISA_INSTRUCTIONS,
    rule::CHECK_VERDICT,
    rule::GATES_TARGET,
    rule::PROVENANCE_GATE,
    rule::FOLLOW_END,
];

/// The block a claim is listed in; `None` for a rejected derived claim.
pub fn block_of(c: &Claim) -> Option<Block> {
    if c.review == Some(Review::Rejected) {
        return None;
    }
    Some(match c.class {
        Some(Class::Unresolved) | None => Block::OpenQuestions,
        Some(Class::Confirmed)
            if c.derived_by.is_empty() || PER_OBSERVATION.contains(&c.derived_by.as_str()) =>
        {
            Block::ObservedFacts
        }
        _ => Block::CurrentFindings,
    })
}

/// What a rule found: a claim to write, before it meets the claim on file.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Rule id.
    pub rule: &'static str,
    /// What the finding is about, unique within the rule.
    pub key: String,
    /// The statement.
    pub statement: Text,
    /// Evidence class.
    pub class: Class,
    /// Kind of proof.
    pub kind: Proof,
    /// World (processor), or empty.
    pub world: String,
    /// Floor.
    pub floor: Option<Floor>,
    /// Layer.
    pub layer: Option<Layer>,
    /// Selection the claim is about.
    pub selection: Option<SelectionKind>,
    /// Observations that agree.
    pub agree: u64,
    /// Observations counted.
    pub of: u64,
    /// The ones that disagree, named.
    pub exceptions: Vec<String>,
    /// One support per observation record.
    pub support: Vec<Support>,
    /// Case records (by id) whose page lists the claim.
    pub cases: Vec<String>,
}

impl Finding {
    /// The claim id: the rule without its `derive.` prefix, a readable part of the key and 8
    /// hex digits of the key's sha256 (so that two keys never share an id).
    pub fn id(&self) -> String {
        claim_id(self.rule, &self.key)
    }
}

/// The stable claim id of a rule and key.
pub fn claim_id(rule: &str, key: &str) -> String {
    let short = rule.strip_prefix("derive.").unwrap_or(rule);
    let mut slug = String::new();
    for c in key.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            c
        } else {
            '-'
        };
        if c == '-' && (slug.ends_with('-') || slug.is_empty()) {
            continue;
        }
        slug.push(c);
    }
    let hash = &crate::import::sha256_hex(key.as_bytes())[..8];
    let room = 128 - short.len() - hash.len() - 2;
    let mut slug: String = slug.chars().take(room).collect();
    while slug.ends_with(['-', '.']) {
        slug.pop();
    }
    if slug.is_empty() {
        format!("{short}.{hash}")
    } else {
        format!("{short}.{slug}-{hash}")
    }
}

/// A support naming one record of an observation, with a note.
pub fn record_support(obs: &str, pointer: &str, note: Text) -> Support {
    Support {
        observation: Some(obs.to_string()),
        record: (!pointer.is_empty()).then(|| pointer.to_string()),
        note,
        ..Support::default()
    }
}

/// Runs every rule over the digests (in the order given; [`derive`] sorts them by id).
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(cases::findings(obs));
    out.extend(explain::findings(obs));
    out.extend(gemm::findings(obs));
    out.extend(runs::findings(obs));
    out.extend(shipped::findings(obs));
    out.extend(source::findings(obs));
    // A statement with a gap where a value should be is not a claim: it is not written.
    out.retain(|f| f.statement.placeholder().is_none());
    out
}

/// What `ledger derive` did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct DeriveReport {
    /// Observations read.
    pub observations: usize,
    /// Claims written for the first time.
    pub created: Vec<String>,
    /// Claims whose counts, class, statement or supports changed.
    pub updated: Vec<String>,
    /// Claims derived again without a change.
    pub unchanged: usize,
    /// Derived claims no rule produced this time and no person touched: removed.
    pub removed: Vec<String>,
    /// Derived claims no rule produced this time that a person reviewed or edited: kept.
    pub not_derived_again: Vec<String>,
    /// Claims per rule.
    pub rules: BTreeMap<String, usize>,
    /// Case records that now list their derived claims.
    pub cases_updated: Vec<String>,
    /// Observation files that could not be read (path relative to the ledger, why).
    pub errors: Vec<rocpath_docs::ErrorItem>,
}

/// Errors that stop a derivation (a bad observation does not: it is reported and skipped).
#[derive(Debug, thiserror::Error)]
pub enum DeriveError {
    /// Reading or writing the ledger failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The date is not `YYYY-MM-DD`.
    #[error("date {0:?} is not YYYY-MM-DD")]
    Date(String),
}

/// Derives the ledger's claims from its observations and writes the ones that changed.
/// `date` (`YYYY-MM-DD`) dates new history entries.
pub fn derive(
    guard: &WriteGuard,
    ledger: &Ledger,
    date: &str,
) -> Result<DeriveReport, DeriveError> {
    if !crate::files::valid_date(date) {
        return Err(DeriveError::Date(date.to_string()));
    }
    let (loaded, files) = ledger.load_without_observations()?;
    let mut report = DeriveReport::default();
    let obs = read_all(&files, &mut report);
    report.observations = obs.len();
    let found = findings(&obs);
    let case_claims = write_claims(guard, &loaded, &found, date, &mut report)?;
    update_cases(guard, &loaded, &case_claims, &mut report)?;
    Ok(report)
}

/// The digests of the observation files (read in parallel), each unreadable one named.
fn read_all(files: &[crate::store::ObservationFile], report: &mut DeriveReport) -> Vec<ObsDigest> {
    let read: Vec<_> = {
        use rayon::prelude::*;
        files
            .par_iter()
            .map(|f| (f, digest::read(&f.path)))
            .collect()
    };
    let mut obs = Vec::with_capacity(read.len());
    for (f, r) in read {
        match r {
            Ok(d) if d.id == f.id => obs.push(d),
            Ok(d) => report.errors.push(rocpath_docs::ErrorItem::at(
                f.rel.clone(),
                crate::files::ParseError::IdMismatch {
                    id: d.id,
                    stem: f.id.clone(),
                }
                .to_string(),
            )),
            Err(e) => report
                .errors
                .push(rocpath_docs::ErrorItem::at(f.rel.clone(), e.to_string())),
        }
    }
    obs
}

/// Writes the claims that changed, removes the untouched ones no rule produces any more;
/// returns the claims each case record should list.
fn write_claims(
    guard: &WriteGuard,
    loaded: &crate::store::Loaded,
    found: &[Finding],
    date: &str,
    report: &mut DeriveReport,
) -> Result<BTreeMap<String, Vec<String>>, DeriveError> {
    let by_id: BTreeMap<&str, &Claim> = loaded.claims.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut produced = BTreeSet::new();
    let mut case_claims: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut to_write = Vec::new();
    for f in found {
        let id = f.id();
        if produced.contains(&id) {
            // Two findings of one rule and key: the first is written.
            continue;
        }
        *report.rules.entry(f.rule.to_string()).or_default() += 1;
        for c in &f.cases {
            case_claims.entry(c.clone()).or_default().push(id.clone());
        }
        let old = by_id.get(id.as_str()).copied();
        match merge::merge(old, f, date) {
            Some(claim) => {
                to_write.push(claim);
                if old.is_some() {
                    report.updated.push(id.clone());
                } else {
                    report.created.push(id.clone());
                }
            }
            None => report.unchanged += 1,
        }
        produced.insert(id);
    }
    guard.write_claims(&to_write)?;
    for c in &loaded.claims {
        if c.derived_by.is_empty() || produced.contains(&c.id) {
            continue;
        }
        if merge::untouched(c) {
            guard.remove_claim(&c.id)?;
            report.removed.push(c.id.clone());
        } else {
            report.not_derived_again.push(c.id.clone());
        }
    }
    Ok(case_claims)
}

/// Case records list the claims derived from their observations (and no removed one).
fn update_cases(
    guard: &WriteGuard,
    loaded: &crate::store::Loaded,
    case_claims: &BTreeMap<String, Vec<String>>,
    report: &mut DeriveReport,
) -> Result<(), DeriveError> {
    for case in &loaded.cases {
        let mut c = case.clone();
        // A removed claim leaves the case pages that listed it.
        c.claims.retain(|id| !report.removed.contains(id));
        for id in case_claims.get(&case.id).into_iter().flatten() {
            if !c.claims.contains(id) {
                c.claims.push(id.clone());
            }
        }
        if c != *case {
            guard.write_case(&c)?;
            report.cases_updated.push(c.id.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_valid_and_distinct() {
        let a = claim_id(
            rule::CASE_GROUP,
            "gfx900|MIOpen 3.5.1|conv_fwd|INT8|natural",
        );
        assert_eq!(
            a,
            claim_id(
                rule::CASE_GROUP,
                "gfx900|MIOpen 3.5.1|conv_fwd|INT8|natural"
            )
        );
        assert!(
            a.starts_with("case.group.gfx900-MIOpen-3.5.1-conv_fwd-INT8-natural-"),
            "{a}"
        );
        assert!(crate::files::valid_id(&a));
        let b = claim_id(
            rule::CASE_GROUP,
            "gfx900|MIOpen 3.5.1|conv_fwd|INT8-natural",
        );
        assert_ne!(a, b);
        let long = claim_id(rule::CASE_OUTCOME, &"x".repeat(500));
        assert!(crate::files::valid_id(&long) && long.len() <= 128, "{long}");
        assert!(crate::files::valid_id(&claim_id(rule::CASE_OUTCOME, "///")));
    }
}
