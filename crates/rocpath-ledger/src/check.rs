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
//! | `ledger.placeholder_in_statement` | error | a claim's statement has a `?` where a value should be |
//! | `ledger.limited_without_limit` | error | a derived `limited` claim none of whose supports is limited or unresolved |
//! | `ledger.split_by_other_process` | error | a claim states an Ollama run split between GPU and CPU whose other side is only another server process's lines |
//! | `ledger.confirmed_from_one_run` | error | a derived prediction classed confirmed that fewer than two agreeing runs support |
//! | `ledger.timing_in_forced_run` | error | a claim about a forced run says timing decides |
//! | `ledger.group_mixes_configurations` | error | a derived Ollama run group whose runs were recorded under different configurations |
//! | `ledger.input_unavailable` | warning | a hashed raw input cannot be found here to re-check |

use crate::files::ParseError;
use crate::import::{resolve_input, sha256_file};
use crate::index::{self, Index, Resolved};
use crate::model::*;
use crate::store::{Ledger, Loaded, StoreError};
use crate::{schemas, slim};
use rocpath_evidence::Class;
use std::collections::{BTreeSet, HashMap, HashSet};
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
    /// A claim's statement holds a placeholder instead of a value.
    pub const PLACEHOLDER_IN_STATEMENT: &str = "ledger.placeholder_in_statement";
    /// A derived claim is `limited` though nothing it rests on was limited by the observation.
    pub const LIMITED_WITHOUT_LIMIT: &str = "ledger.limited_without_limit";
    /// A claim states a split placement that only another server process's lines make.
    pub const SPLIT_BY_OTHER_PROCESS: &str = "ledger.split_by_other_process";
    /// A derived run group mixes run configurations.
    pub const GROUP_MIXES_CONFIGURATIONS: &str = "ledger.group_mixes_configurations";
    /// A derived prediction is confirmed by a single run.
    pub const CONFIRMED_FROM_ONE_RUN: &str = "ledger.confirmed_from_one_run";
    /// A claim about a forced run says timing decides.
    pub const TIMING_IN_FORCED_RUN: &str = "ledger.timing_in_forced_run";
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
    let mut run = Run::new(root, l);
    for o in &l.observations {
        run.observation(o);
    }
    run.finish()
}

/// What [`check_ledger`] read and found.
#[derive(Debug, Default)]
pub struct Checked {
    /// The problems, sorted as [`check`] sorts them.
    pub problems: Vec<Problem>,
    /// Claims read.
    pub claims: usize,
    /// Questions read.
    pub questions: usize,
    /// Cases read.
    pub cases: usize,
    /// Observations read.
    pub observations: usize,
}

impl Checked {
    /// How many problems have this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == severity)
            .count()
    }
}

/// Runs every rule over a ledger folder, like [`check`] over [`Ledger::load`], but reads the
/// observations one at a time and only what the rules read of them ([`crate::slim`]): memory
/// holds the claims, questions and cases and one pruned observation, not every document.
pub fn check_ledger(ledger: &Ledger) -> Result<Checked, StoreError> {
    let (mut l, files) = ledger.load_without_observations()?;
    let mut unreadable = Vec::new();
    let mut run = Run::new(ledger.root(), &l);
    let mut observations = 0;
    for f in files {
        let stem = f.id;
        let o = slim::read_observation(&f.path).and_then(|o| {
            if o.id == stem {
                Ok(o)
            } else {
                Err(ParseError::IdMismatch { id: o.id, stem })
            }
        });
        match o {
            Ok(o) => {
                run.observation(&o);
                observations += 1;
            }
            Err(e) => unreadable.push((f.rel, e)),
        }
    }
    run.unreadable(&unreadable);
    let problems = run.finish();
    l.unreadable.extend(unreadable);
    Ok(Checked {
        problems,
        claims: l.claims.len(),
        questions: l.questions.len(),
        cases: l.cases.len(),
        observations,
    })
}

/// What one claim's supports lend it, gathered as the observations they name are read.
#[derive(Default)]
struct ClaimState {
    any_confirmed: bool,
    /// A support is limited, unresolved or without a class: a limit of the observation.
    any_limit: bool,
    weaker: Vec<(usize, String)>,
    /// The configurations of the runs a derived run group rests on.
    configs: BTreeSet<String>,
}

/// One run of the rules. Problems are keyed by (claim, support) so that the order does not
/// depend on when an observation was read.
struct Run<'a> {
    root: &'a Path,
    ix: Index<'a>,
    claims: Vec<ClaimState>,
    /// Observation id → (claim, support) indices waiting for it.
    pending: HashMap<&'a str, Vec<(usize, usize)>>,
    seen: HashSet<String>,
    hashes: HashCache,
    out: Vec<(usize, usize, Problem)>,
}

impl<'a> Run<'a> {
    fn new(root: &'a Path, l: &'a Loaded) -> Self {
        let mut run = Run {
            root,
            ix: Index::new(l),
            claims: Vec::new(),
            pending: HashMap::new(),
            seen: HashSet::new(),
            hashes: HashCache::default(),
            out: Vec::new(),
        };
        run.unreadable(&l.unreadable);
        for (ci, c) in l.claims.iter().enumerate() {
            run.claims.push(ClaimState::default());
            run.claim_form(ci, c);
            for (si, s) in c.support.iter().enumerate() {
                match &s.observation {
                    Some(oid) => run.pending.entry(oid.as_str()).or_default().push((ci, si)),
                    None => {
                        let r = run.ix.resolve(s);
                        run.support(ci, si, r);
                    }
                }
            }
        }
        run
    }

    fn push(&mut self, ci: usize, si: usize, p: Problem) {
        self.out.push((ci, si, p));
    }

    fn unreadable(&mut self, files: &[(String, ParseError)]) {
        for (file, e) in files {
            self.push(
                usize::MAX,
                0,
                Problem {
                    rule: rule::UNREADABLE,
                    severity: Severity::Error,
                    file: file.clone(),
                    record: String::new(),
                    message: e.to_string(),
                    input: None,
                },
            );
        }
    }

    /// Rules on a claim's own fields.
    fn claim_form(&mut self, ci: usize, c: &Claim) {
        if c.class.is_none() {
            let p = claim_problem(
                c,
                rule::CLAIM_WITHOUT_CLASS,
                format!(
                    "claim {:?} has no class; set class = \"confirmed\", \"inferred\", \"unresolved\" or \"limited\"",
                    c.id
                ),
            );
            self.push(ci, 0, p);
        }
        if c.support.is_empty() {
            let p = claim_problem(
                c,
                rule::CLAIM_WITHOUT_SUPPORT,
                format!(
                    "claim {:?} has no support; add a [[support]] naming the observation, record, claim or source it rests on (an unresolved claim names the observation that was attempted)",
                    c.id
                ),
            );
            self.push(ci, 0, p);
        }
        if let Some(lang) = c.statement.placeholder() {
            let p = claim_problem(
                c,
                rule::PLACEHOLDER_IN_STATEMENT,
                format!(
                    "claim {:?}: its {lang} statement has a `?` where a value should be ({:?}); a claim that lacks a value is not written — state the value, or remove the claim",
                    c.id,
                    if lang == "ja" {
                        &c.statement.ja
                    } else {
                        &c.statement.en
                    }
                ),
            );
            self.push(ci, 0, p);
        }
        self.overstated(ci, c);
    }

    /// A prediction confirmed from one run; timing said to decide in a forced run.
    fn overstated(&mut self, ci: usize, c: &Claim) {
        let one_run = c
            .derived
            .as_ref()
            .is_some_and(|d| d.of < crate::derive::explain::CONFIRMING_RUNS);
        if c.derived_by == "derive.explain.prediction"
            && c.class == Some(Class::Confirmed)
            && one_run
        {
            let p = claim_problem(
                c,
                rule::CONFIRMED_FROM_ONE_RUN,
                format!(
                    "claim {:?} confirms a prediction from a single run; one run does not repeat the result — it stays inferred (runtime_verified) until a second run agrees",
                    c.id
                ),
            );
            self.push(ci, 0, p);
        }
        let forced = c.selection == Some(SelectionKind::Forced)
            || c.statement.en.contains("(forced")
            || c.statement.ja.contains("を強制した");
        let timing = c.statement.en.to_ascii_lowercase().contains("timing")
            || c.statement.ja.contains("タイミング");
        if forced && timing {
            let p = claim_problem(
                c,
                rule::TIMING_IN_FORCED_RUN,
                format!(
                    "claim {:?} is about a forced run but says timing decides; a forced solver is not chosen among timed candidates — state what the model cannot evaluate instead",
                    c.id
                ),
            );
            self.push(ci, 0, p);
        }
    }

    /// An observation as read: the supports that name it, and its raw inputs.
    fn observation(&mut self, o: &Observation) {
        self.seen.insert(o.id.clone());
        if let Some(waiting) = self.pending.remove(o.id.as_str()) {
            for (ci, si) in waiting {
                let l = self.ix.ledger;
                let r = index::resolve_in(o, &l.claims[ci].support[si]);
                self.support(ci, si, r);
            }
        }
        let file = format!("observations/{}.json", o.id);
        for i in &o.inputs {
            let Some(want) = &i.sha256 else { continue };
            let at = resolve_input(self.root, &o.imported.base, &i.path);
            let mut out = Vec::new();
            stale(
                &mut self.hashes,
                &at,
                want,
                &file,
                &o.id,
                &i.path,
                "observation",
                &mut out,
            );
            for p in out {
                self.push(usize::MAX, 1, p);
            }
        }
    }

    /// The rules on one resolved support of claim `ci`.
    fn support(&mut self, ci: usize, si: usize, r: Resolved<'_>) {
        let l = self.ix.ledger;
        let c = &l.claims[ci];
        let s = &c.support[si];
        if let Resolved::Missing(why) = &r {
            let p = claim_problem(
                c,
                rule::MISSING_RECORD,
                format!("claim {:?}: support {}: {why}", c.id, s.reference()),
            );
            return self.push(ci, si, p);
        }
        if matches!(r.class(), Some(Class::Limited | Class::Unresolved) | None) {
            self.claims[ci].any_limit = true;
        }
        match r.class() {
            Some(Class::Confirmed) => self.claims[ci].any_confirmed = true,
            Some(k) => self.claims[ci]
                .weaker
                .push((si, format!("{} ({k})", s.reference()))),
            None => self.claims[ci]
                .weaker
                .push((si, format!("{} (no class)", s.reference()))),
        }
        if c.selection == Some(SelectionKind::Natural) {
            if let Some(why) = forced_support(&r) {
                let p = claim_problem(
                    c,
                    rule::FORCED_AS_NATURAL,
                    format!(
                        "claim {:?} is about natural selection, but its support {} is a forced run ({why}); a forced run shows what the forced solver does, not what the library would choose — support it with a run without forcing, or set selection = \"forced\"",
                        c.id,
                        s.reference()
                    ),
                );
                self.push(ci, si, p);
            }
        }
        self.run_checks(ci, si, &r);
        if let (Resolved::Source(loc), Some(want)) =
            (&r, s.source.as_ref().and_then(|l| l.sha256.as_ref()))
        {
            let at = resolve_input(self.root, ".", &loc.path);
            let file = format!("claims/{}.toml", c.id);
            let mut out = Vec::new();
            stale(
                &mut self.hashes,
                &at,
                want,
                &file,
                &c.id,
                &loc.path,
                "source",
                &mut out,
            );
            for p in out {
                self.push(ci, si, p);
            }
        }
    }

    /// The Ollama run rules on one resolved support: a split stated from another process's
    /// lines, and the configurations a run group rests on.
    fn run_checks(&mut self, ci: usize, si: usize, r: &Resolved<'_>) {
        let Resolved::Records(o, recs) = r else {
            return;
        };
        let c = &self.ix.ledger.claims[ci];
        let split = c.statement.en.contains("split between GPU and CPU")
            || c.statement.ja.contains("GPU と CPU に分かれて");
        for rec in recs.iter() {
            let v = rec.value;
            if split {
                if let Some(why) = schemas::split_by_other_process(v) {
                    let p = claim_problem(
                        c,
                        rule::SPLIT_BY_OTHER_PROCESS,
                        format!(
                            "claim {:?} says the run was split between GPU and CPU, but {why}: lines of another process say nothing about where this model ran; derive again",
                            c.id
                        ),
                    );
                    self.push(ci, si, p);
                }
            }
            // A run whose own document logs no configuration cannot show a mix.
            let cfg = schemas::run_config(o, &rec.pointer);
            if c.derived_by == "derive.ollama.placement_group" && !cfg.is_empty() {
                self.claims[ci].configs.insert(cfg);
            }
        }
    }

    /// Supports of observations never read, confirmed-by-inference, questions and cases;
    /// then the problems in their order.
    fn finish(mut self) -> Vec<Problem> {
        let l = self.ix.ledger;
        let mut waiting: Vec<(usize, usize)> = self.pending.drain().flat_map(|(_, v)| v).collect();
        waiting.sort_unstable();
        for (ci, si) in waiting {
            let oid = l.claims[ci].support[si]
                .observation
                .clone()
                .unwrap_or_default();
            let r = Resolved::Missing(format!("observation {oid:?} is not in the ledger"));
            self.support(ci, si, r);
        }
        for (ci, c) in l.claims.iter().enumerate() {
            let st = std::mem::take(&mut self.claims[ci]);
            if st.configs.len() > 1 {
                let list: Vec<&str> = st.configs.iter().map(String::as_str).collect();
                let p = claim_problem(
                    c,
                    rule::GROUP_MIXES_CONFIGURATIONS,
                    format!(
                        "claim {:?} groups runs recorded under {} configurations ({}); a group is one configuration — a later build or other settings are another group; derive again",
                        c.id,
                        list.len(),
                        list.join(" | ")
                    ),
                );
                self.push(ci, usize::MAX, p);
            }
            if c.class == Some(Class::Limited)
                && !c.derived_by.is_empty()
                && !st.any_limit
                && !c.support.is_empty()
            {
                let p = claim_problem(
                    c,
                    rule::LIMITED_WITHOUT_LIMIT,
                    format!(
                        "claim {:?} is limited, but every record it rests on was observed in full; limited is for a limit of the observation — cases that are different problems, or that disagree, are stated as such with the class of their records (or unresolved)",
                        c.id
                    ),
                );
                self.push(ci, usize::MAX, p);
            }
            if c.class == Some(Class::Confirmed) && !st.any_confirmed && !st.weaker.is_empty() {
                let mut weaker = st.weaker;
                weaker.sort();
                let list: Vec<String> = weaker.into_iter().map(|w| w.1).collect();
                let p = claim_problem(
                    c,
                    rule::CONFIRMED_BY_INFERENCE,
                    format!(
                        "claim {:?} is confirmed, but none of its support is confirmed: {}; add a direct observation or lower its class to inferred",
                        c.id,
                        list.join(", ")
                    ),
                );
                self.push(ci, usize::MAX, p);
            }
        }
        let links = links(l, &self.ix, &self.seen);
        for p in links {
            self.push(usize::MAX, 2, p);
        }
        self.out.sort_by(|a, b| {
            (a.2.severity, &a.2.file, a.2.rule, a.0, a.1).cmp(&(
                b.2.severity,
                &b.2.file,
                b.2.rule,
                b.0,
                b.1,
            ))
        });
        self.out.into_iter().map(|x| x.2).collect()
    }
}

fn claim_problem(c: &Claim, rule: &'static str, message: String) -> Problem {
    Problem {
        rule,
        severity: Severity::Error,
        file: format!("claims/{}.toml", c.id),
        record: c.id.clone(),
        message,
        input: None,
    }
}

/// Links from questions to claims and from cases to observations, claims and questions.
fn links(l: &Loaded, ix: &Index<'_>, observations: &HashSet<String>) -> Vec<Problem> {
    let mut out = Vec::new();
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
        let absent = |what: &str, id: &str| {
            missing(
                &file,
                &c.id,
                format!(
                    "case {:?} lists {what} {id:?}, which is not in the ledger",
                    c.id
                ),
            )
        };
        for o in c
            .observations
            .iter()
            .filter(|o| !observations.contains(o.as_str()))
        {
            out.push(absent("observation", o));
        }
        for cl in c
            .claims
            .iter()
            .filter(|cl| !ix.claims.contains_key(cl.as_str()))
        {
            out.push(absent("claim", cl));
        }
        for q in c
            .questions
            .iter()
            .filter(|q| !ix.questions.contains_key(q.as_str()))
        {
            out.push(absent("question", q));
        }
    }
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
struct HashCache(HashMap<PathBuf, std::io::Result<String>>);

impl HashCache {
    fn get(&mut self, p: &Path) -> &std::io::Result<String> {
        self.0
            .entry(p.to_path_buf())
            .or_insert_with(|| sha256_file(p).map(|(h, _)| h))
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
