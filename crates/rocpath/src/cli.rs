//! Command-line interface definitions (clap). Only syntax lives here; commands are in `cmd/`.

use clap::{Args, Parser, Subcommand};
use rocpath_arch::TargetId;
use rocpath_evidence::{Class, Proof};
use rocpath_ledger::model::{Floor, Layer, SelectionKind};
use std::path::PathBuf;

/// Which execution path did the ROCm stack take on my AMD GPU, and why?
///
/// rocpath reads what the stack leaves behind (code objects, logs, traces, source) and
/// records each finding as evidence with a class (confirmed / inferred / unresolved /
/// limited) and a kind of proof.
///
/// Exit status: 0 = done, the answer is positive; 1 = done, the answer is negative (no code
/// for the target, differences found); 2 = an error (bad usage, or an input that could not be
/// read — the rest of the work was still done and reported).
#[derive(Debug, Parser)]
#[command(
    name = "rocpath",
    version,
    propagate_version = true,
    max_term_width = 110
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command accepts.
#[derive(Debug, Args, Clone)]
pub struct Global {
    /// Print one JSON document on stdout (for machines).
    #[arg(long, global = true)]
    pub json: bool,
    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// Print less: no progress bar, no summary lines on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more detail on stderr (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Never draw a progress bar.
    #[arg(long, global = true)]
    pub no_progress: bool,
    /// Memory budget of the run, shared by everything read in parallel (decompressed
    /// payloads, buffered archive members, streamed objects): `512M`, `2G`. An item that does
    /// not fit is reported as an error for that item and the rest goes on.
    #[arg(long, global = true, value_name = "SIZE", default_value = "1G", value_parser = rocpath_sources::parse_limit)]
    pub max_memory: u64,
    /// Deadline of the run: `90s`, `15m`, `2h`. Items not started by then (files of a scan,
    /// traces, source files) are skipped and named; the command ends with what was done. A
    /// command still running a grace period later (a tenth, 5–60 s) is stopped (exit 2).
    #[arg(long, global = true, value_name = "DURATION", value_parser = rocpath_budget::deadline::parse_duration)]
    pub max_time: Option<std::time::Duration>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// First look at a machine: its AMD GPUs, override variables, ROCm installs, and for
    /// each device × install whether it runs and what will fall back.
    Survey(SurveyArgs),
    /// Many machines: merge `rocpath --json survey` documents of several nodes into one drift
    /// report (distribution, kernel, driver, GPUs, ROCm, variables, installs, outcomes).
    Fleet(FleetArgs),
    /// Which shared libraries the dynamic loader resolves for a program or library, from
    /// where and by which rule (RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, default
    /// folders), the names it does not find, and where each ROCm library reads its data.
    Loads(LoadsArgs),
    /// Show the AMD GPU architecture table (gfx targets, families, ISA features).
    Arch(ArchArgs),
    /// List every AMDGPU code object, Tensile library and MIOpen database under PATHs.
    Inventory(InventoryArgs),
    /// Will this install run on that GPU? Check every library against a device target id.
    Check(CheckArgs),
    /// What gfx targets and kernels appeared or disappeared between two installs.
    Diff(DiffArgs),
    /// Kernel traces from rocprofv3 (CSV, JSON, rocpd): dispatches per kernel and family.
    Trace(TraceArgs),
    /// Ollama / llama.cpp runs: GPU or CPU, token rates, devices, failures.
    Ollama(OllamaArgs),
    /// strace openat splits: which libraries and Tensile catalog files were read, and the link.
    Strace(StraceArgs),
    /// A/B lanes: compare runs with statistics, or run interleaved lanes for real.
    Lanes(LanesArgs),
    /// Instruction census: which kernels use MFMA, WMMA, dot4, packed math or plain FMA.
    Isa(IsaArgs),
    /// Keep findings in an evidence ledger: import JSON results, add claims, check them.
    Ledger(LedgerArgs),
    /// Build (or preview on 127.0.0.1) the bilingual evidence site of a ledger.
    Site(SiteArgs),
    /// Runtime cases: run with logging and keep everything, read logs into a path report, table.
    Case(CaseArgs),
    /// Explain and predict: which solver or kernel path should this GPU take, and why.
    Explain(ExplainArgs),
    /// Source gates: where the libraries decide by GPU generation (Build / Selection /
    /// Fallback), with provenance (--blame) and release-tag timelines (--timeline).
    Gates(GatesArgs),
    /// Who put a line there: introducing and last-touching commits, PR, issues, roles.
    Provenance(ProvenanceArgs),
    /// Follow a value through source code (Go, C, C++, Python) from an option, a field, a
    /// flag or an environment variable to the code that finally uses it.
    Follow(FollowArgs),
    /// One-command study: read a declared set of recordings, import, derive, check, build the site.
    Study(StudyArgs),
    /// Print a shell completion script (`source <(rocpath completions bash)`).
    Completions(CompletionsArgs),
    /// Write rocpath's man pages (one per command) to a folder, or the main page to stdout.
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct SurveyArgs {
    /// Survey a saved image of a machine under DIR instead of this machine (its own
    /// /sys/class/kfd, /etc, /opt, /usr, /home); this process's environment is then not read.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Read the devices' runtime view from a saved `rocminfo` output (default on this machine:
    /// run `rocminfo` when it is on PATH, without the override variables).
    #[arg(long, value_name = "FILE")]
    pub rocminfo: Option<PathBuf>,
    /// Do not run `rocminfo`.
    #[arg(long, conflicts_with = "rocminfo")]
    pub no_rocminfo: bool,
    /// More places to survey (folders or files, paths in the machine; repeatable or
    /// comma-separated): a Python environment, a build folder, an unpacked package.
    #[arg(long, value_name = "PATH", value_delimiter = ',')]
    pub paths: Vec<PathBuf>,
    /// Survey only the --paths, none of the standard places.
    #[arg(long, requires = "paths")]
    pub only: bool,
    /// Home folders to look for venvs, conda, llama.cpp builds and MIOpen caches in
    /// (default: /root and every folder in /home).
    #[arg(long, value_name = "DIR")]
    pub home: Vec<PathBuf>,
    /// How many folder levels a walk goes below where it starts.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_depth: usize,
    /// Stop looking after this long (`30s`, `2m`); what was not scanned is named.
    #[arg(long, value_name = "DURATION", value_parser = rocpath_budget::deadline::parse_duration)]
    pub max_time: Option<std::time::Duration>,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Survey documents (`rocpath --json survey` of each node), or folders holding them
    /// (`*.json`, searched 8 levels deep).
    #[arg(required = true, value_name = "SURVEY.json|DIR")]
    pub surveys: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct LoadsArgs {
    /// The ELF program or shared library, or a Python module (`torch`: every extension module
    /// in it, found as --python finds it) when no file has that name.
    #[arg(required_unless_present = "pid", conflicts_with = "pid")]
    pub target: Option<PathBuf>,
    /// The interpreter a Python module is looked up with (default: the first `python3` on
    /// PATH).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// A running process: the libraries it has mapped (`/proc/PID/maps`) and the ROCm data
    /// files it holds open, beside what the loader rules predict for its program in the
    /// environment it started with.
    #[arg(long, value_name = "PID", conflicts_with_all = ["root", "env", "no_env"])]
    pub pid: Option<u32>,
    /// An environment variable as the program would see it (`LD_LIBRARY_PATH=/opt/x/lib`,
    /// `ROCBLAS_TENSILE_LIBPATH=…`); repeatable; replaces the shell's value.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// Do not read the shell's environment (only --env).
    #[arg(long)]
    pub no_env: bool,
    /// The loader's cache (a path in the machine).
    #[arg(long, value_name = "FILE", default_value = "/etc/ld.so.cache")]
    pub cache: PathBuf,
    /// Resolve in a saved image of a machine under DIR (as `survey --root`): the program,
    /// the cache and every folder are paths in the machine, absolute links resolve inside
    /// it; this process's environment is then not read.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write rocpath.1 and one rocpath-<command>.1 per command into DIR (created).
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ArchArgs {
    /// A processor (`gfx900`), a target id (`gfx90a:xnack+`) for one row in detail, or a
    /// prefix (`gfx11`) to filter the table.
    pub name: Option<String>,
}

/// Options shared by the commands that scan files.
#[derive(Debug, Args, Clone)]
pub struct ScanArgs {
    /// Largest decompressed CCOB payload accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 30)]
    pub max_decompressed: u64,
    /// Archive members up to this size are buffered; larger ones are scanned as a stream.
    #[arg(long, value_name = "BYTES", default_value_t = 32 << 20)]
    pub max_member_buffer: u64,
    /// Hash every code object (sha256). Hashes are kept in the hash cache
    /// (`$XDG_CACHE_HOME/rocpath/hashes-v1.tsv`) by device, inode, size and modification time
    /// of the file; `sha256_source` says whether each was computed or cached.
    #[arg(long)]
    pub hash: bool,
    /// With --hash: compute every hash, neither reading nor writing the hash cache.
    #[arg(long, requires = "hash")]
    pub no_hash_cache: bool,
}

#[derive(Debug, Args)]
pub struct InventoryArgs {
    /// Files or directories: libraries, code objects, bundles, Tensile folders, .deb/.whl/.tar.
    #[arg(required_unless_present = "python", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Also read the site-packages folders of this Python interpreter (torch, jax's ROCm
    /// plugins, onnxruntime, ROCm SDK wheels).
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// Keep only this gfx target (`gfx900`) or exact target id (`gfx90a:xnack+`).
    #[arg(long, value_name = "TARGET")]
    pub target: Option<TargetId>,
    /// Print TSV (one row per code object) instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
    /// With --tsv: one row per kernel, with its metadata.
    #[arg(long, requires = "tsv")]
    pub kernels: bool,
    /// Leave per-kernel metadata out of the JSON (counts stay).
    #[arg(long)]
    pub no_kernels: bool,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Device target id (`gfx900:xnack-`, `gfx1201`). Without it, the GPUs of this machine
    /// are read from the KFD topology in sysfs or from `rocminfo`.
    #[arg(long, value_name = "TARGET-ID")]
    pub target: Option<TargetId>,
    /// Read the devices from a saved `rocminfo` output instead.
    #[arg(long, value_name = "FILE", conflicts_with = "target")]
    pub rocminfo: Option<PathBuf>,
    /// Also evaluate an HSA_OVERRIDE_GFX_VERSION value (default: the environment's
    /// HSA_OVERRIDE_GFX_VERSION, or HSA_OVERRIDE_GFX_VERSION_<device index>).
    #[arg(long = "override", value_name = "X.Y.Z")]
    pub override_version: Option<String>,
    /// Print TSV instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
    /// Files or directories to check.
    #[arg(required_unless_present = "python", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Also check the site-packages folders of this Python interpreter.
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old install: a folder, a file, or a saved `rocpath inventory --json` document.
    pub old: PathBuf,
    /// The new install, likewise.
    pub new: PathBuf,
    /// Print TSV instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub struct IsaArgs {
    /// Files or directories: code objects, bundles, libraries, Tensile folders, packages.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Keep only this gfx target (`gfx900`) or exact target id (`gfx90a:xnack+`).
    #[arg(long, value_name = "TARGET")]
    pub target: Option<TargetId>,
    /// Keep only kernels whose name contains NAME (exact match with --exact).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Match --kernel exactly.
    #[arg(long, requires = "kernel")]
    pub exact: bool,
    /// One row per kernel instead of per code object.
    #[arg(long)]
    pub kernels: bool,
    /// Print the full mnemonic histogram per target.
    #[arg(long)]
    pub mnemonics: bool,
    /// Print the instruction stream of the --kernel kernels.
    #[arg(long, requires = "kernel")]
    pub disasm: bool,
    /// Which kernels of which targets contain these mnemonics (comma-separated; `v_mfma`
    /// matches every `v_mfma_*`).
    #[arg(long, value_name = "MNEMONICS", value_delimiter = ',')]
    pub find: Vec<String>,
    /// Print TSV (one row per code object and kernel) instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
    #[command(flatten)]
    pub scan: ScanArgs,
}

#[derive(Debug, Args)]
pub struct LedgerArgs {
    #[command(subcommand)]
    pub command: LedgerCommand,
}

#[derive(Debug, Subcommand)]
pub enum LedgerCommand {
    /// Create a ledger folder (ledger.toml, claims/, questions/, cases/, observations/).
    Init(LedgerInitArgs),
    /// Import the --json output of rocpath commands as observations (hashing their raw inputs).
    Import(LedgerImportArgs),
    /// Record a claim: statement (ja/en), class, kind of proof, world, floor, layer, support.
    AddClaim(Box<AddClaimArgs>),
    /// Change a claim's class or kind of proof (dated, with the reason, in its history).
    SetClass(SetClassArgs),
    /// Check the ledger: classes, supports, links, stale evidence, forced runs.
    Check(LedgerCheckArgs),
    /// Derive claims from the observations (counts, exceptions, classes); deriving again
    /// updates them and keeps what a person edited.
    Derive(LedgerDeriveArgs),
    /// List the claims (id, statement, class, kind, world, derived_by, support).
    Claims(LedgerClaimsArgs),
}

#[derive(Debug, Args)]
pub struct LedgerDeriveArgs {
    /// The ledger folder.
    pub ledger: PathBuf,
    /// Date of the history entries written (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_name = "DATE")]
    pub date: Option<String>,
}

#[derive(Debug, Args)]
pub struct LedgerClaimsArgs {
    /// The ledger folder.
    pub ledger: PathBuf,
    /// Only the claims of this world (`gfx900`, or a generation such as `gfx9`, `GCN5`).
    #[arg(long, value_name = "WORLD")]
    pub world: Option<String>,
    /// Only the claims derivation wrote.
    #[arg(long)]
    pub derived: bool,
}

#[derive(Debug, Args)]
pub struct LedgerInitArgs {
    /// The ledger folder (created if needed).
    pub ledger: PathBuf,
    /// Title in English.
    #[arg(long, value_name = "TEXT")]
    pub title_en: Option<String>,
    /// Title in Japanese.
    #[arg(long, value_name = "TEXT")]
    pub title_ja: Option<String>,
}

#[derive(Debug, Args)]
pub struct LedgerImportArgs {
    /// The ledger folder.
    pub ledger: PathBuf,
    /// JSON documents printed by `rocpath --json <command>`.
    #[arg(required = true, value_name = "FILE.json")]
    pub files: Vec<PathBuf>,
    /// Give the observation this id (one file only); importing again under the same id
    /// replaces it, so claims that cite it follow the newest run.
    #[arg(long = "as", value_name = "ID")]
    pub name: Option<String>,
    /// The world the recordings were made in (`gfx900`), for documents that do not name
    /// their device (Ollama runs, strace splits, lanes).
    #[arg(long, value_name = "WORLD")]
    pub world: Option<String>,
    /// Derive the ledger's claims after importing (as `rocpath ledger derive`).
    #[arg(long)]
    pub derive: bool,
    /// A folder whose files the documents may cite (hashed, quoted), besides the current
    /// folder, the ledger and its data root; repeatable. A cited file elsewhere is recorded
    /// with a note, never read.
    #[arg(long = "allow-root", value_name = "DIR")]
    pub allow_roots: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SetClassArgs {
    /// The ledger folder.
    pub ledger: PathBuf,
    /// Claim id.
    pub id: String,
    /// New evidence class.
    #[arg(long, value_enum)]
    pub class: Option<Class>,
    /// New kind of proof.
    #[arg(long, value_enum)]
    pub kind: Option<Proof>,
    /// Why, in English.
    #[arg(long, value_name = "TEXT")]
    pub en: Option<String>,
    /// Why, in Japanese.
    #[arg(long, value_name = "TEXT")]
    pub ja: Option<String>,
    /// Support to add (repeatable; the forms of `add-claim --support`).
    #[arg(long, value_name = "REF")]
    pub support: Vec<String>,
    /// Date of the change (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_name = "DATE")]
    pub date: Option<String>,
}

#[derive(Debug, Args)]
pub struct AddClaimArgs {
    /// The ledger folder.
    pub ledger: PathBuf,
    /// Claim id (letters, digits, '.', '_', '-'); the file is claims/<ID>.toml.
    #[arg(long, value_name = "ID")]
    pub id: String,
    /// Evidence class.
    #[arg(long, value_enum)]
    pub class: Class,
    /// Kind of proof.
    #[arg(long, value_enum)]
    pub kind: Proof,
    /// The statement in English.
    #[arg(long, value_name = "TEXT")]
    pub en: Option<String>,
    /// The statement in Japanese.
    #[arg(long, value_name = "TEXT")]
    pub ja: Option<String>,
    /// Observation world: gfx target (gfx900) or generation (RDNA4).
    #[arg(long, value_name = "WORLD")]
    pub world: Option<String>,
    /// Floor of the stack.
    #[arg(long, value_enum)]
    pub floor: Option<Floor>,
    /// Layer.
    #[arg(long, value_enum)]
    pub layer: Option<Layer>,
    /// The kind of selection the claim asserts, if it is about one.
    #[arg(long, value_enum)]
    pub selection: Option<SelectionKind>,
    /// What supports it (repeatable): OBS_ID, OBS_ID#/json/pointer, OBS_ID?field=value&...,
    /// claim:ID, or source:PATH[:LINE][@SHA256] (relative to the ledger folder).
    #[arg(long, value_name = "REF")]
    pub support: Vec<String>,
    /// What would falsify it, in English.
    #[arg(long, value_name = "TEXT")]
    pub falsified_by_en: Option<String>,
    /// What would falsify it, in Japanese.
    #[arg(long, value_name = "TEXT")]
    pub falsified_by_ja: Option<String>,
    /// Date of the first history entry (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_name = "DATE")]
    pub date: Option<String>,
}

#[derive(Debug, Args)]
pub struct LedgerCheckArgs {
    /// The ledger folder.
    pub ledger: PathBuf,
}

#[derive(Debug, Args)]
pub struct SiteArgs {
    #[command(subcommand)]
    pub command: SiteCommand,
}

#[derive(Debug, Subcommand)]
pub enum SiteCommand {
    /// Generate the static site (no external resources; open DIR/index.html).
    Build(SiteBuildArgs),
    /// Serve a built site (or build a ledger's site first) on 127.0.0.1.
    Serve(SiteServeArgs),
}

#[derive(Debug, Args)]
pub struct SiteBuildArgs {
    /// The ledger folder.
    pub ledger: PathBuf,
    /// Output folder (created; a previous rocpath site in it is replaced).
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Copy the raw files the observations quote beside the site (`raw/`), for download.
    #[arg(long)]
    pub copy_raw: bool,
}

#[derive(Debug, Args)]
pub struct SiteServeArgs {
    /// A built site folder, or a ledger folder (its site is built first).
    pub path: PathBuf,
    /// Port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// With a ledger: build the site into this folder (default: a temporary folder).
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// rocprofv3 outputs: `*_kernel_trace.csv`, `*_results.json`, `*_results.db`, or folders.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Split dispatches into prefill/decode at first dispatch + this response's
    /// `prompt_eval_duration` (an Ollama `/api/generate` JSON or stream).
    #[arg(long, value_name = "GENERATE.json", conflicts_with_all = ["prompt_eval_ns", "boundary_ns"])]
    pub generate: Option<PathBuf>,
    /// The same with a given `prompt_eval_duration`, ns.
    #[arg(long, value_name = "NS", conflicts_with = "boundary_ns")]
    pub prompt_eval_ns: Option<u64>,
    /// Split at an absolute timestamp on the trace's clock, ns.
    #[arg(long, value_name = "NS")]
    pub boundary_ns: Option<u64>,
    /// Kernels shown per trace.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
    /// Print TSV (one row per kernel) instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
}

#[derive(Debug, Args)]
pub struct OllamaArgs {
    #[command(subcommand)]
    pub command: OllamaCommand,
}

#[derive(Debug, Subcommand)]
pub enum OllamaCommand {
    /// Read generate responses, streams, server logs, journals and rocm-smi samples into runs.
    Read(OllamaReadArgs),
}

#[derive(Debug, Args)]
pub struct OllamaReadArgs {
    /// Files or folders. Files whose names differ only in the kind word (`generate`, `journal`,
    /// `rocm_smi`, `serve_stdout`, …) are one run.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Treat all inputs as one run.
    #[arg(long)]
    pub single: bool,
}

#[derive(Debug, Args)]
pub struct StraceArgs {
    /// `strace -ff -o PREFIX` split files (`PREFIX.<pid>`), folders of them, or the PREFIX.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// A rocprofv3 kernel trace of the same scenario (for the link view).
    #[arg(long, value_name = "TRACE")]
    pub trace: Vec<PathBuf>,
    /// A `ROCBLAS_LAYER` trace log of the same scenario.
    #[arg(long, value_name = "FILE")]
    pub rocblas_trace: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct LanesArgs {
    #[command(subcommand)]
    pub command: LanesCommand,
}

#[derive(Debug, Subcommand)]
pub enum LanesCommand {
    /// Per-lane statistics and comparisons of lane files (JSONL, one run per record).
    Summarize(LanesSummarizeArgs),
    /// Run lanes interleaved (commands, or an Ollama endpoint), write one JSONL per lane, summarize.
    Run(Box<LanesRunArgs>),
}

#[derive(Debug, Args)]
pub struct LanesSummarizeArgs {
    /// Lane files: `NAME=FILE[,FILE…]` or `FILE` (named by its stem). The first is lane a.
    #[arg(required = true, value_name = "LANE")]
    pub lanes: Vec<String>,
    /// eval_rate, e2e_rate, prefill_rate, ttft_ms, total_s, load_s, wall_s, or field:NAME.
    #[arg(long, value_name = "METRIC", default_value = "eval_rate")]
    pub metric: String,
    /// Bootstrap resamples.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub iterations: usize,
}

#[derive(Debug, Args)]
pub struct LanesRunArgs {
    /// `NAME='VAR=value … CMD ARGS'`, or with --ollama `NAME='model=… num_thread=16 …'`.
    #[arg(long = "lane", required = true, value_name = "NAME=SPEC")]
    pub lanes: Vec<String>,
    /// Measured runs per lane.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub repeat: usize,
    /// Warm-up runs per lane (recorded, not summarized).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub warmup: usize,
    /// Output folder (lane JSONL files and run folders).
    #[arg(long, value_name = "DIR", default_value = "lanes")]
    pub out: PathBuf,
    /// Commands: the metric is this numeric field of the last JSON object on stdout.
    #[arg(long, value_name = "FIELD", conflicts_with = "metric_regex")]
    pub metric_json: Option<String>,
    /// Commands: the metric is the first group of the last match in stdout (then stderr).
    #[arg(long, value_name = "REGEX")]
    pub metric_regex: Option<String>,
    /// Drive an Ollama-compatible endpoint instead of commands.
    #[arg(long, value_name = "URL")]
    pub ollama: Option<String>,
    /// Ollama: model.
    #[arg(long, value_name = "MODEL", default_value = "tinyllama:latest")]
    pub model: String,
    /// Ollama: prompt.
    #[arg(
        long,
        value_name = "TEXT",
        default_value = "Write a concise 120-word note about validating legacy GPUs for local LLM inference."
    )]
    pub prompt: String,
    /// Ollama: options object (JSON).
    #[arg(
        long,
        value_name = "JSON",
        default_value = "{\"num_predict\":128,\"temperature\":0.1}"
    )]
    pub options: String,
    /// Ollama: keep_alive.
    #[arg(long, value_name = "DURATION")]
    pub keep_alive: Option<String>,
    /// Ollama: seconds per request.
    #[arg(long, value_name = "S", default_value_t = 300)]
    pub timeout: u64,
    /// Metric for the summary (default: eval_rate with --ollama, the run's value otherwise).
    #[arg(long, value_name = "METRIC")]
    pub metric: Option<String>,
    /// Do not echo the commands' output.
    #[arg(long)]
    pub no_echo: bool,
}

#[derive(Debug, Args)]
pub struct CaseArgs {
    #[command(subcommand)]
    pub command: CaseCommand,
}

#[derive(Debug, Subcommand)]
pub enum CaseCommand {
    /// Run a command with the ROCm libraries' logging on and keep everything in a case folder.
    Run(CaseRunArgs),
    /// Read a case folder or log files into a path report (device, problem, candidates,
    /// forced and selected solver, kernels, GEMM calls, fallbacks, errors, outcome).
    Read(CaseReadArgs),
    /// One row per case of a folder of cases: dtype, problem, forced solver, outcome,
    /// selected solver, kernel.
    Table(CaseTableArgs),
}

#[derive(Debug, Args)]
pub struct CaseRunArgs {
    /// Case name: the case folder is OUT/NAME.
    pub name: String,
    /// Folder to make the case folder in.
    #[arg(long, value_name = "DIR", default_value = "cases")]
    pub out: PathBuf,
    /// Logging to switch on, comma-separated: miopen, rocblas, hipblaslt, tensile, hip
    /// (default: all but hip). A variable already set in the environment is never changed.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub knobs: Vec<String>,
    /// Do not echo the command's output to the terminal (it is still captured).
    #[arg(long)]
    pub no_echo: bool,
    /// The command and its arguments (after `--`).
    #[arg(required = true, last = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Debug, Args)]
pub struct CaseReadArgs {
    /// Case folders or log files (a log's `<case>.meta.txt` beside it is read too). Each is
    /// one case.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Print the filled trace map (Markdown) instead of the report.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
}

#[derive(Debug, Args)]
pub struct CaseTableArgs {
    /// A folder of cases (case folders and/or log files).
    pub dir: PathBuf,
    /// Print TSV instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ExplainArgs {
    #[command(subcommand)]
    pub command: Option<ExplainCommand>,
    /// Put a prediction next to an observation: a `rocpath case read --json` document
    /// (MIOpen) or a `rocpath trace --json` document (ggml kernels).
    #[arg(long, value_name = "CASE.json|TRACE.json")]
    pub compare: Option<PathBuf>,
    /// With --compare on a trace: the device, when the trace does not name it (`gfx900`).
    #[arg(long, value_name = "gfxNNN")]
    pub target: Option<TargetId>,
    /// With --compare: MIOpen's database folder, for cases whose log shows no find-db lookup.
    #[arg(long, value_name = "DIR", default_value = "/opt/rocm/share/miopen/db")]
    pub db: PathBuf,
    /// With --compare: the device's compute units (default: from the logged find-db name).
    #[arg(long, value_name = "N")]
    pub cu: Option<u32>,
    /// With --compare: the device's memory (`8G`, `16G`); some GEMM solvers depend on it.
    #[arg(long, value_name = "SIZE")]
    pub vram: Option<String>,
    /// With --compare: an applicability model derived with `explain miopen-derive`.
    #[arg(long, value_name = "MODEL.json")]
    pub model: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ExplainCommand {
    /// Which MIOpen solver a convolution gets and why: every solver's applicability from
    /// MIOpen's source, the selection path per mode, the find-db record and perf-db.
    Miopen(Box<ExplainMiopenArgs>),
    /// Read a MIOpen checkout into an applicability model (what `explain miopen --model` takes).
    MiopenDerive(ExplainDeriveArgs),
    /// ggml-hip dispatch: MMVF / MMF / MMVQ / MMQ / hipBLAS, flash-attention kernel.
    Ggml(ExplainGgmlArgs),
    /// rocBLAS GEMM backend (hipBLASLt or Tensile), solution presence, fallbacks.
    Rocblas(ExplainRocblasArgs),
    /// Which Tensile kernel a GEMM runs: the catalogs' selection tree evaluated for a shape
    /// and GPU (rocBLAS 6.4.4 routing, Tensile's host library), the code object that holds it.
    Gemm(Box<ExplainGemmArgs>),
}

#[derive(Debug, Args)]
pub struct ExplainGemmArgs {
    /// Catalog folders: rocBLAS's (`…/rocblas/library`) and/or hipBLASLt's
    /// (`…/hipblaslt/library`, told apart by `TensileLiteLibrary_lazy_Mapping.dat`); default:
    /// `$ROCBLAS_TENSILE_LIBPATH`, else the installs under /opt/rocm and /usr/lib. With both, a
    /// call rocBLAS routes to hipBLASLt gets hipBLASLt's choice.
    #[arg(value_name = "LIBRARY_DIR")]
    pub dirs: Vec<PathBuf>,
    /// Which library the folders are: `rocblas` (Tensile) or `hipblaslt` (TensileLite, the
    /// `hipblasLtMatmulAlgoGetHeuristic` query); default: told from each folder.
    #[arg(long, value_name = "LIBRARY", value_parser = ["rocblas", "hipblaslt"])]
    pub library: Option<String>,
    /// hipBLASLt: the epilogue adds a bias, of TYPE (default: hipBLASLt's, D's type).
    #[arg(long, value_name = "TYPE", num_args = 0..=1, default_missing_value = "default")]
    pub bias: Option<String>,
    /// hipBLASLt: the epilogue's activation (none, relu, gelu).
    #[arg(long, value_name = "ACT")]
    pub activation: Option<String>,
    /// hipBLASLt: solutions asked for (`requestedAlgoCount`, default 1).
    #[arg(long, value_name = "N")]
    pub requested: Option<usize>,
    /// The device (`gfx90a:xnack-`); repeat or separate with commas to compare devices.
    #[arg(
        long,
        value_name = "TARGET-ID",
        value_delimiter = ',',
        required_unless_present_any = ["kernel", "attribute"]
    )]
    pub target: Vec<TargetId>,
    /// Compute units (default: the processor's usual part, e.g. 104 for gfx90a; CU-specific
    /// catalogs exist for some).
    #[arg(long, value_name = "N")]
    pub cu: Option<u32>,
    /// M.
    #[arg(long, value_name = "M")]
    pub m: Option<i64>,
    /// N.
    #[arg(long, value_name = "N")]
    pub n: Option<i64>,
    /// K.
    #[arg(long, value_name = "K")]
    pub k: Option<i64>,
    /// Shapes `MxNxK` (repeatable, or comma-separated): a sweep over shapes × targets.
    #[arg(long = "shape", value_name = "MxNxK", value_delimiter = ',')]
    pub shapes: Vec<String>,
    /// Batch count (uses the strided-batched API).
    #[arg(long, value_name = "N")]
    pub batch: Option<i64>,
    /// Input type: f32, f64, f16, bf16, i8, xf32, c32, c64 (hipBLASLt also f8, bf8).
    #[arg(long = "type", value_name = "TYPE", default_value = "f32")]
    pub ty: String,
    /// Compute type where the API takes one (`f32` for f16/bf16 with float accumulation).
    #[arg(long, value_name = "TYPE")]
    pub compute_type: Option<String>,
    /// Output (C and D) type where it differs from the input (`f32` for f16 → f32).
    #[arg(long, value_name = "TYPE")]
    pub output_type: Option<String>,
    /// op(A): N, T or C.
    #[arg(long, value_name = "OP", default_value = "N")]
    pub trans_a: String,
    /// op(B): N, T or C.
    #[arg(long, value_name = "OP", default_value = "N")]
    pub trans_b: String,
    /// alpha.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub alpha: f64,
    /// beta.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub beta: f64,
    /// Leading dimensions (default: the minimum).
    #[arg(long, value_name = "N")]
    pub lda: Option<i64>,
    /// ldb.
    #[arg(long, value_name = "N")]
    pub ldb: Option<i64>,
    /// ldc.
    #[arg(long, value_name = "N")]
    pub ldc: Option<i64>,
    /// The rocBLAS API (`gemm`, `gemm_ex`, `gemm_strided_batched`, `gemm_batched`, …);
    /// default from the types and --batch.
    #[arg(long, value_name = "API")]
    pub api: Option<String>,
    /// A rocblas-bench line or a `ROCBLAS_LAYER=1` trace line instead of the shape flags.
    #[arg(long, value_name = "LINE", conflicts_with_all = ["m", "shapes", "problems"])]
    pub line: Option<String>,
    /// A tab-separated problem list (header: id api a_type … m n k …): one answer per line.
    #[arg(long, value_name = "FILE.tsv", conflicts_with_all = ["m", "shapes"])]
    pub problems: Option<PathBuf>,
    /// Which catalog entry a kernel (from a trace) is, and the tuned sizes it was chosen for.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Every Tensile kernel (`Cijk_…`) of a `rocpath trace --json` document, attributed to
    /// the catalog entries it is (with --target: that processor's catalog files only).
    #[arg(long, value_name = "TRACE.json", conflicts_with = "kernel")]
    pub attribute: Option<PathBuf>,
    /// Show the walk (always shown for a single call).
    #[arg(long)]
    pub walk: bool,
    /// An environment variable of the run (`ROCBLAS_USE_HIPBLASLT=1`,
    /// `ROCBLAS_INTERNAL_FP16_ALT_IMPL=1`, `TENSILE_SOLUTION_INDEX=…`); repeatable. The
    /// shell's own environment is not read.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// The handle disallows atomics (`rocblas_set_atomics_mode(…not_allowed)`).
    #[arg(long)]
    pub atomics_not_allowed: bool,
    /// Workspace the handle has (`32M`; default rocBLAS's 32 MiB, 128 MiB on gfx94x); for a
    /// hipBLASLt query, the preference's `MAX_WORKSPACE_BYTES` (default 0, hipBLASLt's).
    #[arg(long, value_name = "SIZE")]
    pub workspace: Option<String>,
    /// Print TSV instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
}

#[derive(Debug, Args)]
pub struct ExplainMiopenArgs {
    /// Device target id (`gfx900:xnack-`, `gfx942`, `gfx1201`).
    #[arg(long, value_name = "TARGET-ID")]
    pub target: TargetId,
    /// Compute units of the device (picks `gfx900_64` and the like; read by some solvers).
    #[arg(long, value_name = "N")]
    pub cu: Option<u32>,
    /// Device memory (`8G`): the GEMM solvers' workspace limit is 85 % of it.
    #[arg(long, value_name = "SIZE")]
    pub vram: Option<String>,
    /// MIOpen's system database folder (installed `.fdb.txt`/`.db`, or `.bz2` as shipped in source).
    #[arg(long, value_name = "DIR", default_value = "/opt/rocm/share/miopen/db")]
    pub db: PathBuf,
    /// A user find-db (`~/.config/miopen/*.ufdb.txt`) to consult first, as MIOpen does.
    #[arg(long, value_name = "FILE")]
    pub user_db: Option<PathBuf>,
    /// MIOpen's user kernel cache (`~/.cache/miopen`, or one version folder in it): the
    /// kernels compiled on earlier runs, which do not compile again.
    #[arg(long, value_name = "DIR")]
    pub user_cache: Option<PathBuf>,
    /// An environment variable of the run (`MIOPEN_FIND_MODE=NORMAL`,
    /// `MIOPEN_DEBUG_CONV_CK_IGEMM_FWD_V6R1_DLOPS_NCHW=1`); repeatable. The shell's own
    /// environment is not read.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// A build switch differing from a release build (`MIOPEN_USE_MLIR=0`); repeatable.
    #[arg(long = "build", value_name = "NAME=VALUE")]
    pub build: Vec<String>,
    /// The MIOpen release installed (`3.2.0`, `3.5.1`, as MIOpen logs it): the model derived
    /// from that release's source when rocpath ships one (3.2: ROCm 6.2.2), else the nearest,
    /// with the release's known differences (3.5 and later: IsInt8 accepts an int8 output) and
    /// a note saying so.
    #[arg(long, value_name = "VERSION")]
    pub release: Option<String>,
    /// An applicability model derived with `explain miopen-derive` (default: the one of
    /// `--release`, else ROCm/MIOpen@2d1fd997).
    #[arg(long, value_name = "MODEL.json")]
    pub model: Option<PathBuf>,
    /// rocBLAS's Tensile library folder (`…/rocblas/library`): the kernel each GEMM solver's
    /// call takes (default: the folder `explain gemm` finds, `$ROCBLAS_TENSILE_LIBPATH` or the
    /// usual install places).
    #[arg(long, value_name = "DIR")]
    pub rocblas_library: Option<PathBuf>,
    /// The API path for a `--problem` key (a driver command's `-S` decides otherwise).
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<ExplainMode>,
    /// List every solver, not only the applicable, the unresolved and the forced one.
    #[arg(long)]
    pub all: bool,
    /// A find-db key instead of a driver command.
    #[arg(long, value_name = "KEY", conflicts_with = "driver")]
    pub problem: Option<String>,
    /// `MIOpenDriver conv… ARGS` (after `--`).
    #[arg(last = true, value_name = "MIOPENDRIVER")]
    pub driver: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainMode {
    /// The Find API (MIOpenDriver's default).
    Find,
    /// Immediate mode, the fastest solution (`-S 0`).
    Immediate,
}

#[derive(Debug, Args)]
pub struct ExplainDeriveArgs {
    /// A ROCm/MIOpen clone, or a ROCm/rocm-libraries clone (its projects/miopen is read).
    #[arg(value_name = "CHECKOUT")]
    pub checkout: PathBuf,
    /// Write the model here (JSON); without it only the report is printed.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ExplainGgmlArgs {
    /// gfx processor (`gfx1201`).
    #[arg(long, value_name = "TARGET")]
    pub target: TargetId,
    /// ggml type of the weights (`q4_K`, `f16`…); for flash attention, the K/V type.
    #[arg(long = "type", value_name = "TYPE", default_value = "f16")]
    pub ty: String,
    /// Tokens in the batch (src1 columns); for flash attention, Q rows.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub ne11: i64,
    /// MUL_MAT_ID expert count (MoE); 0 for dense.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub experts: i64,
    /// Weight rows (src0 ne[1]).
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub rows: i64,
    /// `mul_mat` or `flash_attn`.
    #[arg(long, value_name = "OP", default_value = "mul_mat", value_parser = ["mul_mat", "flash_attn"])]
    pub op: String,
    /// Flash attention: head size.
    #[arg(long, value_name = "N", default_value_t = 128)]
    pub head: i64,
    /// Flash attention: GQA ratio.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub gqa: i64,
    /// Flash attention: KV length.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub kv_len: i64,
    /// Where the path switches: `ne11=1..4096`.
    #[arg(long, value_name = "ne11=A..B")]
    pub sweep: Option<String>,
    /// ggml rule set (commit prefix); default the newest pinned one.
    #[arg(long, value_name = "VERSION")]
    pub ggml_version: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExplainRocblasArgs {
    /// gfx processor.
    #[arg(long, value_name = "TARGET")]
    pub target: TargetId,
    /// `f32`, `f64`, `f16`, `bf16`, `i8`, `c32`, `c64`, `xf32`.
    #[arg(long = "type", value_name = "TYPE")]
    pub ty: String,
    /// rocBLAS's Tensile library folder.
    #[arg(long, value_name = "DIR")]
    pub library_dir: Option<PathBuf>,
    /// hipBLASLt's library folder.
    #[arg(long, value_name = "DIR")]
    pub hipblaslt_dir: Option<PathBuf>,
    /// A batched GEMM.
    #[arg(long)]
    pub batched: bool,
}

#[derive(Debug, Args)]
pub struct GatesArgs {
    /// Source checkouts (MIOpen, rocBLAS, Tensile, Composable Kernel, ggml, Ollama, …).
    #[arg(required = true, value_name = "REPO")]
    pub repos: Vec<PathBuf>,
    /// Read every gate for these processors (comma-separated): the three-layer table.
    #[arg(long, value_name = "gfxNNN", value_delimiter = ',')]
    pub arch: Vec<String>,
    /// Add each gate line's introducing and last-touching commits (git history).
    #[arg(long, conflicts_with = "timeline")]
    pub blame: bool,
    /// Per release tag: which of the --arch target's gates and build-list entries exist.
    #[arg(long)]
    pub timeline: bool,
    /// With --timeline: the tags to read (`*` and `?` globs).
    #[arg(long, value_name = "PATTERN", default_value = "rocm-*")]
    pub tags: String,
    /// Also scan test folders.
    #[arg(long)]
    pub include_tests: bool,
    /// Files larger than this are not read (each is reported).
    #[arg(long, value_name = "BYTES", default_value_t = 8 << 20)]
    pub max_file_bytes: u64,
    /// Print TSV instead of the table.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
}

#[derive(Debug, Args)]
pub struct ProvenanceArgs {
    /// A git checkout.
    pub repo: PathBuf,
    /// Lines to trace, `FILE:LINE` relative to the repository root.
    #[arg(required = true, value_name = "FILE:LINE")]
    pub lines: Vec<String>,
    /// The newest commit to read from.
    #[arg(long, value_name = "REV", default_value = "HEAD")]
    pub rev: String,
    /// Print TSV instead of the report.
    #[arg(long, conflicts_with = "json")]
    pub tsv: bool,
}

#[derive(Debug, Args)]
pub struct FollowArgs {
    /// Where to start: `FILE:LINE`, `FILE:SYMBOL` (a field, a parameter, a variable), or a
    /// name used as a JSON key, a flag or an environment variable (`num_gpu`, `-ngl`,
    /// `HSA_OVERRIDE_GFX_VERSION`). A flag is taken as written: `--from -ngl` or
    /// `--from=-ngl`.
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub from: String,
    /// Source checkouts to follow the value through (an application and the libraries it
    /// calls or starts).
    #[arg(required = true, value_name = "REPO")]
    pub repos: Vec<PathBuf>,
    /// Hops from a start to the end of a branch.
    #[arg(long, default_value_t = 24)]
    pub depth: usize,
    /// Hops in the whole trail.
    #[arg(long, default_value_t = 400)]
    pub limit: usize,
    /// Next hops followed from one hop (the rest are counted in a note).
    #[arg(long, default_value_t = 16)]
    pub fan_out: usize,
    /// Places a SPEC may match; the rest are left out with a note.
    #[arg(long, default_value_t = 40)]
    pub max_matches: usize,
    /// Also read tests (`*_test.go`, `test_*.py`, `test/` folders).
    #[arg(long)]
    pub include_tests: bool,
    /// Source files larger than this are skipped (each is reported).
    #[arg(long, value_name = "BYTES", default_value_t = 2 << 20)]
    pub max_file_bytes: u64,
    /// Neither read nor write the index cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Print the trail as Markdown.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
}

#[derive(Debug, Args)]
pub struct StudyArgs {
    #[command(subcommand)]
    pub command: StudyCommand,
}

#[derive(Debug, Subcommand)]
pub enum StudyCommand {
    /// Run the readers over the study's recordings (cases, traces, runs, strace, lanes,
    /// repositories), import them into OUT/ledger, derive the claims, check the ledger and
    /// build OUT/site. Sets whose recordings are not there are skipped and named.
    Build(StudyBuildArgs),
}

#[derive(Debug, Args)]
pub struct StudyBuildArgs {
    /// The study file (`schema = "rocpath.study/1"`; see examples/study/).
    pub study: PathBuf,
    /// Output folder: documents/, ledger/ (kept and updated by later runs), site/.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Date of the derived claims' history entries (YYYY-MM-DD; default: today, UTC).
    #[arg(long, value_name = "DATE")]
    pub date: Option<String>,
    /// Copy the quoted raw files beside the site (`site/raw/`).
    #[arg(long)]
    pub copy_raw: bool,
}
