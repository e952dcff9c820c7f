//! Whether a checkout's work tree differs from its commit: the source files edited, added
//! or removed since (git's status). Hops in them quote the work tree, not the commit.

use crate::index::Lang;
use std::path::Path;

/// How many changed files a note names.
const NAMED: usize = 3;

/// The source files (relative to `root`, sorted) whose work tree differs from the commit;
/// empty when `root` is not the top of a git checkout or its status cannot be read.
pub fn changed_sources(root: &Path) -> Vec<String> {
    let Ok(repo) = git2::Repository::open(root) else {
        return Vec::new();
    };
    // A loose object cut short would stop the status walk forever inside libgit2.
    if rocpath_git::loose::damaged(repo.path()).is_some() {
        return Vec::new();
    }
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .exclude_submodules(true)
        .include_ignored(false);
    let Ok(statuses) = repo.statuses(Some(&mut opts)) else {
        return Vec::new();
    };
    let mut out: Vec<String> = statuses
        .iter()
        .filter(|e| e.status() != git2::Status::CURRENT)
        .filter_map(|e| e.path().map(str::to_string))
        .filter(|p| Lang::of(Path::new(p)).is_some())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The note for a checkout whose work tree differs from its commit.
pub fn changed_note(name: &str, commit: &str, changed: &[String]) -> String {
    let short = &commit[..commit.len().min(12)];
    let mut named = changed
        .iter()
        .take(NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if changed.len() > NAMED {
        named.push_str(", …");
    }
    format!(
        "{name}: the work tree differs from commit {short} in {} source files ({named}): hops in them quote the work tree, not the commit",
        changed.len()
    )
}
