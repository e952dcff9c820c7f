//! Clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`) and compressed bundles (`CCOB`).
//!
//! Uncompressed layout: 24-byte magic, u64 entry count, then per entry u64 offset, u64 size,
//! u64 id length and the id bytes (not NUL-terminated). Offsets count from the bundle start.
//!
//! Compressed layout (LLVM `CompressedOffloadBundle`): `CCOB`, u16 version, u16 method
//! (0 = zlib, 1 = zstd), then
//! - v1: u32 uncompressed size, u64 hash (16-byte header);
//! - v2: u32 total file size, u32 uncompressed size, u64 hash (24-byte header);
//! - v3: u64 total file size, u64 uncompressed size, u64 hash (32-byte header);
//!
//! followed by the compressed payload, which is an uncompressed bundle.

use crate::{Limits, SourceError};
use rocpath_budget::Reservation;
use std::io::Read;

/// Magic of an uncompressed offload bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed offload bundle.
pub const CCOB_MAGIC: &[u8; 4] = b"CCOB";

/// One entry of an offload bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleEntry {
    /// Entry id, e.g. `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+` or `host-x86_64-unknown-linux-gnu-`.
    pub id: String,
    /// Offset from the start of the bundle.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

impl BundleEntry {
    /// True for host entries (`host-…`), which carry no device code.
    pub fn is_host(&self) -> bool {
        self.id.starts_with("host-")
    }
}

/// A parsed bundle header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleHeader {
    /// Entries in header order.
    pub entries: Vec<BundleEntry>,
    /// Bytes the header itself occupies.
    pub header_len: u64,
    /// End of the furthest entry (the bundle's extent), counted from the bundle start.
    pub extent: u64,
}

fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    b.get(o..o.checked_add(8)?)?
        .try_into()
        .ok()
        .map(u64::from_le_bytes)
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    b.get(o..o.checked_add(4)?)?
        .try_into()
        .ok()
        .map(u32::from_le_bytes)
}
fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    b.get(o..o.checked_add(2)?)?
        .try_into()
        .ok()
        .map(u16::from_le_bytes)
}

/// Parses the header of an uncompressed bundle that starts at `data[0]`. `avail` is the number
/// of bytes that really follow the bundle start in its container (entries must fit in it);
/// pass `None` when the data is a prefix of a stream whose length is not known yet.
pub fn parse_bundle_header(
    data: &[u8],
    avail: Option<u64>,
    limits: &Limits,
) -> Result<BundleHeader, SourceError> {
    let bad = |offset: u64, msg: String| SourceError::Format { offset, msg };
    if data.get(..24) != Some(&BUNDLE_MAGIC[..]) {
        return Err(bad(0, "missing __CLANG_OFFLOAD_BUNDLE__ magic".into()));
    }
    let n = u64_at(data, 24).ok_or_else(|| SourceError::Truncated {
        offset: 24,
        what: "bundle entry count".into(),
    })?;
    if n > limits.max_bundle_entries {
        return Err(bad(
            24,
            format!(
                "bundle declares {n} entries, more than the limit {}",
                limits.max_bundle_entries
            ),
        ));
    }
    let mut pos = 32usize;
    let mut entries = Vec::with_capacity(n.min(64) as usize);
    let mut extent = 0u64;
    for i in 0..n {
        let trunc = |what: &str| SourceError::Truncated {
            offset: pos as u64,
            what: format!("bundle entry #{i} {what}"),
        };
        let offset = u64_at(data, pos).ok_or_else(|| trunc("offset"))?;
        let size = u64_at(data, pos + 8).ok_or_else(|| trunc("size"))?;
        let idlen = u64_at(data, pos + 16).ok_or_else(|| trunc("id length"))?;
        if idlen > limits.max_bundle_id_len {
            return Err(bad(
                pos as u64 + 16,
                format!("bundle entry #{i} id length {idlen} is over the limit"),
            ));
        }
        let id_start = pos + 24;
        let id_end = id_start + idlen as usize;
        let id = data.get(id_start..id_end).ok_or_else(|| trunc("id"))?;
        let id = String::from_utf8_lossy(id).into_owned();
        let end = offset.checked_add(size).ok_or_else(|| {
            bad(
                pos as u64,
                format!("bundle entry #{i} ({id}) offset+size overflows"),
            )
        })?;
        if let Some(avail) = avail {
            if end > avail {
                return Err(bad(
                    pos as u64,
                    format!(
                        "bundle entry #{i} ({id}) spans {offset}..{end}, past the {avail} bytes available"
                    ),
                ));
            }
        }
        extent = extent.max(end);
        entries.push(BundleEntry { id, offset, size });
        pos = id_end;
    }
    let header_len = pos as u64;
    for e in &entries {
        if e.size > 0 && e.offset < header_len {
            return Err(bad(
                0,
                format!(
                    "bundle entry {} at offset {} overlaps the header",
                    e.id, e.offset
                ),
            ));
        }
    }
    Ok(BundleHeader {
        entries,
        header_len,
        extent: extent.max(header_len),
    })
}

pub use rocpath_docs::object::SharedBy;

/// The device entries of a bundle to read, one per distinct start offset: entries that start
/// at the same offset are the same code object (a hostile bundle can point thousands of
/// entries at one object), so it is read once — as the longest entry, the first of them in
/// header order — and the others are listed in its [`SharedBy`]. Host entries and empty
/// entries are left out. Order: the order of first appearance in the header.
pub fn group_entries(entries: &[BundleEntry]) -> Vec<(&BundleEntry, Option<SharedBy>)> {
    let mut by_offset: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    // (index of the entry read, indices of the others), by first appearance.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if e.is_host() || e.size == 0 {
            continue;
        }
        let Some(&g) = by_offset.get(&e.offset) else {
            by_offset.insert(e.offset, groups.len());
            groups.push((i, Vec::new()));
            continue;
        };
        let (best, others) = &mut groups[g];
        if e.size > entries[*best].size {
            others.push(std::mem::replace(best, i));
        } else {
            others.push(i);
        }
    }
    groups
        .into_iter()
        .map(|(best, mut others)| {
            others.sort_unstable();
            let shared = (!others.is_empty()).then(|| SharedBy {
                entries: others.len() as u64,
                ids: others
                    .iter()
                    .take(SharedBy::MAX_IDS)
                    .map(|&o| entries[o].id.clone())
                    .collect(),
            });
            (&entries[best], shared)
        })
        .collect()
}

/// True for an entry that holds LLVM bitcode (relocatable device code, raw or in its
/// wrapper): no machine code, nothing to report.
pub fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC") || bytes.starts_with(&[0xde, 0xc0, 0x17, 0x0b])
}

/// The message for a device entry whose bytes are not an AMDGPU ELF (nor bitcode).
pub fn not_amdgpu_elf(id: &str, bytes: &[u8]) -> String {
    let head: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!(
        "bundle entry {id} is not an AMDGPU ELF (starts with {})",
        head.join(" ")
    )
}

/// A parsed CCOB header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CcobHeader {
    /// Format version (1, 2 or 3).
    pub version: u16,
    /// Compression method (0 = zlib, 1 = zstd).
    pub method: u16,
    /// Total size of the compressed bundle including the header (v2, v3).
    pub total_size: Option<u64>,
    /// Uncompressed size of the payload.
    pub uncompressed_size: u64,
    /// Truncated MD5 hash of the uncompressed payload.
    pub hash: u64,
    /// Header length.
    pub header_len: u64,
}

impl CcobHeader {
    /// Name of the compression method.
    pub fn method_name(&self) -> &'static str {
        match self.method {
            0 => "zlib",
            1 => "zstd",
            _ => "unknown",
        }
    }
}

/// Parses a CCOB header at `data[0]`.
pub fn parse_ccob_header(data: &[u8], limits: &Limits) -> Result<CcobHeader, SourceError> {
    if data.get(..4) != Some(&CCOB_MAGIC[..]) {
        return Err(SourceError::Format {
            offset: 0,
            msg: "missing CCOB magic".into(),
        });
    }
    let trunc = |what: &str| SourceError::Truncated {
        offset: 0,
        what: format!("CCOB header {what}"),
    };
    let version = u16_at(data, 4).ok_or_else(|| trunc("version"))?;
    let method = u16_at(data, 6).ok_or_else(|| trunc("method"))?;
    let (total_size, uncompressed_size, hash, header_len) = match version {
        // magic, version, method, uncompressed size (u32), hash (u64): 20 bytes, as LLVM's
        // `CompressedOffloadBundle::V1HeaderSize`.
        1 => (
            None,
            u64::from(u32_at(data, 8).ok_or_else(|| trunc("size"))?),
            u64_at(data, 12).ok_or_else(|| trunc("hash"))?,
            20,
        ),
        2 => (
            Some(u64::from(
                u32_at(data, 8).ok_or_else(|| trunc("total size"))?,
            )),
            u64::from(u32_at(data, 12).ok_or_else(|| trunc("size"))?),
            u64_at(data, 16).ok_or_else(|| trunc("hash"))?,
            24,
        ),
        3 => (
            Some(u64_at(data, 8).ok_or_else(|| trunc("total size"))?),
            u64_at(data, 16).ok_or_else(|| trunc("size"))?,
            u64_at(data, 24).ok_or_else(|| trunc("hash"))?,
            32,
        ),
        v => {
            return Err(SourceError::Format {
                offset: 4,
                msg: format!("unknown CCOB version {v}"),
            });
        }
    };
    if method > 1 {
        return Err(SourceError::Format {
            offset: 6,
            msg: format!("unknown CCOB compression method {method}"),
        });
    }
    if uncompressed_size > limits.max_decompressed {
        return Err(SourceError::Limit {
            offset: 8,
            msg: format!(
                "CCOB declares {uncompressed_size} uncompressed bytes, more than the limit {} (raise --max-decompressed if this is genuine)",
                limits.max_decompressed
            ),
        });
    }
    if let Some(t) = total_size {
        if t < header_len {
            return Err(SourceError::Format {
                offset: 8,
                msg: format!("CCOB total size {t} is smaller than its header"),
            });
        }
    }
    Ok(CcobHeader {
        version,
        method,
        total_size,
        uncompressed_size,
        hash,
        header_len,
    })
}

/// A decompressed CCOB payload and the memory it holds from the run's budget (given back when
/// it is dropped).
#[derive(Debug)]
pub struct Payload {
    bytes: Vec<u8>,
    _held: Reservation,
}

impl std::ops::Deref for Payload {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// Decompresses a CCOB whose bytes start at `data[0]`. Returns the header and the
/// uncompressed bundle. The declared size is reserved from [`Limits::memory`] before anything
/// is allocated, and the output never grows past it.
pub fn decompress_ccob(data: &[u8], limits: &Limits) -> Result<(CcobHeader, Payload), SourceError> {
    let h = parse_ccob_header(data, limits)?;
    let payload = ccob_payload(data, &h)?;
    let cap = h.uncompressed_size;
    let held = limits
        .memory
        .reserve(cap)
        .map_err(|e| SourceError::budget(h.header_len, "CCOB payload", e))?;
    // Exactly the declared size (already checked against the limit): growing by doubling
    // would briefly hold the old and the new buffer, nearly twice the payload resident.
    // Pages are touched only as the decompressor writes them.
    let mut out = Vec::new();
    usize::try_from(cap)
        .ok()
        .and_then(|c| c.checked_add(1))
        .and_then(|c| out.try_reserve_exact(c).ok())
        .ok_or_else(|| SourceError::Limit {
            offset: h.header_len,
            msg: format!("cannot allocate {cap} bytes for the CCOB payload"),
        })?;
    inflate(&h, payload, &mut out).map_err(|e| SourceError::Format {
        offset: h.header_len,
        msg: format!("CCOB {} payload does not decompress: {e}", h.method_name()),
    })?;
    if out.len() as u64 != cap {
        return Err(SourceError::Format {
            offset: h.header_len,
            msg: format!(
                "CCOB payload decompressed to {} bytes, header says {cap}",
                out.len()
            ),
        });
    }
    Ok((
        h,
        Payload {
            bytes: out,
            _held: held,
        },
    ))
}

/// The compressed bytes of a CCOB: after the header, up to the declared total size (v2, v3)
/// or the end of `data` (v1).
fn ccob_payload<'a>(data: &'a [u8], h: &CcobHeader) -> Result<&'a [u8], SourceError> {
    let end =
        match h.total_size {
            Some(t) => usize::try_from(t).ok().filter(|&t| t <= data.len()).ok_or(
                SourceError::Truncated {
                    offset: 8,
                    what: format!(
                        "CCOB payload: total size {t} but only {} bytes available",
                        data.len()
                    ),
                },
            )?,
            None => data.len(),
        };
    Ok(data.get(h.header_len as usize..end).unwrap_or(&[]))
}

/// Decompresses into `out`, whose capacity is the declared size plus one byte (so that a
/// payload larger than declared shows as a wrong length, never as growth).
fn inflate(h: &CcobHeader, payload: &[u8], out: &mut Vec<u8>) -> std::io::Result<usize> {
    match h.method {
        // One-shot into the exact buffer: a streaming decoder keeps its own window, which
        // for a large frame is as big as the payload itself.
        1 => zstd::zstd_safe::find_frame_compressed_size(payload)
            .map_err(|c| {
                std::io::Error::other(format!(
                    "not a complete zstd frame ({})",
                    zstd::zstd_safe::get_error_name(c)
                ))
            })
            .and_then(|n| {
                let frame = payload.get(..n).unwrap_or(payload);
                zstd::bulk::Decompressor::new().and_then(|mut d| d.decompress_to_buffer(frame, out))
            }),
        _ => flate2::read::ZlibDecoder::new(payload)
            .take(h.uncompressed_size + 1)
            .read_to_end(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut hdr = Vec::new();
        hdr.extend_from_slice(BUNDLE_MAGIC);
        hdr.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        let hlen: usize = 32 + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
        let mut off = hlen;
        let mut body = Vec::new();
        for (id, data) in entries {
            hdr.extend_from_slice(&(off as u64).to_le_bytes());
            hdr.extend_from_slice(&(data.len() as u64).to_le_bytes());
            hdr.extend_from_slice(&(id.len() as u64).to_le_bytes());
            hdr.extend_from_slice(id.as_bytes());
            body.extend_from_slice(data);
            off += data.len();
        }
        hdr.extend(body);
        hdr
    }

    #[test]
    fn parses_and_bounds_entries() {
        let b = bundle(&[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx900", b"abcd"),
        ]);
        let h = parse_bundle_header(&b, Some(b.len() as u64), &Limits::default()).unwrap();
        assert_eq!(h.entries.len(), 2);
        assert!(h.entries[0].is_host());
        assert_eq!(h.extent as usize, b.len());
        // Claim more bytes than available.
        let short = &b[..b.len() - 1];
        assert!(parse_bundle_header(short, Some(short.len() as u64), &Limits::default()).is_err());
    }

    #[test]
    fn hostile_ccob_size_is_refused_before_allocating() {
        let mut c = Vec::new();
        c.extend_from_slice(b"CCOB");
        c.extend_from_slice(&3u16.to_le_bytes());
        c.extend_from_slice(&1u16.to_le_bytes());
        c.extend_from_slice(&64u64.to_le_bytes());
        c.extend_from_slice(&(5u64 << 40).to_le_bytes()); // 5 TiB
        c.extend_from_slice(&0u64.to_le_bytes());
        c.resize(64, 0);
        let e = decompress_ccob(&c, &Limits::default()).unwrap_err();
        assert!(matches!(e, SourceError::Limit { .. }), "{e}");
    }

    #[test]
    fn ccob_round_trip_zstd_and_zlib() {
        let payload = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx1201", b"0123456789")]);
        for method in [0u16, 1] {
            let comp = if method == 1 {
                zstd::encode_all(&payload[..], 3).unwrap()
            } else {
                use std::io::Write;
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(&payload).unwrap();
                e.finish().unwrap()
            };
            let mut c = Vec::new();
            c.extend_from_slice(b"CCOB");
            c.extend_from_slice(&2u16.to_le_bytes());
            c.extend_from_slice(&method.to_le_bytes());
            c.extend_from_slice(&((24 + comp.len()) as u32).to_le_bytes());
            c.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            c.extend_from_slice(&0u64.to_le_bytes());
            c.extend_from_slice(&comp);
            let (h, out) = decompress_ccob(&c, &Limits::default()).unwrap();
            assert_eq!(h.version, 2);
            assert_eq!(&*out, &payload[..]);
            // A lying uncompressed size is an error, not a short read.
            let mut lie = c.clone();
            lie[12..16].copy_from_slice(&((payload.len() - 1) as u32).to_le_bytes());
            assert!(decompress_ccob(&lie, &Limits::default()).is_err());
        }
    }

    #[test]
    fn ccob_v1_zstd_frame_followed_by_other_bytes() {
        // Version 1 has no total size: the payload runs to the end of what is given, which
        // in a `.hip_fatbin` is the next bundle. Only the zstd frame is decompressed.
        let payload = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx906", b"kernels")]);
        let comp = zstd::encode_all(&payload[..], 19).unwrap();
        let mut c = Vec::new();
        c.extend_from_slice(b"CCOB");
        c.extend_from_slice(&1u16.to_le_bytes());
        c.extend_from_slice(&1u16.to_le_bytes());
        c.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        c.extend_from_slice(&0u64.to_le_bytes());
        c.extend_from_slice(&comp);
        let mut tail = c.clone();
        tail.extend_from_slice(BUNDLE_MAGIC);
        tail.extend_from_slice(&[0xAB; 100]);
        let (h, out) = decompress_ccob(&tail, &Limits::default()).unwrap();
        assert_eq!(h.version, 1);
        assert_eq!(&*out, &payload[..]);
        // A frame cut short: an error naming the method, not a panic or a short payload.
        let cut = &c[..c.len() - 3];
        let e = decompress_ccob(cut, &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("zstd"), "{e}");
        // A frame whose content is larger than the declared size does not fit the buffer.
        let big = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx906", &[7u8; 4096])]);
        let mut lie = c[..8].to_vec();
        lie.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        lie.extend_from_slice(&0u64.to_le_bytes());
        lie.extend_from_slice(&zstd::encode_all(&big[..], 3).unwrap());
        assert!(decompress_ccob(&lie, &Limits::default()).is_err());
    }
}
