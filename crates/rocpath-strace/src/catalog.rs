//! What an opened path is: a shared library, a Tensile catalog file, or something else.
//!
//! Tensile catalog names: `TensileLibrary_<Type>_<Contraction…>[_fallback].dat` (the solution
//! index for one problem type), `TensileLibrary_<Type>_<…>[_fallback]_<gfx>.hsaco` (its code
//! objects), `TensileLibrary_lazy_<gfx>.dat` (the lazy-loading index of an architecture),
//! `TensileLibrary[_<gfx>].dat|.co` (older monolithic libraries), `Kernels.so-000-<gfx>.hsaco`.
//! The type token is `Type_<data types>[_HPA]` (`Type_HH`, `Type_BB_HPA`, `Type_4xi8I_HPA`).

use serde::Serialize;

/// What a path is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A shared library: its name without `.so…` (`librocblas`).
    Library(String),
    /// A Tensile catalog file.
    Tensile(TensileFile),
    /// Anything else.
    Other,
}

/// A Tensile catalog file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TensileFile {
    /// `Type_HH`, `Type_BB_HPA`, … (None for lazy indexes and monolithic files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_token: Option<String>,
    /// `dat`, `hsaco`, `co`, `yaml`.
    pub ext: String,
    /// `_fallback` in the name: the generic kernels rocBLAS uses when no tuned solution exists.
    pub fallback: bool,
    /// The lazy-loading index (`TensileLibrary_lazy_<gfx>.dat`).
    pub lazy_index: bool,
    /// `gfx900` when the name carries it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// `rocblas` or `hipblaslt` (from the folder).
    pub owner: &'static str,
}

/// Classifies a path.
pub fn classify(path: &str) -> Kind {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.starts_with("lib") {
        if let Some(i) = name.find(".so") {
            return Kind::Library(name[..i].to_string());
        }
    }
    let ext = match name.rsplit_once('.') {
        Some((_, e)) if matches!(e, "dat" | "hsaco" | "co" | "yaml") => e,
        _ => return Kind::Other,
    };
    if !(name.starts_with("TensileLibrary") || name.starts_with("Kernels.so-")) {
        return Kind::Other;
    }
    let stem = &name[..name.len() - ext.len() - 1];
    let toks: Vec<&str> = stem.split('_').collect();
    let type_token = toks.iter().position(|t| *t == "Type").and_then(|i| {
        let ty = toks.get(i + 1)?;
        Some(if toks.get(i + 2) == Some(&"HPA") {
            format!("Type_{ty}_HPA")
        } else {
            format!("Type_{ty}")
        })
    });
    let arch = stem
        .split(['_', '-'])
        .find(|t| t.starts_with("gfx") && t.len() > 3)
        .map(str::to_string);
    let owner = if path.contains("hipblaslt") {
        "hipblaslt"
    } else {
        "rocblas"
    };
    Kind::Tensile(TensileFile {
        type_token,
        ext: ext.to_string(),
        fallback: toks.contains(&"fallback"),
        lazy_index: toks.get(1) == Some(&"lazy"),
        arch,
        owner,
    })
}

/// Libraries of the ROCm stack and of ggml/llama.cpp, shown first in reports.
pub const ROCM_LIBRARIES: &[&str] = &[
    "libggml-hip",
    "libggml-base",
    "libggml-cpu",
    "librocblas",
    "libhipblas",
    "libhipblaslt",
    "libMIOpen",
    "libamdhip64",
    "libhsa-runtime64",
    "librocsolver",
    "librocsparse",
    "libamd_comgr",
    "librocprofiler-sdk",
    "libggml-vulkan",
    "libggml-cuda",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_names() {
        let Kind::Tensile(t) = classify(
            "/x/rocblas/library//TensileLibrary_Type_SS_Contraction_l_Alik_Bjlk_Cijk_Dijk_fallback.dat",
        ) else {
            panic!()
        };
        assert_eq!(
            (t.type_token.as_deref(), t.ext.as_str(), t.fallback, t.arch),
            (Some("Type_SS"), "dat", true, None)
        );
        let Kind::Tensile(t) = classify(
            "/x/TensileLibrary_Type_4xi8I_HPA_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback_gfx900.hsaco",
        ) else {
            panic!()
        };
        assert_eq!(
            (
                t.type_token.as_deref(),
                t.ext.as_str(),
                t.fallback,
                t.arch.as_deref()
            ),
            (Some("Type_4xi8I_HPA"), "hsaco", true, Some("gfx900"))
        );
        let Kind::Tensile(t) = classify(
            "/x/TensileLibrary_Type_HS_HPA_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx900.hsaco",
        ) else {
            panic!()
        };
        assert!(!t.fallback);
        let Kind::Tensile(t) =
            classify("/opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat")
        else {
            panic!()
        };
        assert!(t.lazy_index);
        assert_eq!(
            (t.owner, t.arch.as_deref(), t.type_token),
            ("hipblaslt", Some("gfx1201"), None)
        );
        assert_eq!(
            classify("/opt/rocm-7.2.0/lib/librocblas.so.5"),
            Kind::Library("librocblas".into())
        );
        assert_eq!(
            classify("librocblas.so.5"),
            Kind::Library("librocblas".into())
        );
        assert_eq!(classify("/etc/ld.so.cache"), Kind::Other);
        assert_eq!(classify("/x/notes.dat"), Kind::Other);
    }
}
