//! What the trail follows (items), where an item leads (its next hops), and the files parsed
//! on the way.

use crate::index::{Lang, RepoIndex};
use crate::model::{HopEvidence, HopKind, RepoInfo, Skipped};
use crate::syntax::{self, Parsed};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use tree_sitter::Node;

/// The owner given for the reads of a Go package-level variable (`envconfig.ContextLength`):
/// only `pkg.Name` (or an import alias) reads it; a field read under the same name
/// (`s.ContextLength` of a `Settings`) is another thing and no hop.
pub const PACKAGE_LEVEL: &str = "(package level)";

/// A type as a variable is declared with: where, its name, and for Go the package it is written
/// with (`remote.Server`; none for a type of the reading file's own package).
pub type DeclType = (usize, String, Option<String>);

/// A file of a repository.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct FileRef {
    /// Repository index.
    pub repo: usize,
    /// File index in the repository's index.
    pub file: u32,
}

/// A repository with its index.
pub struct Repo {
    /// What the document says about it.
    pub info: RepoInfo,
    /// Its root.
    pub root: PathBuf,
    /// Its index.
    pub index: RepoIndex,
    /// Source files whose work tree differs from the commit.
    pub changed: std::collections::HashSet<String>,
}

/// Something whose value the trail follows further.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Item {
    /// A variable in a function (or file) scope, read after a byte.
    Local {
        /// Its file.
        at: FileRef,
        /// The scope's byte range.
        scope: (usize, usize),
        /// Its name.
        name: String,
        /// Reads count from this byte on.
        after: usize,
        /// It is a parameter the value entered through a call: a return goes back to that
        /// call only (followed there), not to every caller.
        from_call: bool,
    },
    /// A struct field, read wherever a field of that name is read.
    Field {
        /// Its name.
        name: String,
        /// The language it is read in.
        lang: Lang,
        /// The repository and folder it was written in (reads there are code_verified).
        origin: Option<(usize, String)>,
        /// Also list where fields of that name are declared.
        decls: bool,
        /// The type it is a field of, when the syntax shows it (reads resolved to another
        /// type are name matches).
        #[serde(default)]
        owner: Option<String>,
    },
    /// The parameters a call's argument arrives at.
    Params(Vec<Param>),
    /// A function's callers receive its result.
    Returns {
        /// The function.
        name: String,
        /// Its language.
        lang: Lang,
        /// The file it is defined in.
        def: FileRef,
    },
    /// A name that crosses by text: a JSON key, a flag, an environment variable.
    Key {
        /// The key as written (`num_gpu`, `-ngl`, `HSA_OVERRIDE_GFX_VERSION`).
        text: String,
        /// Json, Flag or Env.
        kind: HopKind,
        /// The file and line that sent it (not counted as a receiver).
        from: Option<(FileRef, u64)>,
    },
    /// What a condition decides: the statements of the block it guards.
    Controlled {
        /// Its file.
        at: FileRef,
        /// The block's byte range.
        range: (usize, usize),
        /// The condition's line.
        cond: u64,
        /// The condition is on a value that entered through a call (see [`Item::Local`]).
        from_call: bool,
    },
    /// The value of an expression: where it flows.
    Value {
        /// Its file.
        at: FileRef,
        /// Its byte range.
        range: (usize, usize),
        /// It derives from a parameter the value entered through a call: returned, it goes
        /// back to that call only (as for [`Item::Local`]).
        #[serde(default)]
        from_call: bool,
    },
}

impl Item {
    /// The identity that a trail follows once: a field by its name and language, wherever
    /// it was written.
    pub fn seen_key(&self) -> Item {
        match self {
            Item::Field { name, lang, .. } => Item::Field {
                owner: None,
                name: name.clone(),
                lang: *lang,
                origin: None,
                decls: false,
            },
            Item::Local {
                at,
                scope,
                name,
                after,
                ..
            } => Item::Local {
                at: *at,
                scope: *scope,
                name: name.clone(),
                after: *after,
                from_call: false,
            },
            Item::Value { at, range, .. } => Item::Value {
                at: *at,
                range: *range,
                from_call: false,
            },
            Item::Controlled {
                at, range, cond, ..
            } => Item::Controlled {
                at: *at,
                range: *range,
                cond: *cond,
                from_call: false,
            },
            other => other.clone(),
        }
    }
}

/// A parameter a value arrives at.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Param {
    /// The function's file.
    pub at: FileRef,
    /// The function's line.
    pub line: u64,
    /// The parameter.
    pub name: String,
    /// Where it is declared.
    pub byte: usize,
    /// The function's byte range.
    pub scope: (usize, usize),
}

/// A hop before it is placed in the tree.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Draft {
    /// Its file.
    pub at: FileRef,
    /// Its line.
    pub line: u64,
    /// Its kind.
    pub kind: HopKind,
    /// Its evidence.
    pub evidence: HopEvidence,
    /// What the value is here.
    pub symbol: String,
    /// A note.
    pub note: Option<String>,
    /// What to follow from here.
    pub item: Option<Item>,
    /// Ranks it below what it would be by its evidence (a hop a condition decides counts as
    /// this many more name matches).
    #[serde(default)]
    pub penalty: usize,
}

/// Where an item leads.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Expansion {
    /// The next hops.
    pub drafts: Vec<Draft>,
    /// The trail leaves the repositories here (why).
    pub unresolved: Option<String>,
    /// The value reaches a construct the trail does not follow (which, where).
    #[serde(default)]
    pub stopped: Option<String>,
}

/// Memory a parsed file holds per byte of source (its syntax tree; measured on a generated
/// C table, the densest kind of source), reserved from the run's budget while it is held.
const PARSE_BYTES_PER_BYTE: u64 = 40;

/// A name defined in more files than this is not resolved (`size`, `Get`): the value is
/// taken to flow through the call.
const MAX_DEF_FILES: usize = 200;

/// The follow's state: repositories and the files parsed so far.
pub struct Engine<'a> {
    /// The repositories.
    pub repos: &'a [Repo],
    parsed: HashMap<FileRef, Option<Rc<Parsed>>>,
    raw: HashMap<FileRef, Rc<Vec<u8>>>,
    /// Following a parameter the value entered through a call.
    pub in_call: bool,
    /// Files that could not be read or parsed.
    pub skipped: Vec<Skipped>,
    /// Whether a type (language, name) declares a field, as found.
    pub known_fields: HashMap<(Lang, String, String), bool>,
    /// Whether a C or C++ type of this name is defined in the repositories.
    pub known_types: HashMap<String, bool>,
    /// The file names (last path component) of every indexed file, once asked for.
    pub file_names: Option<std::collections::HashSet<String>>,
    /// Where a variable is declared with a type in a scope (file, scope start, name).
    pub decl_types: HashMap<(FileRef, usize, String), Option<DeclType>>,
    /// The line a variable is decoded from JSON on in a scope (file, scope start, name).
    pub decoded: HashMap<(FileRef, usize, String), Option<u64>>,
    /// The first construct the value reached and the trail does not follow (line, kind),
    /// while an item is expanded.
    pub unfollowed: Option<(u64, String)>,
    /// The functions each file parsed defines, by name.
    defs: HashMap<FileRef, Rc<HashMap<String, Vec<syntax::FuncDef>>>>,
    /// Where a macro is defined (`#define NAME`), by name, as found.
    macros: HashMap<String, Option<(FileRef, u64)>>,
    /// The run's memory budget, when it has one.
    memory: Option<rocpath_budget::MemoryBudget>,
    /// Memory held for the files parsed.
    held: Vec<rocpath_budget::Reservation>,
}

impl<'a> Engine<'a> {
    /// An engine over indexed repositories, parsing within `memory` when given.
    pub fn new(repos: &'a [Repo], memory: Option<rocpath_budget::MemoryBudget>) -> Self {
        Engine {
            repos,
            parsed: HashMap::new(),
            raw: HashMap::new(),
            in_call: false,
            skipped: Vec::new(),
            known_fields: HashMap::new(),
            known_types: HashMap::new(),
            file_names: None,
            decl_types: HashMap::new(),
            decoded: HashMap::new(),
            macros: HashMap::new(),
            defs: HashMap::new(),
            unfollowed: None,
            memory,
            held: Vec::new(),
        }
    }

    /// The path of a file as hops show it.
    pub fn path(&self, at: FileRef) -> String {
        let r = &self.repos[at.repo];
        let f = &r.index.files[at.file as usize].path;
        if self.repos.len() > 1 {
            format!("{}/{f}", r.info.name)
        } else {
            f.clone()
        }
    }

    /// The bytes of an indexed file (its size was checked against the limit when indexed).
    pub(crate) fn read_source(&self, at: FileRef) -> std::io::Result<Vec<u8>> {
        let r = &self.repos[at.repo];
        std::fs::read(r.root.join(&r.index.files[at.file as usize].path))
    }

    /// Line `line` of a file, trimmed (read without parsing when the file was not parsed).
    pub fn line_text(&mut self, at: FileRef, line: u64) -> String {
        if let Some(Some(p)) = self.parsed.get(&at) {
            return p.line_text(line);
        }
        let bytes = match self.raw.get(&at) {
            Some(b) => b.clone(),
            None => {
                let b = Rc::new(self.read_source(at).unwrap_or_default());
                self.raw.insert(at, b.clone());
                b
            }
        };
        let text = bytes
            .split(|&b| b == b'\n')
            .nth((line as usize).saturating_sub(1))
            .unwrap_or(&[]);
        let t = String::from_utf8_lossy(text);
        let t = t.trim();
        match t.char_indices().nth(200) {
            Some((k, _)) => format!("{}…", &t[..k]),
            None => t.to_string(),
        }
    }

    /// The folder of a file (Go's package).
    pub fn dir(&self, at: FileRef) -> String {
        let f = &self.repos[at.repo].index.files[at.file as usize].path;
        f.rsplit_once('/').map_or("", |(d, _)| d).to_string()
    }

    /// The file parsed (once per follow).
    pub fn file(&mut self, at: FileRef) -> Option<Rc<Parsed>> {
        if let Some(p) = self.parsed.get(&at) {
            return p.clone();
        }
        let r = &self.repos[at.repo];
        let sf = &r.index.files[at.file as usize];
        let full = r.root.join(&sf.path);
        let lang = sf.lang;
        let parsed = match std::fs::read(&full) {
            Ok(src) if !self.hold_for_parse(at, src.len() as u64) => None,
            Ok(src) => match syntax::parse(lang, src) {
                Some(p) => Some(Rc::new(p)),
                None => {
                    self.skip(at, "the parser gave up on it");
                    None
                }
            },
            Err(e) => {
                self.skip(at, &format!("cannot read: {e}"));
                None
            }
        };
        if parsed
            .as_ref()
            .is_some_and(|p| p.tree.root_node().has_error())
        {
            self.skip(
                at,
                "read with syntax errors: hops inside the broken parts may be missing",
            );
        }
        self.parsed.insert(at, parsed.clone());
        parsed
    }

    /// Reserves the memory a parse of `len` bytes holds; a file that does not fit the budget
    /// is skipped with the reason.
    fn hold_for_parse(&mut self, at: FileRef, len: u64) -> bool {
        let Some(m) = &self.memory else {
            return true;
        };
        match m.try_reserve(len.saturating_mul(PARSE_BYTES_PER_BYTE)) {
            Ok(r) => {
                self.held.push(r);
                true
            }
            Err(e) => {
                self.skip(at, &format!("not parsed: its syntax tree {e}"));
                false
            }
        }
    }

    fn skip(&mut self, at: FileRef, reason: &str) {
        self.skipped.push(Skipped {
            path: self.path(at),
            reason: reason.to_string(),
        });
    }

    /// The file and line where the C/C++ macro `name` is defined (`#define NAME(…)`).
    pub fn macro_def(&mut self, name: &str) -> Option<(FileRef, u64)> {
        if let Some(m) = self.macros.get(name) {
            return *m;
        }
        let mut found = None;
        for f in self.files_with(name, Some(Lang::Cpp)) {
            let Ok(src) = self.read_source(f) else {
                continue;
            };
            if let Some(line) = define_line(&src, name) {
                found = Some((f, line));
                break;
            }
        }
        self.macros.insert(name.to_string(), found);
        found
    }

    /// Files (of a language, when given) that contain `name`.
    pub fn files_with(&self, name: &str, lang: Option<Lang>) -> Vec<FileRef> {
        let mut out = Vec::new();
        for (ri, r) in self.repos.iter().enumerate() {
            if let Some(ids) = r.index.names.get(name) {
                for &id in ids {
                    if lang.is_none_or(|l| r.index.files[id as usize].lang == l) {
                        out.push(FileRef { repo: ri, file: id });
                    }
                }
            }
        }
        out
    }

    /// A draft at a node.
    #[allow(clippy::too_many_arguments)]
    pub fn draft(
        &self,
        at: FileRef,
        line: u64,
        kind: HopKind,
        evidence: HopEvidence,
        symbol: impl Into<String>,
        note: Option<String>,
        item: Option<Item>,
    ) -> Draft {
        Draft {
            at,
            line,
            kind,
            evidence,
            symbol: symbol.into(),
            note,
            item,
            penalty: 0,
        }
    }

    /// The definitions of a function, in files of `lang`. With a caller, and definitions in
    /// several files, only the files the caller can reach count (the same folder, an
    /// imported package, an included file).
    pub fn resolve(
        &mut self,
        name: &str,
        lang: Lang,
        caller: Option<(FileRef, &Parsed)>,
    ) -> Vec<(FileRef, syntax::FuncDef)> {
        if name.is_empty() {
            return Vec::new();
        }
        let mut files = Vec::new();
        for (ri, r) in self.repos.iter().enumerate() {
            if let Some(ids) = r.index.defs.get(name) {
                for &id in ids {
                    if r.index.files[id as usize].lang == lang {
                        files.push(FileRef { repo: ri, file: id });
                    }
                }
            }
        }
        if files.len() > MAX_DEF_FILES {
            return Vec::new();
        }
        if let (Some((cf, cp)), true) = (caller, files.len() > 1) {
            files.retain(|&f| f == cf || self.related(cf, cp, f));
        }
        self.prefetch(&files);
        let mut out = Vec::new();
        for f in files {
            if let Some(defs) = self.defs_of(f) {
                let found = defs.get(name).into_iter().flatten();
                out.extend(found.map(|d| (f, d.clone())));
            }
        }
        out
    }

    /// The functions a file defines, by name (found once per file).
    fn defs_of(&mut self, f: FileRef) -> Option<Rc<HashMap<String, Vec<syntax::FuncDef>>>> {
        if let Some(d) = self.defs.get(&f) {
            return Some(d.clone());
        }
        let p = self.file(f)?;
        let d = Rc::new(syntax::all_defs(&p));
        self.defs.insert(f, d.clone());
        Some(d)
    }

    /// Parses the files not parsed yet, in parallel.
    pub fn prefetch(&mut self, files: &[FileRef]) {
        use rayon::prelude::*;
        let todo: Vec<(FileRef, PathBuf, Lang)> = files
            .iter()
            .filter(|f| !self.parsed.contains_key(f))
            .map(|&f| {
                let r = &self.repos[f.repo];
                let sf = &r.index.files[f.file as usize];
                (f, r.root.join(&sf.path), sf.lang)
            })
            .collect();
        if todo.len() < 2 {
            return;
        }
        let mut fits = Vec::with_capacity(todo.len());
        for (f, path, lang) in todo {
            let len = std::fs::metadata(&path).map_or(0, |m| m.len());
            if self.hold_for_parse(f, len) {
                fits.push((f, path, lang));
            } else {
                self.parsed.insert(f, None);
            }
        }
        let todo = fits;
        let done: Vec<(FileRef, Option<Parsed>)> = todo
            .into_par_iter()
            .map(|(f, path, lang)| {
                (
                    f,
                    std::fs::read(path)
                        .ok()
                        .and_then(|src| syntax::parse(lang, src)),
                )
            })
            .collect();
        for (f, p) in done {
            match p {
                Some(p) => {
                    if p.tree.root_node().has_error() {
                        self.skip(
                            f,
                            "read with syntax errors: hops inside the broken parts may be missing",
                        );
                    }
                    self.parsed.insert(f, Some(Rc::new(p)));
                }
                None => {
                    // Read again one by one, to report why.
                    let _ = self.file(f);
                }
            }
        }
    }

    /// Where an item leads; when nowhere because of a construct the trail does not follow,
    /// which one.
    pub fn expand(&mut self, item: &Item) -> Expansion {
        self.unfollowed = None;
        let mut e = self.expand_item(item);
        if e.drafts.is_empty() && e.unresolved.is_none() {
            e.stopped = self.unfollowed.take().map(|(line, kind)| {
                format!("the value reaches `{kind}` at line {line}: a construct not followed")
            });
        }
        e
    }

    fn expand_item(&mut self, item: &Item) -> Expansion {
        match item {
            Item::Local {
                at,
                scope,
                name,
                after,
                from_call,
            } => {
                self.in_call = *from_call;
                let drafts = self.local(*at, *scope, name, *after);
                self.in_call = false;
                Expansion {
                    drafts,
                    unresolved: None,
                    stopped: None,
                }
            }
            Item::Field {
                name,
                lang,
                origin,
                decls,
                owner,
            } => self.field(name, *lang, origin.as_ref(), *decls, owner.as_deref()),
            Item::Params(ps) => Expansion {
                drafts: ps.iter().map(|p| self.param(p)).collect(),
                unresolved: None,
                stopped: None,
            },
            Item::Controlled {
                at,
                range,
                cond,
                from_call,
            } => {
                self.in_call = *from_call;
                let drafts = self.controlled(*at, *range, *cond);
                self.in_call = false;
                Expansion {
                    drafts,
                    unresolved: None,
                    stopped: None,
                }
            }
            Item::Returns { name, lang, def } => self.returns(name, *lang, *def),
            Item::Key { text, kind, from } => self.key(text, *kind, *from),
            Item::Value {
                at,
                range,
                from_call,
            } => {
                self.in_call = *from_call;
                let drafts = self.value(*at, *range);
                self.in_call = false;
                Expansion {
                    drafts,
                    unresolved: None,
                    stopped: None,
                }
            }
        }
    }

    fn param(&self, p: &Param) -> Draft {
        self.draft(
            p.at,
            p.line,
            HopKind::Param,
            HopEvidence::CodeVerified,
            p.name.clone(),
            None,
            Some(Item::Local {
                at: p.at,
                scope: p.scope,
                name: p.name.clone(),
                after: p.byte + p.name.len(),
                from_call: true,
            }),
        )
    }

    fn value(&mut self, at: FileRef, range: (usize, usize)) -> Vec<Draft> {
        let Some(p) = self.file(at) else {
            return Vec::new();
        };
        let Some(n) = p
            .tree
            .root_node()
            .descendant_for_byte_range(range.0, range.1)
        else {
            return Vec::new();
        };
        self.flow_up(at, &p, n)
    }

    fn local(
        &mut self,
        at: FileRef,
        scope: (usize, usize),
        name: &str,
        after: usize,
    ) -> Vec<Draft> {
        let Some(p) = self.file(at) else {
            return Vec::new();
        };
        let root = p.tree.root_node();
        let Some(sn) = root.descendant_for_byte_range(scope.0, scope.1) else {
            return Vec::new();
        };
        // A plain reassignment in the same block ends the value's flow there.
        let end = syntax::overwritten_at(&p, name, after, scope.1).unwrap_or(scope.1);
        let uses: Vec<Node> = syntax::occurrences(&p, name, after.max(scope.0), end)
            .into_iter()
            .filter(|n| {
                n.kind() == "identifier"
                    && p.text(*n) == name
                    && !is_write(p.lang, *n)
                    && !is_member_name(*n)
            })
            .filter(|n| {
                // A Go package variable: not where a function's own variable hides it.
                if p.lang != Lang::Go || sn.id() != root.id() {
                    return true;
                }
                let f = syntax::scope_of(p.lang, *n);
                f.id() == root.id() || !crate::syntax::go_declares(&p, f, name)
            })
            .collect();
        let mut out = Vec::new();
        for n in uses {
            out.extend(self.flow_up(at, &p, n));
        }
        out.extend(self.named_result(at, &p, sn, name));
        if p.lang == Lang::Go && sn.id() == root.id() {
            // A package-level variable: read as `pkg.Name` in other packages.
            let origin = (at.repo, self.dir(at));
            out.extend(
                self.field(name, Lang::Go, Some(&origin), false, Some(PACKAGE_LEVEL))
                    .drafts,
            );
        }
        out
    }

    /// A Go named result assigned in the function: the value returns at the bare `return`.
    fn named_result(&self, at: FileRef, p: &Parsed, f: Node, name: &str) -> Option<Draft> {
        if p.lang != Lang::Go || !syntax::is_function(p.lang, f.kind()) {
            return None;
        }
        let def = syntax::func_def(p, f);
        if !def.results.iter().any(|r| r == name) {
            return None;
        }
        let fname = syntax::func_name(p, f)?.to_string();
        let mut line = def.line;
        syntax::each_node(f, &mut |n| {
            if n.kind() == "return_statement" && n.named_child_count() == 0 {
                line = p.line(n);
            }
            n.kind() != "func_literal"
        });
        Some(self.draft(
            at,
            line,
            HopKind::Return,
            HopEvidence::CodeVerified,
            fname.clone(),
            Some(format!("{name} is a named result of {fname}")),
            (!self.in_call).then_some(Item::Returns {
                name: fname,
                lang: p.lang,
                def: at,
            }),
        ))
    }

    /// Whether `f` can call into `def`'s file: the same folder, a Go file importing its
    /// package, a C/C++/Python file naming its file (an include, an import).
    pub fn related(&self, f: FileRef, p: &Parsed, def: FileRef) -> bool {
        let dir = self.dir(def);
        if f.repo == def.repo && self.dir(f) == dir {
            return true;
        }
        let path = &self.repos[def.repo].index.files[def.file as usize].path;
        let needle = match p.lang {
            Lang::Go => format!("/{dir}\""),
            _ => {
                let base = path.rsplit('/').next().unwrap_or(path);
                base.split('.').next().unwrap_or(base).to_string()
            }
        };
        !needle.is_empty() && memchr::memmem::find(&p.src, needle.as_bytes()).is_some()
    }

    fn returns(&mut self, name: &str, lang: Lang, def: FileRef) -> Expansion {
        let mut out = Vec::new();
        let defs = self.resolve(name, lang, None).len();
        let files = self.files_with(name, Some(lang));
        self.prefetch(&files);
        for f in files {
            let Some(p) = self.file(f) else { continue };
            if defs > 1 && !self.related(f, &p, def) {
                continue;
            }
            let mut calls: Vec<Node> = Vec::new();
            for n in syntax::occurrences(&p, name, 0, p.src.len()) {
                if let Some(c) = call_named(&p, n, name) {
                    if calls.last().is_none_or(|x| x.id() != c.id()) {
                        calls.push(c);
                    }
                }
            }
            for c in calls {
                let mut d = self.flow_up(f, &p, c);
                if d.is_empty() {
                    d.push(self.draft(
                        f,
                        p.line(c),
                        HopKind::Return,
                        HopEvidence::CodeVerified,
                        name,
                        Some("the result is not used further".into()),
                        None,
                    ));
                }
                if defs > 1 {
                    for x in &mut d {
                        x.evidence = HopEvidence::Inferred;
                        x.note = Some(format!(
                            "{defs} functions are named {name}: a caller in the package or a file that uses it"
                        ));
                    }
                }
                out.extend(d);
            }
        }
        Expansion {
            drafts: out,
            unresolved: None,
            stopped: None,
        }
    }
}

/// The line of `#define NAME` (`#  define NAME(…)`, `#define NAME value`) in a source text.
fn define_line(src: &[u8], name: &str) -> Option<u64> {
    for at in memchr::memmem::find_iter(src, name.as_bytes()) {
        let end = at + name.len();
        if src
            .get(end)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        {
            continue;
        }
        let start = src[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let head: Vec<&[u8]> = src[start..at]
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        if matches!(head.as_slice(), [b"#define"] | [b"#", b"define"]) {
            return Some(1 + memchr::memchr_iter(b'\n', &src[..at]).count() as u64);
        }
    }
    None
}

/// The call whose callee ends in the name at `n` (`f(…)`, `x.f(…)`, `ns::f(…)`).
fn call_named<'t>(p: &Parsed, n: Node<'t>, name: &str) -> Option<Node<'t>> {
    let mut cur = n;
    for _ in 0..4 {
        let par = cur.parent()?;
        if matches!(par.kind(), "call_expression" | "call") {
            let f = par.child_by_field_name("function")?;
            return (f.id() == cur.id() && syntax::last_name(p, f) == name).then_some(par);
        }
        cur = par;
    }
    None
}

/// Whether an identifier is written, not read (the target of an assignment or declaration).
pub fn is_write(lang: Lang, n: Node) -> bool {
    let Some(par) = n.parent() else { return false };
    let field_of = |p: Node, f: &str| {
        p.child_by_field_name(f)
            .is_some_and(|c| c.id() == n.id() || c.id() == par.id())
    };
    match lang {
        Lang::Go => {
            if par.kind() == "expression_list" {
                let Some(gp) = par.parent() else { return false };
                return matches!(
                    gp.kind(),
                    "assignment_statement" | "short_var_declaration" | "range_clause"
                ) && gp
                    .child_by_field_name("left")
                    .is_some_and(|l| l.id() == par.id());
            }
            matches!(
                par.kind(),
                "var_spec" | "parameter_declaration" | "const_spec"
            ) && field_of(par, "name")
        }
        Lang::Cpp => {
            (par.kind() == "assignment_expression" && field_of(par, "left"))
                || matches!(
                    par.kind(),
                    "init_declarator"
                        | "parameter_declaration"
                        | "reference_declarator"
                        | "pointer_declarator"
                ) && !field_of(par, "value")
                || par.kind() == "declaration"
        }
        Lang::Python => {
            matches!(par.kind(), "assignment" | "augmented_assignment") && field_of(par, "left")
                || matches!(
                    par.kind(),
                    "pattern_list" | "parameters" | "default_parameter"
                ) && !field_of(par, "value")
        }
    }
}

/// Whether an identifier is the member name of an attribute (`x.name` in Python) or the
/// key of a keyword argument.
fn is_member_name(n: Node) -> bool {
    n.parent().is_some_and(|p| {
        (p.kind() == "attribute"
            && p.child_by_field_name("attribute")
                .is_some_and(|a| a.id() == n.id()))
            || (p.kind() == "keyword_argument"
                && p.child_by_field_name("name")
                    .is_some_and(|a| a.id() == n.id()))
    })
}
