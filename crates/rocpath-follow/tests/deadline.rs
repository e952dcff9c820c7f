//! `--max-time`: once the run's deadline has passed, indexing a source tree reads no further
//! file and lists each one it skipped with the reason. (Its own test binary: the deadline is
//! set once per process.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use rocpath_follow::index::{IndexOptions, build};

#[test]
fn source_files_not_read_before_the_deadline_are_listed_as_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.cpp"), "int gate_one() { return 1; }\n").unwrap();
    std::fs::write(dir.path().join("b.py"), "def gate_two():\n    return 2\n").unwrap();
    let opts = IndexOptions {
        max_file_bytes: 1 << 20,
        include_tests: false,
    };
    let before = build(dir.path(), &opts).unwrap();
    assert_eq!(before.files.len(), 2);
    assert!(before.skipped.is_empty());

    rocpath_budget::deadline::set(Duration::ZERO);
    let after = build(dir.path(), &opts).unwrap();
    assert!(after.files.is_empty());
    let mut skipped: Vec<_> = after.skipped.iter().map(|s| s.path.clone()).collect();
    skipped.sort();
    assert_eq!(skipped, ["a.cpp", "b.py"]);
    assert!(
        after
            .skipped
            .iter()
            .all(|s| s.reason.contains("--max-time"))
    );
}
