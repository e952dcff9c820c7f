#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Snapshot of the `rocpath loads` table, built from typed values: a torch wheel's HIP and
//! rocBLAS found through the wheel's RUNPATH, a name not found, and the data folders.

use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_loads::rocm::DataPath;
use rocpath_loads::{CacheInfo, Library, Loads, Missing, Rule, Searched};

fn ev(rule: &str, by: &str) -> Evidence {
    Evidence::new(Class::Inferred, Proof::CodeVerified, rule).at(Locator::file(by))
}

fn lib(name: &str, path: &str, rule: Rule, by: &str, depth: u32) -> Library {
    Library {
        name: name.into(),
        path: path.into(),
        rule,
        needed_by: by.into(),
        depth,
        runpath: None,
        rpath: None,
        rocm: rocpath_loads::rocm::which(name),
        kpack_search_paths: Vec::new(),
        evidence: ev("loads.runpath", by),
    }
}

#[test]
fn loads_table() {
    let t = "/venv/lib/python3.12/site-packages/torch/lib";
    let hip = format!("{t}/libtorch_hip.so");
    let l = Loads {
        target: hip.clone(),
        class: "ELF64".into(),
        machine: "x86_64".into(),
        interpreter: Some("/lib64/ld-linux-x86-64.so.2".into()),
        rpath: None,
        runpath: Some("$ORIGIN".into()),
        ld_library_path: Some("/opt/rocm/lib".into()),
        default_dirs: vec![
            "/lib/x86_64-linux-gnu/".into(),
            "/usr/lib/x86_64-linux-gnu/".into(),
        ],
        hwcaps: vec![],
        cache: CacheInfo {
            path: "/etc/ld.so.cache".into(),
            entries: 523,
            error: None,
        },
        libraries: vec![
            lib(
                "libamdhip64.so.6",
                "/opt/rocm/lib/libamdhip64.so.6",
                Rule::LdLibraryPath,
                &hip,
                1,
            ),
            lib(
                "librocblas.so.4",
                &format!("{t}/librocblas.so.4"),
                Rule::Runpath,
                &hip,
                1,
            ),
            lib(
                "libc.so.6",
                "/lib/x86_64-linux-gnu/libc.so.6",
                Rule::Cache,
                &hip,
                1,
            ),
        ],
        missing: vec![Missing {
            name: "libroctx64.so.4".into(),
            needed_by: hip.clone(),
            depth: 1,
            searched: vec![
                Searched {
                    rule: Rule::LdLibraryPath,
                    place: "/opt/rocm/lib/".into(),
                },
                Searched {
                    rule: Rule::Runpath,
                    place: format!("{t}/"),
                },
                Searched {
                    rule: Rule::Cache,
                    place: "/etc/ld.so.cache".into(),
                },
            ],
            rejected: vec![],
            evidence: ev("loads.not_found", &hip),
        }],
        rocm_data: vec![DataPath {
            component: "rocblas",
            library: format!("{t}/librocblas.so.4"),
            what: "Tensile catalogs and code objects",
            folder: format!("{t}/rocblas/library"),
            variable: Some("ROCBLAS_TENSILE_LIBPATH"),
            from_variable: false,
            exists: true,
            evidence: ev("loads.rocm_data", &hip),
        }],
        truncated: false,
    };
    insta::assert_snapshot!("loads_table", rocpath_render::loads::loads_table(&l));
}
