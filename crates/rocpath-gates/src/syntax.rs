//! Language-aware reading of C/C++/HIP, Python and Go with tree-sitter: which occurrences of
//! a target name or capability predicate are gates (a string compared with the device name,
//! a list of targets, a preprocessor condition, a predicate call, a compute-capability
//! comparison) and which are not (comments, log messages, identifiers), what the gate does
//! (the branch it guards returns false / throws → excludes), whether an alternative branch
//! exists, and the enclosing function.

use crate::model::{Effect, Kind, Pattern};
use crate::targets::{self, Match};
pub use rocpath_syntax::{Lang, parse};
use std::collections::HashSet;
use std::sync::LazyLock;
use tree_sitter::Node;

/// A gate found in one file, before predicates are resolved across files.
#[derive(Debug, Clone)]
pub struct Found {
    /// 1-based line.
    pub line: u64,
    /// Construct.
    pub kind: Kind,
    /// Effect on covered targets.
    pub effect: Effect,
    /// An alternative branch exists.
    pub alternative: bool,
    /// Patterns resolved so far (predicates get theirs later).
    pub patterns: Vec<Pattern>,
    /// A predicate call to resolve (name as written).
    pub predicate: Option<String>,
    /// Enclosing function.
    pub function: Option<String>,
    /// Enclosing variable (or the macro a preprocessor gate defines).
    pub symbol: Option<String>,
    /// The source line, trimmed.
    pub text: String,
    /// References in nearby comments.
    pub references: Vec<String>,
}

/// Whether a line starts a new top-level item: a closing brace in column 0 ends one in
/// C++ and Go; in Python every statement in column 0 starts one.
fn boundary(lang: Lang, line: &[u8]) -> bool {
    match lang {
        Lang::Cpp | Lang::Go => line.first() == Some(&b'}'),
        Lang::Python => line.first().is_some_and(|&b| !b" \t\r\n#)]}".contains(&b)),
    }
}

fn line_at<'a>(src: &'a [u8], starts: &[usize], row: usize) -> &'a [u8] {
    let a = starts.get(row).copied().unwrap_or(src.len());
    let b = starts.get(row + 1).copied().unwrap_or(src.len());
    src.get(a..b).unwrap_or(&[])
}

fn is_pp(line: &[u8], words: &[&[u8]]) -> bool {
    let t = line.trim_ascii_start();
    t.first() == Some(&b'#') && {
        let rest = t[1..].trim_ascii_start();
        words.iter().any(|w| rest.starts_with(w))
    }
}

/// The rows of the top-level item around `row`: from just after the previous boundary to
/// the next one (C++/Go: the line with the closing brace; Python: the line before the next
/// statement), extended to the `#endif` of a preprocessor block opened inside.
fn chunk(lang: Lang, src: &[u8], starts: &[usize], row: usize) -> (usize, usize) {
    let rows = starts.len();
    let mut a = row;
    match lang {
        Lang::Python => {
            while a > 0 && !boundary(lang, line_at(src, starts, a)) {
                a -= 1;
            }
        }
        _ => {
            while a > 0 && !boundary(lang, line_at(src, starts, a - 1)) {
                a -= 1;
            }
        }
    }
    let mut b = row;
    match lang {
        Lang::Python => {
            while b + 1 < rows && !boundary(lang, line_at(src, starts, b + 1)) {
                b += 1;
            }
        }
        _ => {
            while b + 1 < rows && !boundary(lang, line_at(src, starts, b)) {
                b += 1;
            }
        }
    }
    if lang == Lang::Cpp {
        // Balance preprocessor blocks opened in the chunk.
        let mut depth: i64 = 0;
        for r in a..=b {
            let l = line_at(src, starts, r);
            if is_pp(l, &[b"if"]) {
                depth += 1;
            } else if is_pp(l, &[b"endif"]) {
                depth -= 1;
            }
        }
        while depth > 0 && b + 1 < rows {
            b += 1;
            let l = line_at(src, starts, b);
            if is_pp(l, &[b"if"]) {
                depth += 1;
            } else if is_pp(l, &[b"endif"]) {
                depth -= 1;
            }
        }
    }
    (a, b)
}

static MACRO_RE: LazyLock<Option<regex::bytes::Regex>> = LazyLock::new(|| {
    regex::bytes::Regex::new(r"\b__(?:gfx|GFX)[0-9a-zA-Z]+__\b|\b[A-Z][A-Z0-9_]*\b").ok()
});
static REF_RE: LazyLock<Option<regex::Regex>> = LazyLock::new(|| {
    regex::Regex::new(
        r#"https?://[^\s)>"'\]]+|\b(?:SWDEV|swdev)-\d+\b|\bWORKAROUND_[A-Z0-9_]+\b|\b[Ii]ssue\s*#?\d+\b|\bPR\s*#\d+\b"#,
    )
    .ok()
});

fn text<'a>(n: Node, src: &'a [u8]) -> &'a [u8] {
    src.get(n.byte_range()).unwrap_or(&[])
}

fn text_str(n: Node, src: &[u8]) -> String {
    String::from_utf8_lossy(text(n, src)).into_owned()
}

/// The content of a string literal node, without prefix and quotes.
fn string_content(n: Node, src: &[u8]) -> String {
    let raw = text_str(n, src);
    let s = raw.trim();
    // C++ raw string R"d( … )d"
    if let Some(i) = s.find("R\"") {
        if let (Some(a), Some(b)) = (s[i..].find('('), s.rfind(')')) {
            if i + a < b {
                return s[i + a + 1..b].to_string();
            }
        }
    }
    let start = s.find(['"', '\'', '`']).map_or(0, |i| i);
    let q = s[start..].chars().next().unwrap_or('"');
    let triple: String = std::iter::repeat_n(q, 3).collect();
    // A literal cut short by a parse error need not end in an ASCII quote: take nothing
    // rather than slice inside a character.
    let body = if s[start..].starts_with(&triple) && s.len() >= start + 6 {
        s.get(start + 3..s.len() - 3)
    } else if s.len() >= start + 2 {
        s.get(start + 1..s.len() - 1)
    } else {
        None
    };
    body.unwrap_or("").to_string()
}

fn is_string_kind(lang: Lang, k: &str) -> bool {
    match lang {
        Lang::Cpp => matches!(k, "string_literal" | "raw_string_literal"),
        Lang::Python => k == "string",
        Lang::Go => matches!(k, "interpreted_string_literal" | "raw_string_literal"),
    }
}

fn is_container(k: &str) -> bool {
    matches!(
        k,
        "initializer_list"
            | "list"
            | "tuple"
            | "set"
            | "dictionary"
            | "pair"
            | "literal_value"
            | "keyed_element"
            | "literal_element"
            | "composite_literal"
    )
}

/// Name of the function a call calls, last segment (`StartsWith`, `startswith`, `HasPrefix`).
fn callee_name(call: Node, src: &[u8]) -> Option<String> {
    let f = call.child_by_field_name("function")?;
    let t = text_str(f, src);
    let last = t
        .rsplit(['.', ':', '>', '-'])
        .next()
        .unwrap_or(&t)
        .trim()
        .to_string();
    Some(last)
}

const PREFIX_CALLS: &[&str] = &[
    "StartsWith",
    "starts_with",
    "startswith",
    "HasPrefix",
    "rfind",
    "find",
    "Contains",
    "contains",
    "EndsWith",
    "compare",
    "strncmp",
    "match",
    "search",
    "fullmatch",
    "MatchString",
];

/// Whether the string is used as a prefix or substring (StartsWith, `in`, find).
fn prefix_context(lang: Lang, s: Node, src: &[u8]) -> bool {
    let Some(p) = s.parent() else { return false };
    match p.kind() {
        "argument_list" | "arguments" => {
            let call = p.parent();
            call.and_then(|c| callee_name(c, src))
                .is_some_and(|n| PREFIX_CALLS.contains(&n.as_str()))
        }
        "tuple" if lang == Lang::Python => p
            .parent()
            .filter(|a| a.kind() == "argument_list")
            .and_then(|a| a.parent())
            .and_then(|c| callee_name(c, src))
            .is_some_and(|n| n == "startswith"),
        // Python `"gfx9" in arch`: the string is the left operand of `in`.
        "comparison_operator" => {
            let first = p.child(0).map(|c| c.id()) == Some(s.id());
            let op = p.child(1).map(|c| text_str(c, src)).unwrap_or_default();
            first && (op == "in" || op == "not in")
        }
        _ => false,
    }
}

fn operator(n: Node, src: &[u8]) -> String {
    n.child_by_field_name("operator")
        .map(|o| text_str(o, src))
        .unwrap_or_default()
}

/// Whether a branch body only refuses: `return false`, `throw`, `continue`, an abort.
fn denies(body: Node, src: &[u8]) -> bool {
    let t: String = text_str(body, src)
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '{' && *c != ':')
        .collect();
    [
        "returnfalse",
        "returnFalse",
        "throw",
        "raise",
        "MIOPEN_THROW",
        "continue",
        "GGML_ABORT",
        "abort(",
        "returnnullptr",
        "returnstd::nullopt",
        "returnNone",
        "return;",
        "#error",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// Effect of the gate whose anchor is `n`, and whether an alternative branch exists.
fn effect_of(n: Node, src: &[u8]) -> (Effect, bool) {
    let mut neg = false;
    let mut cur = n;
    let mut depth = 0;
    while let Some(p) = cur.parent() {
        depth += 1;
        if depth > 40 {
            break;
        }
        let k = p.kind();
        match k {
            "unary_expression" if operator(p, src) == "!" => neg = !neg,
            "not_operator" => neg = !neg,
            "binary_expression" => neg ^= binary_negates(p, cur, src),
            "comparison_operator" => neg ^= comparison_negates(p, cur, src),
            "if_statement" | "elif_clause" | "while_statement" | "preproc_if" => {
                let Some(e) = branch_effect(p, cur, src) else {
                    break;
                };
                return (if neg { e.0.flip() } else { e.0 }, e.1);
            }
            "conditional_expression" => {
                let e = if neg {
                    Effect::Excludes
                } else {
                    Effect::Includes
                };
                return (e, true);
            }
            "case_statement" | "expression_case" | "case_clause" => {
                return (Effect::Includes, true);
            }
            "return_statement"
            | "init_declarator"
            | "declaration"
            | "assignment_expression"
            | "assignment"
            | "short_var_declaration"
            | "var_spec"
            | "const_spec"
            | "expression_statement"
            | "compound_statement"
            | "block"
            | "function_definition"
            | "translation_unit"
            | "module"
            | "source_file" => {
                break;
            }
            _ => {}
        }
        cur = p;
    }
    (
        if neg {
            Effect::Excludes
        } else {
            Effect::Includes
        },
        false,
    )
}

/// Whether a C/C++/Go binary expression around `cur` negates it: `name.find("gfx9") ==
/// std::string::npos` (Go: `== -1`) means "not found", so `==` negates and `!=` does not;
/// otherwise `!=` negates.
fn binary_negates(p: Node, cur: Node, src: &[u8]) -> bool {
    let op = operator(p, src);
    let other = [
        p.child_by_field_name("left"),
        p.child_by_field_name("right"),
    ]
    .into_iter()
    .flatten()
    .find(|c| !(c.start_byte() <= cur.start_byte() && cur.end_byte() <= c.end_byte()));
    let not_found = other.is_some_and(|o| {
        let t: String = text_str(o, src)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        t.ends_with("npos") || t == "-1"
    });
    if not_found && text_str(cur, src).contains("find") {
        op == "=="
    } else {
        op == "!="
    }
}

/// Whether a Python comparison around `cur` negates it: `arch.find("gfx9") == -1` (not
/// found) by `==`, otherwise `!=`, `not in`, `not`.
fn comparison_negates(p: Node, cur: Node, src: &[u8]) -> bool {
    let ops: Vec<String> = (0..p.child_count())
        .filter_map(|i| p.child(i))
        .filter(|c| !c.is_named())
        .map(|c| text_str(c, src))
        .collect();
    let last = p.named_child(p.named_child_count().saturating_sub(1));
    let not_found = text_str(cur, src).contains("find")
        && last.is_some_and(|l| l.id() != cur.id() && text_str(l, src).trim() == "-1");
    if not_found {
        ops.iter().any(|o| o == "==")
    } else {
        ops.iter().any(|o| o == "!=" || o == "not in" || o == "not")
    }
}

/// What a branch whose condition holds `cur` does (excludes when its body denies, else
/// includes) and whether it has an alternative; `None` when `cur` is not in the condition.
fn branch_effect(p: Node, cur: Node, src: &[u8]) -> Option<(Effect, bool)> {
    let cond = p.child_by_field_name("condition");
    let in_cond =
        cond.is_some_and(|c| c.start_byte() <= cur.start_byte() && cur.end_byte() <= c.end_byte());
    if !in_cond {
        return None;
    }
    let cons = p.child_by_field_name("consequence").or_else(|| {
        // Go and C++ keep the body as `consequence`; fall back to the next sibling.
        cond.and_then(|c| c.next_named_sibling())
    });
    let deny = cons.is_some_and(|c| denies(c, src));
    let alt = p.child_by_field_name("alternative").is_some()
        || (p.kind() == "elif_clause"
            && p.next_named_sibling()
                .is_some_and(|s| matches!(s.kind(), "elif_clause" | "else_clause")));
    let e = if deny {
        Effect::Excludes
    } else {
        Effect::Includes
    };
    Some((e, alt))
}

fn declarator_name(mut d: Node, src: &[u8]) -> Option<String> {
    for _ in 0..16 {
        match d.kind() {
            "function_declarator"
            | "pointer_declarator"
            | "reference_declarator"
            | "parenthesized_declarator"
            | "init_declarator"
            | "array_declarator" => {
                d = d.child_by_field_name("declarator")?;
            }
            "identifier"
            | "field_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "template_function" => {
                let t = text_str(d, src);
                return Some(t.split_whitespace().collect::<Vec<_>>().join(""));
            }
            _ => return None,
        }
    }
    None
}

/// The enclosing function (qualified) and variable of a node.
fn enclosing(lang: Lang, n: Node, src: &[u8]) -> (Option<String>, Option<String>) {
    let mut function: Option<String> = None;
    let mut symbol: Option<String> = None;
    let mut classes: Vec<String> = Vec::new();
    let mut cur = Some(n);
    while let Some(c) = cur {
        match (lang, c.kind()) {
            (Lang::Cpp, "function_definition") if function.is_none() => {
                function = c
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d, src));
            }
            (Lang::Cpp, "class_specifier" | "struct_specifier") if function.is_some() => {
                if let Some(nm) = c.child_by_field_name("name") {
                    classes.push(text_str(nm, src));
                }
            }
            (Lang::Cpp, "init_declarator" | "declaration")
                if function.is_none() && symbol.is_none() =>
            {
                symbol = c
                    .child_by_field_name("declarator")
                    .and_then(|d| declarator_name(d, src));
            }
            (Lang::Python, "function_definition") if function.is_none() => {
                function = c.child_by_field_name("name").map(|x| text_str(x, src));
            }
            (Lang::Python, "class_definition") => {
                if let Some(nm) = c.child_by_field_name("name") {
                    if function.is_some() {
                        classes.push(text_str(nm, src));
                    } else if symbol.is_none() {
                        symbol = Some(text_str(nm, src));
                    }
                }
            }
            (Lang::Python, "assignment") if function.is_none() && symbol.is_none() => {
                symbol = c.child_by_field_name("left").map(|x| text_str(x, src));
            }
            (Lang::Go, "function_declaration") if function.is_none() => {
                function = c.child_by_field_name("name").map(|x| text_str(x, src));
            }
            (Lang::Go, "method_declaration") if function.is_none() => {
                let name = c.child_by_field_name("name").map(|x| text_str(x, src));
                let recv = c.child_by_field_name("receiver").and_then(|r| {
                    let t = text_str(r, src);
                    let t = t.trim_matches(|ch| ch == '(' || ch == ')');
                    t.split_whitespace()
                        .last()
                        .map(|s| s.trim_start_matches('*').to_string())
                });
                function = match (recv, name) {
                    (Some(r), Some(n)) => Some(format!("{r}.{n}")),
                    (None, n) => n,
                    (Some(r), None) => Some(r),
                };
            }
            (Lang::Go, "var_spec" | "const_spec") if function.is_none() && symbol.is_none() => {
                symbol = c.child_by_field_name("name").map(|x| text_str(x, src));
            }
            _ => {}
        }
        cur = c.parent();
    }
    if let Some(f) = &mut function {
        if !classes.is_empty() && !f.contains("::") && !f.contains('.') {
            classes.reverse();
            let sep = if lang == Lang::Python { "." } else { "::" };
            *f = format!("{}{sep}{f}", classes.join(sep));
        }
    }
    (function, symbol)
}

/// Line text (trimmed, at most 240 characters) of a 0-based row.
fn line_text(src: &[u8], line_starts: &[usize], row: usize) -> String {
    let a = line_starts.get(row).copied().unwrap_or(src.len());
    let b = line_starts.get(row + 1).copied().unwrap_or(src.len());
    let s = String::from_utf8_lossy(src.get(a..b).unwrap_or(&[]));
    let t = s.trim();
    if t.chars().count() > 240 {
        let mut o: String = t.chars().take(239).collect();
        o.push('…');
        o
    } else {
        t.to_string()
    }
}

/// Byte offsets where lines start.
pub fn line_starts(src: &[u8]) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(memchr::memchr_iter(b'\n', src).map(|i| i + 1));
    v
}

/// References (issue links, SWDEV ids, WORKAROUND macros) on the gate line and the comment
/// lines just above it.
pub fn references_near(src: &[u8], line_starts: &[usize], row: usize) -> Vec<String> {
    let Some(re) = REF_RE.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let first = row.saturating_sub(4);
    for r in first..=row {
        let t = line_text(src, line_starts, r);
        let is_comment =
            t.starts_with("//") || t.starts_with('#') || t.starts_with("/*") || t.starts_with('*');
        if r != row && !is_comment {
            continue;
        }
        for m in re.find_iter(&t) {
            let s = m.as_str().trim_end_matches(['.', ',', ';']).to_string();
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

fn pattern(text: String, how: Match, covers: Vec<String>) -> Pattern {
    Pattern { text, how, covers }
}

/// Macros in a preprocessor condition that stand for targets.
fn macro_patterns(cond: &[u8]) -> Vec<Pattern> {
    let Some(re) = MACRO_RE.as_ref() else {
        return Vec::new();
    };
    let mut out: Vec<Pattern> = Vec::new();
    for m in re.find_iter(cond) {
        let t = String::from_utf8_lossy(m.as_bytes()).into_owned();
        let p = if let Some(c) = targets::resolve_macro(&t) {
            pattern(t, Match::Macro, c)
        } else if let Some(f) = targets::family_macro(&t).or_else(|| {
            targets::predicate(&t).filter(|_| t.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        }) {
            pattern(t, Match::Feature, f.covers())
        } else {
            continue;
        };
        if !out.iter().any(|o| o.text == p.text) {
            out.push(p);
        }
    }
    out
}

/// The first macro a preprocessor block defines (`#if defined(__gfx1200__) … #define RDNA4`).
fn defined_macro(block: Node, src: &[u8]) -> Option<String> {
    let mut c = block.walk();
    for ch in block.named_children(&mut c) {
        if ch.kind() == "preproc_def" {
            return ch.child_by_field_name("name").map(|n| text_str(n, src));
        }
    }
    None
}

/// Finds the gates among the candidate byte offsets of one file. `cands` are (offset, len)
/// of needle matches, sorted.
pub fn analyze(lang: Lang, src: &[u8], cands: &[(usize, usize)]) -> Option<Vec<Found>> {
    let starts = line_starts(src);
    let row_of = |off: usize| starts.partition_point(|&s| s <= off).saturating_sub(1);
    // Group candidates by the top-level item they are in; parse each item alone.
    type Group = ((usize, usize), Vec<(usize, usize)>);
    let mut groups: Vec<Group> = Vec::new();
    for &(off, len) in cands {
        let row = row_of(off);
        if let Some((rg, v)) = groups.last_mut() {
            if rg.0 <= row && row <= rg.1 {
                v.push((off, len));
                continue;
            }
        }
        groups.push((chunk(lang, src, &starts, row), vec![(off, len)]));
    }
    let mut out = Vec::new();
    for ((ra, rb), cs) in groups {
        let sb = starts.get(ra).copied().unwrap_or(0);
        let eb = starts.get(rb + 1).copied().unwrap_or(src.len());
        let range = (sb > 0 || eb < src.len()).then(|| tree_sitter::Range {
            start_byte: sb,
            end_byte: eb,
            start_point: tree_sitter::Point { row: ra, column: 0 },
            end_point: tree_sitter::Point {
                row: rb + 1,
                column: 0,
            },
        });
        let tree = parse(lang, src, range)?;
        let root = tree.root_node();
        let mut seen: HashSet<usize> = HashSet::new();
        for (off, len) in cs {
            let Some(leaf) = root.descendant_for_byte_range(off, off + len) else {
                continue;
            };
            if let Some(f) = classify(lang, leaf, src, &starts, &mut seen) {
                out.push(f);
            }
        }
    }
    out.sort_by_key(|f| f.line);
    Some(out)
}

fn classify(
    lang: Lang,
    leaf: Node,
    src: &[u8],
    starts: &[usize],
    seen: &mut HashSet<usize>,
) -> Option<Found> {
    // Walk up to the construct this occurrence belongs to.
    let mut n = leaf;
    for _ in 0..64 {
        let k = n.kind();
        if k == "comment" {
            return None;
        }
        if is_string_kind(lang, k) {
            return string_gate(lang, n, src, starts, seen);
        }
        if matches!(
            k,
            "preproc_if" | "preproc_elif" | "preproc_ifdef" | "preproc_elifdef"
        ) {
            return preproc_gate(n, leaf, src, starts, seen);
        }
        if matches!(
            k,
            "identifier" | "field_identifier" | "qualified_identifier" | "type_identifier"
        ) {
            if let Some(f) = identifier_gate(lang, n, src, starts, seen) {
                return Some(f);
            }
        }
        if matches!(
            k,
            "translation_unit"
                | "module"
                | "source_file"
                | "compound_statement"
                | "block"
                | "function_definition"
                | "expression_statement"
        ) {
            return None;
        }
        n = n.parent()?;
    }
    None
}

fn finish(
    lang: Lang,
    anchor: Node,
    kind: Kind,
    patterns: Vec<Pattern>,
    predicate: Option<String>,
    src: &[u8],
    starts: &[usize],
) -> Found {
    let (effect, alternative) = effect_of(anchor, src);
    let (function, symbol) = enclosing(lang, anchor, src);
    let row = anchor.start_position().row;
    Found {
        line: row as u64 + 1,
        kind,
        effect,
        alternative,
        patterns,
        predicate,
        function,
        symbol,
        text: line_text(src, starts, row),
        references: references_near(src, starts, row),
    }
}

fn string_gate(
    lang: Lang,
    s: Node,
    src: &[u8],
    starts: &[usize],
    seen: &mut HashSet<usize>,
) -> Option<Found> {
    if !seen.insert(s.id()) {
        return None;
    }
    let content = string_content(s, src);
    let pre = prefix_context(lang, s, src);
    let (covers, how) = targets::resolve_literal(&content, pre)?;
    // In a container: a list gate, anchored at the container's use.
    let mut anchor = s;
    let mut kind = Kind::String;
    while let Some(p) = anchor.parent() {
        if is_container(p.kind()) {
            kind = Kind::List;
            anchor = p;
        } else {
            break;
        }
    }
    let mut f = finish(
        lang,
        anchor,
        kind,
        vec![pattern(content, how, covers)],
        None,
        src,
        starts,
    );
    // The line is the string's own line, not the container's.
    let row = s.start_position().row;
    f.line = row as u64 + 1;
    f.text = line_text(src, starts, row);
    f.references = references_near(src, starts, row);
    Some(f)
}

fn preproc_gate(
    block: Node,
    leaf: Node,
    src: &[u8],
    starts: &[usize],
    seen: &mut HashSet<usize>,
) -> Option<Found> {
    let cond = block
        .child_by_field_name("condition")
        .or_else(|| block.child_by_field_name("name"))?;
    if !(cond.start_byte() <= leaf.start_byte() && leaf.end_byte() <= cond.end_byte()) {
        return None;
    }
    if !seen.insert(block.id()) {
        return None;
    }
    let ctext = text(cond, src);
    let patterns = macro_patterns(ctext);
    if patterns.is_empty() {
        return None;
    }
    let directive = block.child(0).map(|c| text_str(c, src)).unwrap_or_default();
    let ctext_s = String::from_utf8_lossy(ctext);
    let negated = directive.starts_with("#ifndef")
        || directive.starts_with("#elifndef")
        || (ctext_s.contains("!defined") && !ctext_s.replace("!defined", "").contains("defined"))
        || ctext_s.trim_start().starts_with('!');
    let effect = if negated {
        Effect::Excludes
    } else {
        Effect::Includes
    };
    let alternative = block.child_by_field_name("alternative").is_some();
    let (function, mut symbol) = enclosing(Lang::Cpp, block, src);
    if function.is_none() {
        symbol = defined_macro(block, src).or(symbol);
    }
    let row = cond.start_position().row;
    Some(Found {
        line: row as u64 + 1,
        kind: Kind::Preprocessor,
        effect,
        alternative,
        patterns,
        predicate: None,
        function,
        symbol,
        text: line_text(src, starts, row),
        references: references_near(src, starts, row),
    })
}

fn identifier_gate(
    lang: Lang,
    id: Node,
    src: &[u8],
    starts: &[usize],
    seen: &mut HashSet<usize>,
) -> Option<Found> {
    let name = text_str(id, src);
    let base = name.rsplit("::").next().unwrap_or(&name).to_string();
    let parent = id.parent()?;
    // A predicate call: the identifier is the callee.
    if targets::predicate(&base).is_some() {
        let call = if parent.kind() == "call_expression" || parent.kind() == "call" {
            parent
        } else if matches!(
            parent.kind(),
            "qualified_identifier" | "field_expression" | "attribute" | "selector_expression"
        ) {
            parent
                .parent()
                .filter(|g| matches!(g.kind(), "call_expression" | "call"))?
        } else {
            return None;
        };
        if !seen.insert(call.id()) {
            return None;
        }
        return Some(finish(
            lang,
            call,
            Kind::Predicate,
            Vec::new(),
            Some(base),
            src,
            starts,
        ));
    }
    // `cc >= GGML_CUDA_CC_VEGA20`: an ordered comparison with a constant.
    if let Some(v) = targets::ggml_cc(&base) {
        if parent.kind() != "binary_expression" || !seen.insert(parent.id()) {
            return None;
        }
        let op = operator(parent, src);
        let left_is_const = parent
            .child_by_field_name("left")
            .is_some_and(|l| l.id() == id.id());
        // `C <= cc` reads as `cc >= C`.
        let op = if left_is_const {
            match op.as_str() {
                ">=" => "<=".to_string(),
                "<=" => ">=".to_string(),
                ">" => "<".to_string(),
                "<" => ">".to_string(),
                o => o.to_string(),
            }
        } else {
            op
        };
        if !matches!(op.as_str(), ">=" | ">" | "<=" | "<" | "==" | "!=") {
            return None;
        }
        let covers = targets::compare(if op == "!=" { "==" } else { &op }, v);
        let pat = pattern(format!("cc {op} {base}"), Match::Compare, covers);
        // `!=` is read by effect_of as a negation of `==`.
        return Some(finish(
            lang,
            parent,
            Kind::Compare,
            vec![pat],
            None,
            src,
            starts,
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lang: Lang, src: &str, needle: &str) -> Vec<Found> {
        let mut cands: Vec<(usize, usize)> = src
            .match_indices(needle)
            .map(|(i, m)| (i, m.len()))
            .collect();
        if needle == "gfx" {
            cands.extend(src.match_indices("GFX").map(|(i, m)| (i, m.len())));
            cands.sort();
        }
        analyze(lang, src.as_bytes(), &cands).unwrap()
    }

    #[test]
    fn cpp_string_gate_in_is_applicable() {
        let src = r#"
namespace solver {
bool ConvMlirIgemmFwd::IsApplicable(const Ctx& ctx, const Problem& p) const
{
    // Refer to https://github.com/ROCm/llvm-project-private/issues/389
    const auto device_name = ctx.GetStream().GetDeviceName();
    if(StartsWith(device_name, "gfx900"))
        return false;
    MIOPEN_LOG_I("runs on gfx900 too");
    return true;
}
}
"#;
        let v = run(Lang::Cpp, src, "gfx");
        assert_eq!(v.len(), 1, "{v:?}");
        let g = &v[0];
        assert_eq!(g.line, 7);
        assert_eq!(g.effect, Effect::Excludes);
        assert_eq!(
            g.function.as_deref(),
            Some("ConvMlirIgemmFwd::IsApplicable")
        );
        assert_eq!(g.patterns[0].covers, ["gfx900"]);
        assert_eq!(g.patterns[0].how, Match::Prefix);
        assert_eq!(
            g.references,
            ["https://github.com/ROCm/llvm-project-private/issues/389"]
        );
    }

    #[test]
    fn cpp_predicate_negated_and_definition() {
        let src = r#"
struct Xdl {
    bool IsApplicable(const Ctx& ctx) const {
        if(!IsXdlopsSupport(ctx)) return false;
        return true;
    }
};
static inline bool IsXdlopsSupport(const Ctx& ctx)
{
    const bool ok = StartsWith(ctx.name, "gfx908") || StartsWith(ctx.name, "gfx94");
    return ok;
}
"#;
        let v = run(Lang::Cpp, src, "IsXdlopsSupport");
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].predicate.as_deref(), Some("IsXdlopsSupport"));
        assert_eq!(v[0].effect, Effect::Includes);
        assert_eq!(v[0].function.as_deref(), Some("Xdl::IsApplicable"));
        let d = run(Lang::Cpp, src, "gfx");
        assert_eq!(d.len(), 2);
        assert!(
            d.iter()
                .all(|f| f.effect == Effect::Includes && !f.alternative)
        );
        assert_eq!(d[0].function.as_deref(), Some("IsXdlopsSupport"));
    }

    #[test]
    fn find_against_npos() {
        // Only gfx9 devices pass: the gate excludes what it does not cover.
        let src = r#"
bool ConvAsm1x1U::IsApplicable(const Ctx& ctx) const
{
    const std::string name = ctx.GetStream().GetDeviceName();
    if(name.find("gfx9") == std::string::npos)
        return false;
    if(name.find("gfx90a") != std::string::npos) // Any gfx90a device.
    {
        workaround();
    }
    if(name.find("gfx94") != std::string::npos)
        return false;
    return true;
}
"#;
        let v = run(Lang::Cpp, src, "gfx");
        assert_eq!(v.len(), 3, "{v:?}");
        // `== npos` then `return false`: refuses the targets it does not cover, which reads as
        // "includes" the covered ones.
        assert_eq!(v[0].effect, Effect::Includes);
        // `!= npos` with a workaround body: applies to the covered targets.
        assert_eq!(v[1].effect, Effect::Includes);
        // `!= npos` then `return false`: excludes the covered targets.
        assert_eq!(v[2].effect, Effect::Excludes);
        let py = "def ok(arch):\n    if arch.find(\"gfx9\") == -1:\n        return False\n    return True\n";
        let v = run(Lang::Python, py, "gfx");
        assert_eq!(v.len(), 1, "{v:?}");
        assert_eq!(v[0].effect, Effect::Includes);
    }

    #[test]
    fn preprocessor_with_fallback() {
        let src = "#if defined(__gfx906__) || defined(__gfx1030__)\nint dot4();\n#else\nint seq();\n#endif\n#ifndef __GFX12__\nint x;\n#endif\n";
        let v = run(Lang::Cpp, src, "gfx");
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].kind, Kind::Preprocessor);
        assert!(v[0].alternative);
        assert_eq!(v[0].effect, Effect::Includes);
        assert_eq!(v[1].effect, Effect::Excludes);
    }

    #[test]
    fn python_and_go() {
        let py = "class Sel:\n    def pick(self, arch):\n        if arch in (\"gfx90a\", \"gfx942\"):\n            return 'mfma'\n        else:\n            return 'valu'\n";
        let v = run(Lang::Python, py, "gfx");
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].kind, Kind::List);
        assert_eq!(v[0].function.as_deref(), Some("Sel.pick"));
        assert!(v[0].alternative);
        let go = "package discover\nvar supported = map[string]struct{}{\n\t\"gfx1151\": {},\n}\nfunc (d *Dev) ok(g string) bool {\n\tif strings.HasPrefix(g, \"gfx9\") { return false }\n\treturn true\n}\n";
        let v = run(Lang::Go, go, "gfx");
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].symbol.as_deref(), Some("supported"));
        assert_eq!(v[1].function.as_deref(), Some("Dev.ok"));
        assert_eq!(v[1].effect, Effect::Excludes);
        assert!(v[1].patterns[0].covers.contains(&"gfx906".to_string()));
    }

    #[test]
    fn ggml_compare_and_comment() {
        let src = "static bool use_mmq(int cc) {\n  // gfx900 is slow here\n  if (GGML_CUDA_CC_IS_RDNA4(cc)) { return true; }\n  return cc >= GGML_CUDA_CC_VEGA20;\n}\n";
        let mut c: Vec<(usize, usize)> = Vec::new();
        for n in ["gfx", "GGML_CUDA_CC_"] {
            c.extend(src.match_indices(n).map(|(i, m)| (i, m.len())));
        }
        c.sort();
        let v = analyze(Lang::Cpp, src.as_bytes(), &c).unwrap();
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].predicate.as_deref(), Some("GGML_CUDA_CC_IS_RDNA4"));
        assert_eq!(v[1].kind, Kind::Compare);
        assert!(v[1].patterns[0].covers.contains(&"gfx1201".to_string()));
        assert!(!v[1].patterns[0].covers.contains(&"gfx900".to_string()));
    }
}
