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

#[cfg(test)]
mod tests {
    use super::*;

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
