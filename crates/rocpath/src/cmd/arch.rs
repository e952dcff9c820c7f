//! `rocpath arch [NAME]`

use crate::cli::ArchArgs;
use crate::output::{Printer, Status};
use rocpath_arch::{TARGETS, TargetId, TargetInfo};
use rocpath_evidence::{Class, Evidence, Proof};
use serde::Serialize;

#[derive(Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    info: &'a TargetInfo,
    evidence: Evidence,
}

#[derive(Serialize)]
struct Doc<'a> {
    targets: Vec<Row<'a>>,
}

pub fn run(a: ArchArgs, p: &Printer) -> anyhow::Result<Status> {
    let (rows, detail): (Vec<&TargetInfo>, bool) = match &a.name {
        None => (TARGETS.iter().collect(), false),
        Some(n) => {
            let proc_ = if n.contains(':') {
                TargetId::parse(n)
                    .map(|t| t.processor)
                    .unwrap_or_else(|_| n.clone())
            } else {
                n.clone()
            };
            match rocpath_arch::target(&proc_) {
                Some(t) => (vec![t], true),
                None => {
                    let v: Vec<&TargetInfo> = TARGETS
                        .iter()
                        .filter(|t| t.name.starts_with(proc_.as_str()))
                        .collect();
                    if v.is_empty() {
                        anyhow::bail!(
                            "unknown gfx target {n:?}; `rocpath arch` lists the {} targets LLVM 22 knows",
                            TARGETS.len()
                        );
                    }
                    (v, false)
                }
            }
        }
    };
    if p.global.json {
        let doc = Doc {
            targets: rows
                .iter()
                .map(|t| Row {
                    info: t,
                    evidence: Evidence::new(
                        Class::Confirmed,
                        Proof::CodeVerified,
                        "arch.llvm22_processor_table",
                    )
                    .because(t.source),
                })
                .collect(),
        };
        p.json("rocpath.arch/1", &doc)?;
    } else {
        p.data(&rocpath_render::arch_table(&rows, detail))?;
    }
    Ok(Status::Ok)
}
