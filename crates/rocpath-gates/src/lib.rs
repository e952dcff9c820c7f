//! Source gates: where the libraries of the ROCm stack decide by GPU generation.
//!
//! [`scan`] walks source checkouts (MIOpen, rocBLAS, Tensile, hipBLASLt, Composable Kernel,
//! ggml, Ollama, …) and finds every place where behaviour depends on the GPU target:
//!
//! - string and list gates (`StartsWith(name, "gfx94")`, `{"gfx900", "gfx906"}`, regexes);
//! - preprocessor gates (`#if defined(__gfx90a__)`, `__GFX12__`, ggml's `RDNA4`);
//! - capability predicates (`IsXdlopsSupport`, `ck::is_xdl_supported`,
//!   `GGML_CUDA_CC_IS_RDNA4`, `cc >= GGML_CUDA_CC_VEGA20`), resolved through their
//!   definition in the scanned sources when there is one, else through the architecture table;
//! - build lists (CMake `GPU_TARGETS`/`AMDGPU_TARGETS`, presets, Dockerfile removals, Tensile
//!   logic folders such as `vega10`, `aldebaran`, `navi31`).
//!
//! C/C++/HIP, Python and Go are read with tree-sitter grammars: comments and log messages
//! are not gates, the branch a gate guards tells whether it includes or excludes the targets
//! it covers, and the enclosing function is named (`ConvMlirIgemmFwd::IsApplicable`). Each
//! gate is `confirmed`/`code_verified`; [`for_target`] reads every gate for one processor
//! as the research's three layers (Build / Selection / Fallback).

pub mod buildfiles;
mod model;
pub mod syntax;
pub mod targets;

pub use model::*;
pub use rocpath_git::{Head, head, loose, repo_name};

use aho_corasick::AhoCorasick;
use rayon::prelude::*;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use syntax::{Found, Lang};
use targets::Match;

/// Limits and choices of a scan.
#[derive(Debug, Clone)]
pub struct Options {
    /// Files larger than this are not read (generated tables, data); each is reported.
    pub max_file_bytes: u64,
    /// Also scan test folders (`test`, `tests`, `gtest`, …).
    pub include_tests: bool,
    /// The run's memory budget: a file is read only when its size fits (each file held while
    /// it is scanned), else reported, whatever `max_file_bytes` allows.
    pub memory: Option<rocpath_budget::MemoryBudget>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_file_bytes: 8 << 20,
            include_tests: false,
            memory: None,
        }
    }
}

/// What a scan of one or more checkouts found.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    /// The checkouts.
    pub repos: Vec<RepoSummary>,
    /// Every gate, ordered by repository, path and line.
    pub gates: Vec<Gate>,
    /// Files or folders that could not be read fully.
    pub issues: Vec<ScanIssue>,
}

/// Which reader a file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A grammar.
    Code(Lang),
    /// CMake.
    Cmake,
    /// JSON.
    Json,
    /// Shell script or Dockerfile.
    Shell,
}

impl FileKind {
    fn language(self) -> Language {
        match self {
            FileKind::Code(Lang::Cpp) => Language::Cpp,
            FileKind::Code(Lang::Python) => Language::Python,
            FileKind::Code(Lang::Go) => Language::Go,
            FileKind::Cmake => Language::Cmake,
            FileKind::Json => Language::Json,
            FileKind::Shell => Language::Shell,
        }
    }
}

/// The reader for a path, by name; `None` for files that hold no gates rocpath reads
/// (documentation, assembly, data).
pub fn file_kind(path: &str) -> Option<FileKind> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name == "CMakeLists.txt" || name.ends_with(".cmake") {
        return Some(FileKind::Cmake);
    }
    if name.starts_with("Dockerfile") || name.ends_with(".dockerfile") {
        return Some(FileKind::Shell);
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "c" | "cc" | "cpp" | "cxx" | "h" | "hh" | "hpp" | "hxx" | "cu" | "cuh" | "hip" | "inl"
        | "ipp" | "cl" => FileKind::Code(Lang::Cpp),
        "py" => FileKind::Code(Lang::Python),
        "go" => FileKind::Code(Lang::Go),
        "json" => FileKind::Json,
        "sh" => FileKind::Shell,
        _ => return None,
    })
}

/// Folders that hold tests, documentation or vendored third-party code.
fn skipped_dir(name: &str, include_tests: bool) -> bool {
    matches!(
        name,
        ".git" | "docs" | "doc" | ".github" | "node_modules" | "third_party" | "thirdparty"
    ) || (!include_tests
        && matches!(
            name,
            "test" | "tests" | "gtest" | "testing" | "unittests" | "unit_tests" | "testdata"
        ))
}

static NEEDLES: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    let mut pats: Vec<String> = vec!["gfx".into(), "GFX".into(), "GGML_CUDA_CC_".into()];
    pats.extend(targets::PREDICATES.iter().map(|(n, _)| n.to_string()));
    pats.extend(targets::FAMILY_MACROS.iter().map(|(n, _)| n.to_string()));
    AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .build(pats)
        .ok()
});

/// Candidate occurrences (offset, length) of target names and predicates in a buffer.
pub fn candidates(src: &[u8]) -> Vec<(usize, usize)> {
    match NEEDLES.as_ref() {
        Some(ac) => ac
            .find_iter(src)
            .map(|m| (m.start(), m.end() - m.start()))
            .collect(),
        None => Vec::new(),
    }
}

/// Error reading one file's contents as gates.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Too large to read.
    #[error(
        "not read: {size} bytes is more than the {limit}-byte limit (a generated file?); gates in it are not reported"
    )]
    TooLarge {
        /// Size.
        size: u64,
        /// Limit.
        limit: u64,
    },
    /// The grammar gave up.
    #[error("could not be parsed as {0}; gates in it are not reported")]
    Unparsed(&'static str),
}

/// Gates of one file's bytes (`path` picks the reader). Binary files have none.
pub fn scan_bytes(path: &str, src: &[u8]) -> Result<Vec<Found>, FileError> {
    let Some(kind) = file_kind(path) else {
        return Ok(Vec::new());
    };
    if memchr::memchr(0, &src[..src.len().min(8192)]).is_some() {
        return Ok(Vec::new());
    }
    let cands = candidates(src);
    if cands.is_empty() {
        return Ok(Vec::new());
    }
    Ok(match kind {
        FileKind::Code(l) => {
            syntax::analyze(l, src, &cands).ok_or(FileError::Unparsed(l.as_str()))?
        }
        FileKind::Cmake => buildfiles::cmake(src),
        FileKind::Json => buildfiles::json(src),
        FileKind::Shell => buildfiles::shell(src),
    })
}

struct FileGates {
    path: String,
    kind: FileKind,
    sha256: String,
    found: Vec<Found>,
}

/// Scans checkouts. A file that cannot be read is reported in `issues` and the scan goes on;
/// an error is returned only when a root itself is missing.
pub fn scan(roots: &[PathBuf], opts: &Options) -> std::io::Result<Report> {
    scan_with(roots, opts, &|_| {}, &|_| {})
}

/// What reading one file gave: its gates (when it has any), its bytes, whether it was parsed;
/// or why it was not read (path, message, class).
type FileResult = Result<(Option<FileGates>, u64, bool), (String, String, Class)>;

/// [`scan`], reporting progress in bytes: `more_total(n)` when a checkout's files are listed
/// (`n` bytes to read), `done(n)` as each file is handled (from the worker threads).
pub fn scan_with(
    roots: &[PathBuf],
    opts: &Options,
    more_total: &dyn Fn(u64),
    done: &(dyn Fn(u64) + Sync),
) -> std::io::Result<Report> {
    let mut report = Report::default();
    let mut all: Vec<(usize, FileGates)> = Vec::new();
    let mut dirs: Vec<(usize, String)> = Vec::new();
    for (ri, root) in roots.iter().enumerate() {
        let (name, head) = open_root(root, &mut report)?;
        let files = list_files(root, &name, opts.include_tests, ri, &mut dirs, &mut report);
        let limit = opts.max_file_bytes;
        more_total(files.iter().map(|f| f.2.min(limit)).sum());
        let results: Vec<FileResult> = files
            .par_iter()
            .map(|(p, rel, size)| {
                done((*size).min(limit));
                read_file(p, rel, *size, limit, opts.memory.as_ref())
            })
            .collect();
        let mut summary = RepoSummary {
            name: name.clone(),
            root: root.display().to_string(),
            commit: head.commit.clone(),
            branch: head.branch.clone(),
            files: 0,
            bytes: 0,
            parsed: 0,
            gates: 0,
        };
        for r in results {
            match r {
                Ok((fg, bytes, parsed)) => {
                    summary.files += 1;
                    summary.bytes += bytes;
                    summary.parsed += u64::from(parsed);
                    all.extend(fg.map(|fg| (ri, fg)));
                }
                Err((rel, msg, class)) => report.issues.push(issue(&name, &rel, msg, class)),
            }
        }
        report.repos.push(summary);
    }
    resolve(&mut report, &all, dirs);
    Ok(report)
}

/// A checkout's name and HEAD; a root that is missing or no folder is an error, one without
/// git history an issue (gates then carry no commit).
fn open_root(root: &Path, report: &mut Report) -> std::io::Result<(String, rocpath_git::Head)> {
    let meta = std::fs::metadata(root).map_err(|e| {
        std::io::Error::new(e.kind(), format!("{}: cannot open: {e}", root.display()))
    })?;
    if !meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{}: not a folder", root.display()),
        ));
    }
    let name = repo_name(root);
    let head = rocpath_git::head(root);
    if let Some(msg) = &head.problem {
        report.issues.push(ScanIssue {
            repo: name.clone(),
            path: String::new(),
            message: msg.clone(),
            evidence: Evidence::new(Class::Unresolved, Proof::CodeVerified, "gates.no_commit")
                .at(Locator::file(root.display().to_string())),
        });
    }
    Ok((name, head))
}

/// The files of a checkout to read (path, relative path, size), walked gitignore-aware like
/// rg; Tensile logic folders go to `dirs`, walk errors and refused ignore files to issues.
fn list_files(
    root: &Path,
    name: &str,
    include_tests: bool,
    ri: usize,
    dirs: &mut Vec<(usize, String)>,
    report: &mut Report,
) -> Vec<(PathBuf, String, u64)> {
    let mut files = Vec::new();
    let (walker, refused) = walker(root, include_tests);
    for entry in walker {
        let e = match entry {
            Ok(e) => e,
            Err(err) => {
                report
                    .issues
                    .push(issue(name, "", format!("{err}"), Class::Limited));
                continue;
            }
        };
        let rel = rel_path(root, e.path());
        let Some(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if buildfiles::tensile_logic(&rel).is_some() {
                dirs.push((ri, rel));
            }
            continue;
        }
        if !ft.is_file() || file_kind(&rel).is_none() {
            continue;
        }
        let size = e.metadata().map(|m| m.len()).unwrap_or(0);
        files.push((e.into_path(), rel, size));
    }
    report_refused(&refused, name, &mut report.issues);
    files
}

/// Reads and scans one file, within the deadline, the size limit and the memory budget.
fn read_file(
    p: &Path,
    rel: &str,
    size: u64,
    limit: u64,
    memory: Option<&rocpath_budget::MemoryBudget>,
) -> FileResult {
    let refuse = |msg: String, class: Class| Err((rel.to_string(), msg, class));
    if rocpath_budget::deadline::passed() {
        return refuse(rocpath_budget::deadline::skipped(), Class::Limited);
    }
    if size > limit {
        return refuse(
            FileError::TooLarge { size, limit }.to_string(),
            Class::Limited,
        );
    }
    let _held = match memory {
        Some(m) => match m.try_reserve(size) {
            Ok(r) => Some(r),
            Err(e) => return refuse(format!("not read: it {e}"), Class::Limited),
        },
        None => None,
    };
    let src = match std::fs::read(p) {
        Ok(b) => b,
        Err(e) => return refuse(e.to_string(), Class::Unresolved),
    };
    let Some(kind) = file_kind(rel) else {
        return refuse("unknown kind".into(), Class::Unresolved);
    };
    let found = match scan_bytes(rel, &src) {
        Ok(f) => f,
        Err(e) => return refuse(e.to_string(), Class::Limited),
    };
    let parsed = matches!(kind, FileKind::Code(_)) && !candidates_empty(&found, &src);
    if found.is_empty() {
        return Ok((None, src.len() as u64, parsed));
    }
    let mut fg = FileGates {
        path: rel.to_string(),
        kind,
        sha256: hex(&Sha256::digest(&src)),
        found,
    };
    if std::str::from_utf8(&src).is_err() {
        // Read as bytes; the line text is shown with replacement characters.
        for f in &mut fg.found {
            f.references.retain(|r| !r.contains('\u{FFFD}'));
        }
    }
    Ok((Some(fg), src.len() as u64, parsed))
}

/// Gates across the files of every checkout: predicates resolved against their definitions,
/// the Tensile logic folders, sorted; files read as bytes said once each.
fn resolve(report: &mut Report, all: &[(usize, FileGates)], dirs: Vec<(usize, String)>) {
    for (ri, fg) in all {
        if fg.found.iter().any(|f| f.text.contains('\u{FFFD}')) {
            let name = &report.repos[*ri].name;
            report.issues.push(issue(
                name,
                &fg.path,
                "not UTF-8: read as bytes, line text shown with replacement characters".into(),
                Class::Limited,
            ));
        }
    }
    let definitions = predicate_definitions(all);
    let mut gates = Vec::new();
    for (ri, fg) in all {
        let repo = &report.repos[*ri];
        for f in &fg.found {
            if let Some(g) = to_gate(repo, fg, f, &definitions) {
                gates.push(g);
            }
        }
    }
    for (ri, rel) in dirs {
        gates.extend(tensile_gate(&report.repos[ri], &rel));
    }
    gates.sort_by(|a, b| (&a.repo, &a.path, a.line).cmp(&(&b.repo, &b.path, b.line)));
    for r in &mut report.repos {
        r.gates = gates.iter().filter(|g| g.repo == r.name).count() as u64;
    }
    report.gates = gates;
}

fn candidates_empty(found: &[Found], src: &[u8]) -> bool {
    found.is_empty() && candidates(src).is_empty()
}

type Refused = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// The walk of one checkout (gitignore-aware, like rg). An ignore file that must not be
/// applied (`rocpath_budget::special::ignore_file_problem`) is not read: at the root, the
/// walk goes on without the checkout's ignore rules; in a subfolder, that folder is not walked.
/// Either is named in the returned list as the walk reaches it.
fn walker(root: &Path, include_tests: bool) -> (ignore::Walk, Refused) {
    use rocpath_budget::special::ignore_file_problem;
    let refused: Refused = Default::default();
    let mut at_root: Vec<String> = [root.join(".gitignore"), root.join(".git/info/exclude")]
        .iter()
        .filter_map(|p| ignore_file_problem(p))
        .collect();
    let apply = at_root.is_empty();
    if !apply {
        at_root.push(format!(
            "{}: ignore rules not applied; every file is read",
            root.display()
        ));
    }
    refused
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .extend(at_root);
    let seen = refused.clone();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(apply)
        .git_exclude(apply)
        .ignore(apply)
        .parents(false)
        .require_git(false)
        .filter_entry(move |e| {
            let n = e.file_name().to_string_lossy();
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if !is_dir || skipped_dir(&n, include_tests) {
                return !is_dir;
            }
            if !apply || e.depth() == 0 {
                return true;
            }
            let Some(msg) = ignore_file_problem(&e.path().join(".gitignore")) else {
                return true;
            };
            let mut list = seen.lock().unwrap_or_else(|p| p.into_inner());
            list.push(format!("{msg}; the folder is not read"));
            false
        })
        .build();
    (walk, refused)
}

/// Adds the ignore files the walk refused to `issues`.
fn report_refused(refused: &Refused, repo: &str, issues: &mut Vec<ScanIssue>) {
    let list = refused.lock().unwrap_or_else(|p| p.into_inner());
    for msg in list.iter() {
        issues.push(issue(repo, "", msg.clone(), Class::Limited));
    }
}

fn issue(repo: &str, path: &str, message: String, class: Class) -> ScanIssue {
    ScanIssue {
        repo: repo.to_string(),
        path: path.to_string(),
        message,
        evidence: Evidence::new(class, Proof::CodeVerified, "gates.unreadable")
            .at(Locator::file(path.to_string())),
    }
}

fn rel_path(root: &Path, p: &Path) -> String {
    let r = p.strip_prefix(root).unwrap_or(p);
    r.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// `repo:path:line@commit` (short commit).
pub fn at(repo: &str, path: &str, line: Option<u64>, commit: Option<&str>) -> String {
    let mut s = format!("{repo}:{path}");
    if let Some(l) = line {
        s.push_str(&format!(":{l}"));
    }
    if let Some(c) = commit {
        s.push('@');
        s.push_str(c.get(..12).unwrap_or(c));
    }
    s
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Predicates defined in the scanned sources: function name → (covers, where). A function
/// counts when its name is a known predicate or reads like one (`Is…Support…`,
/// `is_…_supported`, `…_available`) and its own gates include targets.
fn predicate_definitions(all: &[(usize, FileGates)]) -> BTreeMap<String, (Vec<String>, String)> {
    let mut defs: BTreeMap<String, (Vec<String>, String)> = BTreeMap::new();
    for (_, fg) in all {
        for f in &fg.found {
            let Some(func) = &f.function else { continue };
            let base = func.rsplit("::").next().unwrap_or(func).to_string();
            let looks = targets::predicate(&base).is_some()
                || (base.starts_with("Is")
                    && (base.contains("Support") || base.contains("Hardware")))
                || (base.starts_with("is_") && base.ends_with("supported"))
                || base.ends_with("_available");
            if !looks || f.effect != Effect::Includes || f.predicate.is_some() {
                continue;
            }
            let e = defs
                .entry(base)
                .or_insert_with(|| (Vec::new(), format!("{}:{}", fg.path, f.line)));
            for p in &f.patterns {
                e.0.extend(p.covers.iter().cloned());
            }
        }
    }
    for v in defs.values_mut() {
        targets::dedup(&mut v.0);
    }
    defs
}

fn to_gate(
    repo: &RepoSummary,
    fg: &FileGates,
    f: &Found,
    defs: &BTreeMap<String, (Vec<String>, String)>,
) -> Option<Gate> {
    let mut patterns = f.patterns.clone();
    let mut rule = match f.kind {
        Kind::String => "gates.string",
        Kind::List => "gates.list",
        Kind::Preprocessor => "gates.preprocessor",
        Kind::Predicate => "gates.predicate",
        Kind::Compare => "gates.compare",
        Kind::BuildList => "gates.build_list",
        Kind::BuildFilter => "gates.build_filter",
        Kind::TensileLogic => "gates.tensile_logic",
        Kind::ArtifactRemoval => "gates.artifact_removal",
    };
    let (class, note) = match &f.predicate {
        Some(pred) => resolve_predicate(pred, defs, &mut patterns, &mut rule),
        None => (Class::Confirmed, String::new()),
    };
    let mut covers: Vec<String> = patterns
        .iter()
        .flat_map(|p| p.covers.iter().cloned())
        .collect();
    targets::dedup(&mut covers);
    if covers.is_empty() && class == Class::Confirmed {
        return None;
    }
    let layer = match f.kind {
        Kind::BuildList | Kind::BuildFilter | Kind::TensileLogic | Kind::ArtifactRemoval => {
            Layer::Build
        }
        _ => Layer::Selection,
    };
    let guards = f
        .function
        .as_ref()
        .map(
            |func| match func.rsplit_once("::").or_else(|| func.rsplit_once('.')) {
                Some((cls, _)) => cls.rsplit("::").next().unwrap_or(cls).to_string(),
                None => func.clone(),
            },
        )
        .or_else(|| f.symbol.clone());
    let full = format!("{}/{}", repo.root.trim_end_matches('/'), fg.path);
    let mut ev = Evidence::new(class, Proof::CodeVerified, rule).at(Locator::file(full)
        .with_line(f.line)
        .with_sha256(fg.sha256.clone()));
    if !note.is_empty() {
        ev = ev.because(note);
    }
    Some(Gate {
        repo: repo.name.clone(),
        path: fg.path.clone(),
        line: Some(f.line),
        commit: repo.commit.clone(),
        language: fg.kind.language(),
        kind: f.kind,
        layer,
        effect: f.effect,
        alternative: f.alternative,
        patterns,
        covers,
        function: f.function.clone(),
        symbol: f.symbol.clone(),
        guards,
        text: f.text.clone(),
        references: f.references.clone(),
        at: at(&repo.name, &fg.path, Some(f.line), repo.commit.as_deref()),
        evidence: ev,
    })
}

/// A predicate call's targets: by its definition when the scan saw it (the definition site
/// itself is not a call), else by the architecture feature it names; the pattern is added, and
/// the class and why returned (the rule changes when resolved by feature or not at all).
fn resolve_predicate(
    pred: &str,
    defs: &BTreeMap<String, (Vec<String>, String)>,
    patterns: &mut Vec<Pattern>,
    rule: &mut &'static str,
) -> (Class, String) {
    if let Some((covers, site)) = defs.get(pred) {
        patterns.push(Pattern {
            text: pred.to_string(),
            how: Match::Definition,
            covers: covers.clone(),
        });
        return (
            Class::Confirmed,
            format!("{pred} resolved through its definition at {site}"),
        );
    }
    let Some(feat) = targets::predicate(pred) else {
        return (Class::Confirmed, String::new());
    };
    let covers = feat.covers();
    let (class, note) = if covers.is_empty() {
        *rule = "gates.predicate_unresolved";
        (
            Class::Unresolved,
            format!(
                "{pred}: its definition is not in the scanned sources; the targets it accepts are unresolved"
            ),
        )
    } else {
        *rule = "gates.predicate_by_feature";
        (
            Class::Inferred,
            format!(
                "{pred} resolved through the architecture table ({})",
                feat.describe()
            ),
        )
    };
    patterns.push(Pattern {
        text: pred.to_string(),
        how: Match::Feature,
        covers,
    });
    (class, note)
}

/// How one gate reads for one processor, if it concerns it: covered → its effect
/// (Selection or Build); not covered by a gate that includes others → falls back when there
/// is an alternative branch, else excluded (not listed); not covered by an excluding gate →
/// no row (the target passes).
pub fn verdict(g: &Gate, arch: &str) -> Option<(Layer, Verdict, bool)> {
    let covered = g.covers.iter().any(|c| c == arch);
    match (covered, g.effect) {
        (true, Effect::Includes) => Some((g.layer, Verdict::Includes, true)),
        (true, Effect::Excludes) => Some((g.layer, Verdict::Excludes, true)),
        (false, Effect::Includes) if g.alternative && g.layer != Layer::Build => {
            Some((Layer::Fallback, Verdict::FallsBack, false))
        }
        (false, Effect::Includes) => Some((g.layer, Verdict::Excludes, false)),
        (false, Effect::Excludes) => None,
    }
}

/// The three-layer table of one processor: every gate that concerns it, Build first.
pub fn for_target(report: &Report, arch: &str) -> Vec<TargetRow> {
    let mut rows: Vec<TargetRow> = report
        .gates
        .iter()
        .enumerate()
        .filter_map(|(i, g)| {
            let (layer, verdict, named) = verdict(g, arch)?;
            let (class, rule, note) = match (named, g.evidence.class) {
                (true, Class::Confirmed) => (Class::Confirmed, "gates.target_named", String::new()),
                (true, c) => (c, "gates.target_by_predicate", g.evidence.note.clone()),
                (false, Class::Unresolved) => (Class::Unresolved, "gates.target_by_predicate", g.evidence.note.clone()),
                (false, _) if verdict == Verdict::FallsBack => (
                    Class::Inferred,
                    "gates.target_falls_back",
                    format!("{arch} is not among the targets this gate covers; it takes the alternative branch"),
                ),
                (false, _) => (
                    Class::Inferred,
                    "gates.target_not_listed",
                    format!("{arch} is not among the targets this gate covers"),
                ),
            };
            let mut ev = Evidence::new(class, Proof::CodeVerified, rule);
            ev.sources = g.evidence.sources.clone();
            if !note.is_empty() {
                ev = ev.because(note);
            }
            Some(TargetRow {
                arch: arch.to_string(),
                layer,
                verdict,
                named,
                gate: i,
                repo: g.repo.clone(),
                path: g.path.clone(),
                line: g.line,
                function: g.function.clone().or_else(|| g.symbol.clone()),
                guards: g.guards.clone(),
                kind: g.kind,
                at: g.at.clone(),
                evidence: ev,
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        (a.layer, !a.named, &a.repo, &a.path, a.line)
            .cmp(&(b.layer, !b.named, &b.repo, &b.path, b.line))
    });
    rows
}

/// Gates found in a list of (path, bytes) — the timeline's per-tag scan. Predicates are
/// resolved through definitions among the same files, else through the architecture table.
pub fn gates_of_files(
    repo: &RepoSummary,
    files: Vec<(String, Vec<u8>)>,
) -> (Vec<Gate>, Vec<ScanIssue>) {
    let mut issues = Vec::new();
    let mut all = Vec::new();
    for (path, src) in files {
        let Some(kind) = file_kind(&path) else {
            continue;
        };
        match scan_bytes(&path, &src) {
            Ok(found) if !found.is_empty() => all.push((
                0usize,
                FileGates {
                    path,
                    kind,
                    sha256: hex(&Sha256::digest(&src)),
                    found,
                },
            )),
            Ok(_) => {}
            Err(e) => issues.push(issue(&repo.name, &path, e.to_string(), Class::Limited)),
        }
    }
    let defs = predicate_definitions(&all);
    let gates = all
        .iter()
        .flat_map(|(_, fg)| {
            fg.found
                .iter()
                .filter_map(|f| to_gate(repo, fg, f, &defs))
                .collect::<Vec<_>>()
        })
        .collect();
    (gates, issues)
}

/// Gates of files already read and analysed (path, sha256, findings) — the timeline's
/// cache keeps findings per blob. Predicates resolve through definitions among these files.
pub fn gates_of_found(repo: &RepoSummary, files: Vec<(String, String, Vec<Found>)>) -> Vec<Gate> {
    let all: Vec<(usize, FileGates)> = files
        .into_iter()
        .filter_map(|(path, sha256, found)| {
            let kind = file_kind(&path)?;
            Some((
                0usize,
                FileGates {
                    path,
                    kind,
                    sha256,
                    found,
                },
            ))
        })
        .collect();
    let defs = predicate_definitions(&all);
    all.iter()
        .flat_map(|(_, fg)| {
            fg.found
                .iter()
                .filter_map(|f| to_gate(repo, fg, f, &defs))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The Build gate of a Tensile logic folder (`…/Logic/asm_full/vega10`), if `rel` is one.
pub fn tensile_gate(repo: &RepoSummary, rel: &str) -> Option<Gate> {
    let p = buildfiles::tensile_logic(rel)?;
    let covers = p.covers.clone();
    Some(Gate {
        repo: repo.name.clone(),
        path: rel.to_string(),
        line: None,
        commit: repo.commit.clone(),
        language: Language::Path,
        kind: Kind::TensileLogic,
        layer: Layer::Build,
        effect: Effect::Includes,
        alternative: false,
        patterns: vec![p],
        covers,
        function: None,
        symbol: None,
        guards: None,
        text: rel.to_string(),
        references: Vec::new(),
        at: at(&repo.name, rel, None, repo.commit.as_deref()),
        evidence: Evidence::new(Class::Confirmed, Proof::CodeVerified, "gates.tensile_logic").at(
            Locator::file(format!("{}/{}", repo.root.trim_end_matches('/'), rel)),
        ),
    })
}
