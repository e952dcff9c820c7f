//! The runner with real child processes. MIOpen cannot run on a machine without an AMD GPU,
//! so the children are shell commands that print recorded logs (the shared Vega64 fixtures
//! when present, else a small synthetic log) and then exit, crash or are killed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_case::run::{Knob, RunError, RunOptions, run};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

const SYNTHETIC: &str = "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1 -t 1
MIOpen(HIP): Info [get_device_name] Raw device name: gfx900:xnack-
MIOpen(HIP): Info2 [GetInvoker] Returning an invoker for problem 64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault and solver ConvBinWinograd3x3U
MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: miopenSp3AsmConv3x3F
MIOpen Forward Conv. Algorithm: 3, Solution: 14/ConvBinWinograd3x3U
";

/// A recorded log from the shared fixtures, or the synthetic one written to `dir`.
fn recorded(dir: &Path, case: &str) -> PathBuf {
    if let Some(s) = rocpath_testdata::shared_dir() {
        let p = s
            .join("fixtures/miopen-logs/vega64")
            .join(format!("{case}.log"));
        if p.is_file() {
            return p;
        }
    }
    rocpath_testdata::missing("shared fixtures absent: replaying a synthetic log instead");
    let p = dir.join("synthetic.log");
    std::fs::write(&p, SYNTHETIC).unwrap();
    p
}

fn sh(script: &str) -> Vec<OsString> {
    vec!["sh".into(), "-c".into(), script.into()]
}

fn opts(out: &Path, name: &str, cmd: Vec<OsString>) -> RunOptions {
    RunOptions {
        name: name.into(),
        out: out.to_path_buf(),
        knobs: Knob::DEFAULT.to_vec(),
        command: cmd,
        gpu: vec![],
        echo: None,
        tool_version: "test".into(),
        drain_timeout: Duration::from_secs(5),
        env: vec![],
    }
}

fn read(dir: &Path) -> rocpath_case::CaseReport {
    let (r, e) = rocpath_case::read_case(&rocpath_case::case_source(dir).unwrap());
    assert!(e.is_empty(), "{e:?}");
    r
}

#[test]
fn replaying_recorded_fp32_log_gives_natural_winograd() {
    let t = tempfile::tempdir().unwrap();
    let log = recorded(t.path(), "vega64_fp32_nchw_3x3_fwd_n32");
    let res = run(opts(
        t.path(),
        "fp32",
        sh(&format!("cat '{}' >&2", log.display())),
    ))
    .unwrap();
    assert_eq!(res.meta.status, rocpath_case::meta::RunStatus::Exited);
    assert_eq!(res.meta.exit.as_ref().unwrap().code, Some(0));
    // The knobs are in the child's environment and recorded.
    assert_eq!(
        res.meta.env.get("MIOPEN_LOG_LEVEL").map(String::as_str),
        Some("6")
    );
    assert!(res.meta.env.contains_key("TENSILE_DB"));
    assert!(res.meta.duration_s.is_some());
    // Every captured file is hashed.
    let stderr = res
        .meta
        .files
        .iter()
        .find(|f| f.name == "stderr.log")
        .unwrap();
    assert_eq!(stderr.bytes, std::fs::metadata(&log).unwrap().len());
    let r = read(&res.dir);
    assert!(r.complete);
    assert_eq!(r.outcome.kind.as_str(), "natural");
    let s = r.selected.unwrap();
    assert_eq!(
        (s.solver_id, s.solver.as_str()),
        (Some(14), "ConvBinWinograd3x3U")
    );
    assert_eq!(r.exit.code, Some(0));
    assert_eq!(r.exit.evidence.unwrap().rule, "case.exit.runner");
}

#[test]
fn replaying_recorded_log_then_exit_code_7_is_recorded() {
    let t = tempfile::tempdir().unwrap();
    let log = recorded(t.path(), "vega64_fp16_force_hipigemm_v4r5xdlops_nchw_3x3");
    let res = run(opts(
        t.path(),
        "v4r5",
        sh(&format!("cat '{}'; exit 7", log.display())),
    ))
    .unwrap();
    assert_eq!(res.meta.exit.as_ref().unwrap().code, Some(7));
    let r = read(&res.dir);
    assert_eq!(r.exit.code, Some(7));
    if log.ends_with("vega64_fp16_force_hipigemm_v4r5xdlops_nchw_3x3.log") {
        assert_eq!(r.outcome.kind.as_str(), "build_failure");
    }
}

#[test]
fn replaying_recorded_log_then_sigabrt_is_a_runtime_abort() {
    let t = tempfile::tempdir().unwrap();
    let log = recorded(t.path(), "vega64_fp32_nchw_3x3_fwd_n32");
    let res = run(opts(
        t.path(),
        "abrt",
        sh(&format!("cat '{}'; kill -ABRT $$", log.display())),
    ))
    .unwrap();
    assert_eq!(res.meta.status, rocpath_case::meta::RunStatus::Signaled);
    let x = res.meta.exit.clone().unwrap();
    assert_eq!((x.code, x.signal.as_deref()), (None, Some("SIGABRT")));
    let r = read(&res.dir);
    assert_eq!(r.outcome.kind.as_str(), "runtime_abort");
    assert_eq!(r.outcome.sub_kind.as_deref(), Some("sigabrt"));
    assert!(r.complete);
    // Nothing printed before the crash is lost.
    assert_eq!(r.selected.unwrap().solver, "ConvBinWinograd3x3U");
}

/// A command that dies of SIGINT was stopped, not finished: the case stays incomplete even when
/// the runner itself never saw the signal (here the child sends it to itself; at a terminal,
/// Ctrl-C reaches the child before the runner looks). Before, this was `signaled`, complete,
/// outcome `undetermined`.
#[test]
fn a_command_that_dies_of_sigint_leaves_an_incomplete_case() {
    let t = tempfile::tempdir().unwrap();
    let log = recorded(t.path(), "vega64_fp32_nchw_3x3_fwd_n32");
    let res = run(opts(
        t.path(),
        "int",
        sh(&format!("cat '{}'; kill -INT $$; sleep 5", log.display())),
    ))
    .unwrap();
    assert_eq!(
        res.meta.exit.as_ref().unwrap().signal.as_deref(),
        Some("SIGINT")
    );
    assert_eq!(res.meta.status, rocpath_case::meta::RunStatus::Interrupted);
    assert_eq!(res.meta.interrupted_by.as_deref(), Some("SIGINT"));
    let r = read(&res.dir);
    assert!(!r.complete);
    assert_eq!(r.outcome.kind.as_str(), "incomplete");
    assert_eq!(r.outcome.evidence.class.as_str(), "limited");
    // What it printed is still read.
    assert_eq!(r.selected.unwrap().solver, "ConvBinWinograd3x3U");
}

#[test]
fn replaying_recorded_log_killed_mid_run_keeps_the_output() {
    let t = tempfile::tempdir().unwrap();
    let log = recorded(t.path(), "vega64_fp32_nchw_3x3_fwd_n32");
    let res = run(opts(
        t.path(),
        "killed",
        sh(&format!(
            "cat '{}'; kill -KILL $$; echo never",
            log.display()
        )),
    ))
    .unwrap();
    assert_eq!(
        res.meta.exit.as_ref().unwrap().signal.as_deref(),
        Some("SIGKILL")
    );
    let out = std::fs::read(res.dir.join("stdout.log")).unwrap();
    assert_eq!(out, std::fs::read(&log).unwrap());
    let r = read(&res.dir);
    assert_eq!(r.outcome.kind.as_str(), "runtime_abort");
}

#[test]
fn large_output_is_captured_whole_and_hashed() {
    let t = tempfile::tempdir().unwrap();
    // 64 MiB of one repeated log line, through a real pipe.
    let res = run(opts(
        t.path(),
        "large",
        sh("yes 'MIOpen(HIP): Info2 [SearchForAllSolutions] ConvMlirIgemmFwd: Skipped (non-dynamic)' | head -c 67108864"),
    ))
    .unwrap();
    let f = res
        .meta
        .files
        .iter()
        .find(|f| f.name == "stdout.log")
        .unwrap();
    assert_eq!(f.bytes, 64 << 20);
    let r = read(&res.dir);
    let rec = r
        .files
        .iter()
        .find(|x| x.path.ends_with("stdout.log"))
        .unwrap();
    assert_eq!(rec.sha256, f.sha256);
    assert!(rec.lines > 700_000);
    let c = r
        .candidates
        .iter()
        .find(|c| c.solver == "ConvMlirIgemmFwd")
        .unwrap();
    assert!(
        c.evidence.note.contains("lines in all"),
        "{}",
        c.evidence.note
    );
}

#[test]
fn a_command_that_cannot_start_leaves_a_case() {
    let t = tempfile::tempdir().unwrap();
    let res = run(opts(t.path(), "nope", vec!["/nonexistent/prog".into()])).unwrap();
    assert_eq!(res.meta.status, rocpath_case::meta::RunStatus::SpawnFailed);
    assert!(res.dir.join("case.json").is_file());
    // An existing, non-empty case folder is never overwritten.
    let again = run(opts(t.path(), "nope", vec!["true".into()])).unwrap_err();
    assert!(
        matches!(&again, RunError::NotEmpty { path } if path.ends_with("nope")),
        "{again:?}"
    );
    assert!(
        again
            .to_string()
            .contains("exists and is not empty; choose another")
    );
    let empty = run(opts(t.path(), "x", vec![])).unwrap_err();
    assert!(matches!(empty, RunError::NoCommand), "{empty:?}");
    let bad = run(opts(t.path(), "..", vec!["true".into()])).unwrap_err();
    assert!(matches!(bad, RunError::BadName { .. }), "{bad:?}");
    assert_eq!(bad.path(), None);
}
