//! Errors of a survey (messages say what is wrong and what to do; the path and line are
//! fields of their own). Nothing here stops a survey: each error is recorded with its path (and
//! line, when a text file was malformed) and the rest goes on.

use std::path::PathBuf;

/// Something the survey could not read or understand.
#[derive(Debug, thiserror::Error)]
pub enum SurveyError {
    /// A folder or file could not be read.
    #[error("cannot read ({source}); run as a user who may read it, or leave it out with --paths")]
    Io {
        /// The path, as found on this machine.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A chain of symbolic links that does not end (a loop, or more than 40 links).
    #[error("symbolic links loop or chain more than 40 times; not followed")]
    SymlinkLoop {
        /// Where the chain starts.
        path: PathBuf,
    },
    /// A file that was read but cannot be used as a whole.
    #[error("{what}")]
    Unusable {
        /// The file.
        path: PathBuf,
        /// What is wrong, and what is done about it.
        what: String,
    },
    /// A line of a text file (mountinfo, a systemd unit, /etc/environment, KFD properties)
    /// that does not have the expected form.
    #[error("{what}; the line is skipped")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

pub use rocpath_docs::ErrorItem;

/// An error as it appears in the survey's `errors[]`.
impl From<&SurveyError> for ErrorItem {
    fn from(e: &SurveyError) -> Self {
        let (path, line) = match e {
            SurveyError::Io { path, .. }
            | SurveyError::SymlinkLoop { path }
            | SurveyError::Unusable { path, .. } => (path, None),
            SurveyError::Malformed { path, line, .. } => (path, Some(*line as u64)),
        };
        ErrorItem::at(path.display().to_string(), e.to_string()).line(line)
    }
}
