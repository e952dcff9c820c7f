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

/// Reading a file for the index holds memory in proportion to its size: a file whose reading
/// does not fit the run's budget is skipped and said, whatever --max-file-bytes allows.
#[test]
fn a_file_whose_reading_does_not_fit_the_budget_is_skipped_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("small.go"), "package p\nvar numGPU = 1\n").unwrap();
    let table: String = (0..40_000)
        .map(|i| format!("var key{i} = {i} // numGPU\n"))
        .collect();
    std::fs::write(src.join("table.go"), format!("package p\n{table}")).unwrap();
    let budget = rocpath_budget::MemoryBudget::new(1 << 20);
    let ix = rocpath_follow::index::build_within(
        dir.path(),
        &IndexOptions {
            max_file_bytes: 64 << 20,
            include_tests: false,
        },
        Some(&budget),
    )
    .unwrap();
    let files: Vec<_> = ix.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["src/small.go"]);
    let s = ix
        .skipped
        .iter()
        .find(|s| s.path == "src/table.go")
        .expect("named");
    assert!(s.reason.contains("--max-memory"), "{}", s.reason);
}

/// A name found nowhere but in a file the index left out: the error says files were left out
/// and that the name may be there, instead of only "check the spelling".
#[test]
fn a_spec_found_only_in_a_file_left_out_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("ok.go"), "package p\nfunc F() int { return 1 }\n").unwrap();
    let deep = format!(
        "package p\nfunc G() {{\n{}numGPU := 1\n_ = numGPU\n{}}}\n",
        "if true {\n".repeat(1_000),
        "}\n".repeat(1_000)
    );
    std::fs::write(src.join("deep.go"), deep).unwrap();
    let opts = rocpath_follow::Options {
        cache: false,
        ..rocpath_follow::Options::default()
    };
    let repos = rocpath_follow::Repos::open(&[dir.path().to_path_buf()], &opts).unwrap();
    let err = rocpath_follow::follow_in("numGPU", &repos, &opts)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(err.contains("matches nothing"), "{err}");
    assert!(err.contains("the index left out 1 file or folder"), "{err}");
}
