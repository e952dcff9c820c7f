//! Readable output of `rocpath trace`: families, top kernels, Tensile names, phase split; TSV.

use crate::{right, table, tsv_line};
use comfy_table::Cell;
use rocpath_docs::trace::{KernelRecord, Report, TraceRecord};
use std::fmt::Write;

fn ms(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

fn short(name: &str, n: usize) -> String {
    if name.chars().count() <= n {
        name.to_string()
    } else {
        let s: String = name.chars().take(n.saturating_sub(1)).collect();
        format!("{s}…")
    }
}

fn families(out: &mut String, fams: &[rocpath_docs::trace::FamilyRecord], total: u64) {
    let split = fams.iter().any(|f| f.prefill_dispatches.is_some());
    let mut head = vec![
        "family",
        "library",
        "kernels",
        "dispatches",
        "%",
        "total ms",
    ];
    if split {
        head.extend(["prefill", "decode"]);
    }
    let mut t = table(&head);
    let mut v: Vec<_> = fams.iter().collect();
    v.sort_by(|a, b| {
        b.dispatches
            .cmp(&a.dispatches)
            .then(a.family.cmp(&b.family))
    });
    for f in v {
        let mut row = vec![
            Cell::new(f.family.as_str()),
            Cell::new(f.library),
            right(f.kernels),
            right(f.dispatches),
            right(format!(
                "{:.1}",
                100.0 * f.dispatches as f64 / total.max(1) as f64
            )),
            right(ms(f.total_ns)),
        ];
        if split {
            row.push(right(f.prefill_dispatches.unwrap_or(0)));
            row.push(right(f.decode_dispatches.unwrap_or(0)));
        }
        t.add_row(row);
    }
    let _ = writeln!(out, "{t}");
}

fn kernels(out: &mut String, ks: &[KernelRecord], top: usize) {
    let mut t = table(&[
        "dispatches",
        "total ms",
        "mean µs",
        "vgpr",
        "sgpr",
        "lds",
        "family",
        "type",
        "kernel",
    ]);
    for k in ks.iter().take(top) {
        let opt = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
        t.add_row(vec![
            right(k.dispatches),
            right(ms(k.total_ns)),
            right(format!("{:.1}", k.mean_ns as f64 / 1e3)),
            right(opt(k.resources.vgpr_count)),
            right(opt(k.resources.sgpr_count)),
            right(opt(k.resources.lds_bytes)),
            Cell::new(k.family.as_str()),
            Cell::new(k.ggml.as_ref().map_or("-", |g| g.weight_type.as_str())),
            Cell::new(short(&k.name, 90)),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if ks.len() > top {
        let _ = writeln!(
            out,
            "… {} more kernel(s) (--top N, --tsv, --json)",
            ks.len() - top
        );
    }
    let tensile: Vec<&KernelRecord> = ks.iter().filter(|k| k.tensile.is_some()).collect();
    if !tensile.is_empty() {
        let mut t = table(&[
            "dispatches",
            "types",
            "trans",
            "macro tile",
            "instructions",
            "ISA",
            "GB",
            "kernel",
        ]);
        for k in tensile {
            let Some(d) = &k.tensile else { continue };
            let n = &d.name;
            let types = [
                Some(n.data_type.clone()),
                n.dest_type.clone(),
                n.compute_type.clone(),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("/");
            t.add_row(vec![
                right(k.dispatches),
                Cell::new(types),
                Cell::new(format!(
                    "{}{}",
                    if n.trans_a { "T" } else { "N" },
                    if n.trans_b { "T" } else { "N" }
                )),
                Cell::new(
                    n.macro_tile
                        .map(|m| format!("{}x{}x{}", m[0], m[1], m[2]))
                        .unwrap_or_default(),
                ),
                Cell::new(d.instructions),
                Cell::new(d.isa.clone().unwrap_or_default()),
                Cell::new(if n.general_batched { "yes" } else { "" }),
                Cell::new(short(&k.name, 60)),
            ]);
        }
        let _ = writeln!(out, "Tensile kernels (names decoded)\n{t}");
    }
}

fn one(out: &mut String, r: &TraceRecord, top: usize) {
    let gpus = r.gpus().join(", ");
    let _ = writeln!(
        out,
        "{}  [{}]  {} dispatch(es){}{}",
        r.path,
        r.format,
        r.dispatches,
        if gpus.is_empty() {
            String::new()
        } else {
            format!("  GPU {gpus}")
        },
        if r.skipped_rows > 0 {
            format!("  ({} other row(s))", r.skipped_rows)
        } else {
            String::new()
        }
    );
    families(out, &r.families, r.dispatches);
    kernels(out, &r.kernels, top);
    if let Some(p) = &r.phase {
        let _ = writeln!(
            out,
            "phase split ({}): boundary {}  prefill {}  decode {}  rocBLAS/Tensile prefill {} decode {}  → {}  [{} / {}]",
            match p.boundary {
                rocpath_docs::trace::Boundary::KernelStartMinPlusPromptEvalDuration {
                    prompt_eval_duration_ns,
                } => format!(
                    "first dispatch + prompt_eval_duration {} ms",
                    ms(prompt_eval_duration_ns)
                ),
                rocpath_docs::trace::Boundary::Absolute { boundary_ns } =>
                    format!("absolute {boundary_ns}"),
            },
            p.boundary_ns.map_or_else(|| "-".into(), |b| b.to_string()),
            p.prefill_dispatches,
            p.decode_dispatches,
            p.prefill_blas_dispatches,
            p.decode_blas_dispatches,
            p.status,
            p.evidence.class,
            p.evidence.rule
        );
    }
    let c = &r.research;
    let _ = writeln!(
        out,
        "research counters: kernel_dispatch_rows={} mul_mat_q={} mul_mat_vec_q={} flash_attn={} quantize_={} copy={} tensile_like={}",
        c.kernel_dispatch_rows,
        c.kernel_mul_mat_q_rows,
        c.kernel_mul_mat_vec_rows,
        c.kernel_flash_attn_rows,
        c.kernel_quantize_rows,
        c.kernel_copy_rows,
        c.kernel_tensile_like_rows
    );
    for e in &r.errors {
        let row = e.line.map(|l| l.to_string()).unwrap_or_default();
        let _ = writeln!(out, "  unreadable row {row}: {}", e.message);
    }
}

/// The report for people.
pub fn report(r: &Report, top: usize) -> String {
    let mut out = String::new();
    for (i, t) in r.traces.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        one(&mut out, t, top);
    }
    if r.traces.len() > 1 {
        let _ = writeln!(
            out,
            "\nall traces: {} dispatch(es), {} rocBLAS/Tensile",
            r.dispatches, r.blas_dispatches
        );
        families(&mut out, &r.families, r.dispatches);
    }
    out
}

/// One row per kernel per trace.
pub fn tsv(r: &Report) -> String {
    let mut out = String::new();
    tsv_line(
        &mut out,
        &[
            "trace",
            "family",
            "library",
            "dispatches",
            "total_ns",
            "mean_ns",
            "min_ns",
            "max_ns",
            "vgpr",
            "accum_vgpr",
            "sgpr",
            "lds",
            "scratch",
            "prefill",
            "decode",
            "ggml_type",
            "kernel",
        ]
        .map(String::from),
    );
    let o = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
    for t in &r.traces {
        for k in &t.kernels {
            tsv_line(
                &mut out,
                &[
                    t.path.clone(),
                    k.family.as_str().into(),
                    k.library.as_str().into(),
                    k.dispatches.to_string(),
                    k.total_ns.to_string(),
                    k.mean_ns.to_string(),
                    k.min_ns.to_string(),
                    k.max_ns.to_string(),
                    o(k.resources.vgpr_count),
                    o(k.resources.accum_vgpr_count),
                    o(k.resources.sgpr_count),
                    o(k.resources.lds_bytes),
                    o(k.resources.scratch_bytes),
                    o(k.prefill_dispatches),
                    o(k.decode_dispatches),
                    k.ggml
                        .as_ref()
                        .map(|g| g.weight_type.clone())
                        .unwrap_or_default(),
                    k.name.clone(),
                ],
            );
        }
    }
    out
}
