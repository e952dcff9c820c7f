#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `ledger derive` over install checks, gates, provenance and follow trails: documents as the
//! rocpath binary prints them (`tests/data/derive/README.md` says how each was made). The
//! claims are deterministic, and a newer document that contradicts one changes its class
//! with a dated history entry.

use super::common;
use common::Fixture;
use rocpath_evidence::{Class, Proof};
use rocpath_ledger::derive::{self, block_of, claim_id, rule};
use serde_json::Value;
use std::path::PathBuf;

const BLAS: &str = "examples/data/install/opt/rocm-example/lib/libexample_blas.so.1.1";

fn data(name: &str) -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/derive")
        .join(name);
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn all(f: &Fixture) {
    f.import_in("check-gfx900", &data("check_example_gfx900.json"), "");
    f.import_in("gates-miopen", &data("gates_miopen_gfx900.json"), "gfx900");
    f.import_in(
        "provenance-mlir",
        &data("provenance_mlir_igemm_fwd.json"),
        "gfx900",
    );
    f.import_in(
        "follow-device-name",
        &data("follow_device_name.json"),
        "gfx900",
    );
}

#[test]
fn every_kind_derives_deterministically() {
    let f = Fixture::new();
    all(&f);
    let first = f.derive("2026-11-23");
    assert!(first.errors.is_empty(), "{:?}", first.errors);
    for r in [
        rule::CHECK_VERDICT,
        rule::GATES_TARGET,
        rule::GATES_TABLE,
        rule::PROVENANCE_GATE,
        rule::FOLLOW_END,
    ] {
        assert!(
            first.rules.get(r).copied().unwrap_or(0) > 0,
            "{r}: {first:?}"
        );
    }
    let a = f.claims_dir();
    let again = f.derive("2026-12-01");
    assert!(
        again.created.is_empty() && again.updated.is_empty(),
        "{again:?}"
    );
    assert_eq!(f.claims_dir(), a);
    // Every derived claim passes the ledger's checks (raw inputs of another machine may be
    // absent: a warning, not an error).
    let loaded = f.ledger.load().unwrap();
    let errors: Vec<_> = rocpath_ledger::check::check(f.ledger.root(), &loaded)
        .into_iter()
        .filter(|p| p.severity == rocpath_ledger::check::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn check_verdicts_carry_the_checks_class() {
    let f = Fixture::new();
    all(&f);
    f.derive("2026-11-23");
    let runs = f.claim(
        rule::CHECK_VERDICT,
        &format!("check-gfx900|gfx900:xnack-|{BLAS}"),
    );
    assert_eq!(
        runs.statement.en,
        "On gfx900:xnack-, libexample_blas.so.1.1 runs (1 of 5 code objects fit the device)."
    );
    assert_eq!(runs.class, Some(Class::Inferred));
    assert_eq!(runs.kind, Some(Proof::ShippedArtifactVerified));
    assert_eq!(runs.world, "gfx900");
    assert_eq!(
        runs.support[0].record.as_deref(),
        Some("/devices/0/libraries/1")
    );
    let tensile = f.claim(
        rule::CHECK_VERDICT,
        "check-gfx900|gfx900:xnack-|examples/data/install/opt/rocm-example/lib/example/library/ (Tensile kernels)",
    );
    assert_eq!(tensile.class, Some(Class::Confirmed));
    assert!(
        tensile.statement.en.starts_with(
            "On gfx900:xnack-, library (Tensile kernels) has no code for the device (0 of 2"
        ),
        "{}",
        tensile.statement.en
    );
    assert!(tensile.statement.ja.contains("デバイス向けのコードがない"));
    let db = f.claim(
        rule::CHECK_VERDICT,
        "check-gfx900|gfx900:xnack-|MIOpen system find-db",
    );
    assert_eq!(
        db.statement.en,
        "On gfx900:xnack-, MIOpen system find-db has nothing for the device (0 of 2 find-db files fit the device)."
    );
    assert_eq!(db.class, Some(Class::Inferred));
    assert_eq!(block_of(&tensile), Some(derive::Block::ObservedFacts));
}

#[test]
fn a_newer_check_that_contradicts_changes_the_class_with_a_dated_entry() {
    let f = Fixture::new();
    let doc = data("check_example_gfx900.json");
    f.import_in("check-gfx900", &doc, "");
    f.derive("2026-11-23");
    let key = format!("check-gfx900|gfx900:xnack-|{BLAS}");
    assert_eq!(
        f.claim(rule::CHECK_VERDICT, &key).class,
        Some(Class::Inferred)
    );
    // The same install checked again after its gfx900 object was removed.
    let mut newer = doc.clone();
    let lib = &mut newer["devices"][0]["libraries"][1];
    lib["verdict"] = "no_code".into();
    lib["compatible"] = 0.into();
    lib["evidence"]["class"] = "confirmed".into();
    lib["evidence"]["rule"] = "check.no_compatible_code_object".into();
    f.import_in("check-gfx900", &newer, "");
    let r = f.derive("2026-11-30");
    let id = claim_id(rule::CHECK_VERDICT, &key);
    assert!(r.updated.contains(&id), "{r:?}");
    let c = f.claim(rule::CHECK_VERDICT, &key);
    assert_eq!(c.class, Some(Class::Confirmed));
    assert!(
        c.statement
            .en
            .contains("has no code for the device (0 of 5")
    );
    let last = c.history.last().unwrap();
    assert_eq!(last.date, "2026-11-30");
    assert_eq!(last.class, Some(Class::Confirmed));
}

#[test]
fn gates_name_the_places_a_processor_is_decided() {
    let f = Fixture::new();
    all(&f);
    f.derive("2026-11-23");
    let g = f.claim(rule::GATES_TARGET, "gates-miopen|MIOpen|gfx900");
    assert_eq!(g.class, Some(Class::Confirmed));
    assert_eq!(g.kind, Some(Proof::CodeVerified));
    assert_eq!(g.world, "gfx900");
    assert_eq!(g.support.len(), 5);
    assert!(
        g.statement.en.starts_with(
            "MIOpen's source (at 2d1fd997a6fc) gates on gfx900 in 5 places (0 build, 5 selection): "
        ),
        "{}",
        g.statement.en
    );
    assert!(g.statement.en.contains("is_ck_supported_hardware"));
    let t = f.claim(rule::GATES_TABLE, "gates-miopen|MIOpen|gfx900");
    assert_eq!(t.class, Some(Class::Inferred));
    assert_eq!(
        t.statement.en,
        "For gfx900, of 6 gates of MIOpen, 5 include it, 1 keep it out and 0 fall back to a generic path (5 name it)."
    );
    // The build list that leaves gfx900 out, and a `gfx9` prefix, cover gfx942.
    let other = f.claim(rule::GATES_TARGET, "gates-miopen|MIOpen|gfx942");
    assert!(
        other
            .statement
            .en
            .contains("in 2 places (1 build, 1 selection)"),
        "{}",
        other.statement.en
    );
}

#[test]
fn provenance_says_who_added_a_gate_and_when() {
    let f = Fixture::new();
    all(&f);
    f.derive("2026-11-23");
    let p = f.claim(
        rule::PROVENANCE_GATE,
        "provenance-mlir|src/solver/conv/conv_mlir_igemm_fwd.cpp:188",
    );
    assert_eq!(p.class, Some(Class::Confirmed));
    assert_eq!(p.kind, Some(Proof::HistoryVerified));
    assert_eq!(p.world, "gfx900");
    assert_eq!(
        p.statement.en,
        "MIOpen: the gate at src/solver/conv/conv_mlir_igemm_fwd.cpp:188 (`if(StartsWith(device_name, \"gfx900\"))`) \
         was added by Zhuoran Yin (AMD) on 2021-12-22 in d1a42ea69ecd \"[MLIR] Disable gfx900 from non-xdlops solver (#1328)\" (0 rewrites since)."
    );
    // `gates --blame`: the gates covering the observation's world, not the others.
    let blamed = f.claim(
        rule::PROVENANCE_GATE,
        "gates-miopen|src/include/miopen/solver/ck_utility_common.hpp:53",
    );
    assert_eq!(
        blamed.support[0].record.as_deref(),
        Some("/gates/1/provenance")
    );
    let dockerfile = f.ledger.root().join("claims").join(format!(
        "{}.toml",
        claim_id(rule::PROVENANCE_GATE, "gates-miopen|Dockerfile:92")
    ));
    assert!(!dockerfile.exists());
}

#[test]
fn a_cut_history_is_an_open_question() {
    let f = Fixture::new();
    let mut doc = data("provenance_mlir_igemm_fwd.json");
    let line = &mut doc["lines"][0];
    line.as_object_mut().unwrap().remove("introduced");
    line["truncated"] = "history truncated at d1a42ea69ecd".into();
    line["evidence"]["class"] = "unresolved".into();
    line["evidence"]["rule"] = "provenance.history_truncated".into();
    f.import_in("provenance-mlir", &doc, "gfx900");
    f.derive("2026-11-23");
    let p = f.claim(
        rule::PROVENANCE_GATE,
        "provenance-mlir|src/solver/conv/conv_mlir_igemm_fwd.cpp:188",
    );
    assert_eq!(p.class, Some(Class::Unresolved));
    assert!(
        p.statement
            .en
            .ends_with("is open: history truncated at d1a42ea69ecd."),
        "{}",
        p.statement.en
    );
    assert_eq!(block_of(&p), Some(derive::Block::OpenQuestions));
}

#[test]
fn a_trail_ends_somewhere_and_its_boundaries_are_open_questions() {
    let f = Fixture::new();
    let doc = data("follow_device_name.json");
    f.import_in("follow-device-name", &doc, "gfx900");
    f.derive("2026-11-23");
    let key = "follow-device-name|/hops/0/children/0";
    let end = f.claim(rule::FOLLOW_END, key);
    assert_eq!(
        end.statement.en,
        "src/solver/conv/conv_mlir_igemm_fwd.cpp:device_name reaches src/solver/conv/conv_mlir_igemm_fwd.cpp:188 \
         (`StartsWith(device_name, \"gfx900\")`, branch) through 1 hops."
    );
    assert_eq!(end.class, Some(Class::Confirmed));
    // The observation, and the source line of each hop from the start.
    assert_eq!(
        end.support[0].observation.as_deref(),
        Some("follow-device-name")
    );
    let lines: Vec<_> = end.support[1..]
        .iter()
        .map(|s| {
            let l = s.source.as_ref().unwrap();
            (l.path.clone(), l.line.unwrap())
        })
        .collect();
    let file = "/work/src/MIOpen/src/solver/conv/conv_mlir_igemm_fwd.cpp";
    assert_eq!(lines, [(file.to_string(), 187), (file.to_string(), 188)]);

    // The same trail read again, its last hop now unresolved and a new hop inferred.
    let mut newer = doc.clone();
    let branch = &mut newer["hops"][0]["children"][0];
    branch["evidence"] = "inferred".into();
    branch["children"] = serde_json::json!([{
        "path": "src/solver/conv/conv_mlir_igemm_fwd.cpp", "line": 189, "commit": null,
        "text": "return false;", "kind": "return", "evidence": "unresolved",
        "symbol": "IsApplicable", "note": "the caller is reached through a virtual call",
        "children": []
    }]);
    newer["truncated"] = true.into();
    newer["notes"] = serde_json::json!(["hop limit 60 reached"]);
    f.import_in("follow-device-name", &newer, "gfx900");
    let r = f.derive("2026-11-30");
    assert!(
        r.removed.contains(&claim_id(rule::FOLLOW_END, key)),
        "{r:?}"
    );
    let open = f.claim(
        rule::FOLLOW_BOUNDARY,
        "follow-device-name|/hops/0/children/0/children/0",
    );
    assert_eq!(open.class, Some(Class::Unresolved));
    assert!(
        open.statement
            .en
            .contains("stops at src/solver/conv/conv_mlir_igemm_fwd.cpp:189 (`IsApplicable`) after 2 hops: the caller is reached through a virtual call."),
        "{}",
        open.statement.en
    );
    let cut = f.claim(rule::FOLLOW_BOUNDARY, "follow-device-name|truncated");
    assert!(
        cut.statement
            .en
            .ends_with("was cut short: hop limit 60 reached.")
    );
    assert_eq!(cut.history.first().unwrap().date, "2026-11-30");
}

#[test]
fn a_trail_through_an_inferred_hop_turns_inferred_with_a_dated_entry() {
    let f = Fixture::new();
    let mut doc = data("follow_device_name.json");
    f.import_in("follow-device-name", &doc, "gfx900");
    f.derive("2026-11-23");
    let key = "follow-device-name|/hops/0/children/0";
    assert_eq!(f.claim(rule::FOLLOW_END, key).class, Some(Class::Confirmed));
    doc["hops"][0]["evidence"] = "inferred".into();
    f.import_in("follow-device-name", &doc, "gfx900");
    f.derive("2026-11-30");
    let end = f.claim(rule::FOLLOW_END, key);
    assert_eq!(end.class, Some(Class::Inferred));
    assert_eq!(block_of(&end), Some(derive::Block::CurrentFindings));
    let last = end.history.last().unwrap();
    assert_eq!(
        (last.date.as_str(), last.class),
        ("2026-11-30", Some(Class::Inferred))
    );
}
