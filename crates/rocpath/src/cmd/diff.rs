//! `rocpath diff OLD NEW`

use crate::cli::DiffArgs;
use crate::output::{BarProgress, Printer, Status};
use rocpath_docs::schema;
use rocpath_inventory::Inventory;
use rocpath_inventory::diff::DiffDoc;
use std::path::Path;

fn load(path: &Path, a: &DiffArgs, p: &Printer) -> anyhow::Result<Inventory> {
    if path.is_file() && path.extension().is_some_and(|e| e == "json") {
        let (text, _held) = rocpath_budget::input::read_text(
            path,
            &super::budget(p),
            1 << 30,
            "a rocpath inventory --json document",
        )?;
        let mut inv: Inventory = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}: not a `rocpath inventory --json` document: {e}",
                path.display()
            )
        })?;
        rocpath_inventory::finish(&mut inv);
        return Ok(inv);
    }
    super::check_paths(&[path.to_path_buf()])?;
    let bar = p.bar(&format!("scanning {}", path.display()));
    let opts = rocpath_inventory::Options {
        limits: super::limits(&a.scan, p),
        target: None,
        no_kernels: false,
        index_only: false,
    };
    let inv = rocpath_inventory::scan(&[path.to_path_buf()], &opts, &BarProgress(bar.clone()));
    bar.finish_and_clear();
    super::save_hashes(&opts.limits, p);
    Ok(inv)
}

pub fn run(a: DiffArgs, p: &Printer) -> anyhow::Result<Status> {
    let old = load(&a.old, &a, p)?;
    let new = load(&a.new, &a, p)?;
    let os = a.old.display().to_string();
    let ns = a.new.display().to_string();
    let d = rocpath_inventory::diff::diff(&old, &new);
    let mut errors = old.errors.clone();
    errors.extend(new.errors.iter().cloned());
    for inv in [&old, &new] {
        p.error_text(&rocpath_render::errors_text(inv));
    }
    if p.global.json {
        p.json(
            &schema::DIFF,
            &DiffDoc {
                old: os,
                new: ns,
                diff: &d,
                errors: &errors,
            },
        )?;
    } else if a.tsv {
        p.data(&rocpath_render::diff_tsv(&d))?;
    } else {
        p.data(&rocpath_render::diff_table(&d))?;
    }
    Ok(if !errors.is_empty() {
        Status::Error
    } else if d.is_empty() {
        Status::Ok
    } else {
        Status::Negative
    })
}
