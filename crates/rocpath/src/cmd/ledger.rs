//! `rocpath ledger init|import|add-claim|set-class|check`

use crate::cli::{
    AddClaimArgs, LedgerArgs, LedgerCheckArgs, LedgerCommand, LedgerImportArgs, LedgerInitArgs,
    SetClassArgs,
};
use crate::output::{Printer, Status};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_ledger::check::{self, Problem, Severity};
use rocpath_ledger::import::{self, ImportReport};
use rocpath_ledger::model::{Claim, Floor, Layer, SelectionKind, Text};
use rocpath_ledger::store::Ledger;
use serde::Serialize;

pub fn run(a: LedgerArgs, p: &Printer) -> anyhow::Result<Status> {
    match a.command {
        LedgerCommand::Init(a) => init(a, p),
        LedgerCommand::Import(a) => import(a, p),
        LedgerCommand::AddClaim(a) => add_claim(*a, p),
        LedgerCommand::SetClass(a) => set_class(a, p),
        LedgerCommand::Check(a) => check(a, p),
    }
}

/// Today's date (UTC) from the run's start time.
fn today(p: &Printer) -> String {
    p.run.time.chars().take(10).collect()
}

#[derive(Serialize)]
struct InitOut {
    ledger: String,
    evidence: Evidence,
}

fn init(a: LedgerInitArgs, p: &Printer) -> anyhow::Result<Status> {
    let title = Text::new(
        a.title_ja
            .unwrap_or_else(|| "ROCm 実行経路の証拠台帳".to_string()),
        a.title_en
            .unwrap_or_else(|| "ROCm execution-path evidence ledger".to_string()),
    );
    Ledger::init(&a.ledger, &rocpath_ledger::starter_meta(title))?;
    if p.global.json {
        p.json(
            "rocpath.ledger.init/1",
            &InitOut {
                ledger: a.ledger.display().to_string(),
                evidence: Evidence::new(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "ledger.created",
                )
                .at(Locator::file(
                    a.ledger.join("ledger.toml").display().to_string(),
                )),
            },
        )?;
    } else {
        p.data(&format!(
            "created ledger {} (edit ledger.toml for its title and worlds)\n",
            a.ledger.display()
        ))?;
    }
    Ok(Status::Ok)
}

#[derive(Serialize)]
struct Imported {
    #[serde(flatten)]
    report: ImportReport,
    evidence: Evidence,
}

#[derive(Serialize)]
struct ImportOut {
    ledger: String,
    imported: Vec<Imported>,
    errors: Vec<ImportErr>,
}

#[derive(Serialize)]
struct ImportErr {
    path: String,
    message: String,
    evidence: Evidence,
}

fn import(a: LedgerImportArgs, p: &Printer) -> anyhow::Result<Status> {
    if a.name.is_some() && a.files.len() != 1 {
        anyhow::bail!("--as names one observation: give exactly one FILE.json with it");
    }
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let guard = ledger.lock(&p.run.command)?;
    let cwd = std::env::current_dir()?;
    let mut out = ImportOut {
        ledger: a.ledger.display().to_string(),
        imported: Vec::new(),
        errors: Vec::new(),
    };
    for f in &a.files {
        match import::import_file(&guard, &ledger, f, a.name.as_deref(), &cwd) {
            Ok(r) => {
                let ev = Evidence::new(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "ledger.imported",
                )
                .at(Locator::file(f.display().to_string()));
                out.imported.push(Imported {
                    report: r,
                    evidence: ev,
                });
            }
            Err(e) => {
                p.error_text(&format!("error: {e}\n"));
                out.errors.push(ImportErr {
                    path: f.display().to_string(),
                    message: e.to_string(),
                    evidence: Evidence::new(
                        Class::Limited,
                        Proof::ShippedArtifactVerified,
                        "ledger.unreadable",
                    )
                    .at(Locator::file(f.display().to_string())),
                });
            }
        }
    }
    drop(guard);
    if p.global.json {
        p.json("rocpath.ledger.import/1", &out)?;
    } else {
        let mut s = String::new();
        for i in &out.imported {
            let r = &i.report;
            let what = match r.outcome {
                import::ImportOutcome::New => "new",
                import::ImportOutcome::Replaced => "replaced",
                import::ImportOutcome::Unchanged => "unchanged",
            };
            s.push_str(&format!(
                "{} → observations/{}.json ({what}, {}): {} records, {}/{} raw inputs hashed, {} lines quoted\n",
                r.file, r.id, r.schema, r.records, r.hashed, r.inputs, r.quotes
            ));
            for c in &r.cases_created {
                s.push_str(&format!("  case cases/{c}.toml created\n"));
            }
            for q in &r.questions_created {
                s.push_str(&format!("  open question questions/{q}.toml created\n"));
            }
        }
        p.data(&s)?;
    }
    Ok(if out.errors.is_empty() {
        Status::Ok
    } else {
        Status::Error
    })
}

/// Parses `--support` references; a cited source line is quoted now, so the site shows
/// what was read.
fn supports(
    ledger: &Ledger,
    refs: &[String],
) -> anyhow::Result<Vec<rocpath_ledger::model::Support>> {
    let mut support = Vec::new();
    for s in refs {
        let mut sup = rocpath_ledger::parse_support_ref(s).map_err(anyhow::Error::msg)?;
        // A cited source line is quoted now, so the site shows what was read.
        if let Some(l) = &sup.source {
            if let Some(line) = l.line {
                let at = ledger.root().join(&l.path);
                let q = import::quote_lines(&at, &l.path, &[line].into_iter().collect());
                match q.into_iter().next() {
                    Some(q) => sup.quote = q.text,
                    None => anyhow::bail!(
                        "{s}: cannot read line {line} of {} (paths of sources are relative to the ledger folder)",
                        at.display()
                    ),
                }
            }
        }
        support.push(sup);
    }
    Ok(support)
}

fn set_class(a: SetClassArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let support = supports(&ledger, &a.support)?;
    let change = rocpath_ledger::ClaimChange {
        class: a.class.as_deref().and_then(Class::parse),
        kind: a.kind.as_deref().and_then(Proof::parse),
        note: Text::new(a.ja.unwrap_or_default(), a.en.unwrap_or_default()),
        support,
        date: a.date.unwrap_or_else(|| today(p)),
    };
    let guard = ledger.lock(&p.run.command)?;
    let claim = rocpath_ledger::change_claim(&guard, &ledger, &a.id, change)?;
    drop(guard);
    let file = format!("claims/{}.toml", a.id);
    if p.global.json {
        #[derive(Serialize)]
        struct Out<'a> {
            claim: &'a str,
            file: String,
            class: Option<Class>,
            kind: Option<Proof>,
            history: usize,
            evidence: Evidence,
        }
        p.json(
            "rocpath.ledger.set-class/1",
            &Out {
                claim: &a.id,
                class: claim.class,
                kind: claim.kind,
                history: claim.history.len(),
                evidence: Evidence::new(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "ledger.claim_changed",
                )
                .at(Locator::file(a.ledger.join(&file).display().to_string())),
                file,
            },
        )?;
    } else {
        let name = |c: Option<Class>| {
            c.map(|c| c.as_str().to_string())
                .unwrap_or_else(|| "-".into())
        };
        p.data(&format!(
            "claim {} is now {} ({}) in {file}; {} history entries\n",
            a.id,
            name(claim.class),
            claim
                .kind
                .map(|k| k.as_str().to_string())
                .unwrap_or_else(|| "-".into()),
            claim.history.len()
        ))?;
    }
    Ok(Status::Ok)
}

fn add_claim(a: AddClaimArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let support = supports(&ledger, &a.support)?;
    let claim = Claim {
        id: a.id.clone(),
        statement: Text::new(a.ja.unwrap_or_default(), a.en.unwrap_or_default()),
        class: Class::parse(&a.class),
        kind: Proof::parse(&a.kind),
        world: a.world.unwrap_or_default(),
        floor: a.floor.as_deref().and_then(Floor::parse),
        layer: a.layer.as_deref().and_then(Layer::parse),
        selection: a.selection.as_deref().and_then(SelectionKind::parse),
        falsified_by: Text::new(
            a.falsified_by_ja.unwrap_or_default(),
            a.falsified_by_en.unwrap_or_default(),
        ),
        support,
        ..Claim::default()
    };
    let date = a.date.unwrap_or_else(|| today(p));
    let guard = ledger.lock(&p.run.command)?;
    rocpath_ledger::add_claim(&guard, &ledger, claim, &date)?;
    drop(guard);
    if p.global.json {
        #[derive(Serialize)]
        struct Out {
            claim: String,
            file: String,
            evidence: Evidence,
        }
        let file = format!("claims/{}.toml", a.id);
        p.json(
            "rocpath.ledger.add-claim/1",
            &Out {
                claim: a.id.clone(),
                evidence: Evidence::new(
                    Class::Confirmed,
                    Proof::ShippedArtifactVerified,
                    "ledger.claim_recorded",
                )
                .at(Locator::file(a.ledger.join(&file).display().to_string())),
                file,
            },
        )?;
    } else {
        p.data(&format!(
            "claim {} recorded in claims/{}.toml\n",
            a.id, a.id
        ))?;
    }
    Ok(Status::Ok)
}

#[derive(Serialize)]
struct CheckedProblem<'a> {
    #[serde(flatten)]
    problem: &'a Problem,
    evidence: Evidence,
}

#[derive(Serialize)]
struct CheckOut<'a> {
    ledger: String,
    claims: usize,
    questions: usize,
    cases: usize,
    observations: usize,
    errors: usize,
    warnings: usize,
    problems: Vec<CheckedProblem<'a>>,
}

fn check(a: LedgerCheckArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    // Observations are read one at a time, pruned to what the rules read.
    let checked = check::check_ledger(&ledger)?;
    let problems = &checked.problems;
    let errors = problems
        .iter()
        .filter(|x| x.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    if p.global.json {
        let out = CheckOut {
            ledger: a.ledger.display().to_string(),
            claims: checked.claims,
            questions: checked.questions,
            cases: checked.cases,
            observations: checked.observations,
            errors,
            warnings,
            problems: problems
                .iter()
                .map(|x| {
                    let mut loc = Locator::file(a.ledger.join(&x.file).display().to_string());
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
                .collect(),
        };
        p.json("rocpath.ledger.check/1", &out)?;
    } else {
        let mut s = String::new();
        for x in problems {
            s.push_str(&format!("{x}\n"));
        }
        s.push_str(&format!(
            "{}: {} claims, {} questions, {} cases, {} observations: {}\n",
            a.ledger.display(),
            checked.claims,
            checked.questions,
            checked.cases,
            checked.observations,
            if errors == 0 {
                format!("ok ({warnings} warnings)")
            } else {
                format!("{errors} errors, {warnings} warnings")
            }
        ));
        p.data(&s)?;
    }
    Ok(if errors == 0 {
        Status::Ok
    } else {
        Status::Negative
    })
}
