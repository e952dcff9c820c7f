#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! hipBLASLt presence on the TensileLite layouts: a real hipBLASLt 7.1.1 solution file
//! (`shared/fixtures/codeobjects`) zlib-compressed in a per-processor subfolder, a
//! generic-family folder, and a catalog whose `format_version` the loader refuses.

use rmpv::Value;
use rocpath_explain::rocblas::hipblaslt_presence;
use std::io::Write;

const REAL: &str =
    "hipblaslt-7.1.1_TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat";

fn zlib(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

#[test]
fn per_arch_zlib_generic_and_refused_catalogs() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let real = std::fs::read(dir.join(REAL)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path();
    let put = |sub: &str, name: &str, b: &[u8]| {
        std::fs::create_dir_all(lib.join(sub)).unwrap();
        std::fs::write(lib.join(sub).join(name), b).unwrap();
    };
    let name = |p: &str| {
        format!("TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_{p}.dat")
    };
    put(
        "gfx1201",
        &format!("{}.zlib", name("gfx1201")),
        &zlib(&real),
    );
    put(
        "gfx1201",
        "TensileLiteLibrary_lazy_gfx1201_Mapping.dat",
        &[0x80],
    );
    put("gfx11-generic", &name("gfx11-generic"), &real);
    let mut future = Vec::new();
    rmpv::encode::write_value(
        &mut future,
        &Value::Map(vec![
            ("format_version".into(), 7.into()),
            ("library".into(), Value::Map(vec![])),
        ]),
    )
    .unwrap();
    put("gfx942", &name("gfx942"), &future);

    let p = hipblaslt_presence(lib, "gfx1201", "f32").unwrap();
    assert_eq!(
        p.target_files,
        vec![format!("gfx1201/{}.zlib", name("gfx1201"))]
    );
    assert!(p.target_solutions > 0);
    assert_eq!(
        p.index.as_deref(),
        Some("gfx1201/TensileLiteLibrary_lazy_gfx1201_Mapping.dat")
    );

    let p = hipblaslt_presence(lib, "gfx1100", "f32").unwrap();
    assert_eq!(
        p.target_files,
        vec![format!("gfx11-generic/{}", name("gfx11-generic"))]
    );
    assert!(p.evidence.note.contains("generic family gfx11-generic"));

    let p = hipblaslt_presence(lib, "gfx942", "f32").unwrap();
    assert!(p.target_files.is_empty());
    assert_eq!(p.evidence.rule, "explain.rocblas.no_solutions");
    assert!(
        p.refused_files[0].contains("format_version 7"),
        "{:?}",
        p.refused_files
    );
}
