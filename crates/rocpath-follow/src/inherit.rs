//! Child processes that inherit the environment: the boundary where an environment variable
//! leaves the repositories even when they read it themselves.
//!
//! A process started without an environment of its own gets its parent's whole environment:
//! Go's `exec.Cmd` with `Env` unset or built from `os.Environ()` (`os/exec`: "If Env is nil,
//! the new process uses the current process's environment"), Python's `subprocess` without
//! `env=` or with a copy of `os.environ`, C's `execvp`/`execlp`/`execv`/`execl`,
//! `posix_spawn[p]` with `environ`, `popen` and `system`. Whatever the child — or a runtime or
//! library it loads (the ROCm runtime reads `HSA_*` and `HIP_*` itself) — does with a variable
//! is outside the repositories; the place it is started is named as the boundary.
//!
//! Found by the text of the file, not its types: a start whose environment is set from
//! something else (`execve`, `Env` assigned without `os.Environ()`) is not an inheritance.
//! A start that hands its environment on explicitly (`os.Environ()`, `os.environ`,
//! `environ`) is told apart from one that inherits by default: where a program does the
//! former (a server starting its runner), the latter are most often helpers (an installer, a
//! browser) and are left out.

use crate::lang::Lang;
use memchr::memmem;

/// A place a child process inherits the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inheritance {
    /// The byte offset to point at.
    pub at: usize,
    /// How it inherits, with the start as written.
    pub how: String,
    /// Handed on explicitly (`os.Environ()`, `os.environ`, `environ`), not by default.
    pub explicit: bool,
}

fn found(at: usize, how: String, explicit: bool) -> Inheritance {
    Inheritance { at, how, explicit }
}

/// Where in the source `src` of a file in `lang` a child process inherits the environment
/// (read from the bytes: the file is not parsed).
pub fn inheritance(lang: Lang, src: &[u8]) -> Option<Inheritance> {
    match lang {
        Lang::Go => go(src),
        Lang::Python => python(src),
        Lang::Cpp => cpp(src),
    }
}

/// The 1-based line of a byte offset.
pub fn line_of(src: &[u8], at: usize) -> u64 {
    memchr::memchr_iter(b'\n', &src[..at.min(src.len())]).count() as u64 + 1
}

fn find(src: &[u8], pat: &str) -> Option<usize> {
    memmem::find(src, pat.as_bytes())
}

/// The call's text from `at` to the end of its line, for the note.
fn call_text(src: &[u8], at: usize) -> String {
    let rest = &src[at..src.len().min(at + 120)];
    let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    String::from_utf8_lossy(&rest[..end]).trim().to_string()
}

fn go(src: &[u8]) -> Option<Inheritance> {
    let start = find(src, "exec.CommandContext(").or_else(|| find(src, "exec.Command("))?;
    let cmd = call_text(src, start);
    if let Some(env) = find(src, "os.Environ()") {
        let how = format!(
            "the process started by `{cmd}` gets this process's environment (`os.Environ()`)"
        );
        return Some(found(env, how, true));
    }
    let sets_env = find(src, ".Env =").is_some() || find(src, "Env:").is_some();
    (!sets_env).then(|| {
        let how = format!(
            "the process started by `{cmd}` inherits this process's environment (its `Env` is not set)"
        );
        found(start, how, false)
    })
}

fn python(src: &[u8]) -> Option<Inheritance> {
    let start = find(src, "subprocess.").or_else(|| find(src, "os.execvp("))?;
    let cmd = call_text(src, start);
    if find(src, "env=").is_none() {
        let how = format!(
            "the process started by `{cmd}` inherits this process's environment (no `env=`)"
        );
        return Some(found(start, how, false));
    }
    find(src, "os.environ").map(|at| {
        let how = format!(
            "the process started by `{cmd}` gets a copy of this process's environment (`os.environ`)"
        );
        found(at, how, true)
    })
}

fn cpp(src: &[u8]) -> Option<Inheritance> {
    for pat in [
        "execvp(",
        "execlp(",
        "execv(",
        "execl(",
        "posix_spawnp(",
        "posix_spawn(",
        "popen(",
        "system(",
    ] {
        if let Some(at) = find(src, pat) {
            // `posix_spawn(…, environ)` inherits; with another array it does not.
            if pat.starts_with("posix_spawn") && find(src, "environ").is_none() {
                continue;
            }
            let cmd = call_text(src, at);
            let how = format!("the process started by `{cmd}` inherits this process's environment");
            return Some(found(at, how, pat.starts_with("posix_spawn")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_inherits_unless_env_is_set_from_elsewhere() {
        let with = b"cmd := exec.Command(exe)\ncmd.Env = append(os.Environ(), \"A=1\")\n";
        let i = go(with).unwrap();
        assert_eq!(&with[i.at..i.at + 12], b"os.Environ()");
        assert!(i.how.contains("exec.Command(exe)") && i.explicit, "{i:?}");
        let by_default = go(b"cmd := exec.Command(exe)\ncmd.Run()\n").unwrap();
        assert!(by_default.how.contains("not set") && !by_default.explicit);
        assert_eq!(
            go(b"cmd := exec.Command(exe)\ncmd.Env = []string{\"A=1\"}\n"),
            None
        );
        assert_eq!(go(b"for _, kv := range os.Environ() {}\n"), None);
    }

    #[test]
    fn lines_of_offsets() {
        assert_eq!(line_of(b"a\nb\nc", 0), 1);
        assert_eq!(line_of(b"a\nb\nc", 2), 2);
        assert_eq!(line_of(b"a\nb\nc", 4), 3);
        assert_eq!(line_of(b"a", 99), 1);
    }

    #[test]
    fn python_and_c_starts() {
        assert!(python(b"subprocess.run(['x'])\n").is_some());
        assert!(python(b"subprocess.run(['x'], env=dict(os.environ, A='1'))\n").is_some());
        assert_eq!(python(b"subprocess.run(['x'], env={'A': '1'})\n"), None);
        assert!(cpp(b"execvp(argv[0], argv);\n").is_some());
        assert_eq!(cpp(b"execve(path, argv, envp);\n"), None);
        assert_eq!(cpp(b"posix_spawn(&pid, path, 0, 0, argv, envp);\n"), None);
        assert!(cpp(b"posix_spawn(&pid, path, 0, 0, argv, environ);\n").is_some());
    }
}
