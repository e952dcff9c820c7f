//! The case reader on real recorded logs (shared fixtures, skipped when absent): every
//! Vega64 MIOpen case of `fixtures/miopen-logs/vega64/` gives the outcome, solver and kernel
//! the research recorded (seed-system.md §2.1.1 / §5.1), and the rocBLAS traces of
//! `fixtures/mi25-runs/` parse with the right fields.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_case::model::{CaseReport, Fate};
use std::path::PathBuf;

fn fixtures(sub: &str) -> Option<PathBuf> {
    rocpath_testdata::fixture_dir(sub)
}

fn read(path: &std::path::Path) -> CaseReport {
    let src = rocpath_case::case_source(path).unwrap();
    let (r, errors) = rocpath_case::read_case(&src);
    assert!(errors.is_empty(), "{}: {errors:?}", path.display());
    r
}

/// (case name prefix, outcome, sub_kind, selected "id/name", first kernel, exit code)
type Expected = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<i64>,
);

const EXPECTED: &[Expected] = &[
    (
        "vega64_fp32_nchw_3x3_fwd_n32",
        "natural",
        "",
        "14/ConvBinWinograd3x3U",
        "miopenSp3AsmConv3x3F",
        None,
    ),
    (
        "vega64_fp32_nchw_1x1_fwd_n32",
        "natural",
        "",
        "2/ConvAsm1x1U",
        "miopenGcnAsmConv1x1U",
        None,
    ),
    (
        "vega64_fp32_nchw_group2_3x3",
        "natural",
        "",
        "53/ConvBinWinogradRxSf2x3",
        "miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1",
        None,
    ),
    (
        "vega64_fp16_nchw_3x3_probe",
        "natural",
        "",
        "11/ConvOclDirectFwd",
        "MIOpenConvUni",
        None,
    ),
    (
        "vega64_bfp16_nchw_3x3_probe",
        "natural",
        "",
        "91/GemmFwdRest",
        "",
        None,
    ),
    (
        "vega64_i8_case1",
        "natural",
        "",
        "85/ConvDirectNaiveConvFwd",
        "naive_conv_ab_nonpacked_fwd_nchw_int8_t_int32_t_int8_t",
        None,
    ),
    (
        "vega64_int8_1x1_",
        "natural",
        "",
        "85/ConvDirectNaiveConvFwd",
        "naive_conv_ab_nonpacked_fwd_nchw_int8_t_int32_t_int8_t",
        None,
    ),
    (
        "vega64_int8_3x3_",
        "natural",
        "",
        "85/ConvDirectNaiveConvFwd",
        "naive_conv_ab_nonpacked_fwd_nchw_int8_t_int32_t_int8_t",
        None,
    ),
    (
        "vega64_int8_nat_s1_",
        "natural",
        "",
        "85/ConvDirectNaiveConvFwd",
        "naive_conv_ab_nonpacked_fwd_nchw_int8_t_int32_t_int8_t",
        None,
    ),
    (
        "vega64_int8_nchw_",
        "natural",
        "",
        "85/ConvDirectNaiveConvFwd",
        "naive_conv_ab_nonpacked_fwd_nchw_int8_t_int32_t_int8_t",
        None,
    ),
    (
        "vega64_int8_nhwc_",
        "natural",
        "",
        "85/ConvDirectNaiveConvFwd",
        "naive_conv_ab_nonpacked_fwd_nhwc_int8_t_int32_t_int8_t",
        None,
    ),
    (
        "vega64_int8_gemmcand_nat_",
        "natural",
        "",
        "85/ConvDirectNaiveConvFwd",
        "naive_conv_ab_nonpacked_fwd_nchw_int8_t_int32_t_int8_t",
        Some(0),
    ),
    (
        "vega64_int8_force_dlops",
        "applicability_reject",
        "immediate",
        "",
        "",
        Some(3),
    ),
    (
        "vega64_int8_gemmcand_force_",
        "applicability_reject",
        "immediate",
        "",
        "",
        Some(3),
    ),
    (
        "vega64_int8_gemmcand_onlysolver_",
        "applicability_reject",
        "find",
        "",
        "",
        Some(7),
    ),
    (
        "vega64_fp16_force_hipigemm_fwdxdlops",
        "runtime_abort",
        "assertion",
        "",
        "",
        Some(134),
    ),
    (
        "vega64_bfp16_force_hipigemm_fwdxdlops",
        "runtime_abort",
        "assertion",
        "",
        "",
        Some(134),
    ),
    (
        "vega64_int8_force_hipigemm_fwdxdlops",
        "runtime_abort",
        "assertion",
        "",
        "",
        None,
    ),
    (
        "vega64_fp16_force_hipigemm_v4r5xdlops",
        "build_failure",
        "code_object",
        "",
        "",
        Some(7),
    ),
    (
        "vega64_int8_force_hipigemm_v4r5xdlops",
        "build_failure",
        "code_object",
        "",
        "",
        None,
    ),
    ("vega64_int8_outcast32_", "cli_error", "", "", "", Some(1)),
    (
        "vega64_int8_outcastfp32_",
        "library_error",
        "no_suitable_algorithm",
        "",
        "",
        Some(7),
    ),
    (
        "vega64_miopendriver_out_cast_type_int32",
        "cli_error",
        "",
        "",
        "",
        Some(1),
    ),
    (
        "vega64_miopendriver_out_data_type_int32",
        "cli_error",
        "",
        "",
        "",
        Some(0),
    ),
];

#[test]
fn every_vega64_case_gives_the_recorded_outcome() {
    let Some(dir) = fixtures("miopen-logs/vega64") else {
        return;
    };
    let cases = rocpath_case::discover(&dir).unwrap();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut checked = 0;
    let mut forced_dlops = 0;
    for c in &cases {
        let (r, errors) = rocpath_case::read_case(c);
        assert!(errors.is_empty(), "{}: {errors:?}", c.name);
        // Derived extracts of the research workflow are not read as logs.
        assert!(r.files.iter().all(|f| !f.path.ends_with("_extract.log")));
        assert!(r.files.iter().all(|f| f.sha256.len() == 64));
        let Some(&(_, outcome, sub, sel, kernel, exit)) =
            EXPECTED.iter().find(|e| c.name.starts_with(e.0))
        else {
            continue;
        };
        checked += 1;
        let name = &c.name;
        assert_eq!(
            r.outcome.kind.as_str(),
            outcome,
            "{name}: {}",
            r.outcome.reason
        );
        assert_eq!(r.outcome.sub_kind.as_deref().unwrap_or(""), sub, "{name}");
        assert!(
            !r.outcome.evidence.sources.is_empty(),
            "{name}: outcome names no line"
        );
        for l in &r.outcome.evidence.sources {
            assert!(
                l.line.is_some() && l.sha256.as_ref().is_some_and(|s| s.len() == 64),
                "{name}"
            );
        }
        let got = r
            .selected
            .as_ref()
            .map(|s| format!("{}/{}", s.solver_id.unwrap_or(0), s.solver))
            .unwrap_or_default();
        assert_eq!(got, sel, "{name}");
        if !kernel.is_empty() {
            let ks = &r.selected.as_ref().unwrap().kernels;
            assert_eq!(
                ks.first().map(String::as_str),
                Some(kernel),
                "{name}: {ks:?}"
            );
        }
        assert_eq!(r.exit.code, exit, "{name}");
        if outcome == "natural" {
            assert!(r.forced.is_none(), "{name}");
            assert_eq!(
                r.device.as_ref().map(|d| d.arch.to_string()).as_deref(),
                Some("gfx900:xnack-"),
                "{name}"
            );
        } else if !outcome.starts_with("cli") && outcome != "library_error" {
            // A forced run is never reported as a natural selection.
            let f = r
                .forced
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no forced solver"));
            assert!(r.selected.is_none(), "{name}");
            assert!(
                r.candidates
                    .iter()
                    .any(|c| c.solver == f.solver && c.fate == Fate::Forced)
                    || f.via == "single_candidate",
                "{name}"
            );
        }
        if name.contains("force_dlops") {
            forced_dlops += 1;
            let f = r.forced.as_ref().unwrap();
            assert_eq!(
                (f.id, f.solver.as_str()),
                (Some(114), "ConvCkIgemmFwdV6r1DlopsNchw")
            );
        }
    }
    assert!(checked >= 44, "checked {checked}");
    assert_eq!(forced_dlops, 14);
}

/// The grouped 3x3 Find evaluates four solvers; each kernel it built and launched is listed
/// under the solver whose `[EvaluateInvokers]` line followed it (the `FindSolutionImpl` context
/// was GemmFwdRest for all of them), and the chosen solver's own kernel stays apart.
#[test]
fn group2_find_kernels_per_solver() {
    let Some(dir) = fixtures("miopen-logs/vega64") else {
        return;
    };
    let r = read(&dir.join("vega64_fp32_nchw_group2_3x3.log"));
    let kernels = |s: &str| {
        r.candidates
            .iter()
            .find(|c| c.solver == s)
            .map(|c| c.kernels.join(","))
            .unwrap_or_default()
    };
    assert_eq!(
        kernels("ConvDirectNaiveConvFwd"),
        "naive_conv_ab_nonpacked_fwd_nchw_float_double_float"
    );
    assert_eq!(kernels("GemmFwdRest"), "Im2d2Col_v2");
    assert_eq!(
        kernels("ConvBinWinogradRxSf3x2"),
        "miopenSp3AsmConv_v21_1_3_gfx9_fp32_f3x2_stride1"
    );
    assert_eq!(
        kernels("ConvBinWinogradRxSf2x3"),
        "miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1"
    );
    let sel = r.selected.as_ref().unwrap();
    assert_eq!(
        sel.kernels,
        vec!["miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1".to_string()]
    );
    assert!(
        !r.notes
            .iter()
            .any(|n| n.evidence.rule == "case.note.find_kernel_unclaimed"),
        "{:?}",
        r.notes
    );
}

/// The MIOpen C-API probes (seed-system.md §5: GemmFwd1x1_0_1_int8, id 89). The immediate
/// probe's `key=value` lines say solution 89 compiled and ran (before: `undetermined`); the
/// solution probe's `[y=int8]` block fails where its `[y=int32]` block succeeds (before: one
/// `library_error` for the whole case).
#[test]
fn miopen_capi_probes_per_block() {
    let Some(dir) = fixtures("miopen-logs/vega64") else {
        return;
    };
    let r = read(&dir.join("vega64_miopen_int8_immediate_probe_20260318.log"));
    assert_eq!(r.outcome.kind.as_str(), "success", "{}", r.outcome.reason);
    assert_eq!(r.outcome.evidence.class.as_str(), "confirmed");
    let lines: Vec<Option<u64>> = r.outcome.evidence.sources.iter().map(|l| l.line).collect();
    assert_eq!(lines, vec![Some(7), Some(12)]);
    let f = r.forced.as_ref().unwrap();
    assert_eq!((f.id, f.via.as_str()), (Some(89), "capi_immediate"));
    assert_eq!(f.solver, "GemmFwd1x1_0_1_int8");
    assert_eq!(r.selected.as_ref().unwrap().solver_id, Some(89));
    let b = &r.capi_blocks[0];
    assert_eq!((b.label.as_deref(), b.solution_count), (None, Some(2)));
    let sol: Vec<(u64, Option<u64>)> = b
        .solutions
        .iter()
        .map(|s| (s.id, s.workspace_bytes))
        .collect();
    assert_eq!(sol, vec![(89, Some(200704)), (85, Some(0))]);
    let steps: Vec<(&str, bool, Option<u64>)> = b
        .steps
        .iter()
        .map(|s| (s.call.as_str(), s.ok, s.evidence.sources[0].line))
        .collect();
    assert_eq!(
        steps,
        vec![
            ("workspace", true, Some(5)),
            ("compile", true, Some(6)),
            ("forward_immediate", true, Some(7)),
            ("check", true, Some(12)),
        ]
    );

    let r = read(&dir.join("vega64_miopen_int8_solution_probe_20260318.log"));
    assert_eq!(r.outcome.kind.as_str(), "undetermined");
    assert_eq!(r.outcome.sub_kind.as_deref(), Some("capi_query"));
    assert_eq!(r.outcome.evidence.class.as_str(), "unresolved");
    assert!(r.forced.is_none() && r.selected.is_none());
    assert_eq!(r.capi_blocks.len(), 2);
    let (int8, int32) = (&r.capi_blocks[0], &r.capi_blocks[1]);
    assert_eq!(int8.label.as_deref(), Some("y=int8"));
    assert_eq!(int8.solution_count, Some(1));
    let bad = int8
        .steps
        .iter()
        .find(|s| !s.ok && s.call == "workspace")
        .unwrap();
    assert_eq!(
        (
            bad.solution_id,
            bad.value.as_str(),
            bad.evidence.sources[0].line
        ),
        (Some(89), "miopenStatusBadParm (3)", Some(8))
    );
    assert!(
        int8.steps
            .iter()
            .any(|s| s.call == "miopen_error" && s.evidence.sources[0].line == Some(7))
    );
    assert_eq!(int32.label.as_deref(), Some("y=int32"));
    assert_eq!(int32.solution_count, Some(2));
    assert!(int32.steps.iter().all(|s| s.ok));
    let ws89 = int32
        .steps
        .iter()
        .find(|s| s.solution_id == Some(89))
        .unwrap();
    assert_eq!(
        (ws89.value.as_str(), ws89.evidence.sources[0].line),
        ("200704", Some(16))
    );
    assert!(
        r.outcome.reason.contains("[y=int8] 1 solution(s) (85)"),
        "{}",
        r.outcome.reason
    );
    assert!(
        r.outcome
            .reason
            .contains("workspace(id=89) failed: miopenStatusBadParm (3) (line 8)")
    );
    assert!(
        r.outcome
            .reason
            .contains("[y=int32] 2 solution(s) (89, 85); every call succeeded")
    );
}

#[test]
fn fp32_3x3_details() {
    let Some(dir) = fixtures("miopen-logs/vega64") else {
        return;
    };
    let r = read(&dir.join("vega64_fp32_nchw_3x3_fwd_n32.log"));
    let p = &r.problems[0];
    assert_eq!(p.key, "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F");
    assert!(p.seen_as.contains(&"driver_command".to_string()));
    assert!(p.seen_as.contains(&"network_config".to_string()));
    let fdb = r.db_lookups.iter().find(|l| l.db == "find_db").unwrap();
    assert_eq!(fdb.found, Some(true));
    assert_eq!(fdb.record[0].solver, "ConvBinWinograd3x3U");
    assert_eq!(fdb.record[0].time_ms, 0.676743);
    let sel = r.selected.as_ref().unwrap();
    assert_eq!(sel.evidence.rule, "case.selected.driver_summary");
    assert_eq!(sel.evidence.sources[0].line, Some(393));
    assert_eq!(r.verification.as_ref().map(|v| v.ok), Some(true));
    assert!(
        r.code_objects
            .iter()
            .any(|c| c.file == "conv_3x3_wheel_alpha_v7_0_3b.s.o" && c.loaded)
    );
    assert_eq!(
        r.meta.as_ref().and_then(|m| m.host.as_deref()),
        Some("abyss-hbmx")
    );
}

#[test]
fn int8_natural_candidates_and_japanese_abort() {
    let Some(dir) = fixtures("miopen-logs/vega64") else {
        return;
    };
    let r = read(&dir.join("vega64_int8_nchw_1x1_fwd_n32.log"));
    let fate = |s: &str| r.candidates.iter().find(|c| c.solver == s).map(|c| c.fate);
    assert_eq!(fate("ConvDirectNaiveConvFwd"), Some(Fate::Selected));
    assert_eq!(
        fate("ConvAsmImplicitGemmV4R1DynamicFwd"),
        Some(Fate::NotApplicable)
    );
    assert_eq!(fate("ConvMlirIgemmFwd"), Some(Fate::SkippedNonDynamic));
    // The shell's Japanese crash report is read as SIGABRT.
    let r = read(&dir.join("vega64_fp16_force_hipigemm_fwdxdlops_nchw_3x3.log"));
    assert!(
        r.errors
            .iter()
            .any(|e| e.kind == "shell_crash_report" && e.message.contains("中止"))
    );
    assert!(r.errors.iter().any(|e| e.kind == "assertion"));
    assert_eq!(r.exit.signal.as_deref(), Some("SIGABRT"));
    assert!(
        r.db_lookups
            .iter()
            .any(|l| l.db == "perf_db" && l.found == Some(false))
    );
}

#[test]
fn rocblas_bench_int8_result_row() {
    let Some(dir) = fixtures("miopen-logs/vega64") else {
        return;
    };
    // rocblas-bench on the Vega64: a 128x128x128 GEMM that ran and matched the CPU reference.
    let r = read(&dir.join("vega64_rocblas_int8_gemm_128_128_128_20260318.log"));
    assert_eq!(r.outcome.kind.as_str(), "natural", "{:?}", r.outcome);
    assert!(
        r.outcome.reason.contains("128x128x128"),
        "{}",
        r.outcome.reason
    );
    assert_eq!(r.bench_results.len(), 1);
    let b = &r.bench_results[0];
    assert_eq!(b.rate, Some(51.195));
    assert_eq!(b.rate_unit.as_deref(), Some("rocblas-Gflops"));
    assert_eq!(b.us, Some(81.928));
    assert_eq!(b.norm_error, Some(0.0));
    assert_eq!(b.columns.len(), 19);
    assert_eq!(b.evidence.sources[0].line, Some(19));
    let g = &r.gemm_calls[0];
    assert_eq!((g.m, g.n, g.k), (128, 128, 128));
    assert_eq!(g.source, "bench_result");
    // A rocblas-bench row, not a hipblaslt-bench line (the rule it carried before).
    assert_eq!(g.evidence.rule, "case.gemm.rocblas_bench_result");
    assert_eq!(b.evidence.rule, "case.bench_result");
    assert_eq!(
        r.device.as_ref().map(|d| d.arch.to_string()).as_deref(),
        Some("gfx900:xnack-")
    );
}

#[test]
fn rocblas_traces_from_mi25_runs() {
    let Some(dir) = fixtures("mi25-runs") else {
        return;
    };
    // The 40-line trace sample inside the strace-probe summaries, against the author's own
    // shape table of the same run (whose c/d/compute type columns are empty: the seed script
    // read the wrong fields).
    let r = read(&dir.join("g4_summary_gpt-oss_latest_20260324_033849.txt"));
    let tsv = rocpath_testdata::read_tsv(&dir.join(
        "rocblas_gemm_shapes_g4_rocblas_trace_gpt-oss_latest_20260324_033849_20260324_034006.tsv",
    ))
    .unwrap();
    let api: Vec<_> = r
        .gemm_calls
        .iter()
        .filter(|g| g.source == "trace")
        .collect();
    assert!(api.len() >= 6, "{}", api.len());
    for g in &api {
        assert_eq!(g.backend.as_deref(), Some("tensile"), "{g:?}");
        let row = tsv
            .iter()
            .find(|t| {
                t["api_or_backend"] == g.api
                    && t["m"] == g.m.to_string()
                    && t["n"] == g.n.to_string()
                    && t["k"] == g.k.to_string()
            })
            .unwrap_or_else(|| panic!("no TSV row for {g:?}"));
        assert_eq!(row["transA"], g.trans_a);
        assert_eq!(row["a_type"], g.types.a.clone().unwrap());
        assert_eq!(row["b_type"], g.types.b.clone().unwrap());
        for t in [&g.types.c, &g.types.d, &g.types.compute] {
            assert!(
                t.as_deref().is_some_and(rocpath_logs::rocblas::is_type),
                "{g:?}"
            );
        }
    }
    let ex = api
        .iter()
        .find(|g| g.api == "rocblas_gemm_ex" && g.m == 4096 && g.k == 2880)
        .unwrap();
    assert_eq!(ex.types.c.as_deref(), Some("bf16_r"));
    assert_eq!(ex.types.compute.as_deref(), Some("f32_r"));
    let b = api
        .iter()
        .find(|g| g.api == "rocblas_gemm_batched_ex")
        .unwrap();
    assert_eq!(b.batch_count, Some(64));
    assert_eq!(r.outcome.kind.as_str(), "natural");

    // The 42-byte traces of GGUF runs: a handle, no GEMM.
    let r = read(&dir.join("g4_rocblas_trace_tinyllama_latest_20260324_014707.log"));
    assert!(r.gemm_calls.is_empty());
    assert_eq!(r.api_calls.len(), 1);
    assert_eq!(r.api_calls[0].api, "rocblas_create_handle");
    assert_eq!(r.outcome.kind.as_str(), "undetermined");

    // The system rocBLAS without a gfx900 Tensile library.
    let r = read(&dir.join("runner-direct-info-init1-20260320_161533.log"));
    assert_eq!(r.outcome.kind.as_str(), "library_error");
    assert_eq!(
        r.outcome.sub_kind.as_deref(),
        Some("tensile_library_missing")
    );
    assert_eq!(
        r.device.as_ref().map(|d| d.arch.to_string()).as_deref(),
        Some("gfx900")
    );
    let e = r
        .errors
        .iter()
        .find(|e| e.kind == "tensile_library_missing")
        .unwrap();
    assert!(e.message.contains("TensileLibrary_lazy_gfx1030.dat"));
}

#[test]
fn every_mi25_file_reads() {
    let Some(dir) = fixtures("mi25-runs") else {
        return;
    };
    let mut n = 0;
    for ent in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = ent.path();
        let src = rocpath_case::case_source(&p).unwrap();
        let (r, errors) = rocpath_case::read_case(&src);
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
        assert!(r.outcome.evidence.rule.starts_with("case.outcome."));
        n += 1;
    }
    assert!(n > 100);
}
