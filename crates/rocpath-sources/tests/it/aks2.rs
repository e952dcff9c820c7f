//! AOTriton AKS2 images, written the way AOTriton's `python/aks2.py` writes them (header, one
//! xz stream with the directory and the code objects) around the project's example code object
//! (`examples/data/.../Kernels.so-000-gfx1100.hsaco`): every image is found with its entry
//! name, also inside a zip as newer releases ship them; an entry without image is named;
//! lying sizes, broken directories, xz bombs and truncation give errors, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_sources::{Found, Limits, MemoryBudget, Origin, Sink, scan_memory};
use std::io::Write;
use std::sync::Mutex;

#[derive(Default)]
struct Collect {
    objects: Mutex<Vec<String>>,
    errors: Mutex<Vec<String>>,
}

impl Sink for Collect {
    fn found(&self, f: Found<'_>) {
        match f {
            Found::CodeObject { origin, .. } => self.objects.lock().unwrap().push(origin.member()),
            Found::Error { origin, error } => self
                .errors
                .lock()
                .unwrap()
                .push(format!("{} | {error}", origin.member())),
            _ => {}
        }
    }
}

fn example() -> Vec<u8> {
    std::fs::read(rocpath_testdata::repo_root().join(
        "examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco",
    ))
    .unwrap()
}

fn xz(b: &[u8]) -> Vec<u8> {
    let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
    e.write_all(b).unwrap();
    e.finish().unwrap()
}

/// (uncompressed content, header fields) for `(name, image)` entries, as `aks2.py` lays them out.
fn content(entries: &[(&str, &[u8])]) -> (Vec<u8>, u32, u32, u32) {
    let mut dir = Vec::new();
    let mut blobs: Vec<u8> = Vec::new();
    for (name, image) in entries {
        for v in [
            64u32,
            256,
            blobs.len() as u32,
            image.len() as u32,
            name.len() as u32 + 1,
        ] {
            dir.extend(v.to_le_bytes());
        }
        dir.extend(name.as_bytes());
        dir.push(0);
        blobs.extend(*image);
    }
    let (d, n) = (dir.len() as u32, entries.len() as u32);
    dir.extend(blobs);
    let total = dir.len() as u32;
    (dir, total, n, d)
}

fn aks2_with(content: &[u8], total: u32, n: u32, dir: u32) -> Vec<u8> {
    let mut f = b"AKS2".to_vec();
    for v in [total, n, dir] {
        f.extend(v.to_le_bytes());
    }
    f.extend(xz(content));
    f
}

fn scan(bytes: &[u8], name: &str, limits: &Limits) -> Collect {
    let c = Collect::default();
    scan_memory(bytes, &Origin::file(name), name, limits, &c);
    c
}

#[test]
fn images_are_found_by_entry_name_also_inside_a_zip() {
    let co = example();
    let entries: [(&str, &[u8]); 3] = [
        ("attn_fwd;;#F/P/CO/gfx1100", &co),
        ("attn_bwd;;#F/P/CO/gfx1100", &[]),
        ("bwd_preprocess;;#F/P/CO/gfx1100", &co),
    ];
    let (c, t, n, d) = content(&entries);
    let file = aks2_with(&c, t, n, d);
    let got = scan(&file, "FONLY__.aks2", &Limits::default());
    assert_eq!(
        *got.objects.lock().unwrap(),
        [
            "aks2:attn_fwd;;#F/P/CO/gfx1100",
            "aks2:bwd_preprocess;;#F/P/CO/gfx1100"
        ]
    );
    let errors = got.errors.lock().unwrap().clone();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].starts_with("aks2:attn_bwd") && errors[0].contains("no image"));

    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("flash/attn_fwd/FONLY__.aks2", opts).unwrap();
    zip.write_all(&file).unwrap();
    let zipped = zip.finish().unwrap().into_inner();
    let got = scan(&zipped, "amd-gfx110x.zip", &Limits::default());
    assert_eq!(got.objects.lock().unwrap().len(), 2);
    assert!(
        got.objects.lock().unwrap()[0].ends_with("FONLY__.aks2 > aks2:attn_fwd;;#F/P/CO/gfx1100")
    );
}

#[test]
fn lying_headers_broken_directories_and_bombs_are_named() {
    let co = example();
    let (c, t, n, d) = content(&[("k", &co)]);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (aks2_with(&c, t - 1, n, d), "larger than"),
        (aks2_with(&c, t + 1, n, d), "ends after"),
        (aks2_with(&c, t, n, d + 4), "declared directory size"),
        (aks2_with(&c, t, 1_000_000, d), "declared directory size"),
        (aks2_with(&c, t, n + 1, d), "declared directory size"),
        (b"AKS2\x01\x00".to_vec(), "truncated AKS2 header"),
        (aks2_with(b"", u32::MAX, 0, 0), "memory budget"),
    ];
    let limits = Limits {
        memory: MemoryBudget::with_wait(64 << 20, std::time::Duration::ZERO),
        ..Limits::default()
    };
    for (file, want) in cases {
        let got = scan(&file, "x.aks2", &limits);
        let e = got.errors.lock().unwrap().clone();
        assert_eq!(e.len(), 1, "{want}: {e:?}");
        assert!(e[0].contains(want), "{want}: {}", e[0]);
        assert!(got.objects.lock().unwrap().is_empty());
    }
    // An xz bomb declaring its true size is refused by the budget before decompression.
    let zeros = vec![0u8; 128 << 20];
    let bomb = aks2_with(&zeros, zeros.len() as u32, 0, 0);
    let got = scan(&bomb, "x.aks2", &limits);
    assert!(got.errors.lock().unwrap()[0].contains("memory budget"));
    assert_eq!(limits.memory.in_use(), 0);
}

#[test]
fn every_truncation_is_an_error_never_a_panic() {
    let co = example();
    let (c, t, n, d) = content(&[("a", &co), ("b", &co)]);
    let file = aks2_with(&c, t, n, d);
    for cut in (0..file.len()).step_by((file.len() / 150).max(1)) {
        let got = scan(&file[..cut], "x.aks2", &Limits::default());
        if cut >= 4 {
            assert!(!got.errors.lock().unwrap().is_empty(), "cut at {cut}");
        }
    }
}

/// A directory that points thousands of names at one image: the image is read once, under the
/// first name, and the others are listed with it (a hostile file made every name a separate,
/// fully decoded code object).
#[test]
fn names_sharing_one_image_read_it_once() {
    #[derive(Default)]
    struct Shared(Mutex<Vec<(String, u64, Vec<String>)>>);
    impl Sink for Shared {
        fn found(&self, f: Found<'_>) {
            if let Found::CodeObject {
                origin, shared_by, ..
            } = f
            {
                let (n, ids) = shared_by.map_or((0, vec![]), |s| (s.entries, s.ids.clone()));
                self.0.lock().unwrap().push((origin.member(), n, ids));
            }
        }
    }
    let co = example();
    let names: Vec<String> = (0..2000)
        .map(|i| format!("k{i};;#F/P/CO/gfx1100"))
        .collect();
    let mut dir = Vec::new();
    for name in &names {
        for v in [64u32, 256, 0, co.len() as u32, name.len() as u32 + 1] {
            dir.extend(v.to_le_bytes());
        }
        dir.extend(name.as_bytes());
        dir.push(0);
    }
    let d = dir.len() as u32;
    dir.extend(&co);
    let file = aks2_with(&dir, dir.len() as u32, names.len() as u32, d);
    let sink = Shared::default();
    scan_memory(
        &file,
        &Origin::file("x.aks2"),
        "x.aks2",
        &Limits::default(),
        &sink,
    );
    let got = sink.0.into_inner().unwrap();
    assert_eq!(got.len(), 1, "one code object");
    let (member, others, ids) = &got[0];
    assert_eq!(member, "aks2:k0;;#F/P/CO/gfx1100");
    assert_eq!(*others, 1999);
    assert_eq!(ids.len(), 64);
    assert_eq!(ids[0], "k1;;#F/P/CO/gfx1100");
}

/// A zip whose central directory names one local header many times (an overlapping-member
/// zip): the member is read once, and the other names are listed in one message.
#[test]
fn zip_members_naming_one_local_header_are_read_once() {
    let co = example();
    let name = b"lib/Kernels.so-000-gfx1100.hsaco";
    let mut crc = flate2::Crc::new();
    crc.update(&co);
    let crc = crc.sum();
    let mut z = Vec::new();
    // Local file header, stored.
    z.extend(0x0403_4b50u32.to_le_bytes());
    z.extend([20u16, 0, 0, 0, 0].iter().flat_map(|v| v.to_le_bytes()));
    z.extend(crc.to_le_bytes());
    z.extend((co.len() as u32).to_le_bytes());
    z.extend((co.len() as u32).to_le_bytes());
    z.extend((name.len() as u16).to_le_bytes());
    z.extend(0u16.to_le_bytes());
    z.extend(name);
    z.extend(&co);
    let cd_start = z.len() as u32;
    let copies = 300u16;
    for i in 0..copies {
        let alias = format!("lib/copy{i:03}.hsaco");
        z.extend(0x0201_4b50u32.to_le_bytes());
        z.extend([20u16, 20, 0, 0, 0, 0].iter().flat_map(|v| v.to_le_bytes()));
        z.extend(crc.to_le_bytes());
        z.extend((co.len() as u32).to_le_bytes());
        z.extend((co.len() as u32).to_le_bytes());
        z.extend((alias.len() as u16).to_le_bytes());
        z.extend([0u16, 0, 0, 0].iter().flat_map(|v| v.to_le_bytes()));
        z.extend(0u32.to_le_bytes());
        z.extend(0u32.to_le_bytes());
        z.extend(alias.as_bytes());
    }
    let cd_size = z.len() as u32 - cd_start;
    z.extend(0x0605_4b50u32.to_le_bytes());
    z.extend(
        [0u16, 0, copies, copies]
            .iter()
            .flat_map(|v| v.to_le_bytes()),
    );
    z.extend(cd_size.to_le_bytes());
    z.extend(cd_start.to_le_bytes());
    z.extend(0u16.to_le_bytes());
    let got = scan(&z, "overlap.zip", &Limits::default());
    assert_eq!(*got.objects.lock().unwrap(), ["zip:lib/copy000.hsaco"]);
    let errors = got.errors.lock().unwrap().clone();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("299 other zip members (lib/copy001.hsaco")
            && errors[0].contains("read once, under lib/copy000.hsaco"),
        "{}",
        errors[0]
    );
}
