//! The failure modes users hit, each a finding with the evidence the survey read and what to
//! do: the GPU's target missing from a framework's build; `HSA_OVERRIDE_GFX_VERSION` forgotten
//! (a processor of the same generic family has code, with no instruction the GPU lacks),
//! misapplied (the named processor has instructions the GPU lacks, or is of another generation)
//! or not needed; an integrated GPU listed before the discrete one; ROCm's SDK wheels without
//! the GPU's device wheel, or of another version than the package asks for; a broken venv;
//! hipBLASLt without kernels for the GPU; an Ollama whose ROCm backend lacks the GPU but that
//! ships a Vulkan one; `LD_LIBRARY_PATH` making a wheel take another install's HIP, or a ROCm
//! library the loader finds nowhere.
//!
//! Instruction sets come from `rocpath-arch` (LLVM's processor table: generation, DL and dot
//! instructions, MFMA, WMMA, packed FP32, mix, FP8, XF32).

use crate::devices::SurveyDevice;
use crate::env::{Env, SHELL};
use crate::installs::{Install, Kind};
use crate::python::PythonEnv;
use crate::rules;
use crate::verdict::{Outcome, Verdict};
use rocpath_arch::TargetInfo;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;

/// Which failure mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A framework's build has no code for the GPU and no override would help.
    TargetMissing,
    /// No override in scope, but one would make the runtime report a processor the install
    /// has code for, with no instruction the GPU lacks.
    OverrideForgotten,
    /// The override names a processor with instructions the GPU lacks, or of another
    /// generation.
    OverrideMisapplied,
    /// The override is set, yet every library has code for the GPU itself.
    OverrideUnneeded,
    /// An integrated GPU is device 0 before a discrete one, and no visible-devices variable
    /// chooses.
    IntegratedFirst,
    /// ROCm's SDK wheels without a device wheel for the GPU's target.
    DeviceWheelMissing,
    /// A package asks the SDK wheels for another version than the one installed.
    SdkVersionMismatch,
    /// A Python environment that cannot start.
    BrokenEnvironment,
    /// hipBLASLt without kernels for the GPU.
    HipblasltUnsupported,
    /// Ollama without ROCm kernels for the GPU, with a Vulkan backend beside.
    OllamaVulkan,
    /// `LD_LIBRARY_PATH` makes a program library take another install's copy.
    LibraryPathOverride,
    /// A ROCm library a program library needs is found nowhere.
    LibraryNotFound,
    /// A library whose kpack archives are missing, lost code or do not match it.
    KpackMismatch,
    /// `/dev/kfd` or a render node this user may not open read-write.
    DevicePermission,
    /// A container started without the GPU device nodes.
    ContainerWithoutDevices,
}

impl FindingKind {
    /// The snake_case name (the rule is `survey.finding.<name>`).
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::TargetMissing => "target_missing",
            FindingKind::OverrideForgotten => "override_forgotten",
            FindingKind::OverrideMisapplied => "override_misapplied",
            FindingKind::OverrideUnneeded => "override_unneeded",
            FindingKind::IntegratedFirst => "integrated_first",
            FindingKind::DeviceWheelMissing => "device_wheel_missing",
            FindingKind::SdkVersionMismatch => "sdk_version_mismatch",
            FindingKind::BrokenEnvironment => "broken_environment",
            FindingKind::HipblasltUnsupported => "hipblaslt_unsupported",
            FindingKind::OllamaVulkan => "ollama_vulkan",
            FindingKind::LibraryPathOverride => "library_path_override",
            FindingKind::LibraryNotFound => "library_not_found",
            FindingKind::KpackMismatch => "kpack_mismatch",
            FindingKind::DevicePermission => "device_permission",
            FindingKind::ContainerWithoutDevices => "container_without_devices",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Which failure mode.
    pub kind: FindingKind,
    /// The device it is about, if one.
    pub device: Option<usize>,
    /// The install or environment it is about, if one.
    pub subject: Option<String>,
    /// What is wrong.
    pub text: String,
    /// What to do.
    pub fix: String,
    /// Evidence.
    pub evidence: Evidence,
}

/// GPUs that are part of an APU (the arch table's products: Ryzen G parts, the Steam Deck,
/// Radeon 680M/780M/860M/890M, Ryzen 7000 desktop graphics, Strix Halo's 8060S).
const INTEGRATED: &[&str] = &[
    "gfx902", "gfx909", "gfx90c", "gfx1033", "gfx1035", "gfx1036", "gfx1037", "gfx1103", "gfx1150",
    "gfx1151", "gfx1152", "gfx1153",
];

#[allow(clippy::too_many_arguments)]
fn finding(
    kind: FindingKind,
    device: Option<usize>,
    subject: Option<&str>,
    class: Class,
    at: &str,
    text: String,
    fix: String,
) -> Finding {
    let rule = format!("survey.finding.{}", kind.as_str());
    Finding {
        kind,
        device,
        subject: subject.map(str::to_string),
        evidence: Evidence::new(class, Proof::ShippedArtifactVerified, &rule)
            .at(Locator::file(at))
            .because(text.clone()),
        text,
        fix,
    }
}

/// Every finding of a survey.
pub fn findings(
    devices: &[SurveyDevice],
    envs: &[PythonEnv],
    installs: &[Install],
    verdicts: &[Verdict],
    env: &Env,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for v in verdicts {
        let (Some(d), Some(i)) = (
            devices.iter().find(|d| d.index == v.device),
            installs.iter().find(|i| i.label == v.install),
        ) else {
            continue;
        };
        out.extend(override_finding(d, i, v));
        out.extend(hipblaslt(d, i, v));
        out.extend(ollama_vulkan(d, i, v));
        out.extend(kpack(d, i, v));
    }
    out.extend(integrated_first(devices, env));
    for e in envs {
        out.extend(env_findings(devices, e));
    }
    for i in installs {
        out.extend(loader_findings(i));
    }
    out
}

/// Instruction-set features `p` has and `d` lacks (by LLVM's processor table).
pub fn extra_features(p: &TargetInfo, d: &TargetInfo) -> Vec<String> {
    let mut out = Vec::new();
    if p.generation != d.generation {
        out.push(format!(
            "another encoding generation ({:?} vs {:?})",
            p.generation, d.generation
        ));
    }
    let flag = |has: bool, lacks: bool, name: &str, out: &mut Vec<String>| {
        if has && !lacks {
            out.push(name.to_string());
        }
    };
    flag(p.dl_insts, d.dl_insts, "DL instructions", &mut out);
    for n in p.dot.iter().filter(|n| !d.dot.contains(n)) {
        out.push(format!("dot{n}"));
    }
    flag(p.mfma.is_some(), d.mfma.is_some(), "MFMA", &mut out);
    flag(p.wmma.is_some(), d.wmma.is_some(), "WMMA", &mut out);
    flag(p.packed_fp32, d.packed_fp32, "packed FP32", &mut out);
    flag(p.mix_insts, d.mix_insts, "mad/fma mix", &mut out);
    flag(p.fp8, d.fp8, "FP8", &mut out);
    flag(p.xf32, d.xf32, "XF32", &mut out);
    out
}

/// `10.3.0` for gfx1030.
fn version(t: &TargetInfo) -> String {
    format!("{}.{}.{}", t.version.0, t.version.1, t.version.2)
}

/// Where to set a variable for a scope.
fn where_to_set(scope: &str, assignment: &str) -> String {
    if scope == SHELL {
        format!("export {assignment} in the shell that starts the program (or /etc/environment)")
    } else {
        format!(
            "systemctl edit {scope}, then under [Service] Environment={assignment}, and restart it"
        )
    }
}

/// Override forgotten, misapplied or unneeded; a framework without the target.
fn override_finding(d: &SurveyDevice, i: &Install, v: &Verdict) -> Option<Finding> {
    let dp = d.device.target.processor.as_str();
    let dinfo = rocpath_arch::target(dp)?;
    let code: Vec<_> = v
        .check
        .libraries
        .iter()
        .filter(|l| l.kind == rocpath_inventory::check::Checked::CodeObjects)
        .collect();
    match &v.r#override {
        Some(ov) => {
            let p = ov.processor.as_deref()?;
            let pinfo = rocpath_arch::target(p)?;
            let extra = extra_features(pinfo, dinfo);
            if p != dp && !extra.is_empty() {
                let text = format!(
                    "{}={} in {} makes device {} ({dp}) run code built for {p}, which has instructions {dp} lacks: {}; kernels that use them fail (illegal instruction, GPU hang, wrong results)",
                    ov.source,
                    ov.value,
                    i.scope,
                    d.index,
                    extra.join(", ")
                );
                let fix = format!(
                    "remove the override and use a build with {dp} code, or name a processor without those instructions"
                );
                return Some(finding(
                    FindingKind::OverrideMisapplied,
                    Some(d.index),
                    Some(&i.label),
                    Class::Inferred,
                    &i.host,
                    text,
                    fix,
                ));
            }
            let native = !code.is_empty()
                && code
                    .iter()
                    .all(|l| l.verdict == rocpath_inventory::check::Verdict::Runs);
            native.then(|| {
                let text = format!(
                    "{}={} in {} is not needed for {}: every library has code for device {} ({dp}) itself",
                    ov.source, ov.value, i.scope, i.label, d.index
                );
                let fix = "remove the override: the GPU's own code is tuned for it, and the override can take a slower or wrong path".to_string();
                finding(FindingKind::OverrideUnneeded, Some(d.index), Some(&i.label), Class::Inferred, &i.host, text, fix)
            })
        }
        None if v.outcome == Outcome::NoCode => missing_target(d, i, dinfo, &code),
        None => None,
    }
}

/// No code for the GPU and no override: a processor of the same generic family with no
/// instruction the GPU lacks is the override to set; without one the target is missing.
fn missing_target(
    d: &SurveyDevice,
    i: &Install,
    dinfo: &TargetInfo,
    code: &[&rocpath_inventory::check::LibraryCheck],
) -> Option<Finding> {
    let dp = dinfo.name;
    let mut shipped: Vec<&str> = code
        .iter()
        .flat_map(|l| l.targets.iter().map(String::as_str))
        .collect();
    shipped.sort();
    shipped.dedup();
    let candidate = shipped
        .iter()
        .filter_map(|t| {
            let proc_ = t.split(':').next().unwrap_or(t);
            let info = rocpath_arch::target(proc_)?;
            let same = info.generic.is_some() && info.generic == dinfo.generic && proc_ != dp;
            (same && extra_features(info, dinfo).is_empty()).then_some(info)
        })
        .next();
    if let Some(p) = candidate {
        let assignment = format!("HSA_OVERRIDE_GFX_VERSION={}", version(p));
        let text = format!(
            "{} has no code for device {} ({dp}) but has for {}, of the same generic family ({}) with no instruction {dp} lacks",
            i.label,
            d.index,
            p.name,
            dinfo.generic.unwrap_or("")
        );
        let fix = format!(
            "{} — the runtime then reports {}; not a guarantee (a kernel tuned for {} may still misbehave), so compare results once",
            where_to_set(&i.scope, &assignment),
            p.name,
            p.name
        );
        return Some(finding(
            FindingKind::OverrideForgotten,
            Some(d.index),
            Some(&i.label),
            Class::Inferred,
            &i.host,
            text,
            fix,
        ));
    }
    if !matches!(i.kind, Kind::Python | Kind::Ollama | Kind::LlamaCpp) {
        return None;
    }
    let text = format!(
        "{} is built without device {}'s target {dp}: it ships {}",
        i.label,
        d.index,
        if shipped.is_empty() {
            "no AMD GPU code".to_string()
        } else {
            shipped.join(" ")
        }
    );
    let fix = format!(
        "install a build whose target list includes {dp} (its release notes or the wheel's index name the targets), or build it with {dp} added (PYTORCH_ROCM_ARCH, AMDGPU_TARGETS)"
    );
    Some(finding(
        FindingKind::TargetMissing,
        Some(d.index),
        Some(&i.label),
        Class::Confirmed,
        &i.host,
        text,
        fix,
    ))
}

/// hipBLASLt without kernels for the GPU (a fall-back the verdict found).
fn hipblaslt(d: &SurveyDevice, i: &Install, v: &Verdict) -> Option<Finding> {
    let f = v
        .fallbacks
        .iter()
        .find(|f| f.evidence.rule == rules::FALLBACK_TENSILE && f.library.contains("hipblaslt"))?;
    let dp = &d.device.target.processor;
    let text = format!(
        "{}: hipBLASLt has no kernels for device {} ({dp}); its calls fail, and what uses it must take rocBLAS/Tensile",
        i.label, d.index
    );
    let fix = "keep GEMMs on rocBLAS: ROCBLAS_USE_HIPBLASLT=0 for rocBLAS, TORCH_BLAS_PREFER_HIPBLASLT=0 for PyTorch".to_string();
    Some(finding(
        FindingKind::HipblasltUnsupported,
        Some(d.index),
        Some(&i.label),
        Class::Inferred,
        &f.library,
        text,
        fix,
    ))
}

/// Ollama without ggml-hip kernels for the GPU, with a Vulkan backend beside them.
fn ollama_vulkan(d: &SurveyDevice, i: &Install, v: &Verdict) -> Option<Finding> {
    if i.kind != Kind::Ollama || v.outcome.positive() || v.outcome == Outcome::Hidden {
        return None;
    }
    let vulkan = i.paths.iter().find(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("libggml-vulkan"))
    })?;
    let dp = &d.device.target.processor;
    let text = format!(
        "{} has no ROCm (ggml-hip) kernels for device {} ({dp}) but ships a Vulkan backend: it runs this GPU through Vulkan, not ROCm",
        i.label, d.index
    );
    let fix = format!(
        "for the ROCm path, an Ollama release or build whose ROCm backend lists {dp}; otherwise Vulkan is the path this install takes"
    );
    Some(finding(
        FindingKind::OllamaVulkan,
        Some(d.index),
        Some(&i.label),
        Class::Inferred,
        &vulkan.display().to_string(),
        text,
        fix,
    ))
}

/// Device nodes this user may not open; a container without them while the host has an AMD GPU
/// on the PCI bus, or without them at all.
pub fn access(a: &crate::access::Access, pci: &[crate::pci::PciGpu]) -> Vec<Finding> {
    let mut out = Vec::new();
    if !a.read {
        return out;
    }
    let blocked: Vec<&crate::access::Node> = a
        .kfd
        .iter()
        .chain(&a.render)
        .filter(|n| !n.usable)
        .collect();
    if !blocked.is_empty() {
        let names: Vec<String> = blocked
            .iter()
            .map(|n| format!("{} (mode {:o}, group {})", n.path, n.mode, n.gid))
            .collect();
        let text = format!(
            "this user (uid {}) may not open {} read-write: the runtime finds no GPU (\"Unable to open /dev/kfd read-write: Permission denied\")",
            a.uid.map(|u| u.to_string()).unwrap_or_else(|| "?".into()),
            names.join(", ")
        );
        let fix = if a.container.is_some() {
            "start the container with --group-add of the nodes' groups (video, render, or their numbers)".to_string()
        } else {
            "sudo usermod -aG render,video $USER, then log in again (or run the program in those groups)".to_string()
        };
        let at = blocked[0].path.clone();
        out.push(finding(
            FindingKind::DevicePermission,
            None,
            None,
            Class::Confirmed,
            &at,
            text,
            fix,
        ));
    }
    if let (Some(kind), None) = (&a.container, &a.kfd) {
        let host_gpu = pci.iter().any(|g| g.is_amd());
        let (text, class) = if host_gpu {
            (
                format!(
                    "this {kind} container has no /dev/kfd although an AMD GPU is on the PCI bus: nothing in it can use the GPU"
                ),
                Class::Confirmed,
            )
        } else {
            (
                format!(
                    "this {kind} container has no /dev/kfd: if its host has an AMD GPU, nothing in here can use it"
                ),
                Class::Inferred,
            )
        };
        let fix = format!("start it with --device=/dev/kfd --device=/dev/dri ({kind} run)");
        out.push(finding(
            FindingKind::ContainerWithoutDevices,
            None,
            None,
            class,
            "/dev/kfd",
            text,
            fix,
        ));
    }
    out
}

/// Libraries whose kpack archives are missing, lost code or do not advertise the device's.
fn kpack(d: &SurveyDevice, i: &Install, v: &Verdict) -> Vec<Finding> {
    use rocpath_inventory::check::rules as c;
    let kpack_rules = [
        c::KPACK_MISSING,
        c::KPACK_NOT_ADVERTISED,
        c::KPACK_CODE_LOST,
    ];
    v.check
        .libraries
        .iter()
        .filter(|l| kpack_rules.contains(&l.evidence.rule.as_str()))
        .map(|l| {
            let text = format!("{} (device {}): {}", l.library, d.index, l.why);
            let fix = "reinstall the package so its .kpack archives and the host library come from the same build (a device wheel or package of the same version)".to_string();
            finding(FindingKind::KpackMismatch, Some(d.index), Some(&i.label), l.evidence.class, &l.library, text, fix)
        })
        .collect()
}

/// An integrated GPU first among several, no visible-devices variable in the shell.
fn integrated_first(devices: &[SurveyDevice], env: &Env) -> Option<Finding> {
    let first = devices.first()?;
    let discrete = devices
        .iter()
        .find(|d| !INTEGRATED.contains(&d.device.target.processor.as_str()))?;
    if !INTEGRATED.contains(&first.device.target.processor.as_str()) {
        return None;
    }
    let chosen = [
        "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "CUDA_VISIBLE_DEVICES",
    ]
    .iter()
    .any(|n| env.get(SHELL, n).is_some());
    if chosen {
        return None;
    }
    let text = format!(
        "device 0 is the integrated GPU ({}) and device {} the discrete one ({}): programs that take the first GPU run on the integrated one",
        first.device.target.processor, discrete.index, discrete.device.target.processor
    );
    let fix = format!(
        "HIP_VISIBLE_DEVICES={} (or ROCR_VISIBLE_DEVICES={}) in the program's scope, or disable the integrated GPU in the firmware",
        discrete.index, discrete.index
    );
    Some(finding(
        FindingKind::IntegratedFirst,
        Some(first.index),
        None,
        Class::Inferred,
        &first.device.source,
        text,
        fix,
    ))
}

/// Whether a device-wheel target covers a processor: `gfx942`; a family with a trailing `x`
/// (`gfx94X-dcgpu`, `gfx110x_all`); a family written with its last digit apart
/// (`amd-torch-device-gfx12-0`: gfx120x).
fn wheel_covers(t: &str, processor: &str) -> bool {
    let t = t.to_ascii_lowercase();
    let mut parts = t.split(['-', '_']);
    let base = parts.next().unwrap_or("");
    let next = parts.next().unwrap_or("");
    if let Some(prefix) = base.strip_suffix('x') {
        return processor.starts_with(prefix);
    }
    if !next.is_empty() && next.bytes().all(|b| b.is_ascii_digit()) {
        return processor.starts_with(&format!("{base}{next}"));
    }
    base == processor
}

/// A broken environment; SDK wheels without the GPU's device wheel or of another version.
fn env_findings(devices: &[SurveyDevice], e: &PythonEnv) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in &e.problems {
        let fix = "recreate the environment (python3 -m venv, conda create) with an interpreter that is there".to_string();
        out.push(finding(
            FindingKind::BrokenEnvironment,
            None,
            Some(&e.path),
            Class::Confirmed,
            &e.path,
            format!("{}: {p}", e.path),
            fix,
        ));
    }
    let Some(sdk) = &e.rocm_sdk else { return out };
    for d in devices {
        let dp = &d.device.target.processor;
        if sdk.device_targets.iter().any(|t| wheel_covers(t, dp)) {
            continue;
        }
        let text = format!(
            "the ROCm SDK wheels in {} have device code for {} but none for device {} ({dp}): kernels fail to launch on it",
            e.path,
            if sdk.device_targets.is_empty() {
                "no target".to_string()
            } else {
                sdk.device_targets.join(" ")
            },
            d.index
        );
        let fix = format!(
            "pip install \"rocm[libraries,device-{dp}]\" in that environment (the wheels' index must carry {dp})"
        );
        out.push(finding(
            FindingKind::DeviceWheelMissing,
            Some(d.index),
            Some(&e.path),
            Class::Inferred,
            &e.path,
            text,
            fix,
        ));
    }
    for u in sdk
        .used_by
        .iter()
        .filter(|u| u.version_matches == Some(false))
    {
        let want = u.check_version.clone().unwrap_or_default();
        let text = format!(
            "{} in {} asks the ROCm SDK wheels for {want} ({}), but {} is installed: rocm_sdk warns, and libraries of another release load",
            u.package,
            e.path,
            u.init,
            sdk.version.as_deref().unwrap_or("another version")
        );
        let fix = format!(
            "pip install \"rocm[libraries]=={}\" (the version {} was built against), or the {} build made for the installed one",
            want.trim_end_matches('*'),
            u.package,
            u.package
        );
        out.push(finding(
            FindingKind::SdkVersionMismatch,
            None,
            Some(&e.path),
            Class::Confirmed,
            &u.init,
            text,
            fix,
        ));
    }
    out
}

/// `LD_LIBRARY_PATH` taking another install's copy of a library the install has itself; a
/// ROCm library found nowhere.
fn loader_findings(i: &Install) -> Vec<Finding> {
    let mut out = Vec::new();
    for u in &i.uses {
        let at = u.path.clone().unwrap_or_else(|| i.host.clone());
        if u.rule == "ld_library_path" && u.install.as_deref() != Some(i.label.as_str()) {
            let own = i.paths.iter().any(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy() == u.library)
            });
            if own {
                let text = format!(
                    "{}: LD_LIBRARY_PATH in {} makes it take {} from {} instead of its own copy",
                    i.label,
                    i.scope,
                    u.library,
                    u.path.as_deref().unwrap_or("?")
                );
                let fix = "unset LD_LIBRARY_PATH for this program (or drop the ROCm folder from it): the bundled copy is the one it was built and tested with".to_string();
                out.push(finding(
                    FindingKind::LibraryPathOverride,
                    None,
                    Some(&i.label),
                    Class::Inferred,
                    &at,
                    text,
                    fix,
                ));
            }
        } else if u.rule == "not_found" {
            let text = format!(
                "{}: {} is found nowhere by the loader: loading it fails",
                i.label, u.library
            );
            let fix = format!(
                "install the ROCm release that provides {} or add its folder to the library path",
                u.library
            );
            out.push(finding(
                FindingKind::LibraryNotFound,
                None,
                Some(&i.label),
                Class::Inferred,
                &at,
                text,
                fix,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_sets_decide_an_override() {
        let t = |n| rocpath_arch::target(n).unwrap();
        // gfx906 has dot instructions gfx900 lacks; gfx1030 has nothing gfx1031 lacks.
        assert!(!extra_features(t("gfx906"), t("gfx900")).is_empty());
        assert!(extra_features(t("gfx1030"), t("gfx1031")).is_empty());
        assert!(!extra_features(t("gfx1100"), t("gfx1030")).is_empty());
    }

    #[test]
    fn device_nodes_a_user_may_not_open_and_a_container_without_them() {
        use crate::access::{Access, Node};
        let node = |path: &str, usable| Node {
            path: path.into(),
            mode: 0o660,
            uid: 0,
            gid: 993,
            usable,
        };
        let a = Access {
            kfd: Some(node("/dev/kfd", false)),
            render: vec![node("/dev/dri/renderD128", true)],
            uid: Some(1000),
            groups: vec![1000],
            container: None,
            read: true,
        };
        let f = access(&a, &[]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, FindingKind::DevicePermission);
        assert!(
            f[0].text.contains("/dev/kfd (mode 660, group 993)"),
            "{}",
            f[0].text
        );
        assert!(f[0].fix.contains("usermod -aG render,video"));
        let c = Access {
            kfd: None,
            container: Some("docker".into()),
            ..a.clone()
        };
        let f = access(&c, &[]);
        assert_eq!(f.last().unwrap().kind, FindingKind::ContainerWithoutDevices);
        assert_eq!(f.last().unwrap().evidence.class, Class::Inferred);
        // An image is not this process's machine: nothing is said.
        assert!(access(&Access::default(), &[]).is_empty());
    }

    #[test]
    fn device_wheel_names() {
        assert!(wheel_covers("gfx942", "gfx942"));
        assert!(wheel_covers("gfx94X-dcgpu", "gfx942"));
        assert!(wheel_covers("gfx110x_all", "gfx1101"));
        assert!(!wheel_covers("gfx942", "gfx90a"));
        assert!(wheel_covers("gfx12_0", "gfx1201"));
        assert!(!wheel_covers("gfx12_0", "gfx1151"));
    }
}
