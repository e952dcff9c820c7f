//! The machine's name (`/proc/sys/kernel/hostname`; `/etc/hostname` in a saved image) and what
//! it runs beneath ROCm: the distribution (`/etc/os-release` `PRETTY_NAME`), the
//! kernel release (`/proc/sys/kernel/osrelease`) and the amdgpu driver — the DKMS module's
//! version (`/sys/module/amdgpu/version`, which only an out-of-tree build has), else the
//! kernel's own driver when `/sys/module/amdgpu` is there, else none loaded.

use crate::root::Root;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The software beneath ROCm.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// The host name (`/proc/sys/kernel/hostname`, else `/etc/hostname`).
    pub hostname: Option<String>,
    /// `Ubuntu 24.04.1 LTS`.
    pub os: Option<String>,
    /// `6.8.0-45-generic`.
    pub kernel: Option<String>,
    /// `6.10.5` (DKMS), `in-kernel`, or None when no amdgpu module is loaded.
    pub amdgpu: Option<String>,
}

fn first_line(root: &Root, path: &str) -> Option<String> {
    let text = crate::read_text(root.join(Path::new(path))).ok()?;
    let l = text.lines().next()?.trim();
    (!l.is_empty()).then(|| l.to_string())
}

/// `PRETTY_NAME="Ubuntu 24.04.1 LTS"` of os-release text.
pub fn pretty_name(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let v = l.trim().strip_prefix("PRETTY_NAME=")?;
        let v = v.trim().trim_matches('"').trim_matches('\'');
        (!v.is_empty()).then(|| v.to_string())
    })
}

/// Reads the machine's distribution, kernel and amdgpu driver.
pub fn read(root: &Root) -> Machine {
    let os = ["/etc/os-release", "/usr/lib/os-release"]
        .iter()
        .find_map(|p| {
            let text = crate::read_text(root.join(Path::new(p))).ok()?;
            pretty_name(&text)
        });
    let amdgpu = first_line(root, "/sys/module/amdgpu/version").or_else(|| {
        root.join(Path::new("/sys/module/amdgpu"))
            .is_dir()
            .then(|| "in-kernel".to_string())
    });
    let hostname = if root.is_live() {
        first_line(root, "/proc/sys/kernel/hostname")
    } else {
        None
    }
    .or_else(|| first_line(root, "/etc/hostname"));
    Machine {
        hostname,
        os,
        kernel: first_line(root, "/proc/sys/kernel/osrelease"),
        amdgpu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release_names() {
        let t = "NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\n";
        assert_eq!(pretty_name(t).as_deref(), Some("Ubuntu 24.04.1 LTS"));
        assert_eq!(pretty_name("NAME=x\n"), None);
    }
}
