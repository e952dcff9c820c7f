//! The `rocpath.case/1` document (`rocpath case read`): what one run did, as typed
//! observations, each with its evidence; and `rocpath.case-meta/1`, the `case.json` that
//! `rocpath case run` writes beside the logs. `rocpath-case` reads logs into these types (its
//! model); the ledger and the renderers read the printed document with them. Field names are
//! part of the contract.

use crate::tensile::KernelName;
use rocpath_arch::TargetId;
use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Schema name of `case.json`.
pub const META_SCHEMA: &str = "rocpath.case-meta/1";

/// `rocpath.case`: the case reports, and the inputs that could not be read.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CaseDoc {
    /// One report per case.
    pub cases: Vec<CaseReport>,
    /// Inputs that could not be read.
    #[serde(default)]
    pub errors: Vec<crate::ErrorItem>,
}

/// One case, read. A list an older document did not print reads as empty.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseReport {
    /// Case name (folder name, or the log's file stem).
    pub name: String,
    /// The folder or file read.
    pub path: String,
    /// `false` when the run was interrupted or its record never finished.
    pub complete: bool,
    /// Every file read, with its hash.
    #[serde(default)]
    pub files: Vec<FileRecord>,
    /// What the case's metadata says (command, environment, host, GPU), when there is some.
    pub meta: Option<CaseMeta>,
    /// The device the libraries reported.
    pub device: Option<Device>,
    /// Library versions and modes.
    #[serde(default)]
    pub libraries: Vec<Fact>,
    /// Problems (convolutions) the run set up.
    #[serde(default)]
    pub problems: Vec<Problem>,
    /// Solvers the library considered, with their fate.
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    /// The solver the command forced, if any.
    pub forced: Option<Forced>,
    /// The solver that ran for the first problem that has one.
    pub selected: Option<Selected>,
    /// Find-db, perf-db and user-db lookups.
    #[serde(default)]
    pub db_lookups: Vec<DbLookup>,
    /// Code objects loaded from the kernel cache or built.
    #[serde(default)]
    pub code_objects: Vec<CodeObjectLoad>,
    /// Timings the run printed.
    #[serde(default)]
    pub timings: Vec<Timing>,
    /// The run's own verification of its result.
    pub verification: Option<Verification>,
    /// What happened, decided from the lines that say so.
    pub outcome: Outcome,
    /// How the process ended.
    pub exit: Exit,
    /// GEMM calls (rocBLAS / hipBLASLt), aggregated by shape and types.
    #[serde(default)]
    pub gemm_calls: Vec<GemmCallRecord>,
    /// rocblas-bench result rows (its own timing and, with `-v 1`, its check against the
    /// CPU reference).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bench_results: Vec<BenchResult>,
    /// Other library API calls, counted.
    #[serde(default)]
    pub api_calls: Vec<ApiCount>,
    /// Tensile kernels that ran, decoded.
    #[serde(default)]
    pub tensile_kernels: Vec<TensileKernel>,
    /// Fallbacks the libraries reported.
    #[serde(default)]
    pub fallbacks: Vec<Fallback>,
    /// Errors, failures and crash reports.
    #[serde(default)]
    pub errors: Vec<ErrorRecord>,
    /// Reasons the libraries gave for something not applying (`GEMM not supported with
    /// casted tensors on this GPU architecture`).
    #[serde(default)]
    pub notes: Vec<Note>,
    /// Blocks of a program that called MIOpen's C API directly (`[y=int8]` …), each call and
    /// check with its line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capi_blocks: Vec<CapiBlock>,
    /// Records left out to keep memory bounded (distinct records beyond the limits).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dropped: BTreeMap<String, u64>,
}

/// One block of a MIOpen C-API probe (`[y=int8]`; one unlabelled block for `key=value`
/// output).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CapiBlock {
    /// The block's label (`y=int8`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `GetSolutionCount` / `solution_count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_count: Option<u64>,
    /// `GetSolution`'s `returned`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<u64>,
    /// The solutions listed, in MIOpen's order.
    pub solutions: Vec<CapiSolution>,
    /// Calls for one solution (`workspace`, `compile`, `forward_immediate`), MIOpen errors
    /// printed in the block, and checks of the output, in order.
    pub steps: Vec<CapiStep>,
    /// The block in one line: solutions, and each failed call with its line.
    pub summary: String,
    /// Evidence (the block's first line).
    pub evidence: Evidence,
}

/// A solution a C-API probe listed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CapiSolution {
    /// Rank in the list.
    pub rank: u64,
    /// Solution (solver) id.
    pub id: u64,
    /// Solver name from the registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<String>,
    /// Algorithm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<u64>,
    /// Workspace bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_bytes: Option<u64>,
    /// Time, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<f64>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A call or check of a C-API probe.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CapiStep {
    /// `workspace`, `compile`, `forward_immediate`, `get_solution_count`, `get_solution`,
    /// `miopen_error`, `check`.
    pub call: String,
    /// The solution it was for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution_id: Option<u64>,
    /// Its solver name from the registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<String>,
    /// Whether it succeeded.
    pub ok: bool,
    /// What was printed (`success`, `miopenStatusBadParm (3)`, workspace bytes, the error, the
    /// check's name).
    pub value: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// One rocblas-bench result row.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchResult {
    /// The columns as printed, in order (`transA`, `M`, …, `rocblas-Gflops`, `us`, …).
    pub columns: Vec<(String, String)>,
    /// `rocblas-Gflops` (or `rocblas-GB/s` for bandwidth-bound functions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// The unit of `rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_unit: Option<String>,
    /// Microseconds per call (`us`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub us: Option<f64>,
    /// `norm_error_1` (or another `norm_error*` column): the difference from the CPU
    /// reference, when the run validated its result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub norm_error: Option<f64>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A file of the case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    /// Path.
    pub path: String,
    /// Bytes read.
    pub bytes: u64,
    /// Lines.
    pub lines: u64,
    /// Lines longer than the limit (cut).
    pub truncated_lines: u64,
    /// sha256 of the raw bytes.
    pub sha256: String,
}

/// The device as the libraries named it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Device {
    /// Target id (`gfx900:xnack-`).
    pub arch: TargetId,
    /// Marketing name, when printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A named value the run printed (library version, find mode, …).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Fact {
    /// What (`miopen_version`, `hip_version`, `miopen_find_mode`, `miopen_immediate_fallback`).
    pub what: String,
    /// Value.
    pub value: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// A convolution problem.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Problem {
    /// The find-db key MIOpen uses for it.
    pub key: String,
    /// Decoded.
    pub problem: crate::conv::Problem,
    /// Where it was seen: the forms (`driver_command`, `logged_command`, `db_key`,
    /// `network_config`, `perf_db_key`).
    pub seen_as: Vec<String>,
    /// The solver that ran for it, when the log says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<Selected>,
    /// Evidence.
    pub evidence: Evidence,
}

/// What the log says about one solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fate {
    /// The solver ran.
    Selected,
    /// It was applicable, was tried and failed (search failed, not succeeded).
    Failed,
    /// Named by `-S` or an environment variable.
    Forced,
    /// Best of its algorithm in Find.
    BestForAlgorithm,
    /// Timed in Find.
    Evaluated,
    /// Produced a solution in Find (`Success.`).
    Succeeded,
    /// Listed in a find-db record.
    FindDbRecord,
    /// Listed by the immediate mode (find-db solutions or WTI/TunaNet fallback).
    ImmediateCandidate,
    /// Rejected by its applicability check (`Not applicable`).
    NotApplicable,
    /// Skipped: not dynamic in a dynamic-only find mode (`Skipped (non-dynamic)`).
    SkippedNonDynamic,
    /// Only seen in a workspace query that skipped it (`Skipped (no workspace required)`).
    WorkspaceQueryOnly,
}

crate::words!(Fate {
    Selected => "selected",
    Failed => "failed",
    Forced => "forced",
    BestForAlgorithm => "best_for_algorithm",
    Evaluated => "evaluated",
    Succeeded => "succeeded",
    FindDbRecord => "find_db_record",
    ImmediateCandidate => "immediate_candidate",
    NotApplicable => "not_applicable",
    SkippedNonDynamic => "skipped_non_dynamic",
    WorkspaceQueryOnly => "workspace_query_only",
});

/// Which of MIOpen's passes (or of the case's own markers) a solver's fate was seen in
/// (`phase` of a `seen[]` item in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeenIn {
    /// A Find search (`SearchForAllSolutions`, timing).
    Search,
    /// The workspace-size query.
    WorkspaceSizes,
    /// Another enumeration of the solvers.
    Enumeration,
    /// A find-db record.
    FindDb,
    /// Immediate mode's solution list.
    Immediate,
    /// Immediate mode's fallback (no find-db record).
    ImmediateFallback,
    /// A Find result (best for its algorithm).
    Find,
    /// A solver evaluated by the driver (`-V`, `-S`).
    Evaluate,
    /// MIOpenDriver's own list of solutions.
    DriverList,
    /// The solver forced by the command line.
    Forced,
    /// The solver the case reports as selected.
    Selected,
}

crate::words!(SeenIn {
    Search => "search",
    WorkspaceSizes => "workspace_sizes",
    Enumeration => "enumeration",
    FindDb => "find_db",
    Immediate => "immediate",
    ImmediateFallback => "immediate_fallback",
    Find => "find",
    Evaluate => "evaluate",
    DriverList => "driver_list",
    Forced => "forced",
    Selected => "selected",
});

/// One observation of a solver.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FateSeen {
    /// Fate.
    pub fate: Fate,
    /// Which enumeration (`search`, `workspace_sizes`, `find_db`, `immediate`, `evaluate`, …).
    pub phase: SeenIn,
    /// First line that says so (file index into `files`, 1-based line).
    pub line: u64,
    /// File (path).
    pub file: String,
}

/// A solver the library considered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Candidate {
    /// Solver name as logged.
    pub solver: String,
    /// Registry id.
    pub id: Option<u64>,
    /// Where the id comes from: `log` (printed by MIOpen/MIOpenDriver) or `registry`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_source: Option<String>,
    /// Problem key it was considered for, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The decisive fate (the first of the `Fate` order that was seen).
    pub fate: Fate,
    /// Every fate seen.
    pub seen: Vec<FateSeen>,
    /// `false` for "(not searchable)", `true` for a searchable attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub searchable: Option<bool>,
    /// Best time measured or recorded, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<f64>,
    /// WTI estimate of the immediate-mode fallback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wti: Option<f64>,
    /// Kernels it built or launched while a Find evaluated it (the kernels Find ran before its
    /// `[EvaluateInvokers]` line, and those the line names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernels: Vec<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A forced solver.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Forced {
    /// Solver name.
    pub solver: String,
    /// Registry id.
    pub id: Option<u64>,
    /// How: `driver_flag` (`-S`), `env:MIOPEN_DEBUG_FIND_ONLY_SOLVER`, `single_candidate`.
    pub via: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// The solver that ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Selected {
    /// Registry id.
    pub solver_id: Option<u64>,
    /// Solver name.
    pub solver: String,
    /// Algorithm, when printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// Kernels it launched (or, if no launch was logged, prepared).
    pub kernels: Vec<String>,
    /// Problem key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A database lookup.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DbLookup {
    /// `find_db`, `user_find_db`, `perf_db`, `user_perf_db`, `memory`.
    pub db: String,
    /// File.
    pub file: String,
    /// Key (or solver, for perf-db records named by solver).
    pub key: String,
    /// Whether a record was found; `None` when the log does not say.
    pub found: Option<bool>,
    /// Decoded record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub record: Vec<crate::conv::FindItem>,
    /// Times looked up.
    pub count: u64,
    /// Evidence.
    pub evidence: Evidence,
}

/// A code object MIOpen loaded from its kernel cache or built.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeObjectLoad {
    /// File name (`conv_3x3_wheel_alpha_v7_0_3b.s.o`).
    pub file: String,
    /// Build options.
    pub args: String,
    /// Found in the kernel cache (`false`: looked up only, then built or failed).
    pub loaded: bool,
    /// Evidence.
    pub evidence: Evidence,
}

/// A timing.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timing {
    /// What.
    pub what: String,
    /// Milliseconds.
    pub ms: f64,
    /// Evidence.
    pub evidence: Evidence,
}

/// The run's verification of its own result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Verification {
    /// Passed.
    pub ok: bool,
    /// The line.
    pub detail: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// Case outcome vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    /// The library chose, nothing forced, no fallback reported.
    Natural,
    /// A candidate the library tried (or a backend) failed and a later one ran.
    FallbackObserved,
    /// The forced solver was rejected by its applicability check.
    ApplicabilityReject,
    /// The forced solver's kernel did not build (`miir`, `code_object`).
    BuildFailure,
    /// The process aborted (assertion, SIGABRT / exit 134, another fatal signal).
    RuntimeAbort,
    /// The GPU reported a memory access fault.
    GpuFault,
    /// The forced solver ran.
    Success,
    /// The command line was refused.
    CliError,
    /// The library reported an error without running a path (no suitable algorithm, no
    /// Tensile library for the arch, no code object for the GPU, …).
    LibraryError,
    /// The case was interrupted before the run finished.
    Incomplete,
    /// The logs do not say.
    Undetermined,
}

/// The case outcome.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Outcome {
    /// Kind.
    pub kind: OutcomeKind,
    /// Refinement (`miir`, `code_object`, `assertion`, `no_suitable_algorithm`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_kind: Option<String>,
    /// One sentence saying why.
    pub reason: String,
    /// Evidence: the rule and the lines that decided it.
    pub evidence: Evidence,
}

/// How the process ended.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Exit {
    /// Exit code.
    pub code: Option<i64>,
    /// Terminating signal (`SIGABRT`).
    pub signal: Option<String>,
    /// Evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// GEMM calls of one shape and type signature.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GemmCallRecord {
    /// API (`rocblas_gemm_ex`, `hipblaslt`, …).
    pub api: String,
    /// Backend that ran it (`tensile`, `hipblaslt`), from layer-8 lines; `None` if not logged.
    pub backend: Option<String>,
    /// transA.
    pub trans_a: String,
    /// transB.
    pub trans_b: String,
    /// m.
    pub m: u64,
    /// n.
    pub n: u64,
    /// k.
    pub k: u64,
    /// Batch count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_count: Option<u64>,
    /// Types.
    pub types: GemmTypes,
    /// Calls.
    pub count: u64,
    /// Which log layer said so: `trace`, `bench`, `profile`, `internal`.
    pub source: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// Calls of one API.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApiCount {
    /// `rocblas` or `miopen`.
    pub library: String,
    /// API name.
    pub api: String,
    /// Calls.
    pub count: u64,
    /// Evidence.
    pub evidence: Evidence,
}

/// A Tensile kernel that ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TensileKernel {
    /// Kernel name.
    pub name: String,
    /// Decoded name (`None` if it does not follow the grammar).
    pub decoded: Option<KernelName>,
    /// `mfma`, `wmma` (matrix-instruction kernel on a device that has them), `valu`, or
    /// `matrix_instruction` when the device is unknown.
    pub instruction_kind: String,
    /// Launches logged.
    pub count: u64,
    /// Evidence.
    pub evidence: Evidence,
}

/// A fallback a library reported.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Fallback {
    /// `miopen`, `rocblas`, `hipblaslt`.
    pub library: String,
    /// Kind (`hipblaslt_to_tensile`, `xf32_to_fp32`, `solver_failed`, `immediate_mode_wti`, …).
    pub kind: String,
    /// The message.
    pub message: String,
    /// Times reported.
    pub count: u64,
    /// Evidence.
    pub evidence: Evidence,
}

/// An error or failure line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorRecord {
    /// `miopen`, `miopen_driver`, `rocblas`, `hipblaslt`, `hip`, `process`, `compiler`.
    pub library: String,
    /// Kind (`not_applicable`, `miir`, `code_object_build_failed`, `assertion`,
    /// `driver_rc`, `tensile_library_missing`, `gpu_memory_fault`, …).
    pub kind: String,
    /// The message.
    pub message: String,
    /// Source location the library printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// A return code, when the line has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rc: Option<i64>,
    /// Times seen.
    pub count: u64,
    /// Evidence.
    pub evidence: Evidence,
}

/// A reason a library printed for something not applying.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Note {
    /// Library.
    pub library: String,
    /// The message.
    pub message: String,
    /// Times printed.
    pub count: u64,
    /// Evidence.
    pub evidence: Evidence,
}

crate::words!(OutcomeKind {
    Natural => "natural",
    FallbackObserved => "fallback_observed",
    ApplicabilityReject => "applicability_reject",
    BuildFailure => "build_failure",
    RuntimeAbort => "runtime_abort",
    GpuFault => "gpu_fault",
    Success => "success",
    CliError => "cli_error",
    LibraryError => "library_error",
    Incomplete => "incomplete",
    Undetermined => "undetermined",
});

/// A GPU seen on the machine when the case ran.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct GpuInfo {
    /// Where the description came from (`sysfs node 1`, `rocminfo`).
    pub source: String,
    /// Marketing name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Target id.
    pub target: TargetId,
    /// Compute units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cus: Option<u32>,
}

/// How the child ended, as the runner saw it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct ExitInfo {
    /// Exit code.
    #[serde(default)]
    pub code: Option<i64>,
    /// Terminating signal name.
    #[serde(default)]
    pub signal: Option<String>,
}

/// A captured file and its hash.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CapturedFile {
    /// File name inside the case folder.
    pub name: String,
    /// Size.
    pub bytes: u64,
    /// sha256.
    pub sha256: String,
}

/// What a case's metadata says.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct CaseMeta {
    /// `rocpath.case-meta/1`, or `meta.txt` for the research workflow's sidecar.
    pub schema: String,
    /// The metadata file.
    #[serde(default)]
    pub source: String,
    /// Case name.
    #[serde(default)]
    pub name: Option<String>,
    /// rocpath version that ran the case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    /// Start time (RFC 3339).
    #[serde(default)]
    pub started: Option<String>,
    /// End time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<String>,
    /// Wall time, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// Host.
    #[serde(default)]
    pub host: Option<String>,
    /// Working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// argv of the command.
    #[serde(default)]
    pub command: Vec<String>,
    /// The command as one shell line.
    #[serde(default)]
    pub command_line: String,
    /// Logging knobs asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knobs: Vec<String>,
    /// Variables rocpath set (never one the user had set).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env_set: BTreeMap<String, String>,
    /// Every path-relevant variable of the child's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// GPUs of the machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu: Vec<GpuInfo>,
    /// How the run stands or ended.
    #[serde(default)]
    pub status: RunStatus,
    /// How the child ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitInfo>,
    /// The signal that interrupted the case, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
    /// Captured files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<CapturedFile>,
    /// Notes (e.g. output still open after the child ended).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// How a recorded run stands or ended (`case.json`'s `status`; the JSON names are these
/// snake_case words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Started and never finished: rocpath itself was stopped (the record written first).
    Running,
    /// The command exited.
    Exited,
    /// The command died of a signal other than an interrupt.
    Signaled,
    /// Stopped by an interrupt (SIGINT, SIGTERM, SIGHUP), to it or to rocpath.
    Interrupted,
    /// The command could not be started.
    SpawnFailed,
    /// The runner lost track of the command.
    Lost,
    /// A record without a status, or with one this version does not know.
    #[default]
    #[serde(other)]
    Unknown,
}

crate::words!(RunStatus {
    Running => "running",
    Exited => "exited",
    Signaled => "signaled",
    Interrupted => "interrupted",
    SpawnFailed => "spawn_failed",
    Lost => "lost",
    Unknown => "unknown",
});

/// Types of a GEMM call (`f16_r`, `bf16_r`, `f32_r`, `i8_r`, `i32_r`, …).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GemmTypes {
    /// A.
    pub a: Option<String>,
    /// B.
    pub b: Option<String>,
    /// C.
    pub c: Option<String>,
    /// D.
    pub d: Option<String>,
    /// Compute type.
    pub compute: Option<String>,
}

impl OutcomeKind {
    /// Whether the outcome is a failure of the run (for exit statuses).
    pub fn is_failure(self) -> bool {
        !matches!(
            self,
            OutcomeKind::Natural | OutcomeKind::FallbackObserved | OutcomeKind::Success
        )
    }
}

impl CaseMeta {
    /// The run finished and was recorded (not `running`, not `interrupted`).
    pub fn complete(&self) -> bool {
        if self.schema != META_SCHEMA {
            return true;
        }
        matches!(self.status, RunStatus::Exited | RunStatus::Signaled)
    }
}

impl GemmTypes {
    /// Any type known.
    pub fn is_empty(&self) -> bool {
        self.a.is_none() && self.b.is_none() && self.compute.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of the fates, passes, outcomes and run states are the document's (serde's).
    #[test]
    fn words_are_the_documents() {
        for f in Fate::ALL {
            assert_eq!(serde_json::json!(f), f.as_str());
        }
        for p in SeenIn::ALL {
            assert_eq!(serde_json::json!(p), p.as_str());
        }
        for k in OutcomeKind::ALL {
            assert_eq!(serde_json::json!(k), k.as_str());
        }
        for r in RunStatus::ALL {
            assert_eq!(serde_json::json!(r), r.as_str());
        }
        assert_eq!((Fate::ALL.len(), SeenIn::ALL.len()), (11, 11));
        assert_eq!((OutcomeKind::ALL.len(), RunStatus::ALL.len()), (11, 7));
    }
}
