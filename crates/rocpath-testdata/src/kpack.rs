//! kpack test inputs: archives written the way the reference packer writes them, and packed
//! host binaries with another marker.

/// Writes an archive the way the reference packer does (`none` or `zstd-per-kernel`).
#[allow(clippy::expect_used)] // test support: failing the calling test is the point
pub fn write_kpack(entries: &[(&str, &str, &[u8])], zstd: bool, gfx_arches: &[&str]) -> Vec<u8> {
    let payloads: Vec<&[u8]> = entries.iter().map(|e| e.2).collect();
    let toc: Vec<(&str, &str, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, (b, a, _))| (*b, *a, i))
        .collect();
    write_kpack_toc(&payloads, &toc, zstd, gfx_arches)
}

/// An archive of `payloads` whose TOC entries `(binary, arch, ordinal)` name them by ordinal
/// (several entries may name one payload).
#[allow(clippy::expect_used)] // test support
pub fn write_kpack_toc(
    payloads: &[&[u8]],
    entries: &[(&str, &str, usize)],
    zstd: bool,
    gfx_arches: &[&str],
) -> Vec<u8> {
    use rmpv::Value;
    let mut out = b"KPAK\x01\0\0\0".to_vec();
    out.extend_from_slice(&[0; 56]);
    let mut toc: Vec<(Value, Value)> = Vec::new();
    let mut blobs = Vec::new();
    let region_start = out.len();
    if zstd {
        out.extend_from_slice(&(payloads.len() as u32).to_le_bytes());
    }
    for bytes in payloads {
        if zstd {
            let f = zstd::bulk::compress(bytes, 3).expect("in memory");
            out.extend_from_slice(&(f.len() as u32).to_le_bytes());
            out.extend_from_slice(&f);
        } else {
            blobs.push(Value::Map(vec![
                ("offset".into(), (out.len() as u64).into()),
                ("size".into(), (bytes.len() as u64).into()),
            ]));
            out.extend_from_slice(bytes);
        }
    }
    for (bin, arch, i) in entries {
        let entry = Value::Map(vec![
            ("type".into(), "hsaco".into()),
            ("ordinal".into(), (*i as u64).into()),
            ("original_size".into(), (payloads[*i].len() as u64).into()),
        ]);
        match toc.iter_mut().find(|(k, _)| k.as_str() == Some(bin)) {
            Some((_, Value::Map(m))) => m.push(((*arch).into(), entry)),
            _ => toc.push(((*bin).into(), Value::Map(vec![((*arch).into(), entry)]))),
        }
    }
    let region_end = out.len();
    let mut top = vec![
        ("format_version".into(), 1.into()),
        ("group_name".into(), "test".into()),
        ("gfx_arch_family".into(), "gfxtest".into()),
        (
            "gfx_arches".into(),
            Value::Array(gfx_arches.iter().map(|a| (*a).into()).collect()),
        ),
        ("toc".into(), Value::Map(toc)),
    ];
    if zstd {
        top.push(("compression_scheme".into(), "zstd-per-kernel".into()));
        top.push(("zstd_offset".into(), (region_start as u64).into()));
        top.push((
            "zstd_size".into(),
            ((region_end - region_start) as u64).into(),
        ));
    } else {
        top.push(("compression_scheme".into(), "none".into()));
        top.push(("blobs".into(), Value::Array(blobs)));
    }
    let toc_offset = out.len() as u64;
    rmpv::encode::write_value(&mut out, &Value::Map(top)).expect("in memory");
    out[8..16].copy_from_slice(&toc_offset.to_le_bytes());
    out
}

/// `host` with its `.rocm_kpack_ref` bytes replaced by a marker with `paths` (zero-padded;
/// the marker is one MessagePack map and what follows it is not read).
#[allow(clippy::expect_used, clippy::panic)] // test support
pub fn with_marker(host: &[u8], paths: &[&str], key: &str) -> Vec<u8> {
    use object::{Object, ObjectSection};
    let f = object::File::parse(host).expect("a host ELF");
    let s = f
        .section_by_name(".rocm_kpack_ref")
        .expect("a kpack marker");
    let (off, size) = s.file_range().expect("in the file");
    let v = rmpv::Value::Map(vec![
        (
            "kpack_search_paths".into(),
            rmpv::Value::Array(paths.iter().map(|p| (*p).into()).collect()),
        ),
        ("kernel_name".into(), key.into()),
    ]);
    let mut m = Vec::new();
    rmpv::encode::write_value(&mut m, &v).expect("in memory");
    let mut out = host.to_vec();
    let region = &mut out[off as usize..(off + size) as usize];
    // The marker section keeps its size.
    assert!(m.len() <= region.len(), "marker too long");
    region.fill(0);
    region[..m.len()].copy_from_slice(&m);
    out
}
