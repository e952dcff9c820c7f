//! Where GPU code is installed: ROCm trees (`/opt/rocm*`), distribution packages
//! (`/usr/lib/<multiarch>`), the packages of the Python environments `python.rs` finds
//! with ROCm builds of torch, jax and onnxruntime, Ollama's and llama.cpp's library folders,
//! Tensile folders named by `ROCBLAS_TENSILE_LIBPATH`-style variables, and folders given by
//! name. Each install is a list of files for the inventory: host libraries, standalone code
//! objects, Tensile index files and MIOpen databases (Tensile kernel files are not opened:
//! rocBLAS and hipBLASLt load a processor's kernels through its index, which decides).

use crate::env::{Env, SHELL};
use crate::python::PythonEnv;
use crate::rules;
use crate::walk::{Item, Visit, Walker};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What kind of install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A ROCm tree (`/opt/rocm-6.4.0`).
    Rocm,
    /// ROCm libraries from distribution packages (`/usr/lib/x86_64-linux-gnu`).
    Distribution,
    /// A Python package (torch, jax's ROCm plugin, onnxruntime) in an environment.
    Python,
    /// Ollama's library folder.
    Ollama,
    /// A llama.cpp (ggml) HIP backend.
    LlamaCpp,
    /// A Tensile folder named by a variable (`ROCBLAS_TENSILE_LIBPATH`).
    TensilePath,
    /// A folder given with `--paths`.
    Folder,
}

impl Kind {
    /// Short name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Rocm => "rocm",
            Kind::Distribution => "distribution",
            Kind::Python => "python",
            Kind::Ollama => "ollama",
            Kind::LlamaCpp => "llama.cpp",
            Kind::TensilePath => "tensile_path",
            Kind::Folder => "folder",
        }
    }
}

/// A ROCm library a program's library takes, and from which install.
#[derive(Debug, Clone, Serialize)]
pub struct Uses {
    /// The name asked for (`libamdhip64.so.6`).
    pub library: String,
    /// The ROCm component (`hip`, `rocblas`, `miopen`).
    pub component: String,
    /// The file taken (machine path), or None when the loader finds none.
    pub path: Option<String>,
    /// The loader's rule (`runpath`, `cache`, `ld_library_path`, …), or `preloaded` for a
    /// library the ROCm SDK wheels load first.
    pub rule: String,
    /// The install that holds the file (its label), when one does.
    pub install: Option<String>,
    /// Where it reads its data (rocBLAS's Tensile folder, MIOpen's databases).
    pub data: Vec<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// One install.
#[derive(Debug, Clone, Serialize)]
pub struct Install {
    /// A short unique label (`rocm-6.4.0`, `venv ~/ml torch`).
    pub label: String,
    /// Kind.
    pub kind: Kind,
    /// The machine path.
    pub path: String,
    /// The path read on this machine.
    pub host: String,
    /// Other machine paths that lead here (`/opt/rocm`).
    pub aliases: Vec<String>,
    /// Version, where the install says it (`.info/version`, `torch.version`).
    pub version: Option<String>,
    /// `rocm`, `cuda` or `cpu` for Python packages: what the bundled libraries are for.
    pub build: Option<String>,
    /// Which environment its programs see: `shell` or a service unit.
    pub scope: String,
    /// The Python environment of a package (its prefix).
    pub env: Option<String>,
    /// The ROCm libraries its program library takes, each with the install that holds it.
    pub uses: Vec<Uses>,
    /// Files handed to the inventory.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Evidence that it is there.
    pub evidence: Evidence,
    /// The files (paths on this machine).
    #[serde(skip)]
    pub paths: Vec<PathBuf>,
}

/// ROCm host libraries by name prefix (the distribution folders hold many other libraries).
const ROCM_LIBS: &[&str] = &[
    "librocblas",
    "libhipblas",
    "libhipblaslt",
    "libMIOpen",
    "librocsparse",
    "libhipsparse",
    "librocfft",
    "libhipfft",
    "librocrand",
    "libhiprand",
    "librocsolver",
    "libhipsolver",
    "librccl",
    "libamdhip64",
    "libhsa-runtime64",
    "libhipsparselt",
    "libhiptensor",
    "libmigraphx",
    "librocalution",
    "libgloo_hip",
    "libck_",
    "libdevice_",
];
/// Folders in distribution library folders that belong to ROCm libraries.
const ROCM_DIRS: &[&str] = &["rocblas", "hipblaslt", "miopen", "rocm", "hipsparselt"];
/// Folders never holding GPU code worth a look.
const PRUNE: &[&str] = &[
    "llvm",
    "cmake",
    "pkgconfig",
    "include",
    "__pycache__",
    "doc",
    "docs",
    "man",
    "test",
    "tests",
    "node_modules",
    ".git",
    "examples",
    "samples",
];

/// Whether the inventory should read a file, by name: host libraries, standalone code
/// objects (not Tensile kernel files), Tensile index files, MIOpen databases.
pub fn wanted(name: &str) -> bool {
    if rocpath_sources::names::classify(name).is_some() {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    let code = [".co", ".hsaco", ".hipfb", ".hip_fatbin"]
        .iter()
        .any(|x| lower.ends_with(x));
    if code {
        return rocpath_inventory::check::group_of(name) == name;
    }
    lower.ends_with(".so") || lower.contains(".so.")
}

/// Discovers every install. `extra` are machine paths given by name; with `only`, the
/// standard places are not looked at.
pub fn discover(
    w: &mut Walker<'_>,
    env: &Env,
    homes: &[PathBuf],
    envs: &[PythonEnv],
    extra: &[PathBuf],
    only: bool,
    depth: usize,
) -> Vec<Install> {
    let mut out = Vec::new();
    if !only {
        rocm_trees(w, depth, &mut out);
        distribution(w, depth, &mut out);
        python(w, envs, depth, &mut out);
        ollama(w, env, homes, depth, &mut out);
        llama_cpp(w, homes, depth, &mut out);
    }
    tensile_paths(w, env, depth, &mut out);
    for p in extra {
        folder(w, p, depth, &mut out);
    }
    dedupe(out)
}

/// The same folder found twice (`--paths` and a standard place): the first is kept.
fn dedupe(v: Vec<Install>) -> Vec<Install> {
    let mut seen = BTreeSet::new();
    let mut labels = BTreeSet::new();
    let mut out = Vec::new();
    for mut i in v {
        if !seen.insert((i.path.clone(), i.scope.clone())) {
            continue;
        }
        let base = i.label.clone();
        let mut n = 2;
        while !labels.insert(i.label.clone()) {
            i.label = format!("{base} ({n})");
            n += 1;
        }
        out.push(i);
    }
    out
}

fn new_install(kind: Kind, label: String, at: &Item, scope: &str) -> Install {
    Install {
        label,
        kind,
        path: at.inside.display().to_string(),
        host: at.host.display().to_string(),
        aliases: Vec::new(),
        version: None,
        build: None,
        scope: scope.to_string(),
        env: None,
        uses: Vec::new(),
        files: 0,
        bytes: 0,
        evidence: Evidence::new(
            Class::Confirmed,
            Proof::ShippedArtifactVerified,
            rules::INSTALL,
        )
        .at(Locator::file(at.host.display().to_string())),
        paths: Vec::new(),
    }
}

/// Adds the wanted files under `dir` (a machine path) to an install; `filter` narrows the
/// top level (distribution folders).
fn collect(
    w: &mut Walker<'_>,
    i: &mut Install,
    dir: &Path,
    depth: usize,
    top: &dyn Fn(&str) -> bool,
) {
    w.reset_seen();
    let mut files = Vec::new();
    w.walk(dir, depth, &mut |it| {
        let name = it.name();
        if it.depth == 1 && !top(&name) {
            return Visit::Prune;
        }
        if it.is_dir {
            return if it.depth > 0 && PRUNE.contains(&name.as_str()) {
                Visit::Prune
            } else {
                Visit::Descend
            };
        }
        if wanted(&name) {
            files.push((it.host.clone(), it.size));
        }
        Visit::Descend
    });
    for (p, size) in files {
        if !i.paths.contains(&p) {
            i.bytes += size;
            i.paths.push(p);
        }
    }
    i.files = i.paths.len();
    i.paths.sort();
}

fn any(_: &str) -> bool {
    true
}

/// `/opt/rocm*`: one install per real folder, the links to it as aliases.
fn rocm_trees(w: &mut Walker<'_>, depth: usize, out: &mut Vec<Install>) {
    let mut found: Vec<(String, Item)> = Vec::new();
    for name in list(w, Path::new("/opt")) {
        if name != "rocm" && !name.starts_with("rocm-") {
            continue;
        }
        let p = Path::new("/opt").join(&name);
        w.reset_seen();
        let Some(it) = w.item(&p, 0).filter(|it| it.is_dir) else {
            continue;
        };
        match found.iter_mut().find(|(_, f)| f.inside == it.inside) {
            Some((aliases, _)) => aliases.push_str(&format!(" {}", p.display())),
            None => found.push((p.display().to_string(), it)),
        }
    }
    for (names, it) in found {
        let base = it.name();
        let mut i = new_install(Kind::Rocm, base, &it, SHELL);
        i.aliases = names
            .split(' ')
            .filter(|a| *a != i.path)
            .map(str::to_string)
            .collect();
        i.version = crate::read_text(it.host.join(".info/version"))
            .ok()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        for sub in ["lib", "lib64", "share/miopen"] {
            collect(w, &mut i, &it.inside.join(sub), depth, &any);
        }
        out.push(i);
    }
}

/// Names in a machine folder, sorted; nothing when it is absent or unreadable.
fn list(w: &mut Walker<'_>, dir: &Path) -> Vec<String> {
    w.list(dir)
}

fn rocm_name(name: &str) -> bool {
    ROCM_LIBS.iter().any(|p| name.starts_with(p)) || ROCM_DIRS.contains(&name)
}

/// ROCm libraries of distribution packages, one install per library folder; MIOpen's
/// databases in `/usr/share/miopen` go with the folder that has `libMIOpen`.
fn distribution(w: &mut Walker<'_>, depth: usize, out: &mut Vec<Install>) {
    let mut dirs: Vec<PathBuf> = vec![
        "/usr/lib64".into(),
        "/usr/lib".into(),
        "/usr/local/lib".into(),
    ];
    for name in list(w, Path::new("/usr/lib")) {
        if name.ends_with("-linux-gnu") {
            dirs.insert(0, Path::new("/usr/lib").join(name));
        }
    }
    let first = out.len();
    let mut seen = BTreeSet::new();
    for d in dirs {
        w.reset_seen();
        let Some(it) = w.item(&d, 0).filter(|it| it.is_dir) else {
            continue;
        };
        if !seen.insert(it.inside.clone()) {
            continue;
        }
        let mut i = new_install(
            Kind::Distribution,
            it.inside.display().to_string(),
            &it,
            SHELL,
        );
        collect(w, &mut i, &it.inside, depth, &rocm_name);
        if i.files > 0 {
            out.push(i);
        }
    }
    let share = Path::new("/usr/share/miopen");
    let mine = out[first..].iter().position(|i| {
        i.paths
            .iter()
            .any(|p| p.to_string_lossy().contains("libMIOpen"))
    });
    if let Some(k) = mine.or((out.len() > first).then_some(0)) {
        let mut i = out.remove(first + k);
        collect(w, &mut i, share, depth, &any);
        out.insert(first + k, i);
    } else {
        w.reset_seen();
        if let Some(it) = w.item(share, 0).filter(|it| it.is_dir) {
            let mut i = new_install(Kind::Distribution, share.display().to_string(), &it, SHELL);
            collect(w, &mut i, share, depth, &any);
            if i.files > 0 {
                out.push(i);
            }
        }
    }
}

/// The GPU packages of every Python environment found ([`crate::python::discover`]).
fn python(w: &mut Walker<'_>, envs: &[PythonEnv], depth: usize, out: &mut Vec<Install>) {
    for e in envs {
        for sp in &e.site_packages {
            let first = out.len();
            packages(w, &e.label, Path::new(sp), depth, out);
            for i in &mut out[first..] {
                i.env = Some(e.path.clone());
            }
        }
    }
}

/// What a package folder is built for (one rule for survey and inventory).
fn build_of(name: &str, names: &[String]) -> &'static str {
    rocpath_inventory::python::package_build(name, names)
}

/// torch, jax's ROCm or CUDA plugins, onnxruntime and ROCm SDK wheels in one site-packages
/// folder (the packages `rocpath_inventory::python` knows).
fn packages(w: &mut Walker<'_>, env: &str, sp: &Path, depth: usize, out: &mut Vec<Install>) {
    for name in list(w, sp) {
        let Some(lib) = rocpath_inventory::python::package_lib(sp, &name) else {
            continue;
        };
        w.reset_seen();
        let Some(it) = w.item(&lib, 0).filter(|it| it.is_dir) else {
            continue;
        };
        let names = list(w, &lib);
        let build = build_of(&name, &names);
        if name == "onnxruntime" && build != "rocm" {
            continue;
        }
        let mut i = new_install(Kind::Python, format!("{env} {name}"), &it, SHELL);
        i.build = Some(build.to_string());
        if name == "torch" {
            i.version = torch_version(&w_host(w, &sp.join("torch/version.py")));
        }
        if build == "rocm" {
            collect(w, &mut i, &lib, depth, &any);
        }
        out.push(i);
    }
}

fn w_host(w: &Walker<'_>, inside: &Path) -> PathBuf {
    w.root().join(inside)
}

/// `__version__ = '2.5.1+rocm6.2'` of `torch/version.py`.
pub fn torch_version(path: &Path) -> Option<String> {
    let text = crate::read_text(path).ok()?;
    text.lines().find_map(|l| {
        let v = l
            .trim()
            .strip_prefix("__version__")?
            .trim()
            .strip_prefix('=')?
            .trim();
        let v = v.trim_matches(|c| c == '\'' || c == '"');
        (!v.is_empty()).then(|| v.to_string())
    })
}

/// Ollama's library folders; their programs see the `ollama.service` environment when the
/// unit exists.
fn ollama(w: &mut Walker<'_>, env: &Env, homes: &[PathBuf], depth: usize, out: &mut Vec<Install>) {
    let scope = if env.has_unit("ollama.service") {
        "ollama.service"
    } else {
        SHELL
    };
    let mut places: Vec<PathBuf> = vec![
        "/usr/lib/ollama".into(),
        "/usr/local/lib/ollama".into(),
        "/opt/ollama/lib/ollama".into(),
    ];
    places.extend(homes.iter().map(|h| h.join(".local/lib/ollama")));
    for p in places {
        w.reset_seen();
        let Some(it) = w.item(&p, 0).filter(|it| it.is_dir) else {
            continue;
        };
        let mut i = new_install(
            Kind::Ollama,
            format!("ollama {}", it.inside.display()),
            &it,
            scope,
        );
        collect(w, &mut i, &it.inside, depth, &any);
        out.push(i);
    }
}

/// llama.cpp HIP backends (`libggml-hip.so`): Debian's ggml backends folder, `/usr/local`,
/// and builds under the homes.
fn llama_cpp(w: &mut Walker<'_>, homes: &[PathBuf], depth: usize, out: &mut Vec<Install>) {
    let mut places: Vec<PathBuf> = vec![
        "/usr/local/lib".into(),
        "/usr/local/bin".into(),
        "/opt".into(),
    ];
    for name in list(w, Path::new("/usr/lib")) {
        if name.ends_with("-linux-gnu") {
            places.push(Path::new("/usr/lib").join(name).join("ggml"));
        }
    }
    places.extend(homes.iter().cloned());
    let mut dirs: Vec<Item> = Vec::new();
    for p in places {
        w.reset_seen();
        w.walk(&p, depth, &mut |it| {
            let name = it.name();
            if it.is_dir {
                let skip = (name.starts_with('.') && it.depth > 0)
                    || PRUNE.contains(&name.as_str())
                    || name == "ollama"
                    || name == "site-packages";
                return if skip { Visit::Prune } else { Visit::Descend };
            }
            if name.starts_with("libggml-hip.so") {
                if let Some(parent) = it.inside.parent() {
                    if !dirs.iter().any(|d| d.inside == parent) {
                        dirs.push(Item {
                            inside: parent.to_path_buf(),
                            host: it.host.parent().map(Path::to_path_buf).unwrap_or_default(),
                            depth: 0,
                            is_dir: true,
                            size: 0,
                        });
                    }
                }
            }
            Visit::Descend
        });
    }
    for d in dirs {
        let mut i = new_install(
            Kind::LlamaCpp,
            format!("llama.cpp {}", d.inside.display()),
            &d,
            SHELL,
        );
        collect(w, &mut i, &d.inside, 1, &|n| {
            n.starts_with("libggml-hip") || n.starts_with("rocblas") || n.starts_with("hipblaslt")
        });
        out.push(i);
    }
}

/// Folders named by `ROCBLAS_TENSILE_LIBPATH` and `HIPBLASLT_TENSILE_LIBPATH`, in the scope
/// that sets them.
fn tensile_paths(w: &mut Walker<'_>, env: &Env, depth: usize, out: &mut Vec<Install>) {
    for v in env.effective() {
        if v.name != "ROCBLAS_TENSILE_LIBPATH" && v.name != "HIPBLASLT_TENSILE_LIBPATH" {
            continue;
        }
        w.reset_seen();
        let Some(it) = w.item(Path::new(&v.value), 0).filter(|it| it.is_dir) else {
            continue;
        };
        let mut i = new_install(
            Kind::TensilePath,
            format!("{} ({})", v.name, v.scope),
            &it,
            &v.scope,
        );
        collect(w, &mut i, &it.inside, depth, &any);
        out.push(i);
    }
}

/// A folder given by name: a Python environment's packages if it is one, else everything
/// wanted in it.
fn folder(w: &mut Walker<'_>, p: &Path, depth: usize, out: &mut Vec<Install>) {
    w.reset_seen();
    let Some(it) = w.item(p, 0) else { return };
    let sps = if it.is_dir {
        crate::python::site_packages(w, &it.inside).1
    } else {
        Vec::new()
    };
    if !sps.is_empty() {
        for sp in sps {
            packages(w, &it.inside.display().to_string(), &sp, depth, out);
        }
        return;
    }
    let mut i = new_install(Kind::Folder, it.inside.display().to_string(), &it, SHELL);
    if it.is_dir {
        collect(w, &mut i, &it.inside, depth, &any);
    } else {
        i.files = 1;
        i.bytes = it.size;
        i.paths.push(it.host.clone());
    }
    out.push(i);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wanted_files() {
        assert!(wanted("librocblas.so.4.4"));
        assert!(wanted("libggml-hip.so"));
        assert!(wanted("TensileLibrary_lazy_gfx900.dat"));
        assert!(wanted("TensileLibrary.dat"));
        assert!(wanted("gfx900_64.HIP.fdb.txt"));
        assert!(wanted("blit_gfx900.co"));
        assert!(!wanted(
            "TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx900.co"
        ));
        assert!(!wanted("Kernels.so-000-gfx900.hsaco"));
        assert!(!wanted("README.md"));
    }

    #[test]
    fn builds_by_name_and_bundled_libraries() {
        let v = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            build_of("torch", &v(&["libtorch_hip.so", "libamdhip64.so.6"])),
            "rocm"
        );
        assert_eq!(
            build_of("torch", &v(&["libc10_cuda.so", "libtorch.so"])),
            "cuda"
        );
        assert_eq!(build_of("torch", &v(&["libtorch_cpu.so"])), "cpu");
        // jax's ROCm plugin bundles no ROCm library: its name says it.
        assert_eq!(build_of("jax_rocm7_plugin", &v(&["_linalg.so"])), "rocm");
    }
}
