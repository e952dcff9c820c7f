//! The routing above the tree for rocBLAS 6.4.4: the call a user makes → the arguments rocBLAS
//! checks, the early returns, the backend (hipBLASLt or Tensile), and the Tensile problem it
//! builds. Every step cites the rocBLAS 6.4.4 source (Debian's `rocblas_6.4.4.orig.tar.gz`,
//! `library/src/`).

use crate::device::Device;
use crate::problem::{Gemm, Metric, Modes, Op, Problem};
use rocpath_tensile::catalog::{DataType, ScalarValue};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The rocBLAS version these rules were read from.
pub const VERSION: &str = "rocBLAS 6.4.4";

/// A rocBLAS GEMM entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// `rocblas_?gemm`.
    Gemm,
    /// `rocblas_?gemm_strided_batched`.
    GemmStridedBatched,
    /// `rocblas_?gemm_batched` (arrays of pointers).
    GemmBatched,
    /// `rocblas_gemm_ex`.
    GemmEx,
    /// `rocblas_gemm_strided_batched_ex`.
    GemmStridedBatchedEx,
    /// `rocblas_gemm_batched_ex`.
    GemmBatchedEx,
}

impl Api {
    /// Parses the names above (`gemm`, `gemm_ex`, …).
    pub fn parse(s: &str) -> Option<Api> {
        Some(match s {
            "gemm" => Api::Gemm,
            "gemm_strided_batched" => Api::GemmStridedBatched,
            "gemm_batched" => Api::GemmBatched,
            "gemm_ex" => Api::GemmEx,
            "gemm_strided_batched_ex" => Api::GemmStridedBatchedEx,
            "gemm_batched_ex" => Api::GemmBatchedEx,
            _ => return None,
        })
    }

    /// The name.
    pub fn name(self) -> &'static str {
        match self {
            Api::Gemm => "gemm",
            Api::GemmStridedBatched => "gemm_strided_batched",
            Api::GemmBatched => "gemm_batched",
            Api::GemmEx => "gemm_ex",
            Api::GemmStridedBatchedEx => "gemm_strided_batched_ex",
            Api::GemmBatchedEx => "gemm_batched_ex",
        }
    }

    /// An `_ex` API (types given at run time).
    pub fn is_ex(self) -> bool {
        matches!(
            self,
            Api::GemmEx | Api::GemmStridedBatchedEx | Api::GemmBatchedEx
        )
    }

    fn pointer_arrays(self) -> bool {
        matches!(self, Api::GemmBatched | Api::GemmBatchedEx)
    }

    fn single(self) -> bool {
        matches!(self, Api::Gemm | Api::GemmEx)
    }
}

/// A rocBLAS data type (`rocblas_datatype`), by rocpath's short names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlasType {
    /// `f16_r`.
    F16,
    /// `bf16_r`.
    Bf16,
    /// `f32_r`.
    F32,
    /// `f64_r`.
    F64,
    /// `i8_r`.
    I8,
    /// `i32_r`.
    I32,
    /// `f32_c`.
    C32,
    /// `f64_c`.
    C64,
}

impl BlasType {
    /// Parses `f16 bf16 f32 f64 i8 i32 c32 c64` (and rocBLAS's `f32_r`, `h`, `s`, `d`, … spellings).
    pub fn parse(s: &str) -> Option<BlasType> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "f16" | "f16_r" | "h" | "half" => BlasType::F16,
            "bf16" | "bf16_r" => BlasType::Bf16,
            "f32" | "f32_r" | "s" | "float" => BlasType::F32,
            "f64" | "f64_r" | "d" | "double" => BlasType::F64,
            "i8" | "i8_r" => BlasType::I8,
            "i32" | "i32_r" => BlasType::I32,
            "c32" | "f32_c" | "c" => BlasType::C32,
            "c64" | "f64_c" | "z" => BlasType::C64,
            _ => return None,
        })
    }

    /// Tensile's type (`tensile_datatype<T>`).
    pub fn tensile(self) -> DataType {
        match self {
            BlasType::F16 => DataType::Half,
            BlasType::Bf16 => DataType::BFloat16,
            BlasType::F32 => DataType::Float,
            BlasType::F64 => DataType::Double,
            BlasType::I8 => DataType::Int8,
            BlasType::I32 => DataType::Int32,
            BlasType::C32 => DataType::ComplexFloat,
            BlasType::C64 => DataType::ComplexDouble,
        }
    }

    /// The short name.
    pub fn name(self) -> &'static str {
        match self {
            BlasType::F16 => "f16",
            BlasType::Bf16 => "bf16",
            BlasType::F32 => "f32",
            BlasType::F64 => "f64",
            BlasType::I8 => "i8",
            BlasType::I32 => "i32",
            BlasType::C32 => "c32",
            BlasType::C64 => "c64",
        }
    }
}

/// A GEMM call as the user makes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The entry point.
    pub api: Api,
    /// Types of A, B, C, D.
    pub types: [BlasType; 4],
    /// The compute type (alpha, beta).
    pub compute: BlasType,
    /// op(A), op(B).
    pub trans: [Op; 2],
    /// M, N, K.
    pub m: i64,
    /// N.
    pub n: i64,
    /// K.
    pub k: i64,
    /// lda, ldb, ldc, ldd (ldd is ldc for the non-`_ex` APIs).
    pub ld: [i64; 4],
    /// Batch strides of A, B, C, D (read by the strided-batched APIs only).
    pub stride: [i64; 4],
    /// Batch count (1 for `gemm` and `gemm_ex`).
    pub batch: i64,
    /// alpha (real part).
    pub alpha: f64,
    /// beta (real part).
    pub beta: f64,
    /// For the `_ex` APIs: C and D are the same buffer.
    #[serde(default)]
    pub c_is_d: bool,
    /// `rocblas_gemm_flags`.
    #[serde(default)]
    pub flags: u32,
    /// `rocblas_set_math_mode(rocblas_xf32_xdl_math_op)` was called.
    #[serde(default)]
    pub xf32: bool,
}

impl Call {
    /// A plain `?gemm` of one type with minimal leading dimensions, alpha 1, beta 0.
    pub fn simple(t: BlasType, trans: [Op; 2], m: i64, n: i64, k: i64) -> Call {
        let lda = if trans[0] == Op::N { m } else { k };
        let ldb = if trans[1] == Op::N { k } else { n };
        Call {
            api: Api::Gemm,
            types: [t; 4],
            compute: t,
            trans,
            m,
            n,
            k,
            ld: [lda.max(1), ldb.max(1), m.max(1), m.max(1)],
            stride: [0; 4],
            batch: 1,
            alpha: 1.0,
            beta: 0.0,
            c_is_d: true,
            flags: 0,
            xf32: false,
        }
    }
}

/// The handle and environment settings that change the route or the problem.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Settings {
    /// `ROCBLAS_USE_HIPBLASLT` (None: unset).
    pub use_hipblaslt: Option<String>,
    /// The installed librocblas was linked with hipBLASLt (None: not known).
    pub built_with_hipblaslt: Option<bool>,
    /// `rocblas_set_atomics_mode(rocblas_atomics_not_allowed)` was called.
    pub atomics_not_allowed: bool,
    /// Workspace given to the handle (None: the default device memory).
    pub workspace: Option<u64>,
    /// `ROCBLAS_INTERNAL_FP16_ALT_IMPL`, `…_RNZ` (None: unset).
    pub fp16_alt_impl_env: Option<bool>,
    /// `ROCBLAS_INTERNAL_FP16_ALT_IMPL_RNZ`.
    pub fp16_alt_impl_rnz_env: Option<bool>,
    /// `ROCBLAS_INTERNAL_FORCE_VALU_FOR_DGEMM` set.
    pub force_valu_dgemm: bool,
    /// `TENSILE_EXPERIMENTAL_SELECTION` (1 grid, 2 decision trees).
    pub experimental_selection: Option<i64>,
    /// `TENSILE_SOLUTION_INDEX` (`strtol(v, nullptr, 0)`: decimal, `0x` hex or `0` octal).
    pub tensile_solution_index: Option<i64>,
    /// `TENSILE_METRIC` (replaces every table's distance).
    pub tensile_metric: Option<String>,
    /// `TENSILE_NAIVE_SEARCH` set.
    pub naive_search: bool,
    /// `ROCBLAS_TENSILE_GEMM_OVERRIDE_PATH`.
    pub gemm_override_path: Option<String>,
}

/// The environment variables [`Settings::from_env`] reads.
pub const WATCHED: [&str; 10] = [
    "ROCBLAS_USE_HIPBLASLT",
    "ROCBLAS_INTERNAL_FP16_ALT_IMPL",
    "ROCBLAS_INTERNAL_FP16_ALT_IMPL_RNZ",
    "ROCBLAS_INTERNAL_FORCE_VALU_FOR_DGEMM",
    "TENSILE_EXPERIMENTAL_SELECTION",
    "TENSILE_SOLUTION_INDEX",
    "TENSILE_METRIC",
    "TENSILE_NAIVE_SEARCH",
    "ROCBLAS_TENSILE_GEMM_OVERRIDE_PATH",
    "ROCBLAS_TENSILE_LIBPATH",
];

impl Settings {
    /// Settings from environment values (`get(name)`), as rocBLAS and Tensile read them:
    /// `atoi(v) != 0` for the FP16 switches (`tensile_host.cpp:521-545`), presence for the
    /// VALU switch (`:483`), `strncmp(v, "1", 1)` for hipBLASLt (`handle.cpp:256-272`),
    /// `Debug.cpp:185-216` for Tensile's.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Settings {
        let atoi = |v: String| leading_int(&v);
        Settings {
            use_hipblaslt: get("ROCBLAS_USE_HIPBLASLT"),
            fp16_alt_impl_env: get("ROCBLAS_INTERNAL_FP16_ALT_IMPL").map(|v| atoi(v) != 0),
            fp16_alt_impl_rnz_env: get("ROCBLAS_INTERNAL_FP16_ALT_IMPL_RNZ").map(|v| atoi(v) != 0),
            force_valu_dgemm: get("ROCBLAS_INTERNAL_FORCE_VALU_FOR_DGEMM").is_some(),
            experimental_selection: get("TENSILE_EXPERIMENTAL_SELECTION").map(|v| strtol0(&v)),
            tensile_solution_index: get("TENSILE_SOLUTION_INDEX").map(|v| strtol0(&v)),
            tensile_metric: get("TENSILE_METRIC").filter(|v| !v.is_empty()),
            naive_search: get("TENSILE_NAIVE_SEARCH").is_some_and(|v| strtol0(&v) != 0),
            gemm_override_path: get("ROCBLAS_TENSILE_GEMM_OVERRIDE_PATH"),
            ..Settings::default()
        }
    }
}

/// `strtol(v, nullptr, 0)` as Tensile's `Debug.cpp` reads its switches: `0x`/`0X` hexadecimal,
/// a leading `0` octal, else decimal; 0 when no digit follows.
pub(crate) fn strtol0(v: &str) -> i64 {
    let t = v.trim_start();
    let (sign, rest) = match t.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let (radix, digits) = if let Some(h) = rest.strip_prefix("0x").or(rest.strip_prefix("0X")) {
        (16, h)
    } else if rest.starts_with('0') {
        (8, rest)
    } else {
        (10, rest)
    };
    let d: String = digits
        .chars()
        .take_while(|c| c.is_digit(radix))
        .take(15)
        .collect();
    sign * i64::from_str_radix(&d, radix).unwrap_or(0)
}

/// `atoi`: the leading integer, 0 when there is none.
fn leading_int(v: &str) -> i64 {
    let t = v.trim_start();
    let (sign, rest) = match t.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits: String = rest
        .chars()
        .take_while(char::is_ascii_digit)
        .take(18)
        .collect();
    sign * digits.parse::<i64>().unwrap_or(0)
}

/// A step of the route, with the source line that decides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cited {
    /// What happens.
    pub text: String,
    /// `path:line` in rocBLAS 6.4.4's `library/src`, or Tensile's.
    pub cite: Cow<'static, str>,
}

/// The steps of a route, kept only when someone will read them.
pub struct Steps(Option<Vec<Cited>>);

impl Steps {
    fn push(&mut self, f: impl FnOnce() -> Cited) {
        if let Some(v) = self.0.as_mut() {
            v.push(f());
        }
    }
}

fn cited(text: impl Into<String>, cite: &'static str) -> Cited {
    Cited {
        text: text.into(),
        cite: Cow::Borrowed(cite),
    }
}

/// Where the call goes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "route", rename_all = "snake_case")]
pub enum Route {
    /// rocBLAS refuses the arguments.
    Invalid {
        /// The status returned.
        status: &'static str,
        /// Why.
        why: Cited,
    },
    /// rocBLAS returns success before any kernel.
    QuickReturn {
        /// Why.
        why: Cited,
    },
    /// rocBLAS has no kernel for this type combination.
    NotImplemented {
        /// Why.
        why: Cited,
    },
    /// hipBLASLt takes the call (falling back to Tensile if it fails).
    HipBlasLt {
        /// Why.
        why: Cited,
        /// The Tensile problem rocBLAS falls back to.
        fallback: Box<Problem>,
    },
    /// Tensile takes the call with this problem.
    Tensile {
        /// The problem.
        problem: Box<Problem>,
    },
}

/// The route of `call` on `dev` with `settings`, and the steps that decided it.
pub fn route(call: &Call, settings: &Settings, dev: &Device) -> (Route, Vec<Cited>) {
    let mut steps = Steps(Some(Vec::new()));
    let r = route_in(call, settings, dev, &mut steps);
    (r, steps.0.unwrap_or_default())
}

/// The route alone, without recording its steps (for sweeps).
pub fn route_quiet(call: &Call, settings: &Settings, dev: &Device) -> Route {
    route_in(call, settings, dev, &mut Steps(None))
}

fn route_in(call: &Call, settings: &Settings, dev: &Device, steps: &mut Steps) -> Route {
    // The typed APIs take one type; a call that mixes them cannot be made (checked first).
    if !call.api.is_ex() {
        if let Some(why) = type_refusal(call) {
            return Route::NotImplemented { why };
        }
    }
    if let Some(r) = check(call, steps) {
        return r;
    }
    if let Some(why) = type_refusal(call) {
        return Route::NotImplemented { why };
    }
    let problem = Box::new(tensile_problem(call, settings, dev, steps));
    let arch = dev.processor();
    let lt = match settings.use_hipblaslt.as_deref() {
        Some(v) => v.starts_with('1'),
        None => matches!(arch, "gfx1200" | "gfx1201") && !call.api.pointer_arrays(),
    };
    let built = settings.built_with_hipblaslt != Some(false);
    if lt && built {
        let why = cited(
            match settings.use_hipblaslt.as_deref() {
                Some(v) => format!("ROCBLAS_USE_HIPBLASLT={v}: hipBLASLt first"),
                None => format!(
                    "{arch} is a default hipBLASLt architecture and the call is not batched by pointer arrays"
                ),
            },
            "include/handle.hpp:273-317; tensile_host.cpp:1106-1147",
        );
        return Route::HipBlasLt {
            why,
            fallback: problem,
        };
    }
    steps.push(|| cited(
        match (settings.use_hipblaslt.as_deref(), built) {
            (_, false) if lt => "this librocblas is not linked with hipBLASLt (built without BUILD_WITH_HIPBLASLT): Tensile".to_string(),
            (Some(v), _) => format!("ROCBLAS_USE_HIPBLASLT={v}: not hipBLASLt, Tensile"),
            (None, _) if matches!(arch, "gfx1200" | "gfx1201") => "batched by pointer arrays: Tensile (hipBLASLt only for non-batched calls)".into(),
            (None, _) => format!("{arch} is not a default hipBLASLt architecture (gfx1200, gfx1201): Tensile"),
        },
        "include/handle.hpp:273-317",
    ));
    Route::Tensile { problem }
}

fn check(call: &Call, steps: &mut Steps) -> Option<Route> {
    let c = call;
    let (cite_check, cite_quick) = if c.api.is_ex() {
        (
            "blas_ex/rocblas_gemm_ex.hpp:135-146",
            "blas_ex/rocblas_gemm_ex.hpp:143-146",
        )
    } else {
        (
            "blas3/rocblas_gemm.hpp:92-103",
            "blas3/rocblas_gemm.hpp:105-108",
        )
    };
    let batch = if c.api.single() { 1 } else { c.batch };
    if c.m < 0 || c.n < 0 || c.k < 0 || batch < 0 {
        return Some(Route::Invalid {
            status: "rocblas_status_invalid_size",
            why: cited("a negative size or batch count", cite_check),
        });
    }
    let rows_a = if c.trans[0] == Op::N { c.m } else { c.k };
    let rows_b = if c.trans[1] == Op::N { c.k } else { c.n };
    let ldd = if c.api.is_ex() { c.ld[3] } else { c.ld[2] };
    if rows_a > c.ld[0] || rows_b > c.ld[1] || c.m > c.ld[2] || (c.api.is_ex() && c.m > ldd) {
        return Some(Route::Invalid {
            status: "rocblas_status_invalid_size",
            why: cited(
                format!(
                    "a leading dimension is smaller than its matrix's rows (lda {} < {rows_a}, ldb {} < {rows_b} or ldc/ldd < M {})",
                    c.ld[0], c.ld[1], c.m
                ),
                cite_check,
            ),
        });
    }
    if c.m == 0 || c.n == 0 || batch == 0 {
        return Some(Route::QuickReturn {
            why: cited(
                "M, N or the batch count is 0: nothing to compute",
                cite_quick,
            ),
        });
    }
    if !c.api.is_ex() && c.beta == 1.0 && (c.k == 0 || c.alpha == 0.0) {
        return Some(Route::QuickReturn {
            why: cited(
                "beta is 1 and K or alpha is 0: C is already the answer",
                "blas3/rocblas_gemm.hpp:116-128",
            ),
        });
    }
    if c.api.is_ex() && c.c_is_d && (c.ld[2] != c.ld[3] || c.types[2] != c.types[3]) {
        return Some(Route::Invalid {
            status: if c.ld[2] != c.ld[3] {
                "rocblas_status_invalid_size"
            } else {
                "rocblas_status_invalid_value"
            },
            why: cited(
                "C and D are one buffer but ldc != ldd or their types differ",
                "blas_ex/rocblas_gemm_ex.hpp:177-183",
            ),
        });
    }
    steps.push(|| {
        cited(
            format!("arguments valid for rocblas_{}", c.api.name()),
            cite_check,
        )
    });
    None
}

/// The type combinations rocBLAS 6.4.4 instantiates.
fn type_refusal(c: &Call) -> Option<Cited> {
    use BlasType::*;
    let [a, b, cc, d] = c.types;
    let same = a == b && b == cc && cc == d && d == c.compute;
    let ok = if !c.api.is_ex() {
        same && matches!(a, F16 | F32 | F64 | C32 | C64)
    } else {
        (same && matches!(a, F16 | F32 | F64 | C32 | C64))
            || (a == F16 && b == F16 && cc == F16 && d == F16 && c.compute == F32)
            || (a == F16 && b == F16 && cc == F32 && d == F32 && c.compute == F32)
            || (a == Bf16 && b == Bf16 && cc == Bf16 && d == Bf16 && c.compute == F32)
            || (a == Bf16 && b == Bf16 && cc == F32 && d == F32 && c.compute == F32)
            || (a == I8 && b == I8 && cc == I32 && d == I32 && c.compute == I32)
    };
    (!ok).then(|| {
        cited(
            format!(
                "no {} instantiation for {}/{}/{}/{} with compute {}: rocblas_status_not_implemented",
                c.api.name(),
                a.name(),
                b.name(),
                cc.name(),
                d.name(),
                c.compute.name()
            ),
            if c.api.is_ex() {
                "blas_ex/rocblas_gemm_ex_kernels.cpp:428-510"
            } else {
                "blas3/rocblas_gemm_imp.hpp (INST_GEMM_C_API)"
            },
        )
    })
}

/// `ConstructTensileProblem` (`tensile_host.cpp:344-547`) for the call as its entry point
/// passes it to `rocblas_call_tensile` (`blas3/Tensile/gemm_tensile.hpp:36-223`).
pub fn tensile_problem(c: &Call, s: &Settings, dev: &Device, steps: &mut Steps) -> Problem {
    let is_complex = matches!(c.types[0], BlasType::C32 | BlasType::C64);
    let mut trans = c.trans;
    if !is_complex {
        for t in &mut trans {
            if *t == Op::C {
                *t = Op::T;
            }
        }
    }
    let batch = if c.api.single() {
        1
    } else {
        c.batch.max(0) as u64
    };
    let ldd = if c.api.is_ex() { c.ld[3] } else { c.ld[2] };
    let (m, n, k) = (c.m as u64, c.n as u64, c.k as u64);
    let stride = batch_strides(c, ldd);
    let tensile_k = if c.k != 0 && c.alpha != 0.0 { k } else { 0 };
    if tensile_k == 0 && k != 0 {
        steps.push(|| {
            cited(
                "alpha is 0: K is set to 0 (the problem becomes D = beta·C)",
                "tensile_host.cpp:369-371",
            )
        });
    }
    let beta = value_category(c.beta);
    let gemm = Gemm {
        types: c.types.map(BlasType::tensile),
        compute: c.compute.tensile(),
        trans,
        m,
        n,
        k: tensile_k,
        batch,
        ld: [c.ld[0], c.ld[1], c.ld[2], ldd].map(|v| v as u64),
        batch_stride: stride,
        beta,
        alpha: if c.k != 0 {
            ScalarValue::of(c.alpha)
        } else {
            ScalarValue::Any
        },
    };
    let xf32 = c.xf32
        && c.types[0] == BlasType::F32
        && matches!(dev.processor(), "gfx940" | "gfx941" | "gfx942");
    if c.xf32 && !xf32 && c.types[0] == BlasType::F32 {
        steps.push(|| cited(
            format!(
                "XF32 math mode is not supported on {}: rocblas_set_math_mode keeps the default",
                dev.processor()
            ),
            "rocblas_auxiliary.cpp:152-190, 905-915",
        ));
    }
    let modes = tensile_modes(c, s, dev, xf32);
    steps.push(|| cited(
        format!(
            "Tensile problem: {} batch {}, strided batched {}, C == D {}, workspace {} bytes, atomics {}",
            crate::problem::operation_identifier(gemm.trans, &gemm.types, beta),
            batch,
            modes.strided_batched,
            modes.c_equals_d,
            modes.workspace,
            if modes.deterministic { "not allowed" } else { "allowed" },
        ),
        "tensile_host.cpp:344-547; include/handle.hpp:398-401, 486-487",
    ));
    Problem::new(gemm, modes)
}

/// The batch strides of A, B, C and D as each entry point passes them (`ldd`: D's leading
/// dimension).
fn batch_strides(c: &Call, ldd: i64) -> [u64; 4] {
    match c.api {
        Api::Gemm | Api::GemmBatched => [0; 4],
        Api::GemmEx => [1; 4],
        Api::GemmStridedBatched => {
            [c.stride[0], c.stride[1], c.stride[2], c.stride[2]].map(|v| v as u64)
        }
        Api::GemmStridedBatchedEx => c.stride.map(|v| v as u64),
        Api::GemmBatchedEx => [
            (c.ld[0] * if c.trans[0] == Op::N { c.k } else { c.m }) as u64,
            (c.ld[1] * if c.trans[1] == Op::N { c.n } else { c.k }) as u64,
            (c.ld[2] * c.n) as u64,
            (ldd * c.n) as u64,
        ],
    }
}

/// The modes `ConstructTensileProblem` gives the problem from the call, the handle's settings
/// and the device (C == D, batching, metric, workspace, atomics, XF32, FP16 alt-impl, switches).
fn tensile_modes(c: &Call, s: &Settings, dev: &Device, xf32: bool) -> Modes {
    let pointer_arrays = c.api.pointer_arrays();
    let c_equals_d = pointer_arrays || !c.api.is_ex() || c.c_is_d;
    let metric = match s.experimental_selection {
        Some(1) => Metric::ExperimentalGrid,
        Some(2) => Metric::ExperimentalDTree,
        _ if c.flags & 0x2 != 0 => Metric::CuEfficiency,
        _ => Metric::DeviceEfficiency,
    };
    let workspace = s.workspace.unwrap_or(
        if matches!(dev.processor(), "gfx940" | "gfx941" | "gfx942" | "gfx950") {
            128 << 20
        } else {
            32 << 20
        },
    );
    let fp16 = |env: Option<bool>, bit: u32| env.unwrap_or(c.flags & bit != 0);
    Modes {
        c_equals_d,
        strided_batched: !pointer_arrays,
        deterministic: s.atomics_not_allowed,
        metric,
        f32_xdl: if xf32 {
            DataType::XFloat32
        } else {
            DataType::Float
        },
        fp16_alt_impl: fp16(s.fp16_alt_impl_env, 0x4),
        fp16_alt_impl_round: fp16(s.fp16_alt_impl_rnz_env, 0x10),
        stochastic_rounding: false,
        force_valu: s.force_valu_dgemm
            && c.types.iter().all(|t| *t == BlasType::F64)
            && c.compute == BlasType::F64,
        workspace: workspace / 256 * 256,
        switches: crate::problem::Switches {
            naive_search: s.naive_search,
            metric: s.tensile_metric.clone(),
            solution_index: s.tensile_solution_index.filter(|i| *i >= 0),
            override_path: s.gemm_override_path.clone(),
        },
    }
}

/// `value_category(beta)` (`include/utility.hpp:866-870`): 0, 1, -1, or 2 for anything else.
pub fn value_category(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else if v == 1.0 {
        1.0
    } else if v == -1.0 {
        -1.0
    } else {
        2.0
    }
}

/// `fallbackTensileProblem` (`tensile_host.cpp:1091-1104`): XF32 → FP32 when nothing is found.
pub fn xf32_fallback(p: &Problem) -> Option<Problem> {
    (p.modes.f32_xdl != DataType::Float).then(|| {
        let mut q = p.clone();
        q.modes.f32_xdl = DataType::Float;
        q
    })
}

/// The rocBLAS gemm flag bits (`rocblas_gemm_flags`, `include/internal/rocblas-types.h:288-307`).
pub mod flags {
    /// `rocblas_gemm_flags_use_cu_efficiency`.
    pub const USE_CU_EFFICIENCY: u32 = 0x2;
    /// `rocblas_gemm_flags_fp16_alt_impl`.
    pub const FP16_ALT_IMPL: u32 = 0x4;
    /// `rocblas_gemm_flags_check_solution_index`.
    pub const CHECK_SOLUTION_INDEX: u32 = 0x8;
    /// `rocblas_gemm_flags_fp16_alt_impl_rnz`.
    pub const FP16_ALT_IMPL_RNZ: u32 = 0x10;
}
