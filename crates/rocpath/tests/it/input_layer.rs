#![allow(clippy::unwrap_used, clippy::panic)]
//! Every command opens the files a user names through one input layer
//! (`rocpath_budget::input`, and `read_small_text` for small configuration files): a FIFO, a
//! device or a kernel pseudo file is refused by name before it is opened, and the size is
//! reserved from the run's memory budget before it is read. This test walks the sources of
//! every crate for direct `fs::read`, `fs::read_to_string` and `File::open` outside tests; each
//! one left is listed below with the reason it is not a user-named input, or with the check
//! that comes before it. A new direct read fails the test until it goes through the input layer
//! or is listed here with its reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// File → (direct reads allowed, why).
const ALLOWED: &[(&str, usize, &str)] = &[
    ("rocpath-budget/src/input.rs", 1, "the input layer itself"),
    (
        "rocpath-budget/src/special.rs",
        2,
        "read_small_text, and an ignore file of a walk: type and size checked before the read",
    ),
    (
        "rocpath-case/src/run.rs",
        1,
        "hashes the logs the run itself wrote into the case folder",
    ),
    (
        "rocpath-loads/src/process.rs",
        1,
        "/proc/PID/cmdline and environ: lists the kernel makes, which report size 0 (so no size check applies), read up to 64 MiB",
    ),
    (
        "rocpath-explain/src/gemm.rs",
        1,
        "code objects beside a catalog: metadata type and size checked before the read",
    ),
    (
        "rocpath-explain/src/miopen/db.rs",
        1,
        "rocpath's own cache of decompressed databases",
    ),
    (
        "rocpath-follow/src/engine.rs",
        3,
        "files of a checkout the index listed, each checked against --max-file-bytes first",
    ),
    (
        "rocpath-follow/src/index.rs",
        2,
        "rocpath's own index cache; checkout files checked against --max-file-bytes first",
    ),
    ("rocpath-follow/src/memo.rs", 1, "rocpath's own memo cache"),
    (
        "rocpath-git/src/loose.rs",
        1,
        "a loose git object of a checkout: type and size checked before the read",
    ),
    (
        "rocpath-gates/src/lib.rs",
        1,
        "source files of a walk, regular and checked against --max-file-bytes first",
    ),
    (
        "rocpath-gemm/src/library.rs",
        1,
        "catalog files: metadata type and size checked and the budget reserved before the read",
    ),
    (
        "rocpath-inventory/src/python.rs",
        1,
        "a module of a site-packages walk, regular-file checked before open",
    ),
    (
        "rocpath-lanes/src/run.rs",
        2,
        "the logs the lane run itself wrote",
    ),
    (
        "rocpath-ledger/src/derive/digest.rs",
        1,
        "an observation file of the ledger (written by rocpath, atomically)",
    ),
    (
        "rocpath-ledger/src/import.rs",
        1,
        "the ledger's own copy of an observation",
    ),
    (
        "rocpath-ledger/src/lib.rs",
        1,
        "a record file of the ledger",
    ),
    (
        "rocpath-ledger/src/slim.rs",
        1,
        "an observation file of the ledger",
    ),
    (
        "rocpath-ledger/src/store.rs",
        6,
        "the ledger's own records, and folders opened to sync them",
    ),
    (
        "rocpath-ollama/src/input.rs",
        1,
        "type checked (regular file) before open",
    ),
    (
        "rocpath-site/src/serve.rs",
        1,
        "files inside the site root being served, checked by file_for",
    ),
    ("rocpath-sources/src/hash.rs", 1, "rocpath's own hash cache"),
    (
        "rocpath-sources/src/kpack_ref.rs",
        1,
        "a kpack archive: metadata type checked before open",
    ),
    (
        "rocpath-sources/src/lib.rs",
        2,
        "scan_file: type checked before open, size from the open file, mapped",
    ),
    ("rocpath-testdata/src/lib.rs", 2, "test support only"),
    (
        "rocpath-trace/src/lib.rs",
        1,
        "type checked (non_regular) before open",
    ),
];

const PATTERNS: [&str; 3] = ["fs::read(", "fs::read_to_string(", "File::open("];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Direct reads in a source file's code before its test module, comments aside.
fn direct_reads(text: &str) -> usize {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| PATTERNS.iter().filter(|p| l.contains(*p)).count())
        .sum()
}

#[test]
fn every_direct_read_is_listed_with_its_reason() {
    let crates = rocpath_testdata::repo_root().join("crates");
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    for c in std::fs::read_dir(&crates).unwrap().flatten() {
        let src = c.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        // `tests.rs` files are test modules (`#[cfg(test)] mod tests;`).
        for f in files.into_iter().filter(|f| !f.ends_with("tests.rs")) {
            let n = direct_reads(&std::fs::read_to_string(&f).unwrap());
            if n > 0 {
                let rel = f
                    .strip_prefix(&crates)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                found.insert(rel, n);
            }
        }
    }
    let allowed: BTreeMap<&str, usize> = ALLOWED.iter().map(|(f, n, _)| (*f, *n)).collect();
    let mut problems = Vec::new();
    for (f, n) in &found {
        match allowed.get(f.as_str()) {
            None => problems.push(format!(
                "{f}: {n} direct read(s): open user-named paths through rocpath_budget::input (or list the file here with why it is not one)"
            )),
            Some(a) if n > a => problems.push(format!(
                "{f}: {n} direct reads, {a} listed: the new one goes through rocpath_budget::input"
            )),
            Some(a) if n < a => problems.push(format!("{f}: {n} direct reads, {a} listed: lower the count")),
            Some(_) => {}
        }
    }
    for f in allowed.keys() {
        if !found.contains_key(*f) {
            problems.push(format!(
                "{f}: listed but reads nothing directly any more: remove it"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn named_inputs_that_never_end_are_refused_by_name() {
    let bin = assert_cmd::cargo::cargo_bin("rocpath");
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let mut inputs: Vec<(PathBuf, &str)> = vec![(PathBuf::from("/dev/zero"), "a character device")];
    if made.is_ok_and(|s| s.success()) {
        inputs.push((fifo.clone(), "a FIFO"));
    }
    let ledger = dir.path().join("L");
    let init = std::process::Command::new(&bin)
        .args(["ledger", "init"])
        .arg(&ledger)
        .output()
        .unwrap();
    assert!(init.status.success());
    for (input, what) in &inputs {
        let cases: Vec<Vec<std::ffi::OsString>> = vec![
            vec![
                "ledger".into(),
                "import".into(),
                ledger.clone().into(),
                input.clone().into(),
            ],
            vec![
                "study".into(),
                "build".into(),
                input.clone().into(),
                "-o".into(),
                dir.path().join("o").into(),
            ],
            vec!["explain".into(), "--compare".into(), input.clone().into()],
            vec!["diff".into(), input.clone().into(), input.clone().into()],
        ];
        for args in cases {
            let out = std::process::Command::new(&bin)
                .arg("--no-progress")
                .args(&args)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(
                err.contains(what)
                    || err.contains("not a regular file")
                    || err.contains("not a file"),
                "{args:?}: {err}"
            );
        }
    }
}
