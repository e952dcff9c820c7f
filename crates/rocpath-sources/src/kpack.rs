//! kpack archives (`.kpack`): the per-architecture device-code files of ROCm's multi-arch
//! packaging, and the code objects inside them.
//!
//! Layout (all integers little-endian): `KPAK`, u32 version (1), u64 offset of the table of
//! contents, zero padding to 64; then the blob region; then the TOC, one MessagePack map that
//! runs to the end of the file: `format_version`, `group_name`, `gfx_arch_family`,
//! `gfx_arches`, `compression_scheme` (`none` with `blobs: [{offset, size}]`, or
//! `zstd-per-kernel` with `zstd_offset`/`zstd_size`, a region of a u32 count and then
//! (u32 length, zstd frame) records in ordinal order), and
//! `toc: {binary → {arch → {type, ordinal, original_size}}}`.
//!
//! Every offset and size is checked against the file before use, frame counts are capped by
//! the bytes that could hold them, and a decompressed code object is reserved from the run's
//! memory budget (the CCOB limit, [`Limits::max_decompressed`]) before it is allocated.

use crate::{Limits, SourceError};
use rocpath_budget::Reservation;
use rocpath_mpack::Reader;

/// The archive magic.
pub const KPACK_MAGIC: &[u8; 4] = b"KPAK";
/// Length of the fixed header (magic, version, TOC offset, padding).
pub const HEADER_LEN: u64 = 64;
/// Most table-of-contents entries accepted (the reference reader's frame limit); a TOC with
/// more is refused by name, never cut short.
pub const MAX_ENTRIES: usize = 1 << 20;

/// Most memory a parsed TOC may take (its entries and their names); a TOC that needs more is
/// refused by name (real archives hold thousands of entries, a few MB).
pub const MAX_TOC_BYTES: usize = 128 << 20;

/// How the code objects are stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scheme {
    /// Verbatim; `blobs[ordinal]` = (absolute offset, size).
    None {
        /// Blobs in ordinal order.
        blobs: Vec<(u64, u64)>,
    },
    /// One zstd frame per code object in a region of (u32 length, frame) records.
    ZstdPerKernel {
        /// Absolute offset of the region.
        offset: u64,
        /// Its size.
        size: u64,
    },
}

/// One code object listed by the table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocEntry {
    /// Binary key: the host binary's path in the packed tree, sometimes with `#N`.
    pub binary: String,
    /// Architecture key (`gfx900`, `gfx90a:xnack-`).
    pub arch: String,
    /// `type` (always `hsaco` so far).
    pub kind: String,
    /// Index into the blobs or frames.
    pub ordinal: u64,
    /// Uncompressed size.
    pub original_size: Option<u64>,
}

impl TocEntry {
    /// The binary key without a `#N` suffix, and N (0 when absent).
    pub fn binary_and_index(&self) -> (&str, u32) {
        split_index(&self.binary)
    }
}

/// `name#N` → (`name`, N); a key without a numeric suffix → (key, 0).
pub fn split_index(key: &str) -> (&str, u32) {
    if let Some((b, n)) = key.rsplit_once('#') {
        if let Ok(n) = n.parse::<u32>() {
            return (b, n);
        }
    }
    (key, 0)
}

/// A parsed archive header and table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toc {
    /// Header version.
    pub version: u32,
    /// Offset of the TOC.
    pub toc_offset: u64,
    /// `format_version`.
    pub format_version: Option<u64>,
    /// `group_name`.
    pub group_name: Option<String>,
    /// `gfx_arch_family`.
    pub gfx_arch_family: Option<String>,
    /// `gfx_arches`: what the archive advertises (the reference loader chooses archives by it).
    pub gfx_arches: Vec<String>,
    /// `compression_scheme` as written.
    pub scheme_name: String,
    /// Where the code objects are.
    pub scheme: Scheme,
    /// Entries, in TOC order.
    pub entries: Vec<TocEntry>,
}

impl Toc {
    /// Architectures stored in the TOC, sorted, without repeats.
    pub fn stored_arches(&self) -> Vec<String> {
        let mut v: Vec<String> = self.entries.iter().map(|e| e.arch.clone()).collect();
        v.sort();
        v.dedup();
        v
    }
}

fn fmt(offset: u64, msg: impl Into<String>) -> SourceError {
    SourceError::Format {
        offset,
        msg: msg.into(),
    }
}

fn mp(e: rocpath_mpack::Error) -> SourceError {
    let offset = match &e {
        rocpath_mpack::Error::Truncated { offset, .. }
        | rocpath_mpack::Error::Type { offset, .. }
        | rocpath_mpack::Error::TooDeep { offset }
        | rocpath_mpack::Error::LengthBomb { offset, .. } => *offset,
        _ => 0,
    };
    fmt(offset, format!("kpack table of contents: {e}"))
}

fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn le_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Reads the header and the table of contents of the archive `data`.
pub fn parse(data: &[u8]) -> Result<Toc, SourceError> {
    if data.is_empty() {
        return Err(fmt(
            0,
            "empty file: the loader cannot open it (ARCHIVE_NOT_FOUND)",
        ));
    }
    if !data.starts_with(KPACK_MAGIC) {
        return Err(fmt(0, "not a kpack archive (no KPAK magic)"));
    }
    let (Some(version), Some(toc_offset)) = (le_u32(data, 4), le_u64(data, 8)) else {
        return Err(SourceError::Truncated {
            offset: 0,
            what: format!("kpack header ({} of 16 bytes)", data.len()),
        });
    };
    if version != 1 {
        return Err(fmt(
            4,
            format!("kpack version {version} (only 1 is known; the loader refuses it)"),
        ));
    }
    let len = data.len() as u64;
    if toc_offset < 16 || toc_offset >= len {
        return Err(fmt(
            8,
            format!("TOC offset {toc_offset} is outside the file ({len} bytes)"),
        ));
    }
    let toc = data.get(toc_offset as usize..).unwrap_or(&[]);
    let mut rd = Reader::with_base(toc, toc_offset);
    let mut t = Toc {
        version,
        toc_offset,
        format_version: None,
        group_name: None,
        gfx_arch_family: None,
        gfx_arches: Vec::new(),
        scheme_name: String::new(),
        scheme: Scheme::None { blobs: Vec::new() },
        entries: Vec::new(),
    };
    let mut blobs = None;
    let (mut zoff, mut zsize) = (None, None);
    let mut refused = None;
    rd.for_each_entry(|k, rd| {
        match k {
            "format_version" => t.format_version = rd.u64_or_skip()?,
            "group_name" => t.group_name = rd.str_or_skip()?.map(str::to_string),
            "gfx_arch_family" => t.gfx_arch_family = rd.str_or_skip()?.map(str::to_string),
            "gfx_arches" => t.gfx_arches = str_array(rd)?,
            "compression_scheme" => t.scheme_name = rd.str()?.to_string(),
            "blobs" => match read_blobs(rd)? {
                Some(b) => blobs = Some(b),
                None => refused = Some(format!("the blob table has more than {MAX_ENTRIES} rows")),
            },
            "zstd_offset" => zoff = rd.u64_or_skip()?,
            "zstd_size" => zsize = rd.u64_or_skip()?,
            "toc" => match read_toc(rd)? {
                Ok(e) => t.entries = e,
                Err(why) => refused = Some(why),
            },
            _ => rd.skip()?,
        }
        Ok(())
    })
    .map_err(mp)?;
    if let Some(why) = refused {
        return Err(SourceError::Limit {
            offset: toc_offset,
            msg: format!("{why}: refused (a real archive holds a few thousand)"),
        });
    }
    t.scheme = scheme(&t.scheme_name, blobs, zoff.zip(zsize), toc_offset)?;
    Ok(t)
}

/// The storage scheme from the TOC's keys: `none` (or absent, as the C++ loader reads it) with
/// `blobs`, or `zstd-per-kernel` with a region that ends before the TOC.
fn scheme(
    name: &str,
    blobs: Option<Vec<(u64, u64)>>,
    zstd: Option<(u64, u64)>,
    toc_offset: u64,
) -> Result<Scheme, SourceError> {
    match name {
        "none" | "" => Ok(Scheme::None {
            blobs: blobs.unwrap_or_default(),
        }),
        "zstd-per-kernel" => {
            let Some((offset, size)) = zstd else {
                return Err(fmt(
                    toc_offset,
                    "zstd-per-kernel archive without zstd_offset/zstd_size",
                ));
            };
            if offset.checked_add(size).is_none_or(|e| e > toc_offset) || size < 4 {
                return Err(fmt(
                    toc_offset,
                    format!(
                        "zstd region {offset}+{size} does not fit before the TOC at {toc_offset}"
                    ),
                ));
            }
            Ok(Scheme::ZstdPerKernel { offset, size })
        }
        other => Err(fmt(
            toc_offset,
            format!("unknown compression_scheme {other:?} (none, zstd-per-kernel are known)"),
        )),
    }
}

fn str_array(rd: &mut Reader<'_>) -> rocpath_mpack::Result<Vec<String>> {
    let n = rd.array_len()?;
    let mut v = Vec::new();
    for _ in 0..n {
        if let Some(s) = rd.str_or_skip()? {
            v.push(s.to_string());
        }
    }
    Ok(v)
}

/// The blob table, or `None` when it has more than [`MAX_ENTRIES`] rows (skipped).
fn read_blobs(rd: &mut Reader<'_>) -> rocpath_mpack::Result<Option<Vec<(u64, u64)>>> {
    let n = rd.array_len()?;
    if n > MAX_ENTRIES {
        for _ in 0..n {
            rd.skip()?;
        }
        return Ok(None);
    }
    let mut v = Vec::new();
    for _ in 0..n {
        let (mut o, mut s) = (u64::MAX, u64::MAX);
        rd.for_each_entry(|k, rd| {
            match k {
                "offset" => o = rd.u64_or_skip()?.unwrap_or(u64::MAX),
                "size" => s = rd.u64_or_skip()?.unwrap_or(u64::MAX),
                _ => rd.skip()?,
            }
            Ok(())
        })?;
        v.push((o, s));
    }
    Ok(Some(v))
}

/// The TOC's entries, or why it is refused (more than [`MAX_ENTRIES`] or [`MAX_TOC_BYTES`]).
fn read_toc(rd: &mut Reader<'_>) -> rocpath_mpack::Result<Result<Vec<TocEntry>, String>> {
    let mut out = Vec::new();
    let mut bytes = 0usize;
    let mut over: Option<String> = None;
    rd.for_each_entry(|binary, rd| {
        rd.for_each_entry(|arch, rd| {
            if over.is_some() {
                return rd.skip();
            }
            let mut e = TocEntry {
                binary: binary.to_string(),
                arch: arch.to_string(),
                kind: String::new(),
                ordinal: u64::MAX,
                original_size: None,
            };
            rd.for_each_entry(|k, rd| {
                match k {
                    "type" => e.kind = rd.str_or_skip()?.unwrap_or("").to_string(),
                    "ordinal" => e.ordinal = rd.u64_or_skip()?.unwrap_or(u64::MAX),
                    "original_size" => e.original_size = rd.u64_or_skip()?,
                    _ => rd.skip()?,
                }
                Ok(())
            })?;
            bytes += std::mem::size_of::<TocEntry>() + e.binary.len() + e.arch.len() + e.kind.len();
            if out.len() >= MAX_ENTRIES {
                over = Some(format!("the TOC has more than {MAX_ENTRIES} entries"));
            } else if bytes > MAX_TOC_BYTES {
                over = Some(format!(
                    "the TOC's {} entries and their names take more than {} MiB",
                    out.len(),
                    MAX_TOC_BYTES >> 20
                ));
            } else {
                out.push(e);
            }
            Ok(())
        })
    })?;
    Ok(match over {
        Some(why) => Err(why),
        None => Ok(out),
    })
}

/// The frames of a zstd-per-kernel region: (absolute offset, length) per ordinal.
pub fn frame_index(data: &[u8], offset: u64, size: u64) -> Result<Vec<(u64, u64)>, SourceError> {
    let region = usize::try_from(offset)
        .ok()
        .zip(usize::try_from(size).ok())
        .and_then(|(o, s)| data.get(o..o.checked_add(s)?))
        .ok_or_else(|| SourceError::Truncated {
            offset,
            what: format!("zstd region of {size} bytes"),
        })?;
    let count = le_u32(region, 0).unwrap_or(0) as usize;
    // Each record takes at least its 4-byte length.
    if count > MAX_ENTRIES || count > (region.len() - 4) / 4 {
        return Err(fmt(
            offset,
            format!("zstd region declares {count} frames, more than its {size} bytes can hold",),
        ));
    }
    let mut frames = Vec::with_capacity(count);
    let mut pos = 4usize;
    for i in 0..count {
        let Some(n) = le_u32(region, pos) else {
            return Err(SourceError::Truncated {
                offset: offset + pos as u64,
                what: format!("length of zstd frame {i}"),
            });
        };
        let start = pos + 4;
        let end = start.checked_add(n as usize).filter(|&e| e <= region.len());
        let Some(end) = end else {
            return Err(SourceError::Truncated {
                offset: offset + pos as u64,
                what: format!(
                    "zstd frame {i} of {n} bytes ({} left in the region)",
                    region.len() - start.min(region.len())
                ),
            });
        };
        frames.push((offset + start as u64, u64::from(n)));
        pos = end;
    }
    Ok(frames)
}

/// The bytes of one code object: borrowed from the archive, or decompressed (holding its
/// reservation of the memory budget until dropped).
pub enum EntryBytes<'a> {
    /// Stored verbatim.
    Stored(&'a [u8]),
    /// Decompressed from a zstd frame.
    Decompressed(Vec<u8>, Reservation),
}

impl std::ops::Deref for EntryBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            EntryBytes::Stored(b) => b,
            EntryBytes::Decompressed(v, _) => v,
        }
    }
}

/// Where an entry's stored bytes are in the archive: (offset, stored size).
pub fn stored_range(
    toc: &Toc,
    frames: &[(u64, u64)],
    e: &TocEntry,
) -> Result<(u64, u64), SourceError> {
    let table: &[(u64, u64)] = match &toc.scheme {
        Scheme::None { blobs } => blobs,
        Scheme::ZstdPerKernel { .. } => frames,
    };
    usize::try_from(e.ordinal)
        .ok()
        .and_then(|i| table.get(i))
        .copied()
        .ok_or_else(|| {
            fmt(
                toc.toc_offset,
                format!(
                    "entry {} / {}: ordinal {} is outside the {} stored objects (KERNEL_NOT_FOUND)",
                    e.binary,
                    e.arch,
                    e.ordinal,
                    table.len()
                ),
            )
        })
}

/// Reads one entry: checks its range against the file and, for zstd, reserves and
/// decompresses exactly `original_size` bytes.
pub fn entry_bytes<'a>(
    data: &'a [u8],
    toc: &Toc,
    frames: &[(u64, u64)],
    e: &TocEntry,
    limits: &Limits,
) -> Result<EntryBytes<'a>, SourceError> {
    let (off, size) = stored_range(toc, frames, e)?;
    let stored = usize::try_from(off)
        .ok()
        .zip(usize::try_from(size).ok())
        .and_then(|(o, s)| data.get(o..o.checked_add(s)?))
        .ok_or_else(|| SourceError::Truncated {
            offset: off,
            what: format!(
                "{} / {}: {size} bytes at {off} ({} in the file)",
                e.binary,
                e.arch,
                data.len()
            ),
        })?;
    if let Scheme::None { .. } = toc.scheme {
        return Ok(EntryBytes::Stored(stored));
    }
    let Some(cap) = e.original_size else {
        return Err(fmt(
            off,
            format!(
                "{} / {}: zstd entry without original_size",
                e.binary, e.arch
            ),
        ));
    };
    if cap > limits.max_decompressed {
        return Err(SourceError::Limit {
            offset: off,
            msg: format!(
                "{} / {} declares {cap} uncompressed bytes, more than the limit {} (raise --max-decompressed if this is genuine)",
                e.binary, e.arch, limits.max_decompressed
            ),
        });
    }
    if let Ok(Some(declared)) = zstd::zstd_safe::get_frame_content_size(stored) {
        if declared != cap {
            return Err(fmt(
                off,
                format!(
                    "{} / {}: zstd frame says {declared} bytes, the TOC says {cap}",
                    e.binary, e.arch
                ),
            ));
        }
    }
    let held = limits
        .memory
        .reserve(cap)
        .map_err(|err| SourceError::budget(off, "kpack code object", err))?;
    let mut out = Vec::new();
    usize::try_from(cap)
        .ok()
        .and_then(|c| c.checked_add(1))
        .and_then(|c| out.try_reserve_exact(c).ok())
        .ok_or_else(|| SourceError::Limit {
            offset: off,
            msg: format!("cannot allocate {cap} bytes for a kpack code object"),
        })?;
    zstd::bulk::Decompressor::new()
        .and_then(|mut d| d.decompress_to_buffer(stored, &mut out))
        .map_err(|err| {
            fmt(
                off,
                format!(
                    "{} / {}: zstd frame does not decompress: {err}",
                    e.binary, e.arch
                ),
            )
        })?;
    if out.len() as u64 != cap {
        return Err(fmt(
            off,
            format!(
                "{} / {}: decompressed to {} bytes, the TOC says {cap}",
                e.binary,
                e.arch,
                out.len()
            ),
        ));
    }
    Ok(EntryBytes::Decompressed(out, held))
}

/// The frames of the archive when it is zstd-compressed (empty otherwise).
pub fn frames_of(data: &[u8], toc: &Toc) -> Result<Vec<(u64, u64)>, SourceError> {
    match toc.scheme {
        Scheme::ZstdPerKernel { offset, size } => frame_index(data, offset, size),
        Scheme::None { .. } => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_suffix() {
        assert_eq!(split_index("lib/libtest.so#3"), ("lib/libtest.so", 3));
        assert_eq!(split_index("lib/libtest.so"), ("lib/libtest.so", 0));
        assert_eq!(split_index("a#b"), ("a#b", 0));
    }

    #[test]
    fn refuses_bad_headers() {
        assert!(parse(b"").is_err());
        assert!(parse(b"KPAK\x01\0\0\0").is_err());
        let mut h = b"KPAK\x02\0\0\0".to_vec();
        h.extend_from_slice(&16u64.to_le_bytes());
        h.extend_from_slice(&[0x80]);
        assert!(parse(&h).unwrap_err().to_string().contains("version 2"));
        let mut h = b"KPAK\x01\0\0\0".to_vec();
        h.extend_from_slice(&99u64.to_le_bytes());
        h.push(0x80);
        assert!(
            parse(&h)
                .unwrap_err()
                .to_string()
                .contains("outside the file")
        );
    }

    #[test]
    fn toc_length_bomb_is_refused() {
        let mut h = b"KPAK\x01\0\0\0".to_vec();
        h.extend_from_slice(&64u64.to_le_bytes());
        h.resize(64, 0);
        // A map32 that claims 4 G entries, then a str32 that claims 4 GiB.
        h.extend_from_slice(&[0xdf, 0xff, 0xff, 0xff, 0xff, 0xdb, 0xff, 0xff, 0xff, 0xff]);
        let e = parse(&h).unwrap_err();
        assert!(e.to_string().contains("exceeds"), "{e}");
        assert_eq!(e.offset(), Some(64));
    }

    #[test]
    fn frame_count_bomb_is_refused() {
        let mut d = vec![0u8; 64];
        d.extend_from_slice(&u32::MAX.to_le_bytes());
        d.extend_from_slice(&[0; 8]);
        assert!(frame_index(&d, 64, 12).is_err());
        // A length that runs past the region.
        let mut d = vec![0u8; 64];
        d.extend_from_slice(&1u32.to_le_bytes());
        d.extend_from_slice(&1000u32.to_le_bytes());
        assert!(frame_index(&d, 64, 8).is_err());
    }
}
