//! ROCm libraries among those resolved, and where each reads its data relative to the file
//! the loader took (not to the install on disk): the install that runs is the one found.

use crate::{Library, Tree};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::BTreeMap;

/// File-name prefixes of ROCm libraries and the component each is.
pub const ROCM_LIBS: &[(&str, &str)] = &[
    ("libamdhip64", "hip"),
    ("libhsa-runtime64", "hsa-runtime"),
    ("libhsakmt", "hsakmt"),
    ("librocblas", "rocblas"),
    ("libhipblaslt", "hipblaslt"),
    ("libhipblas", "hipblas"),
    ("libMIOpen", "miopen"),
    ("librocsolver", "rocsolver"),
    ("libhipsolver", "hipsolver"),
    ("librocsparse", "rocsparse"),
    ("libhipsparse", "hipsparse"),
    ("librocfft", "rocfft"),
    ("libhipfft", "hipfft"),
    ("librocrand", "rocrand"),
    ("libhiprand", "hiprand"),
    ("librccl", "rccl"),
    ("libamd_comgr", "comgr"),
    ("librocprofiler", "rocprofiler"),
    ("libroctracer", "roctracer"),
    ("libroctx64", "roctx"),
    ("librocm_smi64", "rocm-smi"),
    ("libamd_smi", "amd-smi"),
    ("libaotriton", "aotriton"),
    ("librocm_kpack", "kpack"),
];

/// The ROCm component a library name is, if it is one (`librocblas.so.4` → `rocblas`).
pub fn which(name: &str) -> Option<&'static str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    ROCM_LIBS
        .iter()
        .find(|(p, _)| {
            base.strip_prefix(p)
                .is_some_and(|r| r.starts_with(".so") || r.starts_with('-') || r.starts_with('_'))
        })
        .map(|(_, c)| *c)
}

/// Where a ROCm library reads its data.
#[derive(Debug, Clone, Serialize)]
pub struct DataPath {
    /// The component (`rocblas`).
    pub component: &'static str,
    /// The library file the loader took.
    pub library: String,
    /// What it reads there (`Tensile catalogs`).
    pub what: &'static str,
    /// The folder it reads.
    pub folder: String,
    /// The variable that sets it, and whether it is set.
    pub variable: Option<&'static str>,
    /// Whether the variable decided the folder.
    pub from_variable: bool,
    /// Whether the folder is there.
    pub exists: bool,
    /// Why.
    pub evidence: Evidence,
}

/// The folder of a path as a string (`/a/b/lib.so` → `/a/b`).
fn dir(p: &str) -> &str {
    match p.rfind('/') {
        Some(0) => "/",
        Some(i) => &p[..i],
        None => ".",
    }
}

/// rocBLAS's Tensile folder for a librocblas in folder `d`: the probes of
/// `tensile_host.cpp:763-774` (rocBLAS 6.4.4), in order, the last one taken without a test.
fn rocblas_library(tree: &dyn Tree, d: &str) -> String {
    ["../../Tensile/library", "library", "../rocblas/library"]
        .iter()
        .map(|rel| format!("{d}/{rel}"))
        .find(|p| tree.host(p).exists())
        .unwrap_or_else(|| format!("{d}/rocblas/library"))
}

/// One place a library reads: what, the variable that names it instead, the folder, the
/// source that says so.
type Place = (&'static str, Option<&'static str>, String, &'static str);

/// `~` of the environment (`HOME`), for the per-user places.
fn home(env: &BTreeMap<String, String>) -> String {
    env.get("HOME").cloned().unwrap_or_else(|| "~".to_string())
}

/// MIOpen's places: the system databases above the real folder of the library, the user
/// databases and the kernel cache in the home.
fn miopen_places(tree: &dyn Tree, l: &Library, env: &BTreeMap<String, String>) -> Vec<Place> {
    // GetLibPath: canonical(dladdr's file).parent_path(); then .parent_path() /
    // "share/miopen/db/" — the folder above the library's real folder, whatever it is called
    // (a release build; MIOPEN_BUILD_DEV builds use the configured path).
    let real = tree.real(&l.path).unwrap_or_else(|| l.path.clone());
    let up = dir(dir(&real));
    let h = home(env);
    vec![
        (
            "system find-db, perf-db and kernel databases",
            Some("MIOPEN_SYSTEM_DB_PATH"),
            format!("{}/share/miopen/db", up.trim_end_matches('/')),
            "MIOpen src/db_path.cpp.in GetSystemDbPath: the folder above the real folder of the libMIOpen it runs from (GetLibPath: dladdr, canonical) + share/miopen/db, unless MIOPEN_SYSTEM_DB_PATH is set",
        ),
        (
            "user find-db and perf-db (results of earlier Find and tuning)",
            Some("MIOPEN_USER_DB_PATH"),
            format!("{h}/.config/miopen"),
            "MIOpen src/db_path.cpp.in PrepareUserDbPath: MIOPEN_USER_DB_PATH when set, else the build's default ~/.config/miopen/ (CMakeLists.txt, release builds); the temporary folder when that is on a network file system",
        ),
        (
            "kernel cache (kernels compiled on first use)",
            Some("MIOPEN_CUSTOM_CACHE_DIR"),
            format!("{h}/.cache/miopen/<MIOpen version>"),
            "MIOpen src/binary_cache.cpp ComputeUserCachePath: MIOPEN_CUSTOM_CACHE_DIR when set, else ~/.cache/miopen/ (MIOPEN_CACHE_DIR of release builds) + the MIOpen version; the temporary folder on a network file system",
        ),
    ]
}

/// The kpack archives of a library packed for kpack: its marker's search paths, relative to
/// its folder unless absolute (`@GFXARCH@` stands for the device's architecture).
fn kpack_places(l: &Library) -> Vec<Place> {
    let d = dir(&l.path);
    l.kpack_search_paths
        .iter()
        .map(|p| {
            let path = if p.starts_with('/') {
                p.clone()
            } else {
                format!("{d}/{p}")
            };
            (
                "kpack archive with its device code",
                None,
                path,
                "the .rocm_kpack_ref marker of the library (kpack_search_paths, relative to the library's folder); the runtime opens the first archive whose gfx_arches lists the device",
            )
        })
        .collect()
}

/// The places a ROCm library reads, by component.
fn places(tree: &dyn Tree, l: &Library, env: &BTreeMap<String, String>) -> Vec<Place> {
    let mut out = kpack_places(l);
    out.extend(component_places(tree, l, env));
    out
}

/// The places of each ROCm component.
fn component_places(tree: &dyn Tree, l: &Library, env: &BTreeMap<String, String>) -> Vec<Place> {
    let d = dir(&l.path);
    match l.rocm {
        Some("rocblas") => vec![(
            "Tensile catalogs and code objects",
            Some("ROCBLAS_TENSILE_LIBPATH"),
            rocblas_library(tree, d),
            "rocBLAS 6.4.4 library/src/tensile_host.cpp:725-775: from the folder of the librocblas it runs from (dl_iterate_phdr), the first of ../../Tensile/library, library, ../rocblas/library that exists, else rocblas/library; then its <gfx> subfolder when there is one; unless ROCBLAS_TENSILE_LIBPATH is set",
        )],
        Some("hipblaslt") => vec![(
            "TensileLite catalogs and code objects",
            Some("HIPBLASLT_TENSILE_LIBPATH"),
            format!("{d}/hipblaslt/library"),
            "hipBLASLt library/src/amd_detail/rocblaslt/src/tensile_host.cpp: the folder of the libhipblaslt it runs from (dladdr) + hipblaslt/library, unless HIPBLASLT_TENSILE_LIBPATH is set",
        )],
        Some("miopen") => miopen_places(tree, l, env),
        Some("aotriton") => vec![(
            "AOTriton kernel images (AKS2 archives per GPU family)",
            None,
            format!("{d}/aotriton.images"),
            "AOTriton v2 runtime, locate_aotriton_images: the folder of the libaotriton it runs from (dladdr) + aotriton.images",
        )],
        _ => Vec::new(),
    }
}

/// Whether a kpack archive path names a file (a `@GFXARCH@` pattern: any file of its folder
/// that the pattern matches).
fn kpack_exists(tree: &dyn Tree, path: &str) -> bool {
    let gfx = rocpath_sources::kpack_ref::GFXARCH;
    let Some((pre, post)) = path.split_once(gfx) else {
        return tree.host(path).is_file();
    };
    let folder = dir(pre);
    let stem = &pre[folder.len()..].trim_start_matches('/');
    std::fs::read_dir(tree.host(folder))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .take(rocpath_sources::kpack_ref::MAX_DIR_ENTRIES)
        .any(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with(stem) && n.ends_with(post) && n.len() > stem.len() + post.len()
        })
}

/// Where each ROCm library found reads its data: rocBLAS its Tensile catalogs, hipBLASLt its
/// TensileLite catalogs, MIOpen its system and user databases and its kernel cache, AOTriton
/// its kernel images — each next to the file taken unless a variable names another folder.
pub fn data_paths(
    tree: &dyn Tree,
    libs: &[Library],
    env: &BTreeMap<String, String>,
) -> Vec<DataPath> {
    let mut out = Vec::new();
    for l in libs {
        for (what, var, folder, cite) in places(tree, l, env) {
            let set = var.and_then(|v| env.get(v));
            let folder = set.cloned().unwrap_or(folder);
            let exists = if what.starts_with("kpack") {
                kpack_exists(tree, &folder)
            } else {
                tree.host(&folder).is_dir()
            };
            let note = match (var, set) {
                (Some(v), Some(_)) => format!("{v} is set: it names the folder ({cite})"),
                _ => cite.to_string(),
            };
            out.push(DataPath {
                component: l.rocm.unwrap_or("kpack"),
                library: l.path.clone(),
                what,
                folder,
                variable: var,
                from_variable: set.is_some(),
                exists,
                evidence: Evidence::new(Class::Inferred, Proof::CodeVerified, "loads.rocm_data")
                    .at(Locator::file(&l.path))
                    .because(note),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rocblas_probes_its_folders_in_the_order_of_tensile_host() {
        let t = std::env::temp_dir().join(format!("rocpath-rocblas-{}", std::process::id()));
        let lib = t.join("lib");
        std::fs::create_dir_all(&lib).unwrap();
        let d = lib.to_string_lossy().into_owned();
        assert_eq!(
            rocblas_library(&crate::Live, &d),
            format!("{d}/rocblas/library")
        );
        std::fs::create_dir_all(t.join("rocblas/library")).unwrap();
        assert_eq!(
            rocblas_library(&crate::Live, &d),
            format!("{d}/../rocblas/library")
        );
        std::fs::create_dir_all(lib.join("library")).unwrap();
        assert_eq!(rocblas_library(&crate::Live, &d), format!("{d}/library"));
        std::fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn names() {
        assert_eq!(which("librocblas.so.4"), Some("rocblas"));
        assert_eq!(which("libhipblaslt.so.1"), Some("hipblaslt"));
        assert_eq!(which("libhipblas.so.2"), Some("hipblas"));
        assert_eq!(which("libamdhip64.so.6"), Some("hip"));
        assert_eq!(which("libc.so.6"), None);
    }
}
