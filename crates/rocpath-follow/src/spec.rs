//! Where a SPEC starts the trail: `FILE:LINE`, `FILE:SYMBOL`, or a bare name (a field, a
//! JSON key, a flag, an environment variable).

use crate::engine::{Draft, Engine, FileRef, Item};
use crate::error::FollowError;
use crate::index::Lang;
use crate::model::{HopEvidence, HopKind};
use crate::syntax::{self, Parsed};
use tree_sitter::Node;

/// A parsed SPEC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// `FILE:LINE`.
    FileLine(String, u64),
    /// `FILE:SYMBOL`.
    FileSymbol(String, String),
    /// A bare name.
    Name(String),
}

/// Reads a SPEC.
pub fn parse_spec(s: &str) -> Result<Spec, FollowError> {
    let s = s.trim();
    if s.is_empty() || s.contains(char::is_whitespace) {
        return Err(FollowError::BadSpec(s.to_string()));
    }
    if let Some((a, b)) = s.rsplit_once(':') {
        if !a.is_empty() && !a.ends_with(':') && !b.is_empty() {
            if let Ok(line) = b.parse::<u64>() {
                return Ok(Spec::FileLine(a.to_string(), line));
            }
            if Lang::of(std::path::Path::new(a)).is_some() {
                return Ok(Spec::FileSymbol(a.to_string(), b.to_string()));
            }
        }
    }
    Ok(Spec::Name(s.to_string()))
}

/// The kind of key a bare name is: a flag (`-ngl`), an environment variable (upper case),
/// else a JSON key.
pub fn key_kind(name: &str) -> HopKind {
    if name.starts_with('-') {
        HopKind::Flag
    } else if name.chars().any(|c| c.is_ascii_uppercase())
        && !name.chars().any(|c| c.is_ascii_lowercase())
    {
        HopKind::Env
    } else {
        HopKind::Json
    }
}

/// Most child-process starts named as inheriting a variable, per trail.
const MAX_INHERITING: usize = 8;

impl Engine<'_> {
    /// The file a SPEC names.
    fn find_file(&self, spec: &str, file: &str) -> Result<FileRef, FollowError> {
        let file = file.trim_start_matches("./");
        let mut suffix = Vec::new();
        for (ri, r) in self.repos.iter().enumerate() {
            let root = r.root.to_string_lossy();
            let local = file
                .strip_prefix(root.as_ref())
                .map(|x| x.trim_start_matches('/'))
                .or_else(|| file.strip_prefix(&format!("{}/", r.info.name)))
                .unwrap_or(file);
            for (fi, f) in r.index.files.iter().enumerate() {
                let at = FileRef {
                    repo: ri,
                    file: fi as u32,
                };
                if f.path == local {
                    return Ok(at);
                }
                if f.path.ends_with(&format!("/{local}")) {
                    suffix.push(at);
                }
            }
        }
        match suffix.as_slice() {
            [one] => Ok(*one),
            _ => Err(FollowError::NoSuchFile {
                spec: spec.to_string(),
                file: file.to_string(),
            }),
        }
    }

    /// The places a SPEC starts from, each a root hop.
    pub fn origins(&mut self, spec_text: &str, spec: &Spec) -> Result<Vec<Draft>, FollowError> {
        let found = match spec {
            Spec::FileLine(file, line) => {
                let at = self.find_file(spec_text, file)?;
                let p = self.parsed_or_err(at)?;
                if *line == 0 || *line as usize > p.lines() {
                    return Err(FollowError::NoSuchLine {
                        path: self.path(at),
                        line: *line,
                        lines: p.lines(),
                    });
                }
                let nodes = names_where(&p, |n| p.line(n) == *line, None);
                self.first_origin(at, &p, &nodes).into_iter().collect()
            }
            Spec::FileSymbol(file, sym) => {
                let at = self.find_file(spec_text, file)?;
                let p = self.parsed_or_err(at)?;
                let nodes = names_where(&p, |_| true, Some(sym));
                let mut out: Vec<Draft> = nodes
                    .iter()
                    .filter_map(|n| self.declared(at, &p, *n))
                    .collect();
                if out.is_empty() {
                    out.extend(self.first_origin(at, &p, &nodes));
                }
                out
            }
            Spec::Name(name) => self.by_name(name),
        };
        if found.is_empty() {
            return Err(FollowError::NoMatch {
                spec: spec_text.to_string(),
                nearest: self.nearest(match spec {
                    Spec::Name(n) | Spec::FileSymbol(_, n) => n,
                    Spec::FileLine(f, _) => f,
                }),
                not_read: self.repos.iter().map(|r| r.index.skipped.len()).sum(),
            });
        }
        Ok(found)
    }

    fn parsed_or_err(&mut self, at: FileRef) -> Result<std::rc::Rc<Parsed>, FollowError> {
        self.file(at).ok_or_else(|| FollowError::Unreadable {
            path: self.path(at),
            why: "cannot be read or parsed".into(),
        })
    }

    fn first_origin(&mut self, at: FileRef, p: &Parsed, nodes: &[Node]) -> Option<Draft> {
        if let Some(d) = nodes.iter().find_map(|n| self.declared(at, p, *n)) {
            return Some(d);
        }
        let n = nodes.first()?;
        Some(self.origin(
            at,
            p,
            *n,
            p.text(*n).to_string(),
            Item::Value {
                at,
                range: (n.start_byte(), n.end_byte()),
                from_call: false,
            },
        ))
    }

    fn origin(&self, at: FileRef, p: &Parsed, n: Node, symbol: String, item: Item) -> Draft {
        self.draft(
            at,
            p.line(n),
            HopKind::Origin,
            HopEvidence::CodeVerified,
            symbol,
            None,
            Some(item),
        )
    }

    /// The origin for a name that is declared or assigned at `n`.
    fn declared(&mut self, at: FileRef, p: &Parsed, n: Node) -> Option<Draft> {
        let par = n.parent()?;
        let name = p.text(n).to_string();
        if par.kind() == "field_declaration" || par.kind() == "field_identifier" {
            let item = Item::Field {
                name: name.clone(),
                lang: p.lang,
                origin: Some((at.repo, self.dir(at))),
                decls: false,
                owner: crate::types::enclosing_type(p, n),
            };
            return Some(self.origin(at, p, n, name, item));
        }
        if matches!(par.kind(), "function_declaration" | "method_declaration")
            || par.kind() == "function_declarator"
            || (par.kind() == "function_definition" && p.lang == Lang::Python)
        {
            let item = Item::Returns {
                name: name.clone(),
                lang: p.lang,
                def: at,
            };
            return Some(self.origin(at, p, n, name, item));
        }
        if crate::engine::is_write(p.lang, n) {
            let scope = syntax::scope_of(p.lang, n);
            let item = Item::Local {
                at,
                scope: (scope.start_byte(), scope.end_byte()),
                name: name.clone(),
                after: n.end_byte(),
                from_call: false,
            };
            return Some(self.origin(at, p, n, name, item));
        }
        None
    }

    fn by_name(&mut self, name: &str) -> Vec<Draft> {
        let mut out = Vec::new();
        for f in self.files_with(name, None) {
            let Some(p) = self.file(f) else { continue };
            let decls = names_where(&p, |_| true, Some(name));
            for n in decls {
                let is_field = n.parent().is_some_and(|x| {
                    x.kind() == "field_declaration"
                        || (x.kind() == "field_identifier"
                            && x.parent().is_some_and(|y| y.kind() == "field_declaration"))
                });
                if is_field {
                    out.extend(self.declared(f, &p, n));
                }
            }
        }
        let kind = key_kind(name);
        for mut d in self.key(name, kind, None).drafts {
            if !out.iter().any(|o| o.at == d.at && o.line == d.line) {
                d.note = d.note.map(|n| n.replace("\n", " "));
                out.push(d);
            }
        }
        if out.is_empty() {
            out = self.by_identifier(name);
        }
        if out.is_empty() && matches!(kind, HopKind::Flag | HopKind::Env) {
            out = self.sent_only(name, kind);
        } else if kind == HopKind::Env {
            out.extend(self.inherited(name));
        }
        out
    }

    /// The child processes the repositories start with their environment, for a variable
    /// they read themselves: each start is where the variable also leaves them (see
    /// `inherit`). At most [`MAX_INHERITING`] files, in index order.
    fn inherited(&mut self, name: &str) -> Vec<Draft> {
        let mut files: Vec<FileRef> = Vec::new();
        for (word, lang) in [
            ("Command", Lang::Go),
            ("CommandContext", Lang::Go),
            ("subprocess", Lang::Python),
            ("execvp", Lang::Python),
            ("execvp", Lang::Cpp),
            ("execlp", Lang::Cpp),
            ("execv", Lang::Cpp),
            ("execl", Lang::Cpp),
            ("posix_spawn", Lang::Cpp),
            ("posix_spawnp", Lang::Cpp),
            ("popen", Lang::Cpp),
            ("system", Lang::Cpp),
        ] {
            for f in self.files_with(word, Some(lang)) {
                if !files.contains(&f) {
                    files.push(f);
                }
            }
        }
        // Read as bytes: a file that starts no process is never parsed.
        let mut found = Vec::new();
        for f in files {
            let lang = self.repos[f.repo].index.files[f.file as usize].lang;
            let Ok(src) = self.read_source(f) else {
                continue;
            };
            if let Some(i) = crate::inherit::inheritance(lang, &src) {
                found.push((f, crate::inherit::line_of(&src, i.at), i));
            }
        }
        // Where the environment is handed on explicitly, the starts that inherit it by default
        // are most often helpers; they are named only when there is nothing else.
        let explicit = found.iter().any(|(_, _, i)| i.explicit);
        found
            .into_iter()
            .filter(|(_, _, i)| i.explicit || !explicit)
            .take(MAX_INHERITING)
            .map(|(f, line, i)| {
                let note = format!(
                    "{}, {name} included: what that program — or a runtime or library it loads — does with {name} is not followed from here (the program may be outside the repositories given)",
                    i.how
                );
                self.draft(f, line, HopKind::Env, HopEvidence::Unresolved, name, Some(note), None)
            })
            .collect()
    }

    /// A name that is neither a field nor a key read as a string, but an identifier of the
    /// code (an environment variable declared by a macro, `MIOPEN_DECLARE_ENV_VAR(NAME)`, a
    /// constant): each place it is written or used starts a branch.
    fn by_identifier(&mut self, name: &str) -> Vec<Draft> {
        let mut out = Vec::new();
        for f in self.files_with(name, None) {
            let Some(p) = self.file(f) else { continue };
            for n in names_where(&p, |_| true, Some(name)) {
                let d = match self.declared(f, &p, n) {
                    Some(d) => d,
                    None => self.origin(
                        f,
                        &p,
                        n,
                        name.to_string(),
                        Item::Value {
                            at: f,
                            range: (n.start_byte(), n.end_byte()),
                            from_call: false,
                        },
                    ),
                };
                if !out.iter().any(|o: &Draft| o.at == d.at && o.line == d.line) {
                    out.push(d);
                }
            }
        }
        out
    }

    /// Names in the index nearest to `want` (for a SPEC that matches nothing).
    pub fn nearest(&self, want: &str) -> Vec<String> {
        let w = want.to_ascii_lowercase();
        let w = w.rsplit(['/', ':']).next().unwrap_or(&w).to_string();
        let cut = (w.len() / 3).max(2);
        let mut best: Vec<(usize, String)> = Vec::new();
        for r in self.repos {
            for n in r.index.names.keys() {
                if n.len().abs_diff(w.len()) > cut {
                    continue;
                }
                let d = distance(&w, &n.to_ascii_lowercase());
                if d <= cut {
                    best.push((d, n.clone()));
                }
            }
        }
        best.sort();
        best.dedup_by(|a, b| a.1 == b.1);
        best.into_iter().take(5).map(|(_, n)| n).collect()
    }
}

/// Identifier-like nodes (in document order) that pass `keep` and, when given, have the
/// text `name`.
fn names_where<'t>(
    p: &'t Parsed,
    keep: impl Fn(Node) -> bool,
    name: Option<&str>,
) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    syntax::each_node(p.tree.root_node(), &mut |n| {
        if matches!(n.kind(), "identifier" | "field_identifier")
            && keep(n)
            && name.is_none_or(|s| p.text(n) == s)
        {
            out.push(n);
        }
        true
    });
    out
}

/// Levenshtein distance.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!(
            parse_spec("api/types.go:604").ok(),
            Some(Spec::FileLine("api/types.go".into(), 604))
        );
        assert_eq!(
            parse_spec("api/types.go:NumGPU").ok(),
            Some(Spec::FileSymbol("api/types.go".into(), "NumGPU".into()))
        );
        assert_eq!(
            parse_spec("num_gpu").ok(),
            Some(Spec::Name("num_gpu".into()))
        );
        assert_eq!(parse_spec("ns::x").ok(), Some(Spec::Name("ns::x".into())));
        assert!(parse_spec(" ").is_err());
    }

    #[test]
    fn key_kinds() {
        assert_eq!(key_kind("-ngl"), HopKind::Flag);
        assert_eq!(key_kind("HSA_OVERRIDE_GFX_VERSION"), HopKind::Env);
        assert_eq!(key_kind("num_gpu"), HopKind::Json);
    }

    #[test]
    fn distances() {
        assert_eq!(distance("num_gpu", "num_gpus"), 1);
        assert_eq!(distance("", "ab"), 2);
    }
}
