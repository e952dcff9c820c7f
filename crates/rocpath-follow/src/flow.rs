//! Where the value of an expression goes: up through the expressions that carry it
//! (operators, conversions, calls outside the repositories) to the statement that receives
//! it — an assignment, an argument, a return, a struct literal field, a condition.

use crate::engine::{Draft, Engine, FileRef, Item, Param};
use crate::index::Lang;
use crate::model::{HopEvidence, HopKind};
use crate::syntax::{self, Parsed};
use tree_sitter::Node;

/// A call a value is passed to, as `call_step` found it.
#[derive(Clone, Copy)]
struct CallSite<'t> {
    at: FileRef,
    call: Node<'t>,
    callee: Node<'t>,
    arg: Node<'t>,
    /// The argument's position.
    idx: usize,
    /// The call's result is not used.
    discarded: bool,
    /// A Go call into C (`C.f(…)`).
    cgo: bool,
}

enum Step {
    Up,
    Stop,
    Land(Vec<Draft>),
}

fn is_field(par: Node, field: &str, n: Node) -> bool {
    par.child_by_field_name(field)
        .is_some_and(|c| c.id() == n.id())
}

fn named_index(par: Node, n: Node) -> usize {
    let mut c = par.walk();
    par.named_children(&mut c)
        .filter(|k| k.kind() != "comment")
        .position(|k| k.id() == n.id())
        .unwrap_or(0)
}

/// Calls that build a string from their arguments (`fmt.Sprintf`, `snprintf`, `format`):
/// the value goes on in the string.
fn is_string_builder(callee: &str) -> bool {
    let l = callee.to_ascii_lowercase();
    let last = l.rsplit(['.', ':']).next().unwrap_or(&l);
    last.starts_with("sprint")
        || matches!(
            last,
            "snprintf" | "asprintf" | "format" | "join" | "to_string"
        )
}

/// Names of calls whose discarded result means the value was only logged or printed.
fn is_logging(callee: &str) -> bool {
    if is_string_builder(callee) {
        return false;
    }
    let l = callee.to_ascii_lowercase();
    let last = l.rsplit(['.', ':']).next().unwrap_or(&l);
    l.contains("log")
        || matches!(
            last,
            "errorf" | "panic" | "panicf" | "wrap" | "wrapf" | "assert" | "abort"
        )
        || last.starts_with("fatal")
        || l == "errors.new"
        || l.contains("print")
        || l.contains("debug")
        || l.contains("trace")
        || l.ends_with(".info")
        || l.ends_with(".warn")
        || l.ends_with(".error")
        || l.ends_with("errorf")
}

/// The condition of a branch node, on one line, cut to 80 characters.
fn condition_text(p: &Parsed, n: Node) -> String {
    let c = n
        .child_by_field_name("condition")
        .or_else(|| n.child_by_field_name("value"))
        .unwrap_or(n);
    let t: Vec<&str> = p.text(c).split_whitespace().collect();
    let t = t.join(" ");
    match t.char_indices().nth(80) {
        Some((k, _)) => format!("{}…", &t[..k]),
        None => t,
    }
}

const SETENV: &[&str] = &["Setenv", "setenv", "putenv", "_putenv"];

/// Calls that start a process with their arguments as its command line (Go `os/exec`, Python
/// `subprocess`/`os`, POSIX `exec*`/`posix_spawn`/`system`/`popen`), as written at the call.
const PROCESS_STARTS: &[&str] = &[
    "exec.Command",
    "exec.CommandContext",
    "subprocess.run",
    "subprocess.Popen",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "os.system",
    "os.execv",
    "os.execvp",
    "os.spawnv",
    "execv",
    "execvp",
    "execl",
    "execlp",
    "posix_spawn",
    "posix_spawnp",
    "system",
    "popen",
];

/// Where a value's flow ends by itself (a statement whose value is dropped, a block, a
/// file), not a construct left unfollowed.
const ENDS: &[&str] = &[
    "expression_statement",
    "block",
    "compound_statement",
    "source_file",
    "translation_unit",
    "module",
    "inc_statement",
    "dec_statement",
    "go_statement",
    "defer_statement",
    "throw_statement",
    "raise_statement",
    "argument_list",
    "call_expression",
    "call",
];

/// Methods that add their argument to the object they are called on (a string builder, a
/// list of arguments).
const ADDERS: &[&str] = &[
    "WriteString",
    "Write",
    "WriteByte",
    "WriteRune",
    "append",
    "extend",
    "push_back",
    "emplace_back",
];

/// What a discarded call writes its argument into: the buffer of `sprintf`/`snprintf`, the
/// object of `sb.WriteString(v)`, `args.append(v)`, `v.push_back(x)`.
fn written_into<'t>(p: &Parsed, call: Node<'t>, callee: Node<'t>, idx: usize) -> Option<Node<'t>> {
    let name = syntax::last_name(p, callee);
    if matches!(name, "sprintf" | "snprintf") && idx > 0 {
        return call.child_by_field_name("arguments")?.named_child(0);
    }
    if !ADDERS.contains(&name) {
        return None;
    }
    let object = match callee.kind() {
        "selector_expression" => callee.child_by_field_name("operand"),
        "field_expression" => callee.child_by_field_name("argument"),
        "attribute" => callee.child_by_field_name("object"),
        _ => None,
    }?;
    matches!(
        object.kind(),
        "identifier" | "selector_expression" | "field_expression" | "attribute"
    )
    .then_some(object)
}

/// A flag or an environment variable written with its value in one string
/// (`"--n-gpu-layers=%d"`, `f"-DGGML_HIP={v}"`, `"HSA_OVERRIDE_GFX_VERSION="+v`): the key
/// and its kind.
fn key_in_format(p: &Parsed, lit: Node) -> Option<(String, HopKind)> {
    let v = syntax::string_value(p, lit)?;
    let (key, _) = v.split_once('=')?;
    if key.starts_with('-') && key.len() > 1 && !key.contains([' ', '%', '{']) {
        return Some((key.to_string(), HopKind::Flag));
    }
    let env = key.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && key
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    env.then(|| (key.to_string(), HopKind::Env))
}

impl Engine<'_> {
    /// The hops where the value of `start` lands.
    pub fn flow_up(&mut self, at: FileRef, p: &Parsed, start: Node) -> Vec<Draft> {
        let mut n = start;
        for _ in 0..64 {
            let Some(par) = n.parent() else {
                return Vec::new();
            };
            let step = match p.lang {
                Lang::Go => self.go_step(at, p, par, n),
                Lang::Cpp => self.cpp_step(at, p, par, n),
                Lang::Python => self.py_step(at, p, par, n),
            };
            match step {
                Step::Up => n = par,
                Step::Stop => {
                    if !ENDS.contains(&par.kind()) && self.unfollowed.is_none() {
                        self.unfollowed = Some((p.line(par), par.kind().to_string()));
                    }
                    return Vec::new();
                }
                Step::Land(d) => return d,
            }
        }
        Vec::new()
    }

    fn branch(&self, at: FileRef, p: &Parsed, n: Node) -> Step {
        let item = crate::control::guarded(n).map(|b| Item::Controlled {
            at,
            range: (b.start_byte(), b.end_byte()),
            cond: p.line(n),
            from_call: self.in_call,
        });
        Step::Land(vec![self.draft(
            at,
            p.line(n),
            HopKind::Branch,
            HopEvidence::CodeVerified,
            condition_text(p, n),
            None,
            item,
        )])
    }

    /// A send on a channel the value made (its capacity, `make(chan T, n)`): whether the
    /// channel is full decides whether the send waits — in a `select` with a `default`,
    /// whether the default runs instead (Ollama's scheduler answers "server busy" so).
    fn channel_send(&self, at: FileRef, p: &Parsed, send: Node) -> Step {
        let default = send
            .parent()
            .filter(|c| c.kind() == "communication_case")
            .and_then(|c| c.parent())
            .filter(|s| s.kind() == "select_statement")
            .and_then(|s| {
                let mut c = s.walk();
                s.named_children(&mut c)
                    .find(|k| k.kind() == "default_case")
            });
        let note = match default {
            Some(d) => format!(
                "a send on the channel: when it is full, the select's default at line {} runs instead",
                p.line(d)
            ),
            None => "a send on the channel: it waits while the channel is full".to_string(),
        };
        let item = default.map(|d| Item::Controlled {
            at,
            range: (d.start_byte(), d.end_byte()),
            cond: p.line(send),
            from_call: self.in_call,
        });
        let text: Vec<&str> = p.text(send).split_whitespace().collect();
        Step::Land(vec![self.draft(
            at,
            p.line(send),
            HopKind::Branch,
            HopEvidence::CodeVerified,
            text.join(" "),
            Some(note),
            item,
        )])
    }

    /// The hop of a `return` statement (for what a condition decides).
    pub fn returned(&self, at: FileRef, p: &Parsed, n: Node) -> Vec<Draft> {
        match self.ret(at, p, n) {
            Step::Land(d) => d,
            _ => Vec::new(),
        }
    }

    fn ret(&self, at: FileRef, p: &Parsed, n: Node) -> Step {
        let f = syntax::scope_of(p.lang, n);
        if matches!(f.kind(), "func_literal" | "lambda_expression" | "lambda") {
            return Step::Land(vec![self.closure_return(at, p, n, f)]);
        }
        let Some(name) = syntax::func_name(p, f).filter(|s| !s.is_empty()) else {
            return Step::Stop;
        };
        let (note, item) = if self.in_call {
            (
                Some(
                    "returned to the call the value came through: its result is followed from that call where it is used"
                        .to_string(),
                ),
                None,
            )
        } else {
            (
                None,
                Some(Item::Returns {
                    name: name.to_string(),
                    lang: p.lang,
                    def: at,
                }),
            )
        };
        Step::Land(vec![self.draft(
            at,
            p.line(n),
            HopKind::Return,
            HopEvidence::CodeVerified,
            name,
            note,
            item,
        )])
    }

    /// A return from a function literal (a closure, a lambda): the value comes out wherever
    /// the function goes — returned by the enclosing function (a getter that returns a
    /// reader, `Bool("K")`), assigned, passed — and is followed from the literal.
    fn closure_return(&self, at: FileRef, p: &Parsed, n: Node, f: Node) -> Draft {
        self.draft(
            at,
            p.line(n),
            HopKind::Return,
            HopEvidence::CodeVerified,
            if p.lang == Lang::Go {
                "func literal"
            } else {
                "lambda"
            },
            Some(format!(
                "returned by the function literal of line {}: followed where the function goes",
                p.line(f)
            )),
            Some(Item::Value {
                at,
                range: (f.start_byte(), f.end_byte()),
                from_call: self.in_call,
            }),
        )
    }

    fn go_step(&mut self, at: FileRef, p: &Parsed, par: Node, n: Node) -> Step {
        match par.kind() {
            "binary_expression" | "binary_operator" if !is_field(par, "left", n) => {
                self.concatenated_flag(at, p, par)
            }
            "parenthesized_expression"
            | "unary_expression"
            | "binary_expression"
            | "type_conversion_expression"
            | "slice_expression"
            | "type_assertion_expression"
            | "index_expression"
            | "selector_expression"
            | "literal_element"
            | "composite_literal" => Step::Up,
            "call_expression" if is_field(par, "function", n) => Step::Up,
            "argument_list" => match par.parent() {
                Some(call) => self.call_step(at, p, call, par, n, None),
                None => Step::Stop,
            },
            "expression_list" => self.go_list(at, p, par, n),
            "range_clause" if is_field(par, "right", n) => match par.child_by_field_name("left") {
                Some(l) => match l.named_child(l.named_child_count().saturating_sub(1)) {
                    Some(t) => Step::Land(self.land(at, p, t, HopKind::Assign)),
                    None => Step::Stop,
                },
                None => Step::Stop,
            },
            "keyed_element" if is_field(par, "value", n) => {
                let Some(k) = par.child_by_field_name("key") else {
                    return Step::Stop;
                };
                let mut d = self.field_draft(at, p, k, HopKind::Field);
                if let Some(Item::Field { origin, owner, .. }) = &mut d.item {
                    *owner = crate::types::literal_type(p, par);
                    if let Some(pkg) = literal_package(p, par) {
                        *origin = Some((at.repo, format!("pkg:{pkg}")));
                    }
                }
                Step::Land(vec![d])
            }
            "literal_value" => match self.flag_before(at, p, n) {
                Some(d) => Step::Land(vec![d]),
                None => Step::Up,
            },
            "if_statement" | "for_clause" | "for_statement" if is_field(par, "condition", n) => {
                self.branch(at, p, par)
            }
            "expression_switch_statement" if is_field(par, "value", n) => self.branch(at, p, par),
            "expression_case" => self.branch(at, p, par),
            "send_statement" if is_field(par, "channel", n) => self.channel_send(at, p, par),
            "return_statement" => self.ret(at, p, par),
            k if k.ends_with("_expression") => Step::Up,
            _ => Step::Stop,
        }
    }

    fn go_list<'t>(&mut self, at: FileRef, p: &Parsed, list: Node<'t>, n: Node<'t>) -> Step {
        let Some(gp) = list.parent() else {
            return Step::Stop;
        };
        let idx = named_index(list, n);
        let pick = |targets: Vec<Node<'t>>| -> Option<Node<'t>> {
            let count = list.named_child_count();
            if targets.len() == count {
                targets.get(idx).copied()
            } else {
                targets.first().copied()
            }
        };
        let target = match gp.kind() {
            "assignment_statement" | "short_var_declaration" if is_field(gp, "right", list) => {
                gp.child_by_field_name("left").and_then(|l| {
                    let mut c = l.walk();
                    pick(l.named_children(&mut c).collect())
                })
            }
            "var_spec" if is_field(gp, "value", list) => {
                let mut c = gp.walk();
                pick(gp.children_by_field_name("name", &mut c).collect())
            }
            "return_statement" => return self.ret(at, p, gp),
            _ => None,
        };
        match target {
            Some(t) => Step::Land(self.land(at, p, t, HopKind::Assign)),
            None => Step::Stop,
        }
    }

    fn cpp_step(&mut self, at: FileRef, p: &Parsed, par: Node, n: Node) -> Step {
        match par.kind() {
            "parenthesized_expression"
            | "binary_expression"
            | "unary_expression"
            | "cast_expression"
            | "conditional_expression"
            | "subscript_expression"
            | "field_expression"
            | "pointer_expression"
            | "comma_expression"
            | "initializer_list"
            | "update_expression"
            | "subscript_argument_list" => Step::Up,
            "call_expression" if is_field(par, "function", n) => Step::Up,
            "argument_list" => match par.parent() {
                Some(c) if c.kind() == "call_expression" => self.call_step(at, p, c, par, n, None),
                Some(c) if c.kind() == "field_initializer" => match c.named_child(0) {
                    Some(f) => Step::Land(vec![self.field_draft(at, p, f, HopKind::Field)]),
                    None => Step::Stop,
                },
                Some(c) if c.kind() == "init_declarator" => self.cpp_step(at, p, c, par),
                _ => Step::Stop,
            },
            "init_declarator" if is_field(par, "value", n) => {
                match par.child_by_field_name("declarator") {
                    Some(d) => Step::Land(self.land(at, p, d, HopKind::Assign)),
                    None => Step::Stop,
                }
            }
            "assignment_expression" if is_field(par, "right", n) => {
                match par.child_by_field_name("left") {
                    Some(l) => Step::Land(self.land(at, p, l, HopKind::Assign)),
                    None => Step::Stop,
                }
            }
            "initializer_pair" if is_field(par, "value", n) => {
                match par.child_by_field_name("designator") {
                    Some(d) => Step::Land(vec![self.field_draft(at, p, d, HopKind::Field)]),
                    None => Step::Stop,
                }
            }
            "return_statement" => self.ret(at, p, par),
            "condition_clause" | "while_statement" | "do_statement" | "case_statement" => {
                self.branch(at, p, par)
            }
            "for_statement" if is_field(par, "condition", n) => self.branch(at, p, par),
            k if k.ends_with("_expression") => Step::Up,
            _ => Step::Stop,
        }
    }

    fn py_step(&mut self, at: FileRef, p: &Parsed, par: Node, n: Node) -> Step {
        match par.kind() {
            "binary_operator" if !is_field(par, "left", n) => self.concatenated_flag(at, p, par),
            "parenthesized_expression"
            | "binary_operator"
            | "unary_operator"
            | "boolean_operator"
            | "not_operator"
            | "attribute"
            | "subscript"
            | "conditional_expression"
            | "list"
            | "tuple"
            | "comparison_operator"
            | "await"
            | "expression_list"
            | "concatenated_string" => Step::Up,
            "interpolation" | "format_expression" => Step::Up,
            "string" => match key_in_format(p, par) {
                Some((key, kind)) => Step::Land(vec![self.key_draft(at, p, par, key, kind)]),
                None => Step::Up,
            },
            // The function called, or its arguments passed through a call outside the
            // repositories (`str(v)`): the value goes on in the result.
            "call" => Step::Up,
            "argument_list" => match par.parent() {
                Some(c) => self.call_step(at, p, c, par, n, None),
                None => Step::Stop,
            },
            "keyword_argument" if is_field(par, "value", n) => {
                let kw = par
                    .child_by_field_name("name")
                    .map(|k| p.text(k).to_string());
                match par.parent().and_then(|l| Some((l, l.parent()?))) {
                    Some((list, call)) => self.call_step(at, p, call, list, par, kw),
                    None => Step::Stop,
                }
            }
            "assignment" | "augmented_assignment" if is_field(par, "right", n) => {
                match par.child_by_field_name("left") {
                    Some(l) => Step::Land(self.land(at, p, l, HopKind::Assign)),
                    None => Step::Stop,
                }
            }
            "pair" if is_field(par, "value", n) => match par.child_by_field_name("key") {
                Some(k) => match syntax::string_value(p, k) {
                    Some(key) => Step::Land(vec![self.key_draft(at, p, k, key, HopKind::Json)]),
                    None => Step::Stop,
                },
                None => Step::Stop,
            },
            "return_statement" => self.ret(at, p, par),
            "lambda" if is_field(par, "body", n) => {
                Step::Land(vec![self.closure_return(at, p, n, par)])
            }
            "if_statement" | "elif_clause" | "while_statement" if is_field(par, "condition", n) => {
                self.branch(at, p, par)
            }
            _ => Step::Stop,
        }
    }

    /// A hop onto a field named by `name_node` (a key, a designator, a member initializer).
    fn field_draft(&self, at: FileRef, p: &Parsed, name_node: Node, kind: HopKind) -> Draft {
        let name = p.text(name_node).trim_start_matches('.').trim().to_string();
        self.draft(
            at,
            p.line(name_node),
            kind,
            HopEvidence::CodeVerified,
            format!(".{name}"),
            None,
            Some(Item::Field {
                name,
                lang: p.lang,
                origin: Some((at.repo, self.dir(at))),
                decls: false,
                owner: None,
            }),
        )
    }

    /// A hop onto a key (JSON, flag, environment variable) sent from here.
    pub fn key_draft(&self, at: FileRef, p: &Parsed, n: Node, key: String, kind: HopKind) -> Draft {
        let line = p.line(n);
        self.draft(
            at,
            line,
            kind,
            HopEvidence::CodeVerified,
            key.clone(),
            None,
            Some(Item::Key {
                text: key,
                kind,
                from: Some((at, line)),
            }),
        )
    }

    /// A flag written just before the value in a list of arguments or strings
    /// (`"-ngl", strconv.Itoa(n)`).
    fn flag_before(&self, at: FileRef, p: &Parsed, n: Node) -> Option<Draft> {
        let mut prev = n.prev_named_sibling()?;
        while prev.kind() == "comment" {
            prev = prev.prev_named_sibling()?;
        }
        let inner = if prev.kind() == "literal_element" {
            prev.named_child(0)?
        } else {
            prev
        };
        let v = syntax::string_value(p, inner)?;
        let flag = v.split('=').next().unwrap_or(&v).to_string();
        (flag.starts_with('-') && flag.len() > 1 && !flag.contains(' '))
            .then(|| self.key_draft(at, p, inner, flag, HopKind::Flag))
    }

    /// Where a value passed to a call goes: a parameter of a function in the repositories,
    /// a flag, an environment variable, a C function through cgo, or through the call.
    fn call_step(
        &mut self,
        at: FileRef,
        p: &Parsed,
        call: Node,
        list: Node,
        arg: Node,
        keyword: Option<String>,
    ) -> Step {
        let Some(callee) = call.child_by_field_name("function") else {
            return Step::Up;
        };
        let name = syntax::last_name(p, callee).to_string();
        let ctext = p.text(callee).to_string();
        let idx = named_index(list, arg);
        if let Some(d) = self.flag_before(at, p, arg) {
            return Step::Land(vec![d]);
        }
        if SETENV.contains(&name.as_str()) && idx == 1 {
            if let Some(k) = list
                .named_child(0)
                .and_then(|k| syntax::string_value(p, k).map(|v| (k, v)))
            {
                return Step::Land(vec![self.key_draft(at, p, k.0, k.1, HopKind::Env)]);
            }
        }
        if crate::bridges::GETENV.contains(&name.as_str()) && idx == 0 {
            return Step::Land(vec![self.getenv_read(at, p, call)]);
        }
        let cgo = p.lang == Lang::Go && ctext.starts_with("C.");
        let (defs, kind, bound) = self.callee_defs(at, p, &name, &ctext, cgo);
        let discarded = matches!(
            call.parent().map(|x| x.kind()),
            Some("expression_statement") | Some("go_statement") | Some("defer_statement")
        );
        // A qualified start (`subprocess.run`) is the library's even when the repositories
        // define a function of the same last name; an unqualified one (`system`) only when
        // they do not.
        let qualified_start = ctext.contains('.') && PROCESS_STARTS.contains(&ctext.as_str());
        if qualified_start || (defs.is_empty() && PROCESS_STARTS.contains(&ctext.as_str())) {
            // The value is on the command line of another program: where it leaves.
            return Step::Land(vec![self.draft(
                at,
                p.line(arg),
                HopKind::Flag,
                HopEvidence::Unresolved,
                name,
                Some(format!(
                    "on the command line of the process started by `{ctext}(…)`: the program it runs reads it, outside the repositories given"
                )),
                None,
            )]);
        }
        if defs.is_empty() {
            let site = CallSite {
                at,
                call,
                callee,
                arg,
                idx,
                discarded,
                cgo,
            };
            return self.undefined_callee(p, &site, name, &ctext);
        }
        let method = callee.kind() == "attribute";
        let params = matching_params(&defs, idx, keyword.as_deref(), method);
        if params.is_empty() {
            return Step::Up;
        }
        let (ev, note) = match (&bound, params.len()) {
            (Some(cname), _) => (
                HopEvidence::Inferred,
                Some(format!(
                    "a native extension binds {name} to the C++ function {cname} (pybind11 `def`)"
                )),
            ),
            (None, 1) => (HopEvidence::CodeVerified, None),
            (None, n) => (
                HopEvidence::Inferred,
                Some(format!("{n} definitions named {name}: each is followed")),
            ),
        };
        let mut out = vec![self.draft(
            at,
            p.line(arg),
            kind,
            ev,
            name.clone(),
            note,
            Some(Item::Params(params)),
        )];
        if !discarded {
            out.push(self.call_result(at, p, call, &name));
        }
        Step::Land(out)
    }

    /// A call of a function the repositories do not define: a library call rocpath knows, a
    /// logging call (the trail stops), a macro, a function-valued field, or the value goes
    /// through the call (its result) — else the trail leaves the repositories here.
    fn undefined_callee(&mut self, p: &Parsed, c: &CallSite, name: String, ctext: &str) -> Step {
        let CallSite {
            at,
            call,
            callee,
            arg,
            idx,
            discarded,
            cgo,
        } = *c;
        if let Some(d) = self.built_into(at, p, call, callee, idx, discarded) {
            return Step::Land(d);
        }
        if is_logging(ctext) && !cgo {
            return Step::Stop;
        }
        if let Some(d) = self.macro_arg(at, p, arg, &name) {
            return Step::Land(vec![d]);
        }
        if let Some(d) = self.func_field_call(at, p, callee, arg, idx) {
            let mut out = vec![d];
            if !discarded {
                out.push(self.call_result(at, p, call, &name));
            }
            return Step::Land(out);
        }
        if !discarded || cgo {
            return Step::Up;
        }
        Step::Land(vec![self.draft(
            at,
            p.line(arg),
            HopKind::CallArg,
            HopEvidence::Unresolved,
            name,
            Some(format!(
                "passed to {ctext}, which is not defined in the repositories given"
            )),
            None,
        )])
    }

    /// The hop onto the result of a call, taken to depend on the argument followed.
    fn call_result(&self, at: FileRef, p: &Parsed, call: Node, name: &str) -> Draft {
        self.draft(
            at,
            p.line(call),
            HopKind::Return,
            HopEvidence::Inferred,
            name,
            Some(format!(
                "the result of {name}, taken to depend on this argument"
            )),
            Some(Item::Value {
                at,
                range: (call.start_byte(), call.end_byte()),
                from_call: self.in_call,
            }),
        )
    }

    /// A value appended to a string that writes a flag or a variable (`"--ctx-size=" + v`,
    /// `"HSA_OVERRIDE_GFX_VERSION=" + v`): the key; else the value goes up through the
    /// operator.
    fn concatenated_flag(&self, at: FileRef, p: &Parsed, op: Node) -> Step {
        let key = op
            .child_by_field_name("left")
            .and_then(|l| key_in_format(p, l).map(|k| (l, k)));
        match key {
            Some((l, (k, kind))) => Step::Land(vec![self.key_draft(at, p, l, k, kind)]),
            None => Step::Up,
        }
    }

    /// A value built into a string or added to an object by a call outside the repositories:
    /// the flag a format string writes it after (`Sprintf("--n-gpu-layers=%d", v)`), the
    /// buffer or object a discarded call writes it into.
    fn built_into(
        &mut self,
        at: FileRef,
        p: &Parsed,
        call: Node,
        callee: Node,
        idx: usize,
        discarded: bool,
    ) -> Option<Vec<Draft>> {
        let ctext = p.text(callee);
        if is_string_builder(ctext) && idx > 0 {
            let fmt = call.child_by_field_name("arguments")?.named_child(0)?;
            if let Some((key, kind)) = key_in_format(p, fmt) {
                return Some(vec![self.key_draft(at, p, fmt, key, kind)]);
            }
        }
        if !discarded {
            return None;
        }
        let target = written_into(p, call, callee, idx)?;
        let mut d = self.land(at, p, target, HopKind::Assign);
        let name = syntax::last_name(p, callee);
        for x in &mut d {
            x.line = p.line(call);
            x.note = Some(format!("written into {} by {name}", p.text(target)));
        }
        (!d.is_empty()).then_some(d)
    }

    /// A value given to a macro the repositories define (`MIOPEN_DECLARE_ENV_VAR_BOOL(X)`):
    /// the macro is named where it is defined; what it expands to is not followed.
    fn macro_arg(&mut self, at: FileRef, p: &Parsed, arg: Node, name: &str) -> Option<Draft> {
        if p.lang != Lang::Cpp || name.chars().any(|c| c.is_ascii_lowercase()) {
            return None;
        }
        let (f, line) = self.macro_def(name)?;
        let note = format!(
            "passed to the macro {name}, defined at {}:{line}: what it expands to is a construct not followed",
            self.path(f)
        );
        Some(self.draft(
            at,
            p.line(arg),
            HopKind::CallArg,
            HopEvidence::Inferred,
            name,
            Some(note),
            None,
        ))
    }

    /// A value that names the environment variable a `getenv` reads (a wrapper's parameter,
    /// `os.Getenv(key)`): the variable is read here, and its value goes on from the call.
    fn getenv_read(&self, at: FileRef, p: &Parsed, call: Node) -> Draft {
        self.draft(
            at,
            p.line(call),
            HopKind::Env,
            HopEvidence::CodeVerified,
            p.text(call).chars().take(80).collect::<String>(),
            Some("the environment variable named by this value is read here".into()),
            Some(Item::Value {
                at,
                range: (call.start_byte(), call.end_byte()),
                from_call: self.in_call,
            }),
        )
    }

    /// The definitions a call reaches: in the caller's language (C for cgo), else a C++
    /// function a Python native extension binds the name to (with that function's name).
    #[allow(clippy::type_complexity)]
    fn callee_defs(
        &mut self,
        at: FileRef,
        p: &Parsed,
        name: &str,
        ctext: &str,
        cgo: bool,
    ) -> (Vec<(FileRef, syntax::FuncDef)>, HopKind, Option<String>) {
        let (lang, kind) = if cgo {
            (Lang::Cpp, HopKind::Cgo)
        } else {
            (p.lang, HopKind::CallArg)
        };
        let external = ctext.starts_with("std::") || ctext.starts_with("::std::");
        let named = name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        let mut defs = if !external && named {
            self.resolve(name, lang, (!cgo).then_some((at, p)))
        } else {
            Vec::new()
        };
        // A Python call by a bare name is to its own module's function when it has one
        // (`run_cmd` in `rmake.py`, not the `run_cmd` of the script beside it).
        if p.lang == Lang::Python && ctext == name && defs.iter().any(|(f, _)| *f == at) {
            defs.retain(|(f, _)| *f == at);
        }
        if defs.is_empty() && p.lang == Lang::Python {
            if let Some((cname, d)) = self.native_binding(name) {
                return (d, HopKind::CallArg, Some(cname));
            }
        }
        (defs, kind, None)
    }

    /// A Python name bound to a C++ function by a native extension
    /// (`m.def("name", &cxx_function, …)` in pybind11): the C++ function and its definitions.
    fn native_binding(&mut self, name: &str) -> Option<(String, Vec<(FileRef, syntax::FuncDef)>)> {
        let quoted = format!("\"{name}\"");
        for f in self.files_with(name, Some(Lang::Cpp)) {
            let Some(p) = self.file(f) else { continue };
            for occ in syntax::occurrences(&p, &quoted, 0, p.src.len()) {
                let lit = if occ.kind() == "string_literal" {
                    occ
                } else {
                    occ.parent()?
                };
                let Some(args) = lit.parent().filter(|a| a.kind() == "argument_list") else {
                    continue;
                };
                let call = args.parent()?;
                let callee = call.child_by_field_name("function")?;
                if syntax::last_name(&p, callee) != "def" {
                    continue;
                }
                let target = args.named_child(1)?;
                let target = if target.kind() == "pointer_expression" {
                    target.child_by_field_name("argument")?
                } else {
                    target
                };
                let cname = syntax::last_name(&p, target).to_string();
                let defs = self.resolve(&cname, Lang::Cpp, None);
                if !defs.is_empty() {
                    return Some((cname, defs));
                }
            }
        }
        None
    }

    /// The hop onto what an assignment writes: a variable, a field, a key.
    pub fn land(&mut self, at: FileRef, p: &Parsed, t: Node, kind: HopKind) -> Vec<Draft> {
        match t.kind() {
            "identifier" if p.text(t) != "_" => self.land_name(at, p, t, kind),
            "selector_expression" | "field_expression" | "attribute" => {
                self.land_field(at, p, t, kind)
            }
            "subscript" | "index_expression" | "subscript_expression" => {
                self.land_key(at, p, t).into_iter().collect()
            }
            "pattern_list" | "expression_list" | "tuple_pattern" => match t.named_child(0) {
                Some(c) => self.land(at, p, c, kind),
                None => Vec::new(),
            },
            "pointer_declarator"
            | "reference_declarator"
            | "array_declarator"
            | "pointer_expression"
            | "unary_expression" => {
                let inner = t
                    .child_by_field_name("declarator")
                    .or_else(|| t.child_by_field_name("argument"))
                    .or_else(|| t.named_child(0));
                match inner {
                    Some(c) => self.land(at, p, c, kind),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// A name written: a member of the method's class (written without `this->`), a Go
    /// package variable, or a local in its scope.
    fn land_name(&mut self, at: FileRef, p: &Parsed, t: Node, kind: HopKind) -> Vec<Draft> {
        if let Some(class) = self.member_written(p, t) {
            // A member of the class the method belongs to: read wherever the member is.
            let mut d = self.field_draft(at, p, t, kind);
            d.note = Some(format!("a member of {class} written without `this->`"));
            if let Some(Item::Field { owner, .. }) = &mut d.item {
                *owner = Some(class);
            }
            return vec![d];
        }
        if crate::types::go_package_var_written(p, t) {
            // Read anywhere in its file, and as `pkg.Name` where the package is imported.
            let root = p.tree.root_node();
            let name = p.text(t).to_string();
            return vec![self.draft(
                at,
                p.line(t),
                kind,
                HopEvidence::CodeVerified,
                name.clone(),
                Some(format!(
                    "{name} is a package variable, written in a function"
                )),
                Some(Item::Local {
                    at,
                    scope: (root.start_byte(), root.end_byte()),
                    name,
                    after: 0,
                    from_call: false,
                }),
            )];
        }
        let scope = syntax::block_scope(p, t, syntax::declaring_scope(p, t));
        let name = p.text(t).to_string();
        vec![self.draft(
            at,
            p.line(t),
            kind,
            HopEvidence::CodeVerified,
            name.clone(),
            None,
            Some(Item::Local {
                at,
                scope: (scope.start_byte(), scope.end_byte()),
                name,
                after: t.end_byte(),
                from_call: self.in_call,
            }),
        )]
    }

    /// A field written (`x.f`, `x->f`, `x.attr`); a field of a C struct written from Go is
    /// followed in C and C++; a field of a C++ type the repositories do not define is also
    /// where the value leaves them (the library that defines the type reads it).
    fn land_field(&mut self, at: FileRef, p: &Parsed, t: Node, kind: HopKind) -> Vec<Draft> {
        use crate::types::Owner;
        let name = syntax::last_name(p, t).to_string();
        let cgo = p.lang == Lang::Go
            && name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && is_cgo_file(p);
        let mut d = self.field_draft(at, p, t, kind);
        d.symbol = format!(".{name}");
        let owner = self.read_owner(at, p, t, &name, None);
        let outside = match &owner {
            Some(Owner::Outside(ty)) => Some(self.outside_type(at, p, t, ty, &name)),
            _ => None,
        };
        let written = match owner {
            Some(Owner::Type(ty) | Owner::Outside(ty)) if !cgo => Some(ty),
            _ => None,
        };
        if let Some(Item::Field {
            name: n,
            lang,
            decls,
            owner,
            ..
        }) = &mut d.item
        {
            *n = name.clone();
            *owner = written;
            if cgo {
                *lang = Lang::Cpp;
                *decls = true;
                d.kind = HopKind::Cgo;
                d.note = Some(format!(
                    "a field of a C struct written from Go: followed as {name} in C and C++"
                ));
            }
        }
        let mut out = vec![d];
        out.extend(outside);
        out
    }

    /// The boundary where a value written into a field of a C++ type the repositories do not
    /// define leaves them, with the headers the file includes that they do not hold.
    fn outside_type(&mut self, at: FileRef, p: &Parsed, t: Node, ty: &str, field: &str) -> Draft {
        let missing = self.missing_includes(p);
        let headers = match missing.len() {
            0 => String::new(),
            n => format!(
                "; the file includes {}{}, not in the repositories",
                missing
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if n > 3 {
                    format!(" and {} more", n - 3)
                } else {
                    String::new()
                }
            ),
        };
        self.draft(
            at,
            p.line(t),
            HopKind::Field,
            HopEvidence::Unresolved,
            format!("{ty}.{field}"),
            Some(format!(
                "written into {field} of {ty}, a type the repositories given do not define: the library that defines it reads it, outside them{headers} (give its source to follow it further)"
            )),
            None,
        )
    }

    /// A key written with a string (`env["X"] = …`, `m["k"] = …`).
    fn land_key(&mut self, at: FileRef, p: &Parsed, t: Node) -> Option<Draft> {
        let key = t
            .child_by_field_name("subscript")
            .or_else(|| t.child_by_field_name("index"))
            .or_else(|| t.named_child(1))
            .and_then(|k| syntax::string_value(p, k).map(|v| (k, v)));
        let base = t
            .child_by_field_name("value")
            .or_else(|| t.child_by_field_name("operand"))
            .or_else(|| t.named_child(0))
            .map(|b| p.text(b).to_string())
            .unwrap_or_default();
        let (k, v) = key?;
        let kind = if base.to_ascii_lowercase().contains("env") {
            HopKind::Env
        } else {
            HopKind::Json
        };
        Some(self.key_draft(at, p, k, v, kind))
    }
}

/// The package qualifying a Go composite literal's type (`llama.ModelParams{…}` → `llama`).
fn literal_package<'a>(p: &'a Parsed, keyed: Node) -> Option<&'a str> {
    let lit = keyed.parent()?.parent()?;
    let ty = lit.child_by_field_name("type")?;
    let ty = if ty.kind() == "qualified_type" {
        ty
    } else {
        ty.named_child(0)?
    };
    (ty.kind() == "qualified_type")
        .then(|| ty.child_by_field_name("package").map(|q| p.text(q)))
        .flatten()
}

/// The parameter each definition receives the argument at `idx` (or `keyword`) in; a
/// Python method called on an object skips `self`.
fn matching_params(
    defs: &[(FileRef, syntax::FuncDef)],
    idx: usize,
    keyword: Option<&str>,
    method: bool,
) -> Vec<Param> {
    defs.iter()
        .filter_map(|(f, d)| {
            let i = if d.has_self && method { idx + 1 } else { idx };
            let (pn, byte) = match keyword {
                Some(k) => d.params.iter().find(|(n, _)| n == k)?.clone(),
                None => d.params.get(i)?.clone(),
            };
            (!pn.is_empty() && pn != "_").then_some(Param {
                at: *f,
                line: d.line,
                name: pn,
                byte,
                scope: d.scope,
            })
        })
        .collect()
}

/// Whether a Go file uses cgo (`import "C"`).
pub fn is_cgo_file(p: &Parsed) -> bool {
    memchr::memmem::find(&p.src, b"import \"C\"").is_some()
}
