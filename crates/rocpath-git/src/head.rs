//! The commit a checkout is at, read from `.git` without a git library: `HEAD` (a branch
//! ref or a detached hash), loose refs, `packed-refs`, and worktrees (`.git` file with
//! `gitdir:`).

use std::path::{Path, PathBuf};

/// Where HEAD points.
#[derive(Debug, Clone, Default)]
pub struct Head {
    /// The commit hash, when it could be read.
    pub commit: Option<String>,
    /// The branch, when HEAD is a symbolic ref.
    pub branch: Option<String>,
    /// Why the commit is unknown (not a git checkout, unreadable HEAD, dangling ref).
    pub problem: Option<String>,
}

/// Largest `.git` file, `HEAD`, `commondir` or loose ref read (a FIFO or device there is
/// refused, not waited on).
const SMALL: u64 = 1 << 20;
/// Largest `packed-refs` read.
const PACKED_REFS: u64 = 256 << 20;

fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot = root.join(".git");
    if dot.is_dir() {
        return Some(dot);
    }
    let text = rocpath_budget::read_small_text(&dot, SMALL).ok()?;
    let p = text.trim().strip_prefix("gitdir:")?.trim();
    let p = PathBuf::from(p);
    Some(if p.is_absolute() { p } else { root.join(p) })
}

fn is_hash(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Reads HEAD of the checkout at `root`.
pub fn head(root: &Path) -> Head {
    let Some(gd) = git_dir(root) else {
        return Head {
            problem: Some(format!(
                "{}: not a git checkout; gates carry no commit",
                root.display()
            )),
            ..Head::default()
        };
    };
    let head = match rocpath_budget::read_small_text(&gd.join("HEAD"), SMALL) {
        Ok(h) => h,
        Err(e) => {
            return Head {
                problem: Some(format!("{}: cannot read HEAD: {e}", gd.display())),
                ..Head::default()
            };
        }
    };
    let h = head.trim();
    if is_hash(h) {
        return Head {
            commit: Some(h.to_string()),
            ..Head::default()
        };
    }
    let Some(r) = h.strip_prefix("ref:").map(str::trim) else {
        return Head {
            problem: Some(format!(
                "{}: HEAD is neither a ref nor a hash: {h:?}",
                gd.display()
            )),
            ..Head::default()
        };
    };
    let branch = r.strip_prefix("refs/heads/").unwrap_or(r).to_string();
    // A worktree's refs live in the common dir.
    let common = rocpath_budget::read_small_text(&gd.join("commondir"), SMALL)
        .ok()
        .map(|c| {
            let p = PathBuf::from(c.trim());
            if p.is_absolute() { p } else { gd.join(p) }
        })
        .unwrap_or_else(|| gd.clone());
    for dir in [&gd, &common] {
        if let Ok(t) = rocpath_budget::read_small_text(&dir.join(r), SMALL) {
            let t = t.trim();
            if is_hash(t) {
                return Head {
                    commit: Some(t.to_string()),
                    branch: Some(branch),
                    problem: None,
                };
            }
        }
        if let Ok(packed) = rocpath_budget::read_small_text(&dir.join("packed-refs"), PACKED_REFS) {
            for line in packed.lines() {
                if let Some((hash, name)) = line.split_once(' ') {
                    if name == r && is_hash(hash) {
                        return Head {
                            commit: Some(hash.to_string()),
                            branch: Some(branch),
                            problem: None,
                        };
                    }
                }
            }
        }
    }
    Head {
        branch: Some(branch.clone()),
        problem: Some(format!(
            "{}: branch {branch} has no commit (empty or corrupt repository)",
            gd.display()
        )),
        ..Head::default()
    }
}
