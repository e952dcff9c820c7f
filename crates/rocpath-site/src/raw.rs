//! `site build --copy-raw`: the raw files the observations quote, copied beside the site under
//! `raw/<path relative to the data root>` for download.

use crate::SiteError;
use rocpath_ledger::publish::{RawFile, RawSkipped};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::Path;

/// What was copied, and what was not.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RawReport {
    /// Files copied.
    pub files: usize,
    /// Bytes copied.
    pub bytes: u64,
    /// Raw inputs not copied, and why (outside the data root, changed since imported,
    /// unreadable).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<RawSkipped>,
}

/// Copies `files` under `out/raw/`, each only when its bytes still have the sha256 recorded
/// at import (a file changed since is not published as the evidence). A path that would leave
/// `raw/` is refused by construction ([`RawFile::published`] has no `..`). `skipped` lists
/// what [`rocpath_ledger::publish::raw_files`] left out.
pub fn copy_raw(
    files: &[RawFile],
    skipped: Vec<RawSkipped>,
    out: &Path,
) -> Result<RawReport, SiteError> {
    let mut r = RawReport {
        skipped,
        ..RawReport::default()
    };
    for f in files {
        let dest = out.join("raw").join(&f.published);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).map_err(|error| SiteError::Io {
                path: dir.to_path_buf(),
                error,
            })?;
        }
        match copy_verified(f, &dest) {
            Ok(n) => {
                r.bytes += n;
                r.files += 1;
            }
            Err(why) => {
                let _ = std::fs::remove_file(&dest);
                r.skipped.push(RawSkipped {
                    path: f.published.clone(),
                    why,
                });
            }
        }
    }
    Ok(r)
}

/// Copies one file to `dest` through the input layer, hashing on the way; an error (or a
/// different sha256) says why it is not published.
fn copy_verified(f: &RawFile, dest: &Path) -> Result<u64, String> {
    let mut input = rocpath_budget::input::open(&f.source).map_err(|e| e.to_string())?;
    let mut src = input.reader();
    let mut out = std::fs::File::create(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let k = src
            .read(&mut buf)
            .map_err(|e| format!("{}: {e}", f.source.display()))?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
        out.write_all(&buf[..k])
            .map_err(|e| format!("{}: {e}", dest.display()))?;
        n += k as u64;
    }
    let sha: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    if sha != f.sha256 {
        return Err("changed since it was imported (its sha256 differs); not published".into());
    }
    Ok(n)
}
