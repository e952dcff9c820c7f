#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Ollama placement: tied to the server process that loaded the model, and grouped by run
//! configuration. Documents are shaped as `rocpath --json ollama read` prints them for the MI25
//! recordings of the shared fixtures (`mi25-runs/ollama_journal_after_test_20260320_191059.log`
//! and the tinyllama A/B of 19:57): the fields the rules read, with the same values.

use super::common;
use common::Fixture;
use rocpath_evidence::Class;
use rocpath_ledger::check;
use rocpath_ledger::derive::rule;
use serde_json::{Value, json};

const JOURNAL: &str = "mi25-runs/ollama_journal_after_test_20260320_191059.log";

fn signal(side: &str, what: &str, line: u64, pid: u64, time: &str) -> Value {
    json!({"side": side, "what": what, "value": "", "pid": pid, "time": time,
           "at": {"path": JOURNAL, "line": line}})
}

/// The 19:10 run as a reader that did not tell processes apart printed it: pid 194463's
/// `inference compute … library=cpu` (line 10, 17:36) made the run MIXED, though pid 195351
/// loaded all 23 layers on ROCm0 at 17:43.
fn run_1910(verdict: &str, server: Value) -> Value {
    let ev = json!({"class": if verdict == "GPU" {"confirmed"} else {"inferred"},
                    "kind": "runtime_verified",
                    "rule": if verdict == "GPU" {"ollama.verdict.gpu"} else {"ollama.verdict.mixed"}});
    json!({
        "schema": "rocpath.ollama/1",
        "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json ollama read",
                     "time": "2026-03-20T19:10:59Z", "host": "test"},
        "runs": [{
            "run": "20260320_191059",
            "verdict": {"verdict": verdict, "evidence": ev, "signals": [
                signal("cpu", "inference_compute", 10, 194463, "2026-03-20T17:36:28.512+09:00"),
                signal("gpu", "inference_compute", 64, 195351, "2026-03-20T17:37:35.531+09:00"),
                signal("gpu", "placement", 138, 195351, "2026-03-20T17:43:27.518+09:00"),
                signal("gpu", "gpu_layers", 151, 195351, "2026-03-20T17:43:27.636+09:00"),
                signal("gpu", "offloaded", 246, 195351, "3月 20 17:43:27"),
            ]},
            "generate": {"response": {"model": "tinyllama:latest", "response_chars": 0,
                                      "thinking_chars": 0}, "rates": {}, "evidence": ev},
            "server": server,
            "failures": []
        }]
    })
}

fn server(threads: u64, kv: u64, backend: &str) -> Value {
    json!({"gpu_layers": 23, "num_threads": threads, "batch_size": 512, "kv_size": kv,
           "flash_attention": "Auto", "devices": [],
           "env": {"HSA_OVERRIDE_GFX_VERSION": "9.0.0"},
           "backends": [format!("ROCm: /home/u/ollama-src/{backend}/lib/ollama/libggml-hip.so")]})
}

fn claims_of(f: &Fixture, rule_id: &str) -> Vec<rocpath_ledger::model::Claim> {
    f.ledger
        .load()
        .unwrap()
        .claims
        .into_iter()
        .filter(|c| c.derived_by == rule_id)
        .collect()
}

#[test]
fn a_cpu_line_of_another_server_process_does_not_split_the_run() {
    let f = Fixture::new();
    f.import("mi25_1910", run_1910("MIXED", server(4, 2048, "build")));
    f.derive("2026-03-20");
    let c = &claims_of(&f, rule::OLLAMA_PLACEMENT)[0];
    assert!(
        c.statement.en.contains("ran on the GPU"),
        "{}",
        c.statement.en
    );
    assert!(
        c.statement
            .en
            .contains("loaded by server process 195351 at 2026-03-20T17:43:27.518+09:00"),
        "{}",
        c.statement.en
    );
    assert!(!c.statement.en.contains("split"), "{}", c.statement.en);
    // The placement rests on the loading process's lines, never on pid 194463's line 10.
    let lines: Vec<u64> = c
        .support
        .iter()
        .filter_map(|s| s.source.as_ref())
        .filter_map(|l| l.line)
        .collect();
    assert_eq!(lines, vec![138, 151, 246]);
    let problems = check::check(f.ledger.root(), &f.ledger.load().unwrap());
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn run_groups_never_mix_configurations() {
    let f = Fixture::new();
    // Two runs of one build and settings, one of another build (a library fix between them).
    f.import("before_a", {
        let mut d = run_1910("GPU", server(4, 2048, "build"));
        d["runs"][0]["run"] = json!("before_a");
        d
    });
    f.import("before_b", {
        let mut d = run_1910("GPU", server(4, 2048, "build"));
        d["runs"][0]["run"] = json!("before_b");
        d
    });
    f.import("after_a", {
        let mut d = run_1910("GPU", server(4, 2048, "build-gfx900"));
        d["runs"][0]["run"] = json!("after_a");
        d
    });
    // Runs whose documents carry no configuration, in two recording sets.
    for (set, run) in [("set_x", "x1"), ("set_x", "x2"), ("set_y", "y1")] {
        let mut d = run_1910("GPU", json!({"devices": []}));
        d["runs"][0]["run"] = json!(run);
        d["runs"][0]["verdict"]["signals"] = json!([]);
        f.import(&format!("{set}_{run}"), d);
    }
    f.derive("2026-03-20");
    let groups = claims_of(&f, rule::OLLAMA_PLACEMENT_GROUP);
    let texts: Vec<&str> = groups.iter().map(|c| c.statement.en.as_str()).collect();
    // Only the two runs of the first build form a group; the later build's run stays apart,
    // and runs without a logged configuration never join one across sets.
    assert_eq!(groups.len(), 1, "{texts:#?}");
    let g = &groups[0];
    assert!(
        g.statement
            .en
            .contains("ggml-hip …/build/lib/ollama/libggml-hip.so"),
        "{}",
        g.statement.en
    );
    assert!(
        g.statement.en.contains("HSA_OVERRIDE_GFX_VERSION=9.0.0"),
        "{}",
        g.statement.en
    );
    assert!(
        g.statement.en.contains("NumThreads 4"),
        "{}",
        g.statement.en
    );
    assert!(
        g.statement.en.contains("in 2 of 2 runs"),
        "{}",
        g.statement.en
    );
    assert!(!g.statement.en.contains("/home/"), "{}", g.statement.en);
    assert_eq!(g.class, Some(Class::Confirmed));
}

#[test]
fn a_run_without_its_own_configuration_takes_its_server_process_s() {
    // The 19:57 A/B: `r0_w0_k1_second` logged only its request line (pid 325688), the
    // runs of the same server process that loaded the model logged its configuration.
    let f = Fixture::new();
    let mut d = run_1910("GPU", server(4, 2048, "build"));
    d["runs"][0]["run"] = json!("r0_w0_k1_first");
    d["runs"][0]["server"]["pid"] = json!(325688);
    d["runs"][0]["server"]["processes"] = json!([325688]);
    let mut second = d["runs"][0].clone();
    second["run"] = json!("r0_w0_k1_second");
    second["server"] = json!({"devices": [], "processes": [325688]});
    second["verdict"]["signals"] = json!([]);
    // Another process, whose lines log nothing either: it stays out.
    let mut other = second.clone();
    other["run"] = json!("r1_w0_k1_second");
    other["server"] = json!({"devices": [], "processes": [325461]});
    d["runs"] = json!([d["runs"][0].clone(), second, other]);
    f.import("ab", d);
    f.derive("2026-03-20");
    let groups = claims_of(&f, rule::OLLAMA_PLACEMENT_GROUP);
    assert_eq!(groups.len(), 1);
    assert!(
        groups[0].statement.en.contains("in 2 of 2 runs"),
        "{}",
        groups[0].statement.en
    );
    assert!(
        groups[0].statement.en.contains("NumThreads 4"),
        "{}",
        groups[0].statement.en
    );
    let problems = check::check(f.ledger.root(), &f.ledger.load().unwrap());
    assert!(problems.is_empty(), "{problems:?}");
}

/// A document an older rocpath printed (`rocpath.ollama/1`, `errors[]` of strings) is read
/// through its migration: the file in the ledger keeps what the producer printed, the ledger
/// reads the current version, and the claims are those of the same document printed today.
#[test]
fn an_older_version_reads_through_its_migration_and_a_newer_one_is_refused() {
    let mut old = run_1910("MIXED", server(4, 2048, "build"));
    old["errors"] = json!(["/recordings/gone.log: No such file or directory (os error 2)"]);
    let mut new = old.clone();
    new["schema"] = json!(rocpath_docs::schema::OLLAMA.id);
    new["errors"] = json!([{"path": "/recordings/gone.log",
                            "message": "No such file or directory (os error 2)"}]);
    let (a, b) = (Fixture::new(), Fixture::new());
    a.import("mi25_1910", old);
    b.import("mi25_1910", new);
    a.derive("2026-03-20");
    b.derive("2026-03-20");
    let statements = |f: &Fixture| -> Vec<String> {
        claims_of(f, rule::OLLAMA_PLACEMENT)
            .into_iter()
            .map(|c| c.statement.en)
            .collect()
    };
    assert_eq!(statements(&a), statements(&b));
    assert!(!statements(&a).is_empty());
    let file =
        std::fs::read_to_string(a.ledger.root().join("observations/mi25_1910.json")).unwrap();
    assert!(
        file.contains("\"rocpath.ollama/1\""),
        "the file keeps the producer's version"
    );
    let loaded = a.ledger.load().unwrap();
    let o = &loaded.observations[0];
    assert_eq!(o.document["schema"], rocpath_docs::schema::OLLAMA.id);
    assert_eq!(
        o.document["errors"][0]["message"],
        "/recordings/gone.log: No such file or directory (os error 2)"
    );
    // A version newer than this build writes is refused at import, by name.
    let mut newer = run_1910("GPU", server(4, 2048, "build"));
    newer["schema"] = json!("rocpath.ollama/99");
    let f = a.dir.path().join("newer.json");
    std::fs::write(&f, serde_json::to_vec(&newer).unwrap()).unwrap();
    let g = a.ledger.lock("test").unwrap();
    let e = rocpath_ledger::import::import_file_in(&g, &a.ledger, &f, None, a.dir.path(), "")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rocpath.ollama/99 is newer than this rocpath reads (rocpath.ollama/2)"),
        "{e}"
    );
}

/// A run imported in no world is placed on the device its server computed on (`inference
/// compute … compute=gfx900`), else on a ggml device's target; before, the rule read a
/// `devices[].compute` no document prints and left such a run without a world.
#[test]
fn a_run_is_placed_on_the_device_its_server_computed_on() {
    let f = Fixture::new();
    let mut s = server(4, 2048, "build");
    s["compute"] = json!("gfx900");
    f.import("mi25_1910", run_1910("GPU", s));
    let mut d = run_1910("GPU", server(4, 2048, "build"));
    d["runs"][0]["run"] = json!("from_device");
    d["runs"][0]["server"]["devices"] = json!([{"index": 0, "name": "Radeon Instinct MI25",
        "target": "gfx900:xnack-", "cc": "0x900", "wave_size": 64}]);
    f.import("mi25_device", d);
    f.derive("2026-03-20");
    let worlds: Vec<String> = claims_of(&f, rule::OLLAMA_PLACEMENT)
        .into_iter()
        .map(|c| c.world)
        .collect();
    assert_eq!(worlds, ["gfx900", "gfx900"], "{worlds:?}");
}
