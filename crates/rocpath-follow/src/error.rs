//! Errors of a follow.

use std::path::PathBuf;

/// Why a follow could not run.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// A repository path is not a folder.
    #[error("{0}: not a folder; give the root of a source checkout")]
    NotADirectory(PathBuf),
    /// The SPEC names a file that is in none of the repositories.
    #[error(
        "{spec}: no file {file} in the repositories given; give a path relative to a repository root"
    )]
    NoSuchFile {
        /// The SPEC.
        spec: String,
        /// The file part.
        file: String,
    },
    /// The SPEC names a line past the end of its file.
    #[error("{path}:{line}: the file has {lines} lines")]
    NoSuchLine {
        /// The file.
        path: String,
        /// The line asked for.
        line: u64,
        /// Lines in the file.
        lines: usize,
    },
    /// The file could not be read or parsed.
    #[error("{path}: {why}")]
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        why: String,
    },
    /// The SPEC matches nothing.
    #[error(
        "{spec}: matches nothing in the repositories given{}{}",
        nearest_text(.nearest),
        not_read_text(*.not_read)
    )]
    NoMatch {
        /// The SPEC.
        spec: String,
        /// The nearest names in the index.
        nearest: Vec<String>,
        /// Files and folders the index left out (too large, nested too deep, over the budget,
        /// links out of the checkout).
        not_read: usize,
    },
    /// The SPEC is empty or malformed.
    #[error(
        "{0:?}: give FILE:LINE, FILE:SYMBOL or a name (a JSON key, a flag, an environment variable, a field)"
    )]
    BadSpec(String),
}

fn not_read_text(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(
            "; the index left out {n} file{} or folder{} (too large, nested too deep, over the memory budget, a link out of the checkout): the name may be there",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" }
        ),
    }
}

fn nearest_text(n: &[String]) -> String {
    if n.is_empty() {
        "; check the spelling or the repositories".to_string()
    } else {
        format!("; nearest names: {}", n.join(", "))
    }
}
