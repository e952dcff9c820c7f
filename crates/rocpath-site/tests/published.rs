#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The publishable site of a derived ledger: the world page's question chain (snapshot; each
//! claim listed once, a person's lead in place of the generated one), raw
//! paths shown relative to the ledger's data root and never as this machine's absolute paths,
//! and `--copy-raw` putting the quoted raw files under `raw/`. The case documents are whole,
//! as `rocpath --json case read` prints them for the Vega64 logs of the shared fixtures
//! (`rocpath_testdata::docs::whole_case`).

use rocpath_ledger::model::*;
use rocpath_ledger::store::Ledger;
use rocpath_ledger::{import::import_file_in, starter_meta};
use serde_json::{Value, json};
use std::path::Path;

fn case(
    dir: &Path,
    name: &str,
    forced: Option<&str>,
    outcome: &str,
    selected: Option<&str>,
) -> Value {
    let log = dir.join("recordings/vega64").join(format!("{name}.log"));
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(
        &log,
        "MIOpen(HIP): Info [get_device_name] Raw device name: gfx900:xnack-\nMIOpen Forward Conv. Algorithm: 1, Solution: 85/ConvDirectNaiveConvFwd\n",
    )
    .unwrap();
    let ev = json!({"class": "confirmed", "kind": "runtime_verified",
                    "rule": format!("case.outcome.{outcome}"),
                    "sources": [{"path": log.display().to_string(), "line": 2}]});
    // What the outcome's evidence does not quote (only the outcome names the log line).
    let seen = json!({"class": "confirmed", "kind": "runtime_verified", "rule": "case.read"});
    json!({
        "schema": "rocpath.case/1",
        "observed": {"tool": "rocpath", "version": "0.1.0",
                     "command": format!("/somewhere/bin/rocpath --json case read {}", log.display()),
                     "time": "2026-03-18T00:00:00Z", "host": "test"},
        "cases": [rocpath_testdata::docs::whole_case(json!({
            "name": name,
            "path": log.display().to_string(),
            "meta": {"schema": "rocpath.case-meta/1",
                     "command_line": "MIOpenDriver convint8 -n 16 -c 32 -H 28 -W 28 -k 32 -y 1 -x 1"},
            "device": {"arch": "gfx900:xnack-", "evidence": seen},
            "libraries": [{"what": "miopen_version", "value": "3.5.1.5b515cf1bca-dirty", "evidence": seen}],
            "problems": [{"key": "32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F"}],
            "forced": forced.map(|s| json!({"solver": s, "id": null, "via": "driver_flag", "evidence": seen})),
            "selected": selected.map(|s| json!({"solver": s, "kernels": [], "evidence": seen})),
            "outcome": {"kind": outcome, "reason": "as logged", "evidence": ev},
        }))],
        "errors": []
    })
}

fn ledger(dir: &Path) -> Ledger {
    let mut meta = starter_meta(Text::new("台帳", "Ledger"));
    meta.data_root = "../recordings".into();
    let l = Ledger::init(&dir.join("ledger"), &meta).unwrap();
    let g = l.lock("test").unwrap();
    let naive = Some("ConvDirectNaiveConvFwd");
    for (name, forced, outcome, selected) in [
        ("vega64_i8_case1", None, "natural", naive),
        ("vega64_int8_nchw_1x1_fwd_n32", None, "natural", naive),
        (
            "vega64_int8_force_dlops_ck",
            Some("ConvCkIgemmFwdV6r1DlopsNchw"),
            "applicability_reject",
            None,
        ),
    ] {
        let f = dir.join(format!("{name}.json"));
        let doc = case(dir, name, forced, outcome, selected);
        std::fs::write(&f, serde_json::to_vec(&doc).unwrap()).unwrap();
        import_file_in(&g, &l, &f, Some(name), dir, "").unwrap();
    }
    rocpath_ledger::derive::derive(&g, &l, "2026-03-18").unwrap();
    g.write_question(&Question {
        schema: QUESTION_SCHEMA.into(),
        id: "q-dot4".into(),
        text: Text::new(
            "gfx900 の INT8 に dot4 経路はあるか",
            "Is there a dot4 path for INT8 on gfx900?",
        ),
        world: "gfx900".into(),
        would_answer: Text::new(
            "ConvCkIgemmFwdV6r1DlopsNchw を gfx906 で強制した実行",
            "A run forcing ConvCkIgemmFwdV6r1DlopsNchw on gfx906",
        ),
        answer: Vec::new(),
    })
    .unwrap();
    l
}

fn between<'a>(s: &'a str, from: &str, to: &str) -> &'a str {
    let a = s.find(from).unwrap();
    let b = s[a..].find(to).unwrap() + a;
    &s[a..b]
}

#[test]
fn world_page_blocks_and_publishable_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let l = ledger(tmp.path());
    let loaded = l.load().unwrap();
    let out = tmp.path().join("site");
    let opts = rocpath_site::Options {
        version: "test".into(),
    };
    let (_, raw) =
        rocpath_site::build_published(l.root(), loaded.clone(), &out, &opts, true).unwrap();
    let raw = raw.unwrap();
    assert_eq!(raw.files, 3);
    assert!(out.join("raw/vega64/vega64_i8_case1.log").is_file());

    let world = std::fs::read_to_string(out.join("worlds/gfx900.html")).unwrap();
    let chain = between(
        &world,
        "<section class=\"understand\">",
        "<section class=\"block block-planned\">",
    );
    insta::assert_snapshot!("world_chain", chain);
    // Each claim of the world once: in the step it answers, not again by class or block.
    for c in &loaded.claims {
        let link = format!("href=\"..&#x2f;claims&#x2f;{}.html\"", c.id);
        assert_eq!(world.matches(&link).count(), 1, "{}", c.id);
    }

    // No page or data file names the temporary folder the ledger and recordings are in.
    let here = std::fs::canonicalize(tmp.path())
        .unwrap()
        .display()
        .to_string();
    let mut n = 0;
    for e in rocpath_testdata::files_under(&out) {
        if e.starts_with(out.join("raw")) {
            continue;
        }
        let text = std::fs::read_to_string(&e).unwrap_or_default();
        assert!(!text.contains(&here), "{} names {here}", e.display());
        n += 1;
    }
    assert!(n > 10);
    let obs = std::fs::read_to_string(out.join("data/vega64_i8_case1.json")).unwrap();
    assert!(obs.contains("\"vega64/vega64_i8_case1.log\""), "{obs}");
    assert!(
        obs.contains("\"rocpath --json case read vega64/vega64_i8_case1.log\""),
        "{obs}"
    );
}

/// `--copy-raw` used to publish any file an observation named (its `..` dropped: a key under
/// the home folder became `raw/root/.ssh/…`) and a file as it is now, not as imported.
#[test]
fn copy_raw_publishes_only_unchanged_files_under_the_data_root() {
    let tmp = tempfile::tempdir().unwrap();
    let l = ledger(tmp.path());
    let notes = tmp.path().join("notes.txt");
    std::fs::write(&notes, "beside the recordings, not under them\n").unwrap();
    let mut doc = case(tmp.path(), "vega64_other", None, "natural", None);
    doc["cases"][0]["outcome"]["evidence"]["sources"][0]["path"] =
        json!(notes.display().to_string());
    let f = tmp.path().join("other.json");
    std::fs::write(&f, serde_json::to_vec(&doc).unwrap()).unwrap();
    let g = l.lock("test").unwrap();
    import_file_in(&g, &l, &f, Some("other"), tmp.path(), "").unwrap();
    drop(g);
    let changed = tmp.path().join("recordings/vega64/vega64_i8_case1.log");
    std::fs::write(&changed, "edited after the import\n").unwrap();
    let out = tmp.path().join("site");
    let opts = rocpath_site::Options {
        version: "test".into(),
    };
    let (_, raw) =
        rocpath_site::build_published(l.root(), l.load().unwrap(), &out, &opts, true).unwrap();
    let raw = raw.unwrap();
    let why: Vec<(String, String)> = raw
        .skipped
        .iter()
        .map(|k| (k.path.clone(), k.why.clone()))
        .collect();
    assert_eq!(raw.files, 2, "{why:?}"); // the two unchanged logs of the recordings
    assert_eq!(why.len(), 2, "{why:?}");
    assert!(
        why.iter()
            .any(|(p, w)| p.ends_with("notes.txt") && w.contains("outside the ledger's data root")),
        "{why:?}"
    );
    assert!(
        why.iter()
            .any(|(p, w)| p.ends_with("vega64_i8_case1.log") && w.contains("changed since")),
        "{why:?}"
    );
    assert!(!out.join("raw/vega64/vega64_i8_case1.log").exists());
    assert!(
        rocpath_testdata::files_under(&out.join("raw"))
            .iter()
            .all(|p| !p.ends_with("notes.txt"))
    );
}

#[test]
fn a_person_s_lead_replaces_the_generated_one() {
    let tmp = tempfile::tempdir().unwrap();
    let l = ledger(tmp.path());
    let mut loaded = l.load().unwrap();
    let out = tmp.path().join("site");
    let opts = rocpath_site::Options {
        version: "test".into(),
    };
    rocpath_site::build_published(l.root(), loaded.clone(), &out, &opts, false).unwrap();
    let generated = std::fs::read_to_string(out.join("worlds/gfx900.html")).unwrap();
    assert!(generated.contains("href=\"#step-fallback\""), "{generated}");
    let w = loaded
        .meta
        .worlds
        .iter_mut()
        .find(|w| w.id == "gfx900")
        .unwrap();
    w.lead = Text::new(
        "INT8 は素朴な経路に落ちる。",
        "INT8 falls to the naive path.",
    );
    rocpath_site::build_published(l.root(), loaded, &out, &opts, false).unwrap();
    let page = std::fs::read_to_string(out.join("worlds/gfx900.html")).unwrap();
    let lead = between(&page, "<section class=\"understand\">", "</section>");
    assert!(lead.contains("INT8 falls to the naive path."), "{lead}");
    assert!(lead.contains("INT8 は素朴な経路に落ちる。"), "{lead}");
    assert!(!lead.contains("each item leads to its question"), "{lead}");
    // The chain itself stays.
    assert!(page.contains("id=\"step-fallback\""));
}
