//! The Python packages of an inventory.

use crate::{right, table};
use comfy_table::Cell;
use std::fmt::Write;

/// Python packages: one row per package and target id, with where its ROCm libraries resolve.
pub(crate) fn python_table(pkgs: &[rocpath_inventory::python::PythonPackage]) -> String {
    let mut out = String::from("Python packages\n");
    let mut t = table(&[
        "package",
        "version",
        "build",
        "target",
        "code objects",
        "ROCm libraries",
    ]);
    for p in pkgs {
        let libs = if p.resolves.is_empty() {
            "-".to_string()
        } else {
            let bundled = p.resolves.iter().filter(|r| r.found.is_some()).count();
            format!(
                "{} needed, {bundled} found by RUNPATH, {} from the system path",
                p.resolves.len(),
                p.resolves.len() - bundled
            )
        };
        let targets: Vec<(String, String)> = if p.targets.is_empty() {
            vec![("-".into(), "0".into())]
        } else {
            p.targets
                .iter()
                .map(|(t, n)| (t.clone(), n.to_string()))
                .collect()
        };
        for (i, (target, n)) in targets.into_iter().enumerate() {
            let first = i == 0;
            t.add_row(vec![
                Cell::new(&p.name),
                Cell::new(if first {
                    p.version.as_deref().unwrap_or("-")
                } else {
                    ""
                }),
                Cell::new(if first { p.build.as_str() } else { "" }),
                Cell::new(target),
                right(n),
                Cell::new(if first { libs.as_str() } else { "" }),
            ]);
        }
    }
    let _ = writeln!(out, "{t}\n");
    out
}
