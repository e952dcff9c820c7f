//! Many machines: `rocpath.survey/1` documents collected from the nodes of a site (with the
//! tools it has: Slurm's `srun`, pdsh, Ansible) merged into one drift report — for each aspect
//! (distribution, kernel, amdgpu driver, GPUs, ROCm trees, variables by scope, installs, the
//! device × install outcomes, the findings, the answer) the value each node has, and the aspects
//! whose values differ between nodes.
//!
//! A document is read through the fields named here (the survey's own model in this crate);
//! a file that is not a survey document is an error for that file, and the rest go on.

use crate::error::ErrorItem;
use crate::machine::Machine;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Rule of a drift record.
pub const DRIFT: &str = "fleet.drift";

/// Largest survey document read (a survey of a large machine is a few MiB).
const MAX_DOCUMENT: u64 = 256 << 20;

/// The fields of a survey document the fleet compares.
#[derive(Debug, Deserialize)]
struct Doc {
    schema: String,
    #[serde(default)]
    observed: Observed,
    #[serde(default)]
    machine: Machine,
    #[serde(default)]
    answer: Option<DocAnswer>,
    #[serde(default)]
    devices: Vec<DocDevice>,
    #[serde(default)]
    variables: Vec<DocVariable>,
    #[serde(default)]
    installs: Vec<DocInstall>,
    #[serde(default)]
    verdicts: Vec<DocVerdict>,
    #[serde(default)]
    findings: Vec<DocFinding>,
}

#[derive(Debug, Default, Deserialize)]
struct Observed {
    #[serde(default)]
    host: Option<String>,
}

#[derive(Debug, Deserialize)]
struct DocAnswer {
    kind: String,
}

#[derive(Debug, Deserialize)]
struct DocDevice {
    index: usize,
    device: DocTarget,
}

#[derive(Debug, Deserialize)]
struct DocTarget {
    target: String,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct DocVariable {
    name: String,
    value: String,
    scope: String,
}

#[derive(Debug, Deserialize)]
struct DocInstall {
    label: String,
    kind: String,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    build: Option<String>,
}

#[derive(Debug, Deserialize)]
struct DocVerdict {
    device: usize,
    install: String,
    outcome: String,
}

#[derive(Debug, Deserialize)]
struct DocFinding {
    kind: String,
    #[serde(default)]
    device: Option<usize>,
    #[serde(default)]
    subject: Option<String>,
}

/// One node: its name and the value of each aspect.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    /// The host (`observed.host`), else the file's name.
    pub name: String,
    /// The document.
    pub file: String,
    /// The answer's kind.
    pub answer: String,
    /// Aspect → value.
    #[serde(skip)]
    pub aspects: BTreeMap<String, String>,
}

/// One value of a drifting aspect and the nodes that have it.
#[derive(Debug, Clone, Serialize)]
pub struct Value {
    /// The value (`(absent)` where a node lacks the aspect).
    pub value: String,
    /// The nodes.
    pub nodes: Vec<String>,
}

/// An aspect whose value differs between nodes.
#[derive(Debug, Clone, Serialize)]
pub struct Drift {
    /// What (`ROCm trees`, `variable shell HSA_OVERRIDE_GFX_VERSION`).
    pub aspect: String,
    /// Its values, the most common first.
    pub values: Vec<Value>,
    /// Evidence.
    pub evidence: Evidence,
}

/// The merged report (`rocpath.fleet/1`).
#[derive(Debug, Clone, Serialize)]
pub struct Fleet {
    /// The nodes, in the order given.
    pub nodes: Vec<Node>,
    /// Aspects that differ.
    pub drift: Vec<Drift>,
    /// Aspects equal on every node, with their value.
    pub same: BTreeMap<String, String>,
    /// Files that could not be read as survey documents.
    pub errors: Vec<ErrorItem>,
}

/// Marks an aspect a node does not have.
pub const ABSENT: &str = "(absent)";

/// The survey documents among `paths`: files as given, folders walked for `*.json`.
pub fn documents(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = walkdir::WalkDir::new(p)
                .max_depth(8)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .map(|e| e.into_path())
                .filter(|f| f.extension().is_some_and(|x| x == "json"))
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// Why a file is not a survey document `fleet` can merge; it displays as what to do.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(String),
    /// Larger than any survey document.
    #[error("{0} bytes: larger than a survey document ({MAX_DOCUMENT} bytes at most)")]
    TooLarge(u64),
    /// Not JSON of a survey's shape.
    #[error(
        "not a survey document (line {line}, column {column}): {message}; give the output of rocpath --json survey"
    )]
    NotASurvey {
        /// Line of the first problem (1-based).
        line: usize,
        /// Its column.
        column: usize,
        /// What the JSON reader said.
        message: String,
    },
    /// A rocpath document of another schema.
    #[error(
        "schema {found:?}, not {}: give the output of rocpath --json survey",
        rocpath_docs::schema::SURVEY
    )]
    OtherSchema {
        /// The schema it names.
        found: String,
    },
}

impl From<serde_json::Error> for DocumentError {
    fn from(e: serde_json::Error) -> Self {
        DocumentError::NotASurvey {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }
    }
}

/// Reads one survey document.
fn read(path: &Path) -> Result<Doc, DocumentError> {
    let mut input =
        rocpath_budget::input::open(path).map_err(|e| DocumentError::Io(e.to_string()))?;
    let len = input.file().metadata().map(|m| m.len()).unwrap_or(0);
    if len > MAX_DOCUMENT {
        return Err(DocumentError::TooLarge(len));
    }
    let doc: Doc = serde_json::from_reader(std::io::BufReader::new(input.file()))?;
    checked(doc)
}

/// The aspects of a survey document given as bytes (what `merge` compares for one node).
pub fn aspects_of(bytes: &[u8]) -> Result<BTreeMap<String, String>, DocumentError> {
    let doc: Doc = serde_json::from_slice(bytes)?;
    checked(doc).map(|d| aspects(&d))
}

/// A document of the survey's schema, else why not.
fn checked(doc: Doc) -> Result<Doc, DocumentError> {
    if doc.schema != rocpath_docs::schema::SURVEY.id {
        return Err(DocumentError::OtherSchema { found: doc.schema });
    }
    Ok(doc)
}

/// A node's aspects.
fn aspects(d: &Doc) -> BTreeMap<String, String> {
    let mut a = BTreeMap::new();
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unknown)".to_string());
    a.insert("distribution".to_string(), opt(&d.machine.os));
    a.insert("kernel".to_string(), opt(&d.machine.kernel));
    a.insert(
        "amdgpu driver".to_string(),
        d.machine
            .amdgpu
            .clone()
            .unwrap_or_else(|| "(not loaded)".to_string()),
    );
    let gpus: Vec<String> = d
        .devices
        .iter()
        .map(|g| match &g.device.name {
            Some(n) => format!("{} {} ({n})", g.index, g.device.target),
            None => format!("{} {}", g.index, g.device.target),
        })
        .collect();
    a.insert("GPUs".to_string(), none_or(gpus.join("; ")));
    let rocm: Vec<String> = d
        .installs
        .iter()
        .filter(|i| i.kind == "rocm")
        .map(|i| format!("{} {}", i.label, i.version.as_deref().unwrap_or("?")))
        .collect();
    a.insert("ROCm trees".to_string(), none_or(rocm.join(", ")));
    for v in &d.variables {
        a.insert(format!("variable {} {}", v.scope, v.name), v.value.clone());
    }
    for i in &d.installs {
        let what = match (&i.version, &i.build) {
            (Some(v), _) => v.clone(),
            (None, Some(b)) => format!("{b} build"),
            _ => "present".to_string(),
        };
        a.insert(format!("install {}", i.label), what);
    }
    for v in &d.verdicts {
        a.insert(
            format!("device {} × {}", v.device, v.install),
            v.outcome.clone(),
        );
    }
    for f in &d.findings {
        let dev = f.device.map(|d| format!(" device {d}")).unwrap_or_default();
        let subject = f
            .subject
            .as_deref()
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        a.insert(
            format!("finding {}{dev}{subject}", f.kind),
            "found".to_string(),
        );
    }
    a
}

fn none_or(s: String) -> String {
    if s.is_empty() { "none".to_string() } else { s }
}

/// Merges the survey documents at `paths` (files, or folders of `*.json`).
pub fn merge(paths: &[PathBuf]) -> Fleet {
    let mut nodes = Vec::new();
    let mut errors = Vec::new();
    for p in documents(paths) {
        match read(&p) {
            Ok(d) => {
                let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
                let name = d
                    .machine
                    .hostname
                    .clone()
                    .or(d.observed.host.clone())
                    .or(stem)
                    .unwrap_or_default();
                nodes.push(Node {
                    name,
                    file: p.display().to_string(),
                    answer: d
                        .answer
                        .as_ref()
                        .map(|a| a.kind.clone())
                        .unwrap_or_default(),
                    aspects: aspects(&d),
                });
            }
            Err(e) => {
                let line = match &e {
                    DocumentError::NotASurvey { line, .. } => Some(*line as u64),
                    _ => None,
                };
                errors.push(ErrorItem::at(p.display().to_string(), e.to_string()).line(line));
            }
        }
    }
    unique_names(&mut nodes);
    let (drift, same) = compare(&nodes);
    Fleet {
        nodes,
        drift,
        same,
        errors,
    }
}

/// Two documents of one name (two runs, or images surveyed on one machine) keep apart by
/// their file: `node01 (run2.json)`.
fn unique_names(nodes: &mut [Node]) {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for n in nodes.iter() {
        *count.entry(n.name.clone()).or_insert(0) += 1;
    }
    for n in nodes.iter_mut() {
        if count.get(&n.name).copied().unwrap_or(0) > 1 {
            let file = Path::new(&n.file)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            n.name = format!("{} ({file})", n.name);
        }
    }
}

/// The aspects that differ (with the nodes of each value) and those that do not.
fn compare(nodes: &[Node]) -> (Vec<Drift>, BTreeMap<String, String>) {
    let keys: BTreeSet<&String> = nodes.iter().flat_map(|n| n.aspects.keys()).collect();
    let mut drift = Vec::new();
    let mut same = BTreeMap::new();
    for k in keys {
        let mut by: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for n in nodes {
            let v = n.aspects.get(k).map(String::as_str).unwrap_or(ABSENT);
            by.entry(v).or_default().push(n.name.clone());
        }
        if by.len() == 1 {
            if let Some(v) = by.keys().next() {
                same.insert(k.clone(), v.to_string());
            }
            continue;
        }
        let mut values: Vec<Value> = by
            .into_iter()
            .map(|(value, nodes)| Value {
                value: value.to_string(),
                nodes,
            })
            .collect();
        values.sort_by(|a, b| {
            b.nodes
                .len()
                .cmp(&a.nodes.len())
                .then(a.value.cmp(&b.value))
        });
        let why = format!(
            "{k} differs: {}",
            values
                .iter()
                .map(|v| format!("{} on {}", v.value, v.nodes.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        );
        let mut evidence =
            Evidence::new(Class::Confirmed, Proof::ShippedArtifactVerified, DRIFT).because(why);
        for n in nodes {
            evidence = evidence.at(Locator::file(&n.file));
        }
        drift.push(Drift {
            aspect: k.clone(),
            values,
            evidence,
        });
    }
    drift.sort_by_key(|d| order(&d.aspect));
    (drift, same)
}

/// The machine first, then GPUs and ROCm, variables, installs, outcomes, findings.
fn order(aspect: &str) -> (u8, String) {
    let rank = match aspect.split(' ').next().unwrap_or("") {
        "distribution" | "kernel" | "amdgpu" => 0,
        "GPUs" | "ROCm" => 1,
        "variable" => 2,
        "install" => 3,
        "device" => 4,
        _ => 5,
    };
    (rank, aspect.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that is not a survey is an error of that file, named with the line where the
    /// reading stopped and what to give instead; the other files are merged.
    #[test]
    fn a_document_that_is_no_survey_is_named_with_its_line() {
        let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let broken = d.path().join("broken.json");
        let other = d.path().join("other.json");
        std::fs::write(&broken, "{\n  \"schema\": ").unwrap_or_default();
        std::fs::write(&other, r#"{"schema":"rocpath.check/1"}"#).unwrap_or_default();
        let f = merge(&[d.path().to_path_buf()]);
        assert!(f.nodes.is_empty());
        let by = |name: &str| f.errors.iter().find(|e| e.path.ends_with(name));
        let b = by("broken.json").unwrap_or_else(|| unreachable!("{:?}", f.errors));
        assert_eq!(b.line, Some(2), "{b:?}");
        assert!(
            b.message.starts_with("not a survey document (line 2"),
            "{}",
            b.message
        );
        let o = by("other.json").unwrap_or_else(|| unreachable!("{:?}", f.errors));
        assert!(
            o.message
                .contains("give the output of rocpath --json survey"),
            "{}",
            o.message
        );
        assert!(matches!(
            aspects_of(br#"{"schema":"x"}"#),
            Err(DocumentError::OtherSchema { .. })
        ));
    }

    fn node(name: &str, pairs: &[(&str, &str)]) -> Node {
        Node {
            name: name.into(),
            file: format!("{name}.json"),
            answer: String::new(),
            aspects: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn drift_and_absence() {
        let nodes = [
            node(
                "a",
                &[("kernel", "6.8"), ("ROCm trees", "rocm-6.4.0 6.4.0")],
            ),
            node(
                "b",
                &[
                    ("kernel", "6.8"),
                    ("ROCm trees", "rocm-6.3.1 6.3.1"),
                    ("variable shell HSA_OVERRIDE_GFX_VERSION", "9.0.6"),
                ],
            ),
            node(
                "c",
                &[("kernel", "6.8"), ("ROCm trees", "rocm-6.4.0 6.4.0")],
            ),
        ];
        let (drift, same) = compare(&nodes);
        assert_eq!(same.get("kernel").map(String::as_str), Some("6.8"));
        assert_eq!(drift[0].aspect, "ROCm trees");
        assert_eq!(drift[0].values[0].nodes, ["a", "c"]);
        let ov = &drift[1];
        assert_eq!(ov.values[0].value, ABSENT);
        assert_eq!(ov.values[1].nodes, ["b"]);
    }
}
