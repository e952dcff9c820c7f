//! `ledger claims`: the claims of a ledger as a list for scripts and checks, and the JSON
//! document of `ledger derive`.

use crate::derive::DeriveReport;
use crate::model::*;
use crate::schemas::world_covers;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::path::Path;

/// One claim as listed.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// Id.
    pub id: String,
    /// Statement (ja, en).
    pub statement: Text,
    /// Class (`null` when the claim has none).
    pub class: Option<&'static str>,
    /// Kind of proof.
    pub kind: Option<&'static str>,
    /// World.
    pub world: String,
    /// The rule that derived it (empty: recorded by a person).
    pub derived_by: String,
    /// A person's review of a derived claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<&'static str>,
    /// What the rule counted (agree of `of`, exceptions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derived: Option<Derived>,
    /// Supports.
    pub support: Vec<Support>,
    /// Evidence: the claim file, read (`ledger.claim_listed`) with the claim's own class.
    pub evidence: Evidence,
}

/// `ledger claims`.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimsDoc {
    /// The ledger folder.
    pub ledger: String,
    /// The world asked for, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub world: Option<String>,
    /// Only derived claims.
    pub derived_only: bool,
    /// The claims, by id.
    pub claims: Vec<Listed>,
}

/// Whether a claim's world is the one asked for: the same id, or a world (`gfx9`, `GCN5`)
/// that covers the claim's processor.
pub fn in_world(claim_world: &str, asked: &str) -> bool {
    claim_world.eq_ignore_ascii_case(asked) || world_covers(asked, claim_world)
}

/// The claims of a loaded ledger, filtered.
pub fn list(ledger: &Path, claims: &[Claim], world: Option<&str>, derived_only: bool) -> ClaimsDoc {
    let mut out: Vec<Listed> = claims
        .iter()
        .filter(|c| world.is_none_or(|w| in_world(&c.world, w)))
        .filter(|c| !derived_only || !c.derived_by.is_empty())
        .map(|c| Listed {
            id: c.id.clone(),
            statement: c.statement.clone(),
            class: c.class.map(Class::as_str),
            kind: c.kind.map(Proof::as_str),
            world: c.world.clone(),
            derived_by: c.derived_by.clone(),
            review: c.review.map(Review::as_str),
            derived: c.derived.clone(),
            support: c.support.clone(),
            evidence: Evidence::new(
                c.class.unwrap_or(Class::Unresolved),
                c.kind.unwrap_or(Proof::Hypothesis),
                "ledger.claim_listed",
            )
            .at(Locator::file(
                ledger
                    .join("claims")
                    .join(format!("{}.toml", c.id))
                    .display()
                    .to_string(),
            )),
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    ClaimsDoc {
        ledger: ledger.display().to_string(),
        world: world.map(str::to_string),
        derived_only,
        claims: out,
    }
}

/// `ledger derive` (and `ledger import --derive`): what was derived, each claim written with
/// its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct DeriveDoc {
    /// The ledger folder.
    pub ledger: String,
    /// The date of the history entries written.
    pub date: String,
    /// What happened.
    #[serde(flatten)]
    pub report: DeriveReport,
    /// The claim files written (`ledger.claim_derived`).
    pub written: Vec<Written>,
}

/// One claim file written by derivation.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    /// Claim id.
    pub id: String,
    /// Evidence: the file written.
    pub evidence: Evidence,
}

impl DeriveDoc {
    /// The document of a derivation of `ledger` on `date`.
    pub fn new(ledger: &Path, date: &str, report: DeriveReport) -> DeriveDoc {
        let written = report
            .created
            .iter()
            .chain(&report.updated)
            .map(|id| Written {
                id: id.clone(),
                evidence: Evidence::new(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "ledger.claim_derived",
                )
                .at(Locator::file(
                    ledger
                        .join("claims")
                        .join(format!("{id}.toml"))
                        .display()
                        .to_string(),
                )),
            })
            .collect();
        DeriveDoc {
            ledger: ledger.display().to_string(),
            date: date.to_string(),
            report,
            written,
        }
    }
}
