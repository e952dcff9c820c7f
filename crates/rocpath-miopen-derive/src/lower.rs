//! C++ function bodies → the model's statements and expressions.
//!
//! Calls are resolved while lowering: builtins the evaluator implements (by name), members of
//! the current class (through its bases), free and qualified functions of the index (same
//! file first, then the closest namespace, then a unique definition), problem-description
//! primitives (left to the evaluator). A callee found in the index is queued and lowered in
//! turn, so the model holds the transitive closure of what the roots call. Whatever is not
//! translated stays as an `Unsupported` node with its line.

use crate::index::{FuncDef, Index, declarator_name, strip_targs, text};
use rocpath_miopen::model::builtins;
use rocpath_miopen::model::ir::{Arm, BinOp, Callee, Expr, ExprKind, Function, Site, Stmt, UnOp};
use std::collections::{BTreeMap, HashMap, HashSet};
use tree_sitter::{Node, Parser, Tree};

/// The longest text kept on a node.
const MAX_TEXT: usize = 240;
/// Nesting of statements and expressions kept; deeper code becomes `Unsupported` (the model
/// is read back with a bounded recursion depth).
const MAX_NEST: u32 = 24;

/// Lowers functions of an index, on demand.
pub struct Lowerer<'a> {
    ix: &'a Index,
    parser: Parser,
    trees: HashMap<u32, Tree>,
    /// The function table being built.
    pub funcs: Vec<Function>,
    done: HashMap<usize, u32>,
    queue: Vec<(usize, u32)>,
    /// Calls that found no definition, with counts.
    pub unresolved: BTreeMap<String, u32>,
    /// Constructs not translated, with counts.
    pub unsupported: BTreeMap<String, u32>,
    /// Environment variables named by the lowered bodies.
    pub env_used: HashSet<String>,
    /// Build flags named by `#if` conditions.
    pub flags_used: HashSet<String>,
}

/// Per-function lowering state.
struct Fx<'s> {
    src: &'s [u8],
    file: u32,
    class: Option<String>,
    fields: Vec<String>,
    tparams: Vec<String>,
    scopes: Vec<Vec<String>>,
    nest: u32,
    /// Locals declared with a class type (name, class).
    types: Vec<(String, String)>,
    /// The declared return type (`static PerformanceConfigX`: `PerformanceConfigX`), if any.
    ret: Option<String>,
}

impl Fx<'_> {
    fn is_local(&self, name: &str) -> bool {
        self.scopes
            .iter()
            .rev()
            .any(|s| s.iter().any(|n| n == name))
            || self.tparams.iter().any(|t| t == name)
    }

    /// A local declared in the body (not a parameter: `ctx` and `problem` are const).
    fn is_body_local(&self, name: &str) -> bool {
        self.scopes
            .iter()
            .skip(1)
            .any(|s| s.iter().any(|n| n == name))
    }

    fn declare(&mut self, name: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.push(name.to_string());
        }
    }
}

/// A statement kept for its effect, with the locals it may change.
fn effect(fx: &Fx, line: u32, e: Node) -> Stmt {
    let mut clobbers = Vec::new();
    clobbered(fx, e, &mut clobbers);
    clobbers.sort();
    clobbers.dedup();
    Stmt::Effect { line, clobbers }
}

/// Body locals an expression may change: the root of an assignment's or update's target, the
/// arguments of a call (by reference, or their address), the object of a method call.
/// Logging macros change nothing.
fn clobbered(fx: &Fx, n: Node, out: &mut Vec<String>) {
    let root = |x: Option<Node>, out: &mut Vec<String>| {
        let mut x = x;
        while let Some(y) = x {
            match y.kind() {
                "identifier" => {
                    let name = text(y, fx.src);
                    if fx.is_body_local(name) {
                        out.push(name.to_string());
                    }
                    return;
                }
                "field_expression" | "subscript_expression" => {
                    x = y.child_by_field_name("argument");
                }
                "pointer_expression" | "parenthesized_expression" => x = y.named_child(0),
                _ => return,
            }
        }
    };
    match n.kind() {
        "assignment_expression" => root(n.child_by_field_name("left"), out),
        "update_expression" => root(n.child_by_field_name("argument"), out),
        "call_expression" => {
            let f = n.child_by_field_name("function");
            if f.is_some_and(|f| text(f, fx.src).starts_with("MIOPEN_LOG")) {
                return;
            }
            if let Some(f) = f.filter(|f| f.kind() == "field_expression") {
                root(f.child_by_field_name("argument"), out);
            }
            if let Some(args) = n.child_by_field_name("arguments") {
                let mut c = args.walk();
                for a in args.named_children(&mut c) {
                    root(Some(a), out);
                }
            }
        }
        _ => {}
    }
    let mut c = n.walk();
    for ch in n.named_children(&mut c) {
        clobbered(fx, ch, out);
    }
}

/// `std::tie(…)` on the left of an assignment.
fn is_tie(n: Node, src: &[u8]) -> bool {
    n.kind() == "call_expression"
        && n.child_by_field_name("function")
            .is_some_and(|f| matches!(text(f, src), "std::tie" | "tie"))
}

fn line(n: Node) -> u32 {
    n.start_position().row as u32 + 1
}

fn squash(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_TEXT));
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
        if out.len() >= MAX_TEXT {
            out.push('…');
            break;
        }
    }
    out
}

fn ex(l: u32, k: ExprKind) -> Expr {
    Expr { l, t: None, k }
}

fn unsupported(n: Node, what: &str) -> Expr {
    ex(
        line(n),
        ExprKind::Unsupported {
            what: what.to_string(),
        },
    )
}

fn binop(op: &str) -> Option<BinOp> {
    Some(match op {
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        _ => return None,
    })
}

fn parse_int(s: &str) -> Option<i64> {
    let t = s.replace('\'', "");
    let t = t.trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        i64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| b.is_ascii_digit()) {
        i64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

fn parse_float(s: &str) -> Option<f64> {
    s.replace('\'', "")
        .trim_end_matches(['f', 'F', 'l', 'L'])
        .parse()
        .ok()
}

/// Named constants whose value is a known enumerator or constant of the field (kept as symbols).
fn is_symbol_name(name: &str) -> bool {
    name.starts_with("miopen")
        || name.starts_with("WORKAROUND_")
        || matches!(
            name,
            "npos" | "Forward" | "BackwardData" | "BackwardWeights"
        )
        || name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && name.len() > 1
}

impl<'a> Lowerer<'a> {
    /// A lowerer over an index.
    pub fn new(ix: &'a Index) -> Option<Lowerer<'a>> {
        Some(Lowerer {
            ix,
            parser: crate::index::parser()?,
            trees: HashMap::new(),
            funcs: Vec::new(),
            done: HashMap::new(),
            queue: Vec::new(),
            unresolved: BTreeMap::new(),
            unsupported: BTreeMap::new(),
            env_used: HashSet::new(),
            flags_used: HashSet::new(),
        })
    }

    /// The table id of a function definition (queued for lowering the first time).
    pub fn function(&mut self, def: usize) -> u32 {
        if let Some(&id) = self.done.get(&def) {
            return id;
        }
        let d = &self.ix.funcs[def];
        let id = self.funcs.len() as u32;
        self.funcs.push(Function {
            name: d.qname.clone(),
            class: d.class.clone(),
            params: d.params.clone(),
            template_params: d.template_params.clone(),
            site: Site {
                file: d.file,
                line: d.line,
            },
            body: Vec::new(),
        });
        self.done.insert(def, id);
        self.queue.push((def, id));
        id
    }

    /// Adds a function whose body is C++ text (a hand-written rule), lowered as a member of
    /// `class` when given. Returns its id.
    pub fn synthetic(
        &mut self,
        name: &str,
        class: Option<&str>,
        params: &[&str],
        body: &str,
        site: Site,
    ) -> u32 {
        let id = self.funcs.len() as u32;
        let src = format!("void __rocpath_rule() {{ {body} }}");
        let stmts = match self.parser.parse(src.as_bytes(), None) {
            Some(t) => {
                let root = t.root_node();
                let body = first_kind(root, "compound_statement");
                let mut fx = Fx {
                    src: src.as_bytes(),
                    file: site.file,
                    class: class.map(str::to_string),
                    fields: class.map(|c| self.fields_of(c)).unwrap_or_default(),
                    tparams: Vec::new(),
                    scopes: vec![params.iter().map(|s| s.to_string()).collect()],
                    nest: 0,
                    types: Vec::new(),
                    ret: None,
                };
                let mut out = body.map(|b| self.block(&mut fx, b)).unwrap_or_default();
                relocate(&mut out, site.line);
                out
            }
            None => Vec::new(),
        };
        self.funcs.push(Function {
            name: name.to_string(),
            class: class.map(str::to_string),
            params: params.iter().map(|s| s.to_string()).collect(),
            template_params: Vec::new(),
            site,
            body: stmts,
        });
        id
    }

    /// Lowers everything queued.
    pub fn drain(&mut self) {
        while let Some((def, id)) = self.queue.pop() {
            let body = self.lower_def(def);
            if let Some(f) = self.funcs.get_mut(id as usize) {
                f.body = body;
            }
        }
    }

    fn lower_def(&mut self, def: usize) -> Vec<Stmt> {
        let d: FuncDef = self.ix.funcs[def].clone();
        let tree = match self.trees.remove(&d.file) {
            Some(t) => t,
            None => match self.ix.tree(&mut self.parser, d.file) {
                Some(t) => t,
                None => return Vec::new(),
            },
        };
        let src = &self.ix.files[d.file as usize].1;
        let def_node = tree
            .root_node()
            .descendant_for_byte_range(d.range.0, d.range.1)
            .and_then(|n| up_to(n, "function_definition", d.range));
        let ret = def_node
            .and_then(|n| n.child_by_field_name("type"))
            .map(|t| strip_targs(text(t, src)));
        let out = match def_node.and_then(|n| n.child_by_field_name("body")) {
            Some(body) => {
                let mut fx = Fx {
                    src,
                    file: d.file,
                    fields: d
                        .class
                        .as_deref()
                        .map(|c| self.fields_of(c))
                        .unwrap_or_default(),
                    class: d.class.clone(),
                    tparams: d.template_params.clone(),
                    scopes: vec![d.params.clone()],
                    nest: 0,
                    types: Vec::new(),
                    ret,
                };
                // Perf-config parameters are values the model builds (their constructors and
                // methods are read); the context, problem and tensors stay the evaluator's own.
                if let Some(n) = def_node {
                    for (v, class) in param_classes(n, src) {
                        if self.is_perf_config(&class) {
                            fx.types.push((v, class));
                        }
                    }
                }
                match def_node.filter(|_| is_ctor(&d)) {
                    Some(n) => self.ctor_body(&mut fx, n, &d),
                    None => self.block(&mut fx, body),
                }
            }
            None => Vec::new(),
        };
        self.trees.insert(d.file, tree);
        out
    }

    /// `return {…};` in a function that returns a class with a constructor taking that many
    /// arguments: a call of that constructor.
    fn brace_ctor(&mut self, fx: &mut Fx, v: Node) -> Option<Expr> {
        if v.kind() != "initializer_list" {
            return None;
        }
        let class = fx.ret.clone()?;
        let last = class.rsplit("::").next()?.to_string();
        let mut c = v.walk();
        let items: Vec<Node> = v.named_children(&mut c).collect();
        let strings: Vec<bool> = items
            .iter()
            .map(|x| matches!(x.kind(), "string_literal" | "raw_string_literal"))
            .collect();
        let def = self.ctor(&last, &strings)?;
        let id = self.function(def);
        let args = items.into_iter().map(|x| self.expr(fx, x)).collect();
        Some(ex(
            line(v),
            ExprKind::Call {
                f: Callee::Func {
                    id,
                    targs: Vec::new(),
                },
                args,
            },
        ))
    }

    /// A constructor of `class` (or of a base it inherits them from) for arguments of which
    /// `strings` tells the string literals: among overloads of that arity, the one whose
    /// `std::string` parameters get the strings (`prec` as `"fp16"` or as `miopenHalf`).
    fn ctor(&mut self, class: &str, strings: &[bool]) -> Option<usize> {
        let mut todo = vec![class.to_string()];
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            let last = c.rsplit("::").next().unwrap_or(&c).to_string();
            if !seen.insert(last.clone()) {
                continue;
            }
            let cands: Vec<usize> = self
                .ix
                .by_name
                .get(&last)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| {
                    let f = &self.ix.funcs[i];
                    f.class.as_deref().and_then(|c| c.rsplit("::").next()) == Some(last.as_str())
                        && arity_ok(f, strings.len())
                })
                .collect();
            if let Some(i) = cands
                .iter()
                .copied()
                .min_by_key(|&i| (self.string_mismatches(i, strings), i))
            {
                return Some(i);
            }
            for cd in self.ix.class(&last) {
                todo.extend(cd.bases.iter().cloned());
            }
        }
        None
    }

    /// How many arguments a function's parameter types refuse: a string literal for a
    /// parameter that is not a string, or another value for one that is.
    fn string_mismatches(&mut self, def: usize, strings: &[bool]) -> usize {
        let d = self.ix.funcs[def].clone();
        let Some(tree) = self.ix.tree(&mut self.parser, d.file) else {
            return 0;
        };
        let src = &self.ix.files[d.file as usize].1;
        let Some(node) = tree
            .root_node()
            .descendant_for_byte_range(d.range.0, d.range.1)
            .and_then(|n| up_to(n, "function_definition", d.range))
        else {
            return 0;
        };
        let types = param_types(node, src);
        types
            .iter()
            .zip(strings)
            .filter(|(t, s)| t.contains("string") != **s)
            .count()
    }

    /// A constructor's body as the object it builds: its member initialiser list
    /// (`: gemm_m_per_block(mpb), …`) → `return make_struct<Class, fields…>(values…)`.
    fn ctor_body(&mut self, fx: &mut Fx, def: Node, d: &FuncDef) -> Vec<Stmt> {
        let class = d.class.clone().unwrap_or_default();
        let last = class.rsplit("::").next().unwrap_or(&class).to_string();
        let mut targs = vec![last];
        let mut args = Vec::new();
        let own_types = param_types(def, fx.src);
        let mut c = def.walk();
        let list = def
            .named_children(&mut c)
            .find(|n| n.kind() == "field_initializer_list");
        if let Some(list) = list {
            let mut c2 = list.walk();
            for init in list.named_children(&mut c2) {
                let mut c3 = init.walk();
                let parts: Vec<Node> = init.named_children(&mut c3).collect();
                let (Some(name), Some(value)) = (parts.first(), parts.get(1)) else {
                    continue;
                };
                let mut c4 = value.walk();
                let vals: Vec<Node> = value.named_children(&mut c4).collect();
                let field = text(*name, fx.src).to_string();
                // `: Base(a, b, …)`: the base's constructor, whose members this object gets.
                if !fx.fields.contains(&field) {
                    // A string literal, or a parameter of this constructor declared a string.
                    let strings: Vec<bool> = vals
                        .iter()
                        .map(|x| match x.kind() {
                            "string_literal" | "raw_string_literal" => true,
                            "identifier" => d
                                .params
                                .iter()
                                .position(|p| p == text(*x, fx.src))
                                .and_then(|i| own_types.get(i))
                                .is_some_and(|t| t.contains("string")),
                            _ => false,
                        })
                        .collect();
                    if let Some(def) = self.ctor(&field, &strings) {
                        let id = self.function(def);
                        let a = vals.iter().map(|x| self.expr(fx, *x)).collect();
                        targs.push(BASE_INIT.to_string());
                        args.push(ex(
                            line(init),
                            ExprKind::Call {
                                f: Callee::Func {
                                    id,
                                    targs: Vec::new(),
                                },
                                args: a,
                            },
                        ));
                        continue;
                    }
                }
                let v = match vals.as_slice() {
                    [one] => self.expr(fx, *one),
                    _ => unsupported(*value, "member initialiser"),
                };
                targs.push(field);
                args.push(v);
            }
        }
        let l = line(def);
        vec![Stmt::Return {
            line: l,
            value: Some(ex(
                l,
                ExprKind::Call {
                    f: Callee::Builtin {
                        name: "make_struct".into(),
                        targs,
                    },
                    args,
                },
            )),
        }]
    }

    /// A class derived from `PerfConfigBase` (MIOpen's performance configurations).
    fn is_perf_config(&self, class: &str) -> bool {
        let mut todo = vec![class.to_string()];
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            let last = c.rsplit("::").next().unwrap_or(&c).trim().to_string();
            if last == "PerfConfigBase" || last == "PerfConfig" {
                return true;
            }
            if !seen.insert(last.clone()) {
                continue;
            }
            for cd in self.ix.class(&last) {
                todo.extend(cd.bases.iter().cloned());
            }
        }
        false
    }

    fn fields_of(&self, class: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut todo = vec![class.to_string()];
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            let last = c.rsplit("::").next().unwrap_or(&c).to_string();
            if !seen.insert(last.clone()) {
                continue;
            }
            for cd in self.ix.class(&last) {
                out.extend(cd.fields.iter().cloned());
                todo.extend(cd.bases.iter().cloned());
            }
        }
        out
    }

    fn note_unsupported(&mut self, what: &str) {
        *self.unsupported.entry(what.to_string()).or_default() += 1;
    }

    // ---- statements ----

    fn block(&mut self, fx: &mut Fx, n: Node) -> Vec<Stmt> {
        fx.scopes.push(Vec::new());
        let mut out = Vec::new();
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for ch in kids {
            self.stmt(fx, ch, &mut out);
        }
        fx.scopes.pop();
        out
    }

    fn body_of(&mut self, fx: &mut Fx, n: Node) -> Vec<Stmt> {
        if n.kind() == "compound_statement" {
            self.block(fx, n)
        } else {
            let mut out = Vec::new();
            fx.scopes.push(Vec::new());
            self.stmt(fx, n, &mut out);
            fx.scopes.pop();
            out
        }
    }

    fn stmt(&mut self, fx: &mut Fx, n: Node, out: &mut Vec<Stmt>) {
        let l = line(n);
        if fx.nest > MAX_NEST {
            self.note_unsupported("deep nesting");
            out.push(Stmt::Unsupported {
                line: l,
                what: "nesting too deep".into(),
                text: squash(text(n, fx.src)),
            });
            return;
        }
        fx.nest += 1;
        self.stmt_inner(fx, n, l, out);
        fx.nest -= 1;
    }

    fn stmt_inner(&mut self, fx: &mut Fx, n: Node, l: u32, out: &mut Vec<Stmt>) {
        match n.kind() {
            "comment"
            | "empty_statement"
            | "using_declaration"
            | "alias_declaration"
            | "type_definition"
            | "static_assert_declaration"
            | "namespace_alias_definition" => {}
            "compound_statement" => out.push(Stmt::Block {
                body: self.block(fx, n),
            }),
            "if_statement" => out.push(self.if_stmt(fx, n)),
            "return_statement" => {
                let mut c = n.walk();
                let v = n.named_children(&mut c).find(|x| x.kind() != "comment");
                let value = v.map(|v| match self.brace_ctor(fx, v) {
                    Some(call) => call,
                    None => self.cond_expr(fx, v),
                });
                out.push(Stmt::Return { line: l, value });
            }
            "declaration" => out.push(self.decl(fx, n)),
            "expression_statement" => self.expr_stmt(fx, n, out),
            "switch_statement" => out.push(self.switch(fx, n)),
            "break_statement" => out.push(Stmt::Break { line: l }),
            "continue_statement" => out.push(Stmt::Continue { line: l }),
            "for_statement" => out.push(self.for_stmt(fx, n)),
            "while_statement" => out.push(self.while_stmt(fx, n)),
            "for_range_loop" => out.push(self.for_range(fx, n)),
            "try_statement" => out.push(self.try_stmt(fx, n)),
            "throw_statement" => out.push(Stmt::Throw { line: l }),
            "preproc_if" | "preproc_ifdef" | "preproc_elif" | "preproc_else"
            | "preproc_elifdef" => out.push(self.pp_if(fx, n)),
            "preproc_call" | "preproc_def" | "preproc_function_def" | "preproc_include" => {}
            k => {
                self.note_unsupported(k);
                out.push(Stmt::Unsupported {
                    line: l,
                    what: k.to_string(),
                    text: squash(text(n, fx.src)),
                });
            }
        }
    }

    /// `for(init; cond; step) body` → `{ init; loop(cond) { body } step }`.
    fn for_stmt(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        fx.scopes.push(Vec::new());
        let mut body = Vec::new();
        let mut c = n.walk();
        let inits: Vec<Node> = n.children_by_field_name("initializer", &mut c).collect();
        for i in inits {
            if i.kind() == "declaration" {
                body.push(self.decl(fx, i));
            } else {
                self.expr_effect(fx, i, l, &mut body);
            }
        }
        let cond = n
            .child_by_field_name("condition")
            .map(|c| self.cond_expr(fx, c));
        let mut step = Vec::new();
        if let Some(u) = n.child_by_field_name("update") {
            self.expr_effect(fx, u, l, &mut step);
        }
        let inner = n
            .child_by_field_name("body")
            .map(|b| self.body_of(fx, b))
            .unwrap_or_default();
        fx.scopes.pop();
        body.push(Stmt::Loop {
            line: l,
            cond,
            body: inner,
            step,
        });
        Stmt::Block { body }
    }

    fn while_stmt(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        let cond = match n
            .child_by_field_name("condition")
            .and_then(|c| c.child_by_field_name("value").or_else(|| c.named_child(0)))
        {
            Some(v) if v.kind() == "declaration" => unsupported(v, "declaration in condition"),
            Some(v) => self.cond_expr(fx, v),
            None => unsupported(n, "condition"),
        };
        let body = n
            .child_by_field_name("body")
            .map(|b| self.body_of(fx, b))
            .unwrap_or_default();
        Stmt::Loop {
            line: l,
            cond: Some(cond),
            body,
            step: Vec::new(),
        }
    }

    /// `for(auto x : range) body` (a structured binding is not translated).
    fn for_range(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        let var = n
            .child_by_field_name("declarator")
            .and_then(|d| declarator_name(d, fx.src))
            .map(str::to_string);
        let Some(var) = var else {
            self.note_unsupported("for_range_loop");
            return Stmt::Unsupported {
                line: l,
                what: "for_range_loop".into(),
                text: squash(text(n, fx.src)),
            };
        };
        let range = n
            .child_by_field_name("right")
            .map(|r| self.expr(fx, r))
            .unwrap_or_else(|| unsupported(n, "range"));
        fx.scopes.push(vec![var.clone()]);
        let body = n
            .child_by_field_name("body")
            .map(|b| self.body_of(fx, b))
            .unwrap_or_default();
        fx.scopes.pop();
        Stmt::ForEach {
            line: l,
            var,
            range,
            body,
        }
    }

    /// `try { body } catch(…) { handler }`: the first handler runs where the body throws.
    fn try_stmt(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        let body = n
            .child_by_field_name("body")
            .map(|b| self.body_of(fx, b))
            .unwrap_or_default();
        let mut c = n.walk();
        let handler = n
            .named_children(&mut c)
            .find(|x| x.kind() == "catch_clause")
            .and_then(|h| h.child_by_field_name("body"))
            .map(|b| self.body_of(fx, b))
            .unwrap_or_default();
        Stmt::Try {
            line: l,
            body,
            handler,
        }
    }

    fn if_stmt(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        fx.scopes.push(Vec::new());
        let cond = match n.child_by_field_name("condition") {
            Some(c) => {
                let v = c.child_by_field_name("value").or_else(|| {
                    let mut w = c.walk();
                    c.named_children(&mut w).last()
                });
                match v {
                    Some(v) if v.kind() == "declaration" => {
                        unsupported(v, "declaration in condition")
                    }
                    Some(v) => self.cond_expr(fx, v),
                    None => unsupported(c, "condition"),
                }
            }
            None => unsupported(n, "condition"),
        };
        let then = n
            .child_by_field_name("consequence")
            .map(|c| self.body_of(fx, c))
            .unwrap_or_default();
        let els = n
            .child_by_field_name("alternative")
            .map(|a| {
                let mut c = a.walk();
                let inner = a.named_children(&mut c).find(|x| x.kind() != "comment");
                inner.map(|x| self.body_of(fx, x)).unwrap_or_default()
            })
            .unwrap_or_default();
        fx.scopes.pop();
        Stmt::If {
            line: l,
            cond,
            then,
            els,
        }
    }

    fn decl(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        let mut vars = Vec::new();
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            if d.kind() == "init_declarator" {
                let name = d
                    .child_by_field_name("declarator")
                    .and_then(|x| declarator_name(x, fx.src))
                    .unwrap_or("")
                    .to_string();
                let value = d.child_by_field_name("value").map(|v| match v.kind() {
                    "initializer_list" | "argument_list" => {
                        let mut c2 = v.walk();
                        let items: Vec<Node> = v.named_children(&mut c2).collect();
                        match items.as_slice() {
                            [one] => self.expr(fx, *one),
                            _ => unsupported(v, "initializer list"),
                        }
                    }
                    _ => self.expr(fx, v),
                });
                fx.declare(&name);
                vars.push((name, value));
            } else if d.kind() == "structured_binding_declarator" {
                let mut c2 = d.walk();
                for id in d.named_children(&mut c2) {
                    let nm = text(id, fx.src).to_string();
                    fx.declare(&nm);
                    vars.push((nm, None));
                }
            } else if let Some(name) = declarator_name(d, fx.src) {
                let name = name.to_string();
                fx.declare(&name);
                // `ConvOclBwdWrW2<1> tunable;`: an object of a known class.
                let ty = n
                    .child_by_field_name("type")
                    .map(|t| strip_targs(text(t, fx.src)))
                    .unwrap_or_default();
                let last = ty.rsplit("::").next().unwrap_or(&ty).to_string();
                let obj = (!last.is_empty() && !self.ix.class(&last).is_empty()).then(|| {
                    ex(
                        l,
                        ExprKind::Sym {
                            v: format!("class:{last}"),
                        },
                    )
                });
                if obj.is_some() {
                    fx.types.push((name.clone(), last.clone()));
                }
                vars.push((name, obj));
            }
        }
        Stmt::Decl { line: l, vars }
    }

    fn expr_stmt(&mut self, fx: &mut Fx, n: Node, out: &mut Vec<Stmt>) {
        let l = line(n);
        let mut c = n.walk();
        let Some(e) = n.named_children(&mut c).find(|x| x.kind() != "comment") else {
            return;
        };
        self.expr_effect(fx, e, l, out);
    }

    /// An expression evaluated for what it changes: an assignment, `++i`, a call.
    fn expr_effect(&mut self, fx: &mut Fx, e: Node, l: u32, out: &mut Vec<Stmt>) {
        match e.kind() {
            "comma_expression" => {
                let mut c = e.walk();
                let parts: Vec<Node> = e.named_children(&mut c).collect();
                for p in parts {
                    self.expr_effect(fx, p, l, out);
                }
            }
            "assignment_expression" => {
                let left = e.child_by_field_name("left");
                let op = e
                    .child_by_field_name("operator")
                    .map(|o| text(o, fx.src))
                    .unwrap_or("=");
                match left {
                    Some(lv) if lv.kind() == "identifier" && fx.is_local(text(lv, fx.src)) => {
                        let value = e
                            .child_by_field_name("right")
                            .map(|r| self.expr(fx, r))
                            .unwrap_or_else(|| unsupported(e, "assignment"));
                        out.push(Stmt::Assign {
                            line: l,
                            target: text(lv, fx.src).to_string(),
                            op: binop(op.trim_end_matches('=')),
                            value,
                        });
                    }
                    Some(lv) if op == "=" && is_tie(lv, fx.src) => self.tie(fx, e, lv, out),
                    _ => out.push(effect(fx, l, e)),
                }
            }
            "call_expression" => {
                let f = e
                    .child_by_field_name("function")
                    .map(|f| text(f, fx.src))
                    .unwrap_or("");
                if f.contains("MIOPEN_THROW") || f == "throw" {
                    out.push(Stmt::Throw { line: l });
                } else {
                    out.push(effect(fx, l, e));
                }
            }
            "update_expression" => {
                let arg = e.child_by_field_name("argument");
                let op = e
                    .child_by_field_name("operator")
                    .map(|o| text(o, fx.src))
                    .unwrap_or("++");
                match arg {
                    Some(a) if a.kind() == "identifier" && fx.is_local(text(a, fx.src)) => out
                        .push(Stmt::Assign {
                            line: l,
                            target: text(a, fx.src).to_string(),
                            op: Some(if op == "--" { BinOp::Sub } else { BinOp::Add }),
                            value: ex(l, ExprKind::Int { v: 1 }),
                        }),
                    _ => out.push(effect(fx, l, e)),
                }
            }
            _ => out.push(effect(fx, l, e)),
        }
    }

    /// `std::tie(a, b, std::ignore) = e;` → `__tie_L = e; a = __tie_L[0]; b = __tie_L[1];`
    /// (a tuple is a list to the evaluator).
    fn tie(&mut self, fx: &mut Fx, e: Node, lv: Node, out: &mut Vec<Stmt>) {
        let l = line(e);
        let tmp = format!("__tie_{l}");
        let value = e
            .child_by_field_name("right")
            .map(|r| self.expr(fx, r))
            .unwrap_or_else(|| unsupported(e, "assignment"));
        fx.declare(&tmp);
        out.push(Stmt::Decl {
            line: l,
            vars: vec![(tmp.clone(), Some(value))],
        });
        let Some(args) = lv.child_by_field_name("arguments") else {
            return;
        };
        let mut c = args.walk();
        for (i, a) in args.named_children(&mut c).enumerate() {
            let name = text(a, fx.src);
            if a.kind() != "identifier" || !fx.is_local(name) {
                continue; // `std::ignore`, or a member: not tracked
            }
            out.push(Stmt::Assign {
                line: l,
                target: name.to_string(),
                op: None,
                value: ex(
                    l,
                    ExprKind::Index {
                        obj: Box::new(ex(l, ExprKind::Var { v: tmp.clone() })),
                        idx: Box::new(ex(l, ExprKind::Int { v: i as i64 })),
                    },
                ),
            });
        }
    }

    fn switch(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        let value = n
            .child_by_field_name("condition")
            .and_then(|c| c.child_by_field_name("value").or_else(|| c.named_child(0)))
            .map(|v| self.expr(fx, v))
            .unwrap_or_else(|| unsupported(n, "switch condition"));
        let mut arms = Vec::new();
        if let Some(body) = n.child_by_field_name("body") {
            fx.scopes.push(Vec::new());
            self.switch_arms(fx, body, None, &mut arms);
            fx.scopes.pop();
        }
        Stmt::Switch {
            line: l,
            value,
            arms,
        }
    }

    /// The `case` groups of a switch body; groups inside `#if` blocks carry the block's
    /// condition (`#if MIOPEN_USE_GEMM case miopenConvolutionAlgoGEMM: …`).
    fn switch_arms(&mut self, fx: &mut Fx, body: Node, when: Option<Expr>, arms: &mut Vec<Arm>) {
        let mut c = body.walk();
        let kids: Vec<Node> = body.named_children(&mut c).collect();
        for k in kids {
            match k.kind() {
                "case_statement" => {
                    let labels = k
                        .child_by_field_name("value")
                        .map(|v| vec![self.expr(fx, v)])
                        .unwrap_or_default();
                    let mut stmts = Vec::new();
                    let mut c2 = k.walk();
                    let parts: Vec<Node> = k.named_children(&mut c2).collect();
                    let value_id = k.child_by_field_name("value").map(|v| v.id());
                    for part in parts {
                        if Some(part.id()) != value_id {
                            self.stmt(fx, part, &mut stmts);
                        }
                    }
                    arms.push(Arm {
                        labels,
                        body: stmts,
                        when: when.clone(),
                    });
                }
                "preproc_if" | "preproc_ifdef" => {
                    let cond = match k.child_by_field_name("condition") {
                        Some(c) => self.pp_expr(fx, c),
                        None => {
                            let name = k
                                .child_by_field_name("name")
                                .map(|x| text(x, fx.src))
                                .unwrap_or("");
                            ex(
                                line(k),
                                ExprKind::Defined {
                                    v: name.to_string(),
                                },
                            )
                        }
                    };
                    let cond = match &when {
                        Some(w) => ex(
                            line(k),
                            ExprKind::Logic {
                                and: true,
                                items: vec![w.clone(), cond],
                            },
                        ),
                        None => cond,
                    };
                    self.switch_arms(fx, k, Some(cond), arms);
                }
                _ => {}
            }
        }
    }

    fn pp_if(&mut self, fx: &mut Fx, n: Node) -> Stmt {
        let l = line(n);
        let cond = match n.kind() {
            "preproc_else" => ex(l, ExprKind::Bool { v: true }),
            "preproc_ifdef" | "preproc_elifdef" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| text(x, fx.src))
                    .unwrap_or("");
                let neg = text(n, fx.src)
                    .trim_start()
                    .trim_start_matches('#')
                    .trim_start()
                    .starts_with("ifndef");
                self.flags_used.insert(name.to_string());
                let d = ex(
                    l,
                    ExprKind::Defined {
                        v: name.to_string(),
                    },
                );
                if neg {
                    ex(
                        l,
                        ExprKind::Unary {
                            op: UnOp::Not,
                            e: Box::new(d),
                        },
                    )
                } else {
                    d
                }
            }
            _ => match n.child_by_field_name("condition") {
                Some(c) => self.pp_expr(fx, c),
                None => unsupported(n, "#if condition"),
            },
        };
        let mut then = Vec::new();
        let alt = n.child_by_field_name("alternative").map(|a| a.id());
        let cond_id = n.child_by_field_name("condition").map(|a| a.id());
        let name_id = n.child_by_field_name("name").map(|a| a.id());
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            if Some(k.id()) == alt || Some(k.id()) == cond_id || Some(k.id()) == name_id {
                continue;
            }
            self.stmt(fx, k, &mut then);
        }
        let els = match n.child_by_field_name("alternative") {
            Some(a) if a.kind() == "preproc_else" => {
                let mut out = Vec::new();
                let mut c = a.walk();
                let kids: Vec<Node> = a.named_children(&mut c).collect();
                for k in kids {
                    self.stmt(fx, k, &mut out);
                }
                out
            }
            Some(a) => vec![self.pp_if(fx, a)],
            None => Vec::new(),
        };
        let mut cond = cond;
        cond.t = Some(format!(
            "#if {}",
            squash(
                n.child_by_field_name("condition")
                    .map(|c| text(c, fx.src))
                    .unwrap_or("")
            )
        ));
        Stmt::If {
            line: l,
            cond,
            then,
            els,
        }
    }

    fn pp_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        match n.kind() {
            "identifier" => self.pp_ident(fx, n),
            "number_literal" => ex(
                l,
                ExprKind::Int {
                    v: parse_int(text(n, fx.src)).unwrap_or(0),
                },
            ),
            "preproc_defined" => {
                let mut c = n.walk();
                let name = n
                    .named_children(&mut c)
                    .next()
                    .map(|x| text(x, fx.src))
                    .unwrap_or("");
                self.flags_used.insert(name.to_string());
                ex(
                    l,
                    ExprKind::Defined {
                        v: name.to_string(),
                    },
                )
            }
            "parenthesized_expression" => match n.named_child(0) {
                Some(x) => self.pp_expr(fx, x),
                None => unsupported(n, "#if"),
            },
            "unary_expression" => self.pp_unary(fx, n),
            "binary_expression" => self.pp_binary(fx, n),
            "call_expression" => {
                // `defined X` sometimes parses as a call; anything else is not modelled.
                unsupported(n, "#if call")
            }
            _ => unsupported(n, "#if"),
        }
    }

    /// A name in `#if`: a macro with a number is that number, anything else a build flag.
    fn pp_ident(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let name = text(n, fx.src);
        if let Some(m) = self
            .ix
            .macros
            .get(name)
            .filter(|m| parse_int(&m.text).is_some())
        {
            ex(
                l,
                ExprKind::Int {
                    v: parse_int(&m.text).unwrap_or(0),
                },
            )
        } else {
            self.flags_used.insert(name.to_string());
            ex(
                l,
                ExprKind::Flag {
                    v: name.to_string(),
                },
            )
        }
    }

    /// `!x`, `-x` in `#if`.
    fn pp_unary(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let op = n
            .child_by_field_name("operator")
            .map(|o| text(o, fx.src))
            .unwrap_or("");
        let e = n
            .child_by_field_name("argument")
            .map(|a| self.pp_expr(fx, a));
        match (op, e) {
            ("!", Some(e)) => ex(
                l,
                ExprKind::Unary {
                    op: UnOp::Not,
                    e: Box::new(e),
                },
            ),
            ("-", Some(e)) => ex(
                l,
                ExprKind::Unary {
                    op: UnOp::Neg,
                    e: Box::new(e),
                },
            ),
            _ => unsupported(n, "#if operator"),
        }
    }

    /// `a op b` in `#if`.
    fn pp_binary(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let op = n
            .child_by_field_name("operator")
            .map(|o| text(o, fx.src))
            .unwrap_or("");
        let (Some(a), Some(b)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return unsupported(n, "#if operator");
        };
        let (ea, eb) = (self.pp_expr(fx, a), self.pp_expr(fx, b));
        match (op, binop(op)) {
            ("&&" | "||", _) => ex(
                l,
                ExprKind::Logic {
                    and: op == "&&",
                    items: vec![ea, eb],
                },
            ),
            (_, Some(op)) => ex(
                l,
                ExprKind::Binary {
                    op,
                    a: Box::new(ea),
                    b: Box::new(eb),
                },
            ),
            _ => unsupported(n, "#if operator"),
        }
    }

    // ---- expressions ----

    /// An expression whose text is kept (a condition or a returned value).
    fn cond_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let mut e = self.expr(fx, n);
        e.t = Some(squash(text(n, fx.src)));
        e
    }

    fn expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        if fx.nest > MAX_NEST {
            self.note_unsupported("deep nesting");
            return unsupported(n, "nesting too deep");
        }
        fx.nest += 1;
        let e = self.expr_inner(fx, n);
        fx.nest -= 1;
        e
    }

    fn expr_inner(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let t = text(n, fx.src);
        match n.kind() {
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner = n.named_children(&mut c).find(|x| x.kind() != "comment");
                match inner {
                    Some(x) => self.expr(fx, x),
                    None => unsupported(n, "parentheses"),
                }
            }
            "true" => ex(l, ExprKind::Bool { v: true }),
            "false" => ex(l, ExprKind::Bool { v: false }),
            "null" | "nullptr" => ex(l, ExprKind::Null),
            "number_literal" => match parse_int(t) {
                Some(v) => ex(l, ExprKind::Int { v }),
                None => match parse_float(t) {
                    Some(v) => ex(l, ExprKind::Float { v }),
                    None => unsupported(n, "number"),
                },
            },
            "char_literal" => {
                let c = t.trim_matches('\'').chars().next().unwrap_or('\0');
                ex(l, ExprKind::Int { v: c as i64 })
            }
            "string_literal" | "raw_string_literal" | "concatenated_string" => ex(
                l,
                ExprKind::Str {
                    v: string_value(n, fx.src),
                },
            ),
            "this" => ex(l, ExprKind::Var { v: "this".into() }),
            "identifier" => self.ident(fx, n, t),
            "qualified_identifier" => self.qualified(fx, n, t),
            "field_expression" => self.field_expr(fx, n),
            "subscript_expression" => self.subscript_expr(fx, n),
            "call_expression" => self.call(fx, n),
            "unary_expression" | "pointer_expression" => self.unary_expr(fx, n),
            "binary_expression" => self.binary_expr(fx, n),
            "conditional_expression" => self.conditional_expr(fx, n),
            "cast_expression" => self.cast_expr(fx, n),
            "compound_literal_expression" => {
                let ty = n
                    .child_by_field_name("type")
                    .map(|x| strip_targs(text(x, fx.src)))
                    .unwrap_or_default();
                ex(
                    l,
                    ExprKind::Sym {
                        v: format!("class:{ty}"),
                    },
                )
            }
            "lambda_expression" => self.lambda(fx, n),
            // `{1, 8, 4, 1}` as a value: a list (an `std::initializer_list<int>` argument).
            "initializer_list" => {
                let mut c = n.walk();
                let items: Vec<Node> = n.named_children(&mut c).collect();
                let args = items.into_iter().map(|x| self.expr(fx, x)).collect();
                ex(
                    line(n),
                    ExprKind::Call {
                        f: Callee::Builtin {
                            name: "tuple".into(),
                            targs: Vec::new(),
                        },
                        args,
                    },
                )
            }
            "comma_expression" => match n.child_by_field_name("right") {
                Some(r) => self.expr(fx, r),
                None => unsupported(n, "comma"),
            },
            "assignment_expression" => unsupported(n, "assignment in expression"),
            "sizeof_expression" => self.sizeof_expr(fx, n),
            "template_function" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| text(x, fx.src))
                    .unwrap_or("");
                ex(
                    l,
                    ExprKind::Sym {
                        v: name.to_string(),
                    },
                )
            }
            k => {
                self.note_unsupported(k);
                unsupported(n, k)
            }
        }
    }

    /// `obj.name`.
    fn field_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let obj = n.child_by_field_name("argument").map(|a| self.expr(fx, a));
        let name = n
            .child_by_field_name("field")
            .map(|f| text(f, fx.src))
            .unwrap_or("");
        match obj {
            Some(o) => ex(
                l,
                ExprKind::Field {
                    obj: Box::new(o),
                    name: name.to_string(),
                },
            ),
            None => unsupported(n, "field"),
        }
    }

    /// `obj[idx]`.
    fn subscript_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let obj = n.child_by_field_name("argument").map(|a| self.expr(fx, a));
        let idx = n
            .child_by_field_name("index")
            .or_else(|| n.child_by_field_name("indices"))
            .map(|a| {
                let inner = if a.kind() == "subscript_argument_list" {
                    a.named_child(0).unwrap_or(a)
                } else {
                    a
                };
                self.expr(fx, inner)
            });
        match (obj, idx) {
            (Some(o), Some(i)) => ex(
                l,
                ExprKind::Index {
                    obj: Box::new(o),
                    idx: Box::new(i),
                },
            ),
            _ => unsupported(n, "subscript"),
        }
    }

    /// `!x`, `-x`, `~x`, `*x`.
    fn unary_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let op = n
            .child_by_field_name("operator")
            .map(|o| text(o, fx.src))
            .unwrap_or("");
        let Some(arg) = n.child_by_field_name("argument") else {
            return unsupported(n, "operator");
        };
        let op = match op {
            "!" | "not" => UnOp::Not,
            "-" => UnOp::Neg,
            "~" => UnOp::BitNot,
            "*" => UnOp::Deref,
            _ => UnOp::Id,
        };
        let mut e = self.expr(fx, arg);
        if op == UnOp::Not && e.t.is_none() {
            e.t = Some(squash(text(arg, fx.src)));
        }
        ex(l, ExprKind::Unary { op, e: Box::new(e) })
    }

    /// `a op b`; a chain of `&&` or `||` becomes one `Logic` node.
    fn binary_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let op = n
            .child_by_field_name("operator")
            .map(|o| text(o, fx.src))
            .unwrap_or("");
        if let Some(and) = match op {
            "&&" | "and" => Some(true),
            "||" | "or" => Some(false),
            _ => None,
        } {
            let mut items = Vec::new();
            self.logic_items(fx, n, op, &mut items);
            return ex(l, ExprKind::Logic { and, items });
        }
        let (Some(a), Some(b), Some(op)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
            binop(op),
        ) else {
            return unsupported(n, "operator");
        };
        let (ea, eb) = (self.expr(fx, a), self.expr(fx, b));
        ex(
            l,
            ExprKind::Binary {
                op,
                a: Box::new(ea),
                b: Box::new(eb),
            },
        )
    }

    /// `c ? a : b`.
    fn conditional_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let (Some(c), Some(a), Some(b)) = (
            n.child_by_field_name("condition"),
            n.child_by_field_name("consequence"),
            n.child_by_field_name("alternative"),
        ) else {
            return unsupported(n, "conditional");
        };
        let (c, a, b) = (self.cond_expr(fx, c), self.expr(fx, a), self.expr(fx, b));
        ex(
            l,
            ExprKind::Cond {
                c: Box::new(c),
                a: Box::new(a),
                b: Box::new(b),
            },
        )
    }

    /// `sizeof(T)` of the scalar types MIOpen's conditions use.
    fn sizeof_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let ty = n
            .child_by_field_name("type")
            .map(|t| text(t, fx.src).trim().to_string());
        let size = match ty.as_deref() {
            Some("float" | "int" | "int32_t" | "uint32_t" | "unsigned" | "unsigned int") => Some(4),
            Some("double" | "int64_t" | "uint64_t" | "size_t" | "std::size_t" | "long") => Some(8),
            Some("int8_t" | "uint8_t" | "char" | "bool") => Some(1),
            Some("int16_t" | "uint16_t" | "short" | "half_float::half" | "float16") => Some(2),
            _ => None,
        };
        match size {
            Some(v) => ex(l, ExprKind::Int { v }),
            None => unsupported(n, "sizeof"),
        }
    }

    /// `(T) v`: a call of the `cast` builtin with the type.
    fn cast_expr(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        match (
            n.child_by_field_name("type"),
            n.child_by_field_name("value"),
        ) {
            (Some(ty), Some(v)) => {
                let e = self.expr(fx, v);
                let targs = vec![text(ty, fx.src).to_string()];
                Expr {
                    l,
                    t: None,
                    k: ExprKind::Call {
                        f: Callee::Builtin {
                            name: "cast".into(),
                            targs,
                        },
                        args: vec![e],
                    },
                }
            }
            _ => unsupported(n, "cast"),
        }
    }

    /// The operands of a chain of the same logical operator, left to right, each with its
    /// own line and text.
    fn logic_items(&mut self, fx: &mut Fx, n: Node, op: &str, out: &mut Vec<Expr>) {
        for side in ["left", "right"] {
            let Some(x) = n.child_by_field_name(side) else {
                continue;
            };
            let inner = strip_parens(x);
            let same = inner.kind() == "binary_expression"
                && inner
                    .child_by_field_name("operator")
                    .map(|o| text(o, fx.src))
                    == Some(op);
            if same && inner.id() == x.id() {
                self.logic_items(fx, inner, op, out);
            } else {
                let mut e = self.expr(fx, x);
                e.t.get_or_insert_with(|| squash(text(x, fx.src)));
                e.l = line(x);
                out.push(e);
            }
        }
    }

    fn lambda(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let mut params = Vec::new();
        if let Some(d) = n.child_by_field_name("declarator") {
            if let Some(pl) = d.child_by_field_name("parameters") {
                let mut c = pl.walk();
                for (i, p) in pl.named_children(&mut c).enumerate() {
                    let nm = p
                        .child_by_field_name("declarator")
                        .and_then(|x| declarator_name(x, fx.src))
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("_{i}"));
                    params.push(nm);
                }
            }
        }
        fx.scopes.push(params.clone());
        let body = n
            .child_by_field_name("body")
            .map(|b| self.block(fx, b))
            .unwrap_or_default();
        fx.scopes.pop();
        ex(l, ExprKind::Lambda { params, body })
    }

    fn ident(&mut self, fx: &mut Fx, n: Node, name: &str) -> Expr {
        let l = line(n);
        if fx.is_local(name) {
            return ex(
                l,
                ExprKind::Var {
                    v: name.to_string(),
                },
            );
        }
        if fx.fields.iter().any(|f| f == name) {
            return ex(
                l,
                ExprKind::Field {
                    obj: Box::new(ex(l, ExprKind::Var { v: "this".into() })),
                    name: name.to_string(),
                },
            );
        }
        if let Some(m) = self.ix.macros.get(name).cloned() {
            if m.file == fx.file || parse_int(&m.text).is_some() {
                return self.macro_expr(fx, &m.text, l);
            }
        }
        if let Some(cands) = self.ix.constants.get(name).cloned() {
            if let Some((_, c)) = cands
                .iter()
                .find(|(_, c)| c.file == fx.file)
                .or(cands.first())
            {
                if !c.text.contains('(') || c.file == fx.file {
                    return self.macro_expr(fx, &c.text, l);
                }
            }
        }
        ex(
            l,
            ExprKind::Sym {
                v: name.to_string(),
            },
        )
    }

    fn qualified(&mut self, fx: &mut Fx, n: Node, t: &str) -> Expr {
        let l = line(n);
        let q = strip_targs(t);
        let last = q.rsplit("::").next().unwrap_or(&q).to_string();
        if matches!(q.as_str(), "std::nullopt" | "boost::none") {
            return ex(l, ExprKind::Null);
        }
        if let Some(cands) = self.ix.constants.get(&last).cloned() {
            if let Some((_, c)) = cands.iter().find(|(qn, _)| {
                qn.ends_with(&q) || q.ends_with(qn.rsplit("::").next().unwrap_or(""))
            }) {
                if !c.text.contains('(') {
                    return self.macro_expr(fx, &c.text, l);
                }
            }
        }
        let _ = n;
        ex(
            l,
            ExprKind::Sym {
                v: if is_symbol_name(&last) { last } else { q },
            },
        )
    }

    /// Lowers the text of a macro or constant as an expression at line `l`.
    fn macro_expr(&mut self, fx: &mut Fx, body: &str, l: u32) -> Expr {
        let src = format!("auto __rocpath_m = ({body});");
        let Some(tree) = self.parser.parse(src.as_bytes(), None) else {
            return ex(
                l,
                ExprKind::Unsupported {
                    what: "macro".into(),
                },
            );
        };
        let Some(v) = first_kind(tree.root_node(), "init_declarator")
            .and_then(|d| d.child_by_field_name("value"))
        else {
            return ex(
                l,
                ExprKind::Unsupported {
                    what: "macro".into(),
                },
            );
        };
        let mut inner = Fx {
            src: src.as_bytes(),
            file: fx.file,
            class: fx.class.clone(),
            fields: fx.fields.clone(),
            tparams: fx.tparams.clone(),
            scopes: fx.scopes.clone(),
            nest: fx.nest,
            types: fx.types.clone(),
            ret: fx.ret.clone(),
        };
        let mut e = self.expr(&mut inner, v);
        relocate_expr(&mut e, l);
        e
    }

    /// A function-like macro call: the argument texts substituted into the body, lowered.
    fn expand(&mut self, fx: &mut Fx, n: Node, m: &crate::index::FMacro) -> Expr {
        let l = line(n);
        let mut args = Vec::new();
        if let Some(al) = n.child_by_field_name("arguments") {
            let mut c = al.walk();
            args = al
                .named_children(&mut c)
                .filter(|x| x.kind() != "comment")
                .map(|x| text(x, fx.src).to_string())
                .collect();
        }
        if args.len() != m.params.len() {
            return unsupported(n, "macro call");
        }
        let mut body = String::new();
        let mut word = String::new();
        let flush = |word: &mut String, body: &mut String| {
            match m.params.iter().position(|p| p == word) {
                Some(i) => body.push_str(&args[i]),
                None => body.push_str(word),
            }
            word.clear();
        };
        for c in m.body.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut body);
                body.push(c);
            }
        }
        flush(&mut word, &mut body);
        let mut e = self.macro_expr(fx, &body, l);
        e.t = Some(squash(text(n, fx.src)));
        e
    }

    fn args(&mut self, fx: &mut Fx, n: Node) -> Vec<Expr> {
        let Some(al) = n.child_by_field_name("arguments") else {
            return Vec::new();
        };
        let mut c = al.walk();
        let kids: Vec<Node> = al
            .named_children(&mut c)
            .filter(|x| x.kind() != "comment")
            .collect();
        kids.into_iter().map(|a| self.expr(fx, a)).collect()
    }

    fn call(&mut self, fx: &mut Fx, n: Node) -> Expr {
        let l = line(n);
        let Some(f) = n.child_by_field_name("function") else {
            return unsupported(n, "call");
        };
        let args = self.args(fx, n);
        let t = Some(squash(text(n, fx.src)));
        let mk = |f: Callee, args: Vec<Expr>| Expr {
            l,
            t: t.clone(),
            k: ExprKind::Call { f, args },
        };
        match f.kind() {
            "field_expression" => self.method_call(fx, n, f, args, t),
            "template_function" | "identifier" | "qualified_identifier" => {
                let (raw, targs_n) = match f.kind() {
                    "template_function" => (
                        f.child_by_field_name("name")
                            .map(|x| text(x, fx.src))
                            .unwrap_or(""),
                        f.child_by_field_name("arguments"),
                    ),
                    _ => (text(f, fx.src), qualified_targs(f)),
                };
                let name = strip_targs(raw);
                if let Some(m) = self.ix.fmacros.get(&name).cloned() {
                    return self.expand(fx, n, &m);
                }
                let targ_text: Vec<String> = targs_n
                    .map(|a| {
                        let mut c = a.walk();
                        a.named_children(&mut c)
                            .map(|x| text(x, fx.src).to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                self.named_call(fx, n, &name, targs_n, targ_text, args, t)
            }
            "lambda_expression" => {
                let lam = self.expr(fx, f);
                mk(
                    Callee::Method {
                        obj: Box::new(lam),
                        name: "operator()".into(),
                    },
                    args,
                )
            }
            "parenthesized_expression" => unsupported(n, "call of an expression"),
            // `tie_pick<0, 1>()(lengths)`: a functor made and called at once.
            "call_expression" => match functor_targs(f, fx.src, "tie_pick") {
                Some(targs) => mk(
                    Callee::Builtin {
                        name: "tie_pick".into(),
                        targs,
                    },
                    args,
                ),
                None => unsupported(n, "call"),
            },
            _ => unsupported(n, "call"),
        }
    }

    /// `obj.M(…)`: a member of the object's class when it is known — a local of a known class
    /// (`tunable.IsApplicableBase(…)`) or a class named in place (`Foo{}.IsApplicable(…)`) —,
    /// else a method the evaluator answers.
    fn method_call(
        &mut self,
        fx: &mut Fx,
        n: Node,
        f: Node,
        args: Vec<Expr>,
        t: Option<String>,
    ) -> Expr {
        let l = line(n);
        let name = f
            .child_by_field_name("field")
            .map(|x| strip_targs(text(x, fx.src)))
            .unwrap_or_default();
        let Some(objn) = f.child_by_field_name("argument") else {
            return unsupported(n, "method call");
        };
        let obj = self.expr(fx, objn);
        let typed = (objn.kind() == "identifier")
            .then(|| text(objn, fx.src))
            .and_then(|var| fx.types.iter().rev().find(|(v, _)| v == var))
            .map(|(_, c)| c.clone());
        let named = match &obj.k {
            ExprKind::Sym { v } => v.strip_prefix("class:").map(str::to_string),
            _ => None,
        };
        let def = typed
            .or(named)
            .and_then(|class| self.member(&class, &name, args.len()));
        let (f, args) = match def {
            Some(def) => (
                Callee::Func {
                    id: self.function(def),
                    targs: Vec::new(),
                },
                with_this(obj, args),
            ),
            None => (
                Callee::Method {
                    obj: Box::new(obj),
                    name,
                },
                args,
            ),
        };
        Expr {
            l,
            t,
            k: ExprKind::Call { f, args },
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn named_call(
        &mut self,
        fx: &mut Fx,
        n: Node,
        name: &str,
        targs_n: Option<Node>,
        targ_text: Vec<String>,
        args: Vec<Expr>,
        t: Option<String>,
    ) -> Expr {
        let l = line(n);
        let mk = |f: Callee, args: Vec<Expr>| Expr {
            l,
            t: t.clone(),
            k: ExprKind::Call { f, args },
        };
        let last = name.rsplit("::").next().unwrap_or(name);
        if matches!(
            last,
            "static_cast" | "reinterpret_cast" | "const_cast" | "dynamic_cast"
        ) {
            // The target type decides wrap-around (`static_cast<uint32_t>(-1)`).
            return mk(
                Callee::Builtin {
                    name: "cast".into(),
                    targs: targ_text,
                },
                args,
            );
        }
        if fx.is_local(name) {
            return mk(
                Callee::Method {
                    obj: Box::new(ex(
                        l,
                        ExprKind::Var {
                            v: name.to_string(),
                        },
                    )),
                    name: "operator()".into(),
                },
                args,
            );
        }
        // Members of ProblemDescription that the evaluator answers itself.
        if !name.contains("::")
            && builtins::is_problem_primitive(name)
            && fx
                .class
                .as_deref()
                .is_some_and(|c| c.ends_with("ProblemDescription"))
        {
            let this = ex(l, ExprKind::Var { v: "this".into() });
            return mk(
                Callee::Method {
                    obj: Box::new(this),
                    name: name.to_string(),
                },
                args,
            );
        }
        if self.constructs_object(last) {
            return ex(
                l,
                ExprKind::Sym {
                    v: format!("class:{last}"),
                },
            );
        }
        if let Some(b) = builtins::builtin_name(name) {
            if b.starts_with("env::") {
                if let Some(ExprKind::Sym { v }) = args.first().map(|a| &a.k) {
                    self.env_used.insert(v.clone());
                }
            }
            return mk(
                Callee::Builtin {
                    name: b.to_string(),
                    targs: targ_text,
                },
                args,
            );
        }
        let args = match self.defined_callee(fx, l, name, last, targs_n, args) {
            Ok((callee, args)) => return mk(callee, args),
            Err(args) => args,
        };
        *self.unresolved.entry(name.to_string()).or_default() += 1;
        mk(
            Callee::Unresolved {
                name: name.to_string(),
            },
            args,
        )
    }

    /// Whether `Foo()` / `Foo{}` makes an object of class `Foo` (no function of that name
    /// outside the class's own constructors).
    fn constructs_object(&self, last: &str) -> bool {
        !self.ix.class(last).is_empty()
            && self.ix.by_name.get(last).is_none_or(|v| {
                v.iter().all(|&i| {
                    self.ix.funcs[i]
                        .class
                        .as_deref()
                        .is_some_and(|c| c.ends_with(last))
                })
            })
    }

    /// A call of a function defined in the sources: a member of the current class
    /// (unqualified) or `Base::member`, else a free function (its defaults filled in); `Err`
    /// gives the arguments back when none is found.
    fn defined_callee(
        &mut self,
        fx: &mut Fx,
        l: u32,
        name: &str,
        last: &str,
        targs_n: Option<Node>,
        args: Vec<Expr>,
    ) -> Result<(Callee, Vec<Expr>), Vec<Expr>> {
        let owner = if name.contains("::") {
            name.rsplit_once("::").map(|(o, _)| o.to_string())
        } else {
            fx.class.clone()
        };
        let member = owner.and_then(|o| self.member(&o, last, args.len()));
        let (def, args) = match member {
            Some(def) => (def, args),
            None => match self
                .free(fx.file, name, args.len())
                .or_else(|| self.free_with_defaults(name, args.len()))
            {
                Some(def) => (def, self.pad_defaults(fx, def, args, l)),
                None => return Err(args),
            },
        };
        let id = self.function(def);
        let targs = self.targs(fx, targs_n);
        let args = if self.ix.funcs[def].class.is_some() {
            with_this(ex(l, ExprKind::Var { v: "this".into() }), args)
        } else {
            args
        };
        Ok((Callee::Func { id, targs }, args))
    }

    fn targs(&mut self, fx: &mut Fx, n: Option<Node>) -> Vec<Expr> {
        let Some(a) = n else { return Vec::new() };
        let mut c = a.walk();
        let kids: Vec<Node> = a.named_children(&mut c).collect();
        kids.into_iter()
            .map(|k| match k.kind() {
                "type_descriptor" => ex(
                    line(k),
                    ExprKind::Sym {
                        v: text(k, fx.src).to_string(),
                    },
                ),
                _ => self.expr(fx, k),
            })
            .collect()
    }

    /// A function whose definition has more parameters than the call, when a declaration
    /// gives the missing ones defaults.
    fn free_with_defaults(&self, name: &str, nargs: usize) -> Option<usize> {
        let last = name.rsplit("::").next().unwrap_or(name);
        self.ix.by_name.get(last)?.iter().copied().find(|&i| {
            let f = &self.ix.funcs[i];
            (f.qname == name || f.qname.ends_with(&format!("::{name}")))
                && nargs < f.params.len()
                && self
                    .ix
                    .defaults
                    .get(&f.qname)
                    .is_some_and(|d| d.iter().skip(nargs).all(Option::is_some))
        })
    }

    /// Appends the declared defaults of the parameters a call leaves out.
    fn pad_defaults(&mut self, fx: &mut Fx, def: usize, mut args: Vec<Expr>, l: u32) -> Vec<Expr> {
        let f = &self.ix.funcs[def];
        if args.len() >= f.params.len() {
            return args;
        }
        let Some(d) = self.ix.defaults.get(&f.qname).cloned() else {
            return args;
        };
        for t in d.into_iter().skip(args.len()).flatten() {
            args.push(self.macro_expr(fx, &t, l));
        }
        args
    }

    /// A member function `name` of `class` or of one of its bases. Classes of the same name in
    /// other namespaces (`batchnorm::ProblemDescription` beside `conv::ProblemDescription`) are
    /// not the class: of the definitions whose class is named so, the one whose qualified name
    /// agrees with `class` on the most trailing parts wins, and one that contradicts a
    /// namespace `class` names is never taken.
    fn member(&self, class: &str, name: &str, nargs: usize) -> Option<usize> {
        let mut todo = vec![strip_targs(class)];
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            let last = c.rsplit("::").next().unwrap_or(&c).to_string();
            if !seen.insert(c.clone()) {
                continue;
            }
            let found = self
                .ix
                .by_name
                .get(name)
                .into_iter()
                .flatten()
                .copied()
                .filter_map(|i| {
                    let f = &self.ix.funcs[i];
                    let fc = f.class.as_deref()?;
                    let agree = class_agreement(fc, &c)?;
                    (fc.rsplit("::").next() == Some(last.as_str()) && arity_ok(f, nargs))
                        .then_some((agree, i))
                })
                // The most agreeing parts first; among equals, the first in file order.
                .min_by_key(|&(agree, i)| (std::cmp::Reverse(agree), i))
                .map(|(_, i)| i);
            if found.is_some() {
                return found;
            }
            for cd in self.ix.class(&last) {
                todo.extend(cd.bases.iter().cloned());
            }
        }
        None
    }

    /// A free (or static, qualified) function: same file first, then a unique match.
    fn free(&self, file: u32, name: &str, nargs: usize) -> Option<usize> {
        let last = name.rsplit("::").next().unwrap_or(name);
        let cands: Vec<usize> = self
            .ix
            .by_name
            .get(last)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                let f = &self.ix.funcs[i];
                arity_ok(f, nargs) && (f.qname == name || f.qname.ends_with(&format!("::{name}")))
            })
            .collect();
        if let Some(&i) = cands.iter().find(|&&i| self.ix.funcs[i].file == file) {
            return Some(i);
        }
        match cands.as_slice() {
            [one] => Some(*one),
            _ => {
                // Several definitions: all with the same qualified name (a header seen twice)
                // count as one.
                let first = cands.first()?;
                let q = &self.ix.funcs[*first].qname;
                cands
                    .iter()
                    .all(|&i| &self.ix.funcs[i].qname == q)
                    .then_some(*first)
            }
        }
    }
}

/// How many trailing `::` parts two class names share, or `None` when they contradict each
/// other (`miopen::batchnorm::ProblemDescription` is not `miopen::conv::ProblemDescription`;
/// `conv::ProblemDescription` may be either a written or a qualified name of the latter).
fn class_agreement(a: &str, b: &str) -> Option<usize> {
    let a: Vec<&str> = a.rsplit("::").collect();
    let b: Vec<&str> = b.rsplit("::").collect();
    let shared = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    (shared == a.len().min(b.len())).then_some(shared)
}

fn strip_parens(n: Node) -> Node {
    n
}

fn arity_ok(f: &FuncDef, nargs: usize) -> bool {
    nargs <= f.params.len() && nargs + f.defaults >= f.params.len()
}

fn with_this(this: Expr, mut args: Vec<Expr>) -> Vec<Expr> {
    args.insert(0, this);
    args
}

fn up_to<'t>(mut n: Node<'t>, kind: &str, range: (usize, usize)) -> Option<Node<'t>> {
    for _ in 0..64 {
        if n.kind() == kind && n.start_byte() == range.0 && n.end_byte() == range.1 {
            return Some(n);
        }
        n = n.parent()?;
    }
    None
}

fn first_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    if n.kind() == kind {
        return Some(n);
    }
    let mut c = n.walk();
    let kids: Vec<Node<'t>> = n.named_children(&mut c).collect();
    kids.into_iter().find_map(|k| first_kind(k, kind))
}

fn string_value(n: Node, src: &[u8]) -> String {
    if n.kind() == "concatenated_string" {
        let mut c = n.walk();
        return n
            .named_children(&mut c)
            .map(|k| string_value(k, src))
            .collect();
    }
    let mut c = n.walk();
    let parts: Vec<String> = n
        .named_children(&mut c)
        .filter(|k| {
            matches!(
                k.kind(),
                "string_content" | "escape_sequence" | "raw_string_content"
            )
        })
        .map(|k| {
            let t = text(k, src);
            match t {
                "\\n" => "\n".to_string(),
                "\\t" => "\t".to_string(),
                "\\\"" => "\"".to_string(),
                "\\\\" => "\\".to_string(),
                _ => t.to_string(),
            }
        })
        .collect();
    parts.concat()
}

/// Moves every line of a lowered rule body to `l` (its citation line).
fn relocate(stmts: &mut [Stmt], l: u32) {
    for s in stmts {
        match s {
            Stmt::Decl { line, vars } => {
                *line = l;
                vars.iter_mut()
                    .filter_map(|(_, e)| e.as_mut())
                    .for_each(|e| relocate_expr(e, l));
            }
            Stmt::Assign { line, value, .. } => {
                *line = l;
                relocate_expr(value, l);
            }
            Stmt::If {
                line,
                cond,
                then,
                els,
            } => {
                *line = l;
                relocate_expr(cond, l);
                relocate(then, l);
                relocate(els, l);
            }
            Stmt::Return { line, value } => {
                *line = l;
                if let Some(v) = value {
                    relocate_expr(v, l);
                }
            }
            Stmt::Switch { line, value, arms } => {
                *line = l;
                relocate_expr(value, l);
                for a in arms {
                    relocate(&mut a.body, l);
                }
            }
            Stmt::Loop {
                line,
                cond,
                body,
                step,
            } => {
                *line = l;
                if let Some(c) = cond {
                    relocate_expr(c, l);
                }
                relocate(body, l);
                relocate(step, l);
            }
            Stmt::ForEach {
                line, range, body, ..
            } => {
                *line = l;
                relocate_expr(range, l);
                relocate(body, l);
            }
            Stmt::Try {
                line,
                body,
                handler,
            } => {
                *line = l;
                relocate(body, l);
                relocate(handler, l);
            }
            Stmt::Break { line }
            | Stmt::Continue { line }
            | Stmt::Effect { line, .. }
            | Stmt::Throw { line }
            | Stmt::Unsupported { line, .. } => *line = l,
            Stmt::Block { body } => relocate(body, l),
        }
    }
}

fn relocate_expr(e: &mut Expr, l: u32) {
    e.l = l;
    match &mut e.k {
        ExprKind::Field { obj, .. } => relocate_expr(obj, l),
        ExprKind::Index { obj, idx } => {
            relocate_expr(obj, l);
            relocate_expr(idx, l);
        }
        ExprKind::Call { f, args } => {
            if let Callee::Method { obj, .. } = f {
                relocate_expr(obj, l);
            }
            if let Callee::Func { targs, .. } = f {
                targs.iter_mut().for_each(|a| relocate_expr(a, l));
            }
            args.iter_mut().for_each(|a| relocate_expr(a, l));
        }
        ExprKind::Unary { e, .. } => relocate_expr(e, l),
        ExprKind::Binary { a, b, .. } => {
            relocate_expr(a, l);
            relocate_expr(b, l);
        }
        ExprKind::Logic { items, .. } => items.iter_mut().for_each(|a| relocate_expr(a, l)),
        ExprKind::Cond { c, a, b } => {
            relocate_expr(c, l);
            relocate_expr(a, l);
            relocate_expr(b, l);
        }
        ExprKind::Lambda { body, .. } => relocate(body, l),
        _ => {}
    }
}

/// The template arguments of a qualified call's last name (`std::make_unique<Gfx942Model>`).
fn qualified_targs(f: Node) -> Option<Node> {
    let mut n = f;
    while n.kind() == "qualified_identifier" {
        n = n.child_by_field_name("name")?;
    }
    (n.kind() == "template_function")
        .then(|| n.child_by_field_name("arguments"))
        .flatten()
}

/// The template arguments of `name<…>()` called with no arguments (a functor object made to be
/// called), when `call` is that.
fn functor_targs(call: Node, src: &[u8], name: &str) -> Option<Vec<String>> {
    let f = call.child_by_field_name("function")?;
    let args = call.child_by_field_name("arguments")?;
    if args.named_child_count() != 0 || f.kind() != "template_function" {
        return None;
    }
    let fname = f.child_by_field_name("name").map(|x| text(x, src))?;
    if fname.rsplit("::").next() != Some(name) {
        return None;
    }
    let targs = f.child_by_field_name("arguments")?;
    let mut c = targs.walk();
    Some(
        targs
            .named_children(&mut c)
            .map(|x| text(x, src).to_string())
            .collect(),
    )
}

/// The name `make_struct` gets for a base-class initialiser (its value: the base object).
const BASE_INIT: &str = "<base>";

/// A constructor: a member whose name is its class's.
fn is_ctor(d: &FuncDef) -> bool {
    d.class
        .as_deref()
        .and_then(|c| c.rsplit("::").next())
        .is_some_and(|c| c == d.name)
}

/// The parameter declarations of a function definition.
fn param_nodes<'t>(def: Node<'t>) -> Vec<Node<'t>> {
    let Some(pl) = def
        .child_by_field_name("declarator")
        .and_then(|d| first_kind(d, "function_declarator"))
        .and_then(|fd| fd.child_by_field_name("parameters"))
    else {
        return Vec::new();
    };
    let mut c = pl.walk();
    pl.named_children(&mut c)
        .filter(|p| p.kind() != "comment")
        .collect()
}

/// Each parameter's type as written.
fn param_types(def: Node, src: &[u8]) -> Vec<String> {
    param_nodes(def)
        .into_iter()
        .map(|p| {
            p.child_by_field_name("type")
                .map(|t| text(t, src).to_string())
                .unwrap_or_default()
        })
        .collect()
}

/// The parameters of a function definition declared with a class type
/// (`const PerformanceConfigX& config` → (`config`, `PerformanceConfigX`)).
fn param_classes(def: Node, src: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in param_nodes(def) {
        let (Some(t), Some(name)) = (
            p.child_by_field_name("type"),
            p.child_by_field_name("declarator")
                .and_then(|d| declarator_name(d, src)),
        ) else {
            continue;
        };
        let ty = strip_targs(text(t, src));
        let last = ty.rsplit("::").next().unwrap_or(&ty).trim().to_string();
        out.push((name.to_string(), last));
    }
    out
}
