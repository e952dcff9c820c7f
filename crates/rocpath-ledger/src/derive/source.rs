//! Rules over source code and its history: which processors a checkout's gates cover
//! (`gates`), how they read for one processor (`gates --arch`), who added a gate and when
//! (`provenance`, `gates --blame`), and where a followed value ends up (`follow`).

use super::digest::{Doc, ObsDigest};
use super::text::num;
use super::{Finding, record_support, rule};
use crate::model::*;
use rocpath_docs::follow::{FollowDoc, Hop, HopEvidence};
use rocpath_docs::gates::{Gate, GatesDoc, Layer, Verdict};
use rocpath_docs::provenance::{LineProvenance, ProvenanceDoc};
use rocpath_evidence::{Class, Proof};
use std::collections::{BTreeMap, BTreeSet};

/// Supports written per claim at most; the counts keep the whole number.
pub const MAX_SUPPORT: usize = 100;

fn finding(
    rule: &'static str,
    key: String,
    statement: Text,
    class: Class,
    kind: Proof,
    world: String,
    support: Vec<Support>,
) -> Finding {
    Finding {
        rule,
        key,
        statement,
        class,
        kind,
        world,
        floor: Some(Floor::MathLibrary),
        layer: None,
        selection: None,
        agree: 0,
        of: 0,
        exceptions: Vec::new(),
        support,
        cases: Vec::new(),
    }
}

fn supports(obs: &str, pointers: impl Iterator<Item = String>) -> Vec<Support> {
    pointers
        .take(MAX_SUPPORT)
        .map(|p| record_support(obs, &p, Text::default()))
        .collect()
}

/// A quoted source line, cut at 100 characters.
fn quote(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// `A, B, C (+N)`.
fn listed(names: &BTreeSet<&str>, most: usize) -> String {
    let shown: Vec<&str> = names.iter().copied().take(most).collect();
    let more = names.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} (+{more})", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Per checkout and processor: the gates that cover it.
fn gate_targets(o: &ObsDigest, d: &GatesDoc) -> Vec<Finding> {
    let commit: BTreeMap<&str, &str> = d
        .repos
        .iter()
        .map(|r| (r.name.as_str(), r.commit.as_deref().unwrap_or_default()))
        .collect();
    let mut per: BTreeMap<(&str, &str), Vec<(usize, &Gate)>> = BTreeMap::new();
    for (i, g) in d.gates.iter().map(|g| &g.gate).enumerate() {
        for p in &g.covers {
            if !p.as_str().is_empty() {
                per.entry((g.repo.as_str(), p.as_str()))
                    .or_default()
                    .push((i, g));
            }
        }
    }
    per.into_iter()
        .map(|((repo, proc_), gates)| {
            let n = gates.len() as u64;
            let build = gates.iter().filter(|(_, g)| g.layer == Layer::Build).count() as u64;
            let guards: BTreeSet<&str> = gates
                .iter()
                .filter_map(|(_, g)| g.guards.as_deref())
                .filter(|s| !s.is_empty())
                .collect();
            let all_confirmed = gates
                .iter()
                .all(|(_, g)| g.evidence.class == Class::Confirmed);
            let at = commit.get(repo).map_or(String::new(), |c| {
                c.get(..12).unwrap_or(c).to_string()
            });
            let (at_ja, at_en) = if at.is_empty() {
                (String::new(), String::new())
            } else {
                (format!("({at})"), format!(" (at {at})"))
            };
            let mut f = finding(
                rule::GATES_TARGET,
                format!("{}|{repo}|{proc_}", o.id),
                Text::new(
                    format!(
                        "{repo}{at_ja} のソースは {proc_} を {} 箇所のゲートで判定している(ビルド {}、選択 {}):{}。",
                        num(n),
                        num(build),
                        num(n - build),
                        listed(&guards, 5)
                    ),
                    format!(
                        "{repo}'s source{at_en} gates on {proc_} in {} places ({} build, {} selection): {}.",
                        num(n),
                        num(build),
                        num(n - build),
                        listed(&guards, 5)
                    ),
                ),
                if all_confirmed {
                    Class::Confirmed
                } else {
                    Class::Inferred
                },
                Proof::CodeVerified,
                proc_.to_string(),
                supports(&o.id, gates.iter().map(|(i, _)| format!("/gates/{i}"))),
            );
            f.agree = n;
            f.of = n;
            f
        })
        .collect()
}

/// Per `--arch` table and checkout: how many gates include, exclude or fall back.
fn gate_tables(o: &ObsDigest, d: &GatesDoc) -> Vec<Finding> {
    let mut out = Vec::new();
    for (t, table) in d.targets.iter().enumerate() {
        let arch = table.arch.as_str();
        let mut per: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (r, row) in table.rows.iter().enumerate() {
            per.entry(row.repo.as_str()).or_default().push(r);
        }
        for (repo, rows) in per {
            let count =
                |v: Verdict| rows.iter().filter(|&&r| table.rows[r].verdict == v).count() as u64;
            let (inc, exc, fb) = (
                count(Verdict::Includes),
                count(Verdict::Excludes),
                count(Verdict::FallsBack),
            );
            let named = rows.iter().filter(|&&r| table.rows[r].named).count() as u64;
            // Rows that name the processor first: they are the ones a reader checks.
            let mut order = rows.clone();
            order.sort_by_key(|&r| !table.rows[r].named);
            let mut f = finding(
                rule::GATES_TABLE,
                format!("{}|{repo}|{arch}", o.id),
                Text::new(
                    format!(
                        "{arch} について {repo} のゲート {} 個のうち {} 個が含め、{} 個が除外し、{} 個が汎用の経路に落とす(名指しは {} 個)。",
                        num(rows.len() as u64),
                        num(inc),
                        num(exc),
                        num(fb),
                        num(named)
                    ),
                    format!(
                        "For {arch}, of {} gates of {repo}, {} include it, {} keep it out and {} fall back to a generic path ({} name it).",
                        num(rows.len() as u64),
                        num(inc),
                        num(exc),
                        num(fb),
                        num(named)
                    ),
                ),
                Class::Inferred,
                Proof::CodeVerified,
                crate::schemas::processor_of(arch),
                supports(
                    &o.id,
                    order.iter().map(|r| format!("/targets/{t}/rows/{r}")),
                ),
            );
            f.agree = inc;
            f.of = rows.len() as u64;
            out.push(f);
        }
    }
    out
}

/// Who added the gate on one line, and when; unresolved when the history does not say.
fn provenance(
    o: &ObsDigest,
    repo: &str,
    l: &LineProvenance,
    pointer: String,
    world: String,
) -> Finding {
    let at = format!("{}:{}", l.path, l.line);
    let text = quote(l.text.as_str());
    let (statement, default) = match &l.introduced {
        Some(c) => {
            let hash = c.hash.as_str().get(..12).unwrap_or(c.hash.as_str());
            let date = c.date.as_str().get(..10).unwrap_or(c.date.as_str());
            let who = match c.affiliation.as_deref().unwrap_or_default() {
                "" => c.author.clone(),
                a => format!("{} ({a})", c.author),
            };
            let subject = quote(c.subject.as_str());
            (
                Text::new(
                    format!(
                        "{repo}: {at} のゲート `{text}` は {who} が {date} にコミット {hash}「{subject}」で追加した(その後の書き換え {} 回)。",
                        num(l.rewrites.len() as u64)
                    ),
                    format!(
                        "{repo}: the gate at {at} (`{text}`) was added by {who} on {date} in {hash} \"{subject}\" ({} rewrites since).",
                        num(l.rewrites.len() as u64)
                    ),
                ),
                Class::Confirmed,
            )
        }
        None => {
            let why = [l.truncated.as_deref(), l.error.as_deref()]
                .into_iter()
                .flatten()
                .find(|s| !s.is_empty())
                .unwrap_or("no history");
            (
                Text::new(
                    format!("{repo}: {at} のゲート `{text}` を誰がいつ追加したかは未解決:{why}。"),
                    format!(
                        "{repo}: who added the gate at {at} (`{text}`), and when, is open: {why}."
                    ),
                ),
                Class::Unresolved,
            )
        }
    };
    let class = if l.introduced.is_some() {
        l.evidence.class
    } else {
        default
    };
    finding(
        rule::PROVENANCE_GATE,
        format!("{}|{at}", o.id),
        statement,
        class,
        Proof::HistoryVerified,
        world,
        supports(&o.id, std::iter::once(pointer)),
    )
}

fn repo_name(given: &str) -> &str {
    let g = given.trim_end_matches(['/', '\\']);
    g.rsplit(['/', '\\']).next().unwrap_or(g)
}

/// Provenance documents, and the gates of a `--blame` scan that cover the observation's world.
fn provenances(o: &ObsDigest) -> Vec<Finding> {
    match &o.doc {
        Doc::Provenance(ProvenanceDoc { repo, lines }) => lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                provenance(
                    o,
                    repo_name(repo.as_str()),
                    l,
                    format!("/lines/{i}"),
                    o.world.clone(),
                )
            })
            .collect(),
        Doc::Gates(d) if !o.world.is_empty() => d
            .gates
            .iter()
            .enumerate()
            .filter(|(_, g)| {
                let world = crate::schemas::processor_of(&o.world);
                g.gate.covers.contains(&world)
            })
            .filter_map(|(i, g)| {
                let l = g.provenance.as_ref()?;
                Some(provenance(
                    o,
                    g.gate.repo.as_str(),
                    l,
                    format!("/gates/{i}/provenance"),
                    o.world.clone(),
                ))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A hop of a trail with its JSON pointer and the hops from the start to it.
struct Walked<'a> {
    hop: &'a Hop,
    pointer: String,
    chain: Vec<&'a Hop>,
    all_verified: bool,
}

/// The observation (a trail's hops are not records) and the source line of each hop, in
/// the repository it was read in.
fn hop_supports(o: &ObsDigest, d: &FollowDoc, hops: &[&Hop]) -> Vec<Support> {
    let repos: Vec<(String, String)> = d
        .repos
        .iter()
        .map(|r| (r.name.clone(), r.root.clone()))
        .collect();
    let mut v = vec![record_support(&o.id, "", Text::default())];
    for h in hops.iter().filter(|h| !h.path.is_empty()).take(MAX_SUPPORT) {
        let mut l = rocpath_evidence::Locator::file(crate::follow::input_of(&repos, &h.path));
        l.line = Some(h.line);
        v.push(Support {
            source: Some(l),
            ..Support::default()
        });
    }
    v
}

fn walk(d: &FollowDoc) -> Vec<Walked<'_>> {
    let mut out = Vec::new();
    let mut stack: Vec<(&Hop, String, Vec<&Hop>, bool)> = d
        .hops
        .iter()
        .enumerate()
        .rev()
        .map(|(i, h)| (h, format!("/hops/{i}"), Vec::new(), true))
        .collect();
    while let Some((hop, pointer, mut chain, verified)) = stack.pop() {
        chain.push(hop);
        let verified = verified && hop.evidence == HopEvidence::CodeVerified;
        for (j, c) in hop.children.iter().enumerate().rev() {
            stack.push((
                c,
                format!("{pointer}/children/{j}"),
                chain.clone(),
                verified,
            ));
        }
        out.push(Walked {
            hop,
            pointer,
            chain,
            all_verified: verified,
        });
    }
    out
}

/// A trail's end points (hops without a next hop that are not unresolved) and its
/// unresolved hops (open questions), plus a cut trail.
fn follow(o: &ObsDigest, d: &FollowDoc) -> Vec<Finding> {
    let spec = d.spec.as_str();
    let mut out = Vec::new();
    for w in walk(d) {
        let h = w.hop;
        let at = format!("{}:{}", h.path, h.line);
        let symbol = quote(&h.symbol);
        let hops = (w.chain.len() - 1) as u64;
        if h.evidence == HopEvidence::Unresolved {
            let note = match h.note.as_deref() {
                None | Some("") => "the next hop is not in the code read",
                Some(n) => n,
            };
            out.push(finding(
                rule::FOLLOW_BOUNDARY,
                format!("{}|{}", o.id, w.pointer),
                Text::new(
                    format!(
                        "{spec} の追跡は {at}(`{symbol}`)で {} ホップ後に止まる:{note}。",
                        num(hops)
                    ),
                    format!(
                        "The trail of {spec} stops at {at} (`{symbol}`) after {} hops: {note}.",
                        num(hops)
                    ),
                ),
                Class::Unresolved,
                Proof::CodeVerified,
                o.world.clone(),
                hop_supports(o, d, &[h]),
            ));
        } else if h.children.is_empty() && hops > 0 {
            // An end (a start with no next hop says nothing about where the value goes).
            let mut f = finding(
                rule::FOLLOW_END,
                format!("{}|{}", o.id, w.pointer),
                Text::new(
                    format!(
                        "{spec} は {} ホップで {at}(`{symbol}`、{})に届く。",
                        num(hops),
                        h.kind.as_str()
                    ),
                    format!(
                        "{spec} reaches {at} (`{symbol}`, {}) through {} hops.",
                        h.kind.as_str(),
                        num(hops)
                    ),
                ),
                if w.all_verified {
                    Class::Confirmed
                } else {
                    Class::Inferred
                },
                Proof::CodeVerified,
                o.world.clone(),
                hop_supports(o, d, &w.chain),
            );
            f.agree = hops;
            f.of = hops;
            out.push(f);
        }
    }
    if d.truncated {
        let why = d.notes.first().map_or("a limit", |n| n.as_str());
        out.push(finding(
            rule::FOLLOW_BOUNDARY,
            format!("{}|truncated", o.id),
            Text::new(
                format!("{spec} の追跡は上限で打ち切られた:{why}。"),
                format!("The trail of {spec} was cut short: {why}."),
            ),
            Class::Unresolved,
            Proof::CodeVerified,
            o.world.clone(),
            hop_supports(o, d, &[]),
        ));
    }
    out
}

/// The source and history rules.
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    let mut out = Vec::new();
    for o in obs {
        match &o.doc {
            Doc::Gates(d) => {
                out.extend(gate_targets(o, d));
                out.extend(gate_tables(o, d));
            }
            Doc::Follow(d) => out.extend(follow(o, d)),
            _ => {}
        }
        out.extend(provenances(o));
    }
    out
}
