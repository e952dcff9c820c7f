//! The `llvm-objdump -d` walk over one executable section.

use crate::decoder::{Decoder, Mnemonic, packed};
use crate::layout::Family;
use std::cell::Cell;

/// What kind of symbol starts a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SymbolKind {
    /// An ordinary symbol (function, label, kernel): decoding starts at its address.
    #[default]
    Code,
    /// A code object v1/v2 kernel (`STT_AMDGPU_HSA_KERNEL`, ELF symbol type 10): llvm-objdump
    /// cannot decode its 256-byte `amd_kernel_code_t` header and prints it as 256 `.byte` lines,
    /// then decodes the rest.
    LegacyKernel,
}

/// A symbol inside the section: where a decoding range starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolStart {
    /// Virtual address (same space as the section address).
    pub address: u64,
    /// Kind.
    pub kind: SymbolKind,
}

/// What one walked item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A decoded instruction of this family.
    Inst(Family),
    /// A word that did not decode (`.long`).
    Long,
    /// A byte of a legacy kernel header (`.byte`).
    Byte,
}

/// One line of `llvm-objdump -d` output that counts as an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    /// Offset from the section start.
    pub offset: u64,
    /// Bytes covered (4 for `.long`, 1 for `.byte`).
    pub len: u8,
    /// Mnemonic (`Mnemonic::LONG` / `Mnemonic::BYTE` for data lines).
    pub mnemonic: Mnemonic,
    /// Kind.
    pub kind: ItemKind,
    /// Index into the `symbols` slice of the symbol whose range this item is in (the first of
    /// several symbols at one address), or `None` for bytes before the first symbol. Use it to
    /// total per kernel.
    pub symbol: Option<u32>,
}

/// Number of leading zero bytes llvm-objdump skips at `bytes` (`countSkippableZeroBytes`):
/// runs shorter than 8 are not skipped, longer runs are rounded down to a multiple of 4.
fn skippable_zeros(bytes: &[u8]) -> usize {
    let n = bytes.iter().take_while(|&&b| b == 0).count();
    if n < 8 { 0 } else { n & !3 }
}

/// Iterator over the instructions of one executable section, with llvm-objdump's rules.
///
/// Created by [`Decoder::walk`]. It yields no allocation per item.
#[derive(Debug, Clone)]
pub struct Walk<'a, 's> {
    decoder: Decoder,
    section: &'a [u8],
    address: u64,
    symbols: &'s [SymbolStart],
    /// Index of the next symbol to start.
    next_sym: usize,
    /// Current offset and the end of the current range (section offsets).
    pos: usize,
    end: usize,
    /// Remaining `.byte` lines of a legacy kernel header.
    header_left: usize,
    started: bool,
    /// Symbol of the current range.
    cur_sym: Option<u32>,
}

impl<'a, 's> Walk<'a, 's> {
    pub(crate) fn new(
        decoder: Decoder,
        section: &'a [u8],
        address: u64,
        symbols: &'s [SymbolStart],
    ) -> Self {
        Walk {
            decoder,
            section,
            address,
            symbols,
            next_sym: 0,
            pos: 0,
            end: 0,
            header_left: 0,
            started: false,
            cur_sym: None,
        }
    }

    /// Section offset of symbol `i`, if the symbol lies inside the section.
    fn sym_offset(&self, i: usize) -> Option<usize> {
        let s = self.symbols.get(i)?;
        let off = s.address.checked_sub(self.address)?;
        usize::try_from(off)
            .ok()
            .filter(|&o| o < self.section.len())
    }

    /// Start the next range. Returns false when the section is done.
    pub(crate) fn next_range(&mut self) -> bool {
        let len = self.section.len();
        if !self.started {
            self.started = true;
            while self
                .symbols
                .get(self.next_sym)
                .is_some_and(|s| s.address < self.address)
            {
                self.next_sym += 1;
            }
            let first = self.sym_offset(self.next_sym).unwrap_or(len);
            if first > 0 {
                self.pos = 0;
                self.end = first;
                self.header_left = 0;
                self.cur_sym = None;
                return true;
            }
        }
        let Some(start) = self.sym_offset(self.next_sym) else {
            return false;
        };
        let mut kind = SymbolKind::Code;
        self.cur_sym = u32::try_from(self.next_sym).ok();
        while self.sym_offset(self.next_sym) == Some(start) {
            if self
                .symbols
                .get(self.next_sym)
                .is_some_and(|s| s.kind == SymbolKind::LegacyKernel)
            {
                kind = SymbolKind::LegacyKernel;
            }
            self.next_sym += 1;
        }
        self.pos = start;
        self.end = self.sym_offset(self.next_sym).unwrap_or(len);
        self.header_left = if kind == SymbolKind::LegacyKernel {
            256.min(self.end.saturating_sub(start))
        } else {
            0
        };
        true
    }
}

impl Iterator for Walk<'_, '_> {
    type Item = Item;

    #[inline]
    fn next(&mut self) -> Option<Item> {
        loop {
            // `pos < end <= section.len()` once a range is started; the walk starts with an
            // empty range (0..0) so the first call starts one.
            if self.pos >= self.end {
                if !self.next_range() {
                    return None;
                }
                continue;
            }
            let at = self.pos;
            if self.header_left > 0 {
                return Some(self.header_byte(at));
            }
            let rest = self.section.get(at..).unwrap_or(&[]);
            // A zero run starts with a zero byte: only then count it.
            if rest.first() == Some(&0) {
                let z = skippable_zeros(self.section.get(at..self.end).unwrap_or(&[]));
                if z > 0 {
                    self.pos += z;
                    continue;
                }
            }
            let r = self.decoder.decode_packed(rest);
            let (len, mnemonic, kind) = match packed::family(r) {
                Some(f) => (
                    packed::len(r),
                    Mnemonic(packed::mnemonic(r)),
                    ItemKind::Inst(f),
                ),
                None => (rest.len().min(4) as u8, Mnemonic::LONG, ItemKind::Long),
            };
            self.pos += usize::from(len).max(1);
            return Some(Item {
                offset: at as u64,
                len,
                mnemonic,
                kind,
                symbol: self.cur_sym,
            });
        }
    }
}

impl Walk<'_, '_> {
    /// One `.byte` line of a legacy kernel header at `at`.
    #[cold]
    fn header_byte(&mut self, at: usize) -> Item {
        self.header_left -= 1;
        self.pos += 1;
        Item {
            offset: at as u64,
            len: 1,
            mnemonic: Mnemonic::BYTE,
            kind: ItemKind::Byte,
            symbol: self.cur_sym,
        }
    }
}

impl Walk<'_, '_> {
    /// Count the rest of the walk into `counts` (by mnemonic id) and return the bytes covered:
    /// the same items as iterating, in a loop that keeps its state in locals. Ranges are
    /// independent (each starts at its symbol), so they are counted two at a time,
    /// interleaved: the next instruction of a range waits for this one's length (a chain of
    /// dependent loads), and the other range's chain runs beside it.
    pub(crate) fn count_into(self, counts: &mut [u64]) -> u64 {
        let section = self.section;
        let decoder = self.decoder;
        decoder.count_ranges(section, self.ranges(), counts)
    }

    /// The rest of the walk as ranges (one per distinct symbol address, plus the bytes before
    /// the first symbol), without decoding them: count them with [`Decoder::count_range`] or
    /// [`Decoder::census_ranges`].
    pub fn ranges(mut self) -> impl Iterator<Item = Range> {
        std::iter::from_fn(move || {
            if self.pos >= self.end && !self.next_range() {
                return None;
            }
            let r = Range {
                start: self.pos,
                header: self.header_left,
                end: self.end,
                symbol: self.cur_sym,
            };
            // The walk moves on to the next symbol.
            self.pos = self.end;
            self.header_left = 0;
            Some(r)
        })
    }
}

/// One range of a walk: from a symbol (or the section start) to the next symbol. Its items
/// are those the iterator yields between the two; the last may extend past `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// Section offset of the symbol (where a legacy kernel's header starts).
    pub start: usize,
    /// `.byte` lines of a legacy kernel header at `start`; decoding starts after them.
    pub header: usize,
    /// Section offset of the next symbol (or the section end).
    pub end: usize,
    /// As [`Item::symbol`].
    pub symbol: Option<u32>,
}

impl Range {
    /// Whether the range yields any item (it may be one skipped run of zeros).
    pub fn has_items(&self, section: &[u8]) -> bool {
        if self.header > 0 {
            return true;
        }
        let b = section
            .get(self.start..self.end.min(section.len()))
            .unwrap_or(&[]);
        !b.is_empty() && skippable_zeros(b) < b.len()
    }
}

/// Where counts go: an array by mnemonic id, or a [`Tally`].
pub(crate) trait Sink {
    fn count(&mut self, m: u16, n: u64);
}

impl Sink for [u64] {
    #[inline(always)]
    fn count(&mut self, m: u16, n: u64) {
        if let Some(c) = self.get_mut(usize::from(m)) {
            *c += n;
        }
    }
}

/// One array shared by both lanes of [`Decoder::count_pair`].
impl Sink for &[Cell<u64>] {
    #[inline(always)]
    fn count(&mut self, m: u16, n: u64) {
        if let Some(c) = self.get(usize::from(m)) {
            c.set(c.get() + n);
        }
    }
}

/// Counts by mnemonic that remember which mnemonics they saw, so reading and resetting them
/// costs the mnemonics seen, not all of them: per-kernel totals of a census.
#[derive(Debug, Clone)]
pub struct Tally {
    pub(crate) counts: Vec<u64>,
    pub(crate) touched: Vec<u16>,
    pub(crate) bytes: u64,
}

impl Default for Tally {
    fn default() -> Self {
        Tally::new()
    }
}

impl Sink for Tally {
    #[inline(always)]
    fn count(&mut self, m: u16, n: u64) {
        if let Some(c) = self.counts.get_mut(usize::from(m)) {
            if *c == 0 {
                self.touched.push(m);
            }
            *c += n;
        }
    }
}

impl Tally {
    /// Moves `other`'s counts into this tally.
    pub fn absorb(&mut self, other: &mut Tally) {
        for i in 0..other.touched.len() {
            let id = other.touched[i];
            if let Some(c) = other.counts.get_mut(usize::from(id)) {
                let n = std::mem::take(c);
                self.count(id, n);
            }
        }
        other.touched.clear();
        self.bytes += std::mem::take(&mut other.bytes);
    }

    /// An empty tally.
    pub fn new() -> Tally {
        Tally {
            counts: vec![0; Mnemonic::COUNT],
            touched: Vec::new(),
            bytes: 0,
        }
    }

    /// Count one walked item.
    #[inline]
    pub fn add_item(&mut self, item: &Item) {
        self.count(item.mnemonic.id(), 1);
        self.bytes += u64::from(item.len);
    }

    /// Whether nothing was counted since the last drain.
    pub fn is_empty(&self) -> bool {
        self.touched.is_empty()
    }
}

/// Bytes the items of a range covered: from its start to where its last item ends, less the
/// zero runs skipped.
fn covered(start: usize, end: usize, skipped: usize) -> u64 {
    end.saturating_sub(start).saturating_sub(skipped) as u64
}

impl Decoder {
    /// Count the items of one range of a walk (see [`Walk::ranges`]) into `tally`.
    pub fn count_range(&self, section: &[u8], r: &Range, tally: &mut Tally) {
        if r.header > 0 {
            tally.count(Mnemonic::BYTE.id(), r.header as u64);
        }
        let (_, b) = self.count_span(section, r.start + r.header, r.end, tally);
        tally.bytes += b + r.header as u64;
    }

    /// [`Decoder::count_range`] of two ranges at once, interleaved, each into its own tally.
    pub fn count_range_pair(
        &self,
        section: &[u8],
        (a, ta): (&Range, &mut Tally),
        (b, tb): (&Range, &mut Tally),
    ) {
        for (r, t) in [(a, &mut *ta), (b, &mut *tb)] {
            if r.header > 0 {
                t.count(Mnemonic::BYTE.id(), r.header as u64);
                t.bytes += r.header as u64;
            }
        }
        let (ba, bb) = self.count_pair(
            section,
            (a.start + a.header, a.end),
            (b.start + b.header, b.end),
            ta,
            tb,
        );
        ta.bytes += ba;
        tb.bytes += bb;
    }

    /// [`Decoder::census_ranges`] into counts by mnemonic id; returns the bytes covered.
    pub(crate) fn count_ranges(
        &self,
        section: &[u8],
        ranges: impl Iterator<Item = Range>,
        counts: &mut [u64],
    ) -> u64 {
        let mut bytes = 0u64;
        let mut pending: Option<(usize, usize)> = None;
        let cells = Cell::from_mut(counts).as_slice_of_cells();
        let mut spans: Vec<(usize, usize)> = ranges
            .map(|r| {
                (&mut &*cells).count(Mnemonic::BYTE.id(), r.header as u64);
                bytes += r.header as u64;
                (r.start + r.header, r.end)
            })
            .collect();
        // Counts add up in any order: partners of about the same length leave the shortest
        // single-lane tails.
        spans.sort_unstable_by_key(|&(p, e)| std::cmp::Reverse(e.saturating_sub(p)));
        for span in spans {
            match pending.take() {
                None => pending = Some(span),
                Some(other) => {
                    let (a, b) = self.count_pair(section, other, span, &mut &*cells, &mut &*cells);
                    bytes += a + b;
                }
            }
        }
        if let Some((pos, end)) = pending {
            bytes += self.count_span(section, pos, end, &mut &*cells).1;
        }
        bytes
    }

    /// Count the items from `pos` to `end` of `section` (a range of the walk, past any legacy
    /// header) into `counts`; returns where the range's last item ends and the bytes covered.
    #[inline]
    fn count_span<S: Sink + ?Sized>(
        &self,
        section: &[u8],
        mut pos: usize,
        end: usize,
        counts: &mut S,
    ) -> (usize, u64) {
        let (start, mut skipped) = (pos, 0usize);
        let end = end.min(section.len());
        while pos < end {
            pos = self.count_one(section, pos, end, counts, &mut skipped);
        }
        (pos, covered(start, pos, skipped))
    }

    /// [`Decoder::count_span`] of two spans at once, one item of each per pass, each into its
    /// sink; returns the bytes each covered.
    fn count_pair<A: Sink + ?Sized, B: Sink + ?Sized>(
        &self,
        section: &[u8],
        (mut p1, e1): (usize, usize),
        (mut p2, e2): (usize, usize),
        a: &mut A,
        b: &mut B,
    ) -> (u64, u64) {
        let (e1, e2) = (e1.min(section.len()), e2.min(section.len()));
        let (s1, s2) = (p1, p2);
        let (mut z1, mut z2) = (0usize, 0usize);
        while p1 < e1 && p2 < e2 {
            p1 = self.count_one(section, p1, e1, a, &mut z1);
            p2 = self.count_one(section, p2, e2, b, &mut z2);
        }
        (
            covered(s1, p1, z1) + self.count_span(section, p1, e1, a).1,
            covered(s2, p2, z2) + self.count_span(section, p2, e2, b).1,
        )
    }

    /// One step of a range at `pos` (`pos < end`): a zero run skipped (added to `skipped`), or
    /// one item counted, which covers the bytes up to the position returned.
    #[inline(always)]
    fn count_one<S: Sink + ?Sized>(
        &self,
        section: &[u8],
        pos: usize,
        end: usize,
        counts: &mut S,
        skipped: &mut usize,
    ) -> usize {
        let Some(rest) = section.get(pos..) else {
            return end;
        };
        if rest.first() == Some(&0) {
            let z = skippable_zeros(section.get(pos..end).unwrap_or(&[]));
            if z > 0 {
                *skipped += z;
                return pos + z;
            }
        }
        let r = self.decode_with::<false>(rest);
        let (len, m) = if packed::is_inst(r) {
            (packed::len(r), packed::mnemonic(r))
        } else {
            (rest.len().min(4) as u8, Mnemonic::LONG.id())
        };
        counts.count(m, 1);
        // An item covers at least one byte (`rest` is not empty): what it covers is the step.
        pos + usize::from(len).max(1)
    }

    /// Walk one executable section like `llvm-objdump -d` does: one range per distinct symbol
    /// address (`symbols`, sorted by address; symbols outside the section are ignored), plus
    /// the bytes before the first symbol. Inside a range, runs of 8 or more zero bytes are
    /// skipped (rounded down to a multiple of 4); words that do not decode yield `.long` items
    /// and decoding resumes 4 bytes later; instructions may extend past the range end (the
    /// next range starts at its symbol regardless).
    pub fn walk<'a, 's>(
        &self,
        section: &'a [u8],
        address: u64,
        symbols: &'s [SymbolStart],
    ) -> Walk<'a, 's> {
        Walk::new(*self, section, address, symbols)
    }
}
