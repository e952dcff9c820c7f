//! From what a gate says to the concrete gfx targets it covers: exact names, prefixes
//! (`StartsWith(name, "gfx94")`), wildcards (`gfx94x`), regular expressions, shell globs,
//! preprocessor macros (`__gfx90a__`, `__GFX12__`, `__gfx94__`), Tensile logic codenames
//! (`vega10`, `aldebaran`), capability features (MFMA, WMMA, families) and ggml's
//! compute-capability constants. The universe is rocpath's architecture table
//! (`rocpath_arch::TARGETS`) plus processors LLVM has retired but old sources still name.

use rocpath_arch::{Family, TARGETS, TargetInfo};

/// Processors that sources name but LLVM 22 no longer knows (MI300 pre-release ids).
pub const RETIRED: &[&str] = &["gfx940", "gfx941"];

pub use rocpath_docs::gates::Match;

/// Concrete (non-generic) processor names of the universe, in table order.
pub fn processors() -> impl Iterator<Item = &'static str> {
    TARGETS
        .iter()
        .filter(|t| t.family != Family::Generic)
        .map(|t| t.name)
        .chain(RETIRED.iter().copied())
}

/// Whether `name` is a processor rocpath knows (table, generic or retired).
pub fn is_known(name: &str) -> bool {
    rocpath_arch::target(name).is_some() || RETIRED.contains(&name)
}

fn row(name: &str) -> Option<&'static TargetInfo> {
    rocpath_arch::target(name)
}

/// The processor of a target-id-like token (`gfx906:sramecc+:xnack-` → `gfx906`), if the
/// token is one.
pub fn processor_of(token: &str) -> Option<&str> {
    let p = token.split(':').next().unwrap_or(token);
    is_known(p).then_some(p)
}

/// Every processor whose name starts with `prefix` (generic targets excluded).
pub fn by_prefix(prefix: &str) -> Vec<String> {
    processors()
        .filter(|n| n.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

/// `gfx94x`, `gfx9xx`, `gfx11xx`: trailing `x`s stand for any digits.
pub fn wildcard(tok: &str) -> Option<Vec<String>> {
    let stem = tok.trim_end_matches(['x', 'X']);
    if stem.len() == tok.len() || stem.len() < 4 || !stem.starts_with("gfx") {
        return None;
    }
    if !stem[3..].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v = by_prefix(stem);
    (!v.is_empty()).then_some(v)
}

/// A processor-name-like token: `gfx` then hex digits, optional `-generic` forms and
/// target-id features. Returns the processor names it stands for and how.
pub fn resolve_token(tok: &str) -> Option<(Vec<String>, Match)> {
    let tok = tok.trim();
    if let Some(p) = processor_of(tok) {
        return Some((vec![p.to_string()], Match::Exact));
    }
    if let Some(v) = wildcard(tok) {
        return Some((v, Match::Prefix));
    }
    None
}

/// A string literal's content read as a target pattern, with the match kind the context
/// suggests (`prefix` for StartsWith-like calls). `None` when the text is not a pattern
/// over gfx names (a log message, a format string, a file name).
pub fn resolve_literal(text: &str, prefix_context: bool) -> Option<(Vec<String>, Match)> {
    let t = text.trim();
    if t.is_empty() || t.len() > 2048 || !t.to_ascii_lowercase().contains("gfx") {
        return None;
    }
    if t.contains(':') {
        if let Some(p) = processor_of(t) {
            return Some((vec![p.to_string()], Match::Exact));
        }
    }
    if looks_like_regex(t) {
        return resolve_regex(t).map(|v| (v, Match::Regex));
    }
    // A list: `gfx908;gfx90a;gfx942`, `gfx900 gfx906`, `gfx900,gfx906`.
    let toks: Vec<&str> = t
        .split([';', ',', ' ', '\t'])
        .filter(|s| !s.is_empty())
        .collect();
    if toks.len() > 1 {
        let mut all = Vec::new();
        for tk in toks {
            let (v, _) = resolve_token(tk)?;
            all.extend(v);
        }
        dedup(&mut all);
        return Some((all, Match::Exact));
    }
    let tok = toks.first()?;
    if prefix_context {
        let lower = tok.to_ascii_lowercase();
        // `StartsWith(name, "gfx")` asks whether the name is a gfx name at all.
        if lower.len() > 3
            && lower.starts_with("gfx")
            && lower[3..].bytes().all(|b| b.is_ascii_alphanumeric())
        {
            let v = by_prefix(&lower);
            if !v.is_empty() {
                return Some((v, Match::Prefix));
            }
        }
    }
    if let Some(r) = resolve_token(tok) {
        return Some(r);
    }
    // `"gfx94"`, `"gfx11"` compared exactly still name a family in practice; only a
    // digits-only stem is read as a prefix.
    let lower = tok.to_ascii_lowercase();
    if lower.len() >= 4
        && lower.starts_with("gfx")
        && lower[3..].bytes().all(|b| b.is_ascii_digit())
    {
        let v = by_prefix(&lower);
        if !v.is_empty() {
            return Some((v, Match::Prefix));
        }
    }
    None
}

fn looks_like_regex(t: &str) -> bool {
    t.bytes().any(|b| b"^$|()[]+*?\\".contains(&b))
}

/// Processor names a regular expression matches (whole name, or anywhere if it is not
/// anchored). `None` when it does not compile or matches nothing.
pub fn resolve_regex(re: &str) -> Option<Vec<String>> {
    let r = regex::Regex::new(re).ok()?;
    let v: Vec<String> = processors()
        .filter(|n| r.is_match(n))
        .map(str::to_string)
        .collect();
    (!v.is_empty()).then_some(v)
}

/// Processor names a shell glob matches (`*gfx90[06]*`).
pub fn resolve_glob(glob: &str) -> Option<Vec<String>> {
    let i = glob.to_ascii_lowercase().find("gfx")?;
    let mut re = String::from("^");
    for c in glob[i..].chars() {
        match c {
            '*' => break,
            '?' => re.push('.'),
            '[' | ']' | '-' => re.push(c),
            c if c.is_ascii_alphanumeric() => re.push(c),
            _ => break,
        }
    }
    // What follows the name in a file name (`_`, `.`, `*`) ends it.
    re.push('$');
    resolve_regex(&re)
}

/// Compiler macros: `__gfx90a__` (one processor), `__gfx94__`/`__gfx11__`/`__gfx9__`
/// (families that Composable Kernel and others define), `__GFX12__` (an LLVM generation).
pub fn resolve_macro(m: &str) -> Option<Vec<String>> {
    let inner = m.strip_prefix("__")?.strip_suffix("__")?;
    let lower = inner.to_ascii_lowercase();
    if !lower.starts_with("gfx") {
        return None;
    }
    if is_known(&lower) {
        return Some(vec![lower]);
    }
    // `__gfx__` or `__gfxx__` trims into `gf`: not a family.
    let stem = lower.trim_end_matches('x');
    if stem.len() > 3 && stem.starts_with("gfx") && stem[3..].bytes().all(|b| b.is_ascii_digit()) {
        let v = by_prefix(stem);
        return (!v.is_empty()).then_some(v);
    }
    None
}

/// Tensile logic folder codenames (rocBLAS/hipBLASLt `library/.../Logic/asm_full/<name>`).
pub fn codename(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "hawaii" => &["gfx701"],
        "r9nano" | "fiji" => &["gfx803"],
        "vega10" => &["gfx900"],
        "vega20" => &["gfx906"],
        "arcturus" => &["gfx908"],
        "aldebaran" => &["gfx90a"],
        "aquavanjaram" => &["gfx942"],
        "aquavanjaram940" => &["gfx940"],
        "aquavanjaram941" => &["gfx941"],
        "aquavanjaram942" => &["gfx942"],
        "gfx950" => &["gfx950"],
        "navi10" => &["gfx1010"],
        "navi12" => &["gfx1011"],
        "navi14" => &["gfx1012"],
        "navi21" => &["gfx1030"],
        "navi22" => &["gfx1031"],
        "navi23" => &["gfx1032"],
        "navi24" => &["gfx1034"],
        "navi31" => &["gfx1100"],
        "navi32" => &["gfx1101"],
        "navi33" => &["gfx1102"],
        "navi44" => &["gfx1200"],
        "navi48" => &["gfx1201"],
        "strix" | "strixpoint" => &["gfx1150"],
        "strixhalo" => &["gfx1151"],
        _ => return None,
    })
}

/// Capability the architecture table can answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// Any MFMA generation.
    Mfma,
    /// Any WMMA generation.
    Wmma,
    /// One of these families.
    Families(&'static [Family]),
    /// Every AMD processor.
    Amd,
    /// Known only by its definition in the scanned sources.
    DefinitionOnly,
}

impl Feature {
    /// Short name for output (`mfma`, `wmma`, `family:Rdna4`).
    pub fn describe(self) -> String {
        match self {
            Feature::Mfma => "mfma".into(),
            Feature::Wmma => "wmma".into(),
            Feature::Families(f) => format!(
                "family:{}",
                f.iter()
                    .map(|x| format!("{x:?}"))
                    .collect::<Vec<_>>()
                    .join("+")
            ),
            Feature::Amd => "amd".into(),
            Feature::DefinitionOnly => "definition".into(),
        }
    }

    /// Processors with the feature.
    pub fn covers(self) -> Vec<String> {
        let ok = |t: &TargetInfo| match self {
            Feature::Mfma => t.mfma.is_some(),
            Feature::Wmma => t.wmma.is_some(),
            Feature::Families(f) => f.contains(&t.family),
            Feature::Amd => true,
            Feature::DefinitionOnly => false,
        };
        let mut v: Vec<String> = TARGETS
            .iter()
            .filter(|t| t.family != Family::Generic && ok(t))
            .map(|t| t.name.to_string())
            .collect();
        if matches!(self, Feature::Mfma | Feature::Amd)
            || matches!(self, Feature::Families(f) if f.contains(&Family::Cdna3))
        {
            v.extend(RETIRED.iter().map(|s| s.to_string()));
        }
        v
    }
}

use Family::*;
const RDNA_ALL: &[Family] = &[Rdna1, Rdna2, Rdna3, Rdna3_5, Rdna4];
const CDNA_ALL: &[Family] = &[Cdna1, Cdna2, Cdna3, Cdna4];
const GCN_ALL: &[Family] = &[Gcn1, Gcn2, Gcn3, Gcn4, Gcn5];

/// Capability predicates and macros the scanner knows by name: functions (`IsXdlopsSupport`,
/// `ck::is_xdl_supported`, `amd_mfma_available`), ggml's `GGML_CUDA_CC_IS_*` macros and its
/// preprocessor family macros (`RDNA4`, `CDNA3`, `GCN`). A predicate also defined in the
/// scanned sources is resolved through that definition instead.
pub const PREDICATES: &[(&str, Feature)] = &[
    ("IsXdlopsSupport", Feature::Mfma),
    ("is_xdl_supported", Feature::Mfma),
    ("is_xdlops_supported", Feature::Mfma),
    ("IsXdlopsSupported", Feature::Mfma),
    ("amd_mfma_available", Feature::Mfma),
    ("AMD_MFMA_AVAILABLE", Feature::Mfma),
    ("is_wmma_supported", Feature::Wmma),
    ("amd_wmma_available", Feature::Wmma),
    ("AMD_WMMA_AVAILABLE", Feature::Wmma),
    (
        "IsComposableKernelSupportedHardware",
        Feature::DefinitionOnly,
    ),
    ("IsMlirSupportedHardware", Feature::DefinitionOnly),
    ("is_gfx11_supported", Feature::Families(&[Rdna3, Rdna3_5])),
    ("is_gfx12_supported", Feature::Families(&[Rdna4])),
    ("is_gfx103_supported", Feature::Families(&[Rdna2])),
    ("is_gfx101_supported", Feature::Families(&[Rdna1])),
    ("GGML_CUDA_CC_IS_AMD", Feature::Amd),
    ("GGML_CUDA_CC_IS_RDNA", Feature::Families(RDNA_ALL)),
    ("GGML_CUDA_CC_IS_RDNA1", Feature::Families(&[Rdna1])),
    ("GGML_CUDA_CC_IS_RDNA2", Feature::Families(&[Rdna2])),
    (
        "GGML_CUDA_CC_IS_RDNA3",
        Feature::Families(&[Rdna3, Rdna3_5]),
    ),
    ("GGML_CUDA_CC_IS_RDNA3_0", Feature::Families(&[Rdna3])),
    ("GGML_CUDA_CC_IS_RDNA3_5", Feature::Families(&[Rdna3_5])),
    ("GGML_CUDA_CC_IS_RDNA4", Feature::Families(&[Rdna4])),
    ("GGML_CUDA_CC_IS_CDNA", Feature::Families(CDNA_ALL)),
    ("GGML_CUDA_CC_IS_CDNA1", Feature::Families(&[Cdna1])),
    ("GGML_CUDA_CC_IS_CDNA2", Feature::Families(&[Cdna2])),
    ("GGML_CUDA_CC_IS_CDNA3", Feature::Families(&[Cdna3])),
    (
        "GGML_CUDA_CC_IS_GCN",
        Feature::Families(&[Gcn3, Gcn4, Gcn5]),
    ),
];

/// ggml's preprocessor family macros (`#if defined(RDNA4)`), defined from `__gfx*__` in
/// `vendors/hip.h`.
pub const FAMILY_MACROS: &[(&str, Feature)] = &[
    ("RDNA4", Feature::Families(&[Rdna4])),
    ("RDNA3", Feature::Families(&[Rdna3, Rdna3_5])),
    ("RDNA2", Feature::Families(&[Rdna2])),
    ("RDNA1", Feature::Families(&[Rdna1])),
    ("CDNA", Feature::Families(CDNA_ALL)),
    ("CDNA1", Feature::Families(&[Cdna1])),
    ("CDNA2", Feature::Families(&[Cdna2])),
    ("CDNA3", Feature::Families(&[Cdna3])),
    ("GCN", Feature::Families(GCN_ALL)),
    ("GCN5", Feature::Families(&[Gcn5])),
    ("GCN4", Feature::Families(&[Gcn3, Gcn4])),
];

/// The feature of a known predicate name (with or without a namespace qualifier).
pub fn predicate(name: &str) -> Option<Feature> {
    let base = name.rsplit("::").next().unwrap_or(name);
    PREDICATES.iter().find(|(n, _)| *n == base).map(|(_, f)| *f)
}

/// The feature of a ggml family macro.
pub fn family_macro(name: &str) -> Option<Feature> {
    FAMILY_MACROS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
}

/// ggml's AMD compute-capability constants (`GGML_CUDA_CC_OFFSET_AMD + 0x906` …) as the
/// (major, minor, stepping) they stand for.
pub fn ggml_cc(name: &str) -> Option<(u8, u8, u8)> {
    Some(match name.strip_prefix("GGML_CUDA_CC_")? {
        "GCN4" => (8, 0, 3),
        "VEGA" => (9, 0, 0),
        "VEGA20" => (9, 0, 6),
        "CDNA1" | "CDNA" => (9, 0, 8),
        "CDNA2" => (9, 0, 10),
        "CDNA3" => (9, 4, 2),
        "RDNA1" => (10, 1, 0),
        "RDNA2" => (10, 3, 0),
        "RDNA3" => (11, 0, 0),
        "RDNA3_5" => (11, 5, 0),
        "RDNA4" => (12, 0, 0),
        _ => return None,
    })
}

/// Processors whose version compares with `v` as `op` says (`>=`, `<`, …).
pub fn compare(op: &str, v: (u8, u8, u8)) -> Vec<String> {
    TARGETS
        .iter()
        .filter(|t| t.family != Family::Generic)
        .filter(|t| match op {
            ">=" => t.version >= v,
            ">" => t.version > v,
            "<=" => t.version <= v,
            "<" => t.version < v,
            "==" => t.version == v,
            "!=" => t.version != v,
            _ => false,
        })
        .map(|t| t.name.to_string())
        .collect()
}

/// The family of a processor, for display (`Gcn5`), if known.
pub fn family_of(name: &str) -> Option<Family> {
    row(name).map(|t| t.family)
}

/// Sorts by the table's order and removes duplicates.
pub fn dedup(v: &mut Vec<String>) {
    let order = |n: &str| {
        TARGETS
            .iter()
            .position(|t| t.name == n)
            .unwrap_or(usize::MAX)
    };
    v.sort_by(|a, b| order(a).cmp(&order(b)).then(a.cmp(b)));
    v.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(
            resolve_literal("gfx900", false),
            Some((vec!["gfx900".into()], Match::Exact))
        );
        let (v, m) = resolve_literal("gfx94", true).unwrap();
        assert_eq!(m, Match::Prefix);
        assert!(v.contains(&"gfx942".to_string()) && v.contains(&"gfx940".to_string()));
        assert!(!v.contains(&"gfx950".to_string()));
        let (v, _) = resolve_literal("gfx908;gfx90a;gfx942;gfx1100", false).unwrap();
        assert_eq!(v, ["gfx908", "gfx90a", "gfx942", "gfx1100"]);
        assert_eq!(resolve_literal("gfx%x%02x", false), None);
        assert_eq!(resolve_literal("only supported on gfx90a", false), None);
        let (v, m) = resolve_literal("^gfx(94[012]|1030|120[01])$", false).unwrap();
        assert_eq!(m, Match::Regex);
        assert_eq!(
            v,
            [
                "gfx942", "gfx1030", "gfx1200", "gfx1201", "gfx940", "gfx941"
            ]
        );
        assert_eq!(
            resolve_literal("gfx906:sramecc+:xnack-", false).unwrap().0,
            ["gfx906"]
        );
        assert_eq!(resolve_literal("gfx942kdb", false), None);
    }

    #[test]
    fn macros_globs_codenames_features() {
        assert_eq!(resolve_macro("__gfx90a__").unwrap(), ["gfx90a"]);
        // Degenerate macros name nothing (and do not slice past their end).
        for m in ["__gfx__", "__gfxx__", "__GFXX__", "__gfxxxx__"] {
            assert_eq!(resolve_macro(m), None, "{m}");
        }
        assert!(
            resolve_macro("__GFX12__")
                .unwrap()
                .contains(&"gfx1201".to_string())
        );
        assert!(
            !resolve_macro("__gfx11__")
                .unwrap()
                .contains(&"gfx1201".to_string())
        );
        assert_eq!(resolve_glob("*gfx90[06]*").unwrap(), ["gfx900", "gfx906"]);
        assert_eq!(codename("vega10"), Some(&["gfx900"][..]));
        let m = Feature::Mfma.covers();
        assert!(m.contains(&"gfx942".into()) && !m.contains(&"gfx900".into()));
        let w = predicate("GGML_CUDA_CC_IS_RDNA4").unwrap().covers();
        assert_eq!(w, ["gfx1200", "gfx1201"]);
        let ge = compare(">=", ggml_cc("GGML_CUDA_CC_VEGA20").unwrap());
        assert!(ge.contains(&"gfx906".into()) && !ge.contains(&"gfx900".into()));
        assert_eq!(wildcard("gfx94x").unwrap(), ["gfx942", "gfx940", "gfx941"]);
    }
}
