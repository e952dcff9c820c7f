#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The MI25 bring-up recordings (seed-system.md §5.2): verdicts against the research's index
//! TSVs, the deepseek and model-band figures, the CPU-fallback root cause.

use rocpath_ollama::VerdictKind;
use rocpath_ollama::run::{RunReport, read_paths};
use std::path::{Path, PathBuf};

fn runs(dir: &Path, names: &[String]) -> Vec<RunReport> {
    let paths: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    let (r, _, errors) = read_paths(&paths, false);
    assert!(errors.is_empty(), "{errors:?}");
    r
}

fn case_files(prefix: &str, case: &str, phase: &str, ts: &str) -> Vec<String> {
    vec![
        format!("{prefix}_generate_{case}_{phase}_{ts}.json"),
        format!("{prefix}_journal_{case}_{phase}_{ts}.log"),
        format!("{prefix}_rocm_smi_{case}_{phase}_{ts}.log"),
    ]
}

/// Every row of an index TSV: rocpath's verdict, GPU use peak and library against the author's.
fn check_index(dir: &Path, ts: &str) -> (usize, Vec<String>) {
    let rows =
        rocpath_testdata::read_tsv(&dir.join(format!("tinyllama_path_index_{ts}.tsv"))).unwrap();
    let mut differ = Vec::new();
    for row in &rows {
        let (case, phase) = (&row["case"], &row["phase"]);
        let r = runs(dir, &case_files("tinyllama", case, phase, ts));
        assert_eq!(r.len(), 1, "{case} {phase}");
        let r = &r[0];
        let max_use = r
            .smi
            .as_ref()
            .map(|s| {
                s.gpus
                    .iter()
                    .filter_map(|g| g.max_use_pct)
                    .fold(0.0f64, f64::max)
            })
            .unwrap_or(0.0);
        assert_eq!(
            max_use,
            row["max_gpu_use"].parse::<f64>().unwrap(),
            "{case} {phase} max GPU use"
        );
        if r.verdict.verdict.as_str() != row["verdict"] {
            differ.push(format!(
                "{case}/{phase}: author {} rocpath {}",
                row["verdict"],
                r.verdict.verdict.as_str()
            ));
        }
    }
    (rows.len(), differ)
}

#[test]
fn tinyllama_ab_after_recovery() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    // 16 phases: GPU = 15, UNSURE = 1 (r1_w0_k1 second).
    let (n, differ) = check_index(&dir, "20260320_195741");
    assert_eq!(n, 16);
    assert!(differ.is_empty(), "{differ:?}");
    let r = &runs(
        &dir,
        &case_files("tinyllama", "r1_w0_k1", "second", "20260320_195741"),
    )[0];
    assert_eq!(r.verdict.verdict, VerdictKind::Unsure);
    assert_eq!(r.verdict.evidence.class.as_str(), "unresolved");
    let r = &runs(
        &dir,
        &case_files("tinyllama", "r1_w0_k0", "first", "20260320_195741"),
    )[0];
    assert_eq!(r.verdict.verdict, VerdictKind::Gpu);
    assert_eq!(r.server.gpu_layers, Some(23));
    assert_eq!(r.server.offloaded, Some([23, 23]));
    assert_eq!(r.server.library.as_deref(), Some("ROCm"));
    assert_eq!(r.server.compute.as_deref(), Some("gfx900"));
    assert_eq!(r.server.devices[0].target, "gfx900:xnack-");
    assert_eq!(r.server.devices[0].wave_size, Some(64));
    // Two GPUs in the samples; the MI25 is GPU[0].
    assert_eq!(r.smi.as_ref().unwrap().gpus.len(), 2);
}

#[test]
fn other_index_files() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    for ts in [
        "20260320_193549",
        "20260320_193844",
        "20260320_195928",
        "20260320_200424",
    ] {
        let (_, differ) = check_index(&dir, ts);
        assert!(differ.is_empty(), "{ts}: {differ:?}");
    }
    // The 19:56 run: the author's script of that minute called it MIXED; the journals hold no
    // CPU line but `CPU_Mapped model buffer size` (host staging, present in every GPU run of
    // 19:57 too, which the same script then called GPU). The runner crashed with a ROCm error.
    let (_, differ) = check_index(&dir, "20260320_195645");
    assert_eq!(
        differ,
        vec![
            "baseline/first: author MIXED rocpath GPU",
            "baseline/second: author MIXED rocpath GPU"
        ]
    );
    let r = &runs(
        &dir,
        &case_files("tinyllama", "baseline", "first", "20260320_195645"),
    )[0];
    assert!(r.failures.iter().any(|f| f.kind.as_str() == "rocm_error"));
    assert!(
        r.failures
            .iter()
            .any(|f| f.kind.as_str() == "error_response")
    );
}

#[test]
fn deepseek_r1_14b() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let names = [
        "deepseek14b_generate_20260320_212146.json",
        "deepseek14b_journal_20260320_212146.log",
        "deepseek14b_rocm_smi_20260320_212146.log",
    ]
    .map(String::from);
    let r = &runs(&dir, &names)[0];
    assert_eq!(r.verdict.verdict, VerdictKind::Gpu);
    let g = r.generate.as_ref().unwrap();
    assert_eq!(g.response.done_reason.as_deref(), Some("length"));
    assert_eq!(g.response.eval_count, Some(140));
    // "tokens/sec 約 9.9" is eval_count / total_duration (14.197 s); the eval rate is 26.72.
    assert_eq!(format!("{:.1}", g.rates.e2e_rate.unwrap()), "9.9");
    assert_eq!(format!("{:.3}", g.rates.total_s.unwrap()), "14.198");
    assert_eq!(format!("{:.2}", g.rates.eval_rate.unwrap()), "26.72");
    assert_eq!(r.server.gpu_layers, Some(49));
    assert_eq!(r.server.offloaded, Some([49, 49]));
    let gpu0 = &r.smi.as_ref().unwrap().gpus[0];
    assert!(gpu0.max_use_pct.unwrap() <= 99.0 && gpu0.max_use_pct.unwrap() > 90.0);
    assert!(gpu0.max_power_w.unwrap() <= 217.0 && gpu0.max_power_w.unwrap() > 200.0);
    assert_eq!(gpu0.max_vram_pct, Some(58.0));
}

#[test]
fn model_band_rates() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    // (model tag, timestamp, e2e, eval) as worklog §14–15 and seed-system §5.2 give them.
    for (m, ts, e2e, eval) in [
        ("qwen2.5_7b", "20260321_020642", "13.12", "47.22"),
        ("gpt-oss_latest", "20260321_031355", "13.17", "53.26"),
        ("deepseek-r1_14b", "20260321_012715", "", "26.25"),
    ] {
        let names = [
            format!("model_generate_{m}_{ts}.json"),
            format!("model_journal_{m}_{ts}.log"),
            format!("model_rocm_smi_{m}_{ts}.log"),
        ];
        let r = &runs(&dir, &names)[0];
        let g = r.generate.as_ref().unwrap();
        if !e2e.is_empty() {
            assert_eq!(format!("{:.2}", g.rates.e2e_rate.unwrap()), e2e, "{m}");
        }
        assert_eq!(format!("{:.2}", g.rates.eval_rate.unwrap()), eval, "{m}");
        assert_eq!(r.verdict.verdict, VerdictKind::Gpu, "{m}");
        if m == "deepseek-r1_14b" {
            assert_eq!(g.response.eval_count, Some(220));
        }
        if m == "gpt-oss_latest" {
            // thinking only
            assert_eq!(g.response.response_chars, 0);
            assert!(g.response.thinking_chars > 0);
            assert_eq!(r.server.gpu_layers, Some(25));
        }
        if m == "qwen2.5_7b" {
            assert_eq!(r.server.gpu_layers, Some(29));
            assert_eq!(r.smi.as_ref().unwrap().gpus[0].max_vram_pct, Some(31.0));
        }
    }
}

#[test]
fn cpu_fallback_root_cause() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let r = &runs(
        &dir,
        &["runner-direct-info-init1-20260320_161533.log".to_string()],
    )[0];
    let f = r
        .failures
        .iter()
        .find(|f| f.kind.as_str() == "tensile_library_missing")
        .unwrap();
    assert!(
        f.detail
            .contains("/opt/rocm-7.2.0/lib/rocblas/library/TensileLibrary.dat")
    );
    assert!(f.detail.ends_with("for gfx900"));
    assert_eq!(f.evidence.class.as_str(), "confirmed");
    let r = &runs(
        &dir,
        &["ollama-serve-abort-20260320_160946.log".to_string()],
    )[0];
    assert!(
        r.failures
            .iter()
            .any(|f| f.kind.as_str() == "gpu_discovery_failed"),
        "{:?}",
        r.failures
    );
    // The server fell back to the CPU (`inference compute … library=cpu`), but no model was
    // loaded: where a model ran is not in this log.
    assert_eq!(r.server.library.as_deref(), Some("cpu"));
    assert_eq!(r.verdict.verdict, VerdictKind::Unsure);
    assert_eq!(r.verdict.evidence.rule, "ollama.verdict.no_load");
    assert!(r.verdict.evidence.note.contains("only the CPU"));
}

/// The 20:04 deepseek run: the generate call answered 404 (`model 'deepseek-r1:14b' not
/// found`), the journal holds the server's start-up (`inference compute … library=ROCm`, line
/// 55) and no load, and rocm-smi saw 0 % use. No model ran: no placement verdict.
#[test]
fn a_failed_request_has_no_placement_verdict() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let names = [
        "deepseek14b_generate_20260320_200442.json",
        "deepseek14b_journal_20260320_200442.log",
        "deepseek14b_rocm_smi_20260320_200442.log",
    ]
    .map(String::from);
    let r = &runs(&dir, &names)[0];
    assert_eq!(r.verdict.verdict, VerdictKind::Unsure);
    let ev = &r.verdict.evidence;
    assert_eq!(ev.class.as_str(), "unresolved");
    assert_eq!(ev.rule, "ollama.verdict.no_load");
    assert!(ev.note.contains("no model load"), "{}", ev.note);
    assert!(
        ev.note.contains("model 'deepseek-r1:14b' not found"),
        "{}",
        ev.note
    );
    assert!(ev.note.contains("library=ROCm"), "{}", ev.note);
    let lines: Vec<(String, Option<u64>)> = ev
        .sources
        .iter()
        .map(|s| (s.path.rsplit('/').next().unwrap_or("").to_string(), s.line))
        .collect();
    assert!(lines.contains(&("deepseek14b_journal_20260320_200442.log".into(), Some(55))));
    assert!(lines.contains(&("deepseek14b_generate_20260320_200442.json".into(), Some(1))));
}

/// Across the whole folder, no verdict other than UNSURE or rocm-smi's inference stands
/// without a model load.
#[test]
fn no_confirmed_verdict_without_a_load() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let (reports, _, _) = read_paths(&[dir], false);
    let load = ["gpu_layers", "offloaded", "placement", "using_device"];
    for r in &reports {
        if !r
            .verdict
            .signals
            .iter()
            .any(|s| load.contains(&s.what.as_str()))
        {
            assert_ne!(r.verdict.evidence.class.as_str(), "confirmed", "{}", r.run);
        }
    }
}

#[test]
fn error_and_empty_generate_files() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let r = &runs(
        &dir,
        &["deepseek14b_generate_20260320_200442.json".to_string()],
    )[0];
    assert!(
        r.failures
            .iter()
            .any(|f| f.kind.as_str() == "error_response" && f.detail.contains("not found"))
    );
    let r = &runs(
        &dir,
        &["ollama_generate_clean_20260320_192326.json".to_string()],
    )[0];
    assert!(r.notes.iter().any(|n| n.contains("empty")));
}

#[test]
fn the_whole_folder_reads() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let (reports, notes, errors) = read_paths(&[dir], false);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(reports.len() > 100);
    assert!(notes.iter().any(|n| n.contains("summary")));
    let json = serde_json::to_string(&reports).unwrap();
    assert!(json.contains("\"verdict\":\"GPU\""));
}

#[test]
fn lines_of_another_server_process_do_not_count() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    // The journal of the 19:10 run holds two server processes: pid 194463 (17:36) found no
    // GPU (`inference compute … library=cpu`, line 10) and loaded nothing; pid 195351 (17:37)
    // loaded tinyllama with all 23 layers on ROCm0. The earlier process's CPU line once made
    // the run "split between GPU and CPU".
    let r = &runs(
        &dir,
        &[
            "ollama_generate_20260320_191059.json".to_string(),
            "ollama_journal_after_test_20260320_191059.log".to_string(),
            "rocm_smi_during_generate_20260320_191059.log".to_string(),
        ],
    )[0];
    assert_eq!(r.verdict.verdict, VerdictKind::Gpu);
    assert_eq!(r.verdict.evidence.class.as_str(), "confirmed");
    assert!(
        r.verdict.evidence.note.contains("pid 194463")
            && r.verdict.evidence.note.contains("195351"),
        "{}",
        r.verdict.evidence.note
    );
    assert_eq!(r.server.pid, Some(195351));
    assert_eq!(r.server.processes, vec![194463, 195351]);
    assert_eq!(
        r.server.load_time.as_deref(),
        Some("2026-03-20T17:43:27.518+09:00")
    );
    assert_eq!(
        r.server
            .env
            .get("HSA_OVERRIDE_GFX_VERSION")
            .map(String::as_str),
        Some("9.0.0")
    );
    let cpu = r
        .verdict
        .signals
        .iter()
        .find(|s| s.side.as_str() == "cpu")
        .expect("the CPU line is listed");
    assert_eq!((cpu.pid, cpu.counted), (Some(194463), false));
    assert!(
        !r.verdict
            .evidence
            .sources
            .iter()
            .any(|s| s.line == Some(10)),
        "an uncounted line is no evidence"
    );
    assert!(
        r.verdict
            .signals
            .iter()
            .filter(|s| s.counted)
            .all(|s| s.pid == Some(195351))
    );
}
