//! The `rocpath.ollama/2` document (`rocpath ollama read`): for each run of Ollama (its
//! `/api/generate` responses, server logs or journals and rocm-smi samples), where the model
//! ran — GPU, CPU, both — with the lines that say so, what the server reported about devices and
//! the load, the response's rates, the GPU's peaks and the failures. `rocpath-ollama` reads runs
//! into these records; the ledger reads them.

use crate::ErrorItem;
use rocpath_evidence::{Evidence, Locator};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `rocpath.ollama` document: the runs read, notes on how files were grouped, and the files
/// that could not be read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReadDoc {
    /// The runs.
    #[serde(default)]
    pub runs: Vec<RunReport>,
    /// How files were grouped into runs.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Files that could not be read.
    #[serde(default)]
    pub errors: Vec<ErrorItem>,
}

/// Which way a signal speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The model ran (or was placed) on the GPU.
    Gpu,
    /// On the CPU.
    Cpu,
}

crate::words!(Side {
    Gpu => "gpu",
    Cpu => "cpu",
});

/// What kind of line a signal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    /// `msg="inference compute"`.
    InferenceCompute,
    /// The load request's GPU layers.
    GpuLayers,
    /// `offloaded N/M layers to GPU`.
    Offloaded,
    /// Where the weights were placed.
    Placement,
    /// A model buffer on a device.
    ModelBuffer,
    /// `using device …`.
    UsingDevice,
    /// A GPU library named in the log.
    LibraryMention,
    /// rocm-smi showed the GPU busy.
    SmiUse,
}

crate::words!(SignalKind {
    InferenceCompute => "inference_compute",
    GpuLayers => "gpu_layers",
    Offloaded => "offloaded",
    Placement => "placement",
    ModelBuffer => "model_buffer",
    UsingDevice => "using_device",
    LibraryMention => "library_mention",
    SmiUse => "smi_use",
});

/// The channel the first token of a stream came in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// `response`.
    Response,
    /// `thinking`.
    Thinking,
    /// No token.
    #[default]
    None,
}

crate::words!(Channel {
    Response => "response",
    Thinking => "thinking",
    None => "none",
});

/// Where a stream's request start came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TtftBasis {
    /// Recorded with the capture.
    RequestStart,
    /// Estimated as `done − total_duration`.
    DoneMinusTotalDuration,
}

crate::words!(TtftBasis {
    RequestStart => "request_start",
    DoneMinusTotalDuration => "done_minus_total_duration",
});

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// An `/api/generate` response, error or stream.
    Generate,
    /// A server log or journal.
    Log,
    /// rocm-smi samples.
    Smi,
    /// Zero bytes.
    Empty,
}

/// A file of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileInfo {
    /// Path.
    pub path: String,
    /// Kind.
    pub kind: FileKind,
    /// Bytes.
    pub bytes: u64,
}

/// GPU/CPU verdict of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VerdictKind {
    /// Ran on the GPU.
    #[serde(rename = "GPU")]
    Gpu,
    /// Ran on the CPU.
    #[serde(rename = "CPU")]
    Cpu,
    /// Both kinds of signal.
    #[serde(rename = "MIXED")]
    Mixed,
    /// No signal.
    #[serde(rename = "UNSURE")]
    Unsure,
}

/// One line that speaks for GPU or CPU.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Signal {
    /// `gpu` or `cpu`.
    pub side: Side,
    /// What kind of line (`inference_compute`, `gpu_layers`, `offloaded`, `placement`,
    /// `model_buffer`, `using_device`, `library_mention`, `smi_use`).
    pub what: SignalKind,
    /// The value (library, layers, device, use %).
    pub value: String,
    /// Where.
    pub at: Locator,
    /// The process that printed it (a journal's `ollama[<pid>]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// When, as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// False for a line of another server process than the one that loaded the model: it
    /// says nothing about where this model ran and is not counted. (A document written before
    /// lines carried it counts every line.)
    #[serde(default = "counted")]
    pub counted: bool,
}

/// The verdict with its reasons.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Verdict {
    /// GPU / CPU / MIXED / UNSURE.
    pub verdict: VerdictKind,
    /// Every signal seen (first of each kind and side per file).
    #[serde(default)]
    pub signals: Vec<Signal>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A failure seen in a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Failure {
    /// What failed.
    pub kind: FailureKind,
    /// Detail.
    pub detail: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// What the server said about the device and the load.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Server {
    /// `inference compute` library (first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// `inference compute` compute (first non-empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute: Option<String>,
    /// `inference compute` description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// VRAM total as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_memory: Option<String>,
    /// GPU layers of the last load request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_layers: Option<u64>,
    /// `NumThreads` of the last load request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_threads: Option<u64>,
    /// `BatchSize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u64>,
    /// `KvSize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_size: Option<u64>,
    /// `FlashAttention`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flash_attention: Option<String>,
    /// Last `offloaded N/M` as `[N, M]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offloaded: Option<[u64; 2]>,
    /// ggml devices.
    #[serde(default)]
    pub devices: Vec<GgmlDevice>,
    /// Backends loaded (`ROCm: /…/libggml-hip.so`).
    #[serde(default)]
    pub backends: Vec<String>,
    /// Requests answered (`POST /api/generate 200 626.59ms`).
    #[serde(default)]
    pub requests: Vec<String>,
    /// The server processes whose lines the run's journals hold (their pids, sorted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<u32>,
    /// The server process that loaded the model (a journal's pid), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// When that process loaded it (its first load line), as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_time: Option<String>,
    /// The server's version (`Listening on … (version 0.0.0)`), of that process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Variables set for that process that change devices, libraries or kernels (`server
    /// config`, `user overrode visible devices`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// The response of the run and its rates.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GenerateInfo {
    /// The response (or error).
    pub response: Response,
    /// Rates: `eval_rate` (= eval_count / eval_duration) and `e2e_rate` (= eval_count /
    /// total_duration) are different quantities; both are given, labelled.
    pub rates: Rates,
    /// The stream, when it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<Stream>,
    /// Evidence for the figures.
    pub evidence: Evidence,
}

/// One run's report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    /// Run key.
    pub run: String,
    /// Files.
    #[serde(default)]
    pub files: Vec<FileInfo>,
    /// Verdict.
    pub verdict: Verdict,
    /// The response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<GenerateInfo>,
    /// Several responses in one file (benchmark JSONL): their count; use `lanes summarize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responses: Option<u64>,
    /// Server facts.
    pub server: Server,
    /// rocm-smi peaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smi: Option<SmiLog>,
    /// Failures.
    #[serde(default)]
    pub failures: Vec<Failure>,
    /// Notes (empty files, unreadable JSON, …).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The fields of one response that rocpath uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `done`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<bool>,
    /// `done_reason` (`stop`, `length`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done_reason: Option<String>,
    /// `total_duration`, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_duration_ns: Option<u64>,
    /// `load_duration`, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_duration_ns: Option<u64>,
    /// `prompt_eval_count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_count: Option<u64>,
    /// `prompt_eval_duration`, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_eval_duration_ns: Option<u64>,
    /// `eval_count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_count: Option<u64>,
    /// `eval_duration`, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_duration_ns: Option<u64>,
    /// Characters of `response`.
    pub response_chars: u64,
    /// Characters of `thinking`.
    pub thinking_chars: u64,
    /// `error`, for an error response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Token rates and times of a response, each labelled by how it is computed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Decode rate: `eval_count / eval_duration`, tokens/s (what `ollama run --verbose` calls
    /// "eval rate").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval_rate: Option<f64>,
    /// End-to-end rate: `eval_count / total_duration`, tokens/s (includes load and prefill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_rate: Option<f64>,
    /// Prefill rate: `prompt_eval_count / prompt_eval_duration`, tokens/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_rate: Option<f64>,
    /// `load_duration`, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_s: Option<f64>,
    /// `total_duration`, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_s: Option<f64>,
}

/// What a stream shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stream {
    /// JSON rows.
    pub json_rows: u64,
    /// `done:false` chunks.
    pub chunks: u64,
    /// Chunks with non-empty `response`.
    pub response_chunks: u64,
    /// Chunks with non-empty `thinking`.
    pub thinking_chunks: u64,
    /// Capture time of the first chunk with a token (`response` or `thinking`), ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_ns: Option<u64>,
    /// `response`, `thinking` or `none`.
    pub first_token_channel: Channel,
    /// Line of the first token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_line: Option<u64>,
    /// Capture time of the `done:true` object, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done_ns: Option<u64>,
    /// Time to first token, ms: first token − request start. The start is the one recorded with
    /// the capture, else estimated as `done − total_duration` (see `ttft_basis`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<f64>,
    /// `request_start` (recorded) or `done_minus_total_duration` (estimated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_basis: Option<TtftBasis>,
}

/// Peaks of one GPU over the samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuPeaks {
    /// GPU index as rocm-smi prints it.
    pub gpu: u32,
    /// Samples that mention this GPU's use.
    pub samples: u64,
    /// Highest `GPU use (%)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_use_pct: Option<f64>,
    /// Line of the highest use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_use_line: Option<u64>,
    /// Samples with use > 0.
    pub busy_samples: u64,
    /// Highest `GPU Memory Allocated (VRAM%)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_vram_pct: Option<f64>,
    /// Highest `Current Socket Graphics Package Power (W)` (or `Average Graphics Package Power`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_power_w: Option<f64>,
    /// Highest edge temperature, °C.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_temp_c: Option<f64>,
    /// Highest sclk, MHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sclk_mhz: Option<f64>,
}

/// A line that is not a value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// 1-based line.
    pub line: u64,
    /// The text.
    pub text: String,
}

/// A parsed sample log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SmiLog {
    /// Samples (separators or banners seen; 1 if values came without either).
    pub samples: u64,
    /// Per GPU.
    #[serde(default)]
    pub gpus: Vec<GpuPeaks>,
    /// `rocm-smi: command not found` lines (the sampler could not run).
    pub command_not_found: u64,
    /// Other warning lines (distinct texts, first line of each).
    #[serde(default)]
    pub warnings: Vec<Warning>,
}

impl SmiLog {
    /// Whether any value line was read.
    pub fn has_values(&self) -> bool {
        self.gpus
            .iter()
            .any(|g| g.samples > 0 || g.max_power_w.is_some() || g.max_temp_c.is_some())
    }
}

/// What failed in a run (`kind` of a failure in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Out of memory (`out of memory`, `hipErrorOutOfMemory`).
    Oom,
    /// `SIGABRT`.
    Abort,
    /// `ROCm error:`.
    RocmError,
    /// The llama runner crashed or terminated.
    RunnerCrashed,
    /// `failure during GPU discovery`.
    GpuDiscoveryFailed,
    /// A device was filtered out (an unsupported library).
    DeviceFiltered,
    /// rocBLAS could not read a Tensile library for the GPU.
    TensileLibraryMissing,
    /// No rocBLAS support for the GPU's target.
    NoRocblasSupport,
    /// The process was killed (`Killed`).
    Killed,
    /// `/api/generate` answered with an error object.
    ErrorResponse,
    /// An HTTP request answered with an error status.
    HttpError,
}

impl FailureKind {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Oom => "oom",
            FailureKind::Abort => "abort",
            FailureKind::RocmError => "rocm_error",
            FailureKind::RunnerCrashed => "runner_crashed",
            FailureKind::GpuDiscoveryFailed => "gpu_discovery_failed",
            FailureKind::DeviceFiltered => "device_filtered",
            FailureKind::TensileLibraryMissing => "tensile_library_missing",
            FailureKind::NoRocblasSupport => "no_rocblas_support",
            FailureKind::Killed => "killed",
            FailureKind::ErrorResponse => "error_response",
            FailureKind::HttpError => "http_error",
        }
    }
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A ggml device line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GgmlDevice {
    /// Device index.
    pub index: u32,
    /// Marketing name.
    pub name: String,
    /// Target id (`gfx900:xnack-`).
    pub target: String,
    /// ggml's compute capability (`0x900`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cc: String,
    /// Wavefront size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wave_size: Option<u32>,
}

fn counted() -> bool {
    true
}

impl Response {
    /// The rates this response allows.
    pub fn rates(&self) -> Rates {
        let per_s = |n: Option<u64>, d: Option<u64>| match (n, d) {
            (Some(n), Some(d)) if d > 0 => Some(n as f64 * 1e9 / d as f64),
            _ => None,
        };
        Rates {
            eval_rate: per_s(self.eval_count, self.eval_duration_ns),
            e2e_rate: per_s(self.eval_count, self.total_duration_ns),
            prefill_rate: per_s(self.prompt_eval_count, self.prompt_eval_duration_ns),
            load_s: self.load_duration_ns.map(|n| n as f64 / 1e9),
            total_s: self.total_duration_ns.map(|n| n as f64 / 1e9),
        }
    }
}

impl VerdictKind {
    /// `GPU`, `CPU`, `MIXED`, `UNSURE`.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Gpu => "GPU",
            VerdictKind::Cpu => "CPU",
            VerdictKind::Mixed => "MIXED",
            VerdictKind::Unsure => "UNSURE",
        }
    }
}
