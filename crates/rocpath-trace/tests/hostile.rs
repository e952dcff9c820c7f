#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Inputs that are not regular files: a FIFO inside a folder used to hang `trace` (opening it
//! waits for a writer); now it is skipped with a note, and named directly it is an error.

use rocpath_trace::{InputError, discover, read_input};
use std::path::Path;

const CSV: &str = "\"Kind\",\"Kernel_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n\
\"KERNEL_DISPATCH\",1,\"k\",10,20\n";

fn mkfifo(p: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", p.display());
}

#[test]
fn a_fifo_in_a_folder_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("1_kernel_trace.csv"), CSV).unwrap();
    let fifo = dir.path().join("2_kernel_trace.csv");
    mkfifo(&fifo);
    let d = discover(&[dir.path().to_path_buf()]);
    assert!(d.errors.is_empty(), "{:?}", d.errors);
    assert_eq!(d.inputs.len(), 1);
    assert!(d.inputs[0].path.ends_with("1_kernel_trace.csv"));
    assert_eq!(
        d.notes,
        vec![format!(
            "{}: a FIFO, not a regular file; skipped",
            fifo.display()
        )]
    );
    let t = read_input(&d.inputs[0], None).unwrap();
    assert_eq!(t.dispatches, 1);
}

#[test]
fn a_fifo_or_device_named_directly_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("x.db");
    mkfifo(&fifo);
    let d = discover(&[fifo.clone(), "/dev/zero".into()]);
    assert!(d.inputs.is_empty());
    assert_eq!(d.errors.len(), 2);
    assert!(matches!(
        d.errors[0],
        InputError::NotRegular { what: "a FIFO", .. }
    ));
    assert_eq!(
        d.errors[1].to_string(),
        "/dev/zero: not a regular file (a character device); rocpath reads only regular files — copy the trace to a file"
    );
    assert_eq!(d.errors[1].path(), Path::new("/dev/zero"));
}

/// Two links to `.` made the walk exponential (no answer in a minute on a folder of three
/// entries); a link to `/` walked the machine; a link to a file outside was read.
#[test]
fn links_out_and_round_are_skipped_with_notes() {
    use std::os::unix::fs::symlink;
    let top = tempfile::tempdir().unwrap();
    let dir = top.path().join("run");
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("a/1_kernel_trace.csv"), CSV).unwrap();
    std::fs::write(top.path().join("9_kernel_trace.csv"), CSV).unwrap();
    symlink(".", dir.join("l1")).unwrap();
    symlink(".", dir.join("l2")).unwrap();
    symlink("/", dir.join("root")).unwrap();
    symlink("../9_kernel_trace.csv", dir.join("8_kernel_trace.csv")).unwrap();
    symlink("a/1_kernel_trace.csv", dir.join("7_kernel_trace.csv")).unwrap();
    let d = discover(std::slice::from_ref(&dir));
    assert!(d.errors.is_empty(), "{:?}", d.errors);
    let found: Vec<_> = d.inputs.iter().map(|i| i.path.clone()).collect();
    // The link to a file inside is that file, read once; the one outside is not read.
    assert_eq!(found, vec![dir.join("7_kernel_trace.csv")]);
    let notes = d.notes.join("\n");
    assert_eq!(d.notes.len(), 5, "{notes}");
    assert!(
        notes.contains("1_kernel_trace.csv: leads to") && notes.contains("met already"),
        "{notes}"
    );
    assert!(notes.contains("8_kernel_trace.csv: leads to"), "{notes}");
    assert!(
        notes.contains("root: leads to /, outside the folder given"),
        "{notes}"
    );
    assert!(
        notes.contains("l1: leads to") && notes.contains("met already"),
        "{notes}"
    );
}

/// The CSV seeds of the `llm_parsers` fuzz target (`fuzz/seeds/llm_parsers/`).
#[test]
fn csv_fuzz_seeds() {
    let dir = rocpath_testdata::repo_root().join("fuzz/seeds/llm_parsers");
    let bytes = std::fs::read(dir.join("csv_unterminated_quote.csv")).unwrap();
    let (c, _) = rocpath_trace::csv::read(&bytes[..], None).unwrap();
    assert_eq!(c.dispatches, 1);
    // The open quote swallows the rest of the file: one record, never held past 1 MiB (here
    // it ends at the end of the file, so the parser reports it as a row).
    let bytes = std::fs::read(dir.join("csv_escaped_quotes_and_cr.csv")).unwrap();
    let (c, _) = rocpath_trace::csv::read(&bytes[..], None).unwrap();
    let names: Vec<&str> = c.kernels.iter().map(|k| k.name.as_str()).collect();
    assert!(names.contains(&"a \"b\", c\nd"), "{names:?}");
    assert!(names.contains(&"e"), "{names:?}");
}

#[test]
fn unreadable_traces_are_typed_errors_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("1_results.json");
    std::fs::write(&json, "{\n  \"metadata\": {},\n  oops\n}\n").unwrap();
    let csv = dir.path().join("2_kernel_trace.csv");
    std::fs::write(&csv, "\"Domain\",\"Function\"\n\"HIP\",\"hipMalloc\"\n").unwrap();
    let d = discover(&[json.clone(), csv.clone()]);
    assert_eq!(d.inputs.len(), 2, "{:?}", d.errors);
    let e = read_input(&d.inputs[0], None).unwrap_err();
    assert!(matches!(e, InputError::Json { .. }), "{e:?}");
    assert_eq!((e.path(), e.line()), (json.as_path(), Some(3)));
    assert!(
        e.message().starts_with("not a rocprofv3 JSON document ("),
        "{e}"
    );
    assert!(e.message().contains("-f json"), "{e}");
    let e = read_input(&d.inputs[1], None).unwrap_err();
    assert!(matches!(e, InputError::Csv { .. }), "{e:?}");
    assert_eq!((e.path(), e.line()), (csv.as_path(), Some(1)));
    assert_eq!(
        e.to_string(),
        format!(
            "{}: line 1: not a rocprofv3 kernel trace: no Kernel_Name column",
            csv.display()
        )
    );
}
