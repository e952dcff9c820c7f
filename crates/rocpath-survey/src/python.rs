//! Python environments: the interpreters a shell runs (`python3`, `python`, in `PATH` order)
//! and the prefix each one runs in, and every venv, conda environment, pyenv version and
//! uv-managed interpreter under the usual roots (`/opt`, `/srv`, `/data`, `/workspace`,
//! `/usr/local`, the homes; the ROCm container images keep theirs in `/opt/conda/envs` and
//! `/opt/venv`), bounded by the survey's one depth limit.
//!
//! An interpreter's prefix is found as CPython's `Modules/getpath.py` finds `sys.prefix`: a
//! `pyvenv.cfg` beside the executable or one folder up makes it a venv (its `home` names the
//! base interpreter's folder); otherwise the executable's links are followed and the folders
//! above it searched for the landmark `lib/pythonX.Y/os.py`. A pyenv shim (`PYENV_ROOT/shims`)
//! runs the version `PYENV_VERSION` or `PYENV_ROOT/version` names (pyenv's own order after a
//! `.python-version` file in the working folder, which a survey cannot know). Nothing is
//! executed.
//!
//! ROCm's own Python packaging (TheRock: the `rocm` selector with the `rocm_sdk` module,
//! `_rocm_sdk_core`, `_rocm_sdk_libraries…`, one `_rocm_sdk_device_<target>` per GPU target,
//! `_rocm_sdk_devel`) is told apart per environment, and a package that initialises from it
//! (`torch/_rocm_init.py` calling `rocm_sdk.initialize_process(…, check_version=…)`, as
//! TheRock's `docs/packaging/python_packaging.md` describes) is tied to it.

use crate::env::Env;
use crate::rules;
use crate::walk::{Item, Visit, Walker};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Most folders one root's search for environments reads (a `/data` of millions of folders
/// stops there, and says so).
pub const MAX_FOLDERS: usize = 200_000;

/// Folders walked for environments besides the homes.
pub const ROOTS: &[&str] = &["/opt", "/srv", "/data", "/workspace", "/usr/local"];

/// The shell's `PATH` when nothing sets one (Debian's and Ubuntu's login default).
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Hidden folders that hold environments (`~/.venv`, `~/.pyenv`, pipx's and pipenv's under
/// `~/.local`, poetry's under `~/.cache/pypoetry`).
const HIDDEN_KEPT: &[&str] = &[
    ".conda",
    ".venv",
    ".virtualenvs",
    ".pyenv",
    ".local",
    ".envs",
    ".cache",
];

/// Folders that never hold an environment worth the walk.
const PRUNED: &[&str] = &[
    "site-packages",
    "dist-packages",
    "pkgs",
    "__pycache__",
    "node_modules",
    "include",
    "man",
    "doc",
    "docs",
    "ollama",
];

/// What kind of environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EnvKind {
    /// The distribution's or `/usr/local`'s Python.
    System,
    /// A user's `~/.local` (`pip install --user`).
    User,
    /// A venv or virtualenv (`pyvenv.cfg`).
    Venv,
    /// A conda environment or base (`conda-meta`).
    Conda,
    /// A pyenv version (`PYENV_ROOT/versions/X`).
    Pyenv,
    /// An interpreter uv manages (`~/.local/share/uv/python/…`).
    Uv,
    /// Another prefix an interpreter on `PATH` runs in.
    Prefix,
}

impl EnvKind {
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            EnvKind::System => "system",
            EnvKind::User => "user",
            EnvKind::Venv => "venv",
            EnvKind::Conda => "conda",
            EnvKind::Pyenv => "pyenv",
            EnvKind::Uv => "uv",
            EnvKind::Prefix => "prefix",
        }
    }
}

/// An interpreter of the shell's `PATH`.
#[derive(Debug, Clone, Serialize)]
pub struct OnPath {
    /// `python3` or `python`.
    pub command: String,
    /// Where `PATH` finds it.
    pub path: String,
    /// Whether it is the one the command runs (the first on `PATH`), else shadowed.
    pub runs: bool,
    /// How its prefix was found.
    pub via: String,
}

/// ROCm's Python packages (TheRock) in one environment.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RocmSdk {
    /// The `rocm` selector's version (`rocm-X.dist-info`), else `_rocm_sdk_core`'s.
    pub version: Option<String>,
    /// The packages, with their versions (`_rocm_sdk_core 7.10.0`).
    pub packages: Vec<String>,
    /// GPU targets with a device package (`_rocm_sdk_device_gfx942`).
    pub device_targets: Vec<String>,
    /// GPU targets (or families: `gfx12-0`) of torch's own device wheels
    /// (`amd-torch-device-gfx1201`: its kpack archives and AOTriton images).
    pub torch_device_targets: Vec<String>,
    /// Packages that initialise from it.
    pub used_by: Vec<SdkUser>,
}

/// A package that loads the ROCm SDK wheels' libraries (its `_rocm_init.py`).
#[derive(Debug, Clone, Serialize)]
pub struct SdkUser {
    /// `torch`.
    pub package: String,
    /// The init file.
    pub init: String,
    /// The version it asks for (`check_version`), a trailing `*` matching any suffix.
    pub check_version: Option<String>,
    /// Whether the installed version matches it (None: nothing to compare).
    pub version_matches: Option<bool>,
    /// The libraries it preloads (`amdhip64`, `hipblaslt`, `miopen`).
    pub preloads: Vec<String>,
}

/// One Python environment.
#[derive(Debug, Clone, Serialize)]
pub struct PythonEnv {
    /// The prefix (machine path).
    pub path: String,
    /// Kind.
    pub kind: EnvKind,
    /// The label its packages' installs carry (`system`, `/root user`, the prefix).
    pub label: String,
    /// Python versions it has libraries for (`3.12`).
    pub versions: Vec<String>,
    /// Interpreters on the shell's `PATH` that run in it.
    pub on_path: Vec<OnPath>,
    /// A venv's base interpreter folder (`home` of `pyvenv.cfg`).
    pub base: Option<String>,
    /// A venv that also sees its base's packages (`include-system-site-packages = true`).
    pub system_site_packages: bool,
    /// Its site-packages folders (machine paths).
    pub site_packages: Vec<String>,
    /// ROCm's Python packages in it.
    pub rocm_sdk: Option<RocmSdk>,
    /// What is wrong with it (a `pyvenv.cfg` whose `home` is not there).
    pub problems: Vec<String>,
    /// Evidence that it is there.
    pub evidence: Evidence,
}

impl PythonEnv {
    fn new(path: &Path, kind: EnvKind, label: String, at: String) -> PythonEnv {
        PythonEnv {
            path: path.display().to_string(),
            kind,
            label,
            versions: Vec::new(),
            on_path: Vec::new(),
            base: None,
            system_site_packages: false,
            site_packages: Vec::new(),
            rocm_sdk: None,
            problems: Vec::new(),
            evidence: Evidence::new(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                rules::PYTHON_ENV,
            )
            .at(Locator::file(at)),
        }
    }
}

/// Every environment: those the shell's interpreters run in first (in `PATH` order), then the
/// system's and the users', then the ones the walks found, each once.
pub fn discover(w: &mut Walker<'_>, env: &Env, homes: &[PathBuf], depth: usize) -> Vec<PythonEnv> {
    let mut out: Vec<PythonEnv> = Vec::new();
    for (prefix, on) in path_interpreters(w, env) {
        add(w, &mut out, prefix, Some(on));
    }
    for prefix in ["/usr", "/usr/local"] {
        add(w, &mut out, PathBuf::from(prefix), None);
    }
    for h in homes {
        add(w, &mut out, h.join(".local"), None);
    }
    let pyenv_root = env.search("PYENV_ROOT").map(|v| PathBuf::from(&v.value));
    let mut starts: Vec<PathBuf> = homes.to_vec();
    starts.extend(ROOTS.iter().map(PathBuf::from));
    for start in starts {
        for prefix in walk_for_envs(w, &start, depth, pyenv_root.as_deref(), MAX_FOLDERS) {
            add(w, &mut out, prefix, None);
        }
    }
    // The system's and the users' prefixes matter only when they have packages or run.
    out.retain(|e| {
        !matches!(e.kind, EnvKind::System | EnvKind::User)
            || !e.site_packages.is_empty()
            || !e.on_path.is_empty()
    });
    out
}

/// Adds the environment at `prefix` (or the interpreter to the one already there).
fn add(w: &mut Walker<'_>, out: &mut Vec<PythonEnv>, prefix: PathBuf, on: Option<OnPath>) {
    let Some(it) = w.probe(&prefix).filter(|it| it.is_dir) else {
        if let Some(on) = on {
            // A shim or a link that names a prefix not there: said, not dropped.
            let at = on.path.clone();
            let mut e = PythonEnv::new(
                &prefix,
                kind_by_place(&prefix),
                prefix.display().to_string(),
                at,
            );
            e.problems.push(format!(
                "{} on PATH runs in {}, which is not there: the command fails",
                on.command,
                prefix.display()
            ));
            e.on_path.push(on);
            out.push(e);
        }
        return;
    };
    if let Some(e) = out.iter_mut().find(|e| Path::new(&e.path) == it.inside) {
        e.on_path.extend(on);
        return;
    }
    let mut e = describe(w, &it, &prefix);
    e.on_path.extend(on);
    out.push(e);
}

/// What the environment at a prefix is: its kind, versions, site-packages and SDK wheels.
fn describe(w: &mut Walker<'_>, it: &Item, asked: &Path) -> PythonEnv {
    let cfg = it.host.join("pyvenv.cfg");
    let conda = it.host.join("conda-meta");
    let (kind, at) = if cfg.is_file() {
        (EnvKind::Venv, cfg.display().to_string())
    } else if conda.is_dir() {
        (EnvKind::Conda, conda.display().to_string())
    } else {
        (kind_by_place(&it.inside), it.host.display().to_string())
    };
    let label = match kind {
        EnvKind::System => "system".to_string(),
        EnvKind::User => match asked.parent() {
            Some(h) => format!("{} user", h.display()),
            None => "user".to_string(),
        },
        _ => it.inside.display().to_string(),
    };
    let mut e = PythonEnv::new(&it.inside, kind, label, at);
    if kind == EnvKind::Venv {
        venv_config(w, &mut e, &cfg);
    }
    let (versions, sps) = site_packages(w, &it.inside);
    e.versions = versions;
    e.site_packages = sps.iter().map(|p| p.display().to_string()).collect();
    e.rocm_sdk = sps.iter().find_map(|sp| rocm_sdk(w, sp));
    e
}

/// The kind of a prefix that is neither a venv nor a conda environment, by where it is.
fn kind_by_place(p: &Path) -> EnvKind {
    let names: Vec<String> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let up = |k: usize| names.len().checked_sub(k + 1).map(|i| names[i].as_str());
    if p == Path::new("/usr") || p == Path::new("/usr/local") {
        EnvKind::System
    } else if up(0) == Some(".local") {
        EnvKind::User
    } else if up(1) == Some("versions") {
        EnvKind::Pyenv
    } else if up(1) == Some("python") && up(2) == Some("uv") {
        EnvKind::Uv
    } else {
        EnvKind::Prefix
    }
}

/// A venv's `pyvenv.cfg`: its base interpreter's folder (`home`), which must be there for its
/// python to start, and whether it sees the base's packages.
fn venv_config(w: &mut Walker<'_>, e: &mut PythonEnv, cfg: &Path) {
    let text = match crate::read_text(cfg) {
        Ok(t) => t,
        Err(err) => {
            e.problems
                .push(format!("{} cannot be read: {err}", cfg.display()));
            return;
        }
    };
    for line in text.lines() {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "home" => e.base = Some(v.to_string()),
            "include-system-site-packages" => {
                e.system_site_packages = v.eq_ignore_ascii_case("true")
            }
            _ => {}
        }
    }
    match &e.base {
        Some(home) if w.probe(Path::new(home)).is_none_or(|it| !it.is_dir) => {
            e.problems.push(format!(
                "pyvenv.cfg names home = {home}, which is not there: this venv's python cannot start (recreate it with python3 -m venv)"
            ));
        }
        None => e.problems.push(
            "pyvenv.cfg has no home line: this venv's python cannot find its base".to_string(),
        ),
        _ => {}
    }
}

/// `PREFIX/lib*/python3.Y/{site,dist}-packages` (and Debian's `lib/python3/dist-packages`),
/// with the versions `Y` seen.
pub(crate) fn site_packages(w: &mut Walker<'_>, prefix: &Path) -> (Vec<String>, Vec<PathBuf>) {
    let mut versions = BTreeSet::new();
    let mut out = Vec::new();
    for lib in ["lib", "lib64"] {
        let d = prefix.join(lib);
        for py in w.list(&d) {
            let Some(v) = py.strip_prefix("python") else {
                continue;
            };
            if !v.starts_with('3') {
                continue;
            }
            if v.contains('.') {
                versions.insert(v.to_string());
            }
            for sp in ["site-packages", "dist-packages"] {
                let p = d.join(&py).join(sp);
                if w.probe(&p).is_some_and(|it| it.is_dir) && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    (versions.into_iter().collect(), out)
}

/// The shell's `python3` and `python`, every one `PATH` finds, with the prefix each runs in.
fn path_interpreters(w: &mut Walker<'_>, env: &Env) -> Vec<(PathBuf, OnPath)> {
    let path = env
        .search("PATH")
        .map(|v| v.value.clone())
        .unwrap_or_else(|| DEFAULT_PATH.to_string());
    let mut out = Vec::new();
    for command in ["python3", "python"] {
        let mut first = true;
        let mut seen_dirs = BTreeSet::new();
        // `/bin` and `/usr/bin` are one folder on merged-/usr systems: one interpreter.
        let mut seen_real = BTreeSet::new();
        for dir in path.split(':').filter(|d| d.starts_with('/')) {
            if !seen_dirs.insert(dir) {
                continue;
            }
            let exe = Path::new(dir).join(command);
            if w.probe(&exe).is_none_or(|it| it.is_dir) {
                continue;
            }
            let real_dir = w.root().resolve(Path::new(dir)).ok();
            if !seen_real.insert(real_dir.unwrap_or_else(|| PathBuf::from(dir))) {
                continue;
            }
            let Some((prefix, via)) = prefix_of(w, env, &exe) else {
                continue;
            };
            let on = OnPath {
                command: command.to_string(),
                path: exe.display().to_string(),
                runs: first,
                via,
            };
            first = false;
            out.push((prefix, on));
        }
    }
    out
}

/// The prefix an interpreter runs in, and how it was found (`getpath.py`'s order).
fn prefix_of(w: &mut Walker<'_>, env: &Env, exe: &Path) -> Option<(PathBuf, String)> {
    let dir = exe.parent()?;
    if dir.file_name().is_some_and(|n| n == "shims") {
        if let Some(root) = dir
            .parent()
            .filter(|r| w.probe(&r.join("versions")).is_some())
        {
            return pyenv_version(w, env, root);
        }
    }
    for cand in [Some(dir), dir.parent()].into_iter().flatten() {
        if w.probe(&cand.join("pyvenv.cfg"))
            .is_some_and(|it| !it.is_dir)
        {
            let via = format!("a venv: {}/pyvenv.cfg", cand.display());
            return Some((cand.to_path_buf(), via));
        }
    }
    let real = w.root().resolve(exe).ok()?;
    let name = real.file_name()?.to_string_lossy().into_owned();
    let mut up = real.parent();
    for _ in 0..4 {
        let d = up?;
        if let Some(landmark) = landmark(w, d, &name) {
            let via = if real == exe {
                format!("the landmark {}", landmark.display())
            } else {
                format!(
                    "a link to {}, the landmark {}",
                    real.display(),
                    landmark.display()
                )
            };
            return Some((d.to_path_buf(), via));
        }
        up = d.parent();
    }
    None
}

/// `D/lib/pythonX.Y/os.py` for the version the executable names (`python3.12`), else any.
fn landmark(w: &mut Walker<'_>, d: &Path, exe_name: &str) -> Option<PathBuf> {
    let lib = d.join("lib");
    let wanted = exe_name.strip_prefix("python").filter(|v| v.contains('.'));
    let mut names = w.list(&lib);
    names.retain(|n| n.starts_with("python3"));
    if let Some(v) = wanted {
        names.retain(|n| n.strip_prefix("python") == Some(v));
    }
    names
        .into_iter()
        .map(|n| lib.join(n).join("os.py"))
        .find(|p| w.probe(p).is_some_and(|it| !it.is_dir))
}

/// The version a pyenv shim runs: `PYENV_VERSION`, else the first word of
/// `PYENV_ROOT/version`; `system` (or none) hands the command to the next one on `PATH`.
fn pyenv_version(w: &mut Walker<'_>, env: &Env, root: &Path) -> Option<(PathBuf, String)> {
    let (version, from) = match env.search("PYENV_VERSION") {
        Some(v) => (v.value.clone(), "PYENV_VERSION".to_string()),
        None => {
            let f = root.join("version");
            let host = w.probe(&f)?.host;
            let text = crate::read_text(host).ok()?;
            let v = text.split_whitespace().next()?.to_string();
            (v, f.display().to_string())
        }
    };
    let version = version.split(':').next().unwrap_or("").to_string();
    if version.is_empty() || version == "system" {
        return None;
    }
    let via = format!(
        "a pyenv shim: version {version} from {from}; a .python-version file in the working folder would win"
    );
    Some((root.join("versions").join(version), via))
}

/// The environments under `start`, down to `depth`: venvs, conda environments (a base's
/// `envs/` included), pyenv versions and uv's interpreters.
fn walk_for_envs(
    w: &mut Walker<'_>,
    start: &Path,
    depth: usize,
    pyenv_root: Option<&Path>,
    cap: usize,
) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut conda_bases: Vec<PathBuf> = Vec::new();
    let mut folders = 0usize;
    w.reset_seen();
    w.walk(start, depth, &mut |it| {
        if !it.is_dir {
            return Visit::Prune;
        }
        folders += 1;
        if folders > cap {
            return Visit::Prune;
        }
        if it.depth > 0 && skipped_folder(it, start, &conda_bases) {
            return Visit::Prune;
        }
        if it.host.join("pyvenv.cfg").is_file() {
            found.push(it.inside.clone());
            return Visit::Prune;
        }
        if it.host.join("conda-meta").is_dir() {
            found.push(it.inside.clone());
            conda_bases.push(it.inside.clone());
            return Visit::Descend;
        }
        let parent = it.inside.parent();
        let in_versions = parent.is_some_and(|p| {
            p.file_name().is_some_and(|n| n == "versions")
                && (p
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == ".pyenv")
                    || p.parent() == pyenv_root)
        });
        if in_versions || kind_by_place(&it.inside) == EnvKind::Uv {
            found.push(it.inside.clone());
            return Visit::Prune;
        }
        Visit::Descend
    });
    if folders > cap {
        w.limits
            .push(crate::walk::Limit::Folders(start.to_path_buf(), cap));
    }
    found
}

/// Folders the environment walk leaves: hidden ones that hold no environments, caches other
/// than poetry's, the ROCm trees in `/opt`, a conda base's folders other than `envs`.
fn skipped_folder(it: &Item, start: &Path, conda_bases: &[PathBuf]) -> bool {
    let name = it.name();
    let parent = it.inside.parent().unwrap_or(Path::new("/"));
    if PRUNED.contains(&name.as_str()) {
        return true;
    }
    if name.starts_with('.') && !HIDDEN_KEPT.contains(&name.as_str()) {
        return true;
    }
    if parent.file_name().is_some_and(|n| n == ".cache") && name != "pypoetry" {
        return true;
    }
    // pyenv's own tree (plugins, shims, sources) holds no environment but its versions.
    if parent.file_name().is_some_and(|n| n == ".pyenv") && name != "versions" {
        return true;
    }
    if conda_bases.iter().any(|b| b == parent) && name != "envs" {
        return true;
    }
    start == Path::new("/opt") && it.depth == 1 && (name == "rocm" || name.starts_with("rocm-"))
}

/// ROCm's Python packages in one site-packages folder, and the packages that load them.
fn rocm_sdk(w: &mut Walker<'_>, sp: &Path) -> Option<RocmSdk> {
    let names = w.list(sp);
    let mut sdk = RocmSdk::default();
    for n in &names {
        let Some(stem) = n.strip_suffix(".dist-info") else {
            continue;
        };
        let Some((dist, version)) = stem.rsplit_once('-') else {
            continue;
        };
        let dist = dist.to_ascii_lowercase().replace('-', "_");
        let sdk_dist =
            dist == "rocm" || dist.starts_with("rocm_sdk") || dist.contains("device_gfx");
        if !sdk_dist {
            continue;
        }
        // The selector's version names the SDK; the core's stands in without it.
        if dist == "rocm" || (dist == "rocm_sdk_core" && sdk.version.is_none()) {
            sdk.version = Some(version.to_string());
        }
        if let Some((_, t)) = dist.split_once("device_") {
            let into = if dist.starts_with("amd_torch_device") {
                &mut sdk.torch_device_targets
            } else {
                &mut sdk.device_targets
            };
            if t.starts_with("gfx") && !into.contains(&t.to_string()) {
                into.push(t.to_string());
            }
        }
        sdk.packages.push(format!("{dist} {version}"));
    }
    for n in names.iter().filter(|n| n.starts_with("_rocm_sdk_device_")) {
        let t = n.trim_start_matches("_rocm_sdk_device_").to_string();
        if !sdk.device_targets.contains(&t) {
            sdk.device_targets.push(t);
        }
    }
    sdk.device_targets.sort();
    for pkg in ["torch", "jax_rocm7_plugin", "torchvision"] {
        if let Some(u) = sdk_user(w, sp, pkg, sdk.version.as_deref()) {
            sdk.used_by.push(u);
        }
    }
    let any = !sdk.packages.is_empty() || !sdk.device_targets.is_empty() || !sdk.used_by.is_empty();
    any.then_some(sdk)
}

/// What an `_rocm_init.py` says: the version it checks (`check_version`) and the libraries it
/// preloads (`preload_shortnames`).
pub fn init_file(text: &str) -> (Option<String>, Vec<String>) {
    let check_version = quoted_after(text, "check_version");
    let preloads = match text.find("preload_shortnames") {
        Some(at) => {
            let rest = &text[at..];
            let end = rest.find(']').unwrap_or(rest.len());
            quoted_all(&rest[..end])
        }
        None => Vec::new(),
    };
    (check_version, preloads)
}

/// A package's `_rocm_init.py`: the version it checks and the libraries it preloads.
fn sdk_user(w: &mut Walker<'_>, sp: &Path, pkg: &str, installed: Option<&str>) -> Option<SdkUser> {
    let init = sp.join(pkg).join("_rocm_init.py");
    let host = w.probe(&init).filter(|it| !it.is_dir)?.host;
    let text = crate::read_text(&host).ok()?;
    let (check_version, preloads) = init_file(&text);
    let version_matches = match (&check_version, installed) {
        (Some(want), Some(have)) => Some(version_matches(want, have)),
        _ => None,
    };
    Some(SdkUser {
        package: pkg.to_string(),
        init: init.display().to_string(),
        check_version,
        version_matches,
        preloads,
    })
}

/// Whether an installed version satisfies a `check_version` (`7.10.*` matches any suffix).
pub fn version_matches(want: &str, have: &str) -> bool {
    match want.strip_suffix('*') {
        Some(prefix) => have.starts_with(prefix),
        None => want == have,
    }
}

/// The first quoted string after `key` (`check_version='7.10.0'`).
fn quoted_after(text: &str, key: &str) -> Option<String> {
    let rest = &text[text.find(key)? + key.len()..];
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let q = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &rest[1..];
    Some(body[..body.find(q)?].to_string())
}

/// Every quoted string in `text`.
fn quoted_all(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['\'', '"']) {
        let q = rest.as_bytes()[i] as char;
        let body = &rest[i + 1..];
        let Some(j) = body.find(q) else { break };
        out.push(body[..j].to_string());
        rest = &body[j + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_and_versions() {
        assert_eq!(kind_by_place(Path::new("/usr")), EnvKind::System);
        assert_eq!(kind_by_place(Path::new("/root/.local")), EnvKind::User);
        assert_eq!(
            kind_by_place(Path::new("/home/u/.pyenv/versions/3.11.9")),
            EnvKind::Pyenv
        );
        assert_eq!(
            kind_by_place(Path::new(
                "/home/u/.local/share/uv/python/cpython-3.12.4-linux"
            )),
            EnvKind::Uv
        );
        assert_eq!(kind_by_place(Path::new("/opt/python3.12")), EnvKind::Prefix);
        assert!(version_matches("7.10.*", "7.10.0rc2"));
        assert!(!version_matches("7.10.0", "7.9.0"));
    }

    #[test]
    fn init_file_strings() {
        let t = "rocm_sdk.initialize_process(preload_shortnames=[\n 'amdhip64', \"miopen\",\n], check_version='7.10.0a2')";
        assert_eq!(
            quoted_after(t, "check_version").as_deref(),
            Some("7.10.0a2")
        );
        let at = t.find("preload_shortnames").unwrap();
        let end = t[at..].find(']').unwrap();
        assert_eq!(quoted_all(&t[at..at + end]), ["amdhip64", "miopen"]);
        assert_eq!(quoted_after("check_version = None", "check_version"), None);
    }

    #[test]
    fn a_search_past_its_folders_stops_and_says_so() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..30 {
            std::fs::create_dir_all(d.path().join(format!("data/d{i:02}"))).unwrap();
        }
        std::fs::create_dir_all(d.path().join("data/zz/venv")).unwrap();
        std::fs::write(
            d.path().join("data/zz/venv/pyvenv.cfg"),
            "home = /usr/bin\n",
        )
        .unwrap();
        let root = crate::root::Root::new(d.path());
        let mut w = Walker::new(&root, &[], None);
        let found = walk_for_envs(&mut w, Path::new("/data"), 8, None, 1000);
        assert_eq!(found, [PathBuf::from("/data/zz/venv")]);
        let found = walk_for_envs(&mut w, Path::new("/data"), 8, None, 10);
        assert!(found.is_empty());
        assert!(
            w.limits
                .contains(&crate::walk::Limit::Folders("/data".into(), 10))
        );
    }

    proptest::proptest! {
        /// Any text of an init file is read without a panic, and every string found was in it.
        #[test]
        fn init_text_never_panics(t in "\\PC{0,200}") {
            if let Some(v) = quoted_after(&t, "check_version") {
                proptest::prop_assert!(t.contains(&v));
            }
            for q in quoted_all(&t) {
                proptest::prop_assert!(t.contains(&q));
            }
            let _ = version_matches(&t, "7.10.0");
        }
    }
}
