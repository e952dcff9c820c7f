//! `rocpath site build LEDGER -o DIR` and `rocpath site serve PATH`

use crate::cli::{SiteArgs, SiteBuildArgs, SiteCommand, SiteServeArgs};
use crate::output::{Printer, Status};
use rocpath_docs::schema;
use rocpath_ledger::store::Ledger;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub fn run(a: SiteArgs, p: &Printer) -> anyhow::Result<Status> {
    match a.command {
        SiteCommand::Build(a) => build(a, p),
        SiteCommand::Serve(a) => serve(a, p),
    }
}

/// Builds the site of a ledger; says how the ledger checks (a site is built even when the
/// check finds problems: the pages show missing links as missing).
fn build_site(
    ledger: &Path,
    out: &Path,
    copy_raw: bool,
    p: &Printer,
) -> anyhow::Result<(rocpath_site::Report, Option<rocpath_site::raw::RawReport>)> {
    let (l, _) = Ledger::open(ledger)?;
    let loaded = l.load()?;
    let problems = rocpath_ledger::check::check(l.root(), &loaded);
    let errors = problems
        .iter()
        .filter(|x| x.severity == rocpath_ledger::check::Severity::Error)
        .count();
    if errors > 0 {
        p.note(&format!(
            "note: `rocpath ledger check {}` finds {errors} errors; the site shows the ledger as it is",
            ledger.display()
        ));
    }
    let opts = rocpath_site::Options {
        version: env!("CARGO_PKG_VERSION").to_string(),
    };
    // Pages show paths relative to the data root, never the absolute paths of this machine.
    Ok(rocpath_site::build_published(
        ledger, loaded, out, &opts, copy_raw,
    )?)
}

fn build(a: SiteBuildArgs, p: &Printer) -> anyhow::Result<Status> {
    let started = std::time::Instant::now();
    let (report, raw) = build_site(&a.ledger, &a.out, a.copy_raw, p)?;
    if p.global.json {
        p.json(
            &schema::SITE_BUILD,
            &rocpath_site::BuildDoc::new(&a.ledger, &a.out, report, raw),
        )?;
    } else {
        p.data(&format!(
            "site: {} pages, {} files, {} bytes in {}; open {}\n",
            report.pages,
            report.files,
            report.bytes,
            a.out.display(),
            a.out.join("index.html").display()
        ))?;
        if let Some(r) = &raw {
            p.data(&format!(
                "raw: {} files, {} bytes in {}\n",
                r.files,
                r.bytes,
                a.out.join("raw").display()
            ))?;
            let mut skipped = String::new();
            rocpath_render::ledger::raw_skipped(&mut skipped, &r.skipped);
            if !skipped.is_empty() {
                p.data(&skipped)?;
            }
        }
    }
    if p.global.verbose > 0 {
        p.note(&format!(
            "built in {:.2} s",
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(Status::Ok)
}

fn serve(a: SiteServeArgs, p: &Printer) -> anyhow::Result<Status> {
    // A ledger without --out is built into a private folder of our own (random name, mode
    // 0700, created fresh: nothing another user prepared is adopted), removed when serving
    // ends; Ctrl-C ends serving instead of the process, so that the removal happens.
    let mut temp: Option<tempfile::TempDir> = None;
    let dir: PathBuf = if a.path.join("ledger.toml").is_file() {
        let out = match &a.out {
            Some(o) => o.clone(),
            None => {
                use std::os::unix::fs::PermissionsExt;
                let t = tempfile::Builder::new()
                    .prefix("rocpath-site-")
                    .permissions(std::fs::Permissions::from_mode(0o700))
                    .tempdir()?;
                let out = t.path().join("site");
                temp = Some(t);
                out
            }
        };
        build_site(&a.path, &out, false, p)?;
        out
    } else if a.path.join("index.html").is_file() {
        a.path.clone()
    } else {
        anyhow::bail!(
            "{}: neither a built site (index.html) nor a ledger (ledger.toml)",
            a.path.display()
        );
    };
    let listener = std::net::TcpListener::bind(("127.0.0.1", a.port))
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", a.port))?;
    let addr = listener.local_addr()?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    p.data(&format!(
        "serving {} on http://{addr}/ (Ctrl-C to stop)\n",
        dir.display()
    ))?;
    rocpath_site::serve::serve_until(&dir, listener, &stop)?;
    if let Some(t) = temp {
        t.close()?;
    }
    Ok(Status::Ok)
}
