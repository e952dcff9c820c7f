//! The machine's GPUs: the KFD topology (what the kernel driver reports: the real hardware)
//! and, when given, `rocminfo` output (what the HSA runtime reports: names, xnack and sramecc
//! as set, generic targets). When both are there, the i-th KFD GPU is the i-th rocminfo GPU
//! agent; a processor that differs means an override was in effect when rocminfo ran.

use crate::error::SurveyError;
use crate::root::Root;
use crate::rules;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_inventory::device::{self, Device};
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

/// Where the KFD topology is on a machine.
pub const KFD_NODES: &str = "/sys/class/kfd/kfd/topology/nodes";

/// One GPU of the machine.
#[derive(Debug, Clone, Serialize)]
pub struct SurveyDevice {
    /// GPU ordinal: the `<n>` of `HSA_OVERRIDE_GFX_VERSION_<n>` and of the visible-device
    /// lists.
    pub index: usize,
    /// The device as `check` takes it.
    pub device: Device,
    /// What this survey could not settle about it, or where its sources disagree.
    pub notes: Vec<String>,
    /// Evidence.
    pub evidence: Evidence,
}

/// `rocminfo` output to use: the text and where it came from.
#[derive(Debug, Clone)]
pub struct Rocminfo {
    /// The text.
    pub text: String,
    /// `rocminfo` (run now) or the file it was read from.
    pub source: String,
}

/// Runs `rocminfo` (if on PATH) without the override variables, so it reports the hardware,
/// and gives up after `timeout`. `None` when it is absent, fails or hangs.
pub fn run_rocminfo(timeout: Duration) -> Option<Rocminfo> {
    let mut cmd = std::process::Command::new("rocminfo");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("HSA_OVERRIDE_GFX_VERSION") {
            cmd.env_remove(k);
        }
    }
    // rocminfo prints a few KB per agent; more than MAX_TEXT is not its output.
    let out = rocpath_budget::child::run(cmd, timeout, rocpath_inventory::device::MAX_TEXT).ok()?;
    if !out.status.success() {
        return None;
    }
    Some(Rocminfo {
        text: String::from_utf8_lossy(&out.stdout).into_owned(),
        source: "rocminfo".into(),
    })
}

/// Reads the GPUs of the machine under `root`, with `rocminfo` output if given.
pub fn read(
    root: &Root,
    rocminfo: Option<&Rocminfo>,
    errors: &mut Vec<SurveyError>,
) -> Vec<SurveyDevice> {
    let nodes = root.join(Path::new(KFD_NODES));
    let topo = device::read_kfd(&nodes);
    for p in topo.problems {
        errors.push(match p.line {
            Some(line) => SurveyError::Malformed {
                path: p.path,
                line,
                what: p.message,
            },
            None => SurveyError::Unusable {
                path: p.path,
                what: p.message,
            },
        });
    }
    let mut ri: Vec<Device> = rocminfo
        .map(|r| device::parse_rocminfo(&r.text, &r.source))
        .unwrap_or_default();
    ri.retain(|d| rocpath_arch::target(&d.target.processor).is_some());
    if let Some(r) = rocminfo.filter(|r| !r.text.trim().is_empty() && ri.is_empty()) {
        errors.push(SurveyError::Malformed {
            path: r.source.clone().into(),
            line: 1,
            what: "no GPU agent in this rocminfo output (no `Agent N` block with `Device Type: GPU` and a gfx target LLVM knows); the devices come from the KFD topology alone".into(),
        });
    }
    if topo.devices.is_empty() {
        return ri
            .into_iter()
            .enumerate()
            .map(|(i, d)| from_rocminfo(i, d, rocminfo.map_or("rocminfo", |r| r.source.as_str())))
            .collect();
    }
    let mut out: Vec<SurveyDevice> = topo
        .devices
        .into_iter()
        .enumerate()
        .map(|(i, d)| merge(i, d, ri.get(i)))
        .collect();
    let kfd_n = out.len();
    if ri.len() > kfd_n {
        if let Some(first) = out.first_mut() {
            first.notes.push(format!(
                "rocminfo lists {} GPU agents, the KFD topology {kfd_n}: the extra agents are left out",
                ri.len(),
            ));
        }
    }
    out
}

fn from_rocminfo(index: usize, device: Device, source: &str) -> SurveyDevice {
    let evidence = Evidence::new(
        Class::Confirmed,
        Proof::RuntimeVerified,
        rules::DEVICE_ROCMINFO,
    )
    .at(Locator::file(source))
    .because(format!("rocminfo reports {}", device.target.canonical()));
    SurveyDevice {
        index,
        device,
        notes: Vec::new(),
        evidence,
    }
}

/// A KFD node with the matching rocminfo agent, if any.
fn merge(index: usize, mut kfd: Device, ri: Option<&Device>) -> SurveyDevice {
    let mut notes = Vec::new();
    let path = kfd.source.trim_start_matches("sysfs ").to_string();
    match ri {
        Some(r) if r.target.processor == kfd.target.processor => {
            kfd.target = r.target.clone();
            kfd.name = r.name.clone().or(kfd.name.take());
            if !r.generic.is_empty() {
                kfd.generic = r.generic.clone();
            }
            kfd.source = format!("{} + {}", kfd.source, r.source);
        }
        Some(r) => notes.push(format!(
            "rocminfo reports {} for this device, the hardware is {}: an HSA_OVERRIDE_GFX_VERSION was in effect when rocminfo ran",
            r.target.canonical(),
            kfd.target.processor
        )),
        None => {}
    }
    if kfd.target.xnack == rocpath_arch::FeatureSetting::Any {
        notes.push(
            "xnack: the KFD properties do not state it; give rocminfo output to settle it".into(),
        );
    }
    let evidence = Evidence::new(Class::Confirmed, Proof::RuntimeVerified, rules::DEVICE_KFD)
        .at(Locator::file(format!("{path}/properties")))
        .because(format!(
            "the KFD topology reports {}",
            kfd.target.canonical()
        ));
    SurveyDevice {
        index,
        device: kfd,
        notes,
        evidence,
    }
}
