#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Solution presence on Debian's rocBLAS 6.4.4 (librocblas4) and hipBLASLt 7.1.1
//! (libhipblaslt1), unpacked under `$ROCPATH_CORPUS/unpacked` by
//! `shared/tools/fetch-debian-rocm.sh`. Skips when the corpus is absent (fails under CI).

use rocpath_explain::rocblas::{Query, explain};
use std::path::{Path, PathBuf};

fn dirs() -> Option<(PathBuf, PathBuf)> {
    let rb = rocpath_testdata::corpus_path(
        "librocblas4",
        "usr/lib/x86_64-linux-gnu/rocblas/4.4.1/library",
    )?;
    let lt = rocpath_testdata::corpus_path(
        "libhipblaslt1",
        "usr/lib/x86_64-linux-gnu/hipblaslt/library",
    )?;
    Some((rb, lt))
}

fn q(p: &str, t: &str, rb: &Path, lt: &Path, env: Option<&str>) -> Query {
    Query {
        processor: p.into(),
        dtype: t.into(),
        rocblas_dir: Some(rb.to_path_buf()),
        hipblaslt_dir: Some(lt.to_path_buf()),
        use_hipblaslt: env.map(str::to_string),
        batched: false,
    }
}

#[test]
fn debian_rocblas_and_hipblaslt_presence() {
    let Some((rb, lt)) = dirs() else { return };
    // gfx900 FP32: Tensile, with solutions tuned for gfx900 (four SS transposes).
    let e = explain(&q("gfx900", "f32", &rb, &lt, None)).unwrap();
    assert_eq!(
        (e.backend.as_str(), e.outcome.as_str()),
        ("tensile", "tensile")
    );
    let t = e.tensile.as_ref().unwrap();
    assert_eq!(t.index.as_deref(), Some("TensileLibrary_lazy_gfx900.dat"));
    assert_eq!(t.target_files.len(), 4);
    assert!(t.target_solutions > 0);
    // gfx900 BF16: only the generic fallback kernels (BB_HPA / BS_HPA _fallback with gfx900 hsaco).
    let e = explain(&q("gfx900", "bf16", &rb, &lt, None)).unwrap();
    assert_eq!(e.outcome.as_str(), "tensile_fallback_kernels");
    let t = e.tensile.as_ref().unwrap();
    assert!(t.target_files.is_empty());
    assert_eq!(t.fallback_files.len(), 8);
    assert!(t.fallback_solutions > 0);
    // gfx900 INT8 likewise (I8I_HPA fallback).
    let e = explain(&q("gfx900", "i8", &rb, &lt, None)).unwrap();
    assert_eq!(e.outcome.as_str(), "tensile_fallback_kernels");
    // gfx900 XF32: falls back to FP32 (no XF32 on gfx900).
    let e = explain(&q("gfx900", "xf32", &rb, &lt, None)).unwrap();
    assert!(
        e.fallbacks
            .iter()
            .any(|f| f.evidence.rule == "explain.rocblas.xf32_to_fp32")
    );
    // gfx1201 FP16: hipBLASLt by default, and hipBLASLt 7.1.1 ships gfx1201 HH solutions.
    let e = explain(&q("gfx1201", "f16", &rb, &lt, None)).unwrap();
    assert_eq!(
        (e.backend.as_str(), e.outcome.as_str()),
        ("hipblaslt", "hipblaslt")
    );
    let h = e.hipblaslt.as_ref().unwrap();
    assert!(!h.target_files.is_empty() && h.target_solutions > 0);
    // …but with ROCBLAS_USE_HIPBLASLT=0 it goes to Tensile, and rocBLAS 6.4.4 has no gfx1201 index.
    let e = explain(&q("gfx1201", "f16", &rb, &lt, Some("0"))).unwrap();
    assert_eq!(
        (e.backend.as_str(), e.outcome.as_str()),
        ("tensile", "error")
    );
    assert!(
        e.fallbacks
            .iter()
            .any(|f| f.evidence.rule == "explain.rocblas.no_tensile_index")
    );
    // gfx90a forced onto hipBLASLt: hipBLASLt has gfx90a FP32 solutions.
    let e = explain(&q("gfx90a", "f32", &rb, &lt, Some("1"))).unwrap();
    assert_eq!(e.outcome.as_str(), "hipblaslt");
    // gfx900 forced onto hipBLASLt: none for gfx900, so hipBLASLt → Tensile.
    let e = explain(&q("gfx900", "f32", &rb, &lt, Some("1"))).unwrap();
    assert_eq!(e.outcome.as_str(), "tensile");
    assert!(
        e.fallbacks
            .iter()
            .any(|f| f.evidence.rule == "explain.rocblas.hipblaslt_to_tensile")
    );
    assert!(explain(&q("gfx900", "q4", &rb, &lt, None)).is_none());
}
