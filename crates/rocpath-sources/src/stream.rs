//! Scanning a member that is too large to buffer (a 1.3 GB `librocsparse.so` inside a
//! `.deb`'s `data.tar.xz`), in one pass over a reader.
//!
//! Section headers sit at the end of an ELF file, so a stream cannot be read by sections.
//! Instead the stream is searched for the things that carry GPU code: offload bundle magics,
//! CCOB magics and (in host binaries) AMDGPU ELF headers. A bundle's entries are read one at
//! a time as the stream reaches them, so memory holds at most one code object plus the read
//! window ([`Limits::stream_chunk`] bytes at a time). Every offset is the member's own, as
//! if the member were a file: an object that crosses the window's edge is read whole, and
//! what the window held is counted when the stream skips past it.
//!
//! A member is read like the file it would be once unpacked ([`Content`]): in a host binary,
//! a magic that does not start a valid structure is a constant and is skipped silently; in a
//! fat binary (a `.hipfb`, hipBLASLt's `.co`) bundles and CCOBs lie back to back, as in a
//! `.hip_fatbin` section, and a damaged one is an error. An item the run's memory budget
//! cannot hold is reported by name ([`SourceError::Budget`], which says to raise
//! `--max-memory`) and the stream goes on after it.
//!
//! [`Limits::stream_chunk`]: crate::Limits::stream_chunk

use crate::bundle::{self, BUNDLE_MAGIC, CCOB_MAGIC};
use crate::host;
use crate::{Ctx, Found, Origin, SourceError};
use memchr::memmem;
use rocpath_budget::{OverBudget, Reservation};
use std::io::{self, Read};

/// What a streamed member is, which decides what the stream looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Content {
    /// A host binary (ELF or PE): bundles, CCOBs and raw AMDGPU ELFs wherever they are; a
    /// magic that does not start a valid structure is ignored.
    Host,
    /// A fat binary: bundles and CCOBs back to back, as [`host::scan_fatbin_region`] reads a
    /// file; a damaged one is an error.
    Fatbin,
}

/// The least a window reads at a time, whatever the limits say (it must hold a bundle magic
/// and an ELF header).
const MIN_CHUNK: usize = 4096;

struct Window<'r> {
    rd: &'r mut dyn Read,
    buf: Vec<u8>,
    /// Bytes at the front of `buf` already passed.
    head: usize,
    /// Stream offset of `buf[head]`.
    start: u64,
    eof: bool,
    /// The buffer's capacity, reserved from the run's memory budget.
    held: Reservation,
    /// Bytes read at a time.
    chunk: usize,
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
    /// The bytes from the window's start.
    fn data(&self) -> &[u8] {
        self.buf.get(self.head..).unwrap_or_default()
    }

    fn len(&self) -> usize {
        self.buf.len().saturating_sub(self.head)
    }

    /// Stream offset just past the bytes held.
    fn end(&self) -> u64 {
        self.start + self.len() as u64
    }

    /// Makes the window hold at least `len` bytes from its start (or everything to the end of
    /// the stream), reading at least a chunk at a time. The memory is reserved from the budget
    /// before the buffer grows.
    fn fill(&mut self, len: usize) -> Result<(), Grow> {
        if self.len() >= len || self.eof {
            return Ok(());
        }
        // The bytes already passed go before the buffer grows.
        if self.head > 0 {
            self.buf.drain(..self.head);
            self.head = 0;
        }
        let total = len.max(self.chunk);
        if total > self.buf.capacity() {
            self.held.ensure(total as u64).map_err(Grow::Budget)?;
            // Exactly `total` (no doubling past what is reserved).
            self.buf.reserve_exact(total - self.buf.len());
        }
        let want = (total - self.buf.len()) as u64;
        let n = (&mut *self.rd).take(want).read_to_end(&mut self.buf)?;
        if (n as u64) < want {
            self.eof = true;
        }
        Ok(())
    }

    /// Moves the window start to stream offset `to`, reading and dropping what lies before.
    fn advance(&mut self, to: u64) -> io::Result<()> {
        if to <= self.start {
            return Ok(());
        }
        let end = self.end();
        if to <= end {
            // `to - start` is at most the window's length, a usize.
            self.head += usize::try_from(to - self.start).unwrap_or(usize::MAX);
            self.start = to;
        } else {
            // Past the window: all it holds is passed, and the rest up to `to` is read and
            // dropped. The start moves by both.
            self.buf.clear();
            self.head = 0;
            self.start = end;
            let skip = to - end;
            let copied = io::copy(&mut (&mut *self.rd).take(skip), &mut io::sink())?;
            self.start += copied;
            if copied < skip {
                self.eof = true;
            }
        }
        self.release_passed();
        Ok(())
    }

    /// Gives back the memory of a large object once it has been passed (to the allocator and
    /// to the budget).
    fn release_passed(&mut self) {
        if self.buf.capacity() > 4 * self.chunk && self.len() <= self.chunk {
            self.buf.drain(..self.head);
            self.head = 0;
            self.buf.shrink_to(self.chunk);
            self.held.shrink_to(self.buf.capacity() as u64);
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Hit {
    Bundle,
    Ccob,
    Elf,
}

/// The member being streamed.
struct Member<'a> {
    origin: &'a Origin,
    /// Its size, as the archive declares it: nothing in it lies past this.
    size: u64,
    content: Content,
    depth: u32,
}

impl Member<'_> {
    /// Bytes of the member from `at` to its end.
    fn avail(&self, at: u64) -> u64 {
        self.size.saturating_sub(at)
    }

    fn strict(&self) -> bool {
        self.content == Content::Fatbin
    }
}

/// Scans `size` bytes from `rd` (an archive member read as `content`) for GPU code.
pub(crate) fn scan_stream(
    rd: &mut dyn Read,
    origin: &Origin,
    size: u64,
    content: Content,
    depth: u32,
    ctx: &Ctx<'_>,
) {
    if depth > ctx.limits.max_depth {
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Limit {
                offset: 0,
                msg: format!("containers nested deeper than {}", ctx.limits.max_depth),
            },
        });
        return;
    }
    let chunk = usize::try_from(ctx.limits.stream_chunk)
        .unwrap_or(usize::MAX)
        .max(MIN_CHUNK);
    let mut w = Window {
        rd,
        buf: Vec::new(),
        head: 0,
        start: 0,
        eof: false,
        held: Reservation::empty(&ctx.limits.memory),
        chunk,
    };
    let m = Member {
        origin,
        size,
        content,
        depth,
    };
    let error = match scan_window(&mut w, &m, ctx) {
        Ok(()) => return,
        Err(Grow::Io(e)) => SourceError::Io(format!("reading member stream: {e}")),
        Err(Grow::Budget(e)) => SourceError::budget(w.start, "reading the member stream", e),
    };
    ctx.sink.found(Found::Error { origin, error });
}

/// The first magic in `data` and what it is, searched in steps so that a hit near the start
/// does not cost a search of the whole window for every magic.
fn first_hit(data: &[u8], finders: &[(memmem::Finder<'_>, Hit)]) -> Option<(usize, Hit)> {
    const STEP: usize = 64 << 10;
    let mut from = 0usize;
    while from < data.len() {
        // Overlap by a magic's length less one, so a magic across the step edge is seen.
        let to = from
            .saturating_add(STEP + BUNDLE_MAGIC.len() - 1)
            .min(data.len());
        let part = data.get(from..to).unwrap_or_default();
        let best = finders
            .iter()
            .filter_map(|(f, h)| f.find(part).map(|p| (p, *h)))
            .min_by_key(|(p, _)| *p);
        if let Some((p, h)) = best {
            return Some((from + p, h));
        }
        from += STEP;
    }
    None
}

/// The scan loop: finds the next magic, hands it to its reader, goes on after it.
fn scan_window(w: &mut Window<'_>, m: &Member<'_>, ctx: &Ctx<'_>) -> Result<(), Grow> {
    let mut finders = vec![
        (memmem::Finder::new(BUNDLE_MAGIC), Hit::Bundle),
        (memmem::Finder::new(CCOB_MAGIC), Hit::Ccob),
    ];
    if m.content == Content::Host {
        finders.push((memmem::Finder::new(b"\x7fELF"), Hit::Elf));
    }
    let mut index = 0usize;
    loop {
        // Read on once half the window is passed: refilling after every small step would
        // move the whole window each time.
        if w.len() < w.chunk / 2 {
            w.fill(w.chunk)?;
        }
        let Some((p, hit)) = first_hit(w.data(), &finders) else {
            if w.eof {
                return Ok(());
            }
            // Keep the tail in case a magic straddles the window edge.
            let keep = BUNDLE_MAGIC.len() as u64 - 1;
            let to = w.end().saturating_sub(keep).max(w.start);
            w.advance(to)?;
            continue;
        };
        let at = w.start + p as u64;
        w.advance(at)?;
        let next = match hit {
            Hit::Bundle => stream_bundle(w, at, m, &mut index, ctx)?,
            Hit::Ccob => stream_ccob(w, at, m, &mut index, ctx)?,
            Hit::Elf => stream_elf(w, at, m, ctx)?,
        };
        w.advance(next.max(at + 1))?;
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

/// The largest single item a stream holds at once, as a usize.
fn max_object(ctx: &Ctx<'_>) -> usize {
    usize::try_from(ctx.limits.max_streamed_object).unwrap_or(usize::MAX)
}

/// A bundle at `at`: its entries are read one at a time as the stream reaches them. Returns
/// where the scan goes on.
fn stream_bundle(
    w: &mut Window<'_>,
    at: u64,
    m: &Member<'_>,
    index: &mut usize,
    ctx: &Ctx<'_>,
) -> Result<u64, Grow> {
    // Grow the window until the header parses; entries must end inside the member, as they
    // must end inside a file.
    let mut need = 4096usize;
    let h = loop {
        if !fill_item(w, need, at, m.origin, "offload bundle header", ctx)? {
            return Ok(at + 24);
        }
        match bundle::parse_bundle_header(w.data(), Some(m.avail(at)), ctx.limits) {
            Ok(h) => break h,
            // Cut by the window, not by the member: read more.
            Err(SourceError::Truncated { .. }) if w.len() >= need => {
                need = w.len().saturating_mul(2);
            }
            Err(e) => {
                if m.strict() {
                    ctx.sink.found(Found::Error {
                        origin: m.origin,
                        error: e.shifted(at),
                    });
                }
                return Ok(at + 24);
            }
        }
    };
    let borigin = m.origin.child(format!("bundle#{index}@0x{at:x}"));
    *index += 1;
    // Entries that start at the same offset are one code object, read once; the stream
    // reaches them in the order of their offsets.
    let mut entries = bundle::group_entries(&h.entries);
    entries.sort_by_key(|(e, _)| e.offset);
    for (e, shared) in entries {
        let eo = at.saturating_add(e.offset);
        w.advance(eo)?;
        stream_entry(w, eo, e, shared.as_ref(), &borigin, ctx)?;
    }
    Ok(at.saturating_add(h.extent.max(24)))
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
    let Some(size) = usize::try_from(e.size)
        .ok()
        .filter(|&s| s <= max_object(ctx))
    else {
        ctx.sink.found(Found::Error {
            origin: &eorigin,
            error: SourceError::Limit {
                offset: eo,
                msg: format!(
                    "bundle entry of {} bytes is over the limit of {} bytes for one streamed object",
                    e.size, ctx.limits.max_streamed_object
                ),
            },
        });
        return Ok(());
    };
    if !fill_item(w, size, eo, &eorigin, "bundle entry", ctx)? {
        return Ok(());
    }
    let error = match w.data().get(..size) {
        Some(bytes) if bundle::is_bitcode(bytes) => return Ok(()),
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
        Some(bytes) => SourceError::Format {
            offset: eo,
            msg: bundle::not_amdgpu_elf(&e.id, bytes),
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

/// A CCOB at `at`: read whole (v2/v3 declare their size; a v1 payload runs to the member's
/// end, as it runs to a region's end in a file, and is read until its frame is complete),
/// decompressed within the budget, its payload scanned like a fat binary region. Returns
/// where the scan goes on.
fn stream_ccob(
    w: &mut Window<'_>,
    at: u64,
    m: &Member<'_>,
    index: &mut usize,
    ctx: &Ctx<'_>,
) -> Result<u64, Grow> {
    w.fill(64)?;
    let h = match bundle::parse_ccob_header(w.data(), ctx.limits) {
        Ok(h) => h,
        Err(e) => {
            if m.strict() {
                ctx.sink.found(Found::Error {
                    origin: m.origin,
                    error: e.shifted(at),
                });
            }
            return Ok(at + 4);
        }
    };
    let avail = m.avail(at);
    // Where its bytes end and where the scan goes on, as `scan_fatbin_region` has them.
    let (end, next) = match h.total_size {
        Some(t) if t > avail => {
            if m.strict() {
                ctx.sink.found(Found::Error {
                    origin: m.origin,
                    error: SourceError::Truncated {
                        offset: at,
                        what: format!("CCOB of {t} bytes ({avail} available)"),
                    },
                });
            }
            return Ok(at + 4);
        }
        Some(t) => (t, at + t.max(4)),
        None => (avail, at + h.header_len),
    };
    let o = m.origin.child(format!(
        "ccob#{index}@0x{at:x} v{} {}",
        h.version,
        h.method_name()
    ));
    *index += 1;
    let Some(end) = usize::try_from(end).ok().filter(|&e| e <= max_object(ctx)) else {
        ctx.sink.found(Found::Error {
            origin: &o,
            error: SourceError::Limit {
                offset: at,
                msg: format!(
                    "compressed bundle of {end} bytes is over the limit of {} bytes for one streamed object",
                    ctx.limits.max_streamed_object
                ),
            },
        });
        return Ok(next);
    };
    // A v1 frame's end is known only once it is read: try a window's worth, then twice as
    // much, up to the member's end.
    let mut need = if h.total_size.is_some() {
        end
    } else {
        end.min(w.chunk)
    };
    loop {
        if !fill_item(w, need, at, &o, "compressed bundle", ctx)? {
            return Ok(next);
        }
        let bytes = w.data().get(..need).unwrap_or(w.data());
        match bundle::decompress_ccob(bytes, ctx.limits) {
            Ok((_, payload)) => {
                host::scan_fatbin_region(&payload, 0, &o, m.depth + 1, true, ctx);
                return Ok(next);
            }
            Err(e @ SourceError::Budget { .. }) => {
                ctx.sink.found(Found::Error {
                    origin: &o,
                    error: e.shifted(at),
                });
                return Ok(next);
            }
            Err(_) if need < end && bytes.len() == need => need = need.saturating_mul(2).min(end),
            Err(e) => {
                ctx.sink.found(Found::Error {
                    origin: &o,
                    error: e.shifted(at),
                });
                return Ok(next);
            }
        }
    }
}

/// An AMDGPU ELF header at `at` in a host binary: the object is cut at the extent its
/// headers declare, as in a data section of a file. Returns where the scan goes on.
fn stream_elf(w: &mut Window<'_>, at: u64, m: &Member<'_>, ctx: &Ctx<'_>) -> Result<u64, Grow> {
    w.fill(64)?;
    if !rocpath_codeobj::is_amdgpu_elf(w.data()) {
        return Ok(at + 4);
    }
    let o = m.origin.child(format!("elf@0x{at:x}"));
    let limit = m.avail(at).min(max_object(ctx) as u64);
    // The extent needs the header tables, which may lie past what is held: read up to them,
    // then up to the extent they give (at most three rounds).
    let mut held = 0usize;
    let ext = loop {
        let Ok(ext) = rocpath_codeobj::elf_extent(w.data()) else {
            return Ok(at + 4);
        };
        // An extent past the member: not an object (as past its section, in a file).
        let Some(ext) = usize::try_from(ext).ok().filter(|&e| e as u64 <= limit) else {
            return Ok(at + 4);
        };
        if ext <= w.len() {
            break ext;
        }
        if ext <= held {
            return Ok(at + 4);
        }
        held = ext;
        if !fill_item(w, ext, at, &o, "code object", ctx)? {
            // Its bytes run at least that far.
            return Ok(at + ext as u64);
        }
    };
    let Some(bytes) = w.data().get(..ext) else {
        return Ok(at + 4);
    };
    let release = |b: &[u8]| ctx.release(b);
    ctx.sink.found(Found::CodeObject {
        sha256: &ctx.digest(bytes),
        release: &release,
        origin: &o,
        offset: at,
        bytes,
        bundle_id: None,
        shared_by: None,
    });
    Ok(at + ext.max(4) as u64)
}
