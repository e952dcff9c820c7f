//! MIOpen: which solver the find step takes for a convolution on a device, read from the shipped
//! find-db and perf-db, and why the solvers it does not take cannot apply.
//!
//! The find step (immediate mode `GetSolutions`, and the Find API in the default
//! `DYNAMIC_HYBRID` mode on a find-db hit) sorts the record's solvers by time and takes the first
//! that is applicable and fits the workspace (ROCm/MIOpen@2d1fd997 `src/ocl/convolutionocl.cpp:698-756`).
//! A user find-db record, when there is one, wins over the system record (`src/include/miopen/db.hpp:217-222`).
//! Without a record MIOpen measures (Find regenerates the find-db) or, in immediate mode, ranks
//! by the WTI/TunaNet heuristics (`convolutionocl.cpp:600-672`): the result depends on timings
//! on the device and is not predicted here.

pub mod db;

use db::{Choice, DbFile, FindDb, FindItem, PerfDb};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_miopen::Problem;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the find-step rule and the db choice come from.
pub const MIOPEN_SOURCE: &str = "ROCm/MIOpen@2d1fd997";

const GATES: &str = include_str!("../../data/miopen-gates-2d1fd997.toml");

/// MIOpen's registry id of a solver name (`ConvBinWinograd3x3U` → 14).
pub fn solver_id(name: &str) -> Option<u32> {
    rocpath_miopen::registry::by_name(name).and_then(|s| u32::try_from(s.id).ok())
}

/// A solver name for a registry id.
pub fn solver_name(id: u32) -> Option<&'static str> {
    rocpath_miopen::registry::by_id(u64::from(id)).map(rocpath_miopen::registry::display_name)
}

#[derive(Debug, Clone, Deserialize)]
struct GateFile {
    miopen: String,
    gate: Vec<Gate>,
}

/// One capability gate of the data file.
#[derive(Debug, Clone, Deserialize)]
pub struct Gate {
    kind: String,
    values: Vec<String>,
    #[serde(default)]
    feature: Option<String>,
    what: String,
    #[allow(dead_code)]
    site: String,
    solvers: Vec<(String, String)>,
}

fn gates() -> &'static (String, Vec<Gate>) {
    static G: OnceLock<(String, Vec<Gate>)> = OnceLock::new();
    G.get_or_init(|| match toml::from_str::<GateFile>(GATES) {
        Ok(f) => (f.miopen, f.gate),
        Err(_) => (String::new(), Vec::new()),
    })
}

/// The device as MIOpen sees it.
#[derive(Debug, Clone, Serialize)]
pub struct Device {
    /// Target id as given (`gfx900:xnack-`).
    pub target: String,
    /// Processor (`gfx900`).
    pub processor: String,
    /// `TargetProperties::DbId` (`gfx900`, `gfx906_nosramecc`, `gfx90a_xnack`…).
    pub db_id: String,
    /// Compute units, when known.
    pub cus: Option<u32>,
}

impl Device {
    /// From a target id and CU count. `DbId` (src/target_properties.cpp:40-134): the
    /// processor, `_nosramecc` for gfx906/gfx908 with SRAMECC off, `_sramecc` for others with it
    /// on, `_xnack` with XNACK on.
    pub fn new(target: &rocpath_arch::TargetId, cus: Option<u32>) -> Device {
        use rocpath_arch::FeatureSetting as F;
        let p = target.processor.clone();
        let mut db_id = p.clone();
        let old = p == "gfx906" || p == "gfx908";
        match target.sramecc {
            F::Off if old => db_id.push_str("_nosramecc"),
            F::On if !old => db_id.push_str("_sramecc"),
            _ => {}
        }
        if target.xnack == F::On {
            db_id.push_str("_xnack");
        }
        Device {
            target: target.full(),
            processor: p,
            db_id,
            cus,
        }
    }
}

/// What to explain.
#[derive(Debug, Clone)]
pub struct Query {
    /// The device.
    pub device: Device,
    /// Folder of MIOpen's system databases (`/opt/rocm/share/miopen/db`, or MIOpen's
    /// `src/kernels` with `.bz2` files).
    pub db_dir: PathBuf,
    /// A user find-db (`~/.config/miopen/<basename>.<version>.ufdb.txt`) to consult first.
    pub user_db: Option<PathBuf>,
    /// The problem.
    pub problem: Problem,
    /// A solver forced with `-S` or `MIOPEN_DEBUG_FIND_ONLY_SOLVER`, if any.
    pub forced: Option<String>,
    /// Gates found by `rocpath gates` (its `--json` output), if given.
    pub gates_doc: Option<(String, serde_json::Value)>,
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

/// The predicted selection.
#[derive(Debug, Clone, Serialize)]
pub struct Predicted {
    /// Solver name.
    pub solver: String,
    /// Registry id, when known.
    pub id: Option<u32>,
    /// Algorithm.
    pub algorithm: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// A reason about one solver.
#[derive(Debug, Clone, Serialize)]
pub struct Reason {
    /// Solver name.
    pub solver: String,
    /// The statement.
    pub statement: String,
    /// Evidence.
    pub evidence: Evidence,
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

/// The explanation of one problem.
#[derive(Debug, Clone, Serialize)]
pub struct MiopenExplanation {
    /// Device.
    pub device: Device,
    /// The problem.
    pub problem: Problem,
    /// Find-db key.
    pub problem_key: String,
    /// Network config (invoker-cache key) printed by `Register`, `SetAsFound1_0`, `GetInvoker`.
    pub network_config: String,
    /// Perf-db key.
    pub perf_db_key: String,
    /// The find-db file the device reads (None: none).
    pub db_file: Option<DbUsed>,
    /// The perf-db file (None: none).
    pub perf_db_file: Option<DbUsed>,
    /// Where the record came from: `user_find_db`, `system_find_db`, or null.
    pub record_source: Option<String>,
    /// Whether a find-db record exists for the key.
    pub record_found: bool,
    /// Record entries by time.
    pub ranked: Vec<Ranked>,
    /// The solver the find step takes, or null.
    pub predicted: Option<Predicted>,
    /// Without a prediction: what MIOpen does instead.
    pub no_prediction: Option<Reason>,
    /// Reasons per absent or inapplicable solver, and per forced solver.
    pub reasons: Vec<Reason>,
    /// Things the reader should know.
    pub notes: Vec<String>,
}

/// Why an explanation could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// A database could not be read.
    #[error(transparent)]
    Db(#[from] db::DbError),
    /// The database folder does not exist.
    #[error("{0}: no such folder")]
    NoDir(String),
}

fn direction_of(solver: &str) -> char {
    if solver.contains("Bwd") {
        'B'
    } else if solver.contains("Wrw") || solver.contains("WrW") {
        'W'
    } else {
        'F'
    }
}

/// Does a gate keep the solver off this device/problem? Returns the statement if so.
fn gate_excludes(g: &Gate, dev: &Device, p: &Problem) -> Option<String> {
    let name = dev.processor.as_str();
    let ty = p.types_key();
    let hit = match g.kind.as_str() {
        "device_prefix" => !g.values.iter().any(|v| name.starts_with(v.as_str())),
        "device_exact" => !g.values.iter().any(|v| v == name),
        "device_deny_prefix" => g.values.iter().any(|v| name.starts_with(v.as_str())),
        "dtype" => !g.values.contains(&ty),
        "group_one" => p.groups != 1,
        "default_disabled" => true,
        _ => false,
    };
    if !hit {
        return None;
    }
    let why = match g.kind.as_str() {
        "dtype" => format!("{} (problem is {ty})", g.what),
        "group_one" => format!("{} (problem has {} groups)", g.what, p.groups),
        "default_disabled" => g.what.clone(),
        _ => {
            let mut s = format!("{} ({name} is not one of them)", g.what);
            if g.kind == "device_deny_prefix" {
                s = format!("{} ({name} is excluded)", g.what);
            }
            if let (Some(f), Some(t)) = (&g.feature, rocpath_arch::target(name)) {
                let has = match f.as_str() {
                    "mfma" => t.mfma.is_some(),
                    "dot" => !t.dot.is_empty(),
                    _ => true,
                };
                if !has {
                    s.push_str(&format!("; the architecture table gives {name} no {f}"));
                }
            }
            s
        }
    };
    Some(why)
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

/// Solvers named in a `rocpath gates --json` document that exclude this processor. The
/// document is read loosely: any object with a `path`/`file` and a `line`, a text field
/// naming the solver (`function`, `enclosing`, `solver`, `guards`, `symbol`), an `effect`,
/// `verdict` or `excludes` saying it excludes, and the processor in `targets`/`arch`/`covers`.
fn gates_doc_reasons(doc: &serde_json::Value, file: &str, processor: &str, out: &mut Vec<Reason>) {
    fn walk<'a>(
        v: &'a serde_json::Value,
        acc: &mut Vec<&'a serde_json::Map<String, serde_json::Value>>,
    ) {
        match v {
            serde_json::Value::Object(m) => {
                acc.push(m);
                m.values().for_each(|c| walk(c, acc));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|c| walk(c, acc)),
            _ => {}
        }
    }
    let mut objs = Vec::new();
    walk(doc, &mut objs);
    for m in objs {
        let s = |k: &str| m.get(k).and_then(|v| v.as_str());
        let path = s("path").or(s("file"));
        let line = m.get("line").and_then(|v| v.as_u64());
        let (Some(path), Some(line)) = (path, line) else {
            continue;
        };
        let names = ["function", "enclosing", "solver", "guards", "symbol"];
        let Some(text) = names.iter().find_map(|k| s(k)) else {
            continue;
        };
        let excludes = m.get("excludes").and_then(|v| v.as_bool()) == Some(true)
            || matches!(s("effect").or(s("verdict")), Some("excludes" | "exclude"));
        let mentions = ["targets", "arch", "covers"]
            .iter()
            .any(|k| match m.get(*k) {
                Some(serde_json::Value::String(t)) => t == processor,
                Some(serde_json::Value::Array(a)) => {
                    a.iter().any(|t| t.as_str() == Some(processor))
                }
                _ => false,
            });
        if !excludes || !mentions {
            continue;
        }
        let solver = text
            .split("::")
            .next()
            .unwrap_or(text)
            .rsplit(':')
            .next()
            .unwrap_or(text)
            .to_string();
        out.push(Reason {
            statement: format!("gate at {path}:{line} ({text}) excludes {processor}"),
            solver,
            evidence: Evidence::new(
                Class::Confirmed,
                Proof::CodeVerified,
                "explain.miopen.gates_doc",
            )
            .at(Locator::file(path).with_line(line))
            .at(Locator::file(file)),
        });
    }
}

/// Explains one problem.
pub fn explain(q: &Query) -> Result<MiopenExplanation, ExplainError> {
    if !q.db_dir.is_dir() {
        return Err(ExplainError::NoDir(q.db_dir.display().to_string()));
    }
    let p = &q.problem;
    let key = p.fdb_key();
    let dev = &q.device;
    let mut notes = Vec::new();
    let cus = match dev.cus {
        Some(c) => c,
        None => {
            notes.push(format!(
                "no CU count given: the file choice assumes the CU count of the first {} find-db in {}",
                dev.db_id,
                q.db_dir.display()
            ));
            first_cu(&q.db_dir, &dev.db_id).unwrap_or(0)
        }
    };
    let fdb_file = db::choose_find_db(&q.db_dir, &dev.db_id, cus, "HIP");
    let pdb_file = db::choose_perf_db(&q.db_dir, &dev.db_id, cus);

    // The record: user find-db first (db.hpp:217-222), then the system one.
    let mut record: Option<(Vec<FindItem>, Evidence, String)> = None;
    if let Some(u) = &q.user_db {
        let db = FindDb::open(u)?;
        if let Some((items, line)) = db.record(&key) {
            let ev = Evidence::new(
                Class::Confirmed,
                Proof::RuntimeVerified,
                "explain.miopen.user_record",
            )
            .at(Locator::file(u.display().to_string()).with_line(line))
            .because("a user find-db record wins over the system one (db.hpp:217-222)");
            record = Some((items, ev, "user_find_db".into()));
        }
    }
    if record.is_none() {
        if let Some(f) = &fdb_file {
            let db = FindDb::open(&f.path)?;
            if let Some((items, line)) = db.record(&key) {
                let ev = Evidence::new(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "explain.miopen.record",
                )
                .at(Locator::file(f.path.display().to_string()).with_line(line));
                record = Some((items, ev, "system_find_db".into()));
            }
        }
    }
    let perf = match &pdb_file {
        Some(f) => {
            let db = PerfDb::open(&f.path)?;
            match db.lookup(p) {
                Ok(rows) => Some(rows),
                Err(e) => {
                    notes.push(format!("perf-db {}: {e}", f.path.display()));
                    None
                }
            }
        }
        None => None,
    };
    let perf_has = |s: &str| perf.as_ref().map(|rows| rows.iter().any(|r| r.solver == s));

    let mut ranked: Vec<Ranked> = record
        .as_ref()
        .map(|(items, _, _)| {
            items
                .iter()
                .map(|i| Ranked {
                    solver: i.solver.clone(),
                    id: solver_id(&i.solver),
                    algorithm: i.algorithm.clone(),
                    time_ms: i.time_ms,
                    workspace: i.workspace,
                    perf_db_record: perf_has(&i.solver),
                })
                .collect()
        })
        .unwrap_or_default();
    ranked.sort_by(|a, b| a.time_ms.total_cmp(&b.time_ms));

    let mut reasons = Vec::new();
    let (gsrc, gates) = gates();
    let mut predicted = None;
    let mut no_prediction = None;
    match (&record, &q.forced) {
        (_, Some(forced)) => {
            no_prediction = Some(Reason {
                solver: forced.clone(),
                statement: format!(
                    "the solver is forced ({forced}): MIOpen runs it if it is applicable, else fails; the find-db does not decide"
                ),
                evidence: Evidence::new(
                    Class::Confirmed,
                    Proof::CodeVerified,
                    "explain.miopen.forced",
                )
                .at(source_loc("src/ocl/convolutionocl.cpp:1018")),
            });
        }
        (Some((_, ev, src)), None) => {
            // The first by time that passes IsApplicable and the workspace check.
            let first_ok = ranked.iter().find(|r| {
                !gates.iter().any(|g| {
                    g.solvers.iter().any(|(s, _)| *s == r.solver)
                        && gate_excludes(g, dev, p).is_some()
                })
            });
            if let Some(r) = first_ok {
                let mut e = ev.clone();
                e.class = Class::Inferred;
                e.rule = "explain.miopen.fastest_record".into();
                e.sources
                    .push(source_loc("src/ocl/convolutionocl.cpp:742-756"));
                e.note = format!(
                    "{} record ranks {} first at {} ms; MIOpen re-checks applicability and workspace at run time",
                    src.replace('_', " "),
                    r.solver,
                    r.time_ms
                );
                predicted = Some(Predicted {
                    solver: r.solver.clone(),
                    id: r.id,
                    algorithm: r.algorithm.clone(),
                    evidence: e,
                });
            }
        }
        (None, None) => {
            let statement = format!(
                "no find-db record for {key}{}: Find measures every applicable solver and keeps the fastest (and writes the user find-db); immediate mode ranks by TunaNet or WTI estimates. The choice depends on timings on the device, so it is not predicted",
                match &fdb_file {
                    Some(f) => format!(" in {}", f.name),
                    None => format!(
                        " (no system find-db for {} in {})",
                        dev.db_id,
                        q.db_dir.display()
                    ),
                }
            );
            no_prediction = Some(Reason {
                solver: String::new(),
                statement,
                evidence: Evidence::new(
                    Class::Unresolved,
                    Proof::CodeVerified,
                    "explain.miopen.no_record",
                )
                .at(source_loc("src/ocl/convolutionocl.cpp:600-672"))
                .because("prediction unresolved; the fallback path is inferred from source"),
            });
        }
    }
    if record.is_some() {
        for r in &ranked {
            if r.perf_db_record == Some(false) {
                reasons.push(Reason {
                    solver: r.solver.clone(),
                    statement: format!(
                        "no perf-db row for {} on this problem: MIOpen logs `Perf Db: record not found` and uses the solver's default (heuristic) config",
                        r.solver
                    ),
                    evidence: Evidence::new(
                        Class::Confirmed,
                        Proof::ShippedArtifactVerified,
                        "explain.miopen.perf_db_absent",
                    )
                    .at(Locator::file(
                        pdb_file.as_ref().map(|f| f.path.display().to_string()).unwrap_or_default(),
                    )),
                });
            }
        }
    }
    // Gates: every gated solver of this direction that is not in the record, plus the forced one.
    let in_record = |s: &str| ranked.iter().any(|r| r.solver == s);
    for g in gates {
        for (solver, site) in &g.solvers {
            let relevant = q.forced.as_deref() == Some(solver.as_str())
                || (!in_record(solver) && direction_of(solver) == p.direction.letter());
            if !relevant {
                continue;
            }
            if let Some(why) = gate_excludes(g, dev, p) {
                reasons.push(Reason {
                    solver: solver.clone(),
                    statement: format!("{solver} cannot apply: {why}"),
                    evidence: Evidence::new(
                        Class::Inferred,
                        Proof::CodeVerified,
                        "explain.miopen.gate",
                    )
                    .at(source_loc(site))
                    .because(format!("read in {gsrc}; the installed release may differ")),
                });
            }
        }
    }
    if let Some(f) = &q.forced {
        if perf.is_some() && perf_has(f) == Some(false) {
            reasons.push(Reason {
                solver: f.clone(),
                statement: format!(
                    "no perf-db row for the forced {f}: a tunable solver starts from its default config (`Perf Db: record not found for: {f}`)"
                ),
                evidence: Evidence::new(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "explain.miopen.perf_db_absent",
                )
                .at(Locator::file(
                    pdb_file.as_ref().map(|f| f.path.display().to_string()).unwrap_or_default(),
                )),
            });
        }
    }
    if let Some((path, doc)) = &q.gates_doc {
        gates_doc_reasons(doc, path, &dev.processor, &mut reasons);
    }
    if fdb_file.is_none() {
        notes.push(format!(
            "no system find-db for {} in {}",
            dev.db_id,
            q.db_dir.display()
        ));
    }
    Ok(MiopenExplanation {
        device: dev.clone(),
        problem: p.clone(),
        problem_key: key,
        network_config: p.network_config(),
        perf_db_key: p.perf_db_key(),
        db_file: fdb_file.map(|f| DbUsed {
            evidence: db_evidence(&f, dev),
            file: f,
        }),
        perf_db_file: pdb_file.map(|f| DbUsed {
            evidence: db_evidence(&f, dev),
            file: f,
        }),
        record_source: record.as_ref().map(|(_, _, s)| s.clone()),
        record_found: record.is_some(),
        ranked,
        predicted,
        no_prediction,
        reasons,
        notes,
    })
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
