//! Python environments: packages recognised with their build, version, the ROCm libraries their
//! modules need resolved through `DT_RUNPATH`, and code objects per target. The real wheel
//! `jax-rocm7-plugin` 0.10.2 (PyPI) is read from `$ROCPATH_CORPUS/wheels/` when present; the
//! layout tests use the project's example libraries (`examples/data`, see `examples/README.md`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_inventory::{NoProgress, Options, scan};
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    rocpath_testdata::repo_root()
        .join("examples/data/install/opt/rocm-example/lib")
        .join(name)
}

fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

#[test]
fn rocm_cuda_and_cpu_builds_one_row_per_package_and_target() {
    let tmp = tempfile::tempdir().unwrap();
    let sp = tmp.path().join("lib/python3.12/site-packages");
    let dnn = std::fs::read(example("libexample_dnn.so.1.1")).unwrap();
    put(&sp, "torch/lib/libtorch_hip.so", &dnn);
    put(&sp, "torch/lib/libamdhip64.so", b"");
    put(
        &sp,
        "torch-2.5.1+rocm6.2.dist-info/METADATA",
        b"Name: torch\n",
    );
    put(
        &sp,
        "onnxruntime/capi/libonnxruntime_providers_cuda.so",
        b"",
    );
    put(&sp, "_rocm_sdk_core/lib/libamdhip64.so.7", b"");
    put(&sp, "numpy/__init__.py", b"");
    // A FIFO named like a module is not opened (it would block).
    let fifo = sp.join("_rocm_sdk_core/lib/libhang.so");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let inv = scan(std::slice::from_ref(&sp), &Options::default(), &NoProgress);
    let names: Vec<(&str, &str)> = inv
        .python
        .iter()
        .map(|p| (p.name.as_str(), p.build.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("_rocm_sdk_core", "rocm"),
            ("onnxruntime", "cuda"),
            ("torch", "rocm")
        ]
    );
    let torch = inv.python.iter().find(|p| p.name == "torch").unwrap();
    assert_eq!(torch.version.as_deref(), Some("2.5.1+rocm6.2"));
    assert_eq!(torch.build_by, "its bundled libraries");
    // The example library ships gfx942, gfx1100 and gfx1201 code.
    let targets: Vec<&str> = torch.targets.keys().map(String::as_str).collect();
    assert_eq!(targets, ["gfx1100", "gfx1201", "gfx942"]);
    assert_eq!(torch.evidence.rule, "inventory.python_package");
}

#[test]
#[ignore = "needs a jax_rocm7_plugin 0.10.2 wheel in $ROCPATH_CORPUS/wheels, which CI does not fetch"]
fn the_real_jax_rocm7_plugin_wheel() {
    let Some(corpus) = rocpath_testdata::corpus_root() else {
        rocpath_testdata::missing("no corpus folder (ROCPATH_CORPUS or HOME)");
        return;
    };
    let wheel = std::fs::read_dir(corpus.join("wheels"))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("jax_rocm7_plugin-0.10.2-"))
        });
    let Some(wheel) = wheel else {
        rocpath_testdata::missing("no jax_rocm7_plugin 0.10.2 wheel in $ROCPATH_CORPUS/wheels");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let sp = tmp.path().join("site-packages");
    zip::ZipArchive::new(std::fs::File::open(&wheel).unwrap())
        .unwrap()
        .extract(&sp)
        .unwrap();
    // The ROCm SDK wheel beside it: `$ORIGIN/../_rocm_sdk_core/lib` is in the plugin's runpath.
    put(&sp, "_rocm_sdk_core/lib/libamdhip64.so.7", b"");
    let inv = scan(std::slice::from_ref(&sp), &Options::default(), &NoProgress);
    assert!(inv.errors.is_empty(), "{:?}", inv.errors);
    let jax = inv
        .python
        .iter()
        .find(|p| p.name == "jax_rocm7_plugin")
        .unwrap();
    assert_eq!(
        (jax.version.as_deref(), jax.build.as_str()),
        (Some("0.10.2"), "rocm")
    );
    assert!(jax.targets.len() >= 23, "{:?}", jax.targets);
    assert!(jax.targets.contains_key("gfx900") && jax.targets.contains_key("gfx1201"));
    let hip = jax
        .resolves
        .iter()
        .find(|r| r.needed == "libamdhip64.so.7")
        .unwrap();
    assert!(
        hip.found
            .as_deref()
            .unwrap()
            .ends_with("jax_rocm7_plugin/../_rocm_sdk_core/lib/libamdhip64.so.7"),
        "{hip:?}"
    );
    // Libraries no runpath entry holds come from the system search path.
    assert!(
        jax.resolves
            .iter()
            .any(|r| r.needed == "libMIOpen.so.1" && r.found.is_none())
    );
}
