//! MIOpen: which solver a convolution gets on a device, and why — the applicability model of
//! `rocpath-miopen` (every solver's `IsApplicable` and the selection path per mode, read from
//! MIOpen's source) over the databases the device reads (the find-db record that answers first,
//! the perf-db of tuned configs).
//!
//! The databases: a user find-db record, when there is one, wins over the system record
//! (ROCm/MIOpen@2d1fd997 `src/include/miopen/db.hpp:217-222`); the system files are chosen by
//! `DbId` and CU count (`db.rs`). Every prediction is `inferred` until an observation agrees;
//! what the model cannot decide is `unresolved`, with the line that could not be decided.

pub mod db;
pub mod gemm;
pub mod install;
pub mod kcache;
pub mod request;
pub mod tunanet;

use db::{Choice, DbFile, FindDb, FindItem, PerfDb};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_miopen::Problem;
pub use rocpath_miopen::model::context::Device;
use rocpath_miopen::model::context::Env;
use rocpath_miopen::model::eval::Verdict;
use rocpath_miopen::model::ir::Model;
use rocpath_miopen::select::{self, Mode, Prediction, SolverFate, Tri, TunaNetFiles};
use rocpath_miopen::tunanet::ModelClass;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The JSON document of `rocpath explain miopen` for several problems (one problem's
/// document is its [`MiopenExplanation`]).
#[derive(Debug, Serialize)]
pub struct ExplanationsDoc<'a> {
    /// One explanation per problem.
    pub problems: &'a [MiopenExplanation],
}

/// Where the db rules come from.
pub const MIOPEN_SOURCE: &str = "ROCm/MIOpen@2d1fd997";

/// A find-db record given from outside (the one a log shows), with where it was seen.
#[derive(Debug, Clone)]
pub struct GivenRecord {
    /// Items.
    pub items: Vec<FindItem>,
    /// `user_find_db`, `system_find_db`, `log`.
    pub source: String,
    /// Where it was read.
    pub at: Locator,
}

/// What to explain.
#[derive(Debug, Clone)]
pub struct Query<'m> {
    /// The applicability model.
    pub model: &'m Model,
    /// The MIOpen release whose differences apply (`3.5.1`), if any.
    pub release: Option<String>,
    /// The device.
    pub device: Device,
    /// Folder of MIOpen's system databases, if any.
    pub db_dir: Option<PathBuf>,
    /// Folder of TunaNet's files, when not `db_dir` (a comparison whose log gave the record
    /// still reads the networks from the database folder).
    pub tunanet_dir: Option<PathBuf>,
    /// A user find-db to consult first.
    pub user_db: Option<PathBuf>,
    /// MIOpen's user kernel cache folder (`~/.cache/miopen`), whose `<basename>.ukdb` holds
    /// the kernels compiled on earlier runs.
    pub user_cache: Option<PathBuf>,
    /// A record given directly (it replaces the database lookups).
    pub record: Option<GivenRecord>,
    /// The problem.
    pub problem: Problem,
    /// API path.
    pub mode: Mode,
    /// Environment of the run.
    pub env: Env,
    /// Build switches differing from a release build.
    pub build: HashMap<String, i64>,
    /// What the user should know about the model chosen for the release (none was derived
    /// from that release's source), if anything.
    pub model_note: Option<String>,
}

/// One solver of the record, in the order MIOpen tries them.
#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    /// Solver name.
    pub solver: String,
    /// Registry id, when known.
    pub id: Option<u32>,
    /// Algorithm.
    pub algorithm: String,
    /// Time measured when the db was made (ms).
    pub time_ms: f64,
    /// Workspace (bytes).
    pub workspace: u64,
    /// Whether the perf-db has a tuned config of this solver for the problem (None: no perf-db).
    pub perf_db_record: Option<bool>,
}

/// The database file used, and how it was chosen.
#[derive(Debug, Clone, Serialize)]
pub struct DbUsed {
    /// The file.
    #[serde(flatten)]
    pub file: DbFile,
    /// Evidence for the choice.
    pub evidence: Evidence,
}

/// A value the deciding condition read.
#[derive(Debug, Clone, Serialize)]
pub struct Read {
    /// What was read (`problem.GetInDataType()`).
    pub what: String,
    /// Its value.
    pub value: String,
}

/// A line of MIOpen's source that decided something.
#[derive(Debug, Clone, Serialize)]
pub struct SourceStep {
    /// `path:line@commit`.
    pub at: String,
    /// The function.
    pub function: String,
    /// The condition or return.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// One solver's fate for the problem.
#[derive(Debug, Clone, Serialize)]
pub struct SolverReport {
    /// Registry id.
    pub id: u64,
    /// Name.
    pub solver: String,
    /// Algorithm.
    pub algorithm: String,
    /// `applicable`, `not_applicable`, `unresolved`.
    pub applicability: String,
    /// `IsDynamic()`.
    pub dynamic: Tri,
    /// `MayNeedWorkspace()`.
    pub may_need_workspace: Tri,
    /// `GetWti()`, when the model can compute it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wti: Option<f64>,
    /// The deciding line (for a rejection: the condition that rejects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<SourceStep>,
    /// The values the deciding condition was evaluated with.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<Read>,
    /// The chain below the deciding line (helpers called, their lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<SourceStep>,
    /// Why the model could not decide, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// The predicted solver.
#[derive(Debug, Clone, Serialize)]
pub struct Predicted {
    /// Solver name.
    pub solver: String,
    /// Registry id.
    pub id: Option<u32>,
    /// Algorithm.
    pub algorithm: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// A predicted failure.
#[derive(Debug, Clone, Serialize)]
pub struct PredictedFailure {
    /// `rejected_not_applicable`, `not_implemented`, `no_solution`, `build_failure`,
    /// `runtime_abort`.
    pub failure: String,
    /// What happens.
    pub statement: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// A statement about the path.
#[derive(Debug, Clone, Serialize)]
pub struct Reason {
    /// Solver name (empty for the path as a whole).
    pub solver: String,
    /// The statement.
    pub statement: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// The model a prediction used.
#[derive(Debug, Clone, Serialize)]
pub struct ModelUsed {
    /// `ROCm/MIOpen@2d1fd997`.
    pub source: String,
    /// The release overlay applied, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
}

/// The explanation of one problem.
#[derive(Debug, Clone, Serialize)]
pub struct MiopenExplanation {
    /// Device.
    pub device: Device,
    /// The problem.
    pub problem: Problem,
    /// Find-db key.
    pub problem_key: String,
    /// Network config (invoker-cache key).
    pub network_config: String,
    /// Perf-db key.
    pub perf_db_key: String,
    /// The model.
    pub model: ModelUsed,
    /// The find-db file the device reads (None: none).
    pub db_file: Option<DbUsed>,
    /// The perf-db file (None: none).
    pub perf_db_file: Option<DbUsed>,
    /// Where the record came from: `user_find_db`, `system_find_db`, `log`, or null.
    pub record_source: Option<String>,
    /// Whether a find-db record exists for the key.
    pub record_found: bool,
    /// Record entries by time.
    pub ranked: Vec<Ranked>,
    /// API path and find mode.
    pub mode: Mode,
    /// Find mode.
    pub find_mode: select::FindMode,
    /// The path, step by step, each cited.
    pub path: Vec<select::PathStep>,
    /// The solver that runs, when predicted.
    pub predicted: Option<Predicted>,
    /// The failure, when one is predicted.
    pub failure: Option<PredictedFailure>,
    /// Without a prediction: why.
    pub no_prediction: Option<Reason>,
    /// The candidates left when the model cannot pick one (timing, TunaNet, unknown WTI).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// TunaNet's applicability, when the path asks it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunanet: Option<SolverReport>,
    /// TunaNet's order, when the fallback ran it: each solver's output and what the fallback
    /// did with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tunanet_ranked: Vec<TunaRanked>,
    /// The WTI ranking, when the fallback came to it: each solver's WTI, the time MIOpen
    /// gives it and what the fallback did with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wti_ranked: Vec<select::WtiRank>,
    /// Every convolution solver, registry order.
    pub solvers: Vec<SolverReport>,
    /// Other statements (perf-db presence of the record's solvers).
    pub reasons: Vec<Reason>,
    /// Things the reader should know.
    pub notes: Vec<String>,
    /// The kernel databases the device opens and what compiles on the first run (with a
    /// system db folder or a user cache).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_cache: Option<kcache::KernelCache>,
    /// The rocBLAS call(s) each applicable GEMM solver issues (and, with a rocBLAS library
    /// folder, the kernel the GEMM model predicts for it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gemms: Vec<gemm::IssuedGemm>,
}

/// Why an explanation could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// A database could not be read.
    #[error(transparent)]
    Db(#[from] db::DbError),
}

/// MIOpen's registry id of a solver name (`ConvBinWinograd3x3U` → 14).
pub fn solver_id(name: &str) -> Option<u32> {
    rocpath_miopen::registry::by_name(name).and_then(|s| u32::try_from(s.id).ok())
}

/// A solver name for a registry id.
pub fn solver_name(id: u32) -> Option<&'static str> {
    rocpath_miopen::registry::by_id(u64::from(id)).map(rocpath_miopen::registry::display_name)
}

/// `path:line@commit` of a step of a verdict.
fn step_of(m: &Model, s: &rocpath_miopen::model::eval::Step) -> SourceStep {
    let f = m.functions.get(s.func as usize);
    let file = f
        .and_then(|f| m.files.get(f.site.file as usize))
        .map_or("?", |f| f.as_str());
    SourceStep {
        at: format!("{file}:{}@{}", s.line, short_commit(m)),
        function: f
            .map(|f| {
                f.name
                    .rsplit("::")
                    .take(2)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join("::")
            })
            .unwrap_or_default(),
        text: s.text.clone(),
        value: s.value.clone(),
    }
}

fn short_commit(m: &Model) -> String {
    m.source.commit.chars().take(8).collect()
}

fn model_loc(m: &Model, step: &SourceStep) -> Locator {
    let (path, line) = step
        .at
        .rsplit_once('@')
        .map_or((step.at.as_str(), ""), |(a, _)| (a, a));
    let _ = line;
    let (file, l) = path
        .rsplit_once(':')
        .map_or((path, None), |(f, l)| (f, l.parse().ok()));
    let mut loc = Locator::file(format!("{}:{file}", m.source.short()));
    if let Some(l) = l {
        loc = loc.with_line(l);
    }
    loc
}

/// A solver's fate as a report.
fn solver_report(m: &Model, f: &SolverFate) -> SolverReport {
    let (applicability, class, rule) = match f.applicable {
        Tri::Yes => ("applicable", Class::Inferred, "explain.miopen.applicable"),
        Tri::No => (
            "not_applicable",
            Class::Inferred,
            "explain.miopen.not_applicable",
        ),
        Tri::Unknown => (
            "unresolved",
            Class::Unresolved,
            "explain.miopen.applicability_unresolved",
        ),
    };
    let v: &Verdict = &f.verdict;
    let decisive = v.decisive().cloned();
    let start = decisive
        .as_ref()
        .and_then(|d| v.blame.iter().position(|s| s == d))
        .unwrap_or(0);
    let tail = v.blame.get(start + 1..).unwrap_or(&[]);
    let (reads, chain): (Vec<_>, Vec<_>) = tail.iter().partition(|s| {
        s.text
            .as_deref()
            .is_some_and(|t| !t.contains(' ') || t.ends_with("()"))
    });
    let decided_at = match (&f.applicable, &v.outcome) {
        (Tri::Unknown, rocpath_miopen::model::eval::Outcome::Unknown(u)) => Some(SourceStep {
            at: format!(
                "{}:{}@{}",
                m.functions
                    .get(u.func as usize)
                    .and_then(|f| m.files.get(f.site.file as usize))
                    .map_or("?", |s| s.as_str()),
                u.line,
                short_commit(m)
            ),
            function: m
                .functions
                .get(u.func as usize)
                .map(|f| f.name.clone())
                .unwrap_or_default(),
            text: None,
            value: None,
        }),
        _ => decisive.as_ref().map(|d| step_of(m, d)),
    };
    let unresolved = match &v.outcome {
        rocpath_miopen::model::eval::Outcome::Unknown(u) => Some(u.why.clone()),
        _ => None,
    };
    let mut evidence = Evidence::new(class, Proof::CodeVerified, rule);
    if let Some(d) = &decided_at {
        evidence = evidence.at(model_loc(m, d));
    }
    if let Some(u) = &unresolved {
        evidence = evidence.because(u.clone());
    }
    SolverReport {
        id: f.id,
        solver: f.name.clone(),
        algorithm: f.algo.clone(),
        applicability: applicability.into(),
        dynamic: f.dynamic,
        may_need_workspace: f.may_need_workspace,
        wti: f.wti.filter(|w| *w >= 0.0),
        decided_at,
        reads: reads
            .into_iter()
            .take(12)
            .map(|s| Read {
                what: s.text.clone().unwrap_or_default(),
                value: s.value.clone().unwrap_or_default(),
            })
            .collect(),
        chain: chain.into_iter().take(12).map(|s| step_of(m, s)).collect(),
        unresolved,
        evidence,
    }
}

/// The record the device reads: given, else the user find-db, else the system one.
fn record(q: &Query, key: &str, fdb: Option<&DbFile>) -> Result<Option<GivenRecord>, ExplainError> {
    if let Some(r) = &q.record {
        return Ok(Some(r.clone()));
    }
    if let Some(u) = &q.user_db {
        let db = FindDb::open(u)?;
        if let Some((items, line)) = db.record(key) {
            return Ok(Some(GivenRecord {
                items,
                source: "user_find_db".into(),
                at: Locator::file(u.display().to_string()).with_line(line),
            }));
        }
    }
    if let Some(f) = fdb {
        let db = FindDb::open(&f.path)?;
        if let Some((items, line)) = db.record(key) {
            return Ok(Some(GivenRecord {
                items,
                source: "system_find_db".into(),
                at: Locator::file(f.path.display().to_string()).with_line(line),
            }));
        }
    }
    Ok(None)
}

struct Dbs {
    fdb: Option<DbFile>,
    pdb: Option<DbFile>,
}

fn choose_dbs(q: &Query, notes: &mut Vec<String>) -> Dbs {
    let dev = &q.device;
    let Some(dir) = q.db_dir.as_ref().filter(|d| d.is_dir()) else {
        if let Some(d) = &q.db_dir {
            notes.push(format!(
                "{}: no such folder, so no find-db record is read (give --db)",
                d.display()
            ));
        }
        return Dbs {
            fdb: None,
            pdb: None,
        };
    };
    let cus = match dev.cus {
        Some(c) => c,
        None => {
            notes.push(format!(
                "no CU count given: the file choice assumes the CU count of the first {} find-db in {}",
                dev.db_id,
                dir.display()
            ));
            first_cu(dir, &dev.db_id).unwrap_or(0)
        }
    };
    let fdb = db::choose_find_db(dir, &dev.db_id, cus, "HIP");
    if fdb.is_none() {
        notes.push(format!(
            "no system find-db for {} in {}",
            dev.db_id,
            dir.display()
        ));
    }
    Dbs {
        fdb,
        pdb: db::choose_perf_db(dir, &dev.db_id, cus),
    }
}

fn perf_rows(
    pdb: Option<&DbFile>,
    p: &Problem,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<db::PerfRow>>, ExplainError> {
    let Some(f) = pdb else { return Ok(None) };
    let db = PerfDb::open(&f.path)?;
    Ok(match db.lookup(p) {
        Ok(rows) => Some(rows),
        Err(e) => {
            notes.push(format!("perf-db {}: {e}", f.path.display()));
            None
        }
    })
}

/// The model's own notes, shortened: the hand-written rules it could not re-check against the
/// source it was derived from.
fn model_notes(m: &Model) -> Vec<String> {
    let ids: Vec<&str> = m
        .notes
        .iter()
        .filter_map(|n| n.strip_prefix("rule ")?.split(' ').next())
        .collect();
    if ids.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "model {}: {} hand-written rules cite lines this source changed, and were kept as written for 2d1fd997: {}",
        m.source.short(),
        ids.len(),
        ids.join(", ")
    )]
}

/// Explains one problem.
pub fn explain(q: &Query) -> Result<MiopenExplanation, ExplainError> {
    let p = &q.problem;
    let key = p.fdb_key();
    let mut notes: Vec<String> = q.model_note.iter().cloned().collect();
    notes.extend(model_notes(q.model));
    let dbs = choose_dbs(q, &mut notes);
    let rec = record(q, &key, dbs.fdb.as_ref())?;
    let perf = perf_rows(dbs.pdb.as_ref(), p, &mut notes)?;
    let perf_has = |s: &str| perf.as_ref().map(|rows| rows.iter().any(|r| r.solver == s));
    let mut ranked: Vec<Ranked> = rec
        .iter()
        .flat_map(|r| r.items.iter())
        .map(|i| Ranked {
            solver: i.solver.clone(),
            id: solver_id(&i.solver),
            algorithm: i.algorithm.clone(),
            time_ms: i.time_ms,
            workspace: i.workspace,
            perf_db_record: perf_has(&i.solver),
        })
        .collect();
    ranked.sort_by(|a, b| a.time_ms.total_cmp(&b.time_ms));
    if let Err(e) = q.device.known() {
        notes.push(e.to_string());
        let mut e = base(q, key, dbs, rec, ranked, notes);
        e.no_prediction = Some(Reason {
            solver: String::new(),
            statement: "the device is not one the model can evaluate".into(),
            evidence: Evidence::new(
                Class::Unresolved,
                Proof::Hypothesis,
                "explain.miopen.unresolved",
            ),
        });
        return Ok(e);
    }
    let sel = selection(q, rec.as_ref());
    let mut reasons = Vec::new();
    for r in ranked.iter().filter(|r| r.perf_db_record == Some(false)) {
        reasons.push(perf_absent(&r.solver, dbs.pdb.as_ref()));
    }
    if let Mode::Forced(f) = &q.mode {
        if perf_has(f) == Some(false) && !ranked.iter().any(|r| &r.solver == f) {
            reasons.push(perf_absent(f, dbs.pdb.as_ref()));
        }
    }
    let solvers: Vec<SolverReport> = sel
        .fates
        .iter()
        .map(|f| solver_report(q.model, f))
        .collect();
    let (predicted, failure, no_prediction) = outcome(q, &sel, rec.as_ref(), &solvers);
    let tunanet = sel.tunanet.as_ref().map(|v| tunanet_report(q.model, v));
    let mut e = base(q, key, dbs, rec, ranked, notes);
    e.mode = sel.mode.clone();
    e.find_mode = sel.find_mode;
    e.path = sel.steps.clone();
    if let Prediction::Unresolved { candidates, .. } = &sel.prediction {
        e.candidates = candidates.clone();
    }
    (e.predicted, e.failure, e.no_prediction) = (predicted, failure, no_prediction);
    e.tunanet = tunanet;
    e.tunanet_ranked = tunanet_ranked(q, &sel);
    e.wti_ranked = sel.wti_order.clone();
    e.gemms = gemm::issued_all(&solvers, p, &q.env);
    e.solvers = solvers;
    e.reasons = reasons;
    if let Some(p) = &e.predicted {
        e.kernel_cache = kernel_cache(q, Some(&p.solver));
    }
    Ok(e)
}

/// The selection path, with the device's TunaNet files read from their folder.
fn selection(q: &Query, rec: Option<&GivenRecord>) -> select::Selection {
    let tn = tunanet_dir(q).map(|d| tunanet::load(d, tunanet_class(q)));
    let unreadable = match tn.as_deref() {
        Some(Err(e)) => e.to_string(),
        _ => String::new(),
    };
    let sq = select::Query {
        problem: &q.problem,
        device: &q.device,
        env: &q.env,
        build: &q.build,
        release: q.release.as_deref(),
        record: rec.map(|r| r.items.as_slice()),
        mode: q.mode.clone(),
        tunanet: match tn.as_deref() {
            None => TunaNetFiles::NotRead,
            Some(Ok(n)) => TunaNetFiles::Read(n),
            Some(Err(_)) => TunaNetFiles::Unreadable(&unreadable),
        },
    };
    select::select(q.model, &sq)
}

/// Where TunaNet's files are read from: their own folder, else the database folder.
fn tunanet_dir<'q>(q: &'q Query) -> Option<&'q Path> {
    q.tunanet_dir.as_deref().or(q.db_dir.as_deref())
}

/// The TunaNet class MIOpen loads for the query's device.
fn tunanet_class(q: &Query) -> ModelClass {
    select::tunanet_class(&q.device, &q.env)
}

/// One solver in TunaNet's order, with its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct TunaRanked {
    /// The solver.
    pub solver: String,
    /// The network's output for it (higher ranks first).
    pub score: f32,
    /// What the fallback did with it.
    pub fate: select::FallbackFate,
    /// The network file and the rule that orders.
    pub evidence: Evidence,
}

fn tunanet_ranked(q: &Query, sel: &select::Selection) -> Vec<TunaRanked> {
    let file = tunanet_dir(q).map(|d| tunanet::model_path(d, tunanet_class(q)));
    sel.tunanet_order
        .iter()
        .map(|r| {
            let mut ev = Evidence::new(
                Class::Inferred,
                Proof::CodeVerified,
                "explain.miopen.tunanet_rank",
            );
            if let Some(f) = &file {
                ev = ev.at(Locator::file(f.display().to_string()));
            }
            TunaRanked {
                solver: r.solver.clone(),
                score: r.score,
                fate: r.fate,
                evidence: ev,
            }
        })
        .collect()
}

fn tunanet_report(m: &Model, v: &Verdict) -> SolverReport {
    let f = SolverFate {
        id: 0,
        name: "TunaNet IsProblemSupported".into(),
        algo: String::new(),
        applicable: match &v.outcome {
            rocpath_miopen::model::eval::Outcome::Bool { v: true } => Tri::Yes,
            rocpath_miopen::model::eval::Outcome::Bool { v: false } => Tri::No,
            _ => Tri::Unknown,
        },
        verdict: v.clone(),
        dynamic: Tri::Unknown,
        may_need_workspace: Tri::Unknown,
        wti: None,
        algo_disabled: Tri::No,
    };
    solver_report(m, &f)
}

fn perf_absent(solver: &str, pdb: Option<&DbFile>) -> Reason {
    Reason {
        solver: solver.to_string(),
        statement: format!(
            "no perf-db row for {solver} on this problem: MIOpen logs `Perf Db: record not found` and uses the solver's default (heuristic) config"
        ),
        evidence: Evidence::new(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            "explain.miopen.perf_db_absent",
        )
        .at(Locator::file(
            pdb.map(|f| f.path.display().to_string())
                .unwrap_or_default(),
        )),
    }
}

fn path_locs(q: &Query, steps: &[select::PathStep]) -> Vec<Locator> {
    steps
        .iter()
        .filter(|s| !s.cite.is_empty())
        .map(|s| {
            let (loc, _) = s.cite.rsplit_once('@').unwrap_or((s.cite.as_str(), ""));
            let (file, line) = loc.rsplit_once(':').map_or((loc, None), |(f, l)| {
                (f, l.split('-').next().and_then(|l| l.parse().ok()))
            });
            let mut l = Locator::file(format!("{}:{file}", q.model.source.short()));
            if let Some(n) = line {
                l = l.with_line(n);
            }
            l
        })
        .collect()
}

/// The evidence of a predicted failure: a fate fitted to recorded runs (the `forced.*` rules)
/// is a hypothesis, one derived from the source is code.
fn failure_evidence(q: &Query, sel: &select::Selection) -> Evidence {
    let calibrated = sel.steps.iter().find_map(|st| {
        let r = q.model.rules.iter().find(|r| r.id == st.rule)?;
        r.calibrated.as_ref().map(|c| (r.id.as_str(), c))
    });
    match calibrated {
        Some((id, runs)) => Evidence::new(
            Class::Inferred,
            Proof::Hypothesis,
            "explain.miopen.forced_fate_calibrated",
        )
        .because(format!(
            "rule {id} was fitted to recorded runs ({runs}), not derived from the cited source"
        )),
        None => Evidence::new(
            Class::Inferred,
            Proof::CodeVerified,
            "explain.miopen.predicted_failure",
        ),
    }
}

type Outcome3 = (Option<Predicted>, Option<PredictedFailure>, Option<Reason>);

fn outcome(
    q: &Query,
    sel: &select::Selection,
    rec: Option<&GivenRecord>,
    solvers: &[SolverReport],
) -> Outcome3 {
    let mut locs = path_locs(q, &sel.steps);
    match &sel.prediction {
        Prediction::Solver { name, id } => {
            let from_record = rec.is_some_and(|r| r.items.iter().any(|i| &i.solver == name))
                && sel.steps.iter().any(|s| s.rule == "path.immediate.record");
            let rule = match (&sel.mode, from_record) {
                (Mode::Forced(_), _) => "explain.miopen.forced_runs",
                (_, true) => "explain.miopen.fastest_record",
                (Mode::Find, false) => "explain.miopen.only_applicable",
                _ if !sel.tunanet_order.is_empty() => "explain.miopen.tunanet_first",
                _ => "explain.miopen.wti_first",
            };
            let mut ev = Evidence::new(Class::Inferred, Proof::CodeVerified, rule);
            if let (true, Some(r)) = (from_record, rec) {
                ev = ev.at(r.at.clone());
            }
            // TunaNet's order: the network file it was read from.
            if rule == "explain.miopen.tunanet_first" {
                if let Some(d) = tunanet_dir(q) {
                    let f = tunanet::model_path(d, tunanet_class(q));
                    ev = ev.at(Locator::file(f.display().to_string()));
                }
            }
            if let Some(s) = solvers.iter().find(|s| &s.solver == name) {
                if let Some(d) = &s.decided_at {
                    ev = ev.at(model_loc(q.model, d));
                }
            }
            for l in locs.drain(..) {
                ev = ev.at(l);
            }
            let algo = solvers
                .iter()
                .find(|s| &s.solver == name)
                .map(|s| s.algorithm.clone())
                .unwrap_or_default();
            (
                Some(Predicted {
                    solver: name.clone(),
                    id: u32::try_from(*id).ok(),
                    algorithm: algo,
                    evidence: ev.because(format!("model {}", q.model.source.short())),
                }),
                None,
                None,
            )
        }
        Prediction::Failure { failure, why } => {
            let mut ev = failure_evidence(q, sel);
            for l in locs.drain(..) {
                ev = ev.at(l);
            }
            (
                None,
                Some(PredictedFailure {
                    failure: failure.clone(),
                    statement: why.clone(),
                    evidence: ev,
                }),
                None,
            )
        }
        Prediction::Unresolved { why, candidates } => {
            let mut ev = Evidence::new(
                Class::Unresolved,
                Proof::CodeVerified,
                "explain.miopen.unresolved",
            );
            for l in locs.drain(..) {
                ev = ev.at(l);
            }
            let statement = if candidates.is_empty() {
                why.clone()
            } else {
                format!("{why}: {}", candidates.join(", "))
            };
            (
                None,
                None,
                Some(Reason {
                    solver: String::new(),
                    statement,
                    evidence: ev,
                }),
            )
        }
    }
}

/// What an explanation says before the selection: the device, problem, keys, databases and
/// record; the path, verdicts and prediction are left empty for the caller to fill.
fn base(
    q: &Query,
    key: String,
    dbs: Dbs,
    rec: Option<GivenRecord>,
    ranked: Vec<Ranked>,
    notes: Vec<String>,
) -> MiopenExplanation {
    let p = &q.problem;
    MiopenExplanation {
        device: q.device.clone(),
        problem: p.clone(),
        problem_key: key,
        network_config: p.network_config(),
        perf_db_key: p.perf_db_key(),
        model: ModelUsed {
            source: q.model.source.short(),
            release: q.release.clone(),
        },
        db_file: dbs.fdb.map(|f| DbUsed {
            evidence: db_evidence(&f, &q.device),
            file: f,
        }),
        perf_db_file: dbs.pdb.map(|f| DbUsed {
            evidence: db_evidence(&f, &q.device),
            file: f,
        }),
        record_source: rec.as_ref().map(|r| r.source.clone()),
        record_found: rec.is_some(),
        ranked,
        mode: q.mode.clone(),
        find_mode: select::FindMode::from_env(&q.env),
        path: Vec::new(),
        predicted: None,
        failure: None,
        candidates: Vec::new(),
        no_prediction: None,
        tunanet: None,
        tunanet_ranked: Vec::new(),
        wti_ranked: Vec::new(),
        solvers: Vec::new(),
        reasons: Vec::new(),
        notes,
        kernel_cache: kernel_cache(q, None),
        gemms: Vec::new(),
    }
}

/// The kernel databases of the device, with a system db folder or a user cache given.
fn kernel_cache(q: &Query, solver: Option<&str>) -> Option<kcache::KernelCache> {
    let system = q.db_dir.as_deref().filter(|d| d.is_dir());
    (system.is_some() || q.user_cache.is_some()).then(|| {
        kcache::kernel_cache(
            system,
            q.user_cache.as_deref(),
            &q.device.db_id,
            q.device.cus,
            solver,
        )
    })
}

fn source_loc(site: &str) -> Locator {
    let (path, line) = match site.rsplit_once(':') {
        Some((p, l)) => (p, l.split('-').next().and_then(|l| l.parse().ok())),
        None => (site, None),
    };
    let mut loc = Locator::file(format!("{MIOPEN_SOURCE}:{path}"));
    if let Some(l) = line {
        loc = loc.with_line(l);
    }
    loc
}

fn db_evidence(f: &DbFile, dev: &Device) -> Evidence {
    let loc = Locator::file(f.path.display().to_string());
    match f.choice {
        Choice::Exact => Evidence::new(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            "explain.miopen.db_exact",
        )
        .at(loc)
        .at(source_loc("src/include/miopen/handle.hpp:225-236"))
        .because(format!("the device asks for {}", f.wanted)),
        Choice::AlternateBackend => Evidence::new(
            Class::Inferred,
            Proof::CodeVerified,
            "explain.miopen.db_alternate_backend",
        )
        .at(loc)
        .at(source_loc("src/find_db.cpp:164-168"))
        .because(format!("no {} file of the wanted backend", f.wanted)),
        Choice::NearestCu => Evidence::new(
            Class::Inferred,
            Proof::CodeVerified,
            "explain.miopen.db_nearest_cu",
        )
        .at(loc)
        .at(source_loc("src/find_db.cpp:169-185"))
        .because(format!(
            "no {} file; nearest CU count of {} is {} (in MIOpen 2d1fd997 the find-db filter at find_db.cpp:151-152 compares extension() with \".fdb.txt\", which never matches: a release with that filter uses no system find-db here)",
            f.wanted,
            dev.db_id,
            f.cus.map_or("?".into(), |c| c.to_string())
        )),
    }
}

fn first_cu(dir: &Path, db_id: &str) -> Option<u32> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(db_id) && n.contains(".fdb.txt"))
        .collect();
    names.sort();
    names
        .iter()
        .find_map(|n| db::cu_of_stem(n.split('.').next()?, db_id))
}

/// Predicts many keys against one find-db (the benchmark path): returns the fastest solver of
/// each key's record, or None.
pub fn predict_keys(db: &FindDb, keys: &[String]) -> Vec<Option<String>> {
    keys.iter()
        .map(|k| {
            let (items, _) = db.record(k)?;
            items
                .into_iter()
                .min_by(|a, b| a.time_ms.total_cmp(&b.time_ms))
                .map(|i| i.solver)
        })
        .collect()
}
