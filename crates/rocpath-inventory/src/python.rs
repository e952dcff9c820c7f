//! Python environments: which packages of a site-packages folder carry GPU code, what they are
//! built for, where their ROCm libraries resolve, and their code objects per target.
//!
//! Packages read: `torch` (`torch/lib`), `onnxruntime` (`onnxruntime/capi`), jax's plugins
//! (`jax_rocm7_plugin`, `jax_rocm7_pjrt`, `jaxlib_rocm…`, `jax_cuda…`) and the ROCm SDK wheels
//! of ROCm's own Python packaging (`_rocm_sdk_core`, `_rocm_sdk_libraries_<family>`,
//! `_rocm_sdk_device_<arch>` with per-arch device code). A build is told apart by the package
//! name (`jax_rocm…` is ROCm), its bundled libraries (`libamdhip64`, `libMIOpen`, an execution
//! provider for ROCm/MIGraphX, or CUDA's), else by what its extension modules link
//! (`DT_NEEDED`). A ROCm library a module needs is resolved the way the dynamic loader does for
//! `DT_RUNPATH` (`$ORIGIN` expanded, first existing entry wins); one found in no entry comes
//! from the system search path.

use crate::{CodeObjectRecord, Inventory};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Rule ids.
pub mod rules {
    /// A package of a Python environment and what its libraries are built for.
    pub const PACKAGE: &str = "inventory.python_package";
}

/// What a package's libraries are built for.
pub fn build_of(names: &[String]) -> &'static str {
    if names
        .iter()
        .any(|n| is_rocm_lib(n) || n.contains("providers_rocm") || n.contains("providers_migraphx"))
    {
        "rocm"
    } else if names.iter().any(|n| {
        n.starts_with("libcudart")
            || n.starts_with("libc10_cuda")
            || n.starts_with("libcublas")
            || n.contains("providers_cuda")
    }) {
        "cuda"
    } else {
        "cpu"
    }
}

/// What a package is built for by its name (`jax_rocm7_plugin`, `jax_cuda12_plugin`), else by
/// its bundled libraries ([`build_of`]).
pub fn package_build(name: &str, files: &[String]) -> &'static str {
    if name.contains("rocm") {
        "rocm"
    } else if name.contains("cuda") {
        "cuda"
    } else {
        build_of(files)
    }
}

/// ROCm runtime and math libraries, by file name.
fn is_rocm_lib(n: &str) -> bool {
    [
        "libamdhip64",
        "libMIOpen",
        "librocblas",
        "libhipblas",
        "libhsa-runtime64",
        "librocsparse",
        "libhipsparse",
        "librocsolver",
        "libhipsolver",
        "librccl",
        "libroctx64",
        "librocfft",
        "libhipfft",
        "librocrand",
        "libhiprand",
        "libmigraphx",
    ]
    .iter()
    .any(|p| n.starts_with(p))
}

/// The folder of a package whose libraries are read, when `name` (an entry of the
/// site-packages folder `sp`) is one rocpath knows.
pub fn package_lib(sp: &Path, name: &str) -> Option<PathBuf> {
    if name.contains('.') {
        return None; // `.dist-info`, `.pth`, modules
    }
    Some(match name {
        "torch" => sp.join("torch/lib"),
        "onnxruntime" => sp.join("onnxruntime/capi"),
        n if n.starts_with("jax_rocm")
            || n.starts_with("jax_cuda")
            || n.starts_with("jaxlib_rocm")
            || n.starts_with("jaxlib_cuda")
            || n.starts_with("_rocm_sdk_") =>
        {
            sp.join(n)
        }
        _ => return None,
    })
}

pub use rocpath_docs::inventory::{PythonPackage, Resolved};

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    v.sort();
    v
}

/// The version of `name` from `<name>-<version>.dist-info` in `sp`.
fn version_of(sp: &Path, name: &str, all: &[String]) -> Option<String> {
    let dist = name.trim_start_matches('_');
    all.iter()
        .find_map(|n| {
            let stem = n.strip_suffix(".dist-info")?;
            let (pkg, ver) = stem.rsplit_once('-')?;
            (pkg.eq_ignore_ascii_case(name) || pkg.eq_ignore_ascii_case(dist))
                .then(|| ver.to_string())
        })
        .filter(|_| sp.is_dir())
}

/// The packages of one site-packages folder (code objects attached later).
pub fn packages_in(sp: &Path) -> Vec<PythonPackage> {
    let all = names_in(sp);
    let mut out = Vec::new();
    for name in &all {
        let Some(lib) = package_lib(sp, name).filter(|l| l.is_dir()) else {
            continue;
        };
        let files = names_in(&lib);
        let mods: Vec<PathBuf> = files
            .iter()
            .filter(|f| f.contains(".so"))
            .take(256)
            .map(|f| lib.join(f))
            .collect();
        let resolves = resolve_all(&mods);
        let by_name = name.contains("rocm") || name.contains("cuda");
        let (build, build_by) = match package_build(name, &files) {
            b if by_name => (b, "the package name".to_string()),
            "cpu" if !resolves.is_empty() => {
                ("rocm", "the ROCm libraries its modules link".to_string())
            }
            b => (b, "its bundled libraries".to_string()),
        };
        let why = format!("{name}: a {build} build, by {build_by}");
        out.push(PythonPackage {
            name: name.clone(),
            dir: lib.display().to_string(),
            version: version_of(sp, name, &all),
            build: build.into(),
            build_by,
            resolves,
            targets: BTreeMap::new(),
            evidence: Evidence::new(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                rules::PACKAGE,
            )
            .at(Locator::file(lib.display().to_string()))
            .because(why),
        });
    }
    out
}

/// `DT_NEEDED` and `DT_RUNPATH`/`DT_RPATH` of an ELF file.
fn dynamic(path: &Path) -> Option<(Vec<String>, Vec<String>)> {
    use object::read::elf::{Dyn, FileHeader};
    // Regular files only: a FIFO named like a module would block the open.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let f = std::fs::File::open(path).ok()?;
    let map = rocpath_budget::map::Map::new(&f).ok()?;
    let elf = object::elf::FileHeader64::<object::Endianness>::parse(&*map).ok()?;
    let e = elf.endian().ok()?;
    let sections = elf.sections(e, &*map).ok()?;
    let (dyns, link) = sections.dynamic(e, &*map).ok()??;
    let strings = sections.strings(e, &*map, link).ok()?;
    let (mut needed, mut runpath) = (Vec::new(), Vec::new());
    for d in dyns {
        let tag = d.d_tag(e) as u32;
        let s = || {
            d.string(e, strings)
                .ok()
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        match tag {
            object::elf::DT_NEEDED => needed.extend(s()),
            object::elf::DT_RUNPATH | object::elf::DT_RPATH => runpath.extend(
                s().into_iter()
                    .flat_map(|r| r.split(':').map(str::to_string).collect::<Vec<_>>()),
            ),
            _ => {}
        }
    }
    // A module that shrank while read has no reliable dynamic section.
    (!map.shrank()).then_some((needed, runpath))
}

/// The ROCm libraries the modules need, each resolved once through the runpath of the first
/// module that needs it.
fn resolve_all(mods: &[PathBuf]) -> Vec<Resolved> {
    let mut out: BTreeMap<String, Option<String>> = BTreeMap::new();
    for m in mods {
        let Some((needed, runpath)) = dynamic(m) else {
            continue;
        };
        let origin = m.parent().unwrap_or(Path::new("."));
        for n in needed.into_iter().filter(|n| is_rocm_lib(n)) {
            if out.contains_key(&n) {
                continue;
            }
            let found = runpath.iter().find_map(|r| {
                let dir = r
                    .replace("$ORIGIN", &origin.display().to_string())
                    .replace("${ORIGIN}", &origin.display().to_string());
                let p = Path::new(&dir).join(&n);
                p.is_file().then(|| p.display().to_string())
            });
            out.insert(n, found);
        }
    }
    out.into_iter()
        .map(|(needed, found)| Resolved { needed, found })
        .collect()
}

/// The packages under the scanned paths (site-packages folders, or a package folder), with
/// their code objects counted per target id.
pub fn packages_of(paths: &[PathBuf], code_objects: &[CodeObjectRecord]) -> Vec<PythonPackage> {
    let mut out: Vec<PythonPackage> = Vec::new();
    for p in paths {
        let sp = if package_lib(
            p.parent().unwrap_or(p),
            &p.file_name().unwrap_or_default().to_string_lossy(),
        )
        .is_some()
        {
            p.parent().map(Path::to_path_buf)
        } else {
            Some(p.clone())
        };
        let Some(sp) = sp.filter(|s| s.is_dir()) else {
            continue;
        };
        for pkg in packages_in(&sp) {
            if !out.iter().any(|o| o.dir == pkg.dir) {
                out.push(pkg);
            }
        }
    }
    for pkg in &mut out {
        let root = Path::new(&pkg.dir);
        let root = if pkg.name == "torch" || pkg.name == "onnxruntime" {
            root.parent().unwrap_or(root)
        } else {
            root
        };
        let prefix = format!("{}/", root.display());
        for co in code_objects.iter().filter(|c| c.path.starts_with(&prefix)) {
            *pkg.targets.entry(co.target.to_string()).or_default() += 1;
        }
    }
    out
}

/// How long an interpreter may take to name its site-packages folders.
pub const PYTHON_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The site-packages folders of a Python interpreter (`site.getsitepackages()` and the user
/// site), as it reports them.
pub fn site_packages_of(python: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut cmd = std::process::Command::new(python);
    cmd.args([
        "-c",
        "import site,sys;print('\\n'.join(site.getsitepackages()+[site.getusersitepackages()]))",
    ]);
    // An interpreter is a program of the machine: it may hang or flood (a broken sitecustomize).
    let out = rocpath_budget::child::run(cmd, PYTHON_TIMEOUT, 1 << 20)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    if !out.status.success() {
        return Err(std::io::Error::other(format!(
            "{} exited with {}: {}",
            python.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect())
}

/// Attaches the Python packages among the scanned paths (see [`packages_of`]).
pub fn attach_python(inv: &mut Inventory, paths: &[PathBuf]) {
    inv.python = packages_of(paths, &inv.code_objects);
}
