//! Many calls at once: a tab-separated problem list (one call per line, a header first) and the
//! prediction for each, for sweeps and for comparing the model with a reference.
//!
//! Columns (by header name, any order): `id api a_type b_type c_type d_type compute_type
//! trans_a trans_b m n k lda ldb ldc ldd stride_a stride_b stride_c stride_d batch_count alpha
//! beta flags math_mode` (`math_mode` 1 = XF32). Missing columns take the defaults of a plain
//! call: `api` gemm, types from `a_type`, minimal leading dimensions, batch 1, alpha 1, beta 0.

use crate::device::Device;
use crate::library::Library;
use crate::problem::Op;
use crate::rocblas::{self, Api, BlasType, Call, Route, Settings};
use crate::select::{Found, Walk};

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {msg}")]
pub struct LineError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong and what to write instead.
    pub msg: String,
}

/// The column names of a problem list.
pub const COLUMNS: [&str; 25] = [
    "id",
    "api",
    "a_type",
    "b_type",
    "c_type",
    "d_type",
    "compute_type",
    "trans_a",
    "trans_b",
    "m",
    "n",
    "k",
    "lda",
    "ldb",
    "ldc",
    "ldd",
    "stride_a",
    "stride_b",
    "stride_c",
    "stride_d",
    "batch_count",
    "alpha",
    "beta",
    "flags",
    "math_mode",
];

/// The columns of a problem list's header: each known column name → its position in the line
/// (problem lists of rocBLAS calls and of hipBLASLt matmuls read their headers alike).
#[derive(Debug, Clone)]
pub struct Columns {
    known: &'static [&'static str],
    pos: Vec<Option<usize>>,
}

impl Columns {
    /// Reads a header line naming some of the `known` columns; `m`, `n` and `k` are required.
    pub fn parse(line: &str, known: &'static [&'static str]) -> Result<Columns, LineError> {
        let names: Vec<&str> = line.split('\t').map(str::trim).collect();
        if !["m", "n", "k"].iter().all(|c| names.contains(c)) {
            return Err(LineError {
                line: 1,
                msg: format!(
                    "the header needs at least the columns m, n and k (known: {})",
                    known.join(" ")
                ),
            });
        }
        Ok(Columns {
            known,
            pos: known
                .iter()
                .map(|c| names.iter().position(|n| n == c))
                .collect(),
        })
    }

    /// The trimmed, non-empty value of column `col` in a line's `fields`.
    pub fn get<'l>(&self, fields: &[&'l str], col: &str) -> Option<&'l str> {
        let i = self.known.iter().position(|c| *c == col)?;
        self.pos
            .get(i)
            .copied()
            .flatten()
            .and_then(|p| fields.get(p).copied())
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
}

/// A header: column name → position.
#[derive(Debug, Clone)]
pub struct Header {
    cols: Columns,
}

impl Header {
    /// Reads a header line.
    pub fn parse(line: &str) -> Result<Header, LineError> {
        Columns::parse(line, &COLUMNS).map(|cols| Header { cols })
    }

    fn get<'l>(&self, fields: &[&'l str], col: &str) -> Option<&'l str> {
        self.cols.get(fields, col)
    }

    /// Reads one problem line (`line_no` for errors) into its id and call.
    pub fn call(&self, text: &str, line_no: usize) -> Result<(String, Call), LineError> {
        let f: Vec<&str> = text.split('\t').collect();
        let err = |msg: String| LineError { line: line_no, msg };
        let int = |col: &str| -> Result<Option<i64>, LineError> {
            self.get(&f, col)
                .map(|v| {
                    v.parse::<i64>()
                        .map_err(|_| err(format!("{col} `{v}` is not an integer")))
                })
                .transpose()
        };
        let num = |col: &str, d: f64| -> Result<f64, LineError> {
            self.get(&f, col).map_or(Ok(d), |v| {
                v.parse::<f64>()
                    .map_err(|_| err(format!("{col} `{v}` is not a number")))
            })
        };
        let ty = |col: &str, d: Option<BlasType>| -> Result<BlasType, LineError> {
            match self.get(&f, col) {
                Some(v) => BlasType::parse(v).ok_or_else(|| {
                    err(format!(
                        "{col} `{v}`: use one of f16 bf16 f32 f64 i8 i32 c32 c64"
                    ))
                }),
                None => d.ok_or_else(|| err(format!("no {col}"))),
            }
        };
        let op = |col: &str| -> Result<Op, LineError> {
            self.get(&f, col).map_or(Ok(Op::N), |v| {
                Op::parse(v).ok_or_else(|| err(format!("{col} `{v}`: use N, T or C")))
            })
        };
        let id = self.get(&f, "id").unwrap_or("").to_string();
        let api = match self.get(&f, "api") {
            Some(v) => Api::parse(v).ok_or_else(|| err(format!("api `{v}`")))?,
            None => Api::Gemm,
        };
        let a = ty("a_type", Some(BlasType::F32))?;
        let types = [
            a,
            ty("b_type", Some(a))?,
            ty("c_type", Some(a))?,
            ty("d_type", None).or_else(|_| ty("c_type", Some(a)))?,
        ];
        let compute = ty("compute_type", Some(types[3]))?;
        let trans = [op("trans_a")?, op("trans_b")?];
        let need = |col: &str| int(col)?.ok_or_else(|| err(format!("no {col}")));
        let (m, n, k) = (need("m")?, need("n")?, need("k")?);
        let mut call = Call::simple(a, trans, m, n, k);
        call.api = api;
        call.types = types;
        call.compute = compute;
        let ld_defaults = call.ld;
        for (i, col) in ["lda", "ldb", "ldc", "ldd"].iter().enumerate() {
            call.ld[i] = int(col)?.unwrap_or(ld_defaults[i]);
        }
        if self.get(&f, "ldd").is_none() {
            call.ld[3] = call.ld[2];
        }
        for (i, col) in ["stride_a", "stride_b", "stride_c", "stride_d"]
            .iter()
            .enumerate()
        {
            call.stride[i] = int(col)?.unwrap_or(0);
        }
        call.batch = int("batch_count")?.unwrap_or(1);
        call.alpha = num("alpha", 1.0)?;
        call.beta = num("beta", 0.0)?;
        call.flags = int("flags")?.unwrap_or(0) as u32;
        call.xf32 = int("math_mode")?.unwrap_or(0) == 1;
        call.c_is_d =
            !api.is_ex() || (call.ld[2] == call.ld[3] && call.stride[2] == call.stride[3]);
        Ok((id, call))
    }
}

/// What one call came to.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// A solution: index, kernel name, and whether XF32 fell back to FP32.
    Solution {
        /// Solution index.
        index: i64,
        /// Kernel name.
        name: String,
        /// XF32 → FP32 fallback taken.
        xf32_fallback: bool,
    },
    /// No solution (rocBLAS: `rocblas_status_not_implemented`).
    None,
    /// rocBLAS returns before Tensile.
    QuickReturn,
    /// rocBLAS refuses the call.
    Invalid,
    /// No instantiation for the types.
    NotImplemented,
    /// hipBLASLt takes it (the Tensile fallback is in `fallback`).
    HipBlasLt(Box<Outcome>),
    /// The model cannot decide.
    Unresolved(String),
}

/// Predicts one call.
pub fn predict(lib: &Library, dev: &Device, settings: &Settings, call: &Call) -> Outcome {
    match rocblas::route_quiet(call, settings, dev) {
        Route::Invalid { .. } => Outcome::Invalid,
        Route::QuickReturn { .. } => Outcome::QuickReturn,
        Route::NotImplemented { .. } => Outcome::NotImplemented,
        Route::HipBlasLt { fallback, .. } => {
            Outcome::HipBlasLt(Box::new(tensile(lib, dev, &fallback)))
        }
        Route::Tensile { problem } => tensile(lib, dev, &problem),
    }
}

/// `runContractionProblem`'s search: the problem, then its XF32 → FP32 fallback.
pub fn tensile(lib: &Library, dev: &Device, p: &crate::problem::Problem) -> Outcome {
    let found = |p: &crate::problem::Problem| Walk::new(lib, dev, p, false).run();
    let mut fell_back = false;
    let mut f = found(p);
    if matches!(f, Found::None) {
        if let Some(q) = rocblas::xf32_fallback(p) {
            fell_back = true;
            f = found(&q);
        }
    }
    match f {
        Found::Solution(c) => match c.solution() {
            Some(s) => Outcome::Solution {
                index: s.index,
                name: s.name.clone(),
                xf32_fallback: fell_back,
            },
            None => Outcome::Unresolved("a chosen solution is missing from its file".into()),
        },
        Found::None => Outcome::None,
        Found::Unresolved(w) => Outcome::Unresolved(w),
    }
}

/// The line the reference oracle writes for an outcome: `index name fallback`.
pub fn oracle_columns(o: &Outcome) -> String {
    match o {
        Outcome::Solution {
            index,
            name,
            xf32_fallback,
        } => format!(
            "{index}\t{name}\t{}",
            if *xf32_fallback { "xf32_to_f32" } else { "-" }
        ),
        Outcome::None => "-1\t-\tnone".into(),
        Outcome::QuickReturn => "-1\t-\tquick_return".into(),
        Outcome::Invalid => "-1\t-\tinvalid".into(),
        Outcome::NotImplemented => "-1\t-\terror".into(),
        Outcome::HipBlasLt(inner) => oracle_columns(inner),
        Outcome::Unresolved(_) => "-1\t-\tunresolved".into(),
    }
}
