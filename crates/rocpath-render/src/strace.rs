//! Readable output of `rocpath strace`: catalog reads and the link.

use crate::{right, table};
use comfy_table::Cell;
use rocpath_strace::{Link, RocblasTrace, StraceReport};
use std::fmt::Write;

/// Catalog reads (and the link, when dispatch evidence was given).
pub fn report(r: &StraceReport, rocblas: &[RocblasTrace], link: &Link) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} split file(s), {} open(s): {} ok, {} failed",
        r.files, r.opens, r.ok, r.failed
    );
    let _ = writeln!(
        out,
        "catalog read: {} [{} / {}]",
        r.catalog_read.note, r.catalog_read.class, r.catalog_read.rule
    );
    let mut t = table(&["type", "ext", "fallback", "owner", "opens", "ok"]);
    for x in &r.tensile {
        t.add_row(vec![
            Cell::new(&x.type_token),
            Cell::new(&x.ext),
            Cell::new(if x.fallback { "yes" } else { "" }),
            Cell::new(&x.owner),
            right(x.opens),
            right(x.ok),
        ]);
    }
    if !r.tensile.is_empty() {
        let _ = writeln!(out, "Tensile catalog files opened\n{t}");
    }
    let mut t = table(&["library", "ok", "failed", "resolved"]);
    for l in r
        .libraries
        .iter()
        .filter(|l| rocpath_strace::catalog::ROCM_LIBRARIES.contains(&l.name.as_str()))
    {
        t.add_row(vec![
            Cell::new(&l.name),
            right(l.ok),
            right(l.failed),
            Cell::new(l.resolved.clone().unwrap_or_default()),
        ]);
    }
    let _ = writeln!(out, "ROCm and ggml libraries\n{t}");
    let mut t = table(&[
        "process",
        "opens",
        "fallback .dat",
        "span s",
        "fallback .hsaco",
        "span s",
        "libggml-hip",
    ]);
    for p in &r.processes {
        let span = |w: &rocpath_strace::report::Window| {
            w.span_s.map_or_else(|| "-".into(), |s| format!("{s:.6}"))
        };
        t.add_row(vec![
            Cell::new(p.pid.map_or_else(|| p.path.clone(), |x| x.to_string())),
            right(p.opens),
            right(p.fallback_dat.count),
            right(span(&p.fallback_dat)),
            right(p.fallback_hsaco.count),
            right(span(&p.fallback_hsaco)),
            right(p.research.libggml_hip_openat),
        ]);
    }
    let _ = writeln!(out, "{t}");
    for b in rocblas {
        let _ = writeln!(
            out,
            "rocBLAS trace {}: {} line(s), {} handle, {} GEMM call(s), {} backend line(s)",
            b.path, b.lines, b.handle_lines, b.gemm_calls, b.backend_lines
        );
        for (s, n) in b.shapes.iter().take(10) {
            let _ = writeln!(out, "  {n:>6}  {s}");
        }
    }
    let _ = writeln!(
        out,
        "link: {}  (fallback_confirmed={} dispatch_confirmed={} direct={}; layers {})  [{} / {}]\n  {}",
        link.link_status.as_str(),
        u8::from(link.fallback_confirmed),
        u8::from(link.dispatch_confirmed),
        u8::from(link.direct_rocblas_or_tensile_dispatch),
        link.layers
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("+"),
        link.evidence.class,
        link.evidence.rule,
        link.evidence.note
    );
    out
}
