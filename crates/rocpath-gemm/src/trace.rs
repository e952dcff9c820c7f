//! What a walk did, step by step, for people and for `--json`: each node met, each row's
//! predicate and whether it held, each matching table's key and the entries whose solutions
//! were tried (with the predicate that rejected them), the nearest tuned sizes.

use crate::eval::{self, Rejection};
use crate::problem::Problem;
use rocpath_tensile::catalog::{GpuLeaf, HwLeaf, Pred, ProblemLeaf, TaskLeaf};
use serde::Serialize;
use std::fmt::Debug;

/// The steps of a walk.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Trace {
    /// In order.
    pub steps: Vec<Step>,
}

/// Most steps kept (a walk over a hostile catalog can be long).
pub const MAX_STEPS: usize = 4096;

/// One step.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// Nesting depth in the tree.
    pub depth: u32,
    /// What happened.
    #[serde(flatten)]
    pub kind: StepKind,
}

/// What happened at a node.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "node", rename_all = "snake_case")]
pub enum StepKind {
    /// A row of a `Hardware` or `Problem` node.
    Row {
        /// `hardware` or `problem`.
        library: &'static str,
        /// Row number.
        row: usize,
        /// The predicate.
        predicate: String,
        /// Whether it held (`null`: could not be evaluated).
        holds: Option<bool>,
    },
    /// A `ProblemMap` lookup.
    Map {
        /// The property.
        property: String,
        /// The problem's value.
        key: String,
        /// Whether the map has it.
        found: bool,
        /// Keys in the map.
        keys: usize,
    },
    /// A `Placeholder` file.
    Placeholder {
        /// The file.
        file: String,
        /// Why it could not be loaded.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A matching table.
    Matching {
        /// The file that holds it.
        file: String,
        /// Its properties.
        properties: Vec<String>,
        /// Its distance.
        distance: &'static str,
        /// The problem's key.
        key: Vec<i64>,
        /// Entries in the table.
        entries: usize,
        /// Entries the search computed a distance for.
        considered: usize,
        /// Entries whose solution was tried, in the order the search tried them.
        tried: Vec<Tried>,
        /// The entries nearest the key, by distance alone.
        nearest: Vec<Near>,
    },
    /// A `Single` solution outside a table.
    Single {
        /// Solution index.
        index: i64,
        /// Kernel name.
        name: String,
        /// Why it cannot solve the problem.
        #[serde(skip_serializing_if = "Option::is_none")]
        rejected_by: Option<String>,
    },
    /// A decision tree's prediction.
    Tree {
        /// Tree number.
        tree: usize,
        /// Its answer.
        predicts: bool,
    },
}

/// A table entry whose solution was tried.
#[derive(Debug, Clone, Serialize)]
pub struct Tried {
    /// Position in the sorted table.
    pub position: usize,
    /// Its key.
    pub key: Vec<i64>,
    /// Distance to the problem's key.
    pub distance: f64,
    /// Its speed.
    pub speed: f64,
    /// Solution index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<i64>,
    /// Kernel name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Why it was not taken (absent: taken).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected_by: Option<String>,
}

/// A table entry near the problem's key.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Near {
    /// Its key.
    pub key: Vec<i64>,
    /// Distance.
    pub distance: f64,
    /// Speed.
    pub speed: f64,
    /// Solution index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<i64>,
    /// Kernel name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
}

impl Trace {
    /// Appends a step; returns its position, or `None` past [`MAX_STEPS`].
    pub fn push(&mut self, s: Step) -> Option<usize> {
        if self.steps.len() >= MAX_STEPS {
            return None;
        }
        self.steps.push(s);
        Some(self.steps.len() - 1)
    }

    pub(crate) fn kind_mut(&mut self, i: usize) -> Option<&mut StepKind> {
        self.steps.get_mut(i).map(|s| &mut s.kind)
    }
}

/// A predicate as text: leaves by their catalog names, combinators spelled out.
pub fn pred_text<L: LeafText>(p: &Pred<L>) -> String {
    match p {
        Pred::True => "TruePred".into(),
        Pred::False => "FalsePred".into(),
        Pred::And(v) => v.iter().map(pred_text).collect::<Vec<_>>().join(" & "),
        Pred::Or(v) => format!(
            "({})",
            v.iter().map(pred_text).collect::<Vec<_>>().join(" | ")
        ),
        Pred::Not(q) => format!("!({})", pred_text(q)),
        Pred::Leaf(l) => l.text(),
    }
}

/// A leaf's catalog spelling.
pub trait LeafText {
    /// The text.
    fn text(&self) -> String;
}

fn debug_text(d: &impl Debug) -> String {
    format!("{d:?}")
}

impl LeafText for HwLeaf {
    fn text(&self) -> String {
        match self {
            HwLeaf::Amdgpu(p) => format!("AMDGPU({})", pred_text(p.as_ref())),
            HwLeaf::Unknown(n) => n.clone(),
        }
    }
}

impl LeafText for GpuLeaf {
    fn text(&self) -> String {
        match self {
            GpuLeaf::Processor(p) => format!("Processor {p}"),
            GpuLeaf::CuCount(n) => format!("CUCount {n}"),
            GpuLeaf::IsApu(v) => format!("IsAPU {v}"),
            GpuLeaf::TargetProcessor(p) => format!("TargetProcessor {p}"),
            GpuLeaf::Unknown(n) => n.clone(),
        }
    }
}

impl LeafText for ProblemLeaf {
    fn text(&self) -> String {
        use ProblemLeaf as P;
        match self {
            P::TypesEqual(t) => format!(
                "TypesEqual {}",
                t.map(rocpath_tensile::catalog::DataType::name).join("/")
            ),
            P::HighPrecisionAccumulate(v) => format!("HPA {v}"),
            P::F32XdlMathOp(t) => format!("F32XdlMathOp {}", t.name()),
            P::StochasticRounding(v) => format!("StochasticRounding {v}"),
            P::TypesEqualCompute(t) => format!(
                "TypesEqual {} ({})",
                t[..4]
                    .iter()
                    .map(|x| x.name())
                    .collect::<Vec<_>>()
                    .join("/"),
                t[4].name()
            ),
            P::Activation(a) => format!("Activation {a}"),
            P::UseBias(v) => format!("UseBias {v}"),
            P::UseScaleAB(v) => format!("UseScaleAB {v:?}"),
            P::Unknown(n) => n.clone(),
            other => debug_text(other),
        }
    }
}

impl LeafText for TaskLeaf {
    fn text(&self) -> String {
        debug_text(self)
    }
}

/// Why a solution was rejected, in words with the problem's values.
pub fn rejection_text(r: &Rejection<'_>, p: &Problem) -> String {
    match r {
        Rejection::None => String::new(),
        Rejection::Task(Some(TaskLeaf::WorkspaceCheck)) => format!(
            "WorkspaceCheck — needs more than the {} bytes of workspace",
            p.modes.workspace
        ),
        Rejection::Task(l) => format!("task predicate {l:?}"),
        Rejection::Problem(Some(l)) => eval::describe(l, p),
        Rejection::Problem(None) => "a problem predicate (FalsePred/Not)".into(),
        Rejection::Hardware(Some(l)) => format!("hardware predicate {}", l.text()),
        Rejection::Hardware(None) => "a hardware predicate (FalsePred/Not)".into(),
        Rejection::Unknown(w) => w.clone(),
    }
}
