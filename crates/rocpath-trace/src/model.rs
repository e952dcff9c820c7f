//! Observations: per-kernel aggregates, families, the phase split and one trace's report.

use crate::family::{self, Family, ResearchCounters};
use rocpath_docs::ErrorItem;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::{BTreeMap, HashMap};

pub use rocpath_docs::trace::{
    Agent, Boundary, FamilyRecord, Instructions, KernelRecord, Library, PhaseSplit, PhaseStatus,
    Resources, TensileInfo, TraceFormat, TraceRecord,
};

/// Where the first dispatch of a kernel is in the input.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct At {
    /// 1-based line (CSV).
    pub line: Option<u64>,
    /// Container member (`rocpd_kernel_dispatch id=7`, `buffer_records.kernel_dispatch[3]`).
    pub member: String,
}

/// Running totals for one kernel name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelAgg {
    /// Kernel name as the trace gives it.
    pub name: String,
    /// Dispatches.
    pub dispatches: u64,
    /// Sum of durations, ns.
    pub total_ns: u64,
    /// Shortest dispatch, ns.
    pub min_ns: u64,
    /// Longest dispatch, ns.
    pub max_ns: u64,
    /// Dispatches that started at or before the phase boundary.
    pub prefill: u64,
    /// Dispatches that started after it.
    pub decode: u64,
    /// Resources.
    pub resources: Resources,
    /// The agent of the first dispatch.
    pub agent: Option<String>,
    /// Where the first dispatch is.
    pub first: At,
}

impl KernelAgg {
    /// An empty aggregate for `name`.
    pub fn new(name: String) -> Self {
        KernelAgg {
            name,
            dispatches: 0,
            total_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            prefill: 0,
            decode: 0,
            resources: Resources::default(),
            agent: None,
            first: At::default(),
        }
    }

    /// Adds one dispatch.
    #[inline]
    pub fn add(&mut self, start: u64, end: u64, boundary: Option<u64>) {
        let d = end.saturating_sub(start);
        self.dispatches += 1;
        self.total_ns = self.total_ns.saturating_add(d);
        self.min_ns = self.min_ns.min(d);
        self.max_ns = self.max_ns.max(d);
        if let Some(b) = boundary {
            if start <= b {
                self.prefill += 1;
            } else {
                self.decode += 1;
            }
        }
    }

    /// Adds another aggregate of the same kernel.
    pub fn merge(&mut self, o: &KernelAgg) {
        self.dispatches += o.dispatches;
        self.total_ns = self.total_ns.saturating_add(o.total_ns);
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
        self.prefill += o.prefill;
        self.decode += o.decode;
        self.resources.merge(&o.resources);
        if self.agent.is_none() {
            self.agent.clone_from(&o.agent);
        }
    }
}

/// What a reader collected from one input.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    /// Per kernel name, in order of first appearance.
    pub kernels: Vec<KernelAgg>,
    /// Rows read that were dispatches.
    pub dispatches: u64,
    /// Rows that were not kernel dispatches (other kinds) or could not be read.
    pub skipped_rows: u64,
    /// Earliest dispatch start, ns.
    pub first_start_ns: Option<u64>,
    /// Latest dispatch end, ns.
    pub last_end_ns: Option<u64>,
    /// Agents of the trace.
    pub agents: Vec<Agent>,
    /// Rows or records that could not be read (first 100).
    pub errors: Vec<ErrorItem>,
}

/// Most distinct kernel names a trace keeps (real traces have hundreds to a few thousand).
/// Each kept kernel costs about 3 KB through to the report (its evidence, its JSON), so the
/// bound holds a hostile trace to a few hundred MB.
pub const MAX_KERNELS: usize = 1 << 16;

/// Agents kept from one trace (`agent_info.csv`, `rocpd_info_agent`): a machine has a few.
pub const MAX_AGENTS: usize = 1024;

/// Longest kernel name kept (longer ones are cut; Tensile names reach about 700 bytes).
pub const MAX_NAME: usize = 4096;

/// The entry that stands for the kernels past [`MAX_KERNELS`].
pub const OVERFLOW: &str =
    "(more distinct kernel names than rocpath keeps: the rest are counted here)";

fn cut_name(name: &str) -> &str {
    if name.len() <= MAX_NAME {
        return name;
    }
    let mut end = MAX_NAME;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// Aggregates dispatches by kernel name.
#[derive(Debug, Default)]
pub struct Aggregator {
    by_name: HashMap<Box<str>, usize>,
    /// Collected so far.
    pub out: Collected,
    /// Phase boundary (absolute ns), if a split is made.
    pub boundary: Option<u64>,
}

impl Aggregator {
    /// A new aggregator with an optional absolute phase boundary.
    pub fn new(boundary: Option<u64>) -> Self {
        Aggregator {
            boundary,
            ..Aggregator::default()
        }
    }

    /// The index of a kernel, created on first sight (`first` says where). Names are cut at
    /// [`MAX_NAME`] bytes; past [`MAX_KERNELS`] distinct names, further ones share one entry
    /// that says so (a trace of millions of distinct names is bounded, not held).
    pub fn index(&mut self, name: &str, first: impl FnOnce() -> At) -> usize {
        let name = cut_name(name);
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let name = if self.out.kernels.len() >= MAX_KERNELS {
            OVERFLOW
        } else {
            name
        };
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let i = self.out.kernels.len();
        let mut k = KernelAgg::new(name.to_string());
        k.first = first();
        self.out.kernels.push(k);
        self.by_name.insert(name.into(), i);
        i
    }

    /// Adds a dispatch of kernel `i`.
    #[inline]
    pub fn add(&mut self, i: usize, start: u64, end: u64) {
        self.out.dispatches += 1;
        self.out.first_start_ns = Some(self.out.first_start_ns.map_or(start, |s| s.min(start)));
        self.out.last_end_ns = Some(self.out.last_end_ns.map_or(end, |s| s.max(end)));
        if let Some(k) = self.out.kernels.get_mut(i) {
            k.add(start, end, self.boundary);
        }
    }

    /// Records an unreadable row (the first 100 are kept).
    pub fn error(&mut self, at: u64, message: String) {
        self.out.skipped_rows += 1;
        if self.out.errors.len() < 100 {
            self.out.errors.push(ErrorItem::new(message).line(Some(at)));
        }
    }
}

/// Matrix-instruction kind for a GPU processor: `mfma` on CDNA (gfx908, gfx90a, gfx94x,
/// gfx95x), `wmma` on RDNA3/4 (gfx11xx, gfx12xx).
pub fn matrix_kind(gfx: &str) -> Option<Instructions> {
    let p = gfx.split(':').next().unwrap_or(gfx);
    if p.starts_with("gfx11") || p.starts_with("gfx12") {
        Some(Instructions::Wmma)
    } else if matches!(p, "gfx908" | "gfx90a") || p.starts_with("gfx94") || p.starts_with("gfx95") {
        Some(Instructions::Mfma)
    } else {
        None
    }
}

fn tensile_info(name: &str, gpu: Option<&str>) -> Option<TensileInfo> {
    let k = rocpath_logs::tensile::decode(name)?;
    let instructions = if k.matrix_instruction.is_some() {
        gpu.and_then(matrix_kind)
            .unwrap_or(Instructions::MatrixInstruction)
    } else {
        Instructions::Valu
    };
    let isa = k.params.get("ISA").cloned();
    Some(TensileInfo {
        name: k,
        instructions,
        isa,
    })
}

fn locator(path: &str, at: &At) -> Locator {
    let mut l = Locator::file(path).with_member(at.member.clone());
    if let Some(line) = at.line {
        l = l.with_line(line);
    }
    l
}

/// Builds kernel records from aggregates (most dispatched first, then by name).
pub fn kernel_records(
    path: &str,
    kernels: &[KernelAgg],
    split: bool,
    gpu: Option<&str>,
) -> Vec<KernelRecord> {
    let mut out: Vec<KernelRecord> = kernels
        .iter()
        .filter(|k| k.dispatches > 0)
        .map(|k| {
            let rule = family::rule_for(&k.name);
            let fam = rule.map_or(Family::Other, |r| r.family);
            let ev = Evidence::new(
                Class::Confirmed,
                Proof::RuntimeVerified,
                "trace.kernel_dispatched",
            )
            .at(locator(path, &k.first))
            .because(match rule {
                Some(r) => format!("family {fam} by name ({})", r.source),
                None => format!("family {fam}: no naming rule matched"),
            });
            KernelRecord {
                name: k.name.clone(),
                family: fam,
                library: fam.library(),
                dispatches: k.dispatches,
                total_ns: k.total_ns,
                mean_ns: k.total_ns / k.dispatches.max(1),
                min_ns: if k.min_ns == u64::MAX { 0 } else { k.min_ns },
                max_ns: k.max_ns,
                resources: k.resources,
                prefill_dispatches: split.then_some(k.prefill),
                decode_dispatches: split.then_some(k.decode),
                tensile: if fam == Family::TensileCijk {
                    tensile_info(&k.name, gpu)
                } else {
                    None
                },
                ggml: if fam.library() == Library::Ggml {
                    crate::ggml::decode(&k.name)
                } else {
                    None
                },
                evidence: ev,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.dispatches
            .cmp(&a.dispatches)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// Sums kernel records into families (in [`Family::ALL`] order, only those seen).
pub fn family_records(path: &str, kernels: &[KernelRecord], split: bool) -> Vec<FamilyRecord> {
    /// kernels, dispatches, total ns, prefill, decode, first place.
    type Sums = (u64, u64, u64, u64, u64, Option<Locator>);
    let mut by: BTreeMap<Family, Sums> = BTreeMap::new();
    for k in kernels {
        let e = by.entry(k.family).or_default();
        e.0 += 1;
        e.1 += k.dispatches;
        e.2 = e.2.saturating_add(k.total_ns);
        e.3 += k.prefill_dispatches.unwrap_or(0);
        e.4 += k.decode_dispatches.unwrap_or(0);
        if e.5.is_none() {
            e.5 = k.evidence.sources.first().cloned();
        }
    }
    by.into_iter()
        .map(|(f, (n, d, t, p, dd, loc))| {
            let mut ev = Evidence::new(
                Class::Confirmed,
                Proof::RuntimeVerified,
                "trace.family_by_name",
            )
            .because(format!(
                "{n} kernel(s) named as {} kernels dispatched {d} times",
                f.library()
            ));
            ev = ev.at(loc.unwrap_or_else(|| Locator::file(path)));
            FamilyRecord {
                family: f,
                library: f.library(),
                kernels: n,
                dispatches: d,
                total_ns: t,
                prefill_dispatches: split.then_some(p),
                decode_dispatches: split.then_some(dd),
                evidence: ev,
            }
        })
        .collect()
}

/// The phase split of a trace, from its aggregates.
pub fn phase_split(
    path: &str,
    boundary: Boundary,
    c: &Collected,
    kernels: &[KernelRecord],
) -> PhaseSplit {
    let boundary_ns = match boundary {
        Boundary::Absolute { boundary_ns } => Some(boundary_ns),
        Boundary::KernelStartMinPlusPromptEvalDuration {
            prompt_eval_duration_ns,
        } => c
            .first_start_ns
            .map(|s| s.saturating_add(prompt_eval_duration_ns)),
    };
    let sum = |f: &dyn Fn(&KernelRecord) -> Option<u64>, blas: bool| -> u64 {
        kernels
            .iter()
            .filter(|k| !blas || k.family.is_blas())
            .filter_map(f)
            .sum()
    };
    let prefill = sum(&|k| k.prefill_dispatches, false);
    let decode = sum(&|k| k.decode_dispatches, false);
    let pb = sum(&|k| k.prefill_dispatches, true);
    let db = sum(&|k| k.decode_dispatches, true);
    let (status, ev) = if c.dispatches == 0 {
        (
            PhaseStatus::KernelTraceEmpty,
            Evidence::new(
                Class::Unresolved,
                Proof::RuntimeVerified,
                "trace.phase.kernel_trace_empty",
            )
            .because("no dispatch in the trace: the phase cannot be observed"),
        )
    } else if db > 0 {
        (
            PhaseStatus::DecodeSignatureDetected,
            Evidence::new(Class::Inferred, Proof::Hypothesis, "trace.phase.proxy").because(format!(
                "{db} rocBLAS/Tensile dispatch(es) start after the boundary; the boundary is a proxy, not a marker the runtime printed"
            )),
        )
    } else {
        (
            PhaseStatus::PrefillDominantSignature,
            Evidence::new(Class::Inferred, Proof::Hypothesis, "trace.phase.proxy").because(
                "no rocBLAS/Tensile dispatch after the boundary; the boundary is a proxy, not a marker the runtime printed",
            ),
        )
    };
    PhaseSplit {
        boundary,
        boundary_ns,
        prefill_dispatches: prefill,
        decode_dispatches: decode,
        prefill_blas_dispatches: pb,
        decode_blas_dispatches: db,
        status,
        evidence: ev.at(Locator::file(path)),
    }
}

/// Turns what a reader collected into the trace's report.
pub fn record(
    path: &str,
    format: TraceFormat,
    c: Collected,
    boundary: Option<Boundary>,
) -> TraceRecord {
    let gpu = c
        .agents
        .iter()
        .find(|a| a.kind.eq_ignore_ascii_case("gpu"))
        .map(|a| a.name.clone());
    let split = boundary.is_some();
    let kernels = kernel_records(path, &c.kernels, split, gpu.as_deref());
    let families = family_records(path, &kernels, split);
    let mut research = ResearchCounters::default();
    for k in &kernels {
        family::count(&mut research, &k.name, k.dispatches);
    }
    let phase = boundary.map(|b| phase_split(path, b, &c, &kernels));
    let evidence = if c.dispatches > 0 {
        Evidence::new(
            Class::Confirmed,
            Proof::RuntimeVerified,
            "trace.dispatch_observed",
        )
        .at(Locator::file(path))
        .because(format!(
            "{} kernel dispatch(es) recorded by rocprofv3",
            c.dispatches
        ))
    } else {
        Evidence::new(Class::Unresolved, Proof::RuntimeVerified, "trace.kernel_trace_empty")
            .at(Locator::file(path))
            .because("the trace holds no kernel dispatch: nothing ran on the GPU while it was recorded, or the profiler did not see it")
    };
    TraceRecord {
        path: path.to_string(),
        format,
        agents: c.agents,
        dispatches: c.dispatches,
        skipped_rows: c.skipped_rows,
        first_start_ns: c.first_start_ns,
        last_end_ns: c.last_end_ns,
        research,
        families,
        kernels,
        phase,
        evidence,
        errors: c.errors,
    }
}

#[cfg(test)]
mod bound_tests {
    use super::*;

    #[test]
    fn distinct_names_past_the_bound_share_one_entry() {
        let mut a = Aggregator::new(None);
        for i in 0..(MAX_KERNELS + 10) {
            a.index(&format!("k{i}"), At::default);
        }
        assert_eq!(a.out.kernels.len(), MAX_KERNELS + 1);
        assert_eq!(a.out.kernels[MAX_KERNELS].name, OVERFLOW);
        let long = "x".repeat(MAX_NAME * 2);
        let i = a.index(&long, At::default);
        assert_eq!(a.out.kernels[i].name, OVERFLOW);
        let mut b = Aggregator::new(None);
        let j = b.index(&long, At::default);
        assert_eq!(b.out.kernels[j].name.len(), MAX_NAME);
    }
}
