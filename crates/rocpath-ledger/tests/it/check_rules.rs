#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `ledger check`: one test per rule, each on a ledger that breaks exactly that rule, and a
//! clean ledger that passes. Documents are imported through `import_file` from JSON files
//! shaped as rocpath prints them, with real raw input files beside them.

use rocpath_evidence::{Class, Locator, Proof};
use rocpath_ledger::check::{Problem, Severity, check, check_ledger, rule};
use rocpath_ledger::model::*;
use rocpath_ledger::store::Ledger;
use rocpath_ledger::{add_claim, import::import_file, parse_support_ref, starter_meta};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

struct Fixture {
    dir: tempfile::TempDir,
    ledger: Ledger,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::init(
            &dir.path().join("ledger"),
            &starter_meta(Text::new("t", "t")),
        )
        .unwrap();
        // Raw inputs: a "library" and a MIOpen-style log.
        std::fs::create_dir_all(dir.path().join("in")).unwrap();
        std::fs::write(
            dir.path().join("in/lib.so"),
            b"\x7fELF pretend library bytes",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("in/case.log"),
            "MIOpen(HIP): Info [FindSolution] ConvMlirIgemmFwd\nMIOpen Error: MIIR_INVALID_PARAM\nrc = 0x7\n",
        )
        .unwrap();
        Fixture { dir, ledger }
    }

    fn import(&self, name: &str, doc: serde_json::Value) {
        let f = self.dir.path().join(format!("{name}.json"));
        std::fs::write(&f, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
        let g = self.ledger.lock("test").unwrap();
        import_file(&g, &self.ledger, &f, Some(name), self.dir.path()).unwrap();
    }

    fn claim(&self, id: &str, class: Option<Class>, supports: &[&str]) -> Claim {
        Claim {
            id: id.into(),
            statement: Text::new("主張", "claim"),
            class,
            kind: Some(Proof::ShippedArtifactVerified),
            support: supports
                .iter()
                .map(|s| parse_support_ref(s).unwrap())
                .collect(),
            ..Claim::default()
        }
    }

    fn add(&self, c: Claim) {
        let g = self.ledger.lock("test").unwrap();
        add_claim(&g, &self.ledger, c, "2026-11-20").unwrap();
    }

    /// The problems `check` finds on the loaded ledger; `check_ledger`, which reads the
    /// observations one at a time and pruned, must find the same.
    fn problems(&self) -> Vec<Problem> {
        let loaded = self.ledger.load().unwrap();
        let whole = check(self.ledger.root(), &loaded);
        let streamed = check_ledger(&self.ledger).unwrap();
        assert_eq!(streamed.problems, whole, "check_ledger and check disagree");
        assert_eq!(streamed.observations, loaded.observations.len());
        assert_eq!(streamed.claims, loaded.claims.len());
        whole
    }

    /// Imports an isa-like document (confirmed records), a check-like one (an inferred
    /// record) and a case document with a natural and a forced case.
    fn standard(&self) {
        let observed = json!({"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json isa in/lib.so",
                              "time": "2026-11-20T00:00:00Z", "host": "h", "schema": "rocpath.isa/1"});
        self.import("isa", json!({
            "schema": "rocpath.isa/1", "observed": observed,
            "code_objects": [
                {"processor": "gfx900", "target": "gfx900:xnack-", "evidence": {"class": "confirmed", "kind": "shipped_artifact_verified",
                  "rule": "isa.decoded_from_shipped_code", "sources": [{"path": "in/lib.so", "member": "hip_fatbin > bundle#0", "offset": 4096}]}},
                {"processor": "gfx906", "target": "gfx906", "evidence": {"class": "confirmed", "kind": "shipped_artifact_verified",
                  "rule": "isa.decoded_from_shipped_code", "sources": [{"path": "in/lib.so"}]}}
            ]
        }));
        self.import("check", json!({
            "schema": "rocpath.check/1", "observed": observed,
            "devices": [{"libraries": [{"library": "in/lib.so", "verdict": "runs", "evidence": {"class": "inferred", "kind": "code_verified",
                "rule": "check.compatible_code_object", "sources": [{"path": "in/lib.so"}]}}]}]
        }));
        self.import("case", json!({
            "schema": "rocpath.case/1", "observed": observed,
            "cases": [
                {"case": "fp32_natural", "device": {"arch": "gfx900:xnack-"}, "forced": null, "outcome": "natural",
                 "selected": {"solver": "ConvBinWinograd3x3U", "evidence": {"class": "confirmed", "kind": "runtime_verified",
                   "rule": "case.selected", "sources": [{"path": "in/case.log", "line": 1}]}}},
                {"case": "mlir_forced", "device": {"arch": "gfx900:xnack-"}, "forced": {"solver": "ConvMlirIgemmFwd", "via": "-S"},
                 "outcome": {"kind": "build_failure", "sub": "miir"},
                 "selected": {"solver": "ConvMlirIgemmFwd", "evidence": {"class": "confirmed", "kind": "runtime_verified",
                   "rule": "case.selected", "sources": [{"path": "in/case.log", "line": 2}]}},
                 "errors": [{"message": "MIIR_INVALID_PARAM", "evidence": {"class": "confirmed", "kind": "runtime_verified",
                   "rule": "case.error", "sources": [{"path": "in/case.log", "line": 2}]}}]}
            ]
        }));
    }
}

fn only(problems: &[Problem], rule_id: &str) -> Problem {
    let errors: Vec<&Problem> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "expected exactly one error ({rule_id}), got {errors:#?}"
    );
    assert_eq!(errors[0].rule, rule_id, "{errors:#?}");
    errors[0].clone()
}

#[test]
fn a_clean_ledger_passes() {
    let f = Fixture::new();
    f.standard();
    f.add(f.claim("c1", Some(Class::Confirmed), &["isa?processor=gfx900"]));
    f.add(f.claim("c2", Some(Class::Inferred), &["check", "claim:c1"]));
    let mut natural = f.claim("c3", Some(Class::Confirmed), &["case#/cases/0/selected"]);
    natural.selection = Some(SelectionKind::Natural);
    f.add(natural);
    let p = f.problems();
    assert!(p.is_empty(), "{p:#?}");
    // Import quoted the raw lines the case evidence points at.
    let loaded = f.ledger.load().unwrap();
    let case = loaded.observations.iter().find(|o| o.id == "case").unwrap();
    assert_eq!(case.quotes.len(), 2);
    assert_eq!(case.quotes[1].text, "MIOpen Error: MIIR_INVALID_PARAM");
    assert!(case.inputs.iter().all(|i| i.sha256.is_some()));
    // And created a case record for the case document.
    assert!(
        loaded
            .cases
            .iter()
            .any(|c| c.id == "case" && c.observations == ["case"] && c.world == "gfx900")
    );
}

#[test]
fn rule_claim_without_class() {
    let f = Fixture::new();
    f.standard();
    f.add(f.claim("noclass", None, &["isa"]));
    let p = only(&f.problems(), rule::CLAIM_WITHOUT_CLASS);
    assert_eq!(p.file, "claims/noclass.toml");
    assert!(p.message.contains("has no class"), "{}", p.message);
}

#[test]
fn rule_claim_without_support() {
    let f = Fixture::new();
    f.standard();
    f.add(f.claim("nosupport", Some(Class::Unresolved), &[]));
    let p = only(&f.problems(), rule::CLAIM_WITHOUT_SUPPORT);
    assert_eq!(p.record, "nosupport");
    assert!(p.message.contains("has no support"), "{}", p.message);
}

#[test]
fn rule_confirmed_by_inference() {
    let f = Fixture::new();
    f.standard();
    f.add(f.claim("guess", Some(Class::Inferred), &["check"]));
    // Supported by an inferred record and an inferred claim only.
    f.add(f.claim(
        "overclaim",
        Some(Class::Confirmed),
        &["check?library=in/lib.so", "claim:guess"],
    ));
    let p = only(&f.problems(), rule::CONFIRMED_BY_INFERENCE);
    assert_eq!(p.record, "overclaim");
    assert!(
        p.message.contains("(inferred)") && p.message.contains("claim guess"),
        "{}",
        p.message
    );
    // One confirmed support is enough.
    let f2 = Fixture::new();
    f2.standard();
    f2.add(f2.claim(
        "ok",
        Some(Class::Confirmed),
        &["check", "isa?processor=gfx906"],
    ));
    assert!(f2.problems().is_empty());
}

#[test]
fn rule_missing_record() {
    let f = Fixture::new();
    f.standard();
    f.add(f.claim("dangling", Some(Class::Confirmed), &["isa#/code_objects/7"]));
    let p = only(&f.problems(), rule::MISSING_RECORD);
    assert!(
        p.message.contains("no record at \"/code_objects/7\""),
        "{}",
        p.message
    );

    for (sup, want) in [
        ("nosuch", "observation \"nosuch\" is not in the ledger"),
        (
            "isa?processor=gfx1201",
            "no record where processor = \"gfx1201\"",
        ),
        ("claim:ghost", "claim \"ghost\" is not in the ledger"),
        ("isa#/code_objects", "not a record"),
    ] {
        let f = Fixture::new();
        f.standard();
        f.add(f.claim("x", Some(Class::Inferred), &[sup]));
        let p = only(&f.problems(), rule::MISSING_RECORD);
        assert!(p.message.contains(want), "{sup}: {}", p.message);
    }

    // Cases and questions link too.
    let f = Fixture::new();
    f.standard();
    let g = f.ledger.lock("t").unwrap();
    g.write_question(&Question {
        schema: QUESTION_SCHEMA.into(),
        id: "q".into(),
        text: Text::new("問", "q"),
        answer: vec!["ghost".into()],
        ..Question::default()
    })
    .unwrap();
    drop(g);
    let p = only(&f.problems(), rule::MISSING_RECORD);
    assert_eq!(p.file, "questions/q.toml");
}

#[test]
fn rule_stale_evidence() {
    let f = Fixture::new();
    f.standard();
    f.add(f.claim("c", Some(Class::Confirmed), &["isa?processor=gfx900"]));
    assert!(f.problems().is_empty());
    // The library changes after import.
    std::fs::write(f.dir.path().join("in/lib.so"), b"\x7fELF rebuilt library").unwrap();
    let problems = f.problems();
    let stale: Vec<&Problem> = problems
        .iter()
        .filter(|p| p.rule == rule::STALE_EVIDENCE)
        .collect();
    // Both observations that read it are stale; nothing else is wrong.
    assert_eq!(stale.len(), 2, "{problems:#?}");
    assert!(problems.iter().all(|p| p.rule == rule::STALE_EVIDENCE));
    assert!(
        stale[0].message.contains("in/lib.so")
            && stale[0].message.contains("changed since it was recorded")
    );
    assert_eq!(stale[0].input.as_deref(), Some("in/lib.so"));
}

#[test]
fn stale_cited_source_and_missing_input() {
    let f = Fixture::new();
    f.standard();
    let src = f.ledger.root().join("src.cpp");
    std::fs::write(&src, "if (arch == \"gfx900\") return false;\n").unwrap();
    let sha = rocpath_ledger::import::sha256_file(&src).unwrap().0;
    f.add(f.claim(
        "code",
        Some(Class::Confirmed),
        &[&format!("source:src.cpp:1@{sha}")],
    ));
    assert!(f.problems().is_empty());
    std::fs::write(&src, "if (arch == \"gfx906\") return false;\n").unwrap();
    let p = only(&f.problems(), rule::STALE_EVIDENCE);
    assert_eq!(p.file, "claims/code.toml");
    // A raw input that is gone cannot be re-checked: a warning, not an error.
    std::fs::write(&src, "if (arch == \"gfx900\") return false;\n").unwrap();
    std::fs::remove_file(f.dir.path().join("in/case.log")).unwrap();
    let problems = f.problems();
    assert!(
        problems.iter().all(|p| p.severity == Severity::Warning),
        "{problems:#?}"
    );
    assert!(problems.iter().any(|p| p.rule == rule::INPUT_UNAVAILABLE));
}

#[test]
fn rule_forced_as_natural() {
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim(
        "natural",
        Some(Class::Confirmed),
        &["case#/cases/1/selected"],
    );
    c.selection = Some(SelectionKind::Natural);
    f.add(c);
    let p = only(&f.problems(), rule::FORCED_AS_NATURAL);
    assert!(
        p.message.contains("forced ConvMlirIgemmFwd") && p.message.contains("/cases/1"),
        "{}",
        p.message
    );

    // The whole document contains a forced case: not natural evidence either.
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim("natural", Some(Class::Confirmed), &["case"]);
    c.selection = Some(SelectionKind::Natural);
    f.add(c);
    only(&f.problems(), rule::FORCED_AS_NATURAL);

    // A claim marked forced, cited by a natural one.
    let f = Fixture::new();
    f.standard();
    let mut forced = f.claim(
        "forced",
        Some(Class::Confirmed),
        &["case#/cases/1/errors/0"],
    );
    forced.selection = Some(SelectionKind::Forced);
    f.add(forced);
    let mut nat = f.claim("nat", Some(Class::Inferred), &["claim:forced"]);
    nat.selection = Some(SelectionKind::Natural);
    f.add(nat);
    let p = only(&f.problems(), rule::FORCED_AS_NATURAL);
    assert_eq!(p.record, "nat");
}

#[test]
fn rule_placeholder_in_statement() {
    // The statement the case rule once wrote for the real rocBLAS GEMM case of the Vega64
    // logs, whose record names no kernel.
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim("gemm", Some(Class::Confirmed), &["isa"]);
    c.statement = Text::new(
        "vega64_rocblas_int8_gemm_128_128_128_20260318: gfx900 の rocBLAS で、自然選択の GEMMは ? を選んだ。",
        "vega64_rocblas_int8_gemm_128_128_128_20260318: natural GEMM on gfx900 with rocBLAS selected ? (rocblas-bench completed 1 call(s)).",
    );
    f.add(c);
    let p = only(&f.problems(), rule::PLACEHOLDER_IN_STATEMENT);
    assert_eq!(p.record, "gemm");
    assert!(
        p.message.contains("ja statement") && p.message.contains("lacks a value"),
        "{}",
        p.message
    );
    // In one language only, still an error; a question mark inside a word or a support
    // reference is not a placeholder.
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim("one", Some(Class::Confirmed), &["isa?processor=gfx900"]);
    c.statement = Text::new("gfx900 の dot4 は(?)", "gfx900 has dot4 (where?)");
    f.add(c);
    let p = only(&f.problems(), rule::PLACEHOLDER_IN_STATEMENT);
    assert!(p.message.contains("ja statement"), "{}", p.message);
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim("fine", Some(Class::Confirmed), &["isa?processor=gfx900"]);
    c.statement = Text::new(
        "gfx900 に dot4 はあるか? ない",
        "Does gfx900 have dot4? It does not",
    );
    f.add(c);
    let p = f.problems();
    assert!(p.is_empty(), "{p:#?}");
}

#[test]
fn rule_limited_without_limit() {
    // The group the case rule once wrote for the FP32 cases of the Vega64 logs: three
    // different problems, each observed in full, called limited.
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim("fp32", Some(Class::Limited), &["case#/cases/0/selected"]);
    c.derived_by = "derive.case.group".into();
    c.statement = Text::new(
        "gfx900 の FP32 順方向畳み込みは 3 件で一つの結果にまとまらない",
        "Natural FP32 forward convolution on gfx900 with MIOpen 3.5.1 shows no single outcome across 3 cases",
    );
    f.add(c);
    let p = only(&f.problems(), rule::LIMITED_WITHOUT_LIMIT);
    assert_eq!(p.record, "fp32");
    assert!(p.message.contains("observed in full"), "{}", p.message);
    // A person's limited claim (a tool limit they name) is theirs to class.
    let f = Fixture::new();
    f.standard();
    f.add(f.claim("mine", Some(Class::Limited), &["isa?processor=gfx900"]));
    let p = f.problems();
    assert!(p.is_empty(), "{p:#?}");
}

/// An Ollama document of one run, shaped as `rocpath --json ollama read` printed the MI25's
/// 19:10 run (`mi25-runs/ollama_journal_after_test_20260320_191059.log`) before lines carried
/// their process: pid 194463's `library=cpu` at line 10, pid 195351's load at 138–246.
fn ollama_run(run: &str, backend: &str) -> serde_json::Value {
    let observed = json!({"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json ollama read",
                          "time": "2026-03-20T19:10:59Z", "host": "h", "schema": "rocpath.ollama/1"});
    let sig = |side: &str, what: &str, line: u64, pid: u64| {
        json!({"side": side, "what": what, "value": "", "pid": pid,
               "at": {"path": "in/journal.log", "line": line}})
    };
    json!({
        "schema": "rocpath.ollama/1", "observed": observed,
        "runs": [{"run": run,
            "verdict": {"verdict": "MIXED",
                "evidence": {"class": "inferred", "kind": "runtime_verified", "rule": "ollama.verdict.mixed"},
                "signals": [sig("cpu", "inference_compute", 10, 194463), sig("gpu", "gpu_layers", 151, 195351),
                            sig("gpu", "offloaded", 246, 195351)]},
            "server": {"num_threads": 4, "kv_size": 2048,
                       "backends": [format!("ROCm: /x/{backend}/lib/ollama/libggml-hip.so")]}}]
    })
}

#[test]
fn rule_split_by_other_process() {
    let f = Fixture::new();
    f.import("run", ollama_run("20260320_191059", "build"));
    let mut c = f.claim("split", Some(Class::Inferred), &["run#/runs/0/verdict"]);
    c.statement = Text::new(
        "Ollama の実行 20260320_191059: モデルは GPU と CPU に分かれて実行された。",
        "Ollama run 20260320_191059: the model ran split between GPU and CPU.",
    );
    f.add(c);
    let p = only(&f.problems(), rule::SPLIT_BY_OTHER_PROCESS);
    assert!(p.message.contains("server process 195351"), "{}", p.message);
    assert!(
        p.message.contains("cpu line of pid 194463"),
        "{}",
        p.message
    );
    // The same run stated as the loading process tells it passes.
    let f = Fixture::new();
    f.import("run", ollama_run("20260320_191059", "build"));
    f.add(f.claim("gpu", Some(Class::Inferred), &["run#/runs/0/verdict"]));
    let p = f.problems();
    assert!(p.is_empty(), "{p:#?}");
}

#[test]
fn rule_group_mixes_configurations() {
    // A group across a library fix: the same model, two ggml-hip builds.
    let f = Fixture::new();
    f.import("before", ollama_run("before", "build"));
    f.import("after", ollama_run("after", "build-gfx900"));
    let mut c = f.claim(
        "group",
        Some(Class::Inferred),
        &["before#/runs/0/verdict", "after#/runs/0/verdict"],
    );
    c.derived_by = "derive.ollama.placement_group".into();
    f.add(c.clone());
    let p = only(&f.problems(), rule::GROUP_MIXES_CONFIGURATIONS);
    assert!(p.message.contains("2 configurations"), "{}", p.message);
    // One build, two runs: one configuration.
    let f = Fixture::new();
    f.import("before", ollama_run("before", "build"));
    f.import("after", ollama_run("after", "build"));
    f.add(c);
    let p = f.problems();
    assert!(p.is_empty(), "{p:#?}");
}

#[test]
fn rule_confirmed_from_one_run() {
    // The prediction once written for the one FP32 1×1 run of the Vega64 logs.
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim("one", Some(Class::Confirmed), &["case#/cases/0/selected"]);
    c.derived_by = "derive.explain.prediction".into();
    c.derived = Some(Derived {
        key: "gfx900|3.5.1|find|FP32 NCHW conv_fwd|ConvAsm1x1U".into(),
        agree: 1,
        of: 1,
        ..Derived::default()
    });
    f.add(c.clone());
    let p = only(&f.problems(), rule::CONFIRMED_FROM_ONE_RUN);
    assert!(p.message.contains("single run"), "{}", p.message);
    // Inferred from the one run, it passes; so does a confirmed one that two runs repeat.
    let f = Fixture::new();
    f.standard();
    let mut one = c.clone();
    one.class = Some(Class::Inferred);
    f.add(one);
    let mut two = c;
    two.id = "two".into();
    two.derived.as_mut().unwrap().agree = 2;
    two.derived.as_mut().unwrap().of = 2;
    f.add(two);
    let p = f.problems();
    assert!(p.is_empty(), "{p:#?}");
}

#[test]
fn rule_timing_in_forced_run() {
    let f = Fixture::new();
    f.standard();
    let mut c = f.claim(
        "forced",
        Some(Class::Unresolved),
        &["case#/cases/1/selected"],
    );
    c.selection = Some(SelectionKind::Forced);
    c.statement = Text::new(
        "gfx900 の INT8 順方向畳み込み(forced: ConvMlirIgemmFwd)に一つの solver に決まらない(実機のタイミングが決める)を予測する。",
        "The model predicts no single solver (timing on the device decides) for INT8 forward convolution on gfx900 (forced: ConvMlirIgemmFwd).",
    );
    f.add(c);
    let p = only(&f.problems(), rule::TIMING_IN_FORCED_RUN);
    assert!(p.message.contains("forced run"), "{}", p.message);
}

#[test]
fn rule_unreadable() {
    let f = Fixture::new();
    f.standard();
    let root = f.ledger.root();
    std::fs::write(
        root.join("claims/broken.toml"),
        "schema = \"rocpath.ledger.claim/1\"\nid = \"broken\"\nclass = \"certain\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("claims/other.toml"),
        "schema = \"rocpath.ledger.claim/1\"\nid = \"different\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("cases/new.toml"),
        "schema = \"rocpath.ledger.case/2\"\nid = \"new\"\n",
    )
    .unwrap();
    // Temporaries of a killed writer are not records.
    std::fs::write(root.join("claims/.tmp-x.toml.123"), "garbage").unwrap();
    let problems = f.problems();
    let files: Vec<(&str, &str)> = problems.iter().map(|p| (p.rule, p.file.as_str())).collect();
    assert_eq!(
        files,
        [
            (rule::UNREADABLE, "cases/new.toml"),
            (rule::UNREADABLE, "claims/broken.toml"),
            (rule::UNREADABLE, "claims/other.toml")
        ],
        "{problems:#?}"
    );
    assert!(problems[0].message.contains("another version"));
    assert!(problems[1].message.contains("certain"));
    // The bad value is named by its line and column.
    assert!(
        problems[1].message.starts_with("line 3, column 9: "),
        "{}",
        problems[1].message
    );
    assert!(problems[2].message.contains("does not match the file name"));
}

#[test]
fn a_second_writer_is_refused_until_the_first_finishes() {
    let f = Fixture::new();
    let first = f.ledger.lock("rocpath ledger import big.json").unwrap();
    let e = f.ledger.lock("second").unwrap_err().to_string();
    assert!(
        e.contains("another rocpath process is writing this ledger"),
        "{e}"
    );
    assert!(
        e.contains(&format!("pid {}", std::process::id())) && e.contains("import big.json"),
        "{e}"
    );
    drop(first);
    f.ledger.lock("second").unwrap();
}

#[test]
fn writes_are_atomic_renames() {
    let f = Fixture::new();
    let g = f.ledger.lock("t").unwrap();
    let c = f.claim("a", Some(Class::Confirmed), &["x"]);
    add_claim(&g, &f.ledger, c.clone(), "2026-01-02").unwrap();
    let path = f.ledger.root().join("claims/a.toml");
    let ino_before = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
    g.write_claim(&Claim {
        statement: Text::new("改", "changed"),
        ..c.clone()
    })
    .unwrap();
    let ino_after = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&path).unwrap());
    // A rename puts a new file in place; the old one is never written in place.
    assert_ne!(ino_before, ino_after);
    let names: Vec<String> = std::fs::read_dir(f.ledger.root().join("claims"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["a.toml"]);
    // add-claim refuses to overwrite.
    let e = add_claim(&g, &f.ledger, c, "2026-01-02").unwrap_err();
    assert!(e.to_string().contains("already exists"));
}

#[test]
fn reimport_is_idempotent_and_named_imports_replace() {
    let f = Fixture::new();
    f.standard();
    let before = std::fs::read(f.ledger.root().join("observations/isa.json")).unwrap();
    let g = f.ledger.lock("t").unwrap();
    let r = import_file(
        &g,
        &f.ledger,
        &f.dir.path().join("isa.json"),
        Some("isa"),
        f.dir.path(),
    )
    .unwrap();
    assert_eq!(r.outcome, rocpath_ledger::import::ImportOutcome::Unchanged);
    assert_eq!(
        std::fs::read(f.ledger.root().join("observations/isa.json")).unwrap(),
        before
    );
    let r = import_file(
        &g,
        &f.ledger,
        &f.dir.path().join("check.json"),
        Some("isa"),
        f.dir.path(),
    )
    .unwrap();
    assert_eq!(r.outcome, rocpath_ledger::import::ImportOutcome::Replaced);
    // Without a name, the id is the command and the hash of the document.
    let r = import_file(
        &g,
        &f.ledger,
        &f.dir.path().join("check.json"),
        None,
        f.dir.path(),
    )
    .unwrap();
    assert!(
        r.id.starts_with("check-") && r.id.len() == "check-".len() + 12,
        "{}",
        r.id
    );
    // Not a rocpath document.
    let bad = f.dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema\": \"other/1\"}").unwrap();
    let e = import_file(&g, &f.ledger, &bad, None, f.dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not a rocpath --json document") && e.contains("rocpath.<command>/<version>"),
        "{e}"
    );
    // Base folder of relative inputs is recorded relative to the ledger.
    let loaded = f.ledger.load().unwrap();
    assert!(loaded.observations.iter().all(|o| o.imported.base == ".."));
    let _ = Path::new("");
    let _ = Locator::default();
}

/// A foreign document that cites a file outside the folders an import reads (an SSH key) used
/// to get it hashed and its lines quoted into the ledger (and so into the site); now the
/// input says why it was not read, until its folder is allowed.
#[test]
fn cited_files_outside_the_read_roots_are_not_read() {
    let f = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    let key = outside.path().join("id_ed25519");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n").unwrap();
    let observed = json!({"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json case read x",
                          "time": "2026-11-20T00:00:00Z", "host": "h", "schema": "rocpath.case/1"});
    let doc = json!({
        "schema": "rocpath.case/1", "observed": observed,
        "cases": [{"case": "c", "device": {"arch": "gfx900"}, "forced": null, "outcome": "natural",
                   "selected": {"solver": "S", "evidence": {"class": "confirmed", "kind": "runtime_verified",
                     "rule": "case.selected", "sources": [{"path": key.display().to_string(), "line": 2}]}}}]
    });
    let file = f.dir.path().join("leak.json");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let g = f.ledger.lock("t").unwrap();
    let budget = rocpath_budget::MemoryBudget::default();
    let import = |name: &str, more: &[std::path::PathBuf]| {
        rocpath_ledger::import::import_file_with(
            &g,
            &f.ledger,
            &file,
            Some(name),
            f.dir.path(),
            "",
            more,
            &budget,
        )
        .unwrap()
    };
    let r = import("leak", &[]);
    assert_eq!((r.inputs, r.hashed, r.quotes), (1, 0, 0));
    let obs = std::fs::read_to_string(f.ledger.root().join("observations/leak.json")).unwrap();
    assert!(!obs.contains("secret"), "{obs}");
    assert!(obs.contains(rocpath_ledger::import::OUTSIDE_ROOTS), "{obs}");
    let r = import("allowed", &[outside.path().to_path_buf()]);
    assert_eq!((r.inputs, r.hashed, r.quotes), (1, 1, 1));
}

/// Every record file of a ledger, by relative path, with its text (the temporary folder it
/// was made in written `<dir>`; the lock left out).
fn tree(root: &Path, dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for d in ["observations", "cases", "questions", "claims"] {
        let Ok(rd) = std::fs::read_dir(root.join(d)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = format!("{d}/{}", e.file_name().to_string_lossy());
            let text = std::fs::read_to_string(e.path()).unwrap();
            out.insert(name, text.replace(&dir.display().to_string(), "<dir>"));
        }
    }
    out
}

/// An import killed after some of its stub records and before its observation (the commit
/// point, written last) is reported by `check`, and importing again gives the ledger a clean
/// import gives, byte for byte. (Before, the observation was written first: a kill before the
/// stubs left a case document without its case record, `check` said ok, and importing again
/// was "unchanged" and never wrote it.)
#[test]
fn an_interrupted_import_is_reported_and_a_reimport_completes_it() {
    let clean = Fixture::new();
    clean.standard();
    let cut = Fixture::new();
    cut.standard();
    // The states a kill can leave: the case record written, the observation not.
    std::fs::remove_file(cut.ledger.root().join("observations/case.json")).unwrap();
    let p = cut.problems();
    assert!(
        p.iter()
            .any(|p| p.rule == "ledger.missing_record" && p.message.contains("\"case\"")),
        "{p:#?}"
    );
    let g = cut.ledger.lock("t").unwrap();
    let r = import_file(
        &g,
        &cut.ledger,
        &cut.dir.path().join("case.json"),
        Some("case"),
        cut.dir.path(),
    )
    .unwrap();
    drop(g);
    assert_eq!(r.outcome, rocpath_ledger::import::ImportOutcome::New);
    assert!(cut.problems().is_empty());
    let (a, b) = (
        tree(cut.ledger.root(), cut.dir.path()),
        tree(clean.ledger.root(), clean.dir.path()),
    );
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(v == &b[k], "{k} differs");
    }
}
