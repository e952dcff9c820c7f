//! Development tasks for rocpath.
//!
//! * `codegen-isa [--out DIR] [--cpu NAME]`: regenerate `crates/rocpath-isa/src/generated/` from
//!   `llvm-mc-22` (override with env `LLVM_MC`).
//! * `codegen-isa --check`: regenerate into a temporary directory and fail if the committed
//!   tables differ.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../../crates/rocpath-isa/src/classify.rs"]
#[allow(dead_code, missing_docs)]
mod classify;
mod isa;
#[path = "../../crates/rocpath-isa/src/layout.rs"]
#[allow(dead_code, missing_docs)]
mod layout;

use anyhow::{Context, Result, bail};
use std::path::PathBuf;

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn codegen_isa(args: &[String]) -> Result<()> {
    let mut out = workspace_root().join("crates/rocpath-isa/src/generated");
    let mut check = false;
    let mut only = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = PathBuf::from(it.next().context("--out DIR")?),
            "--cpu" => only = Some(it.next().context("--cpu NAME")?.clone()),
            "--check" => check = true,
            other => bail!("unknown argument {other:?}"),
        }
    }
    if check {
        let tmp = std::env::temp_dir().join(format!("rocpath-isa-check-{}", std::process::id()));
        isa::codegen(&tmp, only.as_deref())?;
        let mut differ = Vec::new();
        for f in ["mod.rs", "mnemonics.rs", "tables.rs"] {
            let a = std::fs::read(out.join(f)).unwrap_or_default();
            let b = std::fs::read(tmp.join(f))?;
            if a != b {
                differ.push(f);
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
        if !differ.is_empty() {
            bail!(
                "generated tables are stale: {differ:?} differ; run `cargo run -p xtask -- codegen-isa`"
            );
        }
        println!("generated tables are up to date");
        return Ok(());
    }
    isa::codegen(&out, only.as_deref())?;
    println!("wrote {}", out.display());
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("codegen-isa") => codegen_isa(args.get(1..).unwrap_or_default()),
        other => Err(anyhow::anyhow!(
            "unknown task {other:?}; tasks: codegen-isa"
        )),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
