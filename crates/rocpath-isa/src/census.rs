//! Histograms of decoded instructions.

use crate::classify::{Class, Group};
use crate::decoder::{Decoder, Mnemonic};
use crate::walk::{Item, Range, SymbolStart, Tally};

/// How many instructions carry each research-workflow signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SignalCounts {
    /// `(?i)v_dot4|v_dot2`.
    pub dot4: u64,
    /// `\bv_pk_`.
    pub packed: u64,
    /// `\bv_mfma`.
    pub mfma: u64,
    /// `\bv_fma|\bv_mac|\bv_mad`.
    pub fma: u64,
    /// `buffer_|global_|flat_|ds_read|ds_write|scratch_`.
    pub memory: u64,
}

/// Instruction counts by mnemonic (and so by class and signal), with the bytes they cover.
///
/// Counting is an array increment by mnemonic id. Censuses merge by addition, so per-kernel
/// censuses add up to a per-object census, and per-thread censuses reduce to one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Census {
    pub(crate) counts: Vec<u64>,
    pub(crate) bytes: u64,
}

impl Default for Census {
    fn default() -> Self {
        Census::new()
    }
}

impl Census {
    /// An empty census.
    pub fn new() -> Census {
        Census {
            counts: vec![0; Mnemonic::COUNT],
            bytes: 0,
        }
    }

    /// Count one instruction of `len` bytes.
    #[inline]
    pub fn add(&mut self, m: Mnemonic, len: u64) {
        if let Some(c) = self.counts.get_mut(usize::from(m.id())) {
            *c += 1;
        }
        self.bytes += len;
    }

    /// Count `n` instructions of mnemonic `m` (their bytes with [`Census::add_bytes`]).
    pub fn add_n(&mut self, m: Mnemonic, n: u64) {
        if let Some(c) = self.counts.get_mut(usize::from(m.id())) {
            *c += n;
        }
    }

    /// Add covered bytes.
    pub fn add_bytes(&mut self, n: u64) {
        self.bytes += n;
    }

    /// Count one walked item.
    #[inline]
    pub fn add_item(&mut self, item: &Item) {
        self.add(item.mnemonic, u64::from(item.len));
    }

    /// Add another census into this one.
    pub fn merge(&mut self, other: &Census) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.bytes += other.bytes;
    }

    /// Count of one mnemonic.
    pub fn count(&self, m: Mnemonic) -> u64 {
        self.counts.get(usize::from(m.id())).copied().unwrap_or(0)
    }

    /// Total number of counted items (instructions, `.long` and `.byte` lines).
    pub fn instructions(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Total bytes covered by the counted items (zero runs that were skipped are not counted).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Number of distinct mnemonics seen.
    pub fn distinct(&self) -> usize {
        self.counts.iter().filter(|&&c| c > 0).count()
    }

    /// Mnemonics with a non-zero count, by id.
    pub fn iter(&self) -> impl Iterator<Item = (Mnemonic, u64)> + '_ {
        Mnemonic::all()
            .zip(self.counts.iter().copied())
            .filter(|(_, c)| *c > 0)
    }

    /// `(mnemonic, count)` sorted like the reference `*.mnemonics.tsv` files: count descending,
    /// then mnemonic bytewise.
    pub fn histogram(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<(&'static str, u64)> = self.iter().map(|(m, c)| (m.as_str(), c)).collect();
        v.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then_with(|| a.0.as_bytes().cmp(b.0.as_bytes()))
        });
        v
    }

    /// The histogram as TSV lines `mnemonic<TAB>count`, in [`Census::histogram`] order.
    pub fn to_tsv(&self) -> String {
        let mut s = String::new();
        for (m, c) in self.histogram() {
            s.push_str(m);
            s.push('\t');
            s.push_str(&c.to_string());
            s.push('\n');
        }
        s
    }

    /// Counts by class, indexed by `Class as usize`.
    pub fn by_class(&self) -> [u64; Class::COUNT] {
        let mut out = [0u64; Class::COUNT];
        for (m, c) in self.iter() {
            if let Some(x) = out.get_mut(m.class() as usize) {
                *x += c;
            }
        }
        out
    }

    /// Count of one class.
    pub fn class_count(&self, class: Class) -> u64 {
        self.by_class().get(class as usize).copied().unwrap_or(0)
    }

    /// Count of one coarse group.
    pub fn group_count(&self, group: Group) -> u64 {
        self.iter()
            .filter(|(m, _)| m.class().group() == group)
            .map(|(_, c)| c)
            .sum()
    }

    /// Signal counts.
    pub fn signals(&self) -> SignalCounts {
        let mut s = SignalCounts::default();
        for (m, c) in self.iter() {
            let f = m.signals();
            s.dot4 += if f.dot4() { c } else { 0 };
            s.packed += if f.packed() { c } else { 0 };
            s.mfma += if f.mfma() { c } else { 0 };
            s.fma += if f.fma() { c } else { 0 };
            s.memory += if f.memory() { c } else { 0 };
        }
        s
    }
}

/// Counts by class only: a small fixed-size histogram (no allocation), for per-kernel totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassCounts {
    /// Count per class, indexed by `Class as usize`.
    pub counts: [u64; Class::COUNT],
}

impl Default for ClassCounts {
    fn default() -> Self {
        ClassCounts {
            counts: [0; Class::COUNT],
        }
    }
}

impl ClassCounts {
    /// Count one instruction.
    #[inline]
    pub fn add(&mut self, m: Mnemonic) {
        if let Some(c) = self.counts.get_mut(m.class() as usize) {
            *c += 1;
        }
    }

    /// Add another set of counts.
    pub fn merge(&mut self, other: &ClassCounts) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    /// Count of one class.
    pub fn get(&self, class: Class) -> u64 {
        self.counts.get(class as usize).copied().unwrap_or(0)
    }

    /// Count of one coarse group.
    pub fn group(&self, group: Group) -> u64 {
        Class::ALL
            .iter()
            .filter(|c| c.group() == group)
            .map(|&c| self.get(c))
            .sum()
    }

    /// Total count.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
}

impl Decoder {
    /// Census of one executable section walked like `llvm-objdump -d` (see [`Decoder::walk`]).
    pub fn census(&self, section: &[u8], address: u64, symbols: &[SymbolStart]) -> Census {
        let mut c = Census::new();
        c.bytes += self
            .walk(section, address, symbols)
            .count_into(&mut c.counts);
        c
    }
}

/// A walk's counts added to a census (here, so that the walk does not know the census).
impl Tally {
    /// The counts since the last drain (mnemonic, count) and the bytes they cover, also added
    /// to `total`; resets.
    pub fn drain_into(&mut self, total: &mut Census) -> (Vec<(Mnemonic, u64)>, u64) {
        let mut pairs = Vec::with_capacity(self.touched.len());
        for &id in &self.touched {
            if let (Some(m), Some(n)) =
                (Mnemonic::from_id(id), self.counts.get_mut(usize::from(id)))
            {
                total.add_n(m, *n);
                pairs.push((m, *n));
                *n = 0;
            }
        }
        self.touched.clear();
        let bytes = std::mem::take(&mut self.bytes);
        total.add_bytes(bytes);
        (pairs, bytes)
    }
}

impl Decoder {
    /// Count the items of `ranges` (of a walk over `section`) into `census`, two ranges at a
    /// time, interleaved.
    pub fn census_ranges(&self, section: &[u8], ranges: &[Range], census: &mut Census) {
        census.bytes += self.count_ranges(section, ranges.iter().copied(), &mut census.counts);
    }
}
