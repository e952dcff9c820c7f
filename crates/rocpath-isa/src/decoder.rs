//! The table-driven decoder.

use crate::classify::Class;
use crate::generated::{mnemonics, tables};
use crate::layout::{Family, Format, Gen, Layout, Sub, entry, layout};
use crate::variant::Variant;
use std::sync::OnceLock;

/// A mnemonic, as a small integer id into the generated mnemonic list.
///
/// Ids are stable within one build of the crate (they are indices into the sorted list of every
/// mnemonic LLVM printed while the tables were generated); use [`Mnemonic::as_str`] for
/// anything persisted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mnemonic(pub(crate) u16);

impl Mnemonic {
    /// `.long`: a 4-byte word LLVM could not decode.
    pub const LONG: Mnemonic = Mnemonic(0);
    /// `.byte`: one byte of a legacy `amd_kernel_code_t` header.
    pub const BYTE: Mnemonic = Mnemonic(1);
    /// Number of distinct mnemonics (ids are `0..COUNT`).
    pub const COUNT: usize = mnemonics::COUNT;

    /// The id.
    pub const fn id(self) -> u16 {
        self.0
    }

    /// The mnemonic with id `id`, if it exists.
    pub fn from_id(id: u16) -> Option<Mnemonic> {
        (usize::from(id) < mnemonics::COUNT).then_some(Mnemonic(id))
    }

    /// Look a mnemonic up by its text (binary search; not for hot paths).
    pub fn from_name(name: &str) -> Option<Mnemonic> {
        let rest = mnemonics::NAMES.get(2..).unwrap_or(&[]);
        match name {
            ".long" => Some(Mnemonic::LONG),
            ".byte" => Some(Mnemonic::BYTE),
            _ => rest
                .binary_search(&name)
                .ok()
                .and_then(|i| u16::try_from(i + 2).ok())
                .map(Mnemonic),
        }
    }

    /// The text `llvm-objdump-22 -d` prints as the first token of the line.
    pub fn as_str(self) -> &'static str {
        mnemonics::NAMES
            .get(usize::from(self.0))
            .copied()
            .unwrap_or(".long")
    }

    /// The instruction class.
    pub fn class(self) -> Class {
        mnemonics::CLASSES
            .get(usize::from(self.0))
            .copied()
            .unwrap_or(Class::Other)
    }

    /// The research-workflow signals of this mnemonic.
    pub fn signals(self) -> Signals {
        Signals(
            mnemonics::SIGNALS
                .get(usize::from(self.0))
                .copied()
                .unwrap_or(0),
        )
    }

    /// Every mnemonic, by id.
    pub fn all() -> impl Iterator<Item = Mnemonic> {
        (0..mnemonics::COUNT)
            .filter_map(|i| u16::try_from(i).ok())
            .map(Mnemonic)
    }
}

impl std::fmt::Display for Mnemonic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The five signals of the research workflow, as flags of one mnemonic.
///
/// * `dot4`: `(?i)v_dot4|v_dot2`
/// * `packed`: `\bv_pk_`
/// * `mfma`: `\bv_mfma`
/// * `fma`: `\bv_fma|\bv_mac|\bv_mad`
/// * `memory`: `buffer_|global_|flat_|ds_read|ds_write|scratch_`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Signals(pub(crate) u8);

impl Signals {
    /// Matches `(?i)v_dot4|v_dot2`.
    pub const fn dot4(self) -> bool {
        self.0 & crate::classify::SIG_DOT4 != 0
    }
    /// Matches `\bv_pk_`.
    pub const fn packed(self) -> bool {
        self.0 & crate::classify::SIG_PACKED != 0
    }
    /// Matches `\bv_mfma`.
    pub const fn mfma(self) -> bool {
        self.0 & crate::classify::SIG_MFMA != 0
    }
    /// Matches `\bv_fma|\bv_mac|\bv_mad`.
    pub const fn fma(self) -> bool {
        self.0 & crate::classify::SIG_FMA != 0
    }
    /// Matches `buffer_|global_|flat_|ds_read|ds_write|scratch_`.
    pub const fn memory(self) -> bool {
        self.0 & crate::classify::SIG_MEMORY != 0
    }
    /// Raw bits (`dot4` = 1, `packed` = 2, `mfma` = 4, `fma` = 8, `memory` = 16).
    pub const fn bits(self) -> u8 {
        self.0
    }
}

/// One decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// Length in bytes, including literal constants and extra dwords.
    pub len: u8,
    /// The mnemonic.
    pub mnemonic: Mnemonic,
    /// Encoding family.
    pub family: Family,
}

impl Inst {
    /// The instruction class.
    pub fn class(&self) -> Class {
        self.mnemonic.class()
    }
}

/// The result of decoding the bytes at one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    /// A valid instruction.
    Inst(Inst),
    /// The word does not decode (llvm-objdump prints `.long` and resumes 4 bytes later).
    Unknown,
    /// The instruction needs `needed` bytes but fewer are left in the buffer.
    Truncated {
        /// Bytes the instruction would need.
        needed: u8,
    },
}

impl Decoded {
    /// The instruction, if valid.
    pub fn inst(&self) -> Option<Inst> {
        match self {
            Decoded::Inst(i) => Some(*i),
            _ => None,
        }
    }
}

/// A decoder for one processor.
#[derive(Debug, Clone, Copy)]
pub struct Decoder {
    variant: &'static Variant,
    formats: &'static [Fast; MAX_FORMATS],
    dispatch: &'static [u8; 512],
    cpu: &'static str,
}

/// Most formats in one generation's layout.
const MAX_FORMATS: usize = 20;

/// A [`Format`] laid out for the decoding loop: the key as three fixed (shift, mask, place)
/// fields (unused ones have mask 0), so computing it is straight-line code without a loop
/// over a slice, and every other per-format fact precomputed.
#[derive(Debug, Clone, Copy)]
struct Fast {
    /// The format's table in the decoder's variant (empty in the per-generation templates).
    table: &'static [u32],
    /// The variant's reserved source-operand codes of this format, by literal field.
    reserved: &'static [[u64; 8]; 3],
    /// Key field `i` is `q.rotate_right(key_rot[i]) & key_mask[i]`: the rotation brings the
    /// field's lowest bit to its place in the key, the mask (already at that place) keeps it.
    key_rot: [u32; 3],
    key_mask: [u64; 3],
    /// Sub-index: `sub_lut[(q >> sub_at) & 511]` (all zero without one).
    sub_at: u32,
    sub_lut: &'static [u8; 512],
    sub_count: usize,
    lits: [u32; 3],
    lit_count: usize,
    lit_mask: u64,
    seg: Option<u8>,
    family: Family,
    needs_dw1: bool,
    vop3p: bool,
    mask: u32,
    value: u32,
}

impl Fast {
    const NONE: Fast = Fast {
        table: &[],
        reserved: &NO_RESERVED,
        key_rot: [0; 3],
        key_mask: [0; 3],
        sub_at: 0,
        sub_lut: &SUB_NONE,
        sub_count: 1,
        lits: [0; 3],
        lit_count: 0,
        lit_mask: 0,
        seg: None,
        family: Family::Sop1,
        needs_dw1: false,
        vop3p: false,
        mask: 0,
        value: 1,
    };

    const fn of(f: &Format) -> Fast {
        let mut x = Fast::NONE;
        // Fields are most significant first: field i sits above the widths of the later ones.
        let n = if f.key.len() < 3 { f.key.len() } else { 3 };
        let mut at = 0u32;
        let mut i = n;
        while i > 0 {
            i -= 1;
            let (lo, w) = f.key[i];
            x.key_rot[i] = (lo as u32 + 64 - at) % 64;
            x.key_mask[i] = ((1u64 << w) - 1) << at;
            at += w as u32;
        }
        (x.sub_at, x.sub_lut) = match f.sub {
            Sub::None => (0, &SUB_NONE),
            Sub::Src0 { sdwa, dpp8 } => (
                0,
                match (sdwa, dpp8) {
                    (true, true) => &SUB_SRC0_SDWA_DPP8,
                    (true, false) => &SUB_SRC0_SDWA,
                    (false, true) => &SUB_SRC0_DPP8,
                    (false, false) => &SUB_SRC0,
                },
            ),
            Sub::Vop3Dpp => (32, &SUB_VOP3_DPP),
        };
        x.sub_count = f.sub.count();
        let mut j = 0;
        while j < f.lits.len() && j < 3 {
            x.lits[j] = f.lits[j] as u32;
            j += 1;
        }
        x.lit_count = j;
        x.lit_mask = (1u64 << f.lit_width) - 1;
        x.seg = f.seg;
        x.family = f.family;
        x.needs_dw1 = f.needs_dw1();
        x.vop3p = matches!(f.family, Family::Vop3p);
        x.mask = f.mask;
        x.value = f.value;
        x
    }

    const fn all(l: Layout) -> [Fast; MAX_FORMATS] {
        let mut t = [Fast::NONE; MAX_FORMATS];
        let mut i = 0;
        while i < l.formats.len() && i < MAX_FORMATS {
            t[i] = Fast::of(&l.formats[i]);
            i += 1;
        }
        t
    }

    /// Table key of instruction bits `q` (as [`Format::key_of`]).
    #[inline(always)]
    fn key(&self, q: u64) -> usize {
        let [a, b, c] = self.key_rot;
        let [ma, mb, mc] = self.key_mask;
        ((q.rotate_right(a) & ma) | (q.rotate_right(b) & mb) | (q.rotate_right(c) & mc)) as usize
    }
}

/// `Sub::of` as a table of the 9-bit operand field it reads.
const fn sub_lut(sub: Sub) -> [u8; 512] {
    let at = match sub {
        Sub::Vop3Dpp => 32,
        _ => 0,
    };
    let mut t = [0u8; 512];
    let mut v = 0;
    while v < 512 {
        t[v] = sub.of((v as u64) << at) as u8;
        v += 1;
    }
    t
}

static SUB_NONE: [u8; 512] = [0; 512];
static SUB_SRC0: [u8; 512] = sub_lut(Sub::Src0 {
    sdwa: false,
    dpp8: false,
});
static SUB_SRC0_SDWA: [u8; 512] = sub_lut(Sub::Src0 {
    sdwa: true,
    dpp8: false,
});
static SUB_SRC0_DPP8: [u8; 512] = sub_lut(Sub::Src0 {
    sdwa: false,
    dpp8: true,
});
static SUB_SRC0_SDWA_DPP8: [u8; 512] = sub_lut(Sub::Src0 {
    sdwa: true,
    dpp8: true,
});
static SUB_VOP3_DPP: [u8; 512] = sub_lut(Sub::Vop3Dpp);

static DISPATCH_GFX89: [u8; 512] = layout(Gen::Gfx9).dispatch();
static DISPATCH_GFX10: [u8; 512] = layout(Gen::Gfx10).dispatch();
static DISPATCH_GFX11: [u8; 512] = layout(Gen::Gfx11).dispatch();
static DISPATCH_GFX12: [u8; 512] = layout(Gen::Gfx12).dispatch();
static FAST_GFX89: [Fast; MAX_FORMATS] = Fast::all(layout(Gen::Gfx9));
static FAST_GFX10: [Fast; MAX_FORMATS] = Fast::all(layout(Gen::Gfx10));
static FAST_GFX11: [Fast; MAX_FORMATS] = Fast::all(layout(Gen::Gfx11));
static FAST_GFX12: [Fast; MAX_FORMATS] = Fast::all(layout(Gen::Gfx12));

/// The formats of one variant: the generation's template with each format's table, so the
/// decoding loop reaches the table in the same load as the format.
fn with_tables(template: &[Fast; MAX_FORMATS], variant: &Variant) -> [Fast; MAX_FORMATS] {
    let mut t = *template;
    for (fi, (f, table)) in t.iter_mut().zip(variant.tables).enumerate() {
        f.table = table;
        f.reserved = variant
            .reserved
            .get(fi * 3..fi * 3 + 3)
            .and_then(|r| r.try_into().ok())
            .unwrap_or(&NO_RESERVED);
    }
    t
}

static NO_RESERVED: [[u64; 8]; 3] = [[0; 8]; 3];

/// Formats by variant index, built on first use (a few microseconds).
static FAST_BY_VARIANT: [OnceLock<Box<[Fast; MAX_FORMATS]>>; 32] = [const { OnceLock::new() }; 32];

/// Generic targets and the processor whose tables they use when LLVM has no separate entry.
const ALIASES: &[(&str, &str)] = &[("gfx940", "gfx942"), ("gfx941", "gfx942")];

#[inline]
fn read32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    let a: [u8; 4] = s.try_into().ok()?;
    Some(u32::from_le_bytes(a))
}

impl Decoder {
    /// A decoder for `target`: a processor name (`gfx90a`), a full target id
    /// (`gfx90a:sramecc+:xnack-`, `amdgcn-amd-amdhsa--gfx942`) or a generic target
    /// (`gfx11-generic`). `None` for processors the tables do not cover (GFX6/7, gfx125x).
    pub fn for_target(target: &str) -> Option<Decoder> {
        let t = target.rsplit("--").next().unwrap_or(target);
        let t = t
            .rsplit('-')
            .next()
            .filter(|s| s.starts_with("gfx") && !t.ends_with("generic"))
            .unwrap_or(t);
        let name = t.split(':').next().unwrap_or(t).trim().to_ascii_lowercase();
        let name = ALIASES
            .iter()
            .find(|(a, _)| *a == name)
            .map_or(name.as_str(), |(_, b)| b);
        let (cpu, vi) = tables::CPUS.iter().find(|(c, _)| *c == name)?;
        let variant = tables::VARIANTS.get(usize::from(*vi))?;
        let (template, dispatch) = match variant.gen_ {
            Gen::Gfx8 | Gen::Gfx9 => (&FAST_GFX89, &DISPATCH_GFX89),
            Gen::Gfx10 => (&FAST_GFX10, &DISPATCH_GFX10),
            Gen::Gfx11 => (&FAST_GFX11, &DISPATCH_GFX11),
            Gen::Gfx12 => (&FAST_GFX12, &DISPATCH_GFX12),
        };
        let formats: &'static [Fast; MAX_FORMATS] = FAST_BY_VARIANT
            .get(usize::from(*vi))?
            .get_or_init(|| Box::new(with_tables(template, variant)));
        Some(Decoder {
            variant,
            formats,
            dispatch,
            cpu,
        })
    }

    /// A decoder for the processor of an AMDGPU ELF `e_flags` value (`EF_AMDGPU_MACH_*` in the
    /// low 8 bits), as used by code objects v3 and later. `None` for unknown or uncovered
    /// processors (and for 0, the value of legacy v1/v2 objects).
    pub fn for_mach(e_flags: u32) -> Option<Decoder> {
        let name = match e_flags & 0xff {
            0x28 => "gfx801",
            0x29 => "gfx802",
            0x2a => "gfx803",
            0x2b => "gfx810",
            0x3c => "gfx805",
            0x2c => "gfx900",
            0x2d => "gfx902",
            0x2e => "gfx904",
            0x2f => "gfx906",
            0x30 => "gfx908",
            0x31 => "gfx909",
            0x32 => "gfx90c",
            0x3f => "gfx90a",
            0x40 | 0x4b | 0x4c => "gfx942",
            0x4f => "gfx950",
            0x33 => "gfx1010",
            0x34 => "gfx1011",
            0x35 => "gfx1012",
            0x42 => "gfx1013",
            0x36 => "gfx1030",
            0x37 => "gfx1031",
            0x38 => "gfx1032",
            0x39 => "gfx1033",
            0x3e => "gfx1034",
            0x3d => "gfx1035",
            0x45 => "gfx1036",
            0x41 => "gfx1100",
            0x46 => "gfx1101",
            0x47 => "gfx1102",
            0x44 => "gfx1103",
            0x43 => "gfx1150",
            0x4a => "gfx1151",
            0x55 => "gfx1152",
            0x58 => "gfx1153",
            0x48 => "gfx1200",
            0x4e => "gfx1201",
            0x51 => "gfx9-generic",
            0x5f => "gfx9-4-generic",
            0x52 => "gfx10-1-generic",
            0x53 => "gfx10-3-generic",
            0x54 => "gfx11-generic",
            0x59 => "gfx12-generic",
            _ => return None,
        };
        Decoder::for_target(name)
    }

    /// Every processor name the tables cover.
    pub fn processors() -> impl Iterator<Item = &'static str> {
        tables::CPUS.iter().map(|(c, _)| *c)
    }

    /// The processor whose tables this decoder uses.
    pub fn processor(&self) -> &'static str {
        self.cpu
    }

    /// The generation.
    pub fn generation(&self) -> Gen {
        self.variant.gen_
    }

    /// Decode the instruction at the start of `bytes`.
    #[inline]
    pub fn decode(&self, bytes: &[u8]) -> Decoded {
        let r = self.decode_packed(bytes);
        match packed::family(r) {
            Some(family) => Decoded::Inst(Inst {
                len: packed::len(r),
                mnemonic: Mnemonic(packed::mnemonic(r)),
                family,
            }),
            None if r == packed::UNKNOWN => Decoded::Unknown,
            None => Decoded::Truncated {
                needed: packed::len(r),
            },
        }
    }

    /// [`Decoder::decode`] as one packed word (see [`packed`]): built with arithmetic, so the
    /// decoding loop never assembles an enum through memory.
    #[inline]
    pub(crate) fn decode_packed(&self, bytes: &[u8]) -> u32 {
        self.decode_with::<true>(bytes)
    }

    /// [`Decoder::decode_packed`]; without `FAMILY` the family bits of an instruction only say
    /// that it is one (they hold [`Family::Sop1`]), which spares counting loops the work.
    #[inline(always)]
    pub(crate) fn decode_with<const FAMILY: bool>(&self, bytes: &[u8]) -> u32 {
        let (dw0, dw1) = match bytes.first_chunk::<8>() {
            Some(c) => {
                let q = u64::from_le_bytes(*c);
                (q as u32, Some((q >> 32) as u32))
            }
            None => match read32(bytes, 0) {
                Some(dw0) => (dw0, None),
                None => return packed::truncated(4),
            },
        };
        let fi = usize::from(self.dispatch[(dw0 >> 23) as usize & 511]);
        let Some(fmt) = self.formats.get(fi.wrapping_sub(1)) else {
            return packed::UNKNOWN;
        };
        if dw1.is_none() && fmt.needs_dw1 {
            // Decide from the first dword alone only when that is unambiguous.
            return packed::truncated(8);
        }
        let q = u64::from(dw0) | (u64::from(dw1.unwrap_or(0)) << 32);
        let key = fmt.key(q);
        let sub = usize::from(fmt.sub_lut[((q >> fmt.sub_at) & 511) as usize]);
        let mut e = fmt
            .table
            .get(key * fmt.sub_count + sub)
            .copied()
            .unwrap_or(0);
        if fmt.vop3p {
            if let Some((pk, px)) = self.variant.px2 {
                if key == pk {
                    e = scaled_mfma(bytes, fmt, px).unwrap_or(e);
                }
            }
        }
        if dw0 == 0 && self.variant.zero != 0 {
            e = self.variant.zero;
        }
        let Some(m) = entry::mnemonic(e) else {
            return packed::UNKNOWN;
        };
        let mut dwords = entry::dwords(e);
        let lm = entry::litmask(e);
        if lm != 0 {
            match literal(fmt, lm, q) {
                Some(lit) => dwords += lit,
                None => return packed::UNKNOWN,
            }
        }
        let len = dwords * 4;
        if len as usize > bytes.len() {
            return packed::truncated(len.min(255));
        }
        let family = match fmt.seg {
            _ if !FAMILY => Family::Sop1,
            Some(lo) => match (dw0 >> lo) & 3 {
                1 => Family::Scratch,
                2 => Family::Global,
                _ => Family::Flat,
            },
            None => fmt.family,
        };
        packed::inst(m, len, family)
    }
}

/// Extra dwords for a literal of the source fields in `lm` (0 or 1), or `None` when a field
/// holds a code LLVM rejects for this format.
#[inline(always)]
fn literal(fmt: &Fast, lm: u32, q: u64) -> Option<u32> {
    let mut literal = 0;
    let mut rejected = 0;
    for (j, (&lo, row)) in fmt.lits.iter().zip(fmt.reserved).enumerate() {
        if lm & (1 << j) == 0 || j >= fmt.lit_count {
            continue;
        }
        // Fields are at most 9 bits wide: `code >> 6` indexes the 8 words of the row.
        let code = ((q >> lo) & fmt.lit_mask & 511) as usize;
        if code == 0xff {
            literal = 1;
        } else {
            rejected |= (row[code >> 6] >> (code & 63)) & 1;
        }
    }
    (rejected == 0).then_some(literal)
}

/// The result of decoding packed in a `u32`: bits 15:0 mnemonic id, 23:16 length (or bytes
/// needed), 31:24 family + 1 (0 when not an instruction: unknown, or truncated with bit 0
/// set).
pub(crate) mod packed {
    use crate::layout::Family;

    /// The word does not decode.
    pub const UNKNOWN: u32 = 0;

    /// An instruction.
    #[inline(always)]
    pub fn inst(m: u16, len: u32, family: Family) -> u32 {
        u32::from(m) | (len & 0xff) << 16 | (family as u32 + 1) << 24
    }
    /// Truncated: `needed` bytes.
    #[inline(always)]
    pub fn truncated(needed: u32) -> u32 {
        1 | (needed & 0xff) << 16
    }
    /// Mnemonic id.
    #[inline(always)]
    pub fn mnemonic(r: u32) -> u16 {
        (r & 0xffff) as u16
    }
    /// Length (or bytes needed).
    #[inline(always)]
    pub fn len(r: u32) -> u8 {
        ((r >> 16) & 0xff) as u8
    }
    /// Whether `r` is an instruction (cheaper than [`family`] when the family is not needed).
    #[inline(always)]
    pub fn is_inst(r: u32) -> bool {
        r >> 24 != 0
    }
    /// The family, when `r` is an instruction.
    #[inline(always)]
    pub fn family(r: u32) -> Option<Family> {
        let f = (r >> 24) as usize;
        Family::ALL.get(f.wrapping_sub(1)).copied()
    }
}

/// gfx950's 16-byte scaled MFMA: `v_mfma_ld_scale_b32` followed by a VOP3P MFMA; the entry of
/// the pair by the second half's opcode, if `bytes` hold one.
#[cold]
fn scaled_mfma(bytes: &[u8], fmt: &Fast, px: &[u32]) -> Option<u32> {
    let dw2 = read32(bytes, 8)?;
    if dw2 & fmt.mask != fmt.value || read32(bytes, 12).is_none() {
        return None;
    }
    px.get(((dw2 >> 16) & 0x7f) as usize)
        .copied()
        .filter(|&e| e != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_results_round_trip() {
        for f in Family::ALL {
            let r = packed::inst(0x1234, 12, f);
            assert_eq!(packed::family(r), Some(f));
            assert!(packed::is_inst(r));
            assert_eq!((packed::mnemonic(r), packed::len(r)), (0x1234, 12));
        }
        assert_eq!(packed::family(packed::UNKNOWN), None);
        assert!(!packed::is_inst(packed::UNKNOWN) && !packed::is_inst(packed::truncated(8)));
        let t = packed::truncated(8);
        assert_eq!((packed::family(t), packed::len(t)), (None, 8));
        assert_ne!(t, packed::UNKNOWN);
    }

    #[test]
    fn fast_keys_are_the_layout_keys() {
        let mut q: u64 = 0x9e37_79b9_7f4a_7c15;
        for g in [Gen::Gfx8, Gen::Gfx9, Gen::Gfx10, Gen::Gfx11, Gen::Gfx12] {
            for f in layout(g).formats {
                let fast = Fast::of(f);
                for _ in 0..4096 {
                    q = q
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    assert_eq!(fast.key(q), f.key_of(q), "{} {q:#x}", f.name);
                    assert_eq!(fast.key(!0), f.key_of(!0), "{}", f.name);
                }
            }
        }
    }

    #[test]
    fn every_variant_has_formats_and_every_processor_a_decoder() {
        assert!(tables::VARIANTS.len() <= FAST_BY_VARIANT.len());
        for p in Decoder::processors() {
            let d = Decoder::for_target(p);
            assert!(d.is_some(), "{p}");
            if let Some(d) = d {
                let n = layout(d.generation()).formats.len();
                assert!(d.formats.iter().take(n).all(|f| !f.table.is_empty()), "{p}");
            }
        }
    }
}
