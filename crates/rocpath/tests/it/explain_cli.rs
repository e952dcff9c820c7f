#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `rocpath explain` end to end: the shipped gfx900 find-db, the ggml rules, bad input.

use assert_cmd::Command;

fn rocpath() -> Command {
    Command::cargo_bin("rocpath").unwrap()
}

/// The JSON document a run printed, after checking its exit code (stderr shown if not).
fn json_with_code(out: &std::process::Output, code: i32) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn miopen_json_predicts_from_the_shipped_find_db() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::missing("shared data not found");
        return;
    };
    let db = shared.join("data/miopen-db");
    let out = rocpath()
        .args([
            "--json",
            "explain",
            "miopen",
            "--target",
            "gfx900:xnack-",
            "--cu",
            "64",
            "--db",
        ])
        .arg(&db)
        .args([
            "--",
            "MIOpenDriver",
            "conv",
            "-n",
            "32",
            "-c",
            "64",
            "-H",
            "56",
            "-W",
            "56",
            "-k",
            "64",
        ])
        .args([
            "-y", "3", "-x", "3", "-p", "1", "-q", "1", "-F", "1", "-t", "1",
        ])
        .output()
        .unwrap();
    let v = json_with_code(&out, 0);
    assert_eq!(v["schema"], "rocpath.explain.miopen/1");
    assert_eq!(
        v["problem_key"],
        "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F"
    );
    assert_eq!(v["record_found"], true);
    assert_eq!(v["predicted"]["solver"], "ConvBinWinograd3x3U");
    assert_eq!(v["ranked"][0]["time_ms"], 0.676743);
    // No record: exit 1 and an unresolved statement.
    let out = rocpath()
        .args([
            "--json", "explain", "miopen", "--target", "gfx900", "--cu", "64", "--db",
        ])
        .arg(&db)
        .args([
            "--problem",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8-F",
        ])
        .output()
        .unwrap();
    // At 2d1fd997 IsInt8() wants an int32/float output: nothing applies, Find fails.
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["predicted"].is_null());
    assert_eq!(v["failure"]["failure"], "no_solution");
    assert_eq!(v["failure"]["evidence"]["class"], "inferred");
    // With MIOpen 3.5.1's IsInt8 the naive solver is the only one left.
    let out = rocpath()
        .args([
            "--json",
            "explain",
            "miopen",
            "--target",
            "gfx900:xnack-",
            "--cu",
            "64",
            "--release",
            "3.5.1",
            "--db",
        ])
        .arg(&db)
        .args([
            "--problem",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-INT8-F",
        ])
        .output()
        .unwrap();
    let v = json_with_code(&out, 0);
    assert_eq!(v["predicted"]["solver"], "ConvDirectNaiveConvFwd");
    assert_eq!(
        v["predicted"]["evidence"]["rule"],
        "explain.miopen.only_applicable"
    );
    let naive = v["solvers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == 85)
        .unwrap();
    assert_eq!(naive["applicability"], "applicable");
    let xdl = v["solvers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["solver"] == "ConvHipImplicitGemmFwdXdlops")
        .unwrap();
    assert_eq!(xdl["applicability"], "not_applicable");
    assert!(
        xdl["decided_at"]["at"]
            .as_str()
            .unwrap()
            .starts_with("src/solver/conv/conv_hip_implicit_gemm_fwd_xdlops.cpp:289@2d1fd997")
    );
}

#[test]
fn miopen_forced_solver_and_any_target_without_databases() {
    // A forced DLOPS solver: the workspace query rejects it (rc 0x3), no db needed.
    let out = rocpath()
        .args(["--json", "explain", "miopen", "--target", "gfx900:xnack-", "--release", "3.5.1", "--db", "/nonexistent", "--"])
        .args("MIOpenDriver convint8 -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1 -S ConvCkIgemmFwdV6r1DlopsNchw".split(' '))
        .output()
        .unwrap();
    let v = json_with_code(&out, 1);
    assert_eq!(v["failure"]["failure"], "rejected_not_applicable");
    // Without --release the driver's problem is the pinned checkout's (an int32 output, which
    // its IsInt8 accepts): the naive solver is in the fallback, so the count passes and the
    // workspace query rejects the forced solver, as under 3.5.1.
    let out = rocpath()
        .args(["--json", "explain", "miopen", "--target", "gfx900:xnack-", "--db", "/nonexistent", "--"])
        .args("MIOpenDriver convint8 -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1 -S ConvCkIgemmFwdV6r1DlopsNchw".split(' '))
        .output()
        .unwrap();
    let v = json_with_code(&out, 1);
    assert_eq!(v["failure"]["failure"], "rejected_not_applicable", "{v}");
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("/nonexistent: no such folder")
    );
    // gfx1201 in text: the table names the naive solver and GEMM, and --all lists every solver.
    let out = rocpath()
        .args([
            "explain",
            "miopen",
            "--target",
            "gfx1201",
            "--all",
            "--vram",
            "16G",
            "--db",
            "/nonexistent",
        ])
        .args([
            "--problem",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ConvDirectNaiveConvFwd") && text.contains("GemmFwdRest"),
        "{text}"
    );
    assert!(
        text.contains("ConvBinWinograd3x3U"),
        "--all lists rejected solvers too"
    );
    assert!(text.contains("conv_bin_wino3x3U.cpp:"), "{text}");
    // An unknown solver name is a usage error.
    let out = rocpath()
        .args([
            "explain",
            "miopen",
            "--target",
            "gfx900",
            "--db",
            "/nonexistent",
            "--",
        ])
        .args("MIOpenDriver conv -n 1 -F 1 -S NoSuchSolver".split(' '))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NoSuchSolver"));
    // A bad size.
    let out = rocpath()
        .args([
            "explain",
            "miopen",
            "--target",
            "gfx900",
            "--vram",
            "lots",
            "--problem",
            "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ggml_json_and_bad_input() {
    let out = rocpath()
        .args([
            "--json", "explain", "ggml", "--target", "gfx1201", "--type", "q4_K", "--ne11", "512",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["path"], "mmq");
    assert!(v["at"].as_str().unwrap().contains("mmq.cu:373"));
    let out = rocpath()
        .args(["explain", "ggml", "--target", "gfx9999", "--type", "q4_K"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = rocpath()
        .args([
            "explain",
            "miopen",
            "--target",
            "gfx900",
            "--problem",
            "not-a-key",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compare_a_real_mi25_trace_with_the_ggml_rules() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::missing("shared data not found");
        return;
    };
    let csv = shared.join(
        "fixtures/mi25-runs/rocprofv3_probe_qwen2.5_7b_20260324_020303/hbmx-mi25/3284537_kernel_trace.csv",
    );
    if !csv.exists() {
        rocpath_testdata::missing("MI25 trace not found");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let doc = t.path().join("trace.json");
    let out = rocpath()
        .args(["--json", "--no-progress", "trace"])
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    std::fs::write(&doc, &out.stdout).unwrap();

    // The CSV names no device: without --target nothing is compared (exit 2, said why).
    let out = rocpath()
        .args(["--no-progress", "explain", "--compare"])
        .arg(&doc)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--target"));

    let out = rocpath()
        .args([
            "--json",
            "--no-progress",
            "explain",
            "--target",
            "gfx900",
            "--compare",
        ])
        .arg(&doc)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    type Kernels = rocpath_docs::compare::KernelComparison<serde_json::Value>;
    crate::doc_contract::reads_back::<rocpath_docs::compare::ComparisonsDoc<Vec<Kernels>>>(
        v.clone(),
    );
    let c = v["comparisons"].as_array().unwrap();
    // Decode-size MMVQ for Q4_K and Q6_K agrees with the rules; the dense MMQ kernels the
    // application ran are not what the pinned ggml chooses on gfx900 (MoE only): a
    // disagreement and an open question, exit 1.
    let mmvq: Vec<_> = c.iter().filter(|x| x["observed"] == "mmvq").collect();
    assert!(!mmvq.is_empty() && mmvq.iter().all(|x| x["verdict"] == "agree"));
    let mmq: Vec<_> = c.iter().filter(|x| x["observed"] == "mmq").collect();
    assert_eq!(mmq.len(), 2);
    assert!(
        mmq.iter()
            .all(|x| x["verdict"] == "disagree" && x["question"].is_string())
    );
    assert_eq!(
        mmq.iter()
            .map(|x| x["dispatches"].as_u64().unwrap())
            .sum::<u64>(),
        193
    );
    assert_eq!(out.status.code(), Some(1));

    // Imported into a ledger, each disagreement becomes an open question.
    let cmp = t.path().join("compare.json");
    std::fs::write(&cmp, &out.stdout).unwrap();
    let l = t.path().join("ledger");
    assert!(
        rocpath()
            .args(["ledger", "init"])
            .arg(&l)
            .output()
            .unwrap()
            .status
            .success()
    );
    let out = rocpath()
        .args(["--json", "ledger", "import"])
        .arg(&l)
        .arg(&cmp)
        .args(["--as", "mi25-compare"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let q = v
        .pointer("/imported/0/questions_created")
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(q.len(), 2, "{v}");
    let text =
        std::fs::read_to_string(l.join(format!("questions/{}.toml", q[0].as_str().unwrap())))
            .unwrap();
    assert!(text.contains("mmq") && text.contains("gfx900"), "{text}");
    let out = rocpath()
        .args(["ledger", "check"])
        .arg(&l)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn miopen_kernel_cache_names_what_compiles_on_the_first_run() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let cache = tmp.path().join("cache/3.4.0.0");
    std::fs::create_dir_all(&db).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    let run = |t: &std::path::Path| {
        let out = rocpath()
            .args([
                "--json", "explain", "miopen", "--target", "gfx1201", "--cu", "32", "--db",
            ])
            .arg(&db)
            .arg("--user-cache")
            .arg(t)
            .args([
                "--",
                "MIOpenDriver",
                "conv",
                "-n",
                "1",
                "-c",
                "8",
                "-H",
                "8",
                "-W",
                "8",
                "-k",
                "8",
                "-F",
                "1",
            ])
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        assert!(
            code == 0 || code == 1,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = run(&tmp.path().join("cache"));
    let k = &v["kernel_cache"];
    assert_eq!(k["databases"].as_array().unwrap().len(), 0);
    assert_eq!(
        k["first_run"]["evidence"]["rule"],
        "explain.miopen.kernels_compile_first_run"
    );
    // The committed kernel database (real gfx1201 code objects) as the user cache.
    let kdb =
        rocpath_testdata::repo_root().join("crates/rocpath-sources/tests/data/gfx1201_32.kdb");
    std::fs::copy(kdb, cache.join("gfx1201_32.ukdb")).unwrap();
    let v = run(&tmp.path().join("cache"));
    let k = &v["kernel_cache"];
    assert_eq!(k["databases"][0]["role"], "user");
    assert_eq!(k["databases"][0]["kernels"], 2);
    assert_eq!(k["first_run"]["evidence"]["class"], "unresolved");
}

fn rocblas_corpus() -> Option<std::path::PathBuf> {
    rocpath_testdata::corpus_path(
        "librocblas4",
        "usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library",
    )
}

/// The recorded Vega64 1x1 case (vega64_fp32_nchw_1x1_fwd_n32): GemmFwd1x1_0_1 issues one
/// `rocblas_gemm_strided_batched_ex` (NN 3136×64×64, batch 32), and on Debian's rocBLAS the
/// GEMM model names the kernel it takes, the same one `explain gemm` gives for that call.
#[test]
fn miopen_names_the_gemm_and_its_kernel() {
    let Some(lib) = rocblas_corpus() else {
        return;
    };
    let conv = "MIOpenDriver conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -F 1";
    let out = rocpath()
        .args([
            "--json",
            "explain",
            "miopen",
            "--target",
            "gfx900:xnack-",
            "--cu",
            "64",
        ])
        .args(["--db", "/nonexistent", "--rocblas-library"])
        .arg(&lib)
        .arg("--")
        .args(conv.split_whitespace())
        .output()
        .unwrap();
    let v = json_with_code(&out, 1);
    let g = v["gemms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["solver"] == "GemmFwd1x1_0_1")
        .unwrap();
    let c = &g["call"];
    assert_eq!(c["api"], "gemm_strided_batched_ex");
    assert_eq!(c["trans"], serde_json::json!(["N", "N"]));
    assert_eq!(
        (c["m"].as_i64(), c["n"].as_i64(), c["k"].as_i64()),
        (Some(3136), Some(64), Some(64))
    );
    assert_eq!(c["stride"], serde_json::json!([200704, 0, 200704, 200704]));
    assert_eq!(c["batch"], 32);
    assert_eq!(g["evidence"]["rule"], "explain.miopen.gemm_issued");
    assert_eq!(g["evidence"]["kind"], "code_verified");
    let k = &g["kernel"];
    assert_eq!(k["outcome"], "chosen", "{k}");
    assert_eq!(k["evidence"]["kind"], "shipped_artifact_verified");
    let name = k["name"].as_str().unwrap();
    assert!(name.starts_with("Cijk_Ailk_Bljk_SB_"), "{name}");
    // The same call through `explain gemm`.
    let out = rocpath()
        .args(["--json", "explain", "gemm"])
        .arg(&lib)
        .args(["--target", "gfx900:xnack-", "--cu", "64", "--line"])
        .arg(
            "./rocblas-bench -f gemm_strided_batched_ex -r f32_r --compute_type f32_r \
             --transposeA N --transposeB N -m 3136 -n 64 -k 64 --lda 3136 --ldb 64 --ldc 3136 \
             --ldd 3136 --stride_a 200704 --stride_b 0 --stride_c 200704 --stride_d 200704 \
             --batch_count 32 --alpha 1 --beta 0",
        )
        .output()
        .unwrap();
    let e = json_with_code(&out, 0);
    let chosen = &e["explanations"][0]["chosen"];
    assert_eq!(chosen["name"].as_str(), Some(name));
    assert_eq!(chosen["index"], k["index"]);
}

#[test]
fn miopen_without_a_rocblas_folder_says_so() {
    let out = rocpath()
        .env("ROCBLAS_TENSILE_LIBPATH", "/nonexistent/rocblas/library")
        .args([
            "--json", "explain", "miopen", "--target", "gfx900", "--cu", "64", "--vram", "8G",
            "--db",
        ])
        .args([
            "/nonexistent",
            "--",
            "MIOpenDriver",
            "conv",
            "-n",
            "4",
            "-c",
            "8",
            "-H",
            "8",
        ])
        .args([
            "-W", "8", "-k", "8", "-y", "3", "-x", "3", "-p", "1", "-q", "1", "-F", "1",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = v["gemms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["solver"] == "GemmFwdRest")
        .unwrap();
    assert_eq!(g["times"], 4);
    assert_eq!(g["per"], "image");
    assert_ne!(g["kernel"]["outcome"], "chosen");
}
