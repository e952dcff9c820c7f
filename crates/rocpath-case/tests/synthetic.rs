//! The case reader on small synthetic logs written for these tests (shapes as documented in
//! MIOpen / rocBLAS / hipBLASLt sources): outcomes that the recorded fixtures do not cover,
//! and hostile input (CRLF, invalid UTF-8, huge lines).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_case::model::{CaseReport, Fate};

fn read(text: &[u8]) -> CaseReport {
    rocpath_case::read_bytes("t.log", &[("t.log", text)])
}

const NATURAL: &str = "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1 -t 1
MIOpen(HIP): Info [get_device_name] Raw device name: gfx900:xnack-
MIOpen(HIP): Info2 [FindRecord] Looking for key 64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F in file \"/db/gfx900_64.HIP.fdb.txt\"
MIOpen(HIP): Info2 [FindRecord] Key match: 64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F
MIOpen(HIP): Info2 [FindRecord] Contents found: miopenConvolutionFwdAlgoWinograd:ConvBinWinograd3x3U,0.676743,0,miopenConvolutionFwdAlgoWinograd,<unused>
MIOpen(HIP): Info2 [GetInvoker] Returning an invoker for problem 64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault and solver ConvBinWinograd3x3U
MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: miopenSp3AsmConv3x3F
MIOpen Forward Conv. Algorithm: 3, Solution: 14/ConvBinWinograd3x3U
";

#[test]
fn forced_mlir_is_a_miir_build_failure() {
    let r = read(b"MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -S ConvMlirIgemmFwd -F 1
MIOpen(HIP): Info [FindSolutionImpl] ConvMlirIgemmFwd
MIOpen(HIP): Info [FindSolutionImpl] Perf Db: record not found for: ConvMlirIgemmFwd
MIOpen Error: host:/src/rocm-libraries/projects/miopen/src/mlir_build.cpp:59: miirLowerTuningParams MIIR_INVALID_PARAM
RunForwardGPU() FAILED, rc = 0x7
__EXIT_CODE=7
");
    assert_eq!(r.outcome.kind.as_str(), "build_failure");
    assert_eq!(r.outcome.sub_kind.as_deref(), Some("miir"));
    let lines: Vec<u64> = r
        .outcome
        .evidence
        .sources
        .iter()
        .filter_map(|l| l.line)
        .collect();
    assert!(lines.contains(&4) && lines.contains(&5), "{lines:?}");
    let f = r.forced.unwrap();
    assert_eq!(
        (f.id, f.solver.as_str(), f.via.as_str()),
        (Some(98), "ConvMlirIgemmFwd", "driver_flag")
    );
    assert!(r.selected.is_none());
    assert_eq!(r.exit.code, Some(7));
}

#[test]
fn gpu_memory_fault() {
    let r = read(b"MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -S ConvAsmImplicitGemmV4R1DynamicFwd_1x1 -F 1
MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: igemm_v4r1_1x1_dynamic
Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f00. Reason: Page not present or supervisor privilege.
");
    assert_eq!(r.outcome.kind.as_str(), "gpu_fault");
    assert_eq!(r.outcome.evidence.sources[0].line, Some(3));
    assert_eq!(r.exit.code, None);
}

#[test]
fn natural_and_forced_success() {
    let r = read(NATURAL.as_bytes());
    assert_eq!(r.outcome.kind.as_str(), "natural");
    let s = r.selected.unwrap();
    assert_eq!(
        (s.solver_id, s.kernels),
        (Some(14), vec!["miopenSp3AsmConv3x3F".to_string()])
    );
    let forced = NATURAL.replace("-F 1 -t 1", "-F 1 -t 1 -S ConvBinWinograd3x3U");
    let r = read(forced.as_bytes());
    assert_eq!(r.outcome.kind.as_str(), "success");
    assert!(
        r.candidates
            .iter()
            .any(|c| c.solver == "ConvBinWinograd3x3U" && c.fate == Fate::Selected)
    );
    let by_id = NATURAL.replace("-F 1 -t 1", "-F 1 -t 1 -S 14");
    let r = read(by_id.as_bytes());
    assert_eq!(r.forced.unwrap().solver, "ConvBinWinograd3x3U");
    assert_eq!(r.outcome.kind.as_str(), "success");
}

#[test]
fn failed_solver_then_another_is_a_fallback() {
    let text = NATURAL.replace(
        "MIOpen Forward Conv.",
        "MIOpen(HIP): Info [FindSolutionImpl] ConvOclDirectFwd1x1\nMIOpen(HIP): Error [FindSolutionImpl] Search failed for: ConvOclDirectFwd1x1: /x/invoke_params.hpp:98: Attempt to cast\nMIOpen Forward Conv.",
    );
    let r = read(text.as_bytes());
    assert_eq!(r.outcome.kind.as_str(), "fallback_observed");
    assert!(
        r.candidates
            .iter()
            .any(|c| c.solver == "ConvOclDirectFwd1x1" && c.fate == Fate::Failed)
    );
}

#[test]
fn rocblas_backends_and_fallbacks() {
    let r = read(b"rocblas_create_handle,atomics_not_allowed
rocblas_gemm_ex,N,N,128,64,32,1,0x1,f16_r,128,0x2,f16_r,32,0,0x3,f16_r,128,0x3,f16_r,128,f32_r,0,0,none,atomics_not_allowed
rocBLAS warning: hipBlasLT failed, falling back to tensile.
rocblas_internal,rocblas_gemm_tensile_backend,N,N,128,64,32,1,0x1,128,0x2,32,0,0x3,128,0x3,128,atomics_not_allowed
rocblas_gemm_ex,N,N,128,64,32,1,0x1,f16_r,128,0x2,f16_r,32,0,0x3,f16_r,128,0x3,f16_r,128,f32_r,0,0,none,atomics_not_allowed
rocblas_internal,rocblas_gemm_tensile_backend,N,N,128,64,32,1,0x1,128,0x2,32,0,0x3,128,0x3,128,atomics_not_allowed
Running kernel: Cijk_Ailk_Bljk_HHS_BH_MT64x64x16_MI32x32x8x1_SN_GSU1_ISA942
");
    assert_eq!(r.gemm_calls.len(), 1);
    let g = &r.gemm_calls[0];
    assert_eq!((g.count, g.backend.as_deref()), (2, Some("tensile")));
    assert_eq!(g.types.compute.as_deref(), Some("f32_r"));
    assert_eq!(r.outcome.kind.as_str(), "fallback_observed");
    assert_eq!(r.fallbacks[0].kind, "hipblaslt_to_tensile");
    let k = &r.tensile_kernels[0];
    let d = k.decoded.as_ref().unwrap();
    assert_eq!((d.data_type.as_str(), d.hpa), ("f16", true));
    // No device named: matrix instruction, kind unresolved.
    assert_eq!(k.instruction_kind, "matrix_instruction");
}

#[test]
fn crlf_invalid_utf8_and_huge_lines() {
    let mut text: Vec<u8> = NATURAL.replace('\n', "\r\n").into_bytes();
    let mut junk = vec![b'x'; 3 << 20];
    junk.extend_from_slice(b"\xff\xfe\xfd \xe4\xb8\xad\xe6\xad\xa2\r\n");
    text.splice(0..0, junk);
    let r = read(&text);
    assert_eq!(r.files[0].truncated_lines, 1);
    assert_eq!(r.outcome.kind.as_str(), "natural");
    let s = r.selected.unwrap();
    assert_eq!(s.solver, "ConvBinWinograd3x3U");
    // Line numbers count the huge line.
    assert_eq!(s.evidence.sources[0].line, Some(9));
}

#[test]
fn incomplete_case_from_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let meta = rocpath_case::meta::CaseMeta {
        schema: rocpath_case::meta::META_SCHEMA.into(),
        status: rocpath_case::meta::RunStatus::Running,
        command_line: "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1"
            .into(),
        ..Default::default()
    };
    rocpath_case::run::write_meta(dir.path(), &meta).unwrap();
    std::fs::write(dir.path().join("stderr.log"), NATURAL).unwrap();
    let src = rocpath_case::case_source(dir.path()).unwrap();
    let (r, e) = rocpath_case::read_case(&src);
    assert!(e.is_empty());
    assert!(!r.complete);
    assert_eq!(r.outcome.kind.as_str(), "incomplete");
    // What was captured is still reported.
    assert_eq!(r.selected.unwrap().solver, "ConvBinWinograd3x3U");
}

#[test]
fn a_broken_case_json_is_an_error_with_its_line_and_the_logs_are_still_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("case.json"),
        "{\n  \"schema\": \"rocpath.case-run/1\",\n  oops\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("stderr.log"), NATURAL).unwrap();
    let src = rocpath_case::case_source(dir.path()).unwrap();
    let (r, e) = rocpath_case::read_case(&src);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        matches!(e[0], rocpath_case::CaseError::Meta { .. }),
        "{e:?}"
    );
    assert_eq!(e[0].path(), dir.path().join("case.json"));
    assert_eq!(e[0].line(), Some(3));
    let shown = e[0].to_string();
    assert!(
        shown.starts_with(&format!(
            "{}: not the runner's case.json record",
            e[0].path().display()
        )),
        "{shown}"
    );
    assert!(shown.contains("rocpath case run"), "{shown}");
    assert_eq!(r.selected.unwrap().solver, "ConvBinWinograd3x3U");
}

#[test]
fn a_missing_log_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = rocpath_case::CaseSource {
        name: "gone".into(),
        path: dir.path().to_path_buf(),
        meta: None,
        logs: vec![dir.path().join("gone.log")],
    };
    let (_, e) = rocpath_case::read_case(&src);
    assert_eq!(e.len(), 1);
    assert!(matches!(e[0], rocpath_case::CaseError::Io { .. }), "{e:?}");
    assert_eq!(e[0].path(), dir.path().join("gone.log"));
    assert_eq!((e[0].line(), e[0].offset()), (None, None));
    assert_eq!(
        e[0].to_string(),
        format!("{}: {}", e[0].path().display(), e[0].message())
    );
}

#[test]
fn a_fifo_named_as_a_case_is_refused_before_it_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("case.log");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "mkfifo is part of coreutils"
    );
    // Opening a FIFO without a writer would wait forever: the reader must not try.
    let src = rocpath_case::case_source(&fifo).unwrap();
    let (_, e) = rocpath_case::read_case(&src);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        matches!(
            e[0],
            rocpath_case::CaseError::NotRegular { what: "a FIFO", .. }
        ),
        "{e:?}"
    );
    assert!(
        e[0].to_string()
            .contains("case.log: not a regular file (a FIFO)")
    );
}

#[test]
fn tensile_library_missing() {
    let r = read(b"rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1201\n List of available TensileLibrary Files : \n\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx942.dat\"\n");
    assert_eq!(r.outcome.kind.as_str(), "library_error");
    assert_eq!(r.device.unwrap().arch.to_string(), "gfx1201");
    assert!(
        r.errors[0]
            .message
            .contains("TensileLibrary_lazy_gfx942.dat")
    );
}

#[test]
fn rocblas_bench_rows_with_types_and_bandwidth() {
    // Our own lines in rocblas-bench's shape: a gemm_ex row with type columns (newer
    // clients print them), then a bandwidth-bound function; a header whose values never
    // came is not a result, and a later line with as many fields is not paired with it.
    let log = b"Device ID 0 : AMD Radeon RX 9070 XT gfx1201\n\
transA,transB,M,N,K,alpha,lda,beta,ldb,ldc,ldd,batch_count,a_type,b_type,c_type,d_type,compute_type,rocblas-Gflops,us\n\
T,N,4096,512,2880,1,2880,0,2880,4096,4096,1,bf16_r,bf16_r,bf16_r,bf16_r,f32_r,10234.5,1180.2\n\
\n\
N,incx,incy,rocblas-GB/s,us\n\
1048576,1,1,402.1,31.3\n\
transA,M,N,rocblas-Gflops,us\n\
rocBLAS info: a line in between\n\
N,8,8,1.0,2.0\n";
    let r = read(log);
    assert_eq!(r.bench_results.len(), 2);
    assert_eq!(r.bench_results[0].rate, Some(10234.5));
    assert_eq!(
        r.bench_results[1].rate_unit.as_deref(),
        Some("rocblas-GB/s")
    );
    assert_eq!(r.bench_results[1].rate, Some(402.1));
    assert_eq!(r.bench_results[1].norm_error, None);
    let g = &r.gemm_calls[0];
    assert_eq!((g.m, g.n, g.k), (4096, 512, 2880));
    assert_eq!(g.types.compute.as_deref(), Some("f32_r"));
    assert_eq!(g.evidence.rule, "case.gemm.rocblas_bench_result");
    assert_eq!(g.types.a.as_deref(), Some("bf16_r"));
    assert_eq!(r.outcome.kind.as_str(), "natural");
    assert!(
        r.outcome
            .reason
            .contains("rocblas-bench completed 2 call(s)"),
        "{}",
        r.outcome.reason
    );
}

/// A Find that evaluates ConvDirectNaiveConvFwd, then GemmFwdRest, and chooses GemmFwdRest:
/// the naive kernel ran while GemmFwdRest was the solver in context (its `FindSolutionImpl`
/// line came last), but it is ConvDirectNaiveConvFwd's. Shapes from the real Vega64 log
/// `vega64_fp32_nchw_group2_3x3.log`. Before, the selected solver listed `naive_k` too.
#[test]
fn find_kernels_belong_to_the_solver_evaluated() {
    let r = read(b"MIOpen(HIP): Info [FindConvolution] Find Start: 64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F, findMode: NORMAL(1)
MIOpen(HIP): Info [FindSolutionImpl] ConvDirectNaiveConvFwd (not searchable)
MIOpen(HIP): Info [FindSolutionImpl] GemmFwdRest (not searchable)
MIOpen(HIP): Info2 [PrepareInvoker] Preparing kernel: naive_k
MIOpen(HIP): Info2 [run] kernel_name = naive_k, global_work_dim = { 1, 1, 1 }, local_work_dim = { 1, 1, 1 }
MIOpen(HIP): Info [EvaluateInvokers] ConvDirectNaiveConvFwd: naive_k: 19.6707 < 3.40282e+38
MIOpen(HIP): Info2 [run] kernel_name = Im2d2Col_v2, global_work_dim = { 1, 1, 1 }, local_work_dim = { 1, 1, 1 }
MIOpen(HIP): Info [EvaluateInvokers] Selected: GemmFwdRest: : 6.72696, workspace_sz = 7225344
MIOpen(HIP): Info2 [run] kernel_name = orphan_k, global_work_dim = { 1, 1, 1 }, local_work_dim = { 1, 1, 1 }
MIOpen(HIP): Info [FindConvolution] Find Ended: 64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F
MIOpen(HIP): Info [FillFindReturnParameters] FW Chosen Algorithm: GemmFwdRest , 7225344, 6.72696
MIOpen(HIP): Info2 [GetInvoker] Returning an invoker for problem 64x56x56x3x3x64x56x56x32xNCHWxFP32x1x1x1x1x1x1x1xFxDefault and solver GemmFwdRest
MIOpen(HIP): Info2 [run] kernel_name = Im2d2Col_v2, global_work_dim = { 1, 1, 1 }, local_work_dim = { 1, 1, 1 }
");
    let sel = r.selected.as_ref().unwrap();
    assert_eq!(sel.solver, "GemmFwdRest");
    assert_eq!(sel.kernels, vec!["Im2d2Col_v2".to_string()]);
    let kernels = |s: &str| {
        r.candidates
            .iter()
            .find(|c| c.solver == s)
            .map(|c| c.kernels.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        kernels("ConvDirectNaiveConvFwd"),
        vec!["naive_k".to_string()]
    );
    assert_eq!(kernels("GemmFwdRest"), vec!["Im2d2Col_v2".to_string()]);
    // A kernel no evaluation line claims is kept apart, at its line.
    let n = r
        .notes
        .iter()
        .find(|n| n.message.contains("orphan_k"))
        .unwrap();
    assert_eq!(n.evidence.rule, "case.note.find_kernel_unclaimed");
    assert_eq!(n.evidence.class.as_str(), "unresolved");
    assert_eq!(n.evidence.sources[0].line, Some(9));
}

/// `case read FOLDER` on a folder of several cases (the research layout: `<case>.log` with
/// `<case>.meta.txt`): each case is read on its own. Before, the folder was one case made of
/// every log in it — the forced solver of one, the outcome of another.
#[test]
fn a_folder_of_cases_is_read_case_by_case() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("a_forced.meta.txt"),
        "case_id=a_forced\ncommand=MIOpenDriver convint8 -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -S ConvCkIgemmFwdV6r1DlopsNchw -F 1\n",
    )
    .unwrap();
    std::fs::write(
        d.join("a_forced.log"),
        "MIOpen Error: host:/src/miopen/src/ocl/convolutionocl.cpp:1057: The supplied solution id: ConvCkIgemmFwdV6r1DlopsNchw is not applicable to the current problem\nRunForwardGPU() FAILED, rc = 0x3\n__EXIT_CODE=3\n",
    )
    .unwrap();
    std::fs::write(
        d.join("b_natural.meta.txt"),
        "case_id=b_natural\ncommand=MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -F 1 -t 1\n",
    )
    .unwrap();
    std::fs::write(d.join("b_natural.log"), NATURAL).unwrap();
    let cases = rocpath_case::cases_at(d).unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["a_forced", "b_natural"]);
    let reports: Vec<CaseReport> = cases.iter().map(|c| rocpath_case::read_case(c).0).collect();
    assert_eq!(reports[0].outcome.kind.as_str(), "applicability_reject");
    assert!(reports[0].selected.is_none());
    assert_eq!(reports[1].outcome.kind.as_str(), "natural");
    assert!(reports[1].forced.is_none());
    // A folder of bare logs (no sidecars, no sub-cases) is still one case, and a case folder
    // with case.json is one case.
    let one = tempfile::tempdir().unwrap();
    std::fs::write(one.path().join("stdout.log"), NATURAL).unwrap();
    std::fs::write(one.path().join("stderr.log"), "").unwrap();
    assert_eq!(rocpath_case::cases_at(one.path()).unwrap().len(), 1);
}

/// A C-API probe whose immediate forward call failed is a library error at that line; a
/// `KEY=VALUE` line that is no probe key (an environment dump) makes no probe block.
#[test]
fn capi_forward_failure_and_stray_key_values() {
    let r = read(b"solution_count=1\nsolution[0] id=85 algo=1 ws=0 time=1000\ncompile_solution_85=success\nforward_immediate_85=miopenStatusUnknownError\n");
    assert_eq!(r.outcome.kind.as_str(), "library_error");
    assert_eq!(r.outcome.sub_kind.as_deref(), Some("capi_forward_failed"));
    assert_eq!(r.outcome.evidence.sources[0].line, Some(4));
    assert_eq!(
        r.forced.as_ref().map(|f| f.via.as_str()),
        Some("capi_immediate")
    );
    let r = read(format!("MIOPEN_LOG_LEVEL=6\nreturned_value=3\n{NATURAL}").as_bytes());
    assert!(r.capi_blocks.is_empty());
    assert_eq!(r.outcome.kind.as_str(), "natural");
}

/// hipblaslt-bench lines keep their own rule; rocblas-bench rows carry theirs.
#[test]
fn gemm_rules_name_their_source() {
    let r = read(b"hipblaslt-bench --api_method c -m 512 -n 1024 -k 2880 --lda 2880 --transA T --transB N --batch_count 1 --a_type f16_r --b_type f16_r --c_type f16_r --d_type f16_r --compute_type f32_r\n");
    assert_eq!(r.gemm_calls[0].source, "hipblaslt_bench");
    assert_eq!(r.gemm_calls[0].evidence.rule, "case.gemm.hipblaslt_bench");
}

/// The fuzz seeds of `case_read` (`fuzz/seeds/case_read/`) are the hostile cases above: each
/// still reads as the tests say.
#[test]
fn fuzz_seeds_read_as_expected() {
    let dir = rocpath_testdata::repo_root().join("fuzz/seeds/case_read");
    let seed = |n: &str| read(&std::fs::read(dir.join(n)).unwrap());
    let r = seed("find_kernels_of_other_solvers.log");
    assert_eq!(r.selected.unwrap().kernels, vec!["Im2d2Col_v2".to_string()]);
    let r = seed("capi_key_value_probe.log");
    assert_eq!(r.outcome.sub_kind.as_deref(), Some("capi_forward_failed"));
    let r = seed("capi_blocks_probe.log");
    assert_eq!(r.outcome.sub_kind.as_deref(), Some("capi_query"));
    assert_eq!(r.capi_blocks.len(), 2);
    assert!(!r.capi_blocks[0].steps[0].ok);
    assert!(r.capi_blocks[1].steps.iter().all(|s| s.ok));
}
