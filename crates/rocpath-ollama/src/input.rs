//! Reading run files with bounded memory: only regular files are opened (a FIFO, a device such
//! as `/dev/zero` or a socket is refused by name before it is opened, so nothing blocks or
//! grows), and a file is streamed in chunks through [`LineSplitter`], so memory is one chunk
//! plus the longest line kept ([`MAX_LINE`]); longer lines are cut, flagged and counted.

use rocpath_logs::LineSplitter;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Longest line kept whole (8 MiB: a generate response with its `context` array fits; the rest
/// of a longer line is skipped unstored).
pub const MAX_LINE: usize = 8 << 20;

/// Bytes read at a time.
const CHUNK: usize = 256 << 10;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A FIFO, device, socket: reading it could block or never end.
    #[error("{}: not a regular file ({what}); rocpath reads only regular files — copy the data to a file and read that", path.display())]
    NotRegular {
        /// The path given.
        path: PathBuf,
        /// `a FIFO`, `a character device`, …
        what: &'static str,
    },
    /// The operating system refused (missing, permissions, I/O error).
    #[error("{}: {error}", path.display())]
    Io {
        /// The path given.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

impl From<&ReadError> for rocpath_docs::ErrorItem {
    fn from(e: &ReadError) -> Self {
        let message = match e {
            ReadError::NotRegular { what, .. } => format!(
                "not a regular file ({what}); rocpath reads only regular files — copy the data to a file and read that"
            ),
            ReadError::Io { error, .. } => error.to_string(),
        };
        rocpath_docs::ErrorItem::at(e.path().display().to_string(), message)
    }
}

impl ReadError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::NotRegular { path, .. } | ReadError::Io { path, .. } => path,
        }
    }
}

/// What kind of non-regular file a type is (`a folder` for a folder).
pub fn describe(ft: std::fs::FileType) -> &'static str {
    rocpath_budget::non_regular(ft).unwrap_or("a folder")
}

/// Opens `path` if it is a regular file (symbolic links followed); anything else is refused
/// before `open`, which on a FIFO would wait for a writer.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, u64), ReadError> {
    let io = |error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let md = std::fs::metadata(path).map_err(io)?;
    if !md.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            what: describe(md.file_type()),
        });
    }
    let f = std::fs::File::open(path).map_err(io)?;
    Ok((f, md.len()))
}

/// One line handed to a reader: 1-based number, text (invalid UTF-8 replaced), and whether it
/// was cut at [`MAX_LINE`].
#[derive(Debug, Clone, Copy)]
pub struct TextLine<'a> {
    /// 1-based line number.
    pub no: u64,
    /// The text without its terminator.
    pub text: &'a str,
    /// The line was longer than [`MAX_LINE`] and was cut.
    pub truncated: bool,
}

/// Streams the lines of a regular file. Returns the bytes read.
pub fn for_each_line(path: &Path, f: &mut dyn FnMut(TextLine<'_>)) -> Result<u64, ReadError> {
    let (mut file, _) = open_regular(path)?;
    let mut splitter = LineSplitter::new(MAX_LINE);
    let mut buf = vec![0u8; CHUNK];
    let mut bytes = 0u64;
    let mut deliver = |l: rocpath_logs::Line<'_>| {
        let text = String::from_utf8_lossy(l.bytes);
        f(TextLine {
            no: l.no,
            text: &text,
            truncated: l.truncated,
        });
    };
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Err(ReadError::Io {
                    path: path.to_path_buf(),
                    error,
                });
            }
        };
        bytes += n as u64;
        splitter.push(&buf[..n], &mut deliver);
    }
    splitter.finish(&mut deliver);
    Ok(bytes)
}

/// Streams the lines of an in-memory text (the same path as [`for_each_line`], for tests and
/// fuzzing).
pub fn for_each_text_line(text: &str, f: &mut dyn FnMut(TextLine<'_>)) {
    let mut splitter = LineSplitter::new(MAX_LINE);
    let mut deliver = |l: rocpath_logs::Line<'_>| {
        let text = String::from_utf8_lossy(l.bytes);
        f(TextLine {
            no: l.no,
            text: &text,
            truncated: l.truncated,
        });
    };
    splitter.push(text.as_bytes(), &mut deliver);
    splitter.finish(&mut deliver);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_devices_before_opening() {
        let e = open_regular(Path::new("/dev/zero")).err();
        assert!(
            matches!(
                e,
                Some(ReadError::NotRegular {
                    what: "a character device",
                    ..
                })
            ),
            "{e:?}"
        );
        let msg = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.starts_with("/dev/zero: not a regular file"), "{msg}");
    }

    #[test]
    fn lines_are_cut_at_the_limit() {
        let long = "x".repeat(MAX_LINE + 10);
        let text = format!("a\n{long}\nb");
        let mut seen = Vec::new();
        for_each_text_line(&text, &mut |l| {
            seen.push((l.no, l.text.len(), l.truncated));
        });
        assert_eq!(
            seen,
            vec![(1, 1, false), (2, MAX_LINE, true), (3, 1, false)]
        );
    }
}
