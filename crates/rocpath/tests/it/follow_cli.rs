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
    let shape = serde_json::to_string_pretty(&crate::gemm_cli::shape(&v)).unwrap();
    settings().bind(|| insta::assert_snapshot!("cli_follow_json_shape", shape));
    crate::doc_contract::reads_back::<rocpath_docs::follow::FollowDoc>(v);
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

fn follow_cached(repo: &std::path::Path, cache: &std::path::Path) -> (String, String) {
    let out = Command::cargo_bin("rocpath")
        .unwrap()
        .env("ROCPATH_CACHE", cache)
        .args(["--no-progress", "follow", "--from", "app/opts.go:NumGPU"])
        .arg(repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A checkout edited after its commit: the cache (kept per commit) is not reused for the
/// edited work tree, so hops cite the lines as they are now, and the edit is said. Before,
/// the trail of the commit came back with the current text of its old line numbers.
#[test]
fn an_edited_checkout_is_followed_as_it_is_with_a_note() {
    if !rocpath_testdata::git::have_git() {
        return;
    }
    let repo = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let file = repo.path().join("app/opts.go");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let src = "package app\n\ntype Opts struct {\n\tNumGPU int\n}\n\nfunc use(o Opts) int {\n\tn := o.NumGPU\n\treturn n\n}\n";
    std::fs::write(&file, src).unwrap();
    let who = ("A", "a@example.com");
    let date = "2024-01-01T00:00:00Z";
    for args in [
        &["init", "-q"][..],
        &["add", "."],
        &["commit", "-q", "-m", "x"],
    ] {
        rocpath_testdata::git::git(repo.path(), args, who, date);
    }
    let (clean, err) = follow_cached(repo.path(), cache.path());
    assert!(clean.contains("app/opts.go:8@"), "{clean}");
    assert!(!err.contains("differs from commit"), "{err}");
    // A line added above the read: the read is on line 9 now.
    std::fs::write(&file, src.replace("\tn := o", "\t// the layers\n\tn := o")).unwrap();
    let (edited, err) = follow_cached(repo.path(), cache.path());
    assert!(
        edited.contains("app/opts.go:9@") && !edited.contains("app/opts.go:8@"),
        "{edited}"
    );
    assert!(!edited.contains("│ // the layers"), "{edited}");
    assert!(
        err.contains("the work tree differs from commit") && err.contains("app/opts.go"),
        "{err}"
    );
    assert!(edited.contains("the line is the work tree's"), "{edited}");
}
