//! Benchmark: every convolution solver's applicability (and `IsDynamic`) for N problems.
//! `cargo run --release -p rocpath-miopen --example applicability_bench -- [N] [TARGET] [THREADS]`
//! (`NO_MEMO=1` evaluates every verdict, without the read-path memo).
//! Problems are generated deterministically (SplitMix64): data types, layouts, directions,
//! groups, filters, strides, pads and sizes varied.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::eval::{Evaluator, Input, Memo, Outcome};
use rocpath_miopen::model::ir::Model;
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

/// What every pass shares: the model, the device and its evaluator.
struct Bench {
    model: &'static Model,
    dev: Device,
    env: Env,
    build: HashMap<String, i64>,
    ev: Evaluator<'static>,
    /// The read-path memo (`NO_MEMO=1` turns it off).
    memo_on: bool,
}

/// Applicable, not applicable, unresolved: the index of a verdict in the counts.
fn bucket(o: &Outcome) -> usize {
    match o {
        Outcome::Bool { v: true } => 0,
        Outcome::Bool { v: false } => 1,
        _ => 2,
    }
}

impl Bench {
    fn input<'a>(&'a self, p: &'a Problem) -> Input<'a> {
        Input {
            problem: p,
            device: &self.dev,
            env: &self.env,
            build: &self.build,
            always_enable_naive: false,
        }
    }

    /// Every solver's `IsApplicable` (and `IsDynamic`) over `ps`, counted by verdict (a memo
    /// starts empty per call).
    fn verdicts(&self, ps: &[Problem]) -> [usize; 3] {
        let mut counts = [0usize; 3];
        let mut memo = Memo::new();
        for p in ps {
            let inp = self.input(p);
            for s in &self.model.solvers {
                let Some(f) = s.is_applicable else { continue };
                let o = if self.memo_on {
                    self.ev.solver_fn_memo(&mut memo, s, f, &inp)
                } else {
                    self.ev.solver_fn(s, f, &inp, false).outcome
                };
                counts[bucket(&o)] += 1;
                if let Some(d) = s.is_dynamic {
                    let _ = if self.memo_on {
                        self.ev.solver_fn_memo(&mut memo, s, d, &inp)
                    } else {
                        self.ev.solver_fn(s, d, &inp, false).outcome
                    };
                }
            }
        }
        if std::env::var_os("MEMO_STATS").is_some() {
            self.memo_stats(&memo);
        }
        counts
    }

    /// `MEMO_STATS=1`: the memo's hits and its largest tables.
    fn memo_stats(&self, memo: &Memo<'_>) {
        println!(
            "memo hits {} misses {}; helper calls: hits {} misses {}",
            memo.hits, memo.misses, memo.call_hits, memo.call_misses
        );
        for ((id, f), n) in memo.sizes().iter().take(12) {
            let s = self.model.solvers.iter().find(|s| s.id == *id).unwrap();
            let which = if Some(*f) == s.is_applicable {
                "IsApplicable"
            } else {
                "IsDynamic"
            };
            println!("  {n:6} {} {which}", s.name);
        }
    }

    /// `COUNTS=1`: per solver, applicable / not applicable / unresolved over the problems.
    fn counts_per_solver(&self, ps: &[Problem]) {
        for s in &self.model.solvers {
            let Some(f) = s.is_applicable else { continue };
            let mut c = [0usize; 3];
            for p in ps {
                c[bucket(&self.ev.solver_fn(s, f, &self.input(p), false).outcome)] += 1;
            }
            println!("{} {} {} {}", s.name, c[0], c[1], c[2]);
        }
    }

    /// `UNRESOLVED=1`: why verdicts stay undecided, (solver, reason) by count.
    fn unresolved_reasons(&self, ps: &[Problem]) {
        let mut why: HashMap<(String, String), usize> = HashMap::new();
        for p in &ps[..ps.len().min(2000)] {
            let inp = self.input(p);
            for s in &self.model.solvers {
                let Some(f) = s.is_applicable else { continue };
                if let Outcome::Unknown(u) = self.ev.solver_fn(s, f, &inp, false).outcome {
                    let at = &self.model.functions[u.func as usize].site;
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
    }

    /// `PER_SOLVER=N`: the slowest solvers over the first N problems, time per problem.
    fn per_solver_times(&self, ps: &[Problem], n: usize) {
        let n = n.min(ps.len());
        let mut times: Vec<(f64, &str)> = Vec::new();
        for s in &self.model.solvers {
            let Some(f) = s.is_applicable else { continue };
            let t = Instant::now();
            for p in &ps[..n] {
                let _ = self.ev.solver_fn(s, f, &self.input(p), false);
            }
            times.push((t.elapsed().as_secs_f64() / n as f64 * 1e6, &s.name));
        }
        times.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (t, n) in times.iter().take(15) {
            println!("{t:10.1} us  {n}");
        }
    }

    /// Every verdict over `ps` on `threads` threads: the counts and the time taken.
    fn timed(&self, ps: &[Problem], threads: usize) -> ([usize; 3], std::time::Duration) {
        let t = Instant::now();
        let chunk = ps.len().div_ceil(threads.max(1));
        let counts: Vec<[usize; 3]> = std::thread::scope(|sc| {
            let hs: Vec<_> = ps
                .chunks(chunk)
                .map(|c| sc.spawn(move || self.verdicts(c)))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let total = counts
            .iter()
            .fold([0; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
        (total, t.elapsed())
    }
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
    let b = Bench {
        model,
        dev,
        env: Env::default(),
        build: HashMap::new(),
        ev: Evaluator::new(model, Some("3.5.1")),
        memo_on: std::env::var_os("NO_MEMO").is_none(),
    };
    // Warm: the model loaded and the code paths touched once (a memo starts empty per run).
    let _ = b.verdicts(&ps[..ps.len().min(100)]);
    if std::env::var_os("COUNTS").is_some() {
        return b.counts_per_solver(&ps);
    }
    if std::env::var_os("UNRESOLVED").is_some() {
        return b.unresolved_reasons(&ps);
    }
    if let Some(v) = std::env::var_os("PER_SOLVER") {
        // PER_SOLVER=N: the first N problems (200 when not a number).
        let k = v.to_str().and_then(|v| v.parse().ok()).unwrap_or(200);
        return b.per_solver_times(&ps, k);
    }
    let (total, dt) = b.timed(&ps, threads);
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
