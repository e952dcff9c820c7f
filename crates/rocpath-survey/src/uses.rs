//! Which install a program really takes its ROCm libraries from. The install on disk is not
//! always what runs: a torch wheel carries its own HIP and rocBLAS under `torch/lib` (found
//! through its `DT_RUNPATH` `$ORIGIN`), so a newer ROCm under `/opt/rocm` changes nothing for it;
//! a library without one takes what `LD_LIBRARY_PATH` or `/etc/ld.so.cache` gives; a torch of
//! ROCm's Python packaging preloads them from the SDK wheels (`rocm_sdk.initialize_process`).
//!
//! For each install with a program library (torch's `libtorch_hip.so`, ONNX Runtime's ROCm or
//! MIGraphX provider, `libggml-hip.so` of Ollama and llama.cpp) the loader's resolution is
//! predicted with `rocpath_loads` in the install's scope (`LD_LIBRARY_PATH` of the shell or of
//! the service), and each ROCm library it reaches is tied to the install that holds the file.

use crate::env::Env;
pub use crate::installs::Uses;
use crate::installs::{Install, Kind};
use crate::python::PythonEnv;
use crate::root::Root;
use crate::rules;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The variables the loader and the ROCm libraries read.
const READ: [&str; 3] = [
    "LD_LIBRARY_PATH",
    "ROCBLAS_TENSILE_LIBPATH",
    "HIPBLASLT_TENSILE_LIBPATH",
];

/// The library of an install whose loading is predicted: the one a program opens.
fn entry(i: &Install) -> Option<&Path> {
    let wanted = |n: &str| match i.kind {
        Kind::Python => {
            n == "libtorch_hip.so"
                || n.starts_with("libonnxruntime_providers_rocm")
                || n.starts_with("libonnxruntime_providers_migraphx")
        }
        Kind::Ollama | Kind::LlamaCpp => n.starts_with("libggml-hip.so"),
        _ => false,
    };
    i.paths
        .iter()
        .map(|p| p.as_path())
        .find(|p| p.file_name().is_some_and(|n| wanted(&n.to_string_lossy())))
}

/// Fills `uses` of every install with a program library.
pub fn tie(root: &Root, env: &Env, envs: &[PythonEnv], installs: &mut [Install]) {
    let tree: Arc<Root> = Arc::new(root.clone());
    let owners: Vec<(String, Vec<String>)> = installs
        .iter()
        .map(|i| {
            let mut p = vec![i.path.clone()];
            p.extend(i.aliases.iter().cloned());
            (i.label.clone(), p)
        })
        .collect();
    for i in installs.iter_mut() {
        let Some(host) = entry(i) else { continue };
        let machine = root.inside(host);
        let mut opts = rocpath_loads::Options::new(&machine);
        opts.tree = tree.clone();
        opts.env = scope_env(env, &i.scope);
        let Ok(l) = rocpath_loads::loads(&opts) else {
            continue;
        };
        let sdk = i
            .env
            .as_deref()
            .and_then(|e| envs.iter().find(|x| x.path == e))
            .and_then(|e| e.rocm_sdk.as_ref())
            .is_some_and(|s| !s.used_by.is_empty());
        i.uses = resolved(&l, &owners, &machine.display().to_string(), sdk);
    }
}

/// The variables a program in `scope` sees.
fn scope_env(env: &Env, scope: &str) -> BTreeMap<String, String> {
    env.effective()
        .into_iter()
        .filter(|v| v.scope == scope && READ.contains(&v.name.as_str()))
        .map(|v| (v.name, v.value))
        .collect()
}

/// The install whose folder holds a machine path (the longest such folder).
fn owner(owners: &[(String, Vec<String>)], path: &str) -> Option<String> {
    owners
        .iter()
        .flat_map(|(label, ps)| ps.iter().map(move |p| (label, p)))
        .filter(|(_, p)| Path::new(path).starts_with(p.as_str()))
        .max_by_key(|(_, p)| p.len())
        .map(|(l, _)| l.clone())
}

/// The ROCm libraries reached, and the ROCm names not found (preloaded when the environment's
/// SDK wheels serve the package).
fn resolved(
    l: &rocpath_loads::Loads,
    owners: &[(String, Vec<String>)],
    entry: &str,
    sdk: bool,
) -> Vec<Uses> {
    let mut out = Vec::new();
    for lib in &l.libraries {
        let Some(component) = lib.rocm else { continue };
        let install = owner(owners, &lib.path);
        let data: Vec<String> = l
            .rocm_data
            .iter()
            .filter(|d| d.library == lib.path)
            .map(|d| format!("{}: {}", d.what, d.folder))
            .collect();
        let why = format!(
            "{entry} takes {} from {} (by {}{})",
            lib.name,
            lib.path,
            lib.rule.as_str(),
            install
                .as_deref()
                .map(|i| format!("; the install {i}"))
                .unwrap_or_default()
        );
        out.push(uses(
            &lib.name,
            component,
            Some(&lib.path),
            lib.rule.as_str(),
            install,
            data,
            why,
        ));
    }
    for m in &l.missing {
        let Some(component) = rocpath_loads::rocm::which(&m.name) else {
            continue;
        };
        let (rule, why) = if sdk {
            (
                "preloaded",
                format!(
                    "{entry} needs {}, which the ROCm SDK wheels of its environment load first (rocm_sdk.initialize_process in _rocm_init.py); the loader alone finds none",
                    m.name
                ),
            )
        } else {
            (
                "not_found",
                format!(
                    "{entry} needs {}, which the loader finds nowhere: loading it fails (\"cannot open shared object file\")",
                    m.name
                ),
            )
        };
        out.push(uses(&m.name, component, None, rule, None, Vec::new(), why));
    }
    out
}

fn uses(
    library: &str,
    component: &str,
    path: Option<&str>,
    rule: &str,
    install: Option<String>,
    data: Vec<String>,
    why: String,
) -> Uses {
    let class = if rule == "not_found" || rule == "preloaded" {
        Class::Inferred
    } else {
        Class::Confirmed
    };
    let mut evidence =
        Evidence::new(class, Proof::ShippedArtifactVerified, rules::USES).because(why);
    if let Some(p) = path {
        evidence = evidence.at(Locator::file(p));
    }
    Uses {
        library: library.to_string(),
        component: component.to_string(),
        path: path.map(str::to_string),
        rule: rule.to_string(),
        install,
        data,
        evidence,
    }
}
