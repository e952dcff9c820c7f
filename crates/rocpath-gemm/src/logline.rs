//! A GEMM call from what rocBLAS logs: a bench line (`ROCBLAS_LAYER=2`, or a `rocblas-bench`
//! command) or a trace line (`ROCBLAS_LAYER=1`), as rocBLAS 6.4.4 writes them
//! (`library/src/include/logging.hpp`, `blas3/rocblas_gemm_imp.hpp`,
//! `blas_ex/rocblas_gemm_ex_imp.hpp`: `log_trace` / `log_bench` argument order).

use crate::problem::Op;
use crate::rocblas::{Api, BlasType, Call};

/// What a line gave: the call, and whether the line says atomics are not allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The call.
    pub call: Call,
    /// `atomics_not_allowed` appeared on the line.
    pub atomics_not_allowed: bool,
}

/// Why a line is not a GEMM call rocpath can read; it displays as what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Neither kind of line.
    #[error(
        "not a rocBLAS bench line (`rocblas-bench -f gemm …`) or trace line (`rocblas_sgemm,N,N,…`)"
    )]
    NotALogLine,
    /// A bench line without `-f FUNCTION`.
    #[error("no `-f FUNCTION`")]
    NoFunction,
    /// The function named is no GEMM.
    #[error("`{0}` is not a GEMM")]
    NotAGemm(String),
    /// A bench line without what it must give (`-m`, `-n`, `-k`, a type).
    #[error("no {0}")]
    Missing(&'static str),
    /// A trace line shorter than its function's fields.
    #[error("field {0} missing")]
    FieldMissing(usize),
    /// A trace field of the wrong form.
    #[error("field {field} `{value}` is not {expected}")]
    Field {
        /// Its index (0: the function).
        field: usize,
        /// As written.
        value: String,
        /// `an integer`, `a number`, `N, T or C`, `a type`.
        expected: &'static str,
    },
}

/// Parses a bench or trace line.
pub fn parse(line: &str) -> Result<Parsed, LineError> {
    let l = line.trim();
    if l.contains("rocblas-bench") || l.starts_with("-f ") || l.contains(" -f ") {
        bench(l)
    } else if l.contains("rocblas_") && l.contains(',') {
        trace(l)
    } else {
        Err(LineError::NotALogLine)
    }
}

fn api_and_type(f: &str) -> Option<(Api, Option<BlasType>)> {
    let f = f.trim_start_matches("rocblas_");
    if let Some(api) = Api::parse(f) {
        return Some((api, None));
    }
    // `sgemm`, `dgemm_strided_batched`, …: a type letter, then the API.
    // The first character, whatever its width (a line is user text).
    let (t, rest) = f.split_at(f.chars().next().map_or(0, char::len_utf8));
    let ty = BlasType::parse(t)?;
    Some((Api::parse(rest)?, Some(ty)))
}

fn bench(l: &str) -> Result<Parsed, LineError> {
    let toks: Vec<&str> = l.split_whitespace().collect();
    let mut kv = std::collections::HashMap::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if let Some(k) = t.strip_prefix("--").or_else(|| t.strip_prefix('-')) {
            if let Some(v) = toks.get(i + 1).filter(|v| !v.starts_with("--")) {
                kv.insert(k.to_string(), (*v).to_string());
                i += 2;
                continue;
            }
            kv.insert(k.to_string(), String::new());
        }
        i += 1;
    }
    let f = kv.get("f").ok_or(LineError::NoFunction)?;
    let (api, lead) = api_and_type(f).ok_or_else(|| LineError::NotAGemm(format!("-f {f}")))?;
    let r = kv.get("r").and_then(|v| BlasType::parse(v)).or(lead);
    let ty = |k: &str| kv.get(k).and_then(|v| BlasType::parse(v)).or(r);
    let a = ty("a_type").ok_or(LineError::Missing("type (`-r` or `--a_type`)"))?;
    let int = |k: &str| kv.get(k).and_then(|v| v.parse::<i64>().ok());
    let op = |k: &str| kv.get(k).and_then(|v| Op::parse(v)).unwrap_or(Op::N);
    let (m, n, k) = (
        int("m").ok_or(LineError::Missing("-m"))?,
        int("n").ok_or(LineError::Missing("-n"))?,
        int("k").ok_or(LineError::Missing("-k"))?,
    );
    let mut c = Call::simple(a, [op("transposeA"), op("transposeB")], m, n, k);
    c.api = api;
    c.types = [
        a,
        ty("b_type").unwrap_or(a),
        ty("c_type").unwrap_or(a),
        ty("d_type").or(ty("c_type")).unwrap_or(a),
    ];
    c.compute = ty("compute_type").unwrap_or(c.types[3]);
    for (i, key) in ["lda", "ldb", "ldc", "ldd"].iter().enumerate() {
        if let Some(v) = int(key) {
            c.ld[i] = v;
        }
    }
    if int("ldd").is_none() {
        c.ld[3] = c.ld[2];
    }
    for (i, key) in ["stride_a", "stride_b", "stride_c", "stride_d"]
        .iter()
        .enumerate()
    {
        if let Some(v) = int(key) {
            c.stride[i] = v;
        }
    }
    c.batch = int("batch_count").unwrap_or(1);
    c.alpha = kv.get("alpha").and_then(|v| v.parse().ok()).unwrap_or(1.0);
    c.beta = kv.get("beta").and_then(|v| v.parse().ok()).unwrap_or(0.0);
    c.flags = int("flags").unwrap_or(0) as u32;
    c.c_is_d = !api.is_ex() || (c.ld[2] == c.ld[3] && c.stride[2] == c.stride[3]);
    Ok(Parsed {
        call: c,
        atomics_not_allowed: kv.contains_key("atomics_not_allowed"),
    })
}

fn trace(l: &str) -> Result<Parsed, LineError> {
    let start = l.find("rocblas_").unwrap_or(0);
    let f: Vec<&str> = l[start..].split(',').map(str::trim).collect();
    let (api, lead) = api_and_type(f[0]).ok_or_else(|| LineError::NotAGemm(f[0].to_string()))?;
    let get = |i: usize| f.get(i).copied().ok_or(LineError::FieldMissing(i));
    let bad = |field: usize, value: &str, expected: &'static str| LineError::Field {
        field,
        value: value.to_string(),
        expected,
    };
    let int = |i: usize| -> Result<i64, LineError> {
        let v = get(i)?;
        v.parse::<i64>().map_err(|_| bad(i, v, "an integer"))
    };
    let num = |i: usize| -> Result<f64, LineError> {
        let v = get(i)?;
        v.parse::<f64>().map_err(|_| bad(i, v, "a number"))
    };
    let op = |i: usize| -> Result<Op, LineError> {
        let v = get(i)?;
        Op::parse(v).ok_or_else(|| bad(i, v, "N, T or C"))
    };
    let ty = |i: usize| -> Result<BlasType, LineError> {
        let v = get(i)?;
        BlasType::parse(v).ok_or_else(|| bad(i, v, "a type"))
    };
    let trans = [op(1)?, op(2)?];
    let (m, n, k) = (int(3)?, int(4)?, int(5)?);
    let mut c;
    if api.is_ex() {
        // name,tA,tB,m,n,k,alpha,A,a_type,lda,[stride_a,]B,b_type,ldb,[stride_b,]beta,C,c_type,ldc,[stride_c,]D,d_type,ldd,[stride_d,][batch,]compute,…
        let strided = api == Api::GemmStridedBatchedEx;
        let s = usize::from(strided);
        let a = ty(8)?;
        c = Call::simple(a, trans, m, n, k);
        c.api = api;
        c.alpha = num(6)?;
        c.ld[0] = int(9)?;
        let b_at = 11 + s;
        c.types[1] = ty(b_at)?;
        c.ld[1] = int(b_at + 1)?;
        let beta_at = b_at + 2 + s;
        c.beta = num(beta_at)?;
        c.types[2] = ty(beta_at + 2)?;
        c.ld[2] = int(beta_at + 3)?;
        let d_at = beta_at + 5 + s;
        c.types[3] = ty(d_at)?;
        c.ld[3] = int(d_at + 1)?;
        let mut next = d_at + 2;
        if strided {
            c.stride = [int(10)?, int(b_at + 2)?, int(beta_at + 4)?, int(d_at + 2)?];
            next += 1;
        }
        if api != Api::GemmEx {
            c.batch = int(next)?;
            next += 1;
        }
        c.compute = ty(next)?;
        c.c_is_d = c.ld[2] == c.ld[3] && c.stride[2] == c.stride[3];
    } else {
        // name,tA,tB,m,n,k,alpha,A,lda,[stride_a,]B,ldb,[stride_b,]beta,C,ldc,[stride_c,][batch]
        let t = lead.ok_or(LineError::Missing("type letter in the function name"))?;
        let strided = api == Api::GemmStridedBatched;
        let s = usize::from(strided);
        c = Call::simple(t, trans, m, n, k);
        c.api = api;
        c.alpha = num(6)?;
        c.ld[0] = int(8)?;
        c.ld[1] = int(10 + s)?;
        c.beta = num(11 + 2 * s)?;
        c.ld[2] = int(13 + 2 * s)?;
        c.ld[3] = c.ld[2];
        if strided {
            c.stride = [int(9)?, int(12)?, int(16)?, int(16)?];
        }
        if api != Api::Gemm {
            c.batch = int(14 + 3 * s)?;
        }
    }
    Ok(Parsed {
        call: c,
        atomics_not_allowed: l.contains("atomics_not_allowed"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function name whose first character is wider than a byte is refused, not a panic
    /// (found by the `gemm_select` fuzz target).
    #[test]
    fn a_function_starting_with_a_wide_character_is_not_a_gemm() {
        for f in ["\u{f78ce}gemm", "ésgemm", "\u{1F600}"] {
            let e = parse(&format!("./rocblas-bench -f {f} -m 8 -n 8 -k 8")).unwrap_err();
            assert!(matches!(e, LineError::NotAGemm(_)), "{e}");
            assert!(e.to_string().contains("is not a GEMM"), "{e}");
        }
    }

    /// A trace line with a field of the wrong form names the field, what it holds and what it
    /// should be.
    #[test]
    fn a_bad_trace_field_is_named() {
        let e = parse("rocblas_sgemm,N,X,8,8,8").unwrap_err();
        assert_eq!(
            e,
            LineError::Field {
                field: 2,
                value: "X".into(),
                expected: "N, T or C"
            }
        );
        assert_eq!(e.to_string(), "field 2 `X` is not N, T or C");
        assert_eq!(
            parse("rocblas_sgemm,N,N,8").unwrap_err(),
            LineError::FieldMissing(4)
        );
        assert_eq!(parse("hello").unwrap_err(), LineError::NotALogLine);
    }

    #[test]
    fn a_gemm_ex_trace_line_reads_every_field() {
        let p = parse("rocblas_gemm_ex,T,N,4096,512,2880,1,0x195a,bf16_r,2880,0x80,bf16_r,2880,0,0x80,bf16_r,4096,0x80,bf16_r,4096,f32_r,0,0,none,atomics_not_allowed")
            .unwrap_or_else(|e| panic!("{e}"));
        let c = &p.call;
        assert_eq!((c.m, c.n, c.k), (4096, 512, 2880));
        assert_eq!(c.trans, [Op::T, Op::N]);
        assert_eq!(c.types, [BlasType::Bf16; 4]);
        assert_eq!(c.compute, BlasType::F32);
        assert_eq!(c.ld, [2880, 2880, 4096, 4096]);
        assert!(p.atomics_not_allowed);
    }

    #[test]
    fn a_bench_line_reads_flags() {
        let p = parse("./rocblas-bench -f gemm_strided_batched -r f32_r --transposeA N --transposeB T -m 64 -n 32 -k 16 --alpha 2 --lda 64 --ldb 32 --beta 1 --ldc 64 --stride_a 1024 --stride_b 512 --stride_c 2048 --batch_count 8")
            .unwrap_or_else(|e| panic!("{e}"));
        let c = &p.call;
        assert_eq!(c.api, Api::GemmStridedBatched);
        assert_eq!((c.m, c.n, c.k, c.batch), (64, 32, 16, 8));
        assert_eq!(c.trans, [Op::N, Op::T]);
        assert_eq!(c.stride[..3], [1024, 512, 2048]);
        assert_eq!((c.alpha, c.beta), (2.0, 1.0));
    }

    #[test]
    fn an_sgemm_trace_line() {
        let p = parse("rocblas_sgemm,N,N,128,256,64,1,0x1,128,0x2,64,0,0x3,128,atomics_allowed")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.call.types, [BlasType::F32; 4]);
        assert_eq!(p.call.ld, [128, 64, 128, 128]);
        assert!(!p.atomics_not_allowed);
    }
}
