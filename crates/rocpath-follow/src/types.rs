//! Whether a field read is resolved in the syntax: the variable it is read from is declared
//! (a parameter, `var x T`, `x := T{…}`, `T x;`) with a type whose declaration in the
//! repositories has a field of that name, or it is a package-level name read through the
//! package imported (`envconfig.NumParallel`). Anything else is a match by name.

use crate::engine::{DeclType, Draft, Engine, FileRef, Item};
use crate::lang::Lang;
use crate::model::{HopEvidence, HopKind};
use crate::syntax::{self, Parsed};
use tree_sitter::Node;

/// The name of a type as written, without pointers, references, qualifiers, a package or a
/// namespace (`*llama.ModelParams` → `ModelParams`, `const gpt_params &` → `gpt_params`).
fn base_type(text: &str) -> Option<String> {
    let t = text.split('<').next().unwrap_or(text);
    let t = t
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "struct" | "class" | "volatile"))
        .collect::<Vec<_>>()
        .join(" ");
    let t = t.trim_matches(|c: char| matches!(c, '*' | '&' | '[' | ']' | ' '));
    let last = t.rsplit(['.', ':']).next().unwrap_or(t).trim();
    (!last.is_empty() && last.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| last.to_string())
}

/// The package a Go type is written with (`*remote.Server` → `remote`), if any.
fn go_qualifier(text: &str) -> Option<String> {
    let t = text.split('[').next_back().unwrap_or(text);
    let t = t.trim_start_matches(['*', '&', ' ']);
    let (q, _) = t.split_once('.')?;
    (!q.is_empty() && q.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| q.to_string())
}

/// Where `var` is first declared in `scope` with a written type, and that type.
fn declared_type(p: &Parsed, scope: Node, var: &str) -> Option<DeclType> {
    let mut found = None;
    syntax::each_node(scope, &mut |n| {
        if found.is_some() {
            return false;
        }
        let names_var = |field: &str| {
            let mut c = n.walk();
            n.children_by_field_name(field, &mut c)
                .any(|d| syntax::last_name(p, d) == var)
        };
        let ty = match n.kind() {
            "parameter_declaration" | "var_spec" if p.lang == Lang::Go && names_var("name") => {
                n.child_by_field_name("type")
            }
            "parameter_declaration" | "declaration" | "optional_parameter_declaration"
                if p.lang == Lang::Cpp && names_var("declarator") =>
            {
                n.child_by_field_name("type")
            }
            "short_var_declaration" => composite_type(p, n, var),
            _ => None,
        };
        if let Some(t) = ty {
            // A type of the C++ standard library keeps its namespace: it is never a type the
            // repositories define, nor a library outside them worth naming.
            let std = p.lang == Lang::Cpp && p.text(t).contains("std::");
            let qual = (p.lang == Lang::Go)
                .then(|| go_qualifier(p.text(t)))
                .flatten();
            found = base_type(p.text(t)).map(|b| {
                (
                    n.start_byte(),
                    if std { format!("std::{b}") } else { b },
                    qual,
                )
            });
        }
        true
    });
    found
}

/// The type of a Go composite literal assigned to `var` (`x := T{…}`, `x := &T{…}`).
fn composite_type<'t>(p: &Parsed, decl: Node<'t>, var: &str) -> Option<Node<'t>> {
    let left = decl.child_by_field_name("left")?;
    if left.named_child_count() != 1 || p.text(left) != var {
        return None;
    }
    let mut v = decl.child_by_field_name("right")?.named_child(0)?;
    if v.kind() == "unary_expression" {
        v = v.child_by_field_name("operand")?;
    }
    (v.kind() == "composite_literal")
        .then(|| v.child_by_field_name("type"))
        .flatten()
}

/// Whether the declaration of type `ty` in `p` has a field `field`.
fn declares_field(p: &Parsed, ty: &str, field: &str) -> bool {
    let mut yes = false;
    syntax::each_node(p.tree.root_node(), &mut |n| {
        if yes {
            return false;
        }
        let named = match n.kind() {
            "type_spec" => n.child_by_field_name("name"),
            "struct_specifier" | "class_specifier" => n.child_by_field_name("name"),
            _ => return true,
        };
        if named.is_some_and(|x| p.text(x) == ty) {
            if let Some(body) = n
                .child_by_field_name("type")
                .or_else(|| n.child_by_field_name("body"))
            {
                syntax::each_node(body, &mut |m| {
                    if m.kind() == "field_identifier" && p.text(m) == field {
                        yes = true;
                    }
                    !yes
                });
            }
        }
        true
    });
    yes
}

/// C and C++ type names that no header defines (`auto` is a deduced type).
const BUILTIN: &[&str] = &[
    "auto",
    "decltype",
    "void",
    "bool",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "size_t",
    "ssize_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "intptr_t",
    "uintptr_t",
];

/// The package a Go source file declares (`package remote`).
fn go_package(src: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(src).ok()?;
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix("package "))
        .map(|r| r.split_whitespace().next().unwrap_or(""))
}

/// Whether a Go file imports the package in `dir` under the name `alias`
/// (`ec "github.com/ollama/ollama/envconfig"`).
fn imported_as(p: &Parsed, alias: &str, dir: &str) -> bool {
    let needle = format!("/{dir}\"");
    memchr::memmem::find_iter(&p.src, needle.as_bytes()).any(|i| {
        let start = p.src[..i]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |k| k + 1);
        let line = p.src[start..i].trim_ascii_start();
        let line = line
            .strip_prefix(b"import")
            .unwrap_or(line)
            .trim_ascii_start();
        line.strip_prefix(alias.as_bytes())
            .is_some_and(|r| r.first() == Some(&b' '))
    })
}

/// Whether C or C++ source defines a type named `ty`: the name right after `struct`, `class`,
/// `union` or `enum`, before `;` after a `}` or in a `typedef` line, or after `using` and
/// before `=`. A forward declaration (`struct ty;`) does not count.
pub fn defines_type(src: &[u8], ty: &str) -> bool {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    memchr::memmem::find_iter(src, ty.as_bytes()).any(|i| {
        let end = i + ty.len();
        if (i > 0 && ident(src[i - 1])) || src.get(end).is_some_and(|&c| ident(c)) {
            return false;
        }
        let before = src[..i].trim_ascii_end();
        let after = src[end..].trim_ascii_start();
        let word_start = before.iter().rposition(|&c| !ident(c)).map_or(0, |k| k + 1);
        let word = &before[word_start..];
        let line_start = src[..i]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |k| k + 1);
        let line = src[line_start..i].trim_ascii_start();
        match word {
            // `class`/`typename` also name a template's type parameter (`template <class C>`).
            b"struct" | b"class" | b"union" | b"enum" | b"typename" => !after.starts_with(b";"),
            b"using" => after.starts_with(b"="),
            _ => {
                after.starts_with(b";") && (before.ends_with(b"}") || line.starts_with(b"typedef"))
            }
        }
    })
}

/// Whether the identifier `t`, the target of a Go `=` in a function, is a package variable of
/// its file (`MaxRunners = m` in `LoadConfig`, `var ( MaxRunners int )` above): the function
/// neither declares nor receives a name of it.
pub fn go_package_var_written(p: &Parsed, t: Node) -> bool {
    if p.lang != Lang::Go {
        return false;
    }
    let root = p.tree.root_node();
    let func = syntax::scope_of(p.lang, t);
    if func.id() == root.id() {
        return false;
    }
    let name = p.text(t);
    if syntax::go_declares(p, func, name) {
        return false;
    }
    let mut c = root.walk();
    root.children(&mut c).any(|d| {
        if d.kind() != "var_declaration" {
            return false;
        }
        let mut found = false;
        syntax::each_node(d, &mut |n| {
            if n.kind() == "var_spec" && syntax::names_in(p, n, "name", name) {
                found = true;
            }
            !found
        });
        found
    })
}

/// What a field read is resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// A package-level name read through its package (`envconfig.NumParallel`).
    Package,
    /// A field of a type declared in the repositories.
    Type(String),
    /// A field of a C++ variable whose declared type the repositories do not define: the
    /// library that defines it (a header outside them) reads it.
    Outside(String),
}

/// The type a field declared at `n` belongs to (`type T struct { F … }`, `struct T { F; }`).
pub fn enclosing_type(p: &Parsed, n: Node) -> Option<String> {
    let mut cur = n;
    for _ in 0..6 {
        cur = cur.parent()?;
        if matches!(
            cur.kind(),
            "type_spec" | "struct_specifier" | "class_specifier"
        ) {
            return cur
                .child_by_field_name("name")
                .map(|x| p.text(x).to_string());
        }
    }
    None
}

/// The type of the Go composite literal a keyed element is in (`Options{F: v}` → `Options`).
pub fn literal_type(p: &Parsed, keyed: Node) -> Option<String> {
    let lit = keyed.parent()?.parent()?;
    if lit.kind() != "composite_literal" {
        return None;
    }
    base_type(p.text(lit.child_by_field_name("type")?))
}

/// The class a C++ function definition belongs to: `T::f(…) {…}`, or a function defined in
/// the body of `struct T` / `class T`.
fn method_class(p: &Parsed, func: Node) -> Option<String> {
    let mut d = func.child_by_field_name("declarator")?;
    while d.kind() != "function_declarator" {
        d = d
            .child_by_field_name("declarator")
            .or_else(|| d.named_child(0))?;
    }
    let name = d.child_by_field_name("declarator")?;
    if name.kind() == "qualified_identifier" {
        return base_type(p.text(name.child_by_field_name("scope")?));
    }
    // A member template (`template <class C> bool IsFast(…) const {…}`) sits in a template
    // declaration in the body.
    let body = func
        .parent()
        .filter(|t| t.kind() == "template_declaration")
        .map_or(func.parent(), |t| t.parent())
        .filter(|b| b.kind() == "field_declaration_list")?;
    let class = body.parent()?;
    matches!(class.kind(), "struct_specifier" | "class_specifier")
        .then(|| {
            class
                .child_by_field_name("name")
                .map(|n| p.text(n).to_string())
        })
        .flatten()
}

impl Engine<'_> {
    /// Reads of the member `name` inside methods of a C++ class that has it, written without
    /// `this->` (`if (n_ctx > 0)` in `llama_context::reserve`): resolved through the class;
    /// a member of another class than `owner` (when known) is a match by name.
    pub fn member_reads(
        &mut self,
        f: FileRef,
        p: &Parsed,
        name: &str,
        owner: Option<&str>,
    ) -> Vec<Draft> {
        let mut out = Vec::new();
        for occ in syntax::occurrences(p, name, 0, p.src.len()) {
            if occ.kind() != "identifier" || crate::engine::is_write(p.lang, occ) {
                continue;
            }
            let func = syntax::scope_of(p.lang, occ);
            if func.kind() != "function_definition" || declared_type(p, func, name).is_some() {
                continue;
            }
            let Some(class) = method_class(p, func) else {
                continue;
            };
            if !self.type_has_field(p.lang, &class, name) {
                continue;
            }
            let other = owner.is_some_and(|o| o != class);
            out.push(Draft {
                at: f,
                line: p.line(occ),
                kind: HopKind::Field,
                evidence: if other {
                    HopEvidence::Inferred
                } else {
                    HopEvidence::CodeVerified
                },
                symbol: format!(".{name}"),
                note: Some(format!("a member of {class} read without `this->`")),
                item: Some(Item::Value {
                    at: f,
                    range: (occ.start_byte(), occ.end_byte()),
                    from_call: false,
                }),
                penalty: 0,
            });
        }
        out
    }

    /// The class whose member the name `t` is, when it is written without `this->` in a
    /// method or constructor of a C++ class that has a member of that name and does not declare
    /// it there (`check_numerics = …` in `_rocblas_handle::init_check_numerics`).
    pub fn member_written(&mut self, p: &Parsed, t: Node) -> Option<String> {
        if p.lang != Lang::Cpp {
            return None;
        }
        let name = p.text(t);
        let func = syntax::scope_of(p.lang, t);
        if func.kind() != "function_definition" || declared_type(p, func, name).is_some() {
            return None;
        }
        let class = method_class(p, func)?;
        self.type_has_field(p.lang, &class, name).then_some(class)
    }

    /// What the field read `read` (`x.F`, `x->F`) is resolved to, if it is: see the module.
    /// `pkg_dir` is the folder a package-level name was written in.
    pub fn read_owner(
        &mut self,
        f: FileRef,
        p: &Parsed,
        read: Node,
        field: &str,
        pkg_dir: Option<&str>,
    ) -> Option<Owner> {
        let base = read
            .child_by_field_name("operand")
            .or_else(|| read.child_by_field_name("argument"))
            .filter(|b| b.kind() == "identifier")?;
        let var = p.text(base);
        if p.lang == Lang::Go {
            if let Some(dir) = pkg_dir.filter(|d| !d.is_empty()) {
                let pkg = dir.rsplit('/').next().unwrap_or(dir);
                let imported = memchr::memmem::find(&p.src, format!("/{dir}\"").as_bytes());
                if (var == pkg && imported.is_some()) || imported_as(p, var, dir) {
                    return Some(Owner::Package);
                }
            }
        }
        let scope = syntax::scope_of(p.lang, read);
        let key = (f, scope.start_byte(), var.to_string());
        let decl = match self.decl_types.get(&key) {
            Some(d) => d.clone(),
            None => {
                let d = declared_type(p, scope, var);
                self.decl_types.insert(key, d.clone());
                d
            }
        };
        let (_, ty, qual) = decl.filter(|(at, _, _)| *at < read.start_byte())?;
        let has = match p.lang {
            Lang::Go => self.go_type_has_field(f, p, &ty, qual.as_deref(), field),
            _ => self.type_has_field(p.lang, &ty, field),
        };
        if has {
            return Some(Owner::Type(ty));
        }
        let outside = p.lang == Lang::Cpp
            && !ty.starts_with("std::")
            && !BUILTIN.contains(&ty.as_str())
            && !self.type_defined(&ty);
        outside.then_some(Owner::Outside(ty))
    }

    /// The headers a C or C++ file includes with quotes (`#include "common.h"`) that no file of
    /// the repositories is named like: where a type or function it uses may be defined.
    pub fn missing_includes(&mut self, p: &Parsed) -> Vec<String> {
        let names = self.file_names.get_or_insert_with(|| {
            self.repos
                .iter()
                .flat_map(|r| &r.index.files)
                .map(|f| f.path.rsplit('/').next().unwrap_or(&f.path).to_string())
                .collect()
        });
        let text = String::from_utf8_lossy(&p.src);
        let mut out: Vec<String> = Vec::new();
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(h) = rest.trim_start().strip_prefix("include") else {
                continue;
            };
            let Some(h) = h.trim().strip_prefix('"').and_then(|h| h.split('"').next()) else {
                continue;
            };
            let base = h.rsplit('/').next().unwrap_or(h);
            if !names.contains(base) && !out.iter().any(|o| o == h) {
                out.push(h.to_string());
            }
        }
        out
    }

    /// Whether a C or C++ type named `ty` is defined anywhere in the repositories (`struct ty`,
    /// `class ty`, `union ty`, `enum ty`, `typedef … ty;`, `using ty =`), read in the text so
    /// that a file the grammar reads with errors still counts.
    pub fn type_defined(&mut self, ty: &str) -> bool {
        if let Some(&k) = self.known_types.get(ty) {
            return k;
        }
        let yes = self
            .files_with(ty, Some(Lang::Cpp))
            .into_iter()
            .any(|f| self.read_source(f).is_ok_and(|src| defines_type(&src, ty)));
        self.known_types.insert(ty.to_string(), yes);
        yes
    }

    /// Whether the Go type `ty` a variable of the file `at` is declared with has a field
    /// `field`: a type of the file's own package (its folder) when written without a package,
    /// else one declared in a file whose `package` is `qual` or whose folder the file imports
    /// as `qual`. (`*remote.Server` is not the `Server` of the package reading it.)
    fn go_type_has_field(
        &mut self,
        at: FileRef,
        p: &Parsed,
        ty: &str,
        qual: Option<&str>,
        field: &str,
    ) -> bool {
        let here = self.path(at);
        let here = here.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        // Without a package, the answer is the folder's; with one, the reading file's (its
        // imports name the package).
        let scope = match qual {
            None => format!("{}:{here}", at.repo),
            Some(q) => format!("{}#{}:{q}", at.repo, at.file),
        };
        let key = (Lang::Go, format!("{scope}.{ty}"), field.to_string());
        if let Some(&k) = self.known_fields.get(&key) {
            return k;
        }
        let with_field = self.files_with(field, Some(Lang::Go));
        let files: Vec<FileRef> = self
            .files_with(ty, Some(Lang::Go))
            .into_iter()
            .filter(|f| with_field.contains(f))
            .filter(|&f| {
                let path = self.path(f);
                let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
                match qual {
                    None => f.repo == at.repo && dir == here,
                    Some(q) => {
                        imported_as(p, q, dir)
                            || self
                                .read_source(f)
                                .is_ok_and(|src| go_package(&src) == Some(q))
                    }
                }
            })
            .collect();
        self.prefetch(&files);
        let yes = files
            .into_iter()
            .any(|f| self.file(f).is_some_and(|p| declares_field(&p, ty, field)));
        self.known_fields.insert(key, yes);
        yes
    }

    /// Whether a type named `ty` declared in the repositories has a field `field`.
    fn type_has_field(&mut self, lang: Lang, ty: &str, field: &str) -> bool {
        let key = (lang, ty.to_string(), field.to_string());
        if let Some(&k) = self.known_fields.get(&key) {
            return k;
        }
        let with_field = self.files_with(field, Some(lang));
        let files: Vec<FileRef> = self
            .files_with(ty, Some(lang))
            .into_iter()
            .filter(|f| with_field.contains(f))
            .collect();
        self.prefetch(&files);
        let mut yes = false;
        for f in files {
            if let Some(p) = self.file(f) {
                if declares_field(&p, ty, field) {
                    yes = true;
                    break;
                }
            }
        }
        self.known_fields.insert(key, yes);
        yes
    }
}

#[cfg(test)]
mod tests {
    use super::base_type;

    #[test]
    fn a_type_is_defined_by_its_declaration_not_by_its_uses() {
        use super::defines_type;
        assert!(defines_type(
            b"struct gpt_params {\n int n;\n};",
            "gpt_params"
        ));
        assert!(defines_type(b"class  gpt_params : base {", "gpt_params"));
        assert!(defines_type(
            b"typedef struct { int n; } gpt_params;",
            "gpt_params"
        ));
        assert!(defines_type(b"typedef int gpt_params;", "gpt_params"));
        assert!(defines_type(b"using gpt_params = other;", "gpt_params"));
        assert!(!defines_type(b"struct gpt_params;", "gpt_params"));
        assert!(!defines_type(
            b"void f(gpt_params &p) { p.n = 1; }",
            "gpt_params"
        ));
        assert!(!defines_type(b"struct gpt_params_ext {", "gpt_params"));
        assert!(!defines_type(b"", "gpt_params"));
        assert!(defines_type(
            b"template <typename Ctx> void f(Ctx& c)",
            "Ctx"
        ));
    }

    #[test]
    fn type_names_lose_pointers_packages_and_qualifiers() {
        assert_eq!(
            base_type("*llama.ModelParams").as_deref(),
            Some("ModelParams")
        );
        assert_eq!(
            base_type("const gpt_params &").as_deref(),
            Some("gpt_params")
        );
        assert_eq!(base_type("std::vector<int>").as_deref(), Some("vector"));
        assert_eq!(base_type("Options").as_deref(), Some("Options"));
        assert_eq!(base_type("func() int"), None);
    }
}
