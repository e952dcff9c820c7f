//! The inventory on Debian's real ROCm packages (`../shared/tools/fetch-debian-rocm.sh`), in
//! the folder it fills (`ROCPATH_CORPUS`, else `~/.cache/rocpath-corpus`). A missing package
//! skips the test, or fails it under CI, which fetches librocblas4 and libhipblaslt1; the tests
//! of packages CI does not fetch are `#[ignore]`d (run them with `--ignored`). The expected counts
//! are those measured with LLVM 22's tools and recorded in `shared/reference/artifacts.md`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_inventory::{NoProgress, Options, scan};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn corpus(pkg: &str) -> Option<PathBuf> {
    rocpath_testdata::corpus_path(pkg, "")
}

fn per_target(inv: &rocpath_inventory::Inventory) -> BTreeMap<String, (u64, u64)> {
    inv.targets
        .iter()
        .map(|(t, v)| (t.to_string(), (v.code_objects, v.kernels)))
        .collect()
}

#[test]
#[ignore = "reads Debian bookworm's librocsparse0 (94 MB), which CI does not fetch"]
fn rocsparse0_bookworm() {
    let Some(p) = corpus("librocsparse0") else {
        return;
    };
    let inv = scan(
        &[p],
        &Options {
            no_kernels: true,
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(inv.errors.is_empty(), "{:?}", inv.errors);
    let t = per_target(&inv);
    // 111 uncompressed bundles x 7 device entries, 12,591 kernels per target.
    assert_eq!(t.len(), 7, "{t:?}");
    for (target, (objs, kernels)) in &t {
        assert_eq!(*objs, 111, "{target}");
        assert_eq!(*kernels, 12_591, "{target}");
    }
    assert!(
        t.contains_key("gfx900:xnack-")
            && t.contains_key("gfx90a:xnack+")
            && t.contains_key("gfx90a:xnack-")
    );
}

#[test]
fn rocblas4_host_library_and_tensile_folder() {
    let Some(p) = corpus("librocblas4") else {
        return;
    };
    let inv = scan(
        &[p],
        &Options {
            no_kernels: true,
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(
        inv.errors.is_empty(),
        "{:?}",
        &inv.errors[..inv.errors.len().min(5)]
    );
    // librocblas.so.4.4: 66 bundles x 10 targets, 10,593 kernels per target.
    let so: Vec<_> = inv
        .code_objects
        .iter()
        .filter(|c| c.path.ends_with("librocblas.so.4.4"))
        .collect();
    assert_eq!(so.len(), 660);
    let k900: usize = so
        .iter()
        .filter(|c| c.target.processor == "gfx900")
        .map(|c| c.kernel_count)
        .sum();
    assert_eq!(k900, 10_593);
    // Tensile: one lazy index per target (10), and the 50 target-less fallback files.
    let lazy = inv
        .tensile
        .iter()
        .filter(|t| t.kind == rocpath_inventory::TensileKind::LazyIndex)
        .count();
    assert_eq!(lazy, 10);
    let fallback = inv
        .tensile
        .iter()
        .filter(|t| t.kind == rocpath_inventory::TensileKind::Fallback)
        .count();
    assert_eq!(fallback, 50);
    // Every placeholder of every lazy index names a file that is present.
    for t in inv
        .tensile
        .iter()
        .filter(|t| t.kind == rocpath_inventory::TensileKind::LazyIndex)
    {
        assert!(
            t.missing_placeholders.is_empty(),
            "{}: {:?}",
            t.name,
            &t.missing_placeholders[..1]
        );
    }
}

#[test]
#[ignore = "reads Debian's libggml0-backend-hip (115 MB) and libhsa-runtime64-1, which CI does not fetch"]
fn ggml_hip_and_hsa_runtime() {
    let Some(g) = corpus("libggml0-backend-hip") else {
        return;
    };
    let Some(h) = corpus("libhsa-runtime64-1") else {
        return;
    };
    let inv = scan(
        &[g, h],
        &Options {
            no_kernels: true,
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(inv.errors.is_empty(), "{:?}", inv.errors);
    let ggml: Vec<_> = inv
        .code_objects
        .iter()
        .filter(|c| c.path.ends_with("libggml-hip.so"))
        .collect();
    assert_eq!(ggml.len(), 1400, "140 bundles x 10 targets");
    let k: usize = ggml
        .iter()
        .filter(|c| c.target.processor == "gfx906")
        .map(|c| c.kernel_count)
        .sum();
    assert_eq!(k, 7_184);
    // ROCr 6.4.3: 42 raw ELFs in .data (39 blit objects + 3 legacy v1 objects).
    let rocr: Vec<_> = inv
        .code_objects
        .iter()
        .filter(|c| c.path.contains("libhsa-runtime64"))
        .collect();
    assert_eq!(rocr.len(), 42);
    assert_eq!(
        rocr.iter()
            .filter(|c| c.code_object_version.is_some_and(|v| v <= 2))
            .count(),
        3
    );
    assert!(
        rocr.iter().any(|c| c.target.processor == "gfx1201")
            && rocr.iter().any(|c| c.target.processor == "gfx950")
    );
}

#[test]
fn hipblaslt_ccob_folder() {
    let Some(p) = corpus("libhipblaslt1") else {
        return;
    };
    let inv = scan(
        &[p],
        &Options {
            no_kernels: true,
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(
        inv.errors.is_empty(),
        "{:?}",
        &inv.errors[..inv.errors.len().min(5)]
    );
    // Kernels inside the CCOB TensileLibrary_*.co files, per target (artifacts.md §3.2).
    let ccob_kernels = |p: &str| -> usize {
        inv.code_objects
            .iter()
            .filter(|c| c.target.processor == p && c.container.contains("ccob"))
            .map(|c| c.kernel_count)
            .sum()
    };
    assert_eq!(ccob_kernels("gfx1201"), 21_208);
    assert_eq!(ccob_kernels("gfx1200"), 32_446);
    assert_eq!(ccob_kernels("gfx908"), 58);
    // hipblasltTransform.hsaco holds only gfx908 (a packaging oddity recorded in artifacts.md).
    let tr: Vec<_> = inv
        .code_objects
        .iter()
        .filter(|c| c.path.ends_with("hipblasltTransform.hsaco"))
        .collect();
    assert_eq!(tr.len(), 1);
    assert_eq!(tr[0].target.processor, "gfx908");
}
