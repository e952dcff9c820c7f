//! Scanning a member that is too large to buffer (a 1.3 GB `librocsparse.so` inside a
//! `.deb`'s `data.tar.xz`), in one pass over a reader.
//!
//! Section headers sit at the end of an ELF file, so a stream cannot be read by sections.
//! Instead the stream is searched for the three things that carry GPU code: offload bundle
//! magics, CCOB magics and AMDGPU ELF headers. A bundle's entries are read one at a time as
//! the stream reaches them, so memory holds at most one code object (plus a read window).
//! Magic strings that do not start a valid structure are skipped silently: runtime
//! libraries contain them as constants.

use crate::bundle::{self, BUNDLE_MAGIC, CCOB_MAGIC};
use crate::{Ctx, Found, NamedKind, Origin, SourceError, host};
use memchr::memmem;
use std::io::{self, Read};

const CHUNK: usize = 4 << 20;

struct Window<'r> {
    rd: &'r mut dyn Read,
    buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    start: u64,
    eof: bool,
}

impl Window<'_> {
    fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// Makes the window hold at least `len` bytes from its start (or everything to EOF).
    fn fill(&mut self, len: usize) -> io::Result<()> {
        while self.buf.len() < len && !self.eof {
            let want = (len - self.buf.len()).max(CHUNK);
            let old = self.buf.len();
            self.buf.resize(old + want, 0);
            let n = read_full(self.rd, &mut self.buf[old..])?;
            self.buf.truncate(old + n);
            if n < want {
                self.eof = true;
            }
        }
        Ok(())
    }

    /// Moves the window start to stream offset `to`, reading and discarding as needed.
    fn advance(&mut self, to: u64) -> io::Result<()> {
        if to <= self.start {
            return Ok(());
        }
        if to <= self.end() {
            let n = (to - self.start) as usize;
            self.buf.drain(..n);
            self.start = to;
            return Ok(());
        }
        let skip = to - self.end();
        self.buf.clear();
        self.start = self.end();
        let copied = io::copy(&mut (&mut *self.rd).take(skip), &mut io::sink())?;
        self.start += copied;
        if copied < skip {
            self.eof = true;
        }
        // Release memory held by a large object once it has been passed.
        if self.buf.capacity() > 4 * CHUNK {
            self.buf.shrink_to(CHUNK);
        }
        Ok(())
    }
}

fn read_full(rd: &mut dyn Read, mut buf: &mut [u8]) -> io::Result<usize> {
    let mut total = 0;
    while !buf.is_empty() {
        match rd.read(buf) {
            Ok(0) => break,
            Ok(n) => {
                total += n;
                buf = &mut buf[n..];
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

enum Hit {
    Bundle,
    Ccob,
    Elf,
}

/// Scans `size` bytes from `rd` (an archive member named `name`) for GPU code.
pub(crate) fn scan_stream(
    rd: &mut dyn Read,
    origin: &Origin,
    name: &str,
    size: u64,
    depth: u32,
    ctx: &Ctx<'_>,
) {
    if let Some(kind @ NamedKind::MiopenDb(_)) = crate::names::classify(name) {
        ctx.sink.found(Found::Named {
            origin,
            name,
            kind,
            size,
        });
        return;
    }
    if let Err(e) = scan_stream_inner(rd, origin, depth, ctx) {
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Io(format!("reading member stream: {e}")),
        });
    }
}

fn scan_stream_inner(
    rd: &mut dyn Read,
    origin: &Origin,
    depth: u32,
    ctx: &Ctx<'_>,
) -> io::Result<()> {
    let mut w = Window {
        rd,
        buf: Vec::with_capacity(CHUNK),
        start: 0,
        eof: false,
    };
    let fb = memmem::Finder::new(BUNDLE_MAGIC);
    let fc = memmem::Finder::new(CCOB_MAGIC);
    let fe = memmem::Finder::new(b"\x7fELF");
    let max_obj = usize::try_from(ctx.limits.max_streamed_object).unwrap_or(usize::MAX);
    let mut bundle_index = 0usize;
    loop {
        w.fill(CHUNK)?;
        let hits = [
            (fb.find(&w.buf), Hit::Bundle),
            (fc.find(&w.buf), Hit::Ccob),
            (fe.find(&w.buf), Hit::Elf),
        ];
        let Some((p, hit)) = hits
            .into_iter()
            .filter_map(|(p, h)| p.map(|p| (p, h)))
            .min_by_key(|(p, _)| *p)
        else {
            if w.eof {
                return Ok(());
            }
            // Keep the tail in case a magic straddles the window edge.
            let keep = BUNDLE_MAGIC.len() as u64;
            let to = w.end().saturating_sub(keep).max(w.start);
            w.advance(to)?;
            continue;
        };
        let at = w.start + p as u64;
        w.advance(at)?;
        match hit {
            Hit::Bundle => {
                // Grow the window until the header parses (headers are small).
                let mut need = 4096usize;
                let header = loop {
                    w.fill(need)?;
                    match bundle::parse_bundle_header(&w.buf, None, ctx.limits) {
                        Ok(h) => break Some(h),
                        Err(SourceError::Truncated { .. }) if !w.eof && need < (1 << 20) => {
                            need *= 4
                        }
                        Err(_) => break None,
                    }
                };
                let Some(h) = header else {
                    w.advance(at + 4)?;
                    continue;
                };
                let borigin = origin.child(format!("bundle#{bundle_index}@0x{at:x}"));
                bundle_index += 1;
                let mut entries: Vec<_> = h
                    .entries
                    .iter()
                    .filter(|e| !e.is_host() && e.size > 0)
                    .collect();
                entries.sort_by_key(|e| e.offset);
                for e in entries {
                    let eo = origin_offset(at, e.offset);
                    if eo < w.start {
                        continue; // overlapping entries: already passed
                    }
                    w.advance(eo)?;
                    let eorigin = borigin.child(e.id.clone());
                    let Some(size) = usize::try_from(e.size).ok().filter(|&s| s <= max_obj) else {
                        ctx.sink.found(Found::Error {
                            origin: &eorigin,
                            error: SourceError::Limit {
                                offset: eo,
                                msg: format!(
                                    "bundle entry of {} bytes is over the streamed-object limit",
                                    e.size
                                ),
                            },
                        });
                        continue;
                    };
                    w.fill(size)?;
                    match w.buf.get(..size) {
                        Some(bytes) if rocpath_codeobj::is_amdgpu_elf(bytes) => {
                            let release = |b: &[u8]| ctx.release(b);
                            ctx.sink.found(Found::CodeObject {
                                sha256: &ctx.digest(bytes),
                                release: &release,
                                origin: &eorigin,
                                offset: eo,
                                bytes,
                                bundle_id: Some(&e.id),
                            })
                        }
                        Some(bytes) if bytes.starts_with(b"BC") => {}
                        Some(_) => ctx.sink.found(Found::Error {
                            origin: &eorigin,
                            error: SourceError::Format {
                                offset: eo,
                                msg: format!("bundle entry {} is not an AMDGPU ELF", e.id),
                            },
                        }),
                        None => ctx.sink.found(Found::Error {
                            origin: &eorigin,
                            error: SourceError::Truncated {
                                offset: eo,
                                what: format!("bundle entry {} ({} bytes)", e.id, e.size),
                            },
                        }),
                    }
                }
                w.advance(at + h.extent.max(24))?;
            }
            Hit::Ccob => {
                w.fill(64)?;
                let Ok(h) = bundle::parse_ccob_header(&w.buf, ctx.limits) else {
                    w.advance(at + 4)?;
                    continue;
                };
                let Some(total) = h
                    .total_size
                    .and_then(|t| usize::try_from(t).ok())
                    .filter(|&t| t <= max_obj)
                else {
                    let o = origin.child(format!("ccob@0x{at:x} v{}", h.version));
                    ctx.sink.found(Found::Error {
                        origin: &o,
                        error: SourceError::Limit {
                            offset: at,
                            msg: "CCOB v1 has no total size, so it cannot be delimited inside a stream; extract the member and scan it as a file".into(),
                        },
                    });
                    w.advance(at + 4)?;
                    continue;
                };
                w.fill(total)?;
                let o = origin.child(format!(
                    "ccob#{bundle_index}@0x{at:x} v{} {}",
                    h.version,
                    h.method_name()
                ));
                bundle_index += 1;
                match bundle::decompress_ccob(&w.buf, ctx.limits) {
                    Ok((_, payload)) => {
                        host::scan_fatbin_region(&payload, 0, &o, depth + 1, true, ctx)
                    }
                    Err(e) => ctx.sink.found(Found::Error {
                        origin: &o,
                        error: e,
                    }),
                }
                w.advance(at + total as u64)?;
            }
            Hit::Elf => {
                w.fill(64)?;
                if !rocpath_codeobj::is_amdgpu_elf(&w.buf) {
                    w.advance(at + 4)?;
                    continue;
                }
                // The section header table is usually last: read up to its end, then the
                // extent the headers declare.
                let head = w.buf.get(..64).unwrap_or(&[]);
                let rd64 = |o: usize| {
                    head.get(o..o + 8)
                        .and_then(|b| b.try_into().ok())
                        .map(u64::from_le_bytes)
                        .unwrap_or(0)
                };
                let rd16 = |o: usize| {
                    head.get(o..o + 2)
                        .map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])))
                        .unwrap_or(0)
                };
                let sh_end = rd64(0x28).saturating_add(rd16(0x3a).saturating_mul(rd16(0x3c)));
                let eorigin = origin.child(format!("elf@0x{at:x}"));
                let Some(sh_end) = usize::try_from(sh_end).ok().filter(|&s| s <= max_obj) else {
                    w.advance(at + 4)?;
                    continue;
                };
                w.fill(sh_end)?;
                match rocpath_codeobj::elf_extent(&w.buf) {
                    Ok(ext) if (ext as usize) <= max_obj => {
                        w.fill(ext as usize)?;
                        if let Some(bytes) = w.buf.get(..ext as usize) {
                            let release = |b: &[u8]| ctx.release(b);
                            ctx.sink.found(Found::CodeObject {
                                sha256: &ctx.digest(bytes),
                                release: &release,
                                origin: &eorigin,
                                offset: at,
                                bytes,
                                bundle_id: None,
                            });
                            w.advance(at + ext.max(4))?;
                            continue;
                        }
                        w.advance(at + 4)?;
                    }
                    _ => w.advance(at + 4)?,
                }
            }
        }
    }
}

fn origin_offset(bundle_at: u64, entry_offset: u64) -> u64 {
    bundle_at.saturating_add(entry_offset)
}
