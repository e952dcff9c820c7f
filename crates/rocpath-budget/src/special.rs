//! Paths rocpath must not open as input: a FIFO waits for a writer (a read never starts), a
//! character device such as `/dev/zero` never ends, a socket or block device is not a
//! recording. Readers look at the type before `open` and refuse such a path by name.

use std::fs::FileType;

/// What a non-regular, non-folder file is (`a FIFO`, `a character device`, …); `None` for a
/// regular file or a folder.
pub fn non_regular(ft: FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_file() || ft.is_dir() {
        None
    } else if ft.is_fifo() {
        Some("a FIFO")
    } else if ft.is_char_device() {
        Some("a character device")
    } else if ft.is_block_device() {
        Some("a block device")
    } else if ft.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Reads a small text file (a configuration or properties file) of at most `limit` bytes:
/// a FIFO or device is refused before it is opened, a longer file is an error. Files such as `/proc/self/mountinfo` that report no size are read up to
/// the limit like any other. Text that is not UTF-8 is an error, as `read_to_string` has it.
pub fn read_small_text(path: &std::path::Path, limit: u64) -> std::io::Result<String> {
    use std::io::{Error, Read};
    let md = std::fs::metadata(path)?;
    if let Some(what) = non_regular(md.file_type()) {
        return Err(Error::other(format!("not a regular file ({what})")));
    }
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(Error::other(format!(
            "larger than {limit} bytes, more than a configuration file holds"
        )));
    }
    String::from_utf8(buf).map_err(|e| Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Largest ignore file (`.gitignore`, `.git/info/exclude`) a folder walk applies, in bytes.
pub const MAX_IGNORE_BYTES: u64 = 1 << 20;
/// Most patterns an ignore file may hold: each compiles to a matcher of several KiB, so a
/// 300,000-line `.gitignore` would take gigabytes.
pub const MAX_IGNORE_LINES: usize = 10_000;

/// Why an ignore file must not be applied by a folder walk — not a regular file (a FIFO would
/// block the walk), larger than [`MAX_IGNORE_BYTES`] or with more than [`MAX_IGNORE_LINES`]
/// lines —, or `None` when it is absent or fine.
pub fn ignore_file_problem(path: &std::path::Path) -> Option<String> {
    let md = std::fs::metadata(path).ok()?;
    if md.is_dir() {
        return None;
    }
    if let Some(what) = non_regular(md.file_type()) {
        return Some(format!("{}: {what}, not applied", path.display()));
    }
    if md.len() > MAX_IGNORE_BYTES {
        return Some(format!(
            "{}: {} bytes, over the {MAX_IGNORE_BYTES}-byte limit for an ignore file; not applied",
            path.display(),
            md.len()
        ));
    }
    let text = std::fs::read(path).ok()?;
    let lines = line_count(&text);
    (lines > MAX_IGNORE_LINES).then(|| {
        format!(
            "{}: {lines} lines, over the {MAX_IGNORE_LINES}-pattern limit for an ignore file; not applied",
            path.display()
        )
    })
}

fn line_count(text: &[u8]) -> usize {
    text.iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_files_past_the_limits_or_not_regular_are_named() {
        let dir = std::env::temp_dir().join(format!("rocpath-ignore-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small");
        std::fs::write(&small, "target/\n*.o\n").unwrap();
        assert_eq!(ignore_file_problem(&small), None);
        assert_eq!(ignore_file_problem(&dir.join("absent")), None);
        let many = dir.join("many");
        std::fs::write(&many, "x\n".repeat(MAX_IGNORE_LINES + 1)).unwrap();
        let msg = ignore_file_problem(&many).unwrap();
        assert!(msg.contains("10001 lines"), "{msg}");
        let big = dir.join("big");
        std::fs::write(&big, vec![b'x'; MAX_IGNORE_BYTES as usize + 1]).unwrap();
        assert!(ignore_file_problem(&big).unwrap().contains("bytes"));
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(ignore_file_problem(&fifo).unwrap().contains("a FIFO"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn names_what_it_refuses() {
        let md = |p: &str| std::fs::metadata(p).map(|m| m.file_type());
        assert_eq!(
            md("/dev/null").ok().and_then(non_regular),
            Some("a character device")
        );
        assert_eq!(md("/").ok().and_then(non_regular), None);
        let dir = std::env::temp_dir();
        let f = dir.join(format!("rocpath-special-{}", std::process::id()));
        std::fs::write(&f, b"x").unwrap();
        assert_eq!(
            non_regular(std::fs::metadata(&f).unwrap().file_type()),
            None
        );
        assert_eq!(read_small_text(&f, 1).unwrap(), "x");
        std::fs::write(&f, b"xy").unwrap();
        assert!(
            read_small_text(&f, 1)
                .unwrap_err()
                .to_string()
                .contains("larger than 1")
        );
        std::fs::remove_file(&f).unwrap();
        let e = read_small_text(std::path::Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
    }
}
