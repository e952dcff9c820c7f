//! `hipblasLtMatmulAlgoGetHeuristic` as hipBLASLt 7.1.1 answers it
//! (`rocblaslt_auxiliary.cpp` `rocblaslt_matmul_algo_get_heuristic`, index id 12068469337, chars
//! ~58000-64500; `tensile_host.cpp` `getBestSolutions` and `getAllSolutions`, @003add59, chars
//! ~150500-163000):
//!
//! 1. `getBestSolutions`: the problem as `updateTensileProblem` builds it, then
//!    `findTopSolutions(problem, hardware, requested)`; when it finds nothing for an XF32 problem,
//!    `F32XdlMathOp` is set back to `Float` and the search runs again ("no xf32 solutions found,
//!    try to fallback fp32"); the first `min(requested, found)` are returned, in order.
//! 2. When fewer than requested came back: `getAllSolutions` — `findAllSolutions(GEMM_TYPE_ONLY)`
//!    (again retried as FP32 when XF32 found none), a `std::set` of solution pointers, so in the
//!    order the solutions happen to lie in memory — and each one not already returned that
//!    `isSolutionSupported` accepts (the preference's workspace) is appended until there are
//!    enough.
//!
//! Step 2's order is not a property of the catalogs: when the table gives nothing and two or
//! more solutions qualify, the first returned is run-dependent, and the model says so
//! ([`Rank0::Unresolved`]) rather than pick one. When one or none qualifies it is determined.
//!
//! TensileLite also caches the first `findTopSolutions` answer per problem in each process
//! (`CachingLibrary.hpp:252-284`) and returns it for later queries of the same problem whatever
//! their count: the model answers as a fresh process does.

use super::library::LiteLibrary;
use super::problem::{Built, ComputeType, Matmul, build};
use super::select::{LiteWalk, Pick};
use crate::device::Device;
use crate::trace::Trace;
use rocpath_tensile::catalog::DataType;

/// What the fill-in added, or why it was not needed.
#[derive(Debug, Clone)]
pub enum FillIn {
    /// The table gave all that was asked.
    NotNeeded,
    /// Solutions of the problem's type that `isSolutionSupported` accepts, not already
    /// returned, without their order (`slots`: how many of them hipBLASLt appends).
    Candidates {
        /// Places left to fill.
        slots: usize,
        /// The candidates (in index order here; hipBLASLt's is memory order).
        picks: Vec<Pick>,
    },
    /// The fill-in could not be decided.
    Unresolved(String),
}

/// The first solution returned.
#[derive(Debug, Clone)]
pub enum Rank0 {
    /// From the tuned table.
    Table(Pick),
    /// The only solution the fill-in could add.
    FillIn(Pick),
    /// No solution: hipBLASLt returns zero algorithms.
    None,
    /// The model cannot say (why).
    Unresolved(String),
}

/// The answer to one heuristic query.
#[derive(Debug, Clone)]
pub struct Heuristic {
    /// The problem hipBLASLt built.
    pub built: Built,
    /// `findTopSolutions`' answer, in order (at most `requested`).
    pub table: Vec<Pick>,
    /// The XF32 → FP32 retry ran.
    pub xf32_retry: bool,
    /// Why the table search could not be decided, when it could not.
    pub table_unresolved: Option<String>,
    /// The fill-in.
    pub fill: FillIn,
    /// The table walk, step by step, when asked for.
    pub trace: Option<Trace>,
    /// Solutions asked for.
    pub requested: usize,
}

impl Heuristic {
    /// The first solution returned.
    pub fn rank0(&self) -> Rank0 {
        if let Some(w) = &self.table_unresolved {
            return Rank0::Unresolved(w.clone());
        }
        if let Some(p) = self.table.first() {
            return Rank0::Table(p.clone());
        }
        match &self.fill {
            FillIn::NotNeeded => Rank0::None,
            FillIn::Unresolved(w) => Rank0::Unresolved(w.clone()),
            FillIn::Candidates { picks, .. } => match picks.as_slice() {
                [] => Rank0::None,
                [one] => Rank0::FillIn(one.clone()),
                many => Rank0::Unresolved(format!(
                    "the tuned table has no solution for this problem; hipBLASLt fills in from findAllSolutions(GEMM_TYPE_ONLY), and the first solution is taken from an address-ordered set: run-dependent ({} candidates, indices {})",
                    many.len(),
                    index_list(many)
                )),
            },
        }
    }

    /// The solutions returned rank by rank as far as they are determined: the table's, then the
    /// fill-in's when it adds every candidate and there is one (`None` after the first rank
    /// that is run-dependent).
    pub fn determined_ranks(&self) -> Vec<Pick> {
        let mut v = self.table.clone();
        if let FillIn::Candidates { slots, picks } = &self.fill {
            if picks.len() == 1 && *slots >= 1 {
                v.push(picks[0].clone());
            }
        }
        v
    }
}

fn index_list(p: &[Pick]) -> String {
    let mut v: Vec<i64> = p.iter().map(Pick::index).collect();
    v.sort_unstable();
    let shown: Vec<String> = v.iter().take(8).map(|i| i.to_string()).collect();
    if v.len() > 8 {
        format!("{}, …", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Answers the heuristic query for `m` on `dev`; `trace` records the table walk.
pub fn heuristic(
    lib: &LiteLibrary,
    dev: &Device,
    m: &Matmul,
    trace: bool,
) -> Result<Heuristic, String> {
    let built = build(m)?;
    let requested = m.requested.max(1);
    let problem = built.problem.clone();
    let mut out = Heuristic {
        built,
        table: Vec::new(),
        xf32_retry: false,
        table_unresolved: None,
        fill: FillIn::NotNeeded,
        trace: None,
        requested,
    };
    // getBestSolutions: findTopSolutions, then the XF32 → FP32 retry.
    let mut w = LiteWalk::new(lib, dev, &problem, trace);
    let first = w.top_solutions(requested);
    let mut trace_out = w.trace.take();
    let mut result = first;
    if matches!(&result, Ok(v) if v.is_empty()) && m.compute == ComputeType::Xf32 {
        out.xf32_retry = true;
        let mut q = problem.clone();
        q.f32_xdl = DataType::Float;
        let mut w2 = LiteWalk::new(lib, dev, &q, trace);
        result = w2.top_solutions(requested);
        if let (Some(t), Some(t2)) = (trace_out.as_mut(), w2.trace.take()) {
            t.steps.extend(t2.steps);
        }
    }
    out.trace = trace_out;
    match result {
        Ok(mut v) => {
            v.truncate(requested);
            out.table = v;
        }
        Err(e) => {
            out.table_unresolved = Some(e);
            return Ok(out);
        }
    }
    if out.table.len() < requested {
        out.fill = fill_in(lib, dev, &out);
    }
    Ok(out)
}

/// The fill-in: `getAllSolutions` on `ConstructTensileProblem(prob)` (the same values here), the
/// XF32 retry, then `isSolutionSupported` with the descriptor's problem as `updateTensileProblem`
/// leaves it (its F32XdlMathOp set again from the compute type) for each candidate.
fn fill_in(lib: &LiteLibrary, dev: &Device, h: &Heuristic) -> FillIn {
    let base = &h.built.problem;
    // What the GEMM_TYPE_ONLY search reads: the device's rows, the operation, isGemmTypeSame.
    let key = format!(
        "{}/{}/{}/{:?}/{:?}/{}",
        super::eval::processor_of(dev),
        dev.cu_count,
        base.operation,
        base.types,
        base.compute,
        base.grouped_gemm
    );
    let set = lib.gemm_type_set(key, || {
        let mut w = LiteWalk::new(lib, dev, base, false);
        let all = w.all_of_gemm_type()?;
        if all.is_empty() && base.f32_xdl == DataType::XFloat32 {
            // isGemmTypeSame does not read F32XdlMathOp: the FP32 retry finds the same set.
            let mut q = base.clone();
            q.f32_xdl = DataType::Float;
            return LiteWalk::new(lib, dev, &q, false).all_of_gemm_type();
        }
        Ok(all)
    });
    let all = match set.as_ref() {
        Ok(v) => v.clone(),
        Err(e) => return FillIn::Unresolved(e.clone()),
    };
    // getAllSolutions keeps one result per index; the returned ones are skipped.
    let mut picks: Vec<Pick> = Vec::new();
    for p in all {
        let idx = p.index();
        if picks.iter().any(|q| q.index() == idx) || h.table.iter().any(|q| q.index() == idx) {
            continue;
        }
        // isSolutionSupported runs on the descriptor's problem, rebuilt by updateTensileProblem.
        let mut ws = LiteWalk::new(lib, dev, base, false);
        match ws.supported(&p) {
            Ok(true) => picks.push(p),
            Ok(false) => {}
            Err(e) => return FillIn::Unresolved(e),
        }
    }
    picks.sort_by_key(Pick::index);
    FillIn::Candidates {
        slots: h.requested - h.table.len(),
        picks,
    }
}
