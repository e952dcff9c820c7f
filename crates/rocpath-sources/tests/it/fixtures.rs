//! The scanner on real containers: every code object LLVM's tools found in the fixtures
//! (`shared/fixtures/codeobjects/manifest.tsv`) is found, byte for byte (sha256), with no
//! error; the same holds when the fixtures are packed into .deb/tar/zip archives, including
//! the streaming path for members too large to buffer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_sources::{Found, Limits, Origin, Sink, scan_file, scan_memory};
use rocpath_testdata::{codeobjects_dir, read_tsv};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Mutex;

#[derive(Default)]
struct Collect {
    objects: Mutex<Vec<(String, u64, String)>>, // (origin, offset, sha256)
    errors: Mutex<Vec<String>>,
    other: Mutex<Vec<String>>,
}

impl Sink for Collect {
    fn found(&self, f: Found<'_>) {
        match f {
            Found::CodeObject {
                origin,
                offset,
                bytes,
                sha256,
                ..
            } => {
                let h = format!("{:x}", Sha256::digest(bytes));
                assert_eq!(
                    Some(h.as_str()),
                    sha256.as_str(),
                    "the sha256 reported with a code object is its bytes' hash"
                );
                self.objects
                    .lock()
                    .unwrap()
                    .push((origin.to_string(), offset, h));
            }
            Found::Error { origin, error } => self
                .errors
                .lock()
                .unwrap()
                .push(format!("{origin}: {error}")),
            Found::Tensile { origin, .. } => {
                self.other.lock().unwrap().push(format!("tensile {origin}"))
            }
            Found::KpackRef { origin, .. } => self
                .other
                .lock()
                .unwrap()
                .push(format!("kpack_ref {origin}")),
            Found::Named { origin, .. } => {
                self.other.lock().unwrap().push(format!("named {origin}"))
            }
        }
    }
}

fn binaries(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_file()
                && !p.to_string_lossy().ends_with(".tsv")
                && !p.to_string_lossy().ends_with(".py")
        })
        .collect();
    v.sort();
    v
}

fn expected(dir: &std::path::Path) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in read_tsv(&dir.join("manifest.tsv")).unwrap() {
        m.entry(row["fixture"].clone())
            .or_default()
            .push(row["codeobj_sha256"].clone());
    }
    for v in m.values_mut() {
        v.sort();
    }
    m
}

#[test]
fn finds_every_code_object_of_the_manifest() {
    let Some(dir) = codeobjects_dir() else { return };
    let want = expected(&dir);
    for path in binaries(&dir) {
        let c = Collect::default();
        scan_file(&path, &Limits::default(), &c);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            c.errors.lock().unwrap().is_empty(),
            "{name}: {:?}",
            c.errors.lock().unwrap()
        );
        let mut got: Vec<String> = c
            .objects
            .lock()
            .unwrap()
            .iter()
            .map(|x| x.2.clone())
            .collect();
        got.sort();
        if name.ends_with(".dat") {
            assert!(got.is_empty());
            assert_eq!(c.other.lock().unwrap().len(), 1, "{name}");
            continue;
        }
        assert_eq!(got, want.get(&name).cloned().unwrap_or_default(), "{name}");
    }
}

#[test]
fn offsets_match_llvm_for_host_libraries() {
    let Some(dir) = codeobjects_dir() else { return };
    let rows = read_tsv(&dir.join("manifest.tsv")).unwrap();
    let so = dir.join("gloo-rocm-0.0-git20250912_libgloo_hip.so.0.5.0");
    let c = Collect::default();
    scan_file(&so, &Limits::default(), &c);
    let got: BTreeMap<String, u64> = c
        .objects
        .lock()
        .unwrap()
        .iter()
        .map(|(_, o, h)| (h.clone(), *o))
        .collect();
    let mut n = 0;
    for r in rows
        .iter()
        .filter(|r| r["container"] == "host-elf(.hip_fatbin)")
    {
        assert_eq!(
            got[&r["codeobj_sha256"]].to_string(),
            r["offset_in_fixture"],
            "{}",
            r["entry"]
        );
        n += 1;
    }
    assert_eq!(n, 20);
    // The chain names the section, the bundle and the entry.
    let objs = c.objects.lock().unwrap();
    assert!(
        objs.iter().any(|(o, _, _)| o
            .ends_with("> hip_fatbin > bundle#1@0x2a3000 > hipv4-amdgcn-amd-amdhsa--gfx900")),
        "{:?}",
        objs[0]
    );
}

fn tar_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, &data[..]).unwrap();
    }
    b.into_inner().unwrap()
}

fn ar_deb(data_tar_xz: &[u8]) -> Vec<u8> {
    let mut out = b"!<arch>\n".to_vec();
    for (name, body) in [
        ("debian-binary", &b"2.0\n"[..]),
        ("data.tar.xz", data_tar_xz),
    ] {
        out.extend_from_slice(
            format!(
                "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                name,
                0,
                0,
                0,
                100644,
                body.len()
            )
            .as_bytes(),
        );
        out.extend_from_slice(body);
        if body.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    out
}

fn sorted_hashes(c: &Collect) -> Vec<String> {
    let mut v: Vec<String> = c
        .objects
        .lock()
        .unwrap()
        .iter()
        .map(|x| x.2.clone())
        .collect();
    v.sort();
    v
}

#[test]
fn archives_buffered_and_streamed_give_the_same_code_objects() {
    let Some(dir) = codeobjects_dir() else { return };
    let want = expected(&dir);
    let pick = [
        "gloo-rocm-0.0-git20250912_libgloo_hip.so.0.5.0",
        "rocsparse0-5.3.0_bundle080.hipfb",
        "hipblaslt-7.1.1_TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.co",
        "hsa-runtime-6.4.3_blit_gfx942.co",
    ];
    let files: Vec<(String, Vec<u8>)> = pick
        .iter()
        .map(|n| {
            (
                format!("usr/lib/x86_64-linux-gnu/{n}"),
                std::fs::read(dir.join(n)).unwrap(),
            )
        })
        .collect();
    let mut all: Vec<String> = pick.iter().flat_map(|n| want[*n].clone()).collect();
    all.sort();

    let tar = tar_of(&files);
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(&tar).unwrap();
    let deb = ar_deb(&xz.finish().unwrap());

    let mut zw = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (n, d) in &files {
        zw.start_file(n.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        zw.write_all(d).unwrap();
    }
    let zip = zw.finish().unwrap().into_inner();

    for buffer in [32u64 << 20, 4096] {
        let limits = Limits {
            max_member_buffer: buffer,
            ..Limits::default()
        };
        for (name, bytes) in [
            ("pkg_1.0_amd64.deb", &deb),
            ("pkg.whl", &zip),
            ("pkg.tar", &tar),
        ] {
            let c = Collect::default();
            scan_memory(bytes, &Origin::file(name), name, &limits, &c);
            assert!(
                c.errors.lock().unwrap().is_empty(),
                "{name} buffer={buffer}: {:?}",
                c.errors.lock().unwrap()
            );
            assert_eq!(sorted_hashes(&c), all, "{name} buffer={buffer}");
            let objs = c.objects.lock().unwrap();
            if name.ends_with(".deb") {
                assert!(
                    objs.iter()
                        .all(|(o, _, _)| o
                            .starts_with("pkg_1.0_amd64.deb > deb:data.tar.xz:usr/lib/")),
                    "{:?}",
                    objs[0]
                );
            }
        }
    }
}

#[test]
fn hostile_archive_paths_are_reported_not_scanned() {
    let Some(dir) = codeobjects_dir() else { return };
    let co = std::fs::read(dir.join("hsa-runtime-6.4.3_blit_gfx942.co")).unwrap();
    // tar::Builder refuses "..", so write the header name by hand.
    let mut h = tar::Header::new_gnu();
    h.set_size(co.len() as u64);
    h.set_mode(0o644);
    h.as_gnu_mut().unwrap().name[..13].copy_from_slice(b"../../evil.co");
    h.set_cksum();
    let mut b = tar::Builder::new(Vec::new());
    b.append(&h, &co[..]).unwrap();
    let t = b.into_inner().unwrap();
    let c = Collect::default();
    scan_memory(&t, &Origin::file("x.tar"), "x.tar", &Limits::default(), &c);
    assert!(c.objects.lock().unwrap().is_empty());
    let errs = c.errors.lock().unwrap();
    assert_eq!(errs.len(), 1);
    assert!(errs[0].contains("escapes the archive"), "{}", errs[0]);
}

#[test]
fn truncated_containers_are_errors_not_panics() {
    let Some(dir) = codeobjects_dir() else { return };
    for name in [
        "rocsparse0-5.3.0_bundle080.hipfb",
        "hip-quant-2.2.4.post215_C-pyd_bundle000.hipfb",
        "hipblaslt-7.1.1_TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.co",
        "gloo-rocm-0.0-git20250912_libgloo_hip.so.0.5.0",
    ] {
        let data = std::fs::read(dir.join(name)).unwrap();
        let mut cuts: Vec<usize> = (0..600).step_by(13).collect();
        cuts.extend((1..40).map(|i| data.len() * i / 40));
        for cut in cuts {
            let c = Collect::default();
            scan_memory(
                &data[..cut],
                &Origin::file(name),
                name,
                &Limits::default(),
                &c,
            );
            // Something is always said about a damaged container unless it is too short to
            // be recognised at all.
            if cut >= 64 && !name.ends_with(".so.0.5.0") {
                assert!(
                    !c.errors.lock().unwrap().is_empty() || !c.objects.lock().unwrap().is_empty(),
                    "{name} cut at {cut}"
                );
            }
        }
    }
}

/// A minimal PE32+ image with one section, as Windows HIP DLLs carry their offload bundles in
/// a `.hip_fat` section (section names are limited to 8 bytes).
fn pe_with_section(name: &[u8; 8], payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 0x400];
    f[0..2].copy_from_slice(b"MZ");
    f[0x3c..0x40].copy_from_slice(&0x80u32.to_le_bytes());
    let nt = 0x80;
    f[nt..nt + 4].copy_from_slice(b"PE\0\0");
    let fh = nt + 4;
    f[fh..fh + 2].copy_from_slice(&0x8664u16.to_le_bytes()); // AMD64
    f[fh + 2..fh + 4].copy_from_slice(&1u16.to_le_bytes()); // sections
    f[fh + 16..fh + 18].copy_from_slice(&240u16.to_le_bytes()); // optional header size
    f[fh + 18..fh + 20].copy_from_slice(&0x2022u16.to_le_bytes()); // DLL | EXECUTABLE | LARGE_ADDRESS
    let oh = fh + 20;
    f[oh..oh + 2].copy_from_slice(&0x20bu16.to_le_bytes()); // PE32+
    f[oh + 32..oh + 36].copy_from_slice(&0x1000u32.to_le_bytes()); // SectionAlignment
    f[oh + 36..oh + 40].copy_from_slice(&0x200u32.to_le_bytes()); // FileAlignment
    let size_of_image = 0x1000 + (payload.len() as u32).div_ceil(0x1000) * 0x1000;
    f[oh + 56..oh + 60].copy_from_slice(&size_of_image.to_le_bytes());
    f[oh + 60..oh + 64].copy_from_slice(&0x400u32.to_le_bytes()); // SizeOfHeaders
    f[oh + 108..oh + 112].copy_from_slice(&16u32.to_le_bytes()); // NumberOfRvaAndSizes
    let sh = oh + 240;
    f[sh..sh + 8].copy_from_slice(name);
    f[sh + 8..sh + 12].copy_from_slice(&(payload.len() as u32).to_le_bytes()); // VirtualSize
    f[sh + 12..sh + 16].copy_from_slice(&0x1000u32.to_le_bytes()); // VirtualAddress
    let raw = (payload.len() as u32).div_ceil(0x200) * 0x200;
    f[sh + 16..sh + 20].copy_from_slice(&raw.to_le_bytes()); // SizeOfRawData
    f[sh + 20..sh + 24].copy_from_slice(&0x400u32.to_le_bytes()); // PointerToRawData
    f[sh + 36..sh + 40].copy_from_slice(&0x4000_0040u32.to_le_bytes()); // initialized data, read
    f.extend_from_slice(payload);
    f.resize(0x400 + raw as usize, 0);
    f
}

#[test]
fn windows_dll_hip_fat_section() {
    let Some(dir) = codeobjects_dir() else { return };
    let want = expected(&dir);
    let name = "hip-quant-2.2.4.post215_C-pyd_bundle000.hipfb";
    let bundle = std::fs::read(dir.join(name)).unwrap();
    let pe = pe_with_section(b".hip_fat", &bundle);
    let c = Collect::default();
    scan_memory(
        &pe,
        &Origin::file("hip_quantize.dll"),
        "hip_quantize.dll",
        &Limits::default(),
        &c,
    );
    assert!(
        c.errors.lock().unwrap().is_empty(),
        "{:?}",
        c.errors.lock().unwrap()
    );
    assert_eq!(sorted_hashes(&c), want[name]);
    let objs = c.objects.lock().unwrap();
    assert!(
        objs.iter()
            .all(|(o, _, _)| o.starts_with("hip_quantize.dll > hip_fat > bundle#0@0x400 > hipv4-")),
        "{}",
        objs[0].0
    );
}
