//! The `rocpath.check/1` document (`rocpath check`): for each device, whether each library of
//! an install has code it can run, by LLVM's target-id rules, and what
//! `HSA_OVERRIDE_GFX_VERSION` would change. `rocpath-inventory` decides these records; the
//! ledger reads them.

use crate::ErrorItem;
use rocpath_arch::TargetId;
use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The JSON document of `rocpath check`: one check per device, and the errors of the scan.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckDoc {
    /// One check per device.
    pub devices: Vec<DeviceCheck>,
    /// Items of the scan that could not be read.
    #[serde(default)]
    pub errors: Vec<ErrorItem>,
}

/// One GPU agent.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Device {
    /// Where the description came from (`rocminfo:<file> agent 2`, `sysfs node 1`, `--target`).
    pub source: String,
    /// Marketing name, when known.
    pub name: Option<String>,
    /// Device target id as the runtime reports it.
    pub target: TargetId,
    /// Generic target ids the runtime also accepts for this device (`gfx9-generic`).
    pub generic: Vec<String>,
    /// Compute units.
    pub cus: Option<u32>,
}

/// An `HSA_OVERRIDE_GFX_VERSION` setting to evaluate.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Override {
    /// Where it came from (`HSA_OVERRIDE_GFX_VERSION`, `--override`).
    pub source: String,
    /// The value (`9.0.0`).
    pub value: String,
    /// The processor the runtime will then report (`gfx900`), if the version names one.
    pub processor: Option<String>,
}

/// Verdict for one library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A compatible object/file is present.
    Runs,
    /// It depends on a device setting rocpath does not know.
    Depends,
    /// Nothing for this device.
    NoCode,
    /// Tuning data or a kernel cache with nothing for this device (a MIOpen find-db or kernel
    /// database): the library still runs, on heuristics or compiling kernels on first use.
    Untuned,
}

impl Verdict {
    /// Short label.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Runs => "runs",
            Verdict::Depends => "depends",
            Verdict::NoCode => "no_code",
            Verdict::Untuned => "untuned",
        }
    }
}

/// A code object that decided a verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Decider {
    /// File.
    pub path: String,
    /// Container chain.
    pub container: String,
    /// Its target id.
    pub target_id: TargetId,
    /// Target-id rule that matched.
    pub rule: String,
    /// Why.
    pub why: String,
}

/// What the override would change for one library.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OverrideEffect {
    /// Verdict under the override.
    pub verdict: Verdict,
    /// Compatible objects under the override.
    pub compatible: usize,
    /// Explanation.
    pub why: String,
}

/// What a library check looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Checked {
    /// The code objects of a host library or kernel folder.
    CodeObjects,
    /// Tensile library files.
    Tensile,
    /// MIOpen find-dbs and perf-dbs.
    MiopenDb,
    /// MIOpen kernel databases (`.kdb`).
    MiopenKernelDb,
}

impl Checked {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Checked::CodeObjects => "code_objects",
            Checked::Tensile => "tensile",
            Checked::MiopenDb => "miopen_db",
            Checked::MiopenKernelDb => "miopen_kernel_db",
        }
    }
}

/// A device's verdict over its libraries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceVerdict {
    /// Every library has code for it.
    Runs,
    /// Some do, some do not.
    Partial,
    /// Only settings rocpath does not know decide.
    Depends,
    /// None has code for it.
    NoCode,
    /// Nothing was checked.
    NothingChecked,
    /// Only tuning data was checked, with nothing for the device (not a failure).
    Untuned,
}

impl DeviceVerdict {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceVerdict::Runs => "runs",
            DeviceVerdict::Partial => "partial",
            DeviceVerdict::Depends => "depends",
            DeviceVerdict::NoCode => "no_code",
            DeviceVerdict::NothingChecked => "nothing_checked",
            DeviceVerdict::Untuned => "untuned",
        }
    }
}

impl std::fmt::Display for DeviceVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Verdict for one library (a host library, or a Tensile kernel folder).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LibraryCheck {
    /// Library (grouping key).
    pub library: String,
    /// What was checked.
    pub kind: Checked,
    /// Verdict.
    pub verdict: Verdict,
    /// Code objects (or files) compatible with the device.
    pub compatible: usize,
    /// Code objects (or files) in the library.
    pub total: usize,
    /// What the library ships, for context: the target ids of its code objects, the
    /// processors of its Tensile files or the names of its find-dbs (`gfx900_64`).
    pub targets: Vec<String>,
    /// The files that decided (first few compatible ones, or none).
    pub deciders: Vec<Decider>,
    /// One-line explanation.
    pub why: String,
    /// Effect of the override, when one is evaluated.
    pub with_override: Option<OverrideEffect>,
    /// Evidence for the verdict.
    pub evidence: Evidence,
}

/// The check of one device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceCheck {
    /// The device.
    pub device: Device,
    /// The override evaluated, if any.
    pub r#override: Option<Override>,
    /// One entry per library.
    pub libraries: Vec<LibraryCheck>,
    /// Counts per verdict.
    pub summary: BTreeMap<String, usize>,
    /// The device's verdict over its libraries.
    pub verdict: DeviceVerdict,
    /// The same under the override, when one is evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_with_override: Option<DeviceVerdict>,
    /// Device settings not known that decide a `depends` library, with the explicit target
    /// ids to check again with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to_settle: Vec<Settle>,
}

/// A device setting (xnack, sramecc) that the device as given leaves open and some library's
/// verdict depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settle {
    /// `xnack` or `sramecc`.
    pub feature: String,
    /// The device's target id with the setting off, then on (`gfx900:xnack-`, `gfx900:xnack+`).
    pub targets: Vec<String>,
}
