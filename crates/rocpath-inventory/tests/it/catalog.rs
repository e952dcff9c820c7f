//! TensileLite catalog layouts in `check`: per-processor subfolders (`library/<arch>/`) are one
//! library, `.dat.zlib` catalogs are read, a generic-family catalog serves a processor without
//! its own, and a catalog the loader refuses is reported as present but not loadable. The
//! solution file is real (hipBLASLt 7.1.1, `shared/fixtures/codeobjects`); the index files
//! around it are written here in the layouts hipBLASLt reads.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rmpv::Value;
use rocpath_arch::TargetId;
use rocpath_evidence::Class;
use rocpath_inventory::check::{LibraryCheck, Verdict, check, rules};
use rocpath_inventory::device::Device;
use rocpath_inventory::{NoProgress, Options, scan};
use std::io::Write;
use std::path::Path;

const REAL: &str =
    "hipblaslt-7.1.1_TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat";

fn pack(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

fn zlib(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

fn device(t: &str) -> Device {
    rocpath_inventory::device::from_target(TargetId::parse(t).unwrap())
}

fn tensile_check(root: &Path, t: &str) -> Vec<LibraryCheck> {
    let inv = scan(&[root.to_path_buf()], &Options::default(), &NoProgress);
    assert!(inv.errors.is_empty(), "{:?}", inv.errors);
    check(&inv, &device(t), None)
        .libraries
        .into_iter()
        .filter(|l| l.kind == rocpath_inventory::check::Checked::Tensile)
        .collect()
}

#[test]
fn per_arch_folders_zlib_generic_families_and_refused_catalogs() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("hipblaslt/library");
    let write = |sub: &str, name: &str, bytes: &[u8]| {
        std::fs::create_dir_all(lib.join(sub)).unwrap();
        std::fs::write(lib.join(sub).join(name), bytes).unwrap();
    };
    let real = std::fs::read(dir.join(REAL)).unwrap();
    let shard = "TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201";
    write("gfx1201", &format!("{shard}.dat.zlib"), &zlib(&real));
    let master = |prefix: &str| {
        pack(&Value::Map(vec![
            ("solutions".into(), Value::Array(Vec::new())),
            (
                "library".into(),
                Value::Map(vec![
                    ("type".into(), "Placeholder".into()),
                    ("value".into(), prefix.into()),
                ]),
            ),
        ]))
    };
    write("gfx1201", "TensileLibrary_lazy_gfx1201.dat", &master(shard));
    write(
        "gfx1201",
        "TensileLiteLibrary_lazy_gfx1201_Mapping.dat",
        &pack(&Value::Map(vec![("0".into(), shard.into())])),
    );
    write(
        "gfx11-generic",
        "TensileLibrary_lazy_gfx11-generic.dat",
        &master("TensileLibrary_Type_SS_gfx11-generic"),
    );
    let future = pack(&Value::Map(vec![
        ("format_version".into(), 3.into()),
        ("solutions_index".into(), Value::Array(Vec::new())),
        ("solutions_blob".into(), Value::Binary(Vec::new())),
        ("library".into(), Value::Map(Vec::new())),
    ]));
    write("gfx942", "TensileLibrary_Type_SS_gfx942.dat", &future);

    let one = |t: &str| {
        let v = tensile_check(tmp.path(), t);
        assert_eq!(v.len(), 1, "one library for the per-arch folders: {v:?}");
        v.into_iter().next().unwrap()
    };
    let l = one("gfx1201");
    assert!(
        l.library.ends_with("hipblaslt/library/ (Tensile library)"),
        "{}",
        l.library
    );
    assert_eq!((l.verdict, l.compatible), (Verdict::Runs, 3));
    assert!(l.why.contains("solutions"), "{}", l.why);
    assert!(
        !l.why.contains("0 solutions"),
        "the .dat.zlib was read: {}",
        l.why
    );

    // Index only (survey): the per-problem file is recorded by its name, not read; the index
    // still decides, and the refused whole catalog is still read and refused.
    let opts = Options {
        index_only: true,
        ..Options::default()
    };
    let inv = scan(&[tmp.path().to_path_buf()], &opts, &NoProgress);
    let shard_rec = inv
        .tensile
        .iter()
        .find(|t| t.name.starts_with(shard))
        .unwrap();
    assert_eq!(shard_rec.solutions, 0);
    assert!(shard_rec.evidence.sources[0].sha256.is_none());
    let v = check(&inv, &device("gfx1201"), None);
    let l = v
        .libraries
        .iter()
        .find(|l| l.kind == rocpath_inventory::check::Checked::Tensile)
        .unwrap();
    assert_eq!(l.verdict, Verdict::Runs);
    let v = check(&inv, &device("gfx942"), None);
    let l = v
        .libraries
        .iter()
        .find(|l| l.kind == rocpath_inventory::check::Checked::Tensile)
        .unwrap();
    assert_eq!(l.evidence.rule, rules::TENSILE_UNLOADABLE);

    let l = one("gfx1100");
    assert_eq!(l.verdict, Verdict::Runs);
    assert!(l.why.contains("generic family gfx11-generic"), "{}", l.why);

    let l = one("gfx942");
    assert_eq!(l.verdict, Verdict::NoCode);
    assert_eq!(l.evidence.rule, rules::TENSILE_UNLOADABLE);
    assert_eq!(l.evidence.class, Class::Confirmed);
    assert!(l.why.contains("format_version 3"), "{}", l.why);

    let l = one("gfx900");
    assert_eq!(l.evidence.rule, rules::TENSILE_MISSING);
}

/// The real catalog rewritten into the indexed layout (as hipBLASLt's `toIndexed` does).
fn indexed_real(real: &[u8]) -> Vec<u8> {
    let doc = rmpv::decode::read_value(&mut &real[..]).unwrap();
    let get = |m: &Value, k: &str| -> Value {
        m.as_map()
            .unwrap()
            .iter()
            .find(|(key, _)| key.as_str() == Some(k))
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let (mut table, mut blob) = (Vec::new(), Vec::new());
    for s in get(&doc, "solutions").as_array().unwrap() {
        let off = blob.len() as i64;
        blob.extend(pack(s));
        table.extend([
            get(s, "index"),
            off.into(),
            (blob.len() as i64 - off).into(),
        ]);
    }
    pack(&Value::Map(vec![
        ("format_version".into(), 2.into()),
        ("solutions_index".into(), Value::Array(table)),
        ("solutions_blob".into(), Value::Binary(blob)),
        ("library".into(), get(&doc, "library")),
    ]))
}

#[test]
fn an_indexed_catalog_beside_a_hipblaslt_without_the_indexed_loader_is_refused() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let real = std::fs::read(dir.join(REAL)).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib/hipblaslt/library/gfx1201");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(
        lib.join("TensileLibrary_SS_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat.zlib"),
        zlib(&indexed_real(&real)),
    )
    .unwrap();
    // Debian's hipBLASLt 7.1.1 when the corpus is unpacked (it predates the indexed loader),
    // else a stand-in library file with and without the loader's key name.
    let debian = rocpath_testdata::corpus_root()
        .map(|c| c.join("unpacked/libhipblaslt1/usr/lib/x86_64-linux-gnu/libhipblaslt.so.1.1"));
    let so = tmp.path().join("lib/libhipblaslt.so.1");
    match debian.filter(|p| p.is_file()) {
        Some(p) => {
            std::fs::copy(p, &so).unwrap();
        }
        None => std::fs::write(&so, b"host library stand-in without the indexed loader").unwrap(),
    }
    let l = tensile_check(tmp.path(), "gfx1201").pop().unwrap();
    assert_eq!(l.verdict, Verdict::NoCode);
    assert_eq!(l.evidence.rule, rules::TENSILE_UNLOADABLE);
    assert!(l.why.contains("no indexed-catalog loader"), "{}", l.why);

    std::fs::write(
        &so,
        b"host library stand-in: format_version solutions_index solutions_blob",
    )
    .unwrap();
    let l = tensile_check(tmp.path(), "gfx1201").pop().unwrap();
    assert_eq!(l.verdict, Verdict::Runs, "{}", l.why);
    assert!(l.why.contains("format_version 2"), "{}", l.why);
}
