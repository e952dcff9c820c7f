//! The ledger commands' text: one line per thing done, and `ledger check`'s problems with
//! its summary line.

use rocpath_ledger::check::{Checked, Severity};
use rocpath_ledger::claims::{ClaimsDoc, DeriveDoc};
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
        if r.outside_roots > 0 {
            let _ = writeln!(
                s,
                "  {} cited file(s) outside the folders an import reads: not hashed or quoted (give their folder with --allow-root DIR)",
                r.outside_roots
            );
        }
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

/// `ledger derive`: what was written, per rule, and what could not be read.
pub fn derived(doc: &DeriveDoc) -> String {
    let r = &doc.report;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "derived from {} observations: {} claims new, {} updated, {} unchanged",
        r.observations,
        r.created.len(),
        r.updated.len(),
        r.unchanged
    );
    for (rule, n) in &r.rules {
        let _ = writeln!(s, "  {rule}: {n}");
    }
    for id in &r.updated {
        let _ = writeln!(s, "  updated {}", claim_file(id));
    }
    for id in &r.removed {
        let _ = writeln!(
            s,
            "  removed {} (no rule produces it any more)",
            claim_file(id)
        );
    }
    if !r.not_derived_again.is_empty() {
        let _ = writeln!(
            s,
            "  {} derived claims no rule produced this time (kept): {}",
            r.not_derived_again.len(),
            r.not_derived_again.join(", ")
        );
    }
    for e in &r.errors {
        let _ = writeln!(s, "error: {e}");
    }
    s
}

/// `ledger claims`: one row per claim.
pub fn claims(doc: &ClaimsDoc) -> String {
    let mut t = crate::table(&["id", "class", "kind", "world", "n", "statement"]);
    for c in &doc.claims {
        let n = c
            .derived
            .as_ref()
            .filter(|d| d.of > 0)
            .map(|d| format!("{}/{}", d.agree, d.of))
            .unwrap_or_default();
        let statement = if c.statement.en.is_empty() {
            &c.statement.ja
        } else {
            &c.statement.en
        };
        let mut class = c.class.unwrap_or("-").to_string();
        if let Some(r) = c.review {
            class.push_str(&format!(" ({r})"));
        }
        t.add_row(vec![
            c.id.clone(),
            class,
            c.kind.unwrap_or("-").to_string(),
            c.world.clone(),
            n,
            statement.clone(),
        ]);
    }
    format!("{t}\n{} claims\n", doc.claims.len())
}

/// `study build`: what was read, imported, derived and built.
pub fn study(out: &Path, r: &rocpath_study::Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "data root: {}", r.data_root);
    let _ = writeln!(
        s,
        "{} documents read, {} observations imported",
        r.documents, r.imported
    );
    for k in &r.skipped {
        let _ = writeln!(s, "  skipped {k}");
    }
    let d = &r.derive;
    let _ = writeln!(
        s,
        "derived: {} claims new, {} updated, {} unchanged",
        d.created.len(),
        d.updated.len(),
        d.unchanged
    );
    let _ = writeln!(
        s,
        "ledger check: {} errors, {} warnings ({})",
        r.check_errors,
        r.check_warnings,
        out.join("ledger").display()
    );
    if let Some(site) = &r.site {
        let _ = writeln!(
            s,
            "site: {} pages in {}; open {}",
            site.pages,
            out.join("site").display(),
            out.join("site/index.html").display()
        );
    }
    if let Some(raw) = &r.raw {
        let _ = writeln!(s, "raw: {} files, {} bytes", raw.files, raw.bytes);
        raw_skipped(&mut s, &raw.skipped);
    }
    s
}

/// The raw inputs `--copy-raw` did not copy, one line each.
pub fn raw_skipped(s: &mut String, skipped: &[rocpath_ledger::publish::RawSkipped]) {
    for k in skipped {
        let _ = writeln!(s, "raw: not copied: {}: {}", k.path, k.why);
    }
}
