//! TensileLite's predicates on a hipBLASLt problem and device, as hipBLASLt 7.1.1 evaluates
//! them. `And`/`Or` short-circuit in order (`Predicates.hpp:160, 208`, via
//! [`crate::eval::eval`]); each leaf reads the problem as its `operator()` does, with `size_t`
//! wrapping and, where the host library computes in `float`, in `f32`.
//!
//! Line numbers are those of the TensileLite headers as stored in the reference's sources
//! (`/work/oracle/hipblaslt/src/tensilelite/include/Tensile/`, SOURCES.txt: the nearest stored
//! texts to 7.1.1): `ContractionProblemPredicates.hpp` (problem leaves, cited `:N`),
//! `AMDGPUPredicates.hpp:67, 99, 131` (hardware), `ContractionTaskPredicates.hpp:67-86`
//! (`WorkspaceCheck`), `src/ContractionSolution.cpp:51-120` (`calculateAutoGSU`,
//! `requiredWorkspaceSize`), `src/ContractionProblem.cpp:682-713` (`getNumTiles`).
//!
//! The problem's parameters the heuristic never sets keep their defaults: GSU 0 (the
//! solution's own), the CU-fallback flag false, the default metric (`DeviceEfficiency`), kernel
//! language `Any`, eligible for persistent kernels. A leaf that reads something this model does
//! not compute (arithmetic intensity, automatic GSU, Stream-K or amax workspaces, XCC other than
//! 1 when the CU-fallback flag matters) is [`Tri::Unknown`] with the reason, never a guess.

use super::problem::LiteProblem;
use crate::device::Device;
use crate::eval::{Tri, eval};
use rocpath_tensile::catalog::{
    DataType, GpuLeaf, HwLeaf, ProblemLeaf, ScalarValue, Solution, TaskLeaf,
};

/// The processor number TensileLite gives a device (`toProcessor(gcnArchName)`), 0 if none.
pub fn processor_of(dev: &Device) -> u32 {
    dev.lite_processor()
}

/// A hardware leaf (`AMDGPUPredicates.hpp`).
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
    let known = |p: &str| {
        crate::device::processor_number(p).ok_or_else(|| {
            format!("processor `{p}` unknown to TensileLite 7.1 (the loader refuses the file)")
        })
    };
    Ok(match l {
        // :67 `gpu.processor == value`
        GpuLeaf::Processor(p) => processor_of(dev) == known(p)?,
        // :99 `gpu.computeUnitCount == value`
        GpuLeaf::CuCount(n) => i64::from(dev.cu_count) == *n,
        // :131 `runsKernelTargeting` (src/AMDGPU.cpp:52-66): not newer, the same, or gfx900.
        GpuLeaf::TargetProcessor(p) => {
            let other = known(p)?;
            let mine = processor_of(dev);
            other <= mine && (other == mine || other == 900)
        }
        GpuLeaf::IsApu(_) => return Err("GPU predicate `IsAPU` (not in TensileLite 7.1)".into()),
        GpuLeaf::Unknown(n) => return Err(format!("GPU predicate `{n}`")),
    })
}

fn nz(v: u64) -> Result<u64, String> {
    if v == 0 {
        Err("a multiple of 0 (division by zero in the host library)".into())
    } else {
        Ok(v)
    }
}

/// `std::ceil(static_cast<float>(size) / value)` in `float`.
fn ceil_div_f32(size: u64, value: i64) -> f32 {
    (size as f32 / value as i32 as f32).ceil()
}

/// An activation name TensileLite knows (`Activation.hpp:53-73`).
fn activation_known(name: &str) -> Result<&str, String> {
    const NAMES: [&str; 17] = [
        "None",
        "Abs",
        "Clippedrelu",
        "Gelu",
        "Leakyrelu",
        "Relu",
        "Sigmoid",
        "Tanh",
        "Dgelu",
        "Geluscaling",
        "Silu",
        "All",
        "Drelu",
        "Swish",
        "Clamp",
        "Hipblaslt_all",
        "Exp",
    ];
    NAMES
        .iter()
        .find(|n| **n == name)
        .copied()
        .ok_or_else(|| format!("activation `{name}` unknown to TensileLite 7.1"))
}

/// A problem leaf on `p` (`ContractionProblemPredicates.hpp`, the `operator()` line cited).
pub fn problem_leaf(l: &ProblemLeaf, p: &LiteProblem) -> Result<bool, String> {
    use ProblemLeaf as L;
    if let Some(v) = size_leaf(l, p)? {
        return Ok(v);
    }
    if let Some(v) = limit_leaf(l, p)? {
        return Ok(v);
    }
    if let Some(v) = epilogue_leaf(l, p)? {
        return Ok(v);
    }
    Ok(match l {
        // :812, :842, :1678
        L::LdcEqualsLdd => p.ld[2] == p.ld[3],
        L::CEqualsD => p.c_equals_d,
        L::CdStridesEqual => p.ld[2] == p.ld[3] && p.batch_stride[2] == p.batch_stride[3],
        // :875 with GSU 0 the `gsu() == 0 || 1` part holds
        L::AmaxDCheck(v) => p.output_amax_d == *v,
        // :926, :952
        L::BetaZero => p.beta == 0.0,
        L::BetaOne => p.beta == 1.0,
        // :985, :1024 (problem language Any), :1069
        L::HighPrecisionAccumulate(v) => p.hpa == *v,
        L::KernelLanguageCompatible(_) => true,
        L::DeterministicMode(v) => !*v,
        L::AiGreaterThanEqual(_) | L::AiLessThanEqual(_) => {
            return Err(format!(
                "problem predicate `{}` (arithmetic intensity is not modelled for TensileLite)",
                l.name()
            ));
        }
        // :1180, :1224
        L::AlphaValue(v) => p.alpha == *v || *v == ScalarValue::Any,
        L::BetaValue(v) => p.beta_restriction() == *v || *v == ScalarValue::Any,
        // :1263 A, B, C, D and the compute-input type
        L::TypesEqualCompute(t) => {
            p.types[0] == t[0]
                && p.types[1] == t[1]
                && p.types[2] == t[2]
                && p.types[3] == t[3]
                && p.compute_input == t[4]
        }
        L::TypesEqual(_) => {
            return Err("a four-type TypesEqual (TensileLite 7.1 reads five)".into());
        }
        // :1336
        L::OperationIdentifierEqual(v) => p.operation == *v,
        // :1717, :1751
        L::StridedBatched(v) => p.strided_batched == *v,
        L::GroupedGemm(v) => p.grouped_gemm == *v,
        // :1779, :1837, :1867 the default metric is DeviceEfficiency
        L::CuEfficiency | L::ExperimentalStreamK | L::ExperimentalMlp => false,
        L::ExperimentalGrid | L::ExperimentalDTree => {
            return Err(format!(
                "problem predicate `{}` (not in TensileLite 7.1)",
                l.name()
            ));
        }
        // :1900, :1930, :1961
        L::EqualityMatching | L::RangeMatching | L::FreeSizeMatching => true,
        // :2569, :2602, :2635, :2669
        L::Sparse(v) => p.sparse == *v as i32 as i64,
        L::SwizzleTensorA(v) => p.swizzle[0] == *v,
        L::SwizzleTensorB(v) => p.swizzle[1] == *v,
        L::F32XdlMathOp(t) => p.f32_xdl == *t,
        // :2703 only grouped GEMMs with device arguments are checked
        L::SupportDeviceUserArguments(v) => {
            !(p.device_user_args && p.grouped_gemm) || p.device_user_args == *v
        }
        L::Fp16AltImpl | L::Fp16AltImplRound | L::StochasticRounding(_) => {
            return Err(format!(
                "problem predicate `{}` (not in TensileLite 7.1)",
                l.name()
            ));
        }
        L::ArithmeticUnitCompatible(_) => {
            return Err(
                "problem predicate `ArithmeticUnitCompatible` (not in TensileLite 7.1)".into(),
            );
        }
        L::Unknown(n) => return Err(format!("problem predicate `{n}`")),
        // The size, limit and epilogue leaves were answered above; a leaf added to the decoder
        // and to none of these groups is not modelled.
        other => return Err(format!("problem predicate `{}`", other.name())),
    })
}

/// The size and stride leaves (`None`: not one of them).
fn size_leaf(l: &ProblemLeaf, p: &LiteProblem) -> Result<Option<bool>, String> {
    use ProblemLeaf as L;
    let size = |i: u64| {
        p.size(i)
            .ok_or_else(|| format!("size index {i} of a 4-index problem"))
    };
    let only0 = |i: u64, what: &str, v: u64| {
        if i == 0 {
            Ok(v)
        } else {
            Err(format!("{what} index {i} of a GEMM"))
        }
    };
    Ok(Some(match l {
        // :79, :119 (transposeC01 is false: free 0 is A's)
        L::Free0SizeMultiple { index, value } => {
            only0(*index, "free", p.m)?.is_multiple_of(nz(*value)?)
        }
        L::Free1SizeMultiple { index, value } => {
            only0(*index, "free", p.n)?.is_multiple_of(nz(*value)?)
        }
        // :159, :194
        L::BatchSizeMultiple { index, value } => {
            only0(*index, "batch", p.batch)?.is_multiple_of(nz(*value)?)
        }
        L::BatchSizeEqual { index, value } => only0(*index, "batch", p.batch)? == *value,
        // :287 a negative index counts from the number of bound indices (1)
        L::BoundSizeMultiple { index, value } => {
            if *index != 0 && *index != -1 {
                return Err(format!("bound index {index} of a 1-bound problem"));
            }
            p.k.is_multiple_of(nz(*value)?)
        }
        // :328, :362
        L::ProblemSizeEqual { index, value } => size(*index)? == *value,
        L::MaxProblemSizeGreaterThan(v) => p.m.max(p.n).max(p.k) > *v,
        // :398, :440 (not grouped)
        L::LeadingFree0SizesGreaterOrEqual(v) => p.m >= *v,
        L::LeadingFree1SizesGreaterOrEqual(v) => p.n >= *v,
        // :486, :521, :556, :591, :637
        L::SizeEqual { index, value } => size(*index)? == *value,
        L::SizeGreaterThan { index, value } => size(*index)? > *value,
        L::SizeLessThan { index, value } => size(*index)? < *value,
        L::SizeMultiple { index, value } => size(*index)?.is_multiple_of(nz(*value)?),
        L::SizeInRange { index, min, max } => {
            let s = size(*index)?;
            s >= *min && s < *max
        }
        // :682-787 strides are {1, ld, batch stride}
        L::StrideEqual {
            tensor,
            index,
            value,
        } => {
            let t = usize::from(*tensor);
            let s = match index {
                0 => 1,
                1 => p.ld.get(t).copied().unwrap_or(0),
                2 => p.batch_stride.get(t).copied().unwrap_or(0),
                i => return Err(format!("stride {i} of a 3-dimension tensor")),
            };
            s == *value
        }
        _ => return Ok(None),
    }))
}

/// The leaves that bound what a kernel can address or launch: buffer offsets, workgroup counts, synchronizer size, GSU's minimum K (`None`: not one of them).
fn limit_leaf(l: &ProblemLeaf, p: &LiteProblem) -> Result<Option<bool>, String> {
    use ProblemLeaf as L;
    Ok(Some(match l {
        // :1370 (lda·DU + shift)·bytes < 2^32 for A and B
        L::BufferLoadOffsetLimitCheck(c) => {
            const TWO_POW_32: u64 = 1 << 32;
            let a = p.ld[0]
                .wrapping_mul(c.du_or_mt0)
                .wrapping_add(c.shift_a)
                .wrapping_mul(p.types[0].bytes());
            let b = p.ld[1]
                .wrapping_mul(c.du_or_mt1)
                .wrapping_add(c.shift_b)
                .wrapping_mul(p.types[1].bytes());
            a < TWO_POW_32 && b < TWO_POW_32
        }
        // :1434 C is never empty; beta is 1 in the heuristic
        L::BufferLoadOffsetLimitCheckBeta(v) => {
            p.beta == 0.0 || p.ld[2].wrapping_mul(p.types[2].bytes()).wrapping_mul(*v) < 1 << 32
        }
        // :1487
        L::BufferStoreOffsetLimitCheck(v) => {
            p.ld[3].wrapping_mul(p.types[3].bytes()).wrapping_mul(*v) < 1 << 32
        }
        // :1535 gsu = value[2] as int16_t; -1 bypasses; workgroups in float <= 2^24
        L::WorkgroupNumberCheck { value, .. } => {
            let gsu = value[2] as i16;
            if gsu == -1 {
                true
            } else {
                let gsu = if gsu > 1 { gsu } else { 1 };
                ceil_div_f32(p.m, value[0])
                    * ceil_div_f32(p.n, value[1])
                    * f32::from(gsu)
                    * p.batch as f32
                    <= 16_777_216.0
            }
        }
        // :230 gsu = value[5] as int16_t; 1 or -1 pass; else the synchronizer fits 409600
        L::SynchronizerSizeCheck { value, .. } => {
            let gsu = value[5] as i16;
            if gsu == -1 || gsu == 1 {
                true
            } else {
                let f = |i: usize| value[i] as i32 as f32;
                (ceil_div_f32(p.m, value[0]) * ceil_div_f32(p.n, value[1]))
                    * f(2)
                    * f(4)
                    * f(3)
                    * p.batch as f32
                    <= 409_600.0
            }
        }
        // :1592 (eligibility is never cleared)
        L::PersistentKernelCheck => true,
        // :1628 minK = value[1] (GSU) as size_t; -1 bypasses, 1 means 0; times value[0]
        L::GlobalSplitUCheckMinKGsu([du, gsu]) => {
            let min_k = *gsu as i32 as i64 as u64;
            if min_k == u64::MAX {
                true
            } else {
                let min_k = if min_k == 1 { 0 } else { min_k };
                p.k >= min_k.wrapping_mul(*du as i32 as i64 as u64)
            }
        }
        L::GlobalSplitUCheckMinK(_) => {
            return Err("an integer GlobalSplitUCheckMinK (TensileLite 7.1 reads a pair)".into());
        }
        // :2762 XCC -1 passes; XCC (1 when the solution is a CU fallback) a power of two
        // dividing XCCG (the CU count when -1)
        L::WorkgroupMappingXccCheck([xcc, xccg]) => {
            let xcc = *xcc as i32;
            if xcc == -1 {
                true
            } else if xcc != 1 {
                return Err(format!(
                    "WorkgroupMappingXCCCheck with XCC {xcc}: the CU-fallback flag decides it (not modelled)"
                ));
            } else {
                let _ = xccg;
                // XCC = 1: a power of two, and every XCCG is a multiple of it.
                true
            }
        }
        _ => return Ok(None),
    }))
}

/// The epilogue's leaves: gradient, activation, bias, E, scales (`None`: not one of them).
fn epilogue_leaf(l: &ProblemLeaf, p: &LiteProblem) -> Result<Option<bool>, String> {
    use ProblemLeaf as L;
    Ok(Some(match l {
        // :1996
        L::UseGradient(v) => p.use_gradient == *v,
        // :2030 All, the problem's own, None, or Hipblaslt_all for the hipBLASLt activations
        L::Activation(v) => {
            let v = activation_known(v)?;
            v == "All"
                || p.activation == v
                || p.activation == "None"
                || (v == "Hipblaslt_all"
                    && matches!(p.activation, "Dgelu" | "Gelu" | "Relu" | "Silu" | "Clamp"))
        }
        // :2073 with All/Hipblaslt_all the epilogue's activation must be listed
        L::ActivationEnumWhiteList(list) => {
            for n in list {
                activation_known(n)?;
            }
            if matches!(p.activation, "All" | "Hipblaslt_all") {
                list.iter().any(|n| n == p.activation_enum)
            } else {
                true
            }
        }
        // :2128, :2172
        L::ActivationComputeType(t) => p.activation == "None" || p.activation_compute == *t,
        L::ActivationNoGuard(v) => p.activation_no_guard == *v,
        // :2205, :2240, :2273
        L::UseBias(v) => p.use_bias == 0 || *v != 0,
        L::UseE(v) => p.use_e == *v,
        L::DataTypeE(_) if p.use_e => {
            return Err("DataTypeE with an E tensor (not built by the heuristic)".into());
        }
        L::DataTypeE(_) => true,
        // :2317, :2353, :2390
        L::UseScaleAB(v) => p.use_scale_ab.is_empty() || p.use_scale_ab == *v,
        L::UseScaleCD(v) => !p.use_scale_cd || *v,
        L::UseScaleAlphaVec(v) => {
            p.use_scale_alpha_vec == 0 || (p.use_scale_alpha_vec & (*v as i32 as i64)) != 0
        }
        // :2423
        L::BiasDataTypeWhiteList(list) => p.use_bias == 0 || list.contains(&p.bias_type),
        // :2474 the bias comes from D (getBiasSrc), its length M covers D's rows
        L::BiasSrcWhiteList(list) => {
            if p.use_bias != 0 && p.use_scale_alpha_vec != 0 && p.use_bias != p.use_scale_alpha_vec
            {
                false
            } else if p.use_bias == 0 {
                true
            } else if p.use_bias != 1 {
                return Err(format!(
                    "BiasSrcWhiteList with useBias {} (not built by the heuristic)",
                    p.use_bias
                ));
            } else {
                list.iter().any(|v| *v as i32 == 3)
            }
        }
        _ => return Ok(None),
    }))
}

/// `calculateAutoGSU` (src/ContractionSolution.cpp:51-62): the solution's GSU unless it is -1.
fn gsu_of(s: &Solution) -> Result<u64, String> {
    let g = s.size_mapping.global_split_u as i64 as i32;
    if g == -1 {
        Err("an automatic-GSU solution (GSU -1: calculateAutoGSU is not modelled)".into())
    } else {
        // uint32_t return value, then size_t.
        Ok(u64::from(g as u32))
    }
}

/// `ContractionSolution::requiredWorkspaceSize` (src/ContractionSolution.cpp:64-120): a GSU > 1
/// solution needs `tiles · batch · MT0 · MT1 · workspaceSizePerElemC`; a gradient bias and the
/// amax output add theirs.
pub fn required_workspace(s: &Solution, p: &LiteProblem) -> Result<u64, String> {
    let sm = &s.size_mapping;
    if sm.stream_k > 0 && sm.stream_k_atomic == 0 {
        return Err("the Stream-K workspace (grid from the device) is not modelled".into());
    }
    let gsu = gsu_of(s)?;
    let gsu_mult = if gsu > 1 { gsu } else { 0 };
    let tiles = num_tiles(s, p, gsu).wrapping_mul(p.batch);
    let tile = sm.macro_tile[0]
        .wrapping_mul(sm.macro_tile[1])
        .wrapping_mul(sm.workspace_per_elem_c);
    let mut size = if gsu > 1 { tiles.wrapping_mul(tile) } else { 0 };
    if s.problem_type.use_gradient && s.problem_type.use_bias != 0 && p.bias_enum != DataType::None
    {
        // The bias source is D (getBiasSrc): only without GSU.
        if gsu_mult == 0 {
            size = size.wrapping_add(
                p.d_elements()
                    .wrapping_mul(p.compute.bytes())
                    .wrapping_mul(gsu),
            );
        }
    }
    if s.problem_type.output_amax_d {
        return Err("the amax-D workspace is not modelled".into());
    }
    Ok(size)
}

/// `getNumTiles(sizeMapping, gsu)` (src/ContractionProblem.cpp:682-713).
fn num_tiles(s: &Solution, p: &LiteProblem, gsu: u64) -> u64 {
    let sm = &s.size_mapping;
    let (mut x, mut y, mut z) = (p.m, p.n, 1u64);
    if sm.pack_batch_dims & 1 != 0 {
        x = x.wrapping_mul(p.batch);
    }
    if sm.pack_batch_dims & 2 != 0 {
        y = y.wrapping_mul(p.batch);
    }
    if sm.pack_batch_dims == 0 {
        z = z.wrapping_mul(p.batch);
    }
    // CeilDivide; a zero macro tile (no catalog has one) counts as no tiles.
    let cdiv = |a: u64, b: u64| {
        a.wrapping_add(b.wrapping_sub(1))
            .checked_div(b)
            .unwrap_or(0)
    };
    x = cdiv(x, sm.macro_tile[0]);
    y = cdiv(y, sm.macro_tile[1]).wrapping_mul(gsu);
    let mut tiles = x.wrapping_mul(y);
    if sm.persistent_kernel_along_batch || sm.stream_k != 0 {
        tiles = tiles.wrapping_mul(z);
    }
    tiles
}

/// A task leaf: `WorkspaceCheck` (ContractionTaskPredicates.hpp:67-86): the GSU buffer stays
/// under 128 MiB and the required workspace fits the problem's.
pub fn task_leaf(l: &TaskLeaf, s: &Solution, p: &LiteProblem) -> Result<bool, String> {
    match l {
        TaskLeaf::WorkspaceCheck => {
            let gsu = gsu_of(s)?;
            let mult = if gsu > 1 { gsu } else { 0 };
            if p.d_elements()
                .wrapping_mul(s.size_mapping.workspace_per_elem_c)
                .wrapping_mul(mult)
                > 128 * 1024 * 1024
            {
                return Ok(false);
            }
            Ok(required_workspace(s, p)? <= p.workspace)
        }
        TaskLeaf::Unknown(n) => Err(format!("task predicate `{n}`")),
    }
}

/// Why a solution cannot solve the problem, if it cannot.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict<'a> {
    /// It can.
    Accepts,
    /// A hardware predicate failed.
    Hardware(Option<&'a HwLeaf>),
    /// A problem predicate failed.
    Problem(Option<&'a ProblemLeaf>),
    /// A task predicate failed.
    Task(Option<&'a TaskLeaf>),
    /// A predicate could not be evaluated.
    Unknown(String),
}

/// `SingleSolutionLibrary::findBestSolution` (SingleSolutionLibrary.hpp:89-123): the hardware
/// predicate, then `softwarePredicate(DEFAULT)` = problem, then task predicate
/// (SolutionLibrary.hpp:71-93); the same order as `isSolutionSupported`.
pub fn verdict<'a>(s: &'a Solution, p: &LiteProblem, dev: &Device) -> Verdict<'a> {
    match eval(&s.hardware, &|l| hw_leaf(l, dev)) {
        Tri::Holds => {}
        Tri::Fails(l) => return Verdict::Hardware(l),
        Tri::Unknown(w) => return Verdict::Unknown(w),
    }
    match eval(&s.problem, &|l| problem_leaf(l, p)) {
        Tri::Holds => {}
        Tri::Fails(l) => return Verdict::Problem(l),
        Tri::Unknown(w) => return Verdict::Unknown(w),
    }
    match eval(&s.task, &|l| task_leaf(l, s, p)) {
        Tri::Holds => Verdict::Accepts,
        Tri::Fails(l) => Verdict::Task(l),
        Tri::Unknown(w) => Verdict::Unknown(w),
    }
}

/// `isGemmTypeSame` (SolutionLibrary.hpp:56-69): what the fill-in's `GEMM_TYPE_ONLY` search
/// compares — transpositions, the four types, the compute type, grouped or not.
pub fn gemm_type_same(s: &Solution, p: &LiteProblem) -> bool {
    let t = &s.problem_type;
    t.trans_a == p.trans[0]
        && t.trans_b == p.trans[1]
        && t.types == p.types
        && t.compute == Some(p.compute)
        && t.grouped_gemm == p.grouped_gemm
}

/// The catalog's words for a leaf and, after `—`, the problem's value it was checked against.
pub fn describe(l: &ProblemLeaf, p: &LiteProblem) -> String {
    use ProblemLeaf as L;
    match l {
        L::TypesEqualCompute(t) => format!(
            "types {} (compute input {}) — {} ({})",
            t[..4]
                .iter()
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join("/"),
            t[4].name(),
            p.types.map(DataType::name).join("/"),
            p.compute_input.name()
        ),
        L::Free0SizeMultiple { value, .. } => format!("M multiple of {value} — M = {}", p.m),
        L::Free1SizeMultiple { value, .. } => format!("N multiple of {value} — N = {}", p.n),
        L::BoundSizeMultiple { value, .. } => format!("K multiple of {value} — K = {}", p.k),
        L::LeadingFree0SizesGreaterOrEqual(v) => format!("M >= {v} — M = {}", p.m),
        L::LeadingFree1SizesGreaterOrEqual(v) => format!("N >= {v} — N = {}", p.n),
        L::GlobalSplitUCheckMinKGsu([du, gsu]) => format!(
            "K >= {} (GSU {gsu} × depthU {du}) — K = {}",
            if *gsu == 1 { 0 } else { du * gsu },
            p.k
        ),
        L::WorkgroupNumberCheck { value, .. } => format!(
            "at most 2^24 workgroups of {}x{} (GSU {}) — M = {}, N = {}, batch {}",
            value[0], value[1], value[2], p.m, p.n, p.batch
        ),
        L::BufferLoadOffsetLimitCheck(c) => format!(
            "(lda·{}+{})·{}B and (ldb·{}+{})·{}B < 2^32 — lda = {}, ldb = {}",
            c.du_or_mt0,
            c.shift_a,
            p.types[0].bytes(),
            c.du_or_mt1,
            c.shift_b,
            p.types[1].bytes(),
            p.ld[0],
            p.ld[1]
        ),
        L::BufferLoadOffsetLimitCheckBeta(v) => {
            format!("ldc·{}B·{v} < 2^32 — ldc = {}", p.types[2].bytes(), p.ld[2])
        }
        L::BufferStoreOffsetLimitCheck(v) => {
            format!("ldd·{}B·{v} < 2^32 — ldd = {}", p.types[3].bytes(), p.ld[3])
        }
        L::HighPrecisionAccumulate(v) => format!("HPA {v} — {}", p.hpa),
        L::F32XdlMathOp(t) => format!("F32XdlMathOp {} — {}", t.name(), p.f32_xdl.name()),
        L::OperationIdentifierEqual(v) => format!("{v} — {}", p.operation),
        L::UseBias(v) => format!("bias {v} — the epilogue's bias {}", p.use_bias),
        L::BiasDataTypeWhiteList(v) => format!(
            "bias type in {} — {}",
            v.iter().map(|t| t.name()).collect::<Vec<_>>().join("/"),
            p.bias_type.name()
        ),
        L::Activation(v) => format!("activation {v} — {}", p.activation),
        L::ActivationEnumWhiteList(v) => {
            format!("activation in {} — {}", v.join("/"), p.activation_enum)
        }
        L::ActivationComputeType(t) => format!(
            "activation compute {} — {}",
            t.name(),
            p.activation_compute.name()
        ),
        L::GroupedGemm(v) => format!("grouped GEMM {v} — {}", p.grouped_gemm),
        L::UseGradient(v) => format!("gradient {v} — {}", p.use_gradient),
        L::UseE(v) => format!("E output {v} — {}", p.use_e),
        L::UseScaleAB(v) => format!("scale A/B `{v}` — `{}`", p.use_scale_ab),
        other => format!("{other:?}"),
    }
}

/// A verdict in words with the problem's values.
pub fn verdict_text(v: &Verdict<'_>, p: &LiteProblem) -> String {
    match v {
        Verdict::Accepts => String::new(),
        Verdict::Task(Some(TaskLeaf::WorkspaceCheck)) => format!(
            "WorkspaceCheck — needs more than the {} bytes of workspace the preference allows",
            p.workspace
        ),
        Verdict::Task(l) => format!("task predicate {l:?}"),
        Verdict::Problem(Some(l)) => describe(l, p),
        Verdict::Problem(None) => "a problem predicate (FalsePred/Not)".into(),
        Verdict::Hardware(Some(l)) => {
            format!("hardware predicate {}", crate::trace::LeafText::text(*l))
        }
        Verdict::Hardware(None) => "a hardware predicate (FalsePred/Not)".into(),
        Verdict::Unknown(w) => w.clone(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::lite::problem::{Activation, ComputeType, HipType, Matmul, build};
    use crate::problem::Op;
    use rocpath_arch::TargetId;

    fn p(m: i64, n: i64, k: i64) -> LiteProblem {
        build(&Matmul::simple(
            HipType::F16,
            HipType::F16,
            ComputeType::F32,
            [Op::N, Op::N],
            m,
            n,
            k,
        ))
        .unwrap()
        .problem
    }

    #[test]
    fn processors_are_found_as_to_processor_finds_them() {
        let d = |t: &str| Device::new(TargetId::parse(t).unwrap(), 64);
        assert_eq!(processor_of(&d("gfx90a:sramecc+:xnack-")), 910);
        assert_eq!(processor_of(&d("gfx1151")), 1151);
        assert_eq!(processor_of(&d("gfx1031")), 0);
        assert_eq!(crate::device::processor_number("gfx1200"), Some(1200));
        assert_eq!(crate::device::processor_number("gfx1031"), None);
    }

    #[test]
    fn gsu_min_k_bypasses_auto_and_treats_one_as_none() {
        use ProblemLeaf as L;
        let l = |du, gsu| L::GlobalSplitUCheckMinKGsu([du, gsu]);
        assert!(problem_leaf(&l(32, -1), &p(8, 8, 1)).unwrap());
        assert!(problem_leaf(&l(32, 1), &p(8, 8, 1)).unwrap());
        assert!(!problem_leaf(&l(32, 4), &p(8, 8, 100)).unwrap());
        assert!(problem_leaf(&l(32, 4), &p(8, 8, 128)).unwrap());
    }

    #[test]
    fn workgroup_counts_are_computed_in_float() {
        let l = |v| ProblemLeaf::WorkgroupNumberCheck { index: 0, value: v };
        // 4096 × 4096 workgroups = 2^24: allowed; GSU 2 doubles it past.
        assert!(problem_leaf(&l([1, 1, 1]), &p(4096, 4096, 8)).unwrap());
        assert!(!problem_leaf(&l([1, 1, 2]), &p(4096, 4096, 8)).unwrap());
        assert!(problem_leaf(&l([1, 1, -1]), &p(65536, 65536, 8)).unwrap());
    }

    #[test]
    fn the_epilogue_reads_the_activation_lists() {
        let mut m = Matmul::simple(
            HipType::F16,
            HipType::F16,
            ComputeType::F32,
            [Op::N, Op::N],
            8,
            8,
            8,
        );
        m.activation = Activation::Gelu;
        let q = build(&m).unwrap().problem;
        let list = |v: &[&str]| {
            ProblemLeaf::ActivationEnumWhiteList(v.iter().map(|s| s.to_string()).collect())
        };
        assert!(problem_leaf(&list(&["None", "Gelu"]), &q).unwrap());
        assert!(!problem_leaf(&list(&["None", "Relu"]), &q).unwrap());
        assert!(!problem_leaf(&ProblemLeaf::Activation("None".into()), &q).unwrap());
        assert!(problem_leaf(&ProblemLeaf::Activation("Hipblaslt_all".into()), &q).unwrap());
        assert!(problem_leaf(&ProblemLeaf::Activation("Sinh".into()), &q).is_err());
    }
}
