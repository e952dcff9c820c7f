//! Why a file or folder of a case could not be listed or read (shared by the readers and
//! `case.json`'s reader).

use std::path::{Path, PathBuf};

/// Why a file or folder of a case could not be listed or read. Every error names its file
/// ([`CaseError::path`]) and, where known, the place in it ([`CaseError::line`],
/// [`CaseError::offset`]); it displays as `path: message`.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The operating system refused to list or open it (missing, permissions).
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A FIFO, device or socket: opening it could wait forever or never end.
    NotRegular {
        /// The path given.
        path: PathBuf,
        /// `a FIFO`, `a character device`, …
        what: &'static str,
    },
    /// Reading stopped part-way; what was read before `offset` is in the report.
    Read {
        /// The file.
        path: PathBuf,
        /// Bytes read before the error.
        offset: u64,
        /// The error.
        error: std::io::Error,
    },
    /// `case.json` is not the runner's record; the case's logs are read without it.
    Meta {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: u64,
        /// 1-based column of the error.
        column: u64,
        /// The error.
        error: serde_json::Error,
    },
}

impl CaseError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CaseError + '_ {
        move |error| CaseError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    /// The file or folder the error is about.
    pub fn path(&self) -> &Path {
        match self {
            CaseError::Io { path, .. }
            | CaseError::NotRegular { path, .. }
            | CaseError::Read { path, .. }
            | CaseError::Meta { path, .. } => path,
        }
    }

    /// The 1-based line the error is at, when known.
    pub fn line(&self) -> Option<u64> {
        match self {
            CaseError::Meta { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The byte offset the error is at, when known.
    pub fn offset(&self) -> Option<u64> {
        match self {
            CaseError::Read { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// What went wrong and what to do, without the path.
    pub fn message(&self) -> String {
        match self {
            CaseError::Io { error, .. } => error.to_string(),
            CaseError::NotRegular { what, .. } => format!(
                "not a regular file ({what}); rocpath reads only regular files — copy the log \
                 to a file and read that"
            ),
            CaseError::Read { offset, error, .. } => format!(
                "read error at byte {offset}: {error}; the report holds what was read before it"
            ),
            CaseError::Meta { error, .. } => format!(
                "not the runner's case.json record ({error}); the case's logs are read without \
                 it — record the case again with `rocpath case run`, or remove the file"
            ),
        }
    }
}
