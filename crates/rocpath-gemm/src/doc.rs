//! The `rocpath.explain.gemm/1` document (`rocpath explain gemm`): which kernel a GEMM takes
//! on a device and why — the call, the device, rocBLAS's route, the Tensile or hipBLASLt
//! answer and its evidence. `rocpath-explain` builds these from the model of this crate; the
//! ledger reads them with the same types. The model's own derived values (the Tensile and
//! TensileLite problems, the walks) are printed for people and not read back.

use crate::lite::{self, Matmul};
use crate::rocblas::{Call, Cited};
use crate::trace::{Near, Trace};
use crate::{Device, Problem};
use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How a GEMM question ended (`outcome` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GemmOutcome {
    /// A kernel was chosen.
    Chosen,
    /// The catalogs hold no solution for the problem.
    NoSolution,
    /// No catalog for the device.
    NoCatalog,
    /// rocBLAS returns before any kernel (a zero size).
    QuickReturn,
    /// rocBLAS refuses the arguments.
    Invalid,
    /// rocBLAS has no kernel path for the type combination.
    NotImplemented,
    /// Something the model does not know stopped it (the reason is given).
    Unresolved,
}

/// Where rocBLAS sends a GEMM call (`backend` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// Tensile's kernels, from rocBLAS's own catalogs.
    Tensile,
    /// hipBLASLt.
    Hipblaslt,
    /// rocBLAS returns before any kernel (a zero size).
    QuickReturn,
    /// rocBLAS refuses the arguments.
    Invalid,
    /// rocBLAS has no kernel path for the type combination.
    NotImplemented,
}

/// The answer for one call on one device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GemmExplanation {
    /// The call asked about.
    pub call: CallDoc,
    /// The device.
    pub device: Device,
    /// The catalog folder.
    pub library_dir: String,
    /// The master file loaded (`TensileLibrary_lazy_<processor>.dat`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// What rocBLAS does with the call before Tensile, step by step.
    pub route: Vec<Cited>,
    /// `tensile`, `hipblaslt`, `quick_return`, `invalid`, `not_implemented`.
    pub backend: Backend,
    /// The Tensile problem, when the call reaches Tensile (not read back: the model's own
    /// derived values).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub problem: Option<Problem>,
    /// The walk, node by node (`--trace`, or always for a single call; not read back).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub walk: Option<Trace>,
    /// The solution chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<ChosenDoc>,
    /// The nearest tuned sizes other than the chosen one (predicates aside).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runners_up: Vec<Near>,
    /// The fallback taken or that applies (XF32 → FP32, hipBLASLt → Tensile, none found).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
    /// `chosen`, `no_solution`, `no_catalog`, `quick_return`, `invalid`, `not_implemented`,
    /// `unresolved`.
    pub outcome: GemmOutcome,
    /// Why the model could not decide, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// Evidence for the outcome.
    pub evidence: Evidence,
    /// hipBLASLt's own answer, when a hipBLASLt library was asked (directly, or because rocBLAS
    /// routes the call to hipBLASLt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hipblaslt: Option<Box<LiteDoc>>,
}

/// The call of an explanation: a rocBLAS call, or a hipBLASLt matmul (serialized as their own
/// fields; the matmul's with `api` `hipblaslt_matmul`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CallDoc {
    /// A rocBLAS GEMM call.
    Rocblas(Call),
    /// A hipBLASLt matmul heuristic query.
    Hipblaslt {
        /// `hipblaslt_matmul`.
        api: Cow<'static, str>,
        /// The matmul.
        #[serde(flatten)]
        matmul: Matmul,
    },
}

/// The chosen solution.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChosenDoc {
    /// The kernel name (`Cijk_…`).
    pub name: String,
    /// The solution index (what `rocblas_gemm_algo_solution_index` takes, minus one).
    pub index: i64,
    /// The catalog file that holds it.
    pub file: String,
    /// The matching distance to the tuned size that chose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
    /// Macro tile.
    pub macro_tile: [u64; 2],
    /// `depthU`.
    pub depth_u: u64,
    /// `globalSplitU`.
    pub global_split_u: u64,
    /// Built from source (`.hsaco`) rather than assembly.
    pub source_kernel: bool,
    /// The code object that must hold the kernel.
    pub code_object: CodeObjectDoc,
    /// Evidence.
    pub evidence: Evidence,
}

/// The code object the kernel is loaded from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeObjectDoc {
    /// The file the adapter loads (the first of its name variants that is present and loads on
    /// the device), or the first name tried when none is.
    pub file: String,
    /// The file is there, loads on the device, and defines the kernel.
    pub present: bool,
    /// What the user will see otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// hipBLASLt's answer to a heuristic query.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LiteDoc {
    /// The library folder asked.
    pub library_dir: String,
    /// The master file loaded, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// The matmul as the query describes it.
    pub matmul: Matmul,
    /// The TensileLite problem hipBLASLt builds (not read back).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub problem: Option<lite::LiteProblem>,
    /// What the query does, step by step.
    pub steps: Vec<Cited>,
    /// The walk of the table search (`--walk`, or a single query; not read back).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub walk: Option<Trace>,
    /// The solutions returned, rank by rank, as far as they are determined.
    pub ranks: Vec<RankDoc>,
    /// The fill-in, when the table gave fewer than asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_in: Option<FillInDoc>,
    /// The first solution (what runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<ChosenDoc>,
    /// The nearest other tuned sizes (predicates aside).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runners_up: Vec<Near>,
    /// `chosen`, `no_solution`, `no_catalog`, `unresolved`.
    pub outcome: GemmOutcome,
    /// Why the model cannot say, when it cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
    /// Evidence for the outcome.
    pub evidence: Evidence,
}

/// One returned solution.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankDoc {
    /// Rank (0 runs by default).
    pub rank: usize,
    /// Solution index.
    pub index: i64,
    /// Kernel name.
    pub name: String,
    /// The per-type file that holds it.
    pub file: String,
    /// `table` (findTopSolutions) or `fill_in` (the only candidate of the fill-in).
    pub from: RankFrom,
    /// The tuned size that led to it, when a table did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key: Vec<i64>,
}

/// Where a returned solution comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankFrom {
    /// The table's search (`findTopSolutions`).
    Table,
    /// The only candidate of the fill-in.
    FillIn,
}

/// The fill-in of a query.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FillInDoc {
    /// Places it fills.
    pub slots: usize,
    /// Solutions of the type that `isSolutionSupported` accepts.
    pub candidates: usize,
    /// Their indices (the first 32, ascending).
    pub indices: Vec<i64>,
    /// Which of them come first depends on where the solutions lie in memory.
    pub run_dependent: bool,
    /// Why it could not be decided, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved: Option<String>,
}

/// `rocpath.explain.gemm` ([`rocpath_docs::schema::EXPLAIN_GEMM`]): one explanation per
/// (library folder, call, device), and the problem lines that could not be read.
///
/// `E`: a slice of explanations when printed, a `Vec` when read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GemmDoc<E> {
    /// The explanations, in input order.
    pub explanations: E,
    /// Problem lines that could not be read.
    #[serde(default)]
    pub errors: Vec<rocpath_docs::ErrorItem>,
}

impl GemmOutcome {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            GemmOutcome::Chosen => "chosen",
            GemmOutcome::NoSolution => "no_solution",
            GemmOutcome::NoCatalog => "no_catalog",
            GemmOutcome::QuickReturn => "quick_return",
            GemmOutcome::Invalid => "invalid",
            GemmOutcome::NotImplemented => "not_implemented",
            GemmOutcome::Unresolved => "unresolved",
        }
    }
}

impl std::fmt::Display for GemmOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Backend {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Tensile => "tensile",
            Backend::Hipblaslt => "hipblaslt",
            Backend::QuickReturn => "quick_return",
            Backend::Invalid => "invalid",
            Backend::NotImplemented => "not_implemented",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl CallDoc {
    /// The rocBLAS call, when it is one.
    pub fn rocblas(&self) -> Option<&Call> {
        match self {
            CallDoc::Rocblas(c) => Some(c),
            CallDoc::Hipblaslt { .. } => None,
        }
    }
}

impl RankFrom {
    /// The document's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            RankFrom::Table => "table",
            RankFrom::FillIn => "fill_in",
        }
    }
}

impl std::fmt::Display for RankFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
