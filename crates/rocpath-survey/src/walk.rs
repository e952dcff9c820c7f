//! A bounded walk of the machine's folders: a depth limit, a deadline, no descent into
//! network or pseudo file systems, each folder and file visited once however many links lead
//! to it (so link loops end), and unreadable folders recorded while the walk goes on.

use crate::error::SurveyError;
use crate::mounts::{self, Mount, Skip};
use crate::root::Root;
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a walk found at one place.
#[derive(Debug, Clone)]
pub struct Item {
    /// The machine path (links resolved).
    pub inside: PathBuf,
    /// The path on this machine.
    pub host: PathBuf,
    /// Depth below the start (the start is 0).
    pub depth: usize,
    /// A folder (else a regular file).
    pub is_dir: bool,
    /// Size of a file.
    pub size: u64,
}

impl Item {
    /// The file or folder name.
    pub fn name(&self) -> String {
        self.inside
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// What to do with a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visit {
    /// Go into it.
    Descend,
    /// Leave it.
    Prune,
}

/// A place the walk did not go, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Limit {
    /// A network file system (its mount point and type).
    Network(PathBuf, String),
    /// The depth limit, at this folder.
    Depth(PathBuf),
    /// The deadline passed while walking under this folder.
    Time(PathBuf),
    /// A search under this folder read its most folders (the count) and stopped.
    Folders(PathBuf, usize),
}

/// The walker: shared state of every walk of one survey.
pub struct Walker<'a> {
    root: &'a Root,
    mounts: &'a [Mount],
    deadline: Option<Instant>,
    seen: HashSet<(u64, u64)>,
    /// Errors met (unreadable folders, link loops).
    pub errors: Vec<SurveyError>,
    /// Where the walks stopped short.
    pub limits: Vec<Limit>,
    /// Folders read.
    pub dirs: u64,
}

impl<'a> Walker<'a> {
    /// A walker over `root`, skipping `mounts`, stopping at `deadline`.
    pub fn new(root: &'a Root, mounts: &'a [Mount], deadline: Option<Instant>) -> Self {
        Walker {
            root,
            mounts,
            deadline,
            seen: HashSet::new(),
            errors: Vec::new(),
            limits: Vec::new(),
            dirs: 0,
        }
    }

    /// The root of the machine.
    pub fn root(&self) -> &Root {
        self.root
    }

    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() > d)
    }

    /// Forgets what was visited, so another walk may see the same files again (each install
    /// is walked on its own).
    pub fn reset_seen(&mut self) {
        self.seen.clear();
    }

    /// Resolves a machine path to an item (links followed inside the machine), or `None`
    /// when it does not exist, is skipped, or was already visited.
    pub fn item(&mut self, inside: &Path, depth: usize) -> Option<Item> {
        let real = match self.root.resolve(inside) {
            Ok(p) => p,
            Err(e) => {
                self.errors.push(e);
                return None;
            }
        };
        if let Some(m) =
            mounts::skipped(self.mounts, &real).or(mounts::skipped(self.mounts, inside))
        {
            if m.skip == Skip::Network {
                let l = Limit::Network(m.point.clone(), m.fstype.clone());
                if !self.limits.contains(&l) {
                    self.limits.push(l);
                }
            }
            return None;
        }
        let host = self.root.join(&real);
        let meta = std::fs::metadata(&host).ok()?;
        if !(meta.is_dir() || meta.is_file()) || !self.seen.insert((meta.dev(), meta.ino())) {
            return None;
        }
        Some(Item {
            inside: real,
            host,
            depth,
            is_dir: meta.is_dir(),
            size: if meta.is_file() { meta.len() } else { 0 },
        })
    }

    /// What a machine path is (links followed), whether or not a walk saw it already: a look,
    /// not a visit.
    pub fn probe(&mut self, inside: &Path) -> Option<Item> {
        let saved = std::mem::take(&mut self.seen);
        let it = self.item(inside, 0);
        self.seen = saved;
        it
    }

    /// The names in a machine folder, sorted (nothing when it is absent or skipped; an
    /// unreadable folder is recorded). Reads one level, so no depth limit is met.
    pub fn list(&mut self, dir: &Path) -> Vec<String> {
        let Some(it) = self.probe(dir).filter(|it| it.is_dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = match std::fs::read_dir(&it.host) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(source) => {
                self.errors.push(SurveyError::Io {
                    path: it.host.clone(),
                    source,
                });
                Vec::new()
            }
        };
        names.sort();
        names
    }

    /// Walks from the machine path `start` down to `max_depth` levels, calling `f` for every
    /// folder and file (a folder's answer decides whether the walk goes into it).
    pub fn walk(&mut self, start: &Path, max_depth: usize, f: &mut dyn FnMut(&Item) -> Visit) {
        let Some(first) = self.item(start, 0) else {
            return;
        };
        let mut stack = vec![first];
        while let Some(it) = stack.pop() {
            if f(&it) == Visit::Prune || !it.is_dir {
                continue;
            }
            if self.out_of_time() {
                self.limits.push(Limit::Time(start.to_path_buf()));
                return;
            }
            if it.depth >= max_depth {
                self.limits.push(Limit::Depth(it.inside.clone()));
                continue;
            }
            let mut names = match std::fs::read_dir(&it.host) {
                Ok(rd) => rd
                    .filter_map(|e| match e {
                        Ok(e) => Some(e.file_name()),
                        Err(source) => {
                            self.errors.push(SurveyError::Io {
                                path: it.host.clone(),
                                source,
                            });
                            None
                        }
                    })
                    .collect::<Vec<_>>(),
                Err(source) => {
                    self.errors.push(SurveyError::Io {
                        path: it.host.clone(),
                        source,
                    });
                    continue;
                }
            };
            self.dirs += 1;
            names.sort();
            for n in names.into_iter().rev() {
                if let Some(child) = self.item(&it.inside.join(n), it.depth + 1) {
                    stack.push(child);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn names(w: &mut Walker<'_>, start: &str, depth: usize) -> Vec<String> {
        let mut out = Vec::new();
        w.walk(Path::new(start), depth, &mut |it| {
            out.push(it.inside.display().to_string());
            Visit::Descend
        });
        out
    }

    #[test]
    fn loops_depth_and_network_mounts() {
        let d = tempfile::tempdir().unwrap();
        let root = Root::new(d.path());
        std::fs::create_dir_all(d.path().join("t/a/b/c")).unwrap();
        std::fs::create_dir_all(d.path().join("t/nas")).unwrap();
        std::fs::write(d.path().join("t/a/f.so"), b"x").unwrap();
        std::fs::write(d.path().join("t/nas/g.so"), b"x").unwrap();
        symlink("/t", d.path().join("t/a/up")).unwrap();
        symlink("f.so", d.path().join("t/a/f2.so")).unwrap();
        let mounts = vec![Mount {
            point: "/t/nas".into(),
            fstype: "nfs4".into(),
            skip: Skip::Network,
        }];
        let mut w = Walker::new(&root, &mounts, None);
        let got = names(&mut w, "/t", 2);
        assert_eq!(got, ["/t", "/t/a", "/t/a/b", "/t/a/f.so"]);
        assert!(w.limits.contains(&Limit::Depth("/t/a/b".into())));
        assert!(
            w.limits
                .contains(&Limit::Network("/t/nas".into(), "nfs4".into()))
        );
        assert!(w.errors.is_empty());
    }

    #[test]
    fn unreadable_folders_are_named_and_the_walk_goes_on() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let root = Root::new(d.path());
        std::fs::create_dir_all(d.path().join("t/closed")).unwrap();
        std::fs::create_dir_all(d.path().join("t/open")).unwrap();
        std::fs::write(d.path().join("t/open/f"), b"x").unwrap();
        let closed = d.path().join("t/closed");
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o000)).unwrap();
        let readable = std::fs::read_dir(&closed).is_ok(); // root reads everything
        let mut w = Walker::new(&root, &[], None);
        let got = names(&mut w, "/t", 5);
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(got.contains(&"/t/open/f".to_string()));
        if readable {
            // As root every folder is readable: nothing to report.
            assert!(w.errors.is_empty());
        } else {
            assert_eq!(w.errors.len(), 1);
            assert!(matches!(&w.errors[0], SurveyError::Io { path, .. } if path == &closed));
        }
    }
}
