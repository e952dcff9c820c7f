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
use rocpath_budget::{OverBudget, Reservation};
use std::io::{self, Read};

const CHUNK: usize = 4 << 20;

struct Window<'r> {
    rd: &'r mut dyn Read,
    buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    start: u64,
    eof: bool,
    /// The buffer's capacity, reserved from the run's memory budget.
    held: Reservation,
}

/// Why the window could not grow.
enum Grow {
    Io(io::Error),
    Budget(OverBudget),
}

impl From<io::Error> for Grow {
    fn from(e: io::Error) -> Self {
        Grow::Io(e)
    }
}

impl Window<'_> {
    fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// Makes the window hold at least `len` bytes from its start (or everything to EOF). The
    /// memory is reserved from the budget before the buffer grows.
    fn fill(&mut self, len: usize) -> Result<(), Grow> {
        while self.buf.len() < len && !self.eof {
            let want = (len - self.buf.len()).max(CHUNK);
            let old = self.buf.len();
            let total = old.saturating_add(want);
            self.held.ensure(total as u64).map_err(Grow::Budget)?;
            // Capacity exactly `total` when it grows (no doubling past what is reserved).
            self.buf.reserve_exact(want);
            self.buf.resize(total, 0);
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
            self.release_passed();
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
        self.release_passed();
        Ok(())
    }

    /// Gives back the memory of a large object once it has been passed (to the allocator and
    /// to the budget).
    fn release_passed(&mut self) {
        if self.buf.capacity() > 4 * CHUNK && self.buf.len() <= CHUNK {
            self.buf.shrink_to(CHUNK);
            self.held.shrink_to(self.buf.capacity() as u64);
        }
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
    let mut w = Window {
        rd,
        buf: Vec::new(),
        start: 0,
        eof: false,
        held: Reservation::empty(&ctx.limits.memory),
    };
    let error = match scan_window(&mut w, origin, depth, ctx) {
        Ok(()) => return,
        Err(Grow::Io(e)) => SourceError::Io(format!("reading member stream: {e}")),
        Err(Grow::Budget(e)) => SourceError::budget(w.start, "reading the member stream", e),
    };
    ctx.sink.found(Found::Error { origin, error });
}

/// The scan loop: finds the next magic, hands it to its reader, goes on after it.
fn scan_window(w: &mut Window<'_>, origin: &Origin, depth: u32, ctx: &Ctx<'_>) -> Result<(), Grow> {
    let fb = memmem::Finder::new(BUNDLE_MAGIC);
    let fc = memmem::Finder::new(CCOB_MAGIC);
    let fe = memmem::Finder::new(b"\x7fELF");
    let mut index = 0usize;
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
        let next = match hit {
            Hit::Bundle => stream_bundle(w, at, origin, &mut index, ctx)?,
            Hit::Ccob => stream_ccob(w, at, origin, &mut index, depth, ctx)?,
            Hit::Elf => stream_elf(w, at, origin, ctx)?,
        };
        w.advance(next)?;
    }
}

/// Makes the window hold `len` bytes for the item at `at`; when the budget refuses, reports
/// the item (`what`, under `origin`) and returns false so the caller skips it.
fn fill_item(
    w: &mut Window<'_>,
    len: usize,
    at: u64,
    origin: &Origin,
    what: &str,
    ctx: &Ctx<'_>,
) -> Result<bool, Grow> {
    match w.fill(len) {
        Ok(()) => Ok(true),
        Err(Grow::Budget(e)) => {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::budget(at, what, e),
            });
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// A bundle at `at`: its entries are read one at a time as the stream reaches them. Returns
/// where the scan goes on.
fn stream_bundle(
    w: &mut Window<'_>,
    at: u64,
    origin: &Origin,
    index: &mut usize,
    ctx: &Ctx<'_>,
) -> Result<u64, Grow> {
    // Grow the window until the header parses (headers are small).
    let mut need = 4096usize;
    let header = loop {
        w.fill(need)?;
        match bundle::parse_bundle_header(&w.buf, None, ctx.limits) {
            Ok(h) => break Some(h),
            Err(SourceError::Truncated { .. }) if !w.eof && need < (1 << 20) => need *= 4,
            Err(_) => break None,
        }
    };
    let Some(h) = header else {
        return Ok(at + 4);
    };
    let borigin = origin.child(format!("bundle#{index}@0x{at:x}"));
    *index += 1;
    // Entries that start at the same offset are one code object, read once.
    let mut entries = bundle::group_entries(&h.entries);
    entries.sort_by_key(|(e, _)| e.offset);
    for (e, shared) in entries {
        let eo = at.saturating_add(e.offset);
        if eo < w.start {
            continue; // overlapping entries: already passed
        }
        w.advance(eo)?;
        stream_entry(w, eo, e, shared.as_ref(), &borigin, ctx)?;
    }
    Ok(at + h.extent.max(24))
}

/// One bundle entry at stream offset `eo` (the window starts there).
fn stream_entry(
    w: &mut Window<'_>,
    eo: u64,
    e: &bundle::BundleEntry,
    shared: Option<&bundle::SharedBy>,
    borigin: &Origin,
    ctx: &Ctx<'_>,
) -> Result<(), Grow> {
    let eorigin = borigin.child(e.id.clone());
    let max_obj = usize::try_from(ctx.limits.max_streamed_object).unwrap_or(usize::MAX);
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
        return Ok(());
    };
    if !fill_item(w, size, eo, &eorigin, "bundle entry", ctx)? {
        return Ok(());
    }
    let error = match w.buf.get(..size) {
        Some(bytes) if rocpath_codeobj::is_amdgpu_elf(bytes) => {
            let release = |b: &[u8]| ctx.release(b);
            ctx.sink.found(Found::CodeObject {
                sha256: &ctx.digest(bytes),
                release: &release,
                origin: &eorigin,
                offset: eo,
                bytes,
                bundle_id: Some(&e.id),
                shared_by: shared,
            });
            return Ok(());
        }
        Some(bytes) if bytes.starts_with(b"BC") => return Ok(()),
        Some(_) => SourceError::Format {
            offset: eo,
            msg: format!("bundle entry {} is not an AMDGPU ELF", e.id),
        },
        None => SourceError::Truncated {
            offset: eo,
            what: format!("bundle entry {} ({} bytes)", e.id, e.size),
        },
    };
    ctx.sink.found(Found::Error {
        origin: &eorigin,
        error,
    });
    Ok(())
}

/// A CCOB at `at`: read whole (v2/v3 declare their size), decompressed within the budget,
/// its payload scanned like a fat binary region. Returns where the scan goes on.
fn stream_ccob(
    w: &mut Window<'_>,
    at: u64,
    origin: &Origin,
    index: &mut usize,
    depth: u32,
    ctx: &Ctx<'_>,
) -> Result<u64, Grow> {
    w.fill(64)?;
    let Ok(h) = bundle::parse_ccob_header(&w.buf, ctx.limits) else {
        return Ok(at + 4);
    };
    let max_obj = usize::try_from(ctx.limits.max_streamed_object).unwrap_or(usize::MAX);
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
        return Ok(at + 4);
    };
    let o = origin.child(format!(
        "ccob#{index}@0x{at:x} v{} {}",
        h.version,
        h.method_name()
    ));
    *index += 1;
    if !fill_item(w, total, at, &o, "compressed bundle", ctx)? {
        return Ok(at + total as u64);
    }
    match bundle::decompress_ccob(&w.buf, ctx.limits) {
        Ok((_, payload)) => host::scan_fatbin_region(&payload, 0, &o, depth + 1, true, ctx),
        Err(e) => ctx.sink.found(Found::Error {
            origin: &o,
            error: e,
        }),
    }
    Ok(at + total as u64)
}

/// An AMDGPU ELF header at `at`: the object is cut at the extent its headers declare. Returns
/// where the scan goes on.
fn stream_elf(w: &mut Window<'_>, at: u64, origin: &Origin, ctx: &Ctx<'_>) -> Result<u64, Grow> {
    w.fill(64)?;
    if !rocpath_codeobj::is_amdgpu_elf(&w.buf) {
        return Ok(at + 4);
    }
    // The section header table is usually last: read up to its end, then the extent the
    // headers declare.
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
    let max_obj = usize::try_from(ctx.limits.max_streamed_object).unwrap_or(usize::MAX);
    let Some(sh_end) = usize::try_from(sh_end).ok().filter(|&s| s <= max_obj) else {
        return Ok(at + 4);
    };
    if !fill_item(w, sh_end, at, &eorigin, "code object", ctx)? {
        return Ok(at + 4);
    }
    let ext = match rocpath_codeobj::elf_extent(&w.buf) {
        Ok(ext) if ext <= max_obj as u64 => ext as usize,
        _ => return Ok(at + 4),
    };
    if !fill_item(w, ext, at, &eorigin, "code object", ctx)? {
        return Ok(at + ext.max(4) as u64);
    }
    let Some(bytes) = w.buf.get(..ext) else {
        return Ok(at + 4);
    };
    let release = |b: &[u8]| ctx.release(b);
    ctx.sink.found(Found::CodeObject {
        sha256: &ctx.digest(bytes),
        release: &release,
        origin: &eorigin,
        offset: at,
        bytes,
        bundle_id: None,
        shared_by: None,
    });
    Ok(at + ext.max(4) as u64)
}
