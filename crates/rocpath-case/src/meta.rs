//! Case metadata: `case.json` written by `rocpath case run`, and the `<case>.meta.txt` sidecar
//! of the research workflow's `run_vega_path_case.sh` (`key=value` lines: `timestamp`,
//! `hostname`, `pwd`, `case_id`, `command`, then the logging environment).

use crate::error::CaseError;

/// Largest metadata file of a case (`case.json`, `meta.txt`) read.
pub const MAX_META_BYTES: u64 = 64 << 20;
use rocpath_arch::TargetId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Schema name of `case.json`.
pub const META_SCHEMA: &str = "rocpath.case-meta/1";
/// File name of the metadata inside a case folder.
pub const META_FILE: &str = "case.json";

/// A GPU seen on the machine when the case ran.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct GpuInfo {
    /// Where the description came from (`sysfs node 1`, `rocminfo`).
    pub source: String,
    /// Marketing name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Target id.
    pub target: TargetId,
    /// Compute units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cus: Option<u32>,
}

/// How the child ended, as the runner saw it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct ExitInfo {
    /// Exit code.
    #[serde(default)]
    pub code: Option<i64>,
    /// Terminating signal name.
    #[serde(default)]
    pub signal: Option<String>,
}

/// A captured file and its hash.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CapturedFile {
    /// File name inside the case folder.
    pub name: String,
    /// Size.
    pub bytes: u64,
    /// sha256.
    pub sha256: String,
}

/// What a case's metadata says.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct CaseMeta {
    /// `rocpath.case-meta/1`, or `meta.txt` for the research workflow's sidecar.
    pub schema: String,
    /// The metadata file.
    #[serde(default)]
    pub source: String,
    /// Case name.
    #[serde(default)]
    pub name: Option<String>,
    /// rocpath version that ran the case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    /// Start time (RFC 3339).
    #[serde(default)]
    pub started: Option<String>,
    /// End time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<String>,
    /// Wall time, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// Host.
    #[serde(default)]
    pub host: Option<String>,
    /// Working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// argv of the command.
    #[serde(default)]
    pub command: Vec<String>,
    /// The command as one shell line.
    #[serde(default)]
    pub command_line: String,
    /// Logging knobs asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knobs: Vec<String>,
    /// Variables rocpath set (never one the user had set).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env_set: BTreeMap<String, String>,
    /// Every path-relevant variable of the child's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// GPUs of the machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu: Vec<GpuInfo>,
    /// How the run stands or ended.
    #[serde(default)]
    pub status: RunStatus,
    /// How the child ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitInfo>,
    /// The signal that interrupted the case, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
    /// Captured files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<CapturedFile>,
    /// Notes (e.g. output still open after the child ended).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// How a recorded run stands or ended (`case.json`'s `status`; the JSON names are these
/// snake_case words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Started and never finished: rocpath itself was stopped (the record written first).
    Running,
    /// The command exited.
    Exited,
    /// The command died of a signal other than an interrupt.
    Signaled,
    /// Stopped by an interrupt (SIGINT, SIGTERM, SIGHUP), to it or to rocpath.
    Interrupted,
    /// The command could not be started.
    SpawnFailed,
    /// The runner lost track of the command.
    Lost,
    /// A record without a status, or with one this version does not know.
    #[default]
    #[serde(other)]
    Unknown,
}

impl RunStatus {
    /// The JSON word.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Exited => "exited",
            RunStatus::Signaled => "signaled",
            RunStatus::Interrupted => "interrupted",
            RunStatus::SpawnFailed => "spawn_failed",
            RunStatus::Lost => "lost",
            RunStatus::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl CaseMeta {
    /// The run finished and was recorded (not `running`, not `interrupted`).
    pub fn complete(&self) -> bool {
        if self.schema != META_SCHEMA {
            return true;
        }
        matches!(self.status, RunStatus::Exited | RunStatus::Signaled)
    }

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
        let (m, lines) = CaseMeta::read_txt(&p).unwrap();
        assert_eq!(m.host.as_deref(), Some("h"));
        assert_eq!(m.started.as_deref(), Some("2026-03-13T11:02:06+09:00"));
        assert_eq!(m.env.get("MIOPEN_LOG_LEVEL").map(String::as_str), Some("6"));
        assert_eq!(lines.get("command"), Some(&4));
        assert!(m.complete());
    }
}
