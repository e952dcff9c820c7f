//! What a verdict is evaluated over besides the problem: the device as MIOpen sees it, the
//! environment (`MIOPEN_DEBUG_*` and friends) and the build (`MIOPEN_USE_MLIR`, …).

use rocpath_arch::{FeatureSetting, TargetId};
use serde::Serialize;
use std::collections::BTreeMap;

/// The device as a solver sees it through `ctx.GetStream()`.
#[derive(Debug, Clone, Serialize)]
pub struct Device {
    /// The target id as given (`gfx900:xnack-`).
    pub target: String,
    /// `GetDeviceName()`: the processor, features cut (`TargetProperties::Init`).
    pub name: String,
    /// `TargetProperties::Xnack()`: known only from an explicit `:xnack±`.
    pub xnack: Option<bool>,
    /// `GetMaxComputeUnits()`, when known.
    pub cus: Option<u32>,
    /// `GetWavefrontWidth()`: the default wavefront size of the processor.
    pub wavefront: Option<u32>,
    /// `GetLocalMemorySize()`: LDS bytes per workgroup.
    pub lds_bytes: Option<u32>,
    /// Device memory in bytes (`hipMemGetInfo` total), when known: `GetMaxMemoryAllocSize()`
    /// is 85 % of it (src/hip/handlehip.cpp:758-770@2d1fd997).
    pub vram: Option<u64>,
}

/// Why a device cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// Not a target id.
    #[error("{0:?} is not a gfx target id ({1})")]
    TargetId(String, String),
    /// A processor the architecture table does not know.
    #[error("{0} is not in the architecture table (see `rocpath arch`)")]
    Unknown(String),
}

impl Device {
    /// The device of a target id (`gfx900:xnack-`), with its CU count when known.
    /// `TargetProperties::Init` maps the old names `Vega10`/`gfx901` to `gfx900`
    /// (src/target_properties.cpp:40-67@2d1fd997).
    pub fn new(target: &str, cus: Option<u32>) -> Result<Device, DeviceError> {
        let t = TargetId::parse(target)
            .map_err(|e| DeviceError::TargetId(target.to_string(), e.to_string()))?;
        let name = match t.processor.as_str() {
            "gfx901" => "gfx900".to_string(),
            p => p.to_string(),
        };
        let info = rocpath_arch::target(&name).ok_or_else(|| DeviceError::Unknown(name.clone()))?;
        // Sramecc() is MIOpen's own default (gfx906/gfx908), not the reported setting.
        let feat = |f: FeatureSetting| match f {
            FeatureSetting::On => Some(true),
            FeatureSetting::Off => Some(false),
            _ => None,
        };
        Ok(Device {
            target: t.full(),
            name,
            xnack: feat(t.xnack),
            cus,
            wavefront: info.wavefront_sizes.first().copied(),
            lds_bytes: Some(info.lds_bytes),
            vram: None,
        })
    }
}

/// Environment variables set for the run (unset ones take their declared default).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Env {
    /// Name → value as set.
    pub vars: BTreeMap<String, String>,
}

impl Env {
    /// From `NAME=VALUE` pairs.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<Env, String> {
        let mut vars = BTreeMap::new();
        for p in pairs {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| format!("{p:?}: expected NAME=VALUE"))?;
            vars.insert(k.trim().to_string(), v.to_string());
        }
        Ok(Env { vars })
    }

    /// The value set for a variable, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

/// A boolean environment value as MIOpen reads it (src/include/miopen/env.hpp:60-110):
/// `Some(true)` for 1/enable(d)/yes/on/true, `Some(false)` for 0/disable(d)/no/off/false,
/// `Err` for anything else (MIOpen throws `miopenStatusInvalidValue`).
pub fn env_bool(v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "1" | "enable" | "enabled" | "yes" | "on" | "true" => Ok(true),
        "0" | "disable" | "disabled" | "no" | "off" | "false" => Ok(false),
        other => Err(format!("invalid value for a boolean variable: {other:?}")),
    }
}

/// A size as people write it (`8G`, `16GiB`, `512M`, `8589934592`), in bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return None,
    };
    let v = n * mult as f64;
    (v.is_finite() && (0.0..1.8e19).contains(&v)).then_some(v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_devices() {
        assert_eq!(parse_size("8G"), Some(8 << 30));
        assert_eq!(parse_size("16GiB"), Some(16 << 30));
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("1.5M"), Some(1572864));
        assert_eq!(parse_size("8Q"), None);
        assert_eq!(parse_size(""), None);
        let d = Device::new("gfx900:xnack-", Some(64)).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(
            (d.name.as_str(), d.xnack, d.wavefront),
            ("gfx900", Some(false), Some(64))
        );
        assert!(Device::new("gfx901", None).is_ok_and(|d| d.name == "gfx900"));
        assert!(Device::new("sm_80", None).is_err());
        assert!(Env::from_pairs(["NOVALUE"]).is_err());
        assert_eq!(env_bool("Enabled"), Ok(true));
        assert!(env_bool("maybe").is_err());
    }
}
