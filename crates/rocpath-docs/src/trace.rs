//! The `rocpath.trace/2` document (`rocpath trace`): which kernels ran on the GPU according
//! to rocprofv3's kernel traces, how often and for how long, their families and libraries, the
//! research workflow's counters and the prefill/decode split. `rocpath-trace` reads traces into
//! these records; the ledger reads them.

use crate::ErrorItem;
use crate::tensile::KernelName;
use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};

/// The `rocpath.trace` document: the merged report, notes on what was read, and the inputs
/// that could not be read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TraceDoc {
    /// The report.
    #[serde(flatten)]
    pub report: Report,
    /// Notes on the inputs.
    pub notes: Vec<String>,
    /// Inputs that could not be read.
    #[serde(default)]
    pub errors: Vec<ErrorItem>,
}

/// All traces together.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// Kernel dispatches over all traces.
    pub dispatches: u64,
    /// rocBLAS/Tensile dispatches over all traces.
    pub blas_dispatches: u64,
    /// Families over all traces.
    pub families: Vec<FamilyRecord>,
    /// Kernels over all traces (same name = same kernel).
    pub kernels: Vec<KernelRecord>,
    /// The research workflow's counters over all traces.
    pub research: ResearchCounters,
    /// Evidence for "a kernel dispatch was observed".
    pub evidence: Evidence,
    /// One record per input.
    pub traces: Vec<TraceRecord>,
}

/// The library a kernel family belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Library {
    /// ggml-hip's own kernels.
    Ggml,
    /// Tensile GEMM kernels.
    Tensile,
    /// rocBLAS's own kernels.
    Rocblas,
    /// MIOpen.
    Miopen,
    /// The HIP runtime.
    Runtime,
    /// Not recognised.
    Other,
}

crate::words!(Library {
    Ggml => "ggml",
    Tensile => "tensile",
    Rocblas => "rocblas",
    Miopen => "miopen",
    Runtime => "runtime",
    Other => "other",
});

/// The kind of trace file a record was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TraceFormat {
    /// `*_kernel_trace.csv`, the current column set.
    #[serde(rename = "csv")]
    Csv,
    /// `*_kernel_trace.csv`, the older (2024) column set.
    #[serde(rename = "csv_2024")]
    Csv2024,
    /// `*_results.json`.
    #[serde(rename = "json")]
    Json,
    /// The rocpd SQLite database.
    #[serde(rename = "rocpd")]
    Rocpd,
}

crate::words!(TraceFormat {
    Csv => "csv",
    Csv2024 => "csv_2024",
    Json => "json",
    Rocpd => "rocpd",
});

/// What the phase split found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    /// rocBLAS/Tensile kernels were dispatched after the boundary.
    DecodeSignatureDetected,
    /// None after it.
    PrefillDominantSignature,
    /// The trace holds no dispatch.
    KernelTraceEmpty,
}

crate::words!(PhaseStatus {
    DecodeSignatureDetected => "decode_signature_detected",
    PrefillDominantSignature => "prefill_dominant_signature",
    KernelTraceEmpty => "kernel_trace_empty",
});

/// The instructions a Tensile kernel computes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Instructions {
    /// MFMA (CDNA).
    Mfma,
    /// WMMA (RDNA3/4).
    Wmma,
    /// Matrix instructions, on a GPU the trace does not name.
    MatrixInstruction,
    /// Vector ALU instructions.
    Valu,
}

crate::words!(Instructions {
    Mfma => "mfma",
    Wmma => "wmma",
    MatrixInstruction => "matrix_instruction",
    Valu => "valu",
});

/// The matrix-multiplication path a ggml kernel belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GgmlPath {
    /// `mul_mat_q`.
    Mmq,
    /// `mul_mat_vec_q`.
    Mmvq,
    /// `mul_mat_f`.
    Mmf,
    /// `mul_mat_vec_f`.
    Mmvf,
}

crate::words!(GgmlPath {
    Mmq => "mmq",
    Mmvq => "mmvq",
    Mmf => "mmf",
    Mmvf => "mmvf",
});

/// A kernel family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// ggml MMQ: `mul_mat_q<…>` and its stream-k fixup (quantized matmul, dp4a/MFMA/WMMA tiles).
    MulMatQ,
    /// ggml MMVQ: `mul_mat_vec_q<…>` (quantized matrix × vector, small batches).
    MulMatVecQ,
    /// ggml MMF: `mul_mat_f<…>` (float matmul on MMA hardware).
    MulMatF,
    /// ggml MMVF: `mul_mat_vec_f<…>`.
    MulMatVecF,
    /// ggml flash attention, tile kernel (`flash_attn_tile<…>`).
    FlashAttnTile,
    /// ggml flash attention, vector kernel (`flash_attn_ext_vec<…>`).
    FlashAttnVec,
    /// ggml flash attention, MMA kernel (`flash_attn_ext_f16<…>`: WMMA/MFMA).
    FlashAttnMma,
    /// ggml flash attention, combine and fixup passes (`flash_attn_combine_results`,
    /// `flash_attn_stream_k_fixup`).
    FlashAttnCombine,
    /// ggml quantization of activations (`quantize_q8_1`, `quantize_mmq_q8_1`, …).
    Quantize,
    /// ggml dequantization and type conversion (`dequantize_block*`, `convert_unary`, …).
    Dequantize,
    /// ggml element-wise operations (`k_bin_bcast`, `unary_*`, `scale_f32`, …).
    Elementwise,
    /// ggml soft-max.
    Softmax,
    /// ggml rotary position embedding.
    Rope,
    /// ggml normalisations (`rms_norm_f32`, `norm_f32`, `group_norm_f32`, `l2_norm_f32`).
    Norm,
    /// ggml row gathers, scatters and copies (`k_get_rows*`, `k_set_rows`, `cpy_*`).
    GgmlCopy,
    /// Other ggml kernels recognised by name (`argsort`, `concat`, `ssm_*`, …).
    GgmlOther,
    /// Tensile GEMM kernels (`Cijk_…`), rocBLAS's and hipBLASLt's.
    TensileCijk,
    /// rocBLAS's own (non-Tensile) kernels (`rocblas_*`).
    Rocblas,
    /// MIOpen kernels (`miopen*`, `MIOpen*`, `naive_conv_*`, `igemm_*`, …).
    Miopen,
    /// The HIP runtime's blit kernels (`__amd_rocclr_copyBuffer`, `…fillBuffer…`).
    RuntimeCopyFill,
    /// Anything else.
    Other,
}

/// The counters the research workflow's rocprofv3 probe printed (`g4-rocprofv3-dispatch-check.sh`),
/// computed the same way — substring matches on the kernel name — so that its summaries can be
/// compared with rocpath's families.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResearchCounters {
    /// Rows of kind `KERNEL_DISPATCH`.
    pub kernel_dispatch_rows: u64,
    /// Names containing `mul_mat_q<`.
    pub kernel_mul_mat_q_rows: u64,
    /// Names containing `mul_mat_vec_q<`.
    pub kernel_mul_mat_vec_rows: u64,
    /// Names containing `flash_attn`.
    pub kernel_flash_attn_rows: u64,
    /// Names containing `quantize_`.
    pub kernel_quantize_rows: u64,
    /// Names containing `__amd_rocclr_copyBuffer` or `fillBufferAligned`.
    pub kernel_copy_rows: u64,
    /// Names matching `(?i)tensile|contraction|cijk|rocblas|gemm_ex|gemm`.
    pub kernel_tensile_like_rows: u64,
}

/// Register and memory use of a kernel, as the trace reports it (the largest seen).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resources {
    /// Architected VGPRs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vgpr_count: Option<u64>,
    /// Accumulation VGPRs (AGPRs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accum_vgpr_count: Option<u64>,
    /// SGPRs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sgpr_count: Option<u64>,
    /// LDS (group segment) bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lds_bytes: Option<u64>,
    /// Scratch (private segment) bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_bytes: Option<u64>,
}

/// An agent (CPU or GPU) of the profiled process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// The id the kernel records use (`Agent 1`, `1`).
    pub id: String,
    /// `CPU` or `GPU`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `gfx900` for a GPU.
    pub name: String,
    /// Marketing name (`Radeon Instinct MI25`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub product: String,
}

/// How a Tensile kernel computes, read from its name and the GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensileInfo {
    /// The decoded name.
    #[serde(flatten)]
    pub name: KernelName,
    /// `mfma` / `wmma` (matrix instructions; which one follows from the GPU), or
    /// `matrix_instruction` when the GPU is not known, or `valu`.
    pub instructions: Instructions,
    /// The `ISA` token of the name (`900`, `000` for a generic fallback kernel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isa: Option<String>,
}

/// What a ggml kernel name says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GgmlKernel {
    /// Weight (src0) type, lower case as ggml's rules name it (`q4_k`, `f16`).
    pub weight_type: String,
    /// The matrix-multiplication path the kernel belongs to (`mmq`, `mmvq`, `mmf`, `mmvf`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<GgmlPath>,
    /// Batch columns fixed by the template (`ncols_dst` of the vector kernels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ncols: Option<i64>,
}

/// One kernel in the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KernelRecord {
    /// Kernel name.
    pub name: String,
    /// Family.
    pub family: Family,
    /// Library of the family.
    pub library: Library,
    /// Dispatches.
    pub dispatches: u64,
    /// Sum of durations, ns.
    pub total_ns: u64,
    /// Mean duration, ns.
    pub mean_ns: u64,
    /// Shortest, ns.
    pub min_ns: u64,
    /// Longest, ns.
    pub max_ns: u64,
    /// Register and memory use.
    #[serde(flatten)]
    pub resources: Resources,
    /// Dispatches at or before the phase boundary (with a phase split).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_dispatches: Option<u64>,
    /// Dispatches after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_dispatches: Option<u64>,
    /// Tensile name decoding, for `Cijk_` kernels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensile: Option<TensileInfo>,
    /// ggml template decoding: weight type, matrix-multiplication path, fixed batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ggml: Option<GgmlKernel>,
    /// Evidence: the kernel was dispatched (runtime trace), with the first dispatch's place.
    pub evidence: Evidence,
}

/// One family in the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FamilyRecord {
    /// Family.
    pub family: Family,
    /// Library.
    pub library: Library,
    /// Distinct kernels.
    pub kernels: u64,
    /// Dispatches.
    pub dispatches: u64,
    /// Sum of durations, ns.
    pub total_ns: u64,
    /// Dispatches at or before the phase boundary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_dispatches: Option<u64>,
    /// Dispatches after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_dispatches: Option<u64>,
    /// Evidence.
    pub evidence: Evidence,
}

/// How the phase boundary was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "method")]
pub enum Boundary {
    /// The research's proxy: first dispatch start + the response's `prompt_eval_duration`.
    KernelStartMinPlusPromptEvalDuration {
        /// `prompt_eval_duration`, ns.
        prompt_eval_duration_ns: u64,
    },
    /// An absolute timestamp given by the user (the trace's clock).
    Absolute {
        /// Boundary, ns.
        boundary_ns: u64,
    },
}

/// Prefill/decode split of the dispatches.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PhaseSplit {
    /// How the boundary was chosen.
    pub boundary: Boundary,
    /// The boundary on the trace's clock, ns (None when the trace is empty).
    pub boundary_ns: Option<u64>,
    /// Dispatches at or before it.
    pub prefill_dispatches: u64,
    /// Dispatches after it.
    pub decode_dispatches: u64,
    /// rocBLAS/Tensile dispatches before / after.
    pub prefill_blas_dispatches: u64,
    /// rocBLAS/Tensile dispatches after the boundary.
    pub decode_blas_dispatches: u64,
    /// `decode_signature_detected` (rocBLAS/Tensile kernels dispatched after the boundary),
    /// `prefill_dominant_signature` (none after it), `kernel_trace_empty`.
    pub status: PhaseStatus,
    /// Evidence (a proxy: `inferred`; an empty trace: `unresolved`).
    pub evidence: Evidence,
}

/// The report for one trace input.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Input path.
    pub path: String,
    /// `csv`, `csv_2024` (the older column set), `json`, `rocpd`.
    pub format: TraceFormat,
    /// Agents.
    pub agents: Vec<Agent>,
    /// Kernel dispatches.
    pub dispatches: u64,
    /// Rows that were not kernel dispatches or could not be read.
    pub skipped_rows: u64,
    /// Earliest start, ns.
    pub first_start_ns: Option<u64>,
    /// Latest end, ns.
    pub last_end_ns: Option<u64>,
    /// The research workflow's counters, computed its way.
    pub research: ResearchCounters,
    /// Families with at least one dispatch.
    pub families: Vec<FamilyRecord>,
    /// Kernels, most dispatched first.
    pub kernels: Vec<KernelRecord>,
    /// The phase split, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<PhaseSplit>,
    /// Evidence: dispatch observed (confirmed) or the trace is empty (unresolved).
    pub evidence: Evidence,
    /// Rows that could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ErrorItem>,
}

impl TraceRecord {
    /// Dispatches of a family.
    pub fn family_dispatches(&self, f: Family) -> u64 {
        self.families
            .iter()
            .find(|r| r.family == f)
            .map_or(0, |r| r.dispatches)
    }

    /// Dispatches of rocBLAS/Tensile kernels.
    pub fn blas_dispatches(&self) -> u64 {
        self.families
            .iter()
            .filter(|r| r.family.is_blas())
            .map(|r| r.dispatches)
            .sum()
    }

    /// The GPU processors of the trace's agents.
    pub fn gpus(&self) -> Vec<&str> {
        self.agents
            .iter()
            .filter(|a| a.kind.eq_ignore_ascii_case("gpu"))
            .map(|a| a.name.as_str())
            .collect()
    }
}

impl Resources {
    fn max(a: Option<u64>, b: Option<u64>) -> Option<u64> {
        match (a, b) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, None) => x,
            (None, y) => y,
        }
    }
    /// Keeps the larger of each.
    pub fn merge(&mut self, o: &Resources) {
        self.vgpr_count = Self::max(self.vgpr_count, o.vgpr_count);
        self.accum_vgpr_count = Self::max(self.accum_vgpr_count, o.accum_vgpr_count);
        self.sgpr_count = Self::max(self.sgpr_count, o.sgpr_count);
        self.lds_bytes = Self::max(self.lds_bytes, o.lds_bytes);
        self.scratch_bytes = Self::max(self.scratch_bytes, o.scratch_bytes);
    }
}

impl ResearchCounters {
    /// Sums two counters.
    pub fn merge(&mut self, o: &ResearchCounters) {
        self.kernel_dispatch_rows += o.kernel_dispatch_rows;
        self.kernel_mul_mat_q_rows += o.kernel_mul_mat_q_rows;
        self.kernel_mul_mat_vec_rows += o.kernel_mul_mat_vec_rows;
        self.kernel_flash_attn_rows += o.kernel_flash_attn_rows;
        self.kernel_quantize_rows += o.kernel_quantize_rows;
        self.kernel_copy_rows += o.kernel_copy_rows;
        self.kernel_tensile_like_rows += o.kernel_tensile_like_rows;
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Family {
    /// All families, in report order.
    pub const ALL: [Family; 21] = [
        Family::MulMatQ,
        Family::MulMatVecQ,
        Family::MulMatF,
        Family::MulMatVecF,
        Family::FlashAttnTile,
        Family::FlashAttnVec,
        Family::FlashAttnMma,
        Family::FlashAttnCombine,
        Family::Quantize,
        Family::Dequantize,
        Family::Elementwise,
        Family::Softmax,
        Family::Rope,
        Family::Norm,
        Family::GgmlCopy,
        Family::GgmlOther,
        Family::TensileCijk,
        Family::Rocblas,
        Family::Miopen,
        Family::RuntimeCopyFill,
        Family::Other,
    ];

    /// The snake_case name used in JSON and TSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::MulMatQ => "mul_mat_q",
            Family::MulMatVecQ => "mul_mat_vec_q",
            Family::MulMatF => "mul_mat_f",
            Family::MulMatVecF => "mul_mat_vec_f",
            Family::FlashAttnTile => "flash_attn_tile",
            Family::FlashAttnVec => "flash_attn_vec",
            Family::FlashAttnMma => "flash_attn_mma",
            Family::FlashAttnCombine => "flash_attn_combine",
            Family::Quantize => "quantize",
            Family::Dequantize => "dequantize",
            Family::Elementwise => "elementwise",
            Family::Softmax => "softmax",
            Family::Rope => "rope",
            Family::Norm => "norm",
            Family::GgmlCopy => "ggml_copy",
            Family::GgmlOther => "ggml_other",
            Family::TensileCijk => "tensile_cijk",
            Family::Rocblas => "rocblas",
            Family::Miopen => "miopen",
            Family::RuntimeCopyFill => "runtime_copy_fill",
            Family::Other => "other",
        }
    }

    /// The library the family belongs to: `ggml`, `tensile`, `rocblas`, `miopen`, `runtime`
    /// or `other`.
    pub fn library(self) -> Library {
        match self {
            Family::TensileCijk => Library::Tensile,
            Family::Rocblas => Library::Rocblas,
            Family::Miopen => Library::Miopen,
            Family::RuntimeCopyFill => Library::Runtime,
            Family::Other => Library::Other,
            _ => Library::Ggml,
        }
    }

    /// A GEMM that ran through rocBLAS/Tensile (the "direct dispatch" of the research's link
    /// gate), as opposed to ggml's own kernels.
    pub fn is_blas(self) -> bool {
        matches!(self, Family::TensileCijk | Family::Rocblas)
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == s)
    }
}
