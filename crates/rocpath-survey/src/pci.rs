//! The machine's GPUs as the PCI bus and their drivers show them, whatever their maker: the
//! PCI vendor id of every DRM card (`/sys/class/drm/card*/device/vendor`, with the driver bound
//! to it) and the NVIDIA driver's own list (`/proc/driver/nvidia/gpus/*/information`, present
//! even when no DRM card is made for the GPU). The KFD topology only lists AMD GPUs; this is
//! how a machine whose GPUs are NVIDIA's or Intel's is told so instead of being asked about
//! the amdgpu driver.

use crate::root::Root;
use crate::rules;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where DRM cards are on a machine.
pub const DRM: &str = "/sys/class/drm";
/// Where the NVIDIA driver lists its GPUs.
pub const NVIDIA_PROC: &str = "/proc/driver/nvidia/gpus";

/// AMD's PCI vendor id.
pub const AMD: u16 = 0x1002;
/// NVIDIA's PCI vendor id.
pub const NVIDIA: u16 = 0x10de;
/// Intel's PCI vendor id.
pub const INTEL: u16 = 0x8086;

/// Vendors of display controllers that run no GPU code (servers' management controllers,
/// virtual machines' emulated cards).
const DISPLAY_ONLY: &[(u16, &str)] = &[
    (0x1a03, "ASPEED"),
    (0x102b, "Matrox"),
    (0x1013, "Cirrus Logic"),
    (0x1234, "QEMU"),
    (0x1af4, "virtio"),
    (0x15ad, "VMware"),
    (0x1414, "Microsoft Hyper-V"),
];

/// One GPU or display controller seen on the PCI bus.
#[derive(Debug, Clone, Serialize)]
pub struct PciGpu {
    /// `AMD`, `NVIDIA`, `Intel`, a display controller's maker, or the id in hex.
    pub vendor: String,
    /// PCI vendor id (`0x10de`).
    pub vendor_id: String,
    /// PCI device id, when read.
    pub device_id: Option<String>,
    /// PCI address (`0000:01:00.0`), when known.
    pub address: Option<String>,
    /// The DRM card (`card0`), when there is one.
    pub card: Option<String>,
    /// The kernel driver bound to it (`amdgpu`, `nvidia`, `i915`), when one is.
    pub driver: Option<String>,
    /// The model, when the driver names it (NVIDIA's `Model:` line).
    pub model: Option<String>,
    /// A display controller only (a server's BMC, a virtual machine's card): no GPU code runs
    /// on it.
    pub display_only: bool,
    /// Evidence.
    pub evidence: Evidence,
}

impl PciGpu {
    /// Whether it is an AMD GPU.
    pub fn is_amd(&self) -> bool {
        self.vendor_id == hex(AMD)
    }

    /// How it is named in a sentence: `card0 NVIDIA GeForce RTX 3090, driver nvidia`.
    pub fn describe(&self) -> String {
        let place = self
            .card
            .clone()
            .or(self.address.clone())
            .unwrap_or_default();
        let what = match &self.model {
            Some(m) => m.clone(),
            None => match &self.device_id {
                Some(d) => format!("{} {}:{d}", self.vendor, self.vendor_id),
                None => format!("{} {}", self.vendor, self.vendor_id),
            },
        };
        let driver = match &self.driver {
            Some(d) => format!("driver {d}"),
            None => "no driver bound".to_string(),
        };
        let display = if self.display_only {
            " (a display controller)"
        } else {
            ""
        };
        format!("{place} {what}{display}, {driver}")
            .trim()
            .to_string()
    }
}

fn hex(id: u16) -> String {
    format!("{id:#06x}")
}

/// The vendor's name and whether it only drives displays.
fn vendor_name(id: u16) -> (String, bool) {
    match id {
        AMD => ("AMD".into(), false),
        NVIDIA => ("NVIDIA".into(), false),
        INTEL => ("Intel".into(), false),
        _ => match DISPLAY_ONLY.iter().find(|(v, _)| *v == id) {
            Some((_, n)) => ((*n).to_string(), true),
            None => (hex(id), false),
        },
    }
}

/// Reads the PCI GPUs of the machine under `root`: DRM cards first, then the NVIDIA driver's
/// GPUs that no card already stands for. Absent folders give nothing.
pub fn read(root: &Root) -> Vec<PciGpu> {
    let mut out = drm_cards(root);
    for g in nvidia_proc(root) {
        let known = out
            .iter()
            .any(|o| o.address.is_some() && o.address == g.address);
        if !known {
            out.push(g);
        }
    }
    out
}

/// The names in a machine folder, sorted (nothing when it cannot be read).
fn names(root: &Root, dir: &Path) -> Vec<String> {
    let Ok(real) = root.resolve(dir) else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir(root.join(&real)) else {
        return Vec::new();
    };
    let mut v: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort_by_key(|n| (n.len(), n.clone()));
    v
}

/// A PCI id file (`0x10de\n`).
fn read_id(host: &Path) -> Option<u16> {
    let text = crate::read_text(host).ok()?;
    u16::from_str_radix(text.trim().trim_start_matches("0x"), 16).ok()
}

fn is_card(name: &str) -> bool {
    name.strip_prefix("card")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn drm_cards(root: &Root) -> Vec<PciGpu> {
    let mut out = Vec::new();
    for name in names(root, Path::new(DRM))
        .into_iter()
        .filter(|n| is_card(n))
    {
        let inside = Path::new(DRM).join(&name).join("device");
        let Ok(dev) = root.resolve(&inside) else {
            continue;
        };
        let host = root.join(&dev);
        let vendor_file = host.join("vendor");
        let Some(vendor) = read_id(&vendor_file) else {
            continue;
        };
        let driver = std::fs::read_link(host.join("driver"))
            .ok()
            .and_then(|t| t.file_name().map(|n| n.to_string_lossy().into_owned()));
        let address = dev
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|a| a.contains(':'));
        let path = inside.join("vendor");
        out.push(gpu(
            vendor,
            read_id(&host.join("device")).map(hex),
            address,
            Some(name),
            driver,
            None,
            &path,
        ));
    }
    out
}

fn nvidia_proc(root: &Root) -> Vec<PciGpu> {
    let mut out = Vec::new();
    for addr in names(root, Path::new(NVIDIA_PROC)) {
        let path = Path::new(NVIDIA_PROC).join(&addr).join("information");
        let text = crate::read_text(root.join(&path)).unwrap_or_default();
        let model = text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "Model").then(|| v.trim().to_string())
        });
        out.push(gpu(
            NVIDIA,
            None,
            Some(addr.to_lowercase()),
            None,
            Some("nvidia".into()),
            model.filter(|m| !m.is_empty()),
            &path,
        ));
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn gpu(
    vendor: u16,
    device_id: Option<String>,
    address: Option<String>,
    card: Option<String>,
    driver: Option<String>,
    model: Option<String>,
    path: &Path,
) -> PciGpu {
    let (name, display_only) = vendor_name(vendor);
    let path: PathBuf = path.to_path_buf();
    let evidence = Evidence::new(Class::Confirmed, Proof::RuntimeVerified, rules::PCI_GPU)
        .at(Locator::file(path.display().to_string()))
        .because(format!("PCI vendor {} ({name})", hex(vendor)));
    PciGpu {
        vendor: name,
        vendor_id: hex(vendor),
        device_id,
        address,
        card,
        driver,
        model,
        display_only,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_names_and_cards() {
        assert_eq!(vendor_name(0x10de), ("NVIDIA".to_string(), false));
        assert_eq!(vendor_name(0x1a03), ("ASPEED".to_string(), true));
        assert_eq!(vendor_name(0xabcd), ("0xabcd".to_string(), false));
        assert!(is_card("card0") && is_card("card12"));
        assert!(!is_card("card0-DP-1") && !is_card("card") && !is_card("renderD128"));
    }
}
