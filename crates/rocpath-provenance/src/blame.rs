//! Batched blame: one libgit2 blame per file covering all the asked lines (files in
//! parallel), following renames; then, per line, back through the commits that rewrote it
//! while keeping its gate (the key tokens) to the commit that introduced it.

use crate::refs::{self, Reference};
use git2::{BlameOptions, DiffOptions, Oid, Patch, Repository};
use rayon::prelude::*;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// One line to trace.
#[derive(Debug, Clone)]
pub struct Query {
    /// Path relative to the repository root at the newest commit.
    pub path: String,
    /// 1-based line at the newest commit.
    pub line: u64,
    /// Tokens that make the line a gate (`gfx900`, `IsXdlopsSupport`); a rewrite of the line
    /// that keeps one of them is followed back. Empty: the trimmed line text is the key.
    pub keys: Vec<String>,
    /// References found in the code comment next to the line.
    pub comment_refs: Vec<String>,
}

/// A commit as provenance reports it.
#[derive(Debug, Clone, Serialize)]
pub struct Commit {
    /// Full hash.
    pub hash: String,
    /// Author name.
    pub author: String,
    /// Author e-mail.
    pub email: String,
    /// Organisation by e-mail domain (`AMD` for amd.com), when the domain says one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affiliation: Option<String>,
    /// Author date, `YYYY-MM-DDTHH:MM:SS±HH:MM`.
    pub date: String,
    /// Author time, seconds since the epoch.
    pub time: i64,
    /// First line of the message.
    pub subject: String,
    /// PR number from the subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pr: Option<u64>,
    /// Path of the file in this commit.
    pub path: String,
    /// Line in this commit's version of the file.
    pub line: u64,
}

/// One ownership role of the research (insertion / maintenance / operational /
/// repair-capable).
#[derive(Debug, Clone, Serialize)]
pub struct Role {
    /// `name <email>`, when the history shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub who: Option<String>,
    /// Organisation by e-mail domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affiliation: Option<String>,
    /// `history_verified` when filled from history, else `unresolved`.
    pub status: &'static str,
    /// Why.
    pub basis: String,
}

/// The four roles.
#[derive(Debug, Clone, Serialize)]
pub struct Roles {
    /// Who put the gate there.
    pub insertion: Role,
    /// Who kept changing it afterwards.
    pub maintenance: Role,
    /// Who runs the path and shares workarounds (not in git history).
    pub operational: Role,
    /// Who can realistically fix the layer (not in git history).
    pub repair_capable: Role,
}

/// Provenance of one line.
#[derive(Debug, Clone, Serialize)]
pub struct LineProvenance {
    /// Path at the newest commit.
    pub path: String,
    /// Line at the newest commit.
    pub line: u64,
    /// The line's text at the newest commit.
    pub text: String,
    /// The commit that last touched the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<Commit>,
    /// The commit that introduced the gate on this line (the same as `last` when no later
    /// commit rewrote it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub introduced: Option<Commit>,
    /// Commits between them that rewrote the line and kept the gate, newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rewrites: Vec<Commit>,
    /// Days between the last touch and the newest commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub untouched_days: Option<i64>,
    /// References in the commit messages and the code comment.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    /// Ownership roles.
    pub roles: Roles,
    /// `history truncated at <commit>` for a shallow clone whose boundary hides the origin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
    /// What went wrong for this line, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `confirmed`/`history_verified` when traced; `unresolved` when truncated or failed.
    pub evidence: Evidence,
}

/// Options.
#[derive(Debug, Clone)]
pub struct Options {
    /// The newest commit (`HEAD` when empty).
    pub rev: String,
    /// How many rewrites to follow back per line.
    pub max_hops: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rev: "HEAD".into(),
            max_hops: 12,
        }
    }
}

/// Whole-repository failures.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Not a repository, or a broken one.
    #[error("{path}: cannot open as a git repository: {msg}")]
    Open {
        /// Path.
        path: String,
        /// libgit2's message.
        msg: String,
    },
    /// The revision does not resolve to a commit.
    #[error("{path}: {rev} does not name a commit: {msg}")]
    Rev {
        /// Path.
        path: String,
        /// Revision.
        rev: String,
        /// libgit2's message.
        msg: String,
    },
}

/// The commits a shallow clone was cut at (`.git/shallow`).
pub fn shallow_boundaries(repo: &Repository) -> HashSet<Oid> {
    std::fs::read_to_string(repo.path().join("shallow"))
        .map(|t| {
            t.lines()
                .filter_map(|l| Oid::from_str(l.trim()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Opens the repository at `path` (a checkout or a bare repository).
pub fn open(path: &Path) -> Result<Repository, Error> {
    // Objects are read, not checked against their hash on every load (as git itself does);
    // a damaged pack still fails to inflate. Hashing every object read made blame several
    // times slower.
    git2::opts::strict_hash_verification(false);
    Repository::open(path).map_err(|e| Error::Open {
        path: path.display().to_string(),
        msg: e.message().to_string(),
    })
}

fn commit_info(repo: &Repository, oid: Oid, path: &str, line: u64) -> Option<Commit> {
    let c = repo.find_commit(oid).ok()?;
    let a = c.author();
    let t = a.when();
    let subject = c.summary().unwrap_or("").to_string();
    Some(Commit {
        hash: oid.to_string(),
        author: a.name().unwrap_or("").to_string(),
        email: a.email().unwrap_or("").to_string(),
        affiliation: refs::affiliation(a.email().unwrap_or("")),
        date: iso_date(t.seconds(), t.offset_minutes()),
        time: t.seconds(),
        pr: refs::pr_number(&subject),
        subject,
        path: path.to_string(),
        line,
    })
}

/// `YYYY-MM-DDTHH:MM:SS±HH:MM` from seconds and an offset in minutes.
pub fn iso_date(secs: i64, offset_min: i32) -> String {
    let local = secs + i64::from(offset_min) * 60;
    let days = local.div_euclid(86_400);
    let rem = local.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    let sign = if offset_min < 0 { '-' } else { '+' };
    let o = offset_min.abs();
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        o / 60,
        o % 60
    )
}

/// Where one line was last changed: commit, its path and line there, and whether the
/// blame stopped at a boundary (shallow clone).
struct Origin {
    commit: Oid,
    path: String,
    line: u64,
    boundary: bool,
}

fn blame_range(
    repo: &Repository,
    newest: Oid,
    path: &str,
    lines: &[u64],
) -> Result<Vec<Option<Origin>>, git2::Error> {
    // Lines past the end of the file at `newest` have no origin.
    let count = repo
        .find_commit(newest)
        .and_then(|c| c.tree())
        .and_then(|t| t.get_path(Path::new(path)))
        .and_then(|e| repo.find_blob(e.id()))
        .map(|b| {
            let c = b.content();
            let n = memchr::memchr_iter(b'\n', c).count() as u64;
            if c.last().is_some_and(|&x| x != b'\n') {
                n + 1
            } else {
                n
            }
        })?;
    let valid: Vec<u64> = lines
        .iter()
        .copied()
        .filter(|&l| l >= 1 && l <= count)
        .collect();
    if valid.is_empty() {
        return Ok(lines.iter().map(|_| None).collect());
    }
    let min = valid.iter().copied().min().unwrap_or(1);
    let max = valid.iter().copied().max().unwrap_or(1).max(min);
    let mut o = BlameOptions::new();
    o.newest_commit(newest)
        .min_line(min as usize)
        .max_line(max as usize);
    let blame = repo.blame_file(Path::new(path), Some(&mut o))?;
    Ok(lines
        .iter()
        .map(|&l| {
            if l < 1 || l > count {
                return None;
            }
            let h = blame.get_line(l as usize)?;
            let orig_line = h.orig_start_line() as u64 + (l - h.final_start_line() as u64);
            Some(Origin {
                commit: h.final_commit_id(),
                path: h
                    .path()
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_else(|| path.to_string()),
                line: orig_line,
                boundary: h.is_boundary(),
            })
        })
        .collect())
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// In commit `c`, the line `line` of `path` was added. If the same diff removed a line that
/// carried one of `keys`, returns the parent, the old path and the old line.
fn rewritten_from(
    repo: &Repository,
    c: &git2::Commit,
    path: &str,
    line: u64,
    keys: &[String],
    text: &str,
) -> Option<(Oid, String, u64)> {
    let parent = c.parent(0).ok()?;
    let new_tree = c.tree().ok()?;
    let old_tree = parent.tree().ok()?;
    let mut opts = DiffOptions::new();
    opts.pathspec(path).context_lines(0);
    let diff = repo
        .diff_tree_to_tree(Some(&old_tree), Some(&new_tree), Some(&mut opts))
        .ok()?;
    let mut old_path = path.to_string();
    let mut diff = diff;
    let added_file = diff
        .deltas()
        .next()
        .is_some_and(|d| d.status() == git2::Delta::Added);
    if added_file {
        // Moved in this commit? Look for the rename across the whole tree.
        let mut full = repo
            .diff_tree_to_tree(Some(&old_tree), Some(&new_tree), None)
            .ok()?;
        let mut fo = git2::DiffFindOptions::new();
        fo.renames(true).copies(false);
        full.find_similar(Some(&mut fo)).ok()?;
        let idx = full
            .deltas()
            .position(|d| d.new_file().path().is_some_and(|p| p == Path::new(path)))?;
        let d = full.get_delta(idx)?;
        if d.status() != git2::Delta::Renamed {
            return None;
        }
        old_path = d.old_file().path()?.to_string_lossy().into_owned();
        diff = full;
        let patch = Patch::from_diff(&diff, idx).ok()??;
        return removed_match(&patch, line, keys, text).map(|l| (parent.id(), old_path, l));
    }
    let patch = Patch::from_diff(&diff, 0).ok()??;
    removed_match(&patch, line, keys, text).map(|l| (parent.id(), old_path, l))
}

fn removed_match(patch: &Patch, line: u64, keys: &[String], text: &str) -> Option<u64> {
    let want = norm(text);
    for h in 0..patch.num_hunks() {
        let (hunk, n) = patch.hunk(h).ok()?;
        let ns = u64::from(hunk.new_start());
        let nl = u64::from(hunk.new_lines());
        if !(ns <= line && line < ns + nl.max(1)) {
            continue;
        }
        // Candidates: removed lines with a key (or the same text), nearest in position.
        let mut best: Option<(u64, u64)> = None;
        let rel = line - ns;
        let mut k_old = 0u64;
        for i in 0..n {
            let l = patch.line_in_hunk(h, i).ok()?;
            if l.origin() != '-' {
                continue;
            }
            let Some(old) = l.old_lineno() else { continue };
            let content = String::from_utf8_lossy(l.content()).into_owned();
            let hit = if keys.is_empty() {
                norm(&content) == want
            } else {
                norm(&content) == want || keys.iter().any(|k| content.contains(k.as_str()))
            };
            if hit {
                let dist = rel.abs_diff(k_old);
                if best.is_none_or(|(d, _)| dist < d) {
                    best = Some((dist, u64::from(old)));
                }
            }
            k_old += 1;
        }
        return best.map(|(_, l)| l);
    }
    None
}

fn file_line(repo: &Repository, commit: Oid, path: &str, line: u64) -> String {
    let text = (|| {
        let c = repo.find_commit(commit).ok()?;
        let entry = c.tree().ok()?.get_path(Path::new(path)).ok()?;
        let blob = repo.find_blob(entry.id()).ok()?;
        let content = blob.content();
        let l = content
            .split(|&b| b == b'\n')
            .nth(line.checked_sub(1)? as usize)?;
        Some(String::from_utf8_lossy(l).trim().to_string())
    })();
    text.unwrap_or_default()
}

fn unresolved_role(basis: &str) -> Role {
    Role {
        who: None,
        affiliation: None,
        status: "unresolved",
        basis: basis.to_string(),
    }
}

const OPERATIONAL: &str =
    "who runs this path and shares workarounds is not recorded in git history";
const REPAIR: &str = "git history shows who changed the line, not who can fix the layer";

fn roles(intro: Option<&Commit>, last: Option<&Commit>, days: Option<i64>) -> Roles {
    let who = |c: &Commit| format!("{} <{}>", c.author, c.email);
    let short = |c: &Commit| c.hash.get(..12).unwrap_or(&c.hash).to_string();
    let insertion = match intro {
        Some(c) => Role {
            who: Some(who(c)),
            affiliation: c.affiliation.clone(),
            status: "history_verified",
            basis: format!(
                "author of {} (the commit that introduced the gate)",
                short(c)
            ),
        },
        None => unresolved_role("the introducing commit is not in the available history"),
    };
    let maintenance = match (intro, last) {
        (Some(i), Some(l)) if i.hash != l.hash => Role {
            who: Some(who(l)),
            affiliation: l.affiliation.clone(),
            status: "history_verified",
            basis: format!(
                "last changed the line in {} while keeping the gate",
                short(l)
            ),
        },
        (Some(_), Some(_)) => unresolved_role(&format!(
            "no commit changed the line after it was introduced{}: the history names no maintainer",
            days.map(|d| format!(" ({d} days untouched at the newest commit)"))
                .unwrap_or_default()
        )),
        _ => unresolved_role("the line's history is not available"),
    };
    Roles {
        insertion,
        maintenance,
        operational: unresolved_role(OPERATIONAL),
        repair_capable: unresolved_role(REPAIR),
    }
}

fn message_refs(repo: &Repository, c: &Commit, out: &mut Vec<Reference>) {
    let Some(msg) = Oid::from_str(&c.hash)
        .ok()
        .and_then(|o| repo.find_commit(o).ok())
        .and_then(|k| k.message().map(str::to_string))
    else {
        return;
    };
    let (subject, body) = msg.split_once('\n').unwrap_or((msg.as_str(), ""));
    for r in refs::extract(subject, "subject")
        .into_iter()
        .chain(refs::extract(body, "message"))
    {
        // The subject's own `(#N)` is the PR, not an issue.
        if r.found_in == "subject" && c.pr.is_some_and(|p| r.text == format!("#{p}")) {
            continue;
        }
        if !out.iter().any(|o| o.text == r.text) {
            out.push(r);
        }
    }
}

/// Traces lines. Files are blamed once each, in parallel; a file that cannot be blamed
/// gives its lines an error and the rest go on.
pub fn trace(
    repo_path: &Path,
    queries: &[Query],
    opts: &Options,
) -> Result<Vec<LineProvenance>, Error> {
    let repo = open(repo_path)?;
    let newest = repo
        .revparse_single(&opts.rev)
        .and_then(|o| o.peel_to_commit())
        .map_err(|e| Error::Rev {
            path: repo_path.display().to_string(),
            rev: opts.rev.clone(),
            msg: e.message().to_string(),
        })?;
    let newest_id = newest.id();
    let newest_time = newest.time().seconds();
    let shallow = shallow_boundaries(&repo);
    drop(newest);
    drop(repo);
    let mut by_file: BTreeMap<&str, Vec<&Query>> = BTreeMap::new();
    for q in queries {
        by_file.entry(q.path.as_str()).or_default().push(q);
    }
    let groups: Vec<(&str, Vec<&Query>)> = by_file.into_iter().collect();
    let root: PathBuf = repo_path.to_path_buf();
    let mut out: Vec<LineProvenance> = groups
        .par_iter()
        .map_init(
            || Repository::open(&root).ok(),
            |repo, (path, qs)| match repo {
                Some(r) => trace_file(r, newest_id, newest_time, &shallow, path, qs, opts),
                None => qs
                    .iter()
                    .map(|q| failed(q, "cannot reopen the repository".into()))
                    .collect(),
            },
        )
        .flatten()
        .collect();
    let order: BTreeMap<(&str, u64), usize> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| ((q.path.as_str(), q.line), i))
        .collect();
    out.sort_by_key(|p| {
        order
            .get(&(p.path.as_str(), p.line))
            .copied()
            .unwrap_or(usize::MAX)
    });
    Ok(out)
}

fn failed(q: &Query, msg: String) -> LineProvenance {
    LineProvenance {
        path: q.path.clone(),
        line: q.line,
        text: String::new(),
        last: None,
        introduced: None,
        rewrites: Vec::new(),
        untouched_days: None,
        references: Vec::new(),
        roles: roles(None, None, None),
        truncated: None,
        evidence: Evidence::new(
            Class::Unresolved,
            Proof::HistoryVerified,
            "provenance.unavailable",
        )
        .at(Locator::file(q.path.clone()).with_line(q.line))
        .because(msg.clone()),
        error: Some(msg),
    }
}

fn trace_file(
    repo: &Repository,
    newest: Oid,
    newest_time: i64,
    shallow: &HashSet<Oid>,
    path: &str,
    qs: &[&Query],
    opts: &Options,
) -> Vec<LineProvenance> {
    let lines: Vec<u64> = qs.iter().map(|q| q.line).collect();
    let origins = match blame_range(repo, newest, path, &lines) {
        Ok(o) => o,
        Err(e) => {
            return qs
                .iter()
                .map(|q| failed(q, format!("{path}: cannot blame: {}", e.message())))
                .collect();
        }
    };
    qs.iter()
        .zip(origins)
        .map(|(q, o)| match o {
            None => failed(q, format!("{path}: no line {}", q.line)),
            Some(o) => trace_line(repo, newest_time, shallow, q, o, opts),
        })
        .collect()
}

fn is_cut(repo: &Repository, shallow: &HashSet<Oid>, o: Oid) -> bool {
    shallow.contains(&o)
        || (!shallow.is_empty() && repo.find_commit(o).is_ok_and(|c| c.parent_count() == 0))
}

fn trace_line(
    repo: &Repository,
    newest_time: i64,
    shallow: &HashSet<Oid>,
    q: &Query,
    o: Origin,
    opts: &Options,
) -> LineProvenance {
    let text = file_line(repo, o.commit, &o.path, o.line);
    let loc = Locator::file(q.path.clone()).with_line(q.line);
    if o.boundary && is_cut(repo, shallow, o.commit) || shallow.contains(&o.commit) {
        let msg = format!("history truncated at {}", o.commit);
        return LineProvenance {
            path: q.path.clone(),
            line: q.line,
            text,
            last: None,
            introduced: None,
            rewrites: Vec::new(),
            untouched_days: None,
            references: comment_refs(q),
            roles: roles(None, None, None),
            truncated: Some(msg.clone()),
            error: None,
            evidence: Evidence::new(
                Class::Unresolved,
                Proof::HistoryVerified,
                "provenance.history_truncated",
            )
            .at(loc)
            .because(format!(
                "{msg}: the shallow clone hides who last touched and who introduced the line"
            )),
        };
    }
    let last = commit_info(repo, o.commit, &o.path, o.line);
    // Follow rewrites back while the removed line kept the gate.
    let mut rewrites = Vec::new();
    let mut cur = (o.commit, o.path.clone(), o.line, text.clone());
    let mut truncated = None;
    let mut hops_exhausted = true;
    for _ in 0..opts.max_hops {
        let Ok(c) = repo.find_commit(cur.0) else {
            hops_exhausted = false;
            break;
        };
        if c.parent_count() == 0 {
            if is_cut(repo, shallow, cur.0) {
                truncated = Some(format!("history truncated at {}", cur.0));
            }
            hops_exhausted = false;
            break;
        }
        let Some((parent, old_path, old_line)) =
            rewritten_from(repo, &c, &cur.1, cur.2, &q.keys, &cur.3)
        else {
            hops_exhausted = false;
            break;
        };
        match blame_range(repo, parent, &old_path, &[old_line]) {
            Ok(v) => match v.into_iter().next().flatten() {
                Some(next) => {
                    if next.boundary && is_cut(repo, shallow, next.commit) {
                        truncated = Some(format!("history truncated at {}", next.commit));
                        hops_exhausted = false;
                        break;
                    }
                    if let Some(ci) = commit_info(repo, cur.0, &cur.1, cur.2) {
                        rewrites.push(ci);
                    }
                    let t = file_line(repo, next.commit, &next.path, next.line);
                    cur = (next.commit, next.path, next.line, t);
                }
                None => {
                    hops_exhausted = false;
                    break;
                }
            },
            Err(_) => {
                hops_exhausted = false;
                break;
            }
        }
    }
    // The first entry of `rewrites` is `last` itself.
    if !rewrites.is_empty() {
        rewrites.remove(0);
    }
    let introduced = if truncated.is_some() {
        None
    } else {
        commit_info(repo, cur.0, &cur.1, cur.2)
    };
    let days = last
        .as_ref()
        .map(|l| (newest_time - l.time).max(0) / 86_400);
    let mut references = Vec::new();
    for c in introduced.iter().chain(rewrites.iter()).chain(last.iter()) {
        message_refs(repo, c, &mut references);
    }
    for r in comment_refs(q) {
        if !references.iter().any(|o| o.text == r.text) {
            references.push(r);
        }
    }
    let (class, rule, note) = if let Some(t) = &truncated {
        (
            Class::Unresolved,
            "provenance.history_truncated",
            format!(
                "{t}: the line was rewritten before the boundary; its introduction is not in this clone"
            ),
        )
    } else if hops_exhausted {
        (
            Class::Limited,
            "provenance.hop_limit",
            format!(
                "followed {} rewrites; older ones not followed",
                opts.max_hops
            ),
        )
    } else {
        (Class::Confirmed, "provenance.blame", String::new())
    };
    let mut ev = Evidence::new(class, Proof::HistoryVerified, rule).at(loc);
    if !note.is_empty() {
        ev = ev.because(note);
    }
    let r = roles(introduced.as_ref(), last.as_ref(), days);
    LineProvenance {
        path: q.path.clone(),
        line: q.line,
        text,
        last,
        introduced,
        rewrites,
        untouched_days: days,
        references,
        roles: r,
        truncated,
        error: None,
        evidence: ev,
    }
}

fn comment_refs(q: &Query) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::new();
    for t in &q.comment_refs {
        for r in refs::extract(t, "comment") {
            if !out.iter().any(|o| o.text == r.text) {
                out.push(r);
            }
        }
        if !t.starts_with("http") && !t.starts_with('#') && !t.starts_with("SWDEV") {
            // WORKAROUND_… macros and issue mentions are kept as written.
            if !out.iter().any(|o| &o.text == t) {
                out.push(Reference {
                    text: t.clone(),
                    kind: "link",
                    found_in: "comment",
                    access: "unknown",
                });
            }
        }
    }
    out
}
