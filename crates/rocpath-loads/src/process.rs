//! A running process: the files it has mapped (`/proc/PID/maps`, proc(5)), the files it holds
//! open (`/proc/PID/fd`), its program (`/proc/PID/exe`) and the environment it started with
//! (`/proc/PID/environ`) — what it *did* load — set beside what the loader rules predict for
//! its program in that environment ([`crate::loads`]), so a library opened later by name
//! (`dlopen`: HIP's runtime, the math libraries a framework opens on first use) shows as such.

use crate::{Loads, Options, rocm};
use rocpath_docs::ErrorItem;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Largest `/proc/PID/maps` or `environ` read (a process with a million mappings is refused).
const MAX_PROC_TEXT: u64 = 64 << 20;
/// Most open descriptors listed.
const MAX_FDS: usize = 100_000;

/// The environment variables shown, when the process has them: the loader's and the ROCm
/// libraries' (each changes which file is taken or which device is used).
pub const SHOWN: [&str; 12] = [
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "ROCBLAS_TENSILE_LIBPATH",
    "HIPBLASLT_TENSILE_LIBPATH",
    "MIOPEN_SYSTEM_DB_PATH",
    "MIOPEN_USER_DB_PATH",
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "ROCBLAS_USE_HIPBLASLT",
    "TENSILE_SOLUTION_SELECTION_METHOD",
    "PYTORCH_ROCM_ARCH",
];

/// A shared object mapped into the process.
#[derive(Debug, Clone, Serialize)]
pub struct Mapped {
    /// The file as the kernel names it (the path it was opened by, links followed).
    pub path: String,
    /// The file was deleted or replaced after it was mapped (` (deleted)`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    /// The ROCm component it is, when it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rocm: Option<&'static str>,
    /// The loader rules reach it from the program (`DT_NEEDED`, transitively); false: it was
    /// opened later by name (`dlopen`) or preloaded.
    pub predicted: bool,
    /// Why.
    pub evidence: Evidence,
}

/// What a running process loaded.
#[derive(Debug, Clone, Serialize)]
pub struct Running {
    /// The process id.
    pub pid: u32,
    /// Its program (`/proc/PID/exe`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exe: Option<String>,
    /// Its command line.
    pub cmdline: Vec<String>,
    /// The variables of [`SHOWN`] it started with.
    pub env: BTreeMap<String, String>,
    /// Shared objects mapped, in the order of their first mapping.
    pub mapped: Vec<Mapped>,
    /// Libraries the loader rules predict for the program that are not mapped (none when the
    /// process is past its start, unless one was unloaded).
    pub predicted_not_mapped: Vec<String>,
    /// Data files it holds open now that ROCm libraries read (catalogs, code objects,
    /// databases, kernel caches, kpack archives).
    pub open_data: Vec<String>,
    /// What the loader rules predict for its program in its environment, when it can be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction: Option<Loads>,
    /// What could not be read, and why.
    pub errors: Vec<ErrorItem>,
}

/// Why a process could not be read at all.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {cause}{hint}")]
pub struct ProcessError {
    /// The file.
    pub path: PathBuf,
    /// The cause.
    pub cause: std::io::Error,
    /// What to do.
    pub hint: &'static str,
}

fn proc_error(path: PathBuf, cause: std::io::Error) -> ProcessError {
    let hint = match cause.kind() {
        std::io::ErrorKind::NotFound => " (no such process: is the pid right, and still running?)",
        std::io::ErrorKind::PermissionDenied => {
            " (another user's process: run as that user or as root)"
        }
        _ => "",
    };
    ProcessError { path, cause, hint }
}

/// Reads process `pid` under `proc_root` (`/proc`), and predicts its program's loads with
/// `cache` (`/etc/ld.so.cache`).
pub fn running(proc_root: &Path, pid: u32, cache: &Path) -> Result<Running, ProcessError> {
    let dir = proc_root.join(pid.to_string());
    let maps_path = dir.join("maps");
    let maps = rocpath_budget::special::read_small_text(&maps_path, MAX_PROC_TEXT)
        .map_err(|e| proc_error(maps_path.clone(), e))?;
    let mut errors = Vec::new();
    let exe = std::fs::read_link(dir.join("exe"))
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| {
            errors.push(ErrorItem::at(
                dir.join("exe").display().to_string(),
                e.to_string(),
            ))
        })
        .ok();
    let cmdline = nul_list(&dir.join("cmdline"), &mut errors);
    let environ = nul_list(&dir.join("environ"), &mut errors);
    let all_env: BTreeMap<String, String> = environ
        .iter()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let env = all_env
        .iter()
        .filter(|(k, _)| SHOWN.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let prediction = exe.as_deref().and_then(|e| {
        let mut o = Options::new(e);
        o.cache = cache.to_path_buf();
        o.env = all_env
            .iter()
            .filter(|(k, _)| k.as_str() == "LD_LIBRARY_PATH" || k.ends_with("_LIBPATH"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        crate::loads(&o)
            .map_err(|err| errors.push(ErrorItem::new(err.to_string())))
            .ok()
    });
    let mapped_files = shared_objects(&maps, exe.as_deref());
    let (mapped, predicted_not_mapped) = compare(&maps_path, mapped_files, prediction.as_ref());
    Ok(Running {
        pid,
        exe,
        cmdline,
        env,
        mapped,
        predicted_not_mapped,
        open_data: open_data(&dir.join("fd"), &mut errors),
        prediction,
        errors,
    })
}

/// A NUL-separated `/proc` list (`cmdline`, `environ`); an unreadable one is an error noted.
fn nul_list(path: &Path, errors: &mut Vec<ErrorItem>) -> Vec<String> {
    match std::fs::File::open(path).and_then(|f| {
        use std::io::Read;
        let mut b = Vec::new();
        f.take(MAX_PROC_TEXT).read_to_end(&mut b)?;
        Ok(b)
    }) {
        Ok(b) => b
            .split(|&c| c == 0)
            .filter(|s| !s.is_empty())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .collect(),
        Err(e) => {
            errors.push(ErrorItem::at(path.display().to_string(), e.to_string()));
            Vec::new()
        }
    }
}

/// The shared objects of a `maps` text, first mapping first: file-backed lines (a path after
/// the five fields) whose name is a shared object (`.so`, `.so.N`), the program excepted.
pub fn shared_objects(maps: &str, exe: Option<&str>) -> Vec<(String, bool)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for line in maps.lines() {
        let Some(path) = map_path(line) else { continue };
        let (path, deleted) = match path.strip_suffix(" (deleted)") {
            Some(p) => (p, true),
            None => (path, false),
        };
        let base = path.rsplit('/').next().unwrap_or(path);
        if !is_shared_object_name(base) || Some(path) == exe || !seen.insert(path.to_string()) {
            continue;
        }
        out.push((path.to_string(), deleted));
    }
    out
}

/// `libx.so` or `libx.so.<version>` (digits and dots): the loader's cache
/// (`/etc/ld.so.cache`, mapped while a process starts) and other `.so.` names are not.
fn is_shared_object_name(base: &str) -> bool {
    base.ends_with(".so")
        || base.match_indices(".so.").any(|(i, _)| {
            let v = &base[i + 4..];
            v.starts_with(|c: char| c.is_ascii_digit())
                && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        })
}

/// The path of a `maps` line (`address perms offset dev inode path`), if it names a file.
fn map_path(line: &str) -> Option<&str> {
    let mut rest = line;
    for _ in 0..5 {
        rest = rest.trim_start();
        let end = rest.find(' ')?;
        rest = &rest[end..];
    }
    let p = rest.trim_start();
    p.starts_with('/').then_some(p)
}

/// Each mapped object marked predicted or not, and the predicted ones not mapped.
fn compare(
    maps_path: &Path,
    files: Vec<(String, bool)>,
    prediction: Option<&Loads>,
) -> (Vec<Mapped>, Vec<String>) {
    let canon = |p: &str| {
        std::fs::canonicalize(p)
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_else(|_| p.to_string())
    };
    let predicted: BTreeSet<String> = prediction
        .map(|l| l.libraries.iter().map(|lib| canon(&lib.path)).collect())
        .unwrap_or_default();
    let mapped_canon: BTreeSet<String> = files.iter().map(|(p, _)| canon(p)).collect();
    let loc = Locator::file(maps_path.display().to_string());
    let mapped = files
        .into_iter()
        .map(|(path, deleted)| {
            let is_predicted = predicted.contains(&canon(&path));
            let (rule, why) = if prediction.is_none() {
                ("loads.process.mapped", "mapped in the process".to_string())
            } else if is_predicted {
                (
                    "loads.process.mapped_predicted",
                    "mapped, and reached by the loader rules from the program".to_string(),
                )
            } else {
                (
                    "loads.process.mapped_later",
                    "mapped, but not reached from the program's DT_NEEDED: opened later by name (dlopen) or preloaded".to_string(),
                )
            };
            Mapped {
                rocm: rocm::which(&path),
                deleted,
                predicted: is_predicted,
                evidence: Evidence::new(Class::Confirmed, Proof::RuntimeVerified, rule)
                    .because(why)
                    .at(loc.clone()),
                path,
            }
        })
        .collect();
    let not_mapped = prediction
        .map(|l| {
            l.libraries
                .iter()
                .filter(|lib| !mapped_canon.contains(&canon(&lib.path)))
                .map(|lib| lib.path.clone())
                .collect()
        })
        .unwrap_or_default();
    (mapped, not_mapped)
}

/// Open files ROCm libraries read as data, from the descriptors' links.
fn open_data(fd_dir: &Path, errors: &mut Vec<ErrorItem>) -> Vec<String> {
    let rd = match std::fs::read_dir(fd_dir) {
        Ok(r) => r,
        Err(e) => {
            errors.push(ErrorItem::at(fd_dir.display().to_string(), e.to_string()));
            return Vec::new();
        }
    };
    let mut out = BTreeSet::new();
    for e in rd.flatten().take(MAX_FDS) {
        let Ok(target) = std::fs::read_link(e.path()) else {
            continue;
        };
        let t = target.to_string_lossy();
        if is_rocm_data(&t) {
            out.insert(t.into_owned());
        }
    }
    out.into_iter().collect()
}

/// A file name ROCm libraries read as data: Tensile/TensileLite catalogs and code objects,
/// MIOpen databases and kernel caches, kpack archives, AOTriton images.
pub fn is_rocm_data(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    let ext = |e: &str| base.ends_with(e);
    (base.starts_with("TensileLibrary") || base.starts_with("TensileLiteLibrary"))
        || ext(".hsaco")
        || ext(".kdb")
        || ext(".ukdb")
        || ext(".udb")
        || ext(".fdb.txt")
        || ext(".db.txt")
        || ext(".kpack")
        || ext(".aks2")
        || (path.contains("/miopen") && ext(".db"))
}

#[cfg(test)]
mod tests {

    #[test]
    fn shared_object_names() {
        for yes in [
            "libc.so.6",
            "libamdhip64.so",
            "libhsa-runtime64.so.1.14.0",
            "ld-linux-x86-64.so.2",
        ] {
            assert!(super::is_shared_object_name(yes), "{yes}");
        }
        for no in ["ld.so.cache", "libx.so.bak", "notes.so.txt", "x.sox"] {
            assert!(!super::is_shared_object_name(no), "{no}");
        }
    }

    use super::*;

    #[test]
    fn maps_lines_name_their_files_with_spaces_and_deletions() {
        let maps = "\
5581e0a00000-5581e0a02000 r--p 00000000 08:01 1234   /usr/bin/sleep
7f00a0000000-7f00a0021000 rw-p 00000000 00:00 0
7f00b0000000-7f00b0100000 r--p 00000000 08:01 42     /opt/rocm 6.4/lib/libamdhip64.so.6.4.0
7f00b0100000-7f00b0200000 r-xp 00100000 08:01 42     /opt/rocm 6.4/lib/libamdhip64.so.6.4.0
7f00c0000000-7f00c0010000 r--p 00000000 08:01 77     /usr/lib/x86_64-linux-gnu/libc.so.6
7f00d0000000-7f00d0001000 r--p 00000000 08:01 99     /tmp/librocblas.so.4 (deleted)
7f00e0000000-7f00e0001000 r--p 00000000 08:01 98     /usr/lib/locale/C.utf8/LC_CTYPE
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0      [stack]
";
        let got = shared_objects(maps, Some("/usr/bin/sleep"));
        assert_eq!(
            got,
            vec![
                ("/opt/rocm 6.4/lib/libamdhip64.so.6.4.0".to_string(), false),
                ("/usr/lib/x86_64-linux-gnu/libc.so.6".to_string(), false),
                ("/tmp/librocblas.so.4".to_string(), true),
            ]
        );
    }

    #[test]
    fn rocm_data_files_are_told_from_others() {
        for p in [
            "/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat",
            "/opt/rocm/share/miopen/db/gfx90a6e.kdb",
            "/home/u/.config/miopen/gfx90a6e.HIP.3_2_0.ukdb",
            "/x/torch/lib/hipblaslt/library/TensileLibrary_HH_gfx942.co",
        ] {
            assert!(is_rocm_data(p), "{p}");
        }
        for p in ["/usr/lib/locale/C.utf8/LC_CTYPE", "/dev/kfd", "/tmp/x.db"] {
            assert!(!is_rocm_data(p), "{p}");
        }
    }
}
