//! Record types of the ledger. Each type is one file (claims, questions, cases: TOML; imported
//! observations: JSON), so a ledger kept in git diffs one record at a time.

use rocpath_evidence::{Class, Locator, Proof};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Schema of `ledger.toml`.
pub const LEDGER_SCHEMA: &str = "rocpath.ledger/1";
/// Schema of `claims/<id>.toml`.
pub const CLAIM_SCHEMA: &str = "rocpath.ledger.claim/1";
/// Schema of `questions/<id>.toml`.
pub const QUESTION_SCHEMA: &str = "rocpath.ledger.question/1";
/// Schema of `cases/<id>.toml`.
pub const CASE_SCHEMA: &str = "rocpath.ledger.case/1";
/// Schema of `observations/<id>.json`.
pub const OBSERVATION_SCHEMA: &str = "rocpath.ledger.observation/1";

/// A text in Japanese and English. Either may be empty: the site marks a missing translation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// Japanese.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ja: String,
    /// English.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub en: String,
}

/// The five floors of the ROCm building (seed page "Visual Guide to the ROCm Stack"), top first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[cfg_attr(feature = "clap", value(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum Floor {
    /// 5F: PyTorch, Ollama, llama.cpp.
    Application,
    /// 4F: rocBLAS, MIOpen, Tensile, hipBLASLt, Composable Kernel, ggml-hip.
    MathLibrary,
    /// 3F: HIP runtime, ROCr.
    Runtime,
    /// 2F: amdgpu driver and KFD.
    Driver,
    /// 1F: the GPU itself.
    Hardware,
}

pub use rocpath_evidence::Layer;

/// What kind of selection a claim is about, when it is about one. A claim about `natural`
/// selection (the library chose by itself) may not rest on a forced run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[cfg_attr(feature = "clap", value(rename_all = "snake_case"))]
#[serde(rename_all = "snake_case")]
pub enum SelectionKind {
    /// The library chose by itself.
    Natural,
    /// A solver or kernel was forced (`-S`, `MIOPEN_DEBUG_FIND_ONLY_SOLVER`, ...).
    Forced,
    /// Earlier candidates were rejected and a later one ran.
    Fallback,
}

/// `ledger.toml`: what the ledger is about and the observation worlds it declares.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerMeta {
    /// Always [`LEDGER_SCHEMA`].
    pub schema: String,
    /// Title of the ledger (and of the site).
    #[serde(default)]
    pub title: Text,
    /// What the ledger is about.
    #[serde(default)]
    pub description: Text,
    /// The folder the raw recordings are under, relative to the ledger folder: published
    /// pages show raw paths relative to it (default: the ledger folder).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub data_root: String,
    /// Declared observation worlds, in display order.
    #[serde(default, rename = "world", skip_serializing_if = "Vec::is_empty")]
    pub worlds: Vec<WorldDecl>,
}

/// An observation world: a gfx target (`gfx900`) or a generation (`RDNA4`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldDecl {
    /// The world id used by claims (`gfx900`, `gfx1201`, `CDNA3`).
    pub id: String,
    /// Display name (`GCN5 / MI25`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The character of observation in this world (e.g. "fallback is the main stage").
    #[serde(default)]
    pub character: Text,
    /// Investigation status (e.g. "active observation").
    #[serde(default)]
    pub status: Text,
    /// What the world's page lets a reader understand, written by a person; when empty the
    /// page generates it from the steps its claims answer.
    #[serde(default, skip_serializing_if = "Text::is_empty")]
    pub lead: Text,
}

/// A claim: one sentence, its evidence class and kind of proof, where it sits, what supports
/// it and what would falsify it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Always [`CLAIM_SCHEMA`].
    pub schema: String,
    /// Identifier; also the file name (`claims/<id>.toml`).
    pub id: String,
    /// The statement, in Japanese and English.
    #[serde(default)]
    pub statement: Text,
    /// Evidence class. Missing is an error that `ledger check` reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// Kind of proof.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Proof>,
    /// Observation world: gfx target or generation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub world: String,
    /// Floor of the stack the claim is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<Floor>,
    /// Layer (Build / Selection / Fallback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<Layer>,
    /// The kind of selection the claim asserts, when it is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<SelectionKind>,
    /// What would falsify the claim.
    #[serde(default)]
    pub falsified_by: Text,
    /// What supports it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub support: Vec<Support>,
    /// Dated status changes, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<HistoryEntry>,
    /// The derivation rule that wrote the claim (`derive.cases.group`); empty for a claim a
    /// person recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub derived_by: String,
    /// A person's review of a derived claim; derivation keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<Review>,
    /// What the rule computed when it last wrote the claim: its key, counts, exceptions, the
    /// class and statement it generated (a statement or class that differs from these was
    /// edited by a person, and derivation keeps the edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived: Option<Derived>,
}

/// A person's review of a derived claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Review {
    /// Read and accepted as the rule wrote it.
    Accepted,
    /// Accepted with an edit (statement, class, falsified_by).
    Edited,
    /// Rejected: kept on file, left out of the findings.
    Rejected,
}

/// What a derivation rule computed for a claim.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Derived {
    /// The rule's key: what the claim is about (`gfx900|3.5.1|conv_fwd|INT8|natural`).
    pub key: String,
    /// Observations that agree with the statement.
    #[serde(default)]
    pub agree: u64,
    /// Observations the rule counted.
    #[serde(default)]
    pub of: u64,
    /// The observations that disagree, each named with what it showed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exceptions: Vec<String>,
    /// The class the rule gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// The statement the rule generated.
    #[serde(default)]
    pub statement: Text,
}

/// One support of a claim: an imported observation (whole, one record by JSON pointer, or the
/// records whose fields match), another claim, or a source location.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Support {
    /// Observation id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<String>,
    /// JSON pointer of one record inside the observation's document (`/code_objects/3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// Field values that select records inside the observation (`target = "gfx900:xnack-"`).
    #[serde(default, rename = "where", skip_serializing_if = "BTreeMap::is_empty")]
    pub filter: BTreeMap<String, String>,
    /// Another claim's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// A source location (file, line, sha256), relative to the ledger folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Locator>,
    /// For a source with a line: the line as read when the claim was recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub quote: String,
    /// Why this supports the claim.
    #[serde(default, skip_serializing_if = "Text::is_empty")]
    pub note: Text,
}

/// One dated status change of a claim.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryEntry {
    /// Date, `YYYY-MM-DD`.
    pub date: String,
    /// The class from this date on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// The kind of proof from this date on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Proof>,
    /// What changed and why.
    #[serde(default, skip_serializing_if = "Text::is_empty")]
    pub note: Text,
}

/// An open question and the observation that would answer it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Always [`QUESTION_SCHEMA`].
    pub schema: String,
    /// Identifier; also the file name.
    pub id: String,
    /// The question.
    #[serde(default)]
    pub text: Text,
    /// Observation world.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub world: String,
    /// The observation that would answer it.
    #[serde(default)]
    pub would_answer: Text,
    /// Claims that are the current answer (empty: unanswered).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answer: Vec<String>,
}

/// A case: the observations of one experiment, read as Fact / Interpretation / Open Question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Always [`CASE_SCHEMA`].
    pub schema: String,
    /// Identifier; also the file name.
    pub id: String,
    /// Title.
    #[serde(default)]
    pub title: Text,
    /// Observation world.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub world: String,
    /// Date of the experiment, `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub date: String,
    /// What was done.
    #[serde(default)]
    pub summary: Text,
    /// Observations the case groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observations: Vec<String>,
    /// Claims read from it (confirmed ones are its facts, inferred ones its interpretation,
    /// unresolved and limited ones its open questions and limitations).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<String>,
    /// Open questions it raises.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<String>,
}

/// An observation: one rocpath JSON document as imported, with the hashes of its raw inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observation {
    /// Always [`OBSERVATION_SCHEMA`].
    pub schema: String,
    /// Identifier; also the file name (`observations/<id>.json`).
    pub id: String,
    /// Where and how it was imported.
    pub imported: Imported,
    /// The raw inputs the document's evidence names, hashed when imported.
    #[serde(default)]
    pub inputs: Vec<Input>,
    /// Raw text lines the document's evidence points at (file + line), quoted when imported.
    #[serde(default)]
    pub quotes: Vec<Quote>,
    /// The document exactly as the producer printed it (`schema`, `observed`, payload).
    pub document: serde_json::Value,
}

/// How an observation entered the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imported {
    /// The JSON file as named on the import command line.
    pub file: String,
    /// sha256 of that file's bytes.
    pub sha256: String,
    /// Folder the document's relative input paths are relative to, relative to the ledger
    /// folder (the importing process's working directory).
    pub base: String,
    /// The world the recording was made in (`ledger import --world`), for documents that do
    /// not name their device (Ollama runs, strace splits, lanes).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub world: String,
}

/// A raw input of an observation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Path as the document names it.
    pub path: String,
    /// sha256 of the whole file when it was imported; absent when it could not be read then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Size in bytes when imported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Why it was not hashed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// One raw line of an input, quoted at import.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quote {
    /// Path as the document names it.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// The line (lossy UTF-8, cut at [`crate::QUOTE_MAX`] bytes).
    pub text: String,
}

impl Text {
    /// A text in both languages.
    pub fn new(ja: impl Into<String>, en: impl Into<String>) -> Self {
        Text {
            ja: ja.into(),
            en: en.into(),
        }
    }
    /// True when neither language has text.
    pub fn is_empty(&self) -> bool {
        self.ja.trim().is_empty() && self.en.trim().is_empty()
    }
    /// The first language whose text holds a placeholder where a value should be (see
    /// [`has_placeholder`]): `Some("ja")`, `Some("en")` or `None`.
    pub fn placeholder(&self) -> Option<&'static str> {
        if has_placeholder(&self.ja) {
            Some("ja")
        } else if has_placeholder(&self.en) {
            Some("en")
        } else {
            None
        }
    }
}

/// True when `s` holds a `?` (or `？`) standing alone in place of a value — `selected ?`,
/// `(?)`, `= ?` — rather than ending a question or sitting inside a word or code (`a?b`,
/// `ID?field=value`).
pub fn has_placeholder(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    let apart = |c: Option<&char>| {
        c.is_none_or(|c| c.is_whitespace() || "()[]{}:;,.=/|、。「」（）：".contains(*c))
    };
    chars.iter().enumerate().any(|(i, c)| {
        matches!(c, '?' | '？')
            && apart(i.checked_sub(1).and_then(|j| chars.get(j)))
            && apart(chars.get(i + 1))
    })
}

impl Floor {
    /// All floors, top (5F) first.
    pub const ALL: [Floor; 5] = [
        Floor::Application,
        Floor::MathLibrary,
        Floor::Runtime,
        Floor::Driver,
        Floor::Hardware,
    ];
    /// The snake_case name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Floor::Application => "application",
            Floor::MathLibrary => "math_library",
            Floor::Runtime => "runtime",
            Floor::Driver => "driver",
            Floor::Hardware => "hardware",
        }
    }
    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Floor> {
        Floor::ALL.into_iter().find(|f| f.as_str() == s)
    }
    /// The floor number (5 = application ... 1 = hardware).
    pub fn number(self) -> u8 {
        match self {
            Floor::Application => 5,
            Floor::MathLibrary => 4,
            Floor::Runtime => 3,
            Floor::Driver => 2,
            Floor::Hardware => 1,
        }
    }
}

impl SelectionKind {
    /// The snake_case name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            SelectionKind::Natural => "natural",
            SelectionKind::Forced => "forced",
            SelectionKind::Fallback => "fallback",
        }
    }
    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<SelectionKind> {
        [Self::Natural, Self::Forced, Self::Fallback]
            .into_iter()
            .find(|f| f.as_str() == s)
    }
}

impl Review {
    /// The snake_case name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Review::Accepted => "accepted",
            Review::Edited => "edited",
            Review::Rejected => "rejected",
        }
    }
}

impl Support {
    /// A short reference for messages: `obs:ID#/ptr`, `obs:ID?k=v`, `claim:ID`, `source:PATH:LINE`.
    pub fn reference(&self) -> String {
        if let Some(o) = &self.observation {
            let mut s = format!("observation {o}");
            if let Some(r) = &self.record {
                s.push_str(&format!(" record {r}"));
            }
            if !self.filter.is_empty() {
                let f: Vec<String> = self
                    .filter
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                s.push_str(&format!(" where {}", f.join(", ")));
            }
            s
        } else if let Some(c) = &self.claim {
            format!("claim {c}")
        } else if let Some(l) = &self.source {
            format!("source {l}")
        } else {
            "empty support".to_string()
        }
    }
}
