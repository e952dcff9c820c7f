//! What a verdict is evaluated over besides the problem: the device as MIOpen sees it, the
//! environment (`MIOPEN_DEBUG_*` and friends) and the build (`MIOPEN_USE_MLIR`, …).

use rocpath_arch::{FeatureSetting, TargetId};
use serde::Serialize;
use std::collections::BTreeMap;

/// The device as MIOpen sees it: through `ctx.GetStream()` in a solver, and through
/// `TargetProperties` when it names its databases.
#[derive(Debug, Clone, Serialize)]
pub struct Device {
    /// The target id as given (`gfx900:xnack-`).
    pub target: TargetId,
    /// `GetDeviceName()`: the processor, features cut (`TargetProperties::Init`).
    pub name: String,
    /// `TargetProperties::DbId` (`gfx900`, `gfx906_nosramecc`, `gfx90a_xnack`): the stem
    /// of the database files it reads.
    pub db_id: String,
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
    #[serde(skip_serializing_if = "Option::is_none")]
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
    /// The device of a target id, with its CU count when known. `TargetProperties::Init`
    /// maps the old names `Vega10`/`gfx901` to `gfx900` (src/target_properties.cpp:40-67);
    /// `DbId` (:100-134) is the processor, `_nosramecc` for gfx906/gfx908 with SRAMECC off,
    /// `_sramecc` for others with it on, `_xnack` with XNACK on (all @2d1fd997). Sizes stay
    /// unknown for a processor the architecture table does not know.
    pub fn new(target: &TargetId, cus: Option<u32>) -> Device {
        let name = match target.processor.as_str() {
            "gfx901" => "gfx900".to_string(),
            p => p.to_string(),
        };
        let info = rocpath_arch::target(&name);
        Device {
            target: target.clone(),
            db_id: db_id(&name, target),
            name,
            // Sramecc() is MIOpen's own default (gfx906/gfx908), not the reported setting.
            xnack: match target.xnack {
                FeatureSetting::On => Some(true),
                FeatureSetting::Off => Some(false),
                _ => None,
            },
            cus,
            wavefront: info.and_then(|i| i.wavefront_sizes.first().copied()),
            lds_bytes: info.map(|i| i.lds_bytes),
            vram: None,
        }
    }

    /// Parses `target` (`gfx900:xnack-`) and requires a processor the table knows.
    pub fn parse(target: &str, cus: Option<u32>) -> Result<Device, DeviceError> {
        let t = TargetId::parse(target)
            .map_err(|e| DeviceError::TargetId(target.to_string(), e.to_string()))?;
        let d = Device::new(&t, cus);
        d.known()?;
        Ok(d)
    }

    /// Whether the architecture table knows the processor (a verdict needs its sizes).
    pub fn known(&self) -> Result<(), DeviceError> {
        match rocpath_arch::target(&self.name) {
            Some(_) => Ok(()),
            None => Err(DeviceError::Unknown(self.name.clone())),
        }
    }
}

fn db_id(name: &str, target: &TargetId) -> String {
    let mut id = name.to_string();
    let old = name == "gfx906" || name == "gfx908";
    match target.sramecc {
        FeatureSetting::Off if old => id.push_str("_nosramecc"),
        FeatureSetting::On if !old => id.push_str("_sramecc"),
        _ => {}
    }
    if target.xnack == FeatureSetting::On {
        id.push_str("_xnack");
    }
    id
}

/// Environment variables set for the run (unset ones take their declared default).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Env {
    /// Name → value as set.
    pub vars: BTreeMap<String, String>,
}

impl Env {
    /// From `NAME=VALUE` pairs.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<Env, NotAPair> {
        let mut vars = BTreeMap::new();
        for p in pairs {
            let (k, v) = p.split_once('=').ok_or_else(|| NotAPair(p.to_string()))?;
            vars.insert(k.trim().to_string(), v.to_string());
        }
        Ok(Env { vars })
    }

    /// The value set for a variable, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
}

/// An environment setting given without `=`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?}: expected NAME=VALUE")]
pub struct NotAPair(pub String);

/// A value MIOpen does not read as a boolean (it throws `miopenStatusInvalidValue`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid value for a boolean variable: {0:?}")]
pub struct NotABool(pub String);

/// A boolean environment value as MIOpen reads it (src/include/miopen/env.hpp:60-110):
/// `Some(true)` for 1/enable(d)/yes/on/true, `Some(false)` for 0/disable(d)/no/off/false,
/// `Err` for anything else (MIOpen throws `miopenStatusInvalidValue`).
pub fn env_bool(v: &str) -> Result<bool, NotABool> {
    match v.to_ascii_lowercase().as_str() {
        "1" | "enable" | "enabled" | "yes" | "on" | "true" => Ok(true),
        "0" | "disable" | "disabled" | "no" | "off" | "false" => Ok(false),
        other => Err(NotABool(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_devices() {
        let d = Device::parse("gfx900:xnack-", Some(64)).unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(
            (d.name.as_str(), d.xnack, d.wavefront),
            ("gfx900", Some(false), Some(64))
        );
        assert!(Device::parse("gfx901", None).is_ok_and(|d| d.name == "gfx900"));
        assert!(Device::parse("sm_80", None).is_err());
        assert!(Device::parse("gfx999", None).is_err());
        let db = |t: &str| Device::parse(t, None).map(|d| d.db_id).unwrap_or_default();
        assert_eq!(db("gfx906:sramecc-"), "gfx906_nosramecc");
        assert_eq!(db("gfx90a:sramecc+:xnack+"), "gfx90a_sramecc_xnack");
        assert_eq!(db("gfx908:sramecc+"), "gfx908");
        assert!(Env::from_pairs(["NOVALUE"]).is_err());
        assert_eq!(env_bool("Enabled"), Ok(true));
        assert!(env_bool("maybe").is_err());
    }
}
