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
//!
//! **Where a model ran needs a model load.** The server's start-up `inference compute` line and
//! its `library=` mentions say which devices it can use, not where a model was placed: only a
//! load request, an offload count or a weight placement does. Without one of those the verdict
//! is `UNSURE` (`ollama.verdict.no_load`, `unresolved`, saying why — a failed request, a device
//! list only), unless rocm-smi saw the GPU busy while a request succeeded (`gpu_by_smi`,
//! `inferred`).
//!
//! **One process.** A journal may hold several server processes (a restart, an earlier server
//! that found no GPU). Each signal carries the pid and time of its line; once a process loaded
//! the model, lines of other processes are listed with `counted: false` and decide nothing, and
//! the server's version and variables (`server config`, `user overrode visible devices`) are
//! that process's (`server.pid`, `server.load_time`, `server.version`, `server.env`).
//!
//! Files are streamed ([`crate::input`]): memory stays bounded whatever their size, and only
//! regular files are read.

use crate::generate::{Document, GenerateReader, Rates, Response, Stream};
use crate::input::{self, ReadError, TextLine};
use crate::log::{self, Event};
use crate::smi::{SmiLog, SmiReader};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use rocpath_docs::ollama::{
    Failure, FileInfo, FileKind, GenerateInfo, RunReport, Server, Side, Signal, SignalKind,
    Verdict, VerdictKind,
};

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

/// Groups paths into runs: folders are listed (not recursively); summaries are left out (with
/// a note), and so are entries that are not regular files (FIFOs, devices, sockets: reading
/// them could block or never end). With `single`, everything is one run.
pub fn group(paths: &[PathBuf], single: bool) -> (BTreeMap<String, Vec<PathBuf>>, Vec<String>) {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    for p in paths {
        if p.is_dir() {
            if let Ok(rd) = std::fs::read_dir(p) {
                let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
                v.sort();
                for f in v {
                    match std::fs::metadata(&f) {
                        Ok(m) if m.is_file() => files.push(f),
                        Ok(m) if m.is_dir() => {}
                        Ok(m) => notes.push(format!(
                            "{}: {}, not a regular file; skipped",
                            f.display(),
                            input::describe(m.file_type())
                        )),
                        Err(_) => {}
                    }
                }
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

/// Request lines listed per run; more are counted in a note.
const MAX_REQUESTS: usize = 256;
/// Failures listed per run; more are counted in a note.
const MAX_FAILURES: usize = 64;
/// ggml devices and backends listed per run.
const MAX_DEVICES: usize = 16;

/// Signals that come from a model load: only these say where a model was placed.
const LOAD_SIGNALS: [SignalKind; 4] = [
    SignalKind::GpuLayers,
    SignalKind::Offloaded,
    SignalKind::Placement,
    SignalKind::UsingDevice,
];

struct Acc {
    signals: Vec<Signal>,
    seen: std::collections::HashSet<(Side, SignalKind, String, Option<u32>)>,
    /// The origin of the line being read.
    origin: log::Origin,
}

impl Acc {
    fn push(&mut self, side: Side, what: SignalKind, value: String, at: Locator) {
        let o = self.origin.clone();
        self.push_from(side, what, value, at, o);
    }

    fn push_from(
        &mut self,
        side: Side,
        what: SignalKind,
        value: String,
        at: Locator,
        o: log::Origin,
    ) {
        if self.seen.insert((side, what, at.path.clone(), o.pid)) {
            self.signals.push(Signal {
                side,
                what,
                value,
                at,
                pid: o.pid,
                time: o.time,
                counted: true,
            });
        }
    }

    /// The processes that loaded a model (their load lines carry a pid).
    fn loaders(&self) -> std::collections::BTreeSet<u32> {
        self.signals
            .iter()
            .filter(|s| LOAD_SIGNALS.contains(&s.what))
            .filter_map(|s| s.pid)
            .collect()
    }
}

fn at(path: &str, line: u64) -> Locator {
    Locator::file(path).with_line(line)
}

/// A file of a run to read: a path on disk (streamed), or a text in memory (tests, fuzzing).
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A file, streamed with bounded memory; only regular files are read.
    Path(&'a Path),
    /// A text and the path to name it by.
    Text(&'a str, &'a str),
}

impl Source<'_> {
    fn name(&self) -> String {
        match self {
            Source::Path(p) => p.display().to_string(),
            Source::Text(n, _) => (*n).to_string(),
        }
    }

    /// Streams the lines; returns the bytes read.
    fn lines(&self, f: &mut dyn FnMut(TextLine<'_>)) -> Result<u64, ReadError> {
        match self {
            Source::Path(p) => input::for_each_line(p, f),
            Source::Text(_, t) => {
                input::for_each_text_line(t, f);
                Ok(t.len() as u64)
            }
        }
    }
}

/// The first pass over a file: its kind from the first non-blank line (`{`, possibly after a
/// capture time, is a generate document), and the generate or rocm-smi reading on the way.
#[derive(Default)]
struct FirstPass {
    json: Option<bool>,
    generate: GenerateReader,
    smi: SmiReader,
    long_lines: Vec<u64>,
    long_count: u64,
}

impl FirstPass {
    fn new() -> Self {
        FirstPass {
            generate: GenerateReader::new(),
            ..FirstPass::default()
        }
    }

    fn line(&mut self, l: TextLine<'_>) {
        if l.truncated {
            self.long_count += 1;
            if self.long_lines.len() < 4 {
                self.long_lines.push(l.no);
            }
        }
        if self.json.is_none() && !l.text.trim().is_empty() {
            self.json = Some(looks_like_json(l.text));
        }
        match self.json {
            Some(true) => self.generate.line(l.no, l.text),
            Some(false) => self.smi.line(l.no, l.text),
            None => {}
        }
    }

    fn kind(&self) -> FileKind {
        match self.json {
            None => FileKind::Empty,
            Some(true) => FileKind::Generate,
            Some(false) if self.smi.looks_like_smi() => FileKind::Smi,
            Some(false) => FileKind::Log,
        }
    }
}

fn looks_like_json(first: &str) -> bool {
    let first = first.trim_start();
    let after_tab = first.split_once('\t').map_or(first, |(ns, rest)| {
        if ns.bytes().all(|c| c.is_ascii_digit()) {
            rest
        } else {
            first
        }
    });
    after_tab.trim_start().starts_with('{')
}

/// Guesses a file's kind from its content (and, for empty files, its name).
pub fn kind_of(text: &str) -> FileKind {
    let mut p = FirstPass::new();
    input::for_each_text_line(text, &mut |l| p.line(l));
    p.kind()
}

/// A run being read, file by file.
struct RunReader {
    acc: Acc,
    server: Server,
    failures: Vec<Failure>,
    failures_dropped: u64,
    requests_dropped: u64,
    notes: Vec<String>,
    infos: Vec<FileInfo>,
    gen_info: Option<GenerateInfo>,
    responses: Option<u64>,
    smi_log: Option<SmiLog>,
    smi_path: String,
    /// Weights placed on a GPU device, and on the CPU (the first of each process).
    weights_gpu: Vec<(String, Locator, log::Origin)>,
    weights_cpu: Vec<(String, Locator, log::Origin)>,
    /// The server versions and variables read, with the process that printed them.
    versions: Vec<(Option<u32>, String)>,
    env: Vec<(Option<u32>, String, String)>,
    /// The pid of the last journal line read.
    last_pid: Option<u32>,
}

impl RunReader {
    fn new() -> Self {
        RunReader {
            acc: Acc {
                signals: Vec::new(),
                seen: std::collections::HashSet::new(),
                origin: log::Origin::default(),
            },
            server: Server::default(),
            failures: Vec::new(),
            failures_dropped: 0,
            requests_dropped: 0,
            notes: Vec::new(),
            infos: Vec::new(),
            gen_info: None,
            responses: None,
            smi_log: None,
            smi_path: String::new(),
            weights_gpu: Vec::new(),
            weights_cpu: Vec::new(),
            versions: Vec::new(),
            env: Vec::new(),
            last_pid: None,
        }
    }

    fn file(&mut self, src: Source<'_>) -> Result<(), ReadError> {
        let path = src.name();
        let mut first = FirstPass::new();
        let bytes = src.lines(&mut |l| first.line(l))?;
        let kind = first.kind();
        self.infos.push(FileInfo {
            path: path.clone(),
            kind,
            bytes,
        });
        if first.long_count > 0 {
            self.notes.push(format!(
                "{path}: {} line(s) longer than {} MiB cut (line {}{})",
                first.long_count,
                input::MAX_LINE >> 20,
                first
                    .long_lines
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                if first.long_count > first.long_lines.len() as u64 {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        match kind {
            FileKind::Empty => self
                .notes
                .push(format!("{path}: empty (0 bytes as recorded)")),
            FileKind::Generate => self.generate(&path, first.generate.finish(None)),
            FileKind::Smi => self.smi(&path, first.smi.finish()),
            FileKind::Log => {
                src.lines(&mut |l| {
                    if let Some(ev) = log::parse(l.text) {
                        self.acc.origin = log::origin(l.text);
                        self.last_pid = self.acc.origin.pid.or(self.last_pid);
                        if let Some(p) = self.acc.origin.pid {
                            if let Err(i) = self.server.processes.binary_search(&p) {
                                if self.server.processes.len() < MAX_DEVICES {
                                    self.server.processes.insert(i, p);
                                }
                            }
                        }
                        self.event(&path, l.no, ev);
                    }
                })?;
                self.acc.origin = log::Origin::default();
            }
        }
        Ok(())
    }

    fn failure(&mut self, kind: crate::log::FailureKind, detail: String, at: Locator) {
        if self.failures.len() >= MAX_FAILURES {
            self.failures_dropped += 1;
            return;
        }
        self.failures.push(Failure {
            kind,
            detail,
            evidence: Evidence::new(
                Class::Confirmed,
                Proof::RuntimeVerified,
                format!("ollama.failure.{kind}"),
            )
            .at(at),
        });
    }

    fn generate(&mut self, path: &str, doc: Document) {
        match doc {
            Document::Single(r, line) => self.response(path, r, line, None),
            Document::Stream(s, Some((r, line))) => self.response(path, r, line, Some(s)),
            Document::Stream(s, None) => {
                self.notes
                    .push(format!("{path}: a stream without its final done object"));
                self.gen_info = Some(GenerateInfo {
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
            Document::Many { count, .. } => {
                self.responses = Some(count);
                self.notes.push(format!(
                    "{path}: {count} responses in one file; compare them with `rocpath lanes summarize`"
                ));
            }
            Document::NotJson(e) => self.notes.push(format!("{path}: not JSON ({e})")),
            Document::Empty => self.notes.push(format!("{path}: empty")),
        }
    }

    fn response(&mut self, path: &str, r: Response, line: u64, stream: Option<Stream>) {
        if let Some(e) = &r.error {
            self.failure(
                crate::log::FailureKind::ErrorResponse,
                e.clone(),
                at(path, line),
            );
        }
        let rates = r.rates();
        self.gen_info = Some(GenerateInfo {
            evidence: Evidence::new(
                Class::Confirmed,
                Proof::RuntimeVerified,
                "ollama.generate.response",
            )
            .at(at(path, line))
            .because(
                "eval_rate = eval_count / eval_duration; e2e_rate = eval_count / total_duration",
            ),
            response: r,
            rates,
            stream,
        });
    }

    fn smi(&mut self, path: &str, s: SmiLog) {
        for g in &s.gpus {
            if let (Some(u), Some(l)) = (g.max_use_pct, g.max_use_line) {
                if u > 0.0 {
                    self.acc.push(
                        Side::Gpu,
                        SignalKind::SmiUse,
                        format!("GPU[{}] {u}%", g.gpu),
                        at(path, l),
                    );
                }
            }
        }
        if s.command_not_found > 0 {
            self.notes.push(format!(
                "{path}: rocm-smi was not found {} time(s) while sampling",
                s.command_not_found
            ));
        }
        self.smi_path = path.to_string();
        self.smi_log = Some(s);
    }

    fn event(&mut self, path: &str, line: u64, ev: Event) {
        let here = at(path, line);
        match ev {
            Event::InferenceCompute {
                library,
                compute,
                description,
                total,
            } => self.inference_compute(here, library, compute, description, total),
            Event::LoadRequest {
                gpu_layers,
                num_threads,
                batch_size,
                kv_size,
                flash_attention,
            } => {
                if gpu_layers > 0 {
                    self.acc.push(
                        Side::Gpu,
                        SignalKind::GpuLayers,
                        gpu_layers.to_string(),
                        here,
                    );
                } else {
                    self.acc
                        .push(Side::Cpu, SignalKind::GpuLayers, "[]".into(), here);
                }
                let sv = &mut self.server;
                sv.gpu_layers = Some(gpu_layers);
                sv.num_threads = num_threads.or(sv.num_threads);
                sv.batch_size = batch_size.or(sv.batch_size);
                sv.kv_size = kv_size.or(sv.kv_size);
                sv.flash_attention = flash_attention.or(sv.flash_attention.take());
            }
            Event::Offloaded { layers, of } => {
                let v = format!("{layers}/{of}");
                if layers > 0 {
                    self.acc
                        .push(Side::Gpu, SignalKind::Offloaded, v.clone(), here.clone());
                }
                if layers < of {
                    // None, or only part of the layers: the rest run on the CPU.
                    self.acc.push(Side::Cpu, SignalKind::Offloaded, v, here);
                }
                self.server.offloaded = Some([layers, of]);
            }
            Event::Placement { what, device } => {
                if what == "model weights" {
                    self.weights(device, here);
                }
            }
            Event::ModelBuffer { device } => {
                // `CPU_Mapped`/`ROCm_Host` buffers are host staging, not placement.
                if device == "CPU" || !device.starts_with("CPU") && !device.ends_with("_Host") {
                    self.weights(device, here);
                }
            }
            Event::UsingDevice(d) => self.acc.push(Side::Gpu, SignalKind::UsingDevice, d, here),
            Event::LibraryMention(lib) => {
                self.acc
                    .push(Side::Gpu, SignalKind::LibraryMention, lib, here)
            }
            other => self.server_event(path, here, other),
        }
    }

    fn inference_compute(
        &mut self,
        here: Locator,
        library: String,
        compute: String,
        description: String,
        total: String,
    ) {
        let cpu = library.eq_ignore_ascii_case("cpu");
        if cpu {
            self.acc.push(
                Side::Cpu,
                SignalKind::InferenceCompute,
                library.clone(),
                here,
            );
        } else {
            self.acc.push(
                Side::Gpu,
                SignalKind::InferenceCompute,
                format!("{library} {compute}"),
                here,
            );
        }
        let sv = &mut self.server;
        if sv.library.is_none() || !cpu {
            sv.library = Some(library);
        }
        if !compute.is_empty() && sv.compute.is_none() {
            sv.compute = Some(compute);
        }
        if !description.is_empty() && sv.description.is_none() {
            sv.description = Some(description);
        }
        if !total.is_empty() && sv.total_memory.is_none() {
            sv.total_memory = Some(total);
        }
    }

    fn weights(&mut self, device: String, here: Locator) {
        let o = self.acc.origin.clone();
        let slot = if device.eq_ignore_ascii_case("cpu") {
            &mut self.weights_cpu
        } else {
            &mut self.weights_gpu
        };
        if !slot.iter().any(|(_, _, x)| x.pid == o.pid) {
            slot.push((device, here, o));
        }
    }

    fn server_event(&mut self, path: &str, here: Locator, ev: Event) {
        match ev {
            Event::Backend { kind, path: p } => {
                let b = format!("{kind}: {p}");
                let backends = &mut self.server.backends;
                if !backends.contains(&b) && backends.len() < MAX_DEVICES {
                    backends.push(b);
                }
            }
            Event::Version(v) => self.versions.push((self.acc.origin.pid, v)),
            Event::Env(pairs) => {
                let pid = self.acc.origin.pid;
                self.env.extend(pairs.into_iter().map(|(k, v)| (pid, k, v)));
            }
            Event::Device(d)
                if !self.server.devices.contains(&d) && self.server.devices.len() < MAX_DEVICES =>
            {
                self.server.devices.push(d);
            }
            Event::Failure { kind, detail } => {
                let dup = self.failures.iter().any(|f| {
                    f.kind == kind && f.evidence.sources.first().is_some_and(|s| s.path == *path)
                });
                if !dup {
                    self.failure(kind, detail, here);
                }
            }
            Event::Request {
                status,
                path: p,
                latency,
            } => {
                if self.server.requests.len() < MAX_REQUESTS {
                    self.server.requests.push(format!("{p} {status} {latency}"));
                } else {
                    self.requests_dropped += 1;
                }
                if status >= 400 {
                    self.failure(
                        crate::log::FailureKind::HttpError,
                        format!("{p} answered {status}"),
                        here,
                    );
                }
            }
            _ => {}
        }
    }

    fn finish(mut self, run: &str) -> RunReport {
        // Weights on a GPU device speak for the GPU; weights on the CPU speak for the CPU only
        // when the same process put no weights on a GPU (the token embeddings of a fully
        // offloaded model stay on the CPU).
        for (d, l, o) in std::mem::take(&mut self.weights_gpu) {
            self.acc.push_from(
                Side::Gpu,
                SignalKind::Placement,
                format!("weights on {d}"),
                l,
                o,
            );
        }
        for (d, l, o) in std::mem::take(&mut self.weights_cpu) {
            let gpu_too =
                self.acc.signals.iter().any(|s| {
                    s.what == SignalKind::Placement && s.side == Side::Gpu && s.pid == o.pid
                });
            if !gpu_too {
                self.acc.push_from(
                    Side::Cpu,
                    SignalKind::Placement,
                    format!("weights on {d}"),
                    l,
                    o,
                );
            }
        }
        self.tie_to_loader();
        let (verdict, evidence) = self.verdict();
        if let Some(s) = &self.smi_log {
            if !s.has_values() && s.command_not_found > 0 {
                self.notes
                    .push(format!("{}: no sample could be taken", self.smi_path));
            }
        }
        if self.requests_dropped > 0 {
            self.notes.push(format!(
                "{} more request line(s) not listed",
                self.requests_dropped
            ));
        }
        if self.failures_dropped > 0 {
            self.notes.push(format!(
                "{} more failure line(s) not listed",
                self.failures_dropped
            ));
        }
        RunReport {
            run: run.to_string(),
            files: self.infos,
            verdict: Verdict {
                verdict,
                signals: self.acc.signals,
                evidence,
            },
            generate: self.gen_info,
            responses: self.responses,
            server: self.server,
            smi: self.smi_log,
            failures: self.failures,
            notes: self.notes,
        }
    }

    /// Ties the run to the server process that loaded the model: lines of other processes (an
    /// earlier server, another pid) are not counted, and the server's version and variables are
    /// that process's. Without a loading process, those of the last process read.
    fn tie_to_loader(&mut self) {
        let loaders = self.acc.loaders();
        for s in &mut self.acc.signals {
            if let Some(p) = s.pid {
                s.counted = loaders.is_empty() || loaders.contains(&p);
            }
        }
        let run_pid = match loaders.len() {
            1 => loaders.iter().next().copied(),
            0 => self.last_pid,
            _ => None,
        };
        let ours = |p: &Option<u32>| p.is_none() || run_pid.is_none() || *p == run_pid;
        if loaders.len() == 1 {
            self.server.pid = run_pid;
            self.server.load_time = self
                .acc
                .signals
                .iter()
                .filter(|s| LOAD_SIGNALS.contains(&s.what) && s.pid == run_pid)
                .filter_map(|s| s.time.clone())
                .min();
        }
        self.server.version = self
            .versions
            .iter()
            .filter(|(p, _)| ours(p))
            .map(|(_, v)| v.clone())
            .next_back();
        for (p, k, v) in &self.env {
            if ours(p) {
                self.server.env.insert(k.clone(), v.clone());
            }
        }
    }

    /// The request failed before any model ran: an error response or a 4xx/5xx on a generate.
    fn request_failed(&self) -> Option<&str> {
        self.failures
            .iter()
            .find(|f| f.kind == crate::log::FailureKind::ErrorResponse)
            .or_else(|| {
                self.failures.iter().find(|f| {
                    f.kind == crate::log::FailureKind::HttpError
                        && f.detail.contains("/api/generate")
                })
            })
            .map(|f| f.detail.as_str())
    }

    fn verdict(&self) -> (VerdictKind, Evidence) {
        let all = &self.acc.signals;
        let signals: Vec<&Signal> = all.iter().filter(|s| s.counted).collect();
        let load = signals.iter().any(|s| LOAD_SIGNALS.contains(&s.what));
        let gpu = signals.iter().any(|s| s.side == Side::Gpu);
        let cpu = signals.iter().any(|s| s.side == Side::Cpu);
        let smi = signals.iter().any(|s| s.what == SignalKind::SmiUse);
        let failed = self.request_failed();
        let ev = |class, rule: &str, why: &str| {
            Evidence::new(class, Proof::RuntimeVerified, rule.to_string()).because(why)
        };
        let (verdict, mut evidence) = if !load && (failed.is_some() || !smi) && (gpu || cpu) {
            (VerdictKind::Unsure, self.no_load(failed))
        } else if !load && smi {
            let why = "no model load in these lines; only rocm-smi saw the GPU busy during the run (not necessarily with this run)";
            (
                VerdictKind::Gpu,
                ev(Class::Inferred, "ollama.verdict.gpu_by_smi", why),
            )
        } else {
            match (gpu, cpu) {
                (true, false) => {
                    let why = "the model load places the model on a GPU device";
                    (
                        VerdictKind::Gpu,
                        ev(Class::Confirmed, "ollama.verdict.gpu", why),
                    )
                }
                (false, true) => {
                    let why = "the model load places the model on the CPU and nothing names a GPU";
                    (
                        VerdictKind::Cpu,
                        ev(Class::Confirmed, "ollama.verdict.cpu", why),
                    )
                }
                (true, true) => {
                    let why = if self.acc.loaders().len() > 1 {
                        "lines speak for both GPU and CPU: several server processes loaded a model in these lines"
                    } else {
                        "lines of the process that loaded the model speak for both GPU and CPU: a partial offload"
                    };
                    (
                        VerdictKind::Mixed,
                        ev(Class::Inferred, "ollama.verdict.mixed", why),
                    )
                }
                (false, false) => (VerdictKind::Unsure, self.unsure()),
            }
        };
        evidence.sources = signals.iter().map(|s| s.at.clone()).collect();
        let mut others: Vec<u32> = all
            .iter()
            .filter(|s| !s.counted)
            .filter_map(|s| s.pid)
            .collect();
        others.sort_unstable();
        others.dedup();
        if let (false, Some(p)) = (others.is_empty(), self.server.pid) {
            let list: Vec<String> = others.iter().map(u32::to_string).collect();
            evidence.note.push_str(&format!(
                "; lines of other server processes (pid {}) are not counted: the model was loaded by pid {p}",
                list.join(", ")
            ));
        }
        if verdict == VerdictKind::Unsure {
            for f in &self.failures {
                evidence.sources.extend(f.evidence.sources.iter().cloned());
            }
        }
        if evidence.sources.is_empty() {
            for f in &self.infos {
                evidence = evidence.at(Locator::file(&f.path));
            }
        }
        (verdict, evidence)
    }

    /// Server lines name devices, but no model load says where a model ran.
    fn no_load(&self, failed: Option<&str>) -> Evidence {
        let mut why = String::from(
            "no model load in these lines (no load request, offload count or weight placement), so where a model ran cannot be told",
        );
        let cpu_only = self
            .server
            .library
            .as_deref()
            .is_some_and(|l| l.eq_ignore_ascii_case("cpu"));
        if cpu_only {
            why.push_str(
                "; the server found only the CPU to run on (`inference compute … library=cpu`)",
            );
        } else if let Some(l) = &self.server.library {
            why.push_str(&format!(
                "; the server's `inference compute … library={l}` line says which device it can use, not where a model ran"
            ));
        }
        if let Some(e) = failed {
            why.push_str(&format!(
                "; the request failed ({e}), so no model ran for it"
            ));
        }
        if let Some(s) = &self.smi_log {
            if s.has_values()
                && !self
                    .acc
                    .signals
                    .iter()
                    .any(|x| x.what == SignalKind::SmiUse)
            {
                why.push_str(&format!(
                    "; rocm-smi saw no GPU use in {} sample(s)",
                    s.samples
                ));
            }
        }
        Evidence::new(
            Class::Unresolved,
            Proof::RuntimeVerified,
            "ollama.verdict.no_load",
        )
        .because(why)
    }

    fn unsure(&self) -> Evidence {
        let mut why = String::from("no line names a device and rocm-smi saw no GPU use");
        if let (Some(g), Some(s)) = (&self.gen_info, &self.smi_log) {
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
}

/// Reads one run from its files' contents (`(path, text)`): the same path as [`read_paths`],
/// for tests and fuzzing.
pub fn read_run(run: &str, files: &[(String, String)]) -> RunReport {
    let mut r = RunReader::new();
    for (path, text) in files {
        // In-memory texts cannot fail to read.
        let _ = r.file(Source::Text(path, text));
    }
    r.finish(run)
}

/// Reads one run from sources; a file that cannot be read is an error for that file and the
/// run goes on with the others.
pub fn read_sources(run: &str, files: &[Source<'_>]) -> (RunReport, Vec<ReadError>) {
    let mut r = RunReader::new();
    let mut errors = Vec::new();
    for f in files {
        if let Err(e) = r.file(*f) {
            errors.push(e);
        }
    }
    (r.finish(run), errors)
}

/// Reads runs from paths (see [`group`]), each file streamed with bounded memory. Files that
/// cannot be read (missing, not a regular file) are errors; a run none of whose files could be
/// read has no report.
pub fn read_paths(
    paths: &[PathBuf],
    single: bool,
) -> (Vec<RunReport>, Vec<String>, Vec<ReadError>) {
    let (runs, notes) = group(paths, single);
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for (key, files) in runs {
        let sources: Vec<Source<'_>> = files.iter().map(|f| Source::Path(f)).collect();
        let (report, errs) = read_sources(&key, &sources);
        if errs.len() < files.len() {
            reports.push(report);
        }
        errors.extend(errs);
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
    fn start_up_lines_alone_place_nothing() {
        // Before the fix, the `inference compute … library=ROCm` line alone made this
        // `GPU [confirmed]`.
        let log = "time=2026-03-20T20:04:43.608+09:00 level=INFO source=types.go:42 msg=\"inference compute\" id=GPU-0 library=ROCm compute=gfx900 name=ROCm0 description=\"Radeon Instinct MI25\" total=\"16.0 GiB\"\n\
[GIN] 2026/03/20 - 20:04:44 | 404 |     978.616µs |       127.0.0.1 | POST     \"/api/generate\"\n";
        let r = read_run("a", &[("j.log".into(), log.into())]);
        assert_eq!(r.verdict.verdict, VerdictKind::Unsure);
        assert_eq!(r.verdict.evidence.class, Class::Unresolved);
        assert_eq!(r.verdict.evidence.rule, "ollama.verdict.no_load");
        assert!(
            r.verdict
                .evidence
                .note
                .contains("/api/generate answered 404")
        );
        assert_eq!(r.verdict.evidence.sources[0].line, Some(1));
        // The same start-up with a load that offloads every layer is a GPU run.
        let loaded = format!("{log}load_tensors: offloaded 23/23 layers to GPU\n");
        let r = read_run("b", &[("j.log".into(), loaded)]);
        assert_eq!(r.verdict.verdict, VerdictKind::Gpu);
        assert_eq!(r.verdict.evidence.class, Class::Confirmed);
        // A CPU-only device list without a load is no CPU verdict either.
        let cpu = "msg=\"inference compute\" id=cpu library=cpu compute=\"\" name=cpu\n";
        let r = read_run("c", &[("j.log".into(), cpu.into())]);
        assert_eq!(r.verdict.verdict, VerdictKind::Unsure);
        assert!(r.verdict.evidence.note.contains("only the CPU"));
    }

    #[test]
    fn non_regular_files_are_refused_or_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x_journal_1.log");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        std::fs::write(dir.path().join("x_generate_1.json"), "{\"error\":\"e\"}").unwrap();
        // In a folder: skipped with a note, the rest read.
        let (reports, notes, errors) = read_paths(&[dir.path().to_path_buf()], false);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(reports.len(), 1);
        assert!(
            notes.iter().any(|n| n.contains("x_journal_1.log: a FIFO")),
            "{notes:?}"
        );
        // Named directly: an error for that file, before it is opened (no hang).
        let (reports, _, errors) = read_paths(&[fifo.clone(), "/dev/zero".into()], true);
        assert!(reports.is_empty());
        let msgs: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("not a regular file (a FIFO)"), "{msgs:?}");
        assert!(msgs[1].starts_with("/dev/zero: not a regular file (a character device)"));
    }

    #[test]
    fn a_long_line_is_cut_and_noted() {
        let mut text = String::from("{\"done\":true,\"eval_count\":2,\"eval_duration\":1}\n");
        text.push_str(&"x".repeat(crate::input::MAX_LINE + 1));
        text.push('\n');
        let r = read_run("a", &[("g.json".into(), text)]);
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("1 line(s) longer than 8 MiB cut (line 2)")),
            "{:?}",
            r.notes
        );
        assert_eq!(r.generate.unwrap().response.eval_count, Some(2));
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
