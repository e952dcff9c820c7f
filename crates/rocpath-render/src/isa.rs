//! Instruction census output: per code object or kernel, the classes that answer "MFMA,
//! WMMA, dot4, or plain FMA?", full mnemonic histograms, `--find` hits and `--disasm`.

use crate::{right, short_library, table, tsv_line};
use comfy_table::Cell;
use rocpath_arch::TargetId;
use rocpath_docs::isa::{Counts, IsaReport as Report};
use std::fmt::Write;

const GROUPS: [&str; 8] = [
    "mfma", "wmma", "dot", "packed", "fma", "vmem", "lds", "smem",
];

fn g(c: &Counts, k: &str) -> u64 {
    c.groups.get(k).copied().unwrap_or(0)
}

fn where_(path: &str, container: &str) -> String {
    let lib = short_library(path);
    match container.rsplit(" > ").next() {
        Some(last) if !container.is_empty() => format!(
            "{lib} [{}]",
            last.trim_start_matches("hipv4-amdgcn-amd-amdhsa--")
        ),
        _ => lib,
    }
}

/// The census as a table: one row per code object (or per kernel with `kernels`).
pub fn isa_table(r: &Report, kernels: bool, mnemonics: bool) -> String {
    let mut out = String::new();
    let mut h = vec!["code object", "target"];
    if kernels {
        h.push("kernel");
    }
    h.extend(["instructions", "bytes"]);
    h.extend(GROUPS);
    h.push(".long");
    let mut t = table(&h);
    for co in &r.code_objects {
        let rows: Vec<(&str, &Counts)> = if kernels {
            co.kernels
                .iter()
                .map(|k| (k.name.as_str(), &k.counts))
                .collect()
        } else {
            vec![("", &co.counts)]
        };
        for (name, c) in rows {
            let mut row = vec![
                Cell::new(where_(&co.path, &co.container)),
                Cell::new(&co.target),
            ];
            if kernels {
                row.push(Cell::new(name));
            }
            row.push(right(c.instructions));
            row.push(right(crate::bytes(c.code_bytes)));
            for k in GROUPS {
                row.push(right(g(c, k)));
            }
            row.push(right(c.unknown));
            t.add_row(row);
        }
    }
    let _ = writeln!(out, "{t}\n");
    if mnemonics {
        for (target, c) in &r.targets {
            let _ = writeln!(
                out,
                "Mnemonics on {target} ({} instructions)",
                c.instructions
            );
            let mut v: Vec<(&String, &u64)> = c.mnemonics.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let mut t = table(&["mnemonic", "count", "class"]);
            for (m, n) in v {
                t.add_row(vec![
                    Cell::new(m),
                    right(n),
                    Cell::new(rocpath_isa::classify::class_of(m).name()),
                ]);
            }
            let _ = writeln!(out, "{t}\n");
        }
    }
    let mut t = table(&[
        "target",
        "code objects",
        "instructions",
        "mfma",
        "wmma",
        "dot",
        "packed",
        "fma",
        "signals dot4/packed/mfma/fma/memory",
    ]);
    for (target, c) in &r.targets {
        let n = r
            .code_objects
            .iter()
            .filter(|co| &co.target == target)
            .count();
        let s = |k: &str| c.signals.get(k).copied().unwrap_or(0).to_string();
        t.add_row(vec![
            Cell::new(target),
            right(n),
            right(c.instructions),
            right(g(c, "mfma")),
            right(g(c, "wmma")),
            right(g(c, "dot")),
            right(g(c, "packed")),
            right(g(c, "fma")),
            Cell::new([s("dot4"), s("packed"), s("mfma"), s("fma"), s("memory")].join("/")),
        ]);
    }
    let _ = writeln!(out, "{t}");
    out
}

/// `--find` hits as a table.
pub fn find_table(r: &Report) -> String {
    let mut out = String::new();
    let mut t = table(&["target", "code object", "kernel", "mnemonic", "count"]);
    for h in &r.find {
        t.add_row(vec![
            Cell::new(&h.target_id),
            Cell::new(where_(&h.path, &h.container)),
            Cell::new(&h.kernel),
            Cell::new(&h.mnemonic),
            right(h.count),
        ]);
    }
    let _ = writeln!(out, "{t}");
    let targets: std::collections::BTreeSet<&TargetId> =
        r.code_objects.iter().map(|c| &c.target).collect();
    for term in r
        .find
        .iter()
        .map(|h| h.term.as_str())
        .collect::<std::collections::BTreeSet<_>>()
    {
        let with: std::collections::BTreeSet<&TargetId> = r
            .find
            .iter()
            .filter(|h| h.term == term)
            .map(|h| &h.target_id)
            .collect();
        let without: Vec<String> = targets.difference(&with).map(|t| t.to_string()).collect();
        let _ = writeln!(
            out,
            "{term}: in {} kernels on {}; absent on {}",
            r.find.iter().filter(|h| h.term == term).count(),
            with.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            if without.is_empty() {
                "-".into()
            } else {
                without.join(" ")
            }
        );
    }
    for term in &r.not_found {
        let _ = writeln!(
            out,
            "{term}: not found in any of the {} code objects scanned",
            r.code_objects.len()
        );
    }
    out
}

/// `--disasm` output: address, bytes, mnemonic, class.
pub fn disasm_text(r: &Report) -> String {
    let mut out = String::new();
    let mut last = ("", "");
    for l in &r.disasm {
        if (l.path.as_str(), l.kernel.as_str()) != last {
            let _ = writeln!(out, "\n{} <{}>:", l.path, l.kernel);
            last = (&l.path, &l.kernel);
        }
        let _ = writeln!(
            out,
            "  {:012x}: {:<24} {:<32} {}",
            l.address, l.bytes, l.mnemonic, l.class
        );
    }
    out
}

/// The census as TSV: one row per code object and kernel with group and signal counts.
pub fn isa_tsv(r: &Report) -> String {
    let mut out = String::new();
    let mut h: Vec<String> = [
        "path",
        "container",
        "target",
        "kernel",
        "is_kernel",
        "instructions",
        "code_bytes",
    ]
    .map(String::from)
    .to_vec();
    h.extend(GROUPS.map(String::from));
    h.extend(["dot4", "packed", "mfma_signal", "fma_signal", "memory"].map(String::from));
    tsv_line(&mut out, &h);
    for co in &r.code_objects {
        let mut rows = vec![("(all)".to_string(), true, &co.counts)];
        rows.extend(
            co.kernels
                .iter()
                .map(|k| (k.name.clone(), k.is_kernel, &k.counts)),
        );
        for (name, is_k, c) in rows {
            let mut f = vec![
                co.path.clone(),
                co.container.clone(),
                co.target.to_string(),
                name,
                is_k.to_string(),
                c.instructions.to_string(),
                c.code_bytes.to_string(),
            ];
            f.extend(GROUPS.iter().map(|k| g(c, k).to_string()));
            f.extend(
                ["dot4", "packed", "mfma", "fma", "memory"]
                    .iter()
                    .map(|k| c.signals.get(*k).copied().unwrap_or(0).to_string()),
            );
            tsv_line(&mut out, &f);
        }
    }
    out
}

/// The errors of a census, one `error:` line each (path, container, offset, message).
pub fn errors_text(r: &Report) -> String {
    let mut out = String::new();
    for e in &r.errors {
        crate::error_line(&mut out, &e.path, &e.container, e.offset, &e.message);
    }
    out
}
