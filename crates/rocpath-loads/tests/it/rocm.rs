#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! ROCm libraries among those resolved, and the folder each reads its data from: next to the
//! file the loader takes (a wheel's own copy), unless the variable names another.

use rocpath_loads::{Options, Rule};
use std::path::Path;
use std::process::Command;

fn gcc(args: &[&str], dir: &Path) {
    let st = Command::new("gcc")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success(), "gcc {args:?}");
}

#[test]
fn data_next_to_the_library_taken() {
    if !rocpath_testdata::have_tool("gcc") {
        rocpath_testdata::missing("gcc is not on PATH");
        return;
    }
    // A wheel-like folder: torch/lib/{libtorch_hip.so, librocblas.so.4, libhipblaslt.so.1,
    // rocblas/library/}, the extension with RUNPATH $ORIGIN.
    let d = tempfile::tempdir().unwrap();
    let lib = d.path().join("torch/lib");
    std::fs::create_dir_all(lib.join("rocblas/library")).unwrap();
    std::fs::write(lib.join("b.c"), "int b(void){return 1;}\n").unwrap();
    std::fs::write(
        lib.join("t.c"),
        "int b(void); int h(void); int m(void); int t(void){return b()+h()+m();}\n",
    )
    .unwrap();
    std::fs::write(lib.join("h.c"), "int h(void){return 2;}\n").unwrap();
    std::fs::write(lib.join("m.c"), "int m(void){return 3;}\n").unwrap();
    gcc(
        &[
            "-shared",
            "-fPIC",
            "-o",
            "librocblas.so.4",
            "b.c",
            "-Wl,-soname,librocblas.so.4",
        ],
        &lib,
    );
    gcc(
        &[
            "-shared",
            "-fPIC",
            "-o",
            "libhipblaslt.so.1",
            "h.c",
            "-Wl,-soname,libhipblaslt.so.1",
        ],
        &lib,
    );
    gcc(
        &[
            "-shared",
            "-fPIC",
            "-o",
            "libMIOpen.so.1",
            "m.c",
            "-Wl,-soname,libMIOpen.so.1",
        ],
        &lib,
    );
    gcc(
        &[
            "-shared",
            "-fPIC",
            "-o",
            "libtorch_hip.so",
            "t.c",
            "-L.",
            "-l:librocblas.so.4",
            "-l:libhipblaslt.so.1",
            "-l:libMIOpen.so.1",
            "-Wl,-rpath,$ORIGIN",
            "-Wl,--enable-new-dtags",
        ],
        &lib,
    );
    let target = lib.join("libtorch_hip.so");
    let l = rocpath_loads::loads(&Options::new(&target)).unwrap();
    let blas = l
        .libraries
        .iter()
        .find(|x| x.name == "librocblas.so.4")
        .unwrap();
    assert_eq!(blas.rule, Rule::Runpath);
    assert_eq!(blas.rocm, Some("rocblas"));
    let dir = lib.display().to_string();
    let r = l
        .rocm_data
        .iter()
        .find(|x| x.component == "rocblas")
        .unwrap();
    assert_eq!(r.folder, format!("{dir}/rocblas/library"));
    assert!(r.exists && !r.from_variable);
    assert_eq!(r.evidence.rule, "loads.rocm_data");
    let h = l
        .rocm_data
        .iter()
        .find(|x| x.component == "hipblaslt")
        .unwrap();
    assert_eq!(h.folder, format!("{dir}/hipblaslt/library"));
    assert!(!h.exists);
    let m = l
        .rocm_data
        .iter()
        .find(|x| x.component == "miopen")
        .unwrap_or_else(|| {
            panic!(
                "{:#?}",
                l.libraries
                    .iter()
                    .map(|x| (&x.name, x.rocm))
                    .collect::<Vec<_>>()
            )
        });
    let torch = d.path().join("torch").canonicalize().unwrap();
    assert_eq!(m.folder, format!("{}/share/miopen/db", torch.display()));
    assert_eq!(m.variable, Some("MIOPEN_SYSTEM_DB_PATH"));
    // The variable names another folder.
    let mut o = Options::new(&target);
    o.env
        .insert("ROCBLAS_TENSILE_LIBPATH".into(), "/srv/tensile".into());
    let l = rocpath_loads::loads(&o).unwrap();
    let r = l
        .rocm_data
        .iter()
        .find(|x| x.component == "rocblas")
        .unwrap();
    assert_eq!(r.folder, "/srv/tensile");
    assert!(r.from_variable);
    // MIOpen's user databases and kernel cache: in the home, unless a variable names them.
    let mut o = Options::new(&target);
    o.env.insert("HOME".into(), "/home/u".into());
    o.env
        .insert("MIOPEN_CUSTOM_CACHE_DIR".into(), "/scratch/kcache".into());
    let l = rocpath_loads::loads(&o).unwrap();
    let miopen: Vec<(&str, &str, bool)> = l
        .rocm_data
        .iter()
        .filter(|x| x.component == "miopen")
        .map(|x| (x.variable.unwrap_or(""), x.folder.as_str(), x.from_variable))
        .collect();
    assert!(
        miopen.contains(&("MIOPEN_USER_DB_PATH", "/home/u/.config/miopen", false)),
        "{miopen:?}"
    );
    assert!(
        miopen.contains(&("MIOPEN_CUSTOM_CACHE_DIR", "/scratch/kcache", true)),
        "{miopen:?}"
    );
}

#[test]
fn aotriton_reads_its_images_next_to_itself() {
    if !rocpath_testdata::have_tool("gcc") {
        rocpath_testdata::missing("gcc is not on PATH");
        return;
    }
    // torch/lib/libtorch_hip.so needs libaotriton_v2.so beside it (RUNPATH $ORIGIN).
    let d = tempfile::tempdir().unwrap();
    let lib = d.path().join("torch/lib");
    std::fs::create_dir_all(lib.join("aotriton.images/amd-gfx942")).unwrap();
    std::fs::write(lib.join("a.c"), "int a(void){return 1;}\n").unwrap();
    std::fs::write(lib.join("t.c"), "int a(void); int t(void){return a();}\n").unwrap();
    gcc(
        &[
            "-shared",
            "-fPIC",
            "-o",
            "libaotriton_v2.so.0.11",
            "a.c",
            "-Wl,-soname,libaotriton_v2.so.0.11",
        ],
        &lib,
    );
    gcc(
        &[
            "-shared",
            "-fPIC",
            "-o",
            "libtorch_hip.so",
            "t.c",
            "-L.",
            "-l:libaotriton_v2.so.0.11",
            "-Wl,-rpath,$ORIGIN",
            "-Wl,--enable-new-dtags",
        ],
        &lib,
    );
    let l = rocpath_loads::loads(&Options::new(lib.join("libtorch_hip.so"))).unwrap();
    let a = l
        .rocm_data
        .iter()
        .find(|x| x.component == "aotriton")
        .unwrap_or_else(|| panic!("{:#?}", l.rocm_data));
    assert_eq!(a.folder, format!("{}/aotriton.images", lib.display()));
    assert!(a.exists && a.variable.is_none());
}

/// A library packed for kpack (the real Debian gloo library packed by the reference packer,
/// `rocpath-sources/tests/data/kpack`): the archive its marker names, there or gone.
#[test]
fn a_kpack_library_names_its_archive() {
    let packed =
        rocpath_testdata::repo_root().join("crates/rocpath-sources/tests/data/kpack/gloo-packed");
    let d = tempfile::tempdir().unwrap();
    for rel in ["lib/libgloo_hip.so.0.5.0", ".kpack/gloo-gfx90X.kpack"] {
        let to = d.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(packed.join(rel), to).unwrap();
    }
    let lib = d.path().join("lib/libgloo_hip.so.0.5.0");
    let kpack = |l: &rocpath_loads::Loads| {
        l.rocm_data
            .iter()
            .find(|x| x.component == "kpack")
            .map(|x| (x.folder.clone(), x.exists))
            .unwrap_or_else(|| panic!("{:#?}", l.rocm_data))
    };
    let (path, exists) = kpack(&rocpath_loads::loads(&Options::new(&lib)).unwrap());
    assert!(path.ends_with("lib/../.kpack/gloo-gfx90X.kpack"), "{path}");
    assert!(exists);
    std::fs::remove_file(d.path().join(".kpack/gloo-gfx90X.kpack")).unwrap();
    let (_, exists) = kpack(&rocpath_loads::loads(&Options::new(&lib)).unwrap());
    assert!(!exists, "the archive is gone");
}
