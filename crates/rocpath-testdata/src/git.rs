//! Git repositories built inside tests: every command runs with a fixed author, committer and
//! date, and without the user's or the system's git configuration, so hashes and histories are
//! the same on every machine.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `git ARGS` in `dir` as `who` (name, e-mail) at `date` (any date git accepts) and
/// returns its output, whatever its exit status.
pub fn git_output(
    dir: &Path,
    args: &[&str],
    who: (&str, &str),
    date: &str,
) -> std::io::Result<Output> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", who.0)
        .env("GIT_AUTHOR_EMAIL", who.1)
        .env("GIT_COMMITTER_NAME", who.0)
        .env("GIT_COMMITTER_EMAIL", who.1)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
}

/// Like [`git_output`] for a command that must succeed: returns its trimmed stdout, and fails
/// the test with git's message otherwise.
#[allow(clippy::panic)]
pub fn git(dir: &Path, args: &[&str], who: (&str, &str), date: &str) -> String {
    let out = match git_output(dir, args, who, date) {
        Ok(o) => o,
        Err(e) => panic!("git {args:?} did not run: {e}"),
    };
    if !out.status.success() {
        panic!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Whether git can be run here; when it cannot, the test skips ([`crate::missing`]: a failure
/// under CI).
pub fn have_git() -> bool {
    let ok = Command::new("git").arg("--version").output().is_ok();
    if !ok {
        crate::missing("git is not installed");
    }
    ok
}
