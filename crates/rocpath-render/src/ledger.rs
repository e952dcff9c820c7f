//! The ledger commands' text: one line per thing done, and `ledger check`'s problems with
//! its summary line.

use rocpath_ledger::check::{Checked, Severity};
use rocpath_ledger::doc::{ImportDoc, claim_file};
use rocpath_ledger::import::ImportOutcome;
use rocpath_ledger::model::Claim;
use std::fmt::Write;
use std::path::Path;

/// `ledger init`.
pub fn created(ledger: &Path) -> String {
    format!(
        "created ledger {} (edit ledger.toml for its title and worlds)\n",
        ledger.display()
    )
}

/// `ledger import`: one line per imported file, one per case or question it created.
pub fn imported(doc: &ImportDoc) -> String {
    let mut s = String::new();
    for i in &doc.imported {
        let r = &i.report;
        let what = match r.outcome {
            ImportOutcome::New => "new",
            ImportOutcome::Replaced => "replaced",
            ImportOutcome::Unchanged => "unchanged",
        };
        let _ = writeln!(
            s,
            "{} → observations/{}.json ({what}, {}): {} records, {}/{} raw inputs hashed, {} lines quoted",
            r.file, r.id, r.schema, r.records, r.hashed, r.inputs, r.quotes
        );
        for c in &r.cases_created {
            let _ = writeln!(s, "  case cases/{c}.toml created");
        }
        for q in &r.questions_created {
            let _ = writeln!(s, "  open question questions/{q}.toml created");
        }
    }
    s
}

/// `ledger add-claim`.
pub fn claim_recorded(id: &str) -> String {
    format!("claim {id} recorded in {}\n", claim_file(id))
}

/// `ledger set-class`: the claim's standing after the change.
pub fn claim_changed(claim: &Claim) -> String {
    let or_dash = |s: Option<&'static str>| s.unwrap_or("-");
    format!(
        "claim {} is now {} ({}) in {}; {} history entries\n",
        claim.id,
        or_dash(claim.class.map(|c| c.as_str())),
        or_dash(claim.kind.map(|k| k.as_str())),
        claim_file(&claim.id),
        claim.history.len()
    )
}

/// `ledger check`: every problem, then what was read and the verdict.
pub fn checked(ledger: &Path, checked: &Checked) -> String {
    let mut s = String::new();
    for x in &checked.problems {
        let _ = writeln!(s, "{x}");
    }
    let errors = checked.count(Severity::Error);
    let warnings = checked.count(Severity::Warning);
    let _ = writeln!(
        s,
        "{}: {} claims, {} questions, {} cases, {} observations: {}",
        ledger.display(),
        checked.claims,
        checked.questions,
        checked.cases,
        checked.observations,
        if errors == 0 {
            format!("ok ({warnings} warnings)")
        } else {
            format!("{errors} errors, {warnings} warnings")
        }
    );
    s
}
