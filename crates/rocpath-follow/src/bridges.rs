//! The hops that cross by name: fields read wherever a field of the name is read (across
//! packages, as JSON between processes, from Go into C through cgo), and keys — JSON keys,
//! command-line flags, environment variables — from where they are sent to where they are
//! read.

use crate::engine::{Draft, Engine, Expansion, FileRef, Item};
use crate::index::Lang;
use crate::model::{HopEvidence, HopKind};
use crate::syntax::{self, Parsed};
use crate::types::Owner;
use tree_sitter::Node;

pub(crate) const GETENV: &[&str] = &["Getenv", "LookupEnv", "getenv", "secure_getenv", "GetEnv"];
/// Calls that send a key rather than read it.
const SENDERS: &[&str] = &[
    "Setenv",
    "setenv",
    "putenv",
    "append",
    "Command",
    "CommandContext",
];

fn field_read<'t>(p: &Parsed, n: Node<'t>, name: &str) -> bool {
    let (field, ok) = match (p.lang, n.kind()) {
        (Lang::Go, "selector_expression") | (Lang::Cpp, "field_expression") => ("field", true),
        (Lang::Python, "attribute") => ("attribute", true),
        _ => ("", false),
    };
    ok && n
        .child_by_field_name(field)
        .is_some_and(|f| p.text(f) == name)
        && !is_written(n)
}

/// For a Go field read `x.F` (`x.a.F`): `x` and the function around the read.
fn read_base<'t>(p: &Parsed, read: Node<'t>) -> Option<(String, Node<'t>)> {
    if p.lang != Lang::Go {
        return None;
    }
    let mut base = read.child_by_field_name("operand")?;
    while base.kind() == "selector_expression" {
        base = base.child_by_field_name("operand")?;
    }
    (base.kind() == "identifier")
        .then(|| (p.text(base).to_string(), syntax::scope_of(p.lang, read)))
}

/// The line where `scope` decodes JSON into `var` (`Decode(&x)`, `json.Unmarshal(b, &x)`).
fn decode_line(p: &Parsed, scope: Node, var: &str) -> Option<u64> {
    let mut found = None;
    syntax::each_node(scope, &mut |n| {
        if found.is_none() && n.kind() == "call_expression" {
            let callee = n
                .child_by_field_name("function")
                .map(|c| syntax::last_name(p, c));
            if matches!(
                callee,
                Some("Decode" | "Unmarshal" | "BindJSON" | "ShouldBindJSON")
            ) {
                if let Some(args) = n.child_by_field_name("arguments") {
                    let mut c = args.walk();
                    if args.named_children(&mut c).any(|a| {
                        let t = p.text(a);
                        t == var || t.strip_prefix('&') == Some(var)
                    }) {
                        found = Some(p.line(n));
                    }
                }
            }
        }
        found.is_none()
    });
    found
}

/// Whether an expression is the function of a call (`x.F()`: a method, unless `F` is a
/// field holding a function).
fn is_called(n: Node) -> bool {
    n.parent().is_some_and(|c| {
        matches!(c.kind(), "call_expression" | "call")
            && c.child_by_field_name("function")
                .is_some_and(|f| f.id() == n.id())
    })
}

/// Whether an expression is the target of an assignment.
fn is_written(n: Node) -> bool {
    let mut t = n;
    if let Some(l) = t.parent().filter(|l| l.kind() == "expression_list") {
        t = l;
    }
    t.parent().is_some_and(|a| {
        matches!(
            a.kind(),
            "assignment_statement"
                | "assignment_expression"
                | "assignment"
                | "inc_statement"
                | "dec_statement"
        ) && a
            .child_by_field_name("left")
            .is_some_and(|l| l.id() == t.id())
    })
}

fn is_string(kind: &str) -> bool {
    matches!(
        kind,
        "interpreted_string_literal" | "raw_string_literal" | "string_literal" | "string"
    )
}

/// The JSON name in a Go struct tag (`json:"num_gpu,omitempty"` → `num_gpu`).
pub fn json_tag(tag: &str) -> Option<&str> {
    let i = tag.find("json:\"")?;
    let rest = &tag[i + 6..];
    let end = rest.find(['"', ','])?;
    Some(&rest[..end]).filter(|s| !s.is_empty() && *s != "-")
}

impl Engine<'_> {
    /// Reads of a field named `name` (and its declarations when asked).
    pub fn field(
        &mut self,
        name: &str,
        lang: Lang,
        origin: Option<&(usize, String)>,
        decls: bool,
        owner: Option<&str>,
    ) -> Expansion {
        let mut out = Vec::new();
        let files = self.files_with(name, Some(lang));
        self.prefetch(&files);
        let pkg_dir = origin
            .map(|(_, d)| d.as_str())
            .filter(|d| !d.starts_with("pkg:"));
        for f in files {
            let Some(p) = self.file(f) else { continue };
            let fdir = self.dir(f);
            let same = origin.is_some_and(|(r, d)| match d.strip_prefix("pkg:") {
                // A Go package named by a qualified type (`llama.ModelParams{…}`).
                Some(pkg) => fdir.rsplit('/').next() == Some(pkg),
                None => *r == f.repo && *d == fdir,
            });
            let imports = lang == Lang::Go
                && origin.is_some_and(|(_, d)| {
                    !d.is_empty()
                        && memchr::memmem::find(&p.src, format!("/{d}\"").as_bytes()).is_some()
                });
            let mut reads: Vec<Node> = Vec::new();
            let mut decl_lines = Vec::new();
            for occ in syntax::occurrences(&p, name, 0, p.src.len()) {
                let Some(par) = occ.parent() else { continue };
                if field_read(&p, par, name) {
                    // Occurrences come in document order: a repeat is the last one.
                    if reads.last().is_none_or(|r| r.id() != par.id()) {
                        reads.push(par);
                    }
                } else if decls {
                    let mut cur = occ;
                    for _ in 0..4 {
                        let Some(up) = cur.parent() else { break };
                        if up.kind() == "field_declaration" {
                            if up
                                .child_by_field_name("declarator")
                                .is_some_and(|d| syntax::last_name(&p, d) == name)
                            {
                                decl_lines.push(p.line(up));
                            }
                            break;
                        }
                        cur = up;
                    }
                }
            }
            decl_lines.dedup();
            for line in decl_lines {
                out.push(self.draft(
                    f,
                    line,
                    HopKind::Field,
                    HopEvidence::Inferred,
                    name,
                    Some("a field of this name is declared here".into()),
                    None,
                ));
            }
            let near = same || imports;
            for n in reads {
                out.extend(self.read_hop(f, &p, n, name, (owner, pkg_dir), near));
            }
            if lang == Lang::Cpp {
                out.extend(self.member_reads(f, &p, name, owner));
            }
        }
        out.sort_by_key(|d| d.evidence != HopEvidence::CodeVerified);
        Expansion {
            drafts: out,
            unresolved: None,
            stopped: None,
        }
    }

    /// The hop onto a read `x.F` of the field followed: JSON when `x` is decoded, resolved
    /// (`code_verified`) when `x`'s type has the field, else a match by name. A method call
    /// `x.F()` whose `x` is not resolved is not a read of the field: none.
    fn read_hop(
        &mut self,
        f: FileRef,
        p: &Parsed,
        n: Node,
        name: &str,
        (owner, pkg_dir): (Option<&str>, Option<&str>),
        near: bool,
    ) -> Option<Draft> {
        let resolved = self.read_owner(f, p, n, name, pkg_dir);
        // A Go package-level variable is read as `pkg.Name` (or through an import alias) in
        // another package: `x.Name` on anything else is another thing of that name.
        if owner == Some(crate::engine::PACKAGE_LEVEL)
            && p.lang == Lang::Go
            && resolved != Some(Owner::Package)
        {
            return None;
        }
        let (kind, ev, note) = if let Some((var, line)) = self.json_decoded(f, p, n) {
            (
                HopKind::Json,
                HopEvidence::Inferred,
                Some(format!(
                    "{var} is decoded from JSON at line {line}: the value crosses between processes as a field of the encoded type"
                )),
            )
        } else if let Some(read) = resolved {
            match (read, owner) {
                (Owner::Outside(t), o) if o.is_none_or(|o| o != t) => (
                    HopKind::Field,
                    HopEvidence::Inferred,
                    Some(format!(
                        "a field of {t}, a type the repositories given do not define"
                    )),
                ),
                (Owner::Type(t), Some(o)) if t != o => (
                    HopKind::Field,
                    HopEvidence::Inferred,
                    Some(format!(
                        "a field of {t}, another type with a field of this name"
                    )),
                ),
                _ => (HopKind::Field, HopEvidence::CodeVerified, None),
            }
        } else if is_called(n) {
            return None;
        } else {
            let note = if near {
                "a field of this name where it was written (its type is not resolved)"
            } else {
                "a field of this name (its type is not resolved)"
            };
            (HopKind::Field, HopEvidence::Inferred, Some(note.into()))
        };
        Some(self.draft(
            f,
            p.line(n),
            kind,
            ev,
            format!(".{name}"),
            note,
            Some(Item::Value {
                at: f,
                range: (n.start_byte(), n.end_byte()),
                from_call: false,
            }),
        ))
    }

    /// For a Go field read `x.F` in a function that decodes JSON into `x`: `x` and the line
    /// of the decoding (found once per function and variable).
    fn json_decoded(&mut self, f: FileRef, p: &Parsed, read: Node) -> Option<(String, u64)> {
        let (var, scope) = read_base(p, read)?;
        let key = (f, scope.start_byte(), var.clone());
        let line = match self.decoded.get(&key) {
            Some(l) => *l,
            None => {
                let l = decode_line(p, scope, &var);
                self.decoded.insert(key, l);
                l
            }
        };
        line.map(|l| (var, l))
    }

    /// Where a key sent from one place is read.
    pub fn key(&mut self, text: &str, kind: HopKind, from: Option<(FileRef, u64)>) -> Expansion {
        let mut out = Vec::new();
        let files = self.files_with(text, None);
        self.prefetch(&files);
        for f in files {
            let Some(p) = self.file(f) else { continue };
            let mut lits: Vec<Node> = Vec::new();
            for occ in syntax::occurrences(&p, text, 0, p.src.len()) {
                let mut cur = Some(occ);
                for _ in 0..3 {
                    let Some(n) = cur else { break };
                    if is_string(n.kind()) {
                        let ok = syntax::string_value(&p, n).is_some_and(|v| {
                            v == text
                                || json_tag(&v) == Some(text)
                                || v.split('=').next() == Some(text)
                        });
                        if ok
                            && from != Some((f, p.line(n)))
                            && lits.last().is_none_or(|l| l.id() != n.id())
                        {
                            lits.push(n);
                        }
                        break;
                    }
                    cur = n.parent();
                }
            }
            for n in lits {
                out.extend(self.receiver(f, &p, n, text, kind));
            }
        }
        if kind == HopKind::Flag {
            out.extend(self.go_flag_defs(text));
        }
        let unresolved = out.is_empty().then(|| self.no_receiver(text, kind, from));
        Expansion {
            drafts: out,
            unresolved,
            stopped: None,
        }
    }

    /// A flag or a variable the repositories only send (`"-ngl"` on a command line they
    /// start): each place it is sent starts the trail, leaving the repositories there.
    pub fn sent_only(&mut self, text: &str, kind: HopKind) -> Vec<Draft> {
        let mut out = Vec::new();
        for f in self.files_with(text, None) {
            let Some(p) = self.file(f) else { continue };
            for occ in syntax::occurrences(&p, text, 0, p.src.len()) {
                let lit = if is_string(occ.kind()) {
                    occ
                } else {
                    match occ.parent().filter(|x| is_string(x.kind())) {
                        Some(x) => x,
                        None => continue,
                    }
                };
                let v = syntax::string_value(&p, lit).unwrap_or_default();
                if v.split('=').next() != Some(text) || !is_sent(lit) {
                    continue;
                }
                let line = p.line(lit);
                let note = self.no_receiver(text, kind, Some((f, line)));
                out.push(self.draft(
                    f,
                    line,
                    kind,
                    HopEvidence::Unresolved,
                    text,
                    Some(note),
                    None,
                ));
            }
        }
        out
    }

    fn no_receiver(&mut self, text: &str, kind: HopKind, from: Option<(FileRef, u64)>) -> String {
        match kind {
            HopKind::Flag if is_cmake_define(text) => format!(
                "the build option {} is set for CMake (`-D`): the build files read it (CMakeLists.txt and its modules are not followed)",
                &text[2..]
            ),
            HopKind::Flag => {
                let cmd = from
                    .and_then(|(f, _)| self.file(f))
                    .and_then(|p| external_command(&p))
                    .unwrap_or_else(|| "a command".into());
                format!(
                    "no definition of the flag {text} in the repositories given: it goes to {cmd}, outside them (give its source to follow it further)"
                )
            }
            HopKind::Env => match from
                .and_then(|(f, _)| self.file(f))
                .and_then(|p| external_command(&p))
            {
                Some(cmd) => format!(
                    "nothing in the repositories given reads {text}: it is set in the environment of {cmd}, and the program started (or a runtime or library it loads) reads it"
                ),
                None => format!(
                    "nothing in the repositories given reads {text}: another program (a runtime or library outside them) reads it"
                ),
            },
            _ => format!("nothing in the repositories given reads the key {text}"),
        }
    }

    /// What a string literal equal to the key does there, when it reads the key.
    fn receiver(
        &mut self,
        f: FileRef,
        p: &Parsed,
        n: Node,
        text: &str,
        kind: HopKind,
    ) -> Vec<Draft> {
        let line = p.line(n);
        let value = |node: Node| Item::Value {
            at: f,
            range: (node.start_byte(), node.end_byte()),
            from_call: false,
        };
        let hop = |k: HopKind, note: &str, item: Option<Item>| Draft {
            at: f,
            line,
            kind: k,
            evidence: HopEvidence::Inferred,
            symbol: text.to_string(),
            note: Some(note.to_string()),
            item,
            penalty: 0,
        };
        let Some(par) = n.parent() else {
            return Vec::new();
        };
        if par.kind() == "field_declaration" {
            let Some(fname) = par
                .child_by_field_name("name")
                .map(|x| p.text(x).to_string())
            else {
                return Vec::new();
            };
            let mut d = hop(
                HopKind::Json,
                &format!("the JSON key {text} is decoded into the field {fname}"),
                Some(Item::Field {
                    name: fname.clone(),
                    lang: Lang::Go,
                    origin: Some((f.repo, self.dir(f))),
                    decls: false,
                    owner: crate::types::enclosing_type(p, par),
                }),
            );
            d.symbol = format!(".{fname}");
            return vec![d];
        }
        if matches!(
            par.kind(),
            "subscript" | "index_expression" | "subscript_argument_list"
        ) {
            let sub = if par.kind() == "subscript_argument_list" {
                par.parent().unwrap_or(par)
            } else {
                par
            };
            if is_written(sub) {
                return Vec::new();
            }
            let k = if p.text(sub).contains("environ") {
                HopKind::Env
            } else {
                kind
            };
            return vec![hop(k, "read by this key here", Some(value(sub)))];
        }
        if kind == HopKind::Flag {
            if let Some(reads) = self.argv_reads(f, p, n, text) {
                return reads;
            }
        }
        if let Some((call, idx)) = call_of(n) {
            if let Some(d) = self.call_receiver(f, p, call, idx, text, kind, &hop) {
                return d;
            }
        }
        let mut note = "the name appears here".to_string();
        if is_sent(n) {
            // A getter with a default (`Uint("OLLAMA_X", 1)`) reads the key it is given.
            let Some(cname) = self.defined_callee(f, p, n) else {
                return Vec::new();
            };
            note = format!("passed to {cname}, defined in the repositories: followed into it");
        }
        // Passed on by name (`String("OLLAMA_HOST")`): followed from the literal.
        vec![hop(
            kind,
            &note,
            Some(Item::Value {
                at: f,
                range: (n.start_byte(), n.end_byte()),
                from_call: false,
            }),
        )]
    }

    /// A key read by a call it is an argument of: `getenv`, a flag definition (Go `flag`,
    /// `argparse`, an argument table), `.get(key)`. `Some(empty)` for calls that send it.
    #[allow(clippy::too_many_arguments)]
    fn call_receiver(
        &mut self,
        f: FileRef,
        p: &Parsed,
        call: Node,
        idx: usize,
        text: &str,
        kind: HopKind,
        hop: &dyn Fn(HopKind, &str, Option<Item>) -> Draft,
    ) -> Option<Vec<Draft>> {
        let value = |node: Node| Item::Value {
            at: f,
            range: (node.start_byte(), node.end_byte()),
            from_call: false,
        };
        let callee = call.child_by_field_name("function");
        let cname = callee.map(|c| syntax::last_name(p, c)).unwrap_or("");
        let ctext = callee.map(|c| p.text(c)).unwrap_or("");
        if GETENV.contains(&cname) || (cname == "get" && ctext.contains("environ")) {
            let note = "the environment variable is read here";
            return Some(vec![hop(HopKind::Env, note, Some(value(call)))]);
        }
        if SENDERS.contains(&cname) {
            return Some(Vec::new());
        }
        if cname == "add_argument" {
            return Some(self.argparse(f, p, call, text, hop));
        }
        if crate::argv::is_go_flag_def(p, call) {
            let note = "the flag is defined here".to_string();
            return Some(vec![self.go_flag_def(f, p, call, text, note)]);
        }
        if cname == "get" && idx == 0 && kind == HopKind::Json {
            return Some(vec![hop(kind, "read by this key here", Some(value(call)))]);
        }
        self.flag_table(f, p, call, text, kind).map(|d| vec![d])
    }

    /// The name of the function a literal is an argument of, when the repositories define
    /// it (in the literal's language, reachable from its file).
    fn defined_callee(&mut self, f: FileRef, p: &Parsed, n: Node) -> Option<String> {
        let (call, _) = call_of(n)?;
        let callee = call.child_by_field_name("function")?;
        let name = syntax::last_name(p, callee).to_string();
        (!self.resolve(&name, p.lang, Some((f, p))).is_empty()).then_some(name)
    }

    fn argparse(
        &mut self,
        _f: FileRef,
        p: &Parsed,
        call: Node,
        text: &str,
        hop: &dyn Fn(HopKind, &str, Option<Item>) -> Draft,
    ) -> Vec<Draft> {
        let mut dest = None;
        let mut longest = text.to_string();
        if let Some(args) = call.child_by_field_name("arguments") {
            let mut c = args.walk();
            for a in args.named_children(&mut c) {
                if a.kind() == "keyword_argument"
                    && a.child_by_field_name("name")
                        .is_some_and(|k| p.text(k) == "dest")
                {
                    dest = a
                        .child_by_field_name("value")
                        .and_then(|v| syntax::string_value(p, v));
                } else if let Some(v) = syntax::string_value(p, a) {
                    if v.starts_with("--") && v.len() > longest.len() {
                        longest = v;
                    }
                }
            }
        }
        let dest = dest.unwrap_or_else(|| longest.trim_start_matches('-').replace('-', "_"));
        let mut d = hop(
            HopKind::Flag,
            &format!("argparse reads the flag into args.{dest}"),
            Some(Item::Field {
                name: dest.clone(),
                lang: Lang::Python,
                origin: None,
                decls: false,
                owner: None,
            }),
        );
        d.symbol = format!(".{dest}");
        vec![d]
    }

    /// A flag in an argument table whose handler is a lambda (llama.cpp's `add_opt`): the
    /// handler's last parameter receives the flag's value.
    fn flag_table(
        &mut self,
        f: FileRef,
        p: &Parsed,
        call: Node,
        text: &str,
        kind: HopKind,
    ) -> Option<Draft> {
        if kind != HopKind::Flag || p.lang != Lang::Cpp {
            return None;
        }
        let args = call.child_by_field_name("arguments")?;
        let mut c = args.walk();
        let lambda = args
            .named_children(&mut c)
            .find(|a| a.kind() == "lambda_expression")?;
        let decl = lambda.child_by_field_name("declarator")?;
        let params = decl.child_by_field_name("parameters")?;
        let last = params.named_child(params.named_child_count().checked_sub(1)?)?;
        let pname = syntax::last_name(p, last.child_by_field_name("declarator")?).to_string();
        let body = lambda.child_by_field_name("body")?;
        Some(Draft {
            at: f,
            line: p.line(call),
            kind: HopKind::Flag,
            evidence: HopEvidence::Inferred,
            symbol: text.to_string(),
            note: Some(format!("the flag's handler receives the value as {pname}")),
            item: Some(Item::Local {
                at: f,
                scope: (lambda.start_byte(), lambda.end_byte()),
                name: pname,
                after: body.start_byte().min(last.end_byte()),
                from_call: false,
            }),
            penalty: 0,
        })
    }
}

/// The call a literal is an argument of (directly, or inside a list or initializer list that
/// is one), and its argument index.
fn call_of(n: Node) -> Option<(Node, usize)> {
    let mut cur = n;
    for _ in 0..3 {
        let par = cur.parent()?;
        if par.kind() == "argument_list" {
            let call = par.parent()?;
            let mut c = par.walk();
            let idx = par
                .named_children(&mut c)
                .position(|k| k.id() == cur.id())
                .unwrap_or(0);
            return matches!(call.kind(), "call_expression" | "call").then_some((call, idx));
        }
        cur = par;
    }
    None
}

/// A key written where it is sent: followed by its value in a list, or a map/dict key.
fn is_sent(n: Node) -> bool {
    let mut t = n;
    if let Some(p) = t.parent().filter(|p| p.kind() == "literal_element") {
        t = p;
    }
    let Some(par) = t.parent() else { return false };
    matches!(par.kind(), "pair" | "keyed_element")
        || (matches!(par.kind(), "argument_list" | "literal_value" | "list")
            && t.next_named_sibling().is_some())
}

/// A CMake definition on a command line (`-DGGML_HIP`).
fn is_cmake_define(flag: &str) -> bool {
    flag.strip_prefix("-D").is_some_and(|n| {
        n.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The external command a file starts, as written (`exec.Command(exe, …)`).
pub fn external_command(p: &Parsed) -> Option<String> {
    for pat in [
        &b"exec.CommandContext("[..],
        b"exec.Command(",
        b"subprocess.",
        b"execvp(",
        b"posix_spawn",
    ] {
        if let Some(i) = memchr::memmem::find(&p.src, pat) {
            let rest = &p.src[i..p.src.len().min(i + 160)];
            let end = memchr::memchr2(b'\n', b')', rest).map_or(rest.len(), |e| e + 1);
            return Some(format!(
                "the external command started by `{}`",
                String::from_utf8_lossy(&rest[..end]).trim()
            ));
        }
    }
    None
}
