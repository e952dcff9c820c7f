//! Ignore files a walk must not apply: a FIFO (applying it would wait forever) or one past the
//! pattern limit (each pattern compiles to a matcher of several KiB). Written by hand.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_follow::index::{IndexOptions, build};

fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["src", "sub"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        std::fs::write(
            dir.path().join(sub).join("a.cpp"),
            "int gate() { return 1; }\n",
        )
        .unwrap();
    }
    dir
}

fn opts() -> IndexOptions {
    IndexOptions {
        max_file_bytes: 1 << 20,
        include_tests: false,
    }
}

#[test]
fn an_ignore_file_past_the_limit_at_the_root_is_named_and_every_file_is_read() {
    let dir = checkout();
    let lines = "sub/\n".repeat(rocpath_budget::special::MAX_IGNORE_LINES + 1);
    std::fs::write(dir.path().join(".gitignore"), lines).unwrap();
    let ix = build(dir.path(), &opts()).unwrap();
    let files: Vec<_> = ix.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["src/a.cpp", "sub/a.cpp"]);
    assert!(
        ix.skipped
            .iter()
            .any(|s| s.reason.contains("10001 lines") && s.reason.contains("every file is read")),
        "{:?}",
        ix.skipped
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_ignore_file_below_the_root_leaves_its_folder_out_by_name() {
    let dir = checkout();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("sub/.gitignore"))
        .status();
    assert!(made.unwrap().success(), "mkfifo");
    let ix = build(dir.path(), &opts()).unwrap();
    let files: Vec<_> = ix.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(files, ["src/a.cpp"]);
    let s = ix
        .skipped
        .iter()
        .find(|s| s.path == "sub")
        .expect("sub named");
    assert!(
        s.reason.contains("a FIFO") && s.reason.contains("not read"),
        "{}",
        s.reason
    );
}
