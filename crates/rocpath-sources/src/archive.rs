//! Archives read in place: `.deb` (ar), tar (plain or compressed), zip/wheel.
//!
//! Nothing is unpacked to disk, and a member is read as the file it would be once unpacked:
//! what is found in it, and at which offsets, is what scanning the unpacked file finds.
//! Members up to [`Limits::max_member_buffer`] bytes are read into memory and scanned like
//! files. A larger member is read by what it holds: a host binary or a fat binary is scanned
//! as a stream ([`crate::stream`]), a tar inside it is read as a stream of its own members,
//! and what can only be read whole (one code object, a zip, an ar archive, a Tensile library,
//! a kernel database) is read whole within the memory budget — or, when the budget cannot
//! hold it, reported by name with the option that raises it. Member paths that would escape
//! the archive (`..`, absolute paths) are reported as errors and not scanned. The total number
//! of bytes decompressed from one archive is capped ([`Limits::max_archive_bytes`]) against
//! decompression bombs.
//!
//! [`Limits::max_member_buffer`]: crate::Limits::max_member_buffer
//! [`Limits::max_archive_bytes`]: crate::Limits::max_archive_bytes

use crate::stream::{self, Content};
use crate::{
    Compression, Ctx, Found, NamedKind, Origin, SourceError, bundle, compression, is_tar,
    looks_like_tar_name, scan_bytes,
};
use std::io::{self, Read};
use std::path::{Component, Path};

/// A reader that fails once more than `left` bytes have been read through it.
pub(crate) struct Budget<R> {
    inner: R,
    left: u64,
    /// The compressed size, when `left` is the decompression-ratio bound.
    ratio: Option<u64>,
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(io::Error::other(match self.ratio {
                Some(packed) => format!(
                    "the {packed}-byte compressed archive decompresses to more than {MAX_RATIO} times its size (and more than {}); taken for a decompression bomb and not read further",
                    rocpath_budget::format_size(RATIO_FLOOR)
                ),
                None => {
                    "archive decompresses to more bytes than the limit (max_archive_bytes)".into()
                }
            }));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

fn decoder<'a>(rd: Box<dyn Read + 'a>, c: Option<Compression>) -> io::Result<Box<dyn Read + 'a>> {
    Ok(match c {
        None => rd,
        Some(Compression::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(rd)),
        Some(Compression::Xz) => Box::new(xz2::read::XzDecoder::new_multi_decoder(rd)),
        Some(Compression::Zstd) => Box::new(zstd::stream::read::Decoder::new(rd)?),
        Some(Compression::Bzip2) => Box::new(bzip2::read::MultiBzDecoder::new(rd)),
    })
}

/// True when a member path stays inside the archive.
pub fn safe_member_path(p: &Path) -> bool {
    p.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Scans an ar archive (`.deb` packages are ar archives holding `data.tar.*`).
pub(crate) fn scan_ar(data: &[u8], origin: &Origin, name: &str, depth: u32, ctx: &Ctx<'_>) {
    let is_deb = name.ends_with(".deb")
        || name.ends_with(".udeb")
        || data.windows(13).take(200).any(|w| w == b"debian-binary");
    let prefix = if is_deb { "deb" } else { "ar" };
    let mut pos = 8usize;
    while pos + 60 <= data.len() {
        let hdr = &data[pos..pos + 60];
        if &hdr[58..60] != b"`\n" {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::Format {
                    offset: pos as u64,
                    msg: "ar member header without its `\\n terminator".into(),
                },
            });
            return;
        }
        let raw_name = String::from_utf8_lossy(&hdr[..16]).trim_end().to_string();
        let size: u64 = match String::from_utf8_lossy(&hdr[48..58]).trim().parse() {
            Ok(s) => s,
            Err(_) => {
                ctx.sink.found(Found::Error {
                    origin,
                    error: SourceError::Format {
                        offset: pos as u64 + 48,
                        msg: "ar member size is not a number".into(),
                    },
                });
                return;
            }
        };
        let start = pos + 60;
        let Some(end) = usize::try_from(size)
            .ok()
            .and_then(|s| start.checked_add(s))
            .filter(|&e| e <= data.len())
        else {
            let member = raw_name.trim_end_matches('/');
            ctx.sink.found(Found::Error {
                origin: &origin.child(format!("{prefix}:{member}")),
                error: SourceError::Truncated {
                    offset: pos as u64,
                    what: format!("ar member {raw_name} of {size} bytes"),
                },
            });
            return;
        };
        let mut member = raw_name.trim_end_matches('/').to_string();
        let mut body = &data[start..end];
        // BSD long names: "#1/<len>" with the name at the start of the data.
        if let Some(len) = member
            .strip_prefix("#1/")
            .and_then(|l| l.parse::<usize>().ok())
        {
            if let Some(n) = body.get(..len) {
                member = String::from_utf8_lossy(n)
                    .trim_end_matches('\0')
                    .to_string();
                body = &body[len..];
            }
        }
        if member != "debian-binary" && !member.is_empty() && member != "/" && member != "//" {
            if looks_like_tar_name(&member) {
                scan_tar(
                    body,
                    compression(body),
                    origin,
                    &format!("{prefix}:{member}:"),
                    depth + 1,
                    ctx,
                );
            } else {
                scan_bytes(
                    body,
                    &origin.child(format!("{prefix}:{member}")),
                    &member,
                    depth + 1,
                    ctx,
                );
            }
        }
        pos = end + (end & 1);
    }
}

/// Scans a tar archive, optionally compressed. Member links are `<prefix><path>`
/// (`tar:` by default, `deb:data.tar.xz:` inside a package). Problems with the tar stream
/// itself are reported under the tar's own link (`deb:data.tar.xz`) when it is a member.
pub(crate) fn scan_tar(
    data: &[u8],
    c: Option<Compression>,
    origin: &Origin,
    prefix: &str,
    depth: u32,
    ctx: &Ctx<'_>,
) {
    scan_tar_stream(
        Box::new(data),
        data.len() as u64,
        c,
        origin,
        prefix,
        depth,
        ctx,
    );
}

/// How many times its compressed size a compressed tar may produce before it is taken for a
/// decompression bomb (ROCm packages stay well below: their xz and zstd streams shrink code
/// objects about 3–20×)…
pub const MAX_RATIO: u64 = 1000;
/// …once it has produced this much (small archives of zeros compress further).
pub const RATIO_FLOOR: u64 = 1 << 30;

/// The bytes a tar stream may produce: the archive limit, and for a compressed one of
/// `packed` bytes also [`MAX_RATIO`] times its size (at least [`RATIO_FLOOR`]).
fn tar_allowance(packed: u64, c: Option<Compression>, max_archive_bytes: u64) -> (u64, bool) {
    let by_ratio = packed.saturating_mul(MAX_RATIO).max(RATIO_FLOOR);
    match c {
        Some(_) if by_ratio < max_archive_bytes => (by_ratio, true),
        _ => (max_archive_bytes, false),
    }
}

/// [`scan_tar`] over a reader: a tar inside a member too large to buffer is read as it comes.
fn scan_tar_stream(
    rd: Box<dyn Read + '_>,
    packed: u64,
    c: Option<Compression>,
    origin: &Origin,
    prefix: &str,
    depth: u32,
    ctx: &Ctx<'_>,
) {
    let tar_origin = match prefix.strip_suffix(':') {
        Some(link) if !link.is_empty() => origin.child(link),
        _ => origin.clone(),
    };
    if depth > ctx.limits.max_depth {
        ctx.sink.found(Found::Error {
            origin: &tar_origin,
            error: SourceError::Limit {
                offset: 0,
                msg: format!("containers nested deeper than {}", ctx.limits.max_depth),
            },
        });
        return;
    }
    let prefix = if prefix.is_empty() { "tar:" } else { prefix };
    let rd = match decoder(rd, c) {
        Ok(r) => r,
        Err(e) => {
            format_error(ctx, &tar_origin, 0, format!("cannot decompress: {e}"));
            return;
        }
    };
    let (left, ratio) = tar_allowance(packed, c, ctx.limits.max_archive_bytes);
    let mut ar = tar::Archive::new(Budget {
        inner: rd,
        left,
        ratio: ratio.then_some(packed),
    });
    let entries = match ar.entries() {
        Ok(e) => e,
        Err(e) => {
            format_error(ctx, &tar_origin, 0, format!("not a tar archive: {e}"));
            return;
        }
    };
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => {
                format_error(ctx, &tar_origin, 0, format!("tar: {e}"));
                return;
            }
        };
        let et = entry.header().entry_type();
        if !(et.is_file() || et == tar::EntryType::Continuous) {
            continue;
        }
        let Ok(path) = entry.path().map(|p| p.into_owned()) else {
            continue;
        };
        let link = format!("{prefix}{}", path.display());
        let offset = entry.raw_file_position();
        if !safe_member_path(&path) {
            format_error(
                ctx,
                &tar_origin,
                offset,
                format!(
                    "member path {} escapes the archive; not scanned",
                    path.display()
                ),
            );
            continue;
        }
        let size = entry.size();
        let fname = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let member_origin = origin.child(link);
        scan_member(&mut entry, size, &member_origin, &fname, depth, ctx);
    }
}

/// A tar archive that cannot be read (or a member refused), reported for its origin.
fn format_error(ctx: &Ctx<'_>, origin: &Origin, offset: u64, msg: String) {
    ctx.sink.found(Found::Error {
        origin,
        error: SourceError::Format { offset, msg },
    });
}

/// How a member too large to buffer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// Read whole (within the memory budget and under `limit`), then scanned like a file;
    /// `what` names it in messages.
    Whole { what: &'static str, limit: Limit },
    /// A tar (compressed or not): its members are read as they come.
    Tar(Option<Compression>),
    /// Scanned as a stream.
    Stream(Content),
    /// Nothing rocpath reads (as when the unpacked file is scanned).
    Skip,
}

/// The per-item limit that bounds a member read whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    /// [`Limits::max_streamed_object`](crate::Limits::max_streamed_object).
    Object,
    /// [`Limits::max_decompressed`](crate::Limits::max_decompressed) (`--max-decompressed`).
    Decompressed,
}

/// How a member is read, from its name and its first bytes, in the order [`scan_bytes`]
/// dispatches a file (so the member is read as the unpacked file would be).
fn how(head: &[u8], name: &str) -> How {
    let whole = |what| How::Whole {
        what,
        limit: Limit::Decompressed,
    };
    match crate::names::classify(name) {
        Some(NamedKind::TensileLibrary) => return whole("Tensile library"),
        Some(NamedKind::MiopenDb(_)) => return whole("MIOpen kernel database"),
        None => {}
    }
    if head.starts_with(b"\x7fELF") {
        if rocpath_codeobj::is_amdgpu_elf(head) {
            How::Whole {
                what: "code object",
                limit: Limit::Object,
            }
        } else {
            How::Stream(Content::Host)
        }
    } else if head.starts_with(bundle::BUNDLE_MAGIC) || head.starts_with(bundle::CCOB_MAGIC) {
        How::Stream(Content::Fatbin)
    } else if head.starts_with(crate::aks2::AKS2_MAGIC) {
        whole("AOTriton image")
    } else if head.starts_with(crate::kpack::KPACK_MAGIC) {
        whole("kpack archive")
    } else if head.starts_with(b"MZ") {
        How::Stream(Content::Host)
    } else if head.starts_with(b"!<arch>\n") {
        whole("ar archive")
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        whole("zip archive")
    } else if is_tar(head) {
        How::Tar(None)
    } else if let Some(c) = compression(head).filter(|_| looks_like_tar_name(name)) {
        How::Tar(Some(c))
    } else {
        How::Skip
    }
}

/// Scans one archive member given as a reader of `size` bytes: buffered (its size reserved
/// from the memory budget first) when it is small enough, else as [`how`] says.
fn scan_member(
    rd: &mut dyn Read,
    size: u64,
    origin: &Origin,
    name: &str,
    depth: u32,
    ctx: &Ctx<'_>,
) {
    if size < 4 {
        return;
    }
    if size <= ctx.limits.max_member_buffer {
        read_whole(rd, size, origin, name, depth, ctx, "archive member");
        return;
    }
    // MIOpen databases other than kernel databases are known by their name alone.
    if let Some(kind @ NamedKind::MiopenDb(_)) = crate::names::classify(name) {
        if !crate::kdb::is_kdb_name(name) {
            ctx.sink.found(Found::Named {
                origin,
                name,
                kind,
                size,
            });
            return;
        }
    }
    // The first bytes decide; they are read again in front of the rest.
    let mut head = Vec::with_capacity(512);
    if let Err(e) = (&mut *rd).take(512).read_to_end(&mut head) {
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Io(format!("reading member: {e}")),
        });
        return;
    }
    let mut rest = io::Cursor::new(&head[..]).chain(rd);
    match how(&head, name) {
        How::Whole { what, limit } => {
            let (max, raise) = match limit {
                Limit::Object => (ctx.limits.max_streamed_object, ""),
                Limit::Decompressed => (
                    ctx.limits.max_decompressed,
                    " (raise it with --max-decompressed if this is genuine)",
                ),
            };
            if size > max {
                ctx.sink.found(Found::Error {
                    origin,
                    error: SourceError::Limit {
                        offset: 0,
                        msg: format!(
                            "{what} of {size} bytes must be read whole, and is over the limit of {max} bytes{raise}"
                        ),
                    },
                });
                return;
            }
            let what = format!("{what} (an archive member read whole)");
            read_whole(&mut rest, size, origin, name, depth, ctx, &what);
        }
        How::Tar(c) => scan_tar_stream(Box::new(rest), size, c, origin, "", depth + 1, ctx),
        How::Stream(content) => {
            stream::scan_stream(&mut rest, origin, size, content, depth + 1, ctx)
        }
        How::Skip => {}
    }
}

/// Reads a member of `size` bytes into a buffer of exactly that size, reserved from the
/// memory budget first (a refusal names the member as `what` and says to raise
/// `--max-memory`), and scans it like a file.
fn read_whole(
    rd: &mut dyn Read,
    size: u64,
    origin: &Origin,
    name: &str,
    depth: u32,
    ctx: &Ctx<'_>,
    what: &str,
) {
    let _held = match ctx.limits.memory.reserve(size) {
        Ok(r) => r,
        Err(e) => {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::budget(0, what, e),
            });
            return;
        }
    };
    // A buffer of exactly the member's size, freed after it is scanned: what is held is
    // what is reserved.
    let mut buf = Vec::new();
    if usize::try_from(size)
        .ok()
        .and_then(|s| buf.try_reserve_exact(s).ok())
        .is_none()
    {
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Limit {
                offset: 0,
                msg: format!("cannot allocate {size} bytes for the {what}"),
            },
        });
        return;
    }
    match rd.take(size).read_to_end(&mut buf) {
        Ok(_) => scan_bytes(&buf, origin, name, depth + 1, ctx),
        Err(e) => ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Io(format!("reading member: {e}")),
        }),
    }
}

/// Scans a zip archive (wheels are zip archives).
pub(crate) fn scan_zip(data: &[u8], origin: &Origin, depth: u32, ctx: &Ctx<'_>) {
    let mut z = match zip::ZipArchive::new(io::Cursor::new(data)) {
        Ok(z) => z,
        Err(e) => {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::Format {
                    offset: 0,
                    msg: format!("zip: {e}"),
                },
            });
            return;
        }
    };
    let mut left = ctx.limits.max_archive_bytes;
    // Members whose central entries name one local header are the same bytes: read once.
    let mut seen: std::collections::HashMap<u64, (String, crate::bundle::SharedBy)> =
        Default::default();
    for i in 0..z.len() {
        let mut f = match z.by_index(i) {
            Ok(f) => f,
            Err(e) => {
                ctx.sink.found(Found::Error {
                    origin,
                    error: SourceError::Format {
                        offset: 0,
                        msg: format!("zip member #{i}: {e}"),
                    },
                });
                continue;
            }
        };
        if f.is_dir() {
            continue;
        }
        let raw = f.name().to_string();
        let offset = f.header_start();
        if let Some((_, shared)) = seen.get_mut(&offset) {
            shared.entries += 1;
            if shared.ids.len() < crate::bundle::SharedBy::MAX_IDS {
                shared.ids.push(raw);
            }
            continue;
        }
        seen.insert(offset, (raw.clone(), Default::default()));
        let Some(path) = f.enclosed_name() else {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::Format {
                    offset,
                    msg: format!("member path {raw} escapes the archive; not scanned"),
                },
            });
            continue;
        };
        let size = f.size();
        if size > left {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::Limit {
                    offset,
                    msg: format!("zip member {raw} declares {size} bytes, over the archive budget"),
                },
            });
            return;
        }
        left -= size;
        let fname = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let member_origin = origin.child(format!("zip:{raw}"));
        // The declared size bounds the read: a member that inflates past it is cut there.
        scan_member(&mut f, size, &member_origin, &fname, depth, ctx);
    }
    report_shared_members(seen, origin, ctx);
}

/// Names the zip members that were not read because they point at bytes read under another.
fn report_shared_members(
    seen: std::collections::HashMap<u64, (String, crate::bundle::SharedBy)>,
    origin: &Origin,
    ctx: &Ctx<'_>,
) {
    let mut shared: Vec<_> = seen
        .into_iter()
        .filter(|(_, (_, s))| s.entries > 0)
        .collect();
    shared.sort_by_key(|(offset, _)| *offset);
    for (offset, (first, s)) in shared {
        let listed = if s.ids.len() as u64 == s.entries {
            String::new()
        } else {
            format!(", the first {}", s.ids.len())
        };
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Limit {
                offset,
                msg: format!(
                    "{} other zip members ({}{listed}) point at the bytes of member {first}; read once, under {first}",
                    s.entries,
                    s.ids.join(", ")
                ),
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressed_tar_may_produce_a_thousand_times_its_size_past_a_floor() {
        let max = 256 << 30;
        let gz = Some(Compression::Gzip);
        assert_eq!(tar_allowance(1500, gz, max), (RATIO_FLOOR, true));
        assert_eq!(tar_allowance(10 << 20, gz, max), (1000 * (10 << 20), true));
        assert_eq!(tar_allowance(1 << 30, gz, max), (max, false));
        assert_eq!(tar_allowance(1500, None, max), (max, false));
    }

    #[test]
    fn the_reader_names_a_bomb_by_its_compressed_size() {
        let mut r = Budget {
            inner: io::repeat(0),
            left: 4096,
            ratio: Some(4),
        };
        let mut sink = Vec::new();
        let e = (&mut r).take(8192).read_to_end(&mut sink).unwrap_err();
        assert!(e.to_string().contains("4-byte compressed archive"), "{e}");
        assert!(sink.len() <= 4096);
    }
}
