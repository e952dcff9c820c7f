//! MIOpen → GEMM: the rocBLAS call(s) each applicable GEMM solver (`GemmFwd*`, `GemmBwd*`,
//! `GemmWrw*`) issues for a convolution, read from MIOpen's source (ROCm/MIOpen@2d1fd997):
//! the row-major `GemmDescriptor` a solver builds (`src/gemm_v2.cpp`, `CreateGemm*Descriptor*`),
//! how many times it is issued (once, or once per image around `Im2ColGPU`/`Col2ImGPU`), and
//! `CallGemm`/`CallGemmStridedBatched`'s mapping onto column-major rocBLAS (A and B swapped
//! with their transposes, M and N, lda and ldb, strides; the types, `i8 → i32` and the FP16
//! alternate-implementation flag). With a rocBLAS library folder, the kernel `rocpath-gemm`
//! predicts for the call. What the source leaves to run time is `unresolved` with the reason.

use super::{MiopenExplanation, SolverReport};
use crate::gemm::{self as egemm, Libraries};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_gemm::problem::Op;
use rocpath_gemm::rocblas::{Api, BlasType, Call, Settings};
use rocpath_miopen::model::context::Env;
use rocpath_miopen::{DataType, Direction, Problem};
use serde::Serialize;
use std::path::Path;

const AT: &str = "@2d1fd997";

fn cite(s: &str) -> String {
    format!("{s}{AT}")
}

/// A row-major `GemmDescriptor` as a `CreateGemm*Descriptor*` function returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct Desc {
    /// The function that builds it.
    pub builder: &'static str,
    /// Its definition, `src/gemm_v2.cpp:LINE`.
    pub at: &'static str,
    /// transA, transB.
    pub trans: [bool; 2],
    /// m, n, k.
    pub mnk: [i64; 3],
    /// lda, ldb, ldc.
    pub ld: [i64; 3],
    /// batch_count.
    pub batch: i64,
    /// strideA, strideB, strideC.
    pub stride: [i64; 3],
    /// beta (alpha is 1 in every descriptor).
    pub beta: f64,
}

/// How a solver's invoker calls the GEMM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MiopenCall {
    /// `CallGemm`: one `rocblas_gemm_ex`.
    CallGemm,
    /// `CallGemmStridedBatched`: one `rocblas_gemm_strided_batched_ex`.
    CallGemmStridedBatched,
    /// `CallGemmStridedBatchedSequential`: `batch_count` `rocblas_gemm_ex` calls.
    CallGemmStridedBatchedSequential,
}

/// The convolution's tensors by role: x (C, spatial), y (K, spatial), filter, groups, N.
struct Conv {
    n: i64,
    c: i64,
    k: i64,
    x_sp: i64,
    y_sp: i64,
    w_sp: i64,
    g: i64,
    x_type: DataType,
}

fn prod(v: [u64; 3]) -> i64 {
    v.iter()
        .map(|x| i64::try_from(*x).unwrap_or(i64::MAX))
        .fold(1i64, |a, b| a.saturating_mul(b))
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Conv {
    /// MIOpen's problem holds x/y for Forward and y/x for the backward directions
    /// (`src/include/miopen/conv/problem_description.hpp:117-120`).
    fn of(p: &Problem) -> Conv {
        let fwd = p.direction == Direction::Forward;
        let (x_c, x_dhw, y_c, y_dhw) = if fwd {
            (p.in_c, p.in_dhw, p.out_c, p.out_dhw)
        } else {
            (p.out_c, p.out_dhw, p.in_c, p.in_dhw)
        };
        Conv {
            n: int(p.batch),
            c: int(x_c),
            k: int(y_c),
            x_sp: prod(x_dhw),
            y_sp: prod(y_dhw),
            w_sp: prod(p.fil_dhw),
            g: int(p.groups.max(1)),
            x_type: if fwd { p.types[0] } else { p.types[2] },
        }
    }
}

fn desc(b: &'static str, at: &'static str, t: [bool; 2], mnk: [i64; 3], ld: [i64; 3]) -> Desc {
    Desc {
        builder: b,
        at,
        trans: t,
        mnk,
        ld,
        batch: 1,
        stride: [0; 3],
        beta: 0.0,
    }
}

fn batched(mut d: Desc, batch: i64, stride: [i64; 3]) -> Desc {
    d.batch = batch;
    d.stride = stride;
    d
}

/// `CreateGemmDescriptorConvFwd` (`src/gemm_v2.cpp:1519-1569`): y = w · Im2Col(x).
fn conv_fwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.k, c.y_sp, c.c * c.w_sp);
    let i8 = c.x_type == DataType::Int8;
    let ldb = if i8 { k } else { n };
    desc(
        "CreateGemmDescriptorConvFwd",
        "src/gemm_v2.cpp:1519",
        [false, i8],
        [m, n, k],
        [k, ldb, n],
    )
}

/// `CreateGemmDescriptorConvCNHWFwd` (`src/gemm_v2.cpp:1674-1724`).
fn cnhw_fwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.k, c.n * c.y_sp, c.c);
    let i8 = c.x_type == DataType::Int8;
    let ldb = if i8 { k } else { n };
    desc(
        "CreateGemmDescriptorConvCNHWFwd",
        "src/gemm_v2.cpp:1674",
        [false, i8],
        [m, n, k],
        [k, ldb, n],
    )
}

/// `CreateGemmStridedBatchedDescriptorConv1x1Fwd` (`src/gemm_v2.cpp:1778-1829`).
fn conv1x1_fwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.k, c.x_sp, c.c);
    let i8 = c.x_type == DataType::Int8;
    let ldb = if i8 { k } else { n };
    let d = desc(
        "CreateGemmStridedBatchedDescriptorConv1x1Fwd",
        "src/gemm_v2.cpp:1778",
        [false, i8],
        [m, n, k],
        [k, ldb, n],
    );
    batched(d, c.n, [0, k * n, m * n])
}

/// `CreateGemmDescriptorGroupConvFwd` (`src/gemm_v2.cpp:1936-1986`).
fn group_fwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.k / c.g, c.y_sp, (c.c / c.g) * c.w_sp);
    let d = desc(
        "CreateGemmDescriptorGroupConvFwd",
        "src/gemm_v2.cpp:1936",
        [false, false],
        [m, n, k],
        [k, n, n],
    );
    batched(d, c.g, [m * k, k * n, m * n])
}

/// `CreateGemmDescriptorGroupConvCNHWFwd` (`src/gemm_v2.cpp:2092-2142`).
fn group_cnhw_fwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.k / c.g, c.n * c.y_sp, c.c / c.g);
    let d = desc(
        "CreateGemmDescriptorGroupConvCNHWFwd",
        "src/gemm_v2.cpp:2092",
        [false, false],
        [m, n, k],
        [k, n, n],
    );
    batched(d, c.g, [m * k, k * n, m * n])
}

/// `CreateGemmDescriptorConvBwdData` (`src/gemm_v2.cpp:1572-1620`): dx = Col2Im(wᵀ · dy).
fn conv_bwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.c * c.w_sp, c.y_sp, c.k);
    desc(
        "CreateGemmDescriptorConvBwdData",
        "src/gemm_v2.cpp:1572",
        [true, false],
        [m, n, k],
        [m, n, n],
    )
}

/// `CreateGemmDescriptorConvCNHWBwdData` (`src/gemm_v2.cpp:1727-1775`).
fn cnhw_bwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.c, c.n * c.y_sp, c.k);
    desc(
        "CreateGemmDescriptorConvCNHWBwdData",
        "src/gemm_v2.cpp:1727",
        [true, false],
        [m, n, k],
        [m, n, n],
    )
}

/// `CreateGemmStridedBatchedDescriptorConv1x1BwdData` (`src/gemm_v2.cpp:1832-1881`).
fn conv1x1_bwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.c, c.x_sp, c.k);
    let d = desc(
        "CreateGemmStridedBatchedDescriptorConv1x1BwdData",
        "src/gemm_v2.cpp:1832",
        [true, false],
        [m, n, k],
        [m, n, n],
    );
    batched(d, c.n, [0, k * n, m * n])
}

/// `CreateGemmDescriptorGroupConvBwdData` (`src/gemm_v2.cpp:1988-2038`).
fn group_bwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.c / c.g * c.w_sp, c.y_sp, c.k / c.g);
    let d = desc(
        "CreateGemmDescriptorGroupConvBwdData",
        "src/gemm_v2.cpp:1988",
        [true, false],
        [m, n, k],
        [m, n, n],
    );
    batched(d, c.g, [m * k, k * n, m * n])
}

/// `CreateGemmDescriptorGroupConvCNHWBwdData` (`src/gemm_v2.cpp:2144-2194`).
fn group_cnhw_bwd(c: &Conv) -> Desc {
    let (m, n, k) = (c.c / c.g, c.n * c.y_sp, c.k / c.g);
    let d = desc(
        "CreateGemmDescriptorGroupConvCNHWBwdData",
        "src/gemm_v2.cpp:2144",
        [true, false],
        [m, n, k],
        [m, n, n],
    );
    batched(d, c.g, [m * k, k * n, m * n])
}

/// `CreateGemmDescriptorConvBwdWeight` (`src/gemm_v2.cpp:1623-1671`): dw += dy · Im2Col(x)ᵀ.
fn conv_wrw(c: &Conv) -> Desc {
    let (m, n, k) = (c.k, c.c * c.w_sp, c.y_sp);
    let mut d = desc(
        "CreateGemmDescriptorConvBwdWeight",
        "src/gemm_v2.cpp:1623",
        [false, true],
        [m, n, k],
        [k, k, n],
    );
    d.beta = 1.0;
    d
}

/// `CreateGemmStridedBatchedDescriptorConv1x1BwdWeight` (`src/gemm_v2.cpp:1884-1933`).
fn conv1x1_wrw(c: &Conv) -> Desc {
    let (m, n, k) = (c.k, c.c, c.x_sp);
    let mut d = desc(
        "CreateGemmStridedBatchedDescriptorConv1x1BwdWeight",
        "src/gemm_v2.cpp:1884",
        [false, true],
        [m, n, k],
        [k, k, n],
    );
    d.beta = 1.0;
    batched(d, c.n, [m * k, k * n, 0])
}

/// `CreateGemmDescriptorGroupConvBwdWeight` (`src/gemm_v2.cpp:2040-2090`).
fn group_wrw(c: &Conv) -> Desc {
    let (m, n, k) = (c.k / c.g, c.c / c.g * c.w_sp, c.y_sp);
    let mut d = desc(
        "CreateGemmDescriptorGroupConvBwdWeight",
        "src/gemm_v2.cpp:2040",
        [false, true],
        [m, n, k],
        [k, k, n],
    );
    d.beta = 1.0;
    batched(d, c.g, [m * k, k * n, m * n])
}

/// What a solver's invoker does: the descriptor, the call, how many times, and where.
struct Plan {
    desc: Desc,
    call: MiopenCall,
    /// Calls per convolution.
    times: i64,
    /// `convolution`, `image` (once per image of the batch).
    per: &'static str,
    /// The invoker lines: descriptor choice, loop, call.
    at: Vec<&'static str>,
}

/// One solver's invoker: (solver, grouped (None: either), descriptor, call, once per image,
/// the invoker lines — descriptor choice, loop, call). `CallGemmStridedBatchedSequential`
/// issues `batch_count` = N `gemm_ex` calls (`src/gemm_v2.cpp:1428-1455`).
type Row = (
    &'static str,
    Option<bool>,
    fn(&Conv) -> Desc,
    MiopenCall,
    bool,
    &'static [&'static str],
);

const PLANS: &[Row] = &[
    (
        "GemmFwd1x1_0_1",
        Some(true),
        group_fwd,
        MiopenCall::CallGemmStridedBatched,
        true,
        &[
            "src/solver/conv/gemm.cpp:689",
            "src/solver/conv/gemm.cpp:725",
            "src/solver/conv/gemm.cpp:737",
        ],
    ),
    (
        "GemmFwd1x1_0_1",
        Some(false),
        conv1x1_fwd,
        MiopenCall::CallGemmStridedBatched,
        false,
        &[
            "src/solver/conv/gemm.cpp:766",
            "src/solver/conv/gemm.cpp:804",
        ],
    ),
    (
        "GemmFwd1x1_0_1_int8",
        None,
        conv_fwd,
        MiopenCall::CallGemm,
        true,
        &[
            "src/solver/conv/gemm.cpp:542",
            "src/solver/conv/gemm.cpp:592",
            "src/solver/conv/gemm.cpp:603",
        ],
    ),
    (
        "GemmFwd1x1_0_2",
        Some(true),
        group_cnhw_fwd,
        MiopenCall::CallGemmStridedBatched,
        false,
        &[
            "src/solver/conv/gemm.cpp:261",
            "src/solver/conv/gemm.cpp:378",
        ],
    ),
    (
        "GemmFwd1x1_0_2",
        Some(false),
        cnhw_fwd,
        MiopenCall::CallGemm,
        false,
        &[
            "src/solver/conv/gemm.cpp:262",
            "src/solver/conv/gemm.cpp:391",
        ],
    ),
    (
        "GemmFwdRest",
        Some(true),
        group_fwd,
        MiopenCall::CallGemmStridedBatched,
        true,
        &[
            "src/solver/conv/gemm.cpp:908",
            "src/solver/conv/gemm.cpp:961",
            "src/solver/conv/gemm.cpp:1009",
        ],
    ),
    (
        "GemmFwdRest",
        Some(false),
        conv_fwd,
        MiopenCall::CallGemm,
        true,
        &[
            "src/solver/conv/gemm.cpp:909",
            "src/solver/conv/gemm.cpp:961",
            "src/solver/conv/gemm.cpp:1021",
        ],
    ),
    (
        "GemmBwd1x1_stride2",
        Some(true),
        group_cnhw_bwd,
        MiopenCall::CallGemmStridedBatched,
        false,
        &[
            "src/solver/conv/gemm_bwd.cpp:237",
            "src/solver/conv/gemm_bwd.cpp:331",
        ],
    ),
    (
        "GemmBwd1x1_stride2",
        Some(false),
        cnhw_bwd,
        MiopenCall::CallGemm,
        false,
        &[
            "src/solver/conv/gemm_bwd.cpp:238",
            "src/solver/conv/gemm_bwd.cpp:344",
        ],
    ),
    (
        "GemmBwd1x1_stride1",
        Some(true),
        group_bwd,
        MiopenCall::CallGemmStridedBatched,
        true,
        &[
            "src/solver/conv/gemm_bwd.cpp:448",
            "src/solver/conv/gemm_bwd.cpp:500",
            "src/solver/conv/gemm_bwd.cpp:506",
        ],
    ),
    (
        "GemmBwd1x1_stride1",
        Some(false),
        conv1x1_bwd,
        MiopenCall::CallGemmStridedBatched,
        false,
        &[
            "src/solver/conv/gemm_bwd.cpp:449",
            "src/solver/conv/gemm_bwd.cpp:527",
        ],
    ),
    (
        "GemmBwdRest",
        Some(true),
        group_bwd,
        MiopenCall::CallGemmStridedBatched,
        true,
        &[
            "src/solver/conv/gemm_bwd.cpp:624",
            "src/solver/conv/gemm_bwd.cpp:691",
            "src/solver/conv/gemm_bwd.cpp:701",
        ],
    ),
    (
        "GemmBwdRest",
        Some(false),
        conv_bwd,
        MiopenCall::CallGemm,
        true,
        &[
            "src/solver/conv/gemm_bwd.cpp:625",
            "src/solver/conv/gemm_bwd.cpp:691",
            "src/solver/conv/gemm_bwd.cpp:713",
        ],
    ),
    (
        "GemmWrw1x1_stride1",
        Some(true),
        group_wrw,
        MiopenCall::CallGemmStridedBatched,
        true,
        &[
            "src/solver/conv/gemm_wrw.cpp:191",
            "src/solver/conv/gemm_wrw.cpp:255",
            "src/solver/conv/gemm_wrw.cpp:260",
        ],
    ),
    (
        "GemmWrw1x1_stride1",
        Some(false),
        conv1x1_wrw,
        MiopenCall::CallGemmStridedBatchedSequential,
        true,
        &[
            "src/solver/conv/gemm_wrw.cpp:192",
            "src/solver/conv/gemm_wrw.cpp:286",
            "src/gemm_v2.cpp:1428",
        ],
    ),
    (
        "GemmWrwUniversal",
        Some(true),
        group_wrw,
        MiopenCall::CallGemmStridedBatched,
        true,
        &[
            "src/solver/conv/gemm_wrw.cpp:370",
            "src/solver/conv/gemm_wrw.cpp:453",
            "src/solver/conv/gemm_wrw.cpp:476",
        ],
    ),
    (
        "GemmWrwUniversal",
        Some(false),
        conv_wrw,
        MiopenCall::CallGemm,
        true,
        &[
            "src/solver/conv/gemm_wrw.cpp:371",
            "src/solver/conv/gemm_wrw.cpp:453",
            "src/solver/conv/gemm_wrw.cpp:489",
        ],
    ),
];

fn plan(solver: &str, c: &Conv) -> Option<Plan> {
    let grouped = c.g > 1;
    let (_, _, build, call, per_image, at) = PLANS
        .iter()
        .find(|r| r.0 == solver && r.1.is_none_or(|g| g == grouped))?;
    Some(Plan {
        desc: build(c),
        call: *call,
        times: if *per_image { c.n } else { 1 },
        per: if *per_image { "image" } else { "convolution" },
        at: at.to_vec(),
    })
}

/// The rocBLAS types of `CallGemm*` for the descriptor's `dataType` (x's type): A, B, C, D
/// and the compute type (`src/gemm_v2.cpp:121-127`, `:721-911`), or why there is none.
fn types(t: DataType, casts: bool) -> Result<([BlasType; 4], BlasType), String> {
    use BlasType::*;
    if casts {
        return Err("cast tensors: CallGemm takes rocblas_gemm_ex3 (8-bit float compute types, gfx94x only; src/gemm_v2.cpp:759-785), which the GEMM model does not cover".into());
    }
    Ok(match t {
        DataType::Fp32 => ([F32; 4], F32),
        DataType::Fp16 => ([F16; 4], F32),
        DataType::Bf16 => ([Bf16; 4], F32),
        DataType::Int8 => ([I8, I8, I32, I32], I32),
        DataType::Fp8 | DataType::Bf8 => {
            return Err("FP8/BF8 data: rocblas_gemm_ex3, gfx94x only (src/gemm_v2.cpp:888-902), not covered by the GEMM model".into())
        }
        other => return Err(format!("{other} data: CallGemm issues no rocBLAS call (src/gemm_v2.cpp:755, :904-915)")),
    })
}

/// `rocblas_gemm_flags_fp16_alt_impl`.
pub const FP16_ALT_IMPL: u32 = 0x4;

/// The FP16 alternate implementation the invoker passes: the convolution attribute, whose
/// default is off forward and on backward (`src/include/miopen/convolution.hpp:77-85`), read
/// by `src/ocl/convolutionocl.cpp:266/894/1101`; `MIOPEN_DEBUG_CONVOLUTION_ATTRIB_FP16_ALT_IMPL`
/// replaces it.
fn fp16_alt(dir: Direction, env: &Env) -> bool {
    let v: i64 = env
        .get("MIOPEN_DEBUG_CONVOLUTION_ATTRIB_FP16_ALT_IMPL")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(-1);
    match dir {
        Direction::Forward => v == 1,
        _ => v != 0,
    }
}

/// `CallGemm*`: the row-major descriptor onto column-major rocBLAS — A and B swapped with their
/// transposes, m and n, lda and ldb, strideA and strideB (`src/gemm_v2.cpp:688-697`,
/// `:956-966`, `:1244-1254`).
pub fn to_rocblas(d: &Desc, call: MiopenCall, ty: ([BlasType; 4], BlasType), flags: u32) -> Call {
    let op = |t: bool| if t { Op::T } else { Op::N };
    let strided = call == MiopenCall::CallGemmStridedBatched;
    Call {
        api: if strided {
            Api::GemmStridedBatchedEx
        } else {
            Api::GemmEx
        },
        types: ty.0,
        compute: ty.1,
        trans: [op(d.trans[1]), op(d.trans[0])],
        m: d.mnk[1],
        n: d.mnk[0],
        k: d.mnk[2],
        ld: [d.ld[1], d.ld[0], d.ld[2], d.ld[2]],
        stride: if strided {
            [d.stride[1], d.stride[0], d.stride[2], d.stride[2]]
        } else {
            [0; 4]
        },
        batch: if strided { d.batch } else { 1 },
        alpha: 1.0,
        beta: d.beta,
        c_is_d: true,
        flags,
        xf32: false,
    }
}

/// The kernel the GEMM model predicts for the call.
#[derive(Debug, Clone, Serialize)]
pub struct GemmKernel {
    /// The rocBLAS library folder.
    pub library_dir: String,
    /// `explain gemm`'s outcome for the call.
    pub outcome: crate::gemm::GemmOutcome,
    /// Kernel name (`Cijk_…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Solution index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<i64>,
    /// The catalog file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why the model could not decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// Evidence (the GEMM model's).
    pub evidence: Evidence,
}

/// The GEMM an applicable GEMM solver issues.
#[derive(Debug, Clone, Serialize)]
pub struct IssuedGemm {
    /// The solver.
    pub solver: String,
    /// The descriptor builder (`CreateGemmStridedBatchedDescriptorConv1x1Fwd`).
    pub descriptor: String,
    /// `call_gemm`, `call_gemm_strided_batched`, `call_gemm_strided_batched_sequential`.
    pub miopen_call: MiopenCall,
    /// The rocBLAS call (column-major; `api` `gemm_ex` or `gemm_strided_batched_ex`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<Call>,
    /// How many times the call is issued per convolution.
    pub times: i64,
    /// `convolution` (once) or `image` (once per image of the batch, around Im2Col/Col2Im).
    pub per: String,
    /// The source lines that decide it, `path:line@commit`.
    pub cites: Vec<String>,
    /// Why the call cannot be derived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// The kernel the GEMM model predicts (with a rocBLAS library folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<GemmKernel>,
    /// Evidence.
    pub evidence: Evidence,
}

/// The GEMM backend `CallGemm*` uses: rocBLAS (what the solvers ask for), unless
/// `MIOPEN_GEMM_ENFORCE_BACKEND` says otherwise (`src/gemm_v2.cpp:648-672`).
fn backend(env: &Env) -> Result<(), String> {
    match env.get("MIOPEN_GEMM_ENFORCE_BACKEND").map(str::trim) {
        None | Some("") | Some("1") => Ok(()),
        Some("3") => Err("MIOPEN_GEMM_ENFORCE_BACKEND=3: no GEMM backend, CallGemm returns miopenStatusNotImplemented and the invoker throws \"GEMM execution failure\" (src/gemm_v2.cpp:661-663, :701)".into()),
        Some(v) => Err(format!("MIOPEN_GEMM_ENFORCE_BACKEND={v}: hipBLASLt (5, when MIOpen is built with it) or the preferred backend; not modelled")),
    }
}

/// The GEMM `solver` issues for `p`, or None for a solver that issues no GEMM.
pub fn issued(solver: &str, p: &Problem, env: &Env) -> Option<IssuedGemm> {
    let c = Conv::of(p);
    let pl = plan(solver, &c)?;
    let mut cites: Vec<String> = pl.at.iter().map(|s| cite(s)).collect();
    cites.push(cite(pl.desc.at));
    let swap = match pl.call {
        MiopenCall::CallGemm => "src/gemm_v2.cpp:688",
        MiopenCall::CallGemmStridedBatched => "src/gemm_v2.cpp:956",
        MiopenCall::CallGemmStridedBatchedSequential => "src/gemm_v2.cpp:1244",
    };
    cites.push(cite(swap));
    let flags = if c.x_type == DataType::Fp16 && fp16_alt(p.direction, env) {
        cites.push(cite("src/include/miopen/convolution.hpp:83"));
        FP16_ALT_IMPL
    } else {
        0
    };
    let call = backend(env)
        .and_then(|()| types(c.x_type, p.has_casts()))
        .map(|t| to_rocblas(&pl.desc, pl.call, t, flags));
    let mut ev = Evidence::new(
        Class::Inferred,
        Proof::CodeVerified,
        "explain.miopen.gemm_issued",
    );
    for s in pl.at.iter().chain([&pl.desc.at, &swap]) {
        ev = ev.at(loc(s));
    }
    let (call, unresolved) = match call {
        Ok(c) => (Some(c), None),
        Err(why) => {
            ev = Evidence::new(
                Class::Unresolved,
                Proof::CodeVerified,
                "explain.miopen.gemm_unresolved",
            )
            .at(loc(pl.desc.at))
            .because(why.clone());
            (None, Some(why))
        }
    };
    Some(IssuedGemm {
        solver: solver.to_string(),
        descriptor: pl.desc.builder.to_string(),
        miopen_call: pl.call,
        call,
        times: pl.times,
        per: pl.per.to_string(),
        cites,
        unresolved,
        kernel: None,
        evidence: ev,
    })
}

fn loc(s: &str) -> Locator {
    let (f, l) = s
        .rsplit_once(':')
        .map_or((s, None), |(f, l)| (f, l.parse().ok()));
    let mut loc = Locator::file(format!("{}:{f}", super::MIOPEN_SOURCE));
    if let Some(l) = l {
        loc = loc.with_line(l);
    }
    loc
}

/// The GEMMs of every applicable GEMM solver of an explanation.
pub fn issued_all(solvers: &[SolverReport], p: &Problem, env: &Env) -> Vec<IssuedGemm> {
    solvers
        .iter()
        .filter(|s| s.applicability == "applicable")
        .filter_map(|s| issued(&s.solver, p, env))
        .collect()
}

/// Adds the kernel the GEMM model predicts for each issued call on `target` with the rocBLAS
/// catalogs of `dir` (the rocBLAS settings of a default handle).
pub fn predict_kernels(e: &mut MiopenExplanation, libs: &Libraries, dir: &Path) {
    let dev = match egemm::device(&e.device.target, e.device.cus) {
        Ok(d) => d,
        Err(why) => {
            for g in &mut e.gemms {
                g.kernel = Some(unresolved_kernel(dir, why.to_string()));
            }
            return;
        }
    };
    let settings = Settings::default();
    for g in &mut e.gemms {
        let Some(call) = &g.call else { continue };
        let x = egemm::explain(libs, dir, call, &dev, &settings, false);
        let chosen = x.chosen.as_ref();
        g.kernel = Some(GemmKernel {
            library_dir: dir.display().to_string(),
            outcome: x.outcome,
            name: chosen.map(|c| c.name.clone()),
            index: chosen.map(|c| c.index),
            file: chosen.map(|c| c.file.clone()),
            unresolved: x.unresolved.clone(),
            evidence: chosen.map_or(x.evidence.clone(), |c| c.evidence.clone()),
        });
    }
}

fn unresolved_kernel(dir: &Path, why: String) -> GemmKernel {
    GemmKernel {
        library_dir: dir.display().to_string(),
        outcome: crate::gemm::GemmOutcome::Unresolved,
        name: None,
        index: None,
        file: None,
        unresolved: Some(why.clone()),
        evidence: Evidence::new(
            Class::Unresolved,
            Proof::Hypothesis,
            "explain.miopen.gemm_unresolved",
        )
        .because(why),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn problem(args: &str) -> Problem {
        let driver: Vec<String> = args.split_whitespace().map(String::from).collect();
        let (mut ps, _) = super::super::request::problems(
            None,
            &driver,
            rocpath_miopen::select::Mode::Find,
            None,
        )
        .unwrap();
        ps.remove(0)
    }

    /// MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 (the recorded Vega64 case):
    /// `CreateGemmStridedBatchedDescriptorConv1x1Fwd` gives, row-major, m = K = 64,
    /// n = H·W = 3136, k = C = 64, lda = 64, ldb = ldc = 3136, batch = N = 32, strides
    /// 0 / 64·3136 / 64·3136 (gemm_v2.cpp:1799-1808); `CallGemmStridedBatched` swaps A and B
    /// (gemm_v2.cpp:956-966): rocBLAS computes x·w column-major, N N 3136×64×64.
    #[test]
    fn fwd_1x1_fp32_is_one_strided_batched_call() {
        let p = problem(
            "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -F 1",
        );
        let g = issued("GemmFwd1x1_0_1", &p, &Env::default()).unwrap();
        assert_eq!(g.descriptor, "CreateGemmStridedBatchedDescriptorConv1x1Fwd");
        assert_eq!((g.times, g.per.as_str()), (1, "convolution"));
        let c = g.call.unwrap();
        assert_eq!(c.api, Api::GemmStridedBatchedEx);
        assert_eq!(c.trans, [Op::N, Op::N]);
        assert_eq!((c.m, c.n, c.k), (3136, 64, 64));
        assert_eq!(c.ld, [3136, 64, 3136, 3136]);
        assert_eq!(c.stride, [200_704, 0, 200_704, 200_704]);
        assert_eq!(c.batch, 32);
        assert_eq!((c.types, c.compute), ([BlasType::F32; 4], BlasType::F32));
        assert_eq!((c.alpha, c.beta, c.flags), (1.0, 0.0, 0));
        assert!(g.cites.iter().any(|s| s == "src/gemm_v2.cpp:1778@2d1fd997"));
        // A 1x1 stride-1 problem is not GemmFwd1x1_0_2's; GemmFwdRest would run one GEMM per
        // image: m = K, n = Ho·Wo, k = C·1·1.
        let r = issued("GemmFwdRest", &p, &Env::default())
            .unwrap()
            .call
            .unwrap();
        assert_eq!(
            (r.api, r.m, r.n, r.k, r.batch),
            (Api::GemmEx, 3136, 64, 64, 1)
        );
    }

    /// MIOpenDriver conv -n 16 -c 64 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1: GemmFwdRest's
    /// `CreateGemmDescriptorConvFwd` (gemm_v2.cpp:1535-1545): row-major m = K = 128,
    /// n = Ho·Wo = 784, k = C·3·3 = 576, lda = k, ldb = ldc = n, once per image after
    /// Im2Col (gemm.cpp:961-1021); rocBLAS gets N N 784×128×576, lda 784, ldb 576, ldc 784.
    #[test]
    fn fwd_rest_3x3_is_one_gemm_per_image() {
        let p = problem(
            "MIOpenDriver conv -n 16 -c 64 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1",
        );
        let g = issued("GemmFwdRest", &p, &Env::default()).unwrap();
        assert_eq!(g.descriptor, "CreateGemmDescriptorConvFwd");
        assert_eq!((g.times, g.per.as_str()), (16, "image"));
        let c = g.call.unwrap();
        assert_eq!(c.api, Api::GemmEx);
        assert_eq!(c.trans, [Op::N, Op::N]);
        assert_eq!((c.m, c.n, c.k), (784, 128, 576));
        assert_eq!(c.ld, [784, 576, 784, 784]);
        assert_eq!((c.batch, c.stride), (1, [0; 4]));
    }

    /// INT8: transB on the row-major descriptor (ldb = k), i8 inputs, i32 output and compute
    /// (gemm_v2.cpp:1537-1543, :721-753); after the swap rocBLAS gets T N.
    #[test]
    fn int8_is_i8_i32_with_a_transposed() {
        let p =
            problem("MIOpenDriver convint8 -n 2 -c 64 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 1");
        let c = issued("GemmFwdRest", &p, &Env::default())
            .unwrap()
            .call
            .unwrap();
        assert_eq!(c.trans, [Op::T, Op::N]);
        assert_eq!((c.m, c.n, c.k), (196, 32, 576));
        assert_eq!(c.ld, [576, 576, 196, 196]);
        assert_eq!(
            c.types,
            [BlasType::I8, BlasType::I8, BlasType::I32, BlasType::I32]
        );
        assert_eq!(c.compute, BlasType::I32);
    }

    /// FP16: the alternate implementation is off forward and on backward by default; the
    /// environment variable replaces the attribute.
    #[test]
    fn fp16_alt_impl_follows_direction_and_env() {
        let f =
            problem("MIOpenDriver convfp16 -n 4 -c 32 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 1");
        let b =
            problem("MIOpenDriver convfp16 -n 4 -c 32 -H 14 -W 14 -k 32 -y 3 -x 3 -p 1 -q 1 -F 2");
        let none = Env::default();
        assert_eq!(
            issued("GemmFwdRest", &f, &none)
                .unwrap()
                .call
                .unwrap()
                .flags,
            0
        );
        let bc = issued("GemmBwdRest", &b, &none).unwrap().call.unwrap();
        assert_eq!(bc.flags, FP16_ALT_IMPL);
        // dx = Col2Im(wᵀ·dy): row-major T N, m = C·9, n = Ho·Wo, k = K; swapped: N T.
        assert_eq!((bc.trans, bc.m, bc.n, bc.k), ([Op::N, Op::T], 196, 288, 32));
        let on = Env::from_pairs(["MIOPEN_DEBUG_CONVOLUTION_ATTRIB_FP16_ALT_IMPL=1"]).unwrap();
        assert_eq!(
            issued("GemmFwdRest", &f, &on).unwrap().call.unwrap().flags,
            FP16_ALT_IMPL
        );
    }

    #[test]
    fn unmodelled_backend_and_types_are_unresolved() {
        let p = problem("MIOpenDriver conv -n 2 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3 -F 1");
        let e = Env::from_pairs(["MIOPEN_GEMM_ENFORCE_BACKEND=5"]).unwrap();
        let g = issued("GemmFwdRest", &p, &e).unwrap();
        assert!(g.call.is_none() && g.unresolved.is_some());
        assert_eq!(g.evidence.rule, "explain.miopen.gemm_unresolved");
        assert!(issued("ConvAsm1x1U", &p, &e).is_none());
    }
}
