#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `rocpath explain gemm` on the example catalog (`examples/gemm/library`, see
//! `examples/README.md`): one call as people read it, a sweep over shapes × devices, the JSON
//! document's shape, a bench line, the reverse lookup of a kernel, and usage errors.

use assert_cmd::Command;
use serde_json::Value;

const LIB: &str = "examples/gemm/library";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("rocpath")
        .unwrap()
        .current_dir(rocpath_testdata::repo_root())
        .env("COLUMNS", "100")
        .arg("--no-progress")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    s
}

/// A JSON value's shape: keys kept, values replaced by their type, arrays by their first item.
pub(crate) fn shape(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(a) => Value::Array(a.first().map(shape).into_iter().collect()),
        Value::String(_) => Value::String("string".into()),
        Value::Number(_) => Value::String("number".into()),
        Value::Bool(_) => Value::String("bool".into()),
        Value::Null => Value::Null,
    }
}

#[test]
fn one_call_shows_route_walk_choice_and_code_object() {
    let (code, out, err) = run(&[
        "explain", "gemm", LIB, "--target", "gfx906", "--cu", "60", "--m", "1000", "--n", "1024",
        "--k", "1024",
    ]);
    assert_eq!(code, 0, "{err}");
    // M = 1000 is not a multiple of 64: the nearest entry's gemm_tile is rejected, saxpy fits.
    assert!(out.contains("chosen    saxpy"), "{out}");
    settings().bind(|| insta::assert_snapshot!("cli_explain_gemm", out));
}

#[test]
fn a_sweep_puts_devices_side_by_side() {
    let (code, out, err) = run(&[
        "explain",
        "gemm",
        LIB,
        "--target",
        "gfx906,gfx900",
        "--cu",
        "60",
        "--shape",
        "1024x1024x1024,1000x1000x1000",
    ]);
    // gfx900 has no catalog in this folder: a negative answer, exit 1.
    assert_eq!(code, 1, "{err}");
    settings().bind(|| insta::assert_snapshot!("cli_explain_gemm_sweep", out));
}

#[test]
fn the_json_document() {
    let (code, out, err) = run(&[
        "--json", "explain", "gemm", LIB, "--target", "gfx906", "--cu", "60", "--m", "1024", "--n",
        "1024", "--k", "1024",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "rocpath.explain.gemm/1");
    reads_back(&v);
    let e = &v["explanations"][0];
    assert_eq!(e["chosen"]["name"], "gemm_tile");
    assert_eq!(e["chosen"]["index"], 0);
    assert_eq!(e["chosen"]["code_object"]["present"], true);
    assert_eq!(e["chosen"]["evidence"]["class"], "inferred");
    let mut doc = v.clone();
    doc["observed"] = Value::Null;
    let text = serde_json::to_string_pretty(&shape(&doc)).unwrap();
    settings().bind(|| insta::assert_snapshot!("cli_explain_gemm_json_shape", text));
}

#[test]
fn a_bench_line_is_a_call() {
    let (code, out, err) = run(&[
        "--json",
        "explain",
        "gemm",
        LIB,
        "--target",
        "gfx906",
        "--cu",
        "60",
        "--line",
        "./rocblas-bench -f gemm -r f32_r --transposeA N --transposeB N -m 256 -n 256 -k 256 --alpha 1 --lda 256 --ldb 256 --beta 0 --ldc 256",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["explanations"][0]["chosen"]["name"], "gemm_tile");
    assert_eq!(v["explanations"][0]["chosen"]["distance"], 0.0);
}

#[test]
fn a_kernel_is_found_with_the_sizes_it_was_tuned_for() {
    let (code, out, err) = run(&["--json", "explain", "gemm", LIB, "--kernel", "gemm_tile"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let sizes = &v["entries"][0]["tuned_sizes"];
    assert_eq!(sizes.as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!(sizes[0], serde_json::json!([256, 256, 256]));
}

#[test]
fn usage_errors_say_what_to_write() {
    let (code, _, err) = run(&[
        "explain", "gemm", LIB, "--target", "gfx906", "--m", "1", "--n", "1", "--k", "1", "--type",
        "f8",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("use f32, f64, f16, bf16, i8, xf32, c32 or c64"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "explain",
        "gemm",
        "examples/nowhere",
        "--target",
        "gfx906",
        "--m",
        "1",
        "--n",
        "1",
        "--k",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not a folder"), "{err}");
    let (code, _, err) = run(&["explain", "gemm", LIB, "--target", "gfx906"]);
    assert_eq!(code, 2);
    assert!(err.contains("--shape"), "{err}");
}

#[test]
fn traced_kernels_are_attributed_to_catalog_entries() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("k_kernel_trace.csv");
    std::fs::write(
        &csv,
        "\"Kind\",\"Agent_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n\
         \"KERNEL_DISPATCH\",1,1,\"gemm_tile\",100,200\n\
         \"KERNEL_DISPATCH\",1,1,\"gemm_tile\",300,400\n\
         \"KERNEL_DISPATCH\",1,2,\"Cijk_Ailk_Bljk_SB_MT64x64x8_SN_elsewhere\",500,600\n",
    )
    .unwrap();
    let (code, trace, err) = run(&["--json", "trace", csv.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let doc = dir.path().join("trace.json");
    std::fs::write(&doc, trace).unwrap();
    let (code, out, err) = run(&[
        "--json",
        "explain",
        "gemm",
        LIB,
        "--attribute",
        doc.to_str().unwrap(),
    ]);
    // One Tensile kernel is not in the example's catalogs: a negative answer.
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let a = v["attributions"].as_array().unwrap();
    assert_eq!(a.len(), 2, "{v}");
    let tile = a.iter().find(|x| x["kernel"] == "gemm_tile").unwrap();
    assert_eq!(tile["dispatches"], 2);
    assert_eq!(tile["entries"][0]["index"], 0);
    let other = a.iter().find(|x| x["kernel"] != "gemm_tile").unwrap();
    assert_eq!(other["entries"].as_array().map(Vec::len), Some(0));
    assert_eq!(
        other["evidence"]["rule"],
        "explain.gemm.kernel_not_in_catalogs"
    );
}

fn hipblaslt_corpus() -> Option<String> {
    rocpath_testdata::corpus_path(
        "libhipblaslt1",
        "usr/lib/x86_64-linux-gnu/hipblaslt/library",
    )
    .map(|d| d.display().to_string())
}

#[test]
fn a_hipblaslt_folder_answers_the_heuristic_query() {
    let Some(lib) = hipblaslt_corpus() else {
        return;
    };
    let (code, out, err) = run(&[
        "explain", "gemm", &lib, "--target", "gfx1201", "--m", "1024", "--n", "1024", "--k",
        "1024", "--type", "f16",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hipBLASLt matmul NN M=1024"), "{out}");
    assert!(out.contains("index 58482"), "{out}");
    assert!(out.contains("present, defines the kernel"), "{out}");
    assert!(out.contains("explain.gemm.hipblaslt.chosen"), "{out}");
    // gfx1100 f64: only exact tuned sizes; any other size is filled in, in memory order.
    let (code, out, _) = run(&[
        "--json", "explain", "gemm", &lib, "--target", "gfx1100", "--m", "100", "--n", "100",
        "--k", "100", "--type", "f64",
    ]);
    // Unresolved, like any answer the model cannot give: exit 2.
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(&out).unwrap();
    reads_back(&v);
    let e = &v["explanations"][0];
    assert_eq!(e["outcome"], "unresolved");
    assert_eq!(e["call"]["api"], "hipblaslt_matmul");
    assert_eq!(e["hipblaslt"]["fill_in"]["run_dependent"], true);
    assert_eq!(
        e["evidence"]["rule"],
        "explain.gemm.hipblaslt.run_dependent"
    );
}

#[test]
fn a_tensilelite_switch_the_model_does_not_follow_is_unresolved_by_name() {
    let Some(lib) = hipblaslt_corpus() else {
        return;
    };
    let args = |env: &str| {
        vec![
            "--json".to_string(),
            "explain".into(),
            "gemm".into(),
            lib.clone(),
            "--target".into(),
            "gfx1201".into(),
            "--m".into(),
            "1024".into(),
            "--n".into(),
            "1024".into(),
            "--k".into(),
            "1024".into(),
            "--type".into(),
            "f16".into(),
            "--env".into(),
            env.into(),
        ]
    };
    let go = |env: &str| {
        let a = args(env);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        run(&refs)
    };
    let (code, out, err) = go("TENSILE_GRIDBASED_KDTREE=1");
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("not a variable"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let e = &v["explanations"][0];
    assert_eq!(e["outcome"], "unresolved");
    assert!(
        e["unresolved"]
            .as_str()
            .is_some_and(|w| w.contains("TENSILE_GRIDBASED_KDTREE=1")),
        "{e}"
    );
    // Set to 0 it leaves the default selection: the usual answer.
    let (code, out, err) = go("TENSILE_GRIDBASED_KDTREE=0");
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["explanations"][0]["outcome"], "chosen");
}

#[test]
fn rocblas_routes_gfx1201_to_hipblaslt_and_shows_its_choice() {
    let Some(lib) = hipblaslt_corpus() else {
        return;
    };
    // The example rocBLAS folder has no gfx1201 catalog: hipBLASLt answers, Tensile would abort.
    let (code, out, err) = run(&[
        "--json", "explain", "gemm", LIB, &lib, "--target", "gfx1201", "--m", "1024", "--n",
        "1024", "--k", "1024", "--type", "f16",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    reads_back(&v);
    let e = &v["explanations"][0];
    assert_eq!(e["backend"], "hipblaslt");
    assert_eq!(e["outcome"], "chosen");
    assert_eq!(e["call"]["api"], "gemm");
    assert_eq!(e["hipblaslt"]["outcome"], "chosen");
    assert_eq!(e["hipblaslt"]["matmul"]["compute"], "f16");
}

#[test]
fn a_hipblaslt_folder_without_the_processors_master_is_no_catalog() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().display().to_string();
    let (code, out, err) = run(&[
        "explain",
        "gemm",
        &dir,
        "--library",
        "hipblaslt",
        "--target",
        "gfx1201",
        "--m",
        "64",
        "--n",
        "64",
        "--k",
        "64",
        "--type",
        "f16",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("no_catalog"), "{out}");
    assert!(out.contains("TensileLibrary_lazy_gfx1201.dat"), "{out}");
    let (code, _, err) = run(&[
        "explain",
        "gemm",
        &dir,
        "--library",
        "hipblaslt",
        "--target",
        "gfx1201",
        "--line",
        "./rocblas-bench -f gemm -r f32_r -m 4 -n 4 -k 4",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--line describes a rocBLAS call"), "{err}");
}

/// A master catalog that is there but does not load is `unresolved` with the reason — not
/// `no_catalog`, which says the processor has none.
#[test]
fn a_master_catalog_that_does_not_load_is_unresolved_not_no_catalog() {
    let d = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(rocpath_testdata::repo_root().join(LIB)).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, d.path().join(p.file_name().unwrap())).unwrap();
    }
    let master = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("TensileLibrary_lazy_gfx906"))
        .expect("the example has a gfx906 master");
    std::fs::write(&master, b"\xde\xad not msgpack").unwrap();
    let dir = d.path().display().to_string();
    let (_, out, err) = run(&[
        "--json", "explain", "gemm", &dir, "--target", "gfx906", "--cu", "60", "--m", "64", "--n",
        "64", "--k", "64",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    reads_back(&v);
    let e = &v["explanations"][0];
    assert_eq!(e["outcome"], "unresolved", "{e}");
    assert_eq!(e["evidence"]["class"], "unresolved", "{e}");
    assert_eq!(e["evidence"]["rule"], "explain.gemm.unresolved", "{e}");
}

/// The document reads back as its type (what the ledger reads), all but the GEMM model's own
/// derived values (its Tensile and TensileLite problems, its walks), which it skips.
fn reads_back(v: &Value) {
    type Doc = rocpath_gemm::doc::GemmDoc<Vec<rocpath_gemm::doc::GemmExplanation>>;
    crate::doc_contract::reads_back_except::<Doc>(v.clone(), &["problem", "walk"]);
}
