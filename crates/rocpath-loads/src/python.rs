//! A Python module as an interpreter finds it (`importlib.util.find_spec`), and what the
//! loader resolves for each extension module in it: importing a package with compiled parts
//! `dlopen`s each extension module, whose own `DT_NEEDED`, `DT_RUNPATH` and `$ORIGIN` then decide
//! which HIP, rocBLAS or MIOpen is taken (a torch wheel's `torch/lib`, not `/opt/rocm`).

use crate::{Library, Loads, LoadsError, Missing, Options, rocm};
use serde::Serialize;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The interpreter's answer is read up to this size.
const MAX_ANSWER: u64 = 1 << 20;
/// The interpreter must answer within this time.
const TIMEOUT: Duration = Duration::from_secs(60);
/// Most extension modules read in one package, and how deep its folders are walked.
const MAX_EXTENSIONS: usize = 2000;
const MAX_DEPTH: usize = 8;

/// Asks the interpreter where the module is; prints one JSON line. `find_spec` of a dotted
/// name imports the parent packages (their `__init__` runs); a top-level name runs nothing.
const FIND: &str = r#"import importlib.util, json, sys
n = sys.argv[1]
try:
    s = importlib.util.find_spec(n)
    out = {"found": s is not None, "origin": getattr(s, "origin", None),
           "folders": list(getattr(s, "submodule_search_locations", None) or [])}
except Exception as e:
    out = {"found": False, "error": "%s: %s" % (type(e).__name__, e)}
import importlib.machinery
out.update(executable=sys.executable, version=sys.version.split()[0], prefix=sys.prefix,
           suffixes=list(importlib.machinery.EXTENSION_SUFFIXES))
print(json.dumps(out))
"#;

/// Where an interpreter finds a module.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ModuleSpec {
    /// The interpreter's own path (`sys.executable`).
    pub executable: String,
    /// Its version.
    pub version: String,
    /// Its environment (`sys.prefix`: a venv, a conda environment, the system).
    pub prefix: String,
    /// The module was found.
    pub found: bool,
    /// Its file (`…/torch/__init__.py`, or the extension module itself).
    #[serde(default)]
    pub origin: Option<String>,
    /// A package's folders.
    #[serde(default)]
    pub folders: Vec<String>,
    /// The file-name endings of extension modules (`importlib.machinery.EXTENSION_SUFFIXES`).
    #[serde(default)]
    pub suffixes: Vec<String>,
    /// What `find_spec` raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Why the interpreter could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum PythonError {
    /// It could not be started.
    #[error("{python}: {cause} (give an interpreter with --python, e.g. venv/bin/python)")]
    Spawn {
        /// The interpreter.
        python: String,
        /// The cause.
        cause: std::io::Error,
    },
    /// It did not answer in time, or answered something else.
    #[error("{python}: {what}")]
    Answer {
        /// The interpreter.
        python: String,
        /// What happened.
        what: String,
    },
}

/// Asks `python` where `module` is.
pub fn find_module(python: &Path, module: &str) -> Result<ModuleSpec, PythonError> {
    let name = python.display().to_string();
    let answer = |what: String| PythonError::Answer {
        python: name.clone(),
        what,
    };
    let mut child = Command::new(python)
        .args(["-c", FIND, module])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|cause| PythonError::Spawn {
            python: name.clone(),
            cause,
        })?;
    let mut out = Vec::new();
    let reader = child.stdout.take().map(|s| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = s.take(MAX_ANSWER).read_to_end(&mut b);
            b
        })
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(answer(format!("no answer in {} s", TIMEOUT.as_secs())));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(answer(e.to_string())),
        }
    }
    if let Some(r) = reader {
        out = r.join().unwrap_or_default();
    }
    let text = String::from_utf8_lossy(&out);
    let line = text.lines().last().unwrap_or("");
    serde_json::from_str(line).map_err(|e| answer(format!("unexpected answer ({e}): {line:?}")))
}

/// The extension modules of a spec: the module itself when it is one, else every file under
/// the package's folders (bounded) that an import could load as a module — a name ending with
/// one of the interpreter's extension suffixes, before it a module name —, in path order. The
/// libraries shipped beside them are reached through their `DT_NEEDED`, as on import.
pub fn extensions(spec: &ModuleSpec) -> (Vec<PathBuf>, bool) {
    if let Some(o) = spec.origin.as_deref().filter(|o| is_extension(spec, o)) {
        return (vec![PathBuf::from(o)], false);
    }
    let mut out = BTreeSet::new();
    let mut truncated = false;
    for folder in &spec.folders {
        for e in walkdir::WalkDir::new(folder)
            .max_depth(MAX_DEPTH)
            .follow_links(false)
            .into_iter()
            .flatten()
        {
            let p = e.path().to_string_lossy().into_owned();
            if e.file_type().is_file() && is_extension(spec, &p) {
                if out.len() >= MAX_EXTENSIONS {
                    truncated = true;
                    break;
                }
                out.insert(PathBuf::from(p));
            }
        }
    }
    (out.into_iter().collect(), truncated)
}

fn is_extension(spec: &ModuleSpec, path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    spec.suffixes.iter().any(|suf| {
        base.strip_suffix(suf.as_str())
            .is_some_and(|stem| !stem.contains('.') && is_module_name(stem))
    })
}

/// What importing a module loads: each extension module's resolution merged, every library
/// once (the first extension that needs it names it), the names not found, the ROCm data.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleLoads {
    /// The module asked about.
    pub module: String,
    /// Where the interpreter finds it.
    pub spec: ModuleSpec,
    /// The extension modules read (an import `dlopen`s them).
    pub extensions: Vec<String>,
    /// More extension modules than are read: the rest are not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Libraries resolved, first extension first.
    pub libraries: Vec<Library>,
    /// Names not found.
    pub missing: Vec<Missing>,
    /// Where each ROCm library found reads its data.
    pub rocm_data: Vec<rocm::DataPath>,
    /// Extension modules that could not be read, and why.
    pub errors: Vec<rocpath_docs::ErrorItem>,
}

/// Resolves every extension module of `spec` with `base` (environment, cache, tree).
pub fn module_loads(module: &str, spec: ModuleSpec, base: &Options) -> ModuleLoads {
    let (exts, truncated) = extensions(&spec);
    let mut m = ModuleLoads {
        module: module.to_string(),
        spec,
        extensions: exts.iter().map(|p| p.display().to_string()).collect(),
        truncated,
        libraries: Vec::new(),
        missing: Vec::new(),
        rocm_data: Vec::new(),
        errors: Vec::new(),
    };
    let (mut seen, mut gone, mut data) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for e in &exts {
        let mut o = base.clone();
        o.target = e.clone();
        match crate::loads(&o) {
            Ok(l) => merge(&mut m, l, &mut seen, &mut gone, &mut data),
            Err(LoadsError::Static { .. }) => {}
            Err(err) => m.errors.push(rocpath_docs::ErrorItem::new(err.to_string())),
        }
    }
    m
}

fn merge(
    m: &mut ModuleLoads,
    l: Loads,
    seen: &mut BTreeSet<String>,
    gone: &mut BTreeSet<String>,
    data: &mut BTreeSet<(String, String)>,
) {
    for lib in l.libraries {
        if seen.insert(lib.path.clone()) {
            m.libraries.push(lib);
        }
    }
    for miss in l.missing {
        if gone.insert(miss.name.clone()) {
            m.missing.push(miss);
        }
    }
    for d in l.rocm_data {
        if data.insert((d.component.to_string(), d.folder.clone())) {
            m.rocm_data.push(d);
        }
    }
}

/// A name that can only be a Python module (`torch`, `torch.nn`): letters, digits and `_`
/// in dot-separated parts, not starting with a digit, no slash.
pub fn is_module_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_and_extension_files() {
        for n in ["torch", "torch.nn", "_C", "a1.b_2"] {
            assert!(is_module_name(n), "{n}");
        }
        for n in ["", "1x", "torch/", "./torch", "a..b", "lib-x", "x.so.6"] {
            assert!(!is_module_name(n), "{n}");
        }
        let spec = ModuleSpec {
            executable: "python3".into(),
            version: "3.11.7".into(),
            prefix: "/usr".into(),
            found: true,
            origin: None,
            folders: Vec::new(),
            suffixes: vec![
                ".cpython-311-x86_64-linux-gnu.so".into(),
                ".abi3.so".into(),
                ".so".into(),
            ],
            error: None,
        };
        for p in [
            "/x/torch/_C.cpython-311-x86_64-linux-gnu.so",
            "/x/pkg/_speedups.abi3.so",
            "/x/pkg/plain.so",
        ] {
            assert!(is_extension(&spec, p), "{p}");
        }
        for p in [
            "/x/torch/lib/libamdhip64.so.6",
            "/x/torch/_C.cpython-312-x86_64-linux-gnu.so",
            "/x/pkg/__init__.py",
        ] {
            assert!(!is_extension(&spec, p), "{p}");
        }
    }
}
