//! One history walk for many lines of many files.
//!
//! This is git's blame algorithm run for every asked line at once: commits are taken newest
//! first by committer date; at each commit every file that still has unblamed lines is
//! compared with each parent — passed whole to a parent whose blob is identical, otherwise
//! diffed, unchanged lines going to the parent and the rest blamed here; a file missing in
//! a parent is looked for among that commit's renames. Directory tree ids are compared
//! before blobs, so the many commits that do not touch a file's folder cost one lookup per
//! folder, not one per file.
//!
//! The gate-rewrite hops of provenance are folded into the same walk: when a line is blamed
//! at a commit whose first-parent diff removed a line carrying one of the line's keys, the
//! walk records the commit and goes on with the removed line, until the commit that
//! introduced the gate.

use git2::{DiffFindOptions, ObjectType, Oid, Repository, Tree};
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};
use std::rc::Rc;

/// One commit, path and 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Commit.
    pub commit: Oid,
    /// Path of the file in that commit.
    pub path: String,
    /// 1-based line in that commit's version of the file.
    pub line: u64,
}

/// What the walk found for one line.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// `chain[0]` last touched the line; each next entry is an older commit that rewrote it
    /// while keeping the gate; the final entry introduced it. `hop_limit`: a further
    /// rewrite exists but was not followed.
    Traced {
        /// Newest first.
        chain: Vec<Hit>,
        /// More rewrites exist beyond the hop limit.
        hop_limit: bool,
    },
    /// The walk reached a shallow-clone boundary (or a commit whose parents are absent).
    Truncated {
        /// Commits found before the boundary, newest first (empty: the line's last touch
        /// is already hidden).
        chain: Vec<Hit>,
        /// The boundary commit.
        at: Oid,
    },
    /// The line could not be traced.
    Failed(String),
}

/// One line to trace from the newest commit.
#[derive(Debug, Clone, Copy)]
pub struct Start<'a> {
    /// Path at the newest commit.
    pub path: &'a str,
    /// 1-based line at the newest commit.
    pub line: u64,
    /// Tokens that make the line a gate; empty: the trimmed text is the key.
    pub keys: &'a [String],
}

struct Suspect {
    blob: Oid,
    dir: Oid,
    content: Rc<Vec<u8>>,
    /// (tracker, 0-based line)
    lines: Vec<(usize, u32)>,
}

struct Tracker<'a> {
    keys: &'a [String],
    chain: Vec<Hit>,
    out: Option<Outcome>,
}

#[derive(Debug, Clone, Copy)]
struct Hunk {
    /// 0-based first old line, old line count, 0-based first new line, new line count.
    ob: u32,
    ol: u32,
    nb: u32,
    nl: u32,
}

/// Loaded trees, bounded.
struct Trees<'r> {
    repo: &'r Repository,
    cache: HashMap<Oid, Tree<'r>>,
}

const TREE_CACHE: usize = 8192;

impl<'r> Trees<'r> {
    fn get(&mut self, id: Oid) -> Option<&Tree<'r>> {
        if !self.cache.contains_key(&id) {
            if self.cache.len() >= TREE_CACHE {
                self.cache.clear();
            }
            let t = self.repo.find_tree(id).ok()?;
            self.cache.insert(id, t);
        }
        self.cache.get(&id)
    }

    /// The entry `name` of tree `id`: its id and kind.
    fn entry(&mut self, id: Oid, name: &str) -> Option<(Oid, Option<ObjectType>)> {
        let t = self.get(id)?;
        let e = t.get_name(name)?;
        Some((e.id(), e.kind()))
    }

    /// The tree at `dir` (`""` is the root).
    fn dir(&mut self, root: Oid, dir: &str) -> Option<Oid> {
        let mut cur = root;
        if dir.is_empty() {
            return Some(cur);
        }
        for comp in dir.split('/') {
            match self.entry(cur, comp)? {
                (id, Some(ObjectType::Tree)) => cur = id,
                _ => return None,
            }
        }
        Some(cur)
    }

    /// The blob at `path` and the tree of its folder.
    fn blob(&mut self, root: Oid, path: &str) -> Option<(Oid, Oid)> {
        let (dir, name) = split(path);
        let d = self.dir(root, dir)?;
        match self.entry(d, name)? {
            (id, Some(ObjectType::Blob)) => Some((id, d)),
            _ => None,
        }
    }
}

fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

fn line_count(c: &[u8]) -> u64 {
    let n = memchr::memchr_iter(b'\n', c).count() as u64;
    if c.last().is_some_and(|&x| x != b'\n') {
        n + 1
    } else {
        n
    }
}

/// Line `n` (0-based) of `c`, without its newline.
fn nth_line(c: &[u8], n: u32) -> &[u8] {
    c.split(|&b| b == b'\n').nth(n as usize).unwrap_or(&[])
}

fn norm(s: &[u8]) -> String {
    String::from_utf8_lossy(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Files with more lines than this are not diffed (their lines are blamed where the
/// walk stands); far beyond any source file.
const MAX_DIFF_LINES: usize = 20_000_000;

/// Line diff as git computes it for blame: Myers, then git's slider post-processing with
/// the indent heuristic (so ambiguous insertions land where `git blame` puts them).
fn diff(old: &[u8], new: &[u8]) -> Result<Vec<Hunk>, String> {
    let lines = |b: &[u8]| memchr::memchr_iter(b'\n', b).count() + 1;
    if lines(old) > MAX_DIFF_LINES || lines(new) > MAX_DIFF_LINES {
        return Err(format!("more than {MAX_DIFF_LINES} lines: not diffed"));
    }
    let input = imara_diff::InternedInput::new(old, new);
    let mut d = imara_diff::Diff::compute(imara_diff::Algorithm::Myers, &input);
    d.postprocess_lines(&input);
    Ok(d.hunks()
        .map(|h| Hunk {
            ob: h.before.start,
            ol: h.before.end - h.before.start,
            nb: h.after.start,
            nl: h.after.end - h.after.start,
        })
        .collect())
}

/// Where new line `l` comes from: `Ok(old line)` when unchanged, `Err(hunk index)` when
/// the diff changed it.
fn map_line(hunks: &[Hunk], l: u32) -> Result<u32, usize> {
    let idx = hunks.partition_point(|h| h.nb + h.nl <= l);
    if let Some(h) = hunks.get(idx) {
        if h.nb <= l {
            return Err(idx);
        }
    }
    match idx.checked_sub(1).and_then(|i| hunks.get(i)) {
        None => Ok(l),
        Some(p) => Ok(p.ob + p.ol + (l - (p.nb + p.nl))),
    }
}

/// In a changed hunk, the removed line that carried the gate: one with the same text or
/// one of `keys`, nearest in position.
fn rewritten_line(h: &Hunk, l: u32, old: &[u8], text: &[u8], keys: &[String]) -> Option<u32> {
    if h.ol == 0 {
        return None;
    }
    let want = norm(text);
    let rel = l.saturating_sub(h.nb);
    let mut best: Option<(u32, u32)> = None;
    for (k, content) in old
        .split(|&b| b == b'\n')
        .skip(h.ob as usize)
        .take(h.ol as usize)
        .enumerate()
    {
        let k = k as u32;
        let s = String::from_utf8_lossy(content);
        let hit = norm(content) == want || keys.iter().any(|key| s.contains(key.as_str()));
        if hit {
            let dist = rel.abs_diff(k);
            if best.is_none_or(|(d, _)| dist < d) {
                best = Some((dist, h.ob + k));
            }
        }
    }
    best.map(|(_, l)| l)
}

/// The first parent's side of a diff: hunks, old content, old path, blob and folder tree.
type FirstParent = (Vec<Hunk>, Rc<Vec<u8>>, String, Oid, Oid);

/// A pass of lines to a parent.
struct Pass {
    parent: usize,
    path: String,
    blob: Oid,
    dir: Oid,
    content: Rc<Vec<u8>>,
    lines: Vec<(usize, u32)>,
}

struct Walk<'r, 'a> {
    repo: &'r Repository,
    shallow: &'a HashSet<Oid>,
    max_hops: usize,
    trees: Trees<'r>,
    trackers: Vec<Tracker<'a>>,
    pending: HashMap<Oid, BTreeMap<String, Suspect>>,
    heap: BinaryHeap<(i64, Oid)>,
    renames: HashMap<(Oid, Oid), HashMap<String, String>>,
    /// Lines with a result so far.
    resolved: u64,
}

struct ParentInfo {
    id: Oid,
    tree: Oid,
    time: i64,
}

impl<'r, 'a> Walk<'r, 'a> {
    fn fail(&mut self, lines: &[(usize, u32)], msg: &str) {
        for &(t, _) in lines {
            if let Some(tr) = self.trackers.get_mut(t) {
                if tr.out.is_none() {
                    self.resolved += 1;
                }
                tr.out = Some(Outcome::Failed(msg.to_string()));
            }
        }
    }

    fn push(&mut self, commit: Oid, time: i64, pass: Pass) {
        if pass.lines.is_empty() {
            return;
        }
        let heap = &mut self.heap;
        let files = self.pending.entry(commit).or_insert_with(|| {
            heap.push((time, commit));
            BTreeMap::new()
        });
        files
            .entry(pass.path)
            .or_insert_with(|| Suspect {
                blob: pass.blob,
                dir: pass.dir,
                content: pass.content,
                lines: Vec::new(),
            })
            .lines
            .extend(pass.lines);
    }

    fn load(&self, blob: Oid) -> Result<Rc<Vec<u8>>, String> {
        self.repo
            .find_blob(blob)
            .map(|b| Rc::new(b.content().to_vec()))
            .map_err(|e| format!("cannot read blob {blob}: {}", e.message()))
    }

    fn renamed_from(&mut self, c: Oid, ctree: Oid, p: &ParentInfo, path: &str) -> Option<String> {
        if !self.renames.contains_key(&(c, p.id)) {
            let map = (|| {
                let ct = self.repo.find_tree(ctree).ok()?;
                let pt = self.repo.find_tree(p.tree).ok()?;
                let mut d = self
                    .repo
                    .diff_tree_to_tree(Some(&pt), Some(&ct), None)
                    .ok()?;
                let mut fo = DiffFindOptions::new();
                fo.renames(true).copies(false);
                d.find_similar(Some(&mut fo)).ok()?;
                let mut m = HashMap::new();
                for delta in d.deltas() {
                    if delta.status() == git2::Delta::Renamed {
                        if let (Some(o), Some(n)) =
                            (delta.old_file().path(), delta.new_file().path())
                        {
                            m.insert(
                                n.to_string_lossy().replace('\\', "/"),
                                o.to_string_lossy().replace('\\', "/"),
                            );
                        }
                    }
                }
                Some(m)
            })()
            .unwrap_or_default();
            self.renames.insert((c, p.id), map);
        }
        self.renames.get(&(c, p.id))?.get(path).cloned()
    }

    /// Blames line `l` of `path` at commit `c`: records it, then either hops to the
    /// removed line the first parent's diff replaced (returned as a pass) or ends.
    #[allow(clippy::too_many_arguments)]
    fn blame(
        &mut self,
        c: Oid,
        path: &str,
        t: usize,
        l: u32,
        content: &[u8],
        first: Option<&FirstParent>,
        hops: &mut Vec<Pass>,
    ) {
        let max_hops = self.max_hops;
        let Some(tr) = self.trackers.get_mut(t) else {
            return;
        };
        tr.chain.push(Hit {
            commit: c,
            path: path.to_string(),
            line: u64::from(l) + 1,
        });
        let rewrite = first.and_then(|(hunks, old, opath, oblob, odir)| {
            let idx = map_line(hunks, l).err()?;
            let h = hunks.get(idx)?;
            let ol = rewritten_line(h, l, old, nth_line(content, l), tr.keys)?;
            Some((ol, opath, *oblob, *odir, old))
        });
        match rewrite {
            Some((ol, opath, oblob, odir, old)) if tr.chain.len() <= max_hops => {
                hops.push(Pass {
                    parent: 0,
                    path: opath.clone(),
                    blob: oblob,
                    dir: odir,
                    content: Rc::clone(old),
                    lines: vec![(t, ol)],
                });
            }
            Some(_) => {
                tr.out = Some(Outcome::Traced {
                    chain: std::mem::take(&mut tr.chain),
                    hop_limit: true,
                });
                self.resolved += 1;
            }
            None => {
                tr.out = Some(Outcome::Traced {
                    chain: std::mem::take(&mut tr.chain),
                    hop_limit: false,
                });
                self.resolved += 1;
            }
        }
    }

    fn truncate(&mut self, c: Oid, lines: &[(usize, u32)]) {
        for &(t, _) in lines {
            if let Some(tr) = self.trackers.get_mut(t) {
                if tr.out.is_none() {
                    self.resolved += 1;
                }
                tr.out = Some(Outcome::Truncated {
                    chain: std::mem::take(&mut tr.chain),
                    at: c,
                });
            }
        }
    }

    fn step(&mut self, c: Oid, files: BTreeMap<String, Suspect>) {
        let Some((ctree, parents)) = self.parents_or_end(c, &files) else {
            return;
        };
        // Folder trees per parent, looked up once per folder.
        let mut dirs: Vec<HashMap<String, Option<Oid>>> =
            parents.iter().map(|_| HashMap::new()).collect();
        let mut passes: Vec<Pass> = Vec::new();
        for (path, s) in files {
            let pblobs = self.parent_blobs(&parents, &mut dirs, &path, &s);
            if let Some(i) = pblobs
                .iter()
                .position(|b| b.is_some_and(|(b, _)| b == s.blob))
            {
                let d = pblobs.get(i).copied().flatten().map_or(s.dir, |(_, d)| d);
                passes.push(Pass {
                    parent: i,
                    path,
                    blob: s.blob,
                    dir: d,
                    content: s.content,
                    lines: s.lines,
                });
                continue;
            }
            self.through_parents(c, ctree, &parents, path, s, &pblobs, &mut passes);
        }
        for pass in passes {
            if let Some(p) = parents.get(pass.parent) {
                let (id, time) = (p.id, p.time);
                self.push(id, time, pass);
            }
        }
    }

    /// The tree of commit `c` and its parents; `None` when the walk ends here for these
    /// files (the commit cannot be read: failed; a shallow or missing parent: truncated).
    fn parents_or_end(
        &mut self,
        c: Oid,
        files: &BTreeMap<String, Suspect>,
    ) -> Option<(Oid, Vec<ParentInfo>)> {
        let commit = match self.repo.find_commit(c) {
            Ok(k) => k,
            Err(e) => {
                let msg = format!("cannot read commit {c}: {}", e.message());
                for s in files.values() {
                    self.fail(&s.lines, &msg);
                }
                return None;
            }
        };
        let ctree = commit.tree_id();
        let mut parents = Vec::new();
        let mut cut = self.shallow.contains(&c);
        if !cut {
            for pid in commit.parent_ids() {
                match self.repo.find_commit(pid) {
                    Ok(p) => parents.push(ParentInfo {
                        id: pid,
                        tree: p.tree_id(),
                        time: p.committer().when().seconds(),
                    }),
                    Err(_) => cut = true,
                }
            }
        }
        drop(commit);
        if cut {
            for s in files.values() {
                self.truncate(c, &s.lines);
            }
            return None;
        }
        Some((ctree, parents))
    }

    /// Per parent, the blob and folder tree of `path` (same path), if the parent has it.
    fn parent_blobs(
        &mut self,
        parents: &[ParentInfo],
        dirs: &mut [HashMap<String, Option<Oid>>],
        path: &str,
        s: &Suspect,
    ) -> Vec<Option<(Oid, Oid)>> {
        let (dir, name) = split(path);
        let mut pblobs = Vec::with_capacity(parents.len());
        for (i, p) in parents.iter().enumerate() {
            let pd = match dirs.get(i).and_then(|m| m.get(dir)) {
                Some(d) => *d,
                None => {
                    let d = self.trees.dir(p.tree, dir);
                    if let Some(m) = dirs.get_mut(i) {
                        m.insert(dir.to_string(), d);
                    }
                    d
                }
            };
            pblobs.push(match pd {
                Some(d) if d == s.dir => Some((s.blob, d)),
                Some(d) => match self.trees.entry(d, name) {
                    Some((b, Some(ObjectType::Blob))) => Some((b, d)),
                    _ => None,
                },
                None => None,
            });
        }
        pblobs
    }

    /// A file changed in commit `c`: each line is mapped through the diff against each parent
    /// (the first that keeps it takes it, following a rename); the lines no parent keeps were
    /// written here and are blamed on `c`.
    #[allow(clippy::too_many_arguments)]
    fn through_parents(
        &mut self,
        c: Oid,
        ctree: Oid,
        parents: &[ParentInfo],
        path: String,
        s: Suspect,
        pblobs: &[Option<(Oid, Oid)>],
        passes: &mut Vec<Pass>,
    ) {
        let mut remaining = s.lines;
        let mut first: Option<FirstParent> = None;
        for (i, p) in parents.iter().enumerate() {
            if remaining.is_empty() {
                break;
            }
            let (ppath, pblob, pdir) = match pblobs.get(i).copied().flatten() {
                Some((b, d)) => (path.clone(), b, d),
                None => {
                    let Some(old) = self.renamed_from(c, ctree, p, &path) else {
                        continue;
                    };
                    match self.trees.blob(p.tree, &old) {
                        Some((b, d)) => (old, b, d),
                        None => continue,
                    }
                }
            };
            let pcontent = match self.load(pblob) {
                Ok(x) => x,
                Err(m) => {
                    self.fail(&remaining, &format!("{ppath}: {m}"));
                    remaining.clear();
                    break;
                }
            };
            let hunks = match diff(&pcontent, &s.content) {
                Ok(h) => h,
                Err(e) => {
                    let m = format!("{path}: cannot diff against {}: {e}", p.id);
                    self.fail(&remaining, &m);
                    remaining.clear();
                    break;
                }
            };
            let mut mapped = Vec::new();
            let mut rest = Vec::new();
            for (t, l) in remaining {
                match map_line(&hunks, l) {
                    Ok(ol) => mapped.push((t, ol)),
                    Err(_) => rest.push((t, l)),
                }
            }
            remaining = rest;
            passes.push(Pass {
                parent: i,
                path: ppath.clone(),
                blob: pblob,
                dir: pdir,
                content: Rc::clone(&pcontent),
                lines: mapped,
            });
            if i == 0 {
                first = Some((hunks, pcontent, ppath, pblob, pdir));
            }
        }
        for (t, l) in remaining {
            self.blame(c, &path, t, l, &s.content, first.as_ref(), passes);
        }
    }
}

/// Traces `starts` from `newest` back through the history in one walk.
pub fn blame_many(
    repo: &Repository,
    newest: Oid,
    starts: &[Start<'_>],
    shallow: &HashSet<Oid>,
    max_hops: usize,
) -> Vec<Outcome> {
    blame_many_with(repo, newest, starts, shallow, max_hops, &|_| {})
}

/// [`blame_many`], calling `progress(n)` as `n` more lines get their result.
pub fn blame_many_with(
    repo: &Repository,
    newest: Oid,
    starts: &[Start<'_>],
    shallow: &HashSet<Oid>,
    max_hops: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<Outcome> {
    let mut w = Walk {
        repo,
        shallow,
        max_hops,
        trees: Trees {
            repo,
            cache: HashMap::new(),
        },
        trackers: starts
            .iter()
            .map(|s| Tracker {
                keys: s.keys,
                chain: Vec::new(),
                out: None,
            })
            .collect(),
        pending: HashMap::new(),
        heap: BinaryHeap::new(),
        renames: HashMap::new(),
        resolved: 0,
    };
    let head = repo.find_commit(newest);
    let (root, time) = match &head {
        Ok(c) => (c.tree_id(), c.committer().when().seconds()),
        Err(e) => {
            let m = format!("cannot read commit {newest}: {}", e.message());
            return starts.iter().map(|_| Outcome::Failed(m.clone())).collect();
        }
    };
    let mut by_path: BTreeMap<&str, Vec<(usize, u64)>> = BTreeMap::new();
    for (i, s) in starts.iter().enumerate() {
        by_path.entry(s.path).or_default().push((i, s.line));
    }
    for (path, ls) in by_path {
        let Some((blob, dir)) = w.trees.blob(root, path) else {
            let lines: Vec<(usize, u32)> = ls.iter().map(|&(t, _)| (t, 0)).collect();
            w.fail(&lines, &format!("{path}: not a file at {newest}"));
            continue;
        };
        let content = match w.load(blob) {
            Ok(c) => c,
            Err(m) => {
                let lines: Vec<(usize, u32)> = ls.iter().map(|&(t, _)| (t, 0)).collect();
                w.fail(&lines, &format!("{path}: {m}"));
                continue;
            }
        };
        let n = line_count(&content);
        let mut lines = Vec::new();
        for (t, l) in ls {
            if l >= 1 && l <= n && l <= u64::from(u32::MAX) {
                lines.push((t, (l - 1) as u32));
            } else {
                w.fail(&[(t, 0)], &format!("{path}: no line {l} ({n} lines)"));
            }
        }
        w.push(
            newest,
            time,
            Pass {
                parent: 0,
                path: path.to_string(),
                blob,
                dir,
                content,
                lines,
            },
        );
    }
    drop(head);
    let mut reported = 0;
    while let Some((_, c)) = w.heap.pop() {
        if let Some(files) = w.pending.remove(&c) {
            w.step(c, files);
        }
        if w.resolved > reported {
            progress(w.resolved - reported);
            reported = w.resolved;
        }
    }
    if w.resolved > reported {
        progress(w.resolved - reported);
    }
    w.trackers
        .into_iter()
        .map(|t| {
            t.out.unwrap_or_else(|| {
                Outcome::Failed("the history walk ended without a result".into())
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(ob: u32, ol: u32, nb: u32, nl: u32) -> Hunk {
        Hunk { ob, ol, nb, nl }
    }

    #[test]
    fn maps_lines_around_hunks() {
        // Old: a b c d e; new: a b e (c, d deleted): old_start 3, 2 lines; new_start 2, 0.
        let del = [h(2, 2, 2, 0)];
        assert_eq!(map_line(&del, 0), Ok(0));
        assert_eq!(map_line(&del, 1), Ok(1));
        assert_eq!(map_line(&del, 2), Ok(4));
        // Old: a b c; new: a b X Y c (inserted after line 2).
        let ins = [h(2, 0, 2, 2)];
        assert_eq!(map_line(&ins, 1), Ok(1));
        assert_eq!(map_line(&ins, 2), Err(0));
        assert_eq!(map_line(&ins, 3), Err(0));
        assert_eq!(map_line(&ins, 4), Ok(2));
        // A replacement and a later insertion.
        let two = [h(0, 1, 0, 1), h(5, 0, 5, 3)];
        assert_eq!(map_line(&two, 0), Err(0));
        assert_eq!(map_line(&two, 4), Ok(4));
        assert_eq!(map_line(&two, 6), Err(1));
        assert_eq!(map_line(&two, 8), Ok(5));
    }

    #[test]
    fn diff_hunks_are_zero_based() {
        let old = b"a\nb\nc\nd\ne\n";
        let new = b"a\nb\ne\n";
        let hs = diff(old, new).unwrap();
        assert_eq!(hs.len(), 1);
        let k = hs[0];
        assert_eq!((k.ob, k.ol, k.nb, k.nl), (2, 2, 2, 0));
        let hs = diff(b"a\nb\nc\n", b"a\nb\nX\nY\nc\n").unwrap();
        let k = hs[0];
        assert_eq!((k.ob, k.ol, k.nb, k.nl), (2, 0, 2, 2));
    }

    fn text(lines: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        for l in lines {
            v.extend_from_slice(format!("line {l}\n").as_bytes());
        }
        v
    }

    proptest::proptest! {
        /// Every line the diff leaves unchanged maps to an old line with the same text, in
        /// increasing order; the changed lines are exactly the rest.
        #[test]
        fn unchanged_lines_map_to_equal_old_lines(
            old in proptest::collection::vec(0u8..6, 0..60),
            new in proptest::collection::vec(0u8..6, 0..60),
        ) {
            let (o, n) = (text(&old), text(&new));
            let hunks = diff(&o, &n).unwrap();
            let mut last: Option<u32> = None;
            let mut unchanged = 0usize;
            for (i, l) in new.iter().enumerate() {
                match map_line(&hunks, i as u32) {
                    Ok(ol) => {
                        proptest::prop_assert_eq!(old.get(ol as usize), Some(l));
                        proptest::prop_assert!(last.is_none_or(|p| ol > p));
                        last = Some(ol);
                        unchanged += 1;
                    }
                    Err(h) => {
                        let k = hunks[h];
                        proptest::prop_assert!(k.nb <= i as u32 && (i as u32) < k.nb + k.nl);
                    }
                }
            }
            let added: u32 = hunks.iter().map(|h| h.nl).sum();
            let removed: u32 = hunks.iter().map(|h| h.ol).sum();
            proptest::prop_assert_eq!(unchanged + added as usize, new.len());
            proptest::prop_assert_eq!(unchanged + removed as usize, old.len());
        }
    }

    #[test]
    fn rewritten_line_prefers_nearest_key() {
        let old = b"x\nif(gfx900) a;\nmid\nif(gfx900) b;\n";
        let hk = h(1, 3, 1, 1);
        assert_eq!(
            rewritten_line(&hk, 1, old, b"new gfx900", &["gfx900".into()]),
            Some(1)
        );
        assert_eq!(
            rewritten_line(&hk, 1, old, b"nothing", &["gfx906".into()]),
            None
        );
        // Same text without keys.
        assert_eq!(rewritten_line(&hk, 1, old, b"mid", &[]), Some(2));
    }
}
