//! `--max-time`: once the run's deadline has passed, a scan starts no further file and names
//! every file it did not read. (Its own test binary: the deadline is set once per process.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Mutex;
use std::time::Duration;

use rocpath_sources::{Found, Limits, Sink, SourceError, scan_paths};

#[derive(Default)]
struct Errors(Mutex<Vec<(String, String)>>);

impl Sink for Errors {
    fn found(&self, f: Found<'_>) {
        if let Found::Error { origin, error } = f {
            let limit = matches!(error, SourceError::Limit { .. });
            assert!(limit, "{error}");
            self.0
                .lock()
                .unwrap()
                .push((origin.to_string(), error.to_string()));
        }
    }
}

#[test]
fn files_not_started_before_the_deadline_are_named_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(dir.path().join(name), b"not a code object").unwrap();
    }
    let before = Errors::default();
    scan_paths(
        &[dir.path().to_path_buf()],
        &Limits::default(),
        &before,
        |_| {},
    );
    assert!(before.0.lock().unwrap().is_empty());

    rocpath_budget::deadline::set(Duration::ZERO);
    let after = Errors::default();
    let totals = scan_paths(
        &[dir.path().to_path_buf()],
        &Limits::default(),
        &after,
        |_| {},
    );
    assert_eq!(totals.files, 3);
    assert_eq!(totals.not_started, 3);
    assert_eq!(totals.bytes, 0);
    let mut errors = after.0.into_inner().unwrap();
    errors.sort();
    assert_eq!(errors.len(), 3);
    for ((origin, msg), name) in errors.iter().zip(["a.txt", "b.txt", "c.txt"]) {
        assert!(origin.ends_with(name), "{origin}");
        assert!(msg.contains("--max-time"), "{msg}");
    }
}
