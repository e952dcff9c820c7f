//! The selection path per mode: which solver MIOpen takes for a problem on a device, or how
//! it fails, each step cited (`path.*` rules of the model) and each solver's fate decided by
//! the applicability model.
//!
//! * **Find** (MIOpenDriver's default; `DYNAMIC_HYBRID` unless `MIOPEN_FIND_MODE` says
//!   otherwise): a find-db record answers first (Hybrid and Fast modes); otherwise every
//!   applicable solver (dynamic ones only in `DYNAMIC_HYBRID`) is timed, so the answer is the
//!   applicable set — a prediction only when exactly one remains.
//! * **Immediate** (`-S 0`, the C API's `GetSolution`): the record's fastest applicable entry,
//!   else TunaNet, else the WTI ranking.
//! * **Forced** (`-S <solver>`): the workspace query checks applicability only for solvers that
//!   may need workspace (rejected: rc 0x3); `CompileSolution` never does, so a rejected solver
//!   that needs no workspace is compiled anyway, with the fate the `forced.*` rules give.
//!
//! MIOpenDriver's `-S` (0 or a solver) first asks `GetSolutionCount`: the record's entries
//! counted unchecked, else the fallback's solutions; when the fallback has none, MIOpen throws
//! miopenStatusNotImplemented (rc 0x6) before any workspace query (`path.immediate.count`).

mod tunanet;

pub use tunanet::{FallbackFate, TunaNetFiles, TunaRank};

use crate::findrec::FindItem;
use crate::model::context::{Device, Env};
use crate::model::eval::{Evaluator, Input, Outcome, Verdict};
use crate::model::ir::{Model, Rule, Solver};
use crate::problem::Problem;
use serde::Serialize;
use std::collections::HashMap;

/// Three-valued answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tri {
    /// Yes.
    Yes,
    /// No.
    No,
    /// Not decided by the model.
    Unknown,
}

impl Tri {
    fn of(o: &Outcome) -> Tri {
        match o {
            Outcome::Bool { v: true } => Tri::Yes,
            Outcome::Bool { v: false } => Tri::No,
            Outcome::Number { v } => {
                if *v != 0.0 {
                    Tri::Yes
                } else {
                    Tri::No
                }
            }
            Outcome::Unknown(_) => Tri::Unknown,
        }
    }
}

/// The API path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "solver")]
pub enum Mode {
    /// The Find API.
    Find,
    /// Immediate mode, the fastest solution (`-S 0`, `GetSolution`).
    Immediate,
    /// Immediate mode with one solver (`-S <name|id>`).
    Forced(String),
}

/// MIOpen's find mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FindMode {
    /// 1.
    Normal,
    /// 2.
    Fast,
    /// 3.
    Hybrid,
    /// 5 (default).
    DynamicHybrid,
}

impl FindMode {
    /// From `MIOPEN_FIND_MODE` and `MIOPEN_FIND_ENFORCE` (find_controls.hpp/.cpp).
    pub fn from_env(env: &Env) -> FindMode {
        if env
            .get("MIOPEN_FIND_ENFORCE")
            .is_some_and(|v| !v.is_empty())
        {
            return FindMode::Normal;
        }
        match env
            .get("MIOPEN_FIND_MODE")
            .map(|v| v.trim().to_ascii_uppercase())
        {
            Some(v) if v == "1" || v == "NORMAL" => FindMode::Normal,
            Some(v) if v == "2" || v == "FAST" => FindMode::Fast,
            Some(v) if v == "3" || v == "HYBRID" => FindMode::Hybrid,
            _ => FindMode::DynamicHybrid,
        }
    }
}

/// What a solver's predicates say for the problem.
#[derive(Debug, Clone, Serialize)]
pub struct SolverFate {
    /// Registry id.
    pub id: u64,
    /// Name.
    pub name: String,
    /// Algorithm.
    pub algo: String,
    /// `IsApplicable`.
    pub applicable: Tri,
    /// Its verdict with the deciding chain.
    pub verdict: Verdict,
    /// `IsDynamic()`.
    pub dynamic: Tri,
    /// `MayNeedWorkspace()`.
    pub may_need_workspace: Tri,
    /// `GetWti()` when known (−2 = unknown to MIOpen itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wti: Option<f64>,
    /// The algorithm is switched off by `MIOPEN_DEBUG_CONV_<ALGO>`.
    pub algo_disabled: Tri,
}

/// One step of the path, cited by a rule.
#[derive(Debug, Clone, Serialize)]
pub struct PathStep {
    /// What happens.
    pub step: String,
    /// The rule (`path.find.core`).
    pub rule: String,
    /// `file:line@commit`.
    pub cite: String,
}

/// The predicted end of the path.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Prediction {
    /// This solver runs.
    Solver {
        /// Name.
        name: String,
        /// Registry id.
        id: u64,
    },
    /// The call fails.
    Failure {
        /// `rejected_not_applicable` (rc 0x3), `not_implemented` (rc 0x6), `no_solution`
        /// (rc 0x7), `build_failure`, `runtime_abort`.
        failure: String,
        /// Why.
        why: String,
    },
    /// The model cannot say.
    Unresolved {
        /// Why.
        why: String,
        /// The candidates left.
        candidates: Vec<String>,
    },
}

/// The predicted path.
#[derive(Debug, Clone, Serialize)]
pub struct Selection {
    /// API path.
    pub mode: Mode,
    /// Find mode.
    pub find_mode: FindMode,
    /// The MIOpen release whose differences were applied (`3.5.1`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Steps in order.
    pub steps: Vec<PathStep>,
    /// The end.
    pub prediction: Prediction,
    /// Every solver's fate, registry order.
    pub fates: Vec<SolverFate>,
    /// TunaNet's `IsProblemSupported`, when the path asks it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunanet: Option<Verdict>,
    /// TunaNet's order and what the fallback did with each solver, when it ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tunanet_order: Vec<TunaRank>,
    /// The WTI ranking, when the fallback came to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wti_order: Vec<WtiRank>,
}

/// What to predict for.
pub struct Query<'a> {
    /// Problem.
    pub problem: &'a Problem,
    /// Device.
    pub device: &'a Device,
    /// Environment.
    pub env: &'a Env,
    /// Build flags overriding a release build.
    pub build: &'a HashMap<String, i64>,
    /// A release whose overlay applies (`3.5.1`).
    pub release: Option<&'a str>,
    /// The find-db record the device reads for the problem (user record first), if any.
    pub record: Option<&'a [FindItem]>,
    /// API path.
    pub mode: Mode,
    /// The device's TunaNet files (`<db>/<arch>.tn.model` and its metadata).
    pub tunanet: TunaNetFiles<'a>,
}

/// Every convolution solver's fate for a problem.
pub fn fates(ev: &Evaluator, input: &Input, trace: bool) -> Vec<SolverFate> {
    let m = ev.model();
    m.solvers
        .iter()
        .map(|s| fate(ev, s, input, trace))
        .collect()
}

fn fate(ev: &Evaluator, s: &Solver, input: &Input, trace: bool) -> SolverFate {
    let verdict = match s.is_applicable {
        Some(f) => ev.solver_fn(s, f, input, trace),
        None => Verdict {
            outcome: Outcome::Unknown(crate::model::eval::Unknown {
                func: 0,
                line: s.site.line,
                why: "no IsApplicable was found in the source".into(),
            }),
            blame: Vec::new(),
            undecided: Vec::new(),
        },
    };
    let flag = |f: Option<u32>| match f {
        Some(f) => Tri::of(&ev.solver_fn(s, f, input, false).outcome),
        None => Tri::No,
    };
    let wti = match s.wti {
        Some(f) => match ev.solver_fn(s, f, input, false).outcome {
            Outcome::Number { v } => Some(v),
            _ => None,
        },
        None => Some(-2.0),
    };
    let algo_disabled = ev
        .algo_disabled(&s.algo, input, false)
        .map_or(Tri::Unknown, |v| Tri::of(&v.outcome));
    SolverFate {
        id: s.id,
        name: s.name.clone(),
        algo: s.algo.clone(),
        applicable: Tri::of(&verdict.outcome),
        verdict,
        dynamic: flag(s.is_dynamic),
        may_need_workspace: flag(s.may_need_workspace),
        wti,
        algo_disabled,
    }
}

fn rule<'m>(m: &'m Model, id: &str) -> Option<&'m Rule> {
    m.rules.iter().find(|r| r.id == id)
}

fn step(m: &Model, id: &str, what: impl Into<String>) -> PathStep {
    PathStep {
        step: what.into(),
        rule: id.to_string(),
        cite: rule(m, id).map(|r| r.cite.clone()).unwrap_or_default(),
    }
}

/// The TunaNet class, and so the files, MIOpen loads for a device under an environment
/// (`GetModel` of the stream's device name).
pub fn tunanet_class(device: &Device, env: &Env) -> crate::tunanet::ModelClass {
    crate::tunanet::ModelClass::for_device(crate::model::eval::stream_device_name(env, device))
}

/// Predicts the path for a query.
pub fn select(model: &Model, q: &Query) -> Selection {
    let ev = Evaluator::new(model, q.release);
    let input = Input {
        problem: q.problem,
        device: q.device,
        env: q.env,
        build: q.build,
        always_enable_naive: false,
    };
    let fates = fates(&ev, &input, true);
    let find_mode = FindMode::from_env(q.env);
    let mut sel = Selection {
        mode: q.mode.clone(),
        find_mode,
        release: q.release.map(str::to_string),
        steps: Vec::new(),
        prediction: Prediction::Unresolved {
            why: String::new(),
            candidates: Vec::new(),
        },
        fates,
        tunanet: None,
        tunanet_order: Vec::new(),
        wti_order: Vec::new(),
    };
    sel.prediction = match &q.mode {
        Mode::Find => find(model, &ev, &input, q, &mut sel),
        Mode::Immediate => {
            sel.steps.push(step(
                model,
                "path.driver.immediate",
                "MIOpenDriver -S 0: immediate mode, the first solution GetSolution returns",
            ));
            match solution_count(model, &ev, &input, q, &mut sel) {
                Some(end) => end,
                None => driver_no_solution(
                    model,
                    immediate(model, &ev, &input, q, &mut sel, true),
                    &mut sel,
                ),
            }
        }
        Mode::Forced(s) => {
            sel.steps.push(step(model, "path.driver.immediate", format!("MIOpenDriver -S {s}: GetSolutionCount, GetSolution, then this solver's workspace query, CompileSolution and ForwardImmediate")));
            match solution_count(model, &ev, &input, q, &mut sel) {
                Some(end) => end,
                None => forced(model, q, &mut sel, s),
            }
        }
    };
    sel
}

fn by_name<'a>(fates: &'a [SolverFate], name: &str) -> Option<&'a SolverFate> {
    let id = name.parse::<u64>().ok();
    fates.iter().find(|f| f.name == name || Some(f.id) == id)
}

/// The record's fastest entry that passes (GetSolutions, convolutionocl.cpp:698-756).
fn from_record(model: &Model, q: &Query, sel: &mut Selection) -> Option<Prediction> {
    let rec = q.record?;
    let mut items: Vec<&FindItem> = rec.iter().collect();
    items.sort_by(|a, b| a.time_ms.total_cmp(&b.time_ms));
    sel.steps.push(step(
        model,
        "path.immediate.record",
        format!(
            "the find-db record lists {} solver(s); by time: {}",
            items.len(),
            items
                .iter()
                .map(|i| i.solver.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    for it in items {
        let Some(f) = by_name(&sel.fates, &it.solver) else {
            sel.steps.push(step(
                model,
                "path.immediate.record",
                format!(
                    "{} is not a solver of the model: skipped as an unknown id",
                    it.solver
                ),
            ));
            continue;
        };
        if f.algo_disabled == Tri::Yes {
            continue;
        }
        match f.applicable {
            Tri::Yes => {
                return Some(Prediction::Solver {
                    name: f.name.clone(),
                    id: f.id,
                });
            }
            Tri::No => sel.steps.push(step(
                model,
                "path.immediate.record",
                format!("{} is in the record but not applicable", f.name),
            )),
            Tri::Unknown => {
                return Some(Prediction::Unresolved {
                    why: format!(
                        "the record's next entry {} has an applicability the model cannot decide",
                        f.name
                    ),
                    candidates: vec![f.name.clone()],
                });
            }
        }
    }
    None
}

fn immediate(
    model: &Model,
    ev: &Evaluator,
    input: &Input,
    q: &Query,
    sel: &mut Selection,
    fallback: bool,
) -> Prediction {
    if let Some(p) = from_record(model, q, sel) {
        return p;
    }
    if !fallback {
        return Prediction::Unresolved {
            why: "no record".into(),
            candidates: Vec::new(),
        };
    }
    if q.env
        .get("MIOPEN_DEBUG_CONV_IMMED_FALLBACK")
        .is_some_and(|v| crate::model::context::env_bool(v) == Ok(false))
    {
        return Prediction::Failure {
            failure: "no_solution".into(),
            why: "the immediate fallback is switched off (MIOPEN_DEBUG_CONV_IMMED_FALLBACK=0)"
                .into(),
        };
    }
    let tn = ev.tunanet_supported(input, true);
    let mut tn_tri = tn.as_ref().map_or(Tri::Unknown, |v| Tri::of(&v.outcome));
    let loop_step = match (q.tunanet, &tn) {
        (TunaNetFiles::Read(net), Some(v)) => {
            tunanet::complete_support(model, net, &v.outcome, sel)
        }
        _ => None,
    };
    if let Some((t, _)) = &loop_step {
        tn_tri = *t;
    }
    sel.steps.push(step(
        model,
        "path.immediate.tunanet",
        format!("no find-db record: fallback; TunaNet's model takes the problem: {tn_tri:?}"),
    ));
    if let Some((_, text)) = loop_step {
        sel.steps.push(step(model, "tunanet.solver_map", text));
    }
    sel.tunanet = tn;
    let ranked = candidates(&sel.fates, true);
    match (tn_tri, q.tunanet) {
        (Tri::No, _) => {}
        (Tri::Yes, TunaNetFiles::Read(net)) => {
            if let Some(p) = tunanet::order(model, net, q.problem, sel) {
                return p;
            }
        }
        _ if ranked.yes.len() == 1 && ranked.maybe.is_empty() => {}
        (_, files) => {
            let why = match files {
                TunaNetFiles::Unreadable(why) => {
                    format!("TunaNet's network ranks the applicable dynamic solvers, and {why}")
                }
                TunaNetFiles::Read(_) => "TunaNet may take the problem: whether it does is not decided".into(),
                TunaNetFiles::NotRead => "TunaNet's network ranks the applicable dynamic solvers; its files were not read".into(),
            };
            return Prediction::Unresolved {
                why,
                candidates: ranked.names(),
            };
        }
    }
    wti(model, sel)
}

struct Cands<'a> {
    yes: Vec<&'a SolverFate>,
    maybe: Vec<&'a SolverFate>,
}

impl Cands<'_> {
    fn names(&self) -> Vec<String> {
        self.yes
            .iter()
            .chain(&self.maybe)
            .map(|f| f.name.clone())
            .collect()
    }
}

/// Solvers that may run: algorithm on, (dynamic when asked), applicable.
fn candidates(fates: &[SolverFate], dynamic_only: bool) -> Cands<'_> {
    let mut c = Cands {
        yes: Vec::new(),
        maybe: Vec::new(),
    };
    for f in fates {
        if f.algo_disabled == Tri::Yes || (dynamic_only && f.dynamic == Tri::No) {
            continue;
        }
        let sure = f.applicable == Tri::Yes
            && f.algo_disabled == Tri::No
            && (!dynamic_only || f.dynamic == Tri::Yes);
        if sure {
            c.yes.push(f);
        } else if f.applicable != Tri::No {
            c.maybe.push(f);
        }
    }
    c
}

/// One solver of the WTI ranking.
#[derive(Debug, Clone, Serialize)]
pub struct WtiRank {
    /// The solver.
    pub solver: String,
    /// Its `GetWti()`, when the model decides it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wti: Option<f64>,
    /// The time MIOpen gives it (10 ms / WTI), when the WTI is positive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<f64>,
    /// What the fallback did with it.
    pub fate: FallbackFate,
}

/// WTI fallback (convolutionocl.cpp:638-669): dynamic, applicable, WTI >= 0, by 10/WTI. A
/// solver the model cannot decide leaves the answer open only when it could come before the
/// first one it can (its WTI unknown, or its time not after that one's).
fn wti(model: &Model, sel: &mut Selection) -> Prediction {
    let c = candidates(&sel.fates, true);
    let mut ranks: Vec<WtiRank> = c
        .yes
        .iter()
        .map(|f| (f, FallbackFate::Kept))
        .chain(c.maybe.iter().map(|f| (f, FallbackFate::Undecided)))
        .map(|(f, fate)| WtiRank {
            solver: f.name.clone(),
            wti: f.wti,
            time_ms: f.wti.filter(|w| *w > 0.0).map(|w| 10.0 / w),
            fate: match f.wti {
                Some(w) if w < 0.0 => FallbackFate::NoWti,
                None => FallbackFate::WtiUndecided,
                _ => fate,
            },
        })
        .collect();
    // Registry order among equal times, as the candidates come; unknown times last.
    ranks.sort_by(|a, b| {
        let t = |r: &WtiRank| r.time_ms.unwrap_or(f64::INFINITY);
        t(a).total_cmp(&t(b))
    });
    let first = ranks.iter().position(|r| r.fate == FallbackFate::Kept);
    let open: Vec<usize> = ranks
        .iter()
        .enumerate()
        .filter(|&(i, r)| match r.fate {
            FallbackFate::WtiUndecided => true,
            // A tie with the first: `std::sort` is not stable, either may come first.
            FallbackFate::Kept => first.is_some_and(|k| k != i && r.time_ms == ranks[k].time_ms),
            FallbackFate::Undecided => first.is_none_or(|k| {
                r.time_ms
                    .is_none_or(|t| ranks[k].time_ms.is_none_or(|tk| t <= tk))
            }),
            _ => false,
        })
        .map(|(i, _)| i)
        .collect();
    if let (Some(k), true) = (first, open.is_empty()) {
        ranks[k].fate = FallbackFate::Taken;
    }
    sel.steps.push(step(
        model,
        "path.immediate.wti",
        format!(
            "WTI ranking: {}",
            ranks
                .iter()
                .filter_map(|r| r.time_ms.map(|t| format!("{} (time {t:.4})", r.solver)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    let prediction = match (first, open.is_empty()) {
        (Some(k), true) => Prediction::Solver {
            name: ranks[k].solver.clone(),
            id: by_name(&sel.fates, &ranks[k].solver).map_or(0, |f| f.id),
        },
        (None, true) => Prediction::Failure {
            failure: "no_solution".into(),
            why: "no dynamic applicable solver has a WTI: the immediate mode has no solution"
                .into(),
        },
        (k, false) => Prediction::Unresolved {
            why: "a solver whose applicability or WTI the model cannot decide could rank first"
                .into(),
            candidates: open
                .iter()
                .copied()
                .chain(k)
                .map(|i| ranks[i].solver.clone())
                .collect(),
        },
    };
    sel.wti_order = ranks;
    prediction
}

fn find(
    model: &Model,
    ev: &Evaluator,
    input: &Input,
    q: &Query,
    sel: &mut Selection,
) -> Prediction {
    sel.steps.push(step(
        model,
        "path.driver.find_or_immediate",
        "MIOpenDriver without -S: the Find API",
    ));
    sel.steps.push(step(
        model,
        "path.find.modes",
        format!("find mode {:?}", sel.find_mode),
    ));
    if sel.find_mode != FindMode::Normal {
        sel.steps.push(step(
            model,
            "path.find.immediate_first",
            "the immediate mode answers first",
        ));
        if let Some(p) = from_record(model, q, sel) {
            if matches!(p, Prediction::Solver { .. }) {
                sel.steps.push(step(
                    model,
                    "path.find.compile_hit",
                    "the find-db hit is compiled and returned",
                ));
            }
            return p;
        }
        if sel.find_mode == FindMode::Fast {
            return immediate(model, ev, input, q, sel, true);
        }
    }
    find_core(model, ev, input, q, sel)
}

fn find_core(
    model: &Model,
    ev: &Evaluator,
    input: &Input,
    q: &Query,
    sel: &mut Selection,
) -> Prediction {
    let dynamic_only = sel.find_mode == FindMode::DynamicHybrid;
    let only = q
        .env
        .get("MIOPEN_DEBUG_FIND_ONLY_SOLVER")
        .filter(|v| !v.is_empty())
        .map(|v| {
            v.split(';')
                .map(str::trim)
                .map(str::to_string)
                .collect::<Vec<_>>()
        });
    let shortcut = ev
        .winograd_shortcut(input, false)
        .map_or(Tri::Unknown, |v| Tri::of(&v.outcome));
    sel.steps.push(step(
        model,
        "path.find.core",
        format!(
            "no record: FindCore times every candidate{}{}",
            if dynamic_only {
                " (dynamic solvers only)"
            } else {
                ""
            },
            if shortcut == Tri::Yes {
                "; ConvBinWinograd3x3U applies with K >= 16 even: only the Winograd finder runs"
            } else {
                ""
            }
        ),
    ));
    let mut c = candidates(&sel.fates, dynamic_only);
    let keep = |f: &&SolverFate| {
        only.as_ref().is_none_or(|o| {
            o.iter()
                .any(|x| *x == f.name || x.parse::<u64>().ok() == Some(f.id))
        }) && (shortcut != Tri::Yes || f.algo == "miopenConvolutionAlgoWinograd")
    };
    c.yes.retain(keep);
    c.maybe.retain(keep);
    if let Some(o) = &only {
        sel.steps.push(step(
            model,
            "path.find.filters",
            format!(
                "MIOPEN_DEBUG_FIND_ONLY_SOLVER={}: other solvers are skipped",
                o.join(";")
            ),
        ));
    }
    match (c.yes.as_slice(), c.maybe.is_empty()) {
        ([one], true) => Prediction::Solver {
            name: one.name.clone(),
            id: one.id,
        },
        ([], true) => {
            sel.steps
                .push(step(model, "path.find.no_solution", "no candidate is left"));
            Prediction::Failure { failure: "no_solution".into(), why: "no solver is applicable to the problem: No suitable algorithm was found (rc 0x7)".into() }
        }
        _ => Prediction::Unresolved {
            why: format!(
                "timing on the device decides among {} candidates",
                c.yes.len() + c.maybe.len()
            ),
            candidates: c.names(),
        },
    }
}

/// Whether the immediate mode's fallback (convolutionocl.cpp:580-678) lists a solution:
/// TunaNet's predictions that are dynamic and applicable, else every dynamic applicable solver
/// with a WTI >= 0.
fn fallback_lists(ev: &Evaluator, input: &Input, q: &Query, sel: &mut Selection) -> Tri {
    if q.env
        .get("MIOPEN_DEBUG_CONV_IMMED_FALLBACK")
        .is_some_and(|v| crate::model::context::env_bool(v) == Ok(false))
    {
        return Tri::No;
    }
    let dynamic = candidates(&sel.fates, true);
    let wti_ok = |f: &&SolverFate| f.wti.is_none_or(|w| w >= 0.0);
    if dynamic.yes.iter().any(|f| f.wti.is_some_and(|w| w >= 0.0)) {
        return Tri::Yes;
    }
    if dynamic.yes.is_empty() && dynamic.maybe.is_empty() {
        // Neither TunaNet's predictions nor the WTI ranking can name a solver.
        return Tri::No;
    }
    if dynamic.yes.iter().chain(&dynamic.maybe).any(wti_ok) {
        return Tri::Unknown;
    }
    // The WTI ranking is empty: only TunaNet could list a dynamic applicable solver.
    let tn = ev.tunanet_supported(input, true);
    let tn_tri = tn.as_ref().map_or(Tri::Unknown, |v| Tri::of(&v.outcome));
    sel.tunanet = tn;
    match tn_tri {
        Tri::No => Tri::No,
        _ => Tri::Unknown,
    }
}

/// `GetSolutionCount` (convolutionocl.cpp:504-547), which MIOpenDriver calls first for every
/// `-S` (conv_driver.hpp:2108-2121): the end of the path when it throws, `None` when the run
/// goes on.
fn solution_count(
    model: &Model,
    ev: &Evaluator,
    input: &Input,
    q: &Query,
    sel: &mut Selection,
) -> Option<Prediction> {
    if q.record.is_some_and(|r| !r.is_empty()) {
        sel.steps.push(step(
            model,
            "path.immediate.count",
            "GetSolutionCount counts the find-db record's entries without asking IsApplicable: the run goes on",
        ));
        return None;
    }
    match fallback_lists(ev, input, q, sel) {
        Tri::Yes => {
            sel.steps.push(step(
                model,
                "path.immediate.count",
                "no find-db record: GetSolutionCountFallback counts the fallback's solutions, at least one",
            ));
            None
        }
        Tri::No => {
            sel.steps.push(step(
                model,
                "path.immediate.count",
                "no find-db record and the fallback lists no solution: GetSolutionCountFallback throws before any workspace query",
            ));
            Some(Prediction::Failure {
                failure: "not_implemented".into(),
                why: "Requested convolution is not supported or Immediate mode Fallback unsuccessful (miopenStatusNotImplemented, rc 0x6)".into(),
            })
        }
        Tri::Unknown => Some(Prediction::Unresolved {
            why: "whether the immediate fallback lists any solution (else GetSolutionCount fails with rc 0x6) depends on what the model cannot decide".into(),
            candidates: candidates(&sel.fates, true).names(),
        }),
    }
}

/// MIOpenDriver `-S 0` when GetSolution lists nothing (a record none of whose entries apply,
/// and an empty fallback): the driver itself returns miopenStatusNotImplemented
/// (conv_driver.hpp:2138-2139).
fn driver_no_solution(model: &Model, p: Prediction, sel: &mut Selection) -> Prediction {
    match p {
        Prediction::Failure { failure, why } if failure == "no_solution" => {
            sel.steps.push(step(
                model,
                "path.driver.count",
                "GetSolution lists no solution: MIOpenDriver returns miopenStatusNotImplemented",
            ));
            Prediction::Failure {
                failure: "not_implemented".into(),
                why: format!("{why}; MIOpenDriver returns miopenStatusNotImplemented (rc 0x6)"),
            }
        }
        p => p,
    }
}

/// `-S <solver>` (driver/conv_driver.hpp:2105-2221, convolutionocl.cpp:789-818).
fn forced(model: &Model, q: &Query, sel: &mut Selection, solver: &str) -> Prediction {
    let Some(f) = by_name(&sel.fates, solver).cloned() else {
        return Prediction::Unresolved {
            why: format!("{solver} is not a solver of the model (another MIOpen release?)"),
            candidates: Vec::new(),
        };
    };
    match (f.may_need_workspace, f.applicable) {
        (Tri::Yes, Tri::No) => {
            sel.steps.push(step(model, "path.forced.workspace", format!("{} may need workspace: the workspace query runs IsApplicable, which rejects it", f.name)));
            return Prediction::Failure {
                failure: "rejected_not_applicable".into(),
                why: format!(
                    "The supplied solution id: {} is not applicable to the current problem (miopenStatusBadParm, rc 0x3)",
                    f.name
                ),
            };
        }
        (Tri::Yes, Tri::Unknown) | (Tri::Unknown, _) => {
            return Prediction::Unresolved {
                why: format!(
                    "the model cannot decide {}'s applicability or workspace need",
                    f.name
                ),
                candidates: vec![f.name],
            };
        }
        _ => {}
    }
    sel.steps.push(step(
        model,
        "path.forced.compile",
        format!(
            "CompileSolution builds {} without asking IsApplicable",
            f.name
        ),
    ));
    match f.applicable {
        Tri::Yes => Prediction::Solver {
            name: f.name,
            id: f.id,
        },
        Tri::Unknown => Prediction::Unresolved {
            why: format!("the model cannot decide whether {} applies", f.name),
            candidates: vec![f.name],
        },
        Tri::No => forced_fate(model, q, sel, &f),
    }
}

fn forced_fate(model: &Model, q: &Query, sel: &mut Selection, f: &SolverFate) -> Prediction {
    let dev = &q.device.name;
    let info = rocpath_arch::target(dev);
    let lacks = |feature: &str| match feature {
        "mfma" => info.is_some_and(|t| t.mfma.is_none()),
        "dot" => info.is_some_and(|t| t.dot.is_empty()),
        _ => false,
    };
    let hit = model.rules.iter().find(|r| {
        r.fate.is_some()
            && r.solvers.contains(&f.name)
            && r.lacks.as_deref().is_none_or(lacks)
            && (r.targets.is_empty() || r.targets.iter().any(|t| dev.starts_with(t.as_str())))
    });
    match hit {
        Some(r) => {
            sel.steps.push(step(model, &r.id, r.says.clone()));
            Prediction::Failure {
                failure: r.fate.clone().unwrap_or_default(),
                why: r.says.clone(),
            }
        }
        None => Prediction::Unresolved {
            why: format!(
                "{} is compiled although its IsApplicable rejects the problem; what the kernel build does then is not modelled",
                f.name
            ),
            candidates: vec![f.name.clone()],
        },
    }
}
