//! Types of the architecture table. The data lives in `table.rs`.

use serde::Serialize;

/// Marketing/architecture family of a gfx target, as AMD and the research pages name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Family {
    /// GCN 1 (Southern Islands, gfx6).
    Gcn1,
    /// GCN 2 (Sea Islands, gfx7).
    Gcn2,
    /// GCN 3 (Volcanic Islands: Carrizo gfx801, Iceland/Tonga gfx802, Fiji gfx803, Tonga Pro
    /// gfx805, Stoney gfx810). gfx803 also covers the Polaris chips, so its row is in this family.
    Gcn3,
    /// GCN 4 (Polaris). LLVM gives Polaris no processor of its own (polaris10/11 are aliases of
    /// gfx803), so no row of the table uses this family.
    Gcn4,
    /// GCN 5 (Vega: gfx900, gfx902, gfx904, gfx906, gfx909, gfx90c).
    Gcn5,
    /// CDNA 1 (MI100: gfx908).
    Cdna1,
    /// CDNA 2 (MI200: gfx90a).
    Cdna2,
    /// CDNA 3 (MI300: gfx942).
    Cdna3,
    /// CDNA 4 (MI350: gfx950).
    Cdna4,
    /// RDNA 1 (gfx101x).
    Rdna1,
    /// RDNA 2 (gfx103x).
    Rdna2,
    /// RDNA 3 (gfx110x).
    Rdna3,
    /// RDNA 3.5 (gfx115x).
    Rdna3_5,
    /// RDNA 4 (gfx120x).
    Rdna4,
    /// gfx125x (MI400-class; LLVM GFX12.5).
    Gfx12_5,
    /// A generic target spanning several families (gfx9-generic, ...).
    Generic,
}

/// LLVM's encoding generation (`FeatureSouthernIslands` ... `FeatureGFX12`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Generation {
    /// Southern Islands (gfx6).
    Si,
    /// Sea Islands (gfx7).
    Ci,
    /// Volcanic Islands (gfx8).
    Vi,
    /// GFX9 (gfx9xx incl. gfx90a/gfx942/gfx950).
    Gfx9,
    /// GFX10 (gfx10xx).
    Gfx10,
    /// GFX11 (gfx11xx).
    Gfx11,
    /// GFX12 (gfx12xx).
    Gfx12,
}

/// Generation of the matrix-core (MAI / MFMA) instruction set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Mfma {
    /// gfx908: first MFMA, AGPRs only as MFMA accumulators.
    Cdna1,
    /// gfx90a: FP64 MFMA, unified VGPR/AGPR file (`FeatureGFX90AInsts`).
    Cdna2,
    /// gfx942 and gfx9-4-generic: SMFMAC, new MFMA shapes (`FeatureGFX940Insts`). The FP8 and
    /// XF32 MFMA of gfx942 are separate columns (`fp8`, `xf32`): gfx9-4-generic lacks them.
    Cdna3,
    /// gfx950: MX (FP4/FP6) scaled MFMA (`FeatureGFX950Insts`).
    Cdna4,
}

/// Generation of the WMMA instruction set (RDNA matrix cores).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Wmma {
    /// GFX11 WMMA (gfx11xx), wave32 and wave64.
    Gfx11,
    /// GFX12 WMMA/SWMMAC (gfx12xx), FP8/BF8 variants.
    Gfx12,
    /// GFX12.5 WMMA (gfx125x).
    Gfx1250,
}

/// Whether a target-id feature (xnack, sramecc) may be specified for this target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TargetFeature {
    /// The target has no such setting; a target id may not name it.
    Unsupported,
    /// The target supports `:feature+`/`:feature-` (and "any" when omitted).
    Supported,
}

/// One row of the architecture table.
#[derive(Debug, Clone, Serialize)]
pub struct TargetInfo {
    /// Processor name as LLVM spells it (`gfx900`, `gfx9-generic`).
    pub name: &'static str,
    /// `EF_AMDGPU_MACH_*` value stored in ELF `e_flags` (bits 0..7).
    pub mach: u32,
    /// Major, minor, stepping as in `HSA_OVERRIDE_GFX_VERSION` (gfx90a = 9.0.10).
    pub version: (u8, u8, u8),
    /// Family name.
    pub family: Family,
    /// LLVM encoding generation.
    pub generation: Generation,
    /// Products that carry this chip (short list; informative).
    pub products: &'static [&'static str],
    /// Wavefront sizes the hardware supports; the first is the default.
    pub wavefront_sizes: &'static [u32],
    /// xnack target-id feature.
    pub xnack: TargetFeature,
    /// sramecc target-id feature.
    pub sramecc: TargetFeature,
    /// XNACK is always on and a target id may not name it (LLVM `FEATURE_XNACK_ALWAYS`:
    /// gfx1250, gfx1251).
    pub xnack_always_on: bool,
    /// Whether LLVM writes an xnack setting into ELF `e_flags` (bits 8-9; "any" when the
    /// target id leaves it out). Equal to `xnack` except on gfx1250/gfx1251, where the target
    /// id cannot name xnack but LLVM 22 still marks code objects "xnack any".
    pub elf_xnack: TargetFeature,
    /// Whether LLVM writes an sramecc setting into ELF `e_flags` (bits 10-11). Equal to
    /// `sramecc` except on gfx1250/gfx1251 (see `elf_xnack`).
    pub elf_sramecc: TargetFeature,
    /// `FeatureDLInsts` (deep-learning instructions, e.g. `v_fmac_f32` on GFX9 DL parts).
    pub dl_insts: bool,
    /// `FeatureDotNInsts` present, as the list of N (1..=13).
    pub dot: &'static [u8],
    /// MFMA generation, if the target has matrix cores of the MAI kind.
    pub mfma: Option<Mfma>,
    /// WMMA generation, if the target has RDNA matrix instructions.
    pub wmma: Option<Wmma>,
    /// `FeaturePackedFP32Ops` (`v_pk_fma_f32`, `v_pk_mul_f32`, ...).
    pub packed_fp32: bool,
    /// `FeatureMadMixInsts` or `FeatureFmaMixInsts` (`v_mad_mix*`/`v_fma_mix*`).
    pub mix_insts: bool,
    /// FP8/BF8 conversion instructions (`FeatureFP8ConversionInsts` or `FeatureFP8Insts`).
    pub fp8: bool,
    /// `FeatureXF32Insts` (gfx942 XF32 MFMA).
    pub xf32: bool,
    /// LDS bytes available to one workgroup.
    pub lds_bytes: u32,
    /// The generic target that covers this one, if any (`gfx900` -> `gfx9-generic`).
    pub generic: Option<&'static str>,
    /// For a generic target: the specific targets it covers.
    pub covers: &'static [&'static str],
    /// First LLVM release that knows the processor (e.g. "3.9", "18").
    pub llvm_since: &'static str,
    /// Where the facts come from (file@version and note).
    pub source: &'static str,
}
