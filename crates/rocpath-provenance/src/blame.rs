//! Provenance of lines: one history walk ([`crate::walk`]) for all the asked lines of all
//! files, following renames and, per line, the commits that rewrote it while keeping its
//! gate (the key tokens) back to the commit that introduced it; then commit details, PR and
//! issue references, and the ownership roles.

use crate::refs::{self, Reference};
use crate::walk;
use git2::{Oid, Repository};
use rayon::prelude::*;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
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

pub use rocpath_docs::provenance::{Commit, LineProvenance, Role, RoleStatus, Roles};

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
    rocpath_budget::read_small_text(&repo.path().join("shallow"), 64 << 20)
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
    let repo = Repository::open(path).map_err(|e| Error::Open {
        path: path.display().to_string(),
        msg: e.message().to_string(),
    })?;
    // libgit2 never returns from inflating a loose object cut short: such a repository is
    // refused by name before any object is read.
    match rocpath_git::loose::damaged(repo.path()) {
        Some(d) => Err(Error::Open {
            path: path.display().to_string(),
            msg: d.to_string(),
        }),
        None => Ok(repo),
    }
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
        status: RoleStatus::Unresolved,
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
            status: RoleStatus::HistoryVerified,
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
            status: RoleStatus::HistoryVerified,
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
    for r in refs::extract(subject, refs::FoundIn::Subject)
        .into_iter()
        .chain(refs::extract(body, refs::FoundIn::Message))
    {
        // The subject's own `(#N)` is the PR, not an issue.
        if r.found_in == refs::FoundIn::Subject && c.pr.is_some_and(|p| r.text == format!("#{p}")) {
            continue;
        }
        if !out.iter().any(|o| o.text == r.text) {
            out.push(r);
        }
    }
}

/// Traces lines: one history walk (git's blame algorithm) covers every asked line of every
/// file, with the rewrite hops folded in; the files are split into one group per thread,
/// each walked on its own repository handle. A line that cannot be traced gets an error
/// and the rest go on.
pub fn trace(
    repo_path: &Path,
    queries: &[Query],
    opts: &Options,
) -> Result<Vec<LineProvenance>, Error> {
    trace_with(repo_path, queries, opts, &|_| {})
}

/// [`trace`], calling `progress(n)` as `n` more lines are traced (from the worker threads).
pub fn trace_with(
    repo_path: &Path,
    queries: &[Query],
    opts: &Options,
    progress: &(dyn Fn(u64) + Sync),
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
    // Files in groups, one per thread; a file's lines stay in one group.
    let mut by_file: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, q) in queries.iter().enumerate() {
        by_file.entry(q.path.as_str()).or_default().push(i);
    }
    let n = rayon::current_num_threads().clamp(1, by_file.len().max(1));
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, (_, idx)) in by_file.into_iter().enumerate() {
        if let Some(g) = groups.get_mut(k % n) {
            g.extend(idx);
        }
    }
    let root: PathBuf = repo_path.to_path_buf();
    let mut out: Vec<(usize, LineProvenance)> = groups
        .par_iter()
        .flat_map_iter(|g| {
            let done: Vec<(usize, LineProvenance)> = match Repository::open(&root) {
                Err(e) => g
                    .iter()
                    .filter_map(|&i| queries.get(i).map(|q| (i, q)))
                    .map(|(i, q)| {
                        let m = format!("cannot reopen the repository: {}", e.message());
                        (i, failed(q, m))
                    })
                    .collect(),
                Ok(r) => {
                    let qs: Vec<&Query> = g.iter().filter_map(|&i| queries.get(i)).collect();
                    let starts: Vec<walk::Start<'_>> = qs
                        .iter()
                        .map(|q| walk::Start {
                            path: &q.path,
                            line: q.line,
                            keys: &q.keys,
                        })
                        .collect();
                    let outcomes = walk::blame_many_with(
                        &r,
                        newest_id,
                        &starts,
                        &shallow,
                        opts.max_hops,
                        progress,
                    );
                    g.iter()
                        .zip(qs)
                        .zip(outcomes)
                        .map(|((&i, q), o)| (i, finish(&r, newest_time, q, o, opts)))
                        .collect()
                }
            };
            done
        })
        .collect();
    out.sort_by_key(|(i, _)| *i);
    Ok(out.into_iter().map(|(_, p)| p).collect())
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

fn info(repo: &Repository, h: &walk::Hit) -> Option<Commit> {
    commit_info(repo, h.commit, &h.path, h.line)
}

fn finish(
    repo: &Repository,
    newest_time: i64,
    q: &Query,
    o: walk::Outcome,
    opts: &Options,
) -> LineProvenance {
    let loc = Locator::file(q.path.clone()).with_line(q.line);
    let (chain, truncated, hop_limit) = match o {
        walk::Outcome::Failed(m) => return failed(q, m),
        walk::Outcome::Traced { chain, hop_limit } => (chain, None, hop_limit),
        walk::Outcome::Truncated { chain, at } => {
            (chain, Some(format!("history truncated at {at}")), false)
        }
    };
    let Some(first) = chain.first() else {
        // The shallow boundary already hides the last touch.
        return hidden(q, loc, truncated);
    };
    let text = file_line(repo, first.commit, &first.path, first.line);
    let last = info(repo, first);
    let introduced = if truncated.is_some() {
        None
    } else {
        chain.last().and_then(|h| info(repo, h))
    };
    // Between the last touch and the introduction (a truncated walk keeps all it found
    // after the last touch).
    let inner = if truncated.is_some() {
        chain.get(1..).unwrap_or(&[])
    } else {
        chain.get(1..chain.len().saturating_sub(1)).unwrap_or(&[])
    };
    let rewrites: Vec<Commit> = inner.iter().filter_map(|h| info(repo, h)).collect();
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
    let ev = walk_evidence(loc, truncated.as_deref(), hop_limit, opts.max_hops);
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

/// A line whose last touch is beyond the shallow boundary: nothing but its comments.
fn hidden(q: &Query, loc: Locator, truncated: Option<String>) -> LineProvenance {
    let msg = truncated.unwrap_or_else(|| "no history for the line".into());
    LineProvenance {
        path: q.path.clone(),
        line: q.line,
        text: String::new(),
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
    }
}

/// The evidence of a walk: confirmed, truncated by the clone's boundary (unresolved) or
/// stopped by the hop limit (limited).
fn walk_evidence(
    loc: Locator,
    truncated: Option<&str>,
    hop_limit: bool,
    max_hops: usize,
) -> Evidence {
    let (class, rule, note) = if let Some(t) = truncated {
        (
            Class::Unresolved,
            "provenance.history_truncated",
            format!(
                "{t}: the line was rewritten before the boundary; its introduction is not in this clone"
            ),
        )
    } else if hop_limit {
        (
            Class::Limited,
            "provenance.hop_limit",
            format!("followed {max_hops} rewrites; older ones not followed"),
        )
    } else {
        (Class::Confirmed, "provenance.blame", String::new())
    };
    let ev = Evidence::new(class, Proof::HistoryVerified, rule).at(loc);
    if note.is_empty() {
        ev
    } else {
        ev.because(note)
    }
}

fn comment_refs(q: &Query) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::new();
    for t in &q.comment_refs {
        for r in refs::extract(t, refs::FoundIn::Comment) {
            if !out.iter().any(|o| o.text == r.text) {
                out.push(r);
            }
        }
        if !t.starts_with("http") && !t.starts_with('#') && !t.starts_with("SWDEV") {
            // WORKAROUND_… macros and issue mentions are kept as written.
            if !out.iter().any(|o| &o.text == t) {
                out.push(Reference {
                    text: t.clone(),
                    kind: refs::RefKind::Link,
                    found_in: refs::FoundIn::Comment,
                    access: refs::Access::Unknown,
                });
            }
        }
    }
    out
}
