//! The machine's file tree as the survey sees it: `/` for this machine, or a saved image of
//! one under a folder. Paths *in* the machine (`/opt/rocm/lib`) are resolved to paths on this
//! machine (`IMAGE/opt/rocm-6.4.0/lib`) the way the machine itself would resolve them:
//! absolute symbolic links point into the image, never out of it.

use crate::error::SurveyError;
use std::path::{Component, Path, PathBuf};

/// Most links followed while resolving one path (the kernel's own limit).
pub const MAX_LINKS: usize = 40;

/// The root of the surveyed machine.
#[derive(Debug, Clone)]
pub struct Root {
    host: PathBuf,
}

impl Root {
    /// A root at `host` (`/` for this machine).
    pub fn new(host: impl Into<PathBuf>) -> Root {
        Root { host: host.into() }
    }

    /// Whether this is the live machine (`/`).
    pub fn is_live(&self) -> bool {
        self.host == Path::new("/")
    }

    /// The root folder on this machine.
    pub fn host(&self) -> &Path {
        &self.host
    }

    /// The host path of a machine path, without following links (`/opt/rocm` →
    /// `IMAGE/opt/rocm`).
    pub fn join(&self, inside: &Path) -> PathBuf {
        let rel: PathBuf = inside
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect();
        self.host.join(rel)
    }

    /// The machine path of a host path under the root (`IMAGE/opt/rocm` → `/opt/rocm`), or
    /// the path itself when it is not under the root.
    pub fn inside(&self, host: &Path) -> PathBuf {
        match host.strip_prefix(&self.host) {
            Ok(rel) => Path::new("/").join(rel),
            Err(_) => host.to_path_buf(),
        }
    }

    /// Resolves a machine path, following every link inside the machine; returns the machine
    /// path it ends at. A missing component ends the resolution there (the rest is kept as
    /// written), so the caller's own open reports it.
    pub fn resolve(&self, inside: &Path) -> Result<PathBuf, SurveyError> {
        let mut done: Vec<std::ffi::OsString> = Vec::new();
        let mut todo: Vec<std::ffi::OsString> = normal_parts(inside);
        todo.reverse();
        let mut links = 0;
        while let Some(part) = todo.pop() {
            if part == ".." {
                done.pop();
                continue;
            }
            done.push(part);
            let host = self.host.join(done.iter().collect::<PathBuf>());
            let Ok(meta) = std::fs::symlink_metadata(&host) else {
                continue;
            };
            if !meta.file_type().is_symlink() {
                continue;
            }
            links += 1;
            if links > MAX_LINKS {
                return Err(SurveyError::SymlinkLoop {
                    path: self.join(inside),
                });
            }
            let target = std::fs::read_link(&host).map_err(|source| SurveyError::Io {
                path: host.clone(),
                source,
            })?;
            done.pop();
            if target.is_absolute() {
                done.clear();
            }
            let mut parts = normal_parts(&target);
            parts.reverse();
            todo.extend(parts);
        }
        Ok(Path::new("/").join(done.iter().collect::<PathBuf>()))
    }
}

/// The normal components of a path, with `..` kept (as the string `..`) and `.` dropped.
fn normal_parts(p: &Path) -> Vec<std::ffi::OsString> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect()
}

/// The loader's view of the machine: its paths resolved inside the image, as the survey
/// resolves them (`rocpath loads --root` and the survey's own load predictions).
impl rocpath_loads::Tree for Root {
    fn host(&self, machine: &str) -> PathBuf {
        let m = Path::new(machine);
        match self.resolve(m) {
            Ok(r) => self.join(&r),
            Err(_) => self.join(m),
        }
    }
    fn real(&self, machine: &str) -> Option<String> {
        self.resolve(Path::new(machine))
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn absolute_links_stay_inside_the_image() {
        let d = tempfile::tempdir().unwrap();
        let r = Root::new(d.path());
        std::fs::create_dir_all(d.path().join("opt/rocm-6.4.0/lib")).unwrap();
        std::fs::create_dir_all(d.path().join("etc/alternatives")).unwrap();
        symlink("/opt/rocm-6.4.0", d.path().join("etc/alternatives/rocm")).unwrap();
        symlink("/etc/alternatives/rocm", d.path().join("opt/rocm")).unwrap();
        let got = r.resolve(Path::new("/opt/rocm/lib")).unwrap();
        assert_eq!(got, Path::new("/opt/rocm-6.4.0/lib"));
        assert_eq!(
            r.inside(&r.join(&got)),
            PathBuf::from("/opt/rocm-6.4.0/lib")
        );
    }

    #[test]
    fn relative_links_and_loops() {
        let d = tempfile::tempdir().unwrap();
        let r = Root::new(d.path());
        std::fs::create_dir_all(d.path().join("a/b")).unwrap();
        symlink("../a/b", d.path().join("a/c")).unwrap();
        assert_eq!(r.resolve(Path::new("/a/c")).unwrap(), Path::new("/a/b"));
        symlink("y", d.path().join("x")).unwrap();
        symlink("x", d.path().join("y")).unwrap();
        assert!(matches!(
            r.resolve(Path::new("/x/z")),
            Err(SurveyError::SymlinkLoop { .. })
        ));
        assert_eq!(
            r.resolve(Path::new("/missing/p")).unwrap(),
            Path::new("/missing/p")
        );
    }
}
