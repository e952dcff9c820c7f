#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The MI25 rocprofv3 probes: rocpath's counts against the summaries the research workflow wrote
//! next to them (`rocprofv3_summary_*.txt`, key=value lines).

use rocpath_trace::{Family, Format, Input, PhaseRequest};
use std::collections::HashMap;
use std::path::Path;

fn kv(path: &Path) -> HashMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn num(m: &HashMap<String, String>, k: &str) -> u64 {
    m.get(k)
        .unwrap_or_else(|| panic!("no {k}"))
        .parse()
        .unwrap()
}

fn csv(dir: &Path, probe: &str, pid: &str) -> Input {
    Input {
        path: dir
            .join(probe)
            .join("hbmx-mi25")
            .join(format!("{pid}_kernel_trace.csv")),
        format: Format::Csv,
    }
}

#[test]
fn qwen_probe_matches_the_summary() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let t = rocpath_trace::read_input(
        &csv(
            &dir,
            "rocprofv3_probe_qwen2.5_7b_20260324_020303",
            "3284537",
        ),
        None,
    )
    .unwrap();
    let s = kv(&dir.join("rocprofv3_summary_qwen2.5_7b_20260324_020303.txt"));
    assert_eq!(t.format.as_str(), "csv");
    assert_eq!(t.dispatches, num(&s, "kernel_dispatch_rows"));
    assert_eq!(
        t.research.kernel_dispatch_rows,
        num(&s, "kernel_dispatch_rows")
    );
    assert_eq!(
        t.research.kernel_mul_mat_q_rows,
        num(&s, "kernel_mul_mat_q_rows")
    );
    assert_eq!(
        t.research.kernel_mul_mat_vec_rows,
        num(&s, "kernel_mul_mat_vec_rows")
    );
    assert_eq!(
        t.research.kernel_flash_attn_rows,
        num(&s, "kernel_flash_attn_rows")
    );
    assert_eq!(
        t.research.kernel_quantize_rows,
        num(&s, "kernel_quantize_rows")
    );
    assert_eq!(t.research.kernel_copy_rows, num(&s, "kernel_copy_rows"));
    assert_eq!(
        t.research.kernel_tensile_like_rows,
        num(&s, "kernel_tensile_like_rows")
    );
    // The families say the same with rocpath's rules.
    assert_eq!(t.family_dispatches(Family::MulMatQ), 193);
    assert_eq!(t.family_dispatches(Family::MulMatVecQ), 1186);
    assert_eq!(
        t.family_dispatches(Family::FlashAttnTile)
            + t.family_dispatches(Family::FlashAttnVec)
            + t.family_dispatches(Family::FlashAttnCombine),
        448
    );
    assert_eq!(t.family_dispatches(Family::FlashAttnVec), 196);
    assert_eq!(t.family_dispatches(Family::Quantize), 1379);
    assert_eq!(t.family_dispatches(Family::RuntimeCopyFill), 196);
    assert_eq!(t.blas_dispatches(), 0);
    assert_eq!(
        t.family_dispatches(Family::Other),
        0,
        "every real kernel has a family"
    );
    // This probe kept no agent_info.csv: the GPU is not named.
    assert!(t.gpus().is_empty());
    assert_eq!(t.evidence.class.as_str(), "confirmed");
    let top = &t.kernels[0];
    assert_eq!(top.name.split('(').next().unwrap(), "quantize_q8_1");
    assert_eq!(top.dispatches, 1186);
    assert!(top.resources.vgpr_count.is_some());
    assert_eq!(
        top.evidence.sources[0].line,
        Some(top_line(&t.path, &top.name))
    );
}

fn top_line(path: &str, name: &str) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    let needle = format!("\"{name}\"");
    text.lines().position(|l| l.contains(&needle)).unwrap() as u64 + 1
}

#[test]
fn tinyllama_probe_matches_its_dispatch_rows() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let t = rocpath_trace::read_input(
        &csv(
            &dir,
            "rocprofv3_probe_tinyllama_latest_20260324_015840",
            "3280769",
        ),
        None,
    )
    .unwrap();
    let s = kv(&dir.join("rocprofv3_summary_tinyllama_latest_20260324_015840.txt"));
    // This older summary counts `(?i)KERNEL_DISPATCH|dispatch` lines over every CSV of the probe:
    // the dispatch rows plus the kernel trace's header line (its `Dispatch_Id` column).
    assert_eq!(t.dispatches + 1, num(&s, "dispatch_rows"));
    assert_eq!(t.dispatches, 3605);
    // The agent file beside the trace names the GPUs (the MI25 and the APU's iGPU).
    assert_eq!(t.gpus(), vec!["gfx900", "gfx902"]);
    assert_eq!(t.kernels[0].family, Family::Quantize);
    // Same workload, same counts as the §5.3 reference (the 020034 probe's summary).
    let r = kv(&dir.join("rocprofv3_summary_tinyllama_latest_20260324_020034.txt"));
    assert_eq!(
        t.research.kernel_mul_mat_q_rows,
        num(&r, "kernel_mul_mat_q_rows")
    );
    assert_eq!(
        t.research.kernel_mul_mat_vec_rows,
        num(&r, "kernel_mul_mat_vec_rows")
    );
    assert_eq!(
        t.research.kernel_flash_attn_rows,
        num(&r, "kernel_flash_attn_rows")
    );
    assert_eq!(
        t.research.kernel_quantize_rows,
        num(&r, "kernel_quantize_rows")
    );
    assert_eq!(t.research.kernel_copy_rows, num(&r, "kernel_copy_rows"));
    assert_eq!(t.dispatches, num(&r, "kernel_dispatch_rows"));
}

#[test]
fn phase_split_from_the_generate_json() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let generate: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("rocprofv3_generate_qwen2.5_7b_20260324_020303.json"))
            .unwrap(),
    )
    .unwrap();
    let pe = generate["prompt_eval_duration"].as_u64().unwrap();
    let input = csv(
        &dir,
        "rocprofv3_probe_qwen2.5_7b_20260324_020303",
        "3284537",
    );
    let t = rocpath_trace::read_input(&input, Some(PhaseRequest::PromptEval(pe))).unwrap();
    let p = t.phase.as_ref().unwrap();
    assert_eq!(p.prefill_dispatches + p.decode_dispatches, t.dispatches);
    assert_eq!(p.boundary_ns, Some(t.first_start_ns.unwrap() + pe));
    // Count the same thing directly from the rows.
    let text = std::fs::read_to_string(&input.path).unwrap();
    let mut rd = csv_rows(&text);
    let b = p.boundary_ns.unwrap();
    let prefill = rd.iter_mut().filter(|s| **s <= b).count() as u64;
    assert_eq!(p.prefill_dispatches, prefill);
    assert!(p.prefill_dispatches > 0 && p.decode_dispatches > 0);
    // No rocBLAS/Tensile kernel: the research's "prefill dominant" status.
    assert_eq!(p.status.as_str(), "prefill_dominant_signature");
    assert_eq!(p.evidence.class.as_str(), "inferred");
}

/// Start timestamps, by a naive split that works because the start column is after the last
/// quoted field.
fn csv_rows(text: &str) -> Vec<u64> {
    text.lines()
        .skip(1)
        .map(|l| {
            let after = &l[l.rfind('"').unwrap() + 2..];
            after.split(',').nth(1).unwrap().parse().unwrap()
        })
        .collect()
}

#[test]
fn folders_are_searched() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let d = rocpath_trace::discover(&[dir.join("rocprofv3_probe_qwen2.5_7b_20260324_020303")]);
    assert!(d.errors.is_empty(), "{:?}", d.errors);
    assert_eq!(d.inputs.len(), 1);
    // A probe folder whose kernel trace is absent is an error, not an empty success.
    let d = rocpath_trace::discover(&[dir.join("rocprofv3_probe_deepseek-r1_14b_20260324_023325")]);
    assert!(d.inputs.is_empty());
    assert_eq!(d.errors.len(), 1);
    assert!(matches!(
        d.errors[0],
        rocpath_trace::InputError::NoTraceInFolder { .. }
    ));
}

#[test]
fn truncated_real_trace_never_panics() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let input = csv(
        &dir,
        "rocprofv3_probe_tinyllama_latest_20260324_015840",
        "3280769",
    );
    let bytes = std::fs::read(&input.path).unwrap();
    let mut last = 0;
    for cut in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
        if let Ok((c, _)) = rocpath_trace::csv::read(&bytes[..cut], None) {
            assert!(c.dispatches >= last || cut == 0);
            last = c.dispatches;
        }
    }
}
