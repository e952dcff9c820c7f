//! Parsed files and the small syntax questions the trail asks of them: the text and line of
//! a node, the function around it, a call's callee, a function's parameters.

use crate::lang::Lang;
use tree_sitter::{Node, Tree};

/// One parsed source file.
pub struct Parsed {
    /// Its language.
    pub lang: Lang,
    /// Its bytes.
    pub src: Vec<u8>,
    /// Its syntax tree.
    pub tree: Tree,
    starts: Vec<usize>,
}

/// Parses `src`; `None` when the grammar cannot be loaded or the parser gives up.
pub fn parse(lang: Lang, src: Vec<u8>) -> Option<Parsed> {
    let grammar = match lang {
        Lang::Cpp => rocpath_syntax::Lang::Cpp,
        Lang::Python => rocpath_syntax::Lang::Python,
        Lang::Go => rocpath_syntax::Lang::Go,
    };
    let tree = match (lang, unmacro_classes(&src)) {
        (Lang::Cpp, Some(masked)) => rocpath_syntax::parse(grammar, &masked, None)?,
        _ => rocpath_syntax::parse(grammar, &src, None)?,
    };
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', &src).map(|i| i + 1));
    Some(Parsed {
        lang,
        src,
        tree,
        starts,
    })
}

/// A copy of C++ source with the export macro of a class head blanked
/// (`class MIOPEN_INTERNALS_EXPORT FindMode {` → `class                         FindMode {`),
/// which the grammar cannot read: the class, its members and its methods are then found.
/// Same length, so every node's bytes and lines are those of the file. `None` when there is none.
fn unmacro_classes(src: &[u8]) -> Option<Vec<u8>> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let ident = |at: usize| src[at..].iter().take_while(|&&c| word(c)).count();
    let blanks = |at: usize| {
        src[at..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
            .count()
    };
    let mut out: Option<Vec<u8>> = None;
    for kw in [&b"class"[..], &b"struct"[..]] {
        for k in memchr::memmem::find_iter(src, kw) {
            if k > 0 && word(src[k - 1]) {
                continue;
            }
            let mut i = k + kw.len();
            let gap = blanks(i);
            if gap == 0 {
                continue;
            }
            i += gap;
            let m = ident(i);
            let macro_like = m >= 2
                && src[i].is_ascii_uppercase()
                && src[i..i + m]
                    .iter()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_');
            if !macro_like {
                continue;
            }
            let (mac, mut j) = (i, i + m);
            let gap = blanks(j);
            if gap == 0 {
                continue;
            }
            j += gap;
            let n = ident(j);
            if n == 0 || src[j].is_ascii_digit() {
                continue;
            }
            j += n;
            j += blanks(j);
            // A class head: a body, a base clause or `final` follows the name.
            let head = match src.get(j) {
                Some(b'{') => true,
                Some(b':') => src.get(j + 1) != Some(&b':'),
                _ => src[j..].starts_with(b"final"),
            };
            if head {
                let o = out.get_or_insert_with(|| src.to_vec());
                o[mac..mac + m].fill(b' ');
            }
        }
    }
    out
}

impl Parsed {
    /// The text of a node (lossy outside UTF-8).
    pub fn text(&self, n: Node) -> &str {
        std::str::from_utf8(&self.src[n.byte_range()]).unwrap_or("")
    }

    /// The 1-based line a node starts on.
    pub fn line(&self, n: Node) -> u64 {
        n.start_position().row as u64 + 1
    }

    /// Line `line` (1-based), trimmed and cut to 200 characters.
    pub fn line_text(&self, line: u64) -> String {
        let i = (line as usize).saturating_sub(1);
        let a = self.starts.get(i).copied().unwrap_or(self.src.len());
        let b = self.starts.get(i + 1).copied().unwrap_or(self.src.len());
        let s = String::from_utf8_lossy(&self.src[a..b]);
        let t = s.trim();
        match t.char_indices().nth(200) {
            Some((k, _)) => format!("{}…", &t[..k]),
            None => t.to_string(),
        }
    }

    /// Lines in the file.
    pub fn lines(&self) -> usize {
        self.starts.len()
    }
}

/// Every node under `root` in document order, until `f` returns false for one (its subtree
/// is then skipped).
pub fn each_node<'t>(root: Node<'t>, f: &mut impl FnMut(Node<'t>) -> bool) {
    let mut c = root.walk();
    loop {
        let descend = f(c.node());
        if descend && c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return;
            }
        }
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The smallest nodes covering each whole-word occurrence of `name` in `from..to`, found
/// in the text (no walk over the tree).
pub fn occurrences<'t>(p: &'t Parsed, name: &str, from: usize, to: usize) -> Vec<Node<'t>> {
    let (from, to) = (from.min(p.src.len()), to.min(p.src.len()));
    if name.is_empty() || from >= to {
        return Vec::new();
    }
    let word = name.bytes().next_back().is_some_and(is_ident_byte);
    let mut ranges = Vec::new();
    for off in memchr::memmem::find_iter(&p.src[from..to], name.as_bytes()) {
        let s = from + off;
        let e = s + name.len();
        let before =
            s > 0 && is_ident_byte(p.src[s - 1]) && name.bytes().next().is_some_and(is_ident_byte);
        let after = word && e < p.src.len() && is_ident_byte(p.src[e]);
        if !before && !after {
            ranges.push((s, e));
        }
    }
    let mut found = Vec::with_capacity(ranges.len());
    smallest_containing(p.tree.root_node(), &ranges, &mut found);
    found.sort_by_key(|(i, _)| *i);
    found.into_iter().map(|(_, n)| n).collect()
}

/// For each byte range (sorted, not overlapping), the smallest node under `n` that contains
/// it, with the range's index, in one descent: each node's children are walked once for all
/// the ranges inside it, so that many ranges in a wide node (a generated table) cost the
/// node's width once, not once per range.
fn smallest_containing<'t>(
    n: Node<'t>,
    ranges: &[(usize, usize)],
    out: &mut Vec<(usize, Node<'t>)>,
) {
    let mut stack = vec![(n, 0, ranges.len())];
    while let Some((node, lo, hi)) = stack.pop() {
        let mut i = lo;
        let mut c = node.walk();
        for child in node.children(&mut c) {
            while i < hi && ranges[i].0 < child.start_byte() {
                out.push((i, node));
                i += 1;
            }
            let j = i + ranges[i..hi]
                .iter()
                .take_while(|r| r.1 <= child.end_byte() && r.0 < child.end_byte())
                .count();
            if j > i {
                stack.push((child, i, j));
                i = j;
            }
            if i == hi {
                break;
            }
        }
        out.extend((i..hi).map(|k| (k, node)));
    }
}

/// Whether `kind` is a function (or lambda) in `lang`.
pub fn is_function(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Go => matches!(
            kind,
            "function_declaration" | "method_declaration" | "func_literal"
        ),
        Lang::Cpp => matches!(kind, "function_definition" | "lambda_expression"),
        Lang::Python => matches!(kind, "function_definition" | "lambda"),
    }
}

/// The function around `n`, or the file's root.
pub fn scope_of(lang: Lang, n: Node) -> Node {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if is_function(lang, p.kind()) {
            return p;
        }
        cur = p;
    }
    cur
}

/// The scope a name written at `n` belongs to: the function around it, or — when that is a
/// closure that does not declare the name (a C++ lambda writing what it captures by
/// reference, `base_path = env;` in `[&] {…}`; a Go function literal assigning an outer
/// variable) — the nearest enclosing function that does, else the outermost one reached.
pub fn declaring_scope<'t>(p: &Parsed, n: Node<'t>) -> Node<'t> {
    let name = p.text(n);
    let mut scope = scope_of(p.lang, n);
    while matches!(scope.kind(), "lambda_expression" | "func_literal") && !declares(p, scope, name)
    {
        let up = scope_of(p.lang, scope);
        if up.id() == scope.id() {
            break;
        }
        scope = up;
    }
    scope
}

/// The scope of a name declared at `n` (Go `:=`, `var`, a `range` clause's `:=`; a C++
/// declaration): the innermost block or statement around it within `outer` — so `err` of
/// `if err := s.sem.Acquire(ctx, 1); err != nil {…}` is that `if`'s, and the `err` a later
/// `status, err := …` declares in the function is another variable. A name assigned, not
/// declared there, keeps `outer`.
pub fn block_scope<'t>(p: &Parsed, n: Node<'t>, outer: Node<'t>) -> Node<'t> {
    if !declared_at(p, n) {
        return outer;
    }
    let mut cur = n;
    while let Some(up) = cur.parent() {
        if up.id() == outer.id() {
            break;
        }
        if opens_scope(p.lang, up.kind()) {
            return up;
        }
        cur = up;
    }
    outer
}

/// Statements and blocks whose declarations are not seen after them.
fn opens_scope(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Go => matches!(
            kind,
            "block"
                | "if_statement"
                | "for_statement"
                | "expression_switch_statement"
                | "type_switch_statement"
                | "select_statement"
                | "expression_case"
                | "type_case"
                | "default_case"
                | "communication_case"
        ),
        Lang::Cpp => matches!(
            kind,
            "compound_statement"
                | "if_statement"
                | "for_statement"
                | "for_range_loop"
                | "while_statement"
                | "switch_statement"
                | "catch_clause"
        ),
        Lang::Python => false,
    }
}

/// Whether the name at `n` is declared there, not assigned.
fn declared_at(p: &Parsed, n: Node) -> bool {
    let mut cur = n;
    while let Some(up) = cur.parent() {
        let declared = match (p.lang, up.kind()) {
            (Lang::Go, "expression_list") => {
                cur = up;
                continue;
            }
            (Lang::Go, "short_var_declaration") => in_field(up, "left", cur),
            (Lang::Go, "var_spec") => in_field(up, "name", cur),
            (Lang::Go, "range_clause") => {
                in_field(up, "left", cur)
                    && p.text(up)
                        .split("range")
                        .next()
                        .is_some_and(|h| h.contains(":="))
            }
            (
                Lang::Cpp,
                "init_declarator"
                | "pointer_declarator"
                | "reference_declarator"
                | "array_declarator",
            ) if in_field(up, "declarator", cur) => {
                cur = up;
                continue;
            }
            (Lang::Cpp, "declaration" | "condition_clause") => in_field(up, "declarator", cur),
            (Lang::Cpp, "for_range_loop") => in_field(up, "declarator", cur),
            _ => false,
        };
        return declared;
    }
    false
}

/// Whether `child` is (one of) `parent`'s children in `field`.
fn in_field(parent: Node, field: &str, child: Node) -> bool {
    let mut c = parent.walk();
    parent
        .children_by_field_name(field, &mut c)
        .any(|x| x.id() == child.id())
}

/// Where a plain reassignment of `name` ends the flow of the value written at `after`: the
/// first `name = e` (Go `=` or `:=`, C++ `=`, Python `=`) after it whose `e` does not read
/// `name`, in the same block as the write (so it runs whenever the write did, before any read
/// after it). A reassignment in a nested block or a loop may not run, and ends nothing.
pub fn overwritten_at(p: &Parsed, name: &str, after: usize, to: usize) -> Option<usize> {
    if after == 0 {
        return None;
    }
    let origin = p
        .tree
        .root_node()
        .descendant_for_byte_range(after.saturating_sub(1), after.saturating_sub(1))?;
    let block = origin_block(p, origin)?;
    occurrences(p, name, after, to.min(block.end_byte()))
        .into_iter()
        .filter(|n| n.kind() == "identifier" && p.text(*n) == name)
        .find_map(|n| {
            let assign = plain_assignment(p, n)?;
            let stmt = if assign
                .parent()
                .is_some_and(|s| s.kind() == "expression_statement")
            {
                assign.parent()?
            } else {
                assign
            };
            let rhs = assign.child_by_field_name("right")?;
            let mut reads = false;
            each_node(rhs, &mut |m| {
                reads |= m.kind() == "identifier" && p.text(m) == name;
                !reads
            });
            (stmt.parent()?.id() == block.id() && !reads).then(|| stmt.start_byte())
        })
}

/// The block whose statements follow the write at `n`: the one around it, or for a parameter
/// the function's body.
fn origin_block<'t>(p: &Parsed, n: Node<'t>) -> Option<Node<'t>> {
    let mut cur = n;
    while let Some(up) = cur.parent() {
        match up.kind() {
            "parameter_list" | "parameters" => {
                return up.parent()?.child_by_field_name("body");
            }
            "block" | "statement_list" | "compound_statement" | "module" | "source_file"
            | "translation_unit" => return Some(up),
            _ if is_function(p.lang, up.kind()) => return None,
            _ => cur = up,
        }
    }
    None
}

/// The assignment `n` is the whole left side of, when it is a plain one (`=`, Go `:=`).
fn plain_assignment<'t>(p: &Parsed, n: Node<'t>) -> Option<Node<'t>> {
    let mut left = n;
    let mut up = n.parent()?;
    if matches!(up.kind(), "expression_list" | "pattern_list") {
        left = up;
        up = up.parent()?;
    }
    let plain = match up.kind() {
        "assignment_statement" | "assignment_expression" => up
            .child_by_field_name("operator")
            .is_none_or(|o| p.text(o) == "="),
        "short_var_declaration" | "assignment" => true,
        _ => false,
    };
    let is_left = up
        .child_by_field_name("left")
        .is_some_and(|l| l.id() == left.id());
    (plain && is_left).then_some(up)
}

/// Whether `scope` declares `name` itself: a parameter or a local declaration (C++), a
/// parameter, `var` or `:=` (Go).
fn declares(p: &Parsed, scope: Node, name: &str) -> bool {
    let mut found = false;
    each_node(scope, &mut |n| {
        if found {
            return false;
        }
        let field = match n.kind() {
            "parameter_declaration" | "var_spec" if p.lang == Lang::Go => "name",
            "parameter_declaration" | "optional_parameter_declaration" | "declaration" => {
                "declarator"
            }
            "short_var_declaration" => "left",
            _ => return true,
        };
        let mut c = n.walk();
        found = n.children_by_field_name(field, &mut c).any(|d| {
            if d.kind() == "expression_list" {
                let mut k = d.walk();
                d.named_children(&mut k).any(|x| p.text(x) == name)
            } else {
                last_name(p, d) == name
            }
        });
        !found
    });
    found
}

/// The name a callee or declarator finally names: `pkg.F` → `F`, `a::b::f` → `f`,
/// `obj.m` → `m`, `*p` → `p`.
pub fn last_name<'a>(p: &'a Parsed, n: Node) -> &'a str {
    let field = match n.kind() {
        "selector_expression" | "field_expression" => "field",
        "attribute" => "attribute",
        "qualified_identifier" | "template_function" | "template_method" => "name",
        "pointer_declarator"
        | "reference_declarator"
        | "init_declarator"
        | "function_declarator"
        | "array_declarator" => "declarator",
        "parenthesized_declarator" => return n.named_child(0).map_or("", |c| last_name(p, c)),
        _ => return p.text(n),
    };
    match n.child_by_field_name(field) {
        Some(c) => last_name(p, c),
        None if n.kind() == "reference_declarator" => {
            n.named_child(0).map_or("", |c| last_name(p, c))
        }
        None => "",
    }
}

/// The contents of a string literal node (quotes removed), if `n` is one.
pub fn string_value(p: &Parsed, n: Node) -> Option<String> {
    match n.kind() {
        "interpreted_string_literal"
        | "raw_string_literal"
        | "string_literal"
        | "string"
        | "raw_string_literal_cpp" => {}
        _ => return None,
    }
    let t = p.text(n);
    let t = t.trim_start_matches(|c: char| c.is_ascii_alphabetic() && c != '"' && c != '\'');
    let q = t.chars().next()?;
    if !matches!(q, '"' | '\'' | '`') {
        return None;
    }
    let inner = t.trim_start_matches(q).trim_end_matches(q);
    Some(inner.to_string())
}

/// A function definition.
#[derive(Debug, Clone)]
pub struct FuncDef {
    /// Its line.
    pub line: u64,
    /// Parameter names in order (with the byte where each is declared).
    pub params: Vec<(String, usize)>,
    /// The function's byte range.
    pub scope: (usize, usize),
    /// Go's named results.
    pub results: Vec<String>,
    /// A method whose first parameter is `self`/`cls` (Python).
    pub has_self: bool,
}

/// The name of a function node.
pub fn func_name<'a>(p: &'a Parsed, f: Node) -> Option<&'a str> {
    match p.lang {
        Lang::Go | Lang::Python => f.child_by_field_name("name").map(|n| p.text(n)),
        Lang::Cpp => {
            let mut d = f.child_by_field_name("declarator")?;
            while d.kind() != "function_declarator" {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            Some(last_name(p, d.child_by_field_name("declarator")?))
        }
    }
}

/// Every named function defined in a file, by name, in one walk of its tree (asking each
/// occurrence of a name for its parents costs a descent from the root per step, which made
/// most of a trail's time in large files).
pub fn all_defs(p: &Parsed) -> std::collections::HashMap<String, Vec<FuncDef>> {
    let mut out: std::collections::HashMap<String, Vec<FuncDef>> = Default::default();
    each_node(p.tree.root_node(), &mut |n| {
        if is_function(p.lang, n.kind()) {
            if let Some(name) = func_name(p, n).filter(|s| !s.is_empty()) {
                out.entry(name.to_string())
                    .or_default()
                    .push(func_def(p, n));
            }
        }
        true
    });
    out
}

/// The parameters and scope of a function node.
pub fn func_def(p: &Parsed, f: Node) -> FuncDef {
    let mut params = Vec::new();
    let mut results = Vec::new();
    match p.lang {
        Lang::Go => {
            if let Some(pl) = f.child_by_field_name("parameters") {
                go_params(p, pl, &mut params);
            }
            if let Some(r) = f
                .child_by_field_name("result")
                .filter(|r| r.kind() == "parameter_list")
            {
                let mut rs = Vec::new();
                go_params(p, r, &mut rs);
                results = rs.into_iter().map(|(n, _)| n).collect();
            }
        }
        Lang::Cpp => {
            let mut d = f.child_by_field_name("declarator");
            while let Some(x) = d {
                if let Some(pl) = x.child_by_field_name("parameters") {
                    cpp_params(p, pl, &mut params);
                    break;
                }
                d = x.child_by_field_name("declarator");
            }
        }
        Lang::Python => {
            if let Some(pl) = f.child_by_field_name("parameters") {
                py_params(p, pl, &mut params);
            }
        }
    }
    let has_self = p.lang == Lang::Python
        && params
            .first()
            .is_some_and(|(n, _)| n == "self" || n == "cls");
    FuncDef {
        line: p.line(f),
        params,
        scope: (f.start_byte(), f.end_byte()),
        results,
        has_self,
    }
}

fn go_params(p: &Parsed, pl: Node, out: &mut Vec<(String, usize)>) {
    let mut c = pl.walk();
    for d in pl.named_children(&mut c) {
        let mut c2 = d.walk();
        for n in d.children_by_field_name("name", &mut c2) {
            out.push((p.text(n).to_string(), n.start_byte()));
        }
    }
}

fn cpp_params(p: &Parsed, pl: Node, out: &mut Vec<(String, usize)>) {
    let mut c = pl.walk();
    for d in pl.named_children(&mut c) {
        match d.child_by_field_name("declarator") {
            Some(decl) => out.push((last_name(p, decl).to_string(), decl.start_byte())),
            None => out.push((String::new(), d.start_byte())),
        }
    }
}

fn py_params(p: &Parsed, pl: Node, out: &mut Vec<(String, usize)>) {
    let mut c = pl.walk();
    for d in pl.named_children(&mut c) {
        let n = match d.kind() {
            "identifier" => Some(d),
            "default_parameter" | "typed_default_parameter" => d.child_by_field_name("name"),
            "typed_parameter" => d.named_child(0),
            _ => None,
        };
        if let Some(n) = n {
            out.push((p.text(n).to_string(), n.start_byte()));
        }
    }
}

/// Whether the node `n` names `name` in its field `field` (one name or a list of them).
pub(crate) fn names_in(p: &Parsed, n: Node, field: &str, name: &str) -> bool {
    let mut c = n.walk();
    n.children_by_field_name(field, &mut c).any(|d| {
        if d.kind() == "expression_list" {
            let mut c2 = d.walk();
            d.named_children(&mut c2).any(|x| p.text(x) == name)
        } else {
            p.text(d) == name
        }
    })
}

/// Whether the Go function `func` declares or receives a variable `name` (a local that hides
/// a package variable of that name).
pub fn go_declares(p: &Parsed, func: Node, name: &str) -> bool {
    let names = |n: Node, field: &str| names_in(p, n, field, name);
    let mut local = false;
    each_node(func, &mut |n| {
        if local {
            return false;
        }
        local = match n.kind() {
            "short_var_declaration" => names(n, "left"),
            "range_clause" => names(n, "left") && p.text(n).contains(":="),
            "var_spec"
            | "const_spec"
            | "parameter_declaration"
            | "variadic_parameter_declaration" => names(n, "name"),
            _ => false,
        };
        true
    });
    local
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-descent lookup finds what a lookup per occurrence finds.
    #[test]
    fn occurrences_match_the_lookup_one_by_one() {
        let src = b"package p\n\nfunc f(o O) int {\n\tt := []int{o.n + 1, o.n, g(o.n), n}\n\tn := o.n\n\treturn n\n}\n";
        let Some(p) = parse(Lang::Go, src.to_vec()) else {
            unreachable!("the Go grammar loads")
        };
        for name in ["n", "o", "o.n", "t :=", "int"] {
            let got: Vec<usize> = occurrences(&p, name, 0, p.src.len())
                .iter()
                .map(|n| n.id())
                .collect();
            let root = p.tree.root_node();
            let want: Vec<usize> = memchr::memmem::find_iter(&p.src, name.as_bytes())
                .filter(|&s| {
                    let e = s + name.len();
                    let word = name.bytes().next_back().is_some_and(is_ident_byte);
                    let before =
                        s > 0 && is_ident_byte(p.src[s - 1]) && is_ident_byte(name.as_bytes()[0]);
                    let after = word && e < p.src.len() && is_ident_byte(p.src[e]);
                    !before && !after
                })
                .filter_map(|s| root.descendant_for_byte_range(s, s + name.len()))
                .map(|n| n.id())
                .collect();
            assert_eq!(got, want, "{name}");
        }
    }
}
