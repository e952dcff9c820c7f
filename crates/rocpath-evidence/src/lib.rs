//! The evidence model every rocpath producer uses.
//!
//! A finding is an *observation* (what was seen, and where) with an *evidence class* and a
//! *kind of proof*. The vocabulary is the one the ROCm path-observation research uses:
//!
//! | class | meaning |
//! |---|---|
//! | `confirmed` | directly confirmed via live commands, logs, file presence, or disassembly |
//! | `inferred` | interpretation logically derived from confirmed facts; not directly confirmed |
//! | `unresolved` | cannot be determined at this stage (observer constraints, observation not performed) |
//! | `limited` | partially confirmed, but incomplete due to tool limitations |
//!
//! Kinds of proof: `shipped_artifact_verified` (the shipped package or artifact was read),
//! `code_verified` (a branch, registration or call was read in source), `runtime_verified`
//! (behaviour or failure seen on hardware), `history_verified` (git log/blame/PR),
//! `hypothesis` (interpretation of observations), `speculative`.
//!
//! ```
//! use rocpath_evidence::{Evidence, Class, Proof, Locator};
//! let ev = Evidence::new(Class::Confirmed, Proof::ShippedArtifactVerified, "codeobj.present")
//!     .at(Locator::file("lib/librocblas.so").with_offset(4096));
//! assert_eq!(ev.class.as_str(), "confirmed");
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// The three layers in which a GPU generation's path survives (seed page "Why does gfx900 still
/// run?" §1): Build (the target is still built), Selection (capability checks choose),
/// Fallback (a generic path when the fast one is unavailable). A claim names its layer; a
/// source gate reads as one for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[cfg_attr(feature = "clap", value(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// The target is still in the build.
    Build,
    /// Capability-based selection of a solver or kernel.
    Selection,
    /// A generic path taken when the fast one is unavailable.
    Fallback,
}

impl Layer {
    /// All layers.
    pub const ALL: [Layer; 3] = [Layer::Build, Layer::Selection, Layer::Fallback];
    /// The snake_case name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Build => "build",
            Layer::Selection => "selection",
            Layer::Fallback => "fallback",
        }
    }
    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

/// How sure a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[cfg_attr(feature = "clap", value(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Directly confirmed via live commands, logs, file presence, or disassembly.
    Confirmed,
    /// Logically derived from confirmed facts; not directly confirmed.
    Inferred,
    /// Cannot be determined at this stage.
    Unresolved,
    /// Partially confirmed, incomplete because of tool limitations.
    Limited,
}

impl Class {
    /// All classes, strongest first.
    pub const ALL: [Class; 4] = [
        Class::Confirmed,
        Class::Inferred,
        Class::Unresolved,
        Class::Limited,
    ];

    /// The lower-case name used in JSON, TSV and the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Confirmed => "confirmed",
            Class::Inferred => "inferred",
            Class::Unresolved => "unresolved",
            Class::Limited => "limited",
        }
    }

    /// Parses the lower-case name.
    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// Japanese display name, as on the research pages.
    pub fn ja(self) -> &'static str {
        match self {
            Class::Confirmed => "確認済み",
            Class::Inferred => "推論",
            Class::Unresolved => "未確定",
            Class::Limited => "制約あり",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of proof behind a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[cfg_attr(feature = "clap", value(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum Proof {
    /// The shipped package or artifact (code object, database, library file) was read.
    ShippedArtifactVerified,
    /// A branch, registration or call was read in source code.
    CodeVerified,
    /// Behaviour or a failure mode was seen on real hardware (logs, traces).
    RuntimeVerified,
    /// Confirmed from git log / blame / PR / commit.
    HistoryVerified,
    /// An interpretation of observations.
    Hypothesis,
    /// Speculation; structure observable, intent undetermined.
    Speculative,
}

impl Proof {
    /// All kinds.
    pub const ALL: [Proof; 6] = [
        Proof::ShippedArtifactVerified,
        Proof::CodeVerified,
        Proof::RuntimeVerified,
        Proof::HistoryVerified,
        Proof::Hypothesis,
        Proof::Speculative,
    ];

    /// The snake_case name used in JSON, TSV and the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Proof::ShippedArtifactVerified => "shipped_artifact_verified",
            Proof::CodeVerified => "code_verified",
            Proof::RuntimeVerified => "runtime_verified",
            Proof::HistoryVerified => "history_verified",
            Proof::Hypothesis => "hypothesis",
            Proof::Speculative => "speculative",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Proof> {
        Proof::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where something was seen: a file, a position in it, and the hash of the bytes read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Locator {
    /// Path of the outermost input file as given on the command line (or found under it).
    pub path: String,
    /// Chain of containers from the file to the item, outermost first
    /// (e.g. `deb:data.tar.xz:usr/lib/librocsparse.so.0 > hip_fatbin > bundle#3 > hipv4-amdgcn-amd-amdhsa--gfx900`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub member: String,
    /// Byte offset of the item inside the innermost container that has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// 1-based line number, for text inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// sha256 (lower-case hex) of the bytes this observation was made from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

impl Locator {
    /// A locator for a whole file.
    pub fn file(path: impl Into<String>) -> Self {
        Locator {
            path: path.into(),
            ..Locator::default()
        }
    }
    /// A locator for an item inside a file: the container chain and, when known, the offset.
    pub fn in_container(
        path: impl Into<String>,
        member: impl Into<String>,
        offset: Option<u64>,
    ) -> Self {
        Locator {
            path: path.into(),
            member: member.into(),
            offset,
            ..Locator::default()
        }
    }
    /// Sets the container chain.
    pub fn with_member(mut self, member: impl Into<String>) -> Self {
        self.member = member.into();
        self
    }
    /// Sets the byte offset.
    pub fn with_offset(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }
    /// Sets the 1-based line.
    pub fn with_line(mut self, line: u64) -> Self {
        self.line = Some(line);
        self
    }
    /// Sets the sha256 of the bytes observed.
    pub fn with_sha256(mut self, sha256: impl Into<String>) -> Self {
        self.sha256 = Some(sha256.into());
        self
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)?;
        if !self.member.is_empty() {
            write!(f, " [{}]", self.member)?;
        }
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(off) = self.offset {
            write!(f, " @0x{off:x}")?;
        }
        Ok(())
    }
}

/// The evidence attached to one record: class, kind of proof, the rule that assigned them,
/// and where the supporting bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Evidence class.
    pub class: Class,
    /// Kind of proof.
    pub kind: Proof,
    /// Identifier of the rule that assigned class and kind (e.g. `codeobj.present`,
    /// `check.target_id_compatible`). Rules are listed in ARCHITECTURE.md.
    pub rule: String,
    /// Supporting locations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Locator>,
    /// A short human-readable reason, when the rule alone does not say enough.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl Evidence {
    /// New evidence with no sources yet.
    pub fn new(class: Class, kind: Proof, rule: impl Into<String>) -> Self {
        Evidence {
            class,
            kind,
            rule: rule.into(),
            sources: Vec::new(),
            note: String::new(),
        }
    }
    /// Adds a supporting location.
    pub fn at(mut self, loc: Locator) -> Self {
        self.sources.push(loc);
        self
    }
    /// Sets the note.
    pub fn because(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }
}

/// Facts about the run that made a set of observations: which tool, which version, when,
/// where. Every JSON document rocpath prints carries one under `observed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Always `rocpath`.
    pub tool: String,
    /// rocpath's version.
    pub version: String,
    /// The command line, argv joined by spaces (arguments with spaces quoted).
    pub command: String,
    /// Start time, RFC 3339 UTC.
    pub time: String,
    /// Host name.
    pub host: String,
    /// JSON schema name of the document (e.g. `rocpath.inventory/1`).
    pub schema: String,
}

/// A count with its noun for statements and tables: `1 GPU`, `3 gates` (the plural adds an
/// `s`), the one wording every crate uses.
pub fn count(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in Class::ALL {
            assert_eq!(Class::parse(c.as_str()), Some(c));
            let j = serde_json::to_string(&c).unwrap();
            assert_eq!(j, format!("\"{}\"", c.as_str()));
        }
        for p in Proof::ALL {
            assert_eq!(Proof::parse(p.as_str()), Some(p));
            let j = serde_json::to_string(&p).unwrap();
            assert_eq!(j, format!("\"{}\"", p.as_str()));
        }
        assert_eq!(Class::parse("Confirmed"), None);
    }

    #[test]
    fn evidence_json_shape() {
        let ev = Evidence::new(Class::Inferred, Proof::Hypothesis, "check.will_load")
            .at(Locator::file("a.so")
                .with_member("hip_fatbin > bundle#0")
                .with_offset(16))
            .because("xnack any matches");
        let v: serde_json::Value = serde_json::to_value(&ev).unwrap();
        assert_eq!(v["class"], "inferred");
        assert_eq!(v["kind"], "hypothesis");
        assert_eq!(v["sources"][0]["offset"], 16);
        assert!(v["sources"][0].get("line").is_none());
        let back: Evidence = serde_json::from_value(v).unwrap();
        assert_eq!(back, ev);
    }
}
