//! The `rocpath.strace/1` document: Tensile catalog reads per traced process and in total,
//! the rocBLAS layer traces and the link view between the layers. Written by `rocpath strace`
//! (`rocpath-strace`, which reads the split files), read by the ledger's rules, all through
//! these types.

use rocpath_evidence::{Evidence, Locator};
use serde::{Deserialize, Serialize};

/// What the layers show together (see `rocpath-strace`'s link module).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkStatus {
    /// A rocBLAS/Tensile GEMM was seen running.
    DirectRocblasOrTensileDispatchObserved,
    /// Fallback catalog files were read and kernels dispatched, none through rocBLAS/Tensile.
    IndirectLinkOnlySameScenario,
    /// One of the two layers is missing.
    InsufficientEvidence,
}

impl LinkStatus {
    /// As printed.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkStatus::DirectRocblasOrTensileDispatchObserved => {
                "direct_rocblas_or_tensile_dispatch_observed"
            }
            LinkStatus::IndirectLinkOnlySameScenario => "indirect_link_only_same_scenario",
            LinkStatus::InsufficientEvidence => "insufficient_evidence",
        }
    }
}

/// A layer of evidence given to the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// strace split files.
    CatalogRead,
    /// A kernel trace.
    Dispatch,
    /// A `ROCBLAS_LAYER` trace.
    RocblasTrace,
}

impl Layer {
    /// As printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::CatalogRead => "catalog_read",
            Layer::Dispatch => "dispatch",
            Layer::RocblasTrace => "rocblas_trace",
        }
    }
}

/// First and last of a kind of open.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Opens.
    pub count: u64,
    /// First line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_line: Option<u64>,
    /// Last line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_line: Option<u64>,
    /// First timestamp as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_time: Option<String>,
    /// Last timestamp as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_time: Option<String>,
    /// Seconds between them (with `-tt`/`-ttt` timestamps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_s: Option<f64>,
}

/// The research workflow's strace counters (`g4-fallback-strace-check.sh`): lines whose path
/// matches, whatever the result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResearchCounts {
    /// `libggml-hip\.so`.
    pub libggml_hip_openat: u64,
    /// `TensileLibrary_.*_fallback\.dat`.
    pub fallback_dat_openat: u64,
    /// `TensileLibrary_.*_fallback_gfx…\.hsaco`.
    pub fallback_hsaco_openat: u64,
}

/// Opens of one library.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LibraryOpens {
    /// Name (`librocblas`).
    pub name: String,
    /// Successful opens.
    pub ok: u64,
    /// Failed opens (the loader's search path).
    pub failed: u64,
    /// The path that opened (first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// Where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Locator>,
}

/// Opens of Tensile catalog files of one type, extension and fallback-ness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TensileOpens {
    /// `Type_HH`, … or `lazy_index` / `library` for files without a type.
    pub type_token: String,
    /// `dat`, `hsaco`, `co`, `yaml`.
    pub ext: String,
    /// Fallback catalog.
    pub fallback: bool,
    /// `rocblas` or `hipblaslt`.
    pub owner: String,
    /// Opens.
    pub opens: u64,
    /// Successful.
    pub ok: u64,
    /// First place.
    pub at: Locator,
}

/// One process (one split file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessReport {
    /// The split file.
    pub path: String,
    /// pid (from the `.<pid>` suffix or the lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u64>,
    /// Open calls.
    pub opens: u64,
    /// Successful.
    pub ok: u64,
    /// Failed.
    pub failed: u64,
    /// Unfinished calls whose result never came.
    pub unresolved: u64,
    /// Research counters.
    pub research: ResearchCounts,
    /// Fallback `.dat` opens.
    pub fallback_dat: Window,
    /// Fallback `.hsaco` opens.
    pub fallback_hsaco: Window,
    /// Libraries (ROCm and ggml ones first).
    pub libraries: Vec<LibraryOpens>,
    /// Tensile catalog opens.
    pub tensile: Vec<TensileOpens>,
}

/// All split files of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StraceReport {
    /// Split files read.
    pub files: u64,
    /// Open calls.
    pub opens: u64,
    /// Successful.
    pub ok: u64,
    /// Failed.
    pub failed: u64,
    /// Research counters over all files.
    pub research: ResearchCounts,
    /// The research's gate: `libggml_hip_openat > 0 && fallback_dat_openat > 0 &&
    /// fallback_hsaco_openat > 0`.
    pub fallback_confirmed: bool,
    /// Tensile catalog opens over all files.
    pub tensile: Vec<TensileOpens>,
    /// Libraries over all files.
    pub libraries: Vec<LibraryOpens>,
    /// Catalog-read evidence: were fallback catalog files read?
    pub catalog_read: Evidence,
    /// Per process.
    pub processes: Vec<ProcessReport>,
}

/// What a `ROCBLAS_LAYER` trace log holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RocblasTrace {
    /// The file.
    pub path: String,
    /// Lines.
    pub lines: u64,
    /// `rocblas_create_handle` lines.
    pub handle_lines: u64,
    /// GEMM API calls (`rocblas_gemm_ex`, `rocblas_sgemm`, …).
    pub gemm_calls: u64,
    /// `rocblas_internal,rocblas_gemm_<backend>_backend` lines.
    pub backend_lines: u64,
    /// The research's `rocblas_trace_gemm_lines`: lines matching `(?i)gemm|matmul|tensile`.
    pub research_gemm_lines: u64,
    /// First GEMM call line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_gemm_line: Option<u64>,
    /// Distinct shapes `api transA transB m n k` with counts (API lines only).
    pub shapes: Vec<(String, u64)>,
}

/// The link between the layers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Fallback catalog read (the research gate: libggml-hip, fallback `.dat` and `.hsaco`
    /// opened).
    pub fallback_confirmed: bool,
    /// Kernels dispatched (a kernel trace with dispatches).
    pub dispatch_confirmed: bool,
    /// rocBLAS/Tensile GEMM observed running.
    pub direct_rocblas_or_tensile_dispatch: bool,
    /// Status (see the module doc).
    pub link_status: LinkStatus,
    /// rocBLAS/Tensile kernel dispatches in the kernel trace.
    pub blas_kernel_dispatches: u64,
    /// GEMM calls in the rocBLAS trace.
    pub rocblas_gemm_calls: u64,
    /// Which layers were given.
    pub layers: Vec<Layer>,
    /// Evidence.
    pub evidence: Evidence,
}

/// The `rocpath.strace/1` document (without its `schema` and `observed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StraceDoc {
    /// Catalog reads.
    #[serde(flatten)]
    pub catalog: StraceReport,
    /// `ROCBLAS_LAYER` traces.
    pub rocblas_traces: Vec<RocblasTrace>,
    /// The link view.
    pub link: Link,
    /// Inputs that could not be read.
    #[serde(default)]
    pub errors: Vec<String>,
}
