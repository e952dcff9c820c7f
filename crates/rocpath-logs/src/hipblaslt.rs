//! hipBLASLt logging (`HIPBLASLT_LOG_LEVEL` / `HIPBLASLT_LOG_MASK`, sink `HIPBLASLT_LOG_FILE`
//! or stdout). Line prefix (`library/src/amd_detail/rocblaslt/src/utility.cpp`):
//! `[YYYY-MM-DD HH:MM:SS][HIPBLASLT][<pid>][<Error|Trace|Hints|Info|Api>][<func>] <body>`.
//! Bench lines (mask 32): `hipblaslt-bench --api_method c -m M -n N -k K … --a_type f16_r …`.

use crate::rocblas::{GemmCall, GemmTypes};
use crate::text::{find, s, trim};
use std::borrow::Cow;

/// A recognised hipBLASLt line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<'a> {
    /// A prefixed log line.
    Log {
        /// `Error`, `Trace`, `Hints`, `Info`, `Api`.
        level: Cow<'a, str>,
        /// The function.
        func: Cow<'a, str>,
        /// The body.
        body: Cow<'a, str>,
        /// What the body says about selection, when it says something.
        selection: Option<Selection>,
    },
    /// A `hipblaslt-bench` line: one GEMM.
    Bench(GemmCall<'a>),
}

/// Selection-relevant hipBLASLt messages (`tensile_host.cpp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// `no solutions found, try to fallback`
    NoSolutionFallback,
    /// `no xf32 solutions found, try to fallback fp32`
    Xf32ToFp32,
    /// `Found hardware solutions: <n>`
    HardwareSolutions(u64),
}

fn bracket(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let b = b.strip_prefix(b"[")?;
    let close = memchr::memchr(b']', b)?;
    Some((&b[..close], &b[close + 1..]))
}

fn selection(body: &[u8]) -> Option<Selection> {
    if find(body, b"no xf32 solutions found").is_some() {
        return Some(Selection::Xf32ToFp32);
    }
    if find(body, b"no solutions found, try to fallback").is_some() {
        return Some(Selection::NoSolutionFallback);
    }
    let i = find(body, b"Found hardware solutions: ")?;
    let r = &body[i + 26..];
    let end = r
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(r.len());
    Some(Selection::HardwareSolutions(crate::text::u64_of(
        &r[..end],
    )?))
}

fn bench(line: &[u8]) -> Option<Event<'_>> {
    let text = s(line);
    let mut it = text.split_ascii_whitespace();
    if !it.next()?.ends_with("hipblaslt-bench") {
        return None;
    }
    let toks: Vec<&str> = it.collect();
    let get = |name: &str| {
        toks.windows(2)
            .rev()
            .find(|w| w[0] == name)
            .map(|w| w[1].to_string())
    };
    Some(Event::Bench(GemmCall {
        api: Cow::Borrowed("hipblaslt"),
        trans_a: Cow::Owned(get("--transA").unwrap_or_else(|| "N".into())),
        trans_b: Cow::Owned(get("--transB").unwrap_or_else(|| "N".into())),
        m: get("-m")?.parse().ok()?,
        n: get("-n")?.parse().ok()?,
        k: get("-k")?.parse().ok()?,
        batch_count: get("--batch_count").and_then(|b| b.parse().ok()),
        types: GemmTypes {
            a: get("--a_type"),
            b: get("--b_type"),
            c: get("--c_type"),
            d: get("--d_type"),
            compute: get("--compute_type").or_else(|| get("--scale_type")),
        },
        count: 1,
    }))
}

/// Parses a hipBLASLt line.
pub fn parse(line: &[u8]) -> Option<Event<'_>> {
    if line.first() == Some(&b'h')
        || find(&line[..line.len().min(64)], b"hipblaslt-bench").is_some()
    {
        if let Some(e) = bench(trim(line)) {
            return Some(e);
        }
    }
    let (_date, rest) = bracket(line)?;
    let (tag, rest) = bracket(rest)?;
    if tag != b"HIPBLASLT" {
        return None;
    }
    let (_pid, rest) = bracket(rest)?;
    let (level, rest) = bracket(rest)?;
    let (func, body) = bracket(rest)?;
    let body = trim(body);
    Some(Event::Log {
        level: s(level),
        func: s(func),
        body: s(body),
        selection: selection(body),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines() {
        let e = parse(b"[2025-01-02 03:04:05][HIPBLASLT][1234][Hints][getAllSolutions] no solutions found, try to fallback").unwrap();
        assert!(matches!(
            e,
            Event::Log {
                selection: Some(Selection::NoSolutionFallback),
                ..
            }
        ));
        let e = parse(b"[2025-01-02 03:04:05][HIPBLASLT][1234][Info][getAllSolutions] Found hardware solutions: 12").unwrap();
        assert!(matches!(
            e,
            Event::Log {
                selection: Some(Selection::HardwareSolutions(12)),
                ..
            }
        ));
        assert_eq!(parse(b"[2025][ROCBLAS][1][x][y] z"), None);
    }

    #[test]
    fn bench_line() {
        let e = parse(b"hipblaslt-bench --api_method c -m 512 -n 1024 -k 2880 --lda 2880 --transA T --transB N --batch_count 1 --a_type f16_r --b_type f16_r --c_type f16_r --d_type f16_r --compute_type f32_r").unwrap();
        let Event::Bench(g) = e else { panic!() };
        assert_eq!((g.m, g.n, g.k), (512, 1024, 2880));
        assert_eq!(g.trans_a, "T");
        assert_eq!(g.types.compute.as_deref(), Some("f32_r"));
    }
}
