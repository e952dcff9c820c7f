//! Prediction next to observation. The observation is a `rocpath case read --json` document
//! (schema `rocpath.case/1`; fields read: `device.arch`, `problems[].key`, `selected.solver`,
//! `forced`, `outcome.kind`, `db_lookups[].file`); the prediction is [`crate::miopen::explain`]
//! for the same problem and device. Agreement raises the inferred prediction to `confirmed`;
//! disagreement becomes an open question.

use crate::miopen::{self, Device};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_miopen::Problem;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One case compared.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Case name.
    pub case: String,
    /// Device arch observed.
    pub arch: Option<String>,
    /// Find-db key of the problem.
    pub problem_key: Option<String>,
    /// Solver the observation shows.
    pub observed: Option<String>,
    /// Solver predicted.
    pub predicted: Option<String>,
    /// `agree`, `disagree`, `no_prediction`, `forced`, `no_observation`, `not_miopen`.
    pub verdict: String,
    /// The statement.
    pub statement: String,
    /// For a disagreement: the open question for the ledger.
    pub question: Option<String>,
    /// Evidence.
    pub evidence: Evidence,
    /// The prediction in full, when one was made.
    pub explanation: Option<miopen::MiopenExplanation>,
}

fn s<'a>(v: &'a serde_json::Value, ptr: &str) -> Option<&'a str> {
    v.pointer(ptr).and_then(|x| x.as_str())
}

/// Compares every case of a `rocpath.case/1` document.
pub fn compare(
    doc: &serde_json::Value,
    doc_path: &Path,
    db_dir: &Path,
    cus: Option<u32>,
) -> Vec<Comparison> {
    let cases = doc
        .get("cases")
        .and_then(|c| c.as_array())
        .cloned()
        .unwrap_or_default();
    cases
        .iter()
        .enumerate()
        .map(|(i, c)| one(c, i, doc_path, db_dir, cus))
        .collect()
}

fn one(
    c: &serde_json::Value,
    i: usize,
    doc_path: &Path,
    db_dir: &Path,
    cus: Option<u32>,
) -> Comparison {
    let name = s(c, "/name").unwrap_or("case").to_string();
    let loc = Locator::file(format!("{}#/cases/{i}", doc_path.display()));
    let arch = s(c, "/device/arch").map(str::to_string);
    let key = c
        .pointer("/problems")
        .and_then(|p| p.as_array())
        .and_then(|p| p.iter().find_map(|x| x.get("key")?.as_str()))
        .map(str::to_string);
    let observed = s(c, "/selected/solver").map(str::to_string);
    let forced = c.get("forced").is_some_and(|f| !f.is_null());
    let mut out = Comparison {
        case: name,
        arch: arch.clone(),
        problem_key: key.clone(),
        observed: observed.clone(),
        predicted: None,
        verdict: String::new(),
        statement: String::new(),
        question: None,
        evidence: Evidence::new(
            Class::Unresolved,
            Proof::Hypothesis,
            "explain.compare.no_prediction",
        )
        .at(loc.clone()),
        explanation: None,
    };
    let (Some(arch), Some(key)) = (arch, key) else {
        out.verdict = "not_miopen".into();
        out.statement = "the observation has no MIOpen device and problem to predict from".into();
        return out;
    };
    if forced {
        out.verdict = "forced".into();
        out.statement = "a forced run is not a natural selection: nothing to compare".into();
        return out;
    }
    let Ok(target) = rocpath_arch::TargetId::parse(&arch) else {
        out.verdict = "not_miopen".into();
        out.statement = format!("device {arch:?} is not a target id");
        return out;
    };
    // The CU count: given, else the one in the find-db name the log shows.
    let cus = cus.or_else(|| {
        c.pointer("/db_lookups")?.as_array()?.iter().find_map(|l| {
            let f = l.get("file")?.as_str()?;
            let n = rocpath_miopen::dbname::DbName::parse(f.rsplit('/').next()?)?;
            n.cus
        })
    });
    let Ok(problem) = Problem::from_fdb_key(&key) else {
        out.verdict = "not_miopen".into();
        out.statement = format!("problem key {key:?} does not parse");
        return out;
    };
    let q = miopen::Query {
        device: Device::new(&target, cus),
        db_dir: PathBuf::from(db_dir),
        user_db: None,
        problem,
        forced: None,
        gates_doc: None,
    };
    let e = match miopen::explain(&q) {
        Ok(e) => e,
        Err(err) => {
            out.verdict = "no_prediction".into();
            out.statement = format!("no prediction: {err}");
            return out;
        }
    };
    out.predicted = e.predicted.as_ref().map(|p| p.solver.clone());
    match (&e.predicted, &observed) {
        (_, None) => {
            out.verdict = "no_observation".into();
            out.statement = format!(
                "the case selected no solver (outcome {})",
                s(c, "/outcome/kind").unwrap_or("?")
            );
        }
        (None, Some(o)) => {
            out.verdict = "no_prediction".into();
            out.statement = format!(
                "the shipped find-db has no record for {key}: {o} was chosen by measurement or heuristics on the device, which rocpath does not predict"
            );
        }
        (Some(p), Some(o)) if p.solver == *o => {
            out.verdict = "agree".into();
            out.statement = format!(
                "prediction {} agrees with the observed selection {o}",
                p.solver
            );
            let mut ev = p.evidence.clone();
            ev.class = Class::Confirmed;
            ev.kind = Proof::RuntimeVerified;
            ev.rule = "explain.compare.agree".into();
            ev.note = format!(
                "inferred prediction raised to confirmed by the observation; {}",
                ev.note
            );
            out.evidence = ev.at(loc);
        }
        (Some(p), Some(o)) => {
            out.verdict = "disagree".into();
            out.statement = format!("predicted {} but the run selected {o}", p.solver);
            out.question = Some(format!(
                "Why did MIOpen select {o} instead of {} (fastest in the shipped record) for {key} on {arch}? A user find-db record, a disabled algorithm, an inapplicable solver or another MIOpen release would explain it.",
                p.solver
            ));
            out.evidence = Evidence::new(
                Class::Unresolved,
                Proof::Hypothesis,
                "explain.compare.disagree",
            )
            .at(loc);
        }
    }
    out.explanation = Some(e);
    out
}
