//! `rocpath check [--target ID | --rocminfo FILE] PATH...`

use crate::cli::CheckArgs;
use crate::output::{BarProgress, Printer, Status};
use rocpath_docs::schema;
use rocpath_inventory::check::{CheckDoc, check, is_negative};
use rocpath_inventory::device::{self, Device};

fn devices(a: &CheckArgs) -> anyhow::Result<Vec<Device>> {
    if let Some(t) = &a.target {
        super::known_target(t).map_err(|e| anyhow::anyhow!("--target: {e}"))?;
        return Ok(vec![rocpath_inventory::device::from_target(t.clone())]);
    }
    if let Some(f) = &a.rocminfo {
        let text = rocpath_budget::read_small_text(f, rocpath_inventory::device::MAX_TEXT)
            .map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        let d = device::parse_rocminfo(&text, &format!("rocminfo:{}", f.display()));
        if d.is_empty() {
            anyhow::bail!(
                "{}: no GPU agent found in this rocminfo output",
                f.display()
            );
        }
        return Ok(d);
    }
    let d = device::detect();
    if d.is_empty() {
        anyhow::bail!(
            "no AMD GPU found on this machine (no KFD topology, no rocminfo); pass --target gfxNNN or --rocminfo FILE"
        );
    }
    Ok(d)
}

pub fn run(a: CheckArgs, p: &Printer) -> anyhow::Result<Status> {
    super::check_paths(&a.paths)?;
    let paths = super::with_python(&a.paths, a.python.as_deref())?;
    let devs = devices(&a)?;
    let bar = p.bar("scanning");
    let opts = rocpath_inventory::Options {
        limits: super::limits(&a.scan, p),
        target: None,
        no_kernels: true,
        index_only: false,
    };
    let inv = rocpath_inventory::scan(&paths, &opts, &BarProgress(bar.clone()));
    super::save_hashes(&opts.limits, p);
    bar.finish_and_clear();
    p.error_text(&rocpath_render::errors_text(&inv));
    let mut checks = Vec::new();
    for (i, d) in devs.iter().enumerate() {
        let ov = match &a.override_version {
            Some(v) => Some(rocpath_inventory::check::override_of("--override", v)),
            None => rocpath_inventory::check::override_from_env(i, |name| std::env::var(name).ok()),
        };
        if let Some(o) = &ov {
            if o.processor.is_none() {
                p.note(&format!(
                    "warning: {}={} names no gfx target LLVM knows",
                    o.source, o.value
                ));
            }
        }
        checks.push(check(&inv, d, ov.as_ref()));
    }
    if p.global.json {
        p.json(
            &schema::CHECK,
            &CheckDoc {
                devices: checks.clone(),
                errors: inv.errors.clone(),
            },
        )?;
    } else if a.tsv {
        p.data(&rocpath_render::check_tsv(&checks))?;
    } else {
        p.data(&rocpath_render::check_table(&checks))?;
    }
    let s = if is_negative(&checks) {
        Status::Negative
    } else {
        Status::Ok
    };
    Ok(if inv.errors.is_empty() {
        s
    } else {
        Status::Error
    })
}
