//! `rocpath follow`: the trail as an indented tree for people, and as Markdown.

use rocpath_follow::{Ends, FollowDoc, Hop};
use std::fmt::Write;

/// Conditions and boundaries listed in the summary before "… N more".
const LISTED: usize = 8;

fn commit7(h: &Hop) -> String {
    h.commit
        .as_deref()
        .map(|c| format!("@{}", &c[..c.len().min(7)]))
        .unwrap_or_default()
}

fn header(doc: &FollowDoc, out: &mut String) {
    let _ = writeln!(out, "follow {}", doc.spec);
    for r in &doc.repos {
        let _ = writeln!(
            out,
            "  in {} ({}, {} source files{})",
            r.name,
            r.commit
                .as_deref()
                .map_or("no commit", |c| &c[..c.len().min(12)]),
            r.files,
            if r.cached { ", index cached" } else { "" }
        );
    }
    let _ = writeln!(
        out,
        "  {} start{}, {} hops",
        doc.hops.len(),
        if doc.hops.len() == 1 { "" } else { "s" },
        doc.hop_count()
    );
}

/// One line of the summary: `#id kind path:line  symbol  evidence`.
fn brief(h: &Hop) -> String {
    format!(
        "#{} {} {}:{}  {}  {}",
        h.id,
        h.kind.as_str(),
        h.path,
        h.line,
        h.symbol,
        h.evidence.as_str()
    )
}

/// Where the value ends, before the tree: the conditions deciding on it, where it leaves
/// the repositories (with the boundary), and why the other branches stop.
fn summary(ends: &Ends, out: &mut String) {
    let stops: Vec<String> = ends
        .stops
        .iter()
        .map(|(s, n)| format!("{n} {}", s.as_str()))
        .collect();
    let _ = writeln!(
        out,
        "\nwhere it ends: {}, {} leaving the repositories{}{}",
        plural(ends.decisions.len(), "condition"),
        ends.boundaries.len(),
        if stops.is_empty() {
            ""
        } else {
            "; other branches: "
        },
        stops.join(", ")
    );
    if !ends.decisions.is_empty() {
        let _ = writeln!(out, "  decides:");
        list(&ends.decisions, out, brief);
    }
    if !ends.boundaries.is_empty() {
        let _ = writeln!(out, "  leaves:");
        list(&ends.boundaries, out, |h| {
            format!("{}\n        {}", brief(h), h.note.as_deref().unwrap_or(""))
        });
    }
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn list(hops: &[&Hop], out: &mut String, line: impl Fn(&Hop) -> String) {
    for h in hops.iter().take(LISTED) {
        let _ = writeln!(out, "    {}", line(h));
    }
    if hops.len() > LISTED {
        let _ = writeln!(out, "    … {} more in the tree", hops.len() - LISTED);
    }
}

/// The trail: a summary of where the value ends, then the tree, one hop per line (`#id kind
/// path:line@commit evidence`), the quoted line under it, notes after `·`.
pub fn trail(doc: &FollowDoc) -> String {
    let mut out = String::new();
    header(doc, &mut out);
    summary(&rocpath_follow::ends(doc), &mut out);
    for root in &doc.hops {
        out.push('\n');
        for (d, h) in root.walk() {
            let pad = "  ".repeat(d);
            let arrow = if d == 0 { "●" } else { "└" };
            let _ = writeln!(
                out,
                "{pad}{arrow} {:<8} {}:{}{}  {}  {}  #{}",
                h.kind.as_str(),
                h.path,
                h.line,
                commit7(h),
                h.symbol,
                h.evidence.as_str(),
                h.id
            );
            let _ = writeln!(out, "{pad}    │ {}", h.text);
            if let Some(n) = &h.note {
                let _ = writeln!(out, "{pad}    · {n}");
            }
        }
    }
    tail(doc, &mut out);
    out
}

fn tail(doc: &FollowDoc, out: &mut String) {
    if !doc.notes.is_empty() || !doc.skipped.is_empty() {
        out.push('\n');
    }
    for n in &doc.notes {
        let _ = writeln!(out, "note: {n}");
    }
    if !doc.skipped.is_empty() {
        let _ = writeln!(out, "{} files skipped:", doc.skipped.len());
        for s in doc.skipped.iter().take(20) {
            let _ = writeln!(out, "  {}: {}", s.path, s.reason);
        }
        if doc.skipped.len() > 20 {
            let _ = writeln!(out, "  … and {} more (see --json)", doc.skipped.len() - 20);
        }
    }
}

/// The summary as Markdown: the conditions and the boundaries, each a list item.
fn md_summary(ends: &Ends, out: &mut String) {
    let _ = writeln!(out, "## Where it ends\n");
    for h in ends.decisions.iter().take(LISTED) {
        let _ = writeln!(
            out,
            "- decides at `{}:{}` — `{}` ({}) #{}",
            md_cell(&h.path),
            h.line,
            md_cell(&h.symbol),
            h.evidence.as_str(),
            h.id
        );
    }
    for h in ends.boundaries.iter().take(LISTED) {
        let _ = writeln!(
            out,
            "- leaves at `{}:{}` — `{}` #{}: {}",
            md_cell(&h.path),
            h.line,
            md_cell(&h.symbol),
            h.id,
            md_cell(h.note.as_deref().unwrap_or(""))
        );
    }
    let more =
        ends.decisions.len().saturating_sub(LISTED) + ends.boundaries.len().saturating_sub(LISTED);
    if more > 0 {
        let _ = writeln!(out, "- … {more} more in the trail");
    }
    if !ends.stops.is_empty() {
        let stops: Vec<String> = ends
            .stops
            .iter()
            .map(|(s, n)| format!("{n} {}", s.as_str()))
            .collect();
        let _ = writeln!(out, "- other branches: {}", stops.join(", "));
    }
    let _ = writeln!(out, "\n## Trail\n");
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('`', "'")
}

/// The trail as Markdown: a numbered list nested like the tree, each hop with its location,
/// kind, evidence and the quoted line.
pub fn markdown(doc: &FollowDoc) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Trail of `{}`\n", md_cell(&doc.spec));
    for r in &doc.repos {
        let _ = writeln!(
            out,
            "- repository `{}` at {}",
            md_cell(&r.name),
            r.commit
                .as_deref()
                .map_or("no commit".to_string(), |c| format!("`{c}`"))
        );
    }
    let _ = writeln!(
        out,
        "- {} start{}, {} hops\n",
        doc.hops.len(),
        if doc.hops.len() == 1 { "" } else { "s" },
        doc.hop_count()
    );
    md_summary(&rocpath_follow::ends(doc), &mut out);
    for root in &doc.hops {
        for (d, h) in root.walk() {
            let pad = "   ".repeat(d);
            let _ = writeln!(
                out,
                "{pad}1. **{}** `{}:{}{}` — `{}` ({}) #{}",
                h.kind.as_str(),
                md_cell(&h.path),
                h.line,
                commit7(h),
                md_cell(&h.symbol),
                h.evidence.as_str(),
                h.id
            );
            let _ = writeln!(out, "{pad}   `{}`", md_cell(&h.text));
            if let Some(n) = &h.note {
                let _ = writeln!(out, "{pad}   <br>*{}*", md_cell(n));
            }
        }
        out.push('\n');
    }
    for n in &doc.notes {
        let _ = writeln!(out, "> {}", md_cell(n));
    }
    if !doc.skipped.is_empty() {
        let _ = writeln!(
            out,
            "\n{} files skipped (see the JSON document).",
            doc.skipped.len()
        );
    }
    out
}
