//! The one way rocpath opens a file a user names (an argument, a file found in a folder walk,
//! a path in a study file or in an imported document): regular files only — a FIFO, a device,
//! a socket, and the kernel's pseudo files under `/proc` and `/sys` are refused by name before
//! anything is opened —, the size taken from the metadata and reserved from the run's memory
//! budget before a byte is read, and never more read than that size (a file that grows while
//! it is read is an error for that file, not a larger allocation).
//!
//! Streaming readers use [`open`] and read through the returned [`Input`]; readers that need
//! the whole file use [`read_bytes`] or [`read_text`], which keep the reservation with the
//! bytes.

use crate::{MemoryBudget, OverBudget, Reservation};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a named input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Not a regular file.
    #[error("{}: {what}, not a regular file: give a file (rocpath does not read pipes, devices or sockets)", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is (`a FIFO`, `a character device`, …).
        what: &'static str,
    },
    /// A pseudo file of the kernel.
    #[error("{}: a kernel pseudo file ({root}): its size is not its content; copy what you need to a file and give that", path.display())]
    Pseudo {
        /// The path.
        path: PathBuf,
        /// `/proc` or `/sys`.
        root: &'static str,
    },
    /// Larger than the caller accepts.
    #[error("{}: {len} bytes, more than the {limit} bytes {what} can be", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its size.
        len: u64,
        /// The limit.
        limit: u64,
        /// What the file was expected to be.
        what: &'static str,
    },
    /// The run's memory budget cannot hold it.
    #[error("{}: {source}", path.display())]
    Budget {
        /// The path.
        path: PathBuf,
        /// The refusal (it says how to raise the budget).
        source: OverBudget,
    },
    /// It changed size while it was read.
    #[error("{}: the file changed while it was read ({expected} bytes when opened); read it again when it is complete", path.display())]
    Changed {
        /// The path.
        path: PathBuf,
        /// Its size when opened.
        expected: u64,
    },
    /// Text that is not UTF-8.
    #[error("{}: not UTF-8 text at byte {offset}", path.display())]
    NotUtf8 {
        /// The path.
        path: PathBuf,
        /// Where.
        offset: usize,
    },
    /// The system refused.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl InputError {
    /// The error as an `io::Error` whose message does not repeat the path (for callers whose
    /// own errors name the path).
    pub fn into_io(self) -> std::io::Error {
        let text = self.to_string();
        let prefix = format!("{}: ", self.path().display());
        match self {
            InputError::Io { source, .. } => source,
            _ => std::io::Error::other(text.strip_prefix(&prefix).unwrap_or(&text).to_string()),
        }
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::NotRegular { path, .. }
            | InputError::Pseudo { path, .. }
            | InputError::TooLarge { path, .. }
            | InputError::Budget { path, .. }
            | InputError::Changed { path, .. }
            | InputError::NotUtf8 { path, .. }
            | InputError::Io { path, .. } => path,
        }
    }
}

/// A named input, open, with its size when opened.
#[derive(Debug)]
pub struct Input {
    /// The path as given.
    pub path: PathBuf,
    /// Its size when opened.
    pub len: u64,
    file: File,
}

impl Input {
    /// The open file, to stream from (read at most [`Input::len`] bytes of it).
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// A reader that stops at the size the file had when opened.
    pub fn reader(&mut self) -> std::io::Take<&mut File> {
        let len = self.len;
        (&mut self.file).take(len)
    }
}

/// The kernel pseudo-file root a path is under, if any (by name and after resolving links).
fn pseudo_root(path: &Path) -> Option<&'static str> {
    let under = |p: &Path| ["/proc", "/sys"].into_iter().find(|r| p.starts_with(r));
    under(path).or_else(|| std::fs::canonicalize(path).ok().and_then(|c| under(&c)))
}

/// Checks what `path` is, then opens it: a regular file outside `/proc` and `/sys`.
pub fn open(path: &Path) -> Result<Input, InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(root) = pseudo_root(path) {
        return Err(InputError::Pseudo {
            path: path.to_path_buf(),
            root,
        });
    }
    let md = std::fs::metadata(path).map_err(io)?;
    if md.is_dir() {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            what: "a folder",
        });
    }
    if let Some(what) = crate::special::non_regular(md.file_type()) {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            what,
        });
    }
    let file = File::open(path).map_err(io)?;
    // The type again, of what was opened: the path may have been swapped in between.
    let md2 = file.metadata().map_err(io)?;
    if let Some(what) = crate::special::non_regular(md2.file_type()) {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            what,
        });
    }
    Ok(Input {
        path: path.to_path_buf(),
        len: md2.len(),
        file,
    })
}

/// Reads a whole named file of at most `limit` bytes, its size reserved from `budget` first;
/// the reservation comes back with the bytes and is returned when it is dropped.
pub fn read_bytes(
    path: &Path,
    budget: &MemoryBudget,
    limit: u64,
    what: &'static str,
) -> Result<(Vec<u8>, Reservation), InputError> {
    let mut input = open(path)?;
    if input.len > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            len: input.len,
            limit,
            what,
        });
    }
    let held = budget
        .reserve(input.len)
        .map_err(|source| InputError::Budget {
            path: path.to_path_buf(),
            source,
        })?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(input.len as usize)
        .map_err(|_| InputError::Budget {
            path: path.to_path_buf(),
            source: OverBudget {
                requested: input.len,
                available: 0,
                limit: budget.limit(),
            },
        })?;
    let expected = input.len;
    // One byte more than the size, to see a file that grew.
    (&mut input.file)
        .take(expected.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if buf.len() as u64 != expected {
        return Err(InputError::Changed {
            path: path.to_path_buf(),
            expected,
        });
    }
    Ok((buf, held))
}

/// [`read_bytes`] for UTF-8 text.
pub fn read_text(
    path: &Path,
    budget: &MemoryBudget,
    limit: u64,
    what: &'static str,
) -> Result<(String, Reservation), InputError> {
    let (bytes, held) = read_bytes(path, budget, limit, what)?;
    let text = String::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })?;
    Ok((text, held))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file_by_name() {
        let b = MemoryBudget::new(1 << 20);
        for (p, want) in [
            ("/dev/zero", "a character device"),
            ("/proc/self/status", "kernel pseudo file"),
            ("/", "a folder"),
        ] {
            let e = read_bytes(Path::new(p), &b, 1 << 30, "a test input")
                .map(|_| ())
                .unwrap_err();
            assert!(e.to_string().contains(want), "{p}: {e}");
        }
    }

    #[test]
    fn reserves_the_size_and_refuses_past_the_budget() {
        let dir = std::env::temp_dir().join(format!("rocpath-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.txt");
        std::fs::write(&f, vec![b'x'; 4096]).unwrap();
        let b = MemoryBudget::with_wait(6000, std::time::Duration::ZERO);
        let (t, held) = read_text(&f, &b, 1 << 20, "a test input").unwrap();
        assert_eq!(t.len(), 4096);
        assert_eq!(b.in_use(), 4096);
        let e = read_bytes(&f, &b, 1 << 20, "a test input")
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().contains("--max-memory"), "{e}");
        drop(held);
        assert_eq!(b.in_use(), 0);
        let e = read_bytes(&f, &b, 100, "a test input")
            .map(|_| ())
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("more than the 100 bytes a test input can be"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = std::env::temp_dir().join(format!("rocpath-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&f).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let e = open(&f).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
