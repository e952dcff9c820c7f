//! `rocpath arch [NAME]`

use crate::cli::ArchArgs;
use crate::output::{Printer, Status};
use rocpath_arch::lookup::{ArchDoc, select};
use rocpath_docs::schema;

pub fn run(a: ArchArgs, p: &Printer) -> anyhow::Result<Status> {
    let (rows, detail) = select(a.name.as_deref())?;
    if p.global.json {
        p.json(&schema::ARCH, &ArchDoc::new(&rows))?;
    } else {
        p.data(&rocpath_render::arch_table(&rows, detail))?;
    }
    Ok(Status::Ok)
}
