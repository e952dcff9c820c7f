//! Whether this user may open the GPU device nodes, as the runtime must: `/dev/kfd` and the
//! DRM render nodes (`/dev/dri/renderD*`) read-write, decided from their mode, owner and group
//! against this process's user and groups (`/proc/self/status`: `Uid`, `Gid`, `Groups`) — the
//! check `rocminfo` fails with "Unable to open /dev/kfd read-write: Permission denied". A
//! container is recognised by `/.dockerenv` or `/run/.containerenv`. Live machine only: a
//! saved image has no device nodes and no process.

use crate::root::Root;
use serde::Serialize;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// One device node.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    /// `/dev/kfd`, `/dev/dri/renderD128`.
    pub path: String,
    /// Permission bits (`0o660`).
    pub mode: u32,
    /// Owner and group ids.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
    /// Whether this user may open it read-write.
    pub usable: bool,
}

/// The device nodes and who is asking.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Access {
    /// `/dev/kfd`, when it is there.
    pub kfd: Option<Node>,
    /// The render nodes.
    pub render: Vec<Node>,
    /// This process's user id.
    pub uid: Option<u32>,
    /// Its groups (primary and supplementary).
    pub groups: Vec<u32>,
    /// `docker` or `podman` when running in a container.
    pub container: Option<String>,
    /// Whether this was read (a live machine).
    pub read: bool,
}

/// `Uid`, `Gid` and `Groups` of `/proc/self/status`.
pub fn ids(status: &str) -> (Option<u32>, Vec<u32>) {
    let mut uid = None;
    let mut groups = Vec::new();
    for l in status.lines() {
        let first = |v: &str| v.split_whitespace().next().and_then(|x| x.parse().ok());
        if let Some(v) = l.strip_prefix("Uid:") {
            uid = first(v);
        } else if let Some(v) = l.strip_prefix("Gid:") {
            groups.extend(first(v));
        } else if let Some(v) = l.strip_prefix("Groups:") {
            groups.extend(v.split_whitespace().filter_map(|x| x.parse::<u32>().ok()));
        }
    }
    groups.sort_unstable();
    groups.dedup();
    (uid, groups)
}

/// Whether `uid` in `groups` may read and write a node of this mode and owner.
pub fn may_open(mode: u32, owner: u32, group: u32, uid: u32, groups: &[u32]) -> bool {
    if uid == 0 {
        return true;
    }
    let rw = |shift: u32| (mode >> shift) & 0o6 == 0o6;
    if uid == owner {
        rw(6)
    } else if groups.contains(&group) {
        rw(3)
    } else {
        rw(0)
    }
}

fn node(path: &Path, uid: u32, groups: &[u32]) -> Option<Node> {
    let md = std::fs::metadata(path).ok()?;
    let mode = md.mode() & 0o7777;
    Some(Node {
        path: path.display().to_string(),
        mode,
        uid: md.uid(),
        gid: md.gid(),
        usable: may_open(mode, md.uid(), md.gid(), uid, groups),
    })
}

/// Reads the device nodes of the live machine (nothing for an image).
pub fn read(root: &Root) -> Access {
    if !root.is_live() {
        return Access::default();
    }
    let status = crate::read_text("/proc/self/status").unwrap_or_default();
    let (uid, groups) = ids(&status);
    let me = uid.unwrap_or(u32::MAX);
    let mut render: Vec<Node> = std::fs::read_dir("/dev/dri")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        .filter_map(|e| node(&e.path(), me, &groups))
        .collect();
    render.sort_by(|a, b| a.path.cmp(&b.path));
    let container = if Path::new("/.dockerenv").exists() {
        Some("docker".to_string())
    } else if Path::new("/run/.containerenv").exists() {
        Some("podman".to_string())
    } else {
        None
    };
    Access {
        kfd: node(Path::new("/dev/kfd"), me, &groups),
        render,
        uid,
        groups,
        container,
        read: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_ids_and_modes() {
        let (uid, groups) = ids(
            "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\t4 24 44 993 1000 \n",
        );
        assert_eq!(uid, Some(1000));
        assert_eq!(groups, [4, 24, 44, 993, 1000]);
        // crw-rw---- root:render (993): a member may, another user may not, root may.
        assert!(may_open(0o660, 0, 993, 1000, &groups));
        assert!(!may_open(0o660, 0, 993, 1001, &[1001]));
        assert!(may_open(0o660, 0, 993, 0, &[0]));
        assert!(may_open(0o666, 0, 993, 1001, &[1001]));
    }
}
