//! Instruction classes and signals, computed from the mnemonic text.
//!
//! The table generator (`xtask codegen-isa`) includes this file with `#[path]` and stores the
//! result of [`class_of`] and [`signals_of`] for every mnemonic in the generated tables, so the
//! decoder never classifies strings at run time. It must stay self-contained.

/// What kind of work an instruction does. Matrix and dot-product classes carry their data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Class {
    /// MFMA with f32 inputs (`v_mfma_f32_32x32x2f32`).
    MfmaF32,
    /// MFMA with xf32 inputs (gfx940 `..._xf32`).
    MfmaXf32,
    /// MFMA with f16 inputs.
    MfmaF16,
    /// MFMA with bf16 inputs (including `_1k`).
    MfmaBf16,
    /// MFMA with i8 inputs.
    MfmaI8,
    /// MFMA with f64 inputs.
    MfmaF64,
    /// MFMA with fp8/bf8 inputs.
    MfmaFp8,
    /// MFMA with mixed fp8/fp6/fp4 inputs (gfx950 `f8f6f4`, including the scaled forms).
    MfmaF8f6f4,
    /// Other MFMA-unit instructions (`v_mfma_ld_scale_b32`).
    MfmaOther,
    /// Sparse MFMA (`v_smfmac_*`) with f16 inputs.
    SmfmacF16,
    /// Sparse MFMA with bf16 inputs.
    SmfmacBf16,
    /// Sparse MFMA with i8 inputs.
    SmfmacI8,
    /// Sparse MFMA with fp8/bf8 inputs.
    SmfmacFp8,
    /// WMMA with f16 inputs.
    WmmaF16,
    /// WMMA with bf16 inputs.
    WmmaBf16,
    /// WMMA with 8-bit integer inputs.
    WmmaI8,
    /// WMMA with 4-bit integer inputs.
    WmmaI4,
    /// WMMA with fp8/bf8 inputs.
    WmmaFp8,
    /// Sparse WMMA (`v_swmmac_*`) with f16 inputs.
    SwmmacF16,
    /// Sparse WMMA with bf16 inputs.
    SwmmacBf16,
    /// Sparse WMMA with 8-bit integer inputs.
    SwmmacI8,
    /// Sparse WMMA with 4-bit integer inputs.
    SwmmacI4,
    /// Sparse WMMA with fp8/bf8 inputs.
    SwmmacFp8,
    /// `v_dot4_i32_i8` / `v_dot4_i32_iu8` / `v_dot4c_i32_i8`.
    Dot4I32I8,
    /// `v_dot4_u32_u8`.
    Dot4U32U8,
    /// `v_dot8_i32_i4` / `v_dot8_i32_iu4` / `v_dot8c_i32_i4`.
    Dot8I32I4,
    /// `v_dot8_u32_u4`.
    Dot8U32U4,
    /// `v_dot2_f32_f16` / `v_dot2c_f32_f16`.
    Dot2F32F16,
    /// `v_dot2_f32_bf16` / `v_dot2c_f32_bf16`.
    Dot2F32Bf16,
    /// `v_dot2_f16_f16`.
    Dot2F16F16,
    /// `v_dot2_bf16_bf16`.
    Dot2Bf16Bf16,
    /// `v_dot2_i32_i16` / `v_dot2c_i32_i16`.
    Dot2I32I16,
    /// `v_dot2_u32_u16`.
    Dot2U32U16,
    /// fp8/bf8 dot products (`v_dot4_f32_fp8_bf8` ...).
    DotFp8,
    /// Any other `v_dot*`.
    DotOther,
    /// Packed math (`v_pk_*`).
    Packed,
    /// Fused/unfused multiply-add (`v_fma*`, `v_mac*`, `v_mad*`, `v_fmac*`).
    Fma,
    /// Transcendental (`v_exp`, `v_log`, `v_rcp`, `v_rsq`, `v_sqrt`, `v_sin`, `v_cos`).
    Transcendental,
    /// Conversion (`v_cvt*`).
    Conversion,
    /// Other vector ALU.
    Valu,
    /// Scalar ALU.
    Salu,
    /// Global memory (`global_*`).
    VmemGlobal,
    /// Buffer memory (`buffer_*`, `tbuffer_*`).
    VmemBuffer,
    /// Flat memory (`flat_*`).
    VmemFlat,
    /// Scratch memory (`scratch_*`).
    VmemScratch,
    /// Image memory (`image_*`).
    VmemImage,
    /// LDS/GDS (`ds_*`, `lds_*`).
    Lds,
    /// Scalar memory (`s_load*`, `s_buffer_load*`, `s_store*`, ...).
    Smem,
    /// Branches, calls and program end (`s_branch`, `s_cbranch_*`, `s_setpc`, `s_endpgm`).
    Branch,
    /// Waits (`s_waitcnt*`, `s_wait_*`).
    Wait,
    /// Everything else (`s_nop`, `exp`, `.long`, ...).
    Other,
}

impl Class {
    /// Number of classes.
    pub const COUNT: usize = Class::Other as usize + 1;

    /// Every class, in declaration order (`ALL[c as usize] == c`).
    pub const ALL: [Class; Class::COUNT] = [
        Class::MfmaF32,
        Class::MfmaXf32,
        Class::MfmaF16,
        Class::MfmaBf16,
        Class::MfmaI8,
        Class::MfmaF64,
        Class::MfmaFp8,
        Class::MfmaF8f6f4,
        Class::MfmaOther,
        Class::SmfmacF16,
        Class::SmfmacBf16,
        Class::SmfmacI8,
        Class::SmfmacFp8,
        Class::WmmaF16,
        Class::WmmaBf16,
        Class::WmmaI8,
        Class::WmmaI4,
        Class::WmmaFp8,
        Class::SwmmacF16,
        Class::SwmmacBf16,
        Class::SwmmacI8,
        Class::SwmmacI4,
        Class::SwmmacFp8,
        Class::Dot4I32I8,
        Class::Dot4U32U8,
        Class::Dot8I32I4,
        Class::Dot8U32U4,
        Class::Dot2F32F16,
        Class::Dot2F32Bf16,
        Class::Dot2F16F16,
        Class::Dot2Bf16Bf16,
        Class::Dot2I32I16,
        Class::Dot2U32U16,
        Class::DotFp8,
        Class::DotOther,
        Class::Packed,
        Class::Fma,
        Class::Transcendental,
        Class::Conversion,
        Class::Valu,
        Class::Salu,
        Class::VmemGlobal,
        Class::VmemBuffer,
        Class::VmemFlat,
        Class::VmemScratch,
        Class::VmemImage,
        Class::Lds,
        Class::Smem,
        Class::Branch,
        Class::Wait,
        Class::Other,
    ];

    /// Stable snake_case name (`mfma_bf16`, `dot4_i32_i8`, `vmem_global`).
    pub const fn name(self) -> &'static str {
        match self {
            Class::MfmaF32 => "mfma_f32",
            Class::MfmaXf32 => "mfma_xf32",
            Class::MfmaF16 => "mfma_f16",
            Class::MfmaBf16 => "mfma_bf16",
            Class::MfmaI8 => "mfma_i8",
            Class::MfmaF64 => "mfma_f64",
            Class::MfmaFp8 => "mfma_fp8",
            Class::MfmaF8f6f4 => "mfma_f8f6f4",
            Class::MfmaOther => "mfma_other",
            Class::SmfmacF16 => "smfmac_f16",
            Class::SmfmacBf16 => "smfmac_bf16",
            Class::SmfmacI8 => "smfmac_i8",
            Class::SmfmacFp8 => "smfmac_fp8",
            Class::WmmaF16 => "wmma_f16",
            Class::WmmaBf16 => "wmma_bf16",
            Class::WmmaI8 => "wmma_i8",
            Class::WmmaI4 => "wmma_i4",
            Class::WmmaFp8 => "wmma_fp8",
            Class::SwmmacF16 => "swmmac_f16",
            Class::SwmmacBf16 => "swmmac_bf16",
            Class::SwmmacI8 => "swmmac_i8",
            Class::SwmmacI4 => "swmmac_i4",
            Class::SwmmacFp8 => "swmmac_fp8",
            Class::Dot4I32I8 => "dot4_i32_i8",
            Class::Dot4U32U8 => "dot4_u32_u8",
            Class::Dot8I32I4 => "dot8_i32_i4",
            Class::Dot8U32U4 => "dot8_u32_u4",
            Class::Dot2F32F16 => "dot2_f32_f16",
            Class::Dot2F32Bf16 => "dot2_f32_bf16",
            Class::Dot2F16F16 => "dot2_f16_f16",
            Class::Dot2Bf16Bf16 => "dot2_bf16_bf16",
            Class::Dot2I32I16 => "dot2_i32_i16",
            Class::Dot2U32U16 => "dot2_u32_u16",
            Class::DotFp8 => "dot_fp8",
            Class::DotOther => "dot_other",
            Class::Packed => "packed",
            Class::Fma => "fma",
            Class::Transcendental => "transcendental",
            Class::Conversion => "conversion",
            Class::Valu => "valu",
            Class::Salu => "salu",
            Class::VmemGlobal => "vmem_global",
            Class::VmemBuffer => "vmem_buffer",
            Class::VmemFlat => "vmem_flat",
            Class::VmemScratch => "vmem_scratch",
            Class::VmemImage => "vmem_image",
            Class::Lds => "lds",
            Class::Smem => "smem",
            Class::Branch => "branch",
            Class::Wait => "wait",
            Class::Other => "other",
        }
    }

    /// Coarse group of the class.
    pub const fn group(self) -> Group {
        match self as u8 {
            x if x <= Class::MfmaOther as u8 => Group::Mfma,
            x if x <= Class::SmfmacFp8 as u8 => Group::Mfma,
            x if x <= Class::SwmmacFp8 as u8 => Group::Wmma,
            x if x <= Class::DotOther as u8 => Group::Dot,
            _ => match self {
                Class::Packed => Group::Packed,
                Class::Fma => Group::Fma,
                Class::Transcendental | Class::Conversion | Class::Valu => Group::Valu,
                Class::Salu => Group::Salu,
                Class::VmemGlobal
                | Class::VmemBuffer
                | Class::VmemFlat
                | Class::VmemScratch
                | Class::VmemImage => Group::Vmem,
                Class::Lds => Group::Lds,
                Class::Smem => Group::Smem,
                Class::Branch => Group::Branch,
                Class::Wait => Group::Wait,
                _ => Group::Other,
            },
        }
    }
}

/// Coarse grouping of [`Class`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    /// MFMA and SMFMAC (CDNA matrix cores).
    Mfma,
    /// WMMA and SWMMAC (RDNA matrix instructions).
    Wmma,
    /// Dot products.
    Dot,
    /// Packed math.
    Packed,
    /// Multiply-add.
    Fma,
    /// Other vector ALU (including transcendental and conversions).
    Valu,
    /// Scalar ALU.
    Salu,
    /// Vector memory.
    Vmem,
    /// LDS.
    Lds,
    /// Scalar memory.
    Smem,
    /// Branches.
    Branch,
    /// Waits.
    Wait,
    /// Other.
    Other,
}

/// Signal bit: `(?i)v_dot4|v_dot2`.
pub const SIG_DOT4: u8 = 1;
/// Signal bit: `\bv_pk_`.
pub const SIG_PACKED: u8 = 2;
/// Signal bit: `\bv_mfma`.
pub const SIG_MFMA: u8 = 4;
/// Signal bit: `\bv_fma|\bv_mac|\bv_mad`.
pub const SIG_FMA: u8 = 8;
/// Signal bit: `buffer_|global_|flat_|ds_read|ds_write|scratch_`.
pub const SIG_MEMORY: u8 = 16;

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `\bpat` search: `pat` (starting with a word character) occurs after a non-word character or
/// at the start.
fn word_start(s: &str, pat: &str) -> bool {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = s.get(from..).and_then(|t| t.find(pat)) {
        let at = from + i;
        if at == 0 || b.get(at - 1).is_some_and(|&c| !is_word(c)) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The five research-workflow signals of a mnemonic, as `SIG_*` bits.
pub fn signals_of(m: &str) -> u8 {
    let mut s = 0;
    let lower = m.to_ascii_lowercase();
    if lower.contains("v_dot4") || lower.contains("v_dot2") {
        s |= SIG_DOT4;
    }
    if word_start(m, "v_pk_") {
        s |= SIG_PACKED;
    }
    if word_start(m, "v_mfma") {
        s |= SIG_MFMA;
    }
    if word_start(m, "v_fma") || word_start(m, "v_mac") || word_start(m, "v_mad") {
        s |= SIG_FMA;
    }
    if [
        "buffer_", "global_", "flat_", "ds_read", "ds_write", "scratch_",
    ]
    .iter()
    .any(|p| m.contains(p))
    {
        s |= SIG_MEMORY;
    }
    s
}

/// Input data type of a matrix instruction, from the part after its `MxNxK` shape.
fn matrix_type(m: &str) -> &'static str {
    // The shape is the first `_<digits>x<digits>x<digits>` component.
    let tail = m
        .split('_')
        .skip_while(|p| {
            !(p.split('x').count() == 3
                && p.split('x')
                    .all(|d| d.chars().next().is_some_and(|c| c.is_ascii_digit())))
        })
        .collect::<Vec<_>>()
        .join("_");
    let t = if tail.is_empty() { m } else { tail.as_str() };
    // Strip the shape digits to look at the types only.
    let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == 'x');
    if t.contains("f8f6f4") {
        "f8f6f4"
    } else if t.contains("fp8") || t.contains("bf8") {
        "fp8"
    } else if t.contains("xf32") {
        "xf32"
    } else if t.contains("bf16") {
        "bf16"
    } else if t.contains("f16") {
        "f16"
    } else if t.contains("f64") {
        "f64"
    } else if t.contains("iu4") || t.contains("i4") {
        "i4"
    } else if t.contains("i8") || t.contains("iu8") {
        "i8"
    } else if t.contains("f32") {
        "f32"
    } else {
        "other"
    }
}

fn dot_class(m: &str) -> Class {
    let body = m.strip_prefix("v_").unwrap_or(m);
    let has = |p: &str| body.starts_with(p);
    if body.contains("fp8") || body.contains("bf8") {
        Class::DotFp8
    } else if has("dot4_i32_i8") || has("dot4c_i32_i8") || has("dot4_i32_iu8") {
        Class::Dot4I32I8
    } else if has("dot4_u32_u8") {
        Class::Dot4U32U8
    } else if has("dot8_i32_i4") || has("dot8c_i32_i4") || has("dot8_i32_iu4") {
        Class::Dot8I32I4
    } else if has("dot8_u32_u4") {
        Class::Dot8U32U4
    } else if has("dot2_f32_f16") || has("dot2c_f32_f16") {
        Class::Dot2F32F16
    } else if has("dot2_f32_bf16") || has("dot2c_f32_bf16") {
        Class::Dot2F32Bf16
    } else if has("dot2_f16_f16") {
        Class::Dot2F16F16
    } else if has("dot2_bf16_bf16") {
        Class::Dot2Bf16Bf16
    } else if has("dot2_i32_i16") || has("dot2c_i32_i16") {
        Class::Dot2I32I16
    } else if has("dot2_u32_u16") {
        Class::Dot2U32U16
    } else {
        Class::DotOther
    }
}

/// The class of a mnemonic as `llvm-objdump` prints it.
pub fn class_of(m: &str) -> Class {
    // VOPD halves are classified like the plain instruction they pair.
    let norm = match m.strip_prefix("v_dual_") {
        Some(r) => format!("v_{r}"),
        None => m.to_string(),
    };
    let m = norm.as_str();
    if let Some(c) = matrix_class(m) {
        return c;
    }
    if m.starts_with("v_dot") {
        return dot_class(m);
    }
    if m.starts_with("v_pk_") {
        return Class::Packed;
    }
    if let Some(b) = m.strip_prefix("v_") {
        return valu_class(b);
    }
    memory_class(m)
        .or_else(|| scalar_class(m))
        .unwrap_or(Class::Other)
}

/// MFMA, SMFMAC, WMMA and SWMMAC instructions, by the type they multiply.
fn matrix_class(m: &str) -> Option<Class> {
    let has = |p: &str| m.starts_with(p);
    if has("v_mfma") {
        if m.contains("ld_scale") {
            return Some(Class::MfmaOther);
        }
        return Some(match matrix_type(m) {
            "f32" => Class::MfmaF32,
            "xf32" => Class::MfmaXf32,
            "f16" => Class::MfmaF16,
            "bf16" => Class::MfmaBf16,
            "i8" => Class::MfmaI8,
            "f64" => Class::MfmaF64,
            "fp8" => Class::MfmaFp8,
            "f8f6f4" => Class::MfmaF8f6f4,
            _ => Class::MfmaOther,
        });
    }
    if has("v_smfmac") {
        return Some(match matrix_type(m) {
            "bf16" => Class::SmfmacBf16,
            "i8" => Class::SmfmacI8,
            "fp8" => Class::SmfmacFp8,
            _ => Class::SmfmacF16,
        });
    }
    if !has("v_wmma") && !has("v_swmmac") {
        return None;
    }
    Some(match (has("v_swmmac"), matrix_type(m)) {
        (false, "bf16") => Class::WmmaBf16,
        (false, "i8") => Class::WmmaI8,
        (false, "i4") => Class::WmmaI4,
        (false, "fp8") => Class::WmmaFp8,
        (false, _) => Class::WmmaF16,
        (true, "bf16") => Class::SwmmacBf16,
        (true, "i8") => Class::SwmmacI8,
        (true, "i4") => Class::SwmmacI4,
        (true, "fp8") => Class::SwmmacFp8,
        (true, _) => Class::SwmmacF16,
    })
}

/// A vector ALU instruction (`b` without its `v_`): FMA, transcendental, conversion or other.
fn valu_class(b: &str) -> Class {
    const TRANSCENDENTAL: &[&str] = &[
        "exp_",
        "exp_legacy",
        "log_",
        "log_legacy",
        "rcp_",
        "rsq_",
        "sqrt_",
        "sin_",
        "cos_",
    ];
    if b.starts_with("fma") || b.starts_with("mac") || b.starts_with("mad") {
        Class::Fma
    } else if TRANSCENDENTAL.iter().any(|t| b.starts_with(t)) {
        Class::Transcendental
    } else if b.starts_with("cvt") {
        Class::Conversion
    } else {
        Class::Valu
    }
}

/// Vector memory and LDS instructions.
fn memory_class(m: &str) -> Option<Class> {
    const PREFIXES: &[(&str, Class)] = &[
        ("global_", Class::VmemGlobal),
        ("buffer_", Class::VmemBuffer),
        ("tbuffer_", Class::VmemBuffer),
        ("flat_", Class::VmemFlat),
        ("scratch_", Class::VmemScratch),
        ("image_", Class::VmemImage),
        ("ds_", Class::Lds),
        ("lds_", Class::Lds),
    ];
    PREFIXES
        .iter()
        .find(|(p, _)| m.starts_with(p))
        .map(|(_, c)| *c)
}

/// Scalar instructions: memory, waits, branches, control (`Other`) and the scalar ALU.
fn scalar_class(m: &str) -> Option<Class> {
    const SMEM: &[&str] = &[
        "s_load",
        "s_buffer_",
        "s_store",
        "s_scratch_",
        "s_atomic",
        "s_dcache",
        "s_memtime",
        "s_memrealtime",
        "s_atc_probe",
        "s_prefetch_data",
        "s_gl1_inv",
        "s_get_waveid_in_workgroup",
    ];
    const WAIT: &[&str] = &["s_waitcnt", "s_wait_"];
    const BRANCH: &[&str] = &[
        "s_branch",
        "s_cbranch",
        "s_setpc",
        "s_swappc",
        "s_call",
        "s_endpgm",
        "s_rfe",
    ];
    const CONTROL: &[&str] = &[
        "s_nop",
        "s_code_end",
        "s_sleep",
        "s_barrier",
        "s_sendmsg",
        "s_trap",
        "s_clause",
        "s_delay_alu",
        "s_setprio",
        "s_icache",
        "s_inst_prefetch",
        "s_set_inst_prefetch",
        "s_sethalt",
        "s_ttrace",
    ];
    let any = |ps: &[&str]| ps.iter().any(|p| m.starts_with(p));
    if any(SMEM) {
        Some(Class::Smem)
    } else if any(WAIT) {
        Some(Class::Wait)
    } else if any(BRANCH) {
        Some(Class::Branch)
    } else if any(CONTROL) {
        Some(Class::Other)
    } else if m.starts_with("s_") {
        Some(Class::Salu)
    } else {
        None
    }
}
