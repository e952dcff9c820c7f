//! Kernel name → kernel family, and the research workflow's name counters.
//!
//! rocprofv3 prints demangled kernel names: `void mul_mat_q<(ggml_type)2, 40, false>(char
//! const*, …)`, `quantize_q8_1(float const*, …)`, `Cijk_Alik_Bljk_HB_MT64x32x8_…`,
//! `__amd_rocclr_copyBuffer`. The *base name* is the identifier before the template arguments
//! or the parameter list, without a leading return type; families are decided on it, by the
//! rules in [`RULES`] (first match wins), which name the upstream kernel each family stands for.

pub use rocpath_docs::trace::{Family, ResearchCounters};

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

/// Adds `n` dispatches of the kernel `name` to the research workflow's counters
/// (`g4-rocprofv3-dispatch-check.sh`), computed its way: substring matches on the name.
pub fn count(c: &mut ResearchCounters, name: &str, n: u64) {
    c.kernel_dispatch_rows += n;
    if name.contains("mul_mat_q<") {
        c.kernel_mul_mat_q_rows += n;
    }
    if name.contains("mul_mat_vec_q<") {
        c.kernel_mul_mat_vec_rows += n;
    }
    if name.contains("flash_attn") {
        c.kernel_flash_attn_rows += n;
    }
    if name.contains("quantize_") {
        c.kernel_quantize_rows += n;
    }
    if name.contains("__amd_rocclr_copyBuffer") || name.contains("fillBufferAligned") {
        c.kernel_copy_rows += n;
    }
    let lower = name.to_ascii_lowercase();
    if ["tensile", "contraction", "cijk", "rocblas", "gemm"]
        .iter()
        .any(|w| lower.contains(w))
    {
        c.kernel_tensile_like_rows += n;
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
        count(
            &mut c,
            "void mul_mat_q<(ggml_type)2, 40, false>(char const*)",
            3,
        );
        count(
            &mut c,
            "void quantize_mmq_q8_1<(mmq_q8_1_ds_layout)1>(float const*)",
            2,
        );
        count(&mut c, "Cijk_Ailk_Bljk_HB_MT64x64x16", 1);
        count(&mut c, "__amd_rocclr_fillBufferAligned", 1);
        assert_eq!(c.kernel_dispatch_rows, 7);
        assert_eq!(c.kernel_mul_mat_q_rows, 3);
        assert_eq!(c.kernel_quantize_rows, 2);
        assert_eq!(c.kernel_tensile_like_rows, 1);
        assert_eq!(c.kernel_copy_rows, 1);
    }
}
