//! The collector: consumes the events of every line of a case and keeps what the report
//! needs, in memory bounded by the number of *distinct* things seen (solvers, problems, GEMM
//! shapes, error messages), never by the number of lines. [`Collector::finish`] turns it into
//! a [`CaseReport`], deciding the outcome (`outcome.rs`).

use crate::meta::{CaseMeta, driver_args};
use crate::model::*;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_logs::miopen::{self, Applicability, Phase};
use rocpath_logs::rocblas::{self, GemmCall, GemmTypes};
use rocpath_logs::{Event, Line, hipblaslt, runtime};
use rocpath_miopen::findrec::{self, FindItem};
use rocpath_miopen::registry as solvers;
use rocpath_miopen::{DriverCommand, Problem};
use std::collections::{BTreeMap, HashMap};

/// Distinct records kept per kind; more are counted in `dropped`.
pub const MAX_DISTINCT: usize = 4096;
/// Source lines kept per record.
pub const MAX_SOURCES: usize = 4;

/// A line of a file of the case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Src {
    /// Index into the case's files.
    pub file: u32,
    /// 1-based line.
    pub line: u64,
}

/// Up to [`MAX_SOURCES`] source lines and a total count.
#[derive(Debug, Clone, Default)]
pub struct Srcs {
    pub(crate) first: Vec<Src>,
    pub(crate) count: u64,
}

impl Srcs {
    fn one(s: Src) -> Srcs {
        Srcs {
            first: vec![s],
            count: 1,
        }
    }
    pub(crate) fn add(&mut self, s: Src) {
        self.count += 1;
        if self.first.len() < MAX_SOURCES && !self.first.contains(&s) {
            self.first.push(s);
        }
    }
    fn add_n(&mut self, s: Src, n: u64) {
        self.add(s);
        self.count += n.saturating_sub(1);
    }
}

#[derive(Debug)]
pub(crate) struct FileAcc {
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub lines: u64,
    pub truncated: u64,
}

#[derive(Debug)]
pub(crate) struct ProblemAcc {
    pub problem: Problem,
    pub seen_as: Vec<&'static str>,
    pub srcs: Srcs,
}

#[derive(Debug)]
pub(crate) struct CandAcc {
    pub solver: String,
    pub problem: Option<usize>,
    pub id: Option<(u64, bool)>,
    pub seen: Vec<(Fate, &'static str, Src)>,
    pub searchable: Option<bool>,
    pub time_ms: Option<f64>,
    pub wti: Option<f64>,
    pub srcs: Srcs,
}

#[derive(Debug)]
pub(crate) struct LookupAcc {
    pub db: &'static str,
    pub file: String,
    pub key: String,
    pub found: Option<bool>,
    pub found_explicit: bool,
    pub record: Vec<FindItem>,
    pub srcs: Srcs,
}

/// A driver summary line: (problem, solver id, solver, algorithm, line).
pub(crate) type DriverSelection = (Option<usize>, Option<u64>, String, Option<u64>, Src);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct GemmKey {
    pub api: String,
    pub backend: Option<String>,
    pub trans_a: String,
    pub trans_b: String,
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub batch_count: Option<u64>,
    pub types: GemmTypes,
    pub source: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct MsgKey {
    pub library: &'static str,
    pub kind: String,
    pub message: String,
}

#[derive(Debug)]
pub(crate) struct MsgAcc {
    pub at: Option<String>,
    pub rc: Option<i64>,
    pub srcs: Srcs,
}

/// Accumulates a case. See the module documentation.
#[derive(Debug, Default)]
pub struct Collector {
    pub(crate) files: Vec<FileAcc>,
    pub(crate) meta: Option<(CaseMeta, u32, BTreeMap<String, u64>)>,
    pub(crate) dropped: BTreeMap<String, u64>,

    pub(crate) device: Option<(String, Option<String>, Src, &'static str)>,
    pub(crate) facts: Vec<(String, String, Src)>,

    pub(crate) problems: Vec<ProblemAcc>,
    problem_index: HashMap<String, usize>,
    pub(crate) ctx_problem: Option<usize>,
    pub(crate) driver_cmd: Option<(DriverCommand, Src)>,

    pub(crate) candidates: Vec<CandAcc>,
    cand_index: HashMap<Option<usize>, HashMap<String, usize>>,
    /// Raw problem forms (command args, db keys, network configs) already decoded.
    problem_cache: HashMap<String, Option<usize>>,

    pub(crate) driver_selections: Vec<DriverSelection>,
    pub(crate) chosen: Vec<(Option<usize>, String, Src)>,
    pub(crate) evaluated_selected: Vec<(Option<usize>, String, Option<f64>, Src)>,
    best_for: HashMap<(String, String), String>,
    pub(crate) best_algo: HashMap<String, String>,
    ctx_solver: Option<String>,
    /// Kernels prepared / launched outside a Find, by the solver in context (the solver's own
    /// run after its selection, or immediate mode).
    pub(crate) prepared: HashMap<String, Vec<String>>,
    pub(crate) ran: HashMap<String, Vec<String>>,
    /// Kernels each solver built or launched while a Find evaluated it: those prepared or run
    /// since the previous `[EvaluateInvokers]` line, and those the line names.
    pub(crate) eval_kernels: HashMap<String, Vec<String>>,
    /// Inside `Find Start` … `Find Ended`.
    in_find: bool,
    /// Kernels prepared or run in a Find since the last evaluation line (the next evaluation
    /// line names their solver).
    find_pending: Vec<String>,
    /// Kernels of a Find that no evaluation line claimed, with the first line of each.
    pub(crate) find_unclaimed: Vec<(String, Src)>,
    find_pending_src: Option<Src>,
    pub(crate) forced_unreported: Option<(u64, Src)>,

    pub(crate) lookups: Vec<LookupAcc>,
    lookup_index: HashMap<String, HashMap<String, usize>>,
    pending_lookup: Option<usize>,
    pub(crate) code_objects: Vec<(String, String, bool, Srcs)>,
    code_object_index: HashMap<(String, String), usize>,

    pub(crate) timings: Vec<(String, f64, Src)>,
    pub(crate) verification: Option<(bool, String, Src)>,

    pub(crate) errors: BTreeMap<MsgKey, MsgAcc>,
    pub(crate) error_order: Vec<MsgKey>,
    pub(crate) fallbacks: BTreeMap<MsgKey, MsgAcc>,
    pub(crate) fallback_order: Vec<MsgKey>,
    pub(crate) notes: Vec<(String, Srcs)>,
    pub(crate) exit_marker: Option<(i64, Src)>,
    pub(crate) shell_signal: Option<(&'static str, Src)>,

    pub(crate) gemms: Vec<(GemmKey, Srcs)>,
    gemm_index: HashMap<GemmKey, usize>,
    pending_gemm: Option<(GemmKey, Src, u64)>,
    pub(crate) apis: BTreeMap<(&'static str, String), Srcs>,
    api_index: HashMap<&'static str, HashMap<String, (&'static str, String)>>,
    pub(crate) tensile: Vec<(String, Srcs)>,
    tensile_index: HashMap<String, usize>,
    pub(crate) available_libraries: Vec<String>,
    /// rocblas-bench's last result header (column names), waiting for its values line.
    bench_header: Option<Vec<String>>,
    /// rocblas-bench results: (column, value) pairs in order.
    pub(crate) bench: Vec<(Vec<(String, String)>, Src)>,
    /// Blocks of a MIOpen C-API probe (`capi.rs`).
    pub(crate) capi: Vec<crate::capi::BlockAcc>,
}

fn db_kind(file: &str) -> &'static str {
    if file.starts_with(":memory:") {
        "memory"
    } else if file.ends_with(".ufdb.txt") {
        "user_find_db"
    } else if file.ends_with(".fdb.txt") {
        "find_db"
    } else if file.ends_with(".udb.txt") || file.ends_with(".udb") {
        "user_perf_db"
    } else {
        "perf_db"
    }
}

fn push_unique(v: &mut Vec<String>, s: &str) {
    if v.len() < 64 && !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

impl Collector {
    /// A new, empty collector.
    pub fn new() -> Collector {
        Collector::default()
    }

    fn drop_one(&mut self, what: &str) {
        *self.dropped.entry(what.to_string()).or_default() += 1;
    }

    /// Starts a file; returns its index for [`Collector::line`].
    pub fn begin_file(&mut self, path: &str) -> u32 {
        self.flush_pending();
        self.files.push(FileAcc {
            path: path.to_string(),
            sha256: String::new(),
            bytes: 0,
            lines: 0,
            truncated: 0,
        });
        self.ctx_solver = None;
        u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX)
    }

    /// Ends a file: records its size, line counts and hash.
    pub fn end_file(&mut self, file: u32, sha256: String, bytes: u64, lines: u64, truncated: u64) {
        self.flush_pending();
        if let Some(f) = self.files.get_mut(file as usize) {
            f.sha256 = sha256;
            f.bytes = bytes;
            f.lines = lines;
            f.truncated = truncated;
        }
    }

    /// Sets the case metadata (already read) and the index of its file.
    pub fn set_meta(&mut self, meta: CaseMeta, file: u32, lines: BTreeMap<String, u64>) {
        let src = Src {
            file,
            line: lines.get("command").copied().unwrap_or(1),
        };
        if let Some(args) = driver_args(&meta.command_line) {
            if let Ok(cmd) = DriverCommand::parse_line(&args) {
                for p in &cmd.problems {
                    self.add_problem(p.clone(), "driver_command", src);
                }
                if self.driver_cmd.is_none() {
                    self.driver_cmd = Some((cmd, src));
                }
            }
        }
        self.meta = Some((meta, file, lines));
    }

    pub(crate) fn end_pending(&mut self) {
        self.flush_pending();
        self.unclaimed_find_kernels();
    }

    fn flush_pending(&mut self) {
        if let Some((key, src, n)) = self.pending_gemm.take() {
            self.add_gemm(key, src, n);
        }
        self.resolve_lookup();
    }

    fn resolve_lookup(&mut self) {
        if let Some(i) = self.pending_lookup.take() {
            if let Some(l) = self.lookups.get_mut(i) {
                if l.found.is_none() {
                    l.found = Some(false);
                }
            }
        }
    }

    /// Feeds one line of file `file`.
    pub fn line(&mut self, file: u32, line: &Line<'_>) {
        let src = Src {
            file,
            line: line.no,
        };
        // rocblas-bench prints the values on the line right after its header: only that line
        // (blank lines aside) is paired with it, so a later line that happens to have as many
        // commas (a layer-1 trace line) is never read as a result.
        if !line.bytes.iter().all(u8::is_ascii_whitespace) {
            if let Some(cols) = self.bench_header.take() {
                if let Some(vals) = rocpath_logs::rocblas::bench_values(line.bytes, cols.len()) {
                    let row: Vec<(String, String)> = cols
                        .into_iter()
                        .zip(vals.into_iter().map(|v| v.into_owned()))
                        .collect();
                    self.bench_result(row, src);
                    return;
                }
            }
        }
        if let Some(e) = rocpath_logs::parse_line(line.bytes) {
            self.event(e, src, 0);
        }
    }

    /// A rocblas-bench result row: kept as printed, and as a GEMM call when it has the
    /// GEMM columns and no call of that shape is known yet (the bench command line, when
    /// logged, already gave it with its types).
    fn bench_result(&mut self, row: Vec<(String, String)>, src: Src) {
        if self.bench.len() >= MAX_DISTINCT {
            self.drop_one("bench_results");
            return;
        }
        let get = |k: &str| {
            row.iter()
                .find(|(c, _)| c.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.as_str())
        };
        let num = |k: &str| get(k).and_then(|v| v.parse::<u64>().ok());
        if let (Some(m), Some(n), Some(k)) = (num("M"), num("N"), num("K")) {
            let known = self
                .gemms
                .iter()
                .any(|(g, _)| g.m == m && g.n == n && g.k == k);
            if !known {
                let ty = |k: &str| {
                    get(k)
                        .filter(|v| rocpath_logs::rocblas::is_type(v))
                        .map(str::to_string)
                };
                let key = GemmKey {
                    api: "rocblas-bench".into(),
                    backend: None,
                    trans_a: get("transA").unwrap_or("?").to_string(),
                    trans_b: get("transB").unwrap_or("?").to_string(),
                    m,
                    n,
                    k,
                    batch_count: num("batch_count").filter(|&b| b > 1),
                    types: GemmTypes {
                        a: ty("a_type"),
                        b: ty("b_type"),
                        c: ty("c_type"),
                        d: ty("d_type"),
                        compute: ty("compute_type"),
                    },
                    source: "bench_result",
                };
                self.add_gemm(key, src, 1);
            }
        }
        self.bench.push((row, src));
    }

    fn event(&mut self, e: Event<'_>, src: Src, depth: u8) {
        match e {
            Event::Miopen(e) => self.miopen(e, src),
            Event::Rocblas(e) => self.rocblas(e, src),
            Event::Hipblaslt(e) => self.hipblaslt(e, src),
            Event::Runtime(e) => self.runtime(e, src, depth),
            Event::Capi(e) => self.capi(e, src),
        }
    }

    /// A problem seen in raw form `raw` (decoded by `decode` the first time only).
    fn problem_from(
        &mut self,
        raw: &str,
        seen_as: &'static str,
        src: Src,
        decode: impl FnOnce(&str) -> Option<Problem>,
    ) {
        if let Some(&hit) = self.problem_cache.get(raw) {
            if let Some(i) = hit {
                let acc = &mut self.problems[i];
                if !acc.seen_as.contains(&seen_as) {
                    acc.seen_as.push(seen_as);
                }
                acc.srcs.add(src);
                self.ctx_problem = Some(i);
            }
            return;
        }
        let i = decode(raw).and_then(|p| self.add_problem(p, seen_as, src));
        if self.problem_cache.len() < MAX_DISTINCT {
            self.problem_cache.insert(raw.to_string(), i);
        }
    }

    pub(crate) fn add_problem(
        &mut self,
        p: Problem,
        seen_as: &'static str,
        src: Src,
    ) -> Option<usize> {
        let mut key = p.fdb_key();
        if seen_as == "network_config" {
            // Network configs carry no cast suffix: join a problem that differs only by it.
            if let Some(i) = self
                .problems
                .iter()
                .position(|q| q.problem.has_casts() && q.problem.fdb_key().starts_with(&key))
            {
                key = self.problems[i].problem.fdb_key();
            }
        }
        let i = match self.problem_index.get(&key) {
            Some(&i) => i,
            None => {
                if self.problems.len() >= MAX_DISTINCT {
                    self.drop_one("problems");
                    return None;
                }
                self.problems.push(ProblemAcc {
                    problem: p,
                    seen_as: Vec::new(),
                    srcs: Srcs::default(),
                });
                self.problem_index.insert(key, self.problems.len() - 1);
                self.problems.len() - 1
            }
        };
        let acc = &mut self.problems[i];
        if !acc.seen_as.contains(&seen_as) {
            acc.seen_as.push(seen_as);
        }
        acc.srcs.add(src);
        self.ctx_problem = Some(i);
        Some(i)
    }

    fn candidate(&mut self, solver: &str) -> Option<&mut CandAcc> {
        let solver = solver.trim();
        if solver.is_empty() {
            return None;
        }
        let ctx = self.ctx_problem;
        let i = match self.cand_index.get(&ctx).and_then(|m| m.get(solver)) {
            Some(&i) => i,
            None => {
                if self.candidates.len() >= MAX_DISTINCT {
                    self.drop_one("candidates");
                    return None;
                }
                self.candidates.push(CandAcc {
                    solver: solver.to_string(),
                    problem: self.ctx_problem,
                    id: None,
                    seen: Vec::new(),
                    searchable: None,
                    time_ms: None,
                    wti: None,
                    srcs: Srcs::default(),
                });
                self.cand_index
                    .entry(ctx)
                    .or_default()
                    .insert(solver.to_string(), self.candidates.len() - 1);
                self.candidates.len() - 1
            }
        };
        self.candidates.get_mut(i)
    }

    fn fate(&mut self, solver: &str, fate: Fate, phase: &'static str, src: Src) {
        if let Some(c) = self.candidate(solver) {
            if !c.seen.iter().any(|(f, p, _)| *f == fate && *p == phase) && c.seen.len() < 32 {
                c.seen.push((fate, phase, src));
            }
            c.srcs.add(src);
        }
    }

    fn cand_id(&mut self, solver: &str, id: Option<u64>) {
        if let (Some(id), Some(c)) = (id, self.candidate(solver)) {
            c.id = Some((id, true));
        }
    }

    fn cand_time(&mut self, solver: &str, t: Option<f64>) {
        if let (Some(t), Some(c)) = (t, self.candidate(solver)) {
            c.time_ms = Some(c.time_ms.map_or(t, |x| x.min(t)));
        }
    }

    pub(crate) fn error(
        &mut self,
        library: &'static str,
        kind: &str,
        message: &str,
        at: Option<&str>,
        rc: Option<i64>,
        src: Src,
    ) {
        let key = MsgKey {
            library,
            kind: kind.to_string(),
            message: message.trim().to_string(),
        };
        if let Some(acc) = self.errors.get_mut(&key) {
            acc.srcs.add(src);
            return;
        }
        if self.errors.len() >= MAX_DISTINCT {
            self.drop_one("errors");
            return;
        }
        self.error_order.push(key.clone());
        self.errors.insert(
            key,
            MsgAcc {
                at: at.map(str::to_string),
                rc,
                srcs: Srcs::one(src),
            },
        );
    }

    fn fallback(&mut self, library: &'static str, kind: &str, message: &str, src: Src) {
        let key = MsgKey {
            library,
            kind: kind.to_string(),
            message: message.trim().to_string(),
        };
        if let Some(acc) = self.fallbacks.get_mut(&key) {
            acc.srcs.add(src);
            return;
        }
        if self.fallbacks.len() >= MAX_DISTINCT {
            self.drop_one("fallbacks");
            return;
        }
        self.fallback_order.push(key.clone());
        self.fallbacks.insert(
            key,
            MsgAcc {
                at: None,
                rc: None,
                srcs: Srcs::one(src),
            },
        );
    }

    fn set_device(&mut self, arch: &str, name: Option<&str>, src: Src, rule: &'static str) {
        if self.device.is_none() && !arch.trim().is_empty() {
            self.device = Some((arch.trim().to_string(), name.map(str::to_string), src, rule));
        }
    }

    fn fact(&mut self, what: &str, value: &str, src: Src) {
        if !self.facts.iter().any(|(w, v, _)| w == what && v == value) && self.facts.len() < 64 {
            self.facts.push((what.to_string(), value.to_string(), src));
        }
    }

    fn miopen(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::DeviceName(d) => self.set_device(&d, None, src, "case.device.miopen"),
            M::FindMode(m) => self.fact("miopen_find_mode", &m, src),
            M::FindEnforced => self.fact("miopen_find_enforce", "NORMAL", src),
            M::FindOnlySolver(v) => self.fact("miopen_find_only_solver", &v, src),
            M::Versions { hip, miopen } => {
                self.fact("miopen_version", &miopen, src);
                self.fact("hip_version", &hip, src);
            }
            M::ApiCall(name) => self.api("miopen", &name, src),
            M::Command { args, .. } => {
                self.problem_from(&args, "logged_command", src, |a| {
                    DriverCommand::parse_line(a)
                        .ok()
                        .filter(|c| c.problems.len() == 1)
                        .and_then(|c| c.problems.into_iter().next())
                });
            }
            M::DriverInvocation(args) => {
                if let Ok(cmd) = DriverCommand::parse_line(&args) {
                    for p in &cmd.problems {
                        self.add_problem(p.clone(), "driver_command", src);
                    }
                    if self.driver_cmd.is_none() {
                        self.driver_cmd = Some((cmd, src));
                    }
                }
            }
            M::InstalledDb { file, exact } => {
                let v = file.map_or_else(|| "inexact search".to_string(), |f| f.into_owned());
                self.fact(
                    if exact {
                        "miopen_find_db_file"
                    } else {
                        "miopen_find_db_search"
                    },
                    &v,
                    src,
                );
            }
            M::DbLookup { key, file, .. } => {
                self.resolve_lookup();
                let seen = if key.contains('-') {
                    "db_key"
                } else {
                    "perf_db_key"
                };
                self.problem_from(&key, seen, src, |k| {
                    Problem::from_fdb_key(k)
                        .or_else(|_| Problem::from_perf_db_key(k))
                        .ok()
                });
                let db = db_kind(&file);
                let hit = self
                    .lookup_index
                    .get(file.as_ref())
                    .and_then(|m| m.get(key.as_ref()))
                    .copied();
                let i = match hit {
                    Some(i) => i,
                    None => {
                        if self.lookups.len() >= MAX_DISTINCT {
                            self.drop_one("db_lookups");
                            return;
                        }
                        self.lookups.push(LookupAcc {
                            db,
                            file: file.to_string(),
                            key: key.to_string(),
                            found: None,
                            found_explicit: false,
                            record: Vec::new(),
                            srcs: Srcs::default(),
                        });
                        self.lookup_index
                            .entry(file.to_string())
                            .or_default()
                            .insert(key.to_string(), self.lookups.len() - 1);
                        self.lookups.len() - 1
                    }
                };
                self.lookups[i].srcs.add(src);
                self.pending_lookup = Some(i);
            }
            M::DbKeyMatch(key) => {
                if let Some(i) = self.pending_lookup {
                    let l = &mut self.lookups[i];
                    if l.key == key.as_ref() {
                        l.found = Some(true);
                        l.found_explicit = true;
                        l.srcs.add(src);
                    }
                }
            }
            M::DbContents(rec) => {
                let items = findrec::parse_record(&rec);
                for it in &items {
                    let solver = it.solver.clone();
                    self.fate(&solver, Fate::FindDbRecord, "find_db", src);
                    self.cand_time(&solver, Some(it.time_ms));
                }
                if let Some(i) = self.pending_lookup {
                    let l = &mut self.lookups[i];
                    l.found = Some(true);
                    l.found_explicit = true;
                    if l.record.is_empty() {
                        l.record = items;
                    }
                    l.srcs.add(src);
                }
            }
            M::DbStore(_) => {}
            M::PerfDbNotFound(solver) => self.perf_db(&solver, false, src),
            M::PerfDbLoaded(solver) => self.perf_db(&solver, true, src),
            M::Applicability {
                phase,
                solver,
                fate,
            } => {
                let (f, ph) = match (fate, phase) {
                    (Applicability::NotApplicable, Phase::Search) => {
                        (Fate::NotApplicable, "search")
                    }
                    (Applicability::NotApplicable, Phase::WorkspaceSizes) => {
                        (Fate::NotApplicable, "workspace_sizes")
                    }
                    (Applicability::NotApplicable, Phase::Other) => {
                        (Fate::NotApplicable, "enumeration")
                    }
                    (Applicability::SkippedNonDynamic, Phase::Search) => {
                        (Fate::SkippedNonDynamic, "search")
                    }
                    (Applicability::SkippedNonDynamic, Phase::WorkspaceSizes) => {
                        (Fate::SkippedNonDynamic, "workspace_sizes")
                    }
                    (Applicability::SkippedNonDynamic, Phase::Other) => {
                        (Fate::SkippedNonDynamic, "enumeration")
                    }
                    (Applicability::SkippedNoWorkspace, _) => {
                        (Fate::WorkspaceQueryOnly, "workspace_sizes")
                    }
                    (Applicability::Success, _) => (Fate::Succeeded, "search"),
                };
                self.fate(&solver, f, ph, src);
            }
            M::SolverFailed { solver, what } => {
                self.fate(&solver, Fate::Failed, "search", src);
                let msg = if what.is_empty() {
                    solver.to_string()
                } else {
                    format!("{solver}: {what}")
                };
                self.fallback("miopen", "solver_failed", &msg, src);
            }
            M::FindSolution { solver, searchable } => {
                if let Some(c) = self.candidate(&solver) {
                    if searchable.is_some() {
                        c.searchable = searchable;
                    }
                    c.srcs.add(src);
                }
                if self.ctx_solver.as_deref() != Some(solver.as_ref()) {
                    self.ctx_solver = Some(solver.into_owned());
                }
            }
            M::GetSolution {
                solver,
                id,
                time_ms,
            } => {
                self.fate(&solver, Fate::ImmediateCandidate, "immediate", src);
                self.cand_id(&solver, id);
                self.cand_time(&solver, time_ms);
            }
            M::ImmediateFallback(what) => {
                self.fact("miopen_immediate_fallback", &what, src);
                self.fallback(
                    "miopen",
                    "immediate_mode_heuristic",
                    &format!("no find-db record: immediate mode ranks solvers by {what}"),
                    src,
                );
            }
            M::WtiEstimate { solver, wti } => {
                self.fate(&solver, Fate::ImmediateCandidate, "immediate_fallback", src);
                if let Some(c) = self.candidate(&solver) {
                    c.wti = Some(wti);
                }
            }
            M::FallbackSolution { solver, id } => {
                self.fate(&solver, Fate::ImmediateCandidate, "immediate_fallback", src);
                self.cand_id(&solver, id);
            }
            M::FindStart(key) => {
                self.problem_from(&key, "db_key", src, |k| Problem::from_fdb_key(k).ok());
                self.in_find = true;
            }
            M::FindEnd(_) => {
                self.in_find = false;
                self.unclaimed_find_kernels();
            }
            M::Evaluate {
                solver,
                kernels,
                time_ms,
                selected,
            } => {
                self.fate(&solver, Fate::Evaluated, "evaluate", src);
                self.cand_time(&solver, time_ms);
                let pending = std::mem::take(&mut self.find_pending);
                self.find_pending_src = None;
                if self.eval_kernels.len() < MAX_DISTINCT
                    || self.eval_kernels.contains_key(solver.as_ref())
                {
                    let ks = self.eval_kernels.entry(solver.to_string()).or_default();
                    for k in pending
                        .iter()
                        .map(String::as_str)
                        .chain(kernels.iter().map(|k| k.as_ref()))
                    {
                        push_unique(ks, k);
                    }
                }
                if selected {
                    self.evaluated_selected.push((
                        self.ctx_problem,
                        solver.into_owned(),
                        time_ms,
                        src,
                    ));
                }
            }
            M::BestForAlgorithm {
                solver,
                algo,
                netcfg,
            } => {
                self.problem_from(&netcfg, "network_config", src, |k| {
                    Problem::from_network_config(k).ok()
                });
                self.fate(&solver, Fate::BestForAlgorithm, "find", src);
                self.best_for
                    .insert((netcfg.into_owned(), algo.to_string()), solver.to_string());
                self.best_algo
                    .insert(solver.into_owned(), algo.into_owned());
            }
            M::Invoker {
                netcfg,
                solver,
                algo,
            } => {
                self.problem_from(&netcfg, "network_config", src, |k| {
                    Problem::from_network_config(k).ok()
                });
                if let Some(s) = solver {
                    if self.ctx_solver.as_deref() != Some(s.as_ref()) {
                        self.ctx_solver = Some(s.into_owned());
                    }
                } else if let Some(a) = algo {
                    self.ctx_solver = self
                        .best_for
                        .get(&(netcfg.into_owned(), a.into_owned()))
                        .cloned();
                }
            }
            M::PrepareKernel(k) | M::RunKernel(k) if self.in_find => {
                // Find builds and launches every candidate in turn: the kernel belongs to the
                // solver of the next evaluation line, not to the one in context.
                push_unique(&mut self.find_pending, &k);
                self.find_pending_src.get_or_insert(src);
            }
            M::PrepareKernel(k) => {
                if let Some(s) = &self.ctx_solver {
                    match self.prepared.get_mut(s) {
                        Some(v) => push_unique(v, &k),
                        None => {
                            self.prepared.insert(s.clone(), vec![k.into_owned()]);
                        }
                    }
                }
            }
            M::RunKernel(k) => {
                if let Some(s) = &self.ctx_solver {
                    match self.ran.get_mut(s) {
                        Some(v) => push_unique(v, &k),
                        None => {
                            self.ran.insert(s.clone(), vec![k.into_owned()]);
                        }
                    }
                }
            }
            M::LoadBinary { file, args, loaded } => {
                let key = (file.into_owned(), args.into_owned());
                match self.code_object_index.get(&key) {
                    Some(&i) => {
                        let c = &mut self.code_objects[i];
                        c.2 |= loaded;
                        c.3.add(src);
                    }
                    None => {
                        if self.code_objects.len() >= MAX_DISTINCT {
                            self.drop_one("code_objects");
                            return;
                        }
                        self.code_objects.push((
                            key.0.clone(),
                            key.1.clone(),
                            loaded,
                            Srcs::one(src),
                        ));
                        self.code_object_index
                            .insert(key, self.code_objects.len() - 1);
                    }
                }
            }
            M::FindResult { algo, time_ms } => {
                if let Some(t) = time_ms {
                    if self.timings.len() < 256 {
                        self.timings.push((format!("find {algo}"), t, src));
                    }
                }
            }
            M::Chosen {
                solver, time_ms, ..
            } => {
                self.cand_time(&solver, time_ms);
                self.chosen
                    .push((self.ctx_problem, solver.trim().to_string(), src));
            }
            M::SolverIdUse { solver, .. } => {
                if self.ctx_solver.as_deref() != Some(solver.as_ref()) {
                    self.ctx_solver = Some(solver.into_owned());
                }
            }
            M::Error { at, message } => {
                let kind = if message.contains("MIIR_") {
                    "miir"
                } else if message.contains("Code object build failed") {
                    "code_object_build_failed"
                } else if message.contains("is not applicable to the current problem") {
                    "not_applicable"
                } else if message.contains("No suitable algorithm") {
                    "no_suitable_algorithm"
                } else if message.contains("not supported") {
                    "not_supported"
                } else if message.starts_with("incorrect solver_id") {
                    "incorrect_solver_id"
                } else {
                    "miopen_error"
                };
                self.capi_error(&message, src);
                self.error("miopen", kind, &message, at.as_deref(), None, src);
            }
            M::DriverSelection {
                algo, id, solver, ..
            } => {
                let solver = solver.trim().to_string();
                self.cand_id(&solver, id);
                self.driver_selections
                    .push((self.ctx_problem, id, solver, algo, src));
            }
            M::DriverSolution {
                id,
                solver,
                time_ms,
            } => {
                self.fate(&solver, Fate::ImmediateCandidate, "driver_list", src);
                self.cand_id(&solver, id);
                self.cand_time(&solver, time_ms);
            }
            M::DriverForcedUnreported(id) => {
                self.forced_unreported = Some((id, src));
            }
            M::DriverFailed { step, rc } => {
                let kind = if step == "ParseCmdLineArgs" {
                    "cli"
                } else {
                    "driver_rc"
                };
                self.error(
                    "miopen_driver",
                    kind,
                    &format!("{step}() FAILED, rc = {rc:#x}"),
                    None,
                    Some(rc),
                    src,
                );
            }
            M::KernelTime { what, ms } => {
                if self.timings.len() < 256 {
                    self.timings.push((what.into_owned(), ms, src));
                }
            }
            M::Verification { ok, detail } => {
                self.verification = Some((ok, detail.into_owned(), src));
            }
            M::CliError(msg) => self.error("miopen_driver", "cli", &msg, None, None, src),
            M::ApplicabilityNote(m) => {
                if let Some(n) = self.notes.iter_mut().find(|n| n.0 == m.as_ref()) {
                    n.1.add(src);
                } else if self.notes.len() < 256 {
                    self.notes.push((m.into_owned(), Srcs::one(src)));
                } else {
                    self.drop_one("notes");
                }
            }
            M::CompileErrors { count, target } => self.error(
                "compiler",
                "compile_errors",
                &format!("{count} errors generated when compiling for {target}"),
                None,
                None,
                src,
            ),
        }
    }

    /// Kernels a Find built or launched that no evaluation line claimed (an evaluation that
    /// failed before its line): kept apart, never given to the solver in context.
    fn unclaimed_find_kernels(&mut self) {
        let pending = std::mem::take(&mut self.find_pending);
        if let Some(src) = self.find_pending_src.take() {
            for k in pending {
                if self.find_unclaimed.len() < 64 {
                    self.find_unclaimed.push((k, src));
                }
            }
        }
    }

    /// `Perf Db: record not found for: S` / `record loaded: S`: settles the pending perf-db
    /// lookup, or records one keyed by the solver when no lookup line preceded it.
    fn perf_db(&mut self, solver: &str, found: bool, src: Src) {
        let pending = self
            .pending_lookup
            .filter(|&i| matches!(self.lookups[i].db, "perf_db" | "user_perf_db"));
        let i = match pending {
            Some(i) => i,
            None => {
                if self.lookups.len() >= MAX_DISTINCT {
                    self.drop_one("db_lookups");
                    return;
                }
                self.lookups.push(LookupAcc {
                    db: "perf_db",
                    file: String::new(),
                    key: format!("solver:{solver}"),
                    found: None,
                    found_explicit: false,
                    record: Vec::new(),
                    srcs: Srcs::default(),
                });
                self.lookups.len() - 1
            }
        };
        let l = &mut self.lookups[i];
        l.found = Some(found);
        l.found_explicit = true;
        l.srcs.add(src);
        if !l.key.contains(solver) {
            l.key = format!("{} ({solver})", l.key);
        }
        self.pending_lookup = None;
    }

    fn api(&mut self, library: &'static str, name: &str, src: Src) {
        if let Some(k) = self.api_index.get(library).and_then(|m| m.get(name)) {
            if let Some(s) = self.apis.get_mut(k) {
                s.add(src);
            }
            return;
        }
        if self.apis.len() >= MAX_DISTINCT {
            self.drop_one("api_calls");
            return;
        }
        let k = (library, name.to_string());
        self.apis.entry(k.clone()).or_default().add(src);
        self.api_index
            .entry(library)
            .or_default()
            .insert(name.to_string(), k);
    }

    fn add_gemm(&mut self, key: GemmKey, src: Src, n: u64) {
        if let Some(&i) = self.gemm_index.get(&key) {
            self.gemms[i].1.add_n(src, n);
            return;
        }
        if self.gemms.len() >= MAX_DISTINCT {
            self.drop_one("gemm_calls");
            return;
        }
        let mut s = Srcs::default();
        s.add_n(src, n);
        self.gemms.push((key.clone(), s));
        self.gemm_index.insert(key, self.gemms.len() - 1);
    }

    fn gemm_key(g: &GemmCall<'_>, source: &'static str, backend: Option<String>) -> GemmKey {
        GemmKey {
            api: g.api.to_string(),
            backend,
            trans_a: g.trans_a.to_string(),
            trans_b: g.trans_b.to_string(),
            m: g.m,
            n: g.n,
            k: g.k,
            batch_count: g.batch_count,
            types: g.types.clone(),
            source,
        }
    }

    fn rocblas(&mut self, e: rocblas::Event<'_>, src: Src) {
        use rocblas::Event as R;
        match e {
            R::Trace(g) => {
                if let Some((k, s, n)) = self.pending_gemm.take() {
                    self.add_gemm(k, s, n);
                }
                self.pending_gemm = Some((Self::gemm_key(&g, "trace", None), src, g.count));
            }
            R::Bench(g) => {
                let k = Self::gemm_key(&g, "bench", None);
                self.add_gemm(k, src, g.count);
            }
            R::Profile(g) => {
                let k = Self::gemm_key(&g, "profile", None);
                self.add_gemm(k, src, g.count);
            }
            R::Backend {
                backend,
                trans_a,
                trans_b,
                m,
                n,
                k,
            } => {
                let matches = self.pending_gemm.as_ref().is_some_and(|(p, _, _)| {
                    p.m == m && p.n == n && p.k == k && p.trans_a == trans_a && p.trans_b == trans_b
                });
                if matches {
                    if let Some((mut key, s, cnt)) = self.pending_gemm.take() {
                        key.backend = Some(backend.into_owned());
                        self.add_gemm(key, s, cnt);
                    }
                } else {
                    let key = GemmKey {
                        api: "rocblas_internal".into(),
                        backend: Some(backend.into_owned()),
                        trans_a: trans_a.into_owned(),
                        trans_b: trans_b.into_owned(),
                        m,
                        n,
                        k,
                        batch_count: None,
                        types: GemmTypes::default(),
                        source: "internal",
                    };
                    self.add_gemm(key, src, 1);
                }
            }
            R::Api(name) => self.api("rocblas", &name, src),
            R::Fallback { kind, message } => self.fallback("rocblas", kind, &message, src),
            R::NoSolution(m) => self.error("rocblas", "no_tensile_solution", &m, None, None, src),
            R::LibraryMissing { path, reason, arch } => {
                self.set_device(&arch, None, src, "case.device.rocblas_arch");
                self.error(
                    "rocblas",
                    "tensile_library_missing",
                    &format!("cannot read {path}: {reason} (GPU arch {arch})"),
                    None,
                    None,
                    src,
                );
            }
            R::LibraryAvailable(p) => push_unique(&mut self.available_libraries, &p),
            R::Message { level, message } => {
                if level == "error" {
                    self.error("rocblas", "rocblas_error", &message, None, None, src);
                }
            }
            R::RunningKernel(name) => {
                let name = name.trim();
                match self.tensile_index.get(name) {
                    Some(&i) => self.tensile[i].1.add(src),
                    None => {
                        if self.tensile.len() >= MAX_DISTINCT {
                            self.drop_one("tensile_kernels");
                            return;
                        }
                        self.tensile.push((name.to_string(), Srcs::one(src)));
                        self.tensile_index
                            .insert(name.to_string(), self.tensile.len() - 1);
                    }
                }
            }
            R::BenchColumns(cols) => {
                self.bench_header = Some(cols.split(',').map(|c| c.trim().to_string()).collect());
            }
            R::Device { name, arch } => {
                self.set_device(&arch, Some(&name), src, "case.device.rocblas_bench")
            }
        }
    }

    fn hipblaslt(&mut self, e: hipblaslt::Event<'_>, src: Src) {
        match e {
            hipblaslt::Event::Log {
                level,
                func,
                body,
                selection,
            } => {
                match selection {
                    Some(hipblaslt::Selection::NoSolutionFallback) => {
                        self.fallback("hipblaslt", "no_solution_fallback", &body, src)
                    }
                    Some(hipblaslt::Selection::Xf32ToFp32) => {
                        self.fallback("hipblaslt", "xf32_to_fp32", &body, src)
                    }
                    Some(hipblaslt::Selection::HardwareSolutions(n)) => {
                        self.fact("hipblaslt_hardware_solutions", &n.to_string(), src)
                    }
                    None => {}
                }
                if level == "Error" {
                    self.error(
                        "hipblaslt",
                        "hipblaslt_error",
                        &format!("[{func}] {body}"),
                        None,
                        None,
                        src,
                    );
                }
            }
            hipblaslt::Event::Bench(g) => {
                let k = Self::gemm_key(&g, "hipblaslt_bench", Some("hipblaslt".into()));
                self.add_gemm(k, src, g.count);
            }
        }
    }

    fn runtime(&mut self, e: runtime::Event<'_>, src: Src, depth: u8) {
        use runtime::Event as RT;
        match e {
            RT::ExitMarker { code, before } => {
                self.exit_marker = Some((code, src));
                if depth == 0 && !before.is_empty() {
                    if let Some(e) = rocpath_logs::parse_line(before) {
                        self.event(e, src, 1);
                    }
                }
            }
            RT::Assertion(l) => self.error("process", "assertion", &l, None, None, src),
            RT::ShellCrash { signal, line } => {
                if self.shell_signal.is_none() {
                    self.shell_signal = Some((signal, src));
                }
                self.error("process", "shell_crash_report", &line, None, None, src);
            }
            RT::Terminate(l) => self.error("process", "terminate", &l, None, None, src),
            RT::GpuMemoryFault(l) => self.error("hip", "gpu_memory_fault", &l, None, None, src),
            RT::HipError { code, line } => self.error("hip", &code, &line, None, None, src),
        }
    }

    /// The evidence for a set of lines.
    pub(crate) fn ev(&self, class: Class, kind: Proof, rule: &str, srcs: &[Src]) -> Evidence {
        let mut e = Evidence::new(class, kind, rule);
        for s in srcs {
            if let Some(f) = self.files.get(s.file as usize) {
                let mut l = Locator::file(f.path.clone()).with_line(s.line);
                if !f.sha256.is_empty() {
                    l = l.with_sha256(f.sha256.clone());
                }
                e = e.at(l);
            }
        }
        e
    }

    /// The registry id for a solver name (and whether it came from the log).
    pub(crate) fn solver_id(&self, name: &str) -> Option<(u64, bool)> {
        if let Some(c) = self
            .candidates
            .iter()
            .find(|c| c.solver == name && c.id.is_some_and(|(_, log)| log))
        {
            return c.id;
        }
        solvers::by_name(name).map(|s| (s.id, false))
    }
}
