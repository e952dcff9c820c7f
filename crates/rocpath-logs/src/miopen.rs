//! MIOpen's log and MIOpenDriver's own output.
//!
//! Line grammar (MIOpen `src/logger.cpp` `LoggingPrefix`, `src/include/miopen/logger.hpp`):
//! `[<tid> ]MIOpen(HIP|OpenCL)[<elapsed ms>]: <Level> [<fn>] <message>`, plus API-trace blocks
//! (`MIOpen(HIP): miopenStatus_t miopenX(…){`, `\t<param> = <value>` lines, `}`), command lines
//! (`MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver …`) and a custom category
//! (`MIOpen(HIP): MIOpenDriver Info2 [GPUMem] …`). MIOpenDriver prints its own lines without
//! the prefix (`MIOpen Forward Conv. Algorithm: 3, Solution: 14/ConvBinWinograd3x3U`,
//! `RunForwardGPU() FAILED, rc = 0x3`, `MIOpen Error: <file>:<line>: <message>`).
//!
//! The message catalogue follows MIOpen 3.x as released (checked against real MIOpen 3.5.1
//! logs) and the 2024 source, whose `GetSolutions` lines carry `id:/algo:/time:/ws:/name:`.

use crate::text::{after, f64_of, find, int_of, rsplit_once, s, split_once, trim, u64_of};
use std::borrow::Cow;

/// Log level of a prefixed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// `Fatal`
    Fatal,
    /// `Error`
    Error,
    /// `Warning`
    Warning,
    /// `Info`
    Info,
    /// `Info2`
    Info2,
    /// `Trace`
    Trace,
}

/// What a solver-enumeration line says about one solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Applicability {
    /// `<S>: Not applicable`
    NotApplicable,
    /// `<S>: Skipped (non-dynamic)` — not dynamic while the find mode allows only dynamic
    /// solvers.
    SkippedNonDynamic,
    /// `<S>: Skipped (no workspace required)` — workspace query only.
    SkippedNoWorkspace,
    /// `<S>: Success.` — the solver produced a solution.
    Success,
}

/// Which enumeration printed the line (the `[fn]` tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// `SearchForAllSolutions` (Find).
    Search,
    /// `GetWorkspaceSizes` (workspace query).
    WorkspaceSizes,
    /// `SearchForSolutions`, `IsAnySolverApplicable` and other enumerations.
    Other,
}

/// A recognised MIOpen or MIOpenDriver line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// `Info [get_device_name] Raw device name: gfx900:xnack-`
    DeviceName(Cow<'a, str>),
    /// `Info [] MIOPEN_FIND_MODE = DYNAMIC_HYBRID(5)`
    FindMode(Cow<'a, str>),
    /// `[IsEnabled] MIOPEN_FIND_MODE is set to NORMAL due to MIOPEN_FIND_ENFORCE`.
    FindEnforced,
    /// `[GetEnvFindOnlySolverImpl] 89`: the `MIOPEN_DEBUG_FIND_ONLY_SOLVER` value in force.
    FindOnlySolver(Cow<'a, str>),
    /// `ROCm MD version …, HIP version 7.2.26043, MIOpen version 3.5.1.…`
    Versions {
        /// HIP version.
        hip: Cow<'a, str>,
        /// MIOpen version.
        miopen: Cow<'a, str>,
    },
    /// First line of an API-trace block: `miopenStatus_t miopenConvolutionForward(…){`.
    ApiCall(Cow<'a, str>),
    /// `Command [LogCmdConvolution] ./bin/MIOpenDriver conv …` — the problem as a driver
    /// command line.
    Command {
        /// `LogCmdConvolution`, `LogCmdFindConvolution`, …
        tag: Cow<'a, str>,
        /// The arguments after the driver's name (`conv -n 32 …`).
        args: Cow<'a, str>,
    },
    /// The driver's own first line: the command it was started with.
    DriverInvocation(Cow<'a, str>),
    /// `Found exact find database file: "…"` / `inexact find database search`.
    InstalledDb {
        /// The file, when named.
        file: Option<Cow<'a, str>>,
        /// `true` for the exact file.
        exact: bool,
    },
    /// `[FindRecord] Looking for key K in file "F"` (`cache`: `… in cache for file "F"`).
    DbLookup {
        /// The key.
        key: Cow<'a, str>,
        /// The database file.
        file: Cow<'a, str>,
        /// Looked up in the in-memory cache of the file.
        cache: bool,
    },
    /// `Key match: K`
    DbKeyMatch(Cow<'a, str>),
    /// `Contents found: R` (also `[LogFindDbItem] Find-db record content: R`).
    DbContents(Cow<'a, str>),
    /// `[SetValues] K, content inserted: R` / `Storing record: K`.
    DbStore(Cow<'a, str>),
    /// `Perf Db: record not found for: S`
    PerfDbNotFound(Cow<'a, str>),
    /// `Perf Db: record loaded: S` (or an alternate record).
    PerfDbLoaded(Cow<'a, str>),
    /// A solver-enumeration verdict.
    Applicability {
        /// Which enumeration.
        phase: Phase,
        /// Solver name.
        solver: Cow<'a, str>,
        /// Verdict.
        fate: Applicability,
    },
    /// `<S>: [Warning] Applicable Solver not succeeded.` / `Search failed for: S: what`.
    SolverFailed {
        /// Solver.
        solver: Cow<'a, str>,
        /// What failed, when said.
        what: Cow<'a, str>,
    },
    /// `[FindSolutionImpl] S`, `S (not searchable)`, `S (db access disabled)`.
    FindSolution {
        /// Solver.
        solver: Cow<'a, str>,
        /// `Some(false)` for "not searchable".
        searchable: Option<bool>,
    },
    /// `[GetSolutions] S` or `id: n, algo: a, time: t, ws: w, name: S` — solutions the
    /// immediate mode returns (from the find-db, best first).
    GetSolution {
        /// Solver.
        solver: Cow<'a, str>,
        /// Registry id, when printed.
        id: Option<u64>,
        /// Time in ms, when printed.
        time_ms: Option<f64>,
    },
    /// `[GetSolutionsFallback] Using WTI Fallback` / `Using TunaNet Fallback`.
    ImmediateFallback(Cow<'a, str>),
    /// `[GetSolutionsFallback] S Estimated WTI = f`
    WtiEstimate {
        /// Solver.
        solver: Cow<'a, str>,
        /// Estimate (−2 = unknown).
        wti: f64,
    },
    /// `[GetSolutionsFallback] id: 85, algo: 1, time: 1000, ws: 0, name: S`
    FallbackSolution {
        /// Solver.
        solver: Cow<'a, str>,
        /// Registry id.
        id: Option<u64>,
    },
    /// `[FindConvolution] Find Start: K, findMode: M`
    FindStart(Cow<'a, str>),
    /// `[FindConvolution] Find Ended: K`
    FindEnd(Cow<'a, str>),
    /// `[EvaluateInvokers] S: kernels: t < best` or `Selected: S: kernels: t, workspace_sz = n`.
    Evaluate {
        /// Solver.
        solver: Cow<'a, str>,
        /// Kernels of the solution (`/`-separated in the log).
        kernels: Vec<Cow<'a, str>>,
        /// Measured time, ms.
        time_ms: Option<f64>,
        /// The `Selected:` line.
        selected: bool,
    },
    /// `[SetAsFound1_0] Solver S registered as find 1.0 best for A in N`
    BestForAlgorithm {
        /// Solver.
        solver: Cow<'a, str>,
        /// Algorithm (`miopenConvolutionFwdAlgoWinograd`).
        algo: Cow<'a, str>,
        /// Network config.
        netcfg: Cow<'a, str>,
    },
    /// `[GetInvoker] Returning an invoker for problem N and solver S` / `… and algorithm A`;
    /// `[Register] Invoker registered for algorithm N and solver S`.
    Invoker {
        /// Network config.
        netcfg: Cow<'a, str>,
        /// Solver, when named.
        solver: Option<Cow<'a, str>>,
        /// Algorithm, when named.
        algo: Option<Cow<'a, str>>,
    },
    /// `[PrepareInvoker] Preparing kernel: K`
    PrepareKernel(Cow<'a, str>),
    /// `[run] kernel_name = K, …` — a kernel launched.
    RunKernel(Cow<'a, str>),
    /// `[LoadBinary] Loading binary for: "F"; args: A` (`loaded`: `Successfully loaded …`).
    LoadBinary {
        /// Code object file name.
        file: Cow<'a, str>,
        /// Build options.
        args: Cow<'a, str>,
        /// Found in the kernel cache.
        loaded: bool,
    },
    /// `[FindConvolution] <algo>\t<time>\t<ws>` — one Find result.
    FindResult {
        /// Algorithm.
        algo: Cow<'a, str>,
        /// Time, ms.
        time_ms: Option<f64>,
    },
    /// `[FillFindReturnParameters] FW Chosen Algorithm: S , ws, time`
    Chosen {
        /// `FW`, `BD`, `BW`.
        direction: Cow<'a, str>,
        /// Solver.
        solver: Cow<'a, str>,
        /// Time, ms.
        time_ms: Option<f64>,
    },
    /// `[<fn>] solver_id = S` (workspace query, compile, immediate run of a given solution).
    SolverIdUse {
        /// The function (`GetForwardSolutionWorkspaceSize`, `CompileSolution`, …).
        what: Cow<'a, str>,
        /// Solver.
        solver: Cow<'a, str>,
    },
    /// An `Error`/`Fatal` line or `MIOpen Error: <where>: <message>`.
    Error {
        /// Source location, when printed (`…/convolutionocl.cpp:1057`).
        at: Option<Cow<'a, str>>,
        /// The message.
        message: Cow<'a, str>,
    },
    /// `MIOpen Forward Conv. Algorithm: 3, Solution: 14/ConvBinWinograd3x3U` (driver).
    DriverSelection {
        /// `Forward`, `Backward Data`, `Backward Weights`.
        direction: Cow<'a, str>,
        /// Algorithm number.
        algo: Option<u64>,
        /// Solver id (None for `UNKNOWN`).
        id: Option<u64>,
        /// Solver name.
        solver: Cow<'a, str>,
    },
    /// `- id: 85 algo: 1, time: 14.3143 ms, ws: 0, name: S` (driver's list of solutions).
    DriverSolution {
        /// Solver id.
        id: Option<u64>,
        /// Solver.
        solver: Cow<'a, str>,
        /// Time, ms.
        time_ms: Option<f64>,
    },
    /// `Warning: Solution id (114) is not reported by the library. Trying it anyway...`
    DriverForcedUnreported(u64),
    /// `RunForwardGPU() FAILED, rc = 0x3`, `ParseCmdLineArgs() FAILED, rc = 1`.
    DriverFailed {
        /// The step that failed.
        step: Cow<'a, str>,
        /// Its return code.
        rc: i64,
    },
    /// `GPU Kernel Time Forward Conv. Elapsed: 1.065296 ms (average)`
    KernelTime {
        /// What was timed.
        what: Cow<'a, str>,
        /// ms.
        ms: f64,
    },
    /// `Forward Convolution Verifies OK on GPU reference (…)` / `Forward Convolution FAILED: …`
    Verification {
        /// Passed.
        ok: bool,
        /// The whole line.
        detail: Cow<'a, str>,
    },
    /// `Invalid value for out_cast_type argument:int32`, `Long Name: X Not Found !` — the
    /// driver refused its command line.
    CliError(Cow<'a, str>),
    /// `[IsApplicable] <why>` / `[IsProblemSupported] <why>`: a reason a solver or a
    /// heuristic does not apply (`GEMM not supported with casted tensors on this GPU
    /// architecture`, `TunaNet Inapplicable: Unsupported data type`).
    ApplicabilityNote(Cow<'a, str>),
    /// `15 errors generated when compiling for gfx900.` (comgr/hipRTC, printed by MIOpen).
    CompileErrors {
        /// Error count.
        count: u64,
        /// Target.
        target: Cow<'a, str>,
    },
}

fn level_of(w: &[u8]) -> Option<Level> {
    Some(match w {
        b"Info2" => Level::Info2,
        b"Info" => Level::Info,
        b"Warning" => Level::Warning,
        b"Error" => Level::Error,
        b"Fatal" => Level::Fatal,
        b"Trace" => Level::Trace,
        _ => return None,
    })
}

/// Strips `[<tid> ]MIOpen(HIP|OpenCL)[<elapsed>]: `; returns the body.
pub fn strip_prefix(line: &[u8]) -> Option<&[u8]> {
    let mut b = line;
    if b.first().is_some_and(u8::is_ascii_digit) {
        let sp = memchr::memchr(b' ', b)?;
        if !b[..sp].iter().all(u8::is_ascii_digit) {
            return None;
        }
        b = &b[sp + 1..];
    }
    let b = after(b, b"MIOpen(")?;
    let close = memchr::memchr(b')', b)?;
    if close > 8 {
        return None;
    }
    let rest = &b[close + 1..];
    // Optional elapsed time ("%8.3f") before ": ".
    let colon = memchr::memchr(b':', rest)?;
    if colon > 20
        || !rest[..colon]
            .iter()
            .all(|c| c.is_ascii_digit() || *c == b'.' || *c == b' ')
    {
        return None;
    }
    let body = &rest[colon + 1..];
    Some(body.strip_prefix(b" ").unwrap_or(body))
}

/// Parses a line that starts with the MIOpen prefix. `None` for prefixed lines that carry
/// nothing (API parameters, locks, timings) and for lines without the prefix.
pub fn parse(line: &[u8]) -> Option<Event<'_>> {
    let body = strip_prefix(line)?;
    parse_body(body)
}

/// Parses the body of a prefixed line.
pub fn parse_body(body: &[u8]) -> Option<Event<'_>> {
    match *body.first()? {
        b'\t' | b'}' => None,
        b'm' => {
            let rest = after(body, b"miopenStatus_t ")?;
            let paren = memchr::memchr(b'(', rest)?;
            Some(Event::ApiCall(s(&rest[..paren])))
        }
        b'C' => {
            let rest = after(body, b"Command [")?;
            let (tag, rest) = split_once(rest, b"] ")?;
            let i = find(rest, b"MIOpenDriver")?;
            let mut args = &rest[i + b"MIOpenDriver".len()..];
            args = args.strip_prefix(b".exe").unwrap_or(args);
            Some(Event::Command {
                tag: s(tag),
                args: s(args),
            })
        }
        _ => {
            let sp = memchr::memchr(b' ', body)?;
            let level = level_of(&body[..sp])?;
            let rest = &body[sp + 1..];
            let rest = after(rest, b"[")?;
            let close = memchr::memchr(b']', rest)?;
            let func = &rest[..close];
            let msg = rest[close + 1..]
                .strip_prefix(b" ")
                .unwrap_or(&rest[close + 1..]);
            parse_message(level, func, msg)
        }
    }
}

fn quoted(b: &[u8]) -> &[u8] {
    let b = trim(b);
    b.strip_prefix(b"\"")
        .and_then(|x| x.strip_suffix(b"\""))
        .unwrap_or(b)
}

fn applicability(msg: &[u8]) -> Option<(&[u8], Applicability)> {
    let (solver, verdict) = rsplit_once(msg, b": ")?;
    let fate = match trim(verdict) {
        b"Not applicable" => Applicability::NotApplicable,
        b"Skipped (non-dynamic)" => Applicability::SkippedNonDynamic,
        b"Skipped (no workspace required)" => Applicability::SkippedNoWorkspace,
        b"Success." | b"Success" => Applicability::Success,
        _ => return None,
    };
    Some((solver, fate))
}

/// `id: 85, algo: 1, time: 1000, ws: 0, name: S` (commas optional between fields).
fn id_list(msg: &[u8]) -> Option<(Option<u64>, Option<f64>, &[u8])> {
    let m = trim(msg);
    let m = after(m, b"id: ")?;
    let id_end = m
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(m.len());
    let id = u64_of(&m[..id_end]);
    let time = find(m, b"time: ").and_then(|i| {
        let t = &m[i + 6..];
        let end = t
            .iter()
            .position(|c| *c == b',' || *c == b' ')
            .unwrap_or(t.len());
        f64_of(&t[..end])
    });
    let (_, name) = split_once(m, b"name: ")?;
    Some((id, time, trim(name)))
}

fn parse_message<'a>(level: Level, func: &'a [u8], msg: &'a [u8]) -> Option<Event<'a>> {
    if matches!(level, Level::Error | Level::Fatal)
        && !(func == b"FindSolutionImpl"
            && (msg.starts_with(b"Search failed for: ") || msg.starts_with(b"Search Failed: ")))
    {
        return Some(error_message(msg));
    }
    match func {
        b"SearchForAllSolutions"
        | b"GetWorkspaceSizes"
        | b"SearchForSolutions"
        | b"IsAnySolverApplicable"
        | b"FindSolutions"
        | b"GetSolutionsImpl" => applicability_line(func, msg),
        b"FindSolutionImpl" => find_solution_line(msg),
        b"FindRecord" | b"FindRecordUnsafe" | b"LoadRecordUnsafe" => db_record_line(msg),
        b"LogFindDbItem" => {
            after(msg, b"Find-db record content: ").map(|r| Event::DbContents(s(r)))
        }
        b"SetValues" => {
            let (key, _) = split_once(msg, b", content inserted: ")?;
            Some(Event::DbStore(s(key)))
        }
        b"GetInstalledPathFile" => installed_db_line(msg),
        b"GetSolutions" => get_solutions_line(msg),
        b"GetSolutionsFallback" => fallback_line(msg),
        b"FindConvolution" => find_convolution_line(msg),
        b"EvaluateInvokers" => evaluate_line(msg),
        b"SetAsFound1_0" => best_for_algorithm_line(msg),
        b"GetInvoker" => invoker_line(msg),
        b"Register" => registered_line(msg),
        b"PrepareInvoker" => after(msg, b"Preparing kernel: ").map(|k| Event::PrepareKernel(s(k))),
        b"run" => {
            let r = after(msg, b"kernel_name = ")?;
            let end = memchr::memchr(b',', r).unwrap_or(r.len());
            Some(Event::RunKernel(s(&r[..end])))
        }
        b"LoadBinary" => load_binary_line(msg),
        b"FillFindReturnParameters" => chosen_line(msg),
        b"get_device_name" => after(msg, b"Raw device name: ").map(|d| Event::DeviceName(s(d))),
        b"AmdRocmMetadataVersionDetect" => versions_line(msg),
        b"IsEnabled" if find(msg, b"due to MIOPEN_FIND_ENFORCE").is_some() => {
            Some(Event::FindEnforced)
        }
        b"GetEnvFindOnlySolverImpl" => {
            let m = trim(msg);
            (!m.is_empty()).then(|| Event::FindOnlySolver(s(m)))
        }
        b"IsApplicable" | b"IsProblemSupported" => {
            let m = trim(msg);
            (!m.is_empty()).then(|| Event::ApplicabilityNote(s(m)))
        }
        b"" => {
            let (_, mode) = split_once(msg, b"MIOPEN_FIND_MODE = ")?;
            Some(Event::FindMode(s(mode)))
        }
        _ => other_line(func, msg),
    }
}

/// A solver's applicability in a search (or a solver that applied but did not succeed).
fn applicability_line<'a>(func: &'a [u8], msg: &'a [u8]) -> Option<Event<'a>> {
    if let Some(i) = find(msg, b": [Warning] Applicable Solver not succeeded") {
        return Some(Event::SolverFailed {
            solver: s(&msg[..i]),
            what: Cow::Borrowed("applicable solver not succeeded"),
        });
    }
    let (solver, fate) = applicability(msg)?;
    let phase = match func {
        b"SearchForAllSolutions" => Phase::Search,
        b"GetWorkspaceSizes" => Phase::WorkspaceSizes,
        _ => Phase::Other,
    };
    Some(Event::Applicability {
        phase,
        solver: s(solver),
        fate,
    })
}

/// `FindSolutionImpl`: perf-db records, failed searches, and the solver each step tries.
fn find_solution_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    if let Some(r) = after(msg, b"Perf Db: record not found for: ") {
        return Some(Event::PerfDbNotFound(s(r)));
    }
    if let Some(r) = after(msg, b"Perf Db: record loaded: ")
        .or_else(|| after(msg, b"Perf Db: alternate record loaded: "))
    {
        return Some(Event::PerfDbLoaded(s(r)));
    }
    if let Some(r) = after(msg, b"Search failed for: ") {
        let (solver, what) = split_once(r, b": ").unwrap_or((r, b""));
        return Some(Event::SolverFailed {
            solver: s(solver),
            what: s(what),
        });
    }
    if let Some(r) = after(msg, b"Search Failed: ") {
        let (solver, what) = split_once(r, b": ").unwrap_or((r, b""));
        return Some(Event::SolverFailed {
            solver: s(solver),
            what: s(what),
        });
    }
    if msg.starts_with(b"Perf Db")
        || msg.starts_with(b"Search")
        || msg.starts_with(b"Starting search")
        || msg.starts_with(b"Invalid config")
    {
        return None;
    }
    let m = trim(msg);
    if m.is_empty() || memchr::memchr(b' ', m).is_some() && !m.ends_with(b")") {
        return None;
    }
    if let Some(name) = m.strip_suffix(b" (not searchable)") {
        return Some(Event::FindSolution {
            solver: s(name),
            searchable: Some(false),
        });
    }
    if let Some(name) = m.strip_suffix(b" (db access disabled)") {
        return Some(Event::FindSolution {
            solver: s(name),
            searchable: None,
        });
    }
    if memchr::memchr(b' ', m).is_some() {
        return None;
    }
    Some(Event::FindSolution {
        solver: s(m),
        searchable: Some(true),
    })
}

/// A db lookup: the key and file looked in, the key matched, the contents found.
fn db_record_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    if let Some(r) = after(msg, b"Looking for key ") {
        if let Some((key, file)) = split_once(r, b" in cache for file ") {
            return Some(Event::DbLookup {
                key: s(key),
                file: s(quoted(file)),
                cache: true,
            });
        }
        let (key, file) = split_once(r, b" in file ")?;
        return Some(Event::DbLookup {
            key: s(key),
            file: s(quoted(file)),
            cache: false,
        });
    }
    if let Some(r) = after(msg, b"Key match: ") {
        return Some(Event::DbKeyMatch(s(r)));
    }
    if let Some(r) = after(msg, b"Contents found: ") {
        return Some(Event::DbContents(s(r)));
    }
    None
}

/// Which installed find-db file was taken: exact, or an inexact search.
fn installed_db_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    if let Some(r) = after(msg, b"Found exact find database file: ") {
        return Some(Event::InstalledDb {
            file: Some(s(quoted(r))),
            exact: true,
        });
    }
    if find(msg, b"inexact find database search").is_some() {
        return Some(Event::InstalledDb {
            file: None,
            exact: false,
        });
    }
    None
}

/// `GetSolutions`: a solver listed (with its id and time when the line has them).
fn get_solutions_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let m = trim(msg);
    if m.is_empty() {
        return None;
    }
    if let Some(r) = after(m, b"[Warning] incorrect solver_id: ") {
        return Some(Event::Error {
            at: None,
            message: Cow::Owned(format!("incorrect solver_id: {}", s(r))),
        });
    }
    if let Some((id, time, name)) = id_list(m) {
        return Some(Event::GetSolution {
            solver: s(name),
            id,
            time_ms: time,
        });
    }
    if memchr::memchr(b' ', m).is_some() {
        return None;
    }
    Some(Event::GetSolution {
        solver: s(m),
        id: None,
        time_ms: None,
    })
}

/// Immediate mode's fallback: the fallback used, a WTI estimate, a solver listed.
fn fallback_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let m = trim(msg);
    if let Some(r) = after(m, b"Using ") {
        let what = r.strip_suffix(b" Fallback").unwrap_or(r);
        return Some(Event::ImmediateFallback(s(what)));
    }
    if let Some((solver, wti)) = split_once(m, b" Estimated WTI = ") {
        return Some(Event::WtiEstimate {
            solver: s(solver),
            wti: f64_of(wti)?,
        });
    }
    let (id, _, name) = id_list(m)?;
    Some(Event::FallbackSolution {
        solver: s(name),
        id,
    })
}

/// `FindConvolution`: Find's start and end, and each algorithm's time.
fn find_convolution_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    if let Some(r) = after(msg, b"Find Start: ") {
        let key = split_once(r, b", findMode").map(|x| x.0).unwrap_or(r);
        return Some(Event::FindStart(s(key)));
    }
    if let Some(r) = after(msg, b"Find Ended: ") {
        return Some(Event::FindEnd(s(r)));
    }
    let mut f = msg.split(|c| *c == b'\t');
    let algo = f.next()?;
    let time = f.next()?;
    if !algo.starts_with(b"miopen") {
        return None;
    }
    Some(Event::FindResult {
        algo: s(algo),
        time_ms: f64_of(time),
    })
}

/// `EvaluateInvokers`: a solver's kernels and time, and whether it was selected.
fn evaluate_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let (selected, m) = match after(msg, b"Selected: ") {
        Some(r) => (true, r),
        None => (false, msg),
    };
    let (solver, rest) = split_once(m, b": ")?;
    // rest: "<kernels>: <time> < <best>" or "<kernels>: <time>, workspace_sz = n";
    // GEMM solvers have no kernels: ": 6.72 < …".
    let (kernels, time) = if let Some(r) = rest.strip_prefix(b": ") {
        (&b""[..], r)
    } else {
        rsplit_once(rest, b": ").unwrap_or((rest, b""))
    };
    let t_end = time
        .iter()
        .position(|c| *c == b' ' || *c == b',')
        .unwrap_or(time.len());
    let kernels = trim(kernels)
        .split(|c| *c == b'/')
        .filter(|k| !trim(k).is_empty())
        .map(s)
        .collect();
    Some(Event::Evaluate {
        solver: s(solver),
        kernels,
        time_ms: f64_of(&time[..t_end]),
        selected,
    })
}

/// `SetAsFound1_0`: the solver registered as an algorithm's best.
fn best_for_algorithm_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let r = after(msg, b"Solver ")?;
    let (solver, r) = split_once(r, b" registered as find 1.0 best for ")?;
    let (algo, netcfg) = split_once(r, b" in ")?;
    Some(Event::BestForAlgorithm {
        solver: s(solver),
        algo: s(algo),
        netcfg: s(netcfg),
    })
}

/// `GetInvoker`: the invoker returned for a problem, by solver or algorithm.
fn invoker_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let r = after(msg, b"Returning an invoker for problem ")?;
    if let Some((n, solver)) = split_once(r, b" and solver ") {
        return Some(Event::Invoker {
            netcfg: s(n),
            solver: Some(s(solver)),
            algo: None,
        });
    }
    let (n, algo) = split_once(r, b" and algorithm ")?;
    Some(Event::Invoker {
        netcfg: s(n),
        solver: None,
        algo: Some(s(algo)),
    })
}

/// `Register`: an invoker registered for an algorithm and solver.
fn registered_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let r = after(msg, b"Invoker registered for algorithm ")?;
    let (n, solver) = split_once(r, b" and solver ")?;
    Some(Event::Invoker {
        netcfg: s(n),
        solver: Some(s(solver)),
        algo: None,
    })
}

/// `LoadBinary`: a kernel binary loading, or loaded, with its arguments.
fn load_binary_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let (loaded, r) = if let Some(r) = after(msg, b"Successfully loaded binary for: ") {
        (true, r)
    } else {
        (false, after(msg, b"Loading binary for: ")?)
    };
    let (file, args) = split_once(r, b"; args: ").unwrap_or((r, b""));
    Some(Event::LoadBinary {
        file: s(quoted(file)),
        args: s(args),
        loaded,
    })
}

/// `FillFindReturnParameters`: the algorithm Find chose, with its time.
fn chosen_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let (dir, r) = split_once(msg, b" Chosen Algorithm: ")?;
    let mut f = r.split(|c| *c == b',');
    let solver = f.next()?;
    let _ws = f.next();
    let time = f.next().and_then(f64_of);
    Some(Event::Chosen {
        direction: s(dir),
        solver: s(solver),
        time_ms: time,
    })
}

/// The HIP and MIOpen versions MIOpen prints.
fn versions_line<'a>(msg: &'a [u8]) -> Option<Event<'a>> {
    let (_, r) = split_once(msg, b"HIP version ")?;
    let (hip, r) = split_once(r, b", MIOpen version ")?;
    Some(Event::Versions {
        hip: s(hip),
        miopen: s(r),
    })
}

/// A function without a reader of its own: `solver_id =` uses, records stored.
fn other_line<'a>(func: &'a [u8], msg: &'a [u8]) -> Option<Event<'a>> {
    if let Some(r) = after(msg, b"solver_id = ") {
        return Some(Event::SolverIdUse {
            what: s(func),
            solver: s(r),
        });
    }
    if func == b"StoreRecordUnsafe" {
        return after(msg, b"Storing record: ").map(|k| Event::DbStore(s(k)));
    }
    None
}

/// `<where>: <message>` where `<where>` is `[host:]<path>:<line>`.
fn error_message(m: &[u8]) -> Event<'_> {
    let m = trim(m);
    // Find ":<digits>: " — the end of the source location.
    let mut i = 0;
    while let Some(p) = memchr::memchr(b':', &m[i..]) {
        let p = i + p;
        let digits = m[p + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && m[p + 1 + digits..].starts_with(b": ") {
            let loc_end = p + 1 + digits;
            return Event::Error {
                at: Some(s(&m[..loc_end])),
                message: s(&m[loc_end + 2..]),
            };
        }
        i = p + 1;
    }
    Event::Error {
        at: None,
        message: s(m),
    }
}

/// Lines MIOpenDriver prints itself (no prefix). Cheap to call on any line.
pub fn parse_driver(line: &[u8]) -> Option<Event<'_>> {
    let first = *line.first()?;
    match first {
        b'M' => {
            if let Some(r) = after(line, b"MIOpen Error: ") {
                return Some(error_message(r));
            }
            if let Some(r) = after(line, b"MIOpen ") {
                let (direction, r) = split_once(r, b" Conv. Algorithm: ")?;
                let (algo, r) = split_once(r, b", Solution: ")?;
                let (id, name) = split_once(r, b"/").unwrap_or((b"", r));
                return Some(Event::DriverSelection {
                    direction: s(direction),
                    algo: u64_of(algo),
                    id: u64_of(id),
                    solver: s(name),
                });
            }
            driver_invocation(line)
        }
        b'-' => {
            let (id, time, name) = id_list(after(line, b"- ")?)?;
            Some(Event::DriverSolution {
                id,
                solver: s(name),
                time_ms: time,
            })
        }
        b'W' => {
            let r = after(line, b"Warning: Solution id (")?;
            let (id, _) = split_once(r, b") is not reported by the library")?;
            Some(Event::DriverForcedUnreported(u64_of(id)?))
        }
        b'G' => {
            let r = after(line, b"GPU Kernel Time ")?;
            let (what, r) = split_once(r, b" Elapsed: ")?;
            let (ms, _) = split_once(r, b" ms").unwrap_or((r, b""));
            Some(Event::KernelTime {
                what: s(what),
                ms: f64_of(ms)?,
            })
        }
        b'I' => {
            let r = after(line, b"Invalid value for ")?;
            let _ = split_once(r, b" argument")?;
            Some(Event::CliError(s(line)))
        }
        b'L' => {
            let r = after(line, b"Long Name: ")?;
            find(r, b" Not Found")?;
            Some(Event::CliError(s(line)))
        }
        b'/' | b'.' => driver_invocation(line),
        b'0'..=b'9' => {
            let (n, r) = split_once(line, b" error")?;
            let (_, target) = split_once(r, b"generated when compiling for ")?;
            Some(Event::CompileErrors {
                count: u64_of(n)?,
                target: s(target.strip_suffix(b".").unwrap_or(target)),
            })
        }
        _ => {
            // "<Step>() FAILED, rc = 0x3" and "<Direction> Convolution Verifies OK / FAILED".
            if let Some((step, rc)) = split_once(line, b"() FAILED, rc = ") {
                if step.len() < 64 && !step.contains(&b' ') {
                    return Some(Event::DriverFailed {
                        step: s(step),
                        rc: int_of(rc)?,
                    });
                }
            }
            if let Some(i) = find(line, b"Convolution ") {
                let tail = &line[i + b"Convolution ".len()..];
                if i < 24 && tail.starts_with(b"Verifies OK") {
                    return Some(Event::Verification {
                        ok: true,
                        detail: s(line),
                    });
                }
                if i < 24 && tail.starts_with(b"FAILED: ") {
                    return Some(Event::Verification {
                        ok: false,
                        detail: s(line),
                    });
                }
            }
            None
        }
    }
}

/// `[/path/]MIOpenDriver <mode> <args…>` at the start of a line.
fn driver_invocation(line: &[u8]) -> Option<Event<'_>> {
    let i = find(line, b"MIOpenDriver ")?;
    let path = &line[..i];
    if path.contains(&b' ') || (!path.is_empty() && !path.ends_with(b"/")) {
        return None;
    }
    let args = &line[i + b"MIOpenDriver ".len()..];
    let mode_end = memchr::memchr(b' ', args).unwrap_or(args.len());
    let mode = &args[..mode_end];
    if mode.is_empty() || !mode.iter().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some(Event::DriverInvocation(s(args)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(l: &str) -> Option<Event<'_>> {
        parse(l.as_bytes()).or_else(|| parse_driver(l.as_bytes()))
    }

    #[test]
    fn prefix_variants() {
        assert!(strip_prefix(b"MIOpen(HIP): Info [x] y").is_some());
        assert_eq!(
            strip_prefix(b"1234 MIOpen(HIP): Info [x] y"),
            Some(&b"Info [x] y"[..])
        );
        assert_eq!(
            strip_prefix(b"MIOpen(OpenCL)   12.345: Info [x] y"),
            Some(&b"Info [x] y"[..])
        );
        assert_eq!(strip_prefix(b"MIOpen Error: x"), None);
        assert_eq!(strip_prefix(b"12a MIOpen(HIP): x"), None);
    }

    #[test]
    fn selection_lines() {
        assert_eq!(
            p(
                "MIOpen(HIP): Info2 [SetAsFound1_0] Solver ConvBinWinograd3x3U registered as find 1.0 best for miopenConvolutionFwdAlgoWinograd in 64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault"
            ),
            Some(Event::BestForAlgorithm {
                solver: "ConvBinWinograd3x3U".into(),
                algo: "miopenConvolutionFwdAlgoWinograd".into(),
                netcfg: "64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault".into()
            })
        );
        assert_eq!(
            p("MIOpen Forward Conv. Algorithm: 3, Solution: 14/ConvBinWinograd3x3U"),
            Some(Event::DriverSelection {
                direction: "Forward".into(),
                algo: Some(3),
                id: Some(14),
                solver: "ConvBinWinograd3x3U".into()
            })
        );
        assert_eq!(
            p(
                "MIOpen(HIP): Info [EvaluateInvokers] Selected: ConvBinWinogradRxSf2x3: miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1: 0.285466, workspace_sz = 0"
            ),
            Some(Event::Evaluate {
                solver: "ConvBinWinogradRxSf2x3".into(),
                kernels: vec!["miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1".into()],
                time_ms: Some(0.285466),
                selected: true
            })
        );
        assert_eq!(
            p("MIOpen(HIP): Info [EvaluateInvokers] GemmFwdRest: : 6.72696 < 3.40282e+38"),
            Some(Event::Evaluate {
                solver: "GemmFwdRest".into(),
                kernels: vec![],
                time_ms: Some(6.72696),
                selected: false
            })
        );
        assert_eq!(
            p(
                "MIOpen(HIP): Info [FillFindReturnParameters] FW Chosen Algorithm: ConvBinWinograd3x3U , 0, 0.676743"
            ),
            Some(Event::Chosen {
                direction: "FW".into(),
                solver: "ConvBinWinograd3x3U".into(),
                time_ms: Some(0.676743)
            })
        );
    }

    #[test]
    fn enumeration_lines() {
        assert_eq!(
            p(
                "MIOpen(HIP): Info2 [SearchForAllSolutions] ConvMPBidirectWinograd_xdlops<2-3>: Skipped (non-dynamic)"
            ),
            Some(Event::Applicability {
                phase: Phase::Search,
                solver: "ConvMPBidirectWinograd_xdlops<2-3>".into(),
                fate: Applicability::SkippedNonDynamic
            })
        );
        assert_eq!(
            p("MIOpen(HIP): Info2 [GetWorkspaceSizes] GemmFwd1x1_0_1_int8: Not applicable"),
            Some(Event::Applicability {
                phase: Phase::WorkspaceSizes,
                solver: "GemmFwd1x1_0_1_int8".into(),
                fate: Applicability::NotApplicable
            })
        );
        assert_eq!(
            p("MIOpen(HIP): Info [FindSolutionImpl] ConvBinWinograd3x3U (not searchable)"),
            Some(Event::FindSolution {
                solver: "ConvBinWinograd3x3U".into(),
                searchable: Some(false)
            })
        );
        assert_eq!(
            p(
                "MIOpen(HIP): Info [FindSolutionImpl] Perf Db: record not found for: ConvHipImplicitGemmFwdXdlops"
            ),
            Some(Event::PerfDbNotFound("ConvHipImplicitGemmFwdXdlops".into()))
        );
        assert_eq!(
            p(
                "MIOpen(HIP): Error [FindSolutionImpl] Search failed for: ConvOclDirectFwd1x1: /x/invoke_params.hpp:98: Attempt to cast"
            ),
            Some(Event::SolverFailed {
                solver: "ConvOclDirectFwd1x1".into(),
                what: "/x/invoke_params.hpp:98: Attempt to cast".into()
            })
        );
        assert_eq!(
            p(
                "MIOpen(HIP): Info2 [GetSolutionsFallback] id: 85, algo: 1, time: 1000, ws: 0, name: ConvDirectNaiveConvFwd"
            ),
            Some(Event::FallbackSolution {
                solver: "ConvDirectNaiveConvFwd".into(),
                id: Some(85)
            })
        );
        assert_eq!(
            p("- id: 85 algo: 1, time: 14.3143 ms, ws: 0, name: ConvDirectNaiveConvFwd"),
            Some(Event::DriverSolution {
                id: Some(85),
                solver: "ConvDirectNaiveConvFwd".into(),
                time_ms: Some(14.3143)
            })
        );
    }

    #[test]
    fn errors_and_driver_lines() {
        assert_eq!(
            p("MIOpen Error: abyss-hbmx:/usr/src/x/convolutionocl.cpp:1057: The supplied solution id: ConvCkIgemmFwdV6r1DlopsNchw is not applicable to the current problem"),
            Some(Event::Error {
                at: Some("abyss-hbmx:/usr/src/x/convolutionocl.cpp:1057".into()),
                message: "The supplied solution id: ConvCkIgemmFwdV6r1DlopsNchw is not applicable to the current problem".into()
            })
        );
        assert_eq!(
            p("RunForwardGPU() FAILED, rc = 0x7"),
            Some(Event::DriverFailed {
                step: "RunForwardGPU".into(),
                rc: 7
            })
        );
        assert_eq!(
            p("Warning: Solution id (114) is not reported by the library. Trying it anyway..."),
            Some(Event::DriverForcedUnreported(114))
        );
        assert_eq!(
            p("/opt/rocm/bin/MIOpenDriver convint8 -n 32"),
            Some(Event::DriverInvocation("convint8 -n 32".into()))
        );
        assert_eq!(
            p("bash: 1 行: 552371 中止 (コアダンプ) MIOpenDriver convfp16 -n 16"),
            None
        );
        assert_eq!(
            p("15 errors generated when compiling for gfx900."),
            Some(Event::CompileErrors {
                count: 15,
                target: "gfx900".into()
            })
        );
        assert!(matches!(
            p("Forward Convolution Verifies OK on GPU reference (3.71888e-08 < 1.5e-06)"),
            Some(Event::Verification { ok: true, .. })
        ));
        assert!(matches!(
            p("Forward Convolution FAILED: 1.79769e+308 > 1.5e-06"),
            Some(Event::Verification { ok: false, .. })
        ));
        assert_eq!(
            p("MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver conv -n 32 -S 0"),
            Some(Event::Command {
                tag: "LogCmdConvolution".into(),
                args: "conv -n 32 -S 0".into()
            })
        );
    }
}
