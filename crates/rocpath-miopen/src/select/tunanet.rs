//! The immediate fallback's TunaNet step (convolutionocl.cpp:602-633@2d1fd997): whether the
//! device's network takes the problem (its shape tests evaluated from MIOpen's source, its last
//! test — one solver of the metadata's map applicable — computed here from the solvers'
//! verdicts), then the network's order filtered as `GetSolutionsFallback` filters it.

use super::{Prediction, Selection, SolverFate, Tri, step};
use crate::model::eval::Outcome;
use crate::model::ir::{ExprKind, Model, Stmt};
use crate::problem::Problem;
use crate::tunanet::TunaNet;
use serde::Serialize;

/// What the immediate fallback did with one solver of its order (TunaNet's or the WTI
/// ranking's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FallbackFate {
    /// The first one kept: `GetSolution`'s answer.
    Taken,
    /// Kept behind the first (time 10 ms × rank).
    Kept,
    /// Not a solver id of this MIOpen (`PredictSolver` drops it).
    NotASolver,
    /// Its algorithm is switched off.
    AlgorithmDisabled,
    /// Not dynamic.
    NotDynamic,
    /// Not applicable.
    NotApplicable,
    /// Its applicability (or dynamism) is not decided by the model.
    Undecided,
    /// Its WTI is negative (unknown to MIOpen): the WTI ranking skips it.
    NoWti,
    /// Its WTI is not decided by the model.
    WtiUndecided,
}

/// One solver in TunaNet's order.
#[derive(Debug, Clone, Serialize)]
pub struct TunaRank {
    /// The solver.
    pub solver: String,
    /// The network's output (higher first).
    pub score: f32,
    /// What the fallback did with it.
    pub fate: FallbackFate,
}

/// The TunaNet files a query brings.
#[derive(Debug, Clone, Copy)]
pub enum TunaNetFiles<'a> {
    /// Nobody looked for them.
    NotRead,
    /// They could not be read: why (names the file).
    Unreadable(&'a str),
    /// Read.
    Read(&'a TunaNet),
}

/// Completes `IsProblemSupported` when the evaluator stopped at the loop over the metadata's
/// solver map: any of those solvers applicable → supported, all not → not; with the step's
/// text.
pub(super) fn complete_support(
    model: &Model,
    net: &TunaNet,
    outcome: &Outcome,
    sel: &Selection,
) -> Option<(Tri, String)> {
    let Outcome::Unknown(u) = outcome else {
        return None;
    };
    let body = &model.functions.get(u.func as usize)?.body;
    if !loops_over_solver_map(body, u.line) {
        return None;
    }
    let fates: Vec<(&str, Tri)> = net
        .meta
        .solvers
        .iter()
        .map(|s| {
            (
                s.as_str(),
                fate_of(&sel.fates, s).map_or(Tri::No, |f| f.applicable),
            )
        })
        .collect();
    let applicable: Vec<&str> = fates
        .iter()
        .filter(|(_, t)| *t == Tri::Yes)
        .map(|(n, _)| *n)
        .collect();
    let t = if !applicable.is_empty() {
        Tri::Yes
    } else if fates.iter().any(|(_, t)| *t == Tri::Unknown) {
        Tri::Unknown
    } else {
        Tri::No
    };
    let text = format!(
        "of the {} solvers {} names, applicable: {}",
        net.meta.solvers.len(),
        net.class.metadata_file(),
        if applicable.is_empty() {
            "none".to_string()
        } else {
            applicable.join(", ")
        }
    );
    Some((t, text))
}

/// Whether the statement at `line` is the `for(… : metadata.solver_map)` loop (the evaluator
/// stops there: the metadata is the file's, not the source's).
fn loops_over_solver_map(stmts: &[Stmt], line: u32) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::ForEach { line: l, range, .. } if *l == line => {
            matches!(&range.k, ExprKind::Field { name, .. } if name == "solver_map")
        }
        Stmt::If { then, els, .. } => {
            loops_over_solver_map(then, line) || loops_over_solver_map(els, line)
        }
        Stmt::Block { body } | Stmt::ForEach { body, .. } | Stmt::Loop { body, .. } => {
            loops_over_solver_map(body, line)
        }
        Stmt::Try { body, handler, .. } => {
            loops_over_solver_map(body, line) || loops_over_solver_map(handler, line)
        }
        Stmt::Switch { arms, .. } => arms.iter().any(|a| loops_over_solver_map(&a.body, line)),
        _ => false,
    })
}

fn fate_of<'f>(fates: &'f [SolverFate], name: &str) -> Option<&'f SolverFate> {
    fates.iter().find(|f| f.name == name)
}

fn judge(f: Option<&SolverFate>) -> FallbackFate {
    let Some(f) = f else {
        return FallbackFate::NotASolver;
    };
    match (f.algo_disabled, f.dynamic, f.applicable) {
        (Tri::Yes, _, _) => FallbackFate::AlgorithmDisabled,
        (_, Tri::No, _) => FallbackFate::NotDynamic,
        (_, _, Tri::No) => FallbackFate::NotApplicable,
        (Tri::No, Tri::Yes, Tri::Yes) => FallbackFate::Kept,
        _ => FallbackFate::Undecided,
    }
}

/// The fallback over TunaNet's order; `None` when nothing is kept and nothing is undecided
/// (then MIOpen goes on to the WTI ranking).
pub(super) fn order(
    model: &Model,
    net: &TunaNet,
    p: &Problem,
    sel: &mut Selection,
) -> Option<Prediction> {
    let scored = match net.rank(p) {
        Ok(s) => s,
        Err(why) => {
            return Some(Prediction::Unresolved {
                why: format!("TunaNet could not be run: {why}"),
                candidates: Vec::new(),
            });
        }
    };
    let mut ranks: Vec<TunaRank> = scored
        .into_iter()
        .map(|s| TunaRank {
            fate: judge(fate_of(&sel.fates, &s.solver)),
            solver: s.solver,
            score: s.score,
        })
        .collect();
    let first_kept = ranks.iter().position(|r| r.fate == FallbackFate::Kept);
    let first_open = ranks.iter().position(|r| r.fate == FallbackFate::Undecided);
    if let Some(k) = first_kept {
        ranks[k].fate = FallbackFate::Taken;
    }
    sel.steps.push(step(
        model,
        net.class.features_rule(),
        format!(
            "{}'s network ({}): {}",
            net.class.arch(),
            net.class.model_file(),
            summary(&ranks)
        ),
    ));
    sel.steps
        .push(step(model, "path.immediate.tunanet_order", explain(&ranks)));
    let prediction = match (first_kept, first_open) {
        (Some(k), open) if open.is_none_or(|o| o > k) => Some(Prediction::Solver {
            name: ranks[k].solver.clone(),
            id: fate_of(&sel.fates, &ranks[k].solver).map_or(0, |f| f.id),
        }),
        (None, None) => None,
        (k, Some(o)) => Some(Prediction::Unresolved {
            why: format!(
                "TunaNet ranks {} before the first solver the model keeps, and its applicability is not decided",
                ranks[o].solver
            ),
            candidates: ranks[o..=k.unwrap_or(o)]
                .iter()
                .filter(|r| matches!(r.fate, FallbackFate::Undecided | FallbackFate::Taken))
                .map(|r| r.solver.clone())
                .collect(),
        }),
        (Some(_), None) => None,
    };
    sel.tunanet_order = ranks;
    prediction
}

fn summary(ranks: &[TunaRank]) -> String {
    match ranks {
        [a, b, ..] => format!(
            "first {} {:.3}, second {} {:.3}",
            a.solver, a.score, b.solver, b.score
        ),
        [a] => format!("one solver, {} {:.3}", a.solver, a.score),
        [] => "no solver".into(),
    }
}

fn explain(ranks: &[TunaRank]) -> String {
    let shown: Vec<String> = ranks
        .iter()
        .take_while(|r| r.fate != FallbackFate::Taken)
        .chain(ranks.iter().find(|r| r.fate == FallbackFate::Taken))
        .map(|r| format!("{} ({:.3}, {})", r.solver, r.score, r.fate.word()))
        .collect();
    format!("TunaNet's order: {}", shown.join(", "))
}

impl FallbackFate {
    /// The fate in words.
    pub fn word(self) -> &'static str {
        match self {
            FallbackFate::Taken => "taken",
            FallbackFate::Kept => "kept",
            FallbackFate::NotASolver => "not a solver id",
            FallbackFate::AlgorithmDisabled => "algorithm switched off",
            FallbackFate::NotDynamic => "not dynamic",
            FallbackFate::NotApplicable => "not applicable",
            FallbackFate::Undecided => "undecided",
            FallbackFate::NoWti => "WTI < 0: skipped",
            FallbackFate::WtiUndecided => "WTI undecided",
        }
    }
}
