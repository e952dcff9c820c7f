//! The models rocpath ships, one per MIOpen source it was derived from, and which one answers
//! for a MIOpen release (the version a log prints or a user names).
//!
//! | model | source | MIOpen | ROCm |
//! |---|---|---|---|
//! | `rocm-6.2.2` | ROCm/MIOpen@d62f7730 (tag `rocm-6.2.2`, the last ROCm 6.x tag of ROCm/MIOpen's snapshot) | 3.2.0 | 6.2.2 |
//! | `rocm-6.3.1` | ROCm/MIOpen@b0800f61 (tag `rocm-6.3.1`, 2024-12-09, read from a fork that carries ROCm's tags: simeonschaub/MIOpen) | 3.3.0 | 6.3.1 |
//! | `2d1fd997` | ROCm/MIOpen@2d1fd997 (2024-10-24, `develop`) | 3.3.0 in development | 6.3 |
//!
//! Releases 3.4 and later were developed in the rocm-libraries monorepo; for them the
//! `2d1fd997` model (`develop`, the nearest ancestor of their source rocpath has) answers with
//! the release's known differences applied as an overlay (`3.5.1`), and the choice says that
//! no model of that release's own source exists. The models are stored deflated (`build.rs`)
//! and inflated when first asked for.

use super::ir::Model;
use std::sync::OnceLock;

/// A model compiled into rocpath.
pub struct Shipped {
    /// Its name (`rocm-6.2.2`, `2d1fd997`).
    pub name: &'static str,
    /// The MIOpen version its source carries (`rocm_setup_version` in `CMakeLists.txt`).
    pub miopen: (u32, u32, u32),
    /// The ROCm release it went with.
    pub rocm: &'static str,
    /// The model document, embedded deflated.
    packed: &'static [u8],
    cell: OnceLock<Result<Model, String>>,
}

/// A model's document as `build.rs` stored it.
macro_rules! packed {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("OUT_DIR"),
            "/miopen-model-",
            $name,
            ".json.deflate"
        ))
    };
}

static SHIPPED: [Shipped; 3] = [
    Shipped {
        name: "rocm-6.2.2",
        miopen: (3, 2, 0),
        rocm: "6.2.2",
        packed: packed!("rocm-6.2.2"),
        cell: OnceLock::new(),
    },
    Shipped {
        name: "rocm-6.3.1",
        miopen: (3, 3, 0),
        rocm: "6.3.1",
        packed: packed!("rocm-6.3.1"),
        cell: OnceLock::new(),
    },
    Shipped {
        name: "2d1fd997",
        miopen: (3, 3, 0),
        rocm: "6.3 (development)",
        packed: packed!("2d1fd997"),
        cell: OnceLock::new(),
    },
];

impl Shipped {
    /// The model document (JSON), inflated.
    pub(crate) fn text(&self) -> Result<String, String> {
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::DeflateDecoder::new(self.packed),
            &mut text,
        )
        .map_err(|e| format!("embedded model {}: {e}", self.name))?;
        Ok(text)
    }

    /// The model, parsed once.
    pub fn model(&'static self) -> Result<&'static Model, String> {
        self.cell
            .get_or_init(|| {
                serde_json::from_str(&self.text()?)
                    .map_err(|e| format!("embedded model {}: {e}", self.name))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Every shipped model, oldest release first.
pub fn shipped() -> &'static [Shipped] {
    &SHIPPED
}

/// The shipped model called `name`.
pub fn by_name(name: &str) -> Option<&'static Shipped> {
    SHIPPED.iter().find(|s| s.name == name)
}

/// A MIOpen version: `3.2.0`, `3.5.1.5b515cf1bca-dirty` (what a log prints), `3.4`.
pub fn parse_version(v: &str) -> Option<(u32, u32, u32)> {
    let mut it = v.trim().split(['.', '-', '+']);
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    let patch = it.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

/// The overlay of a release's known differences from the `2d1fd997` source (`3.5.1` for 3.5
/// and later), if any.
pub fn overlay_for(version: &str) -> Option<&'static str> {
    parse_version(version)
        .filter(|&(a, b, _)| (a, b) >= (3, 5))
        .map(|_| "3.5.1")
}

/// Which model answers for a release, and how well it fits.
pub struct Choice {
    /// The model.
    pub shipped: &'static Shipped,
    /// The overlay to apply with it.
    pub overlay: Option<&'static str>,
    /// Whether the model was derived from that release's own source.
    pub exact: bool,
    /// What the user should know when it was not.
    pub note: Option<String>,
}

/// A release named by text that is not a MIOpen version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a MIOpen version (`3.2.0`, `3.5.1`: the version MIOpen logs)")]
pub struct NotAVersion(pub String);

/// The model for MIOpen `version`; `Err` when the text is not a version.
pub fn for_release(version: &str) -> Result<Choice, NotAVersion> {
    let v = parse_version(version).ok_or_else(|| NotAVersion(version.to_string()))?;
    let same_minor = SHIPPED
        .iter()
        .find(|s| (s.miopen.0, s.miopen.1) == (v.0, v.1));
    let exact = same_minor.filter(|s| s.name.starts_with("rocm-"));
    if let Some(s) = exact {
        return Ok(Choice {
            shipped: s,
            overlay: None,
            exact: true,
            note: (s.miopen != v).then(|| {
                format!(
                    "MIOpen {version}: the model of {}.{}.{} (ROCm {}) answers",
                    s.miopen.0, s.miopen.1, s.miopen.2, s.rocm
                )
            }),
        });
    }
    // Nearest: the newest shipped model not newer than the release, else the oldest.
    let nearest = SHIPPED
        .iter()
        .rev()
        .find(|s| s.miopen <= v)
        .unwrap_or(&SHIPPED[0]);
    let overlay = overlay_for(version);
    let with = overlay
        .map(|o| format!(", with the {o} differences applied"))
        .unwrap_or_default();
    Ok(Choice {
        shipped: nearest,
        overlay,
        exact: false,
        note: Some(format!(
            "rocpath has no model derived from MIOpen {version}'s source: the nearest, ROCm/MIOpen@{} (MIOpen {}.{}.{}, ROCm {}), answers{with}",
            nearest.name, nearest.miopen.0, nearest.miopen.1, nearest.miopen.2, nearest.rocm
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_map_to_models() {
        let c = for_release("3.2.0").unwrap();
        assert!(c.exact && c.shipped.name == "rocm-6.2.2" && c.overlay.is_none());
        let c = for_release("3.5.1.5b515cf1bca-dirty").unwrap();
        assert!(!c.exact && c.shipped.name == "2d1fd997" && c.overlay == Some("3.5.1"));
        assert!(
            c.note
                .unwrap()
                .contains("no model derived from MIOpen 3.5.1")
        );
        let c = for_release("3.3.0").unwrap();
        assert!(c.exact && c.shipped.name == "rocm-6.3.1" && c.overlay.is_none());
        let c = for_release("3.4.0").unwrap();
        assert!(!c.exact && c.shipped.name == "2d1fd997" && c.overlay.is_none());
        let c = for_release("3.1.0").unwrap();
        assert!(!c.exact && c.shipped.name == "rocm-6.2.2");
        assert!(for_release("six").is_err());
    }

    #[test]
    fn every_shipped_model_loads_and_names_its_source() {
        for s in shipped() {
            let m = s.model().unwrap();
            assert!(!m.source.commit.is_empty(), "{}", s.name);
            assert!(m.solvers.len() > 100, "{}", s.name);
        }
        let commit = |name: &str| {
            by_name(name)
                .unwrap()
                .model()
                .unwrap()
                .source
                .commit
                .clone()
        };
        assert!(commit("rocm-6.2.2").starts_with("d62f7730"));
        assert!(commit("rocm-6.3.1").starts_with("b0800f61"));
        assert!(commit("2d1fd997").starts_with("2d1fd997"));
    }
}
