//! Real code objects from Debian's ROCm packages and PyPI wheels, with reference answers made
//! by LLVM 22 (`shared/fixtures/codeobjects/manifest.tsv`, `*.kernels.tsv`). Skips when the
//! shared fixtures are absent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_testdata::{codeobjects_dir, read_tsv};

fn opt(v: Option<u64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

#[test]
fn every_fixture_code_object_agrees_with_llvm() {
    let Some(dir) = codeobjects_dir() else { return };
    let manifest = read_tsv(&dir.join("manifest.tsv")).unwrap();
    let mut checked = 0;
    for row in &manifest {
        let Ok(offset) = row["offset_in_fixture"].parse::<usize>() else {
            continue;
        }; // CCOB: tested in rocpath-sources
        let size: usize = row["codeobj_bytes"].parse().unwrap();
        let data = std::fs::read(dir.join(&row["fixture"])).unwrap();
        let bytes = &data[offset..offset + size];
        let co =
            rocpath_codeobj::parse(bytes).unwrap_or_else(|e| panic!("{}: {e}", row["fixture"]));
        let what = format!("{} {}", row["fixture"], row["entry"]);
        // Version and target.
        let cov = &row["code_object_version"];
        if cov.starts_with('v') && cov != "v2-or-older" {
            assert_eq!(format!("v{}", co.version.unwrap()), *cov, "{what}");
        } else {
            assert!(co.version.unwrap() <= 2, "{what}");
        }
        let flags = &row["elf_flags(llvm-readelf)"];
        assert_eq!(
            format!("0x{:x}", co.e_flags),
            flags.split(',').next().unwrap(),
            "{what}"
        );
        if let Some(proc_) = flags.split(", ").nth(1) {
            assert_eq!(co.target_id.processor, proc_, "{what}");
        } else {
            assert_eq!(
                co.target_id.processor, "gfx900",
                "{what}: legacy ISA note 9.0.0"
            );
        }
        let t = &row["amdhsa.target"];
        assert_eq!(
            co.metadata.target.clone().unwrap_or_else(|| "-".into()),
            *t,
            "{what}"
        );
        let v = &row["amdhsa.version"];
        assert_eq!(
            co.metadata.version.clone().unwrap_or_else(|| "-".into()),
            *v,
            "{what}"
        );
        assert_eq!(
            co.metadata.notes.to_string(),
            row["metadata_notes"],
            "{what}"
        );
        // When the note names a target id, e_flags must give the same one.
        if t.starts_with("amdgcn") {
            assert_eq!(co.target_id.full(), *t, "{what}");
        }
        // Kernels, field by field, against llvm-readelf's YAML.
        if row["kernels_file"].is_empty() || row["kernels_file"] == "-" {
            assert_eq!(
                co.kernels.len(),
                10,
                "{what}: legacy object kernels come from symbols"
            );
        } else {
            assert_eq!(co.kernels.len().to_string(), row["kernels"], "{what}");
            let refk = read_tsv(&dir.join(&row["kernels_file"])).unwrap();
            assert_eq!(refk.len(), co.kernels.len(), "{what}");
            for (r, k) in refk.iter().zip(&co.kernels) {
                assert_eq!(r["name"], k.name, "{what}");
                assert_eq!(r["symbol"], k.symbol(), "{what}");
                assert_eq!(r["sgpr_count"], opt(k.sgpr_count), "{what} {}", k.name);
                assert_eq!(r["vgpr_count"], opt(k.vgpr_count), "{what} {}", k.name);
                assert_eq!(r["agpr_count"], opt(k.agpr_count), "{what} {}", k.name);
                assert_eq!(
                    r["wavefront_size"],
                    opt(k.wavefront_size),
                    "{what} {}",
                    k.name
                );
                assert_eq!(
                    r["group_segment_fixed_size"],
                    opt(k.group_segment_fixed_size),
                    "{what}"
                );
                assert_eq!(
                    r["private_segment_fixed_size"],
                    opt(k.private_segment_fixed_size),
                    "{what}"
                );
                assert_eq!(
                    r["kernarg_segment_size"],
                    opt(k.kernarg_segment_size),
                    "{what}"
                );
                assert_eq!(
                    r["kernarg_segment_align"],
                    opt(k.kernarg_segment_align),
                    "{what}"
                );
                assert_eq!(
                    r["max_flat_workgroup_size"],
                    opt(k.max_flat_workgroup_size),
                    "{what}"
                );
                assert_eq!(r["sgpr_spill_count"], opt(k.sgpr_spill_count), "{what}");
                assert_eq!(r["vgpr_spill_count"], opt(k.vgpr_spill_count), "{what}");
                let uds = k
                    .uses_dynamic_stack
                    .map(|b| b.to_string())
                    .unwrap_or_default();
                assert_eq!(r["uses_dynamic_stack"], uds, "{what}");
                assert_eq!(
                    r["uniform_work_group_size"],
                    opt(k.uniform_work_group_size),
                    "{what}"
                );
            }
        }
        // The code object's own extent equals its size (the manifest cut it exactly).
        assert!(
            co.elf_extent <= size as u64,
            "{what}: extent {} > {size}",
            co.elf_extent
        );
        checked += 1;
    }
    assert!(checked >= 60, "only {checked} code objects checked");
}

/// A value read from `len` bytes describes no more than `len` bytes; an error points inside them.
fn assert_within(
    what: &str,
    len: usize,
    r: Result<rocpath_codeobj::CodeObject, rocpath_codeobj::Error>,
) {
    match r {
        Ok(co) => assert!(
            co.elf_extent <= len as u64,
            "{what}: {len} bytes: extent {}",
            co.elf_extent
        ),
        Err(e) => assert!(
            e.offset().is_none_or(|o| o <= len as u64),
            "{what}: {len} bytes: {e}"
        ),
    }
}

#[test]
fn every_prefix_of_every_fixture_is_an_error_or_a_value() {
    let Some(dir) = codeobjects_dir() else { return };
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !(name.ends_with(".co") || name.ends_with(".hsaco")) {
            continue;
        }
        let data = std::fs::read(&p).unwrap();
        // Many cut points: every 97th byte in the headers' region, and 64 spread over the file.
        let mut cuts: Vec<usize> = (0..data.len().min(8192)).step_by(97).collect();
        cuts.extend((1..64).map(|i| data.len() * i / 64));
        for cut in cuts {
            assert_within(&name, cut, rocpath_codeobj::parse(&data[..cut]));
            let _ = rocpath_codeobj::symbols(&data[..cut]);
            let _ = rocpath_codeobj::code_sections(&data[..cut]);
        }
        // Flip single header bytes.
        let mut d = data.clone();
        for i in (0..d.len().min(4096)).step_by(7) {
            d[i] ^= 0xff;
            assert_within(&name, d.len(), rocpath_codeobj::parse(&d));
            d[i] ^= 0xff;
        }
    }
}
