#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `rocpath study build examples/study/shared-fixtures.toml`: the research's published numbers
//! (`shared/reference/seed-system.md` §5) come out of the derived claims, wherever the raw
//! recordings are in the shared fixtures. The seed counts 17 natural INT8 cases and 16 forced
//! DLOPS cases among 56 logs; the fixtures hold 50 of them, so the counts expected are the
//! seed's cases present here — all of them agreeing —, one claim per full problem.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_rocpath");

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(BIN).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Logs of the seed's case list present in the fixtures: names, and patterns (`*`).
fn present(dir: &Path, names: &[&str]) -> usize {
    let files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log") && !n.ends_with("_extract.log"))
        .collect();
    files
        .iter()
        .filter(|f| {
            let stem = f.strip_suffix(".log").unwrap();
            names.iter().any(|n| match n.split_once('*') {
                Some((a, b)) => stem.starts_with(a) && stem.ends_with(b),
                None => stem == *n,
            })
        })
        .count()
}

fn claim<'a>(claims: &'a [Value], rule: &str, contains: &str) -> &'a Value {
    claims
        .iter()
        .find(|c| {
            c["derived_by"] == rule && c["statement"]["en"].as_str().unwrap().contains(contains)
        })
        .unwrap_or_else(|| panic!("no {rule} claim with {contains:?}"))
}

fn counts(c: &Value) -> (u64, u64) {
    (
        c["derived"]["agree"].as_u64().unwrap(),
        c["derived"]["of"].as_u64().unwrap(),
    )
}

/// Every file of a built site: no folder of the building machine (`here`) appears in it, and
/// no string of its data climbs out of it (`../`); the recording's own words (a path of the
/// machine that recorded, inside a log line) stay as recorded.
fn publishable(site: &Path, here: &[&Path]) {
    let mut stack = vec![site.to_path_buf()];
    let mut checked = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            for h in here {
                let h = h.to_string_lossy();
                assert!(!text.contains(h.as_ref()), "{}: names {h}", p.display());
            }
            if p.extension().is_some_and(|x| x == "json") {
                assert!(
                    !text.contains("\"../"),
                    "{}: a path climbs out",
                    p.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} files");
}

#[test]
fn the_study_of_the_shared_fixtures_reproduces_the_published_numbers() {
    let Some(logs) = rocpath_testdata::fixture_dir("miopen-logs/vega64") else {
        return;
    };
    let fixtures = logs.parent().unwrap().parent().unwrap().to_path_buf();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("study");
    let study =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/study/shared-fixtures.toml");
    let (code, stdout, stderr) = run(&[
        "study",
        "build",
        study.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--date",
        "2026-03-24",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("ledger check: 0 errors"), "{stdout}");
    publishable(&out.join("site"), &[tmp.path(), &fixtures]);
    let ledger = out.join("ledger");
    let (code, json, stderr) = run(&[
        "--json",
        "ledger",
        "claims",
        ledger.to_str().unwrap(),
        "--derived",
        "--world",
        "gfx900",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["schema"], "rocpath.ledger.claims/1");
    let claims = doc["claims"].as_array().unwrap();

    natural_int8_groups(&logs, claims);
    let dlops_nchw = forced_dlops_rejections(&logs, claims);
    natural_selections(&logs, claims);
    workload_findings(&fixtures, claims);
    mi25_vega64_ratios(&fixtures, claims);
    world_and_case_pages(&out, &logs, &fixtures, dlops_nchw);
}

/// §5.1: the natural INT8 groups, and what every group and statement of the study holds to.
fn natural_int8_groups(logs: &Path, claims: &[Value]) {
    // §5.1: natural INT8 forward convolution always ends in ConvDirectNaiveConvFwd — one
    // claim per full problem (types, layouts, selection with or without a search, API path):
    // the NCHW driver cases, without and with a search.
    let natural = present(
        logs,
        &[
            "vega64_i8_case1",
            "vega64_int8_nchw_1x1_fwd_n32",
            "vega64_int8_1x1_group2_n32_c64_k64",
            "vega64_int8_1x1_n16_c128_k128",
            "vega64_int8_3x3_s1_n32_c64_k64",
            "vega64_int8_3x3_s2_n32_c64_k128",
            "vega64_int8_gemmcand_nat_*_20260318",
        ],
    ) as u64;
    let search = present(
        logs,
        &[
            "vega64_int8_nchw_3x3_search1",
            "vega64_int8_nat_s1_*_20260315",
        ],
    ) as u64;
    assert!(natural >= 7 && search >= 6, "{natural} {search}");
    for (subject, n) in [
        (
            "Natural INT8 NCHW forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver selected ConvDirectNaiveConvFwd",
            natural,
        ),
        (
            "Natural (with search) INT8 NCHW forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver selected ConvDirectNaiveConvFwd",
            search,
        ),
    ] {
        let c = claim(claims, "derive.case.group", subject);
        assert_eq!(counts(c), (n, n), "{c}");
        assert_eq!(c["class"], "confirmed");
        assert!(
            c["statement"]["en"]
                .as_str()
                .unwrap()
                .ends_with(&format!(" in {n} of {n} cases.")),
            "{c}"
        );
        assert_eq!(c["support"].as_array().unwrap().len() as u64, n);
    }
    // No group mixes problems: every member of a group has the group's types and layouts.
    for c in claims
        .iter()
        .filter(|c| c["derived_by"] == "derive.case.group")
    {
        let key = c["derived"]["key"].as_str().unwrap();
        assert_eq!(key.split('|').count(), 10, "{key}");
        assert!(
            c["derived"]["exceptions"]
                .as_array()
                .is_none_or(|e| e.is_empty())
                || c["statement"]["en"]
                    .as_str()
                    .unwrap()
                    .contains("differs by problem")
                || c["class"] == "unresolved",
            "{c}"
        );
    }
    // §5.1: the FP32 cases are three problems (1x1, 3x3, grouped 3x3): each took its own
    // solver — a finding, not a limit of the observation.
    if present(logs, &["vega64_fp32_nchw_*"]) == 3 {
        let c = claim(
            claims,
            "derive.case.group",
            "Natural FP32 NCHW forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver: the outcome differs by problem — 3 cases of 3 shapes",
        );
        assert_eq!(c["class"], "confirmed");
    }
    // No statement has a gap where a value should be: the rocBLAS GEMM case, whose log names
    // no kernel, has no outcome claim.
    for c in claims {
        for lang in ["ja", "en"] {
            let st = c["statement"][lang].as_str().unwrap_or_default();
            assert!(
                !st.contains(" ? ") && !st.contains(" ?。") && !st.contains("(?)"),
                "{st}"
            );
        }
    }
    if present(logs, &["vega64_rocblas_int8_gemm_128_128_128_20260318"]) == 1 {
        assert!(!claims.iter().any(|c| {
            c["derived_by"] == "derive.case.outcome"
                && c["statement"]["en"]
                    .as_str()
                    .unwrap()
                    .starts_with("vega64_rocblas_int8_gemm_128_128_128_20260318:")
        }));
    }
}

/// §5.1: forced DLOPS rejections, one claim per layout; the NCHW cases counted.
fn forced_dlops_rejections(logs: &Path, claims: &[Value]) -> u64 {
    // §5.1: forced ConvCkIgemmFwdV6r1DlopsNchw is rejected as not applicable, every time:
    // one claim per layout.
    let dlops = present(logs, &["vega64_int8_force_dlops_*"]) as u64;
    let nhwc = present(
        logs,
        &[
            "vega64_int8_force_dlops_nhwc_*",
            "vega64_int8_force_dlops_s1_nhwc_*",
        ],
    ) as u64;
    assert!(dlops >= 14 && nhwc >= 2, "{dlops} {nhwc}");
    for (layout, n) in [("NCHW", dlops - nhwc), ("NHWC", nhwc)] {
        let c = claim(
            claims,
            "derive.case.group",
            &format!(
                "Forced ConvCkIgemmFwdV6r1DlopsNchw on INT8 {layout} forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver was rejected as not applicable"
            ),
        );
        assert_eq!(counts(c), (n, n));
        assert_eq!(c["class"], "confirmed");
    }
    dlops - nhwc
}

/// §5.1: the natural selections of the other precisions, one case each.
fn natural_selections(logs: &Path, claims: &[Value]) {
    // §5.1: the FP32 natural selections, one case each.
    for (case, solver) in [
        ("vega64_fp32_nchw_3x3_fwd_n32", "ConvBinWinograd3x3U"),
        ("vega64_fp32_nchw_1x1_fwd_n32", "ConvAsm1x1U"),
        ("vega64_fp32_nchw_group2_3x3", "ConvBinWinogradRxSf2x3"),
        ("vega64_fp16_nchw_3x3_probe", "ConvOclDirectFwd"),
        ("vega64_bfp16_nchw_3x3_probe", "GemmFwdRest"),
    ] {
        if logs.join(format!("{case}.log")).is_file() {
            let c = claim(claims, "derive.case.outcome", &format!("{case}: natural"));
            assert!(
                c["statement"]["en"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("selected {solver}")),
                "{c}"
            );
        }
    }
}

/// §5.3 and §5.2: the tinyllama trace, strace split and placements.
fn workload_findings(fixtures: &Path, claims: &[Value]) {
    // §5.3: 0 Tensile-like dispatches among the 3,605 of the tinyllama probe.
    if fixtures
        .join("mi25-runs/rocprofv3_probe_tinyllama_latest_20260324_015840")
        .is_dir()
    {
        let c = claim(
            claims,
            "derive.trace.dispatch",
            "3,605 kernel dispatches on gfx900",
        );
        assert!(
            c["statement"]["en"]
                .as_str()
                .unwrap()
                .contains("0 of the 3,605 dispatches are Tensile-like")
        );
        assert_eq!(counts(c), (0, 3605));
    }
    // §5.3: 54 fallback .hsaco catalog files opened in the split that holds them.
    if fixtures
        .join("mi25-runs/g4_strace_openat_tinyllama_latest_20260324_014707.log.3269468")
        .is_file()
    {
        let c = claim(claims, "derive.strace.catalog", "54 .hsaco");
        assert_eq!(c["class"], "confirmed");
    }
    // §5.2: tinyllama A/B after the recovery: GPU in 15 of 16 runs, r1_w0_k1 second unsure.
    if fixtures
        .join("mi25-runs/tinyllama_journal_r1_w0_k1_second_20260320_195741.log")
        .is_file()
    {
        let c = claim(
            claims,
            "derive.ollama.placement_group",
            "tinyllama:latest on gfx900",
        );
        assert_eq!(counts(c), (15, 16));
        assert_eq!(c["class"], "limited");
        assert_eq!(
            c["derived"]["exceptions"][0],
            "tinyllama_r1_w0_k1_second_20260320_195741: UNSURE"
        );
    }
}

/// §5.4: the MI25/Vega64 lane ratios.
fn mi25_vega64_ratios(fixtures: &Path, claims: &[Value]) {
    // §5.4: MI25 vs Vega64, each set's ratio of medians with its interval.
    let lanes = fixtures.join("ollama-runs/mi25-vega64");
    for (set, ratio, shown) in [
        ("rocm_repeat_20260323_184113", "1.266", true),
        (
            "rocm_threads16_keepalive10m_repeat_20260323_192700",
            "1.098",
            true,
        ),
        ("rocm_forksame_repeat_20260323_202017", "1.132", false),
        ("rocm_forksame_thread4_20run_20260323_203048", "1.132", true),
        (
            "rocm_forksame_coldstart_10run_20260323_203158",
            "1.197",
            true,
        ),
        (
            "rocm_forksame_smi_verified_5run_20260323_203402",
            "1.097",
            true,
        ),
    ] {
        if !lanes.join(format!("mi25_{set}.jsonl")).is_file() {
            continue;
        }
        let c = claims
            .iter()
            .find(|c| {
                c["derived_by"] == "derive.lanes.ratio"
                    && c["id"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("mi25_{set}")[..30])
            })
            .unwrap_or_else(|| panic!("no lane claim for {set}"));
        let en = c["statement"]["en"].as_str().unwrap();
        assert!(
            en.contains(&format!("median Vega64/MI25 = {ratio}")),
            "{en}"
        );
        assert!(en.contains("95 % interval"), "{en}");
        if shown {
            assert!(
                en.contains(&format!("Vega64 ahead of MI25 by {ratio}×")),
                "{en}"
            );
        } else {
            assert!(en.contains("no difference shown"), "{en}");
            assert_eq!(c["class"], "unresolved");
        }
    }
}

/// The world pages as question chains, a case page's interpretation, and no path of this
/// machine in the site.
fn world_and_case_pages(out: &Path, logs: &Path, fixtures: &Path, dlops_nchw: u64) {
    // The world page walks the question chain (each step with its observation point and its
    // can / cannot-show table), lists each claim once, and names no path of this machine.
    let page = std::fs::read_to_string(out.join("site/worlds/gfx900.html")).unwrap();
    for h in [
        "What this page lets you understand",
        "id=\"step-shipped\"",
        "id=\"step-selection\"",
        "id=\"step-fallback\"",
        "id=\"step-application\"",
        "Observation point",
        "What this evidence can show",
        "Observed facts",
        "Current findings",
        "Unresolved or limited",
        "Next question",
        "What would settle what is open here",
        "find-db record of the problem",
        "Planned observations",
    ] {
        assert!(page.contains(h), "{h}");
    }
    let mut listed = 0;
    for f in rocpath_testdata::files_under(&out.join("ledger/claims")) {
        let text = std::fs::read_to_string(&f).unwrap();
        if !text.contains("world = \"gfx900\"") || text.contains("review = \"rejected\"") {
            continue;
        }
        let id = f.file_stem().unwrap().to_string_lossy().to_string();
        let link = format!("href=\"..&#x2f;claims&#x2f;{id}.html\"");
        assert_eq!(page.matches(&link).count(), 1, "{id}");
        listed += 1;
    }
    assert!(listed > 100, "{listed}");
    // A world with evidence for one question only names the research's next ones it has not
    // observed yet, with where one would look, instead of ending the chain there.
    let gfx942 = std::fs::read_to_string(out.join("site/worlds/gfx942.html")).unwrap();
    assert!(gfx942.contains("id=\"step-shipped\""), "gfx942");
    assert!(
        gfx942.contains("not observed in this world yet")
            && gfx942.contains("Which solver or kernel does the library choose, and why?"),
        "gfx942"
    );
    // A case reads with the others: its group's finding is its interpretation, its own outcome
    // its fact.
    if present(logs, &["vega64_int8_force_dlops_ck"]) == 1 {
        let page = std::fs::read_to_string(out.join("site/cases/vega64_int8_force_dlops_ck.html"))
            .unwrap();
        let a = page.find("callout-inferred").unwrap();
        let b = page[a..].find("callout-unresolved").unwrap() + a;
        assert!(
            page[a..b].contains("was rejected as not applicable in"),
            "{}",
            &page[a..b]
        );
    }
    let dlops_text = format!("in {dlops_nchw} of {dlops_nchw} cases");
    assert!(page.contains(&dlops_text), "{dlops_text}");
    let root = fixtures.display().to_string();
    for e in rocpath_testdata::files_under(&out.join("site")) {
        let text = std::fs::read_to_string(&e).unwrap_or_default();
        assert!(!text.contains(&root), "{} names {root}", e.display());
    }
}

#[test]
fn import_derive_and_claims_from_the_command_line() {
    let Some(logs) = rocpath_testdata::fixture_dir("miopen-logs/vega64") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = |p: &str| tmp.path().join(p).display().to_string();
    let mut docs = Vec::new();
    for name in [
        "vega64_i8_case1",
        "vega64_int8_nchw_1x1_fwd_n32",
        "vega64_int8_force_dlops_ck",
    ] {
        let (code, json, err) = run(&[
            "--json",
            "case",
            "read",
            logs.join(format!("{name}.log")).to_str().unwrap(),
        ]);
        // 1: a run that failed (the forced solver rejected) is a negative answer.
        assert!(code == 0 || code == 1, "{err}");
        std::fs::write(t(&format!("{name}.json")), json).unwrap();
        docs.push(t(&format!("{name}.json")));
    }
    let (code, _, err) = run(&["ledger", "init", &t("l")]);
    assert_eq!(code, 0, "{err}");
    let mut args = vec![
        "--json", "ledger", "import", "--derive", "--world", "gfx900",
    ];
    let l = t("l");
    args.push(&l);
    args.extend(docs.iter().map(String::as_str));
    let (code, json, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        doc["derived"]["created"].as_array().unwrap().len(),
        4,
        "{json}"
    );
    assert_eq!(
        doc["derived"]["written"][0]["evidence"]["rule"],
        "ledger.claim_derived"
    );
    // Deriving again changes nothing.
    let (code, json, _) = run(&["--json", "ledger", "derive", &l, "--date", "2026-12-01"]);
    assert_eq!(code, 0);
    let again: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(again["schema"], "rocpath.ledger.derive/2");
    assert_eq!(again["unchanged"], 4);
    assert!(again["written"].as_array().unwrap().is_empty());
    let (_, json, _) = run(&[
        "--json",
        "ledger",
        "claims",
        &l,
        "--derived",
        "--world",
        "gfx9",
    ]);
    let claims: Value = serde_json::from_str(&json).unwrap();
    let natural = claims["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["derived_by"] == "derive.case.group")
        .unwrap();
    assert_eq!(natural["class"], "confirmed");
    assert_eq!(natural["world"], "gfx900");
    assert_eq!(natural["support"].as_array().unwrap().len(), 2);
    let (code, text, _) = run(&["ledger", "check", &l]);
    assert_eq!(code, 0, "{text}");
}
