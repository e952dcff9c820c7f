//! Git access that the readers of source and history share, without a git library:
//! [`head`] reads the commit a checkout is at (`HEAD`, loose and packed refs, worktrees),
//! [`repo_name`] the name a checkout goes by, and [`loose::damaged`] finds a loose object a
//! git library would hang on before one is asked to read it.

mod head;
pub mod loose;

pub use head::{Head, head};

use std::path::Path;

/// The name of a checkout: its canonical folder's name.
pub fn repo_name(root: &Path) -> String {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    canon
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string())
}
