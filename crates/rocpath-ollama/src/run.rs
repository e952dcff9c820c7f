//! One run = the artifacts of one request: its generate response, the server log or journal of
//! that time, and the rocm-smi samples taken meanwhile. Files are grouped into runs by name (the
//! research workflow names them `<tool>_<kind>_<case>_<timestamp>.<ext>`: files whose names
//! differ only in the kind word are one run), and each run gets a verdict.
//!
//! **Verdict.** GPU signals: an `inference compute` device with a GPU library, a load request
//! with GPU layers, `offloaded N/M layers to GPU` with N > 0, weights or model buffers placed on
//! a GPU device, ggml `using device ROCm0`, another line naming a GPU library (`library=ROCm`),
//! rocm-smi use above 0. CPU signals: `inference compute` with `library=cpu`, `GPULayers:[]`,
//! `offloaded N/M` with N < M, and weights (`model weights device=CPU`, `load_tensors: CPU model
//! buffer size`) on the CPU when none went to a GPU — a fully offloaded model keeps its token
//! embeddings on the CPU, which is not a CPU run (the research's regex counted it as one).
//! GPU only → `GPU`, CPU only → `CPU`, both → `MIXED`, neither → `UNSURE`. These are the
//! research's signals (`tinyllama-gpu-path-check.sh`), read as structured lines; each signal
//! names its file and line. A verdict resting on log lines is `confirmed`; one resting on
//! rocm-smi use alone is `inferred` (the GPU was busy, not necessarily with this run); `MIXED`
//! is `inferred`; `UNSURE` is `unresolved`.

use crate::generate::{self, Document, Rates, Response, Stream};
use crate::log::{self, Event, GgmlDevice};
use crate::smi::{self, SmiLog};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    /// Path.
    pub path: String,
    /// Kind.
    pub kind: FileKind,
    /// Bytes.
    pub bytes: u64,
}

/// The run key of a file name (see the module doc).
pub fn run_key(path: &Path) -> String {
    let mut name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    for ext in [
        ".log", ".json", ".jsonl", ".txt", ".smi", ".journal", ".log", ".out", ".err",
    ] {
        if let Some(s) = name.strip_suffix(ext) {
            name = s.to_string();
        }
    }
    let toks: Vec<&str> = name.split(['_', '.']).collect();
    let mut out: Vec<&str> = Vec::new();
    let kind = [
        "generate", "journal", "smi", "serve", "stdout", "stderr", "stream", "during", "after",
        "test",
    ];
    for (i, t) in toks.iter().enumerate() {
        if kind.contains(t) {
            continue;
        }
        if *t == "rocm" && toks.get(i + 1) == Some(&"smi") {
            continue;
        }
        if i == 0 && *t == "ollama" {
            continue;
        }
        out.push(t);
    }
    out.join("_")
}

/// Files that are summaries written by people or scripts, not recordings.
pub fn is_summary(path: &Path) -> bool {
    let n = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    n.ends_with(".md")
        || n.ends_with(".tsv")
        || n.ends_with(".csv")
        || n.ends_with(".db")
        || n.contains("_summary_")
        || n.contains("_index_")
}

/// Guesses a file's kind from its content (and, for empty files, its name).
pub fn kind_of(text: &str) -> FileKind {
    let t = text.trim_start();
    if t.is_empty() {
        return FileKind::Empty;
    }
    let first = t.lines().next().unwrap_or("");
    let after_tab = first.split_once('\t').map_or(first, |(ns, rest)| {
        if ns.bytes().all(|c| c.is_ascii_digit()) {
            rest
        } else {
            first
        }
    });
    if after_tab.trim_start().starts_with('{') {
        return FileKind::Generate;
    }
    let s = smi::parse(text);
    if s.has_values() || s.command_not_found > 0 {
        return FileKind::Smi;
    }
    FileKind::Log
}

/// GPU/CPU verdict of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

/// One line that speaks for GPU or CPU.
#[derive(Debug, Clone, Serialize)]
pub struct Signal {
    /// `gpu` or `cpu`.
    pub side: &'static str,
    /// What kind of line (`inference_compute`, `gpu_layers`, `offloaded`, `placement`,
    /// `model_buffer`, `using_device`, `library_mention`, `smi_use`).
    pub what: &'static str,
    /// The value (library, layers, device, use %).
    pub value: String,
    /// Where.
    pub at: Locator,
}

/// The verdict with its reasons.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// GPU / CPU / MIXED / UNSURE.
    pub verdict: VerdictKind,
    /// Every signal seen (first of each kind and side per file).
    pub signals: Vec<Signal>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A failure seen in a run.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// Kind (`tensile_library_missing`, `gpu_discovery_failed`, `rocm_error`, `abort`, `oom`,
    /// `runner_crashed`, `error_response`, `http_error`, …).
    pub kind: String,
    /// Detail.
    pub detail: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// What the server said about the device and the load.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Server {
    /// `inference compute` library (first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// `inference compute` compute (first non-empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compute: Option<String>,
    /// `inference compute` description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// VRAM total as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_memory: Option<String>,
    /// GPU layers of the last load request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_layers: Option<u64>,
    /// `NumThreads` of the last load request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_threads: Option<u64>,
    /// `BatchSize`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_size: Option<u64>,
    /// `KvSize`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_size: Option<u64>,
    /// `FlashAttention`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flash_attention: Option<String>,
    /// Last `offloaded N/M` as `[N, M]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offloaded: Option<[u64; 2]>,
    /// ggml devices.
    pub devices: Vec<GgmlDevice>,
    /// Backends loaded (`ROCm: /…/libggml-hip.so`).
    pub backends: Vec<String>,
    /// Requests answered (`POST /api/generate 200 626.59ms`).
    pub requests: Vec<String>,
}

/// The response of the run and its rates.
#[derive(Debug, Clone, Serialize)]
pub struct GenerateInfo {
    /// The response (or error).
    pub response: Response,
    /// Rates: `eval_rate` (= eval_count / eval_duration) and `e2e_rate` (= eval_count /
    /// total_duration) are different quantities; both are given, labelled.
    pub rates: Rates,
    /// The stream, when it was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<Stream>,
    /// Evidence for the figures.
    pub evidence: Evidence,
}

/// One run's report.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Run key.
    pub run: String,
    /// Files.
    pub files: Vec<FileInfo>,
    /// Verdict.
    pub verdict: Verdict,
    /// The response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generate: Option<GenerateInfo>,
    /// Several responses in one file (benchmark JSONL): their count; use `lanes summarize`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<u64>,
    /// Server facts.
    pub server: Server,
    /// rocm-smi peaks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smi: Option<SmiLog>,
    /// Failures.
    pub failures: Vec<Failure>,
    /// Notes (empty files, unreadable JSON, …).
    pub notes: Vec<String>,
}

/// Groups paths into runs: folders are listed (not recursively); summaries are left out (with
/// a note). With `single`, everything is one run.
pub fn group(paths: &[PathBuf], single: bool) -> (BTreeMap<String, Vec<PathBuf>>, Vec<String>) {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    for p in paths {
        if p.is_dir() {
            if let Ok(rd) = std::fs::read_dir(p) {
                let mut v: Vec<PathBuf> = rd
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file())
                    .collect();
                v.sort();
                files.extend(v);
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut runs: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        if is_summary(&f) {
            notes.push(format!(
                "{}: a summary, not a recording; skipped",
                f.display()
            ));
            continue;
        }
        let key = if single {
            "run".to_string()
        } else {
            run_key(&f)
        };
        runs.entry(key).or_default().push(f);
    }
    (runs, notes)
}

struct Acc {
    signals: Vec<Signal>,
    seen: std::collections::HashSet<(&'static str, &'static str, String)>,
}

impl Acc {
    fn push(&mut self, side: &'static str, what: &'static str, value: String, at: Locator) {
        if self.seen.insert((side, what, at.path.clone())) {
            self.signals.push(Signal {
                side,
                what,
                value,
                at,
            });
        }
    }
}

fn at(path: &str, line: u64) -> Locator {
    Locator::file(path).with_line(line)
}

/// Reads one run from its files' contents (`(path, text)`; bytes are decoded lossily).
pub fn read_run(run: &str, files: &[(String, String)]) -> RunReport {
    let mut acc = Acc {
        signals: Vec::new(),
        seen: std::collections::HashSet::new(),
    };
    let mut server = Server::default();
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let mut infos = Vec::new();
    let mut gen_info: Option<GenerateInfo> = None;
    let mut responses = None;
    let mut smi_log: Option<SmiLog> = None;
    let mut smi_path = String::new();
    let mut weights: Vec<(String, Locator)> = Vec::new();
    for (path, text) in files {
        let kind = kind_of(text);
        infos.push(FileInfo {
            path: path.clone(),
            kind,
            bytes: text.len() as u64,
        });
        match kind {
            FileKind::Empty => notes.push(format!("{path}: empty (0 bytes as recorded)")),
            FileKind::Generate => match generate::parse(text, None) {
                Document::Single(r, line) | Document::Stream(_, Some((r, line))) => {
                    let stream = match generate::parse(text, None) {
                        Document::Stream(s, _) => Some(s),
                        _ => None,
                    };
                    if let Some(e) = &r.error {
                        failures.push(Failure {
                            kind: "error_response".into(),
                            detail: e.clone(),
                            evidence: Evidence::new(
                                Class::Confirmed,
                                Proof::RuntimeVerified,
                                "ollama.failure.error_response",
                            )
                            .at(at(path, line)),
                        });
                    }
                    let rates = r.rates();
                    gen_info = Some(GenerateInfo {
                        evidence: Evidence::new(Class::Confirmed, Proof::RuntimeVerified, "ollama.generate.response")
                            .at(at(path, line))
                            .because("eval_rate = eval_count / eval_duration; e2e_rate = eval_count / total_duration"),
                        response: r,
                        rates,
                        stream,
                    });
                }
                Document::Stream(s, None) => {
                    notes.push(format!("{path}: a stream without its final done object"));
                    gen_info = Some(GenerateInfo {
                        response: Response::default(),
                        rates: Rates::default(),
                        stream: Some(s),
                        evidence: Evidence::new(
                            Class::Limited,
                            Proof::RuntimeVerified,
                            "ollama.generate.stream_incomplete",
                        )
                        .at(Locator::file(path)),
                    });
                }
                Document::Many(v) => {
                    responses = Some(v.len() as u64);
                    notes.push(format!(
                        "{path}: {} responses in one file; compare them with `rocpath lanes summarize`",
                        v.len()
                    ));
                }
                Document::NotJson(e) => notes.push(format!("{path}: not JSON ({e})")),
                Document::Empty => notes.push(format!("{path}: empty")),
            },
            FileKind::Smi => {
                let s = smi::parse(text);
                for g in &s.gpus {
                    if let (Some(u), Some(l)) = (g.max_use_pct, g.max_use_line) {
                        if u > 0.0 {
                            acc.push(
                                "gpu",
                                "smi_use",
                                format!("GPU[{}] {u}%", g.gpu),
                                at(path, l),
                            );
                        }
                    }
                }
                if s.command_not_found > 0 {
                    notes.push(format!(
                        "{path}: rocm-smi was not found {} time(s) while sampling",
                        s.command_not_found
                    ));
                }
                smi_path = path.clone();
                smi_log = Some(s);
            }
            FileKind::Log => {
                for (i, l) in text.lines().enumerate() {
                    let line = (i + 1) as u64;
                    let Some(ev) = log::parse(l) else { continue };
                    match ev {
                        Event::InferenceCompute {
                            library,
                            compute,
                            description,
                            total,
                        } => {
                            if library.eq_ignore_ascii_case("cpu") {
                                acc.push(
                                    "cpu",
                                    "inference_compute",
                                    library.clone(),
                                    at(path, line),
                                );
                            } else {
                                acc.push(
                                    "gpu",
                                    "inference_compute",
                                    format!("{library} {compute}"),
                                    at(path, line),
                                );
                            }
                            if server.library.is_none() || !library.eq_ignore_ascii_case("cpu") {
                                server.library = Some(library);
                            }
                            if !compute.is_empty() && server.compute.is_none() {
                                server.compute = Some(compute);
                            }
                            if !description.is_empty() && server.description.is_none() {
                                server.description = Some(description);
                            }
                            if !total.is_empty() && server.total_memory.is_none() {
                                server.total_memory = Some(total);
                            }
                        }
                        Event::LoadRequest {
                            gpu_layers,
                            num_threads,
                            batch_size,
                            kv_size,
                            flash_attention,
                        } => {
                            if gpu_layers > 0 {
                                acc.push(
                                    "gpu",
                                    "gpu_layers",
                                    gpu_layers.to_string(),
                                    at(path, line),
                                );
                            } else {
                                acc.push("cpu", "gpu_layers", "[]".into(), at(path, line));
                            }
                            server.gpu_layers = Some(gpu_layers);
                            server.num_threads = num_threads.or(server.num_threads);
                            server.batch_size = batch_size.or(server.batch_size);
                            server.kv_size = kv_size.or(server.kv_size);
                            server.flash_attention =
                                flash_attention.or(server.flash_attention.take());
                        }
                        Event::Offloaded { layers, of } => {
                            let v = format!("{layers}/{of}");
                            if layers > 0 {
                                acc.push("gpu", "offloaded", v.clone(), at(path, line));
                            }
                            if layers < of {
                                // None, or only part of the layers: the rest run on the CPU.
                                acc.push("cpu", "offloaded", v, at(path, line));
                            }
                            server.offloaded = Some([layers, of]);
                        }
                        Event::Placement { what, device } => {
                            if what == "model weights" {
                                weights.push((device, at(path, line)));
                            }
                        }
                        Event::ModelBuffer { device } => {
                            // `CPU_Mapped`/`ROCm_Host` buffers are host staging, not placement.
                            if device == "CPU"
                                || !device.starts_with("CPU") && !device.ends_with("_Host")
                            {
                                weights.push((device, at(path, line)));
                            }
                        }
                        Event::UsingDevice(d) => acc.push("gpu", "using_device", d, at(path, line)),
                        Event::LibraryMention(lib) => {
                            acc.push("gpu", "library_mention", lib, at(path, line))
                        }
                        Event::Backend { kind, path: p } => {
                            let b = format!("{kind}: {p}");
                            if !server.backends.contains(&b) {
                                server.backends.push(b);
                            }
                        }
                        Event::Device(d) => {
                            if !server.devices.contains(&d) {
                                server.devices.push(d);
                            }
                        }
                        Event::Failure { kind, detail } => {
                            if failures.iter().any(|f: &Failure| {
                                f.kind == kind
                                    && f.evidence.sources.first().is_some_and(|s| s.path == *path)
                            }) {
                                continue;
                            }
                            failures.push(Failure {
                                kind: kind.to_string(),
                                detail,
                                evidence: Evidence::new(
                                    Class::Confirmed,
                                    Proof::RuntimeVerified,
                                    format!("ollama.failure.{kind}"),
                                )
                                .at(at(path, line)),
                            });
                        }
                        Event::Request {
                            status,
                            path: p,
                            latency,
                        } => {
                            server.requests.push(format!("{p} {status} {latency}"));
                            if status >= 400 {
                                failures.push(Failure {
                                    kind: "http_error".into(),
                                    detail: format!("{p} answered {status}"),
                                    evidence: Evidence::new(
                                        Class::Confirmed,
                                        Proof::RuntimeVerified,
                                        "ollama.failure.http_error",
                                    )
                                    .at(at(path, line)),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    // Weights on a GPU device speak for the GPU; weights on the CPU speak for the CPU only when
    // no weights went to a GPU (the token embeddings of a fully offloaded model stay on the CPU).
    let on_gpu: Vec<&(String, Locator)> = weights
        .iter()
        .filter(|(d, _)| !d.eq_ignore_ascii_case("cpu"))
        .collect();
    if let Some((d, l)) = on_gpu.first() {
        acc.push("gpu", "placement", format!("weights on {d}"), l.clone());
    } else if let Some((d, l)) = weights.first() {
        acc.push("cpu", "placement", format!("weights on {d}"), l.clone());
    }
    let gpu = acc.signals.iter().any(|s| s.side == "gpu");
    let cpu = acc.signals.iter().any(|s| s.side == "cpu");
    let only_smi = acc.signals.iter().all(|s| s.what == "smi_use");
    let verdict = match (gpu, cpu) {
        (true, false) => VerdictKind::Gpu,
        (false, true) => VerdictKind::Cpu,
        (true, true) => VerdictKind::Mixed,
        (false, false) => VerdictKind::Unsure,
    };
    let sources: Vec<Locator> = acc.signals.iter().map(|s| s.at.clone()).collect();
    let mut evidence = match verdict {
        VerdictKind::Gpu if only_smi => Evidence::new(
            Class::Inferred,
            Proof::RuntimeVerified,
            "ollama.verdict.gpu_by_smi",
        )
        .because("only rocm-smi saw the GPU busy during the run; no log line names the device"),
        VerdictKind::Gpu => Evidence::new(
            Class::Confirmed,
            Proof::RuntimeVerified,
            "ollama.verdict.gpu",
        )
        .because("the server's lines place the model on a GPU device"),
        VerdictKind::Cpu => Evidence::new(
            Class::Confirmed,
            Proof::RuntimeVerified,
            "ollama.verdict.cpu",
        )
        .because("the server's lines place the model on the CPU and nothing names a GPU"),
        VerdictKind::Mixed => Evidence::new(
            Class::Inferred,
            Proof::RuntimeVerified,
            "ollama.verdict.mixed",
        )
        .because(
            "lines speak for both GPU and CPU: a partial offload, or several loads in one log",
        ),
        VerdictKind::Unsure => {
            let mut why = String::from("no line names a device and rocm-smi saw no GPU use");
            if let (Some(g), Some(s)) = (&gen_info, &smi_log) {
                if let Some(t) = g.response.total_duration_ns {
                    why = format!(
                        "no line names a device; rocm-smi saw no GPU use in {} sample(s), and the request took {:.3} s",
                        s.samples,
                        t as f64 / 1e9
                    );
                }
            }
            Evidence::new(
                Class::Unresolved,
                Proof::RuntimeVerified,
                "ollama.verdict.unsure",
            )
            .because(why)
        }
    };
    evidence.sources = sources;
    if evidence.sources.is_empty() {
        for f in &infos {
            evidence = evidence.at(Locator::file(&f.path));
        }
    }
    if let Some(s) = &smi_log {
        if !s.has_values() && s.command_not_found > 0 {
            notes.push(format!("{smi_path}: no sample could be taken"));
        }
    }
    RunReport {
        run: run.to_string(),
        files: infos,
        verdict: Verdict {
            verdict,
            signals: acc.signals,
            evidence,
        },
        generate: gen_info,
        responses,
        server,
        smi: smi_log,
        failures,
        notes,
    }
}

/// Reads runs from paths (see [`group`]). Unreadable files are errors (`path: message`).
pub fn read_paths(paths: &[PathBuf], single: bool) -> (Vec<RunReport>, Vec<String>, Vec<String>) {
    let (runs, notes) = group(paths, single);
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for (key, files) in runs {
        let mut texts = Vec::new();
        for f in files {
            match std::fs::read(&f) {
                Ok(b) => texts.push((
                    f.display().to_string(),
                    String::from_utf8_lossy(&b).into_owned(),
                )),
                Err(e) => errors.push(format!("{}: {e}", f.display())),
            }
        }
        if !texts.is_empty() {
            reports.push(read_run(&key, &texts));
        }
    }
    (reports, notes, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_keys_pair_the_research_names() {
        let k = |s: &str| run_key(Path::new(s));
        assert_eq!(
            k("tinyllama_generate_r1_w0_k1_second_20260320_195741.json"),
            k("tinyllama_rocm_smi_r1_w0_k1_second_20260320_195741.log")
        );
        assert_eq!(
            k("tinyllama_journal_r1_w0_k1_second_20260320_195741.log"),
            "tinyllama_r1_w0_k1_second_20260320_195741"
        );
        assert_ne!(
            k("tinyllama_journal_r1_w0_k1_second_20260320_195741.log"),
            k("tinyllama_journal_r1_w0_k1_first_20260320_195741.log")
        );
        assert_eq!(
            k("ollama_generate_20260320_174327.json"),
            k("rocm_smi_during_generate_20260320_174327.log")
        );
        assert_eq!(
            k("ollama_generate_20260320_174327.json"),
            k("ollama_journal_after_test_20260320_174327.log")
        );
        assert_eq!(
            k("g4_generate_qwen2.5_7b_20260324_021832.json"),
            k("g4_serve_stderr_qwen2.5_7b_20260324_021832.log")
        );
        assert_eq!(
            k("mi25_tiny_bench_20260323_182115.json"),
            k("mi25_tiny_bench_20260323_182115.smi.log")
        );
        assert_ne!(
            k("tinyllama_warmup_r0_w1_k0_20260320_195741.json"),
            k("tinyllama_generate_r0_w1_k0_first_20260320_195741.json")
        );
    }

    #[test]
    fn verdicts() {
        let gpu_log = "load_tensors: offloaded 23/23 layers to GPU\n".to_string();
        let r = read_run("a", &[("j.log".into(), gpu_log)]);
        assert_eq!(r.verdict.verdict, VerdictKind::Gpu);
        assert_eq!(r.verdict.evidence.class, Class::Confirmed);
        assert_eq!(r.verdict.signals[0].at.line, Some(1));
        let cpu_log = "msg=load request=\"{NumThreads:4 GPULayers:[] X}\"\nload_tensors:          CPU model buffer size =   606.53 MiB\n";
        let r = read_run("b", &[("j.log".into(), cpu_log.into())]);
        assert_eq!(r.verdict.verdict, VerdictKind::Cpu);
        assert_eq!(r.server.num_threads, Some(4));
        let both = format!("{cpu_log}load_tensors: offloaded 10/23 layers to GPU\n");
        assert_eq!(
            read_run("c", &[("j.log".into(), both)]).verdict.verdict,
            VerdictKind::Mixed
        );
        let smi = "GPU[0]\t\t: GPU use (%): 0\nGPU[0]\t\t: GPU use (%): 42\n";
        let r = read_run("d", &[("s.log".into(), smi.into())]);
        assert_eq!(r.verdict.verdict, VerdictKind::Gpu);
        assert_eq!(r.verdict.evidence.class, Class::Inferred);
        let idle = "GPU[0]\t\t: GPU use (%): 0\n";
        let g =
            r#"{"done":true,"total_duration":626000000,"eval_count":96,"eval_duration":400000000}"#;
        let r = read_run(
            "e",
            &[("s.log".into(), idle.into()), ("g.json".into(), g.into())],
        );
        assert_eq!(r.verdict.verdict, VerdictKind::Unsure);
        assert_eq!(r.verdict.evidence.class, Class::Unresolved);
        assert!(r.verdict.evidence.note.contains("0.626 s"));
        assert_eq!(r.generate.unwrap().rates.eval_rate, Some(240.0));
    }

    #[test]
    fn failures_and_empty_files() {
        let log = "rocBLAS error: Cannot read /opt/rocm-7.2.0/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx900\n";
        let r = read_run(
            "f",
            &[
                ("r.log".into(), log.into()),
                ("g.json".into(), String::new()),
                (
                    "e.json".into(),
                    "{\"error\":\"model 'x' not found\"}".into(),
                ),
            ],
        );
        let kinds: Vec<&str> = r.failures.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, vec!["tensile_library_missing", "error_response"]);
        assert!(r.notes.iter().any(|n| n.contains("empty")));
    }
}
