//! Programs rocpath runs to ask the machine something (`rocminfo`, a Python interpreter):
//! never trusted to end or to be small. Each runs with a deadline — past it, it is killed —
//! and its stdout and stderr are read to the end by threads of their own but only the first
//! `max_bytes` of each are kept; what was cut is said.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a program printed, kept within bounds.
#[derive(Debug)]
pub struct Output {
    /// How it ended.
    pub status: ExitStatus,
    /// The first bytes of its stdout.
    pub stdout: Vec<u8>,
    /// The first bytes of its stderr.
    pub stderr: Vec<u8>,
    /// Bytes of stdout past the bound, read and dropped.
    pub stdout_cut: u64,
    /// Bytes of stderr past the bound, read and dropped.
    pub stderr_cut: u64,
}

/// Why a program gave no output.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    /// It could not be started.
    #[error("{program}: cannot start: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// It did not end in time and was killed.
    #[error("{program}: no answer within {secs} s; killed")]
    Timeout {
        /// The program.
        program: String,
        /// The deadline, in seconds.
        secs: u64,
    },
}

/// Reads `r` to its end, keeping the first `max` bytes; returns them and the count dropped.
fn drain(mut r: impl Read, max: u64) -> (Vec<u8>, u64) {
    let mut kept = Vec::new();
    let mut cut = 0u64;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = max.saturating_sub(kept.len() as u64) as usize;
                let take = n.min(room);
                kept.extend_from_slice(&buf[..take]);
                cut += (n - take) as u64;
            }
        }
    }
    (kept, cut)
}

/// Runs `cmd` (stdin closed), waits at most `timeout`, keeps at most `max_bytes` of each of
/// stdout and stderr.
pub fn run(mut cmd: Command, timeout: Duration, max_bytes: u64) -> Result<Output, ChildError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| ChildError::Spawn {
            program: program.clone(),
            source,
        })?;
    let out = child
        .stdout
        .take()
        .map(|o| std::thread::spawn(move || drain(o, max_bytes)));
    let err = child
        .stderr
        .take()
        .map(|e| std::thread::spawn(move || drain(e, max_bytes)));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ChildError::Timeout {
                    program,
                    secs: timeout.as_secs(),
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(source) => {
                let _ = child.kill();
                return Err(ChildError::Spawn { program, source });
            }
        }
    };
    // The readers end when the pipes close (a grandchild holding them open is not waited
    // for past the deadline: its output is dropped).
    let join = |h: Option<std::thread::JoinHandle<(Vec<u8>, u64)>>| {
        h.and_then(|h| {
            let until = start + timeout;
            while !h.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
            h.is_finished().then(|| h.join().ok()).flatten()
        })
        .unwrap_or_default()
    };
    let (stdout, stdout_cut) = join(out);
    let (stderr, stderr_cut) = join(err);
    Ok(Output {
        status,
        stdout,
        stderr,
        stdout_cut,
        stderr_cut,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn a_flood_is_cut_and_counted() {
        let o = run(
            sh("head -c 3000000 /dev/zero; head -c 10 /dev/zero >&2"),
            Duration::from_secs(20),
            1000,
        )
        .unwrap();
        assert!(o.status.success());
        assert_eq!(o.stdout.len(), 1000);
        assert_eq!(o.stdout_cut, 3_000_000 - 1000);
        assert_eq!(o.stderr.len(), 10);
    }

    #[test]
    fn a_program_that_never_ends_is_killed() {
        let t = Instant::now();
        let e = run(sh("sleep 30"), Duration::from_millis(300), 1000).unwrap_err();
        assert!(e.to_string().contains("killed"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let e = run(
            Command::new("/nonexistent/rocpath-no-such-program"),
            Duration::from_secs(1),
            10,
        )
        .unwrap_err();
        assert!(matches!(e, ChildError::Spawn { .. }), "{e}");
    }
}
