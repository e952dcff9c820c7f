//! The run's memory budget (`--max-memory`) and hostile inputs end to end: an item that does
//! not fit is refused by name (file, container chain, what to do) and the rest goes on; a
//! code object cut short is an error in every command; a FIFO or a device is refused, not
//! read; each location is printed once. Inputs are built here from the project's example
//! data (`examples/`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn rocpath() -> Command {
    let mut c = Command::cargo_bin("rocpath").unwrap();
    c.arg("--no-progress");
    c
}

fn example_object() -> Vec<u8> {
    let p = rocpath_testdata::repo_root().join(
        "examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco",
    );
    std::fs::read(p).unwrap()
}

/// Runs rocpath; returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = rocpath().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A CCOB v3 (zstd) of `size` zero bytes: a decompression bomb of a few KiB for 64 MiB.
fn zstd_bomb(size: usize) -> Vec<u8> {
    let comp = zstd::encode_all(&vec![0u8; size][..], 3).unwrap();
    let mut c = b"CCOB".to_vec();
    c.extend_from_slice(&3u16.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&((32 + comp.len()) as u64).to_le_bytes());
    c.extend_from_slice(&(size as u64).to_le_bytes());
    c.extend_from_slice(&0u64.to_le_bytes());
    c.extend_from_slice(&comp);
    c
}

#[test]
fn an_item_over_the_memory_budget_is_refused_by_name_and_the_rest_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bomb.hipfb"), zstd_bomb(64 << 20)).unwrap();
    std::fs::write(dir.path().join("k.hsaco"), example_object()).unwrap();
    let (code, stdout, stderr) = run(&["--max-memory", "16M", "inventory", s(dir.path())]);
    assert_eq!(code, 2, "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("bomb.hipfb"))
        .unwrap_or_default();
    assert!(line.contains("[ccob#0@0x0 v3 zstd] at offset 32: CCOB payload needs 64 MiB of memory, more than the 16 MiB memory budget; raise it with --max-memory"), "{stderr}");
    assert!(
        stdout.contains("gfx1100"),
        "the good object is still listed: {stdout}"
    );
    // The default budget (1 GiB) takes it.
    let (code, _, stderr) = run(&["inventory", s(dir.path())]);
    assert_eq!(code, 0, "{stderr}");
    // A size that is not one is a usage error.
    let (code, _, stderr) = run(&["--max-memory", "lots", "inventory", s(dir.path())]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--max-memory"), "{stderr}");
}

#[test]
fn a_truncated_code_object_is_an_error_in_every_command() {
    let obj = example_object();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut");
    std::fs::create_dir(&cut).unwrap();
    std::fs::write(cut.join("head.hsaco"), &obj[..64]).unwrap();
    std::fs::write(cut.join("last.hsaco"), &obj[..obj.len() - 1]).unwrap();
    let whole = dir.path().join("whole");
    std::fs::create_dir(&whole).unwrap();
    std::fs::write(whole.join("last.hsaco"), &obj).unwrap();
    let cases: [Vec<&str>; 4] = [
        vec!["inventory", s(&cut)],
        vec!["check", "--target", "gfx1100", s(&cut)],
        vec!["isa", s(&cut)],
        vec!["diff", s(&whole), s(&cut)],
    ];
    for args in cases {
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        for (name, at) in [("head.hsaco", 64), ("last.hsaco", obj.len() - 1)] {
            let line = stderr
                .lines()
                .find(|l| l.contains(name))
                .unwrap_or_default();
            assert!(
                line.contains(&format!(
                    "at offset {at}: code object: truncated code object"
                )),
                "{args:?}: {stderr}"
            );
        }
        assert!(!stdout.contains("runs"), "{args:?}: {stdout}");
    }
    // JSON: no code object, two limited errors; check says limited, not runs.
    let out = rocpath()
        .args(["--json", "check", "--target", "gfx1100", s(&cut)])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let libs = v["devices"][0]["libraries"].as_array().unwrap();
    assert_eq!(libs.len(), 2);
    for l in libs {
        assert_eq!(l["verdict"], "no_code");
        assert_eq!(l["evidence"]["class"], "limited");
        assert_eq!(l["evidence"]["rule"], "check.no_code_with_unreadable_items");
    }
}

#[test]
fn each_location_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = b"CCOB".to_vec();
    c.extend_from_slice(&3u16.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&64u64.to_le_bytes());
    c.extend_from_slice(&(5u64 << 40).to_le_bytes());
    c.resize(64, 0);
    std::fs::write(dir.path().join("bad.hipfb"), c).unwrap();
    for cmd in ["inventory", "isa"] {
        let (code, _, stderr) = run(&[cmd, s(dir.path())]);
        assert_eq!(code, 2);
        assert_eq!(stderr.matches("offset").count(), 1, "{cmd}: {stderr}");
        assert!(
            stderr.contains("bad.hipfb at offset 8: CCOB declares"),
            "{stderr}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_or_dev_zero_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for p in [fifo, PathBuf::from("/dev/zero")] {
        let (code, _, stderr) = run(&["inventory", s(&p)]);
        assert_eq!(code, 2, "{}: {stderr}", p.display());
        assert!(
            stderr.contains(&format!(
                "error: {}: not a regular file or folder",
                p.display()
            )),
            "{stderr}"
        );
    }
}

#[test]
fn a_yaml_alias_bomb_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut y = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        y.push_str(&format!(
            "{}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(",")
        ));
    }
    let f = dir.path().join("TensileLibrary_gfx90a.yaml");
    std::fs::write(&f, y).unwrap();
    let (code, _, stderr) = run(&["inventory", s(&f)]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("TensileLibrary_gfx90a.yaml"), "{stderr}");
    assert!(
        stderr.contains("YAML aliases expand the document"),
        "{stderr}"
    );
}
