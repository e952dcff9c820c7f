//! Per release tag, which of a target's gates and build-list entries exist: the
//! "added / kept / retreated / removed" timeline. Each tag's tree is read from the object
//! database (no checkout); a blob seen at an earlier tag is not read again.

use git2::{ObjectType, Oid, TreeWalkMode, TreeWalkResult};
use rayon::prelude::*;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_gates::syntax::Found;
use rocpath_gates::{Gate, Kind, Layer, RepoSummary, ScanIssue, Verdict};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What happened to an item at a tag, compared with the previous tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Appeared, or started to include the target.
    Added,
    /// Present as before.
    Kept,
    /// Still present, but no longer includes the target (excludes it or falls back).
    Retreated,
    /// Gone.
    Removed,
}

/// One change of one item.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// The tag.
    pub tag: String,
    /// What happened.
    pub status: Status,
    /// The verdict for the target at this tag (none when removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// `repo:path:line@commit` at this tag (none when removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// A gate or build-list entry followed across tags.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    /// Identity across tags: file name, function or list, construct and patterns.
    pub key: String,
    /// Layer.
    pub layer: Layer,
    /// Construct.
    pub kind: Kind,
    /// Path at the last tag it was seen.
    pub path: String,
    /// Function or list name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// Changes, oldest first (kept tags are not listed).
    pub events: Vec<Event>,
    /// Present at the newest tag.
    pub present: bool,
    /// Evidence: `confirmed`/`history_verified` (read from each tag's tree).
    pub evidence: Evidence,
}

/// Counts at one tag.
#[derive(Debug, Clone, Serialize)]
pub struct TagRow {
    /// Tag name.
    pub tag: String,
    /// Tagged commit.
    pub commit: String,
    /// Commit date.
    pub date: String,
    /// Items present.
    pub present: usize,
    /// Items that include the target.
    pub includes: usize,
    /// Changes against the previous tag.
    pub added: usize,
    /// Kept.
    pub kept: usize,
    /// Retreated.
    pub retreated: usize,
    /// Removed.
    pub removed: usize,
}

/// The timeline of one target.
#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    /// The processor.
    pub arch: String,
    /// The tag pattern.
    pub tags_pattern: String,
    /// Tags, oldest first.
    pub tags: Vec<TagRow>,
    /// Items.
    pub items: Vec<Item>,
    /// Files that could not be read at some tag.
    pub issues: Vec<ScanIssue>,
}

/// `*` and `?` glob over tag names.
pub fn glob_match(pat: &str, s: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], s) || (!s.is_empty() && go(p, &s[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &s[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    go(pat.as_bytes(), s.as_bytes())
}

fn skipped(name: &str) -> bool {
    matches!(
        name,
        ".git"
            | "docs"
            | "doc"
            | ".github"
            | "node_modules"
            | "third_party"
            | "thirdparty"
            | "test"
            | "tests"
            | "gtest"
            | "testing"
            | "unittests"
            | "unit_tests"
            | "testdata"
    )
}

fn key_of(g: &Gate) -> String {
    let file = g.path.rsplit('/').next().unwrap_or(&g.path);
    match g.kind {
        Kind::TensileLogic => format!("tensile_logic|{}", g.path),
        Kind::BuildList | Kind::BuildFilter | Kind::ArtifactRemoval => format!(
            "{}|{}|{}",
            file,
            g.symbol.as_deref().unwrap_or(""),
            g.kind.as_str()
        ),
        _ => {
            let pats: Vec<&str> = g.patterns.iter().map(|p| p.text.as_str()).collect();
            format!(
                "{}|{}|{}|{}",
                file,
                g.function.as_deref().or(g.symbol.as_deref()).unwrap_or(""),
                g.kind.as_str(),
                pats.join(",")
            )
        }
    }
}

/// Builds the timeline of `arch` over the tags matching `pattern`.
pub fn timeline(
    repo_path: &Path,
    arch: &str,
    pattern: &str,
    max_file_bytes: u64,
) -> Result<Timeline, crate::blame::Error> {
    timeline_with(repo_path, arch, pattern, max_file_bytes, &|_, _| {})
}

/// The gates of one tag that bear on the target, by key (an including gate wins its key).
type TagState = BTreeMap<String, (Verdict, Gate)>;

/// [`timeline`], calling `progress(tags done, tags in all)` after each tag.
pub fn timeline_with(
    repo_path: &Path,
    arch: &str,
    pattern: &str,
    max_file_bytes: u64,
    progress: &dyn Fn(u64, u64),
) -> Result<Timeline, crate::blame::Error> {
    let repo = crate::blame::open(repo_path)?;
    let name = rocpath_git::repo_name(repo_path);
    let tags = matching_tags(&repo, repo_path, pattern)?;
    let mut blobs = Blobs {
        repo: &repo,
        name: &name,
        max_file_bytes,
        cache: HashMap::new(),
        issues: Vec::new(),
    };
    let mut rows = Vec::new();
    // key → per tag (verdict, gate)
    let mut seen: BTreeMap<String, Vec<Option<(Verdict, Gate)>>> = BTreeMap::new();
    let n_tags = tags.len() as u64;
    for (ti, (time, tag, cid)) in tags.iter().enumerate() {
        progress(ti as u64, n_tags);
        let Ok(commit) = repo.find_commit(*cid) else {
            continue;
        };
        let Ok(tree) = commit.tree() else { continue };
        let (files, dirs) = tree_files(&tree);
        blobs.read(tag, &files);
        let summary = RepoSummary {
            name: name.clone(),
            root: repo_path.display().to_string(),
            commit: Some(cid.to_string()),
            branch: Some(tag.clone()),
            files: files.len() as u64,
            bytes: 0,
            parsed: 0,
            gates: 0,
        };
        let now = tag_state(&summary, &files, &dirs, &blobs.cache, arch);
        for (k, v) in &now {
            let e = seen
                .entry(k.clone())
                .or_insert_with(|| vec![None; tags.len()]);
            e[ti] = Some(v.clone());
        }
        rows.push(TagRow {
            tag: tag.clone(),
            commit: cid.to_string(),
            date: crate::blame::iso_date(*time, 0),
            present: now.len(),
            includes: now
                .values()
                .filter(|(v, _)| *v == Verdict::Includes)
                .count(),
            added: 0,
            kept: 0,
            retreated: 0,
            removed: 0,
        });
    }
    // Items that never include nor name the target are other targets' lists: dropped.
    let items = seen
        .into_iter()
        .filter_map(|(key, states)| item_of(key, &states, &mut rows, arch, pattern))
        .collect();
    Ok(Timeline {
        arch: arch.to_string(),
        tags_pattern: pattern.to_string(),
        tags: rows,
        items,
        issues: blobs.issues,
    })
}

/// The tags matching `pattern`, oldest first: (commit time, name, commit).
fn matching_tags(
    repo: &git2::Repository,
    repo_path: &Path,
    pattern: &str,
) -> Result<Vec<(i64, String, Oid)>, crate::blame::Error> {
    let names = repo.tag_names(None).map_err(|e| crate::blame::Error::Rev {
        path: repo_path.display().to_string(),
        rev: pattern.to_string(),
        msg: e.message().to_string(),
    })?;
    let mut tags = Vec::new();
    for t in names.iter().flatten() {
        if !glob_match(pattern, t) {
            continue;
        }
        let Ok(obj) = repo.revparse_single(&format!("refs/tags/{t}")) else {
            continue;
        };
        let Ok(c) = obj.peel_to_commit() else {
            continue;
        };
        tags.push((c.time().seconds(), t.to_string(), c.id()));
    }
    tags.sort();
    Ok(tags)
}

/// The source files of a tag's tree (path, blob) and its Tensile logic folders.
fn tree_files(tree: &git2::Tree<'_>) -> (Vec<(String, Oid)>, Vec<String>) {
    let mut files: Vec<(String, Oid)> = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    let _ = tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        let n = entry.name().unwrap_or("");
        let path = format!("{root}{n}");
        match entry.kind() {
            Some(ObjectType::Tree) => {
                if skipped(n) {
                    return TreeWalkResult::Skip;
                }
                if rocpath_gates::buildfiles::tensile_logic(&path).is_some() {
                    dirs.push(path);
                }
            }
            Some(ObjectType::Blob) if rocpath_gates::file_kind(&path).is_some() => {
                files.push((path, entry.id()));
            }
            _ => {}
        }
        TreeWalkResult::Ok
    });
    (files, dirs)
}

/// The gates found in each blob, read once however many tags hold it.
struct Blobs<'r> {
    repo: &'r git2::Repository,
    name: &'r str,
    max_file_bytes: u64,
    cache: HashMap<Oid, Vec<Found>>,
    issues: Vec<ScanIssue>,
}

impl Blobs<'_> {
    /// Reads the blobs of a tag not seen before (within the size limit), then scans them in
    /// parallel.
    fn read(&mut self, tag: &str, files: &[(String, Oid)]) {
        let odb = self.repo.odb().ok();
        let mut fresh: Vec<(Oid, String, Vec<u8>)> = Vec::new();
        for (path, oid) in files {
            if self.cache.contains_key(oid) || fresh.iter().any(|(o, _, _)| o == oid) {
                continue;
            }
            let size = odb
                .as_ref()
                .and_then(|o| o.read_header(*oid).ok())
                .map_or(0, |(s, _)| s as u64);
            let limit = self.max_file_bytes;
            if size > limit {
                self.cache.insert(*oid, Vec::new());
                let why = format!("not read: {size} bytes is more than the {limit}-byte limit");
                self.issues.push(issue(self.name, tag, path, why));
                continue;
            }
            match self.repo.find_blob(*oid) {
                Ok(b) => fresh.push((*oid, path.clone(), b.content().to_vec())),
                Err(e) => {
                    self.cache.insert(*oid, Vec::new());
                    let why = format!("cannot read blob {oid}: {}", e.message());
                    self.issues.push(issue(self.name, tag, path, why));
                }
            }
        }
        let analysed: Vec<(Oid, Result<Vec<Found>, String>, String)> = fresh
            .into_par_iter()
            .map(|(oid, path, bytes)| {
                let r = rocpath_gates::scan_bytes(&path, &bytes).map_err(|e| e.to_string());
                (oid, r, path)
            })
            .collect();
        for (oid, r, path) in analysed {
            match r {
                Ok(f) => {
                    self.cache.insert(oid, f);
                }
                Err(e) => {
                    self.issues.push(issue(self.name, tag, &path, e));
                    self.cache.insert(oid, Vec::new());
                }
            }
        }
    }
}

/// The gates of one tag that name the target (or build it), by key.
fn tag_state(
    summary: &RepoSummary,
    files: &[(String, Oid)],
    dirs: &[String],
    cache: &HashMap<Oid, Vec<Found>>,
    arch: &str,
) -> TagState {
    let inputs: Vec<(String, String, Vec<Found>)> = files
        .iter()
        .filter_map(|(p, o)| {
            let f = cache.get(o)?;
            (!f.is_empty()).then(|| (p.clone(), o.to_string(), f.clone()))
        })
        .collect();
    let mut gates = rocpath_gates::gates_of_found(summary, inputs);
    gates.extend(
        dirs.iter()
            .filter_map(|d| rocpath_gates::tensile_gate(summary, d)),
    );
    let mut now: TagState = BTreeMap::new();
    for g in gates {
        let Some((layer, verdict, named)) = rocpath_gates::verdict(&g, arch) else {
            continue;
        };
        if !named && layer != Layer::Build {
            continue;
        }
        let k = key_of(&g);
        if !matches!(now.get(&k), Some((Verdict::Includes, _))) {
            now.insert(k, (verdict, g));
        }
    }
    now
}

/// One item's history across the tags (counted into the tag rows), or none when it never
/// includes nor names the target.
fn item_of(
    key: String,
    states: &[Option<(Verdict, Gate)>],
    rows: &mut [TagRow],
    arch: &str,
    pattern: &str,
) -> Option<Item> {
    let relevant = states
        .iter()
        .flatten()
        .any(|(v, g)| *v == Verdict::Includes || g.covers.iter().any(|c| c == arch));
    if !relevant {
        return None;
    }
    let mut events = Vec::new();
    let mut prev: Option<Verdict> = None;
    let mut last_gate: Option<&Gate> = None;
    for (ti, st) in states.iter().enumerate() {
        let status = match (prev, st) {
            (None, Some((v, _))) => Some((Status::Added, Some(*v))),
            (Some(Verdict::Includes), Some((v, _))) if *v != Verdict::Includes => {
                Some((Status::Retreated, Some(*v)))
            }
            (Some(p), Some((Verdict::Includes, _))) if p != Verdict::Includes => {
                Some((Status::Added, Some(Verdict::Includes)))
            }
            (Some(_), Some(_)) => {
                rows[ti].kept += 1;
                None
            }
            (Some(_), None) => Some((Status::Removed, None)),
            (None, None) => None,
        };
        if let Some((s, v)) = status {
            match s {
                Status::Added => rows[ti].added += 1,
                Status::Retreated => rows[ti].retreated += 1,
                Status::Removed => rows[ti].removed += 1,
                Status::Kept => rows[ti].kept += 1,
            }
            events.push(Event {
                tag: rows[ti].tag.clone(),
                status: s,
                verdict: v,
                at: st.as_ref().map(|(_, g)| g.at.clone()),
            });
        }
        prev = st.as_ref().map(|(v, _)| *v);
        if let Some((_, g)) = st {
            last_gate = Some(g);
        }
    }
    let g = last_gate?;
    Some(Item {
        key,
        layer: g.layer,
        kind: g.kind,
        path: g.path.clone(),
        function: g.function.clone().or_else(|| g.symbol.clone()),
        events,
        present: states.last().is_some_and(|s| s.is_some()),
        evidence: Evidence::new(
            Class::Confirmed,
            Proof::HistoryVerified,
            "provenance.timeline",
        )
        .at(Locator::file(g.path.clone()))
        .because(format!("read from the tree of each tag matching {pattern}")),
    })
}

fn issue(repo: &str, tag: &str, path: &str, message: String) -> ScanIssue {
    ScanIssue {
        repo: repo.to_string(),
        path: format!("{tag}:{path}"),
        message,
        evidence: Evidence::new(
            Class::Limited,
            Proof::HistoryVerified,
            "provenance.timeline_unreadable",
        )
        .at(Locator::file(path.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("rocm-*", "rocm-6.4.0"));
        assert!(!glob_match("rocm-*", "1.0.0"));
        assert!(glob_match("rocm-6.?.0", "rocm-6.4.0"));
        assert!(glob_match("*", ""));
    }
}
