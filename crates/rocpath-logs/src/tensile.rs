//! The Tensile kernel-name grammar (`Solution.getNameMin`, Tensile `SolutionStructs.py`):
//!
//! `<ProblemType>_MT<MT0>x<MT1>x<DepthU>_[MI<M>x<N>x<K>x<B>_][SE|SN_]<Abbrev><Value>_…`
//!
//! where `<ProblemType>` is `C<idx>_A<idx>[C]_B<idx>[C]_<DataType>[<Dest><Compute>_][B][H]…
//! [_GB][_M<X>][_SR]`: `Cijk_Ailk_Bljk` is A not transposed (i, l) and B not transposed (l, j);
//! `Alik` is Aᵀ, `Bjlk` is Bᵀ. Data types: `S` f32, `D` f64, `C` c32, `Z` c64, `H` f16,
//! `B` bf16, `I8` int8, `4xi8` packed int8, `I` i32, `X` xf32, `F8`, `B8`, `F8B8`, `B8F8`.
//! Flags: `B` uses beta, `H` high-precision accumulate. `_GB`: general batched.
//! `MI<M>x<N>x<K>x<B>` marks a matrix-instruction kernel — MFMA or WMMA depending on the
//! target; without it the kernel uses vector ALU instructions (FMA/MAD/dot).
//! Parameter abbreviations are the capitals of the parameter names (`GSU` GlobalSplitU, `WG`
//! WorkGroup, `TT` ThreadTile, `GRVW` GlobalReadVectorWidth, `WGM` WorkGroupMapping, `ISA`);
//! list values are joined with `_` (`TT08_04`, `WG08_08_01`).

use std::collections::BTreeMap;

pub use rocpath_docs::tensile::KernelName;

const TYPES: &[(&str, &str)] = &[
    ("4xi8", "i8x4"),
    ("F8B8", "f8_bf8"),
    ("B8F8", "bf8_f8"),
    ("F8N", "f8_fnuz"),
    ("B8N", "bf8_fnuz"),
    ("I8", "i8"),
    ("F8", "f8"),
    ("B8", "bf8"),
    ("S", "f32"),
    ("D", "f64"),
    ("C", "c32"),
    ("Z", "c64"),
    ("H", "f16"),
    ("B", "bf16"),
    ("I", "i32"),
    ("X", "xf32"),
];

/// Parameter abbreviations that are recognised (longest first when prefixes overlap).
const PARAMS: &[&str] = &[
    "1LDSB", "GRVWA", "GRVWB", "GRVW", "GSUAMB", "GSUC", "GSUWGMRR", "GSU", "WGMXCCG", "WGMXCC",
    "WGM", "WG", "TT", "VWA", "VWB", "VW", "DTLA", "DTLB", "DTL", "DTVA", "DTVB", "ISA", "PGR",
    "PLR", "LPA", "LPB", "LRVW", "SU", "SVW", "TLDS", "USFGRO", "WS", "NLCA", "NLCB", "SS", "GLS",
    "K1", "KLA", "MIAV", "MDA", "NTA", "NTB", "NTC", "NTD", "SPO", "SRVW", "SNLL", "SK", "CLR",
    "EPS", "LBSPPA", "LBSPPB", "LBSPPM", "MIWT", "MO", "ONLL", "PAP", "SIA", "SLW", "UIOFGRO",
    "ULSGRO", "UMF", "GLVWA", "GLVWB", "AF0EM", "AF1EM", "AFEM", "AFC", "ASAE", "ASCE", "ASEM",
    "BL", "BS", "CADS", "EMLL", "FDSI", "FPS", "FSSC", "GRPM", "ELFLR", "DU", "DAF",
];

fn data_types(tok: &str) -> Option<Vec<&'static str>> {
    let mut out = Vec::new();
    let mut rest = tok;
    while !rest.is_empty() {
        let (c, name) = TYPES.iter().find(|(c, _)| rest.starts_with(c))?;
        out.push(*name);
        rest = &rest[c.len()..];
    }
    Some(out)
}

/// `[B][H][R|RZ][I][Ic]`-style flag token.
fn flags(tok: &str) -> Option<(bool, bool)> {
    if tok.is_empty() || tok == "GB" || tok == "SR" {
        return None;
    }
    let mut beta = false;
    let mut hpa = false;
    let mut rest = tok;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('B') {
            beta = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('H') {
            hpa = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("RZ").or_else(|| rest.strip_prefix('R')) {
            rest = r;
        } else if let Some(r) = rest.strip_prefix("Ic").or_else(|| rest.strip_prefix('I')) {
            rest = r;
        } else {
            return None;
        }
    }
    Some((beta, hpa))
}

fn dims(s: &str) -> Option<Vec<u32>> {
    s.split('x').map(|v| v.parse().ok()).collect()
}

/// Decodes a kernel name. `None` if it does not follow the grammar (not a Tensile kernel).
pub fn decode(name: &str) -> Option<KernelName> {
    let name = name.trim();
    let toks: Vec<&str> = name.split('_').collect();
    let (c, a, b) = (toks.first()?, toks.get(1)?, toks.get(2)?);
    if !c.starts_with('C') || !a.starts_with('A') || !b.starts_with('B') || c.len() < 2 {
        return None;
    }
    let idx = |t: &str| t[1..].trim_end_matches('C').to_string();
    let (ai, bi) = (idx(a), idx(b));
    let free = &c[1..];
    // A (i,l) = not transposed; (l,i) = transposed. B (l,j) = not transposed.
    let lower = |s: &str| s.to_ascii_lowercase();
    let (fa, fb) = (free.chars().next()?, free.chars().nth(1)?);
    let trans_a = lower(&ai).find(fa)? > 0;
    let trans_b = lower(&bi).find(fb)? == 0;
    let types = data_types(toks.get(3)?)?;
    let mut k = KernelName {
        indices: format!("{c}_{a}_{b}"),
        trans_a,
        trans_b,
        data_type: types.first()?.to_string(),
        dest_type: None,
        compute_type: None,
        beta: false,
        hpa: false,
        general_batched: false,
        macro_tile: None,
        matrix_instruction: None,
        params: BTreeMap::new(),
    };
    let mut i = 4;
    match types.len() {
        1 => {}
        3 => {
            k.dest_type = Some(types[1].to_string());
            k.compute_type = Some(types[2].to_string());
        }
        _ => {
            // `<DataType><flags>` written as one token (`HB`, `SB`): re-read.
            let tok = toks[3];
            let (code, _) = TYPES.iter().find(|(c, _)| tok.starts_with(c))?;
            let (beta, hpa) = flags(&tok[code.len()..])?;
            k.beta = beta;
            k.hpa = hpa;
        }
    }
    // Flags token after `<D><Dest><Compute>_`.
    if types.len() == 3 {
        if let Some((beta, hpa)) = toks.get(i).and_then(|t| flags(t)) {
            k.beta = beta;
            k.hpa = hpa;
            i += 1;
        }
    } else if types.len() == 1 {
        if let Some((beta, hpa)) = toks.get(i).and_then(|t| flags(t)) {
            k.beta = beta;
            k.hpa = hpa;
            i += 1;
        }
    }
    read_params(&mut k, &toks[i.min(toks.len())..]);
    k.macro_tile?;
    Some(k)
}

/// The parameters after the types and flags (`MT64x64x16`, `MI32x32x8x1`, `GSU4`, `GB`,
/// a number continuing the parameter before it).
fn read_params(k: &mut KernelName, toks: &[&str]) {
    let mut last: Option<String> = None;
    for t in toks {
        if *t == "GB" {
            k.general_batched = true;
            continue;
        }
        if let Some(v) = t.strip_prefix("MT") {
            if let Some(d) = dims(v).filter(|d| d.len() == 3) {
                k.macro_tile = Some([d[0], d[1], d[2]]);
                last = None;
                continue;
            }
        }
        if let Some(v) = t.strip_prefix("MI") {
            if let Some(d) = dims(v).filter(|d| d.len() >= 3) {
                k.matrix_instruction = Some(d);
                last = None;
                continue;
            }
        }
        if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
            if let Some(p) = &last {
                if let Some(v) = k.params.get_mut(p) {
                    v.push('_');
                    v.push_str(t);
                }
            }
            continue;
        }
        last = None;
        if let Some(p) = PARAMS.iter().find(|p| {
            t.strip_prefix(*p)
                .is_some_and(|v| !v.is_empty() && v.bytes().all(|c| c.is_ascii_alphanumeric()))
        }) {
            k.params.insert(p.to_string(), t[p.len()..].to_string());
            last = Some(p.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vega10_valu_kernel() {
        let k = decode("Cijk_Ailk_Bjlk_SB_MT064x032x08_GRVW04_GSU01_SNLL0_TT08_04_VW04_WG08_08_01")
            .unwrap();
        assert!(!k.trans_a);
        assert!(k.trans_b);
        assert_eq!(k.data_type, "f32");
        assert!(k.beta);
        assert_eq!(k.macro_tile, Some([64, 32, 8]));
        assert_eq!(k.matrix_instruction, None);
        assert_eq!(k.params.get("TT").map(String::as_str), Some("08_04"));
        assert_eq!(k.params.get("WG").map(String::as_str), Some("08_08_01"));
        assert_eq!(k.global_split_u(), Some(1));
    }

    #[test]
    fn matrix_instruction_and_hpa_kernels() {
        let k = decode("Cijk_Ailk_Bljk_SB_MT64x64x16_MI32x32x2x1_SE_GSU2_ISA90a").unwrap();
        assert_eq!(k.matrix_instruction, Some(vec![32, 32, 2, 1]));
        assert_eq!(k.params.get("ISA").map(String::as_str), Some("90a"));
        let k = decode("Cijk_Alik_Bljk_BBS_BH_MT64x32x8_SN_AF0EM1_ISA000_WG16").unwrap();
        assert!(k.trans_a);
        assert!(!k.trans_b);
        assert_eq!(k.data_type, "bf16");
        assert_eq!(k.dest_type.as_deref(), Some("bf16"));
        assert_eq!(k.compute_type.as_deref(), Some("f32"));
        assert!(k.beta && k.hpa);
        let k = decode("Cijk_Alik_Bljk_HSS_BH_GB_MT64x32x8_SE").unwrap();
        assert!(k.general_batched);
        assert_eq!(k.data_type, "f16");
        let k = decode("Cijk_Ailk_Bjlk_HB_MT32x32x16_MI16x16x16x1_SN_GSU1").unwrap();
        assert_eq!(k.data_type, "f16");
        assert!(k.beta);
        assert_eq!(k.matrix_instruction, Some(vec![16, 16, 16, 1]));
    }

    #[test]
    fn not_tensile() {
        assert_eq!(
            decode("naive_conv_ab_nonpacked_fwd_nchw_float_double_float"),
            None
        );
        assert_eq!(decode("Cijk_Ailk_Bljk_SB"), None);
        assert_eq!(decode(""), None);
    }
}
