//! The index of a repository: its source files and, for every name (identifier, or flag
//! written in a string such as `"-ngl"`), the files it occurs in. Built once per state of the
//! work tree (the commit and every source file's path, size and modification time) and kept
//! in the user's cache folder, one file per commit: a work tree changed since is indexed
//! again. The trail parses only the files the names lead to.

use crate::error::FollowError;
use crate::model::Skipped;
use rayon::prelude::*;
use rocpath_budget::MemoryBudget;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use crate::lang::Lang;

/// One indexed source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Path relative to the repository root, `/`-separated.
    pub path: String,
    /// Its language.
    pub lang: Lang,
}

/// A repository's index.
#[derive(Debug, Clone, Default)]
pub struct RepoIndex {
    /// The source files.
    pub files: Vec<SourceFile>,
    /// Name → the files (indices into `files`) it occurs in, ascending.
    pub names: HashMap<String, Vec<u32>>,
    /// Function name → the files (ascending) that seem to define it, by a lexical scan
    /// (`func F(`, `def f(`, `f(…) … {` in C/C++); the parse decides.
    pub defs: HashMap<String, Vec<u32>>,
    /// Files left out.
    pub skipped: Vec<Skipped>,
    /// The state of the work tree it was built from ([`work_tree_state`]).
    pub state: String,
}

/// Index limits.
#[derive(Debug, Clone, Copy)]
pub struct IndexOptions {
    /// Files larger than this are left out (generated sources, amalgamations).
    pub max_file_bytes: u64,
    /// Also index tests (`*_test.go`, `test_*.py`, `test/` and `tests/` folders).
    pub include_tests: bool,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            max_file_bytes: 2 << 20,
            include_tests: false,
        }
    }
}

/// Whether a relative path is a test.
pub fn is_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with("_test.go")
        || name.ends_with("_test.py")
        || (name.starts_with("test_") && name.ends_with(".py"))
        || path
            .split('/')
            .any(|c| matches!(c, "test" | "tests" | "testdata" | "unittest" | "unittests"))
}

const FORMAT: &str = "rocpath.follow.index/4";

/// The cache folder: `$ROCPATH_CACHE`, else `$XDG_CACHE_HOME/rocpath`, else
/// `~/.cache/rocpath`; the index lives in its `follow` folder.
pub fn cache_dir() -> Option<PathBuf> {
    let base = if let Some(d) = std::env::var_os("ROCPATH_CACHE").filter(|d| !d.is_empty()) {
        PathBuf::from(d)
    } else if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        PathBuf::from(d).join("rocpath")
    } else {
        PathBuf::from(std::env::var_os("HOME")?)
            .join(".cache")
            .join("rocpath")
    };
    Some(base.join("follow"))
}

pub(crate) fn cache_file(
    dir: &Path,
    root: &Path,
    commit: Option<&str>,
    opts: &IndexOptions,
) -> PathBuf {
    let mut h = Sha256::new();
    h.update(FORMAT.as_bytes());
    h.update(root.as_os_str().as_encoded_bytes());
    h.update([0]);
    h.update(commit.unwrap_or("-").as_bytes());
    h.update(opts.max_file_bytes.to_le_bytes());
    h.update([u8::from(opts.include_tests)]);
    let hex: String = h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    dir.join(format!("{hex}.idx"))
}

/// The index of `root` at `commit` as its work tree is now: from the cache when it was built
/// from the same state, else built and cached. Returns whether it came from the cache.
pub fn load_or_build(
    root: &Path,
    commit: Option<&str>,
    opts: &IndexOptions,
) -> Result<(RepoIndex, bool), FollowError> {
    load_or_build_within(root, commit, opts, None)
}

/// [`load_or_build`], each file read only when what its reading holds fits in `memory` (the
/// run's budget); a file that does not fit is skipped and said.
pub fn load_or_build_within(
    root: &Path,
    commit: Option<&str>,
    opts: &IndexOptions,
    memory: Option<&MemoryBudget>,
) -> Result<(RepoIndex, bool), FollowError> {
    match cache_dir() {
        Some(d) => cached_or_built(&d, root, commit, opts, memory),
        None => Ok((build(root, opts)?, false)),
    }
}

/// [`load_or_build`] with the cache in `dir`.
pub fn load_or_build_in(
    dir: &Path,
    root: &Path,
    commit: Option<&str>,
    opts: &IndexOptions,
) -> Result<(RepoIndex, bool), FollowError> {
    cached_or_built(dir, root, commit, opts, None)
}

fn cached_or_built(
    dir: &Path,
    root: &Path,
    commit: Option<&str>,
    opts: &IndexOptions,
    memory: Option<&MemoryBudget>,
) -> Result<(RepoIndex, bool), FollowError> {
    let root_abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let file = cache_file(dir, &root_abs, commit, opts);
    let (paths, skipped) = walk(root, opts)?;
    let state = work_tree_state(root, commit, &paths);
    if let Some(ix) = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| read_cache(&t, &state))
    {
        return Ok((ix, true));
    }
    let mut ix = index_paths(root, &paths, skipped, opts, memory);
    ix.state = state;
    // A cache that cannot be written only makes the next run slower.
    let _ = write_cache(&file, &ix);
    Ok((ix, false))
}

/// The state of a work tree: its commit and each source file's path, size and modification
/// time (a file edited, added or removed changes it).
pub fn work_tree_state(root: &Path, commit: Option<&str>, paths: &[PathBuf]) -> String {
    let mut h = Sha256::new();
    h.update(commit.unwrap_or("-").as_bytes());
    for p in paths {
        h.update([0]);
        h.update(rel(root, p).as_bytes());
        match std::fs::metadata(p) {
            Ok(m) => {
                h.update(m.len().to_le_bytes());
                if let Ok(d) = m
                    .modified()
                    .map(|t| t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default())
                {
                    h.update(d.as_secs().to_le_bytes());
                    h.update(d.subsec_nanos().to_le_bytes());
                }
            }
            Err(_) => h.update(b"?"),
        }
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Walks `root` and indexes every source file. Links are followed while they stay inside the
/// checkout; a link that leads out of it (a committed link to `/`), round to a folder walked
/// already, or nowhere is skipped and said (`Skipped`), never walked.
pub fn build(root: &Path, opts: &IndexOptions) -> Result<RepoIndex, FollowError> {
    build_within(root, opts, None)
}

/// [`build`] within the run's memory budget (see [`load_or_build_within`]).
pub fn build_within(
    root: &Path,
    opts: &IndexOptions,
    memory: Option<&MemoryBudget>,
) -> Result<RepoIndex, FollowError> {
    let (paths, skipped) = walk(root, opts)?;
    let mut ix = index_paths(root, &paths, skipped, opts, memory);
    ix.state = work_tree_state(root, None, &paths);
    Ok(ix)
}

/// The source files of `root` (sorted), and what the walk left out.
fn walk(root: &Path, opts: &IndexOptions) -> Result<(Vec<PathBuf>, Vec<Skipped>), FollowError> {
    if !root.is_dir() {
        return Err(FollowError::NotADirectory(root.to_path_buf()));
    }
    let mut paths = Vec::new();
    let mut skipped = Vec::new();
    let mut fence = rocpath_budget::Fence::new([root]);
    // The root is taken once, here; the walk's own entry for it (depth 0) always passes.
    let _ = fence.enter(root);
    let fenced = std::sync::Arc::new(std::sync::Mutex::new((fence, Vec::<Skipped>::new())));
    // An ignore file that must not be applied (a FIFO, or past the pattern limit) at the root:
    // the checkout is walked without ignore rules; below it, ignore_files_ok leaves the folder out.
    let refused: Vec<Skipped> = [".gitignore", ".git/info/exclude", ".ignore"]
        .iter()
        .filter_map(|f| rocpath_budget::special::ignore_file_problem(&root.join(f)))
        .map(|reason| Skipped {
            path: String::new(),
            reason: format!("{reason}; ignore rules not applied, every file is read"),
        })
        .collect();
    let apply = refused.is_empty();
    skipped.extend(refused);
    // Sorted, so that of two links to one folder the same one is walked on every machine.
    let walk = ignore::WalkBuilder::new(root)
        .follow_links(true)
        .require_git(false)
        .git_ignore(apply)
        .git_exclude(apply)
        .ignore(apply)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry({
            let fenced = fenced.clone();
            let root = root.to_path_buf();
            move |e| {
                fence_entry(&fenced, &root, e) && (!apply || ignore_files_ok(&fenced, &root, e))
            }
        })
        .build();
    for entry in walk {
        match entry {
            Ok(e) => {
                if e.file_type().is_some_and(|t| t.is_file())
                    && Lang::of(e.path()).is_some()
                    && (opts.include_tests || !is_test(&rel(root, e.path())))
                {
                    paths.push(e.into_path());
                }
            }
            Err(err) => skipped.push(Skipped {
                path: walk_error_path(&err, root),
                reason: format!("not walked: {err}"),
            }),
        }
    }
    let fenced = fenced.lock().unwrap_or_else(|p| p.into_inner());
    skipped.extend(fenced.1.iter().cloned());
    paths.sort();
    Ok((paths, skipped))
}

/// Indexes the files `paths` of `root`.
fn index_paths(
    root: &Path,
    paths: &[PathBuf],
    skipped: Vec<Skipped>,
    opts: &IndexOptions,
    memory: Option<&MemoryBudget>,
) -> RepoIndex {
    let per_file: Vec<_> = paths
        .par_iter()
        .map(|p| read_tokens(root, p, opts, memory))
        .collect();
    let mut ix = RepoIndex {
        skipped,
        ..RepoIndex::default()
    };
    for item in per_file {
        match item {
            Ok((file, tokens, defs)) => {
                let id = ix.files.len() as u32;
                ix.files.push(file);
                for t in tokens {
                    ix.names.entry(t).or_default().push(id);
                }
                for d in defs {
                    ix.defs.entry(d).or_default().push(id);
                }
            }
            Err(s) => ix.skipped.push(s),
        }
    }
    ix
}

type Fenced = std::sync::Mutex<(rocpath_budget::Fence, Vec<Skipped>)>;

/// Whether the walk takes entry `e`: every folder once and inside `root`, a linked file only
/// when it leads inside (a plain file of a folder taken is inside).
fn fence_entry(fenced: &Fenced, root: &Path, e: &ignore::DirEntry) -> bool {
    if e.depth() == 0 {
        return true;
    }
    let mut g = fenced.lock().unwrap_or_else(|p| p.into_inner());
    let (fence, skipped) = &mut *g;
    let verdict = if e.file_type().is_some_and(|t| t.is_dir()) {
        fence.enter(e.path())
    } else if e.path_is_symlink() {
        fence.read_once(e.path())
    } else {
        Ok(())
    };
    match verdict {
        Ok(()) => true,
        Err(refused) => {
            skipped.push(Skipped {
                path: rel(root, e.path()),
                reason: refused.to_string(),
            });
            false
        }
    }
}

/// A folder below the root whose ignore file must not be applied is left out, and said so.
fn ignore_files_ok(fenced: &Fenced, root: &Path, e: &ignore::DirEntry) -> bool {
    if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
        return true;
    }
    let problem = [".gitignore", ".ignore"]
        .iter()
        .find_map(|f| rocpath_budget::special::ignore_file_problem(&e.path().join(f)));
    let Some(reason) = problem else {
        return true;
    };
    let mut g = fenced.lock().unwrap_or_else(|p| p.into_inner());
    g.1.push(Skipped {
        path: rel(root, e.path()),
        reason: format!("{reason}; the folder is not read"),
    });
    false
}

fn walk_error_path(err: &ignore::Error, root: &Path) -> String {
    let mut e = err;
    loop {
        match e {
            ignore::Error::WithPath { path, .. } => return rel(root, path),
            ignore::Error::Loop { child, .. } => return rel(root, child),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                e = err
            }
            _ => return root.display().to_string(),
        }
    }
}

/// `path` relative to `root`, `/`-separated.
pub fn rel(root: &Path, path: &Path) -> String {
    let r = path.strip_prefix(root).unwrap_or(path);
    r.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// What reading one file for the index holds per byte of it: the bytes, and its names and
/// definitions as owned strings (an identifier-dense generated table comes near it).
const INDEX_BYTES_PER_BYTE: u64 = 4;

fn read_tokens(
    root: &Path,
    path: &Path,
    opts: &IndexOptions,
    memory: Option<&MemoryBudget>,
) -> Result<(SourceFile, Vec<String>, Vec<String>), Skipped> {
    let relp = rel(root, path);
    let skip = |reason: String| Skipped {
        path: relp.clone(),
        reason,
    };
    if rocpath_budget::deadline::passed() {
        return Err(skip(rocpath_budget::deadline::skipped()));
    }
    let meta = std::fs::metadata(path).map_err(|e| skip(format!("cannot read: {e}")))?;
    if meta.len() > opts.max_file_bytes {
        return Err(skip(format!(
            "{} bytes, over the {} byte limit for a source file (generated?); raise --max-file-bytes to read it",
            meta.len(),
            opts.max_file_bytes
        )));
    }
    let _held = match memory {
        Some(m) => Some(
            m.try_reserve(meta.len().saturating_mul(INDEX_BYTES_PER_BYTE))
                .map_err(|e| skip(format!("not indexed: reading it {e}")))?,
        ),
        None => None,
    };
    let bytes = std::fs::read(path).map_err(|e| skip(format!("cannot read: {e}")))?;
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err(skip("binary (a NUL byte in its first 8 KiB)".into()));
    }
    let lang = Lang::of(path).ok_or_else(|| skip("not a source file".into()))?;
    let depth = crate::nesting::depth(lang, &bytes);
    if depth > crate::nesting::MAX_NESTING {
        return Err(skip(format!(
            "nested more than {} levels deep (generated?); not read",
            crate::nesting::MAX_NESTING
        )));
    }
    let mut tokens = tokens(&bytes);
    tokens.sort_unstable();
    tokens.dedup();
    let mut defs = definitions(lang, &bytes);
    defs.sort_unstable();
    defs.dedup();
    Ok((
        SourceFile {
            path: relp.clone(),
            lang,
        },
        tokens.into_iter().map(str::to_string).collect(),
        defs.into_iter().map(str::to_string).collect(),
    ))
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The names in a source text: identifiers, and flags written at the start of a string
/// (`"-ngl"`, `'--n-gpu-layers'`). Bytes that are not UTF-8 end a name.
pub fn tokens(src: &[u8]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        if is_ident_start(b) {
            let s = i;
            while i < src.len() && is_ident(src[i]) {
                i += 1;
            }
            if let Ok(t) = std::str::from_utf8(&src[s..i]) {
                out.push(t);
            }
            continue;
        }
        if (b == b'"' || b == b'\'') && src.get(i + 1) == Some(&b'-') {
            let s = i + 1;
            let mut j = s;
            while j < src.len() && (is_ident(src[j]) || src[j] == b'-') {
                j += 1;
            }
            if j - s >= 2 && src[s..j].iter().any(u8::is_ascii_alphabetic) {
                if let Ok(t) = std::str::from_utf8(&src[s..j]) {
                    out.push(t);
                }
            }
        }
        i += 1;
    }
    out
}

const NOT_FUNCTIONS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "return",
    "sizeof",
    "defined",
    "elif",
    "else",
    "decltype",
    "alignof",
    "static_assert",
    "noexcept",
    "throw",
    "case",
    "do",
];

/// Names that look defined as functions in a source text: `func F(` and `func (r T) F(` in
/// Go, `def f(` in Python, and in C/C++ a name followed by `(…)` and then `{` (after
/// qualifiers, an initializer list or a trailing return type), not a keyword.
pub fn definitions(lang: Lang, src: &[u8]) -> Vec<&str> {
    let mut out = Vec::new();
    let word_before = |i: usize| -> &[u8] {
        let mut e = i;
        while e > 0 && src[e - 1] == b' ' {
            e -= 1;
        }
        let mut s = e;
        while s > 0 && is_ident(src[s - 1]) {
            s -= 1;
        }
        &src[s..e]
    };
    let mut i = 0;
    while i < src.len() {
        if !is_ident_start(src[i]) || (i > 0 && is_ident(src[i - 1])) {
            i += 1;
            continue;
        }
        let s = i;
        while i < src.len() && is_ident(src[i]) {
            i += 1;
        }
        let name = &src[s..i];
        let mut j = i;
        while j < src.len() && src[j] == b' ' {
            j += 1;
        }
        if src.get(j) != Some(&b'(') {
            continue;
        }
        let is_def = match lang {
            Lang::Go => {
                let w = word_before(s);
                w == b"func"
                    || (s > 0 && src[..s].trim_ascii_end().ends_with(b")") && {
                        let line_start = memchr::memrchr(b'\n', &src[..s]).map_or(0, |k| k + 1);
                        src[line_start..].starts_with(b"func (")
                    })
            }
            Lang::Python => word_before(s) == b"def",
            Lang::Cpp => {
                let n = std::str::from_utf8(name).unwrap_or("if");
                !NOT_FUNCTIONS.contains(&n) && body_follows(src, j)
            }
        };
        if is_def {
            if let Ok(n) = std::str::from_utf8(name) {
                out.push(n);
            }
        }
    }
    out
}

/// Whether the parenthesis at `open` closes and is followed by a function body.
fn body_follows(src: &[u8], open: usize) -> bool {
    let mut depth = 0usize;
    let mut k = open;
    while k < src.len() && k < open + 4096 {
        match src[k] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b';' | b'{' | b'}' => return false,
            _ => {}
        }
        k += 1;
    }
    // After the parameters: qualifiers, `->` types, an initializer list; then `{`.
    let rest = &src[(k + 1).min(src.len())..src.len().min(k + 400)];
    for &b in rest {
        match b {
            b'{' => return true,
            b';' | b'}' | b'=' => return false,
            _ => {}
        }
    }
    false
}

fn write_cache(path: &Path, ix: &RepoIndex) -> std::io::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    writeln!(w, "{FORMAT}")?;
    writeln!(w, "W\t{}", ix.state)?;
    for f in &ix.files {
        writeln!(w, "F\t{}\t{}", f.lang.as_str(), f.path)?;
    }
    for s in &ix.skipped {
        writeln!(w, "S\t{}\t{}", s.path, s.reason.replace(['\n', '\t'], " "))?;
    }
    let mut names: Vec<_> = ix.names.iter().map(|(n, i)| ("T", n, i)).collect();
    names.extend(ix.defs.iter().map(|(n, i)| ("D", n, i)));
    names.sort();
    for (tag, n, ids) in names {
        write!(w, "{tag}\t{n}\t")?;
        for (k, id) in ids.iter().enumerate() {
            if k > 0 {
                w.write_all(b",")?;
            }
            write!(w, "{id}")?;
        }
        w.write_all(b"\n")?;
    }
    w.flush()?;
    drop(w);
    std::fs::rename(&tmp, path)
}

/// The cached index, when it was built from the work tree state `state`.
fn read_cache(text: &str, state: &str) -> Option<RepoIndex> {
    let mut lines = text.lines();
    if lines.next()? != FORMAT || lines.next()?.strip_prefix("W\t")? != state {
        return None;
    }
    let mut ix = RepoIndex {
        state: state.to_string(),
        ..RepoIndex::default()
    };
    for line in lines {
        let (tag, rest) = line.split_once('\t')?;
        let (a, b) = rest.split_once('\t')?;
        match tag {
            "F" => ix.files.push(SourceFile {
                path: b.to_string(),
                lang: Lang::parse_name(a)?,
            }),
            "S" => ix.skipped.push(Skipped {
                path: a.to_string(),
                reason: b.to_string(),
            }),
            "T" | "D" => {
                let ids = b
                    .split(',')
                    .map(|s| {
                        s.parse::<u32>()
                            .ok()
                            .filter(|&i| (i as usize) < ix.files.len())
                    })
                    .collect::<Option<Vec<u32>>>()?;
                if tag == "T" {
                    ix.names.insert(a.to_string(), ids);
                } else {
                    ix.defs.insert(a.to_string(), ids);
                }
            }
            _ => return None,
        }
    }
    Some(ix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_take_identifiers_and_quoted_flags() {
        let t = tokens(b"x := f(\"-ngl\", a_b) // 'x' \"--n-gpu-layers\" \"-\" q");
        for want in ["-ngl", "ngl", "a_b", "--n-gpu-layers", "gpu", "layers"] {
            assert!(t.contains(&want), "{want} in {t:?}");
        }
        assert!(!t.contains(&"-"));
    }

    #[test]
    fn definitions_are_found_lexically() {
        let go = b"func F(a int) {}\nfunc (s *T) M(x int) (y int) {\n\tG(x)\n}\n";
        assert_eq!(definitions(Lang::Go, go), vec!["F", "M"]);
        let py = b"def f(x):\n    g(x)\n";
        assert_eq!(definitions(Lang::Python, py), vec!["f"]);
        let c = b"int f(int a) {\n  if (a) { g(a); }\n}\nint h(int);\nA::A(int x) : m(x) {}\n";
        assert_eq!(definitions(Lang::Cpp, c), vec!["f", "A", "m"]);
    }

    #[test]
    fn cache_round_trips() {
        let mut ix = RepoIndex {
            state: "s1".into(),
            ..RepoIndex::default()
        };
        ix.files.push(SourceFile {
            path: "a/b.go".into(),
            lang: Lang::Go,
        });
        ix.names.insert("NumGPU".into(), vec![0]);
        ix.skipped.push(Skipped {
            path: "big.c".into(),
            reason: "too\tlarge".into(),
        });
        let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
        let f = d.path().join("x.idx");
        write_cache(&f, &ix).unwrap_or_else(|e| unreachable!("{e}"));
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        assert!(read_cache(&text, "s2").is_none(), "another work tree state");
        let back = read_cache(&text, "s1").unwrap_or_default();
        assert_eq!(back.files, ix.files);
        assert_eq!(back.names, ix.names);
        assert_eq!(back.skipped[0].reason, "too large");
    }
}
