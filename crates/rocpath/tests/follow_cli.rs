#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `rocpath follow` on the small repository in `tests/data/follow` (see its README): the
//! trail as people read it, the Markdown, the JSON document's shape, and a SPEC that
//! matches nothing.

use assert_cmd::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("rocpath")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("--no-progress")
        .arg("follow")
        .args(args)
        .arg("--no-cache")
        .arg("tests/data/follow")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    s
}

#[test]
fn the_trail_of_a_field() {
    let (code, out, err) = run(&["--from", "srv/options.go:NumGPU"]);
    assert_eq!(code, 0, "{err}");
    settings().bind(|| insta::assert_snapshot!("cli_follow_trail", out));
}

#[test]
fn the_trail_as_markdown() {
    let (code, out, err) = run(&["--from", "TEST_GPU_LAYERS", "--markdown"]);
    assert_eq!(code, 0, "{err}");
    settings().bind(|| insta::assert_snapshot!("cli_follow_markdown", out));
}

#[test]
fn the_json_document() {
    let (code, out, err) = run(&["--from", "srv/options.go:NumThread", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "rocpath.follow/1");
    let root = &v["hops"][0];
    for key in [
        "path", "line", "commit", "text", "kind", "evidence", "children",
    ] {
        assert!(root.get(key).is_some(), "{key} in {root}");
    }
    assert_eq!(root["kind"], "origin");
    let flag = root["children"][0]["children"][0].clone();
    assert_eq!(flag["kind"], "flag", "{root}");
    assert_eq!(flag["evidence"], "unresolved");
}

#[test]
fn a_spec_matching_nothing_is_a_usage_error_with_the_nearest_names() {
    let (code, out, err) = run(&["--from", "num_gpus"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("matches nothing") && err.contains("num_gpu"),
        "{err}"
    );
}

/// A flag is a SPEC like any other: `--from --gpu-layers` and `--from=--gpu-layers` both
/// start at the flag (the argument parser used to refuse a value starting with a dash).
#[test]
fn a_flag_spec_may_start_with_dashes() {
    let (code, spaced, err) = run(&["--from", "--gpu-layers"]);
    assert_eq!(code, 0, "{err}");
    assert!(spaced.contains("tools/worker.py:7"), "{spaced}");
    let (code, joined, err) = run(&["--from=--gpu-layers"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(spaced, joined);
    let (code, _, err) = run(&["--from", "-gpu-layers"]);
    assert_eq!(code, 2, "a single dash is a different flag: {err}");
    assert!(err.contains("matches nothing"), "{err}");
}
