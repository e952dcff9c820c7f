//! The MIOpen release an install holds. `libMIOpen.so` carries the version it logs as one
//! string literal (`", MIOpen version " MIOPEN_STRINGIZE(MIOPEN_VERSION_MAJOR) "." …`,
//! ROCm/MIOpen@2d1fd997 `src/execution_context.cpp:184`), so it is read from the library's
//! bytes, streamed, whatever its size.

use rocpath_budget::input::InputError;
use std::io::Read;
use std::path::{Path, PathBuf};

const MARKER: &[u8] = b", MIOpen version ";
const CHUNK: usize = 4 << 20;

/// The library beside a system database folder (`<prefix>/share/miopen/db` →
/// `<prefix>/lib{,64,/<triplet>}/libMIOpen.so*`), the real file first.
pub fn library_near(db_dir: &Path) -> Option<PathBuf> {
    let prefix = db_dir.parent()?.parent()?.parent()?;
    let lib = prefix.join("lib");
    let mut dirs = vec![lib.clone(), prefix.join("lib64")];
    if let Ok(rd) = std::fs::read_dir(&lib) {
        dirs.extend(
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_dir() && p.to_string_lossy().ends_with("-linux-gnu")),
        );
    }
    dirs.iter().find_map(|d| {
        let mut libs: Vec<PathBuf> = std::fs::read_dir(d)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libMIOpen.so"))
            })
            .collect();
        // The longest name is the file the links point at (`libMIOpen.so.1.0.60403`).
        libs.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
        libs.into_iter().next()
    })
}

/// The version string in `bytes` after the marker (`3.4.0`, `3.5.1.5b515cf1bca`).
fn version_after(bytes: &[u8]) -> Option<String> {
    let v: String = bytes
        .iter()
        .take(48)
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'.' || **b == b'-')
        .map(|&b| b as char)
        .collect();
    let v = v.trim_end_matches('.').to_string();
    rocpath_miopen::model::release::parse_version(&v).map(|_| v)
}

/// The MIOpen version `lib` was built as, or `None` when it carries no version string.
pub fn version_of(lib: &Path) -> Result<Option<String>, InputError> {
    let mut input = rocpath_budget::input::open(lib)?;
    let mut r = input.reader();
    let mut buf = vec![0u8; CHUNK + 64];
    let mut kept = 0usize;
    loop {
        let n = r.read(&mut buf[kept..]).map_err(|e| InputError::Io {
            path: lib.to_path_buf(),
            source: e,
        })?;
        let have = kept + n;
        if let Some(at) = memchr::memmem::find(&buf[..have], MARKER) {
            let from = at + MARKER.len();
            if have - from >= 48 || n == 0 {
                return Ok(version_after(&buf[from..have]));
            }
        }
        if n == 0 {
            return Ok(None);
        }
        // Keep the tail, in case the marker straddles two reads.
        let tail = have.min(64 + 48);
        buf.copy_within(have - tail..have, 0);
        kept = tail;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_after_the_marker_even_across_reads() {
        let dir = std::env::temp_dir().join(format!("rocpath-miopen-lib-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("libMIOpen.so.1.0");
        let mut bytes = vec![0u8; CHUNK - 5];
        bytes.extend_from_slice(b", MIOpen version 3.4.0.\0more");
        std::fs::write(&lib, &bytes).unwrap();
        assert_eq!(version_of(&lib).unwrap().as_deref(), Some("3.4.0"));
        std::fs::write(&lib, b"no marker here").unwrap();
        assert_eq!(version_of(&lib).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_library_is_found_beside_the_database_folder() {
        let root = std::env::temp_dir().join(format!("rocpath-miopen-pfx-{}", std::process::id()));
        let db = root.join("share/miopen/db");
        std::fs::create_dir_all(&db).unwrap();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::write(root.join("lib/libMIOpen.so.1.0.60403"), b"x").unwrap();
        std::fs::write(root.join("lib/libMIOpen.so"), b"x").unwrap();
        assert_eq!(
            library_near(&db),
            Some(root.join("lib/libMIOpen.so.1.0.60403"))
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
