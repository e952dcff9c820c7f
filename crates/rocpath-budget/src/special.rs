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
        std::fs::remove_file(&f).unwrap();
    }
}
