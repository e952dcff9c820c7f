//! Source gates, their provenance and timelines: the research's three-layer table per
//! target, the gate list, blame and release-tag timelines, as tables and TSV.

use crate::{table, tsv_line};
use rocpath_gates::{Gate, Report, TargetRow};
use rocpath_provenance::blame::{Commit, LineProvenance};
use rocpath_provenance::timeline::Timeline;
use std::fmt::Write;

fn short(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}

fn covers(g: &Gate) -> String {
    const N: usize = 6;
    let mut s = g
        .covers
        .iter()
        .take(N)
        .cloned()
        .collect::<Vec<_>>()
        .join(",");
    if g.covers.len() > N {
        let _ = write!(s, ",+{}", g.covers.len() - N);
    }
    s
}

fn what(g: &Gate) -> String {
    let pats: Vec<&str> = g.patterns.iter().map(|p| p.text.as_str()).collect();
    let mut s = format!("{} {}", g.kind.as_str(), pats.join(" "));
    if let Some(f) = g.function.as_ref().or(g.symbol.as_ref()) {
        let _ = write!(s, " in {f}");
    }
    s
}

fn commit_cell(c: Option<&Commit>) -> String {
    match c {
        Some(c) => format!(
            "{} {} {}{}",
            short(&c.hash),
            c.date.get(..10).unwrap_or(&c.date),
            c.author,
            c.pr.map(|p| format!(" #{p}")).unwrap_or_default()
        ),
        None => String::new(),
    }
}

fn prov_cell(p: Option<&LineProvenance>) -> String {
    match p {
        None => String::new(),
        Some(p) if p.truncated.is_some() => {
            format!("unresolved: {}", p.truncated.as_deref().unwrap_or(""))
        }
        Some(p) if p.error.is_some() => format!("unresolved: {}", p.error.as_deref().unwrap_or("")),
        Some(p) => commit_cell(p.introduced.as_ref()),
    }
}

/// Every gate: layer, construct, effect, covered targets, where, and the introducing commit
/// when blamed (`prov[i]` belongs to `report.gates[i]`).
pub fn gates(report: &Report, prov: Option<&[Option<LineProvenance>]>) -> String {
    let mut h = vec!["layer", "gate", "effect", "covers", "where"];
    if prov.is_some() {
        h.push("introduced");
    }
    let mut t = table(&h);
    for (i, g) in report.gates.iter().enumerate() {
        let mut row = vec![
            g.layer.as_str().to_string(),
            what(g),
            format!(
                "{}{}",
                g.effect.as_str(),
                if g.alternative { " (else)" } else { "" }
            ),
            covers(g),
            g.at.clone(),
        ];
        if let Some(p) = prov {
            row.push(prov_cell(p.get(i).and_then(|x| x.as_ref())));
        }
        t.add_row(row);
    }
    let mut out = t.to_string();
    out.push('\n');
    let _ = writeln!(out, "{}", summary(report));
    out
}

fn summary(report: &Report) -> String {
    let mut parts = Vec::new();
    for r in &report.repos {
        parts.push(format!(
            "{}@{}: {} in {} ({} parsed)",
            r.name,
            r.commit.as_deref().map(short).unwrap_or("no commit"),
            crate::count(r.gates as usize, "gate"),
            crate::count(r.files as usize, "file"),
            r.parsed
        ));
    }
    if !report.issues.is_empty() {
        parts.push(format!(
            "{} files not fully read (see errors)",
            report.issues.len()
        ));
    }
    parts.join("; ")
}

/// The three-layer table of one target: layer, verdict, what, where.
pub fn target(
    arch: &str,
    rows: &[TargetRow],
    report: &Report,
    prov: Option<&[Option<LineProvenance>]>,
) -> String {
    let mut out = format!("{arch}: {}\n", crate::count(rows.len(), "gate"));
    let mut h = vec!["layer", "verdict", "what", "where"];
    if prov.is_some() {
        h.push("introduced");
    }
    let mut t = table(&h);
    for r in rows {
        let Some(g) = report.gates.get(r.gate) else {
            continue;
        };
        let mut row = vec![
            r.layer.as_str().to_string(),
            format!(
                "{}{}",
                r.verdict.as_str(),
                if r.named { "" } else { " (not listed)" }
            ),
            what(g),
            r.at.clone(),
        ];
        if let Some(p) = prov {
            row.push(prov_cell(p.get(r.gate).and_then(|x| x.as_ref())));
        }
        t.add_row(row);
    }
    out.push_str(&t.to_string());
    out.push('\n');
    out
}

/// TSV of the gates: one row per gate, with provenance columns when blamed.
pub fn gates_tsv(report: &Report, prov: Option<&[Option<LineProvenance>]>) -> String {
    let mut out = String::new();
    let mut h: Vec<String> = [
        "repo",
        "path",
        "line",
        "commit",
        "language",
        "layer",
        "kind",
        "effect",
        "alternative",
        "patterns",
        "covers",
        "function",
        "guards",
        "text",
        "class",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if prov.is_some() {
        h.extend(
            [
                "introduced",
                "introduced_date",
                "introduced_author",
                "pr",
                "last",
                "last_date",
                "untouched_days",
                "references",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
    }
    tsv_line(&mut out, &h);
    for (i, g) in report.gates.iter().enumerate() {
        let mut f = vec![
            g.repo.clone(),
            g.path.clone(),
            g.line.map(|l| l.to_string()).unwrap_or_default(),
            g.commit.clone().unwrap_or_default(),
            g.language.to_string(),
            g.layer.as_str().to_string(),
            g.kind.as_str().to_string(),
            g.effect.as_str().to_string(),
            g.alternative.to_string(),
            g.patterns
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            g.covers.join(","),
            g.function.clone().unwrap_or_default(),
            g.guards.clone().unwrap_or_default(),
            g.text.clone(),
            g.evidence.class.as_str().to_string(),
        ];
        if let Some(p) = prov {
            let p = p.get(i).and_then(|x| x.as_ref());
            f.extend(prov_fields(p));
        }
        tsv_line(&mut out, &f);
    }
    out
}

fn prov_fields(p: Option<&LineProvenance>) -> Vec<String> {
    let intro = p.and_then(|p| p.introduced.as_ref());
    let last = p.and_then(|p| p.last.as_ref());
    vec![
        intro
            .map(|c| c.hash.clone())
            .unwrap_or_else(|| p.and_then(|p| p.truncated.clone()).unwrap_or_default()),
        intro.map(|c| c.date.clone()).unwrap_or_default(),
        intro
            .map(|c| format!("{} <{}>", c.author, c.email))
            .unwrap_or_default(),
        intro
            .and_then(|c| c.pr)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        last.map(|c| c.hash.clone()).unwrap_or_default(),
        last.map(|c| c.date.clone()).unwrap_or_default(),
        p.and_then(|p| p.untouched_days)
            .map(|d| d.to_string())
            .unwrap_or_default(),
        p.map(|p| {
            p.references
                .iter()
                .map(|r| format!("{} ({})", r.text, r.access))
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default(),
    ]
}

/// TSV of one target's rows.
pub fn target_tsv(rows: &[TargetRow], report: &Report) -> String {
    let mut out = String::new();
    tsv_line(
        &mut out,
        &[
            "arch", "layer", "verdict", "named", "kind", "what", "function", "guards", "at",
            "class",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>(),
    );
    for r in rows {
        let what_s = report.gates.get(r.gate).map(what).unwrap_or_default();
        tsv_line(
            &mut out,
            &[
                r.arch.clone(),
                r.layer.as_str().to_string(),
                r.verdict.as_str().to_string(),
                r.named.to_string(),
                r.kind.as_str().to_string(),
                what_s,
                r.function.clone().unwrap_or_default(),
                r.guards.clone().unwrap_or_default(),
                r.at.clone(),
                r.evidence.class.as_str().to_string(),
            ],
        );
    }
    out
}

/// Provenance of lines, one block per line.
pub fn provenance(lines: &[LineProvenance]) -> String {
    let mut out = String::new();
    for p in lines {
        let _ = writeln!(out, "{}:{}  {}", p.path, p.line, p.text);
        if let Some(t) = &p.truncated {
            let _ = writeln!(out, "  unresolved: {t}");
        }
        if let Some(e) = &p.error {
            let _ = writeln!(out, "  unresolved: {e}");
        }
        for (label, c) in [
            ("introduced", p.introduced.as_ref()),
            ("last", p.last.as_ref()),
        ] {
            if let Some(c) = c {
                let _ = writeln!(
                    out,
                    "  {label:<12}{} {} {} <{}>{}  {}{}",
                    short(&c.hash),
                    c.date,
                    c.author,
                    c.email,
                    c.affiliation
                        .as_deref()
                        .map(|a| format!(" ({a})"))
                        .unwrap_or_default(),
                    c.subject,
                    if c.path != p.path {
                        format!("  [then {}:{}]", c.path, c.line)
                    } else {
                        String::new()
                    }
                );
            }
        }
        for c in &p.rewrites {
            let _ = writeln!(
                out,
                "  rewritten   {} {} {}  {}",
                short(&c.hash),
                c.date.get(..10).unwrap_or(""),
                c.author,
                c.subject
            );
        }
        if let Some(d) = p.untouched_days {
            let _ = writeln!(out, "  untouched   {d} days at the newest commit");
        }
        for r in &p.references {
            let _ = writeln!(
                out,
                "  reference   {} ({}, {}, {})",
                r.text, r.kind, r.found_in, r.access
            );
        }
        for (name, r) in [
            ("insertion", &p.roles.insertion),
            ("maintenance", &p.roles.maintenance),
            ("operational", &p.roles.operational),
            ("repair", &p.roles.repair_capable),
        ] {
            let who = r.who.as_deref().unwrap_or("");
            let _ = writeln!(
                out,
                "  {name:<12}{}{}{}",
                r.status,
                if who.is_empty() {
                    String::new()
                } else {
                    format!(": {who}")
                },
                format_args!(" — {}", r.basis)
            );
        }
        let _ = writeln!(
            out,
            "  evidence    {} / {} ({})",
            p.evidence.class, p.evidence.kind, p.evidence.rule
        );
    }
    out
}

/// TSV of provenance lines.
pub fn provenance_tsv(lines: &[LineProvenance]) -> String {
    let mut out = String::new();
    tsv_line(
        &mut out,
        &[
            "path",
            "line",
            "text",
            "introduced",
            "introduced_date",
            "introduced_author",
            "pr",
            "last",
            "last_date",
            "untouched_days",
            "references",
            "class",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>(),
    );
    for p in lines {
        let mut f = vec![p.path.clone(), p.line.to_string(), p.text.clone()];
        f.extend(prov_fields(Some(p)));
        f.push(p.evidence.class.as_str().to_string());
        tsv_line(&mut out, &f);
    }
    out
}

/// A timeline: per tag counts, then each item's changes.
pub fn timeline(t: &Timeline) -> String {
    let mut out = format!("{} over tags {}\n", t.arch, t.tags_pattern);
    let mut tt = table(&[
        "tag",
        "date",
        "present",
        "includes",
        "added",
        "retreated",
        "removed",
    ]);
    for r in &t.tags {
        tt.add_row(vec![
            r.tag.clone(),
            r.date.get(..10).unwrap_or(&r.date).to_string(),
            r.present.to_string(),
            r.includes.to_string(),
            r.added.to_string(),
            r.retreated.to_string(),
            r.removed.to_string(),
        ]);
    }
    out.push_str(&tt.to_string());
    out.push_str("\n\n");
    let mut it = table(&["layer", "item", "changes", "now"]);
    for i in &t.items {
        let changes: Vec<String> = i
            .events
            .iter()
            .map(|e| {
                format!(
                    "{} {}{}",
                    e.tag,
                    match e.status {
                        rocpath_provenance::timeline::Status::Added => "added",
                        rocpath_provenance::timeline::Status::Kept => "kept",
                        rocpath_provenance::timeline::Status::Retreated => "retreated",
                        rocpath_provenance::timeline::Status::Removed => "removed",
                    },
                    e.verdict
                        .map(|v| format!(" ({})", v.as_str()))
                        .unwrap_or_default()
                )
            })
            .collect();
        it.add_row(vec![
            i.layer.as_str().to_string(),
            format!(
                "{} {}{}",
                i.kind.as_str(),
                i.path,
                i.function
                    .as_deref()
                    .map(|f| format!(" {f}"))
                    .unwrap_or_default()
            ),
            changes.join("\n"),
            if i.present {
                "present".into()
            } else {
                "gone".into()
            },
        ]);
    }
    out.push_str(&it.to_string());
    out.push('\n');
    out
}
