//! `site build --copy-raw`: the raw files the observations quote, copied beside the site under
//! `raw/<path relative to the data root>` for download.

use crate::SiteError;
use rocpath_ledger::publish::RawFile;
use std::path::Path;

/// What was copied.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RawReport {
    /// Files copied.
    pub files: usize,
    /// Bytes copied.
    pub bytes: u64,
}

/// Copies `files` under `out/raw/`. A path that would leave `raw/` is refused by
/// construction ([`RawFile::published`] has no `..`).
pub fn copy_raw(files: &[RawFile], out: &Path) -> Result<RawReport, SiteError> {
    let mut r = RawReport::default();
    for f in files {
        let dest = out.join("raw").join(&f.published);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).map_err(|error| SiteError::Io {
                path: dir.to_path_buf(),
                error,
            })?;
        }
        r.bytes += std::fs::copy(&f.source, &dest).map_err(|error| SiteError::Io {
            path: f.source.clone(),
            error,
        })?;
        r.files += 1;
    }
    Ok(r)
}
