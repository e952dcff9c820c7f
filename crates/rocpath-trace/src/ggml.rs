//! ggml kernel names: the template arguments ggml-hip instantiates its kernels with —
//! the weight type (`(ggml_type)12` is `q4_K`), the column count of the vector kernels
//! (`mul_mat_vec_q<(ggml_type)12, 1, true>` is a one-token batch) — and the dispatch path a
//! matrix-multiplication kernel stands for (`mmq`, `mmvq`, `mmf`, `mmvf`).

pub use rocpath_docs::trace::{GgmlKernel, GgmlPath};

/// ggml's `enum ggml_type` (ggml.h) by value, lower case as the rules name them.
pub fn ggml_type_name(v: u32) -> Option<&'static str> {
    Some(match v {
        0 => "f32",
        1 => "f16",
        2 => "q4_0",
        3 => "q4_1",
        6 => "q5_0",
        7 => "q5_1",
        8 => "q8_0",
        9 => "q8_1",
        10 => "q2_k",
        11 => "q3_k",
        12 => "q4_k",
        13 => "q5_k",
        14 => "q6_k",
        15 => "q8_k",
        16 => "iq2_xxs",
        17 => "iq2_xs",
        18 => "iq3_xxs",
        19 => "iq1_s",
        20 => "iq4_nl",
        21 => "iq3_s",
        22 => "iq2_s",
        23 => "iq4_xs",
        24 => "i8",
        25 => "i16",
        26 => "i32",
        27 => "i64",
        28 => "f64",
        29 => "iq1_m",
        30 => "bf16",
        34 => "tq1_0",
        35 => "tq2_0",
        39 => "mxfp4",
        _ => return None,
    })
}

/// The template arguments of a demangled kernel name: `void mul_mat_q<(ggml_type)12, 40,
/// false>(…)` → `["(ggml_type)12", "40", "false"]`.
pub fn template_args(name: &str) -> Vec<&str> {
    let Some(open) = name.find('<') else {
        return Vec::new();
    };
    let mut depth = 0i32;
    let mut start = open + 1;
    let mut out = Vec::new();
    for (i, c) in name.char_indices().skip_while(|(i, _)| *i <= open) {
        match c {
            '<' | '(' => depth += 1,
            ')' => depth -= 1,
            '>' if depth == 0 => {
                if let Some(a) = name.get(start..i) {
                    out.push(a.trim());
                }
                return out;
            }
            '>' => depth -= 1,
            ',' if depth == 0 => {
                if let Some(a) = name.get(start..i) {
                    out.push(a.trim());
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    Vec::new()
}

/// The weight type a ggml matrix-multiplication kernel names, for the typed families; `f16`
/// / `bf16` / `f32` from the element type of the float families.
fn weight_type(family: &str, args: &[&str]) -> Option<String> {
    if let Some(t) = args
        .iter()
        .find_map(|a| a.strip_prefix("(ggml_type)"))
        .and_then(|v| v.trim().parse::<u32>().ok())
    {
        return ggml_type_name(t).map(str::to_string);
    }
    if family == "mul_mat_f" || family == "mul_mat_vec_f" {
        let a = args.first()?;
        return Some(
            match *a {
                "__half" | "half" => "f16",
                "float" => "f32",
                "nv_bfloat16" | "__hip_bfloat16" | "hip_bfloat16" => "bf16",
                _ => return None,
            }
            .into(),
        );
    }
    None
}

fn path_of(base: &str) -> Option<GgmlPath> {
    Some(match base {
        "mul_mat_q" => GgmlPath::Mmq,
        "mul_mat_vec_q" => GgmlPath::Mmvq,
        "mul_mat_f" => GgmlPath::Mmf,
        "mul_mat_vec_f" => GgmlPath::Mmvf,
        _ => return None,
    })
}

/// Decodes a demangled ggml kernel name (`void mul_mat_q<(ggml_type)12, 40, false>(…)`).
/// `None` for names that carry no ggml type.
pub fn decode(name: &str) -> Option<GgmlKernel> {
    let base = crate::family::base_name(name);
    let args = template_args(name);
    let weight_type = weight_type(base, &args)?;
    let path = path_of(base);
    let ncols = match path {
        Some(GgmlPath::Mmvq | GgmlPath::Mmvf) => args.get(1).and_then(|a| a.parse::<i64>().ok()),
        _ => None,
    };
    Some(GgmlKernel {
        weight_type,
        path,
        ncols,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_arguments_and_decode() {
        assert_eq!(
            template_args(
                "void mul_mat_q<(ggml_type)12, 40, false>(char const*, int const*, int const*)"
            ),
            ["(ggml_type)12", "40", "false"]
        );
        assert!(template_args("quantize_q8_1(float const*)").is_empty());
        assert!(template_args("broken<a, (b").is_empty());
        let k = decode("void mul_mat_vec_q<(ggml_type)14, 1, true>(void const*)").unwrap();
        assert_eq!(k.weight_type, "q6_k");
        assert_eq!(k.path, Some(GgmlPath::Mmvq));
        assert_eq!(k.ncols, Some(1));
        let k = decode("void mul_mat_q<(ggml_type)12, 40, false>(char const*)").unwrap();
        assert_eq!(
            (k.weight_type.as_str(), k.path, k.ncols),
            ("q4_k", Some(GgmlPath::Mmq), None)
        );
        let k = decode("void mul_mat_vec_f<__half, float, 1, 128, false>(__half const*)").unwrap();
        assert_eq!(
            (k.weight_type.as_str(), k.path),
            ("f16", Some(GgmlPath::Mmvf))
        );
        let k = decode("void dequantize_block<(ggml_type)2>(void const*)").unwrap();
        assert_eq!((k.weight_type.as_str(), k.path), ("q4_0", None));
        assert!(decode("quantize_q8_1(float const*)").is_none());
        assert!(decode("void mul_mat_q<(ggml_type)99, 40, false>()").is_none());
    }
}
