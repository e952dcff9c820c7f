//! The one item type of every document's `errors[]`.
//!
//! An error item says what could not be read and where, so a reader can go to it: the file
//! (`path`), the chain of containers down to the item (`container`: `lib.so > bundle#2`), the
//! byte offset in the innermost container, or the 1-based line of a text. Fields a producer
//! does not know are left out of the JSON rather than written as `null` or `""`. An error that
//! is also a finding (an item seen but not readable is `limited` evidence) carries its
//! evidence.

use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};

/// One entry of a document's `errors[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorItem {
    /// The file or folder, as given or found.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// Container chain down to the item, when the item is inside a file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub container: String,
    /// The library the item belongs to, when the producer groups by library.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub library: String,
    /// Byte offset in the innermost container, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// 1-based line (or record) of a text, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// What is wrong and what to do, without the location above.
    pub message: String,
    /// The error as evidence, when it is a finding of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

impl ErrorItem {
    /// An error with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        ErrorItem {
            path: String::new(),
            container: String::new(),
            library: String::new(),
            offset: None,
            line: None,
            message: message.into(),
            evidence: None,
        }
    }

    /// An error about a file.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ErrorItem {
            path: path.into(),
            ..ErrorItem::new(message)
        }
    }

    /// With the 1-based line.
    pub fn line(mut self, line: Option<u64>) -> Self {
        self.line = line;
        self
    }

    /// With the container chain and the offset in it.
    pub fn inside(mut self, container: impl Into<String>, offset: Option<u64>) -> Self {
        self.container = container.into();
        self.offset = offset;
        self
    }

    /// With the library.
    pub fn library(mut self, library: impl Into<String>) -> Self {
        self.library = library.into();
        self
    }

    /// With its evidence.
    pub fn evidence(mut self, evidence: Evidence) -> Self {
        self.evidence = Some(evidence);
        self
    }

    /// The order errors are listed in: by place, then message.
    pub fn sort_key(&self) -> (&str, &str, Option<u64>, Option<u64>, &str) {
        (
            &self.path,
            &self.container,
            self.offset,
            self.line,
            &self.message,
        )
    }
}

impl std::fmt::Display for ErrorItem {
    /// `path[:line] [container @offset]: message`, the way every command prints an error line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.path.is_empty() {
            f.write_str(&self.path)?;
            if let Some(l) = self.line {
                write!(f, ":{l}")?;
            }
            if !self.container.is_empty() {
                write!(f, " [{}", self.container)?;
                if let Some(o) = self.offset {
                    write!(f, " @{o:#x}")?;
                }
                f.write_str("]")?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocpath_evidence::{Class, Proof};

    #[test]
    fn absent_fields_are_left_out() {
        let e = ErrorItem::new("bad");
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"message":"bad"}"#);
        let e = ErrorItem::at("a.so", "truncated")
            .inside("a.so > bundle#1", Some(64))
            .library("rocblas")
            .evidence(Evidence::new(Class::Limited, Proof::CodeVerified, "x.rule"));
        let v: serde_json::Value = serde_json::to_value(&e).unwrap();
        assert_eq!(v["offset"], 64);
        assert_eq!(v["container"], "a.so > bundle#1");
        assert!(v.get("line").is_none());
        let back: ErrorItem = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn displays_place_then_message() {
        assert_eq!(
            ErrorItem::at("t.csv", "bad row").line(Some(3)).to_string(),
            "t.csv:3: bad row"
        );
        assert_eq!(
            ErrorItem::at("a.so", "cut")
                .inside("a.so > b#1", Some(16))
                .to_string(),
            "a.so [a.so > b#1 @0x10]: cut"
        );
        assert_eq!(ErrorItem::new("x").to_string(), "x");
    }
}
