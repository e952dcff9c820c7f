//! The problem hipBLASLt asks TensileLite about: a matmul as `hipblasLtMatmulAlgoGetHeuristic`
//! sees it (layouts, types, compute type, epilogue) → the `ContractionProblemGemm` its glue
//! builds, with every value TensileLite's predicates read.
//!
//! Sources (hipBLASLt 7.1.1 glue, `projects/hipblaslt/library/src/amd_detail/rocblaslt/src/`
//! of ROCm/rocm-libraries; the files carry no line numbers in the stored index, so rules cite the
//! function and the character offsets of the stored text, as the reference does):
//! - `rocblaslt_auxiliary.cpp` `rocblaslt_matmul_algo_get_heuristic` (index id 12068469337,
//!   chars ~58000-64500): alpha = beta = 1 (`assignAlphaBeta1`), a dummy bias address when the
//!   epilogue has a bias, the preference's `max_workspace_bytes` (default 0:
//!   `_rocblaslt_matmul_preference::max_workspace_bytes = 0`);
//! - `include/rocblaslt_mat_utils.hpp` `validateMatmulArgs` (@03d43921) and
//!   `construct_rocblaslt_problem` (as the reference reads it): a call the checks refuse, or a
//!   quick return (M = 0), becomes M = N = K = 0;
//! - `tensile_host.cpp` (@003add59, chars ~64180-82000) `RocblasltContractionProblem`'s
//!   constructor (default bias type), `ConstructTensileProblem` and `updateTensileProblem`:
//!   tensors, HPA, compute-input type, strided batch, C == D (both null in the heuristic),
//!   bias, scale, activation, amax, F32XdlMathOp, swizzle;
//! - TensileLite `ContractionProblem.hpp` (as stored in the reference's sources): member
//!   defaults :1198-1226 (kernel language `Any`, metric `DeviceEfficiency`, not deterministic),
//!   `computeType()` = the beta type :633-636, `transA()`/`transB()` :1105-1112.

use crate::problem::Op;
use rocpath_tensile::catalog::{DataType, ScalarValue};
use serde::Serialize;

/// A `hipDataType` of the matmul API (the ones hipBLASLt 7.1.1 maps to TensileLite).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HipType {
    /// `HIP_R_32F`.
    F32,
    /// `HIP_R_64F`.
    F64,
    /// `HIP_R_16F`.
    F16,
    /// `HIP_R_16BF`.
    Bf16,
    /// `HIP_R_8I`.
    I8,
    /// `HIP_R_32I`.
    I32,
    /// `HIP_R_8F_E4M3` (OCP FP8).
    F8,
    /// `HIP_R_8F_E5M2` (OCP BF8).
    Bf8,
    /// `HIP_R_8F_E4M3_FNUZ`.
    F8Fnuz,
    /// `HIP_R_8F_E5M2_FNUZ`.
    Bf8Fnuz,
}

impl HipType {
    /// Parses `f32 f64 f16 bf16 i8 i32 f8 bf8 f8_fnuz bf8_fnuz` or the `HIP_R_*` names.
    pub fn parse(s: &str) -> Option<HipType> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "f32_r" | "hip_r_32f" | "s" => HipType::F32,
            "f64" | "f64_r" | "hip_r_64f" | "d" => HipType::F64,
            "f16" | "f16_r" | "hip_r_16f" | "h" => HipType::F16,
            "bf16" | "bf16_r" | "hip_r_16bf" => HipType::Bf16,
            "i8" | "i8_r" | "hip_r_8i" => HipType::I8,
            "i32" | "i32_r" | "hip_r_32i" => HipType::I32,
            "f8" | "hip_r_8f_e4m3" => HipType::F8,
            "bf8" | "hip_r_8f_e5m2" => HipType::Bf8,
            "f8_fnuz" | "hip_r_8f_e4m3_fnuz" => HipType::F8Fnuz,
            "bf8_fnuz" | "hip_r_8f_e5m2_fnuz" => HipType::Bf8Fnuz,
            _ => return None,
        })
    }

    /// The short name.
    pub fn name(self) -> &'static str {
        match self {
            HipType::F32 => "f32",
            HipType::F64 => "f64",
            HipType::F16 => "f16",
            HipType::Bf16 => "bf16",
            HipType::I8 => "i8",
            HipType::I32 => "i32",
            HipType::F8 => "f8",
            HipType::Bf8 => "bf8",
            HipType::F8Fnuz => "f8_fnuz",
            HipType::Bf8Fnuz => "bf8_fnuz",
        }
    }

    /// `hipDataType_to_tensile_type` (tensile_host.cpp): the TensileLite type, none for the FNUZ
    /// FP8 types (7.1.1 maps them to `Float8_fnuz`/`BFloat8_fnuz`, which no catalog rocpath
    /// reads names, so they are refused rather than guessed).
    pub fn tensile(self) -> Option<DataType> {
        Some(match self {
            HipType::F32 => DataType::Float,
            HipType::F64 => DataType::Double,
            HipType::F16 => DataType::Half,
            HipType::Bf16 => DataType::BFloat16,
            HipType::I8 => DataType::Int8,
            HipType::I32 => DataType::Int32,
            HipType::F8 => DataType::Float8,
            HipType::Bf8 => DataType::BFloat8,
            HipType::F8Fnuz | HipType::Bf8Fnuz => return None,
        })
    }

    fn is_f8(self) -> bool {
        matches!(self, HipType::F8 | HipType::Bf8)
    }

    fn is_f8_fnuz(self) -> bool {
        matches!(self, HipType::F8Fnuz | HipType::Bf8Fnuz)
    }
}

/// `rocblaslt_compute_type` as `hipblasComputeType_t` reaches it (hipblaslt.cpp: `16F` → f16,
/// `32F` → f32, `32F_FAST_TF32` → xf32, `64F` → f64, `32I` → i32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComputeType {
    /// `rocblaslt_compute_f16`.
    F16,
    /// `rocblaslt_compute_f32`.
    F32,
    /// `rocblaslt_compute_f32_fast_xf32`.
    Xf32,
    /// `rocblaslt_compute_f64`.
    F64,
    /// `rocblaslt_compute_i32`.
    I32,
}

impl ComputeType {
    /// Parses `f16 f32 xf32 f64 i32` or `16F 32F 32F_FAST_TF32 64F 32I` (`HIPBLAS_COMPUTE_*`).
    pub fn parse(s: &str) -> Option<ComputeType> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.strip_prefix("hipblas_compute_").unwrap_or(&t);
        Some(match t {
            "f16" | "16f" => ComputeType::F16,
            "f32" | "32f" => ComputeType::F32,
            "xf32" | "32f_fast_tf32" => ComputeType::Xf32,
            "f64" | "64f" => ComputeType::F64,
            "i32" | "32i" => ComputeType::I32,
            _ => return None,
        })
    }

    /// The short name.
    pub fn name(self) -> &'static str {
        match self {
            ComputeType::F16 => "f16",
            ComputeType::F32 => "f32",
            ComputeType::Xf32 => "xf32",
            ComputeType::F64 => "f64",
            ComputeType::I32 => "i32",
        }
    }

    /// `roc2TensileType(type, fallback)` (tensile_host.cpp): f16 is `Half` without the fallback
    /// and `Float` with it; xf32 is `Float`.
    fn tensile(self, fallback: bool) -> DataType {
        match self {
            ComputeType::F16 if fallback => DataType::Float,
            ComputeType::F16 => DataType::Half,
            ComputeType::F32 | ComputeType::Xf32 => DataType::Float,
            ComputeType::F64 => DataType::Double,
            ComputeType::I32 => DataType::Int32,
        }
    }
}

/// The activation of the epilogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// None.
    None,
    /// ReLU.
    Relu,
    /// GELU.
    Gelu,
}

impl Activation {
    /// Parses `none`, `relu`, `gelu` (`-` is none).
    pub fn parse(s: &str) -> Option<Activation> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "none" | "-" | "" => Activation::None,
            "relu" => Activation::Relu,
            "gelu" => Activation::Gelu,
            _ => return None,
        })
    }

    /// The short name.
    pub fn name(self) -> &'static str {
        match self {
            Activation::None => "none",
            Activation::Relu => "relu",
            Activation::Gelu => "gelu",
        }
    }

    /// TensileLite's `ActivationType` name (`getTensileActivationType`, tensile_host.cpp).
    pub fn tensile_name(self) -> &'static str {
        match self {
            Activation::None => "None",
            Activation::Relu => "Relu",
            Activation::Gelu => "Gelu",
        }
    }
}

/// A matmul as the heuristic query describes it: `D = alpha·op(A)·op(B) + beta·C` (+ bias,
/// activation), column-major.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Matmul {
    /// op(A), op(B) (`C` is taken as `T`: hipBLASLt tests `!= HIPBLAS_OP_N`).
    pub trans: [Op; 2],
    /// M (rows of D).
    pub m: i64,
    /// N (columns of D).
    pub n: i64,
    /// K.
    pub k: i64,
    /// Batch count.
    pub batch: i64,
    /// Types of A, B, C, D.
    pub types: [HipType; 4],
    /// The compute type.
    pub compute: ComputeType,
    /// Leading dimensions of A, B, C, D.
    pub ld: [i64; 4],
    /// Batch strides of A, B, C, D (0 when batch is 1: the layouts' default).
    pub stride: [i64; 4],
    /// The epilogue adds a bias, of this type (`None` with `bias`: the default type).
    pub bias: bool,
    /// `HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE`, when set.
    pub bias_type: Option<HipType>,
    /// The epilogue's activation.
    pub activation: Activation,
    /// Solutions asked for (`requestedAlgoCount`, at least 1).
    pub requested: usize,
    /// The preference's `MAX_WORKSPACE_BYTES` (hipBLASLt's default is 0).
    pub workspace: u64,
    /// alpha: 1 for `hipblasLtMatmulAlgoGetHeuristic` (`assignAlphaBeta1`); the call's own
    /// through `hipblaslt_ext::Gemm` (rocBLAS).
    pub alpha: f64,
    /// beta, likewise.
    pub beta: f64,
}

impl Matmul {
    /// A matmul of one input type with minimal leading dimensions, batch 1, no epilogue, one
    /// solution asked for, no workspace.
    pub fn simple(
        input: HipType,
        output: HipType,
        compute: ComputeType,
        trans: [Op; 2],
        m: i64,
        n: i64,
        k: i64,
    ) -> Matmul {
        let lda = if trans[0] == Op::N { m } else { k };
        let ldb = if trans[1] == Op::N { k } else { n };
        Matmul {
            trans,
            m,
            n,
            k,
            batch: 1,
            types: [input, input, output, output],
            compute,
            ld: [lda.max(1), ldb.max(1), m.max(1), m.max(1)],
            stride: [0; 4],
            bias: false,
            bias_type: None,
            activation: Activation::None,
            requested: 1,
            workspace: 0,
            alpha: 1.0,
            beta: 1.0,
        }
    }

    /// `validateMatmulArgs` (rocblaslt_mat_utils.hpp), the checks the heuristic's inputs can
    /// fail: XF32 needs f32 everywhere, i32 compute needs i8 inputs with i32 or i8 outputs,
    /// strides are not negative, the batch count is at least 1; M = 0 is a quick return. Any
    /// of them makes `construct_rocblaslt_problem` build an all-zero problem.
    pub fn refusal(&self) -> Option<&'static str> {
        use HipType::*;
        let t = self.types;
        if self.compute == ComputeType::Xf32 && t != [F32; 4] {
            return Some("XF32 compute needs f32 A, B, C and D");
        }
        if self.compute == ComputeType::I32 && t != [I8, I8, I32, I32] && t != [I8; 4] {
            return Some("i32 compute needs i8 A and B with i32 or i8 C and D");
        }
        if self.stride.iter().any(|s| *s < 0) {
            return Some("a negative batch stride");
        }
        if self.batch < 1 {
            return Some("a batch count below 1");
        }
        if self.m == 0 {
            return Some("M is 0 (a quick return)");
        }
        None
    }
}

/// The values TensileLite's predicates read of a `ContractionProblemGemm` built for a GEMM.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiteProblem {
    /// A and B transposed (`transA()`, `transB()`).
    pub trans: [bool; 2],
    /// Types of A, B, C, D.
    pub types: [DataType; 4],
    /// `computeInputType`.
    pub compute_input: DataType,
    /// `computeType()` (the alpha/beta type).
    pub compute: DataType,
    /// M (`freeSizeA(0)`).
    pub m: u64,
    /// N (`freeSizeB(0)`).
    pub n: u64,
    /// K (`boundSize(0)`).
    pub k: u64,
    /// Batch (`batchSize(0)`).
    pub batch: u64,
    /// Column strides (leading dimensions) of A, B, C, D: `strides()[1]`.
    pub ld: [u64; 4],
    /// Batch strides of A, B, C, D: `strides()[2]`.
    pub batch_stride: [u64; 4],
    /// `beta()`.
    pub beta: f64,
    /// `alphaRestriction()`.
    pub alpha: ScalarValue,
    /// `highPrecisionAccumulate()`.
    pub hpa: bool,
    /// `stridedBatched()`.
    pub strided_batched: bool,
    /// `groupedGemm()`.
    pub grouped_gemm: bool,
    /// `getUseDeviceUserArguments()`.
    pub device_user_args: bool,
    /// `cEqualsD()`.
    pub c_equals_d: bool,
    /// `useBias()`.
    pub use_bias: i64,
    /// The bias tensor's type.
    pub bias_type: DataType,
    /// `getParams().biasEnum()`: the bias type when the epilogue has one, else `None`.
    pub bias_enum: DataType,
    /// `useE()`.
    pub use_e: bool,
    /// `useGradient()`.
    pub use_gradient: bool,
    /// `useScaleAB()`.
    pub use_scale_ab: String,
    /// `useScaleCD()`.
    pub use_scale_cd: bool,
    /// `useScaleAlphaVec()`.
    pub use_scale_alpha_vec: i64,
    /// `activationType()`: `None` or `Hipblaslt_all`.
    pub activation: &'static str,
    /// `getParams().activationEnum()`: `None`, `Relu` or `Gelu`.
    pub activation_enum: &'static str,
    /// `activationComputeType()`.
    pub activation_compute: DataType,
    /// `activationNoGuard()`.
    pub activation_no_guard: bool,
    /// `outputAmaxD()`.
    pub output_amax_d: bool,
    /// `f32XdlMathOp()`.
    pub f32_xdl: DataType,
    /// `swizzleTensorA()`, `swizzleTensorB()`.
    pub swizzle: [bool; 2],
    /// `sparse()`.
    pub sparse: i64,
    /// `workspaceSize()`.
    pub workspace: u64,
    /// `operationIdentifier()`.
    pub operation: String,
}

impl LiteProblem {
    /// `problemSizes()[i]`: C's sizes (M, N, batch), then K.
    pub fn size(&self, i: u64) -> Option<u64> {
        match i {
            0 => Some(self.m),
            1 => Some(self.n),
            2 => Some(self.batch),
            3 => Some(self.k),
            _ => None,
        }
    }

    /// `d().totalLogicalElements()`.
    pub fn d_elements(&self) -> u64 {
        self.m.wrapping_mul(self.n).wrapping_mul(self.batch)
    }

    /// `betaRestriction()`.
    pub fn beta_restriction(&self) -> ScalarValue {
        ScalarValue::of(self.beta)
    }

    /// The matching key of `FreeSizeA(0), FreeSizeB(0), BatchSize(0), BoundSize(0)`-style
    /// properties.
    pub fn key_value(&self, p: &rocpath_tensile::catalog::Property) -> Result<i64, String> {
        use rocpath_tensile::catalog::Property as P;
        Ok(match *p {
            P::FreeSizeA(0) => self.m as i64,
            P::FreeSizeB(0) => self.n as i64,
            P::BatchSize(0) => self.batch as i64,
            P::BoundSize(0) => self.k as i64,
            P::Stride(t, i) => {
                let t = usize::from(t);
                match i {
                    0 => 1,
                    1 => self.ld.get(t).map_or(0, |v| *v as i64),
                    2 => self.batch_stride.get(t).map_or(0, |v| *v as i64),
                    _ => return Err(format!("stride {i} of a 3-dimension tensor")),
                }
            }
            ref other => return Err(format!("matching property {other:?}")),
        })
    }
}

/// How the problem was built, for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Built {
    /// The problem.
    pub problem: LiteProblem,
    /// Why the arguments became an all-zero problem, when they did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zeroed: Option<&'static str>,
}

/// `roc2TensileComputeInputType` (tensile_host.cpp): FP8 × BF8 mixes are their own types,
/// otherwise the narrower of A and B (A when equal).
fn compute_input(a: DataType, b: DataType) -> DataType {
    match (a, b) {
        (DataType::Float8, DataType::BFloat8) => DataType::Float8BFloat8,
        (DataType::BFloat8, DataType::Float8) => DataType::BFloat8Float8,
        _ if a.bytes() <= b.bytes() => a,
        _ => b,
    }
}

/// The bias type when none was set (`RocblasltContractionProblem`'s constructor,
/// tensile_host.cpp): i32 for i32 compute, f32 for XF32, for FP8 inputs bf16 when D is f32 or
/// bf16 and f16 otherwise, else D's type.
fn default_bias(m: &Matmul) -> HipType {
    let [a, b, _, d] = m.types;
    if m.compute == ComputeType::I32 {
        HipType::I32
    } else if m.compute == ComputeType::Xf32 {
        HipType::F32
    } else if (a.is_f8_fnuz() && b.is_f8_fnuz()) || (a.is_f8() && b.is_f8()) {
        if matches!(d, HipType::F32 | HipType::Bf16) {
            HipType::Bf16
        } else {
            HipType::F16
        }
    } else {
        d
    }
}

/// The `ContractionProblemGemm` the heuristic evaluates: `updateTensileProblem` applied to the
/// descriptor's problem (`getBestSolutions`), alpha = beta = 1, C == D. An error names a type
/// hipBLASLt 7.1.1 cannot hand to the catalogs rocpath reads.
pub fn build(m: &Matmul) -> Result<Built, String> {
    let zeroed = m.refusal();
    let ty = |t: HipType| {
        t.tensile().ok_or_else(|| {
            format!(
                "{}: hipBLASLt 7.1.1 maps it to a FNUZ FP8 type no catalog here holds (only gfx94x builds have them)",
                t.name()
            )
        })
    };
    let types = [
        ty(m.types[0])?,
        ty(m.types[1])?,
        ty(m.types[2])?,
        ty(m.types[3])?,
    ];
    // roc2TensileType(compute, false), then the f16 → f32 fallback "after alpha/beta
    // assignment" (ConstructTensileProblem / updateTensileProblem).
    let compute = m.compute.tensile(m.compute == ComputeType::F16);
    let (mm, nn, kk) = if zeroed.is_some() {
        (0, 0, 0)
    } else {
        (m.m as u64, m.n as u64, m.k as u64)
    };
    let trans = [m.trans[0] != Op::N, m.trans[1] != Op::N];
    let bias_hip = m.bias_type.unwrap_or_else(|| default_bias(m));
    let bias_type = ty(bias_hip)?;
    // `alphaRestriction = 0; if(prob.k) alphaRestriction = alpha;` (updateTensileProblem keeps
    // K as given; only ConstructTensileProblem folds alpha = 0 into K = 0).
    let alpha = ScalarValue::of(if kk != 0 { m.alpha } else { 0.0 });
    let operation = format!(
        "Contraction_l_A{}_B{}_Cijk_Dijk",
        if trans[0] { "lik" } else { "ilk" },
        if trans[1] { "jlk" } else { "ljk" }
    );
    let act = m.activation != Activation::None;
    let problem = LiteProblem {
        trans,
        types,
        compute_input: compute_input(types[0], types[1]),
        compute,
        m: mm,
        n: nn,
        k: kk,
        batch: m.batch as u64,
        ld: m.ld.map(|v| v as u64),
        batch_stride: m.stride.map(|v| v as u64),
        beta: m.beta,
        alpha,
        hpa: compute.bytes() > types[0].bytes(),
        strided_batched: true,
        grouped_gemm: false,
        device_user_args: false,
        c_equals_d: true,
        use_bias: i64::from(m.bias),
        bias_type,
        bias_enum: if m.bias { bias_type } else { DataType::None },
        use_e: false,
        use_gradient: false,
        use_scale_ab: String::new(),
        use_scale_cd: false,
        use_scale_alpha_vec: 0,
        activation: if act { "Hipblaslt_all" } else { "None" },
        activation_enum: m.activation.tensile_name(),
        activation_compute: compute,
        activation_no_guard: false,
        output_amax_d: false,
        f32_xdl: if m.compute == ComputeType::Xf32 {
            DataType::XFloat32
        } else {
            DataType::Float
        },
        swizzle: [false; 2],
        sparse: 0,
        workspace: m.workspace,
        operation,
    };
    Ok(Built { problem, zeroed })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn half_in_float_compute_is_hpa_with_half_compute_input() {
        let m = Matmul::simple(
            HipType::F16,
            HipType::F16,
            ComputeType::F32,
            [Op::T, Op::N],
            64,
            32,
            16,
        );
        let p = build(&m).unwrap().problem;
        assert!(p.hpa);
        assert_eq!(p.compute_input, DataType::Half);
        assert_eq!(p.compute, DataType::Float);
        assert_eq!(p.operation, "Contraction_l_Alik_Bljk_Cijk_Dijk");
        assert_eq!(p.alpha, ScalarValue::One);
        assert_eq!(p.bias_type, DataType::Half);
    }

    #[test]
    fn f16_compute_falls_back_to_float_and_mixed_fp8_has_its_own_input_type() {
        let m = Matmul::simple(
            HipType::F16,
            HipType::F16,
            ComputeType::F16,
            [Op::N, Op::N],
            8,
            8,
            8,
        );
        assert_eq!(build(&m).unwrap().problem.compute, DataType::Float);
        let mut f8 = Matmul::simple(
            HipType::F8,
            HipType::F32,
            ComputeType::F32,
            [Op::N, Op::N],
            8,
            8,
            8,
        );
        f8.types[1] = HipType::Bf8;
        let p = build(&f8).unwrap().problem;
        assert_eq!(p.compute_input, DataType::Float8BFloat8);
        assert_eq!(p.bias_type, DataType::BFloat16);
    }

    #[test]
    fn refused_arguments_become_an_all_zero_problem() {
        let mut m = Matmul::simple(
            HipType::F16,
            HipType::F16,
            ComputeType::Xf32,
            [Op::N, Op::N],
            8,
            8,
            8,
        );
        let b = build(&m).unwrap();
        assert!(b.zeroed.is_some());
        assert_eq!((b.problem.m, b.problem.n, b.problem.k), (0, 0, 0));
        m.types = [HipType::F8Fnuz; 4];
        assert!(build(&m).is_err());
    }
}
