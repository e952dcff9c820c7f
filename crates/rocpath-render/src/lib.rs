//! Renderers: readable tables for people and TSV for pipelines. Renderers take observation
//! types and return strings; they read no clock and no file, and sort deterministically.
//! JSON is produced by the CLI from the same types (serde), not here.

use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, TableComponent, presets};
use rocpath_arch::{TargetId, TargetInfo};
use rocpath_inventory::Inventory;
use rocpath_inventory::check::{DeviceCheck, group_key};
use rocpath_inventory::diff::Diff;
use std::collections::BTreeMap;
use std::fmt::Write;

pub mod case;
pub mod explain;
pub mod follow;
pub mod gates;
pub mod gemm;
pub mod isa;
pub mod lanes;
pub mod ledger;
pub mod loads;
pub mod ollama;
mod python;
pub mod strace;
pub mod survey;
pub mod trace;

pub(crate) fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::NOTHING);
    t.set_style(TableComponent::HeaderLines, '─');
    t.set_style(TableComponent::MiddleHeaderIntersections, '─');
    t.set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(header.iter().map(Cell::new));
    t
}

pub(crate) fn right(s: impl ToString) -> Cell {
    Cell::new(s.to_string()).set_alignment(CellAlignment::Right)
}

/// Human-readable byte count (`1.3 GiB`).
pub fn bytes(n: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", U[i])
    }
}

/// Escapes a TSV field: tabs, newlines and backslashes become `\t`, `\n`, `\\`.
pub fn tsv_field(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => o.push_str("\\t"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\\' => o.push_str("\\\\"),
            c => o.push(c),
        }
    }
    o
}

pub(crate) fn tsv_line(out: &mut String, fields: &[String]) {
    let v: Vec<String> = fields.iter().map(|f| tsv_field(f)).collect();
    out.push_str(&v.join("\t"));
    out.push('\n');
}

pub(crate) fn short_library(lib: &str) -> String {
    // An archive member: keep the archive's file name and the member's last component.
    let archive_exts = [
        ".deb:",
        ".whl:",
        ".zip:",
        ".tar:",
        ".tar.gz:",
        ".tar.xz:",
        ".tar.zst:",
        ".tgz:",
    ];
    if let Some(i) = archive_exts
        .iter()
        .filter_map(|e| lib.find(e).map(|i| i + e.len()))
        .min()
    {
        let archive = lib[..i - 1].rsplit('/').next().unwrap_or("");
        let member = lib[i..].trim_end_matches('/');
        let tail: Vec<&str> = member.rsplitn(3, '/').collect();
        let m = match tail.as_slice() {
            [a, b, _] | [a, b] => format!("{b}/{a}"),
            _ => member.to_string(),
        };
        return format!("{archive}:{m}");
    }
    // Keep the last two path components: enough to tell rocblas/library from hipblaslt/library.
    let parts: Vec<&str> = lib.trim_end_matches('/').rsplitn(3, '/').collect();
    match parts.as_slice() {
        [a, b, _] | [a, b] => format!("{b}/{a}"),
        _ => lib.to_string(),
    }
}

/// The inventory for people: the coverage matrix (library × target id), per-target totals,
/// Tensile libraries, MIOpen databases and errors.
pub fn inventory_table(inv: &Inventory) -> String {
    let mut out = String::new();
    coverage_tables(&mut out, inv);
    tensile_table(&mut out, inv);
    if !inv.python.is_empty() {
        out.push_str(&python::python_table(&inv.python));
    }
    miopen_table(&mut out, inv);
    kpack_table(&mut out, inv);
    inventory_totals(&mut out, inv);
    out
}

/// The coverage matrix (library × target id: code objects/kernels) and the per-target totals.
fn coverage_tables(out: &mut String, inv: &Inventory) {
    // Coverage matrix over grouped libraries.
    let targets: Vec<String> = inv.targets.keys().map(ToString::to_string).collect();
    let mut rows: BTreeMap<String, BTreeMap<&TargetId, (u64, u64)>> = BTreeMap::new();
    for co in &inv.code_objects {
        let c = rows
            .entry(group_key(co))
            .or_default()
            .entry(&co.target)
            .or_default();
        c.0 += 1;
        c.1 += co.kernel_count as u64;
    }
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            "Coverage: code objects/kernels per library and gfx target"
        );
        let mut h = vec!["library"];
        h.extend(targets.iter().map(|t| t.as_str()));
        let mut t = table(&h);
        for (lib, cells) in &rows {
            let mut r = vec![Cell::new(short_library(lib))];
            for tg in inv.targets.keys() {
                r.push(match cells.get(tg) {
                    Some((o, k)) => right(format!("{o}/{k}")),
                    None => right("-"),
                });
            }
            t.add_row(r);
        }
        let _ = writeln!(out, "{t}\n");
        let mut t = table(&[
            "target",
            "family",
            "code objects",
            "kernels",
            "bytes",
            "libraries",
        ]);
        for (tg, tt) in &inv.targets {
            t.add_row(vec![
                Cell::new(tg),
                Cell::new(rocpath_inventory::family_of(&tg.processor).unwrap_or("?")),
                right(tt.code_objects),
                right(tt.kernels),
                right(bytes(tt.bytes)),
                right(tt.libraries),
            ]);
        }
        let _ = writeln!(out, "{t}\n");
    } else {
        let _ = writeln!(out, "No AMDGPU code objects found.\n");
    }
}

/// The Tensile files per folder and processor.
fn tensile_table(out: &mut String, inv: &Inventory) {
    if !inv.tensile.is_empty() {
        let _ = writeln!(out, "Tensile libraries");
        let mut t = table(&[
            "folder",
            "processor",
            "lazy indexes",
            "solution files",
            "solutions",
            "fallback files",
        ]);
        let mut agg: BTreeMap<(String, String), (u64, u64, u64, u64)> = BTreeMap::new();
        for r in &inv.tensile {
            let p = r.processor.clone().unwrap_or_else(|| "(any)".into());
            let a = agg.entry((short_library(&r.library_dir), p)).or_default();
            match r.kind.as_str() {
                "lazy_index" => a.0 += 1,
                "fallback" => a.3 += 1,
                _ => a.1 += 1,
            }
            a.2 += r.solutions;
        }
        for ((dir, p), (l, s, n, f)) in agg {
            t.add_row(vec![
                Cell::new(dir),
                Cell::new(p),
                right(l),
                right(s),
                right(n),
                right(f),
            ]);
        }
        let _ = writeln!(out, "{t}\n");
    }
}

/// The MIOpen databases.
fn miopen_table(out: &mut String, inv: &Inventory) {
    if !inv.miopen_dbs.is_empty() {
        let _ = writeln!(out, "MIOpen databases");
        let mut t = table(&["file", "in", "processor", "CUs", "kind", "size"]);
        for d in &inv.miopen_dbs {
            let dir = if d.container.is_empty() {
                d.path.clone()
            } else {
                format!("{}:{}", d.path, d.container)
            };
            t.add_row(vec![
                Cell::new(&d.name),
                Cell::new(short_library(
                    dir.trim_end_matches(&d.name).trim_end_matches('/'),
                )),
                Cell::new(&d.processor),
                right(d.cus.map(|c| c.to_string()).unwrap_or_else(|| "-".into())),
                Cell::new(d.kind),
                right(bytes(d.size)),
            ]);
        }
        let _ = writeln!(out, "{t}\n");
    }
}

/// The one-line totals of a scan.
fn inventory_totals(out: &mut String, inv: &Inventory) {
    let not_started = match inv.stats.not_started {
        0 => String::new(),
        n => format!(" ({n} not read: --max-time passed)"),
    };
    let _ = writeln!(
        out,
        "{} files{not_started}, {} read; {} code objects, {} kernels, {} Tensile files, {} MIOpen databases; {} errors",
        inv.stats.files,
        bytes(inv.stats.bytes),
        inv.code_objects.len(),
        inv.code_objects
            .iter()
            .map(|c| c.kernel_count)
            .sum::<usize>(),
        inv.tensile.len(),
        inv.miopen_dbs.len(),
        inv.errors.len()
    );
}

/// Host binaries packed for kpack: each archive their marker leads to, what it holds for the
/// binary, and the wrappers whose code the packing lost.
fn kpack_table(out: &mut String, inv: &Inventory) {
    if inv.kpack_refs.is_empty() {
        return;
    }
    let _ = writeln!(out, "kpack references");
    let mut t = table(&[
        "library",
        "archive",
        "status",
        "targets stored",
        "advertised",
        "class",
    ]);
    for r in &inv.kpack_refs {
        let lib = short_library(&r.library);
        if !r.resolved {
            t.add_row(vec![
                Cell::new(&lib),
                Cell::new(r.search_paths.join(" ")),
                Cell::new("not looked for (inside an archive file)"),
                Cell::new("-"),
                Cell::new("-"),
                Cell::new(r.evidence.class.to_string()),
            ]);
        }
        for a in &r.archives {
            let status = match &a.archive.message {
                Some(m) => format!("{}: {m}", a.archive.status.as_str()),
                None => a.archive.status.as_str().to_string(),
            };
            let list = |v: &[String]| {
                if v.is_empty() {
                    "-".to_string()
                } else {
                    v.join(" ")
                }
            };
            t.add_row(vec![
                Cell::new(&lib),
                Cell::new(&a.archive.path),
                Cell::new(status),
                Cell::new(list(&a.archive.arches)),
                Cell::new(list(&a.archive.gfx_arches)),
                Cell::new(a.evidence.class.to_string()),
            ]);
        }
    }
    let _ = writeln!(out, "{t}");
    for r in inv.kpack_refs.iter().filter(|r| r.stale_wrappers > 0) {
        let _ = writeln!(
            out,
            "{}: {} of {} fat-binary wrappers still say HIPF over the emptied .hip_fatbin — their code objects were not packed",
            short_library(&r.library),
            r.stale_wrappers,
            r.wrappers.total
        );
    }
    let _ = writeln!(out);
}

/// The inventory as TSV: one row per code object (or per kernel with `kernels`).
pub fn inventory_tsv(inv: &Inventory, kernels: bool) -> String {
    let mut out = String::new();
    if kernels {
        tsv_line(
            &mut out,
            &[
                "path",
                "container",
                "target",
                "kernel",
                "symbol",
                "sgpr_count",
                "vgpr_count",
                "agpr_count",
                "wavefront_size",
                "group_segment_fixed_size",
                "private_segment_fixed_size",
                "kernarg_segment_size",
            ]
            .map(String::from),
        );
        let o = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
        for co in &inv.code_objects {
            for k in &co.kernels {
                tsv_line(
                    &mut out,
                    &[
                        co.path.clone(),
                        co.container.clone(),
                        co.target.to_string(),
                        k.name.clone(),
                        k.symbol().into_owned(),
                        o(k.sgpr_count),
                        o(k.vgpr_count),
                        o(k.agpr_count),
                        o(k.wavefront_size),
                        o(k.group_segment_fixed_size),
                        o(k.private_segment_fixed_size),
                        o(k.kernarg_segment_size),
                    ],
                );
            }
        }
        return out;
    }
    tsv_line(
        &mut out,
        &[
            "path",
            "container",
            "library",
            "offset",
            "size",
            "sha256",
            "target",
            "processor",
            "family",
            "code_object_version",
            "e_flags",
            "kernels",
            "text_bytes",
            "class",
            "kind",
        ]
        .map(String::from),
    );
    for co in &inv.code_objects {
        tsv_line(
            &mut out,
            &[
                co.path.clone(),
                co.container.clone(),
                co.library.clone(),
                co.offset.to_string(),
                co.size.to_string(),
                co.sha256.clone().unwrap_or_default(),
                co.target.full(),
                co.target.processor.clone(),
                co.family.clone().unwrap_or_default(),
                co.code_object_version
                    .map(|v| format!("v{v}"))
                    .unwrap_or_default(),
                co.e_flags.clone(),
                co.kernel_count.to_string(),
                co.text_bytes.to_string(),
                co.evidence.class.to_string(),
                co.evidence.kind.to_string(),
            ],
        );
    }
    out
}

/// Errors of a scan, one per line, for stderr.
pub fn errors_text(inv: &Inventory) -> String {
    let mut out = String::new();
    for e in &inv.errors {
        error_line(&mut out, &e.path, &e.container, e.offset, &e.message);
    }
    out
}

/// One `error:` line: path, `[container]` when inside one, offset when known, message.
pub(crate) fn error_line(
    out: &mut String,
    path: &str,
    container: &str,
    offset: Option<u64>,
    message: &str,
) {
    let at = offset
        .map(|o| format!(" at offset {o}"))
        .unwrap_or_default();
    let member = if container.is_empty() {
        String::new()
    } else {
        format!(" [{container}]")
    };
    let _ = writeln!(out, "error: {path}{member}{at}: {message}");
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "-" }
}

fn family(t: &TargetInfo) -> String {
    format!("{:?}", t.family)
        .replace("Rdna3_5", "RDNA3.5")
        .replace("Gfx12_5", "GFX12.5")
        .to_uppercase()
}

/// The architecture table, or one row in detail.
pub fn arch_table(rows: &[&TargetInfo], detail: bool) -> String {
    let mut out = String::new();
    if detail {
        for t in rows {
            let _ = writeln!(out, "{}", arch_detail(t));
        }
    } else {
        let _ = writeln!(out, "{}", arch_rows(rows));
    }
    out
}

/// One target in detail, field by field.
fn arch_detail(t: &TargetInfo) -> comfy_table::Table {
    let mut tb = table(&["field", "value"]);
    let mut add = |k: &str, v: String| {
        tb.add_row(vec![Cell::new(k), Cell::new(v)]);
    };
    add("processor", t.name.to_string());
    add("family", family(t));
    add("generation", format!("{:?}", t.generation).to_uppercase());
    add(
        "version (HSA_OVERRIDE_GFX_VERSION)",
        format!("{}.{}.{}", t.version.0, t.version.1, t.version.2),
    );
    add("ELF mach", format!("0x{:03x}", t.mach));
    add("products", t.products.join(", "));
    add(
        "wavefront sizes",
        t.wavefront_sizes
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    );
    add("xnack", format!("{:?}", t.xnack).to_lowercase());
    add("sramecc", format!("{:?}", t.sramecc).to_lowercase());
    add(
        "dot instructions",
        if t.dot.is_empty() {
            "none".into()
        } else {
            t.dot
                .iter()
                .map(|d| format!("dot{d}"))
                .collect::<Vec<_>>()
                .join(" ")
        },
    );
    add("DL instructions", yes(t.dl_insts).into());
    add(
        "MFMA (matrix cores)",
        t.mfma
            .map(|m| format!("{m:?}").to_uppercase())
            .unwrap_or_else(|| "none".into()),
    );
    add(
        "WMMA",
        t.wmma
            .map(|m| format!("{m:?}").to_uppercase())
            .unwrap_or_else(|| "none".into()),
    );
    add("packed FP32", yes(t.packed_fp32).into());
    add("mad/fma mix", yes(t.mix_insts).into());
    add("FP8", yes(t.fp8).into());
    add("XF32", yes(t.xf32).into());
    add("LDS per workgroup", bytes(u64::from(t.lds_bytes)));
    add("generic target", t.generic.unwrap_or("-").into());
    if !t.covers.is_empty() {
        add("covers", t.covers.join(" "));
    }
    add(
        "LLVM since",
        if t.llvm_since.is_empty() {
            "-".into()
        } else {
            t.llvm_since.into()
        },
    );
    add("source", t.source.into());
    tb
}

/// The table of targets, one row each.
fn arch_rows(rows: &[&TargetInfo]) -> comfy_table::Table {
    let mut tb = table(&[
        "target", "family", "version", "wave", "xnack", "sramecc", "dot", "mfma", "wmma", "pk_f32",
        "LDS", "generic", "products",
    ]);
    for t in rows {
        tb.add_row(vec![
            Cell::new(t.name),
            Cell::new(family(t)),
            Cell::new(format!("{}.{}.{}", t.version.0, t.version.1, t.version.2)),
            Cell::new(
                t.wavefront_sizes
                    .iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
                    .join("/"),
            ),
            Cell::new(if t.xnack == rocpath_arch::TargetFeature::Supported {
                "yes"
            } else {
                "-"
            }),
            Cell::new(if t.sramecc == rocpath_arch::TargetFeature::Supported {
                "yes"
            } else {
                "-"
            }),
            Cell::new(if t.dot.is_empty() {
                "-".into()
            } else {
                t.dot
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            }),
            Cell::new(
                t.mfma
                    .map(|m| format!("{m:?}").to_uppercase())
                    .unwrap_or_else(|| "-".into()),
            ),
            Cell::new(
                t.wmma
                    .map(|m| format!("{m:?}").to_uppercase())
                    .unwrap_or_else(|| "-".into()),
            ),
            Cell::new(yes(t.packed_fp32)),
            right(format!("{}K", t.lds_bytes / 1024)),
            Cell::new(t.generic.unwrap_or("-")),
            Cell::new(t.products.first().copied().unwrap_or("")),
        ]);
    }
    tb
}

/// A check report for people.
pub fn check_table(checks: &[DeviceCheck]) -> String {
    let mut out = String::new();
    for c in checks {
        let d = &c.device;
        let _ = writeln!(
            out,
            "Device {} ({}){}{}",
            d.target.canonical(),
            d.source,
            d.name
                .as_ref()
                .map(|n| format!(", {n}"))
                .unwrap_or_default(),
            d.cus.map(|n| format!(", {n} CUs")).unwrap_or_default()
        );
        if let Some(o) = &c.r#override {
            let _ = writeln!(
                out,
                "With {}={}: the runtime reports {}",
                o.source,
                o.value,
                o.processor.as_deref().unwrap_or("an unknown processor")
            );
        }
        let mut h = vec!["verdict", "library", "compatible", "why", "class"];
        if c.r#override.is_some() {
            h.insert(4, "with override");
        }
        let mut t = table(&h);
        for l in &c.libraries {
            let mut r = vec![
                Cell::new(l.verdict.as_str().to_uppercase()),
                Cell::new(short_library(&l.library)),
                right(format!("{}/{}", l.compatible, l.total)),
                Cell::new(&l.why),
                Cell::new(l.evidence.class.as_str()),
            ];
            if c.r#override.is_some() {
                let s = l
                    .with_override
                    .as_ref()
                    .map(|o| format!("{}: {}", o.verdict.as_str().to_uppercase(), o.why))
                    .unwrap_or_default();
                r.insert(4, Cell::new(s));
            }
            t.add_row(r);
        }
        let _ = writeln!(out, "{t}");
        let s: Vec<String> = c.summary.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let with = match (&c.verdict_with_override, &c.r#override) {
            (Some(v), Some(o)) => format!(
                "; with {}={}: {}",
                o.source,
                o.value,
                v.as_str().to_uppercase()
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{}\nDevice verdict: {}{with}",
            s.join(", "),
            c.verdict.as_str().to_uppercase()
        );
        for k in &c.to_settle {
            let targets: Vec<String> = k.targets.iter().map(|t| format!("--target {t}")).collect();
            let _ = writeln!(
                out,
                "{} is not known for this device: check again with {}, or read it from the device (the target rocminfo names, given with --rocminfo FILE)",
                k.feature,
                targets.join(" or ")
            );
        }
        let _ = writeln!(out);
    }
    out
}

/// A diff for people.
pub fn diff_table(d: &Diff) -> String {
    let mut out = String::new();
    let list = |v: &[TargetId]| {
        if v.is_empty() {
            "-".to_string()
        } else {
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let _ = writeln!(out, "Targets added:   {}", list(&d.targets_added));
    let _ = writeln!(out, "Targets removed: {}", list(&d.targets_removed));
    if d.libraries.is_empty() {
        let _ = writeln!(out, "No library changed ({} unchanged).", d.unchanged);
        return out;
    }
    let mut t = table(&[
        "library",
        "status",
        "targets added",
        "targets removed",
        "kernels +/-",
    ]);
    for l in &d.libraries {
        let plus: usize = l.kernels.iter().map(|k| k.added.len()).sum();
        let minus: usize = l.kernels.iter().map(|k| k.removed.len()).sum();
        t.add_row(vec![
            Cell::new(short_library(&l.library)),
            Cell::new(l.status.as_str()),
            Cell::new(list(&l.targets_added)),
            Cell::new(list(&l.targets_removed)),
            right(format!("+{plus}/-{minus}")),
        ]);
    }
    let _ = writeln!(out, "{t}");
    diff_per_target(&mut out, d);
    for note in &d.kpack {
        let _ = writeln!(out, "kpack: {note}");
    }
    let _ = writeln!(
        out,
        "{} libraries changed, {} unchanged",
        d.libraries.len(),
        d.unchanged
    );
    out
}

/// The targets kept by a library whose code objects or kernels changed, one row each.
fn diff_per_target(out: &mut String, d: &Diff) {
    if d.libraries.iter().all(|l| l.kernels.is_empty()) {
        return;
    }
    let mut t = table(&[
        "library",
        "target",
        "code objects",
        "kernels",
        "kernels lost",
        "kernels gained",
    ]);
    for l in &d.libraries {
        for k in &l.kernels {
            t.add_row(vec![
                Cell::new(short_library(&l.library)),
                Cell::new(k.target.to_string()),
                right(format!("{} → {}", k.objects_old, k.objects_new)),
                right(format!("{} → {}", k.old, k.new)),
                right(k.removed.len()),
                right(k.added.len()),
            ]);
        }
    }
    let _ = writeln!(out, "{t}");
}

/// A diff as TSV: one row per library and target change.
pub fn diff_tsv(d: &Diff) -> String {
    let mut out = String::new();
    tsv_line(
        &mut out,
        &[
            "library",
            "status",
            "target",
            "change",
            "kernels_old",
            "kernels_new",
        ]
        .map(String::from),
    );
    for l in &d.libraries {
        for t in &l.targets_added {
            tsv_line(
                &mut out,
                &[
                    l.library.clone(),
                    l.status.as_str().to_string(),
                    t.to_string(),
                    "target_added".into(),
                    "".into(),
                    "".into(),
                ],
            );
        }
        for t in &l.targets_removed {
            tsv_line(
                &mut out,
                &[
                    l.library.clone(),
                    l.status.as_str().to_string(),
                    t.to_string(),
                    "target_removed".into(),
                    "".into(),
                    "".into(),
                ],
            );
        }
        for k in &l.kernels {
            tsv_line(
                &mut out,
                &[
                    l.library.clone(),
                    l.status.as_str().to_string(),
                    k.target.to_string(),
                    "kernels_changed".into(),
                    k.old.to_string(),
                    k.new.to_string(),
                ],
            );
        }
    }
    out
}

/// A check as TSV: one row per device and library.
pub fn check_tsv(checks: &[DeviceCheck]) -> String {
    let mut out = String::new();
    tsv_line(
        &mut out,
        &[
            "device",
            "library",
            "kind",
            "verdict",
            "compatible",
            "total",
            "rule",
            "class",
            "why",
            "override_verdict",
        ]
        .map(String::from),
    );
    for c in checks {
        for l in &c.libraries {
            tsv_line(
                &mut out,
                &[
                    c.device.target.canonical(),
                    l.library.clone(),
                    l.kind.as_str().to_string(),
                    l.verdict.as_str().into(),
                    l.compatible.to_string(),
                    l.total.to_string(),
                    l.evidence.rule.clone(),
                    l.evidence.class.to_string(),
                    l.why.clone(),
                    l.with_override
                        .as_ref()
                        .map(|o| o.verdict.as_str().to_string())
                        .unwrap_or_default(),
                ],
            );
        }
    }
    out
}

pub use rocpath_evidence::count;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_escapes() {
        assert_eq!(tsv_field("a\tb\nc\\"), "a\\tb\\nc\\\\");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(12), "12 B");
        assert_eq!(short_library("/a/b/c/librocblas.so.4"), "c/librocblas.so.4");
    }
}
