//! TensileLite indexed catalogs (`format_version` 2) and `.dat.zlib`: a real hipBLASLt 7.1.1
//! catalog (`shared/fixtures/codeobjects`) rewritten into the indexed layout the way hipBLASLt's
//! own test does (`toIndexed`: each solution re-packed into `solutions_blob`, `(index, offset,
//! length)` triples) reads back to the same solutions, compressed or not; every rule of the
//! loader the file breaks is named; zlib bombs stop at the budget; truncation never panics.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rmpv::Value;
use rocpath_budget::MemoryBudget;
use rocpath_tensile::{LibrarySummary, summarize, summarize_with};
use std::io::Write;

const REAL: &str =
    "hipblaslt-7.1.1_TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat";

fn get<'a>(m: &'a Value, k: &str) -> &'a Value {
    m.as_map()
        .unwrap()
        .iter()
        .find(|(key, _)| key.as_str() == Some(k))
        .map(|(_, v)| v)
        .unwrap()
}

fn pack(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

/// An indexed document with the given version, table, blob and library.
fn indexed(version: i64, table: &[i64], blob: Vec<u8>, library: Value) -> Vec<u8> {
    pack(&Value::Map(vec![
        ("format_version".into(), version.into()),
        (
            "solutions_index".into(),
            Value::Array(table.iter().map(|&i| i.into()).collect()),
        ),
        ("solutions_blob".into(), Value::Binary(blob)),
        ("library".into(), library),
    ]))
}

/// The real catalog (legacy layout) and its indexed rewrite.
fn real_pair() -> Option<(Vec<u8>, Vec<u8>)> {
    let dir = rocpath_testdata::codeobjects_dir()?;
    let legacy = std::fs::read(dir.join(REAL)).unwrap();
    let doc = rmpv::decode::read_value(&mut &legacy[..]).unwrap();
    let mut table = Vec::new();
    let mut blob = Vec::new();
    for s in get(&doc, "solutions").as_array().unwrap() {
        let off = blob.len() as i64;
        blob.extend(pack(s));
        table.extend([
            get(s, "index").as_i64().unwrap(),
            off,
            blob.len() as i64 - off,
        ]);
    }
    let v2 = indexed(2, &table, blob, get(&doc, "library").clone());
    Some((legacy, v2))
}

fn zlib(b: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

fn same_solutions(a: &LibrarySummary, b: &LibrarySummary) {
    assert_eq!(a.solutions, b.solutions);
    assert_eq!(a.solution_list, b.solution_list);
    assert_eq!(a.processors, b.processors);
    assert_eq!(a.problem_types, b.problem_types);
}

#[test]
fn an_indexed_real_catalog_reads_as_the_legacy_one_compressed_or_not() {
    let Some((legacy, v2)) = real_pair() else {
        return;
    };
    let old = summarize("x.dat", &legacy).unwrap();
    assert!(old.solutions > 0);
    assert_eq!((old.format_version, &old.loader_rejects), (None, &None));
    let new = summarize("x.dat", &v2).unwrap();
    same_solutions(&old, &new);
    assert_eq!((new.format_version, &new.loader_rejects), (Some(2), &None));
    let z = summarize("TensileLibrary_x_gfx1201.dat.zlib", &zlib(&v2)).unwrap();
    same_solutions(&old, &z);
    let z = summarize("x.dat.zlib", &zlib(&legacy)).unwrap();
    same_solutions(&old, &z);
}

fn rejects(bytes: &[u8]) -> String {
    summarize("x.dat", bytes)
        .unwrap()
        .loader_rejects
        .unwrap_or_default()
}

#[test]
fn what_the_loader_refuses_is_named() {
    let lib = Value::Map(vec![
        ("type".into(), "Single".into()),
        ("index".into(), 0.into()),
    ]);
    let sol = pack(&Value::Map(vec![
        ("index".into(), 0.into()),
        ("kernelName".into(), "K".into()),
    ]));
    let n = sol.len() as i64;
    let ok = indexed(2, &[0, 0, n], sol.clone(), lib.clone());
    assert_eq!(rejects(&ok), "");
    assert_eq!(summarize("x.dat", &ok).unwrap().solutions, 1);
    let cases: &[(i64, &[i64], &str)] = &[
        (99, &[0, 0, n], "format_version 99"),
        (2, &[0, 0], "not (index, offset, length) triples"),
        (2, &[0, 0, 64], "runs past"),
        (2, &[0, 1 << 62, 1 << 62], "runs past"),
        (2, &[0, -8, 1], "negative"),
        (2, &[(1 << 32) + 5, 0, n], "does not fit an int"),
        (2, &[5, 0, n, 5, 0, n], "appears twice"),
    ];
    for (v, table, want) in cases {
        let r = rejects(&indexed(*v, table, sol.clone(), lib.clone()));
        assert!(r.contains(want), "{table:?}: {r}");
    }
    let no_blob = pack(&Value::Map(vec![
        ("format_version".into(), 2.into()),
        (
            "solutions_index".into(),
            Value::Array(vec![0.into(), 0.into(), 1.into()]),
        ),
        ("library".into(), lib),
    ]));
    assert!(rejects(&no_blob).contains("without `solutions_blob`"));
}

#[test]
fn a_zlib_bomb_stops_at_the_budget() {
    let zeros = vec![0u8; 256 << 20];
    let bomb = zlib(&zeros);
    assert!(bomb.len() < 1 << 20);
    let budget = MemoryBudget::with_wait(64 << 20, std::time::Duration::ZERO);
    let e = summarize_with("x.dat.zlib", &bomb, None, &budget).unwrap_err();
    assert!(e.to_string().contains("memory budget"), "{e}");
    assert_eq!(budget.in_use(), 0);
    let e = summarize("x.dat.zlib", b"not zlib at all").unwrap_err();
    assert!(e.to_string().contains("zlib"), "{e}");
}

#[test]
fn every_truncation_of_an_indexed_catalog_is_an_error_or_a_reading() {
    let Some((_, v2)) = real_pair() else { return };
    let z = zlib(&v2);
    for cut in (0..v2.len()).step_by((v2.len() / 200).max(1)) {
        let _ = summarize("x.dat", &v2[..cut]);
    }
    for cut in (0..z.len()).step_by((z.len() / 100).max(1)) {
        assert!(summarize("x.dat.zlib", &z[..cut]).is_err() || cut == z.len());
    }
}
