//! MIOpen kernel databases (`*.kdb`, `*.ukdb`): the code objects inside are found byte for byte,
//! on disk and inside archives; hostile databases (lying sizes, bzip2 bombs, wrong hashes,
//! missing columns, truncation at any length) give one error per bad item, never a panic, and
//! the other kernels are still reported.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_sources::{Found, Limits, MemoryBudget, Origin, Sink, scan_file, scan_memory};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Default)]
struct Collect {
    /// (chain, sha256, target from e_flags)
    objects: Mutex<Vec<(String, String, String)>>,
    errors: Mutex<Vec<String>>,
    named: Mutex<Vec<String>>,
}

impl Sink for Collect {
    fn found(&self, f: Found<'_>) {
        match f {
            Found::CodeObject { origin, bytes, .. } => {
                let target = rocpath_codeobj::parse(bytes)
                    .map(|c| c.target_id.to_string())
                    .unwrap_or_else(|e| format!("unparsable: {e}"));
                self.objects.lock().unwrap().push((
                    origin.member(),
                    format!("{:x}", Sha256::digest(bytes)),
                    target,
                ));
            }
            Found::Error { origin, error } => self
                .errors
                .lock()
                .unwrap()
                .push(format!("{} | {error}", origin.member())),
            Found::Named { name, .. } => self.named.lock().unwrap().push(name.to_string()),
            Found::Tensile { .. } | Found::KpackRef { .. } => {}
        }
    }
}

impl Collect {
    fn objects(&self) -> Vec<(String, String, String)> {
        self.objects.lock().unwrap().clone()
    }
    fn errors(&self) -> Vec<String> {
        self.errors.lock().unwrap().clone()
    }
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gfx1201_32.kdb")
}

/// The code objects of the committed fixture (see `tests/data/README.md`).
const FIXTURE_OBJECTS: [(&str, &str); 2] = [
    ("hsa-runtime-6.4.3_blit_gfx1201.co", "blit_gfx1201.co.o"),
    ("hipblaslt-7.1.1_extop_gfx1201.co", "extop_gfx1201.co.o"),
];

/// MIOpen's own `KernelConfig::CreateQuery` (kern_db.hpp:41-63 @2d1fd997).
const CREATE: &str = "CREATE TABLE IF NOT EXISTS `kern_db` (`id` INTEGER PRIMARY KEY ASC,`kernel_name` TEXT NOT NULL,`kernel_args` TEXT NOT NULL,`kernel_blob` BLOB NOT NULL,`kernel_hash` TEXT NOT NULL,`uncompressed_size` INT NOT NULL);CREATE UNIQUE INDEX IF NOT EXISTS `idx_kern_db` ON kern_db(kernel_name, kernel_args);";

/// One row to write: name, the blob as stored, its md5 text, uncompressed_size.
struct Row {
    name: String,
    blob: Vec<u8>,
    hash: String,
    size: i64,
}

fn md5_hex(b: &[u8]) -> String {
    use md5::Digest;
    format!("{:x}", md5::Md5::digest(b))
}

fn bz2(b: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// A row as MIOpen's `StoreRecordUnsafe` writes it: bzip2 when `compress`, else raw with
/// `uncompressed_size` 0.
fn row(name: &str, object: &[u8], compress: bool) -> Row {
    Row {
        name: name.into(),
        blob: if compress {
            bz2(object)
        } else {
            object.to_vec()
        },
        hash: md5_hex(object),
        size: if compress { object.len() as i64 } else { 0 },
    }
}

fn write_kdb(path: &Path, rows: &[Row]) {
    let _ = std::fs::remove_file(path);
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(CREATE).unwrap();
    for r in rows {
        c.execute(
            "INSERT INTO kern_db (kernel_name, kernel_args, kernel_blob, kernel_hash, uncompressed_size) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![r.name, " -mcpu=gfx1201", r.blob, r.hash, r.size],
        )
        .unwrap();
    }
}

fn shared_object(name: &str) -> Option<Vec<u8>> {
    let dir = rocpath_testdata::codeobjects_dir()?;
    Some(std::fs::read(dir.join(name)).unwrap())
}

/// Rebuilds the committed fixture from the shared code objects:
/// `cargo test -p rocpath-sources --test kdb -- --ignored regenerate`.
#[test]
#[ignore = "writes tests/data/gfx1201_32.kdb"]
fn regenerate_fixture() {
    let rows: Vec<Row> = FIXTURE_OBJECTS
        .iter()
        .enumerate()
        .map(|(i, (file, name))| row(name, &shared_object(file).unwrap(), i == 0))
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("gfx1201_32.kdb");
    write_kdb(&p, &rows);
    let c = rusqlite::Connection::open(&p).unwrap();
    c.execute_batch("VACUUM").unwrap();
    drop(c);
    std::fs::copy(&p, fixture()).unwrap();
}

fn scan(path: &Path, limits: &Limits) -> Collect {
    let c = Collect::default();
    scan_file(path, limits, &c);
    c
}

#[test]
fn fixture_kernels_are_found_byte_for_byte() {
    let c = scan(&fixture(), &Limits::default());
    assert_eq!(c.errors(), Vec::<String>::new());
    assert_eq!(*c.named.lock().unwrap(), vec!["gfx1201_32.kdb".to_string()]);
    let objs = c.objects();
    assert_eq!(objs.len(), 2, "{objs:?}");
    assert_eq!(objs[0].0, "kdb:blit_gfx1201.co.o#1");
    assert_eq!(objs[1].0, "kdb:extop_gfx1201.co.o#2");
    assert!(objs.iter().all(|o| o.2 == "gfx1201"), "{objs:?}");
    // The same bytes as the real objects the fixture was made from.
    for ((file, _), obj) in FIXTURE_OBJECTS.iter().zip(&objs) {
        if let Some(b) = shared_object(file) {
            assert_eq!(obj.1, format!("{:x}", Sha256::digest(&b)), "{file}");
        }
    }
}

#[test]
fn fixture_inside_a_tar_is_read_from_memory() {
    let bytes = std::fs::read(fixture()).unwrap();
    let mut tar = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(bytes.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    tar.append_data(
        &mut h,
        "./opt/rocm/share/miopen/db/gfx1201_32.kdb",
        &bytes[..],
    )
    .unwrap();
    let tar = tar.into_inner().unwrap();
    let c = Collect::default();
    scan_memory(
        &tar,
        &Origin::file("kdb.tar"),
        "kdb.tar",
        &Limits::default(),
        &c,
    );
    assert_eq!(c.errors(), Vec::<String>::new());
    let objs = c.objects();
    assert_eq!(objs.len(), 2);
    assert!(
        objs[1]
            .0
            .ends_with("gfx1201_32.kdb > kdb:extop_gfx1201.co.o#2")
    );
}

#[test]
fn a_user_cache_path_with_uri_characters_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("a b?c#d%");
    std::fs::create_dir(&dir).unwrap();
    let p = dir.join("gfx1201_32.ukdb");
    std::fs::copy(fixture(), &p).unwrap();
    let c = scan(&p, &Limits::default());
    assert_eq!(c.errors(), Vec::<String>::new());
    assert_eq!(c.objects().len(), 2);
}

fn fixture_object(i: usize) -> Vec<u8> {
    // Read back from the committed fixture, so these tests run without the shared data.
    let c = rusqlite::Connection::open_with_flags(
        fixture(),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let (blob, size): (Vec<u8>, i64) = c
        .query_row(
            "SELECT kernel_blob, uncompressed_size FROM kern_db ORDER BY id LIMIT 1 OFFSET ?1",
            [i as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    if size == 0 {
        blob
    } else {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut bzip2::read::BzDecoder::new(&blob[..]), &mut out).unwrap();
        out
    }
}

#[test]
fn hostile_rows_are_named_and_the_good_ones_still_read() {
    let obj = fixture_object(1);
    let good = row("good.o", &obj, true);
    let mut smaller = row("smaller.o", &obj, true);
    smaller.size -= 1;
    let mut larger = row("larger.o", &obj, true);
    larger.size += 1;
    let mut bad_hash = row("hash.o", &obj, false);
    bad_hash.hash = "0".repeat(32);
    let mut negative = row("negative.o", &obj, true);
    negative.size = -5;
    let mut not_bz2 = row("notbz2.o", &obj, false);
    not_bz2.size = obj.len() as i64;
    let empty = Row {
        name: "empty.o".into(),
        blob: Vec::new(),
        hash: md5_hex(b""),
        size: 0,
    };
    // A bzip2 bomb: 64 MiB of zeros in a few hundred bytes, declared as such.
    let zeros = vec![0u8; 64 << 20];
    let bomb = Row {
        name: "bomb.o".into(),
        blob: bz2(&zeros),
        hash: md5_hex(&zeros),
        size: zeros.len() as i64,
    };
    // The same bomb declaring a small size: decompression stops after it.
    let lying_bomb = Row {
        name: "lying-bomb.o".into(),
        blob: bomb.blob.clone(),
        hash: md5_hex(&zeros[..4096]),
        size: 4096,
    };
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("gfx1201_32.kdb");
    write_kdb(
        &p,
        &[
            smaller, larger, bad_hash, negative, not_bz2, empty, bomb, lying_bomb, good,
        ],
    );
    let limits = Limits {
        memory: MemoryBudget::with_wait(16 << 20, std::time::Duration::ZERO),
        ..Limits::default()
    };
    let c = scan(&p, &limits);
    let errors = c.errors();
    let expect = [
        ("kdb:smaller.o#1", "decompresses to more than"),
        ("kdb:larger.o#2", "bytes, uncompressed_size says"),
        ("kdb:hash.o#3", "MIOpen refuses it"),
        ("kdb:negative.o#4", "negative"),
        ("kdb:notbz2.o#5", "does not bunzip2"),
        ("kdb:empty.o#6", "empty kernel blob"),
        ("kdb:bomb.o#7", "memory budget"),
        ("kdb:lying-bomb.o#8", "more than the 4096 bytes"),
    ];
    assert_eq!(errors.len(), expect.len(), "{errors:#?}");
    for ((chain, what), e) in expect.iter().zip(&errors) {
        assert!(e.starts_with(chain) && e.contains(what), "{e}");
    }
    let objs = c.objects();
    assert_eq!(objs.len(), 1);
    assert_eq!(objs[0].0, "kdb:good.o#9");
    assert_eq!(limits.memory.in_use(), 0, "every reservation is given back");
}

#[test]
fn databases_miopen_would_not_read_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let no_table = tmp.path().join("gfx900_64.kdb");
    rusqlite::Connection::open(&no_table)
        .unwrap()
        .execute_batch("CREATE TABLE other (x)")
        .unwrap();
    let no_cols = tmp.path().join("gfx906_60.kdb");
    rusqlite::Connection::open(&no_cols)
        .unwrap()
        .execute_batch("CREATE TABLE kern_db (kernel_name TEXT, kernel_blob BLOB)")
        .unwrap();
    let text = tmp.path().join("gfx908_120.ukdb");
    std::fs::write(&text, "not a database at all, just text\n".repeat(10)).unwrap();
    for (p, want) in [
        (&no_table, "no `kern_db` table"),
        (&no_cols, "lacks kernel_args: MIOpen disables this database"),
        (&text, "SQLite"),
    ] {
        let c = scan(p, &Limits::default());
        let e = c.errors();
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains(want), "{}", e[0]);
        assert!(c.objects().is_empty());
    }
}

#[test]
fn every_truncation_is_an_error_or_a_subset_never_a_panic() {
    let bytes = std::fs::read(fixture()).unwrap();
    let full = {
        let c = Collect::default();
        scan_memory(
            &bytes,
            &Origin::file("k"),
            "gfx1201_32.kdb",
            &Limits::default(),
            &c,
        );
        c.objects()
    };
    let step = (bytes.len() / 97).max(1);
    for len in (0..bytes.len()).step_by(step).chain([100, 101, 4095, 4096]) {
        let cut = &bytes[..len.min(bytes.len())];
        let c = Collect::default();
        scan_memory(
            cut,
            &Origin::file("k"),
            "gfx1201_32.kdb",
            &Limits::default(),
            &c,
        );
        for o in c.objects() {
            assert!(
                full.contains(&o),
                "cut at {len}: {o:?} is not in the full file"
            );
        }
        if c.objects().len() < full.len() {
            assert!(
                !c.errors().is_empty(),
                "cut at {len}: lost kernels silently"
            );
        }
    }
}

#[test]
fn a_database_over_the_budget_is_refused_by_name() {
    let bytes = std::fs::read(fixture()).unwrap();
    let limits = Limits {
        memory: MemoryBudget::with_wait(1024, std::time::Duration::ZERO),
        ..Limits::default()
    };
    let c = Collect::default();
    scan_memory(&bytes, &Origin::file("k"), "gfx1201_32.kdb", &limits, &c);
    let e = c.errors();
    assert_eq!(e.len(), 1);
    assert!(e[0].contains("kernel database needs"), "{}", e[0]);
}

#[test]
fn an_empty_user_cache_is_named_and_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("gfx1201_32.ukdb");
    std::fs::write(&p, b"").unwrap();
    let c = scan(&p, &Limits::default());
    assert!(c.errors().is_empty(), "{:?}", c.errors());
    assert_eq!(
        *c.named.lock().unwrap(),
        vec!["gfx1201_32.ukdb".to_string()]
    );
}
