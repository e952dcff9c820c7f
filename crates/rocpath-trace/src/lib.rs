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
pub use model::{Boundary, FamilyRecord, KernelRecord, PhaseSplit, TraceRecord};

use model::{Collected, KernelAgg};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// JSON schema name of `rocpath trace --json`.
pub const SCHEMA: &str = "rocpath.trace/1";

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

fn sniff(path: &Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".csv") {
        return Some(Format::Csv);
    }
    if name.ends_with(".json") {
        return Some(Format::Json);
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .ok()?;
    if head[..n].starts_with(b"SQLite format 3\0") {
        return Some(Format::Rocpd);
    }
    None
}

fn walk(dir: &Path, out: &mut Vec<Input>, errors: &mut Vec<String>) {
    let rd = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            errors.push(format!("{}: {e}", dir.display()));
            return;
        }
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out, errors);
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
            sniff(&p).filter(|f| *f == Format::Rocpd)
        } else {
            None
        };
        if let Some(format) = format {
            out.push(Input { path: p, format });
        }
    }
}

/// Finds the trace inputs among files and folders (folders are searched for
/// `*kernel_trace.csv`, `*_results.json` and SQLite `*.db`).
pub fn discover(paths: &[PathBuf]) -> (Vec<Input>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = out.len();
            walk(p, &mut out, &mut errors);
            if out.len() == before {
                errors.push(format!(
                    "{}: no rocprofv3 kernel trace in this folder",
                    p.display()
                ));
            }
        } else {
            match sniff(p) {
                Some(format) => out.push(Input {
                    path: p.clone(),
                    format,
                }),
                None => errors.push(format!(
                    "{}: not a rocprofv3 kernel trace (CSV, JSON or rocpd SQLite)",
                    p.display()
                )),
            }
        }
    }
    (out, errors)
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
pub fn read_input(input: &Input, phase: Option<PhaseRequest>) -> Result<TraceRecord, String> {
    let path = input.path.display().to_string();
    let err = |e: &dyn std::fmt::Display| format!("{path}: {e}");
    let open = || std::fs::File::open(&input.path).map_err(|e| err(&e));
    match input.format {
        Format::Csv => {
            let abs = match phase {
                Some(PhaseRequest::Absolute(b)) => Some(b),
                Some(PhaseRequest::PromptEval(p)) => csv::min_start(open()?)
                    .map_err(|e| err(&e))?
                    .map(|s| s.saturating_add(p)),
                None => None,
            };
            let (mut c, layout) = csv::read(open()?, abs).map_err(|e| err(&e))?;
            if let Some(a) = agent_file(&input.path) {
                if let Ok(f) = std::fs::File::open(&a) {
                    c.agents = csv::agents(f);
                }
            }
            Ok(model::record(&path, layout.format(), c, boundary_of(phase)))
        }
        Format::Json => {
            let bytes = std::fs::read(&input.path).map_err(|e| err(&e))?;
            let (abs, pe) = match phase {
                Some(PhaseRequest::Absolute(b)) => (Some(b), None),
                Some(PhaseRequest::PromptEval(p)) => (None, Some(p)),
                None => (None, None),
            };
            let (c, _) = json::read(&bytes, abs, pe).map_err(|e| err(&e))?;
            Ok(model::record(&path, "json", c, boundary_of(phase)))
        }
        Format::Rocpd => {
            let conn = rocpd::open(&input.path).map_err(|e| err(&e))?;
            let abs = match phase {
                Some(PhaseRequest::Absolute(b)) => Some(b),
                Some(PhaseRequest::PromptEval(p)) => rocpd::min_start(&conn)
                    .map_err(|e| err(&e))?
                    .map(|s| s.saturating_add(p)),
                None => None,
            };
            let c = rocpd::read(&conn, abs).map_err(|e| err(&e))?;
            Ok(model::record(&path, "rocpd", c, boundary_of(phase)))
        }
    }
}

/// All traces together.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Kernel dispatches over all traces.
    pub dispatches: u64,
    /// rocBLAS/Tensile dispatches over all traces.
    pub blas_dispatches: u64,
    /// Families over all traces.
    pub families: Vec<FamilyRecord>,
    /// Kernels over all traces (same name = same kernel).
    pub kernels: Vec<KernelRecord>,
    /// The research workflow's counters over all traces.
    pub research: ResearchCounters,
    /// Evidence for "a kernel dispatch was observed".
    pub evidence: Evidence,
    /// One record per input.
    pub traces: Vec<TraceRecord>,
}

/// Merges the traces' records.
pub fn merge(traces: Vec<TraceRecord>) -> Report {
    let mut by: HashMap<String, usize> = HashMap::new();
    let mut aggs: Vec<(KernelAgg, Locator, String)> = Vec::new();
    let mut research = ResearchCounters::default();
    let split = traces.iter().any(|t| t.phase.is_some());
    for t in &traces {
        research.merge(&t.research);
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
    let mut kernels: Vec<KernelRecord> = aggs
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
    let blas_dispatches = traces.iter().map(TraceRecord::blas_dispatches).sum();
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
    for t in &traces {
        evidence = evidence.at(Locator::file(&t.path));
    }
    Report {
        dispatches,
        blas_dispatches,
        families,
        kernels,
        research,
        evidence,
        traces,
    }
}

impl Collected {
    /// Total duration of all dispatches, ns.
    pub fn total_ns(&self) -> u64 {
        self.kernels.iter().map(|k| k.total_ns).sum()
    }
}
