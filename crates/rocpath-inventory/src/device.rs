//! The GPUs of a machine: from a `rocminfo` report (live or saved) or from the KFD topology
//! in sysfs (`/sys/class/kfd/kfd/topology/nodes/*/properties`).

use rocpath_arch::{FeatureSetting, TargetFeature, TargetId};
use std::path::Path;

/// Largest KFD properties or rocminfo text read (sysfs files are a few KB; a saved copy
/// that is a FIFO, a device or a huge file is refused instead of hanging or filling memory).
pub const MAX_TEXT: u64 = 4 << 20;

pub use rocpath_docs::check::Device;

/// A device described by a target id alone (`--target`): normalized, nothing else known.
pub fn from_target(t: TargetId) -> Device {
    Device {
        source: "--target".into(),
        name: None,
        target: normalize(t),
        generic: Vec::new(),
        cus: None,
    }
}

/// Fills in "unsupported" for features the processor does not have, so an unspecified feature
/// on a device that cannot have it is not mistaken for an unknown setting.
pub fn normalize(mut t: TargetId) -> TargetId {
    if let Some(info) = rocpath_arch::target(&t.processor) {
        if info.xnack == TargetFeature::Unsupported && t.xnack == FeatureSetting::Any {
            t.xnack = FeatureSetting::Unsupported;
        }
        if info.sramecc == TargetFeature::Unsupported && t.sramecc == FeatureSetting::Any {
            t.sramecc = FeatureSetting::Unsupported;
        }
    }
    t
}

/// Parses the text `rocminfo` prints. Returns the GPU agents in order.
pub fn parse_rocminfo(text: &str, source: &str) -> Vec<Device> {
    let mut out = Vec::new();
    // Agents start at lines "Agent N"; everything up to the next one belongs to it.
    let mut agents: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("Agent ")
            && t[6..].trim().chars().all(|c| c.is_ascii_digit())
            && t.len() > 6
        {
            agents.push((t.to_string(), Vec::new()));
        } else if let Some((_, lines)) = agents.last_mut() {
            lines.push(t);
        }
    }
    for (label, lines) in agents {
        let field = |key: &str| {
            lines.iter().find_map(|l| {
                l.strip_prefix(key)
                    .and_then(|r| r.strip_prefix(':'))
                    .map(|v| v.trim().to_string())
            })
        };
        if field("Device Type").as_deref() != Some("GPU") {
            continue;
        }
        let isas: Vec<String> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("Name:").map(str::trim))
            .filter(|v| v.starts_with("amdgcn-amd-amdhsa--"))
            .map(str::to_string)
            .collect();
        let mut specific = None;
        let mut generic = Vec::new();
        for isa in &isas {
            if let Ok(t) = TargetId::parse(isa) {
                if t.processor.contains("generic") {
                    generic.push(t.canonical());
                } else if specific.is_none() {
                    specific = Some(t);
                }
            }
        }
        let target = match specific.or_else(|| field("Name").and_then(|n| TargetId::parse(&n).ok()))
        {
            Some(t) => normalize(t),
            None => continue,
        };
        out.push(Device {
            source: format!("{source} {label}"),
            name: field("Marketing Name"),
            target,
            generic,
            cus: field("Compute Unit").and_then(|c| c.parse().ok()),
        });
    }
    out
}

/// What a KFD topology folder says: the GPUs, in node order, and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct KfdTopology {
    /// GPU nodes (CPU-only nodes, with `gfx_target_version 0`, are left out).
    pub devices: Vec<Device>,
    /// Nodes or lines that could not be read or understood.
    pub problems: Vec<KfdProblem>,
}

/// A node or line of a KFD topology that could not be read or understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KfdProblem {
    /// The file (`…/nodes/1/properties`).
    pub path: std::path::PathBuf,
    /// The 1-based line, for a malformed line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// Reads the GPUs from a KFD topology folder (normally `/sys/class/kfd/kfd/topology/nodes`).
pub fn read_kfd_topology(nodes: &Path) -> Vec<Device> {
    read_kfd(nodes).devices
}

/// Reads a KFD topology folder, nodes in numeric order, naming what it cannot read. A
/// missing folder is an empty topology.
pub fn read_kfd(nodes: &Path) -> KfdTopology {
    let mut out = KfdTopology::default();
    let Ok(rd) = std::fs::read_dir(nodes) else {
        return out;
    };
    let mut dirs: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    dirs.sort_by_key(|d| {
        let n = d
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u64>().ok());
        (n.unwrap_or(u64::MAX), d.clone())
    });
    for d in dirs {
        let path = d.join("properties");
        match rocpath_budget::read_small_text(&path, MAX_TEXT) {
            Ok(props) => kfd_node(&d, &path, &props, &mut out),
            Err(e) => out.problems.push(KfdProblem {
                path,
                line: None,
                message: format!("cannot read the node's properties ({e})"),
            }),
        }
    }
    out
}

/// The `key value` pairs of a properties file; malformed lines are named.
fn kfd_properties(path: &Path, props: &str, problems: &mut Vec<KfdProblem>) -> Vec<(String, u64)> {
    let mut kv = Vec::new();
    for (i, l) in props.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        match l.split_once(' ').map(|(k, v)| (k, v.trim().parse::<u64>())) {
            Some((k, Ok(v))) => kv.push((k.to_string(), v)),
            _ => problems.push(KfdProblem {
                path: path.to_path_buf(),
                line: Some(i + 1),
                message: "not a `name number` line".into(),
            }),
        }
    }
    kv
}

fn kfd_node(d: &Path, path: &Path, props: &str, out: &mut KfdTopology) {
    let kv = kfd_properties(path, props, &mut out.problems);
    let get = |k: &str| kv.iter().find(|(key, _)| key == k).map(|(_, v)| *v);
    let Some(v) = get("gfx_target_version").filter(|&v| v > 0) else {
        return;
    };
    let known = u32::try_from(v).ok().and_then(|v| {
        let (maj, min, step) = rocpath_arch::split_kfd_version(v);
        rocpath_arch::TARGETS
            .iter()
            .find(|t| t.version == (maj, min, step) && t.covers.is_empty())
    });
    let Some(info) = known else {
        out.problems.push(KfdProblem {
            path: path.to_path_buf(),
            line: None,
            message: format!(
                "gfx_target_version {v} names no gfx target LLVM knows; the node is left out"
            ),
        });
        return;
    };
    let mut target = TargetId::new(info.name);
    // HSA_CAP_SRAM_EDCSUPPORTED: the device reports ECC for SRAM.
    if info.sramecc == TargetFeature::Supported {
        if let Some(cap) = get("capability") {
            target.sramecc = if cap & 0x0008_0000 != 0 {
                FeatureSetting::On
            } else {
                FeatureSetting::Off
            };
        }
    }
    let cus = match (get("simd_count"), get("simd_per_cu")) {
        (Some(s), Some(p)) if p > 0 => u32::try_from(s / p).ok(),
        _ => None,
    };
    let name = rocpath_budget::read_small_text(&d.join("name"), MAX_TEXT)
        .ok()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    out.devices.push(Device {
        source: format!("sysfs {}", d.display()),
        name,
        target: normalize(target),
        generic: info
            .generic
            .map(|g| vec![g.to_string()])
            .unwrap_or_default(),
        cus,
    });
}

/// Finds the GPUs of this machine: KFD topology first, else `rocminfo` on PATH.
pub fn detect() -> Vec<Device> {
    let d = read_kfd_topology(Path::new("/sys/class/kfd/kfd/topology/nodes"));
    if !d.is_empty() {
        return d;
    }
    // rocminfo may hang on a wedged driver or print without end: a deadline and a bound.
    match rocpath_budget::child::run(
        std::process::Command::new("rocminfo"),
        std::time::Duration::from_secs(30),
        MAX_TEXT,
    ) {
        Ok(o) if o.status.success() => {
            parse_rocminfo(&String::from_utf8_lossy(&o.stdout), "rocminfo")
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kfd_topology_from_a_folder() {
        let dir = std::env::temp_dir().join(format!("rocpath-kfd-{}", std::process::id()));
        let n0 = dir.join("0");
        let n1 = dir.join("1");
        std::fs::create_dir_all(&n0).unwrap();
        std::fs::create_dir_all(&n1).unwrap();
        std::fs::write(
            n0.join("properties"),
            "cpu_cores_count 16\ngfx_target_version 0\n",
        )
        .unwrap();
        std::fs::write(
            n1.join("properties"),
            "simd_count 256\nsimd_per_cu 4\ngfx_target_version 90010\ncapability 746160768\n",
        )
        .unwrap();
        let n2 = dir.join("2");
        std::fs::create_dir_all(&n2).unwrap();
        std::fs::write(
            n2.join("properties"),
            "gfx_target_version 999999\nsimd_count x\n",
        )
        .unwrap();
        let t = read_kfd(&dir);
        let d = read_kfd_topology(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(t.problems.len(), 2, "{:?}", t.problems);
        assert_eq!(t.problems[0].line, Some(2));
        assert!(t.problems[1].message.contains("999999"));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].target.processor, "gfx90a");
        assert_eq!(d[0].cus, Some(64));
    }
}
