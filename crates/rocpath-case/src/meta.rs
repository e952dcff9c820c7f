//! Case metadata: `case.json` written by `rocpath case run`, and the `<case>.meta.txt` sidecar
//! of the research workflow's `run_vega_path_case.sh` (`key=value` lines: `timestamp`,
//! `hostname`, `pwd`, `case_id`, `command`, then the logging environment).

use crate::error::CaseError;
pub use rocpath_docs::case::{CapturedFile, CaseMeta, ExitInfo, GpuInfo, META_SCHEMA, RunStatus};
use std::collections::BTreeMap;
use std::path::Path;

/// Largest metadata file of a case (`case.json`, `meta.txt`) read.
pub const MAX_META_BYTES: u64 = 64 << 20;
/// File name of the metadata inside a case folder.
pub const META_FILE: &str = "case.json";

/// Reads `case.json`.
pub fn read_json(path: &Path) -> Result<CaseMeta, CaseError> {
    let (text, _held) = rocpath_budget::input::read_text(
        path,
        &rocpath_budget::MemoryBudget::default(),
        MAX_META_BYTES,
        "a case.json",
    )
    .map_err(|e| CaseError::io(path)(e.into_io()))?;
    let mut m: CaseMeta = serde_json::from_str(&text).map_err(|error| CaseError::Meta {
        path: path.to_path_buf(),
        line: error.line() as u64,
        column: error.column() as u64,
        error,
    })?;
    m.source = path.display().to_string();
    Ok(m)
}

/// Reads a research-workflow `meta.txt`. Returns the metadata and, per key, its 1-based
/// line.
pub fn read_txt(path: &Path) -> Result<(CaseMeta, BTreeMap<String, u64>), CaseError> {
    let (bytes, _held) = rocpath_budget::input::read_bytes(
        path,
        &rocpath_budget::MemoryBudget::default(),
        MAX_META_BYTES,
        "a meta.txt",
    )
    .map_err(|e| CaseError::io(path)(e.into_io()))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut m = CaseMeta {
        schema: "meta.txt".into(),
        source: path.display().to_string(),
        ..CaseMeta::default()
    };
    let mut lines = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim_end_matches('\r'));
        lines.insert(k.to_string(), i as u64 + 1);
        match k {
            "timestamp" => m.started = Some(v.into()),
            "hostname" => m.host = Some(v.into()),
            "pwd" => m.cwd = Some(v.into()),
            "case_id" => m.name = Some(v.into()),
            "command" => {
                m.command_line = v.into();
                m.command = vec![v.into()];
            }
            _ if k
                .bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
                && !k.is_empty() =>
            {
                m.env.insert(k.into(), v.into());
            }
            _ => {}
        }
    }
    Ok((m, lines))
}

/// Environment variables that can change the path a ROCm run takes: recorded in full.
pub fn path_relevant(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "MIOPEN_",
        "ROCBLAS_",
        "HIPBLASLT_",
        "TENSILE_",
        "HSA_",
        "HIP_",
        "ROCR_",
        "GGML_",
        "OLLAMA_",
        "AMD_",
        "GPU_",
        "HCC_",
        "ROCM_",
        "ROC_",
        "PYTORCH_",
        "HIPBLAS_",
        "CUDA_VISIBLE_DEVICES",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || matches!(name, "LD_LIBRARY_PATH" | "LD_PRELOAD" | "PATH")
}

/// The MIOpenDriver arguments inside a command line, also when it is wrapped
/// (`bash -lc 'set +e; MIOpenDriver convint8 …; ec=$?; …'`).
pub fn driver_args(command_line: &str) -> Option<String> {
    let i = command_line.find("MIOpenDriver")?;
    let rest = &command_line[i + "MIOpenDriver".len()..];
    let rest = rest.strip_prefix(".exe").unwrap_or(rest);
    if !rest.starts_with(' ') {
        return None;
    }
    let end = rest
        .find([';', '&', '|', '\'', '"', '\n'])
        .unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_args_from_wrapped_commands() {
        assert_eq!(
            driver_args("bash -lc set +e; MIOpenDriver convint8 -n 1 -S X -F 1; ec=$?; echo __EXIT_CODE=$ec; exit 0")
                .as_deref(),
            Some("convint8 -n 1 -S X -F 1")
        );
        assert_eq!(
            driver_args("/opt/rocm/bin/MIOpenDriver conv -n 2").as_deref(),
            Some("conv -n 2")
        );
        assert_eq!(driver_args("python train.py"), None);
    }

    #[test]
    fn relevant_variables() {
        for v in [
            "MIOPEN_LOG_LEVEL",
            "HSA_OVERRIDE_GFX_VERSION",
            "HSA_OVERRIDE_GFX_VERSION_1",
            "ROCR_VISIBLE_DEVICES",
            "LD_LIBRARY_PATH",
            "OLLAMA_HOST",
        ] {
            assert!(path_relevant(v), "{v}");
        }
        assert!(!path_relevant("HOME"));
        assert!(!path_relevant("SSH_AUTH_SOCK"));
    }

    #[test]
    fn meta_txt() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.meta.txt");
        std::fs::write(&p, "timestamp=2026-03-13T11:02:06+09:00\r\nhostname=h\ncase_id=c\ncommand=MIOpenDriver conv -n 1\nMIOPEN_LOG_LEVEL=6\n").unwrap();
        let (m, lines) = read_txt(&p).unwrap();
        assert_eq!(m.host.as_deref(), Some("h"));
        assert_eq!(m.started.as_deref(), Some("2026-03-13T11:02:06+09:00"));
        assert_eq!(m.env.get("MIOPEN_LOG_LEVEL").map(String::as_str), Some("6"));
        assert_eq!(lines.get("command"), Some(&4));
        assert!(m.complete());
    }
}
