//! The collector: consumes the events of every line of a case and keeps what the report
//! needs, in memory bounded by the number of *distinct* things seen (solvers, problems, GEMM
//! shapes, error messages), never by the number of lines. [`Collector::finish`] turns it into
//! a [`CaseReport`], deciding the outcome (`outcome.rs`).

mod capi;

use crate::capped::Capped;
use crate::meta::{CaseMeta, driver_args};
use crate::model::*;
use rocpath_arch::TargetId;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_logs::miopen::{self, Applicability, Phase};
use rocpath_logs::rocblas::{self, GemmCall, GemmTypes};
use rocpath_logs::{Event, Line, hipblaslt, runtime};
use rocpath_miopen::findrec::{self, FindItem};
use rocpath_miopen::registry as solvers;
use rocpath_miopen::{DriverCommand, Problem};
use std::collections::BTreeMap;

/// Distinct records kept per kind; more are counted in `dropped`.
pub const MAX_DISTINCT: usize = 4096;
/// Source lines kept per record.
pub const MAX_SOURCES: usize = 4;
/// Library facts kept (versions, find mode, db files, …).
const MAX_FACTS: usize = 64;
/// Distinct library notes kept.
const MAX_NOTES: usize = 256;

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
    pub seen: Vec<(Fate, SeenIn, Src)>,
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

/// Which db lookup a line belongs to: a logged lookup (db file, key), or a perf-db result
/// line that no lookup line preceded (each its own lookup, numbered in order).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum LookupKey {
    Logged(String, String),
    Unlogged(usize),
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

    pub(crate) device: Option<(TargetId, Option<String>, Src, &'static str)>,
    /// (what, value) → the first line.
    pub(crate) facts: Capped<(String, String), Src, MAX_FACTS>,

    /// By find-db key.
    pub(crate) problems: Capped<String, ProblemAcc, MAX_DISTINCT>,
    pub(crate) ctx_problem: Option<usize>,
    pub(crate) driver_cmd: Option<(DriverCommand, Src)>,

    /// By (problem, solver).
    pub(crate) candidates: Capped<(Option<usize>, String), CandAcc, MAX_DISTINCT>,
    /// Raw problem forms (command args, db keys, network configs) already decoded.
    problem_cache: Capped<String, Option<usize>, MAX_DISTINCT>,

    pub(crate) driver_selections: Vec<DriverSelection>,
    pub(crate) chosen: Vec<(Option<usize>, String, Src)>,
    pub(crate) evaluated_selected: Vec<(Option<usize>, String, Option<f64>, Src)>,
    /// (network config, algorithm) → the solver Find found best for it.
    best_for: Capped<(String, String), String, MAX_DISTINCT>,
    /// Solver → the algorithm it was best for.
    pub(crate) best_algo: Capped<String, String, MAX_DISTINCT>,
    ctx_solver: Option<String>,
    /// Kernels prepared / launched outside a Find, by the solver in context (the solver's own
    /// run after its selection, or immediate mode).
    pub(crate) prepared: Capped<String, Vec<String>, MAX_DISTINCT>,
    pub(crate) ran: Capped<String, Vec<String>, MAX_DISTINCT>,
    /// Kernels each solver built or launched while a Find evaluated it: those prepared or run
    /// since the previous `[EvaluateInvokers]` line, and those the line names.
    pub(crate) eval_kernels: Capped<String, Vec<String>, MAX_DISTINCT>,
    /// Inside `Find Start` … `Find Ended`.
    in_find: bool,
    /// Kernels prepared or run in a Find since the last evaluation line (the next evaluation
    /// line names their solver).
    find_pending: Vec<String>,
    /// Kernels of a Find that no evaluation line claimed, with the first line of each.
    pub(crate) find_unclaimed: Vec<(String, Src)>,
    find_pending_src: Option<Src>,
    pub(crate) forced_unreported: Option<(u64, Src)>,

    pub(crate) lookups: Capped<LookupKey, LookupAcc, MAX_DISTINCT>,
    pending_lookup: Option<usize>,
    /// (file, arguments) → (loaded, lines).
    pub(crate) code_objects: Capped<(String, String), (bool, Srcs), MAX_DISTINCT>,

    pub(crate) timings: Vec<(String, f64, Src)>,
    pub(crate) verification: Option<(bool, String, Src)>,

    pub(crate) errors: Capped<MsgKey, MsgAcc, MAX_DISTINCT>,
    pub(crate) fallbacks: Capped<MsgKey, MsgAcc, MAX_DISTINCT>,
    pub(crate) notes: Capped<String, Srcs, MAX_NOTES>,
    pub(crate) exit_marker: Option<(i64, Src)>,
    pub(crate) shell_signal: Option<(&'static str, Src)>,

    pub(crate) gemms: Capped<GemmKey, Srcs, MAX_DISTINCT>,
    pending_gemm: Option<(GemmKey, Src, u64)>,
    /// (library, API) → lines.
    pub(crate) apis: Capped<(&'static str, String), Srcs, MAX_DISTINCT>,
    /// Tensile kernel name → lines.
    pub(crate) tensile: Capped<String, Srcs, MAX_DISTINCT>,
    pub(crate) available_libraries: Vec<String>,
    /// rocblas-bench's last result header (column names), waiting for its values line.
    bench_header: Option<Vec<String>>,
    /// rocblas-bench results: (column, value) pairs in order.
    pub(crate) bench: Vec<(Vec<(String, String)>, Src)>,
    /// Blocks of a MIOpen C-API probe (`capi.rs`).
    pub(crate) capi: Vec<capi::BlockAcc>,
}

impl Srcs {
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

/// What a MIOpen applicability line says of a solver: its fate and the phase it was seen in.
fn fate_of(fate: Applicability, phase: Phase) -> (Fate, SeenIn) {
    let phase_name = match phase {
        Phase::Search => SeenIn::Search,
        Phase::WorkspaceSizes => SeenIn::WorkspaceSizes,
        Phase::Other => SeenIn::Enumeration,
    };
    match fate {
        Applicability::NotApplicable => (Fate::NotApplicable, phase_name),
        Applicability::SkippedNonDynamic => (Fate::SkippedNonDynamic, phase_name),
        Applicability::SkippedNoWorkspace => (Fate::WorkspaceQueryOnly, SeenIn::WorkspaceSizes),
        Applicability::Success => (Fate::Succeeded, SeenIn::Search),
    }
}

/// The kind of a MIOpen error message.
fn miopen_error_kind(message: &str) -> &'static str {
    if message.contains("MIIR_") {
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
    }
}

impl ProblemAcc {
    fn seen(&mut self, seen_as: &'static str, src: Src) {
        if !self.seen_as.contains(&seen_as) {
            self.seen_as.push(seen_as);
        }
        self.srcs.add(src);
    }
}

impl LookupAcc {
    fn new(db: &'static str, file: String, key: String) -> LookupAcc {
        LookupAcc {
            db,
            file,
            key,
            found: None,
            found_explicit: false,
            record: Vec::new(),
            srcs: Srcs::default(),
        }
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

    /// Records not kept, by kind: those refused by a full map, and the others.
    pub(crate) fn dropped_counts(&self) -> BTreeMap<String, u64> {
        let mut out = self.dropped.clone();
        let refused = [
            ("problems", self.problems.refused()),
            ("candidates", self.candidates.refused()),
            ("db_lookups", self.lookups.refused()),
            ("code_objects", self.code_objects.refused()),
            ("errors", self.errors.refused()),
            ("fallbacks", self.fallbacks.refused()),
            ("notes", self.notes.refused()),
            ("gemm_calls", self.gemms.refused()),
            ("api_calls", self.apis.refused()),
            ("tensile_kernels", self.tensile.refused()),
        ];
        for (what, n) in refused.into_iter().filter(|x| x.1 > 0) {
            *out.entry(what.to_string()).or_default() += n;
        }
        out
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
            self.driver_command(&args, src);
        }
        self.meta = Some((meta, file, lines));
    }

    /// A MIOpenDriver command line: its problems, and the first such command of the case.
    fn driver_command(&mut self, args: &str, src: Src) {
        if let Ok(cmd) = DriverCommand::parse_line(args) {
            for p in &cmd.problems {
                self.add_problem(p.clone(), "driver_command", src);
            }
            if self.driver_cmd.is_none() {
                self.driver_cmd = Some((cmd, src));
            }
        }
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
            if let Some(l) = self.lookups.at_mut(i) {
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
            let known = self.gemms.keys().any(|g| g.m == m && g.n == n && g.k == k);
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
                self.problems[i].seen(seen_as, src);
                self.ctx_problem = Some(i);
            }
            return;
        }
        let i = decode(raw).and_then(|p| self.add_problem(p, seen_as, src));
        self.problem_cache.entry(raw, || i);
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
            if let Some((k, _)) = self
                .problems
                .iter()
                .find(|(k, q)| q.problem.has_casts() && k.starts_with(&key))
            {
                key = k.clone();
            }
        }
        let (i, acc) = self.problems.entry(&key, || ProblemAcc {
            problem: p,
            seen_as: Vec::new(),
            srcs: Srcs::default(),
        })?;
        acc.seen(seen_as, src);
        self.ctx_problem = Some(i);
        Some(i)
    }

    fn candidate(&mut self, solver: &str) -> Option<&mut CandAcc> {
        let solver = solver.trim();
        if solver.is_empty() {
            return None;
        }
        let problem = self.ctx_problem;
        let key = (problem, solver.to_string());
        let made = || CandAcc {
            solver: solver.to_string(),
            problem,
            id: None,
            seen: Vec::new(),
            searchable: None,
            time_ms: None,
            wti: None,
            srcs: Srcs::default(),
        };
        self.candidates.entry(&key, made).map(|(_, c)| c)
    }

    fn fate(&mut self, solver: &str, fate: Fate, phase: SeenIn, src: Src) {
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
        let made = || MsgAcc {
            at: at.map(str::to_string),
            rc,
            srcs: Srcs::default(),
        };
        if let Some((_, acc)) = self.errors.entry(&key, made) {
            acc.srcs.add(src);
        }
    }

    fn fallback(&mut self, library: &'static str, kind: &str, message: &str, src: Src) {
        let key = MsgKey {
            library,
            kind: kind.to_string(),
            message: message.trim().to_string(),
        };
        let made = || MsgAcc {
            at: None,
            rc: None,
            srcs: Srcs::default(),
        };
        if let Some((_, acc)) = self.fallbacks.entry(&key, made) {
            acc.srcs.add(src);
        }
    }

    fn set_device(&mut self, arch: &str, name: Option<&str>, src: Src, rule: &'static str) {
        // A device the log names in a form that is not a target id stays unknown.
        if let (None, Ok(t)) = (&self.device, TargetId::parse(arch)) {
            self.device = Some((t, name.map(str::to_string), src, rule));
        }
    }

    fn fact(&mut self, what: &str, value: &str, src: Src) {
        self.facts
            .entry(&(what.to_string(), value.to_string()), || src);
    }

    /// The solver in context (the one whose kernels the next prepare/run lines are).
    fn set_ctx_solver(&mut self, solver: std::borrow::Cow<'_, str>) {
        if self.ctx_solver.as_deref() != Some(solver.as_ref()) {
            self.ctx_solver = Some(solver.into_owned());
        }
    }

    /// A MIOpen line, handed to the handler of its group.
    fn miopen(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::DeviceName(d) => self.set_device(&d, None, src, "case.device.miopen"),
            M::ApiCall(name) => self.api("miopen", &name, src),
            e @ (M::FindMode(_)
            | M::FindEnforced
            | M::FindOnlySolver(_)
            | M::Versions { .. }
            | M::InstalledDb { .. }) => self.miopen_fact(e, src),
            e @ (M::Command { .. } | M::DriverInvocation(_) | M::FindStart(_) | M::FindEnd(_)) => {
                self.miopen_problem(e, src)
            }
            e @ (M::DbLookup { .. }
            | M::DbKeyMatch(_)
            | M::DbContents(_)
            | M::DbStore(_)
            | M::PerfDbNotFound(_)
            | M::PerfDbLoaded(_)) => self.miopen_db(e, src),
            e @ (M::Applicability { .. }
            | M::SolverFailed { .. }
            | M::FindSolution { .. }
            | M::GetSolution { .. }
            | M::ImmediateFallback(_)
            | M::WtiEstimate { .. }
            | M::FallbackSolution { .. }
            | M::Chosen { .. }
            | M::SolverIdUse { .. }) => self.miopen_solver(e, src),
            e @ (M::Evaluate { .. } | M::BestForAlgorithm { .. } | M::Invoker { .. }) => {
                self.miopen_find(e, src)
            }
            e @ (M::PrepareKernel(_)
            | M::RunKernel(_)
            | M::LoadBinary { .. }
            | M::FindResult { .. }
            | M::KernelTime { .. }
            | M::Verification { .. }) => self.miopen_kernel(e, src),
            e @ (M::Error { .. }
            | M::DriverSelection { .. }
            | M::DriverSolution { .. }
            | M::DriverForcedUnreported(_)
            | M::DriverFailed { .. }
            | M::CliError(_)
            | M::ApplicabilityNote(_)
            | M::CompileErrors { .. }) => self.miopen_driver(e, src),
        }
    }

    /// What MIOpen says about itself: versions, find mode, the find-db file. (Other events are
    /// handed to their own handlers by [`Collector::miopen`].)
    fn miopen_fact(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::FindMode(m) => self.fact("miopen_find_mode", &m, src),
            M::FindEnforced => self.fact("miopen_find_enforce", "NORMAL", src),
            M::FindOnlySolver(v) => self.fact("miopen_find_only_solver", &v, src),
            M::Versions { hip, miopen } => {
                self.fact("miopen_version", &miopen, src);
                self.fact("hip_version", &hip, src);
            }
            M::InstalledDb { file, exact } => {
                let v = file.map_or_else(|| "inexact search".to_string(), |f| f.into_owned());
                let what = if exact {
                    "miopen_find_db_file"
                } else {
                    "miopen_find_db_search"
                };
                self.fact(what, &v, src);
            }
            _ => {}
        }
    }

    /// Lines that name a problem: logged and driver commands, the start and end of a Find.
    fn miopen_problem(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::Command { args, .. } => {
                self.problem_from(&args, "logged_command", src, |a| {
                    DriverCommand::parse_line(a)
                        .ok()
                        .filter(|c| c.problems.len() == 1)
                        .and_then(|c| c.problems.into_iter().next())
                });
            }
            M::DriverInvocation(args) => self.driver_command(&args, src),
            M::FindStart(key) => {
                self.problem_from(&key, "db_key", src, |k| Problem::from_fdb_key(k).ok());
                self.in_find = true;
            }
            M::FindEnd(_) => {
                self.in_find = false;
                self.unclaimed_find_kernels();
            }
            _ => {}
        }
    }

    /// Find-db and perf-db lookups and what they found.
    fn miopen_db(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::DbLookup { key, file, .. } => self.db_lookup(&key, &file, src),
            M::DbKeyMatch(key) => {
                if let Some(l) = self.pending_lookup.and_then(|i| self.lookups.at_mut(i)) {
                    if l.key == key.as_ref() {
                        l.found = Some(true);
                        l.found_explicit = true;
                        l.srcs.add(src);
                    }
                }
            }
            M::DbContents(rec) => self.db_contents(&rec, src),
            M::PerfDbNotFound(solver) => self.perf_db(&solver, false, src),
            M::PerfDbLoaded(solver) => self.perf_db(&solver, true, src),
            _ => {}
        }
    }

    fn db_lookup(&mut self, key: &str, file: &str, src: Src) {
        self.resolve_lookup();
        let seen = if key.contains('-') {
            "db_key"
        } else {
            "perf_db_key"
        };
        self.problem_from(key, seen, src, |k| {
            Problem::from_fdb_key(k)
                .or_else(|_| Problem::from_perf_db_key(k))
                .ok()
        });
        let made = || LookupAcc::new(db_kind(file), file.to_string(), key.to_string());
        let lk = LookupKey::Logged(file.to_string(), key.to_string());
        if let Some((i, l)) = self.lookups.entry(&lk, made) {
            l.srcs.add(src);
            self.pending_lookup = Some(i);
        }
    }

    /// A find-db record: each solver in it is a candidate with its time; the pending lookup
    /// found it.
    fn db_contents(&mut self, rec: &str, src: Src) {
        let items = findrec::parse_record(rec);
        for it in &items {
            self.fate(&it.solver, Fate::FindDbRecord, SeenIn::FindDb, src);
            self.cand_time(&it.solver, Some(it.time_ms));
        }
        if let Some(l) = self.pending_lookup.and_then(|i| self.lookups.at_mut(i)) {
            l.found = Some(true);
            l.found_explicit = true;
            if l.record.is_empty() {
                l.record = items;
            }
            l.srcs.add(src);
        }
    }

    /// What MIOpen says of one solver: applicability, failures, immediate-mode listings, the
    /// solver chosen, the solver in context.
    fn miopen_solver(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::Applicability {
                phase,
                solver,
                fate,
            } => {
                let (f, ph) = fate_of(fate, phase);
                self.fate(&solver, f, ph, src);
            }
            M::SolverFailed { solver, what } => {
                self.fate(&solver, Fate::Failed, SeenIn::Search, src);
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
                self.set_ctx_solver(solver);
            }
            M::Chosen {
                solver, time_ms, ..
            } => {
                self.cand_time(&solver, time_ms);
                self.chosen
                    .push((self.ctx_problem, solver.trim().to_string(), src));
            }
            M::SolverIdUse { solver, .. } => self.set_ctx_solver(solver),
            e => self.miopen_immediate(e, src),
        }
    }

    /// Immediate mode: the solutions it lists, and its fallback ranking when no find-db record
    /// exists.
    fn miopen_immediate(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::GetSolution {
                solver,
                id,
                time_ms,
            } => {
                self.fate(&solver, Fate::ImmediateCandidate, SeenIn::Immediate, src);
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
                self.fate(
                    &solver,
                    Fate::ImmediateCandidate,
                    SeenIn::ImmediateFallback,
                    src,
                );
                if let Some(c) = self.candidate(&solver) {
                    c.wti = Some(wti);
                }
            }
            M::FallbackSolution { solver, id } => {
                self.fate(
                    &solver,
                    Fate::ImmediateCandidate,
                    SeenIn::ImmediateFallback,
                    src,
                );
                self.cand_id(&solver, id);
            }
            _ => {}
        }
    }

    /// Find's evaluation of each solver and its per-algorithm winners.
    fn miopen_find(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::Evaluate {
                solver,
                kernels,
                time_ms,
                selected,
            } => self.evaluate(solver, &kernels, time_ms, selected, src),
            M::BestForAlgorithm {
                solver,
                algo,
                netcfg,
            } => {
                self.problem_from(&netcfg, "network_config", src, |k| {
                    Problem::from_network_config(k).ok()
                });
                self.fate(&solver, Fate::BestForAlgorithm, SeenIn::Find, src);
                let key = (netcfg.into_owned(), algo.to_string());
                if let Some((_, best)) = self.best_for.entry(&key, String::new) {
                    *best = solver.to_string();
                }
                if let Some((_, a)) = self.best_algo.entry(solver.as_ref(), String::new) {
                    *a = algo.into_owned();
                }
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
                    self.set_ctx_solver(s);
                } else if let Some(a) = algo {
                    self.ctx_solver = self
                        .best_for
                        .get(&(netcfg.into_owned(), a.into_owned()))
                        .cloned();
                }
            }
            _ => {}
        }
    }

    /// An `[EvaluateInvokers]` line: the kernels Find built or ran since the previous one, and
    /// those the line names, are this solver's.
    fn evaluate(
        &mut self,
        solver: std::borrow::Cow<'_, str>,
        kernels: &[std::borrow::Cow<'_, str>],
        time_ms: Option<f64>,
        selected: bool,
        src: Src,
    ) {
        self.fate(&solver, Fate::Evaluated, SeenIn::Evaluate, src);
        self.cand_time(&solver, time_ms);
        let pending = std::mem::take(&mut self.find_pending);
        self.find_pending_src = None;
        if let Some((_, ks)) = self.eval_kernels.entry(solver.as_ref(), Vec::new) {
            for k in pending
                .iter()
                .map(String::as_str)
                .chain(kernels.iter().map(|k| k.as_ref()))
            {
                push_unique(ks, k);
            }
        }
        if selected {
            self.evaluated_selected
                .push((self.ctx_problem, solver.into_owned(), time_ms, src));
        }
    }

    /// Kernels built, launched and loaded, and the times and checks the driver prints.
    fn miopen_kernel(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::PrepareKernel(k) | M::RunKernel(k) if self.in_find => {
                // Find builds and launches every candidate in turn: the kernel belongs to the
                // solver of the next evaluation line, not to the one in context.
                push_unique(&mut self.find_pending, &k);
                self.find_pending_src.get_or_insert(src);
            }
            M::PrepareKernel(k) => {
                if let Some(s) = &self.ctx_solver {
                    if let Some((_, v)) = self.prepared.entry(s.as_str(), Vec::new) {
                        push_unique(v, &k);
                    }
                }
            }
            M::RunKernel(k) => {
                if let Some(s) = &self.ctx_solver {
                    if let Some((_, v)) = self.ran.entry(s.as_str(), Vec::new) {
                        push_unique(v, &k);
                    }
                }
            }
            M::LoadBinary { file, args, loaded } => {
                let key = (file.into_owned(), args.into_owned());
                if let Some((_, c)) = self.code_objects.entry(&key, || (false, Srcs::default())) {
                    c.0 |= loaded;
                    c.1.add(src);
                }
            }
            M::FindResult {
                algo,
                time_ms: Some(t),
            } => self.timing(format!("find {algo}"), t, src),
            M::KernelTime { what, ms } => self.timing(what.into_owned(), ms, src),
            M::Verification { ok, detail } => {
                self.verification = Some((ok, detail.into_owned(), src));
            }
            _ => {}
        }
    }

    fn timing(&mut self, what: String, ms: f64, src: Src) {
        if self.timings.len() < 256 {
            self.timings.push((what, ms, src));
        }
    }

    /// MIOpen's errors and notes, and what the driver reports: its selection, its solutions,
    /// its failed steps.
    fn miopen_driver(&mut self, e: miopen::Event<'_>, src: Src) {
        use miopen::Event as M;
        match e {
            M::Error { at, message } => {
                self.capi_error(&message, src);
                let kind = miopen_error_kind(&message);
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
                self.fate(&solver, Fate::ImmediateCandidate, SeenIn::DriverList, src);
                self.cand_id(&solver, id);
                self.cand_time(&solver, time_ms);
            }
            M::DriverForcedUnreported(id) => self.forced_unreported = Some((id, src)),
            M::DriverFailed { step, rc } => {
                let kind = if step == "ParseCmdLineArgs" {
                    "cli"
                } else {
                    "driver_rc"
                };
                let msg = format!("{step}() FAILED, rc = {rc:#x}");
                self.error("miopen_driver", kind, &msg, None, Some(rc), src);
            }
            M::CliError(msg) => self.error("miopen_driver", "cli", &msg, None, None, src),
            M::ApplicabilityNote(m) => {
                if let Some((_, s)) = self.notes.entry(m.as_ref(), Srcs::default) {
                    s.add(src);
                }
            }
            M::CompileErrors { count, target } => {
                let msg = format!("{count} errors generated when compiling for {target}");
                self.error("compiler", "compile_errors", &msg, None, None, src);
            }
            _ => {}
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
                let unlogged = LookupKey::Unlogged(self.lookups.len());
                let made = || LookupAcc::new("perf_db", String::new(), format!("solver:{solver}"));
                match self.lookups.entry(&unlogged, made) {
                    Some((i, _)) => i,
                    None => return,
                }
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
        if let Some((_, s)) = self.apis.entry(&(library, name.to_string()), Srcs::default) {
            s.add(src);
        }
    }

    fn add_gemm(&mut self, key: GemmKey, src: Src, n: u64) {
        if let Some((_, s)) = self.gemms.entry(&key, Srcs::default) {
            s.add_n(src, n);
        }
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
            R::Bench(g) => self.add_gemm(Self::gemm_key(&g, "bench", None), src, g.count),
            R::Profile(g) => self.add_gemm(Self::gemm_key(&g, "profile", None), src, g.count),
            R::Backend {
                backend,
                trans_a,
                trans_b,
                m,
                n,
                k,
            } => self.rocblas_backend(backend, trans_a, trans_b, [m, n, k], src),
            R::Api(name) => self.api("rocblas", &name, src),
            R::Fallback { kind, message } => self.fallback("rocblas", kind, &message, src),
            R::NoSolution(m) => self.error("rocblas", "no_tensile_solution", &m, None, None, src),
            R::LibraryMissing { path, reason, arch } => {
                self.set_device(&arch, None, src, "case.device.rocblas_arch");
                let msg = format!("cannot read {path}: {reason} (GPU arch {arch})");
                self.error("rocblas", "tensile_library_missing", &msg, None, None, src);
            }
            R::LibraryAvailable(p) => push_unique(&mut self.available_libraries, &p),
            R::Message { level, message } => {
                if level == "error" {
                    self.error("rocblas", "rocblas_error", &message, None, None, src);
                }
            }
            R::RunningKernel(name) => {
                if let Some((_, s)) = self.tensile.entry(name.trim(), Srcs::default) {
                    s.add(src);
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

    /// The backend rocBLAS chose for a GEMM: the pending trace call of that shape gets it;
    /// without one, it is an internal call of its own.
    fn rocblas_backend(
        &mut self,
        backend: std::borrow::Cow<'_, str>,
        trans_a: std::borrow::Cow<'_, str>,
        trans_b: std::borrow::Cow<'_, str>,
        [m, n, k]: [u64; 3],
        src: Src,
    ) {
        let matches = self.pending_gemm.as_ref().is_some_and(|(p, _, _)| {
            p.m == m && p.n == n && p.k == k && p.trans_a == trans_a && p.trans_b == trans_b
        });
        if matches {
            if let Some((mut key, s, cnt)) = self.pending_gemm.take() {
                key.backend = Some(backend.into_owned());
                self.add_gemm(key, s, cnt);
            }
            return;
        }
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
            .values()
            .find(|c| c.solver == name && c.id.is_some_and(|(_, log)| log))
        {
            return c.id;
        }
        solvers::by_name(name).map(|s| (s.id, false))
    }
}
