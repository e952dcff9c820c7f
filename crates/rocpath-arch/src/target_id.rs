//! LLVM target ids (`gfx90a:sramecc+:xnack-`) and the rules that decide whether a code
//! object built for one target id can run on a device.
//!
//! The grammar and rules are those of LLVM's AMDGPUUsage ("Target ID", "Target Features",
//! "Code Object Target Identification") and of the HIP runtime's code object selection:
//! the processor must match (or the code object must be built for a generic target that
//! covers the device's processor), and each target feature set to on or off in the code
//! object must have the same setting on the device; a feature left unspecified ("any")
//! matches both.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Setting of a target feature (xnack or sramecc) in a target id or in ELF `e_flags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FeatureSetting {
    /// The target does not support the feature (code object v4+ `e_flags` value 0).
    Unsupported,
    /// Not specified: works with the feature on or off.
    Any,
    /// `feature-`
    Off,
    /// `feature+`
    On,
}

impl FeatureSetting {
    fn suffix(self) -> &'static str {
        match self {
            FeatureSetting::On => "+",
            FeatureSetting::Off => "-",
            _ => "",
        }
    }
    /// True for `On` and `Off`.
    pub fn is_specific(self) -> bool {
        matches!(self, FeatureSetting::On | FeatureSetting::Off)
    }
}

/// A parsed target id: processor plus the two target features LLVM defines.
///
/// This is the one type for a target id everywhere in rocpath. In JSON it is its canonical
/// spelling (`"gfx90a:sramecc+:xnack-"`); records that also carry the full form and the
/// processor use [`fields`].
///
/// Two target ids are equal when they spell the same id: a feature the processor does not
/// support and a feature left unspecified both leave it out of the id.
#[derive(Debug, Clone)]
pub struct TargetId {
    /// Processor (`gfx90a`, `gfx9-generic`).
    pub processor: String,
    /// sramecc setting.
    pub sramecc: FeatureSetting,
    /// xnack setting.
    pub xnack: FeatureSetting,
}

/// Why a target id string could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetIdError {
    /// No `gfx…` processor in the string.
    #[error("no gfx processor in target id {0:?}")]
    NoProcessor(String),
    /// A feature other than xnack/sramecc, or without `+`/`-`.
    #[error("bad target feature {feature:?} in target id {id:?} (expected xnack+/- or sramecc+/-)")]
    BadFeature {
        /// The whole id.
        id: String,
        /// The offending part.
        feature: String,
    },
    /// The same feature twice.
    #[error("feature {feature} given twice in target id {id:?}")]
    Duplicate {
        /// The whole id.
        id: String,
        /// Feature name.
        feature: &'static str,
    },
}

impl TargetId {
    /// A target id with both features unspecified.
    pub fn new(processor: impl Into<String>) -> Self {
        TargetId {
            processor: processor.into(),
            sramecc: FeatureSetting::Any,
            xnack: FeatureSetting::Any,
        }
    }

    /// Parses `gfx90a`, `gfx90a:xnack+`, `gfx90a:sramecc-:xnack+`,
    /// `amdgcn-amd-amdhsa--gfx90a:xnack+` and offload-bundle ids
    /// (`hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+`).
    pub fn parse(s: &str) -> Result<TargetId, TargetIdError> {
        let s = s.trim();
        // The processor is the part after the last "--" (bundle/triple form), or the
        // last '-'-separated component that starts with "gfx" (generic names contain '-').
        let tail = match s.rfind("--") {
            Some(i) => &s[i + 2..],
            None => match s.find("gfx") {
                Some(i) => &s[i..],
                None => return Err(TargetIdError::NoProcessor(s.to_string())),
            },
        };
        let mut parts = tail.split(':');
        let processor = parts.next().unwrap_or_default();
        if !processor.starts_with("gfx") || processor.len() < 4 {
            return Err(TargetIdError::NoProcessor(s.to_string()));
        }
        TargetId::with_features(s, processor, parts)
    }

    /// `processor` with the `xnack±`/`sramecc±` settings in `parts`; errors quote the whole
    /// string `s`, for errors.
    fn with_features<'a>(
        s: &str,
        processor: &str,
        parts: impl Iterator<Item = &'a str>,
    ) -> Result<TargetId, TargetIdError> {
        let mut id = TargetId::new(processor);
        let mut seen_x = false;
        let mut seen_s = false;
        for f in parts {
            let (name, setting) = match f.strip_suffix('+') {
                Some(n) => (n, FeatureSetting::On),
                None => match f.strip_suffix('-') {
                    Some(n) => (n, FeatureSetting::Off),
                    None => {
                        return Err(TargetIdError::BadFeature {
                            id: s.to_string(),
                            feature: f.to_string(),
                        });
                    }
                },
            };
            match name {
                "xnack" if !seen_x => {
                    seen_x = true;
                    id.xnack = setting;
                }
                "sramecc" if !seen_s => {
                    seen_s = true;
                    id.sramecc = setting;
                }
                "xnack" => {
                    return Err(TargetIdError::Duplicate {
                        id: s.to_string(),
                        feature: "xnack",
                    });
                }
                "sramecc" => {
                    return Err(TargetIdError::Duplicate {
                        id: s.to_string(),
                        feature: "sramecc",
                    });
                }
                _ => {
                    return Err(TargetIdError::BadFeature {
                        id: s.to_string(),
                        feature: f.to_string(),
                    });
                }
            }
        }
        Ok(id)
    }

    /// Parses the target spelled in a file name: `…_gfx90a-xnack+.hsaco`, `…-gfx1201.co`,
    /// `gfx900_64.HIP.fdb.txt`. Returns the first `gfx…` token with its `-`/`:` separated
    /// xnack/sramecc suffixes.
    pub fn from_file_name(name: &str) -> Option<TargetId> {
        let i = name.find("gfx")?;
        let rest = &name[i..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | ':' | '+')))
            .unwrap_or(rest.len());
        let tok = &rest[..end];
        // Split processor from features: features are introduced by '-' or ':' followed by
        // "xnack" or "sramecc".
        let mut processor_end = tok.len();
        for pat in ["-xnack", ":xnack", "-sramecc", ":sramecc"] {
            if let Some(p) = tok.find(pat) {
                processor_end = processor_end.min(p);
            }
        }
        let mut processor = &tok[..processor_end];
        // Generic names keep their dashes (gfx9-4-generic); otherwise stop at the first '-'.
        if !processor.contains("-generic") {
            processor = processor.split('-').next().unwrap_or(processor);
        }
        if processor.len() < 4 || !processor[3..].starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let mut id = TargetId::new(processor);
        let feats = &tok[processor_end..];
        for f in feats.split([':', '-']).filter(|f| !f.is_empty()) {
            let (n, set) = if let Some(n) = f.strip_suffix('+') {
                (n, FeatureSetting::On)
            } else {
                (f, FeatureSetting::Off)
            };
            match n {
                "xnack" => id.xnack = set,
                "sramecc" => id.sramecc = set,
                _ => {}
            }
        }
        // A trailing '-' after the feature name is consumed by split: detect "xnack-" vs
        // "xnack" at the end of the token (the latter is not a setting).
        Some(id)
    }

    /// Canonical spelling: processor, then features in alphabetical order
    /// (`gfx90a:sramecc+:xnack-`), unspecified features omitted.
    pub fn canonical(&self) -> String {
        let mut s = self.processor.clone();
        if self.sramecc.is_specific() {
            s.push_str(":sramecc");
            s.push_str(self.sramecc.suffix());
        }
        if self.xnack.is_specific() {
            s.push_str(":xnack");
            s.push_str(self.xnack.suffix());
        }
        s
    }

    /// The full form `amdgcn-amd-amdhsa--<canonical>`.
    pub fn full(&self) -> String {
        format!("amdgcn-amd-amdhsa--{}", self.canonical())
    }
}

impl TargetId {
    /// What equality, order and hashing compare: the processor and each feature as the id
    /// spells it (`Unsupported` and `Any` are both absent).
    fn key(&self) -> (&str, FeatureSetting, FeatureSetting) {
        let spelled = |f: FeatureSetting| match f {
            FeatureSetting::Unsupported => FeatureSetting::Any,
            f => f,
        };
        (&self.processor, spelled(self.sramecc), spelled(self.xnack))
    }
}

impl PartialEq for TargetId {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for TargetId {}

impl std::hash::Hash for TargetId {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h);
    }
}

impl PartialOrd for TargetId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for TargetId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// Processor name of a code object whose target nothing tells.
pub const UNKNOWN_PROCESSOR: &str = "unknown";

impl TargetId {
    /// The target of a code object whose `e_flags` and notes name no processor.
    pub fn unknown() -> Self {
        TargetId::new(UNKNOWN_PROCESSOR)
    }

    /// Whether this target id is selected by `filter`: a filter with features must be the
    /// same target id; a bare processor (`gfx900`) selects every target id of that processor.
    pub fn matches(&self, filter: &TargetId) -> bool {
        if filter.sramecc.is_specific() || filter.xnack.is_specific() {
            self == filter
        } else {
            self.processor == filter.processor
        }
    }
}

impl FromStr for TargetId {
    type Err = TargetIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TargetId::parse(s)
    }
}

impl Serialize for TargetId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TargetId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(d)?;
        if s.starts_with(UNKNOWN_PROCESSOR) {
            // `unknown`, `unknown-mach-0x5f:xnack-`: what a code object without a known
            // processor is written as.
            let mut parts = s.split(':');
            let processor = parts.next().unwrap_or_default();
            return TargetId::with_features(&s, processor, parts).map_err(serde::de::Error::custom);
        }
        TargetId::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Serde helpers that write one target id as the three fields records carry —
/// `target` (full, `amdgcn-amd-amdhsa--gfx90a:xnack+`), `target_id` (canonical) and
/// `processor` — and read it back from `target_id`. Use with
/// `#[serde(flatten, with = "rocpath_arch::fields")]`.
pub mod fields {
    use super::TargetId;
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `target`, `target_id` and `processor`.
    pub fn serialize<S: Serializer>(t: &TargetId, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("target", &t.full())?;
        m.serialize_entry("target_id", &t.canonical())?;
        m.serialize_entry("processor", &t.processor)?;
        m.end()
    }

    #[derive(Deserialize)]
    struct Fields {
        target_id: TargetId,
    }

    /// Reads the target id from `target_id` (the other two are derived from it).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TargetId, D::Error> {
        Ok(Fields::deserialize(d)?.target_id)
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

/// Parses a gfx version as `HSA_OVERRIDE_GFX_VERSION` spells it (`9.0.0`, `10.3.0`,
/// `9.0.10`, `11.0.0`).
pub fn parse_gfx_version(s: &str) -> Option<(u8, u8, u8)> {
    let mut it = s.trim().split('.');
    let a = it.next()?.parse().ok()?;
    let b = it.next()?.parse().ok()?;
    let c = it.next()?.parse().ok()?;
    if it.next().is_some() {
        return None;
    }
    Some((a, b, c))
}

/// The KFD topology `gfx_target_version` (major*10000 + minor*100 + stepping) as a triple.
pub fn split_kfd_version(v: u32) -> (u8, u8, u8) {
    (
        ((v / 10000) % 256) as u8,
        ((v / 100) % 100) as u8,
        (v % 100) as u8,
    )
}

/// Outcome of matching one code object target id against one device target id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Compat {
    /// The loader will accept it: processor and features match.
    Compatible {
        /// Rule id (see [`rules`]).
        rule: &'static str,
        /// Human-readable explanation.
        why: String,
    },
    /// The loader may accept it depending on a device setting rocpath does not know
    /// (the device target id leaves xnack or sramecc unspecified).
    Depends {
        /// Rule id.
        rule: &'static str,
        /// What it depends on.
        why: String,
    },
    /// The loader will reject it.
    Incompatible {
        /// Rule id.
        rule: &'static str,
        /// Why.
        why: String,
    },
}

impl Compat {
    /// Rule id of the verdict.
    pub fn rule(&self) -> &'static str {
        match self {
            Compat::Compatible { rule, .. }
            | Compat::Depends { rule, .. }
            | Compat::Incompatible { rule, .. } => rule,
        }
    }
    /// Explanation.
    pub fn why(&self) -> &str {
        match self {
            Compat::Compatible { why, .. }
            | Compat::Depends { why, .. }
            | Compat::Incompatible { why, .. } => why,
        }
    }
}

/// Rule identifiers used in [`Compat`] verdicts.
pub mod rules {
    /// Same processor, every specified feature matches.
    pub const EXACT: &str = "target_id.exact_match";
    /// Code object for a generic target covering the device processor (code object v6+).
    pub const GENERIC: &str = "target_id.generic_covers";
    /// Generic target, but the code object version is below 6.
    pub const GENERIC_OLD_COV: &str = "target_id.generic_needs_cov6";
    /// Different processor.
    pub const PROCESSOR: &str = "target_id.processor_mismatch";
    /// A feature set on/off in the code object differs from the device.
    pub const FEATURE: &str = "target_id.feature_mismatch";
    /// The device's feature setting is unknown.
    pub const FEATURE_UNKNOWN: &str = "target_id.feature_unknown_on_device";
}

fn feature_compat(
    name: &str,
    co: FeatureSetting,
    dev: FeatureSetting,
) -> Result<(), (bool, String)> {
    match (co, dev) {
        (FeatureSetting::Any | FeatureSetting::Unsupported, _) => Ok(()),
        (c, d) if c == d => Ok(()),
        (c, FeatureSetting::Any | FeatureSetting::Unsupported) => Err((
            true,
            format!(
                "code object needs {name}{} and the device's {name} setting is not known",
                c.suffix()
            ),
        )),
        (c, d) => Err((
            false,
            format!(
                "code object needs {name}{}, device has {name}{}",
                c.suffix(),
                d.suffix()
            ),
        )),
    }
}

/// Decides whether a code object built for `co` (with ELF code object version `cov`, when
/// known) can be loaded on a device whose target id is `dev`.
pub fn code_object_compat(co: &TargetId, cov: Option<u8>, dev: &TargetId) -> Compat {
    let mut how = rules::EXACT;
    let mut why = format!(
        "code object {} matches device {}",
        co.canonical(),
        dev.canonical()
    );
    if co.processor != dev.processor {
        let generic = crate::target(&co.processor).filter(|t| !t.covers.is_empty());
        match generic {
            Some(g) if g.covers.contains(&dev.processor.as_str()) => {
                if cov.is_some_and(|v| v < 6) {
                    return Compat::Incompatible {
                        rule: rules::GENERIC_OLD_COV,
                        why: format!(
                            "{} covers {}, but generic targets need code object v6 and this one is v{}",
                            co.processor,
                            dev.processor,
                            cov.unwrap_or_default()
                        ),
                    };
                }
                how = rules::GENERIC;
                why = format!("generic target {} covers {}", co.processor, dev.processor);
            }
            _ => {
                return Compat::Incompatible {
                    rule: rules::PROCESSOR,
                    why: format!(
                        "code object is for {}, device is {}",
                        co.processor, dev.processor
                    ),
                };
            }
        }
    }
    let mut depends = Vec::new();
    for (name, c, d) in [
        ("sramecc", co.sramecc, dev.sramecc),
        ("xnack", co.xnack, dev.xnack),
    ] {
        match feature_compat(name, c, d) {
            Ok(()) => {}
            Err((true, w)) => depends.push(w),
            Err((false, w)) => {
                return Compat::Incompatible {
                    rule: rules::FEATURE,
                    why: w,
                };
            }
        }
    }
    if !depends.is_empty() {
        return Compat::Depends {
            rule: rules::FEATURE_UNKNOWN,
            why: depends.join("; "),
        };
    }
    Compat::Compatible { rule: how, why }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_the_canonical_spelling_and_reads_back() {
        for id in [
            "gfx90a:sramecc+:xnack-",
            "gfx900",
            "gfx9-4-generic:xnack+",
            "unknown",
            "unknown-mach-0x5f:xnack-",
        ] {
            let t: TargetId = serde_json::from_str(&format!("{id:?}")).unwrap();
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("{id:?}"));
        }
        assert!(serde_json::from_str::<TargetId>("\"gfx90a:xnack\"").is_err());
        assert!(serde_json::from_str::<TargetId>("\"vega\"").is_err());
    }

    #[test]
    fn record_fields_spell_one_target_id_three_ways() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Rec {
            name: String,
            #[serde(flatten, with = "fields")]
            target: TargetId,
        }
        let r = Rec {
            name: "k".into(),
            target: TargetId::parse("gfx90a:xnack+").unwrap(),
        };
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["target"], "amdgcn-amd-amdhsa--gfx90a:xnack+");
        assert_eq!(j["target_id"], "gfx90a:xnack+");
        assert_eq!(j["processor"], "gfx90a");
        assert_eq!(serde_json::from_value::<Rec>(j).unwrap(), r);
    }

    #[test]
    fn a_bare_processor_selects_every_feature_setting() {
        let t = TargetId::parse("gfx90a:sramecc+:xnack-").unwrap();
        assert!(t.matches(&"gfx90a".parse().unwrap()));
        assert!(t.matches(&"gfx90a:xnack-:sramecc+".parse().unwrap()));
        assert!(!t.matches(&"gfx90a:xnack+".parse().unwrap()));
        assert!(!t.matches(&"gfx908".parse().unwrap()));
        let mut scanned = TargetId::new("gfx1100");
        scanned.xnack = FeatureSetting::Unsupported;
        assert_eq!(scanned, TargetId::new("gfx1100"), "both spell gfx1100");
    }

    #[test]
    fn parses_forms() {
        let t = TargetId::parse("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+").unwrap();
        assert_eq!(t.processor, "gfx90a");
        assert_eq!(t.xnack, FeatureSetting::On);
        assert_eq!(t.sramecc, FeatureSetting::Any);
        assert_eq!(
            TargetId::parse("gfx90a:xnack-:sramecc+")
                .unwrap()
                .canonical(),
            "gfx90a:sramecc+:xnack-"
        );
        assert_eq!(
            TargetId::parse("amdgcn-amd-amdhsa--gfx9-4-generic")
                .unwrap()
                .processor,
            "gfx9-4-generic"
        );
        assert_eq!(
            TargetId::parse("gfx1201").unwrap().full(),
            "amdgcn-amd-amdhsa--gfx1201"
        );
        assert!(TargetId::parse("host-x86_64-unknown-linux-gnu-").is_err());
        assert!(TargetId::parse("gfx900:xnack").is_err());
        assert!(TargetId::parse("gfx900:xnack+:xnack-").is_err());
        assert!(TargetId::parse("gfx900:tgsplit+").is_err());
    }

    #[test]
    fn parses_file_names() {
        let t = TargetId::from_file_name("TensileLibrary_Type_BB_HPA_fallback_gfx90a-xnack+.hsaco")
            .unwrap();
        assert_eq!(t.canonical(), "gfx90a:xnack+");
        let t = TargetId::from_file_name("rocsparse0-5.3.0_bundle080_gfx900-xnack-.co").unwrap();
        assert_eq!(t.canonical(), "gfx900:xnack-");
        let t = TargetId::from_file_name("TensileLibrary_lazy_gfx1201.dat").unwrap();
        assert_eq!(t.canonical(), "gfx1201");
        let t = TargetId::from_file_name("gfx942130.HIP.fdb.txt").unwrap();
        assert_eq!(t.processor, "gfx942130");
        assert!(TargetId::from_file_name("TensileLibrary_fallback.dat").is_none());
    }

    #[test]
    fn versions() {
        assert_eq!(parse_gfx_version("9.0.10"), Some((9, 0, 10)));
        assert_eq!(parse_gfx_version("9.0"), None);
        assert_eq!(split_kfd_version(90010), (9, 0, 10));
        assert_eq!(split_kfd_version(120001), (12, 0, 1));
    }

    #[test]
    fn feature_rules() {
        let dev = TargetId::parse("gfx90a:sramecc+:xnack-").unwrap();
        let any = TargetId::parse("gfx90a").unwrap();
        assert!(matches!(
            code_object_compat(&any, Some(6), &dev),
            Compat::Compatible { .. }
        ));
        let on = TargetId::parse("gfx90a:xnack+").unwrap();
        let c = code_object_compat(&on, Some(6), &dev);
        assert_eq!(c.rule(), rules::FEATURE);
        let dev_unknown = TargetId::parse("gfx90a").unwrap();
        assert_eq!(
            code_object_compat(&on, Some(6), &dev_unknown).rule(),
            rules::FEATURE_UNKNOWN
        );
        let other = TargetId::parse("gfx906").unwrap();
        assert_eq!(
            code_object_compat(&other, Some(6), &dev).rule(),
            rules::PROCESSOR
        );
    }
}
