//! The JSON documents of the ledger commands (`rocpath --json ledger …`): what each command
//! did, each with the evidence of it.

use crate::check::{Checked, Problem, Severity};
use crate::import::{ImportError, ImportReport};
use crate::model::Claim;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::path::Path;

/// Evidence that rocpath wrote or read a ledger file itself.
fn written(rule: &'static str, path: &Path) -> Evidence {
    Evidence::new(Class::Confirmed, Proof::ShippedArtifactVerified, rule)
        .at(Locator::file(path.display().to_string()))
}

/// `ledger init`.
#[derive(Debug, Serialize)]
pub struct InitDoc {
    /// The ledger folder.
    pub ledger: String,
    /// Evidence: `ledger.created`, at its `ledger.toml`.
    pub evidence: Evidence,
}

impl InitDoc {
    /// The document of a ledger created in `ledger`.
    pub fn new(ledger: &Path) -> InitDoc {
        InitDoc {
            ledger: ledger.display().to_string(),
            evidence: written("ledger.created", &ledger.join("ledger.toml")),
        }
    }
}

/// One imported file.
#[derive(Debug, Serialize)]
pub struct Imported {
    /// What happened to it.
    #[serde(flatten)]
    pub report: ImportReport,
    /// Evidence: `ledger.imported`, at the file.
    pub evidence: Evidence,
}

/// One file that could not be imported (`ledger.unreadable`, limited, at the file).
pub use rocpath_docs::ErrorItem;

/// `ledger import`.
#[derive(Debug, Serialize)]
pub struct ImportDoc {
    /// The ledger folder.
    pub ledger: String,
    /// The files imported.
    pub imported: Vec<Imported>,
    /// The files that could not be.
    pub errors: Vec<ErrorItem>,
    /// With `--derive`: the derivation that followed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derived: Option<crate::claims::DeriveDoc>,
}

impl ImportDoc {
    /// An empty document for `ledger`.
    pub fn new(ledger: &Path) -> ImportDoc {
        ImportDoc {
            ledger: ledger.display().to_string(),
            imported: Vec::new(),
            errors: Vec::new(),
            derived: None,
        }
    }

    /// Adds the outcome of importing `file`.
    pub fn push(&mut self, file: &Path, outcome: Result<ImportReport, ImportError>) {
        match outcome {
            Ok(report) => self.imported.push(Imported {
                report,
                evidence: written("ledger.imported", file),
            }),
            Err(e) => self.errors.push(
                ErrorItem::at(file.display().to_string(), e.to_string()).evidence(
                    Evidence::new(
                        Class::Limited,
                        Proof::ShippedArtifactVerified,
                        "ledger.unreadable",
                    )
                    .at(Locator::file(file.display().to_string())),
                ),
            ),
        }
    }
}

/// `ledger add-claim`.
#[derive(Debug, Serialize)]
pub struct ClaimRecordedDoc {
    /// The claim id.
    pub claim: String,
    /// Its file, relative to the ledger folder.
    pub file: String,
    /// Evidence: `ledger.claim_recorded`, at the file.
    pub evidence: Evidence,
}

impl ClaimRecordedDoc {
    /// The document of claim `id` recorded in `ledger`.
    pub fn new(ledger: &Path, id: &str) -> ClaimRecordedDoc {
        let file = claim_file(id);
        ClaimRecordedDoc {
            claim: id.to_string(),
            evidence: written("ledger.claim_recorded", &ledger.join(&file)),
            file,
        }
    }
}

/// `ledger set-class`.
#[derive(Debug, Serialize)]
pub struct ClaimChangedDoc {
    /// The claim id.
    pub claim: String,
    /// Its file, relative to the ledger folder.
    pub file: String,
    /// Its class now.
    pub class: Option<Class>,
    /// Its kind of proof now.
    pub kind: Option<Proof>,
    /// Entries in its history.
    pub history: usize,
    /// Evidence: `ledger.claim_changed`, at the file.
    pub evidence: Evidence,
}

impl ClaimChangedDoc {
    /// The document of `claim` as changed in `ledger`.
    pub fn new(ledger: &Path, claim: &Claim) -> ClaimChangedDoc {
        let file = claim_file(&claim.id);
        ClaimChangedDoc {
            claim: claim.id.clone(),
            class: claim.class,
            kind: claim.kind,
            history: claim.history.len(),
            evidence: written("ledger.claim_changed", &ledger.join(&file)),
            file,
        }
    }
}

/// The file of claim `id`, relative to the ledger folder.
pub fn claim_file(id: &str) -> String {
    format!("claims/{id}.toml")
}

/// One problem of `ledger check`, with its evidence.
#[derive(Debug, Serialize)]
pub struct CheckedProblem<'a> {
    /// The problem.
    #[serde(flatten)]
    pub problem: &'a Problem,
    /// Evidence: the rule, at the file and record.
    pub evidence: Evidence,
}

/// `ledger check`.
#[derive(Debug, Serialize)]
pub struct CheckDoc<'a> {
    /// The ledger folder.
    pub ledger: String,
    /// Claims read.
    pub claims: usize,
    /// Questions read.
    pub questions: usize,
    /// Cases read.
    pub cases: usize,
    /// Observations read.
    pub observations: usize,
    /// Problems of severity error.
    pub errors: usize,
    /// Problems of severity warning.
    pub warnings: usize,
    /// Every problem.
    pub problems: Vec<CheckedProblem<'a>>,
}

impl<'a> CheckDoc<'a> {
    /// The document of a check of `ledger`.
    pub fn new(ledger: &Path, checked: &'a Checked) -> CheckDoc<'a> {
        let problems = checked
            .problems
            .iter()
            .map(|x| {
                let mut loc = Locator::file(ledger.join(&x.file).display().to_string());
                if !x.record.is_empty() {
                    loc = loc.with_member(x.record.clone());
                }
                CheckedProblem {
                    problem: x,
                    evidence: Evidence::new(
                        Class::Confirmed,
                        Proof::ShippedArtifactVerified,
                        x.rule,
                    )
                    .at(loc),
                }
            })
            .collect();
        CheckDoc {
            ledger: ledger.display().to_string(),
            claims: checked.claims,
            questions: checked.questions,
            cases: checked.cases,
            observations: checked.observations,
            errors: checked.count(Severity::Error),
            warnings: checked.count(Severity::Warning),
            problems,
        }
    }
}
