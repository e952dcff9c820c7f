#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Snapshots of the renderers' text, each built from a few typed values: a change of a
//! table's layout, a column or a word shows up as a snapshot difference (`cargo insta review`).

use rocpath_census::{CodeObjectCensus, Counts, FindHit, KernelCensus};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_inventory::check::check;
use rocpath_inventory::device::{Device, normalize};
use rocpath_inventory::{CodeObjectRecord, ErrorItem, Inventory, MiopenDbRecord, TensileRecord};
use rocpath_isa::Mnemonic;
use rocpath_ledger::check::{Checked, Problem, Severity};
use rocpath_ledger::doc::ImportDoc;
use rocpath_ledger::import::{ImportOutcome, ImportReport};
use rocpath_ledger::model::{Claim, HistoryEntry, Text};
use std::path::Path;

fn seen(rule: &'static str, path: &str) -> Evidence {
    Evidence::new(Class::Confirmed, Proof::ShippedArtifactVerified, rule).at(Locator::file(path))
}

fn tid(id: &str) -> rocpath_arch::TargetId {
    id.parse().unwrap_or_else(|e| panic!("{id}: {e}"))
}

fn code_object(path: &str, container: &str, target_id: &str, kernels: usize) -> CodeObjectRecord {
    let target = tid(target_id);
    CodeObjectRecord {
        path: path.into(),
        container: container.into(),
        library: path.rsplit('/').next().unwrap_or(path).into(),
        offset: 4096,
        size: 20_480,
        sha256: Some("ab".repeat(32)),
        sha256_source: rocpath_inventory::HashSource::Computed,
        family: rocpath_arch::target(&target.processor).map(|t| format!("{:?}", t.family)),
        target,
        code_object_version: Some(5),
        generic_version: None,
        e_flags: "0x52c".into(),
        bundle_id: Some(format!("hipv4-amdgcn-amd-amdhsa--{target_id}")),
        shared_by: None,
        metadata_target: Some(format!("amdgcn-amd-amdhsa--{target_id}")),
        metadata_version: Some("1.2".into()),
        metadata_notes: 1,
        kernel_count: kernels,
        kernels: Vec::new(),
        text_bytes: 8192,
        warnings: Vec::new(),
        evidence: seen("codeobj.present", path),
    }
}

fn tensile(dir: &str, name: &str, processor: &str, solutions: u64) -> TensileRecord {
    TensileRecord {
        path: format!("{dir}/{name}"),
        container: String::new(),
        library_dir: dir.into(),
        name: name.into(),
        kind: rocpath_inventory::TensileKind::Solutions,
        processor: Some(processor.into()),
        processors: vec![processor.into()],
        solutions,
        problem_types: [("Contraction_l_Ailk_Bjlk_Cijk_Dijk".to_string(), solutions)]
            .into_iter()
            .collect(),
        placeholders: 0,
        missing_placeholders: Vec::new(),
        format_version: None,
        loader_rejects: None,
        evidence: seen("tensile.present", dir),
    }
}

/// An install of two libraries (gfx900 and gfx1100 code), a Tensile file for gfx906, a
/// MIOpen find-db and one unreadable member.
fn install() -> Inventory {
    let lib = "/opt/rocm/lib/libexample_dnn.so.1.1";
    let mut inv = Inventory {
        roots: vec!["/opt/rocm".into()],
        code_objects: vec![
            code_object(lib, "hip_fatbin > bundle#1@0x1000", "gfx900:xnack-", 3),
            code_object(lib, "hip_fatbin > bundle#2@0x6000", "gfx1100", 2),
            code_object(
                "/opt/rocm/lib/libexample_blas.so.1.1",
                "hip_fatbin",
                "gfx906",
                1,
            ),
        ],
        tensile: vec![tensile(
            "/opt/rocm/lib/example/library",
            "TensileLibrary_Type_SS_gfx906.dat",
            "gfx906",
            12,
        )],
        miopen_dbs: vec![MiopenDbRecord {
            path: "/opt/rocm/share/miopen/db/gfx900_64.HIP.fdb.txt".into(),
            container: String::new(),
            name: "gfx900_64.HIP.fdb.txt".into(),
            processor: "gfx900".into(),
            cus: Some(64),
            kind: rocpath_miopen_names::DbKind::FindDb,
            backend: Some("HIP".into()),
            size: 1234,
            evidence: seen("miopen.db_present", "/opt/rocm/share/miopen/db"),
        }],
        errors: vec![
            ErrorItem::at("/opt/rocm/lib/libbroken.so", "truncated code object")
                .inside("hip_fatbin", Some(512))
                .library("libbroken.so")
                .evidence(Evidence::new(
                    Class::Limited,
                    Proof::ShippedArtifactVerified,
                    "inventory.unreadable",
                )),
        ],
        ..Inventory::default()
    };
    rocpath_inventory::finish(&mut inv);
    inv
}

fn device(target: &str) -> Device {
    Device {
        source: "--target".into(),
        name: None,
        target: normalize(rocpath_arch::TargetId::parse(target).unwrap()),
        generic: Vec::new(),
        cus: None,
    }
}

#[test]
fn arch_table_of_a_prefix_and_one_target_in_detail() {
    let (rows, detail) = rocpath_arch::lookup::select(Some("gfx90")).unwrap();
    insta::assert_snapshot!("arch_gfx90", rocpath_render::arch_table(&rows, detail));
    let (rows, detail) = rocpath_arch::lookup::select(Some("gfx900")).unwrap();
    insta::assert_snapshot!("arch_gfx900", rocpath_render::arch_table(&rows, detail));
}

#[test]
fn inventory_table_tsv_and_errors() {
    let inv = install();
    insta::assert_snapshot!("inventory_table", rocpath_render::inventory_table(&inv));
    insta::assert_snapshot!("inventory_tsv", rocpath_render::inventory_tsv(&inv, false));
    insta::assert_snapshot!("inventory_errors", rocpath_render::errors_text(&inv));
}

#[test]
fn check_table_and_tsv_with_an_override() {
    let inv = install();
    let ov = rocpath_inventory::check::override_of("--override", "9.0.6");
    let checks = vec![
        check(&inv, &device("gfx900:xnack-"), Some(&ov)),
        check(&inv, &device("gfx1201"), None),
    ];
    insta::assert_snapshot!("check_table", rocpath_render::check_table(&checks));
    insta::assert_snapshot!("check_tsv", rocpath_render::check_tsv(&checks));
}

#[test]
fn diff_table_and_tsv() {
    let new = install();
    let mut old = install();
    old.code_objects.retain(|c| c.target != tid("gfx1100"));
    old.code_objects.push(code_object(
        "/opt/rocm/lib/libexample_dnn.so.1.1",
        "hip_fatbin > bundle#3@0x9000",
        "gfx803",
        4,
    ));
    rocpath_inventory::finish(&mut old);
    let d = rocpath_inventory::diff::diff(&old, &new);
    insta::assert_snapshot!("diff_table", rocpath_render::diff_table(&d));
    insta::assert_snapshot!("diff_tsv", rocpath_render::diff_tsv(&d));
}

fn counts(pairs: &[(&str, u64)], bytes: u64) -> Counts {
    rocpath_census::counts_from_pairs(
        pairs
            .iter()
            .map(|(m, n)| (Mnemonic::from_name(m).unwrap(), *n)),
        bytes,
    )
}

fn census() -> rocpath_census::Report {
    let path = "/opt/rocm/lib/libexample_dnn.so.1.1";
    let co = |target_id: &str, c: Counts, kernels: Vec<KernelCensus>| CodeObjectCensus {
        path: path.into(),
        container: "hip_fatbin".into(),
        library: "libexample_dnn.so.1.1".into(),
        offset: 4096,
        sha256: Some("cd".repeat(32)),
        sha256_source: rocpath_inventory::HashSource::Computed,
        target: tid(target_id),
        decoder: target_id.split(':').next().unwrap_or(target_id).into(),
        counts: c,
        kernel_count: kernels.len(),
        kernels,
        shared_by: None,
        evidence: seen("isa.census", path),
    };
    let dot = counts(
        &[("v_dot4_i32_i8", 16), ("v_fma_f32", 40), ("s_endpgm", 1)],
        512,
    );
    let fma = counts(
        &[("v_fma_f32", 64), ("v_mul_f32_e32", 8), ("s_endpgm", 1)],
        640,
    );
    let kernel = |name: &str, c: &Counts| KernelCensus {
        name: name.into(),
        is_kernel: true,
        counts: c.clone(),
    };
    let mut r = rocpath_census::Report {
        code_objects: vec![
            co("gfx906", dot.clone(), vec![kernel("conv_dot4", &dot)]),
            co("gfx900:xnack-", fma.clone(), vec![kernel("conv_fma", &fma)]),
        ],
        find: vec![FindHit {
            path: path.into(),
            container: "hip_fatbin".into(),
            target_id: tid("gfx906"),
            kernel: "conv_dot4".into(),
            term: "v_dot4_i32_i8".into(),
            mnemonic: "v_dot4_i32_i8".into(),
            count: 16,
            evidence: seen("isa.mnemonic_found", path),
        }],
        not_found: vec!["v_mfma".into()],
        ..rocpath_census::Report::default()
    };
    r.targets.insert(tid("gfx906"), dot);
    r.targets.insert(tid("gfx900:xnack-"), fma);
    r
}

#[test]
fn isa_tables_and_tsv() {
    let r = census();
    insta::assert_snapshot!(
        "isa_table",
        rocpath_render::isa::isa_table(&r, false, false)
    );
    insta::assert_snapshot!(
        "isa_kernels",
        rocpath_render::isa::isa_table(&r, true, true)
    );
    insta::assert_snapshot!("isa_find", rocpath_render::isa::find_table(&r));
    insta::assert_snapshot!("isa_tsv", rocpath_render::isa::isa_tsv(&r));
}

#[test]
fn explain_ggml_decision_and_sweep() {
    let rules = rocpath_explain::ggml::rules(None).unwrap();
    let q = rocpath_explain::ggml::Query {
        target: tid("gfx1201"),
        src0_type: "q4_k".into(),
        ne11: 1,
        experts: 0,
        ne01: 4096,
    };
    let d = rocpath_explain::ggml::mul_mat(&rules, &q).unwrap();
    insta::assert_snapshot!("explain_ggml", rocpath_render::explain::ggml(&d));
    let runs = rocpath_explain::ggml::sweep(&rules, &q, 1, 64).unwrap();
    insta::assert_snapshot!(
        "explain_ggml_sweep",
        rocpath_render::explain::ggml_sweep(&runs)
    );
}

#[test]
fn explain_rocblas_without_libraries() {
    let q = rocpath_explain::rocblas::Query {
        processor: "gfx900".into(),
        dtype: "f32".into(),
        rocblas_dir: None,
        hipblaslt_dir: None,
        use_hipblaslt: None,
        batched: false,
    };
    let e = rocpath_explain::rocblas::explain(&q).unwrap();
    insta::assert_snapshot!("explain_rocblas", rocpath_render::explain::rocblas(&e));
}

fn problem(rule: &'static str, severity: Severity, file: &str, message: &str) -> Problem {
    Problem {
        rule,
        severity,
        file: file.into(),
        record: String::new(),
        message: message.into(),
        input: None,
    }
}

#[test]
fn ledger_check_and_claim_lines() {
    let ledger = Path::new("example-ledger");
    let checked = Checked {
        problems: vec![
            problem(
                "ledger.claim_without_support",
                Severity::Error,
                "claims/lonely.toml",
                "claim \"lonely\" has no support; add a [[support]]",
            ),
            problem(
                "ledger.input_unavailable",
                Severity::Warning,
                "observations/isa.json",
                "raw input lib.so cannot be re-checked here",
            ),
        ],
        claims: 3,
        questions: 1,
        cases: 0,
        observations: 2,
    };
    insta::assert_snapshot!(
        "ledger_check",
        rocpath_render::ledger::checked(ledger, &checked)
    );
    let clean = Checked {
        claims: 1,
        ..Checked::default()
    };
    insta::assert_snapshot!(
        "ledger_check_clean",
        rocpath_render::ledger::checked(ledger, &clean)
    );
    let claim = Claim {
        id: "gfx900-dot4".into(),
        class: Some(Class::Inferred),
        kind: Some(Proof::CodeVerified),
        history: vec![HistoryEntry {
            date: "2026-01-02".into(),
            class: Some(Class::Inferred),
            kind: None,
            note: Text::new("記録", "recorded"),
        }],
        ..Claim::default()
    };
    let lines = [
        rocpath_render::ledger::created(ledger),
        rocpath_render::ledger::claim_recorded(&claim.id),
        rocpath_render::ledger::claim_changed(&claim),
        rocpath_render::ledger::claim_changed(&Claim {
            class: None,
            kind: None,
            ..claim.clone()
        }),
    ];
    insta::assert_snapshot!("ledger_lines", lines.concat());
}

#[test]
fn ledger_import_lines() {
    let mut doc = ImportDoc::new(Path::new("example-ledger"));
    let report = |id: &str, outcome| ImportReport {
        id: id.into(),
        file: format!("{id}.json"),
        schema: "rocpath.isa/1".into(),
        outcome,
        records: 7,
        inputs: 2,
        hashed: 1,
        quotes: 3,
        outside_roots: 0,
        cases_created: vec!["c1".into()],
        questions_created: vec!["q1".into()],
    };
    doc.push(Path::new("isa.json"), Ok(report("isa", ImportOutcome::New)));
    doc.push(
        Path::new("check.json"),
        Ok(report("check", ImportOutcome::Unchanged)),
    );
    insta::assert_snapshot!("ledger_import", rocpath_render::ledger::imported(&doc));
}

#[test]
fn ledger_derive_and_claims_lines() {
    use rocpath_ledger::claims::{DeriveDoc, list};
    use rocpath_ledger::derive::DeriveReport;
    use rocpath_ledger::model::{Derived, Review, Support};
    let ledger = Path::new("study-out/ledger");
    let mut report = DeriveReport {
        observations: 55,
        created: vec!["case.group.gfx900-INT8-natural-94be8e38".into()],
        updated: vec!["lanes.ratio.eval_rate-MI25-Vega64-62563fa6".into()],
        unchanged: 80,
        removed: vec!["explain.prediction.old-1a2b3c4d".into()],
        not_derived_again: vec!["case.outcome.edited-5e6f7a8b".into()],
        ..DeriveReport::default()
    };
    report.rules.insert("derive.case.group".into(), 9);
    report.rules.insert("derive.case.outcome".into(), 50);
    report.errors.push(rocpath_docs::ErrorItem::at(
        "observations/broken.json",
        "line 1, column 64: EOF while parsing a string; correct the file there",
    ));
    let doc = DeriveDoc::new(ledger, "2026-03-24", report);
    let claims = vec![
        Claim {
            id: "case.group.gfx900-INT8-natural-94be8e38".into(),
            statement: Text::new(
                "gfx900 の MIOpen 3.5.1 で、自然選択の INT8 順方向畳み込みは 15 件中 15 件で ConvDirectNaiveConvFwd を選んだ。",
                "Natural INT8 forward convolution on gfx900 with MIOpen 3.5.1 selected ConvDirectNaiveConvFwd in 15 of 15 cases.",
            ),
            class: Some(Class::Confirmed),
            kind: Some(Proof::RuntimeVerified),
            world: "gfx900".into(),
            derived_by: "derive.case.group".into(),
            derived: Some(Derived {
                key: "gfx900|MIOpen 3.5.1|conv_fwd|INT8|natural".into(),
                agree: 15,
                of: 15,
                ..Derived::default()
            }),
            support: vec![Support {
                observation: Some("vega64_i8_case1".into()),
                record: Some("/cases/0/outcome".into()),
                ..Support::default()
            }],
            ..Claim::default()
        },
        Claim {
            id: "gfx900-no-dot4".into(),
            statement: Text::new("gfx900 に dot4 はない", ""),
            class: Some(Class::Inferred),
            kind: Some(Proof::CodeVerified),
            world: "gfx900".into(),
            review: Some(Review::Accepted),
            ..Claim::default()
        },
    ];
    let listed = list(ledger, &claims, Some("gfx9"), false);
    insta::assert_snapshot!(
        "ledger_derive_and_claims",
        format!(
            "{}\n{}",
            rocpath_render::ledger::derived(&doc),
            rocpath_render::ledger::claims(&listed)
        )
    );
}
