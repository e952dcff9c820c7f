#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `rocpath ledger` and `rocpath site` end to end with the real binary: the bundled example,
//! a process killed at random points during `ledger import`, a second writer, and the real
//! MIOpen case logs of the shared fixtures read by `rocpath case read`.

use rocpath_ledger::store::Ledger;
use serde_json::json;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rocpath");

fn rocpath(args: &[&str], cwd: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_example_ledger_checks_and_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let st = Command::new("bash")
        .arg(rocpath_testdata::repo_root().join("examples/run.sh"))
        .arg(&out)
        .env("ROCPATH", BIN)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", text(&st));
    let stdout = String::from_utf8_lossy(&st.stdout);
    assert!(
        stdout.contains("Open the evidence site:") && stdout.contains("site/index.html"),
        "{stdout}"
    );
    let ledger = out.join("ledger");
    let o = rocpath(
        &["--json", "ledger", "check", ledger.to_str().unwrap()],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema"], "rocpath.ledger.check/1");
    assert_eq!(v["errors"], 0);
    assert!(v["claims"].as_u64().unwrap() >= 7);
    // One of each class, honestly: at least one unresolved and one limited claim.
    let loaded = Ledger::open(&ledger).unwrap().0.load().unwrap();
    for class in ["confirmed", "inferred", "unresolved", "limited"] {
        assert!(
            loaded
                .claims
                .iter()
                .any(|c| c.class.map(|k| k.as_str()) == Some(class)),
            "{class}"
        );
        assert!(loaded.claims.iter().all(|c| !c.statement.en.is_empty()));
    }
    for page in [
        "index.html",
        "stack.html",
        "matrix.html",
        "taxonomy.html",
        "timeline.html",
        "coverage.html",
        "search.html",
        "cases/example-install-gfx900.html",
        "worlds/gfx900.html",
        "claims/gfx900-dot-i8-fma-fallback.html",
    ] {
        assert!(out.join("site").join(page).is_file(), "{page}");
    }
    let world = std::fs::read_to_string(out.join("site/worlds/gfx900.html")).unwrap();
    assert!(
        world.contains("<svg") && world.contains("libexample_dnn.so.1.1"),
        "heatmap and the library without gfx900 code"
    );

    // The ledger notices when the example data changes under it: a copy of the ledger and
    // its inputs, one input modified.
    let copy = tmp.path().join("copy");
    let data = copy.join("examples");
    std::fs::create_dir_all(&data).unwrap();
    assert!(
        Command::new("cp")
            .arg("-r")
            .arg(&out)
            .arg(copy.join("out"))
            .status()
            .unwrap()
            .success()
    );
    assert!(
        Command::new("cp")
            .arg("-r")
            .arg(rocpath_testdata::repo_root().join("examples/data"))
            .arg(&data)
            .status()
            .unwrap()
            .success()
    );
    let base = copy.join("out/ledger");
    // Observations record their inputs relative to the folder run.sh ran in (the repo root);
    // point them at the copy.
    for e in std::fs::read_dir(base.join("observations")).unwrap() {
        let p = e.unwrap().path();
        let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        v["imported"]["base"] = json!("../..");
        std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    }
    let dnn = data.join("data/install/opt/rocm-example/lib/libexample_dnn.so.1.1");
    let mut bytes = std::fs::read(&dnn).unwrap();
    bytes.push(0);
    std::fs::write(&dnn, bytes).unwrap();
    let o = rocpath(&["ledger", "check", base.to_str().unwrap()], tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("error[ledger.stale_evidence]") && t.contains("libexample_dnn.so.1.1"),
        "{t}"
    );
}

/// A document with many records whose evidence names large raw inputs, so that an import
/// spends its time hashing, writing and renaming.
fn big_document(i: usize, inputs: &[String]) -> serde_json::Value {
    let records: Vec<serde_json::Value> = (0..2000)
        .map(|k| {
            json!({"name": format!("kernel_{i}_{k}"), "target": "gfx900:xnack-", "processor": "gfx900",
                   "evidence": {"class": "confirmed", "kind": "shipped_artifact_verified", "rule": "isa.decoded_from_shipped_code",
                                "sources": [{"path": inputs[k % inputs.len()], "offset": k * 256}]}})
        })
        .collect();
    json!({"schema": "rocpath.isa/1",
           "observed": {"tool": "rocpath", "version": "0.1.0", "command": format!("rocpath --json isa part{i}"),
                        "time": "2026-11-20T00:00:00Z", "host": "h", "schema": "rocpath.isa/1"},
           "code_objects": records})
}

/// A document whose import also writes records: for each of its 80 disagreements, an open
/// question (an `explain --compare` document's shape).
fn compare_document(i: usize, inputs: &[String]) -> serde_json::Value {
    let comparisons: Vec<serde_json::Value> = (0..80)
        .map(|k| json!({"arch": "gfx900:xnack-", "question": format!("Why does case {i}.{k} differ?"),
                        "evidence": {"class": "unresolved", "kind": "hypothesis", "rule": "explain.compare",
                                     "sources": [{"path": inputs[k % inputs.len()]}]}}))
        .collect();
    json!({"schema": "rocpath.explain.compare/1",
           "observed": {"tool": "rocpath", "version": "0.1.0", "command": format!("rocpath --json explain --compare run{i}.log"),
                        "time": "2026-11-20T00:00:00Z", "host": "h", "schema": "rocpath.explain.compare/1"},
           "comparisons": comparisons})
}

/// Every record file of a ledger with its text (the lock and temporaries left out).
fn ledger_tree(ledger: &Path) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for d in ["observations", "cases", "questions", "claims"] {
        for e in std::fs::read_dir(ledger.join(d))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') {
                out.insert(
                    format!("{d}/{name}"),
                    std::fs::read_to_string(e.path()).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn killing_an_import_at_random_points_leaves_a_valid_ledger() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let ledger = dir.join("ledger");
    assert!(rocpath(&["ledger", "init", "ledger"], dir).status.success());
    // Raw inputs: 4 × 8 MiB.
    let mut inputs = Vec::new();
    let block: Vec<u8> = (0..65_536u32)
        .map(|x| (x.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for n in 0..4u8 {
        let name = format!("lib{n}.so");
        let mut bytes = block.repeat(128);
        bytes[0] = n;
        std::fs::write(dir.join(&name), bytes).unwrap();
        inputs.push(name);
    }
    let mut files = Vec::new();
    for i in 0..16 {
        let f = format!("part{i:02}.json");
        let doc = if i % 2 == 0 {
            big_document(i, &inputs)
        } else {
            compare_document(i, &inputs)
        };
        std::fs::write(dir.join(&f), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
        files.push(f);
    }
    let mut args = vec!["ledger".to_string(), "import".into(), "ledger".into()];
    args.extend(files.iter().cloned());

    // How long a whole import takes here, to spread the kills over it.
    let t = Instant::now();
    let o = Command::new(BIN)
        .args(&args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let full = t.elapsed();
    let clean = ledger_tree(&ledger);
    std::fs::remove_dir_all(&ledger).unwrap();
    assert!(rocpath(&["ledger", "init", "ledger"], dir).status.success());

    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut partial_seen = false;
    let records = |ledger: &Path| {
        std::fs::read_dir(ledger.join("observations"))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .count()
            })
            .unwrap_or(0)
    };
    for round in 0..11 {
        // Each round starts from an empty ledger, so a kill that lands after an earlier
        // round completed still shows whether this one was cut.
        std::fs::remove_dir_all(&ledger).unwrap();
        assert!(rocpath(&["ledger", "init", "ledger"], dir).status.success());
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = Duration::from_micros(seed % (full.as_micros() as u64).max(1));
        let mut child = Command::new(BIN)
            .args(&args)
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        if round == 10 {
            // The last kill lands right after the first record is written, however fast
            // or slow the machine is.
            let until = Instant::now() + full * 4;
            while records(&ledger) == 0 && Instant::now() < until {
                std::thread::sleep(Duration::from_micros(200));
            }
        } else {
            std::thread::sleep(at);
        }
        let _ = child.kill(); // SIGKILL: no cleanup runs
        let _ = child.wait();

        // Every record file is whole; the check passes; temporaries are not records.
        let (l, _) = Ledger::open(&ledger).unwrap();
        let loaded = l.load().unwrap();
        assert!(
            loaded.unreadable.is_empty(),
            "round {round} (killed after {at:?}): {:?}",
            loaded.unreadable
        );
        let n = loaded.observations.len();
        partial_seen |= n > 0 && n < files.len();
        // The check passes, or names the case record whose import was cut before its
        // observation (the commit point); nothing else.
        let o = rocpath(&["--json", "ledger", "check", "ledger"], dir);
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
        let rules: Vec<&str> = doc["problems"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["rule"].as_str())
            .collect();
        assert!(
            matches!(o.status.code(), Some(0) | Some(1))
                && rules.iter().all(|r| *r == "ledger.missing_record"),
            "round {round} (killed after {at:?}): {}",
            text(&o)
        );
        // Importing again gives what a clean import gives.
        let o = Command::new(BIN)
            .args(&args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let again = ledger_tree(&ledger);
        assert_eq!(
            again.keys().collect::<Vec<_>>(),
            clean.keys().collect::<Vec<_>>(),
            "round {round} (killed after {at:?})"
        );
        for (k, v) in &again {
            assert!(
                v == &clean[k],
                "round {round} (killed after {at:?}): {k} differs"
            );
        }
    }
    // The lock died with the killed processes: a full import goes through and cleans up.
    let o = Command::new(BIN)
        .args(&args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let loaded = Ledger::open(&ledger).unwrap().0.load().unwrap();
    assert_eq!(loaded.observations.len(), files.len());
    let leftovers: Vec<String> = std::fs::read_dir(ledger.join("observations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(
        partial_seen,
        "no kill landed in the middle of an import (full import took {full:?})"
    );
}

#[test]
fn a_second_writer_is_refused_with_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    assert!(rocpath(&["ledger", "init", "ledger"], dir).status.success());
    let doc = json!({"schema": "rocpath.arch/1", "observed": {"tool": "rocpath", "version": "0", "command": "rocpath --json arch", "time": "t", "host": "h", "schema": "rocpath.arch/1"}, "targets": []});
    std::fs::write(dir.join("a.json"), doc.to_string()).unwrap();
    let (l, _) = Ledger::open(&dir.join("ledger")).unwrap();
    let held = l.lock("rocpath ledger import huge.json").unwrap();
    for args in [
        vec!["ledger", "import", "ledger", "a.json"],
        vec![
            "ledger",
            "add-claim",
            "ledger",
            "--id",
            "x",
            "--class",
            "unresolved",
            "--kind",
            "hypothesis",
            "--en",
            "x",
            "--support",
            "a",
        ],
    ] {
        let o = rocpath(&args, dir);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let t = text(&o);
        assert!(
            t.contains("another rocpath process is writing this ledger")
                && t.contains("import huge.json"),
            "{t}"
        );
    }
    drop(held);
    // Released. Another test thread may have forked a child that has not reached exec yet:
    // such a child shares this process's lock until exec closes it, so allow it a moment.
    let mut o = rocpath(&["ledger", "import", "ledger", "a.json"], dir);
    for _ in 0..50 {
        if o.status.success() || !text(&o).contains("another rocpath process") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        o = rocpath(&["ledger", "import", "ledger", "a.json"], dir);
    }
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn cli_errors_are_precise() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let o = rocpath(&["ledger", "check", "nowhere"], dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("not a rocpath ledger"), "{}", text(&o));
    assert!(rocpath(&["ledger", "init", "l"], dir).status.success());
    let o = rocpath(&["ledger", "init", "l"], dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("already a ledger"));
    std::fs::write(dir.join("x.json"), "{\"a\": 1}").unwrap();
    let o = rocpath(&["ledger", "import", "l", "x.json", "missing.json"], dir);
    assert_eq!(o.status.code(), Some(2));
    let t = text(&o);
    assert!(
        t.contains("x.json: not a rocpath --json document") && t.contains("missing.json"),
        "{t}"
    );
    let o = rocpath(
        &[
            "ledger",
            "add-claim",
            "l",
            "--id",
            "bad id",
            "--class",
            "confirmed",
            "--kind",
            "hypothesis",
            "--en",
            "x",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("is not valid"));
    let o = rocpath(
        &[
            "ledger",
            "add-claim",
            "l",
            "--id",
            "ok",
            "--class",
            "sure",
            "--kind",
            "hypothesis",
            "--en",
            "x",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(2), "clap refuses an unknown class");
    // A claim without support is recorded, and check names the rule.
    let o = rocpath(
        &[
            "ledger",
            "add-claim",
            "l",
            "--id",
            "lonely",
            "--class",
            "unresolved",
            "--kind",
            "hypothesis",
            "--ja",
            "未確定",
        ],
        dir,
    );
    assert!(o.status.success(), "{}", text(&o));
    let o = rocpath(&["ledger", "check", "l"], dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("error[ledger.claim_without_support]: claims/lonely.toml"),
        "{}",
        text(&o)
    );
}

#[test]
fn real_miopen_cases_import_into_the_taxonomy() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::missing("shared fixtures not found");
        return;
    };
    let logs = shared.join("fixtures/miopen-logs/vega64");
    if !logs.is_dir() {
        rocpath_testdata::missing("fixtures/miopen-logs/vega64 not found");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    assert!(rocpath(&["ledger", "init", "l"], dir).status.success());
    let pick = [
        ("vega64_fp32_nchw_3x3_fwd_n32", "natural"),
        ("vega64_int8_force_dlops_ck", "applicability_reject"),
        (
            "vega64_fp16_force_hipigemm_v4r5xdlops_nchw_3x3",
            "build_failure",
        ),
        (
            "vega64_int8_force_hipigemm_fwdxdlops_nchw_3x3",
            "runtime_abort",
        ),
    ];
    for (name, _) in pick {
        let o = rocpath(
            &[
                "--json",
                "case",
                "read",
                logs.join(format!("{name}.log")).to_str().unwrap(),
            ],
            dir,
        );
        assert!(!o.stdout.is_empty(), "{}", text(&o));
        std::fs::write(dir.join(format!("{name}.json")), &o.stdout).unwrap();
        let o = rocpath(
            &[
                "ledger",
                "import",
                "l",
                &format!("{name}.json"),
                "--as",
                name,
                "--allow-root",
                logs.to_str().unwrap(),
            ],
            dir,
        );
        assert!(o.status.success(), "{}", text(&o));
    }
    // Without --allow-root, the logs (outside the folder the import runs in) are not read.
    assert!(rocpath(&["ledger", "init", "l2"], dir).status.success());
    let o = rocpath(
        &[
            "ledger",
            "import",
            "l2",
            &format!("{}.json", pick[0].0),
            "--as",
            "x",
        ],
        dir,
    );
    assert!(o.status.success(), "{}", text(&o));
    let x = Ledger::open(&dir.join("l2")).unwrap().0.load().unwrap();
    let x = &x.observations[0];
    assert!(x.quotes.is_empty() && x.inputs.iter().all(|i| i.sha256.is_none()));
    assert!(
        x.inputs.iter().all(|i| i.note.contains("--allow-root")),
        "{:?}",
        x.inputs
    );
    let loaded = Ledger::open(&dir.join("l")).unwrap().0.load().unwrap();
    assert_eq!(loaded.cases.len(), 4, "a case record per case document");
    assert!(
        loaded
            .observations
            .iter()
            .all(|o| !o.quotes.is_empty() && o.inputs.iter().all(|i| i.sha256.is_some()))
    );
    for (name, mode) in pick {
        let o = loaded.observations.iter().find(|o| o.id == name).unwrap();
        let outcomes = rocpath_ledger::schemas::case_outcomes(o);
        assert_eq!(outcomes.len(), 1, "{name}");
        assert_eq!(outcomes[0].mode(), mode, "{name}");
        assert_eq!(outcomes[0].forced.is_some(), mode != "natural", "{name}");
    }
    // A natural-selection claim resting on the forced DLOPS run is caught; on the natural
    // FP32 run it passes.
    let claim = |id: &str, support: &str| {
        rocpath(
            &[
                "ledger",
                "add-claim",
                "l",
                "--id",
                id,
                "--class",
                "confirmed",
                "--kind",
                "runtime_verified",
                "--selection",
                "natural",
                "--world",
                "gfx900",
                "--en",
                "MIOpen chooses this solver by itself on gfx900",
                "--support",
                support,
            ],
            dir,
        )
    };
    assert!(
        claim("ok", "vega64_fp32_nchw_3x3_fwd_n32#/cases/0/selected")
            .status
            .success()
    );
    let o = rocpath(&["ledger", "check", "l"], dir);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        claim("wrong", "vega64_int8_force_dlops_ck")
            .status
            .success()
    );
    let o = rocpath(&["ledger", "check", "l"], dir);
    assert_eq!(o.status.code(), Some(1));
    let t = text(&o);
    assert!(
        t.contains("error[ledger.forced_as_natural]: claims/wrong.toml")
            && t.contains("ConvCkIgemmFwdV6r1DlopsNchw"),
        "{t}"
    );
    // The taxonomy page has the four modes with the real symptoms.
    let o = rocpath(&["site", "build", "l", "-o", "site"], dir);
    assert!(o.status.success(), "{}", text(&o));
    let tax = std::fs::read_to_string(dir.join("site/taxonomy.html")).unwrap();
    for m in [
        "applicability_reject",
        "build_failure",
        "runtime_abort",
        "natural",
        "code_object",
        "HIPRTC_ERROR_COMPILATION",
    ] {
        assert!(tax.contains(m), "{m}");
    }
    let case = std::fs::read_to_string(
        dir.join("site/cases/vega64_int8_force_hipigemm_fwdxdlops_nchw_3x3.html"),
    )
    .unwrap();
    assert!(
        case.contains("class=\"raw-line\"") && case.contains("Assertion"),
        "raw log lines on the case page"
    );
}

#[test]
fn set_class_records_the_change_in_the_claims_history() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let l = dir.join("ledger");
    let ls = l.to_str().unwrap();
    assert!(rocpath(&["ledger", "init", ls], dir).status.success());
    let data = rocpath_testdata::repo_root().join("examples/data");
    let inv = rocpath(&["--json", "inventory", data.to_str().unwrap()], dir);
    std::fs::write(dir.join("inv.json"), &inv.stdout).unwrap();
    let o = rocpath(&["ledger", "import", ls, "inv.json", "--as", "inv"], dir);
    assert!(o.status.success(), "{}", text(&o));
    let o = rocpath(
        &[
            "ledger",
            "add-claim",
            ls,
            "--id",
            "ships-gfx900",
            "--class",
            "inferred",
            "--kind",
            "hypothesis",
            "--en",
            "The example install ships gfx900 code.",
            "--support",
            "inv",
            "--date",
            "2026-01-01",
        ],
        dir,
    );
    assert!(o.status.success(), "{}", text(&o));

    let o = rocpath(
        &[
            "--json",
            "ledger",
            "set-class",
            ls,
            "ships-gfx900",
            "--class",
            "confirmed",
            "--kind",
            "shipped_artifact_verified",
            "--en",
            "The inventory lists gfx900 code objects.",
            "--ja",
            "インベントリに gfx900 のコードオブジェクトがある。",
            "--date",
            "2026-02-01",
        ],
        dir,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema"], "rocpath.ledger.set-class/1");
    assert_eq!(v["class"], "confirmed");
    assert_eq!(v["history"], 2);
    let toml = std::fs::read_to_string(l.join("claims/ships-gfx900.toml")).unwrap();
    assert_eq!(toml.matches("[[history]]").count(), 2, "{toml}");
    assert!(toml.contains("2026-02-01") && toml.contains("The inventory lists gfx900"));
    let o = rocpath(&["ledger", "check", ls], dir);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // No reason, an unknown claim, a date before the last entry: refused, nothing written.
    for args in [
        vec![
            "ledger",
            "set-class",
            ls,
            "ships-gfx900",
            "--class",
            "limited",
        ],
        vec![
            "ledger",
            "set-class",
            ls,
            "nope",
            "--class",
            "limited",
            "--en",
            "x",
        ],
        vec![
            "ledger",
            "set-class",
            ls,
            "ships-gfx900",
            "--class",
            "limited",
            "--en",
            "x",
            "--date",
            "2025-12-31",
        ],
    ] {
        let o = rocpath(&args, dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    }
    let o = rocpath(
        &[
            "ledger",
            "set-class",
            ls,
            "nope",
            "--class",
            "limited",
            "--en",
            "x",
        ],
        dir,
    );
    assert!(text(&o).contains("add-claim"), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(l.join("claims/ships-gfx900.toml")).unwrap(),
        toml
    );
}
