//! Which folders are on network or pseudo file systems, from `/proc/self/mountinfo` of the
//! surveyed machine: the survey does not descend into them (a slow or hung server must not
//! stall it, and `/proc`-like trees are not installs).

use crate::error::SurveyError;
use std::path::{Path, PathBuf};

/// File system types on the network (or another machine): not descended into.
const NETWORK: &[&str] = &[
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "sshfs",
    "9p",
    "ceph",
    "glusterfs",
    "lustre",
    "afs",
    "davfs",
    "ncpfs",
    "gpfs",
    "beegfs",
    "orangefs",
    "ocfs2",
    "gfs2",
];
/// FUSE file systems that reach the network.
const NETWORK_FUSE: &[&str] = &[
    "sshfs",
    "glusterfs",
    "s3fs",
    "rclone",
    "davfs2",
    "gcsfuse",
    "cephfs",
    "juicefs",
    "smbnetfs",
];
/// Kernel pseudo file systems: nothing installed lives there.
const PSEUDO: &[&str] = &[
    "proc",
    "sysfs",
    "devpts",
    "devtmpfs",
    "cgroup",
    "cgroup2",
    "debugfs",
    "tracefs",
    "securityfs",
    "pstore",
    "bpf",
    "configfs",
    "fusectl",
    "mqueue",
    "hugetlbfs",
    "binfmt_misc",
    "autofs",
    "efivarfs",
];

/// Why a mount is skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// A network file system.
    Network,
    /// A kernel pseudo file system.
    Pseudo,
}

/// One mount that the survey does not descend into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Mount point, as a path in the machine.
    pub point: PathBuf,
    /// File system type (`nfs4`, `fuse.sshfs`).
    pub fstype: String,
    /// Why it is skipped.
    pub skip: Skip,
}

/// How a file system type is treated: `None` when the survey may descend.
pub fn classify(fstype: &str) -> Option<Skip> {
    let sub = fstype
        .strip_prefix("fuse.")
        .or(fstype.strip_prefix("fuseblk."));
    match sub {
        Some(s) if NETWORK_FUSE.contains(&s) => Some(Skip::Network),
        Some(_) => None,
        None if NETWORK.contains(&fstype) => Some(Skip::Network),
        None if PSEUDO.contains(&fstype) => Some(Skip::Pseudo),
        None => None,
    }
}

/// `\040`-style octal escapes of mountinfo paths.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let oct = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (b[i], oct) {
            (b'\\', Some(d)) => {
                let v = d.iter().fold(0u32, |a, c| a * 8 + u32::from(c - b'0'));
                out.push(u8::try_from(v).unwrap_or(b'?'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses mountinfo text; returns the mounts to skip and the malformed lines.
pub fn parse(text: &str, path: &Path) -> (Vec<Mount>, Vec<SurveyError>) {
    let mut mounts = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(' ').collect();
        let sep = fields.iter().position(|f| *f == "-");
        let (Some(point), Some(fstype)) = (fields.get(4), sep.and_then(|s| fields.get(s + 1)))
        else {
            errors.push(SurveyError::Malformed {
                path: path.to_path_buf(),
                line: i + 1,
                what: "not a mountinfo line (no mount point or no `-` before the type)".into(),
            });
            continue;
        };
        if let Some(skip) = classify(fstype) {
            mounts.push(Mount {
                point: PathBuf::from(unescape(point)),
                fstype: (*fstype).to_string(),
                skip,
            });
        }
    }
    (mounts, errors)
}

/// The mount a machine path lies on, if it is one to skip (the longest mount point that
/// prefixes the path).
pub fn skipped<'a>(mounts: &'a [Mount], inside: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| inside.starts_with(&m.point))
        .max_by_key(|m| m.point.as_os_str().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_and_pseudo_mounts() {
        let text = "22 1 0:21 / /proc rw,nosuid - proc proc rw\n\
            30 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
            40 30 0:50 / /home/u/nas rw shared:9 - nfs4 srv:/export rw,vers=4.2\n\
            41 30 0:51 / /mnt/my\\040box rw - fuse.sshfs u@h:/ rw\n\
            42 30 0:52 / /mnt/local rw - fuse.ntfs-3g /dev/sdb1 rw\n\
            garbage\n";
        let (m, e) = parse(text, Path::new("/proc/self/mountinfo"));
        assert_eq!(e.len(), 1);
        assert!(matches!(e[0], SurveyError::Malformed { line: 6, .. }));
        let points: Vec<_> = m.iter().map(|m| m.point.display().to_string()).collect();
        assert_eq!(points, ["/proc", "/home/u/nas", "/mnt/my box"]);
        assert_eq!(
            skipped(&m, Path::new("/home/u/nas/venv")).map(|m| m.skip),
            Some(Skip::Network)
        );
        assert!(skipped(&m, Path::new("/home/u/venv")).is_none());
        assert_eq!(classify("smb3"), Some(Skip::Network));
        assert_eq!(classify("ext4"), None);
    }
}
