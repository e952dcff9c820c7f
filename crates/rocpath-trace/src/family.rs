//! Kernel name → kernel family, and the research workflow's name counters.
//!
//! rocprofv3 prints demangled kernel names: `void mul_mat_q<(ggml_type)2, 40, false>(char
//! const*, …)`, `quantize_q8_1(float const*, …)`, `Cijk_Alik_Bljk_HB_MT64x32x8_…`,
//! `__amd_rocclr_copyBuffer`. The *base name* is the identifier before the template arguments
//! or the parameter list, without a leading return type; families are decided on it, by the
//! rules in [`RULES`] (first match wins), which name the upstream kernel each family stands for.

use serde::Serialize;

/// A kernel family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// ggml MMQ: `mul_mat_q<…>` and its stream-k fixup (quantized matmul, dp4a/MFMA/WMMA tiles).
    MulMatQ,
    /// ggml MMVQ: `mul_mat_vec_q<…>` (quantized matrix × vector, small batches).
    MulMatVecQ,
    /// ggml MMF: `mul_mat_f<…>` (float matmul on MMA hardware).
    MulMatF,
    /// ggml MMVF: `mul_mat_vec_f<…>`.
    MulMatVecF,
    /// ggml flash attention, tile kernel (`flash_attn_tile<…>`).
    FlashAttnTile,
    /// ggml flash attention, vector kernel (`flash_attn_ext_vec<…>`).
    FlashAttnVec,
    /// ggml flash attention, MMA kernel (`flash_attn_ext_f16<…>`: WMMA/MFMA).
    FlashAttnMma,
    /// ggml flash attention, combine and fixup passes (`flash_attn_combine_results`,
    /// `flash_attn_stream_k_fixup`).
    FlashAttnCombine,
    /// ggml quantization of activations (`quantize_q8_1`, `quantize_mmq_q8_1`, …).
    Quantize,
    /// ggml dequantization and type conversion (`dequantize_block*`, `convert_unary`, …).
    Dequantize,
    /// ggml element-wise operations (`k_bin_bcast`, `unary_*`, `scale_f32`, …).
    Elementwise,
    /// ggml soft-max.
    Softmax,
    /// ggml rotary position embedding.
    Rope,
    /// ggml normalisations (`rms_norm_f32`, `norm_f32`, `group_norm_f32`, `l2_norm_f32`).
    Norm,
    /// ggml row gathers, scatters and copies (`k_get_rows*`, `k_set_rows`, `cpy_*`).
    GgmlCopy,
    /// Other ggml kernels recognised by name (`argsort`, `concat`, `ssm_*`, …).
    GgmlOther,
    /// Tensile GEMM kernels (`Cijk_…`), rocBLAS's and hipBLASLt's.
    TensileCijk,
    /// rocBLAS's own (non-Tensile) kernels (`rocblas_*`).
    Rocblas,
    /// MIOpen kernels (`miopen*`, `MIOpen*`, `naive_conv_*`, `igemm_*`, …).
    Miopen,
    /// The HIP runtime's blit kernels (`__amd_rocclr_copyBuffer`, `…fillBuffer…`).
    RuntimeCopyFill,
    /// Anything else.
    Other,
}

impl Family {
    /// All families, in report order.
    pub const ALL: [Family; 21] = [
        Family::MulMatQ,
        Family::MulMatVecQ,
        Family::MulMatF,
        Family::MulMatVecF,
        Family::FlashAttnTile,
        Family::FlashAttnVec,
        Family::FlashAttnMma,
        Family::FlashAttnCombine,
        Family::Quantize,
        Family::Dequantize,
        Family::Elementwise,
        Family::Softmax,
        Family::Rope,
        Family::Norm,
        Family::GgmlCopy,
        Family::GgmlOther,
        Family::TensileCijk,
        Family::Rocblas,
        Family::Miopen,
        Family::RuntimeCopyFill,
        Family::Other,
    ];

    /// The snake_case name used in JSON and TSV.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::MulMatQ => "mul_mat_q",
            Family::MulMatVecQ => "mul_mat_vec_q",
            Family::MulMatF => "mul_mat_f",
            Family::MulMatVecF => "mul_mat_vec_f",
            Family::FlashAttnTile => "flash_attn_tile",
            Family::FlashAttnVec => "flash_attn_vec",
            Family::FlashAttnMma => "flash_attn_mma",
            Family::FlashAttnCombine => "flash_attn_combine",
            Family::Quantize => "quantize",
            Family::Dequantize => "dequantize",
            Family::Elementwise => "elementwise",
            Family::Softmax => "softmax",
            Family::Rope => "rope",
            Family::Norm => "norm",
            Family::GgmlCopy => "ggml_copy",
            Family::GgmlOther => "ggml_other",
            Family::TensileCijk => "tensile_cijk",
            Family::Rocblas => "rocblas",
            Family::Miopen => "miopen",
            Family::RuntimeCopyFill => "runtime_copy_fill",
            Family::Other => "other",
        }
    }

    /// The library the family belongs to: `ggml`, `tensile`, `rocblas`, `miopen`, `runtime`
    /// or `other`.
    pub fn library(self) -> &'static str {
        match self {
            Family::TensileCijk => "tensile",
            Family::Rocblas => "rocblas",
            Family::Miopen => "miopen",
            Family::RuntimeCopyFill => "runtime",
            Family::Other => "other",
            _ => "ggml",
        }
    }

    /// A GEMM that ran through rocBLAS/Tensile (the "direct dispatch" of the research's link
    /// gate), as opposed to ggml's own kernels.
    pub fn is_blas(self) -> bool {
        matches!(self, Family::TensileCijk | Family::Rocblas)
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a rule matches a base name.
#[derive(Debug, Clone, Copy)]
pub enum Match {
    /// The base name equals it.
    Exact(&'static str),
    /// The base name starts with it.
    Prefix(&'static str),
}

/// One naming rule: base-name match → family, with the upstream source that defines the kernel.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// How it matches.
    pub matches: Match,
    /// The family.
    pub family: Family,
    /// Where the kernel is defined upstream.
    pub source: &'static str,
}

const fn exact(s: &'static str, family: Family, source: &'static str) -> Rule {
    Rule {
        matches: Match::Exact(s),
        family,
        source,
    }
}

const fn prefix(s: &'static str, family: Family, source: &'static str) -> Rule {
    Rule {
        matches: Match::Prefix(s),
        family,
        source,
    }
}

/// The naming rules, first match wins.
pub const RULES: &[Rule] = &[
    prefix(
        "Cijk_",
        Family::TensileCijk,
        "Tensile SolutionStructs.py getNameMin",
    ),
    prefix(
        "__amd_rocclr_",
        Family::RuntimeCopyFill,
        "ROCclr blit kernels",
    ),
    exact(
        "mul_mat_q",
        Family::MulMatQ,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/mmq.cuh",
    ),
    prefix(
        "mul_mat_q_stream_k_fixup",
        Family::MulMatQ,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/mmq.cuh",
    ),
    exact(
        "mul_mat_vec_q",
        Family::MulMatVecQ,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/mmvq.cu",
    ),
    prefix(
        "mul_mat_vec_q_moe",
        Family::MulMatVecQ,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/mmvq.cu",
    ),
    exact(
        "mul_mat_f",
        Family::MulMatF,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/mmf.cuh",
    ),
    prefix(
        "mul_mat_f_ids",
        Family::MulMatF,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/mmf.cuh",
    ),
    prefix(
        "mul_mat_vec_f",
        Family::MulMatVecF,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/mmvf.cu",
    ),
    prefix(
        "flash_attn_tile",
        Family::FlashAttnTile,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-tile.cuh",
    ),
    prefix(
        "flash_attn_ext_vec",
        Family::FlashAttnVec,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-vec.cuh",
    ),
    prefix(
        "flash_attn_vec",
        Family::FlashAttnVec,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-vec.cuh",
    ),
    prefix(
        "flash_attn_ext_f16",
        Family::FlashAttnMma,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-mma-f16.cuh",
    ),
    prefix(
        "flash_attn_ext_wmma",
        Family::FlashAttnMma,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-wmma-f16.cu",
    ),
    prefix(
        "flash_attn_combine",
        Family::FlashAttnCombine,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-common.cuh",
    ),
    prefix(
        "flash_attn_stream_k_fixup",
        Family::FlashAttnCombine,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-common.cuh",
    ),
    prefix(
        "flash_attn_mask_to_KV_max",
        Family::FlashAttnCombine,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/fattn-common.cuh",
    ),
    prefix(
        "quantize_",
        Family::Quantize,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/quantize.cu",
    ),
    prefix(
        "dequantize_",
        Family::Dequantize,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/convert.cu",
    ),
    prefix(
        "convert_unary",
        Family::Dequantize,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/convert.cu",
    ),
    prefix(
        "k_bin_bcast",
        Family::Elementwise,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/binbcast.cu",
    ),
    prefix(
        "unary_",
        Family::Elementwise,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/unary.cu",
    ),
    prefix(
        "op_",
        Family::Elementwise,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/unary.cu",
    ),
    prefix(
        "scale_f32",
        Family::Elementwise,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/scale.cu",
    ),
    prefix(
        "clamp_",
        Family::Elementwise,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/clamp.cu",
    ),
    prefix(
        "add_id",
        Family::Elementwise,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/add-id.cu",
    ),
    prefix(
        "k_sum_rows",
        Family::Elementwise,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/sumrows.cu",
    ),
    prefix(
        "soft_max",
        Family::Softmax,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/softmax.cu",
    ),
    prefix(
        "rope_",
        Family::Rope,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/rope.cu",
    ),
    prefix(
        "rms_norm",
        Family::Norm,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/norm.cu",
    ),
    prefix(
        "norm_f32",
        Family::Norm,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/norm.cu",
    ),
    prefix(
        "group_norm",
        Family::Norm,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/norm.cu",
    ),
    prefix(
        "l2_norm",
        Family::Norm,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/norm.cu",
    ),
    prefix(
        "k_get_rows",
        Family::GgmlCopy,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/getrows.cu",
    ),
    prefix(
        "k_set_rows",
        Family::GgmlCopy,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/set-rows.cu",
    ),
    prefix(
        "cpy_",
        Family::GgmlCopy,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/cpy.cu",
    ),
    prefix(
        "k_argsort",
        Family::GgmlOther,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/argsort.cu",
    ),
    prefix(
        "concat_",
        Family::GgmlOther,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/concat.cu",
    ),
    prefix(
        "ssm_",
        Family::GgmlOther,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/ssm-scan.cu",
    ),
    prefix(
        "im2col",
        Family::GgmlOther,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/im2col.cu",
    ),
    prefix(
        "k_topk",
        Family::GgmlOther,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/topk-moe.cu",
    ),
    prefix(
        "topk_moe",
        Family::GgmlOther,
        "ggml-org/ggml@d99724f2 src/ggml-cuda/topk-moe.cu",
    ),
    prefix("rocblas_", Family::Rocblas, "rocBLAS library kernels"),
    prefix("miopen", Family::Miopen, "MIOpen kernels"),
    prefix("MIOpen", Family::Miopen, "MIOpen kernels"),
    prefix(
        "naive_conv",
        Family::Miopen,
        "MIOpen naive convolution kernels",
    ),
    prefix(
        "igemm_",
        Family::Miopen,
        "MIOpen implicit-GEMM assembly kernels",
    ),
    prefix(
        "gridwise_convolution",
        Family::Miopen,
        "MIOpen composable-kernel convolutions",
    ),
];

/// The identifier a demangled kernel name is about: `void mul_mat_q<(ggml_type)2, 40,
/// false>(char const*, …)` → `mul_mat_q`; `ns::kernel<…>` → `kernel`.
pub fn base_name(name: &str) -> &str {
    let mut s = name.trim();
    for lead in ["void ", "static ", "__global__ "] {
        if let Some(r) = s.strip_prefix(lead) {
            s = r.trim_start();
        }
    }
    let end = s.find(['<', '(', ' ']).unwrap_or(s.len());
    let s = &s[..end];
    // A namespace qualifier: keep the last component.
    match s.rfind("::") {
        Some(i) => &s[i + 2..],
        None => s,
    }
}

/// The rule that classifies a kernel name, if any.
pub fn rule_for(name: &str) -> Option<&'static Rule> {
    let base = base_name(name);
    RULES.iter().find(|r| match r.matches {
        Match::Exact(e) => base == e,
        Match::Prefix(p) => base.starts_with(p),
    })
}

/// The family of a kernel name.
pub fn classify(name: &str) -> Family {
    rule_for(name).map_or(Family::Other, |r| r.family)
}

/// The counters the research workflow's rocprofv3 probe printed (`g4-rocprofv3-dispatch-check.sh`),
/// computed the same way — substring matches on the kernel name — so that its summaries can be
/// compared with rocpath's families.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ResearchCounters {
    /// Rows of kind `KERNEL_DISPATCH`.
    pub kernel_dispatch_rows: u64,
    /// Names containing `mul_mat_q<`.
    pub kernel_mul_mat_q_rows: u64,
    /// Names containing `mul_mat_vec_q<`.
    pub kernel_mul_mat_vec_rows: u64,
    /// Names containing `flash_attn`.
    pub kernel_flash_attn_rows: u64,
    /// Names containing `quantize_`.
    pub kernel_quantize_rows: u64,
    /// Names containing `__amd_rocclr_copyBuffer` or `fillBufferAligned`.
    pub kernel_copy_rows: u64,
    /// Names matching `(?i)tensile|contraction|cijk|rocblas|gemm_ex|gemm`.
    pub kernel_tensile_like_rows: u64,
}

impl ResearchCounters {
    /// Adds `n` dispatches of the kernel `name`.
    pub fn add(&mut self, name: &str, n: u64) {
        self.kernel_dispatch_rows += n;
        if name.contains("mul_mat_q<") {
            self.kernel_mul_mat_q_rows += n;
        }
        if name.contains("mul_mat_vec_q<") {
            self.kernel_mul_mat_vec_rows += n;
        }
        if name.contains("flash_attn") {
            self.kernel_flash_attn_rows += n;
        }
        if name.contains("quantize_") {
            self.kernel_quantize_rows += n;
        }
        if name.contains("__amd_rocclr_copyBuffer") || name.contains("fillBufferAligned") {
            self.kernel_copy_rows += n;
        }
        let lower = name.to_ascii_lowercase();
        if ["tensile", "contraction", "cijk", "rocblas", "gemm"]
            .iter()
            .any(|w| lower.contains(w))
        {
            self.kernel_tensile_like_rows += n;
        }
    }

    /// Sums two counters.
    pub fn merge(&mut self, o: &ResearchCounters) {
        self.kernel_dispatch_rows += o.kernel_dispatch_rows;
        self.kernel_mul_mat_q_rows += o.kernel_mul_mat_q_rows;
        self.kernel_mul_mat_vec_rows += o.kernel_mul_mat_vec_rows;
        self.kernel_flash_attn_rows += o.kernel_flash_attn_rows;
        self.kernel_quantize_rows += o.kernel_quantize_rows;
        self.kernel_copy_rows += o.kernel_copy_rows;
        self.kernel_tensile_like_rows += o.kernel_tensile_like_rows;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names() {
        assert_eq!(
            base_name("void mul_mat_q<(ggml_type)2, 40, false>(char const*, int)"),
            "mul_mat_q"
        );
        assert_eq!(
            base_name("quantize_q8_1(float const*, void*)"),
            "quantize_q8_1"
        );
        assert_eq!(
            base_name("__amd_rocclr_copyBuffer"),
            "__amd_rocclr_copyBuffer"
        );
        assert_eq!(base_name("void ns::inner::k<int>(int)"), "k");
        assert_eq!(base_name(""), "");
    }

    #[test]
    fn families_of_real_names() {
        let cases = [
            (
                "void mul_mat_q<(ggml_type)12, 40, false>(char const*)",
                Family::MulMatQ,
            ),
            (
                "void mul_mat_vec_q<(ggml_type)2, 1, true>(void const*)",
                Family::MulMatVecQ,
            ),
            (
                "void flash_attn_tile<64, 64, 1, 8, false>(char const*)",
                Family::FlashAttnTile,
            ),
            (
                "void flash_attn_ext_vec<128, 1, (ggml_type)1, (ggml_type)1, false>(char const*)",
                Family::FlashAttnVec,
            ),
            (
                "void flash_attn_combine_results<64>(float const*)",
                Family::FlashAttnCombine,
            ),
            ("quantize_q8_1(float const*, void*, long)", Family::Quantize),
            (
                "void quantize_mmq_q8_1<(mmq_q8_1_ds_layout)1>(float const*)",
                Family::Quantize,
            ),
            (
                "void k_bin_bcast<&(op_add(float, float)), float, float, float, float const*>(float const*)",
                Family::Elementwise,
            ),
            (
                "void rms_norm_f32<1024, true, false>(float const*)",
                Family::Norm,
            ),
            (
                "void rope_neox<true, false, float, float>(float const*)",
                Family::Rope,
            ),
            (
                "void k_set_rows<float, long, __half>(float const*)",
                Family::GgmlCopy,
            ),
            (
                "Cijk_Alik_Bljk_BBS_BH_MT64x32x8_SN_AF0EM1_ISA000_WG16",
                Family::TensileCijk,
            ),
            ("__amd_rocclr_fillBufferAligned", Family::RuntimeCopyFill),
            (
                "naive_conv_ab_nonpacked_fwd_nchw_int8_t_int32_t_int8_t",
                Family::Miopen,
            ),
            ("something_else", Family::Other),
        ];
        for (n, f) in cases {
            assert_eq!(classify(n), f, "{n}");
        }
        // `mul_mat_vec_q` is not `mul_mat_q`, and the reverse.
        assert_ne!(classify("void mul_mat_vec_q<>(int)"), Family::MulMatQ);
    }

    #[test]
    fn research_counters_follow_the_script() {
        let mut c = ResearchCounters::default();
        c.add("void mul_mat_q<(ggml_type)2, 40, false>(char const*)", 3);
        c.add(
            "void quantize_mmq_q8_1<(mmq_q8_1_ds_layout)1>(float const*)",
            2,
        );
        c.add("Cijk_Ailk_Bljk_HB_MT64x64x16", 1);
        c.add("__amd_rocclr_fillBufferAligned", 1);
        assert_eq!(c.kernel_dispatch_rows, 7);
        assert_eq!(c.kernel_mul_mat_q_rows, 3);
        assert_eq!(c.kernel_quantize_rows, 2);
        assert_eq!(c.kernel_tensile_like_rows, 1);
        assert_eq!(c.kernel_copy_rows, 1);
    }
}
