//! `rocpath inventory PATH...`

use crate::cli::InventoryArgs;
use crate::output::{BarProgress, Printer, Status};
use rocpath_docs::schema;
use rocpath_inventory::{Inventory, Options};

/// Status of a finished scan: errors win, then "found nothing".
pub fn status_of(inv: &Inventory) -> Status {
    let nothing =
        inv.code_objects.is_empty() && inv.tensile.is_empty() && inv.miopen_dbs.is_empty();
    // A library packed for kpack whose archive is absent or whose wrappers lost their code.
    let kpack_loss = inv
        .kpack_refs
        .iter()
        .any(|r| r.stale_wrappers > 0 || r.problems().next().is_some());
    if !inv.errors.is_empty() {
        Status::Error
    } else if nothing || kpack_loss {
        Status::Negative
    } else {
        Status::Ok
    }
}

pub fn run(a: InventoryArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(&a.paths)?;
    let paths = super::with_python(&a.paths, a.python.as_deref())?;
    if let Some(t) = &a.target {
        super::known_target(t)?;
    }
    let opts = Options {
        limits: super::limits(&a.scan, p),
        target: a.target.clone(),
        // Kernel lists are only printed in JSON and per-kernel TSV; the table needs counts.
        no_kernels: a.no_kernels || !(p.global.json || (a.tsv && a.kernels)),
        index_only: false,
    };
    let bar = p.bar("scanning");
    let started = std::time::Instant::now();
    let inv = rocpath_inventory::scan(&paths, &opts, &BarProgress(bar.clone()));
    bar.finish_and_clear();
    super::save_hashes(&opts.limits, p);
    p.error_text(&rocpath_render::errors_text(&inv));
    if p.global.json {
        p.json(&schema::INVENTORY, &inv)?;
    } else if a.tsv {
        p.data(&rocpath_render::inventory_tsv(&inv, a.kernels))?;
    } else {
        p.data(&rocpath_render::inventory_table(&inv))?;
    }
    if p.global.verbose > 0 {
        p.note(&format!(
            "scanned in {:.2} s",
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(status_of(&inv))
}
