//! The cross-GPU table: for generated problems, how often the selection path ends in one
//! solver, a failure, or `unresolved` (by reason), per target × mode × direction, with no
//! find-db record (the fallback's and Find's own answer) and TunaNet's files read from a folder.
//! `cargo run --release -p rocpath-miopen --example selection_table -- [N] [TUNANET_DIR]`
//! (default 600 problems per direction, `crates/rocpath-miopen/tests/data/tunanet`); `MODEL=NAME`
//! uses another shipped model than the pinned one (`rocm-6.3.1`).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use rocpath_miopen::model::context::{Device, Env};
use rocpath_miopen::model::ir::Model;
use rocpath_miopen::problem::Square2d;
use rocpath_miopen::select::{Mode, Prediction, Query, TunaNetFiles, select, tunanet_class};
use rocpath_miopen::tunanet::TunaNet;
use rocpath_miopen::{DataType, Direction, Problem};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// The common families: 2-D, NCHW/NHWC, FP32/FP16/BF16 (INT8 forward only), groups 1/2.
fn problems(n: usize, dir: Direction) -> Vec<Problem> {
    let mut r = Rng(0x7ab1e ^ dir as u64);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let ty = if dir == Direction::Forward {
            r.pick(&[
                DataType::Fp32,
                DataType::Fp16,
                DataType::Bf16,
                DataType::Int8,
            ])
        } else {
            r.pick(&[DataType::Fp32, DataType::Fp16, DataType::Bf16])
        };
        let filter = r.pick(&[1u64, 3, 3, 5, 7]);
        let sq = Square2d {
            ty,
            direction: dir,
            layout: r.pick(&["NCHW", "NCHW", "NHWC"]),
            c: r.pick(&[16u64, 32, 64, 128, 256, 512]),
            k: r.pick(&[16u64, 32, 64, 128, 256, 512]),
            hw: r.pick(&[7u64, 14, 28, 56, 112]),
            filter,
            pad: (filter / 2) as i64,
            stride: r.pick(&[1i64, 1, 2]),
            groups: r.pick(&[1u64, 1, 1, 2]),
            batch: r.pick(&[1u64, 8, 32, 64]),
        };
        out.extend(sq.problem());
    }
    out
}

fn load(dir: &Path, dev: &Device, env: &Env) -> Result<TunaNet, String> {
    let class = tunanet_class(dev, env);
    let read = |name: String| -> Result<serde_json::Value, String> {
        let text = std::fs::read_to_string(dir.join(&name)).map_err(|e| format!("{name}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{name}: {e}"))
    };
    TunaNet::parse(
        class,
        &read(class.model_file())?,
        &read(class.metadata_file())?,
    )
    .map_err(|e| e.to_string())
}

/// The kind of end: `solver`, `failure`, or `unresolved: <reason class>`.
fn kind(p: &Prediction) -> String {
    match p {
        Prediction::Solver { .. } => "solver".into(),
        Prediction::Failure { failure, .. } => format!("failure {failure}"),
        Prediction::Unresolved { why, .. } => {
            let w = if why.contains("timing") || why.contains("timed") {
                "timing decides"
            } else if why.contains("TunaNet") {
                "TunaNet order open"
            } else if why.contains("WTI") || why.contains("could rank first") {
                "WTI order open"
            } else {
                "other"
            };
            format!("unresolved: {w}")
        }
    }
}

/// `WTI_OF=<solver>`: its `GetWti` verdict for the first problem of each direction.
fn wti_of(model: &Model, name: &str) {
    let s = model.solvers.iter().find(|s| s.name == name).unwrap();
    let ev = rocpath_miopen::model::eval::Evaluator::new(model, None);
    let mut dev = Device::parse("gfx1201", Some(64)).unwrap();
    dev.vram = Some(32 << 30);
    let (env, build) = (Env::default(), HashMap::new());
    for d in DIRECTIONS {
        let p = &problems(3, d)[0];
        let inp = rocpath_miopen::model::eval::Input {
            problem: p,
            device: &dev,
            env: &env,
            build: &build,
            always_enable_naive: false,
        };
        let v = ev.solver_fn(s, s.wti.unwrap(), &inp, true);
        println!("{} {:?}", p.fdb_key(), v.outcome);
    }
}

const DIRECTIONS: [Direction; 3] = [
    Direction::Forward,
    Direction::BackwardData,
    Direction::BackwardWeights,
];

const TARGETS: [&str; 8] = [
    "gfx900:xnack-",
    "gfx906",
    "gfx908",
    "gfx90a",
    "gfx942",
    "gfx1030",
    "gfx1100",
    "gfx1201",
];

/// What the rows of one target and mode share.
struct Ctx<'a> {
    dev: &'a Device,
    env: &'a Env,
    build: &'a HashMap<String, i64>,
    mode: Mode,
    tn: &'a Result<TunaNet, String>,
    target: &'a str,
    mname: &'a str,
}

impl Ctx<'_> {
    fn query<'q>(&'q self, p: &'q Problem) -> Query<'q> {
        Query {
            problem: p,
            device: self.dev,
            env: self.env,
            build: self.build,
            release: None,
            record: None,
            mode: self.mode.clone(),
            tunanet: match self.tn {
                Ok(t) => TunaNetFiles::Read(t),
                Err(e) => TunaNetFiles::Unreadable(e),
            },
        }
    }

    /// One row of the table: the predictions for `n` problems of direction `d`, by kind; with
    /// `DETAIL`, the unresolved ones' reasons and first candidates go to `detail`.
    fn row(
        &self,
        model: &Model,
        (n, d): (usize, Direction),
        detail: &mut BTreeMap<String, usize>,
    ) -> BTreeMap<String, usize> {
        let mut c: BTreeMap<String, usize> = BTreeMap::new();
        for p in &problems(n, d) {
            let pred = select(model, &self.query(p)).prediction;
            if std::env::var_os("DETAIL").is_some() {
                if let Prediction::Unresolved { why, candidates } = &pred {
                    let first = candidates.first().map(String::as_str).unwrap_or("");
                    let w: String = why.chars().take(70).collect();
                    let key = format!("{} {} {w} | {first}", self.target, self.mname);
                    *detail.entry(key).or_default() += 1;
                }
            }
            *c.entry(kind(&pred)).or_default() += 1;
        }
        c
    }
}

/// A row as Markdown: one solver, failures, and the unresolved ones by reason.
fn print_row(label: &str, d: Direction, n: usize, c: &BTreeMap<String, usize>) {
    let solver = c.get("solver").copied().unwrap_or(0);
    let fail: usize = c
        .iter()
        .filter(|(k, _)| k.starts_with("failure"))
        .map(|(_, v)| v)
        .sum();
    let open: Vec<String> = c
        .iter()
        .filter(|(k, _)| k.starts_with("unresolved"))
        .map(|(k, v)| format!("{}: {v}", k.trim_start_matches("unresolved: ")))
        .collect();
    println!(
        "| {label} | {} | {n} | {solver} | {fail} | {} |",
        d.letter(),
        open.join(", ")
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(600);
    let dir = args
        .get(2)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tunanet"));
    // `MODEL=rocm-6.3.1`: another shipped model than the pinned one.
    let model = match std::env::var("MODEL") {
        Ok(name) => rocpath_miopen::model::release::by_name(&name)
            .expect("MODEL names a shipped model")
            .model()
            .unwrap(),
        Err(_) => rocpath_miopen::model::pinned().unwrap(),
    };
    if let Ok(name) = std::env::var("WTI_OF") {
        return wti_of(model, &name);
    }
    let env = Env::default();
    let build = HashMap::new();
    let mut detail: BTreeMap<String, usize> = BTreeMap::new();
    println!(
        "| target | mode | direction | problems | one solver | failure | unresolved (reason: count) |"
    );
    println!("|---|---|---|---:|---:|---:|---|");
    for target in TARGETS {
        let mut dev = Device::parse(target, Some(64)).unwrap();
        dev.vram = Some(32 << 30);
        let tn = load(&dir, &dev, &env);
        for (mode, mname) in [(Mode::Find, "find"), (Mode::Immediate, "immediate")] {
            let ctx = Ctx {
                dev: &dev,
                env: &env,
                build: &build,
                mode,
                tn: &tn,
                target,
                mname,
            };
            for d in DIRECTIONS {
                let c = ctx.row(model, (n, d), &mut detail);
                print_row(&format!("{target} | {mname}"), d, n, &c);
            }
        }
    }
    let mut d: Vec<_> = detail.into_iter().collect();
    d.sort_by_key(|e| std::cmp::Reverse(e.1));
    for (k, v) in d.iter().take(40) {
        println!("{v:6} {k}");
    }
}
