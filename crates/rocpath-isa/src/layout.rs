//! Encoding layouts: how each generation splits the instruction space into encoding formats, and
//! which bits of a format select the table entry.
//!
//! This file is shared, unchanged, by the table generator (`xtask codegen-isa`), which includes
//! it with `#[path]`. It must stay self-contained: no `use crate::...`.

/// Encoding family of an instruction, as the ISA manuals name the microcode formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Family {
    /// Scalar ALU, one source (`s_mov_b32`).
    Sop1,
    /// Scalar ALU, two sources (`s_add_u32`).
    Sop2,
    /// Scalar ALU with a 16-bit immediate (`s_movk_i32`).
    Sopk,
    /// Scalar compare (`s_cmp_eq_u32`).
    Sopc,
    /// Scalar program control (`s_nop`, `s_waitcnt`, branches).
    Sopp,
    /// Scalar memory (`s_load_dword`).
    Smem,
    /// Vector ALU, one source, 32-bit encoding.
    Vop1,
    /// Vector ALU, two sources, 32-bit encoding.
    Vop2,
    /// Vector compare, 32-bit encoding.
    Vopc,
    /// Vector ALU, 64-bit encoding.
    Vop3,
    /// Packed and matrix vector ALU (`v_pk_*`, MFMA, WMMA, dot).
    Vop3p,
    /// Dual-issue vector ALU (GFX11+ `v_dual_*`).
    Vopd,
    /// Interpolation (GFX8-GFX10 `v_interp_*`).
    Vintrp,
    /// Interpolation (GFX11+ `v_interp_*_f32` with waitexp).
    Vinterp,
    /// LDS direct/parameter loads (GFX11+ `lds_direct_load`, `ds_direct_load`).
    Ldsdir,
    /// LDS/GDS operations (`ds_*`).
    Ds,
    /// Flat memory (`flat_*`).
    Flat,
    /// Global memory (`global_*`).
    Global,
    /// Scratch memory (`scratch_*`).
    Scratch,
    /// Untyped buffer memory (`buffer_*`), GFX8-GFX11.
    Mubuf,
    /// Typed buffer memory (`tbuffer_*`), GFX8-GFX11.
    Mtbuf,
    /// Buffer memory, GFX12 (`buffer_*`, `tbuffer_*`).
    Vbuffer,
    /// Image memory (`image_*`), GFX8-GFX11.
    Mimg,
    /// Image memory without sampler, GFX12.
    Vimage,
    /// Image sampling, GFX12.
    Vsample,
    /// Export (`exp`).
    Exp,
}

impl Family {
    /// Every family, in declaration order.
    pub const ALL: [Family; 26] = [
        Family::Sop1,
        Family::Sop2,
        Family::Sopk,
        Family::Sopc,
        Family::Sopp,
        Family::Smem,
        Family::Vop1,
        Family::Vop2,
        Family::Vopc,
        Family::Vop3,
        Family::Vop3p,
        Family::Vopd,
        Family::Vintrp,
        Family::Vinterp,
        Family::Ldsdir,
        Family::Ds,
        Family::Flat,
        Family::Global,
        Family::Scratch,
        Family::Mubuf,
        Family::Mtbuf,
        Family::Vbuffer,
        Family::Mimg,
        Family::Vimage,
        Family::Vsample,
        Family::Exp,
    ];

    /// Upper-case short name (`VOP3P`).
    pub const fn name(self) -> &'static str {
        match self {
            Family::Sop1 => "SOP1",
            Family::Sop2 => "SOP2",
            Family::Sopk => "SOPK",
            Family::Sopc => "SOPC",
            Family::Sopp => "SOPP",
            Family::Smem => "SMEM",
            Family::Vop1 => "VOP1",
            Family::Vop2 => "VOP2",
            Family::Vopc => "VOPC",
            Family::Vop3 => "VOP3",
            Family::Vop3p => "VOP3P",
            Family::Vopd => "VOPD",
            Family::Vintrp => "VINTRP",
            Family::Vinterp => "VINTERP",
            Family::Ldsdir => "LDSDIR",
            Family::Ds => "DS",
            Family::Flat => "FLAT",
            Family::Global => "GLOBAL",
            Family::Scratch => "SCRATCH",
            Family::Mubuf => "MUBUF",
            Family::Mtbuf => "MTBUF",
            Family::Vbuffer => "VBUFFER",
            Family::Mimg => "MIMG",
            Family::Vimage => "VIMAGE",
            Family::Vsample => "VSAMPLE",
            Family::Exp => "EXP",
        }
    }
}

/// Instruction-set generation. Each has its own set of encoding formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gen {
    /// GFX8 (gfx80x, gfx810).
    Gfx8,
    /// GFX9 (gfx900 ... gfx950).
    Gfx9,
    /// GFX10 (gfx101x, gfx103x).
    Gfx10,
    /// GFX11 (gfx110x, gfx115x).
    Gfx11,
    /// GFX12 (gfx120x).
    Gfx12,
}

/// How the table sub-index is computed from operand bits that change the mnemonic or length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sub {
    /// No sub-index.
    None,
    /// VOP1/VOP2/VOPC src0 (bits 8:0): 0 plain, 1 SDWA (0xF9), 2 DPP16 (0xFA), 3 DPP8 (0xE9/0xEA).
    /// `sdwa` and `dpp8` say whether the generation has those forms.
    Src0 {
        /// SDWA exists (GFX8-GFX10).
        sdwa: bool,
        /// DPP8 exists (GFX10+).
        dpp8: bool,
    },
    /// VOP3/VOP3P src0 (bits 40:32) on GFX11+: 0 plain, 1 DPP16 (0xFA), 2 DPP8 (0xE9/0xEA).
    Vop3Dpp,
}

impl Sub {
    /// Number of sub-index values.
    pub const fn count(self) -> usize {
        match self {
            Sub::None => 1,
            Sub::Src0 { .. } => 4,
            Sub::Vop3Dpp => 3,
        }
    }

    /// The sub-index of instruction bits `q` (first two dwords, little-endian).
    #[inline]
    pub const fn of(self, q: u64) -> usize {
        match self {
            Sub::None => 0,
            Sub::Src0 { sdwa, dpp8 } => match q & 0x1ff {
                0xf9 if sdwa => 1,
                0xfa => 2,
                0xe9 | 0xea if dpp8 => 3,
                _ => 0,
            },
            Sub::Vop3Dpp => match (q >> 32) & 0x1ff {
                0xfa => 1,
                0xe9 | 0xea => 2,
                _ => 0,
            },
        }
    }
}

/// One encoding format of a generation.
#[derive(Debug, Clone, Copy)]
pub struct Format {
    /// Short name, unique within the generation (used for table names).
    pub name: &'static str,
    /// Family reported for instructions of this format (FLAT formats refine it by `seg`).
    pub family: Family,
    /// `dw0 & mask == value` selects this format (first match in `Layout::formats` wins).
    /// Masks only use bits 31:23.
    pub mask: u32,
    /// See `mask`.
    pub value: u32,
    /// Bit fields `(lowest bit, width)` of the 64-bit instruction prefix forming the table key,
    /// most significant field first.
    pub key: &'static [(u8, u8)],
    /// How the sub-index is computed.
    pub sub: Sub,
    /// Lowest bits of the source fields that can select a 32-bit literal (value 255).
    pub lits: &'static [u8],
    /// Width of those fields (8 for scalar sources, 9 for vector sources).
    pub lit_width: u8,
    /// Lowest bit of the 2-bit FLAT segment field (0 flat, 1 scratch, 2 global), if any.
    pub seg: Option<u8>,
}

impl Format {
    /// Number of key bits.
    pub const fn key_bits(&self) -> u32 {
        let mut n = 0;
        let mut i = 0;
        while i < self.key.len() {
            n += self.key[i].1 as u32;
            i += 1;
        }
        n
    }

    /// Table length: keys times sub-indices.
    pub const fn table_len(&self) -> usize {
        (1usize << self.key_bits()) * self.sub.count()
    }

    /// Table key of instruction bits `q`.
    #[inline]
    pub const fn key_of(&self, q: u64) -> usize {
        let mut k: u64 = 0;
        let mut i = 0;
        while i < self.key.len() {
            let (lo, w) = self.key[i];
            k = (k << w) | ((q >> lo) & ((1u64 << w) - 1));
            i += 1;
        }
        k as usize
    }

    /// Table index (key and sub-index) of instruction bits `q`.
    #[inline]
    pub const fn index_of(&self, q: u64) -> usize {
        self.key_of(q) * self.sub.count() + self.sub.of(q)
    }

    /// Instruction bits `q` with the key fields replaced by `key`.
    pub const fn with_key(&self, q: u64, key: usize) -> u64 {
        let mut q = q;
        let mut k = key as u64;
        let mut i = self.key.len();
        while i > 0 {
            i -= 1;
            let (lo, w) = self.key[i];
            let m = ((1u64 << w) - 1) << lo;
            q = (q & !m) | ((k << lo) & m);
            k >>= w;
        }
        q
    }

    /// Whether a format uses the second dword to compute its key, sub-index or literal.
    pub const fn needs_dw1(&self) -> bool {
        let mut i = 0;
        while i < self.key.len() {
            if self.key[i].0 as u32 + self.key[i].1 as u32 > 32 {
                return true;
            }
            i += 1;
        }
        let mut j = 0;
        while j < self.lits.len() {
            if self.lits[j] >= 32 {
                return true;
            }
            j += 1;
        }
        matches!(self.sub, Sub::Vop3Dpp)
    }
}

/// The formats of one generation.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Generation.
    pub gen_: Gen,
    /// Formats, in match order.
    pub formats: &'static [Format],
}

impl Layout {
    /// Index into `formats` of the format of first dword `dw0`, if any.
    pub const fn format_of(&self, dw0: u32) -> Option<usize> {
        let mut i = 0;
        while i < self.formats.len() {
            let f = &self.formats[i];
            if dw0 & f.mask == f.value {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// Lookup table from bits 31:23 of the first dword to `format index + 1` (0 = none).
    pub const fn dispatch(&self) -> [u8; 512] {
        let mut t = [0u8; 512];
        let mut top = 0;
        while top < 512 {
            if let Some(i) = self.format_of((top as u32) << 23) {
                t[top] = i as u8 + 1;
            }
            top += 1;
        }
        t
    }
}

const NO_LITS: &[u8] = &[];
const SRC0_LIT: &[u8] = &[0];
const SSRC_LITS: &[u8] = &[0, 8];
const VOP3_LITS: &[u8] = &[32, 41, 50];
const VOPD_LITS: &[u8] = &[0, 32];

const fn f(
    name: &'static str,
    family: Family,
    mask: u32,
    value: u32,
    key: &'static [(u8, u8)],
) -> Format {
    Format {
        name,
        family,
        mask,
        value,
        key,
        sub: Sub::None,
        lits: NO_LITS,
        lit_width: 8,
        seg: None,
    }
}

const fn with_lits(mut x: Format, lits: &'static [u8], width: u8) -> Format {
    x.lits = lits;
    x.lit_width = width;
    x
}

const fn with_sub(mut x: Format, sub: Sub) -> Format {
    x.sub = sub;
    x
}

const fn with_seg(mut x: Format, seg: u8) -> Format {
    x.seg = Some(seg);
    x
}

const M9: u32 = 0xff80_0000;
const M6: u32 = 0xfc00_0000;
const M8: u32 = 0xff00_0000;

const SOP1: Format = with_lits(
    f("sop1", Family::Sop1, M9, 0xbe80_0000, &[(8, 8)]),
    SRC0_LIT,
    8,
);
const SOPC: Format = with_lits(
    f("sopc", Family::Sopc, M9, 0xbf00_0000, &[(16, 7)]),
    SSRC_LITS,
    8,
);
const SOPP: Format = f("sopp", Family::Sopp, M9, 0xbf80_0000, &[(16, 7)]);
const SOPK: Format = f("sopk", Family::Sopk, 0xf000_0000, 0xb000_0000, &[(23, 5)]);
const SOP2: Format = with_lits(
    f("sop2", Family::Sop2, 0xc000_0000, 0x8000_0000, &[(23, 7)]),
    SSRC_LITS,
    8,
);

const fn vop1(sdwa: bool, dpp8: bool) -> Format {
    with_sub(
        with_lits(
            f("vop1", Family::Vop1, 0xfe00_0000, 0x7e00_0000, &[(9, 8)]),
            SRC0_LIT,
            9,
        ),
        Sub::Src0 { sdwa, dpp8 },
    )
}
const fn vopc(sdwa: bool, dpp8: bool) -> Format {
    with_sub(
        with_lits(
            f("vopc", Family::Vopc, 0xfe00_0000, 0x7c00_0000, &[(17, 8)]),
            SRC0_LIT,
            9,
        ),
        Sub::Src0 { sdwa, dpp8 },
    )
}
const fn vop2(sdwa: bool, dpp8: bool) -> Format {
    with_sub(
        with_lits(
            f("vop2", Family::Vop2, 0x8000_0000, 0, &[(25, 6)]),
            SRC0_LIT,
            9,
        ),
        Sub::Src0 { sdwa, dpp8 },
    )
}

/// GFX8 and GFX9 (VI encoding).
static GFX89: [Format; 18] = [
    SOP1,
    SOPC,
    SOPP,
    SOPK,
    SOP2,
    f("smem", Family::Smem, M6, 0xc000_0000, &[(18, 8)]),
    vopc(true, false),
    vop1(true, false),
    vop2(true, false),
    f("vop3p", Family::Vop3p, M9, 0xd380_0000, &[(16, 7)]),
    f("vop3", Family::Vop3, M6, 0xd000_0000, &[(16, 10)]),
    f("vintrp", Family::Vintrp, M6, 0xd400_0000, &[(16, 2)]),
    f("ds", Family::Ds, M6, 0xd800_0000, &[(17, 8)]),
    with_seg(
        f(
            "flat",
            Family::Flat,
            M6,
            0xdc00_0000,
            &[(18, 7), (14, 2), (13, 1)],
        ),
        14,
    ),
    f("mubuf", Family::Mubuf, M6, 0xe000_0000, &[(18, 7), (16, 1)]),
    f("mtbuf", Family::Mtbuf, M6, 0xe800_0000, &[(15, 4)]),
    f("mimg", Family::Mimg, M6, 0xf000_0000, &[(18, 7)]),
    f("exp", Family::Exp, M6, 0xc400_0000, &[]),
];

/// GFX10 (gfx101x, gfx103x).
static GFX10: [Format; 18] = [
    SOP1,
    SOPC,
    SOPP,
    SOPK,
    SOP2,
    f("smem", Family::Smem, M6, 0xf400_0000, &[(18, 8)]),
    vopc(true, true),
    vop1(true, true),
    vop2(true, true),
    with_lits(
        f("vop3p", Family::Vop3p, M6, 0xcc00_0000, &[(16, 7)]),
        VOP3_LITS,
        9,
    ),
    with_lits(
        f("vop3", Family::Vop3, M6, 0xd400_0000, &[(16, 10)]),
        VOP3_LITS,
        9,
    ),
    f("vintrp", Family::Vintrp, M6, 0xc800_0000, &[(16, 2)]),
    f("ds", Family::Ds, M6, 0xd800_0000, &[(18, 8)]),
    with_seg(
        f(
            "flat",
            Family::Flat,
            M6,
            0xdc00_0000,
            &[(18, 7), (14, 2), (13, 1)],
        ),
        14,
    ),
    f("mubuf", Family::Mubuf, M6, 0xe000_0000, &[(18, 8), (16, 1)]),
    f("mtbuf", Family::Mtbuf, M6, 0xe800_0000, &[(53, 1), (16, 3)]),
    f(
        "mimg",
        Family::Mimg,
        M6,
        0xf000_0000,
        &[(18, 7), (0, 1), (1, 2)],
    ),
    f("exp", Family::Exp, M6, 0xf800_0000, &[]),
];

/// GFX11 (gfx110x, gfx115x).
static GFX11: [Format; 20] = [
    SOP1,
    SOPC,
    SOPP,
    SOPK,
    SOP2,
    f("smem", Family::Smem, M6, 0xf400_0000, &[(18, 8)]),
    vopc(false, true),
    vop1(false, true),
    vop2(false, true),
    with_lits(
        f("vopd", Family::Vopd, M6, 0xc800_0000, &[(22, 4), (17, 5)]),
        VOPD_LITS,
        9,
    ),
    with_sub(
        with_lits(
            f("vop3p", Family::Vop3p, M8, 0xcc00_0000, &[(16, 7)]),
            VOP3_LITS,
            9,
        ),
        Sub::Vop3Dpp,
    ),
    f("vinterp", Family::Vinterp, M8, 0xcd00_0000, &[(16, 7)]),
    f("ldsdir", Family::Ldsdir, M8, 0xce00_0000, &[(20, 2)]),
    with_sub(
        with_lits(
            f("vop3", Family::Vop3, M6, 0xd400_0000, &[(16, 10)]),
            VOP3_LITS,
            9,
        ),
        Sub::Vop3Dpp,
    ),
    f("ds", Family::Ds, M6, 0xd800_0000, &[(18, 8)]),
    with_seg(
        f("flat", Family::Flat, M6, 0xdc00_0000, &[(18, 7), (16, 2)]),
        16,
    ),
    f("mubuf", Family::Mubuf, M6, 0xe000_0000, &[(18, 8)]),
    f("mtbuf", Family::Mtbuf, M6, 0xe800_0000, &[(15, 4)]),
    f("mimg", Family::Mimg, M6, 0xf000_0000, &[(18, 8), (0, 1)]),
    f("exp", Family::Exp, M6, 0xf800_0000, &[]),
];

/// GFX12 (gfx120x).
static GFX12: [Format; 20] = [
    SOP1,
    SOPC,
    SOPP,
    SOPK,
    SOP2,
    f("smem", Family::Smem, M6, 0xf400_0000, &[(13, 8)]),
    vopc(false, true),
    vop1(false, true),
    vop2(false, true),
    with_lits(
        f("vopd", Family::Vopd, M6, 0xc800_0000, &[(22, 4), (17, 5)]),
        VOPD_LITS,
        9,
    ),
    with_sub(
        with_lits(
            f("vop3p", Family::Vop3p, M8, 0xcc00_0000, &[(16, 7)]),
            VOP3_LITS,
            9,
        ),
        Sub::Vop3Dpp,
    ),
    f("vinterp", Family::Vinterp, M8, 0xcd00_0000, &[(16, 7)]),
    f("ldsdir", Family::Ldsdir, M8, 0xce00_0000, &[(20, 2)]),
    with_sub(
        with_lits(
            f("vop3", Family::Vop3, M6, 0xd400_0000, &[(16, 10)]),
            VOP3_LITS,
            9,
        ),
        Sub::Vop3Dpp,
    ),
    f("ds", Family::Ds, M6, 0xd800_0000, &[(18, 8)]),
    f("vbuffer", Family::Vbuffer, M6, 0xc400_0000, &[(14, 8)]),
    f("vimage", Family::Vimage, M6, 0xd000_0000, &[(14, 8)]),
    f("vsample", Family::Vsample, M6, 0xe400_0000, &[(14, 8)]),
    with_seg(
        f("vflat", Family::Flat, M6, 0xec00_0000, &[(14, 7), (24, 2)]),
        24,
    ),
    f("exp", Family::Exp, M6, 0xf800_0000, &[]),
];

/// The layout of a generation.
pub const fn layout(g: Gen) -> Layout {
    match g {
        Gen::Gfx8 | Gen::Gfx9 => Layout {
            gen_: g,
            formats: &GFX89,
        },
        Gen::Gfx10 => Layout {
            gen_: g,
            formats: &GFX10,
        },
        Gen::Gfx11 => Layout {
            gen_: g,
            formats: &GFX11,
        },
        Gen::Gfx12 => Layout {
            gen_: g,
            formats: &GFX12,
        },
    }
}

/// Table entry packing: bits 15:0 mnemonic id + 1 (0 = invalid), bits 19:16 length in dwords
/// without literal, bits 22:20 literal mask (bit i: `Format::lits[i]`).
pub mod entry {
    /// Pack an entry.
    pub const fn pack(mnemonic: u16, dwords: u8, litmask: u8) -> u32 {
        (mnemonic as u32 + 1) | ((dwords as u32 & 0xf) << 16) | ((litmask as u32 & 7) << 20)
    }
    /// Mnemonic id, if valid.
    #[inline]
    pub const fn mnemonic(e: u32) -> Option<u16> {
        let m = e & 0xffff;
        if m == 0 { None } else { Some((m - 1) as u16) }
    }
    /// Length in dwords without literal.
    #[inline]
    pub const fn dwords(e: u32) -> u32 {
        (e >> 16) & 0xf
    }
    /// Literal mask.
    #[inline]
    pub const fn litmask(e: u32) -> u32 {
        (e >> 20) & 7
    }
}

/// Fingerprint (FNV-1a 64) of every generation's formats. The generator records it in the
/// generated tables; a test checks that the committed tables were generated for this layout.
pub fn fingerprint() -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for g in [Gen::Gfx8, Gen::Gfx9, Gen::Gfx10, Gen::Gfx11, Gen::Gfx12] {
        let s = format!("{:?}", layout(g).formats);
        for b in s.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}
