//! Predicates evaluated on a problem and a device, as the host library evaluates them:
//! `And`/`Or` short-circuit in order (`Predicates.hpp` `std::all_of`/`std::any_of`), leaves read
//! the problem exactly as `ContractionProblemPredicates.hpp`, `AMDGPUPredicates.hpp` and
//! `TaskPredicates.hpp` (ROCm/Tensile@be49885f) do, `size_t` arithmetic wrapping included.
//!
//! A leaf this model does not know is [`Tri::Unknown`] with its name: the host library would
//! refuse the file that holds it, so nothing is guessed.

use crate::device::Device;
use crate::problem::{Metric, Op, Problem};
use rocpath_tensile::catalog::{
    DataType, GpuLeaf, HwLeaf, Pred, ProblemLeaf, ScalarValue, Solution, TaskLeaf,
};

/// The outcome of a predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Tri<'a, L> {
    /// It holds.
    Holds,
    /// It fails; the first leaf that failed (none for `FalsePred`, an empty `Or`, a `Not`).
    Fails(Option<&'a L>),
    /// It cannot be evaluated (why).
    Unknown(String),
}

impl<L> Tri<'_, L> {
    /// True when it holds.
    pub fn holds(&self) -> bool {
        matches!(self, Tri::Holds)
    }
}

/// Evaluates `p`, leaves by `leaf` (`Ok(bool)` or `Err(why unknown)`).
pub fn eval<'a, L>(p: &'a Pred<L>, leaf: &impl Fn(&'a L) -> Result<bool, String>) -> Tri<'a, L> {
    match p {
        Pred::True => Tri::Holds,
        Pred::False => Tri::Fails(None),
        Pred::And(v) => {
            for q in v {
                match eval(q, leaf) {
                    Tri::Holds => {}
                    other => return other,
                }
            }
            Tri::Holds
        }
        Pred::Or(v) => {
            let mut first = None;
            for q in v {
                match eval(q, leaf) {
                    Tri::Holds => return Tri::Holds,
                    Tri::Unknown(w) => return Tri::Unknown(w),
                    f @ Tri::Fails(_) => first = first.or(Some(f)),
                }
            }
            first.unwrap_or(Tri::Fails(None))
        }
        Pred::Not(q) => match eval(q, leaf) {
            Tri::Holds => Tri::Fails(None),
            Tri::Fails(_) => Tri::Holds,
            u @ Tri::Unknown(_) => u,
        },
        Pred::Leaf(l) => match leaf(l) {
            Ok(true) => Tri::Holds,
            Ok(false) => Tri::Fails(Some(l)),
            Err(w) => Tri::Unknown(w),
        },
    }
}

/// A hardware leaf on `dev`.
pub fn hw_leaf(l: &HwLeaf, dev: &Device) -> Result<bool, String> {
    match l {
        HwLeaf::Amdgpu(inner) => match eval(inner, &|g| gpu_leaf(g, dev)) {
            Tri::Holds => Ok(true),
            Tri::Fails(_) => Ok(false),
            Tri::Unknown(w) => Err(w),
        },
        HwLeaf::Unknown(n) => Err(format!("hardware predicate `{n}`")),
    }
}

fn gpu_leaf(l: &GpuLeaf, dev: &Device) -> Result<bool, String> {
    Ok(match l {
        GpuLeaf::Processor(p) => {
            if !crate::device::is_tensile_processor(p) {
                return Err(format!("processor `{p}` unknown to this Tensile version"));
            }
            dev.tensile_processor() == Some(p.as_str())
        }
        GpuLeaf::CuCount(n) => i64::from(dev.cu_count) == *n,
        GpuLeaf::IsApu(v) => i64::from(dev.is_apu) == *v,
        GpuLeaf::TargetProcessor(p) => dev.runs_kernel_targeting(p),
        GpuLeaf::Unknown(n) => return Err(format!("GPU predicate `{n}`")),
    })
}

/// A problem leaf on `p`.
pub fn problem_leaf(l: &ProblemLeaf, p: &Problem) -> Result<bool, String> {
    use ProblemLeaf as L;
    let size = |i: u64| {
        p.size(i)
            .ok_or_else(|| format!("size index {i} of a 4-index problem"))
    };
    let g = &p.gemm;
    Ok(match l {
        // transposeC01 is false for the problems rocBLAS builds: free 0 is A's.
        L::Free0SizeMultiple { index, value } => free(p, *index, true)?.is_multiple_of(nz(*value)?),
        L::Free1SizeMultiple { index, value } => {
            free(p, *index, false)?.is_multiple_of(nz(*value)?)
        }
        L::BatchSizeMultiple { index, value } => batch(p, *index)?.is_multiple_of(nz(*value)?),
        L::BatchSizeEqual { index, value } => batch(p, *index)? == *value,
        L::BoundSizeMultiple { index, value } => {
            if *index != 0 && *index != -1 {
                return Err(format!("bound index {index} of a 1-bound problem"));
            }
            p.bound_size().is_multiple_of(nz(*value)?)
        }
        L::ProblemSizeEqual { index, value } => size(*index)? == *value,
        L::MaxProblemSizeGreaterThan(v) => p.max_problem_size() > *v,
        L::LeadingFree0SizesGreaterOrEqual(v) => p.free_size_a() >= *v,
        L::LeadingFree1SizesGreaterOrEqual(v) => p.free_size_b() >= *v,
        L::SizeEqual { index, value } => size(*index)? == *value,
        L::SizeGreaterThan { index, value } => size(*index)? > *value,
        L::SizeLessThan { index, value } => size(*index)? < *value,
        L::SizeMultiple { index, value } => size(*index)?.is_multiple_of(nz(*value)?),
        L::SizeInRange { index, min, max } => {
            let s = size(*index)?;
            s >= *min && s < *max
        }
        L::StrideEqual {
            tensor,
            index,
            value,
        } => stride(p, *tensor, *index)? == *value,
        L::LdcEqualsLdd => p.strides[2][1] == p.strides[3][1],
        L::CEqualsD => p.modes.c_equals_d,
        L::AiGreaterThanEqual(v) => p.arithmetic_intensity >= v.0,
        L::AiLessThanEqual(v) => p.arithmetic_intensity <= v.0,
        L::AlphaValue(v) => g.alpha == *v || *v == ScalarValue::Any,
        L::BetaValue(v) => p.beta_restriction() == *v || *v == ScalarValue::Any,
        L::BetaZero => g.beta == 0.0,
        L::BetaOne => g.beta == 1.0,
        L::HighPrecisionAccumulate(v) => p.hpa == *v,
        // The problem's kernel language is always `Any`, so every value is compatible.
        L::KernelLanguageCompatible(_) => true,
        L::DeterministicMode(v) => p.modes.deterministic == *v,
        L::ArithmeticUnitCompatible(v) => !p.modes.force_valu || v == "VALU",
        L::TypesEqual(t) => g.types == *t,
        L::OperationIdentifierEqual(v) => p.operation == *v,
        L::BufferLoadOffsetLimitCheck(c) => {
            const TWO_POW_32: u64 = 1 << 32;
            let a = p.strides[0][1]
                .wrapping_mul(c.du_or_mt0)
                .wrapping_add(c.shift_a)
                .wrapping_mul(g.types[0].bytes());
            let b = p.strides[1][1]
                .wrapping_mul(c.du_or_mt1)
                .wrapping_add(c.shift_b)
                .wrapping_mul(g.types[1].bytes());
            a < TWO_POW_32 && b < TWO_POW_32
        }
        L::BufferStoreOffsetLimitCheck(v) => {
            p.strides[3][1]
                .wrapping_mul(g.types[3].bytes())
                .wrapping_mul(*v)
                < 1 << 32
        }
        // `checkPersistentKernelEligibility` is never called, so the default (true) stands.
        L::PersistentKernelCheck => true,
        L::GlobalSplitUCheckMinK(v) => p.bound_size() >= *v,
        L::CdStridesEqual => p.strides[2] == p.strides[3],
        L::StridedBatched(v) => p.modes.strided_batched == *v,
        L::CuEfficiency => match p.modes.metric {
            Metric::CuEfficiency => true,
            Metric::Auto => p.flop_count() < 1500 * 1500 * 1500 * 2,
            _ => false,
        },
        L::ExperimentalGrid => p.modes.metric == Metric::ExperimentalGrid,
        L::ExperimentalDTree => p.modes.metric == Metric::ExperimentalDTree,
        L::Fp16AltImpl => p.modes.fp16_alt_impl,
        L::Fp16AltImplRound => p.modes.fp16_alt_impl_round,
        L::F32XdlMathOp(t) => p.modes.f32_xdl == *t,
        L::EqualityMatching => true,
        L::StochasticRounding(v) => p.modes.stochastic_rounding == *v,
        L::Unknown(n) => return Err(format!("problem predicate `{n}`")),
        // TensileLite's leaves and shapes (hipBLASLt, the `lite` module): Tensile 6.4 does not
        // know them, as it did not when they were decoded as unknown names.
        other => return Err(format!("problem predicate `{}`", other.name())),
    })
}

fn nz(v: u64) -> Result<u64, String> {
    if v == 0 {
        Err("a multiple of 0 (division by zero in the host library)".into())
    } else {
        Ok(v)
    }
}

fn free(p: &Problem, index: u64, a: bool) -> Result<u64, String> {
    match index {
        0 if a => Ok(p.free_size_a()),
        0 => Ok(p.free_size_b()),
        i => Err(format!("free index {i} of a GEMM")),
    }
}

fn batch(p: &Problem, index: u64) -> Result<u64, String> {
    match index {
        0 => Ok(p.batch_size()),
        i => Err(format!("batch index {i} of a GEMM")),
    }
}

fn stride(p: &Problem, tensor: u8, index: u64) -> Result<u64, String> {
    p.strides
        .get(usize::from(tensor))
        .and_then(|s| s.get(index as usize))
        .copied()
        .ok_or_else(|| format!("stride {index} of a 3-dimension tensor"))
}

/// A task leaf: the solution on this problem and device.
pub fn task_leaf(l: &TaskLeaf, s: &Solution, p: &Problem) -> Result<bool, String> {
    match l {
        TaskLeaf::WorkspaceCheck => Ok(required_workspace(s, p)? <= p.modes.workspace),
        TaskLeaf::Unknown(n) => Err(format!("task predicate `{n}`")),
    }
}

/// `ContractionSolution::requiredWorkspaceSize` (ContractionSolution.cpp:1711-1733): D's
/// elements × `workspaceSizePerElemC`; Stream-K's partial tiles are not modelled.
pub fn required_workspace(s: &Solution, p: &Problem) -> Result<u64, String> {
    let sm = &s.size_mapping;
    if sm.stream_k > 0 && sm.stream_k_atomic == 0 {
        return Err("the Stream-K workspace (grid from the device) is not modelled".into());
    }
    Ok(p.d_elements().wrapping_mul(sm.workspace_per_elem_c))
}

/// `ContractionSolution::canSolve` (ContractionSolution.cpp:1242-1255): task, then problem,
/// then hardware predicate.
pub fn can_solve<'a>(s: &'a Solution, p: &Problem, dev: &Device) -> Rejection<'a> {
    match eval(&s.task, &|l| task_leaf(l, s, p)) {
        Tri::Holds => {}
        Tri::Fails(l) => return Rejection::Task(l),
        Tri::Unknown(w) => return Rejection::Unknown(w),
    }
    match eval(&s.problem, &|l| problem_leaf(l, p)) {
        Tri::Holds => {}
        Tri::Fails(l) => return Rejection::Problem(l),
        Tri::Unknown(w) => return Rejection::Unknown(w),
    }
    match eval(&s.hardware, &|l| hw_leaf(l, dev)) {
        Tri::Holds => Rejection::None,
        Tri::Fails(l) => Rejection::Hardware(l),
        Tri::Unknown(w) => Rejection::Unknown(w),
    }
}

/// Why a solution cannot solve the problem, if it cannot.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejection<'a> {
    /// It can.
    None,
    /// A task predicate failed.
    Task(Option<&'a TaskLeaf>),
    /// A problem predicate failed.
    Problem(Option<&'a ProblemLeaf>),
    /// A hardware predicate failed.
    Hardware(Option<&'a HwLeaf>),
    /// A predicate could not be evaluated.
    Unknown(String),
}

/// The catalog's words for a leaf and, after `—`, the problem's value it was checked against.
pub fn describe(l: &ProblemLeaf, p: &Problem) -> String {
    use ProblemLeaf as L;
    let g = &p.gemm;
    let sz = |i: u64| p.size(i).map_or("?".to_string(), |v| v.to_string());
    match l {
        L::Free0SizeMultiple { value, .. } => format!("M multiple of {value} — M = {}", g.m),
        L::Free1SizeMultiple { value, .. } => format!("N multiple of {value} — N = {}", g.n),
        L::BoundSizeMultiple { value, .. } => format!("K multiple of {value} — K = {}", g.k),
        L::BatchSizeMultiple { value, .. } => {
            format!("batch multiple of {value} — batch = {}", g.batch)
        }
        L::BatchSizeEqual { value, .. } => format!("batch = {value} — batch = {}", g.batch),
        L::SizeEqual { index, value } => format!("size[{index}] = {value} — {}", sz(*index)),
        L::SizeGreaterThan { index, value } => {
            format!("size[{index}] > {value} — {}", sz(*index))
        }
        L::SizeLessThan { index, value } => format!("size[{index}] < {value} — {}", sz(*index)),
        L::SizeMultiple { index, value } => {
            format!("size[{index}] multiple of {value} — {}", sz(*index))
        }
        L::SizeInRange { index, min, max } => {
            format!("{min} <= size[{index}] < {max} — {}", sz(*index))
        }
        L::StrideEqual {
            tensor,
            index,
            value,
        } => format!(
            "stride{}[{index}] = {value} — {}",
            ["A", "B", "C", "D"]
                .get(usize::from(*tensor))
                .unwrap_or(&"?"),
            stride(p, *tensor, *index).map_or("?".into(), |v| v.to_string())
        ),
        L::StridedBatched(v) => format!(
            "strided batched = {v} — the problem is {}",
            if p.modes.strided_batched {
                "strided batched"
            } else {
                "batched by pointer arrays"
            }
        ),
        L::GlobalSplitUCheckMinK(v) => format!("K >= {v} — K = {}", g.k),
        L::LeadingFree0SizesGreaterOrEqual(v) => format!("M >= {v} — M = {}", g.m),
        L::LeadingFree1SizesGreaterOrEqual(v) => format!("N >= {v} — N = {}", g.n),
        L::BufferLoadOffsetLimitCheck(c) => format!(
            "(lda·{}+{})·{}B and (ldb·{}+{})·{}B < 2^32 — lda = {}, ldb = {}",
            c.du_or_mt0,
            c.shift_a,
            g.types[0].bytes(),
            c.du_or_mt1,
            c.shift_b,
            g.types[1].bytes(),
            p.strides[0][1],
            p.strides[1][1]
        ),
        L::BufferStoreOffsetLimitCheck(v) => format!(
            "ldd·{}B·{v} < 2^32 — ldd = {}",
            g.types[3].bytes(),
            p.strides[3][1]
        ),
        L::DeterministicMode(v) => format!(
            "deterministic = {v} — atomics {}",
            if p.modes.deterministic {
                "not allowed"
            } else {
                "allowed"
            }
        ),
        L::CEqualsD => format!("C == D — {}", p.modes.c_equals_d),
        L::LdcEqualsLdd => format!("ldc == ldd — {} vs {}", p.strides[2][1], p.strides[3][1]),
        L::BetaValue(v) => format!("beta {} — beta = {}", v.name(), g.beta),
        L::AlphaValue(v) => format!("alpha {} — alpha is {}", v.name(), g.alpha.name()),
        L::TypesEqual(t) => format!(
            "types {} — {}",
            t.map(DataType::name).join("/"),
            g.types.map(DataType::name).join("/")
        ),
        L::OperationIdentifierEqual(v) => format!("{v} — {}", p.operation),
        L::HighPrecisionAccumulate(v) => format!("HPA {v} — {}", p.hpa),
        L::F32XdlMathOp(t) => format!("F32XdlMathOp {} — {}", t.name(), p.modes.f32_xdl.name()),
        other => format!("{other:?}"),
    }
}

/// The letters of a problem's transpositions (`NT`).
pub fn trans_letters(p: &Problem) -> String {
    p.gemm.trans.iter().map(|o: &Op| o.letter()).collect()
}
