//! kpack archives and host binaries packed for them: the reference repository's archives, a
//! real Debian library packed with the reference packer (`tests/data/kpack`, see
//! PROVENANCE.md), search-path patterns, and hostile variants of each.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rocpath_sources::kpack::{self, Scheme};
use rocpath_sources::kpack_ref::{ArchiveStatus, KpackRef};
use rocpath_sources::{Found, Limits, MemoryBudget, Origin, Sink, scan_file, scan_paths};
use rocpath_testdata::kpack::{with_marker, write_kpack};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Default)]
struct Collect {
    /// (origin, sha256, bytes)
    objects: Mutex<Vec<(String, String, usize)>>,
    errors: Mutex<Vec<String>>,
    refs: Mutex<Vec<(String, KpackRef)>>,
}

impl Sink for Collect {
    fn found(&self, f: Found<'_>) {
        match f {
            Found::CodeObject {
                origin,
                sha256,
                bytes,
                ..
            } => self.objects.lock().unwrap().push((
                origin.to_string(),
                sha256.as_str().unwrap_or_default().to_string(),
                bytes.len(),
            )),
            Found::Error { origin, error } => {
                let at = error.offset().map(|o| format!(" @{o}")).unwrap_or_default();
                self.errors
                    .lock()
                    .unwrap()
                    .push(format!("{origin}{at}: {error}"))
            }
            Found::KpackRef { origin, reference } => self
                .refs
                .lock()
                .unwrap()
                .push((origin.to_string(), reference.clone())),
            _ => {}
        }
    }
}

impl Collect {
    fn objects(&self) -> Vec<(String, String, usize)> {
        let mut v = self.objects.lock().unwrap().clone();
        v.sort();
        v
    }
    fn errors(&self) -> Vec<String> {
        self.errors.lock().unwrap().clone()
    }
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/kpack")
}

fn gloo() -> PathBuf {
    data().join("gloo-packed")
}

const GLOO_KEY: &str = "lib/libgloo_hip.so.0.5.0";
const GLOO_ARCHES: [&str; 10] = [
    "gfx1010", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx803", "gfx900", "gfx906", "gfx908",
    "gfx90a",
];

#[test]
fn reference_archives_read_as_the_reference_tests_expect() {
    let noop = std::fs::read(data().join("rocm-kpack-assets/test_noop.kpack")).unwrap();
    let t = kpack::parse(&noop).unwrap();
    assert_eq!(t.toc_offset, 570);
    assert_eq!(t.group_name.as_deref(), Some("test"));
    assert_eq!(t.gfx_arches, ["gfx900", "gfx906"]);
    assert!(
        matches!(&t.scheme, Scheme::None { blobs } if blobs.iter().map(|b| b.0).collect::<Vec<_>>() == [64, 183, 402])
    );
    let frames = kpack::frames_of(&noop, &t).unwrap();
    let mut seen = Vec::new();
    for e in &t.entries {
        let b = kpack::entry_bytes(&noop, &t, &frames, e, &Limits::default()).unwrap();
        seen.push((
            e.binary.clone(),
            e.arch.clone(),
            e.ordinal,
            b.len(),
            b[..6].to_vec(),
        ));
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            (
                "bin/testapp".into(),
                "gfx900".into(),
                2,
                168,
                b"KERNEL".to_vec()
            ),
            (
                "lib/libtest.so".into(),
                "gfx900".into(),
                0,
                119,
                b"KERNEL".to_vec()
            ),
            (
                "lib/libtest.so".into(),
                "gfx906".into(),
                1,
                219,
                b"KERNEL".to_vec()
            ),
        ]
    );

    let z = std::fs::read(data().join("rocm-kpack-assets/test_zstd.kpack")).unwrap();
    let t = kpack::parse(&z).unwrap();
    assert_eq!(t.toc_offset, 198);
    assert_eq!(
        t.scheme,
        Scheme::ZstdPerKernel {
            offset: 64,
            size: 134
        }
    );
    let frames = kpack::frames_of(&z, &t).unwrap();
    assert_eq!(frames.iter().map(|f| f.1).collect::<Vec<_>>(), [41, 41, 36]);
    for e in &t.entries {
        let b = kpack::entry_bytes(&z, &t, &frames, e, &Limits::default()).unwrap();
        assert_eq!(Some(b.len() as u64), e.original_size);
        let tag: &[u8] = if e.binary == "bin/hiptest" {
            b"TEST_APP_KERNEL___"
        } else {
            b"HIP_KERNEL_GFX110"
        };
        assert!(b.starts_with(tag), "{} {}", e.binary, e.arch);
    }
}

#[test]
fn scanning_reference_archives_names_each_non_elf_entry() {
    let c = Collect::default();
    scan_file(
        &data().join("rocm-kpack-assets/test_zstd.kpack"),
        &Limits::default(),
        &c,
    );
    assert!(c.objects().is_empty());
    let errs = c.errors();
    assert_eq!(errs.len(), 3, "{errs:#?}");
    assert!(errs.iter().any(|e| e.contains("kpack:lib/libhip.so > gfx1101")
        && e.contains("not an AMDGPU ELF")));
}

#[test]
fn packed_tree_lists_the_code_objects_through_the_marker() {
    let c = Collect::default();
    scan_paths(&[gloo()], &Limits::default(), &c, |_| {});
    assert_eq!(c.errors(), Vec::<String>::new());
    let objs = c.objects();
    assert_eq!(objs.len(), 10, "{objs:#?}");
    let lib = gloo()
        .join("lib/libgloo_hip.so.0.5.0")
        .display()
        .to_string();
    let archive = gloo()
        .join(".kpack/gloo-gfx90X.kpack")
        .display()
        .to_string();
    for (arch, o) in GLOO_ARCHES.iter().zip(&objs) {
        assert_eq!(
            o.0,
            format!("{lib} > kpack_ref > {archive} > binary#0 > {arch}")
        );
    }
    let refs = c.refs.lock().unwrap().clone();
    assert_eq!(refs.len(), 1);
    let r = &refs[0].1;
    assert_eq!(r.kernel_name, GLOO_KEY);
    assert_eq!(r.search_paths, ["../.kpack/gloo-gfx90X.kpack"]);
    assert!(r.fatbin_emptied && r.resolved);
    assert_eq!(
        (r.wrappers.total, r.wrappers.hipk, r.wrappers.hipf),
        (2, 1, 1)
    );
    assert_eq!(r.stale_wrappers(), 1);
    assert_eq!(r.archives.len(), 1);
    let a = &r.archives[0];
    assert_eq!(a.status, ArchiveStatus::Found);
    assert_eq!(a.arches, GLOO_ARCHES);
    assert_eq!(a.gfx_arches, ["gfx900", "gfx906", "gfx908", "gfx90a"]);
    assert_eq!(a.code_objects, 10);
}

#[test]
fn archive_alone_lists_its_entries_by_key() {
    let c = Collect::default();
    scan_file(
        &gloo().join(".kpack/gloo-gfx90X.kpack"),
        &Limits::default(),
        &c,
    );
    assert!(c.errors().is_empty());
    let objs = c.objects();
    assert_eq!(objs.len(), 10);
    assert!(objs[0].0.ends_with(&format!("kpack:{GLOO_KEY} > gfx1010")));
}

/// The packer keeps the first bundle of `.hip_fatbin` only: every stored object is byte for
/// byte bundle 0's entry of the original library, and bundle 1 is lost.
#[test]
fn packed_objects_are_bundle_0_of_the_original() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let orig = Collect::default();
    scan_file(
        &dir.join("gloo-rocm-0.0-git20250912_libgloo_hip.so.0.5.0"),
        &Limits::default(),
        &orig,
    );
    let packed = Collect::default();
    scan_paths(&[gloo()], &Limits::default(), &packed, |_| {});
    let arch_of = |o: &str| o.rsplit(['-', ' ']).next().unwrap().to_string();
    let mut b0: Vec<(String, String)> = Vec::new();
    let mut b1 = 0;
    for (o, sha, _) in orig.objects() {
        if o.contains("bundle#0@") {
            b0.push((arch_of(&o), sha));
        } else {
            b1 += 1;
        }
    }
    b0.sort();
    let mut kept: Vec<(String, String)> = packed
        .objects()
        .into_iter()
        .map(|(o, sha, _)| (arch_of(&o), sha))
        .collect();
    kept.sort();
    assert_eq!(kept, b0);
    assert_eq!(
        b1, 10,
        "bundle 1 of the original holds one object per target"
    );
}

/// A tree whose marker uses `@GFXARCH@`: per-arch archives, feature-split names, an empty
/// archive and another library's archive, each reported as the loader would find it.
#[test]
fn placeholder_paths_resolve_per_architecture() {
    let d = tempfile::tempdir().unwrap();
    let lib = d.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(d.path().join(".kpack")).unwrap();
    let host = std::fs::read(gloo().join("lib/libgloo_hip.so.0.5.0")).unwrap();
    let host = with_marker(
        &host,
        &["../.kpack/g_@GFXARCH@.kpack", "../gone.kpack"],
        "g.so",
    );
    std::fs::write(lib.join("libgloo_hip.so.0.5.0"), &host).unwrap();
    let objs = gloo_objects();
    let get = |a: &str| objs.iter().find(|(x, _)| x == a).unwrap().1.as_slice();
    let k = d.path().join(".kpack");
    std::fs::write(
        k.join("g_gfx900.kpack"),
        write_kpack(&[("g.so", "gfx900", get("gfx900"))], false, &["gfx900"]),
    )
    .unwrap();
    std::fs::write(
        k.join("g_gfx90a:xnack-.kpack"),
        write_kpack(
            &[("g.so#0", "gfx90a", get("gfx90a"))],
            true,
            &["gfx90a:xnack-"],
        ),
    )
    .unwrap();
    std::fs::write(k.join("g_gfx1100.kpack"), b"").unwrap();
    std::fs::write(
        k.join("g_gfx906.kpack"),
        write_kpack(&[("other.so", "gfx906", get("gfx906"))], false, &["gfx906"]),
    )
    .unwrap();
    let c = Collect::default();
    scan_paths(std::slice::from_ref(&lib), &Limits::default(), &c, |_| {});
    assert!(c.errors().is_empty(), "{:#?}", c.errors());
    let objs = c.objects();
    assert_eq!(objs.len(), 2, "{objs:#?}");
    assert!(objs[0].0.contains("g_gfx900.kpack > binary#0 > gfx900"));
    assert!(
        objs[1]
            .0
            .contains("g_gfx90a:xnack-.kpack > binary#0 > gfx90a")
    );
    let refs = c.refs.lock().unwrap().clone();
    let st: Vec<(Option<String>, ArchiveStatus)> = refs[0]
        .1
        .archives
        .iter()
        .map(|a| (a.arch.clone(), a.status))
        .collect();
    assert_eq!(
        st,
        [
            (Some("gfx1100".into()), ArchiveStatus::Empty),
            (Some("gfx900".into()), ArchiveStatus::Found),
            (Some("gfx906".into()), ArchiveStatus::NoEntries),
            (Some("gfx90a:xnack-".into()), ArchiveStatus::Found),
            (None, ArchiveStatus::Missing),
        ]
    );
}

/// The code objects of the committed archive, by arch.
fn gloo_objects() -> Vec<(String, Vec<u8>)> {
    let data = std::fs::read(gloo().join(".kpack/gloo-gfx90X.kpack")).unwrap();
    let t = kpack::parse(&data).unwrap();
    let f = kpack::frames_of(&data, &t).unwrap();
    t.entries
        .iter()
        .map(|e| {
            let b = kpack::entry_bytes(&data, &t, &f, e, &Limits::default()).unwrap();
            (e.arch.clone(), b.to_vec())
        })
        .collect()
}

#[test]
fn search_paths_that_loop_or_name_special_files_are_refused_by_name() {
    let d = tempfile::tempdir().unwrap();
    let lib = d.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let host = std::fs::read(gloo().join("lib/libgloo_hip.so.0.5.0")).unwrap();
    let host = with_marker(
        &host,
        &["loop.kpack", "/dev/zero", ".", "/etc/hostname"],
        "k",
    );
    std::fs::write(lib.join("libgloo_hip.so.0.5.0"), &host).unwrap();
    std::os::unix::fs::symlink("loop.kpack", lib.join("loop.kpack")).unwrap();
    let c = Collect::default();
    scan_paths(
        &[lib.join("libgloo_hip.so.0.5.0")],
        &Limits::default(),
        &c,
        |_| {},
    );
    let refs = c.refs.lock().unwrap().clone();
    let st: Vec<ArchiveStatus> = refs[0].1.archives.iter().map(|a| a.status).collect();
    assert_eq!(st[0], ArchiveStatus::Unreadable);
    assert_eq!(st[1], ArchiveStatus::NotAFile);
    assert_eq!(st[2], ArchiveStatus::NotAFile);
    assert!(matches!(
        st[3],
        ArchiveStatus::Missing | ArchiveStatus::Unreadable
    ));
    assert!(c.objects().is_empty());
}

#[test]
fn lying_offsets_and_bombs_are_named_and_bounded() {
    let objs = gloo_objects();
    let co = &objs[0].1;
    // A zstd frame whose declared size is a bomb: refused before allocating.
    let mut a = write_kpack(&[("lib/x.so", "gfx900", co)], true, &["gfx900"]);
    let t = kpack::parse(&a).unwrap();
    let mut e = t.entries[0].clone();
    e.original_size = Some(1 << 40);
    let f = kpack::frames_of(&a, &t).unwrap();
    let err = kpack::entry_bytes(&a, &t, &f, &e, &Limits::default())
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("more than the limit")
            || err.to_string().contains("zstd frame says"),
        "{err}"
    );
    // The same object under a small memory budget: refused by the budget, not allocated.
    let small = Limits {
        memory: MemoryBudget::with_wait(1024, std::time::Duration::from_millis(10)),
        ..Limits::default()
    };
    let err = kpack::entry_bytes(&a, &t, &f, &t.entries[0], &small)
        .err()
        .unwrap();
    assert!(err.to_string().contains("kpack code object"), "{err}");
    // A TOC offset past the end, a frame length past the region.
    let mut bad = a.clone();
    bad[8..16].copy_from_slice(&(a.len() as u64 + 5).to_le_bytes());
    assert!(kpack::parse(&bad).is_err());
    a[68..72].copy_from_slice(&u32::MAX.to_le_bytes());
    let t = kpack::parse(&a).unwrap();
    assert!(kpack::frames_of(&a, &t).is_err());
    // Blobs that lie about their place in the file.
    let mut n = write_kpack(&[("lib/x.so", "gfx900", co)], false, &["gfx900"]);
    let toc = u64::from_le_bytes(n[8..16].try_into().unwrap()) as usize;
    let c = Collect::default();
    let pos = find(&n[toc..], b"\xa4size").unwrap() + toc + 5;
    assert_eq!(n[pos], 0xce, "a uint32 size");
    n[pos + 1..pos + 5].copy_from_slice(&u32::MAX.to_be_bytes());
    rocpath_sources::scan_memory(
        &n,
        &Origin::file("x.kpack"),
        "x.kpack",
        &Limits::default(),
        &c,
    );
    assert!(c.objects().is_empty());
    assert_eq!(c.errors().len(), 1, "{:#?}", c.errors());
}

/// 20,000 TOC entries over one zstd payload were each decompressed and reported again (a
/// 12 MB archive grew to 2.3 GB under `--max-memory 64M`); now the payload is read once and
/// the other entries listed as sharing it.
#[test]
fn entries_sharing_one_payload_are_read_once() {
    let objs = gloo_objects();
    let co: &[u8] = &objs[0].1;
    let names: Vec<String> = (0..20_000).map(|i| format!("lib/x{i}.so")).collect();
    let toc: Vec<(&str, &str, usize)> = names.iter().map(|n| (n.as_str(), "gfx900", 0)).collect();
    for zstd in [true, false] {
        let a = rocpath_testdata::kpack::write_kpack_toc(&[co], &toc, zstd, &["gfx900"]);
        let c = SharedCollect::default();
        let limits = Limits {
            memory: MemoryBudget::with_wait(4 << 20, std::time::Duration::ZERO),
            ..Limits::default()
        };
        rocpath_sources::scan_memory(&a, &Origin::file("x.kpack"), "x.kpack", &limits, &c);
        let got = c.0.lock().unwrap();
        assert_eq!(got.len(), 1, "zstd {zstd}: one object, read once");
        assert_eq!(got[0].0, 19_999);
        assert_eq!(got[0].1.len(), rocpath_sources::bundle::SharedBy::MAX_IDS);
        assert_eq!(got[0].1[0], "lib/x1.so / gfx900");
    }
}

/// A TOC of more than `MAX_ENTRIES` entries used to be cut there without a word (and its
/// size was never bounded); now it is refused by name.
#[test]
fn a_toc_past_its_bounds_is_refused_by_name() {
    let n = kpack::MAX_ENTRIES as u32 + 1;
    let mut a = b"KPAK\x01\0\0\0".to_vec();
    a.extend_from_slice(&64u64.to_le_bytes());
    a.resize(64, 0);
    let fixstr = |a: &mut Vec<u8>, s: &str| {
        a.push(0xa0 | s.len() as u8);
        a.extend_from_slice(s.as_bytes());
    };
    a.push(0x83);
    fixstr(&mut a, "compression_scheme");
    fixstr(&mut a, "none");
    fixstr(&mut a, "blobs");
    a.push(0x90);
    fixstr(&mut a, "toc");
    a.push(0x81);
    fixstr(&mut a, "lib/x.so");
    a.push(0xdf);
    a.extend_from_slice(&n.to_be_bytes());
    for i in 0..n {
        let arch = format!("g{i}");
        a.push(0xd9);
        a.push(arch.len() as u8);
        a.extend_from_slice(arch.as_bytes());
        a.push(0x81);
        fixstr(&mut a, "ordinal");
        a.push(0x00);
    }
    let e = kpack::parse(&a).unwrap_err().to_string();
    assert!(e.contains("more than 1048576 entries"), "{e}");
}

/// (shared entries, their first ids) of each object found.
#[derive(Default)]
struct SharedCollect(Mutex<Vec<(u64, Vec<String>)>>);

impl Sink for SharedCollect {
    fn found(&self, f: Found<'_>) {
        if let Found::CodeObject { shared_by, .. } = f {
            let s = shared_by.cloned().unwrap_or_default();
            self.0.lock().unwrap().push((s.entries, s.ids));
        }
    }
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

/// Every prefix of a real archive: no panic, never more objects than the whole file, and
/// each object found is one of the real ones.
#[test]
fn truncation_sweep_over_the_real_archive() {
    let full = std::fs::read(gloo().join(".kpack/gloo-gfx90X.kpack")).unwrap();
    let real: std::collections::BTreeSet<String> = {
        let c = Collect::default();
        rocpath_sources::scan_memory(
            &full,
            &Origin::file("a.kpack"),
            "a.kpack",
            &Limits::default(),
            &c,
        );
        c.objects().into_iter().map(|o| o.1).collect()
    };
    assert_eq!(real.len(), 10);
    let step = (full.len() / 600).max(1);
    let mut cuts: Vec<usize> = (0..full.len()).step_by(step).collect();
    cuts.extend(full.len() - 700..full.len());
    for cut in cuts {
        let c = Collect::default();
        rocpath_sources::scan_memory(
            &full[..cut],
            &Origin::file("a.kpack"),
            "a.kpack",
            &Limits::default(),
            &c,
        );
        for o in c.objects() {
            assert!(
                real.contains(&o.1),
                "cut {cut}: an object that is not in the archive"
            );
        }
        if cut >= 4 {
            assert!(
                !c.errors().is_empty(),
                "cut {cut}: a truncated archive is reported"
            );
        }
    }
}

#[test]
fn truncated_host_binary_is_reported_not_panicking() {
    let host = std::fs::read(gloo().join("lib/libgloo_hip.so.0.5.0")).unwrap();
    for cut in (0..host.len()).step_by(host.len() / 97) {
        let c = Collect::default();
        rocpath_sources::scan_memory(
            &host[..cut],
            &Origin::file("h.so"),
            "h.so",
            &Limits::default(),
            &c,
        );
        assert!(c.objects().is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// What is written is read back: entries, ordinals and bytes, for both schemes.
    #[test]
    fn written_archives_read_back(
        items in proptest::collection::vec(("[a-z/]{1,12}", "gfx[0-9]{3,4}", proptest::collection::vec(any::<u8>(), 0..300)), 0..6),
        zstd in any::<bool>(),
    ) {
        let mut uniq: Vec<(String, String, Vec<u8>)> = Vec::new();
        for (b, a, d) in items {
            if !uniq.iter().any(|(x, y, _)| *x == b && *y == a) {
                uniq.push((b, a, d));
            }
        }
        let refs: Vec<(&str, &str, &[u8])> = uniq.iter().map(|(b, a, d)| (b.as_str(), a.as_str(), d.as_slice())).collect();
        let data = write_kpack(&refs, zstd, &["gfx900"]);
        let t = kpack::parse(&data).unwrap();
        prop_assert_eq!(t.entries.len(), uniq.len());
        let f = kpack::frames_of(&data, &t).unwrap();
        for e in &t.entries {
            let want = &uniq.iter().find(|(b, a, _)| *b == e.binary && *a == e.arch).unwrap().2;
            let got = kpack::entry_bytes(&data, &t, &f, e, &Limits::default()).unwrap();
            prop_assert_eq!(&got[..], &want[..]);
        }
    }

    /// Any damage to a real archive's TOC is an error or a subset, never a panic.
    #[test]
    fn damaged_tocs_never_panic(pos in 0usize..700, byte in any::<u8>()) {
        let mut data = std::fs::read(gloo().join(".kpack/gloo-gfx90X.kpack")).unwrap();
        let toc = data.len() - 700;
        data[toc + pos] = byte;
        let c = Collect::default();
        rocpath_sources::scan_memory(&data, &Origin::file("a.kpack"), "a.kpack", &Limits::default(), &c);
        prop_assert!(c.objects().len() <= 10);
    }

    /// Markers of any bytes: parsed or refused, never a panic.
    #[test]
    fn markers_of_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = rocpath_sources::kpack_ref::parse_marker(&bytes);
    }
}

/// Every wrapper `HIPK` and keys `KEY#N` (the newer splitter): an architecture that lacks the
/// object of one wrapper is named with the index.
#[test]
fn indexed_keys_are_checked_against_the_wrappers() {
    use object::{Object, ObjectSection};
    let host = std::fs::read(gloo().join("lib/libgloo_hip.so.0.5.0")).unwrap();
    let mut host = with_marker(&host, &["../k.kpack"], "g.so");
    let f = object::File::parse(&host[..]).unwrap();
    let (off, size) = f
        .section_by_name(".hipFatBinSegment")
        .unwrap()
        .file_range()
        .unwrap();
    drop(f);
    for rec in host[off as usize..(off + size) as usize].chunks_exact_mut(24) {
        rec[..4].copy_from_slice(b"HIPK");
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("lib")).unwrap();
    std::fs::write(d.path().join("lib/g.so"), &host).unwrap();
    let objs = gloo_objects();
    let co = &objs[0].1;
    std::fs::write(
        d.path().join("k.kpack"),
        write_kpack(
            &[
                ("g.so#0", "gfx900", co),
                ("g.so#1", "gfx900", co),
                ("g.so#0", "gfx906", co),
            ],
            true,
            &["gfx900", "gfx906"],
        ),
    )
    .unwrap();
    let c = Collect::default();
    scan_paths(&[d.path().join("lib")], &Limits::default(), &c, |_| {});
    assert_eq!(c.objects().len(), 3);
    assert!(
        c.objects()[2].0.ends_with("binary#1 > gfx900"),
        "{:#?}",
        c.objects()
    );
    let r = c.refs.lock().unwrap()[0].1.clone();
    assert_eq!((r.wrappers.hipk, r.stale_wrappers()), (2, 0));
    assert_eq!(r.missing_indices.len(), 1);
    assert_eq!(
        (
            r.missing_indices[0].arch.as_str(),
            r.missing_indices[0].indices.as_slice()
        ),
        ("gfx906", &[1][..])
    );
}

/// A packed tree inside an archive file: the marker is read but not resolved (no folder to
/// resolve against), and the archive member lists its entries under their keys.
#[test]
fn packed_tree_inside_a_tar() {
    let mut b = tar::Builder::new(Vec::new());
    for rel in ["lib/libgloo_hip.so.0.5.0", ".kpack/gloo-gfx90X.kpack"] {
        b.append_path_with_name(gloo().join(rel), rel).unwrap();
    }
    let t = b.into_inner().unwrap();
    let c = Collect::default();
    rocpath_sources::scan_memory(&t, &Origin::file("p.tar"), "p.tar", &Limits::default(), &c);
    assert!(c.errors().is_empty(), "{:?}", c.errors());
    let objs = c.objects();
    assert_eq!(objs.len(), 10);
    assert!(
        objs[0].0.contains(&format!("kpack:{GLOO_KEY} > gfx1010")),
        "{}",
        objs[0].0
    );
    let r = c.refs.lock().unwrap()[0].1.clone();
    assert!(!r.resolved && r.archives.is_empty());
    assert_eq!(r.stale_wrappers(), 1);
}
