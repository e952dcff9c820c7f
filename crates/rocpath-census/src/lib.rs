//! Instruction census of AMDGPU code objects: "does the kernel my GPU gets use MFMA / WMMA /
//! dot4, or the plain FMA fallback?"
//!
//! [`run`] finds code objects in any container `rocpath-sources` reads (a `.hsaco`, a bundle,
//! a host library, a Tensile folder, a whole install or a package), decodes every executable
//! section with `rocpath-isa` the way `llvm-objdump -d` walks it, and counts instructions per
//! code object and per kernel: by mnemonic, by class (MFMA/WMMA by data type, each dot
//! variant, packed math, FMA, memory kinds, ...) and by the research workflow's five signals.
//! Every record carries evidence: disassembly presence is `confirmed` /
//! `shipped_artifact_verified`.

use rocpath_arch::TargetId;
use rocpath_evidence::{Class as EvClass, Evidence, Locator, Proof};
use rocpath_isa::{
    Census, Decoder, Item, ItemKind, Mnemonic, Range, SymbolKind, SymbolStart, Tally,
};
use rocpath_sources::bundle::SharedBy;
use rocpath_sources::{Found, Limits, ObjectHash, Origin, Sink};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

/// Evidence rule ids.
pub mod rules {
    /// Instructions were decoded from a shipped code object.
    pub const DECODED: &str = "isa.decoded_from_shipped_code";
    /// A searched mnemonic was found in a kernel.
    pub const FOUND: &str = "isa.mnemonic_present";
    /// The code object could not be decoded.
    pub const UNDECODABLE: &str = "isa.undecodable";
    /// The code object's processor is outside the decoder's tables.
    pub const NOT_COVERED: &str = "isa.target_not_covered";
}

/// Which kernels to report.
#[derive(Debug, Clone)]
pub enum KernelFilter {
    /// Kernels whose name contains the text.
    Substring(String),
    /// The kernel with exactly this name.
    Exact(String),
}

impl KernelFilter {
    fn matches(&self, name: &str) -> bool {
        match self {
            KernelFilter::Substring(s) => name.contains(s.as_str()),
            KernelFilter::Exact(s) => name == s,
        }
    }
}

/// Options of a census.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Container limits.
    pub limits: Limits,
    /// Only code objects of this processor (`gfx900`) or exact target id (`gfx90a:xnack+`).
    pub target: Option<TargetId>,
    /// Only these kernels (code objects without a matching kernel are left out).
    pub kernel: Option<KernelFilter>,
    /// Mnemonics to look for; an entry matches a mnemonic equal to it or starting with it
    /// followed by `_` (`v_mfma` matches every `v_mfma_*`).
    pub find: Vec<String>,
    /// Keep the instruction stream of the selected kernels (for `--disasm`).
    pub disasm: bool,
    /// Keep per-kernel counts in the report (JSON, `--kernels`). Without it, code objects
    /// carry only their totals and `kernel_count`, which keeps memory small on whole installs
    /// (a full install has hundreds of thousands of kernels).
    pub per_kernel: bool,
}

pub use rocpath_docs::isa::{
    CodeObjectCensus, Counts, DisasmLine, FindHit, IsaReport as Report, KernelCensus, Skipped,
};

/// Groups by index, with the names the JSON uses (the lower-case variant name).
const GROUPS: [(rocpath_isa::Group, &str); 13] = {
    use rocpath_isa::Group as G;
    [
        (G::Mfma, "mfma"),
        (G::Wmma, "wmma"),
        (G::Dot, "dot"),
        (G::Packed, "packed"),
        (G::Fma, "fma"),
        (G::Valu, "valu"),
        (G::Salu, "salu"),
        (G::Vmem, "vmem"),
        (G::Lds, "lds"),
        (G::Smem, "smem"),
        (G::Branch, "branch"),
        (G::Wait, "wait"),
        (G::Other, "other"),
    ]
};

const SIGNALS: [&str; 5] = ["dot4", "packed", "mfma", "fma", "memory"];

/// Named counts of a census.
pub fn counts_of(c: &Census) -> Counts {
    counts_from_pairs(c.iter(), c.bytes())
}

/// Named counts from `(mnemonic, count)` pairs covering `code_bytes` bytes.
///
/// Counts go into fixed arrays by class, group and signal first; each map is then built
/// once from its sorted entries (no string compared per mnemonic).
pub fn counts_from_pairs(
    pairs: impl IntoIterator<Item = (Mnemonic, u64)>,
    code_bytes: u64,
) -> Counts {
    let mut out = Counts {
        code_bytes,
        ..Counts::default()
    };
    let mut classes = [(false, 0u64); rocpath_isa::Class::COUNT];
    let mut groups = [(false, 0u64); GROUPS.len()];
    let mut signals = [0u64; SIGNALS.len()];
    let mut names: Vec<(String, u64)> = Vec::new();
    for (m, n) in pairs {
        out.instructions += n;
        if m == Mnemonic::LONG {
            out.unknown += n;
        }
        names.push((m.as_str().to_string(), n));
        let class = m.class();
        if let Some(c) = classes.get_mut(class as usize) {
            *c = (true, c.1 + n);
        }
        if let Some(c) = groups.get_mut(class.group() as usize) {
            *c = (true, c.1 + n);
        }
        let f = m.signals();
        for (s, on) in signals
            .iter_mut()
            .zip([f.dot4(), f.packed(), f.mfma(), f.fma(), f.memory()])
        {
            *s += if on { n } else { 0 };
        }
    }
    out.mnemonics = names.into_iter().collect();
    out.classes = rocpath_isa::Class::ALL
        .iter()
        .zip(classes)
        .filter(|(_, (seen, _))| *seen)
        .map(|(c, (_, n))| (c.name().to_string(), n))
        .collect();
    out.groups = GROUPS
        .iter()
        .zip(groups)
        .filter(|(_, (seen, _))| *seen)
        .map(|((_, name), (_, n))| (name.to_string(), n))
        .collect();
    out.signals = SIGNALS
        .iter()
        .zip(signals)
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    out
}

/// A code object or container that could not be read or decoded (`limited` evidence).
pub use rocpath_docs::ErrorItem;

/// Progress receiver.
pub trait Progress: Sync {
    /// Total files and bytes.
    fn begin(&self, _files: u64, _bytes: u64) {}
    /// More bytes processed.
    fn advance(&self, _bytes: u64) {}
}

struct Collector<'a> {
    opts: &'a Options,
    progress: &'a dyn Progress,
    out: Mutex<Report>,
}

fn lock(m: &Mutex<Report>) -> std::sync::MutexGuard<'_, Report> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn term_matches(term: &str, mnemonic: &str) -> bool {
    mnemonic == term
        || (mnemonic.starts_with(term) && mnemonic.as_bytes().get(term.len()) == Some(&b'_'))
}

impl Collector<'_> {
    fn error(&self, origin: &Origin, offset: Option<u64>, message: String) {
        let loc = Locator::in_container(&origin.path, origin.member(), offset);
        let evidence = Evidence::new(
            EvClass::Limited,
            Proof::ShippedArtifactVerified,
            rules::UNDECODABLE,
        )
        .at(loc);
        lock(&self.out).errors.push(
            ErrorItem::at(origin.path.clone(), message)
                .inside(origin.member(), offset)
                .evidence(evidence),
        );
    }

    fn code_object(
        &self,
        origin: &Origin,
        offset: u64,
        bytes: &[u8],
        hash: &ObjectHash,
        shared_by: Option<&SharedBy>,
        release: &(dyn Fn(&[u8]) + Sync),
    ) {
        let co = match rocpath_codeobj::parse(bytes) {
            Ok(c) => c,
            Err(e) => {
                let at = offset + e.offset().unwrap_or(0);
                return self.error(origin, Some(at), format!("code object: {e}"));
            }
        };
        let target_id = co.target_id.clone();
        if let Some(f) = &self.opts.target {
            if !target_id.matches(f) {
                return;
            }
        }
        let Some(decoder) = Decoder::for_target(&co.target_id.processor) else {
            return self.not_covered(origin, offset, hash, target_id);
        };
        let need_kernels = self.need_kernels();
        let w = match self.decode(&origin.path, bytes, &co, &decoder, release) {
            Ok(w) => w,
            Err(e) => return self.error(origin, Some(offset), e),
        };
        let Walked {
            total,
            kernels,
            disasm,
            owner_ranges,
        } = w;
        // Merge ranges of the same symbol (a symbol can own several ranges if labels in
        // other sections interleave) and apply the kernel filter.
        let mut merged = merge_ranges(kernels);
        if let Some(f) = &self.opts.kernel {
            merged.retain(|k| f.matches(&k.name));
            if merged.is_empty() {
                return;
            }
        }
        let counts = counts_of(&total);
        let container = origin.member();
        let at = with_hash(
            Locator::file(&origin.path)
                .with_member(container.clone())
                .with_offset(offset),
            hash,
        );
        let mut evidence = Evidence::new(
            EvClass::Confirmed,
            Proof::ShippedArtifactVerified,
            rules::DECODED,
        )
        .at(at.clone());
        if let Some(s) = shared_by {
            evidence = evidence.because(s.note("decoded"));
        }
        let hits = find_hits(&self.opts.find, &merged, &target_id, &at);
        let rec = CodeObjectCensus {
            path: origin.path.clone(),
            library: origin.library(),
            container,
            offset,
            sha256: hash.sha256.clone(),
            sha256_source: hash.source,
            target: target_id,
            decoder: decoder.processor().to_string(),
            counts,
            kernel_count: if need_kernels {
                merged.len()
            } else {
                owner_ranges
            },
            kernels: if self.opts.per_kernel {
                merged
            } else {
                Vec::new()
            },
            shared_by: shared_by.cloned(),
            evidence,
        };
        let mut out = lock(&self.out);
        out.code_objects.push(rec);
        out.find.extend(hits);
        out.disasm.extend(disasm);
    }
}

impl Collector<'_> {
    /// Per-kernel counts only when something needs them.
    fn need_kernels(&self) -> bool {
        self.opts.per_kernel
            || !self.opts.find.is_empty()
            || self.opts.kernel.is_some()
            || self.opts.disasm
    }

    /// Decodes every code section of one object: the totals, the counts per owning symbol
    /// range (when needed) and the disassembly asked for. Decoded pages are handed to
    /// `release`.
    fn decode(
        &self,
        path: &str,
        bytes: &[u8],
        co: &rocpath_codeobj::CodeObject,
        decoder: &Decoder,
        release: &(dyn Fn(&[u8]) + Sync),
    ) -> Result<Walked, String> {
        let sections = match rocpath_codeobj::code_sections(bytes) {
            Ok(s) => s,
            Err(e) => return Err(format!("sections: {e}")),
        };
        let symbols = match rocpath_codeobj::symbols_with(bytes, false) {
            Ok(s) => s,
            Err(e) => return Err(format!("symbols: {e}")),
        };
        let kernel_names: BTreeSet<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
        let is_rel = co.e_type == 1;
        let mut total = Census::new();
        let need_kernels = self.need_kernels();
        let (mut tally, mut spare) = (Tally::new(), Tally::new());
        let mut owner_ranges = 0usize;
        let mut kernels: Vec<KernelCensus> = Vec::new();
        let mut disasm = Vec::new();
        for sec in &sections {
            let Some(data) = usize::try_from(sec.offset)
                .ok()
                .and_then(|o| Some((o, o.checked_add(usize::try_from(sec.size).ok()?)?)))
                .and_then(|(o, e)| bytes.get(o..e))
            else {
                continue;
            };
            let base = if is_rel { sec.addr } else { 0 };
            let (starts, owners) = section_symbols(&symbols, sec.index, base, &kernel_names);
            let walk = decoder.walk(data, sec.addr, &starts);
            let mut by_range = ByRange {
                decoder,
                data,
                addr: sec.addr,
                owners: &owners,
                need_kernels,
                release,
                total: &mut total,
                tally: &mut tally,
                spare: &mut spare,
                pending: None,
                kernels: &mut kernels,
                cur: None,
                seen: 0,
                released: 0,
                batch: Vec::new(),
            };
            if self.opts.disasm {
                let want = |name: &str| self.opts.kernel.as_ref().is_some_and(|k| k.matches(name));
                for item in walk {
                    by_range.item(&item, |owner| {
                        if want(owner) {
                            disasm.push(disasm_line(
                                path,
                                owner,
                                sec.addr + item.offset,
                                data,
                                &item,
                            ));
                        }
                    });
                }
            } else {
                for r in walk.ranges() {
                    by_range.range(&r);
                }
            }
            owner_ranges += by_range.finish();
        }
        Ok(Walked {
            total,
            kernels,
            disasm,
            owner_ranges,
        })
    }

    /// A code object of a processor the decoder has no tables for: listed as skipped.
    fn not_covered(&self, origin: &Origin, offset: u64, hash: &ObjectHash, target_id: TargetId) {
        let container = origin.member();
        let evidence = Evidence::new(
            EvClass::Limited,
            Proof::ShippedArtifactVerified,
            rules::NOT_COVERED,
        )
        .at(with_hash(
            Locator::in_container(&origin.path, container.clone(), Some(offset)),
            hash,
        ))
        .because("the decoder covers GFX8 to GFX12 (without gfx125x)");
        let reason = format!(
            "no decoding tables for {} (the decoder covers GFX8 to GFX12)",
            target_id.processor
        );
        lock(&self.out).skipped.push(Skipped {
            path: origin.path.clone(),
            container,
            target_id,
            reason,
            evidence,
        });
    }
}

/// The locator with the object's sha256, when it was hashed.
fn with_hash(at: Locator, hash: &ObjectHash) -> Locator {
    match hash.as_str() {
        Some(h) => at.with_sha256(h),
        None => at,
    }
}

/// Counts of one section gathered by owning symbol: the object's totals, and per owner
/// (function or kernel symbol) when kernels are needed. Every owner starts a range of the
/// walk, so a range has one owner (the last at or before its start).
struct ByRange<'a, 's> {
    decoder: &'a Decoder,
    data: &'a [u8],
    addr: u64,
    owners: &'a [(u64, &'s str, bool)],
    need_kernels: bool,
    release: &'a (dyn Fn(&[u8]) + Sync),
    total: &'a mut Census,
    tally: &'a mut Tally,
    /// The second lane's counts, when two ranges are counted at once.
    spare: &'a mut Tally,
    /// A range with items waiting for a second one (per-kernel counting).
    pending: Option<Range>,
    kernels: &'a mut Vec<KernelCensus>,
    /// The current owner (index into `owners`).
    cur: Option<usize>,
    /// Owner ranges started.
    seen: usize,
    /// Section bytes handed back so far.
    released: usize,
    /// Ranges not yet counted, when no kernel needs them apart.
    batch: Vec<Range>,
}

/// Decoded pages are handed back in steps of this many bytes (large Tensile objects reach
/// 400 MB of code).
const RELEASE_STEP: usize = 8 << 20;

impl<'s> ByRange<'_, 's> {
    /// The owner of section offset `at`.
    fn owner_at(&self, at: u64) -> Option<usize> {
        let a = self.addr + at;
        self.owners.partition_point(|o| o.0 <= a).checked_sub(1)
    }

    /// Moves to `owner`, closing the current one's counts.
    fn enter(&mut self, owner: Option<usize>) {
        if owner == self.cur {
            return;
        }
        self.close();
        if owner.is_some() {
            self.seen += 1;
        }
        self.cur = owner;
    }

    /// Adds the counts gathered for the current owner to the totals, and to its kernel.
    fn close(&mut self) {
        if self.tally.is_empty() {
            return;
        }
        let (pairs, bytes) = self.tally.drain_into(self.total);
        if let Some(i) = self.cur.filter(|_| self.need_kernels) {
            let (_, name, is_kernel) = self.owners[i];
            self.kernels.push(KernelCensus {
                name: name.to_string(),
                is_kernel,
                counts: counts_from_pairs(pairs, bytes),
            });
        }
    }

    /// One range of the walk: counted apart for its owner when kernels are needed, else in
    /// batches of about `RELEASE_STEP` bytes, two ranges at a time.
    fn range(&mut self, r: &Range) {
        if self.need_kernels {
            // A range without items has no owner to enter.
            if r.has_items(self.data) {
                match self.pending.take() {
                    None => self.pending = Some(*r),
                    Some(a) => self.pair(&a, r),
                }
            }
            // Pages are handed back only behind what has been counted.
            let counted = self.pending.map_or(r.end, |p| p.start);
            self.release_to(counted);
            return;
        }
        if r.has_items(self.data) {
            self.enter(self.owner_at(r.start as u64));
        }
        self.batch.push(*r);
        if r.end.saturating_sub(self.released) >= RELEASE_STEP {
            self.flush_batch();
        }
    }

    /// Two ranges with items, in walk order, counted at once: `a` for its owner, `b` apart
    /// and then for its own (the same or the next).
    fn pair(&mut self, a: &Range, b: &Range) {
        self.enter(self.owner_at(a.start as u64));
        let owner_b = self.owner_at(b.start as u64);
        self.decoder
            .count_range_pair(self.data, (a, &mut *self.tally), (b, &mut *self.spare));
        if owner_b == self.cur {
            self.tally.absorb(self.spare);
        } else {
            self.enter(owner_b);
            std::mem::swap(self.tally, self.spare);
        }
    }

    /// Counts the batched ranges into the totals and hands their pages back.
    fn flush_batch(&mut self) {
        self.decoder
            .census_ranges(self.data, &self.batch, self.total);
        if let Some(end) = self.batch.last().map(|r| r.end) {
            self.release_to(end);
        }
        self.batch.clear();
    }

    /// Hands back the section's pages before `at`, in steps.
    fn release_to(&mut self, at: usize) {
        if at.saturating_sub(self.released) >= RELEASE_STEP {
            (self.release)(self.data.get(self.released..at).unwrap_or(&[]));
            self.released = at;
        }
    }

    /// One walked item (the disassembly's path): counted for its owner; `line` is called with
    /// the owner's name.
    fn item(&mut self, item: &Item, mut line: impl FnMut(&'s str)) {
        self.release_to(item.offset as usize);
        let owner = self.owner_at(item.offset);
        self.enter(owner);
        self.tally.add_item(item);
        if let Some(i) = owner {
            line(self.owners[i].1);
        }
    }

    /// Ends the section; returns the owner ranges it had.
    fn finish(mut self) -> usize {
        if let Some(r) = self.pending.take() {
            self.enter(self.owner_at(r.start as u64));
            self.decoder.count_range(self.data, &r, self.tally);
        }
        self.flush_batch();
        self.close();
        self.seen
    }
}

/// What decoding one code object's sections gave.
struct Walked {
    total: Census,
    kernels: Vec<KernelCensus>,
    disasm: Vec<DisasmLine>,
    owner_ranges: usize,
}

/// Symbols of one section: the range starts the decoder walks (every symbol, as llvm-objdump;
/// legacy kernels first at equal addresses) and the owners per-kernel counts go to (function
/// and kernel symbols only, not labels: address, name, is a kernel), both sorted by address.
fn section_symbols<'s>(
    symbols: &'s [rocpath_codeobj::CodeSymbol],
    section: usize,
    base: u64,
    kernel_names: &BTreeSet<&str>,
) -> (Vec<SymbolStart>, Vec<(u64, &'s str, bool)>) {
    use rocpath_codeobj::SymbolKind as S;
    let in_sec = symbols.iter().filter(|s| s.section == section);
    let mut starts: Vec<SymbolStart> = in_sec
        .clone()
        .map(|s| SymbolStart {
            address: base + s.value,
            kind: if s.kind == S::HsaKernel {
                SymbolKind::LegacyKernel
            } else {
                SymbolKind::Code
            },
        })
        .collect();
    starts.sort_by_key(|s| (s.address, s.kind == SymbolKind::Code));
    let mut owners: Vec<(u64, &str, bool)> = in_sec
        .filter(|s| s.kind != S::Other)
        .map(|s| {
            let kernel = kernel_names.contains(s.name.as_str()) || s.kind == S::HsaKernel;
            (base + s.value, s.name.as_str(), kernel)
        })
        .collect();
    owners.sort();
    owners.dedup_by_key(|o| o.0);
    (starts, owners)
}

/// Ranges of the same symbol merged (a symbol can own several ranges when labels in other
/// sections interleave), in first-seen order.
fn merge_ranges(kernels: Vec<KernelCensus>) -> Vec<KernelCensus> {
    let mut merged: Vec<KernelCensus> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for k in kernels {
        match at.get(&k.name).and_then(|&i| merged.get_mut(i)) {
            Some(m) => m.counts.merge(&k.counts),
            None => {
                at.insert(k.name.clone(), merged.len());
                merged.push(k);
            }
        }
    }
    merged
}

/// The searched mnemonics found in the kernels of one code object (at `at`).
fn find_hits(
    terms: &[String],
    kernels: &[KernelCensus],
    target_id: &TargetId,
    at: &Locator,
) -> Vec<FindHit> {
    let mut hits = Vec::new();
    for term in terms {
        for k in kernels {
            for (m, n) in k
                .counts
                .mnemonics
                .iter()
                .filter(|(m, _)| term_matches(term, m))
            {
                hits.push(FindHit {
                    path: at.path.clone(),
                    container: at.member.clone(),
                    target_id: target_id.clone(),
                    kernel: k.name.clone(),
                    term: term.clone(),
                    mnemonic: m.clone(),
                    count: *n,
                    evidence: Evidence::new(
                        EvClass::Confirmed,
                        Proof::ShippedArtifactVerified,
                        rules::FOUND,
                    )
                    .at(at.clone()),
                });
            }
        }
    }
    hits
}

/// One decoded item of `data` (a section starting at its address minus `item.offset`).
fn disasm_line(path: &str, kernel: &str, address: u64, data: &[u8], item: &Item) -> DisasmLine {
    let o = item.offset as usize;
    let b = data.get(o..o + usize::from(item.len)).unwrap_or(&[]);
    DisasmLine {
        path: path.to_string(),
        kernel: kernel.to_string(),
        address,
        bytes: b.iter().map(|x| format!("{x:02x}")).collect(),
        mnemonic: item.mnemonic.as_str().to_string(),
        class: match item.kind {
            ItemKind::Inst(_) => item.mnemonic.class().name().to_string(),
            _ => "data".to_string(),
        },
    }
}

impl Sink for Collector<'_> {
    fn found(&self, f: Found<'_>) {
        match f {
            Found::CodeObject {
                origin,
                offset,
                bytes,
                sha256,
                shared_by,
                release,
                ..
            } => self.code_object(origin, offset, bytes, sha256, shared_by, release),
            Found::Error { origin, error } => self.error(origin, error.offset(), error.to_string()),
            Found::KpackRef { origin, reference } => {
                for a in reference.archives.iter().filter(|a| a.status.is_problem()) {
                    let why = a.message.as_deref().unwrap_or("");
                    let msg = format!("kpack archive {} {}: {why}", a.path, a.status.as_str());
                    self.error(&origin.child("kpack_ref"), None, msg);
                }
            }
            Found::Tensile { .. } | Found::Named { .. } => {}
        }
    }
    fn progress(&self, bytes: u64) {
        self.progress.advance(bytes);
    }
}

/// Runs a census over files and directories (on the current rayon pool).
pub fn run(paths: &[PathBuf], opts: &Options, progress: &dyn Progress) -> Report {
    let c = Collector {
        opts,
        progress,
        out: Mutex::new(Report::default()),
    };
    rocpath_sources::scan_paths(paths, &opts.limits, &c, |t| {
        progress.begin(t.files, t.bytes)
    });
    let mut r = c.out.into_inner().unwrap_or_else(|p| p.into_inner());
    r.code_objects
        .sort_by(|a, b| (&a.path, &a.container, a.offset).cmp(&(&b.path, &b.container, b.offset)));
    r.find.sort_by(|a, b| {
        (&a.path, &a.container, &a.kernel, &a.mnemonic).cmp(&(
            &b.path,
            &b.container,
            &b.kernel,
            &b.mnemonic,
        ))
    });
    r.disasm
        .sort_by(|a, b| (&a.path, &a.kernel, a.address).cmp(&(&b.path, &b.kernel, b.address)));
    r.errors
        .sort_by(|a, b| (&a.path, &a.container, a.offset).cmp(&(&b.path, &b.container, b.offset)));
    for co in &r.code_objects {
        r.targets
            .entry(co.target.clone())
            .or_default()
            .merge(&co.counts);
    }
    r.not_found = opts
        .find
        .iter()
        .filter(|t| !r.find.iter().any(|h| &h.term == *t))
        .cloned()
        .collect();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_follow_the_group_order() {
        for (i, (g, name)) in GROUPS.iter().enumerate() {
            assert_eq!(*g as usize, i);
            assert_eq!(*name, format!("{g:?}").to_ascii_lowercase());
        }
        for c in rocpath_isa::Class::ALL {
            assert!((c.group() as usize) < GROUPS.len());
        }
    }

    #[test]
    fn counts_by_class_group_and_signal() {
        let mfma = Mnemonic::all()
            .find(|m| m.as_str().starts_with("v_mfma"))
            .unwrap();
        let c = counts_from_pairs([(Mnemonic::LONG, 2), (mfma, 3)], 20);
        assert_eq!((c.instructions, c.unknown, c.code_bytes), (5, 2, 20));
        assert_eq!(c.mnemonics[mfma.as_str()], 3);
        assert_eq!(c.groups["mfma"], 3);
        assert_eq!(c.signals["mfma"], 3);
        assert_eq!(c.signals["dot4"], 0);
        assert_eq!(c.signals.len(), 5);
        assert_eq!(c.classes.values().sum::<u64>(), 5);
    }
}
