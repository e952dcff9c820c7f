//! Lookups over a loaded ledger, and what each support of a claim resolves to. Shared by the
//! checks and the site so both read supports the same way.

use crate::model::*;
use crate::records::{self, Record};
use crate::store::Loaded;
use rocpath_evidence::{Class, Locator};
use std::collections::HashMap;

/// Id → record maps over a [`Loaded`] ledger.
#[derive(Debug)]
pub struct Index<'a> {
    /// The ledger.
    pub ledger: &'a Loaded,
    /// Claims by id.
    pub claims: HashMap<&'a str, &'a Claim>,
    /// Questions by id.
    pub questions: HashMap<&'a str, &'a Question>,
    /// Cases by id.
    pub cases: HashMap<&'a str, &'a Case>,
    /// Observations by id.
    pub observations: HashMap<&'a str, &'a Observation>,
}

/// What one support resolves to.
#[derive(Debug)]
pub enum Resolved<'a> {
    /// A whole observation, with all its records.
    Observation(&'a Observation, Vec<Record<'a>>),
    /// Selected records of an observation (by pointer or by field values).
    Records(&'a Observation, Vec<Record<'a>>),
    /// Another claim.
    Claim(&'a Claim),
    /// A source location.
    Source(&'a Locator),
    /// It points at nothing; the message says what is missing.
    Missing(String),
}

impl Resolved<'_> {
    /// The evidence class this support lends: the strongest class of the records (a whole
    /// observation without records counts as confirmed: the document itself was observed), the
    /// class of a claim, `confirmed` for a cited source; `None` when missing or unknown.
    pub fn class(&self) -> Option<Class> {
        match self {
            Resolved::Observation(_, recs) => {
                Some(records::strongest(recs).unwrap_or(Class::Confirmed))
            }
            Resolved::Records(_, recs) => records::strongest(recs),
            Resolved::Claim(c) => c.class,
            Resolved::Source(_) => Some(Class::Confirmed),
            Resolved::Missing(_) => None,
        }
    }
}

impl<'a> Index<'a> {
    /// Builds the maps.
    pub fn new(ledger: &'a Loaded) -> Self {
        Index {
            ledger,
            claims: ledger.claims.iter().map(|c| (c.id.as_str(), c)).collect(),
            questions: ledger
                .questions
                .iter()
                .map(|q| (q.id.as_str(), q))
                .collect(),
            cases: ledger.cases.iter().map(|c| (c.id.as_str(), c)).collect(),
            observations: ledger
                .observations
                .iter()
                .map(|o| (o.id.as_str(), o))
                .collect(),
        }
    }

    /// Resolves one support.
    pub fn resolve(&self, s: &'a Support) -> Resolved<'a> {
        if let Some(oid) = &s.observation {
            return match self.observations.get(oid.as_str()) {
                Some(o) => resolve_in(o, s),
                None => Resolved::Missing(format!("observation {oid:?} is not in the ledger")),
            };
        }
        if let Some(cid) = &s.claim {
            return match self.claims.get(cid.as_str()) {
                Some(c) => Resolved::Claim(c),
                None => Resolved::Missing(format!("claim {cid:?} is not in the ledger")),
            };
        }
        if let Some(l) = &s.source {
            return Resolved::Source(l);
        }
        Resolved::Missing("the support names nothing".to_string())
    }

    /// The cases that list this observation.
    pub fn cases_of_observation(&self, oid: &str) -> Vec<&'a Case> {
        self.ledger
            .cases
            .iter()
            .filter(|c| c.observations.iter().any(|o| o == oid))
            .collect()
    }
}

/// Resolves a support that names observation `o` (its record pointer, its field filter, or the
/// whole observation).
pub fn resolve_in<'a>(o: &'a Observation, s: &Support) -> Resolved<'a> {
    let oid = &o.id;
    if let Some(ptr) = &s.record {
        return match records::record_at(&o.document, ptr) {
            Some(r) => Resolved::Records(o, vec![r]),
            None if o.document.pointer(ptr).is_some() => Resolved::Missing(format!(
                "observation {oid:?} has a value at {ptr:?}, but it is not a record (an object with evidence)"
            )),
            None => Resolved::Missing(format!("observation {oid:?} has no record at {ptr:?}")),
        };
    }
    if !s.filter.is_empty() {
        let recs = records::records_where(&o.document, &s.filter);
        if recs.is_empty() {
            let f: Vec<String> = s
                .filter
                .iter()
                .map(|(k, v)| format!("{k} = {v:?}"))
                .collect();
            return Resolved::Missing(format!(
                "observation {oid:?} has no record where {}",
                f.join(" and ")
            ));
        }
        return Resolved::Records(o, recs);
    }
    Resolved::Observation(o, records::records(&o.document))
}
