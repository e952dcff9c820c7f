//! Keeps a folder walk inside the roots the user named, and visits each folder once.
//!
//! A walk that follows links can leave the tree it was given (a committed link to `/` walks the
//! machine, a link to `~/.ssh` quotes a key) or go round for ever (two links to `.` make the walk
//! exponential). A [`Fence`] is asked before the walk enters a folder ([`Fence::enter`]) and
//! before it reads a file ([`Fence::read_once`]): the real (canonical) path must lie under one
//! of the roots, and a folder or file met already is not taken again (a file read twice through
//! two links would count its contents twice). The refusal names the path, where it leads and
//! why, so that the walker reports it for that entry and goes on.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Why an entry is not walked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Its real path lies outside every root.
    #[error(
        "{}: leads to {}, outside the folder given ({}); not walked",
        path.display(), target.display(), root.display()
    )]
    Outside {
        /// The entry as the walk met it.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
        /// The (first) root of the walk.
        root: PathBuf,
    },
    /// The folder was entered, or the file read, already (a link loop, or a second link).
    #[error(
        "{}: leads to {}, met already (a link loop or a second link to it); not taken again",
        path.display(), target.display()
    )]
    Again {
        /// The entry as the walk met it.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
    },
    /// Its real path could not be found (a dangling link, a permission).
    #[error("{}: cannot resolve where it leads: {message}; not walked", path.display())]
    Unresolved {
        /// The entry as the walk met it.
        path: PathBuf,
        /// The system's reason.
        message: String,
    },
    /// The walk has entered as many folders as it may.
    #[error(
        "{}: the walk has taken {limit} folders (or files), its limit; not walked (name a smaller folder)",
        path.display()
    )]
    TooMany {
        /// The entry as the walk met it.
        path: PathBuf,
        /// The limit.
        limit: usize,
    },
}

/// The roots of one walk and the folders it has entered (see the module documentation).
#[derive(Debug, Clone)]
pub struct Fence {
    roots: Vec<PathBuf>,
    seen: HashSet<PathBuf>,
    files: HashSet<PathBuf>,
    max_dirs: usize,
}

impl Fence {
    /// Folders one walk may enter by default (the Debian ROCm install has about 6,000).
    pub const MAX_DIRS: usize = 1_000_000;

    /// A fence around `roots` (each resolved to its real path; one that cannot be resolved is
    /// kept as given).
    pub fn new<P: AsRef<Path>>(roots: impl IntoIterator<Item = P>) -> Self {
        let roots = roots
            .into_iter()
            .map(|r| {
                let r = r.as_ref();
                std::fs::canonicalize(r).unwrap_or_else(|_| r.to_path_buf())
            })
            .collect();
        Fence {
            roots,
            seen: HashSet::new(),
            files: HashSet::new(),
            max_dirs: Self::MAX_DIRS,
        }
    }

    /// The same fence with another bound on the folders entered.
    pub fn with_max_dirs(mut self, max_dirs: usize) -> Self {
        self.max_dirs = max_dirs;
        self
    }

    /// May the walk enter the folder `dir`? Yes once per real folder under a root.
    pub fn enter(&mut self, dir: &Path) -> Result<(), Refused> {
        let target = self.inside(dir)?;
        if self.seen.len() >= self.max_dirs {
            return Err(Refused::TooMany {
                path: dir.to_path_buf(),
                limit: self.max_dirs,
            });
        }
        if !self.seen.insert(target.clone()) {
            return Err(Refused::Again {
                path: dir.to_path_buf(),
                target,
            });
        }
        Ok(())
    }

    /// May the walk read `file`? Yes once per real file under a root. (Call it for the files
    /// the walk will read, not for every entry: it resolves the path.)
    pub fn read_once(&mut self, file: &Path) -> Result<(), Refused> {
        let target = self.inside(file)?;
        if self.files.len() >= self.max_dirs {
            return Err(Refused::TooMany {
                path: file.to_path_buf(),
                limit: self.max_dirs,
            });
        }
        if !self.files.insert(target.clone()) {
            return Err(Refused::Again {
                path: file.to_path_buf(),
                target,
            });
        }
        Ok(())
    }

    /// The roots, as real paths.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The real path of `p`, when it lies under a root (nothing recorded).
    pub fn inside(&self, p: &Path) -> Result<PathBuf, Refused> {
        let target = std::fs::canonicalize(p).map_err(|e| Refused::Unresolved {
            path: p.to_path_buf(),
            message: e.to_string(),
        })?;
        if self.roots.iter().any(|r| target.starts_with(r)) {
            return Ok(target);
        }
        Err(Refused::Outside {
            path: p.to_path_buf(),
            target,
            root: self.roots.first().cloned().unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[cfg(unix)]
    #[test]
    fn links_out_loops_and_second_links_are_refused() {
        use std::os::unix::fs::symlink;
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("repo");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(d.path().join("secret"), "key").unwrap();
        symlink("/", root.join("slash")).unwrap();
        symlink(".", root.join("self")).unwrap();
        symlink("a/b", root.join("b2")).unwrap();
        symlink("../secret", root.join("s")).unwrap();
        symlink("a/nowhere", root.join("dangling")).unwrap();
        let mut f = Fence::new([&root]);
        assert_eq!(f.enter(&root), Ok(()));
        assert_eq!(f.enter(&root.join("a")), Ok(()));
        assert_eq!(f.enter(&root.join("a/b")), Ok(()));
        assert!(matches!(
            f.enter(&root.join("b2")),
            Err(Refused::Again { .. })
        ));
        assert!(matches!(
            f.enter(&root.join("self")),
            Err(Refused::Again { .. })
        ));
        let e = f.enter(&root.join("slash")).unwrap_err();
        assert!(matches!(e, Refused::Outside { .. }), "{e}");
        assert!(e.to_string().contains("outside the folder given"), "{e}");
        assert!(matches!(
            f.read_once(&root.join("s")),
            Err(Refused::Outside { .. })
        ));
        std::fs::write(root.join("a/x"), "x").unwrap();
        symlink("a/x", root.join("x2")).unwrap();
        assert_eq!(f.read_once(&root.join("a/x")), Ok(()));
        assert!(matches!(
            f.read_once(&root.join("x2")),
            Err(Refused::Again { .. })
        ));
        assert!(matches!(
            f.enter(&root.join("dangling")),
            Err(Refused::Unresolved { .. })
        ));
    }

    #[test]
    fn the_folder_count_is_bounded() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("a")).unwrap();
        let mut f = Fence::new([d.path()]).with_max_dirs(1);
        assert_eq!(f.enter(d.path()), Ok(()));
        assert!(matches!(
            f.enter(&d.path().join("a")),
            Err(Refused::TooMany { .. })
        ));
    }
}
