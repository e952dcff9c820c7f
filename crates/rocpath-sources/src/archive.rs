//! Archives read in place: `.deb` (ar), tar (plain or compressed), zip/wheel.
//!
//! Nothing is unpacked to disk. Members up to [`Limits::max_member_buffer`] bytes are read
//! into memory and scanned like files; larger members are scanned as a stream
//! ([`crate::stream`]). Member paths that would escape the archive (`..`, absolute paths)
//! are reported as errors and not scanned. The total number of bytes decompressed from one
//! archive is capped ([`Limits::max_archive_bytes`]) against decompression bombs.
//!
//! [`Limits::max_member_buffer`]: crate::Limits::max_member_buffer
//! [`Limits::max_archive_bytes`]: crate::Limits::max_archive_bytes

use crate::{
    Compression, Ctx, Found, Origin, SourceError, compression, looks_like_tar_name, scan_bytes,
    stream,
};
use std::io::{self, Read};
use std::path::{Component, Path};

/// A reader that fails once more than `left` bytes have been read through it.
pub(crate) struct Budget<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(io::Error::other(
                "archive decompresses to more bytes than the limit (max_archive_bytes)",
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

fn decoder<'a>(data: &'a [u8], c: Option<Compression>) -> io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match c {
        None => Box::new(data),
        Some(Compression::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(data)),
        Some(Compression::Xz) => Box::new(xz2::read::XzDecoder::new_multi_decoder(data)),
        Some(Compression::Zstd) => Box::new(zstd::stream::read::Decoder::with_buffer(data)?),
        Some(Compression::Bzip2) => Box::new(bzip2::read::MultiBzDecoder::new(data)),
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
    let tar_origin = match prefix.strip_suffix(':') {
        Some(link) if !link.is_empty() => origin.child(link),
        _ => origin.clone(),
    };
    let prefix = if prefix.is_empty() { "tar:" } else { prefix };
    let rd = match decoder(data, c) {
        Ok(r) => r,
        Err(e) => {
            ctx.sink.found(Found::Error {
                origin: &tar_origin,
                error: SourceError::Format {
                    offset: 0,
                    msg: format!("cannot decompress: {e}"),
                },
            });
            return;
        }
    };
    let mut ar = tar::Archive::new(Budget {
        inner: rd,
        left: ctx.limits.max_archive_bytes,
    });
    let entries = match ar.entries() {
        Ok(e) => e,
        Err(e) => {
            ctx.sink.found(Found::Error {
                origin: &tar_origin,
                error: SourceError::Format {
                    offset: 0,
                    msg: format!("not a tar archive: {e}"),
                },
            });
            return;
        }
    };
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => {
                ctx.sink.found(Found::Error {
                    origin: &tar_origin,
                    error: SourceError::Format {
                        offset: 0,
                        msg: format!("tar: {e}"),
                    },
                });
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
            ctx.sink.found(Found::Error {
                origin: &tar_origin,
                error: SourceError::Format {
                    offset,
                    msg: format!(
                        "member path {} escapes the archive; not scanned",
                        path.display()
                    ),
                },
            });
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

/// Scans one archive member given as a reader of `size` bytes: buffered (its size reserved
/// from the memory budget first) when it is small enough, else as a stream.
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
    // Tensile catalogs and MIOpen kernel databases are read whole (a SQLite file cannot be
    // streamed), bounded by the budget.
    let whole = crate::kdb::is_kdb_name(name)
        || matches!(
            crate::names::classify(name),
            Some(crate::NamedKind::TensileLibrary)
        );
    let limit = if whole {
        ctx.limits.max_decompressed
    } else {
        ctx.limits.max_member_buffer
    };
    if size > limit {
        stream::scan_stream(rd, origin, name, size, depth + 1, ctx);
        return;
    }
    let _held = match ctx.limits.memory.reserve(size) {
        Ok(r) => r,
        Err(e) => {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::budget(0, "archive member", e),
            });
            return;
        }
    };
    // A buffer of exactly the member's size, freed after it is scanned: what is held is
    // what is reserved.
    let mut buf = Vec::new();
    if buf.try_reserve_exact(size as usize).is_err() {
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Limit {
                offset: 0,
                msg: format!("cannot allocate {size} bytes for the archive member"),
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
}
