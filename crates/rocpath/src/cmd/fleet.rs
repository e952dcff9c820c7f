//! `rocpath fleet SURVEY.json|DIR...`

use crate::cli::FleetArgs;
use crate::output::{Printer, Status};
use rocpath_docs::schema;

pub fn run(a: FleetArgs, p: &Printer) -> anyhow::Result<Status> {
    let f = rocpath_survey::fleet::merge(&a.surveys);
    for e in &f.errors {
        p.note(&format!("error: {}: {}", e.path, e.message));
    }
    if f.nodes.is_empty() {
        anyhow::bail!(
            "no survey document among {} path(s): give the files `rocpath --json survey` wrote on each node",
            a.surveys.len()
        );
    }
    if p.global.json {
        p.json(&schema::FLEET, &f)?;
    } else {
        p.data(&rocpath_render::survey::fleet_table(
            &f,
            p.global.verbose > 0,
        ))?;
    }
    Ok(if !f.errors.is_empty() {
        Status::Error
    } else if f.drift.is_empty() {
        Status::Ok
    } else {
        Status::Negative
    })
}
