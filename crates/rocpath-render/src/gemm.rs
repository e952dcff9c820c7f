//! `explain gemm`: one call's route, walk and choice; several side by side.

use rocpath_evidence::Evidence;
use rocpath_explain::gemm::GemmExplanation;
use rocpath_gemm::trace::StepKind;
use std::fmt::Write;

fn ev(e: &Evidence) -> String {
    format!("[{} / {} · {}]", e.class.as_str(), e.kind.as_str(), e.rule)
}

fn call_line(e: &GemmExplanation) -> String {
    let c = &e.call;
    let types: Vec<&str> = c.types.iter().map(|t| t.name()).collect();
    format!(
        "rocblas_{} {}{} M={} N={} K={} batch={} types={} compute={} alpha={} beta={}{}",
        c.api.name(),
        c.trans[0].letter(),
        c.trans[1].letter(),
        c.m,
        c.n,
        c.k,
        c.batch,
        types.join("/"),
        c.compute.name(),
        c.alpha,
        c.beta,
        if c.xf32 { " xf32" } else { "" }
    )
}

/// One explanation: the call, the route, the walk, the choice.
pub fn gemm(e: &GemmExplanation) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} on {} ({} CUs)",
        call_line(e),
        e.device.target,
        e.device.cu_count
    );
    let _ = writeln!(
        s,
        "catalogs  {}",
        e.catalog.as_deref().unwrap_or(&e.library_dir)
    );
    let _ = writeln!(s, "\nroute ({})", e.backend);
    for r in &e.route {
        let _ = writeln!(s, "  - {}  ({})", r.text, r.cite);
    }
    if let Some(w) = &e.walk {
        let _ = writeln!(s, "\nwalk");
        for st in &w.steps {
            let pad = "  ".repeat(st.depth as usize + 1);
            step(&mut s, &pad, &st.kind);
        }
    }
    let _ = writeln!(s);
    match &e.chosen {
        Some(c) => {
            let _ = writeln!(s, "chosen    {}", c.name);
            let _ = writeln!(
                s,
                "          index {}, MT {}x{}, DU {}, GSU {}{}, from {}",
                c.index,
                c.macro_tile[0],
                c.macro_tile[1],
                c.depth_u,
                c.global_split_u,
                c.distance
                    .map(|d| format!(", distance {d}"))
                    .unwrap_or_default(),
                short(&c.file)
            );
            let _ = writeln!(
                s,
                "          code object {} — {}  {}",
                short(&c.code_object.file),
                if c.code_object.present {
                    "present, defines the kernel"
                } else {
                    c.code_object.failure.as_deref().unwrap_or("missing")
                },
                ev(&c.code_object.evidence)
            );
            let _ = writeln!(s, "          {}", ev(&c.evidence));
        }
        None => {
            let _ = writeln!(
                s,
                "outcome   {}{}  {}",
                e.outcome,
                e.unresolved
                    .as_deref()
                    .map(|u| format!(": {u}"))
                    .unwrap_or_default(),
                ev(&e.evidence)
            );
        }
    }
    if !e.runners_up.is_empty() {
        let _ = writeln!(s, "\nnearest other tuned sizes (predicates aside)");
        for n in &e.runners_up {
            let _ = writeln!(
                s,
                "  {:?} distance {} speed {} {}",
                n.key,
                n.distance,
                n.speed,
                n.kernel.as_deref().map_or("-".into(), abbreviate)
            );
        }
    }
    for f in &e.fallbacks {
        let _ = writeln!(s, "fallback  {f}");
    }
    s
}

fn step(s: &mut String, pad: &str, k: &StepKind) {
    match k {
        StepKind::Row {
            library,
            row,
            predicate,
            holds,
        } => {
            let mark = match holds {
                Some(true) => "holds",
                Some(false) => "fails",
                None => "unknown",
            };
            let p: String = predicate.chars().take(140).collect();
            let _ = writeln!(s, "{pad}{library} row {row}: {p} — {mark}");
        }
        StepKind::Map {
            property,
            key,
            found,
            keys,
        } => {
            let _ = writeln!(
                s,
                "{pad}map by {property} ({keys} key{}): {key} — {}",
                if *keys == 1 { "" } else { "s" },
                if *found { "found" } else { "absent" }
            );
        }
        StepKind::Placeholder { file, error } => {
            let _ = writeln!(
                s,
                "{pad}load {}{}",
                short(file),
                error
                    .as_deref()
                    .map(|e| format!(" — {e}"))
                    .unwrap_or_default()
            );
        }
        StepKind::Matching {
            properties,
            distance,
            key,
            entries,
            considered,
            tried,
            ..
        } => {
            let _ = writeln!(
                s,
                "{pad}matching table {} {distance}, {entries} entries, key {key:?}: {considered} considered, {} tried",
                properties.join(","),
                tried.len()
            );
            for t in tried.iter().take(12) {
                let _ = writeln!(
                    s,
                    "{pad}  {:?} d={} speed={} #{} — {}",
                    t.key,
                    t.distance,
                    t.speed,
                    t.index.map_or("-".into(), |i| i.to_string()),
                    t.rejected_by.as_deref().unwrap_or("fits: best so far")
                );
            }
            if tried.len() > 12 {
                let _ = writeln!(s, "{pad}  … {} more (--json lists them)", tried.len() - 12);
            }
        }
        StepKind::Single {
            index,
            name,
            rejected_by,
        } => {
            let _ = writeln!(
                s,
                "{pad}solution #{index} {name} — {}",
                rejected_by.as_deref().unwrap_or("taken")
            );
        }
        StepKind::Tree { tree, predicts } => {
            let _ = writeln!(s, "{pad}decision tree {tree}: {predicts}");
        }
    }
}

/// A kernel name cut after its macro tile and a few parameters (`--json` has it whole).
fn abbreviate(k: &str) -> String {
    if k.chars().count() <= 64 {
        return k.to_string();
    }
    let cut: String = k.chars().take(60).collect();
    format!("{cut}…")
}

fn short(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Many explanations: one row per (call, device).
pub fn gemm_table(es: &[GemmExplanation]) -> String {
    let mut t = crate::table(&[
        "call",
        "device",
        "outcome",
        "kernel",
        "index",
        "distance",
        "code object",
    ]);
    for e in es {
        let c = &e.call;
        t.add_row(vec![
            comfy_table::Cell::new(format!(
                "{}{} {}x{}x{} {}",
                c.trans[0].letter(),
                c.trans[1].letter(),
                c.m,
                c.n,
                c.k,
                c.types[0].name()
            )),
            comfy_table::Cell::new(format!("{} {}CU", e.device.target, e.device.cu_count)),
            comfy_table::Cell::new(e.outcome),
            comfy_table::Cell::new(match (&e.chosen, e.outcome) {
                (Some(c), _) => abbreviate(&c.name),
                (None, "no_catalog") => format!("no catalog for {}", e.device.target.processor),
                (None, _) => e
                    .unresolved
                    .as_deref()
                    .map_or("-".into(), |u| u.chars().take(72).collect()),
            }),
            comfy_table::Cell::new(
                e.chosen
                    .as_ref()
                    .map_or("-".into(), |c| c.index.to_string()),
            ),
            comfy_table::Cell::new(
                e.chosen
                    .as_ref()
                    .and_then(|c| c.distance)
                    .map_or("-".into(), |d| d.to_string()),
            ),
            comfy_table::Cell::new(e.chosen.as_ref().map_or("-", |c| {
                if c.code_object.present {
                    "present"
                } else {
                    "MISSING"
                }
            })),
        ]);
    }
    format!("{t}\n")
}

/// Many explanations as TSV.
pub fn gemm_tsv(es: &[GemmExplanation]) -> String {
    let mut s = String::from(
        "trans\tm\tn\tk\tbatch\ttype\ttarget\tcu\toutcome\tindex\tkernel\tdistance\tcode_object\n",
    );
    for e in es {
        let c = &e.call;
        let ch = e.chosen.as_ref();
        let _ = writeln!(
            s,
            "{}{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            c.trans[0].letter(),
            c.trans[1].letter(),
            c.m,
            c.n,
            c.k,
            c.batch,
            c.types[0].name(),
            e.device.target,
            e.device.cu_count,
            e.outcome,
            ch.map_or("-".into(), |c| c.index.to_string()),
            crate::tsv_field(ch.map_or("-", |c| c.name.as_str())),
            ch.and_then(|c| c.distance)
                .map_or("-".into(), |d| d.to_string()),
            ch.map_or("-", |c| if c.code_object.present {
                "present"
            } else {
                "missing"
            }),
        );
    }
    s
}

/// Where a kernel is in the catalogs.
pub fn kernel_entries(kernel: &str, es: &[rocpath_explain::gemm::KernelEntry]) -> String {
    let mut s = String::new();
    if es.is_empty() {
        let _ = writeln!(s, "{kernel}: in no catalog file of these folders");
        return s;
    }
    for e in es {
        let _ = writeln!(
            s,
            "{kernel}\n  solution {} in {}\n  {} {}\n  chosen for {} tuned size(s) ({}):",
            e.index,
            short(&e.file),
            e.operation,
            e.types,
            e.tuned_sizes.len(),
            e.properties.join(", ")
        );
        for k in e.tuned_sizes.iter().take(40) {
            let _ = writeln!(s, "    {k:?}");
        }
        if e.tuned_sizes.len() > 40 {
            let _ = writeln!(
                s,
                "    … {} more (--json lists them)",
                e.tuned_sizes.len() - 40
            );
        }
        let _ = writeln!(s, "  {}", ev(&e.evidence));
    }
    s
}

/// Traced Tensile kernels and the catalog entries they are.
pub fn attributions(a: &[rocpath_explain::gemm::Attribution]) -> String {
    let mut t = crate::table(&[
        "trace",
        "kernel",
        "dispatches",
        "catalog entry",
        "tuned sizes",
    ]);
    for x in a {
        let entry = x
            .entries
            .first()
            .map_or("not in these catalogs".to_string(), |e| {
                format!(
                    "{} #{}{}",
                    short(&e.file),
                    e.index,
                    if x.entries.len() > 1 {
                        format!(" (+{})", x.entries.len() - 1)
                    } else {
                        String::new()
                    }
                )
            });
        t.add_row(vec![
            comfy_table::Cell::new(short(&x.trace)),
            comfy_table::Cell::new(abbreviate(&x.kernel)),
            comfy_table::Cell::new(x.dispatches),
            comfy_table::Cell::new(entry),
            comfy_table::Cell::new(
                x.entries
                    .first()
                    .map_or("-".into(), |e| e.tuned_sizes.len().to_string()),
            ),
        ]);
    }
    format!("{t}\n")
}
