//! Kernel traces from rocprofv3: which kernels ran on the GPU, how often, for how long, and
//! which library they belong to.
//!
//! Inputs are rocprofv3's three kernel-trace outputs — CSV (`<pid>_kernel_trace.csv`, both
//! column sets, read by header name, streamed), JSON (`<pid>_results.json`) and the rocpd SQLite
//! database (`<pid>_results.db`, aggregated inside SQLite). Each becomes a [`TraceRecord`]:
//! per-kernel dispatch counts, durations and register use, kernel families (ggml MMQ/MMVQ/MMF/
//! flash attention/…, Tensile `Cijk_` with the name decoded, MIOpen, runtime blits), the research
//! workflow's counters, and optionally a prefill/decode split at a boundary.
//!
//! Data flows: input files → readers ([`csv`], [`json`], [`rocpd`]) → [`model::Collected`]
//! (per-kernel aggregates) → [`model::record`] (records with evidence) → renderers.

pub mod csv;
pub mod family;
pub mod ggml;
pub mod json;
pub mod model;
pub mod rocpd;

pub use family::{Family, ResearchCounters};
pub use model::{
    Boundary, FamilyRecord, KernelRecord, PhaseSplit, PhaseStatus, TraceFormat, TraceRecord,
};

use model::{Collected, KernelAgg};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Which reader an input needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `*_kernel_trace.csv`.
    Csv,
    /// `*_results.json`.
    Json,
    /// rocpd SQLite.
    Rocpd,
}

/// An input to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
}

/// The phase split asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseRequest {
    /// Boundary = first dispatch start + this `prompt_eval_duration` (ns).
    PromptEval(u64),
    /// A fixed boundary on the trace's clock (ns).
    Absolute(u64),
}

/// Why an input could not be found or read. Every error names its file or folder
/// ([`InputError::path`]) and, where known, the line ([`InputError::line`]); it displays as
/// `path: message`.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The operating system refused (missing, permissions, I/O).
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A FIFO, device or socket named directly: reading it could block or never end.
    NotRegular {
        /// The path.
        path: PathBuf,
        /// `a FIFO`, `a character device`, …
        what: &'static str,
    },
    /// A folder without any kernel trace.
    NoTraceInFolder {
        /// The folder.
        path: PathBuf,
    },
    /// A file that is none of the three formats.
    NotATrace {
        /// The file.
        path: PathBuf,
    },
    /// A CSV whose header is not a kernel trace's.
    Csv {
        /// The file.
        path: PathBuf,
        /// The error.
        error: csv::CsvError,
    },
    /// A JSON file that is not rocprofv3's document.
    Json {
        /// The file.
        path: PathBuf,
        /// The error, with its line.
        error: json::JsonError,
    },
    /// A SQLite file that is not a rocpd database, or that SQLite cannot read.
    Rocpd {
        /// The file.
        path: PathBuf,
        /// The error.
        error: rocpd::RocpdError,
    },
    /// Not read: the run's `--max-time` had passed.
    Deadline {
        /// The file.
        path: PathBuf,
    },
}

impl InputError {
    /// The file or folder the error is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::NotRegular { path, .. }
            | InputError::NoTraceInFolder { path }
            | InputError::NotATrace { path }
            | InputError::Csv { path, .. }
            | InputError::Json { path, .. }
            | InputError::Rocpd { path, .. }
            | InputError::Deadline { path } => path,
        }
    }

    /// The 1-based line the error is at, when known.
    pub fn line(&self) -> Option<u64> {
        match self {
            InputError::Csv { error, .. } => Some(error.line()),
            InputError::Json { error, .. } => Some(error.line()),
            _ => None,
        }
    }

    /// What went wrong and what to do, without the path.
    pub fn message(&self) -> String {
        match self {
            InputError::Io { error, .. } => error.to_string(),
            InputError::NotRegular { what, .. } => format!(
                "not a regular file ({what}); rocpath reads only regular files — copy the trace to a file"
            ),
            InputError::NoTraceInFolder { .. } => "no rocprofv3 kernel trace in this folder or \
                below (*kernel_trace.csv, *_results.json, SQLite *.db/*.rpd); rocprofv3 writes one \
                with --kernel-trace"
                .to_string(),
            InputError::NotATrace { .. } => "not a rocprofv3 kernel trace (CSV, JSON or rocpd \
                SQLite); give a *_kernel_trace.csv, *_results.json or *_results.db"
                .to_string(),
            InputError::Csv { error, .. } => format!("line {}: {error}", error.line()),
            InputError::Json { error, .. } => error.to_string(),
            InputError::Rocpd { error, .. } => error.to_string(),
            InputError::Deadline { .. } => rocpath_budget::deadline::skipped(),
        }
    }
}

impl From<&InputError> for rocpath_docs::ErrorItem {
    fn from(e: &InputError) -> Self {
        rocpath_docs::ErrorItem::at(e.path().display().to_string(), e.message()).line(e.line())
    }
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.message())
    }
}

use rocpath_budget::non_regular;

/// Opens a file that is known to be regular (checked again: it may have changed).
fn open_regular(path: &Path) -> Result<std::fs::File, InputError> {
    let io = |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    };
    let md = std::fs::metadata(path).map_err(io)?;
    if let Some(what) = non_regular(md.file_type()) {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            what,
        });
    }
    std::fs::File::open(path).map_err(io)
}

fn sniff(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".csv") {
        return Some(Format::Csv);
    }
    if name.ends_with(".json") {
        return Some(Format::Json);
    }
    let mut head = [0u8; 16];
    let n = open_regular(path)
        .ok()
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head).ok())?;
    if head[..n].starts_with(b"SQLite format 3\0") {
        return Some(Format::Rocpd);
    }
    None
}

/// The inputs found, the entries skipped, and the errors.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Traces to read.
    pub inputs: Vec<Input>,
    /// Entries of folders that were skipped, and why (FIFOs, devices, sockets).
    pub notes: Vec<String>,
    /// Paths that could not be used.
    pub errors: Vec<InputError>,
}

fn walk(dir: &Path, fence: &mut rocpath_budget::Fence, out: &mut Discovered) {
    if let Err(refused) = fence.enter(dir) {
        out.notes.push(refused.to_string());
        return;
    }
    let rd = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(error) => {
            out.errors.push(InputError::Io {
                path: dir.to_path_buf(),
                error,
            });
            return;
        }
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let Ok(md) = std::fs::metadata(&p) else {
            continue;
        };
        if md.is_dir() {
            walk(&p, fence, out);
            continue;
        }
        if let Some(what) = non_regular(md.file_type()) {
            out.notes.push(format!(
                "{}: {what}, not a regular file; skipped",
                p.display()
            ));
            continue;
        }
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let format = if name.ends_with("kernel_trace.csv") {
            Some(Format::Csv)
        } else if name.ends_with("_results.json") {
            Some(Format::Json)
        } else if name.ends_with(".db") || name.ends_with(".rpd") {
            Some(Format::Rocpd)
        } else {
            None
        };
        let Some(format) = format else { continue };
        if let Err(refused) = fence.read_once(&p) {
            out.notes.push(refused.to_string());
            continue;
        }
        if format != Format::Rocpd || sniff(&p) == Some(Format::Rocpd) {
            out.inputs.push(Input { path: p, format });
        }
    }
}

/// Finds the trace inputs among files and folders (folders are searched for
/// `*kernel_trace.csv`, `*_results.json` and SQLite `*.db`). Only regular files are inputs: a
/// FIFO, device or socket in a folder is skipped with a note, and named directly is an error
/// (opening a FIFO would wait for a writer). A folder walk stays inside the folder named and
/// enters each folder once: a link that leads out of it, round to a folder walked already, or
/// nowhere is skipped with a note.
pub fn discover(paths: &[PathBuf]) -> Discovered {
    let mut out = Discovered::default();
    for p in paths {
        let md = match std::fs::metadata(p) {
            Ok(m) => m,
            Err(error) => {
                out.errors.push(InputError::Io {
                    path: p.clone(),
                    error,
                });
                continue;
            }
        };
        if md.is_dir() {
            let before = out.inputs.len();
            walk(p, &mut rocpath_budget::Fence::new([p]), &mut out);
            if out.inputs.len() == before {
                out.errors
                    .push(InputError::NoTraceInFolder { path: p.clone() });
            }
        } else if let Some(what) = non_regular(md.file_type()) {
            out.errors.push(InputError::NotRegular {
                path: p.clone(),
                what,
            });
        } else {
            match sniff(p) {
                Some(format) => out.inputs.push(Input {
                    path: p.clone(),
                    format,
                }),
                None => out.errors.push(InputError::NotATrace { path: p.clone() }),
            }
        }
    }
    out
}

fn agent_file(csv: &Path) -> Option<PathBuf> {
    let name = csv.file_name()?.to_string_lossy().to_string();
    let prefix = name.strip_suffix("kernel_trace.csv")?;
    let p = csv.with_file_name(format!("{prefix}agent_info.csv"));
    p.is_file().then_some(p)
}

fn boundary_of(phase: Option<PhaseRequest>) -> Option<Boundary> {
    phase.map(|p| match p {
        PhaseRequest::PromptEval(ns) => Boundary::KernelStartMinPlusPromptEvalDuration {
            prompt_eval_duration_ns: ns,
        },
        PhaseRequest::Absolute(ns) => Boundary::Absolute { boundary_ns: ns },
    })
}

/// Reads one input into its record. Errors are for inputs that cannot be read at all.
pub fn read_input(input: &Input, phase: Option<PhaseRequest>) -> Result<TraceRecord, InputError> {
    if rocpath_budget::deadline::passed() {
        return Err(InputError::Deadline {
            path: input.path.clone(),
        });
    }
    match input.format {
        Format::Csv => read_csv(&input.path, phase),
        Format::Json => read_json(&input.path, phase),
        Format::Rocpd => read_rocpd(&input.path, phase),
    }
}

/// A kernel-trace CSV, streamed (twice for a phase split: first for the earliest start), and
/// the `agent_info.csv` beside it.
fn read_csv(path: &Path, phase: Option<PhaseRequest>) -> Result<TraceRecord, InputError> {
    let err = |error| InputError::Csv {
        path: path.to_path_buf(),
        error,
    };
    let abs = match phase {
        Some(PhaseRequest::Absolute(b)) => Some(b),
        Some(PhaseRequest::PromptEval(p)) => csv::min_start(open_regular(path)?)
            .map_err(err)?
            .map(|s| s.saturating_add(p)),
        None => None,
    };
    let (mut c, layout) = csv::read(open_regular(path)?, abs).map_err(err)?;
    if let Some(a) = agent_file(path) {
        if let Ok(f) = open_regular(&a) {
            c.agents = csv::agents(f);
        }
    }
    let shown = path.display().to_string();
    Ok(model::record(
        &shown,
        layout.format(),
        c,
        boundary_of(phase),
    ))
}

/// Largest rocprofv3 JSON document read (it is parsed whole; CSV and rocpd stream).
pub const MAX_JSON_BYTES: u64 = 1 << 30;

/// A rocprofv3 JSON document, read whole.
fn read_json(path: &Path, phase: Option<PhaseRequest>) -> Result<TraceRecord, InputError> {
    // Parsed whole: the text and what the parse holds (a few times the text) are reserved
    // first, so a document too large for the budget is refused by name, never an abort.
    let budget = rocpath_budget::MemoryBudget::default();
    let (bytes, _text) =
        rocpath_budget::input::read_bytes(path, &budget, MAX_JSON_BYTES, "a rocprofv3 JSON trace")
            .map_err(|e| InputError::Io {
                path: path.to_path_buf(),
                error: e.into_io(),
            })?;
    let _parsed = budget
        .reserve((bytes.len() as u64).saturating_mul(2))
        .map_err(|e| InputError::Io {
            path: path.to_path_buf(),
            error: std::io::Error::other(format!("parsing it {e}")),
        })?;
    let (abs, pe) = match phase {
        Some(PhaseRequest::Absolute(b)) => (Some(b), None),
        Some(PhaseRequest::PromptEval(p)) => (None, Some(p)),
        None => (None, None),
    };
    let (c, _) = json::read(&bytes, abs, pe).map_err(|error| InputError::Json {
        path: path.to_path_buf(),
        error,
    })?;
    let shown = path.display().to_string();
    Ok(model::record(
        &shown,
        TraceFormat::Json,
        c,
        boundary_of(phase),
    ))
}

/// A rocpd SQLite database, aggregated inside SQLite.
fn read_rocpd(path: &Path, phase: Option<PhaseRequest>) -> Result<TraceRecord, InputError> {
    open_regular(path)?;
    let err = |error| InputError::Rocpd {
        path: path.to_path_buf(),
        error,
    };
    let conn = rocpd::open(path).map_err(err)?;
    let abs = match phase {
        Some(PhaseRequest::Absolute(b)) => Some(b),
        Some(PhaseRequest::PromptEval(p)) => rocpd::min_start(&conn)
            .map_err(err)?
            .map(|s| s.saturating_add(p)),
        None => None,
    };
    let c = rocpd::read(&conn, abs).map_err(err)?;
    let shown = path.display().to_string();
    Ok(model::record(
        &shown,
        TraceFormat::Rocpd,
        c,
        boundary_of(phase),
    ))
}

pub use rocpath_docs::trace::{Report, TraceDoc};

/// The `rocpath.trace` document ([`rocpath_docs::schema::TRACE`]): the merged report, notes on
/// what was read, and the inputs that could not be read.
pub fn document(report: Report, notes: Vec<String>, errors: &[InputError]) -> TraceDoc {
    TraceDoc {
        report,
        notes,
        errors: errors.iter().map(Into::into).collect(),
    }
}

/// Merges the traces' records.
pub fn merge(traces: Vec<TraceRecord>) -> Report {
    let mut research = ResearchCounters::default();
    for t in &traces {
        research.merge(&t.research);
    }
    let split = traces.iter().any(|t| t.phase.is_some());
    let mut kernels: Vec<KernelRecord> = merged_kernels(&traces)
        .iter()
        .flat_map(|(a, loc, gpu)| {
            let mut r = model::kernel_records(
                &loc.path,
                std::slice::from_ref(a),
                split,
                Some(gpu.as_str()).filter(|g| !g.is_empty()),
            );
            for k in &mut r {
                k.evidence.sources = vec![loc.clone()];
            }
            r
        })
        .collect();
    kernels.sort_by(|a, b| {
        b.dispatches
            .cmp(&a.dispatches)
            .then_with(|| a.name.cmp(&b.name))
    });
    let first = traces.first().map(|t| t.path.clone()).unwrap_or_default();
    let families = model::family_records(&first, &kernels, split);
    let dispatches: u64 = traces.iter().map(|t| t.dispatches).sum();
    Report {
        dispatches,
        blas_dispatches: traces.iter().map(TraceRecord::blas_dispatches).sum(),
        families,
        kernels,
        research,
        evidence: dispatch_evidence(&traces, dispatches),
        traces,
    }
}

/// The kernels of all traces, one per name, in order of first appearance: each with the
/// place and GPU of its first appearance.
fn merged_kernels(traces: &[TraceRecord]) -> Vec<(KernelAgg, Locator, String)> {
    let mut by: HashMap<String, usize> = HashMap::new();
    let mut aggs: Vec<(KernelAgg, Locator, String)> = Vec::new();
    for t in traces {
        for k in &t.kernels {
            let mut a = KernelAgg::new(k.name.clone());
            a.dispatches = k.dispatches;
            a.total_ns = k.total_ns;
            a.min_ns = k.min_ns;
            a.max_ns = k.max_ns;
            a.prefill = k.prefill_dispatches.unwrap_or(0);
            a.decode = k.decode_dispatches.unwrap_or(0);
            a.resources = k.resources;
            match by.get(&k.name) {
                Some(&i) => {
                    if let Some(e) = aggs.get_mut(i) {
                        e.0.merge(&a);
                    }
                }
                None => {
                    by.insert(k.name.clone(), aggs.len());
                    let loc = k
                        .evidence
                        .sources
                        .first()
                        .cloned()
                        .unwrap_or_else(|| Locator::file(&t.path));
                    let gpu = t.gpus().first().map(|s| s.to_string()).unwrap_or_default();
                    aggs.push((a, loc, gpu));
                }
            }
        }
    }
    aggs
}

/// "A kernel dispatch was observed", at every trace.
fn dispatch_evidence(traces: &[TraceRecord], dispatches: u64) -> Evidence {
    let mut evidence = if dispatches > 0 {
        Evidence::new(
            Class::Confirmed,
            Proof::RuntimeVerified,
            "trace.dispatch_observed",
        )
        .because(format!(
            "{dispatches} kernel dispatch(es) in {} trace(s)",
            traces.len()
        ))
    } else {
        Evidence::new(
            Class::Unresolved,
            Proof::RuntimeVerified,
            "trace.kernel_trace_empty",
        )
        .because("no kernel dispatch in any trace")
    };
    for t in traces {
        evidence = evidence.at(Locator::file(&t.path));
    }
    evidence
}

impl Collected {
    /// Total duration of all dispatches, ns.
    pub fn total_ns(&self) -> u64 {
        self.kernels.iter().map(|k| k.total_ns).sum()
    }
}
