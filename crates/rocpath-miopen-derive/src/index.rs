//! What the source defines, found with tree-sitter: function definitions (free, out-of-line
//! members, members defined in class bodies, templates), classes with their bases and fields,
//! object-like macros, namespace-level constants and `MIOPEN_DECLARE_ENV_VAR_*` declarations.
//! Trees are not kept: [`Index::tree`] parses a file again when its bodies are read.

use std::collections::HashMap;
use tree_sitter::{Node, Parser, Tree};

/// One function definition.
#[derive(Debug, Clone)]
pub struct FuncDef {
    /// Qualified name without template arguments (`miopen::solver::conv::ConvAsm3x3U::IsApplicable`).
    pub qname: String,
    /// Last component.
    pub name: String,
    /// The class it is a member of (qualified, no template arguments), if any.
    pub class: Option<String>,
    /// Parameter names (unnamed ones as `_<n>`).
    pub params: Vec<String>,
    /// How many parameters have defaults.
    pub defaults: usize,
    /// Template parameter names.
    pub template_params: Vec<String>,
    /// File index.
    pub file: u32,
    /// Byte range of the `function_definition` node.
    pub range: (usize, usize),
    /// 1-based line of the definition.
    pub line: u32,
}

/// One class or struct.
#[derive(Debug, Clone, Default)]
pub struct ClassDef {
    /// Qualified name.
    pub qname: String,
    /// Base classes as written, template arguments stripped.
    pub bases: Vec<String>,
    /// Data member names.
    pub fields: Vec<String>,
    /// Template parameter names.
    pub template_params: Vec<String>,
    /// Template parameter defaults as written (`WinoDataH`, `3`), one per parameter.
    pub template_defaults: Vec<Option<String>>,
    /// File index and line.
    pub file: u32,
    /// Line.
    pub line: u32,
}

/// An object-like macro or a namespace-level constant.
#[derive(Debug, Clone)]
pub struct Constant {
    /// Replacement text or initializer text.
    pub text: String,
    /// File index.
    pub file: u32,
    /// Line.
    pub line: u32,
}

/// A function-like macro.
#[derive(Debug, Clone)]
pub struct FMacro {
    /// Parameter names.
    pub params: Vec<String>,
    /// Replacement text.
    pub body: String,
    /// File index.
    pub file: u32,
    /// Line.
    pub line: u32,
}

/// An `MIOPEN_DECLARE_ENV_VAR_*` declaration.
#[derive(Debug, Clone)]
pub struct EnvDecl {
    /// Name.
    pub name: String,
    /// `bool`, `uint64`, `str`.
    pub kind: String,
    /// Default as written.
    pub default: String,
    /// File index.
    pub file: u32,
    /// Line.
    pub line: u32,
}

/// The index of a source tree.
#[derive(Default)]
pub struct Index {
    /// Files (relative paths) and their bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Functions.
    pub funcs: Vec<FuncDef>,
    /// Functions by last name component.
    pub by_name: HashMap<String, Vec<usize>>,
    /// Classes by last name component.
    pub classes: HashMap<String, Vec<ClassDef>>,
    /// Object-like macros by name (first definition wins).
    pub macros: HashMap<String, Constant>,
    /// Default arguments of declared functions: qualified name → one entry per parameter.
    pub defaults: HashMap<String, Vec<Option<String>>>,
    /// Function-like macros by name (first definition wins).
    pub fmacros: HashMap<String, FMacro>,
    /// Namespace-level `const`/`constexpr` variables by last name component.
    pub constants: HashMap<String, Vec<(String, Constant)>>,
    /// Environment variables.
    pub env: HashMap<String, EnvDecl>,
    /// Files tree-sitter could not parse.
    pub unparsed: Vec<String>,
}

/// A C++ parser.
pub fn parser() -> Option<Parser> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_cpp::LANGUAGE.into()).ok()?;
    Some(p)
}

/// The text of a node.
pub fn text<'a>(n: Node, src: &'a [u8]) -> &'a str {
    n.utf8_text(src).unwrap_or("")
}

/// Strips template arguments from every component: `A<x, y>::B<z>` → `A::B`.
pub fn strip_targs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    out
}

/// Blanks what tree-sitter cannot parse without a preprocessor, keeping every byte offset and
/// line: export macros (`MIOPEN_INTERNALS_EXPORT`), and preprocessor lines inside a class head
/// (`struct X : A #if … , B #endif {`), which leave the bases of both branches.
pub fn clean(mut src: Vec<u8>) -> Vec<u8> {
    for word in [&b"MIOPEN_INTERNALS_EXPORT"[..], b"MIOPEN_EXPORT"] {
        let mut i = 0;
        while let Some(p) = memfind(&src[i..], word) {
            let at = i + p;
            let end = at + word.len();
            let before = at.checked_sub(1).map(|j| src[j]);
            let after = src.get(end).copied();
            let ident = |c: Option<u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_');
            if !ident(before) && !ident(after) {
                src[at..end].fill(b' ');
            }
            i = end;
        }
    }
    resolve_local_conditionals(&mut src);
    let mut in_head = false;
    let mut start = 0;
    while start < src.len() {
        let end = src[start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(src.len(), |p| start + p);
        let line = &src[start..end];
        let t = line.trim_ascii_start();
        if in_head && t.first() == Some(&b'#') {
            src[start..end].fill(b' ');
        } else {
            let is_head = (t.starts_with(b"struct ") || t.starts_with(b"class "))
                && !line.contains(&b';')
                && !line.contains(&b'{');
            if is_head {
                in_head = true;
            } else if line.contains(&b'{') || line.contains(&b';') {
                in_head = false;
            }
        }
        start = end + 1;
    }
    src
}

/// Applies the preprocessor to `#if` blocks whose condition reads only integer macros defined
/// earlier in the same file (`#define WORKAROUND_SWDEV_411729 1`): the inactive branch and the
/// directives are blanked (offsets and lines kept), so a statement split across `#if`/`#else`
/// parses as the compiler sees it. Blocks on build switches (`MIOPEN_USE_MLIR`) stay whole.
fn resolve_local_conditionals(src: &mut [u8]) {
    // (decided value of this block or None, whether any branch was taken, parent active)
    let mut stack: Vec<(Option<bool>, bool, bool)> = Vec::new();
    let mut defs: HashMap<String, i64> = HashMap::new();
    let mut start = 0;
    while start < src.len() {
        let end = src[start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(src.len(), |p| start + p);
        let line = String::from_utf8_lossy(&src[start..end]).into_owned();
        let t = line.trim_start();
        let active = stack.iter().all(|(d, _, _)| d.unwrap_or(true));
        let mut blank = !active;
        if let Some(d) = t.strip_prefix('#') {
            let d = d.trim_start();
            let word: String = d.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            let rest = d[word.len()..].split("//").next().unwrap_or("").trim();
            match word.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    let v = match word.as_str() {
                        "if" => pp_eval(rest, &defs),
                        "ifdef" => defs.contains_key(rest).then_some(1),
                        _ => defs.contains_key(rest).then_some(0),
                    };
                    let v = v.map(|v| v != 0);
                    stack.push((v, v == Some(true), active));
                    blank = v.is_some() || !active;
                }
                "elif" => {
                    if let Some(top) = stack.last_mut() {
                        if top.0.is_some() {
                            let v = if top.1 {
                                Some(false)
                            } else {
                                pp_eval(rest, &defs).map(|v| v != 0)
                            };
                            match v {
                                Some(b) => {
                                    top.0 = Some(b);
                                    top.1 |= b;
                                    blank = true;
                                }
                                None => top.0 = None,
                            }
                        }
                    }
                }
                "else" => {
                    if let Some(top) = stack.last_mut() {
                        if top.0.is_some() {
                            top.0 = Some(!top.1);
                            top.1 = true;
                            blank = true;
                        }
                    }
                }
                "endif" => {
                    if let Some(top) = stack.pop() {
                        blank = top.0.is_some() || !top.2;
                    }
                }
                "define" if active => {
                    let mut it = rest.split_whitespace();
                    if let (Some(name), Some(v)) = (it.next(), it.next()) {
                        if let Ok(v) = v.parse::<i64>() {
                            defs.entry(name.to_string()).or_insert(v);
                        }
                    } else if let Some(name) = rest.split_whitespace().next() {
                        defs.entry(name.to_string()).or_insert(1);
                    }
                }
                _ => {}
            }
        }
        if blank {
            src[start..end].fill(b' ');
        }
        start = end + 1;
    }
}

/// Evaluates a preprocessor condition over integer macros; `None` when it names anything else.
fn pp_eval(expr: &str, defs: &HashMap<String, i64>) -> Option<i64> {
    let toks = pp_tokens(expr)?;
    let mut p = PpParser { toks, i: 0, defs };
    let v = p.or()?;
    (p.i == p.toks.len()).then_some(v)
}

fn pp_tokens(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let b: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[st..i].iter().collect());
        } else {
            let two: String = b[i..(i + 2).min(b.len())].iter().collect();
            if ["&&", "||", "==", "!=", "<=", ">="].contains(&two.as_str()) {
                out.push(two);
                i += 2;
            } else if "()!<>".contains(c) {
                out.push(c.to_string());
                i += 1;
            } else {
                return None;
            }
        }
    }
    Some(out)
}

struct PpParser<'a> {
    toks: Vec<String>,
    i: usize,
    defs: &'a HashMap<String, i64>,
}

impl PpParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn or(&mut self) -> Option<i64> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.i += 1;
            let r = self.and()?;
            v = i64::from(v != 0 || r != 0);
        }
        Some(v)
    }
    fn and(&mut self) -> Option<i64> {
        let mut v = self.cmp()?;
        while self.peek() == Some("&&") {
            self.i += 1;
            let r = self.cmp()?;
            v = i64::from(v != 0 && r != 0);
        }
        Some(v)
    }
    fn cmp(&mut self) -> Option<i64> {
        let a = self.unary()?;
        let op = match self.peek() {
            Some(o @ ("==" | "!=" | "<" | ">" | "<=" | ">=")) => o.to_string(),
            _ => return Some(a),
        };
        self.i += 1;
        let b = self.unary()?;
        Some(i64::from(match op.as_str() {
            "==" => a == b,
            "!=" => a != b,
            "<" => a < b,
            ">" => a > b,
            "<=" => a <= b,
            _ => a >= b,
        }))
    }
    fn unary(&mut self) -> Option<i64> {
        let t = self.peek()?.to_string();
        self.i += 1;
        match t.as_str() {
            "!" => self.unary().map(|v| i64::from(v == 0)),
            "(" => {
                let v = self.or()?;
                (self.peek() == Some(")")).then(|| self.i += 1)?;
                Some(v)
            }
            "defined" => {
                let paren = self.peek() == Some("(");
                if paren {
                    self.i += 1;
                }
                let name = self.peek()?.to_string();
                self.i += 1;
                if paren {
                    (self.peek() == Some(")")).then(|| self.i += 1)?;
                }
                // Only macros of this file are known; others leave the block undecided.
                self.defs.get(&name).map(|_| 1)
            }
            n if n.bytes().all(|b| b.is_ascii_digit()) => n.parse().ok(),
            n => self.defs.get(n).copied(),
        }
    }
}

fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn env_decls(file: u32, src: &[u8], out: &mut HashMap<String, EnvDecl>) {
    let text = String::from_utf8_lossy(src);
    let mut line = 1u32;
    let mut last = 0usize;
    for (pos, _) in text.match_indices("MIOPEN_DECLARE_ENV_VAR_") {
        line += text[last..pos].bytes().filter(|b| *b == b'\n').count() as u32;
        last = pos;
        let rest = &text[pos + "MIOPEN_DECLARE_ENV_VAR_".len()..];
        let Some((kind, args)) = rest.split_once('(') else {
            continue;
        };
        let kind = match kind.trim() {
            "BOOL" => "bool",
            "UINT64" => "uint64",
            "STR" => "str",
            _ => continue,
        };
        let Some(end) = args.find(')') else { continue };
        let mut parts = args[..end].splitn(2, ',');
        let name = parts.next().unwrap_or("").trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        out.entry(name.to_string()).or_insert(EnvDecl {
            name: name.to_string(),
            kind: kind.to_string(),
            default: parts.next().unwrap_or("").trim().to_string(),
            file,
            line,
        });
    }
}

/// A macro body without its trailing comment.
fn strip_comment(s: &str) -> String {
    let s = s.split("//").next().unwrap_or(s);
    let s = match s.find("/*") {
        Some(i) => &s[..i],
        None => s,
    };
    s.trim().to_string()
}

fn template_defaults(n: Node, src: &[u8]) -> Vec<Option<String>> {
    let Some(tp) = n.child_by_field_name("parameters") else {
        return Vec::new();
    };
    let mut c = tp.walk();
    tp.named_children(&mut c)
        .map(|p| {
            p.child_by_field_name("default_value")
                .or_else(|| p.child_by_field_name("default_type"))
                .map(|v| text(v, src).to_string())
        })
        .collect()
}

fn template_params(n: Node, src: &[u8]) -> Vec<String> {
    let Some(tp) = n.child_by_field_name("parameters") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut c = tp.walk();
    for p in tp.named_children(&mut c) {
        let name = p
            .child_by_field_name("declarator")
            .or_else(|| p.child_by_field_name("name"))
            .or_else(|| {
                let mut c2 = p.walk();
                let v: Vec<Node> = p.named_children(&mut c2).collect();
                v.last().copied()
            });
        if let Some(nm) = name {
            out.push(text(nm, src).trim_start_matches("...").to_string());
        }
    }
    out
}

/// The innermost identifier a declarator declares (`&ctx` → `ctx`).
pub fn declarator_name<'a>(mut n: Node, src: &'a [u8]) -> Option<&'a str> {
    for _ in 0..16 {
        match n.kind() {
            "identifier"
            | "field_identifier"
            | "qualified_identifier"
            | "operator_name"
            | "destructor_name"
            | "template_function" => return Some(text(n, src)),
            _ => {
                n = n.child_by_field_name("declarator").or_else(|| {
                    let mut c = n.walk();
                    n.named_children(&mut c)
                        .find(|ch| ch.kind().contains("declarator") || ch.kind() == "identifier")
                })?;
            }
        }
    }
    None
}

fn params(fd: Node, src: &[u8]) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut defaults = 0;
    let Some(pl) = fd.child_by_field_name("parameters") else {
        return (out, 0);
    };
    let mut c = pl.walk();
    for (i, p) in pl.named_children(&mut c).enumerate() {
        if p.kind() == "comment" {
            continue;
        }
        if p.kind() == "optional_parameter_declaration" {
            defaults += 1;
        }
        let name = p
            .child_by_field_name("declarator")
            .and_then(|d| declarator_name(d, src))
            .map(str::to_string)
            .unwrap_or_else(|| format!("_{i}"));
        out.push(name);
    }
    (out, defaults)
}

struct Walk<'a> {
    file: u32,
    src: &'a [u8],
    ns: Vec<String>,
    class: Vec<String>,
    tparams: Vec<Vec<String>>,
    tdefaults: Vec<Vec<Option<String>>>,
}

impl Index {
    /// Parses one file into the index.
    pub fn add_file(&mut self, parser: &mut Parser, path: String, src: Vec<u8>) {
        let src = clean(src);
        let file = self.files.len() as u32;
        env_decls(file, &src, &mut self.env);
        let Some(tree) = parser.parse(&src, None) else {
            self.unparsed.push(path.clone());
            self.files.push((path, src));
            return;
        };
        let mut w = Walk {
            file,
            src: &src,
            ns: Vec::new(),
            class: Vec::new(),
            tparams: Vec::new(),
            tdefaults: Vec::new(),
        };
        let mut found = Found::default();
        walk(&mut w, tree.root_node(), &mut found);
        for f in found.funcs {
            self.by_name
                .entry(f.name.clone())
                .or_default()
                .push(self.funcs.len());
            self.funcs.push(f);
        }
        for c in found.classes {
            let last = c.qname.rsplit("::").next().unwrap_or(&c.qname).to_string();
            self.classes.entry(last).or_default().push(c);
        }
        for (k, v) in found.macros {
            self.macros.entry(k).or_insert(v);
        }
        for (k, v) in found.fmacros {
            self.fmacros.entry(k).or_insert(v);
        }
        for (k, v) in found.defaults {
            self.defaults.entry(k).or_insert(v);
        }
        for (q, v) in found.constants {
            let last = q.rsplit("::").next().unwrap_or(&q).to_string();
            self.constants.entry(last).or_default().push((q, v));
        }
        self.files.push((path, src));
    }

    /// Parses a file of the index again.
    pub fn tree(&self, parser: &mut Parser, file: u32) -> Option<Tree> {
        parser.parse(&self.files.get(file as usize)?.1, None)
    }

    /// The class definitions with this last name component.
    pub fn class(&self, name: &str) -> &[ClassDef] {
        self.classes.get(name).map_or(&[], |v| v.as_slice())
    }
}

#[derive(Default)]
struct Found {
    defaults: Vec<(String, Vec<Option<String>>)>,
    fmacros: Vec<(String, FMacro)>,
    funcs: Vec<FuncDef>,
    classes: Vec<ClassDef>,
    macros: Vec<(String, Constant)>,
    constants: Vec<(String, Constant)>,
}

fn qualify(w: &Walk, name: &str) -> String {
    let mut parts: Vec<&str> = w.ns.iter().map(String::as_str).collect();
    parts.extend(w.class.iter().map(String::as_str));
    let mut q = parts.join("::");
    if !q.is_empty() {
        q.push_str("::");
    }
    q.push_str(&strip_targs(name));
    q
}

fn walk(w: &mut Walk, n: Node, out: &mut Found) {
    match n.kind() {
        "namespace_definition" => {
            let name = n
                .child_by_field_name("name")
                .map(|x| text(x, w.src).to_string())
                .unwrap_or_default();
            let k = name.split("::").filter(|s| !s.is_empty()).count();
            w.ns.extend(
                name.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
            if let Some(b) = n.child_by_field_name("body") {
                children(w, b, out);
            }
            let keep = w.ns.len() - k;
            w.ns.truncate(keep);
        }
        "template_declaration" => {
            w.tparams.push(template_params(n, w.src));
            w.tdefaults.push(template_defaults(n, w.src));
            children(w, n, out);
            w.tparams.pop();
            w.tdefaults.pop();
        }
        "function_definition" => function(w, n, out),
        "class_specifier" | "struct_specifier" => class(w, n, out),
        "preproc_def" => {
            if let (Some(name), Some(v)) = (
                n.child_by_field_name("name"),
                n.child_by_field_name("value"),
            ) {
                out.macros.push((
                    text(name, w.src).to_string(),
                    Constant {
                        text: strip_comment(text(v, w.src)),
                        file: w.file,
                        line: n.start_position().row as u32 + 1,
                    },
                ));
            }
        }
        "preproc_function_def" => {
            if let (Some(name), Some(ps), Some(v)) = (
                n.child_by_field_name("name"),
                n.child_by_field_name("parameters"),
                n.child_by_field_name("value"),
            ) {
                let mut c = ps.walk();
                let params = ps
                    .named_children(&mut c)
                    .map(|p| text(p, w.src).to_string())
                    .collect();
                out.fmacros.push((
                    text(name, w.src).to_string(),
                    FMacro {
                        params,
                        body: strip_comment(text(v, w.src)),
                        file: w.file,
                        line: n.start_position().row as u32 + 1,
                    },
                ));
            }
        }
        "declaration" if w.class.is_empty() => {
            constant(w, n, out);
            declared_defaults(w, n, out);
            children(w, n, out);
        }
        "field_declaration" => {
            // Inline member functions declared in a class body with a body are
            // `function_definition`; fields are recorded by `class`.
            children(w, n, out);
        }
        _ => children(w, n, out),
    }
}

fn children(w: &mut Walk, n: Node, out: &mut Found) {
    let mut c = n.walk();
    let kids: Vec<Node> = n.named_children(&mut c).collect();
    for ch in kids {
        walk(w, ch, out);
    }
}

/// Default arguments of a function declaration (`f(Handle& h, bool x = false);`).
fn declared_defaults(w: &Walk, n: Node, out: &mut Found) {
    let Some(fd) = n
        .child_by_field_name("declarator")
        .filter(|d| d.kind() == "function_declarator")
    else {
        return;
    };
    let (Some(name), Some(pl)) = (
        fd.child_by_field_name("declarator"),
        fd.child_by_field_name("parameters"),
    ) else {
        return;
    };
    let mut c = pl.walk();
    let defs: Vec<Option<String>> = pl
        .named_children(&mut c)
        .filter(|p| p.kind() != "comment")
        .map(|p| {
            p.child_by_field_name("default_value")
                .map(|v| text(v, w.src).to_string())
        })
        .collect();
    if defs.iter().any(Option::is_some) {
        out.defaults.push((qualify(w, text(name, w.src)), defs));
    }
}

fn constant(w: &Walk, n: Node, out: &mut Found) {
    let t = text(n, w.src);
    if !(t.starts_with("const")
        || t.starts_with("static const")
        || t.starts_with("inline constexpr")
        || t.starts_with("static constexpr")
        || t.starts_with("constexpr"))
    {
        return;
    }
    let mut c = n.walk();
    for d in n.children_by_field_name("declarator", &mut c) {
        if d.kind() != "init_declarator" {
            continue;
        }
        let (Some(name), Some(v)) = (
            d.child_by_field_name("declarator")
                .and_then(|x| declarator_name(x, w.src)),
            d.child_by_field_name("value"),
        ) else {
            continue;
        };
        out.constants.push((
            qualify(w, name),
            Constant {
                text: text(v, w.src).to_string(),
                file: w.file,
                line: d.start_position().row as u32 + 1,
            },
        ));
    }
}

fn class(w: &mut Walk, n: Node, out: &mut Found) {
    let Some(name) = n.child_by_field_name("name") else {
        return children(w, n, out);
    };
    let Some(body) = n.child_by_field_name("body") else {
        return;
    };
    let name = strip_targs(text(name, w.src));
    let mut def = ClassDef {
        qname: qualify(w, &name),
        template_params: w.tparams.last().cloned().unwrap_or_default(),
        template_defaults: w.tdefaults.last().cloned().unwrap_or_default(),
        file: w.file,
        line: n.start_position().row as u32 + 1,
        ..ClassDef::default()
    };
    let mut c = n.walk();
    for ch in n.named_children(&mut c) {
        if ch.kind() == "base_class_clause" {
            let mut c2 = ch.walk();
            for b in ch.named_children(&mut c2) {
                if matches!(
                    b.kind(),
                    "type_identifier" | "qualified_identifier" | "template_type"
                ) {
                    def.bases.push(strip_targs(text(b, w.src)));
                }
            }
        }
    }
    let mut c = body.walk();
    for f in body.named_children(&mut c) {
        if f.kind() == "field_declaration"
            && f.child_by_field_name("declarator")
                .is_some_and(|d| d.kind() != "function_declarator")
        {
            let mut c2 = f.walk();
            for d in f.children_by_field_name("declarator", &mut c2) {
                if let Some(nm) = declarator_name(d, w.src) {
                    def.fields.push(nm.to_string());
                }
            }
        }
    }
    out.classes.push(def);
    let tp_depth = w.tparams.len();
    w.class.push(name);
    // Members see the class's template parameters through `w.tparams`.
    children(w, body, out);
    w.class.pop();
    w.tparams.truncate(tp_depth);
}

fn function(w: &Walk, n: Node, out: &mut Found) {
    let Some(decl) = n.child_by_field_name("declarator") else {
        return;
    };
    // Find the function_declarator (it may sit under reference/pointer declarators).
    let mut fd = decl;
    for _ in 0..8 {
        if fd.kind() == "function_declarator" {
            break;
        }
        // `reference_declarator` holds its declarator as a plain child, not a field.
        let next = fd.child_by_field_name("declarator").or_else(|| {
            let mut c = fd.walk();
            fd.named_children(&mut c)
                .find(|ch| ch.kind().ends_with("declarator"))
        });
        match next {
            Some(x) => fd = x,
            None => return,
        }
    }
    if fd.kind() != "function_declarator" {
        return;
    }
    let Some(dn) = fd.child_by_field_name("declarator") else {
        return;
    };
    let raw = text(dn, w.src);
    let qname = qualify(w, raw);
    let name = qname.rsplit("::").next().unwrap_or(&qname).to_string();
    let class = match qname.rsplit_once("::") {
        Some((owner, _)) if !w.class.is_empty() || raw.contains("::") => {
            // An out-of-line member (`A::f`) or a member defined in a class body.
            let owner_last = owner.rsplit("::").next().unwrap_or(owner);
            let is_ns =
                w.ns.iter().any(|s| s == owner_last) && w.class.is_empty() && !raw.contains("::");
            (!is_ns).then(|| owner.to_string())
        }
        _ => None,
    };
    let (params, defaults) = params(fd, w.src);
    let template_params = w.tparams.iter().flatten().cloned().collect();
    out.funcs.push(FuncDef {
        qname,
        name,
        class,
        params,
        defaults,
        template_params,
        file: w.file,
        range: (n.start_byte(), n.end_byte()),
        line: n.start_position().row as u32 + 1,
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SRC: &str = r#"
#define IS2X3 (Winodata == 2 && Winofilter == 3)
MIOPEN_DECLARE_ENV_VAR_BOOL(MIOPEN_DEBUG_A)
MIOPEN_DECLARE_ENV_VAR_UINT64(MIOPEN_DEBUG_B, 7)
namespace miopen {
namespace solver {
constexpr bool IsOn = true;
bool Helper(const ExecutionContext& ctx, int x = 3) { return x > 2; }
namespace conv {
struct Foo final : ConvSolver
{
    bool IsDynamic() const override { return true; }
    int field_a = 0;
};
template <int Winodata, int Winofilter>
bool Bar<Winodata, Winofilter>::IsApplicable(const ExecutionContext& ctx,
                                              const ProblemDescription& problem) const
{
    return IS2X3;
}
}
}
}
"#;

    #[test]
    fn finds_functions_classes_macros_env() {
        let mut ix = Index::default();
        let mut p = parser().unwrap();
        ix.add_file(&mut p, "a.cpp".into(), SRC.as_bytes().to_vec());
        let names: Vec<&str> = ix.funcs.iter().map(|f| f.qname.as_str()).collect();
        assert_eq!(
            names,
            [
                "miopen::solver::Helper",
                "miopen::solver::conv::Foo::IsDynamic",
                "miopen::solver::conv::Bar::IsApplicable"
            ]
        );
        let h = &ix.funcs[0];
        assert_eq!(
            (h.class.as_deref(), h.params.as_slice(), h.defaults),
            (None, &["ctx".to_string(), "x".into()][..], 1)
        );
        assert_eq!(
            ix.funcs[1].class.as_deref(),
            Some("miopen::solver::conv::Foo")
        );
        let b = &ix.funcs[2];
        assert_eq!(b.class.as_deref(), Some("miopen::solver::conv::Bar"));
        assert_eq!(b.template_params, ["Winodata", "Winofilter"]);
        assert_eq!(b.line, 16);
        let foo = &ix.class("Foo")[0];
        assert_eq!(
            (foo.bases.as_slice(), foo.fields.as_slice()),
            (
                &["ConvSolver".to_string()][..],
                &["field_a".to_string()][..]
            )
        );
        assert_eq!(
            ix.macros["IS2X3"].text,
            "(Winodata == 2 && Winofilter == 3)"
        );
        assert_eq!(ix.constants["IsOn"][0].0, "miopen::solver::IsOn");
        assert_eq!(ix.env["MIOPEN_DEBUG_A"].kind, "bool");
        assert_eq!(
            (
                ix.env["MIOPEN_DEBUG_B"].default.as_str(),
                ix.env["MIOPEN_DEBUG_B"].line
            ),
            ("7", 4)
        );
    }
}
