//! Benchmark: every convolution solver's applicability (and `IsDynamic`) for N problems.
//! `cargo run --release -p rocpath-miopen --example applicability_bench -- [N] [TARGET] [THREADS]`
//! (`NO_MEMO=1` evaluates every verdict, without the read-path memo).
//! Problems are generated deterministically (SplitMix64): data types, layouts, directions,
//! groups, filters, strides, pads and sizes varied.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input, Memo, Outcome};
use rocpath_miopen::problem::Square2d;
use rocpath_miopen::{DataType, Direction, Problem};
use std::collections::HashMap;
use std::time::Instant;

/// The allocator of the `rocpath` binary, so the figures are the tool's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

fn problems(n: usize) -> Vec<Problem> {
    let mut r = Rng(0x5eed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let t = r.pick(&[
            DataType::Fp32,
            DataType::Fp16,
            DataType::Bf16,
            DataType::Int8,
        ]);
        let l = r.pick(&["NCHW", "NHWC"]);
        let f = r.pick(&[1u64, 3, 5, 7]);
        let s = r.pick(&[1i64, 2]);
        let p = if f == 1 {
            0
        } else {
            r.pick(&[0i64, (f / 2) as i64])
        };
        let g = r.pick(&[1u64, 1, 1, 2, 4]);
        let c = r.pick(&[16u64, 32, 64, 128, 256]);
        let k = r.pick(&[16u64, 32, 64, 128, 256]);
        let h = r.pick(&[7u64, 14, 28, 56, 112]);
        let nb = r.pick(&[1u64, 8, 16, 32, 64]);
        let dir = r.pick(&[
            Direction::Forward,
            Direction::Forward,
            Direction::BackwardData,
            Direction::BackwardWeights,
        ]);
        let sq = Square2d {
            ty: t,
            direction: dir,
            layout: l,
            c,
            k,
            hw: h,
            filter: f,
            pad: p,
            stride: s,
            groups: g,
            batch: nb,
        };
        out.extend(sq.problem());
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let target = args.get(2).map(String::as_str).unwrap_or("gfx900:xnack-");
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2);
    let t0 = Instant::now();
    let model = rocpath_miopen::model::pinned().unwrap();
    let load = t0.elapsed();
    let ps = problems(n);
    let mut dev = Device::parse(target, Some(64)).unwrap();
    dev.vram = Some(16 << 30);
    let env = Env::default();
    let build = HashMap::new();
    let ev = Evaluator::new(model, Some("3.5.1"));
    // Warm-up: one pass over a few problems.
    let memo_on = std::env::var_os("NO_MEMO").is_none();
    let warm = |ps: &[Problem]| -> [usize; 3] {
        let mut counts = [0usize; 3];
        let mut memo = Memo::new();
        for p in ps {
            let inp = Input {
                problem: p,
                device: &dev,
                env: &env,
                build: &build,
                always_enable_naive: false,
            };
            for s in &model.solvers {
                let Some(f) = s.is_applicable else { continue };
                let o = if memo_on {
                    ev.solver_fn_memo(&mut memo, s, f, &inp)
                } else {
                    ev.solver_fn(s, f, &inp, false).outcome
                };
                let i = match o {
                    Outcome::Bool { v: true } => 0,
                    Outcome::Bool { v: false } => 1,
                    _ => 2,
                };
                counts[i] += 1;
                if let Some(d) = s.is_dynamic {
                    let _ = if memo_on {
                        ev.solver_fn_memo(&mut memo, s, d, &inp)
                    } else {
                        ev.solver_fn(s, d, &inp, false).outcome
                    };
                }
            }
        }
        if std::env::var_os("MEMO_STATS").is_some() {
            println!(
                "memo hits {} misses {}; helper calls: hits {} misses {}",
                memo.hits, memo.misses, memo.call_hits, memo.call_misses
            );
            for ((id, f), n) in memo.sizes().iter().take(12) {
                let s = model.solvers.iter().find(|s| s.id == *id).unwrap();
                let which = if Some(*f) == s.is_applicable {
                    "IsApplicable"
                } else {
                    "IsDynamic"
                };
                println!("  {n:6} {} {which}", s.name);
            }
        }
        counts
    };
    // Warm: the model loaded and the code paths touched once (a memo starts empty per run).
    let _ = warm(&ps[..ps.len().min(100)]);
    if std::env::var_os("COUNTS").is_some() {
        // Per solver: applicable / not applicable / unresolved over the problems.
        for s in &model.solvers {
            let Some(f) = s.is_applicable else { continue };
            let mut c = [0usize; 3];
            for p in &ps {
                let inp = Input {
                    problem: p,
                    device: &dev,
                    env: &env,
                    build: &build,
                    always_enable_naive: false,
                };
                c[match ev.solver_fn(s, f, &inp, false).outcome {
                    Outcome::Bool { v: true } => 0,
                    Outcome::Bool { v: false } => 1,
                    _ => 2,
                }] += 1;
            }
            println!("{} {} {} {}", s.name, c[0], c[1], c[2]);
        }
        return;
    }
    if std::env::var_os("UNRESOLVED").is_some() {
        // Why verdicts stay undecided: (solver, reason) by count.
        let mut why: HashMap<(String, String), usize> = HashMap::new();
        for p in &ps[..ps.len().min(2000)] {
            let inp = Input {
                problem: p,
                device: &dev,
                env: &env,
                build: &build,
                always_enable_naive: false,
            };
            for s in &model.solvers {
                let Some(f) = s.is_applicable else { continue };
                if let Outcome::Unknown(u) = ev.solver_fn(s, f, &inp, false).outcome {
                    let at = &model.functions[u.func as usize].site;
                    *why.entry((s.name.clone(), format!("{}:{} {}", at.file, u.line, u.why)))
                        .or_default() += 1;
                }
            }
        }
        let mut v: Vec<_> = why.into_iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        for ((s, w), n) in v.iter().take(40) {
            println!("{n:6} {s}: {w}");
        }
        return;
    }
    if let Some(v) = std::env::var_os("PER_SOLVER") {
        // PER_SOLVER=N: the first N problems (200 when not a number).
        let n = v
            .to_str()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200)
            .min(ps.len());
        let mut times: Vec<(f64, &str)> = Vec::new();
        for s in &model.solvers {
            let Some(f) = s.is_applicable else { continue };
            let t = Instant::now();
            for p in &ps[..n] {
                let inp = Input {
                    problem: p,
                    device: &dev,
                    env: &env,
                    build: &build,
                    always_enable_naive: false,
                };
                let _ = ev.solver_fn(s, f, &inp, false);
            }
            times.push((t.elapsed().as_secs_f64() / n as f64 * 1e6, &s.name));
        }
        times.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (t, n) in times.iter().take(15) {
            println!("{t:10.1} us  {n}");
        }
        return;
    }
    let t = Instant::now();
    let chunk = ps.len().div_ceil(threads.max(1));
    let counts: Vec<[usize; 3]> = std::thread::scope(|sc| {
        let hs: Vec<_> = ps
            .chunks(chunk)
            .map(|c| sc.spawn(move || warm(c)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let dt = t.elapsed();
    let total: [usize; 3] = counts
        .iter()
        .fold([0; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
    let evals = total.iter().sum::<usize>();
    println!(
        "{n} problems x {} solvers on {target}, {threads} threads: {:.3} s ({:.0} ns per IsApplicable+IsDynamic); model load {:.3} s; applicable {}, not applicable {}, unresolved {}",
        model.solvers.len(),
        dt.as_secs_f64(),
        dt.as_nanos() as f64 / evals as f64,
        load.as_secs_f64(),
        total[0],
        total[1],
        total[2]
    );
}
