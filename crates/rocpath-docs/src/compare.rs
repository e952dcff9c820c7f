//! The `rocpath.explain.compare/1` document (`rocpath explain --compare`): a prediction next
//! to an observation — a case of `rocpath case read` against the MIOpen model
//! ([`Comparison`]), or a kernel of `rocpath trace` against ggml's rules
//! ([`KernelComparison`]). `rocpath-explain` builds these; the ledger reads them with the same
//! types.
//!
//! The prediction in full (the MIOpen model's explanation, ggml's decision) is the explaining
//! crate's own type, so the document types take it as a parameter: the producer prints its
//! model there, and a reader that does not need it passes [`serde::de::IgnoredAny`], which
//! skips it while parsing ([`ReadComparison`]).

use crate::words;
use rocpath_arch::TargetId;
use rocpath_evidence::Evidence;
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::HashMap;

/// `rocpath.explain.compare`: one comparison per problem or kernel (`C`: a slice of
/// comparisons when printed, a `Vec` when read).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ComparisonsDoc<C> {
    /// The comparisons.
    pub comparisons: C,
}

/// How an observation stands against the model's prediction (the JSON words are these
/// snake_case names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The observation is what the model predicts.
    Agree,
    /// The observation is allowed by the prediction without being the one predicted (a trace
    /// phase whose path the model leaves open).
    Consistent,
    /// The observation contradicts the prediction.
    Disagree,
    /// The model leaves the answer open.
    Unresolved,
    /// The model made no prediction.
    NoPrediction,
    /// The case has nothing observed to compare.
    NoObservation,
    /// Not a MIOpen run the model covers.
    NotMiopen,
}

words!(Verdict {
    Agree => "agree",
    Consistent => "consistent",
    Disagree => "disagree",
    Unresolved => "unresolved",
    NoPrediction => "no_prediction",
    NoObservation => "no_observation",
    NotMiopen => "not_miopen",
});

/// One statement of the log about a solver, against the model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SolverCheck {
    /// Solver.
    pub solver: String,
    /// What the log says (`not_applicable`, `skipped_non_dynamic`, …).
    pub logged: String,
    /// Where.
    pub line: u64,
    /// What the model says (`not_applicable`, `applicable`, `dynamic`, …, `unresolved`).
    pub model: String,
    /// `agree`, `disagree`, `unresolved`.
    pub verdict: Verdict,
    /// The model's deciding line, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
}

/// One case compared; `X` is the model's explanation (`rocpath-explain`'s
/// `MiopenExplanation` when printed).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comparison<X> {
    /// Case name.
    pub case: String,
    /// Device observed.
    pub arch: Option<TargetId>,
    /// Find-db key of the problem.
    pub problem_key: Option<String>,
    /// The API path (`find`, `immediate`, `forced: <solver>`).
    pub mode: Option<String>,
    /// The release overlay applied (from the logged MIOpen version).
    pub release: Option<String>,
    /// Solver the observation shows.
    pub observed: Option<String>,
    /// The observed outcome kind.
    pub observed_outcome: Option<String>,
    /// The predicted end: a solver, `failure: <kind>`, or `unresolved`.
    pub predicted: Option<String>,
    /// `agree`, `disagree`, `unresolved`, `no_prediction`, `no_observation`, `not_miopen`.
    pub verdict: Verdict,
    /// The statement.
    pub statement: String,
    /// For a disagreement: the open question for the ledger.
    pub question: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
    /// Every logged statement about a solver, checked.
    pub solvers: Vec<SolverCheck>,
    /// Counts of `solvers[].verdict`.
    pub solver_counts: HashMap<String, u64>,
    /// The prediction (path, prediction, record; the per-solver table is in `solvers`).
    pub explanation: Option<X>,
}

/// The dispatches a kernel comparison counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// After the trace's phase boundary.
    Decode,
    /// At or before it.
    Prefill,
    /// All of them (the trace is not split).
    All,
}

words!(Phase {
    Decode => "decode",
    Prefill => "prefill",
    All => "all",
});

/// One kernel (and phase) compared; `D` is ggml's decision (`rocpath-explain`'s
/// `ggml::Decision` when printed).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KernelComparison<D> {
    /// The trace file.
    pub trace: String,
    /// Device the prediction is for.
    pub arch: TargetId,
    /// Kernel name as traced.
    pub kernel: String,
    /// Trace family (`mul_mat_q`, …).
    pub family: String,
    /// Weight type from the template (`q4_k`).
    pub ggml_type: String,
    /// `decode`, `prefill` or `all` (no phase split in the trace).
    pub phase: Phase,
    /// Dispatches in that phase.
    pub dispatches: u64,
    /// The path the kernel stands for (`mmq`, `mmvq`, `mmf`, `mmvf`).
    pub observed: String,
    /// The batch the prediction was made for, when the trace fixes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ne11: Option<i64>,
    /// The predicted path at `ne11`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted: Option<String>,
    /// Where ggml takes the observed path: `[from, to]` ranges of `ne11` within 1…4096.
    pub observed_path_ne11: Vec<(i64, i64)>,
    /// `agree`, `consistent`, `disagree`, `no_prediction`.
    pub verdict: Verdict,
    /// The statement.
    pub statement: String,
    /// For a disagreement: the open question for the ledger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
    /// The prediction in full, when one was made at a fixed `ne11`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<D>,
}

/// A comparison as a reader takes it: a case's or a kernel's, the model's explanation and
/// ggml's decision skipped. Read from JSON text only (each comparison is held as its text, not
/// as a tree, while its kind is told).
#[derive(Debug, Clone)]
pub enum ReadComparison {
    /// A case against the MIOpen model.
    Case(Box<Comparison<IgnoredAny>>),
    /// A traced kernel against ggml's rules.
    Kernel(Box<KernelComparison<IgnoredAny>>),
}

impl<'de> Deserialize<'de> for ReadComparison {
    /// A comparison with a `kernel` is a kernel's, any other a case's; each is then read whole
    /// as its type (its errors naming the field), the prediction skipped, not built.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Kind {
            kernel: Option<IgnoredAny>,
        }
        let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
        let text = raw.get();
        let of = |e: serde_json::Error| serde::de::Error::custom(e);
        let kind: Kind = serde_json::from_str(text).map_err(of)?;
        Ok(if kind.kernel.is_some() {
            ReadComparison::Kernel(Box::new(serde_json::from_str(text).map_err(of)?))
        } else {
            ReadComparison::Case(Box::new(serde_json::from_str(text).map_err(of)?))
        })
    }
}
