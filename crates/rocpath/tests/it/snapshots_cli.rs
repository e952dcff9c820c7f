#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Snapshots of what `rocpath` prints for people, on the bundled example data: the exit
//! status, stdout and stderr of each command. Commands run from the repository root with
//! relative paths; the version and the dates of the day are replaced by placeholders.

use assert_cmd::Command;
use std::path::Path;

/// Runs rocpath in `dir` and renders the outcome as one text.
pub(crate) fn outcome(dir: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("rocpath")
        .unwrap()
        .current_dir(dir)
        .env_remove("HSA_OVERRIDE_GFX_VERSION")
        .env_remove("HSA_OVERRIDE_GFX_VERSION_0")
        .env_remove("ROCBLAS_USE_HIPBLASLT")
        .env("COLUMNS", "100")
        .arg("--no-progress")
        .args(args)
        .output()
        .unwrap();
    format!(
        "$ rocpath --no-progress {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Snapshot settings: the crate version and today's date are not part of the output's shape.
fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(&regex_escape(env!("CARGO_PKG_VERSION")), "[VERSION]");
    s.add_filter(r"\b20\d\d-\d\d-\d\d(T[0-9:]+Z)?\b", "[DATE]");
    s.set_prepend_module_to_snapshot(false);
    s
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

fn snapshot(name: &str, args: &[&str]) {
    let root = rocpath_testdata::repo_root();
    let text = outcome(&root, args);
    settings().bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn inventory_of_the_example() {
    snapshot("cli_inventory", &["inventory", "examples/data"]);
}

#[test]
fn check_of_the_example_for_two_devices() {
    snapshot(
        "cli_check_gfx900_override",
        &[
            "check",
            "--target",
            "gfx900:xnack-",
            "--override",
            "9.0.6",
            "examples/data/install",
        ],
    );
    snapshot(
        "cli_check_gfx1201",
        &["check", "--target", "gfx1201", "examples/data/install"],
    );
    // xnack not given: the two explicit target ids to check again with.
    snapshot(
        "cli_check_gfx900_xnack_unknown",
        &[
            "check",
            "--target",
            "gfx900",
            "examples/data/install/opt/rocm-example/lib/libexample_blas.so.1.1",
        ],
    );
}

#[test]
fn diff_of_the_example_versions() {
    snapshot(
        "cli_diff",
        &["diff", "examples/data/install-old", "examples/data/install"],
    );
}

#[test]
fn isa_census_and_find_on_the_example() {
    snapshot("cli_isa", &["isa", "examples/data/install"]);
    snapshot(
        "cli_isa_find",
        &[
            "isa",
            "--find",
            "v_dot4_i32_i8,v_dot4_i32_iu8,v_mfma,v_wmma",
            "examples/data/install",
        ],
    );
}

#[test]
fn arch_table_and_one_target() {
    snapshot("cli_arch_gfx9", &["arch", "gfx9"]);
    snapshot("cli_arch_gfx900", &["arch", "gfx900"]);
    snapshot("cli_arch_unknown", &["arch", "vega"]);
}

/// The immediate fallback as a user reads it: TunaNet's order on gfx942 (the network and its
/// metadata as MIOpen installs them, `crates/rocpath-miopen/tests/data/tunanet`, no find-db
/// there), and the WTI ranking on gfx1201, whose problem gfx908's network does not take.
#[test]
fn explain_miopen_immediate_fallback_tunanet_and_wti() {
    snapshot(
        "cli_explain_miopen_tunanet_gfx942",
        &[
            "explain",
            "miopen",
            "--target",
            "gfx942",
            "--cu",
            "304",
            "--vram",
            "192G",
            "--mode",
            "immediate",
            "--db",
            "crates/rocpath-miopen/tests/data/tunanet",
            "--rocblas-library",
            "examples/data",
            "--problem",
            "48-37-37-3x3-80-37-37-3-1x1-1x1-1x1-0-NCHW-FP16-F",
        ],
    );
    snapshot(
        "cli_explain_miopen_wti_gfx1201",
        &[
            "explain",
            "miopen",
            "--target",
            "gfx1201",
            "--cu",
            "64",
            "--vram",
            "16G",
            "--mode",
            "immediate",
            "--db",
            "crates/rocpath-miopen/tests/data/tunanet",
            "--rocblas-library",
            "examples/data",
            "--problem",
            "64-28-28-3x3-128-28-28-8-1x1-1x1-1x1-0-NCHW-FP32-W",
        ],
    );
}

#[test]
fn explain_miopen_ggml_and_rocblas() {
    snapshot(
        "cli_explain_miopen_gfx900",
        &[
            "explain",
            "miopen",
            "--target",
            "gfx900",
            "--db",
            "examples/data/install/opt/rocm-example/share/miopen/db",
            "--problem",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F",
        ],
    );
    snapshot(
        "cli_explain_ggml",
        &["explain", "ggml", "--target", "gfx1201", "--type", "q4_K"],
    );
    snapshot(
        "cli_explain_rocblas",
        &[
            "explain",
            "rocblas",
            "--target",
            "gfx906",
            "--type",
            "f32",
            "--library-dir",
            "examples/data/install/opt/rocm-example/lib/example/library",
        ],
    );
}

#[test]
fn ledger_commands_in_a_fresh_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let steps: [&[&str]; 6] = [
        &["ledger", "init", "L"],
        &[
            "ledger",
            "add-claim",
            "L",
            "--id",
            "c1",
            "--class",
            "inferred",
            "--kind",
            "code_verified",
            "--en",
            "A claim.",
            "--layer",
            "fallback",
            "--date",
            "2026-01-02",
        ],
        &[
            "ledger",
            "set-class",
            "L",
            "c1",
            "--class",
            "confirmed",
            "--en",
            "Seen.",
            "--date",
            "2026-01-03",
        ],
        &[
            "ledger",
            "set-class",
            "L",
            "c1",
            "--class",
            "certain",
            "--en",
            "x",
        ],
        &["ledger", "check", "L"],
        &["ledger", "add-claim", "--help"],
    ];
    let text: Vec<String> = steps.iter().map(|a| outcome(dir.path(), a)).collect();
    settings().bind(|| insta::assert_snapshot!("cli_ledger", text.join("\n")));
}

#[test]
fn survey_of_the_saved_machine_images() {
    let root = rocpath_testdata::repo_root();
    for (name, image) in [
        ("cli_survey_gfx900", "gfx900-host"),
        ("cli_survey_gfx1201", "gfx1201-host"),
    ] {
        let dir = format!("crates/rocpath-survey/tests/data/{image}");
        let text = outcome(&root, &["survey", "--root", &dir]);
        let mut s = settings();
        s.add_filter(r"in \d+\.\d+ s", "in [SECONDS] s");
        s.bind(|| insta::assert_snapshot!(name, text));
    }
}

/// The shape of `rocpath.survey/1` (keys and value types; arrays by their first item).
#[test]
fn survey_json_shape() {
    let root = rocpath_testdata::repo_root();
    let image = "crates/rocpath-survey/tests/data/gfx900-host";
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocpath"))
        .current_dir(&root)
        .args(["--json", "survey", "--root", image])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = serde_json::to_string_pretty(&crate::gemm_cli::shape(&v)).unwrap();
    settings().bind(|| insta::assert_snapshot!("cli_survey_json_shape", text));
}

/// Folders at the depth limit: one line with the count and the nearest few, all with -v.
#[test]
fn survey_depth_limit_summary_and_verbose_list() {
    let root = rocpath_testdata::repo_root();
    let image = "crates/rocpath-survey/tests/data/gfx900-host";
    let args = ["survey", "--root", image, "--max-depth", "2"];
    let plain = outcome(&root, &args);
    let verbose = outcome(&root, &[&["-v"][..], &args[..]].concat());
    let mut s = settings();
    s.add_filter(r"in \d+\.\d+ s", "in [SECONDS] s");
    s.bind(|| {
        insta::assert_snapshot!("cli_survey_depth_limit", format!("{plain}\n{verbose}"));
    });
}

/// A server image whose GPU is NVIDIA's: the BMC's display controller as a DRM card, the GPU
/// in the NVIDIA driver's /proc list, no KFD, no rocminfo.
#[test]
fn survey_of_a_machine_whose_gpu_is_nvidia() {
    let d = tempfile::tempdir().unwrap();
    let dev = d.path().join("sys/devices/pci0000:00/0000:02:00.0");
    std::fs::create_dir_all(dev.join("drm/card0")).unwrap();
    std::fs::write(dev.join("vendor"), "0x1a03\n").unwrap();
    std::os::unix::fs::symlink("../../../0000:02:00.0", dev.join("drm/card0/device")).unwrap();
    std::fs::create_dir_all(d.path().join("sys/class/drm")).unwrap();
    std::os::unix::fs::symlink(
        "/sys/devices/pci0000:00/0000:02:00.0/drm/card0",
        d.path().join("sys/class/drm/card0"),
    )
    .unwrap();
    let nv = d.path().join("proc/driver/nvidia/gpus/0000:41:00.0");
    std::fs::create_dir_all(&nv).unwrap();
    std::fs::write(nv.join("information"), "Model: \t\t NVIDIA L40S\n").unwrap();
    let image = d.path().display().to_string();
    let text = outcome(d.path(), &["survey", "--root", &image]);
    let mut s = settings();
    s.add_filter(&regex_escape(&image), "[IMAGE]");
    s.add_filter(r"in \d+\.\d+ s", "in [SECONDS] s");
    s.bind(|| insta::assert_snapshot!("cli_survey_nvidia", text));
}

#[test]
fn kpack_packed_library_in_inventory_check_and_isa() {
    let tree = "crates/rocpath-sources/tests/data/kpack/gloo-packed";
    snapshot("cli_kpack_inventory", &["inventory", tree]);
    snapshot(
        "cli_kpack_check_gfx906",
        &["check", "--target", "gfx906", tree],
    );
    snapshot(
        "cli_kpack_check_gfx1030",
        &["check", "--target", "gfx1030", tree],
    );
    snapshot(
        "cli_kpack_isa_gfx900",
        &[
            "isa",
            "--target",
            "gfx900",
            "--find",
            "s_cbranch_execz",
            tree,
        ],
    );
}

/// Many machines: the surveys of the two saved images and of a copy of the Vega image whose
/// Ollama override was removed, with a file that is no survey beside them: the drift table
/// (that file named on stderr, exit 2), and the shape of `rocpath.fleet/1`.
#[test]
fn fleet_of_three_surveys_and_a_stray_file() {
    let root = rocpath_testdata::repo_root();
    let d = tempfile::tempdir().unwrap();
    let vega2 = d.path().join("vega2");
    copy_dir(
        &root.join("crates/rocpath-survey/tests/data/gfx900-host"),
        &vega2,
    );
    std::fs::write(vega2.join("etc/hostname"), "vega-node-2\n").unwrap();
    std::fs::remove_file(vega2.join("etc/systemd/system/ollama.service.d/override.conf")).unwrap();
    let surveys = d.path().join("surveys");
    std::fs::create_dir_all(&surveys).unwrap();
    let images = [
        (
            "vega",
            root.join("crates/rocpath-survey/tests/data/gfx900-host"),
        ),
        (
            "rdna4",
            root.join("crates/rocpath-survey/tests/data/gfx1201-host"),
        ),
        ("vega2", vega2),
    ];
    for (name, image) in &images {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocpath"))
            .args(["--json", "survey", "--root"])
            .arg(image)
            .output()
            .unwrap();
        std::fs::write(surveys.join(format!("{name}.json")), out.stdout).unwrap();
    }
    std::fs::write(
        surveys.join("notes.json"),
        "{\"schema\": \"rocpath.case/1\"}",
    )
    .unwrap();
    let text = outcome(d.path(), &["fleet", "surveys"]);
    assert!(text.contains("exit: 2"), "{text}");
    assert!(text.contains("notes.json"), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocpath"))
        .current_dir(d.path())
        .args(["--json", "fleet", "surveys/vega.json", "surveys/vega2.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "drift is a negative answer");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let drift: Vec<&str> = v["drift"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["aspect"].as_str().unwrap())
        .collect();
    assert!(
        drift.contains(&"variable ollama.service HSA_OVERRIDE_GFX_VERSION"),
        "{drift:?}"
    );
    let shape = serde_json::to_string_pretty(&crate::gemm_cli::shape(&v)).unwrap();
    let mut s = settings();
    s.add_filter(r"in \d+\.\d+ s", "in [SECONDS] s");
    s.bind(|| {
        insta::assert_snapshot!("cli_fleet", text);
        insta::assert_snapshot!("cli_fleet_json_shape", shape);
    });
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if e.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// The shape of each JSON document the commands on the bundled example data print (keys and
/// value types; arrays by their first item), one snapshot per document.
#[test]
fn json_document_shapes_on_the_example_data() {
    let root = rocpath_testdata::repo_root();
    let docs: [(&str, &[&str]); 9] = [
        ("inventory", &["inventory", "examples/data"]),
        (
            "check",
            &[
                "check",
                "--target",
                "gfx900:xnack-",
                "examples/data/install",
            ],
        ),
        (
            "diff",
            &["diff", "examples/data/install-old", "examples/data/install"],
        ),
        ("isa", &["isa", "examples/data/install"]),
        ("arch", &["arch", "gfx900"]),
        (
            "explain_miopen",
            &[
                "explain",
                "miopen",
                "--target",
                "gfx900",
                "--db",
                "examples/data/install/opt/rocm-example/share/miopen/db",
                "--problem",
                "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F",
            ],
        ),
        (
            "explain_miopen_fallback",
            &[
                "explain",
                "miopen",
                "--target",
                "gfx942",
                "--vram",
                "192G",
                "--mode",
                "immediate",
                "--db",
                "crates/rocpath-miopen/tests/data/tunanet",
                "--rocblas-library",
                "examples/data",
                "--problem",
                "48-37-37-3x3-80-37-37-3-1x1-1x1-1x1-0-NHWC-NHWC-NHWC-FP16-F",
            ],
        ),
        (
            "explain_ggml",
            &["explain", "ggml", "--target", "gfx1201", "--type", "q4_K"],
        ),
        (
            "explain_rocblas",
            &[
                "explain",
                "rocblas",
                "--target",
                "gfx906",
                "--type",
                "f32",
                "--library-dir",
                "examples/data/install/opt/rocm-example/lib/example/library",
            ],
        ),
    ];
    for (name, args) in docs {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocpath"))
            .current_dir(&root)
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        let text = serde_json::to_string_pretty(&crate::gemm_cli::shape(&v)).unwrap();
        settings().bind(|| insta::assert_snapshot!(format!("cli_{name}_json_shape"), text));
    }
}
