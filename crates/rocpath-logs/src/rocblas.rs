//! rocBLAS logging (`ROCBLAS_LAYER`: 1 trace, 2 bench, 4 profile, 8 internal) and the messages
//! rocBLAS and Tensile print on their own.
//!
//! * trace: `rocblas_gemm_ex,T,N,4096,512,2880,1,0x195a…,bf16_r,2880,0x80,bf16_r,2880,0,0x80,bf16_r,4096,0x80,bf16_r,4096,f32_r,0,0,none,atomics_not_allowed`
//!   — one comma-separated line per call, atomics mode appended. For `*_ex` calls the five
//!   type fields (a, b, c, d, compute) are the fields that look like types, in order: their
//!   positions differ between `gemm_ex`, `gemm_batched_ex` and `gemm_strided_batched_ex`
//!   (fields 9, 12, 16, 19, 21 for `gemm_ex`).
//! * internal (layer 8): `rocblas_internal,rocblas_gemm_tensile_backend,T,N,m,n,k,…` — which
//!   backend ran the GEMM; it carries no types.
//! * bench: `./rocblas-bench -f gemm_ex --transposeA N … -m M -n N -k K --a_type f16_r …`.
//! * profile: `- { rocblas_function: "rocblas_sgemm", …, M: 1, N: 2, K: 3, …, call_count: 7 }`.
//! * messages: `rocBLAS warning: No Tensile solution found for XF32, fall back to FP32`,
//!   `rocBLAS warning: hipBlasLT failed, falling back to tensile.`,
//!   `rocBLAS error: Cannot read <path>: <reason> for GPU arch : <arch>` and the list of
//!   available library files after it, Tensile's `Running kernel: <name>` (`TENSILE_DB=0x8000`).

use crate::text::{after, find, rsplit_once, s, split_once, trim};
use std::borrow::Cow;

pub use rocpath_docs::case::GemmTypes;

/// Every type of a call the same (`rocblas_sgemm`: all `f32_r`).
fn all_types(t: &str) -> GemmTypes {
    GemmTypes {
        a: Some(t.into()),
        b: Some(t.into()),
        c: Some(t.into()),
        d: Some(t.into()),
        compute: Some(t.into()),
    }
}

/// One GEMM call (or, from a profile line, `count` calls).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GemmCall<'a> {
    /// The API (`rocblas_gemm_ex`, `rocblas_sgemm_strided_batched`, …).
    pub api: Cow<'a, str>,
    /// transA.
    pub trans_a: Cow<'a, str>,
    /// transB.
    pub trans_b: Cow<'a, str>,
    /// m.
    pub m: u64,
    /// n.
    pub n: u64,
    /// k.
    pub k: u64,
    /// Batch count, for batched calls.
    pub batch_count: Option<u64>,
    /// Types.
    pub types: GemmTypes,
    /// How many calls the line stands for.
    pub count: u64,
}

/// A recognised rocBLAS / Tensile line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<'a> {
    /// A GEMM from a trace line.
    Trace(GemmCall<'a>),
    /// A GEMM from a bench line.
    Bench(GemmCall<'a>),
    /// GEMMs from a profile line (`count` = `call_count`).
    Profile(GemmCall<'a>),
    /// Layer 8: the backend that ran a GEMM.
    Backend {
        /// `tensile`, `hipblaslt`, … (from `rocblas_gemm_<x>_backend`).
        backend: Cow<'a, str>,
        /// transA.
        trans_a: Cow<'a, str>,
        /// transB.
        trans_b: Cow<'a, str>,
        /// m.
        m: u64,
        /// n.
        n: u64,
        /// k.
        k: u64,
    },
    /// Any other trace line: the API called (`rocblas_create_handle`, …).
    Api(Cow<'a, str>),
    /// A fallback rocBLAS reports.
    Fallback {
        /// `xf32_to_fp32`, `hipblaslt_to_tensile`, `hipblaslt_exception`.
        kind: &'static str,
        /// The message.
        message: Cow<'a, str>,
    },
    /// `rocBLAS error: No Tensile solution found for …`
    NoSolution(Cow<'a, str>),
    /// `rocBLAS error: Cannot read <path>: <reason> for GPU arch : <arch>`
    LibraryMissing {
        /// The file rocBLAS tried.
        path: Cow<'a, str>,
        /// Why (`No such file or directory`).
        reason: Cow<'a, str>,
        /// The GPU arch rocBLAS looked for.
        arch: Cow<'a, str>,
    },
    /// A `"…/TensileLibrary_…"` line of the list rocBLAS prints after a missing library.
    LibraryAvailable(Cow<'a, str>),
    /// Any other `rocBLAS error:` / `rocBLAS warning:` line.
    Message {
        /// `error` or `warning`.
        level: &'static str,
        /// The text after the level.
        message: Cow<'a, str>,
    },
    /// Tensile's `Running kernel: <name>` (`TENSILE_DB=0x8000`).
    RunningKernel(Cow<'a, str>),
    /// rocblas-bench's result header: `transA,transB,M,N,K,alpha,…,rocblas-Gflops,us,…`.
    /// The next line with as many fields holds the values ([`bench_values`]).
    BenchColumns(Cow<'a, str>),
    /// rocblas-bench's `Device ID 0 : AMD Radeon RX Vega gfx900:xnack-`.
    Device {
        /// Marketing name.
        name: Cow<'a, str>,
        /// Target id.
        arch: Cow<'a, str>,
    },
}

/// Whether a field looks like a rocBLAS datatype string (`f16_r`, `bf16_r`, `i8_r`, `f32_c`,
/// `f8_r`, `bf8_r`, `f8_fnuz_r`, …).
pub fn is_type(f: &str) -> bool {
    let Some(base) = f.strip_suffix("_r").or_else(|| f.strip_suffix("_c")) else {
        return false;
    };
    let base = base.strip_suffix("_fnuz").unwrap_or(base);
    matches!(
        base,
        "f16"
            | "f32"
            | "f64"
            | "bf16"
            | "i8"
            | "u8"
            | "i32"
            | "u32"
            | "f8"
            | "bf8"
            | "i64"
            | "f8bf8"
            | "bf8f8"
            | "xf32"
    )
}

fn implied_type(api: &str) -> Option<&'static str> {
    let name = api.strip_prefix("rocblas_")?;
    let (p, rest) = name.split_at_checked(1)?;
    if !rest.starts_with("gemm") {
        return None;
    }
    Some(match p {
        "s" => "f32_r",
        "d" => "f64_r",
        "h" => "f16_r",
        "c" => "f32_c",
        "z" => "f64_c",
        _ => return None,
    })
}

fn is_gemm_api(api: &str) -> bool {
    api.strip_prefix("rocblas_").is_some_and(|n| {
        n.starts_with("gemm")
            || (n.len() > 1 && n.is_char_boundary(1) && n[1..].starts_with("gemm"))
    }) && !api.contains("gemv")
}

/// Parses a trace line. `None` for lines that are not trace lines.
fn trace(line: &[u8]) -> Option<Event<'_>> {
    let text = s(line);
    let f: Vec<&str> = text.split(',').map(str::trim).collect();
    let api = *f.first()?;
    if !api.starts_with("rocblas_") || api.contains(' ') || f.len() < 2 {
        return None;
    }
    if api == "rocblas_internal" {
        let backend = f.get(1)?;
        let b = backend
            .strip_prefix("rocblas_gemm_")
            .and_then(|b| b.strip_suffix("_backend"))
            .unwrap_or(backend);
        return Some(Event::Backend {
            backend: Cow::Owned(b.to_string()),
            trans_a: Cow::Owned(f.get(2)?.to_string()),
            trans_b: Cow::Owned(f.get(3)?.to_string()),
            m: f.get(4)?.parse().ok()?,
            n: f.get(5)?.parse().ok()?,
            k: f.get(6)?.parse().ok()?,
        });
    }
    if !is_gemm_api(api) || f.len() < 6 {
        return Some(Event::Api(Cow::Owned(api.to_string())));
    }
    let m = f[3].parse().ok();
    let n = f[4].parse().ok();
    let k = f[5].parse().ok();
    let (Some(m), Some(n), Some(k)) = (m, n, k) else {
        return Some(Event::Api(Cow::Owned(api.to_string())));
    };
    let types = match implied_type(api) {
        Some(t) => all_types(t),
        None => {
            let t: Vec<&str> = f.iter().copied().filter(|x| is_type(x)).collect();
            GemmTypes {
                a: t.first().map(|x| x.to_string()),
                b: t.get(1).map(|x| x.to_string()),
                c: t.get(2).map(|x| x.to_string()),
                d: t.get(3).map(|x| x.to_string()),
                compute: t.get(4).map(|x| x.to_string()),
            }
        }
    };
    // Batch count: the field before the compute type in batched *_ex calls; the field before
    // the atomics mode in the typed batched calls.
    let batch_count = if api.contains("batched") {
        if implied_type(api).is_some() {
            f.iter()
                .rposition(|x| x.starts_with("atomics_"))
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| f[i].parse().ok())
        } else {
            let typed: Vec<usize> = (0..f.len()).filter(|&i| is_type(f[i])).collect();
            typed
                .get(4)
                .and_then(|&i| i.checked_sub(1))
                .and_then(|i| f[i].parse().ok())
        }
    } else {
        None
    };
    Some(Event::Trace(GemmCall {
        api: Cow::Owned(api.to_string()),
        trans_a: Cow::Owned(f[1].to_string()),
        trans_b: Cow::Owned(f[2].to_string()),
        m,
        n,
        k,
        batch_count,
        types,
        count: 1,
    }))
}

fn bench(line: &[u8]) -> Option<Event<'_>> {
    let text = s(line);
    let mut it = text.split_ascii_whitespace();
    let prog = it.next()?;
    if !prog.ends_with("rocblas-bench") {
        return None;
    }
    let toks: Vec<&str> = it.collect();
    let get = |names: &[&str]| {
        toks.windows(2)
            .rev()
            .find(|w| names.contains(&w[0]))
            .map(|w| w[1])
    };
    let func = get(&["-f", "--function"])?;
    if !func.contains("gemm") || func.contains("gemv") {
        return None;
    }
    let prec = get(&["-r", "--precision"]);
    let ty = |names: &[&str]| get(names).or(prec).map(str::to_string);
    let types = GemmTypes {
        a: ty(&["--a_type"]),
        b: ty(&["--b_type"]),
        c: ty(&["--c_type"]),
        d: ty(&["--d_type"]),
        compute: ty(&["--compute_type"]),
    };
    Some(Event::Bench(GemmCall {
        api: Cow::Owned(format!("rocblas_{func}")),
        trans_a: Cow::Owned(get(&["--transposeA"]).unwrap_or("N").to_string()),
        trans_b: Cow::Owned(get(&["--transposeB"]).unwrap_or("N").to_string()),
        m: get(&["-m", "--sizem"])?.parse().ok()?,
        n: get(&["-n", "--sizen"])?.parse().ok()?,
        k: get(&["-k", "--sizek"])?.parse().ok()?,
        batch_count: get(&["--batch_count"]).and_then(|b| b.parse().ok()),
        types,
        count: 1,
    }))
}

fn profile(line: &[u8]) -> Option<Event<'_>> {
    let text = s(line);
    let body = text.strip_prefix("- {")?.trim_end().strip_suffix('}')?;
    let mut fields = std::collections::BTreeMap::new();
    for part in body.split(", ") {
        if let Some((k, v)) = part.split_once(": ") {
            fields.insert(
                k.trim(),
                v.trim().trim_matches('"').trim_matches('\'').to_string(),
            );
        }
    }
    let func = fields.get("rocblas_function")?.clone();
    if !is_gemm_api(&func) {
        return None;
    }
    let num = |k: &str| fields.get(k).and_then(|v| v.parse::<u64>().ok());
    let types = match implied_type(&func) {
        Some(t) => all_types(t),
        None => GemmTypes {
            a: fields.get("a_type").cloned(),
            b: fields.get("b_type").cloned(),
            c: fields.get("c_type").cloned(),
            d: fields.get("d_type").cloned(),
            compute: fields.get("compute_type").cloned(),
        },
    };
    Some(Event::Profile(GemmCall {
        api: Cow::Owned(func.clone()),
        trans_a: Cow::Owned(fields.get("transA").cloned().unwrap_or_default()),
        trans_b: Cow::Owned(fields.get("transB").cloned().unwrap_or_default()),
        m: num("M")?,
        n: num("N")?,
        k: num("K")?,
        batch_count: num("batch_count"),
        types,
        count: num("call_count").unwrap_or(1),
    }))
}

fn message(line: &[u8]) -> Option<Event<'_>> {
    let i = find(line, b"rocBLAS ")?;
    let r = &line[i + 8..];
    let (level, msg): (&'static str, &[u8]) = if let Some(m) = after(r, b"error: ") {
        ("error", m)
    } else if let Some(m) = after(r, b"warning: ") {
        ("warning", m)
    } else {
        return None;
    };
    let msg = trim(msg);
    if find(msg, b"No Tensile solution found for XF32").is_some()
        || find(msg, b"fall back to FP32").is_some()
    {
        return Some(Event::Fallback {
            kind: "xf32_to_fp32",
            message: s(msg),
        });
    }
    if find(msg, b"hipBlasLT failed").is_some() {
        return Some(Event::Fallback {
            kind: "hipblaslt_to_tensile",
            message: s(msg),
        });
    }
    if find(msg, b"hipBlasLT exception").is_some() {
        return Some(Event::Fallback {
            kind: "hipblaslt_exception",
            message: s(msg),
        });
    }
    if let Some(r) = after(msg, b"Cannot read ") {
        if let Some((path_reason, arch)) = split_once(r, b" for GPU arch : ") {
            let (path, reason) = rsplit_once(path_reason, b": ").unwrap_or((path_reason, b""));
            return Some(Event::LibraryMissing {
                path: s(path),
                reason: s(reason),
                arch: s(arch),
            });
        }
    }
    if after(msg, b"No Tensile solution found").is_some() {
        return Some(Event::NoSolution(s(msg)));
    }
    Some(Event::Message {
        level,
        message: s(msg),
    })
}

/// Parses lines that start with `rocblas_`, `./rocblas-bench`, `- {`, `rocBLAS`, or
/// `Running kernel:`.
pub fn parse(line: &[u8]) -> Option<Event<'_>> {
    match *line.first()? {
        b'r' => {
            if line.starts_with(b"rocblas_") {
                return trace(line);
            }
            if line.starts_with(b"rocBLAS ") {
                return message(line);
            }
            if line.starts_with(b"rocblas-bench") {
                return bench(line);
            }
            None
        }
        b'.' => bench(line),
        b'-' => profile(line),
        b'R' => after(line, b"Running kernel: ").map(|k| Event::RunningKernel(s(k))),
        _ => None,
    }
}

/// rocBLAS lines that may appear after a prefix (journald, timestamps) or in other forms:
/// messages, library-file lists, rocblas-bench's device line.
pub fn parse_anywhere(line: &[u8]) -> Option<Event<'_>> {
    match *line.first()? {
        b'"' => {
            let t = trim(line);
            let inner = t.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
            find(inner, b"TensileLibrary")?;
            Some(Event::LibraryAvailable(s(inner)))
        }
        b'D' => {
            let r = after(line, b"Device ID ")?;
            let (_, r) = split_once(r, b" : ")?;
            let r = trim(r);
            let sp = r.iter().rposition(|c| *c == b' ')?;
            let arch = &r[sp + 1..];
            if !arch.starts_with(b"gfx") {
                return None;
            }
            Some(Event::Device {
                name: s(&r[..sp]),
                arch: s(arch),
            })
        }
        _ => {
            if let Some(i) = find(line, b"Running kernel: ") {
                return Some(Event::RunningKernel(s(&line[i + 16..])));
            }
            if is_bench_columns(line) {
                return Some(Event::BenchColumns(s(trim(line))));
            }
            find(line, b"rocBLAS ")?;
            message(line)
        }
    }
}

/// Whether a line is rocblas-bench's result header (comma-separated, with a
/// `rocblas-Gflops` or `rocblas-GB/s` column).
fn is_bench_columns(line: &[u8]) -> bool {
    line.contains(&b',')
        && (find(line, b"rocblas-Gflops").is_some() || find(line, b"rocblas-GB/s").is_some())
        && !line.starts_with(b"rocBLAS")
}

/// The values line of a rocblas-bench result: `Some(fields)` when `line` has exactly
/// `columns` comma-separated fields (trimmed) and is not itself a header.
pub fn bench_values(line: &[u8], columns: usize) -> Option<Vec<Cow<'_, str>>> {
    let t = trim(line);
    if t.is_empty() || is_bench_columns(t) {
        return None;
    }
    let f: Vec<Cow<'_, str>> = t.split(|&c| c == b',').map(|x| s(trim(x))).collect();
    (f.len() == columns && columns >= 3).then_some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_result_lines() {
        let h = b"transA,transB,M,N,K,alpha,lda,beta,ldb,ldc,ldd,batch_count,cold_iters,hot_iters,rocblas-Gflops,us,CPU-Gflops,CPU-us,norm_error_1";
        let cols = match parse_anywhere(h) {
            Some(Event::BenchColumns(c)) => c,
            other => panic!("{other:?}"),
        };
        let n = cols.split(',').count();
        assert_eq!(n, 19);
        let v = bench_values(
            b"N,N,128,128,128,1,128,0,128,128,128,1, 1, 1, 51.195, 81.928,4.02911,1041,0",
            n,
        )
        .unwrap();
        assert_eq!(v[2], "128");
        assert_eq!(v[14], "51.195");
        assert!(bench_values(b"N,N,128", n).is_none());
        assert!(bench_values(h, n).is_none());
        assert!(bench_values(b"", n).is_none());
    }

    fn gemm(e: Option<Event<'_>>) -> GemmCall<'_> {
        match e {
            Some(Event::Trace(g) | Event::Bench(g) | Event::Profile(g)) => g,
            other => panic!("not a gemm: {other:?}"),
        }
    }

    #[test]
    fn gemm_ex_types_are_the_right_columns() {
        let g = gemm(parse(b"rocblas_gemm_ex,T,N,4096,512,2880,1,0x195a280,bf16_r,2880,0x80,bf16_r,2880,0,0x80,bf16_r,4096,0x80,bf16_r,4096,f32_r,0,0,none,atomics_not_allowed"));
        assert_eq!((g.m, g.n, g.k), (4096, 512, 2880));
        assert_eq!(g.types.a.as_deref(), Some("bf16_r"));
        assert_eq!(g.types.c.as_deref(), Some("bf16_r"));
        assert_eq!(g.types.d.as_deref(), Some("bf16_r"));
        assert_eq!(g.types.compute.as_deref(), Some("f32_r"));
        assert_eq!(g.batch_count, None);
    }

    #[test]
    fn batched_and_typed_calls() {
        let g = gemm(parse(b"rocblas_gemm_batched_ex,T,N,4608,512,64,1,0x80,f16_r,512,0x280,f16_r,64,0,0x80,f32_r,4608,0x80,f32_r,4608,64,f32_r,0,0,none,atomics_not_allowed"));
        assert_eq!(g.batch_count, Some(64));
        assert_eq!(g.types.a.as_deref(), Some("f16_r"));
        assert_eq!(g.types.c.as_deref(), Some("f32_r"));
        assert_eq!(g.types.compute.as_deref(), Some("f32_r"));
        let g = gemm(parse(b"rocblas_sgemm,T,N,32,512,2880,1,0x14050d00,2880,0x80,2880,0,0x2441900,32,atomics_not_allowed"));
        assert_eq!(g.types, all_types("f32_r"));
        assert_eq!((g.m, g.n, g.k), (32, 512, 2880));
        let g = gemm(parse(b"rocblas_hgemm_strided_batched,N,T,8,9,10,1,0x1,8,64,0x2,9,81,0,0x3,8,72,12,atomics_allowed"));
        assert_eq!(g.batch_count, Some(12));
        assert_eq!(g.types.a.as_deref(), Some("f16_r"));
    }

    #[test]
    fn internal_and_other_lines() {
        assert_eq!(
            parse(b"rocblas_internal,rocblas_gemm_tensile_backend,T,N,4096,512,2880,1,0x195a280,2880,0x80,2880,0,0x80,4096,0x80,4096,atomics_not_allowed"),
            Some(Event::Backend {
                backend: "tensile".into(),
                trans_a: "T".into(),
                trans_b: "N".into(),
                m: 4096,
                n: 512,
                k: 2880
            })
        );
        assert_eq!(
            parse(b"rocblas_create_handle,atomics_not_allowed"),
            Some(Event::Api("rocblas_create_handle".into()))
        );
        assert_eq!(parse(b"rocblas_internal"), None);
    }

    #[test]
    fn bench_and_profile() {
        let g = gemm(parse(b"./rocblas-bench -f gemm_ex --transposeA N --transposeB T -m 128 -n 64 -k 32 --alpha 1 --a_type i8_r --b_type i8_r --c_type i32_r --d_type i32_r --compute_type i32_r --atomics_not_allowed"));
        assert_eq!((g.m, g.n, g.k), (128, 64, 32));
        assert_eq!(g.types.c.as_deref(), Some("i32_r"));
        assert_eq!(g.trans_b, "T");
        let g = gemm(parse(b"- { rocblas_function: \"rocblas_sgemm\", atomics_mode: atomics_allowed, transA: 'N', transB: 'N', M: 4, N: 5, K: 6, alpha: 1, lda: 4, ldb: 6, beta: 0, ldc: 4, call_count: 7 }"));
        assert_eq!(g.count, 7);
        assert_eq!((g.m, g.n, g.k), (4, 5, 6));
        assert_eq!(g.types.a.as_deref(), Some("f32_r"));
    }

    #[test]
    fn messages() {
        assert_eq!(
            parse(b"rocBLAS error: Cannot read /opt/rocm-7.2.0/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx900"),
            Some(Event::LibraryMissing {
                path: "/opt/rocm-7.2.0/lib/rocblas/library/TensileLibrary.dat".into(),
                reason: "No such file or directory".into(),
                arch: "gfx900".into()
            })
        );
        assert!(matches!(
            parse(b"rocBLAS warning: No Tensile solution found for XF32, fall back to FP32"),
            Some(Event::Fallback {
                kind: "xf32_to_fp32",
                ..
            })
        ));
        assert!(matches!(
            parse(b"rocBLAS warning: hipBlasLT failed, falling back to tensile. "),
            Some(Event::Fallback {
                kind: "hipblaslt_to_tensile",
                ..
            })
        ));
        assert_eq!(
            parse_anywhere(
                b"\"/opt/rocm-7.2.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\""
            ),
            Some(Event::LibraryAvailable(
                "/opt/rocm-7.2.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat".into()
            ))
        );
        assert_eq!(
            parse_anywhere(b"Device ID 0 : AMD Radeon RX Vega gfx900:xnack-"),
            Some(Event::Device {
                name: "AMD Radeon RX Vega".into(),
                arch: "gfx900:xnack-".into()
            })
        );
        assert_eq!(
            parse(b"Running kernel: Cijk_Ailk_Bljk_SB_MT64x64x8_SN_GSU1"),
            Some(Event::RunningKernel(
                "Cijk_Ailk_Bljk_SB_MT64x64x8_SN_GSU1".into()
            ))
        );
        assert!(is_type("f8_fnuz_r"));
        assert!(!is_type("0x80"));
    }
}
