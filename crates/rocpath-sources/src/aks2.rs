//! AOTriton kernel images (`aotriton.images/amd-gfx*/…/*.aks2`; newer releases keep them as
//! members of zip files there, which the zip reader hands here).
//!
//! The format (ROCm/aotriton@30ae9671 `python/aks2.py`, `v3src/packed_kernel_common.cc`):
//! `AKS2`, then three little-endian u32 — the uncompressed size, the number of kernels, the
//! directory size — and one xz stream. Uncompressed: the directory (per kernel five u32 —
//! shared memory, threads per block, offset, image size, name length with its NUL — and the
//! name), then the code objects, each at `directory size + offset`. An entry with image size 0
//! is a kernel whose compilation failed when the image was built: AOTriton has nothing to
//! launch for it. The runtime refuses a file whose directory does not end exactly at the
//! declared directory size.
//!
//! Bounds: the declared uncompressed size is checked against [`Limits::max_decompressed`] and
//! reserved from the budget before anything is decompressed, and the stream may not produce
//! more than it declares.
//!
//! [`Limits::max_decompressed`]: crate::Limits::max_decompressed

use crate::{Ctx, Found, Origin, SourceError, scan_bytes};
use std::io::Read;

/// The first four bytes of an AKS2 image.
pub const AKS2_MAGIC: &[u8; 4] = b"AKS2";

const HEADER: usize = 16;
const ENTRY: usize = 20;

fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}

fn report(ctx: &Ctx<'_>, origin: &Origin, error: SourceError) {
    ctx.sink.found(Found::Error { origin, error });
}

fn format(offset: u64, msg: String) -> SourceError {
    SourceError::Format { offset, msg }
}

/// Scans one AKS2 image whose bytes start at `data[0]`.
pub(crate) fn scan_aks2(data: &[u8], origin: &Origin, depth: u32, ctx: &Ctx<'_>) {
    let (Some(total), Some(n), Some(dir)) = (u32_at(data, 4), u32_at(data, 8), u32_at(data, 12))
    else {
        return report(
            ctx,
            origin,
            SourceError::Truncated {
                offset: 0,
                what: "AKS2 header (16 bytes)".into(),
            },
        );
    };
    let content = match decompress(&data[HEADER..], u64::from(total), ctx) {
        Ok(c) => c,
        Err(e) => return report(ctx, origin, e),
    };
    let entries = match directory(&content.0, n, dir) {
        Ok(e) => e,
        Err(e) => return report(ctx, origin, e),
    };
    for (e, shared) in group_images(&entries) {
        let child = origin.child(format!("aks2:{}", e.name));
        let start = dir as usize + e.offset as usize;
        match content.0.get(start..start + e.size as usize) {
            Some(image) if shared.is_some() && rocpath_codeobj::is_amdgpu_elf(image) => {
                let release = |b: &[u8]| ctx.release(b);
                ctx.sink.found(Found::CodeObject {
                    sha256: &ctx.digest(image),
                    release: &release,
                    origin: &child,
                    offset: 0,
                    bytes: image,
                    bundle_id: None,
                    shared_by: shared.as_ref(),
                });
            }
            _ if e.size == 0 => report(
                ctx,
                &child,
                format(
                    u64::from(dir) + u64::from(e.offset),
                    "no image: the kernel's compilation failed when the AKS2 file was built, so AOTriton has nothing to launch for it".into(),
                ),
            ),
            Some(image) => scan_bytes(image, &child, &e.name, depth + 1, ctx),
            None => report(
                ctx,
                &child,
                format(
                    start as u64,
                    format!(
                        "image of {} bytes at {start} runs past the {total}-byte content",
                        e.size
                    ),
                ),
            ),
        }
    }
}

/// The entries to read, one per distinct image: entries naming the same bytes (offset and
/// size) are one code object — a hostile image can point thousands of names at one — read once
/// under the first of them, the others listed in its [`SharedBy`]. Entries without an image
/// are each kept (each is reported). Order: first appearance in the directory.
///
/// [`SharedBy`]: crate::bundle::SharedBy
fn group_images(entries: &[Entry]) -> Vec<(&Entry, Option<crate::bundle::SharedBy>)> {
    use crate::bundle::SharedBy;
    let mut first: std::collections::HashMap<(u32, u32), usize> = Default::default();
    let mut out: Vec<(&Entry, Option<SharedBy>)> = Vec::new();
    for e in entries {
        if e.size == 0 {
            out.push((e, None));
            continue;
        }
        let Some(&g) = first.get(&(e.offset, e.size)) else {
            first.insert((e.offset, e.size), out.len());
            out.push((e, None));
            continue;
        };
        let shared = out[g].1.get_or_insert_with(SharedBy::default);
        shared.entries += 1;
        if shared.ids.len() < SharedBy::MAX_IDS {
            shared.ids.push(e.name.clone());
        }
    }
    out
}

/// The decompressed content and the memory it holds.
struct Content(Vec<u8>, #[allow(dead_code)] rocpath_budget::Reservation);

fn decompress(stream: &[u8], total: u64, ctx: &Ctx<'_>) -> Result<Content, SourceError> {
    if total > ctx.limits.max_decompressed {
        return Err(SourceError::Limit {
            offset: 4,
            msg: format!(
                "AKS2 declares {total} uncompressed bytes, over the {} limit",
                rocpath_budget::format_size(ctx.limits.max_decompressed)
            ),
        });
    }
    let held = ctx
        .limits
        .memory
        .reserve(total)
        .map_err(|e| SourceError::budget(HEADER as u64, "AKS2 content", e))?;
    let mut out = Vec::new();
    usize::try_from(total)
        .ok()
        .and_then(|t| t.checked_add(1))
        .and_then(|t| out.try_reserve_exact(t).ok())
        .ok_or_else(|| SourceError::Limit {
            offset: 4,
            msg: format!("cannot allocate {total} bytes for the AKS2 content"),
        })?;
    xz2::read::XzDecoder::new(stream)
        .take(total + 1)
        .read_to_end(&mut out)
        .map_err(|e| format(HEADER as u64, format!("AKS2 xz stream: {e}")))?;
    if out.len() as u64 != total {
        return Err(format(
            HEADER as u64,
            if out.len() as u64 > total {
                format!("AKS2 content is larger than the {total} bytes its header declares")
            } else {
                format!(
                    "AKS2 content ends after {} of the {total} bytes its header declares",
                    out.len()
                )
            },
        ));
    }
    Ok(Content(out, held))
}

/// One directory entry.
struct Entry {
    name: String,
    offset: u32,
    size: u32,
}

fn directory(content: &[u8], n: u32, dir: u32) -> Result<Vec<Entry>, SourceError> {
    let mut at = 0usize;
    let mut out = Vec::new();
    for i in 0..n {
        if at >= dir as usize {
            return Err(format(
                at as u64,
                format!(
                    "AKS2 directory of {dir} bytes holds {i} of the {n} entries the header declares: it does not end at the declared directory size, and AOTriton refuses the file"
                ),
            ));
        }
        let (Some(offset), Some(size), Some(len)) = (
            u32_at(content, at + 8),
            u32_at(content, at + 12),
            u32_at(content, at + 16),
        ) else {
            return Err(SourceError::Truncated {
                offset: at as u64,
                what: format!("AKS2 directory: entry {i} of {n}"),
            });
        };
        let name_at = at + ENTRY;
        let raw = content
            .get(name_at..name_at.saturating_add(len as usize))
            .ok_or_else(|| SourceError::Truncated {
                offset: name_at as u64,
                what: format!("AKS2 directory: name of entry {i} ({len} bytes)"),
            })?;
        let name = String::from_utf8_lossy(raw.strip_suffix(b"\0").unwrap_or(raw)).into_owned();
        out.push(Entry { name, offset, size });
        at = name_at + len as usize;
    }
    if at != dir as usize {
        return Err(format(
            at as u64,
            format!(
                "AKS2 directory of {n} entries ends at byte {at}, not at the declared directory size {dir}: AOTriton refuses the file"
            ),
        ));
    }
    Ok(out)
}
