//! The `rocpath.gates/1` document (`rocpath gates`): every place in the scanned checkouts where
//! behaviour depends on the GPU target, how each reads for the processors asked (`--arch`), and
//! the history of each gate line when traced (`--blame`). `rocpath-gates` produces these
//! records as its model; the ledger reads them.

use crate::provenance::LineProvenance;
use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};

/// The JSON document of `rocpath gates`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GatesDoc {
    /// The checkouts.
    pub repos: Vec<RepoSummary>,
    /// Every gate, with provenance when traced.
    pub gates: Vec<GateOut>,
    /// One table per `--arch` processor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetOut>,
    /// What could not be read or traced.
    #[serde(default)]
    pub errors: Vec<ScanIssue>,
}

/// A gate with its provenance, when it was traced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GateOut {
    /// The gate.
    #[serde(flatten)]
    pub gate: Gate,
    /// Its provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<LineProvenance>,
}

/// The three-layer table of one processor (`--arch`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetOut {
    /// The processor.
    pub arch: String,
    /// Its rows.
    pub rows: Vec<TargetRow>,
}

/// The language (or kind of file) a gate was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    /// C or C++ (HIP).
    Cpp,
    /// Python.
    Python,
    /// Go.
    Go,
    /// CMake.
    Cmake,
    /// JSON.
    Json,
    /// A shell script or Dockerfile.
    Shell,
    /// A folder or file name (a Tensile logic folder).
    Path,
}

crate::words!(Language {
    Cpp => "cpp",
    Python => "python",
    Go => "go",
    Cmake => "cmake",
    Json => "json",
    Shell => "shell",
    Path => "path",
});

/// How a pattern was matched against target names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Match {
    /// The name itself (`"gfx900"`, `gfx906` in a build list).
    Exact,
    /// Every processor whose name starts with the text (`StartsWith(name, "gfx94")`).
    Prefix,
    /// A regular expression over processor names.
    Regex,
    /// A shell glob (`*gfx90[06]*`).
    Glob,
    /// A compiler macro (`__gfx90a__`, `__GFX11__`, `__gfx94__`).
    Macro,
    /// A Tensile logic folder codename (`vega10` → gfx900).
    Codename,
    /// A capability predicate resolved through the architecture table (MFMA, WMMA, family).
    Feature,
    /// A capability predicate resolved through its definition in the scanned sources.
    Definition,
    /// An ordered comparison with a compute-capability constant (ggml `GGML_CUDA_CC_*`).
    Compare,
}

pub use rocpath_evidence::Layer;

/// What kind of source construct the gate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A string compared with the device name (`StartsWith(name, "gfx900")`, `== "gfx906"`).
    String,
    /// A list of target names in code (initializer list, Go/Python literal).
    List,
    /// A preprocessor condition on a target macro (`#if defined(__gfx90a__)`, `RDNA4`).
    Preprocessor,
    /// A call of a capability predicate (`IsXdlopsSupport(ctx)`, `GGML_CUDA_CC_IS_RDNA4(cc)`).
    Predicate,
    /// An ordered comparison with a compute-capability constant (`cc >= GGML_CUDA_CC_VEGA20`).
    Compare,
    /// A build-system list of targets (CMake `GPU_TARGETS`, presets, `CMAKE_HIP_ARCHITECTURES`).
    BuildList,
    /// A build-system condition or filter on targets (`if(GPU_TARGETS MATCHES "gfx9")`,
    /// `list(FILTER … REGEX …)`).
    BuildFilter,
    /// A Tensile logic folder for a target (`Logic/asm_full/vega10`).
    TensileLogic,
    /// Shipped files removed for targets at packaging time (`rm …/*gfx90[06]*`).
    ArtifactRemoval,
}

impl Kind {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::List => "list",
            Kind::Preprocessor => "preprocessor",
            Kind::Predicate => "predicate",
            Kind::Compare => "compare",
            Kind::BuildList => "build_list",
            Kind::BuildFilter => "build_filter",
            Kind::TensileLogic => "tensile_logic",
            Kind::ArtifactRemoval => "artifact_removal",
        }
    }
}

/// What the gate does to the targets it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// The covered targets take the guarded path (or are built).
    Includes,
    /// The covered targets are kept out (`return false`, `throw`, `rm`, `#ifndef`).
    Excludes,
}

impl Effect {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Includes => "includes",
            Effect::Excludes => "excludes",
        }
    }
    /// The opposite effect.
    pub fn flip(self) -> Effect {
        match self {
            Effect::Includes => Effect::Excludes,
            Effect::Excludes => Effect::Includes,
        }
    }
}

/// One pattern of a gate and how it was resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pattern {
    /// The text as written (`gfx94`, `__gfx90a__`, `IsXdlopsSupport`, `vega10`).
    pub text: String,
    /// How it was matched.
    #[serde(rename = "match")]
    pub how: Match,
    /// Processors it stands for.
    pub covers: Vec<String>,
}

/// One place where behaviour depends on the GPU target.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gate {
    /// Repository name (the checkout folder's name).
    pub repo: String,
    /// Path relative to the repository root, `/`-separated.
    pub path: String,
    /// 1-based line (none for a folder-level gate such as a Tensile logic folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The checkout's HEAD commit, when it is a git repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// `cpp`, `python`, `go`, `cmake`, `json`, `shell`, `path`.
    pub language: Language,
    /// The construct.
    pub kind: Kind,
    /// Build or Selection (Fallback is a per-target reading, see [`TargetRow`]).
    pub layer: Layer,
    /// What it does to the covered targets.
    pub effect: Effect,
    /// The gate has an alternative branch (`else`, `#else`, `?:`) that uncovered targets take.
    pub alternative: bool,
    /// Patterns and their resolution.
    pub patterns: Vec<Pattern>,
    /// Union of the processors the patterns cover.
    pub covers: Vec<String>,
    /// The enclosing function, qualified as the language spells it
    /// (`ConvMlirIgemmFwd::IsApplicable`, `Device.check`, `(*Server).load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The enclosing variable or CMake variable, when there is no function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The solver, kernel or component the gate guards (the class of a method, else the
    /// function or variable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guards: Option<String>,
    /// The source line, trimmed (at most 240 characters).
    pub text: String,
    /// Issue links and references in comments next to the gate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    /// `repo:path:line@commit`.
    pub at: String,
    /// Class, kind of proof, rule and location (with the file's sha256).
    pub evidence: Evidence,
}

/// How a gate reads for one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The target takes the guarded path (or is built).
    Includes,
    /// The target is kept out, named or by not being listed.
    Excludes,
    /// The target is not covered and takes the gate's alternative (generic) branch.
    FallsBack,
}

impl Verdict {
    /// snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Includes => "includes",
            Verdict::Excludes => "excludes",
            Verdict::FallsBack => "falls_back",
        }
    }
}

/// One row of the per-target three-layer table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetRow {
    /// The processor.
    pub arch: String,
    /// Build, Selection or Fallback for this target.
    pub layer: Layer,
    /// Includes, excludes, falls back.
    pub verdict: Verdict,
    /// Whether the target is named by the gate (`true`) or only implied by a list or
    /// predicate that does not cover it (`false`).
    pub named: bool,
    /// Index of the gate in the report's `gates`.
    pub gate: usize,
    /// Repeated from the gate for readers that take rows alone.
    pub repo: String,
    /// Path of the gate.
    pub path: String,
    /// Line of the gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The enclosing function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// What the gate guards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guards: Option<String>,
    /// The construct.
    pub kind: Kind,
    /// `repo:path:line@commit`.
    pub at: String,
    /// Why this verdict: named → confirmed; implied → inferred.
    pub evidence: Evidence,
}

/// One checkout that was scanned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RepoSummary {
    /// Name (folder name).
    pub name: String,
    /// Root as given.
    pub root: String,
    /// HEAD commit, if a git repository (detached or on a branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Branch HEAD points at, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Files read.
    pub files: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Files parsed with a grammar (C++, Python, Go).
    pub parsed: u64,
    /// Gates found.
    pub gates: u64,
}

/// A file or folder that could not be read fully, and what was done.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanIssue {
    /// Repository name.
    pub repo: String,
    /// Path relative to the repository (or the root itself).
    pub path: String,
    /// What happened.
    pub message: String,
    /// `limited` (partly read) or `unresolved` (not read).
    pub evidence: Evidence,
}
