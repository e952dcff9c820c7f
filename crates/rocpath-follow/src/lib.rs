//! Follows a value through source code: from a SPEC (`FILE:LINE`, `FILE:SYMBOL`, or a bare
//! name — a field, a JSON key, a flag, an environment variable) forward through Go, C, C++
//! and Python, across files, packages, processes and languages.
//!
//! Each repository is indexed once per commit and state of its work tree (names → files,
//! [`index`], cached in the user's cache folder; an edited checkout is indexed again and
//! said); the trail then parses only the files its names lead to with
//! tree-sitter. A value goes up through the expressions that carry it to where it lands
//! ([`HopKind`]): an assignment, a call argument and the callee's parameter, a return and the
//! callers (a closure's return where the closure goes; a value derived from a parameter
//! back to the call it came through only), a struct field and its reads, a condition (a
//! branch point), a `getenv` of a followed name (a getter's reader), and across the
//! boundaries that are matched by name — JSON (a struct tag, a type decoded in another
//! package), a command-line flag and its definition (Go `flag` written without dashes,
//! `argparse`, argument tables with handlers, argv loops comparing each argument), a string
//! built from the value (`Sprintf`, f-strings, a builder) carrying it on, an environment
//! variable (`setenv` → `getenv`), cgo (a C struct field written from Go → its reads in
//! C/C++), a Python call into a native extension whose pybind11 `def` is in the sources.
//! Syntactic hops are `code_verified` (a field read only when its variable's declared type
//! has the field), name-matched bridges and field reads `inferred`, and where the trail
//! leaves the repositories given it is `unresolved` with the boundary named. The hop limit
//! is spent on resolved hops before name matches; what it leaves out is counted on the hop
//! it leaves from.

mod argv;
mod bridges;
mod control;
mod engine;
mod error;
mod flow;
mod funcfield;
mod grow;
pub mod index;
mod inherit;
pub mod lang;
mod memo;
mod model;
mod nesting;
mod spec;
mod summary;
mod syntax;
mod types;
mod worktree;

pub use error::FollowError;
pub use index::IndexOptions;
pub use model::*;
pub use spec::{Spec, parse_spec};
pub use summary::{Ends, Stop, ends};

use engine::{Draft, Engine, Repo};
use std::path::PathBuf;

/// Limits of a follow.
#[derive(Debug, Clone)]
pub struct Options {
    /// Hops from a root to a leaf.
    pub depth: usize,
    /// Hops in the whole tree.
    pub limit: usize,
    /// Places a SPEC may match before the rest are left out.
    pub max_matches: usize,
    /// Next hops kept from one hop (the rest are counted in a note).
    pub fan_out: usize,
    /// Index limits.
    pub index: IndexOptions,
    /// Read and write the index cache.
    pub cache: bool,
    /// The run's memory budget: a file is parsed only when its syntax tree fits in it (the
    /// rest are skipped and said), whatever the file size limit.
    pub memory: Option<rocpath_budget::MemoryBudget>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            depth: 24,
            limit: 400,
            max_matches: 40,
            fan_out: 16,
            index: IndexOptions::default(),
            cache: true,
            memory: None,
        }
    }
}

/// Indexed repositories, ready to follow values through.
pub struct Repos {
    repos: Vec<Repo>,
}

impl Repos {
    /// Indexes (or loads from the cache) each repository.
    pub fn open(roots: &[PathBuf], opts: &Options) -> Result<Repos, FollowError> {
        let mut repos: Vec<Repo> = Vec::new();
        for root in roots {
            let head = rocpath_git::head(root);
            let (index, cached) = if opts.cache {
                index::load_or_build_within(
                    root,
                    head.commit.as_deref(),
                    &opts.index,
                    opts.memory.as_ref(),
                )?
            } else {
                (
                    index::build_within(root, &opts.index, opts.memory.as_ref())?,
                    false,
                )
            };
            let mut name = root
                .canonicalize()
                .ok()
                .and_then(|c| c.file_name().map(|f| f.to_string_lossy().into_owned()))
                .unwrap_or_else(|| root.display().to_string());
            if repos.iter().any(|r| r.info.name == name) {
                name = format!("{name}-{}", repos.len() + 1);
            }
            let changed = match head.commit {
                Some(_) => worktree::changed_sources(root),
                None => Vec::new(),
            };
            repos.push(Repo {
                info: RepoInfo {
                    name,
                    root: root
                        .canonicalize()
                        .unwrap_or_else(|_| root.clone())
                        .display()
                        .to_string(),
                    commit: head.commit,
                    files: index.files.len(),
                    cached,
                    changed: changed.len(),
                },
                root: root.clone(),
                index,
                changed: changed.into_iter().collect(),
            });
        }
        Ok(Repos { repos })
    }

    /// What the document says about each repository.
    pub fn infos(&self) -> Vec<RepoInfo> {
        self.repos.iter().map(|r| r.info.clone()).collect()
    }
}

/// Indexes the repositories and follows `spec` through them.
pub fn follow(spec: &str, roots: &[PathBuf], opts: &Options) -> Result<FollowDoc, FollowError> {
    let repos = Repos::open(roots, opts)?;
    follow_in(spec, &repos, opts)
}

/// Follows `spec` through indexed repositories.
pub fn follow_in(spec: &str, repos: &Repos, opts: &Options) -> Result<FollowDoc, FollowError> {
    let parsed = parse_spec(spec)?;
    let mut eng = Engine::new(&repos.repos, opts.memory.clone());
    let keys: Vec<(PathBuf, Option<String>, String)> = repos
        .repos
        .iter()
        .map(|r| (r.root.clone(), r.info.commit.clone(), r.index.state.clone()))
        .collect();
    let dir = if opts.cache { index::cache_dir() } else { None };
    let mut memo = memo::Memo::open(dir.as_deref(), &keys, &opts.index);
    let mut origins = match memo.origins(spec) {
        Some(o) => o,
        None => {
            let o = eng.origins(spec, &parsed)?;
            memo.set_origins(spec, &o);
            o
        }
    };
    let matched = origins.len();
    let mut notes = changed_notes(repos);
    let mut truncated = false;
    if matched > opts.max_matches {
        notes.push(format!(
            "{spec} matches {matched} places; the first {} are followed: give FILE:LINE or FILE:SYMBOL for a narrower start",
            opts.max_matches
        ));
        origins.truncate(opts.max_matches);
        truncated = true;
    }
    let mut grower = grow::Grower::new(&mut eng, &mut memo, opts, origins);
    grower.run();
    truncated |= grower.truncated;
    let (hops, cut) = grower.finish();
    if cut > 0 {
        notes.push(format!(
            "the trail reached {} hops (--limit); {cut} next hops were not followed, each counted on the hop it leaves from",
            opts.limit
        ));
    }
    let skipped = skipped_files(repos, &eng, memo);
    Ok(FollowDoc {
        spec: spec.to_string(),
        repos: repos.infos(),
        depth: opts.depth,
        limit: opts.limit,
        matched,
        truncated,
        hops,
        skipped,
        notes,
    })
}

/// A note for each checkout whose work tree differs from its commit.
fn changed_notes(repos: &Repos) -> Vec<String> {
    repos
        .repos
        .iter()
        .filter(|r| !r.changed.is_empty())
        .map(|r| {
            let mut changed: Vec<String> = r.changed.iter().cloned().collect();
            changed.sort();
            let commit = r.info.commit.as_deref().unwrap_or("");
            worktree::changed_note(&r.info.name, commit, &changed)
        })
        .collect()
}

/// Every file the index or the trail skipped (each once), and the trail's steps saved.
fn skipped_files(repos: &Repos, eng: &Engine, memo: memo::Memo) -> Vec<Skipped> {
    let memo_skipped = memo.skipped.clone();
    let mut skipped: Vec<Skipped> = repos
        .repos
        .iter()
        .flat_map(|r| {
            let prefix = if repos.repos.len() > 1 {
                format!("{}/", r.info.name)
            } else {
                String::new()
            };
            r.index.skipped.iter().map(move |s| Skipped {
                path: format!("{prefix}{}", s.path),
                reason: s.reason.clone(),
            })
        })
        .collect();
    memo.save(&eng.skipped);
    for s in eng.skipped.iter().chain(&memo_skipped) {
        if !skipped.contains(s) {
            skipped.push(s.clone());
        }
    }
    skipped
}

pub(crate) fn join(a: &Option<String>, b: &str) -> String {
    match a {
        Some(a) => format!("{a}; {b}"),
        None => b.to_string(),
    }
}

pub(crate) fn to_hop(eng: &mut Engine, d: &Draft) -> Hop {
    let text = eng.line_text(d.at, d.line);
    let repo = &eng.repos[d.at.repo];
    let local = &repo.index.files[d.at.file as usize].path;
    let note = if repo.changed.contains(local) {
        Some(join(
            &d.note,
            "the file differs from the commit: the line is the work tree's",
        ))
    } else {
        d.note.clone()
    };
    Hop {
        id: 0,
        path: eng.path(d.at),
        line: d.line,
        commit: eng.repos[d.at.repo].info.commit.clone(),
        text,
        kind: d.kind,
        evidence: d.evidence,
        symbol: d.symbol.clone(),
        note,
        children: Vec::new(),
    }
}
