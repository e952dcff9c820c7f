#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Snapshots of what the readers of recordings print for people, and the shape of each JSON
//! document, on the real recordings of `shared/fixtures` (run from that folder with relative
//! paths, so the text does not depend on where the checkout is): `case read`, `explain
//! --compare`, `trace`, `strace`, `ollama read`, `lanes summarize`; and `gates` on a source
//! folder written here.

use std::path::{Path, PathBuf};

fn fixtures() -> Option<PathBuf> {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::missing("shared/fixtures (the real recordings) not found");
        return None;
    };
    Some(shared.join("fixtures"))
}

/// Runs rocpath in `dir`: the outcome as one text, and stdout parsed when it is JSON.
fn run(dir: &Path, args: &[&str]) -> (String, Option<serde_json::Value>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocpath"))
        .current_dir(dir)
        .env("COLUMNS", "100")
        .arg("--no-progress")
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "$ rocpath --no-progress {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status.code().map_or("signal".into(), |c| c.to_string()),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (text, serde_json::from_slice(&out.stdout).ok())
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(r"\d+\.\d\d s\b", "[SECONDS] s");
    s.add_filter(env!("CARGO_PKG_VERSION"), "[VERSION]");
    s
}

/// The table and the JSON document's shape of one command; the document is returned.
fn both(dir: &Path, name: &str, args: &[&str]) -> serde_json::Value {
    let (text, _) = run(dir, args);
    let json_args: Vec<&str> = std::iter::once("--json")
        .chain(args.iter().copied())
        .collect();
    let (_, json) = run(dir, &json_args);
    let json = json.unwrap_or_else(|| panic!("{name}: no JSON document"));
    let shape = serde_json::to_string_pretty(&crate::gemm_cli::shape(&json)).unwrap();
    settings().bind(|| {
        insta::assert_snapshot!(format!("cli_{name}"), text);
        insta::assert_snapshot!(format!("cli_{name}_json_shape"), shape);
    });
    json
}

#[test]
fn case_read_of_a_vega64_log() {
    let Some(f) = fixtures() else { return };
    both(
        &f,
        "case_read",
        &[
            "case",
            "read",
            "miopen-logs/vega64/vega64_bfp16_force_hipigemm_fwdxdlops_nchw_3x3.log",
        ],
    );
}

#[test]
fn case_trace_map_of_a_vega64_log() {
    let Some(f) = fixtures() else { return };
    let (text, _) = run(
        &f,
        &[
            "case",
            "read",
            "--markdown",
            "miopen-logs/vega64/vega64_fp32_nchw_3x3_fwd_n32.log",
        ],
    );
    settings().bind(|| insta::assert_snapshot!("cli_case_trace_map", text));
}

#[test]
fn explain_compare_of_three_vega64_cases() {
    let Some(f) = fixtures() else { return };
    let d = tempfile::tempdir().unwrap();
    let mut logs: Vec<String> = std::fs::read_dir(f.join("miopen-logs/vega64"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".log") && !n.ends_with("_extract.log"))
        .map(|n| format!("miopen-logs/vega64/{n}"))
        .collect();
    logs.sort();
    logs.truncate(3);
    let mut args = vec!["--json", "case", "read"];
    args.extend(logs.iter().map(String::as_str));
    let (_, doc) = run(&f, &args);
    let cases = d.path().join("cases.json");
    std::fs::write(&cases, serde_json::to_vec(&doc.unwrap()).unwrap()).unwrap();
    let cases = cases.display().to_string();
    let (text, _) = run(&f, &["explain", "--compare", &cases]);
    let (_, json) = run(&f, &["--json", "explain", "--compare", &cases]);
    let json = json.unwrap();
    // The comparisons read back whole as the document's type, the explanation as printed.
    type Cases = rocpath_docs::compare::Comparison<serde_json::Value>;
    crate::doc_contract::reads_back::<rocpath_docs::compare::ComparisonsDoc<Vec<Cases>>>(
        json.clone(),
    );
    let shape = serde_json::to_string_pretty(&crate::gemm_cli::shape(&json)).unwrap();
    let mut s = settings();
    s.add_filter(&regex_escape(&cases), "[CASES]");
    s.bind(|| {
        insta::assert_snapshot!("cli_explain_compare", text);
        insta::assert_snapshot!("cli_explain_compare_json_shape", shape);
    });
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

#[test]
fn trace_of_the_mi25_probe() {
    let Some(f) = fixtures() else { return };
    let doc = both(
        &f,
        "trace",
        &[
            "trace",
            "mi25-runs/rocprofv3_probe_tinyllama_latest_20260324_015840",
        ],
    );
    crate::doc_contract::reads_back::<rocpath_docs::trace::TraceDoc>(doc);
}

#[test]
fn strace_of_the_mi25_split() {
    let Some(f) = fixtures() else { return };
    let doc = both(
        &f,
        "strace",
        &[
            "strace",
            "mi25-runs/g4_strace_openat_tinyllama_latest_20260324_014707.log.3269468",
        ],
    );
    crate::doc_contract::reads_back::<rocpath_docs::strace::StraceDoc>(doc);
}

#[test]
fn ollama_read_of_a_generate_response() {
    let Some(f) = fixtures() else { return };
    let doc = both(
        &f,
        "ollama_read",
        &[
            "ollama",
            "read",
            "mi25-runs/g4_generate_qwen2.5_7b_20260324_021010.json",
        ],
    );
    crate::doc_contract::reads_back::<rocpath_docs::ollama::ReadDoc>(doc);
}

#[test]
fn lanes_summarize_mi25_against_vega64() {
    let Some(f) = fixtures() else { return };
    let doc = both(
        &f,
        "lanes_summarize",
        &[
            "lanes",
            "summarize",
            "MI25=ollama-runs/mi25-vega64/mi25_rocm_repeat_20260323_184113.jsonl",
            "Vega64=ollama-runs/mi25-vega64/vega64_rocm_repeat_20260323_184113.jsonl",
        ],
    );
    crate::doc_contract::reads_back::<rocpath_docs::lanes::LanesDoc>(doc);
}

#[test]
fn gates_of_a_source_folder() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("miopen/src/solver");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("conv_mlir_igemm_fwd.cpp"),
        "bool ConvMlirIgemmFwd::IsApplicable(const Ctx& ctx, const Problem& problem) const\n{\n    const auto device_name = ctx.GetStream().GetDeviceName();\n    if(StartsWith(device_name, \"gfx900\"))\n        return false;\n    return MiirIsConfigApplicable(ctx, problem);\n}\n",
    )
    .unwrap();
    let doc = both(d.path(), "gates", &["gates", "--arch", "gfx900", "miopen"]);
    crate::doc_contract::reads_back::<rocpath_docs::gates::GatesDoc>(doc);
}

/// `case table` over a folder of three recorded Vega64 logs (copied with their names): one row
/// per case, and the document's shape.
#[test]
fn case_table_of_three_vega64_logs() {
    let Some(f) = fixtures() else { return };
    let d = tempfile::tempdir().unwrap();
    let mut logs: Vec<std::path::PathBuf> = std::fs::read_dir(f.join("miopen-logs/vega64"))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.ends_with(".log") && !n.ends_with("_extract.log")
        })
        .collect();
    logs.sort();
    for l in logs.iter().take(3) {
        std::fs::copy(l, d.path().join(l.file_name().unwrap())).unwrap();
    }
    let dir = d.path().display().to_string();
    let (text, _) = run(&f, &["case", "table", &dir]);
    let (_, json) = run(&f, &["--json", "case", "table", &dir]);
    let shape = serde_json::to_string_pretty(&crate::gemm_cli::shape(&json.unwrap())).unwrap();
    let mut s = settings();
    s.add_filter(&regex_escape(&dir), "[CASES]");
    s.bind(|| {
        insta::assert_snapshot!("cli_case_table", text);
        insta::assert_snapshot!("cli_case_table_json_shape", shape);
    });
}
