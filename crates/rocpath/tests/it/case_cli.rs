//! End-to-end tests of `rocpath case run|read|table`: the JSON contract, exit statuses, the
//! Markdown trace map, and the runner driven by real child processes that print recorded logs
//! (MIOpen itself cannot run here: there is no GPU).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn rocpath() -> Command {
    let mut c = Command::cargo_bin("rocpath").unwrap();
    c.arg("--no-progress");
    c
}

fn vega64() -> Option<PathBuf> {
    rocpath_testdata::fixture_dir("miopen-logs/vega64")
}

const LOG: &str = "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1 -t 1
MIOpen(HIP): Info [get_device_name] Raw device name: gfx900:xnack-
MIOpen(HIP): Info2 [GetInvoker] Returning an invoker for problem 64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault and solver ConvBinWinograd3x3U
MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: miopenSp3AsmConv3x3F
MIOpen Forward Conv. Algorithm: 3, Solution: 14/ConvBinWinograd3x3U
";

fn assert_evidence(v: &Value, what: &str) {
    let ev = &v["evidence"];
    assert!(
        ["confirmed", "inferred", "unresolved", "limited"]
            .contains(&ev["class"].as_str().unwrap_or("")),
        "{what}: {ev}"
    );
    assert!(
        ev["kind"].is_string() && ev["rule"].is_string(),
        "{what}: {ev}"
    );
}

#[test]
fn read_json_contract_on_recorded_forced_dlops_case() {
    let Some(d) = vega64() else { return };
    let out = rocpath()
        .args(["--json", "case", "read"])
        .arg(d.join("vega64_int8_force_dlops_ck.log"))
        .output()
        .unwrap();
    // A failure outcome is a negative answer.
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "rocpath.case/1");
    crate::doc_contract::reads_back::<rocpath_docs::case::CaseDoc>(v.clone());
    let c = &v["cases"][0];
    assert_eq!(c["device"]["arch"], "gfx900:xnack-");
    assert_eq!(c["outcome"]["kind"], "applicability_reject");
    assert_eq!(c["forced"]["solver"], "ConvCkIgemmFwdV6r1DlopsNchw");
    assert_eq!(c["forced"]["id"], 114);
    assert!(c["selected"].is_null());
    assert_eq!(c["exit"]["code"], 3);
    assert!(c["exit"]["signal"].is_null());
    for key in [
        "problems",
        "candidates",
        "gemm_calls",
        "fallbacks",
        "errors",
    ] {
        assert!(c[key].is_array(), "{key}");
    }
    for key in ["problems", "candidates", "errors", "db_lookups"] {
        for item in c[key].as_array().unwrap() {
            assert_evidence(item, key);
        }
    }
    assert!(
        c["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["solver"].is_string() && x["fate"].is_string())
    );
    let src = &c["outcome"]["evidence"]["sources"][0];
    assert!(src["line"].as_u64().unwrap() > 0);
    assert_eq!(src["sha256"].as_str().unwrap().len(), 64);
}

/// `case read` on the whole Vega64 folder reads every case on its own (as `case table`),
/// instead of one case merged from all the logs.
#[test]
fn read_on_a_folder_of_recorded_cases_reads_each() {
    let Some(d) = vega64() else { return };
    let out = rocpath()
        .args(["--json", "case", "read"])
        .arg(&d)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Every recorded case reads back whole as the document's type (what the ledger reads).
    crate::doc_contract::reads_back::<rocpath_docs::case::CaseDoc>(v.clone());
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 40, "{} case(s)", cases.len());
    let table = rocpath()
        .args(["--json", "case", "table"])
        .arg(&d)
        .output()
        .unwrap();
    let t: Value = serde_json::from_slice(&table.stdout).unwrap();
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), cases.len());
    for (c, r) in cases.iter().zip(rows) {
        assert_eq!(c["name"], r["case"]);
        let logs: Vec<&str> = c["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["path"].as_str())
            .filter(|p| p.ends_with(".log"))
            .collect();
        assert_eq!(logs.len(), 1, "{}: {logs:?}", c["name"]);
    }
}

#[test]
fn read_markdown_and_table_on_recorded_cases() {
    let Some(d) = vega64() else { return };
    let out = rocpath()
        .args(["case", "read", "--markdown"])
        .arg(d.join("vega64_fp32_nchw_3x3_fwd_n32.log"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with("# TRACE MAP"));
    assert!(md.contains("- [x] fallback_not_confirmed"));
    assert!(md.contains("`14/ConvBinWinograd3x3U`"));
    assert!(md.contains("`miopenSp3AsmConv3x3F`"));
    let out = rocpath()
        .args(["case", "table", "--tsv"])
        .arg(&d)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let tsv = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        rows[0][..8],
        [
            "case", "dtype", "problem", "forced", "outcome", "selected", "kernel", "exit"
        ]
    );
    let row = rows
        .iter()
        .find(|r| r[0] == "vega64_bfp16_nchw_3x3_probe")
        .unwrap();
    assert_eq!(
        (row[1], row[4], row[5]),
        ("BF16", "natural", "91/GemmFwdRest")
    );
    let row = rows
        .iter()
        .find(|r| r[0] == "vega64_fp16_force_hipigemm_fwdxdlops_nchw_3x3")
        .unwrap();
    assert_eq!(
        (row[4], row[7]),
        ("runtime_abort/assertion", "134 (SIGABRT)")
    );
    assert!(rows.len() > 45);
}

#[test]
fn run_replaying_a_log_then_read_json() {
    let t = tempfile::tempdir().unwrap();
    let log = t.path().join("replay.log");
    std::fs::write(&log, LOG).unwrap();
    let out = rocpath()
        .args(["--json", "case", "run", "replay", "--out"])
        .arg(t.path())
        .args(["--", "sh", "-c"])
        .arg(format!(
            "cat '{}' >&2; echo MIOPEN_LOG_LEVEL=$MIOPEN_LOG_LEVEL",
            log.display()
        ))
        .env("MIOPEN_LOG_LEVEL", "3")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["cases"][0];
    assert_eq!(c["outcome"]["kind"], "natural");
    assert_eq!(c["selected"]["solver_id"], 14);
    assert_eq!(c["selected"]["kernels"][0], "miopenSp3AsmConv3x3F");
    // The echo goes to stderr, the data to stdout.
    assert!(String::from_utf8_lossy(&out.stderr).contains("Solution: 14/ConvBinWinograd3x3U"));
    // A variable the user set is never overridden.
    let dir = t.path().join("replay");
    let stdout = std::fs::read_to_string(dir.join("stdout.log")).unwrap();
    assert_eq!(stdout.trim(), "MIOPEN_LOG_LEVEL=3");
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    assert_eq!(meta["schema"], "rocpath.case-meta/1");
    assert_eq!(meta["env"]["MIOPEN_LOG_LEVEL"], "3");
    assert!(meta["env_set"].get("MIOPEN_LOG_LEVEL").is_none());
    assert_eq!(meta["env_set"]["MIOPEN_ENABLE_LOGGING"], "1");
    assert_eq!(meta["status"], "exited");
    assert!(
        meta["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "stderr.log")
    );
}

#[test]
fn ctrl_c_during_a_replayed_run_leaves_an_incomplete_case() {
    let t = tempfile::tempdir().unwrap();
    let log = t.path().join("replay.log");
    std::fs::write(&log, LOG).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("rocpath");
    let child = std::process::Command::new(bin)
        .args(["-q", "--json", "case", "run", "slow", "--out"])
        .arg(t.path())
        .args(["--", "sh", "-c"])
        .arg(format!("cat '{}'; exec sleep 60", log.display()))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout_log = t.path().join("slow").join("stdout.log");
    let start = Instant::now();
    while std::fs::metadata(&stdout_log).map(|m| m.len()).unwrap_or(0) < LOG.len() as u64 {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the replay did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The case is recorded as running while it runs.
    let meta = std::fs::read_to_string(t.path().join("slow/case.json")).unwrap();
    assert!(meta.contains("\"running\""));
    let st = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let out = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["cases"][0];
    assert_eq!(c["complete"], false);
    assert_eq!(c["outcome"]["kind"], "incomplete");
    assert_eq!(c["outcome"]["evidence"]["class"], "limited");
    // What the run printed before the interrupt is kept and read.
    assert_eq!(c["selected"]["solver"], "ConvBinWinograd3x3U");
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("slow/case.json")).unwrap())
            .unwrap();
    assert_eq!(meta["status"], "interrupted");
    assert_eq!(meta["interrupted_by"], "SIGINT");
}

/// Waits until `file` holds at least `len` bytes (the child has started and printed).
fn wait_for_output(file: &std::path::Path, len: u64) {
    let start = Instant::now();
    while std::fs::metadata(file).map(|m| m.len()).unwrap_or(0) < len {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} never got its output",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends SIGINT to a whole process group, as a terminal's Ctrl-C does.
fn ctrl_c(group: u32) {
    let st = std::process::Command::new("kill")
        .args(["-INT", "--", &format!("-{group}")])
        .status()
        .unwrap();
    assert!(st.success());
}

/// Ctrl-C at a terminal: SIGINT reaches the runner and the child together (one process group).
/// The child died of it before the runner looked at its own signal, and the case was recorded
/// `signaled`, complete, outcome `undetermined`; it must stay incomplete (`interrupted`).
#[test]
fn ctrl_c_to_the_process_group_leaves_an_incomplete_case() {
    use std::os::unix::process::CommandExt;
    let t = tempfile::tempdir().unwrap();
    let log = t.path().join("replay.log");
    std::fs::write(&log, LOG).unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rocpath"))
        .args(["-q", "--json", "case", "run", "grp", "--out"])
        .arg(t.path())
        .args(["--", "sh", "-c"])
        .arg(format!("cat '{}'; exec sleep 60", log.display()))
        .stdout(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    wait_for_output(&t.path().join("grp/stdout.log"), LOG.len() as u64);
    ctrl_c(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("grp/case.json")).unwrap())
            .unwrap();
    assert_eq!(meta["status"], "interrupted");
    assert_eq!(meta["interrupted_by"], "SIGINT");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["cases"][0];
    assert_eq!(c["complete"], false);
    assert_eq!(c["outcome"]["kind"], "incomplete");
}

/// The lanes runner runs its commands through the case runner: the same Ctrl-C stops the lanes
/// at the run it interrupted (before, the interrupted run was `signaled` and the next runs went
/// on).
#[test]
fn ctrl_c_to_the_process_group_stops_the_lanes() {
    use std::os::unix::process::CommandExt;
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("lanes");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rocpath"))
        .args([
            "-q", "lanes", "run", "--repeat", "3", "--warmup", "0", "--out",
        ])
        .arg(&out_dir)
        .args(["--lane", "a=sh -c 'echo 1.5; exec sleep 60'"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    wait_for_output(&out_dir.join("a/run-000/stdout.log"), 4);
    ctrl_c(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines = std::fs::read_to_string(out_dir.join("a.jsonl")).unwrap();
    let recs: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(recs.len(), 1, "{lines}");
    assert_eq!(recs[0]["status"], "interrupted");
    assert_eq!(recs[0]["signal"], "SIGINT");
}

#[test]
fn run_errors_and_unknown_knobs() {
    let t = tempfile::tempdir().unwrap();
    let out = rocpath()
        .args(["case", "run", "x", "--knobs", "nope", "--out"])
        .arg(t.path())
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = rocpath()
        .args(["-q", "case", "run", "missing", "--out"])
        .arg(t.path())
        .args(["--", "/nonexistent/program"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(t.path().join("missing/case.json").is_file());
    let out = rocpath()
        .args(["case", "read", "/nonexistent/case"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn unreadable_inputs_name_their_file_and_line() {
    let t = tempfile::tempdir().unwrap();
    let case = t.path().join("c");
    std::fs::create_dir(&case).unwrap();
    let meta = case.join("case.json");
    std::fs::write(&meta, "{\n  oops\n}\n").unwrap();
    std::fs::write(case.join("stderr.log"), LOG).unwrap();
    let out = rocpath()
        .args(["--json", "case", "read"])
        .arg(&case)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cases"].as_array().unwrap().len(), 1, "the logs are read");
    let e = &v["errors"][0];
    assert_eq!(e["path"], meta.display().to_string());
    assert_eq!(e["line"], 2);
    assert!(e.get("offset").is_none(), "{e}");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.starts_with("not the runner's case.json record ("),
        "{msg}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("error: {}: {msg}\n", meta.display())),
        "{stderr}"
    );
    // The runner's errors say what to do, once (no cause repeated after the message).
    let file = t.path().join("file");
    std::fs::write(&file, "").unwrap();
    let out = rocpath()
        .args(["case", "run", "x", "--out"])
        .arg(&file)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("error: {}: ", file.join("x").display())),
        "{stderr}"
    );
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
    let out = rocpath()
        .args(["case", "run", "c", "--out"])
        .arg(t.path())
        .args(["--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("case folder exists and is not empty; choose another case name"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn trace_and_lane_errors_are_typed() {
    let t = tempfile::tempdir().unwrap();
    let json = t.path().join("1_results.json");
    std::fs::write(&json, "{\n\n  oops\n}\n").unwrap();
    let out = rocpath()
        .args(["--json", "trace"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["errors"][0];
    assert_eq!(e["path"], json.display().to_string());
    assert_eq!(e["line"], 3);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("not a rocprofv3 JSON document ("),
        "{e}"
    );
    // A missing --generate file is one error, its cause said once.
    let out = rocpath()
        .args(["trace", "--generate"])
        .arg(t.path().join("gone.json"))
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: {}: ",
            t.path().join("gone.json").display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
    let out = rocpath()
        .args(["lanes", "run", "--lane", "a=sh -c 'x", "--out"])
        .arg(t.path().join("lanes"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: unterminated ' in \"sh -c 'x\" (opened at byte 6); close it\n"
    );
}
