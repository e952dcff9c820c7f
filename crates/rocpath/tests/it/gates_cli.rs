//! End-to-end tests of `rocpath gates` (with `--blame` and `--timeline`) and
//! `rocpath provenance` on a git repository built here: a gfx900 exclusion added by one
//! author in a PR-style commit, its file moved to another folder by another author, a
//! release tag on each side of the move.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;
use rocpath_testdata::git::{git, have_git};
use serde_json::Value;
use std::path::Path;

const DEV: (&str, &str) = ("Dee Veloper", "dee@amd.com");
const MOVER: (&str, &str) = ("Mo Ver", "mo@example.org");

const SOLVER: &str = r#"#include "solver.hpp"
namespace solver {

bool ConvMlirIgemmFwd::IsApplicable(const Ctx& ctx, const Problem& problem) const
{
    const auto device_name = ctx.GetStream().GetDeviceName();
    if(StartsWith(device_name, "gfx900"))
        return false;
    return MiirIsConfigApplicable(ctx, problem);
}

} // namespace solver
"#;

/// Returns (gate commit, move commit).
fn build(dir: &Path) -> (String, String) {
    git(
        dir,
        &["init", "-q", "-b", "develop"],
        DEV,
        "2021-01-01T00:00:00+00:00",
    );
    std::fs::create_dir_all(dir.join("src/solver")).unwrap();
    std::fs::write(
        dir.join("src/solver/conv_mlir_igemm_fwd.cpp"),
        SOLVER.replace(
            "    if(StartsWith(device_name, \"gfx900\"))\n        return false;\n",
            "",
        ),
    )
    .unwrap();
    git(dir, &["add", "-A"], DEV, "2021-01-01T00:00:00+00:00");
    git(
        dir,
        &["commit", "-q", "-m", "Add the MLIR solver (#1000)"],
        DEV,
        "2021-01-01T00:00:00+00:00",
    );
    std::fs::write(dir.join("src/solver/conv_mlir_igemm_fwd.cpp"), SOLVER).unwrap();
    git(
        dir,
        &[
            "commit",
            "-q",
            "-am",
            "[MLIR] Disable gfx900 from non-xdlops solver (#1328)\n\nSee https://github.com/ROCm/llvm-project-private/issues/389",
        ],
        DEV,
        "2021-12-22T10:11:05-06:00",
    );
    let gate = git(
        dir,
        &["rev-parse", "HEAD"],
        DEV,
        "2021-12-22T10:11:05-06:00",
    );
    git(
        dir,
        &["tag", "rocm-5.0.0"],
        DEV,
        "2022-01-01T00:00:00+00:00",
    );
    std::fs::create_dir_all(dir.join("src/solver/conv")).unwrap();
    git(
        dir,
        &[
            "mv",
            "src/solver/conv_mlir_igemm_fwd.cpp",
            "src/solver/conv/conv_mlir_igemm_fwd.cpp",
        ],
        MOVER,
        "2024-03-01T00:00:00+00:00",
    );
    git(
        dir,
        &["commit", "-q", "-m", "Move conv solvers into conv/ (#2800)"],
        MOVER,
        "2024-03-01T00:00:00+00:00",
    );
    let mv = git(
        dir,
        &["rev-parse", "HEAD"],
        MOVER,
        "2024-03-01T00:00:00+00:00",
    );
    git(
        dir,
        &["tag", "rocm-6.2.0"],
        MOVER,
        "2024-04-01T00:00:00+00:00",
    );
    (gate, mv)
}

fn rocpath() -> Command {
    let mut c = Command::cargo_bin("rocpath").unwrap();
    c.arg("--no-progress");
    c
}

fn run_json(args: &[&str]) -> (Value, i32) {
    let out = rocpath().arg("--json").args(args).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {} / {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap())
}

#[test]
fn gates_blame_follows_the_move_to_the_introducing_commit() {
    if !have_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let (gate, mv) = build(dir);
    let d = dir.to_str().unwrap();
    let (v, code) = run_json(&["gates", "--blame", "--arch", "gfx900", d]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["schema"], "rocpath.gates/1");
    // The document with its lines' histories reads back whole as its type.
    crate::doc_contract::reads_back::<rocpath_docs::gates::GatesDoc>(v.clone());
    let gates = v["gates"].as_array().unwrap();
    let g = gates
        .iter()
        .find(|g| {
            g["text"]
                .as_str()
                .unwrap()
                .contains("StartsWith(device_name, \"gfx900\")")
        })
        .unwrap_or_else(|| panic!("no gfx900 gate: {v}"));
    assert_eq!(g["path"], "src/solver/conv/conv_mlir_igemm_fwd.cpp");
    assert_eq!(g["layer"], "selection");
    assert_eq!(g["effect"], "excludes");
    let p = &g["provenance"];
    // A move is not a change of the line: blame goes through it.
    assert_eq!(p["last"]["hash"], gate.as_str(), "{p}");
    assert_eq!(p["introduced"]["hash"], gate.as_str());
    assert_eq!(
        p["introduced"]["path"],
        "src/solver/conv_mlir_igemm_fwd.cpp"
    );
    assert_eq!(p["introduced"]["pr"], 1328);
    assert_eq!(p["introduced"]["affiliation"], "AMD");
    assert_eq!(p["roles"]["insertion"]["status"], "history_verified");
    assert_eq!(p["roles"]["operational"]["status"], "unresolved");
    assert_eq!(p["evidence"]["kind"], "history_verified");
    assert_eq!(p["evidence"]["class"], "confirmed");
    // 2021-12-22 to 2024-03-01 (the newest commit).
    assert_eq!(p["untouched_days"], 799);
    let refs: Vec<&str> = p["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert!(
        refs.iter()
            .any(|r| r.contains("llvm-project-private/issues/389")),
        "{refs:?}"
    );
    assert_ne!(gate, mv);

    // The readable table names the commit and the author.
    let out = rocpath()
        .args(["gates", "--blame", "--arch", "gfx900", d])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains(&gate[..9]) || s.contains(&gate[..12]), "{s}");
    assert!(s.contains("Dee Veloper"), "{s}");
}

#[test]
fn provenance_command_json_table_and_errors() {
    if !have_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let (gate, _) = build(dir);
    let d = dir.to_str().unwrap();
    let (v, code) = run_json(&[
        "provenance",
        d,
        "src/solver/conv/conv_mlir_igemm_fwd.cpp:7",
        "src/solver/conv/conv_mlir_igemm_fwd.cpp:999",
    ]);
    assert_eq!(v["schema"], "rocpath.provenance/1", "{v}");
    let lines = v["lines"].as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["introduced"]["hash"], gate.as_str());
    assert!(
        lines[1]["error"].as_str().unwrap().contains("no line 999"),
        "{v}"
    );
    // One line could not be read: reported, and the exit says so (2), the other is traced.
    assert_eq!(code, 2);

    let line = "src/solver/conv/conv_mlir_igemm_fwd.cpp:7";
    let out = rocpath().args(["provenance", d, line]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("Disable gfx900"), "{s}");
    // As people read it, and the one-line document, which reads back whole as its type.
    let (one, _) = run_json(&["provenance", d, line]);
    as_read(d, "cli_provenance", &["provenance", d, line], &one);
    crate::doc_contract::reads_back::<rocpath_docs::provenance::ProvenanceDoc>(one);

    // A malformed FILE:LINE is a usage error; a folder that is not a repository names it.
    let out = rocpath()
        .args(["provenance", d, "no-line-number"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let nowhere = t.path().join("not-a-repo");
    std::fs::create_dir_all(&nowhere).unwrap();
    let out = rocpath()
        .args(["provenance", nowhere.to_str().unwrap(), "a.cpp:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("not-a-repo"), "{e}");
}

#[test]
fn timeline_shows_the_gate_through_both_tags() {
    if !have_git() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    build(dir);
    let d = dir.to_str().unwrap();
    let (v, code) = run_json(&[
        "gates",
        "--timeline",
        "--arch",
        "gfx900",
        "--tags",
        "rocm-*",
        d,
    ]);
    assert_eq!(code, 0, "{v}");
    let s = v.to_string();
    assert!(s.contains("rocm-5.0.0") && s.contains("rocm-6.2.0"), "{s}");
    let args = [
        "gates",
        "--timeline",
        "--arch",
        "gfx900",
        "--tags",
        "rocm-*",
        d,
    ];
    as_read(d, "cli_gates_timeline", &args, &v);
}

/// What people read of a command on the repository built here, and its document's shape, as
/// snapshots (fixed authors and dates: the same hashes on every machine; the temporary folder
/// is filtered).
fn as_read(repo: &str, name: &str, args: &[&str], json: &Value) {
    let text = crate::snapshots_cli::outcome(Path::new(repo), args);
    let shape = serde_json::to_string_pretty(&crate::gemm_cli::shape(json)).unwrap();
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(&regex::escape(repo), "[REPO]");
    s.add_filter(env!("CARGO_PKG_VERSION"), "[VERSION]");
    s.bind(|| {
        insta::assert_snapshot!(name, text);
        insta::assert_snapshot!(format!("{name}_json_shape"), shape);
    });
}
