//! `rocpath ledger init|import|add-claim|set-class|check`

use crate::cli::{
    AddClaimArgs, LedgerArgs, LedgerCheckArgs, LedgerClaimsArgs, LedgerCommand, LedgerDeriveArgs,
    LedgerImportArgs, LedgerInitArgs, SetClassArgs,
};
use crate::output::{Printer, Status};
use rocpath_docs::schema;
use rocpath_ledger::check::{self, Severity};
use rocpath_ledger::claims::DeriveDoc;
use rocpath_ledger::doc::{CheckDoc, ClaimChangedDoc, ClaimRecordedDoc, ImportDoc, InitDoc};
use rocpath_ledger::import;
use rocpath_ledger::model::{Claim, Text};
use rocpath_ledger::store::Ledger;
use rocpath_render::ledger as render;

pub fn run(a: LedgerArgs, p: &Printer) -> anyhow::Result<Status> {
    match a.command {
        LedgerCommand::Init(a) => init(a, p),
        LedgerCommand::Import(a) => import(a, p),
        LedgerCommand::AddClaim(a) => add_claim(*a, p),
        LedgerCommand::SetClass(a) => set_class(a, p),
        LedgerCommand::Check(a) => check(a, p),
        LedgerCommand::Derive(a) => derive(a, p),
        LedgerCommand::Claims(a) => claims(a, p),
    }
}

/// Today's date (UTC) from the run's start time.
fn today(p: &Printer) -> String {
    p.run.time.chars().take(10).collect()
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
        p.json(&schema::LEDGER_INIT, &InitDoc::new(&a.ledger))?;
    } else {
        p.data(&render::created(&a.ledger))?;
    }
    Ok(Status::Ok)
}

fn import(a: LedgerImportArgs, p: &Printer) -> anyhow::Result<Status> {
    if a.name.is_some() && a.files.len() != 1 {
        anyhow::bail!("--as names one observation: give exactly one FILE.json with it");
    }
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let guard = ledger.lock(&p.run.command)?;
    let cwd = std::env::current_dir()?;
    let mut out = ImportDoc::new(&a.ledger);
    for f in &a.files {
        let world = a.world.as_deref().unwrap_or_default();
        let r = import::import_file_with(
            &guard,
            &ledger,
            f,
            a.name.as_deref(),
            &cwd,
            world,
            &a.allow_roots,
            &super::budget(p),
        );
        if let Err(e) = &r {
            p.error_text(&format!("error: {e}\n"));
        }
        out.push(f, r);
    }
    if a.derive {
        let date = today(p);
        let report = rocpath_ledger::derive::derive(&guard, &ledger, &date)?;
        out.derived = Some(DeriveDoc::new(&a.ledger, &date, report));
    }
    drop(guard);
    if p.global.json {
        p.json(&schema::LEDGER_IMPORT, &out)?;
    } else {
        p.data(&render::imported(&out))?;
        if let Some(d) = &out.derived {
            p.data(&render::derived(d))?;
        }
    }
    Ok(if out.errors.is_empty() {
        Status::Ok
    } else {
        Status::Error
    })
}

fn set_class(a: SetClassArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let change = rocpath_ledger::ClaimChange {
        class: a.class,
        kind: a.kind,
        note: Text::new(a.ja.unwrap_or_default(), a.en.unwrap_or_default()),
        support: rocpath_ledger::supports(&ledger, &a.support)?,
        date: a.date.unwrap_or_else(|| today(p)),
    };
    let guard = ledger.lock(&p.run.command)?;
    let claim = rocpath_ledger::change_claim(&guard, &ledger, &a.id, change)?;
    drop(guard);
    if p.global.json {
        p.json(
            &schema::LEDGER_SET_CLASS,
            &ClaimChangedDoc::new(&a.ledger, &claim),
        )?;
    } else {
        p.data(&render::claim_changed(&claim))?;
    }
    Ok(Status::Ok)
}

fn add_claim(a: AddClaimArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let claim = Claim {
        id: a.id.clone(),
        statement: Text::new(a.ja.unwrap_or_default(), a.en.unwrap_or_default()),
        class: Some(a.class),
        kind: Some(a.kind),
        world: a.world.unwrap_or_default(),
        floor: a.floor,
        layer: a.layer,
        selection: a.selection,
        falsified_by: Text::new(
            a.falsified_by_ja.unwrap_or_default(),
            a.falsified_by_en.unwrap_or_default(),
        ),
        support: rocpath_ledger::supports(&ledger, &a.support)?,
        ..Claim::default()
    };
    let date = a.date.unwrap_or_else(|| today(p));
    let guard = ledger.lock(&p.run.command)?;
    rocpath_ledger::add_claim(&guard, &ledger, claim, &date)?;
    drop(guard);
    if p.global.json {
        p.json(
            &schema::LEDGER_ADD_CLAIM,
            &ClaimRecordedDoc::new(&a.ledger, &a.id),
        )?;
    } else {
        p.data(&render::claim_recorded(&a.id))?;
    }
    Ok(Status::Ok)
}

fn check(a: LedgerCheckArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    // Observations are read one at a time, pruned to what the rules read.
    let checked = check::check_ledger(&ledger)?;
    if p.global.json {
        p.json(&schema::LEDGER_CHECK, &CheckDoc::new(&a.ledger, &checked))?;
    } else {
        p.data(&render::checked(&a.ledger, &checked))?;
    }
    Ok(if checked.count(Severity::Error) == 0 {
        Status::Ok
    } else {
        Status::Negative
    })
}

fn derive(a: LedgerDeriveArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let date = a.date.unwrap_or_else(|| today(p));
    let guard = ledger.lock(&p.run.command)?;
    let report = rocpath_ledger::derive::derive(&guard, &ledger, &date)?;
    drop(guard);
    for e in &report.errors {
        p.error_text(&format!(
            "error: {}: {}\n",
            a.ledger.join(&e.path).display(),
            e.message
        ));
    }
    let failed = !report.errors.is_empty();
    let doc = DeriveDoc::new(&a.ledger, &date, report);
    if p.global.json {
        p.json(&schema::LEDGER_DERIVE, &doc)?;
    } else {
        p.data(&render::derived(&doc))?;
    }
    Ok(if failed { Status::Error } else { Status::Ok })
}

fn claims(a: LedgerClaimsArgs, p: &Printer) -> anyhow::Result<Status> {
    let (ledger, _) = Ledger::open(&a.ledger)?;
    let (loaded, _) = ledger.load_without_observations()?;
    for (file, e) in &loaded.unreadable {
        p.error_text(&format!("error: {}: {e}\n", a.ledger.join(file).display()));
    }
    let doc =
        rocpath_ledger::claims::list(&a.ledger, &loaded.claims, a.world.as_deref(), a.derived);
    if p.global.json {
        p.json(&schema::LEDGER_CLAIMS, &doc)?;
    } else {
        p.data(&render::claims(&doc))?;
    }
    Ok(if loaded.unreadable.is_empty() {
        Status::Ok
    } else {
        Status::Error
    })
}
