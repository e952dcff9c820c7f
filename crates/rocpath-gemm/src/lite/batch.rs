//! Many heuristic queries at once: a tab-separated problem list (a header, then one matmul per
//! line) and the answer for each in the reference's columns, `id rank index name`.
//!
//! Columns (by header name, any order): `id trans_a trans_b m n k batch_count a_type b_type
//! c_type d_type compute_type alpha beta lda ldb ldc ldd stride_a stride_b stride_c stride_d
//! bias activation requested`. Missing columns take the defaults of a plain matmul: types from
//! `a_type` (f16 → f16 output, f32 compute), minimal leading dimensions, batch 1, strides 0, no
//! bias, no activation, one solution. alpha and beta are read but unused: the heuristic uses 1.

use super::heuristic::{Heuristic, Rank0};
use super::problem::{Activation, ComputeType, HipType, Matmul};
use crate::batch::{Columns, LineError};
use crate::problem::Op;

/// The column names of a problem list.
pub const COLUMNS: [&str; 25] = [
    "id",
    "trans_a",
    "trans_b",
    "m",
    "n",
    "k",
    "batch_count",
    "a_type",
    "b_type",
    "c_type",
    "d_type",
    "compute_type",
    "alpha",
    "beta",
    "lda",
    "ldb",
    "ldc",
    "ldd",
    "stride_a",
    "stride_b",
    "stride_c",
    "stride_d",
    "bias",
    "activation",
    "requested",
];

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

    /// Reads one problem line (`line_no` for errors) into its id and matmul.
    pub fn matmul(&self, text: &str, line_no: usize) -> Result<(String, Matmul), LineError> {
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
        let ty = |col: &str| -> Result<Option<HipType>, LineError> {
            self.get(&f, col)
                .map(|v| {
                    HipType::parse(v).ok_or_else(|| {
                        err(format!(
                            "{col} `{v}`: use f16 bf16 f32 f64 i8 i32 f8 bf8 f8_fnuz bf8_fnuz"
                        ))
                    })
                })
                .transpose()
        };
        let op = |col: &str| -> Result<Op, LineError> {
            self.get(&f, col).map_or(Ok(Op::N), |v| {
                Op::parse(v).ok_or_else(|| err(format!("{col} `{v}`: use N, T or C")))
            })
        };
        let id = self.get(&f, "id").unwrap_or("").to_string();
        let need = |col: &str| int(col)?.ok_or_else(|| err(format!("no {col}")));
        let (m, n, k) = (need("m")?, need("n")?, need("k")?);
        let a = ty("a_type")?.unwrap_or(HipType::F16);
        let b = ty("b_type")?.unwrap_or(a);
        let c = ty("c_type")?.unwrap_or(a);
        let d = ty("d_type")?.unwrap_or(c);
        let compute = match self.get(&f, "compute_type") {
            Some(v) => ComputeType::parse(v)
                .ok_or_else(|| err(format!("compute_type `{v}`: use f16 f32 xf32 f64 i32")))?,
            None => match a {
                HipType::F64 => ComputeType::F64,
                HipType::I8 => ComputeType::I32,
                _ => ComputeType::F32,
            },
        };
        let trans = [op("trans_a")?, op("trans_b")?];
        let mut mm = Matmul::simple(a, d, compute, trans, m, n, k);
        mm.types = [a, b, c, d];
        for (i, col) in ["lda", "ldb", "ldc", "ldd"].iter().enumerate() {
            if let Some(v) = int(col)? {
                mm.ld[i] = v;
            }
        }
        if self.get(&f, "ldd").is_none() {
            mm.ld[3] = mm.ld[2];
        }
        for (i, col) in ["stride_a", "stride_b", "stride_c", "stride_d"]
            .iter()
            .enumerate()
        {
            mm.stride[i] = int(col)?.unwrap_or(0);
        }
        mm.batch = int("batch_count")?.unwrap_or(1);
        match self.get(&f, "bias") {
            None | Some("-") | Some("none") => {}
            Some(v) => {
                mm.bias = true;
                mm.bias_type = Some(
                    HipType::parse(v).ok_or_else(|| err(format!("bias `{v}`: `-` or a type")))?,
                );
            }
        }
        if let Some(v) = self.get(&f, "activation") {
            mm.activation = Activation::parse(v)
                .ok_or_else(|| err(format!("activation `{v}`: use none, relu or gelu")))?;
        }
        let requested = int("requested")?.unwrap_or(1);
        if requested < 1 {
            return Err(err(format!(
                "requested {requested}: hipBLASLt refuses a count below 1 (rocblaslt_status_invalid_value)"
            )));
        }
        mm.requested = requested as usize;
        Ok((id, mm))
    }
}

/// The reference's lines for one answer: `id rank index name` per determined solution,
/// `id -1 -1 none` when there is none, `id -1 -1 unresolved` when the first is not determined.
pub fn oracle_lines(id: &str, h: &Result<Heuristic, String>) -> Vec<String> {
    let h = match h {
        Ok(h) => h,
        Err(_) => return vec![format!("{id}\t-1\t-1\tunresolved")],
    };
    match h.rank0() {
        Rank0::None => vec![format!("{id}\t-1\t-1\tnone")],
        Rank0::Unresolved(_) => vec![format!("{id}\t-1\t-1\tunresolved")],
        Rank0::Table(_) | Rank0::FillIn(_) => h
            .determined_ranks()
            .iter()
            .enumerate()
            .map(|(r, p)| {
                format!(
                    "{id}\t{r}\t{}\t{}",
                    p.index(),
                    p.solution().map_or("", |s| s.name.as_str())
                )
            })
            .collect(),
    }
}

/// Why the first solution is not determined, when it is not.
pub fn unresolved_reason(h: &Result<Heuristic, String>) -> Option<String> {
    match h {
        Err(e) => Some(e.clone()),
        Ok(h) => match h.rank0() {
            Rank0::Unresolved(w) => Some(w),
            _ => None,
        },
    }
}
