//! A generated source nested hundreds of thousands of levels deep is left out of the index by
//! name (each step of a trail's climb to the enclosing function costs the tree's depth, so the
//! file took minutes); the rest of the checkout is read. Written by hand.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_follow::index::{IndexOptions, build};

#[test]
fn a_file_nested_past_the_limit_is_skipped_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("ok.go"),
        "package p\nfunc F(numGPU int) int { return numGPU }\n",
    )
    .unwrap();
    let deep = format!(
        "package p\nfunc G() {{\n{}numGPU := 1\n_ = numGPU\n{}}}\n",
        "if true {\n".repeat(200_000),
        "}\n".repeat(200_000)
    );
    std::fs::write(src.join("deep.go"), deep).unwrap();
    let ix = build(
        dir.path(),
        &IndexOptions {
            max_file_bytes: 64 << 20,
            include_tests: false,
        },
    )
    .unwrap();
    let files: Vec<_> = ix.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["src/ok.go"]);
    let s = ix
        .skipped
        .iter()
        .find(|s| s.path == "src/deep.go")
        .expect("named");
    assert!(
        s.reason.contains("nested more than 256 levels"),
        "{}",
        s.reason
    );
}
