//! `explain gemm`: one call's route, walk and choice; several side by side.

use rocpath_evidence::Evidence;
use rocpath_explain::gemm::{CallDoc, GemmExplanation, LiteDoc};
use rocpath_gemm::trace::StepKind;
use std::fmt::Write;

fn ev(e: &Evidence) -> String {
    format!("[{} / {} · {}]", e.class.as_str(), e.kind.as_str(), e.rule)
}

/// The shape of a call, rocBLAS's or hipBLASLt's: transpositions, M, N, K, batch, input type.
fn shape(c: &CallDoc) -> (String, i64, i64, i64, i64, &'static str) {
    match c {
        CallDoc::Rocblas(c) => (
            format!("{}{}", c.trans[0].letter(), c.trans[1].letter()),
            c.m,
            c.n,
            c.k,
            c.batch,
            c.types[0].name(),
        ),
        CallDoc::Hipblaslt { matmul: m, .. } => (
            format!("{}{}", m.trans[0].letter(), m.trans[1].letter()),
            m.m,
            m.n,
            m.k,
            m.batch,
            m.types[0].name(),
        ),
    }
}

fn call_line(e: &GemmExplanation) -> String {
    match &e.call {
        CallDoc::Rocblas(c) => {
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
        CallDoc::Hipblaslt { matmul: m, .. } => matmul_line(m),
    }
}

fn matmul_line(m: &rocpath_gemm::lite::Matmul) -> String {
    let types: Vec<&str> = m.types.iter().map(|t| t.name()).collect();
    format!(
        "hipBLASLt matmul {}{} M={} N={} K={} batch={} types={} compute={}{}{} requested={} workspace={}",
        m.trans[0].letter(),
        m.trans[1].letter(),
        m.m,
        m.n,
        m.k,
        m.batch,
        types.join("/"),
        m.compute.name(),
        if m.bias {
            format!(" bias={}", m.bias_type.map_or("default", |t| t.name()))
        } else {
            String::new()
        },
        if m.activation == rocpath_gemm::lite::Activation::None {
            String::new()
        } else {
            format!(" activation={}", m.activation.name())
        },
        m.requested,
        m.workspace
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
        let routed = e.hipblaslt.is_some() && e.call.rocblas().is_some();
        let _ = writeln!(
            s,
            "\nwalk{}",
            if routed {
                " (Tensile, rocBLAS's fallback)"
            } else {
                ""
            }
        );
        for st in &w.steps {
            let pad = "  ".repeat(st.depth as usize + 1);
            step(&mut s, &pad, &st.kind);
        }
    }
    let _ = writeln!(s);
    chosen(&mut s, e);
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
    if let Some(h) = &e.hipblaslt {
        lite_section(
            &mut s,
            h,
            e.backend == rocpath_explain::gemm::Backend::Hipblaslt && e.call.rocblas().is_some(),
        );
    }
    s
}

/// The solution chosen (index, tile, split, where from, its code object), or the outcome
/// without one.
fn chosen(s: &mut String, e: &GemmExplanation) {
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
}

/// hipBLASLt's own answer: its steps, ranks, fill-in (and, for a routed call, its walk).
fn lite_section(s: &mut String, h: &LiteDoc, routed: bool) {
    let _ = writeln!(
        s,
        "\nhipBLASLt ({}){}",
        h.catalog.as_deref().map_or(h.library_dir.as_str(), short),
        if routed {
            format!(" — {}", matmul_line(&h.matmul))
        } else {
            String::new()
        }
    );
    if routed {
        for r in &h.steps {
            let _ = writeln!(s, "  - {}  ({})", r.text, r.cite);
        }
        if let Some(w) = &h.walk {
            let _ = writeln!(s, "  walk");
            for st in &w.steps {
                let pad = "  ".repeat(st.depth as usize + 2);
                step(s, &pad, &st.kind);
            }
        }
    }
    for r in &h.ranks {
        let _ = writeln!(
            s,
            "  rank {}  #{} {} ({}{})",
            r.rank,
            r.index,
            abbreviate(&r.name),
            r.from,
            if r.key.is_empty() {
                String::new()
            } else {
                format!(", tuned size {:?}", r.key)
            }
        );
    }
    if let Some(f) = &h.fill_in {
        let _ = writeln!(
            s,
            "  fill-in {} candidate(s) for {} place(s){}{}",
            f.candidates,
            f.slots,
            if f.run_dependent {
                " — order run-dependent"
            } else {
                ""
            },
            f.unresolved
                .as_deref()
                .map(|u| format!(" — {u}"))
                .unwrap_or_default()
        );
    }
    if routed {
        let _ = writeln!(
            s,
            "  outcome {}{}  {}",
            h.outcome,
            h.unresolved
                .as_deref()
                .map(|u| format!(": {u}"))
                .unwrap_or_default(),
            ev(&h.evidence)
        );
    }
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
        let (tr, m, n, k, _, ty) = shape(&e.call);
        t.add_row(vec![
            comfy_table::Cell::new(format!("{tr} {m}x{n}x{k} {ty}")),
            comfy_table::Cell::new(format!("{} {}CU", e.device.target, e.device.cu_count)),
            comfy_table::Cell::new(e.outcome.as_str()),
            comfy_table::Cell::new(match (&e.chosen, e.outcome) {
                (Some(c), _) => abbreviate(&c.name),
                (None, rocpath_explain::gemm::GemmOutcome::NoCatalog) => {
                    format!("no catalog for {}", e.device.target.processor)
                }
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
        let (tr, m, n, k, batch, ty) = shape(&e.call);
        let ch = e.chosen.as_ref();
        let _ = writeln!(
            s,
            "{tr}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            m,
            n,
            k,
            batch,
            ty,
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
