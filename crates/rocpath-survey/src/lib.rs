//! One read-only pass over a machine (or a saved image of one): its AMD GPUs, the variables
//! that change what the runtime reports or loads, where GPU code is installed, and for each
//! device × install the `check` verdict and what will fall back.
//!
//! Pipeline: [`devices::read`] (KFD topology, rocminfo) → [`env::read`] (environment,
//! `/etc/environment`, systemd units) → [`installs::discover`] (bounded walks, [`walk`]) →
//! `rocpath_inventory::scan` per install → [`verdict::verdict`] per device × install.
//! Nothing is written anywhere.

pub mod access;
pub mod devices;
pub mod env;
pub mod error;
pub mod findings;
pub mod fleet;
pub mod installs;
pub mod machine;
pub mod mounts;
pub mod pci;
pub mod python;
pub mod root;
pub mod uses;
pub mod verdict;
pub mod walk;

use error::{ErrorItem, SurveyError};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use devices::{Rocminfo, SurveyDevice};
pub use env::Variable;
pub use installs::{Install, Kind};
pub use verdict::{Fallback, Outcome, Verdict};

/// Rule ids of survey records.
pub mod rules {
    /// A GPU read from the KFD topology.
    pub const DEVICE_KFD: &str = "survey.device_from_kfd";
    /// A GPU read from rocminfo output.
    pub const DEVICE_ROCMINFO: &str = "survey.device_from_rocminfo";
    /// A GPU of any maker seen on the PCI bus (DRM card vendor id, NVIDIA driver entry).
    pub const PCI_GPU: &str = "survey.gpu_from_pci";
    /// A watched variable set in a scope.
    pub const VARIABLE: &str = "survey.variable_set";
    /// A Python environment found (a `PATH` interpreter's prefix, a venv, a conda, pyenv or
    /// uv environment, the system's or a user's).
    pub const PYTHON_ENV: &str = "survey.python_env";
    /// A ROCm library a program library takes, and the install that holds it.
    pub const USES: &str = "survey.uses_library";
    /// An install found.
    pub const INSTALL: &str = "survey.install_found";
    /// A MIOpen user database or kernel cache found.
    pub const USER_DB: &str = "survey.miopen_user_db";
    /// Every library of the install loads on the device.
    pub const RUNS: &str = "survey.runs";
    /// Every library loads, but only as the override's processor.
    pub const RUNS_WITH_OVERRIDE: &str = "survey.runs_with_override";
    /// Some libraries load, others have no code.
    pub const PARTIAL: &str = "survey.partial";
    /// The answer depends on a device setting not known.
    pub const DEPENDS: &str = "survey.depends_on_device_setting";
    /// Only tuning data, none for the device (MIOpen databases): heuristics, not no code.
    pub const UNTUNED: &str = "survey.untuned";
    /// No library has code for the device.
    pub const NO_CODE: &str = "survey.no_code";
    /// The install ships no AMD GPU code.
    pub const NO_GPU_CODE: &str = "survey.no_gpu_code";
    /// A visible-devices variable hides the device.
    pub const HIDDEN: &str = "survey.hidden_by_visible_devices";
    /// A library without kernels for the device.
    pub const FALLBACK_NO_KERNELS: &str = "survey.fallback.no_kernels";
    /// An application that then runs on the CPU.
    pub const FALLBACK_CPU: &str = "survey.fallback.cpu";
    /// A Tensile/hipBLASLt folder without the processor.
    pub const FALLBACK_TENSILE: &str = "survey.fallback.tensile_missing";
    /// MIOpen without a find-db for the processor.
    pub const FALLBACK_MIOPEN: &str = "survey.fallback.miopen_heuristics";
    /// A Tensile path variable replaces the install's kernels.
    pub const TENSILE_PATH: &str = "survey.tensile_path_in_scope";
    /// A place not descended into (network file system, depth, time).
    pub const NOT_DESCENDED: &str = "survey.not_descended";
    /// No GPU on the machine.
    pub const NO_GPU: &str = "survey.no_gpu";
    /// No install with GPU code on the machine.
    pub const NO_ROCM: &str = "survey.no_rocm";
    /// Devices and installs found; some device × install does GPU work.
    pub const GPU_WORK: &str = "survey.gpu_work_possible";
    /// Devices and installs found; none does GPU work.
    pub const NO_GPU_WORK: &str = "survey.no_gpu_work";
}

/// What to survey and how far.
#[derive(Debug, Clone)]
pub struct Options {
    /// The machine's root (`/`, or a saved image).
    pub root: PathBuf,
    /// This process's environment, when surveying the live machine.
    pub process_env: Option<Vec<(String, String)>>,
    /// rocminfo output, if any.
    pub rocminfo: Option<Rocminfo>,
    /// Home folders (machine paths); empty = `/root` and every `/home/*`.
    pub homes: Vec<PathBuf>,
    /// More places to survey (machine paths).
    pub paths: Vec<PathBuf>,
    /// Only the `paths`, none of the standard places.
    pub only_paths: bool,
    /// How deep walks go below where they start.
    pub max_depth: usize,
    /// Time for the whole survey; installs not scanned by then are named.
    pub max_time: Option<Duration>,
    /// Limits of the inventory scans.
    pub limits: rocpath_sources::Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            root: "/".into(),
            process_env: None,
            rocminfo: None,
            homes: Vec::new(),
            paths: Vec::new(),
            only_paths: false,
            max_depth: 8,
            max_time: None,
            limits: rocpath_sources::Limits::default(),
        }
    }
}

/// Receives progress (the CLI draws it on stderr).
pub trait Progress: rocpath_inventory::Progress {
    /// A new stage (`reading devices`, `scanning rocm-6.4.0 (2/5)`).
    fn stage(&self, _what: &str) {}
}

/// A progress receiver that ignores everything.
pub struct NoProgress;
impl rocpath_inventory::Progress for NoProgress {}
impl Progress for NoProgress {}

/// A MIOpen user database or kernel cache (`~/.config/miopen`, `~/.cache/miopen`).
#[derive(Debug, Clone, Serialize)]
pub struct UserDb {
    /// The file (path on this machine).
    pub path: String,
    /// Processor.
    pub processor: String,
    /// CU count from the name.
    pub cus: Option<u32>,
    /// `user-find-db`, `user-perf-db`, `kernel-db`.
    pub kind: rocpath_docs::inventory::DbKind,
    /// Evidence.
    pub evidence: Evidence,
}

/// What kept the survey out of a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipKind {
    /// A network file system.
    Network,
    /// The depth limit (`--max-depth`).
    Depth,
    /// The time limit (`--max-time`).
    Time,
    /// A search that read its most folders.
    Folders,
}

/// A place the survey did not look into, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// The machine path.
    pub path: String,
    /// What kept the survey out.
    pub kind: SkipKind,
    /// Why.
    pub why: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// The answer in one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// A device and an install that does GPU work on it.
    GpuWork,
    /// Devices and installs, but none does GPU work.
    NoGpuWork,
    /// No AMD GPU.
    NoGpu,
    /// A GPU, but no install with GPU code.
    NoRocm,
}

/// The survey's answer.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// Kind.
    pub kind: AnswerKind,
    /// In words.
    pub text: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// Counts and time.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    /// Folders read.
    pub folders: u64,
    /// Files handed to the inventory.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Seconds the survey took.
    pub seconds: f64,
    /// The depth limit of every walk (`--max-depth`).
    pub max_depth: usize,
}

/// Everything a survey found (the JSON document `rocpath.survey/1`).
#[derive(Debug, Clone, Serialize)]
pub struct Survey {
    /// The root surveyed.
    pub root: String,
    /// The distribution, kernel and amdgpu driver.
    pub machine: machine::Machine,
    /// The answer.
    pub answer: Answer,
    /// AMD GPUs (KFD topology, rocminfo).
    pub devices: Vec<SurveyDevice>,
    /// GPUs of every maker seen on the PCI bus.
    pub pci_gpus: Vec<pci::PciGpu>,
    /// The GPU device nodes and whether this user may open them (a live machine).
    pub access: access::Access,
    /// Where the rocminfo output read came from (`rocminfo`, a file), or `None` without one.
    pub rocminfo: Option<String>,
    /// Watched variables, the last setting per scope and name.
    pub variables: Vec<Variable>,
    /// Python environments (those the shell's `python3` and `python` run in first).
    pub python_envs: Vec<python::PythonEnv>,
    /// Installs.
    pub installs: Vec<Install>,
    /// MIOpen user databases and caches.
    pub user_dbs: Vec<UserDb>,
    /// Device × install verdicts.
    pub verdicts: Vec<Verdict>,
    /// The known failure modes found, each with what to do.
    pub findings: Vec<findings::Finding>,
    /// Places not looked into.
    pub skipped: Vec<Skipped>,
    /// What could not be read.
    pub errors: Vec<ErrorItem>,
    /// Items of the inventory scans that could not be read.
    pub scan_errors: Vec<rocpath_inventory::ErrorItem>,
    /// Counts and time.
    pub stats: Stats,
}

/// The homes of a machine: `/root` and every folder in `/home`.
fn homes(w: &mut walk::Walker<'_>) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("/root")];
    for name in w.list(Path::new("/home")) {
        out.push(Path::new("/home").join(name));
    }
    out
}

/// Surveys the machine.
pub fn survey(opts: &Options, progress: &dyn Progress) -> Survey {
    let start = Instant::now();
    let deadline = opts.max_time.map(|t| start + t);
    let root = root::Root::new(&opts.root);
    let mut errors: Vec<SurveyError> = Vec::new();
    progress.stage("reading mounts and devices");
    let mounts = read_mounts(&root, &mut errors);
    let devices = devices::read(&root, opts.rocminfo.as_ref(), &mut errors);
    let pci_gpus = pci::read(&root);
    let access = access::read(&root);
    let env = env::read(&root, opts.process_env.as_deref(), &mut errors);
    let mut w = walk::Walker::new(&root, &mounts, deadline);
    let homes = if opts.homes.is_empty() {
        homes(&mut w)
    } else {
        opts.homes.clone()
    };
    progress.stage("looking for Python environments");
    let python_envs = if opts.only_paths {
        Vec::new()
    } else {
        python::discover(&mut w, &env, &homes, opts.max_depth)
    };
    progress.stage("looking for installs");
    let mut installs = installs::discover(
        &mut w,
        &env,
        &homes,
        &python_envs,
        &opts.paths,
        opts.only_paths,
        opts.max_depth,
    );
    progress.stage("predicting what each program loads");
    uses::tie(&root, &env, &python_envs, &mut installs);
    let user_dbs = user_dbs(&mut w, &env, &homes, opts.max_depth);
    let mut skipped = Vec::new();
    let (verdicts, scan_errors, stats) = scan_all(
        opts,
        progress,
        &devices,
        &installs,
        &env,
        &user_dbs,
        deadline,
        &mut skipped,
    );
    skipped.extend(limits(&w, opts.max_depth));
    errors.append(&mut w.errors);
    let mut errors: Vec<ErrorItem> = errors.iter().map(ErrorItem::from).collect();
    errors.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    errors.dedup();
    let mut findings = findings::findings(&devices, &python_envs, &installs, &verdicts, &env);
    findings.extend(findings::access(&access, &pci_gpus));
    let answer = answer(
        &devices,
        &pci_gpus,
        opts.rocminfo.as_ref(),
        &installs,
        &verdicts,
    );
    Survey {
        root: opts.root.display().to_string(),
        machine: machine::read(&root),
        answer,
        devices,
        pci_gpus,
        access,
        rocminfo: opts.rocminfo.as_ref().map(|r| r.source.clone()),
        variables: env.effective(),
        python_envs,
        installs,
        user_dbs,
        verdicts,
        findings,
        skipped,
        errors,
        scan_errors,
        stats: Stats {
            folders: w.dirs,
            seconds: start.elapsed().as_secs_f64(),
            max_depth: opts.max_depth,
            ..stats
        },
    }
}

// Largest configuration, properties or unit file read: the same bound as the KFD readers.
use rocpath_inventory::device::MAX_TEXT;

/// Reads one small text file of the surveyed machine (a FIFO, a device or a file larger than
/// [`MAX_TEXT`] is refused by name instead of hanging or filling memory).
pub(crate) fn read_text(path: impl AsRef<Path>) -> std::io::Result<String> {
    rocpath_budget::read_small_text(path.as_ref(), MAX_TEXT)
}

fn read_mounts(root: &root::Root, errors: &mut Vec<SurveyError>) -> Vec<mounts::Mount> {
    let p = root.join(Path::new("/proc/self/mountinfo"));
    match crate::read_text(&p) {
        Ok(text) => {
            let (m, mut e) = mounts::parse(&text, &p);
            errors.append(&mut e);
            m
        }
        Err(_) => Vec::new(),
    }
}

/// Scans each install (until the deadline) and gives every device × install its verdict.
#[allow(clippy::too_many_arguments)]
fn scan_all(
    opts: &Options,
    progress: &dyn Progress,
    devices: &[SurveyDevice],
    installs: &[Install],
    env: &env::Env,
    user_dbs: &[UserDb],
    deadline: Option<Instant>,
    skipped: &mut Vec<Skipped>,
) -> (Vec<Verdict>, Vec<rocpath_inventory::ErrorItem>, Stats) {
    let mut verdicts = Vec::new();
    let mut scan_errors = Vec::new();
    let mut stats = Stats::default();
    let inv_opts = rocpath_inventory::Options {
        limits: opts.limits.clone(),
        target: None,
        no_kernels: true,
        index_only: true,
    };
    for (k, i) in installs.iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() > d) {
            skipped.push(not_descended(
                &i.path,
                SkipKind::Time,
                "not scanned: the time limit (--max-time) was reached first",
            ));
            continue;
        }
        progress.stage(&format!(
            "scanning {} ({}/{})",
            i.label,
            k + 1,
            installs.len()
        ));
        let inv = rocpath_inventory::scan(&i.paths, &inv_opts, progress);
        stats.files += i.files as u64;
        stats.bytes += i.bytes;
        for d in devices {
            verdicts.push(verdict::verdict(d, i, &inv, env, user_dbs));
        }
        scan_errors.extend(inv.errors);
    }
    (verdicts, scan_errors, stats)
}

fn not_descended(path: &str, kind: SkipKind, why: &str) -> Skipped {
    Skipped {
        path: path.to_string(),
        kind,
        why: why.to_string(),
        evidence: Evidence::new(
            Class::Limited,
            Proof::ShippedArtifactVerified,
            rules::NOT_DESCENDED,
        )
        .at(Locator::file(path))
        .because(why.to_string()),
    }
}

/// Every place a walk stopped short, each once: network file systems and the time limit
/// first, then the depth-limit folders nearest the top (fewest components) first.
fn limits(w: &walk::Walker<'_>, max_depth: usize) -> Vec<Skipped> {
    let mut ls = w.limits.clone();
    ls.sort_by_key(|l| match l {
        walk::Limit::Network(p, _) => (0, 0, p.clone()),
        walk::Limit::Time(p) | walk::Limit::Folders(p, _) => (1, 0, p.clone()),
        walk::Limit::Depth(p) => (2, p.components().count(), p.clone()),
    });
    ls.dedup();
    ls.iter()
        .map(|l| match l {
            walk::Limit::Network(p, t) => not_descended(
                &p.display().to_string(),
                SkipKind::Network,
                &format!("a network file system ({t}): not descended into"),
            ),
            walk::Limit::Time(p) => not_descended(
                &p.display().to_string(),
                SkipKind::Time,
                "the time limit (--max-time) was reached while walking here",
            ),
            walk::Limit::Folders(p, n) => not_descended(
                &p.display().to_string(),
                SkipKind::Folders,
                &format!("the search for Python environments read {n} folders here and stopped; name an environment below it with --paths"),
            ),
            walk::Limit::Depth(p) => not_descended(
                &p.display().to_string(),
                SkipKind::Depth,
                &format!("the depth limit (--max-depth {max_depth}) was reached here"),
            ),
        })
        .collect()
}

/// MIOpen user databases and kernel caches: `~/.config/miopen`, `~/.cache/miopen`, and the
/// folders `MIOPEN_USER_DB_PATH` and `MIOPEN_CUSTOM_CACHE_DIR` name.
fn user_dbs(
    w: &mut walk::Walker<'_>,
    env: &env::Env,
    homes: &[PathBuf],
    depth: usize,
) -> Vec<UserDb> {
    let mut places: Vec<PathBuf> = homes
        .iter()
        .flat_map(|h| [h.join(".config/miopen"), h.join(".cache/miopen")])
        .collect();
    for v in env.effective() {
        if v.name == "MIOPEN_USER_DB_PATH" || v.name == "MIOPEN_CUSTOM_CACHE_DIR" {
            places.push(PathBuf::from(&v.value));
        }
    }
    let mut out = Vec::new();
    for p in places {
        w.reset_seen();
        w.walk(&p, depth, &mut |it| {
            if !it.is_dir {
                if let Some(rocpath_sources::names::NamedKind::MiopenDb(n)) =
                    rocpath_sources::names::classify(&it.name())
                {
                    let path = it.host.display().to_string();
                    out.push(UserDb {
                        evidence: Evidence::new(
                            Class::Confirmed,
                            Proof::ShippedArtifactVerified,
                            rules::USER_DB,
                        )
                        .at(Locator::file(&path)),
                        path,
                        processor: n.processor,
                        cus: n.cus,
                        kind: n.kind,
                    });
                }
            }
            walk::Visit::Descend
        });
    }
    out
}

pub use rocpath_evidence::count;

/// Why no AMD GPU was found, and what the machine has instead.
fn no_gpu_text(pci: &[pci::PciGpu], rocminfo: Option<&Rocminfo>) -> String {
    let ri = match rocminfo {
        Some(r) => format!("no GPU agent in the rocminfo output ({})", r.source),
        None => "no rocminfo output (rocminfo was not run or not found; for a saved image give --rocminfo FILE)".to_string(),
    };
    let kfd = format!("no GPU node in the KFD topology ({})", devices::KFD_NODES);
    let amd: Vec<&pci::PciGpu> = pci.iter().filter(|g| g.is_amd()).collect();
    if let Some(g) = amd.first() {
        let hint = match g.driver.as_deref() {
            Some("amdgpu") => "the amdgpu driver is bound, but the KFD lists no GPU: is /dev/kfd there, and does this kernel have HSA_AMD (KFD) support for it?".to_string(),
            Some(d) => format!("it is bound to the {d} driver, not amdgpu: ROCm needs amdgpu"),
            None => "no driver is bound to it: is the amdgpu driver loaded?".to_string(),
        };
        return format!(
            "no AMD GPU that ROCm can use: {kfd} and {ri}, yet the PCI bus has an AMD GPU ({}); {hint}",
            g.describe()
        );
    }
    let compute: Vec<&pci::PciGpu> = pci.iter().filter(|g| !g.display_only).collect();
    if compute.is_empty() {
        let shown: Vec<String> = pci.iter().map(|g| g.describe()).collect();
        let also = if shown.is_empty() {
            "no other GPU either (no DRM card in /sys/class/drm, no NVIDIA driver entry)"
                .to_string()
        } else {
            format!(
                "only display controllers on the PCI bus ({})",
                shown.join("; ")
            )
        };
        return format!(
            "no AMD GPU: {kfd}, {ri}, {also}; if this machine has an AMD GPU, is the amdgpu driver loaded?"
        );
    }
    let mut vendors: Vec<&str> = Vec::new();
    for g in &compute {
        if !vendors.contains(&g.vendor.as_str()) {
            vendors.push(&g.vendor);
        }
    }
    let shown: Vec<String> = compute.iter().map(|g| g.describe()).collect();
    format!(
        "this machine's {} {} ({}); no AMD GPU: ROCm runs only on AMD GPUs, so nothing on this machine uses it",
        if compute.len() == 1 {
            "GPU is"
        } else {
            "GPUs are"
        },
        vendors.join(" and "),
        shown.join("; ")
    )
}

fn answer(
    devices: &[SurveyDevice],
    pci: &[pci::PciGpu],
    rocminfo: Option<&Rocminfo>,
    installs: &[Install],
    verdicts: &[Verdict],
) -> Answer {
    let with_code = installs.iter().any(|i| i.files > 0);
    let mut at = Vec::new();
    let (kind, rule, class, text) = if devices.is_empty() {
        at.extend(pci.iter().flat_map(|g| g.evidence.sources.clone()));
        (
            AnswerKind::NoGpu,
            rules::NO_GPU,
            Class::Confirmed,
            no_gpu_text(pci, rocminfo),
        )
    } else if !with_code {
        (AnswerKind::NoRocm, rules::NO_ROCM, Class::Confirmed, "no install with AMD GPU code: no ROCm tree in /opt, no ROCm libraries in /usr/lib, no ROCm build of torch/jax/onnxruntime, no Ollama or llama.cpp HIP backend".to_string())
    } else {
        let good = verdicts.iter().filter(|v| v.outcome.positive()).count();
        let text = format!(
            "{}, {}: {good} of {} GPU work",
            count(devices.len(), "GPU"),
            count(installs.len(), "install"),
            if verdicts.len() == 1 {
                "1 device × install pair does".to_string()
            } else {
                format!("{} device × install pairs do", verdicts.len())
            },
        );
        if good > 0 {
            (AnswerKind::GpuWork, rules::GPU_WORK, Class::Inferred, text)
        } else {
            (
                AnswerKind::NoGpuWork,
                rules::NO_GPU_WORK,
                Class::Inferred,
                text,
            )
        }
    };
    let mut evidence =
        Evidence::new(class, Proof::ShippedArtifactVerified, rule).because(text.clone());
    for l in at {
        evidence = evidence.at(l);
    }
    Answer {
        kind,
        evidence,
        text,
    }
}
