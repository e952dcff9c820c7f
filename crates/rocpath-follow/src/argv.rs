//! Where a program reads a command-line flag it is given: a Go `flag` definition (written
//! without dashes, `flag.Int("n-gpu-layers", …)`; `-x` and `--x` both set it), and an argv
//! table in C, C++ or Python (`arg == "--n-gpu-layers"` → `std::stoi(argv[++i])`).

use crate::engine::{Draft, Engine, FileRef, Item};
use crate::index::Lang;
use crate::model::{HopEvidence, HopKind};
use crate::syntax::{self, Parsed};
use tree_sitter::Node;

/// The Go `flag` functions that define a flag (and their `…Var` forms).
const GO_FLAGS: &[&str] = &[
    "Int", "Int64", "Uint", "Uint64", "String", "Bool", "Float64", "Duration", "Func",
];

/// Whether a call defines a Go flag (`flag.Int`, `fs.StringVar`, `flagSet.Bool`).
pub fn is_go_flag_def(p: &Parsed, call: Node) -> bool {
    let Some(callee) = call.child_by_field_name("function") else {
        return false;
    };
    let name = syntax::last_name(p, callee);
    let recv = callee
        .child_by_field_name("operand")
        .map(|o| p.text(o).to_ascii_lowercase())
        .unwrap_or_default();
    p.lang == Lang::Go
        && GO_FLAGS.contains(&name.trim_end_matches("Var"))
        && (recv.contains("flag") || recv == "fs")
}

/// The value a Go flag definition gives the program: the call's result (a pointer), or for
/// `IntVar(&x, …)` the variable it writes.
fn go_flag_target(eng: &mut Engine, f: FileRef, p: &Parsed, call: Node) -> (Option<Item>, String) {
    let callee = call.child_by_field_name("function");
    let var = callee.is_some_and(|c| syntax::last_name(p, c).ends_with("Var"));
    if !var {
        let item = Item::Value {
            at: f,
            range: (call.start_byte(), call.end_byte()),
            from_call: false,
        };
        return (Some(item), String::new());
    }
    let Some(target) = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
    else {
        return (None, String::new());
    };
    match eng.land(f, p, target, HopKind::Flag).into_iter().next() {
        Some(d) => (d.item, d.symbol),
        None => (None, String::new()),
    }
}

/// Whether a node is an argv read: `argv[i]`, `argv[++i]`, `sys.argv[i + 1]`.
fn is_argv_read(p: &Parsed, n: Node) -> bool {
    if !matches!(n.kind(), "subscript_expression" | "subscript") {
        return false;
    }
    let base = n
        .child_by_field_name("argument")
        .or_else(|| n.child_by_field_name("value"))
        .or_else(|| n.named_child(0));
    base.is_some_and(|b| p.text(b).ends_with("argv"))
}

/// The `if` whose condition compares something with the literal `lit` (`arg == "-ngl"`,
/// `a == "-x" || a == "--y"`, `strcmp(arg, "-ngl") == 0`).
fn comparing_if<'t>(lit: Node<'t>) -> Option<Node<'t>> {
    let par = lit.parent()?;
    let compared = match par.kind() {
        "binary_expression" | "comparison_operator" => true,
        "argument_list" => par
            .parent()
            .and_then(|c| c.parent())
            .is_some_and(|b| b.kind() == "binary_expression"),
        _ => false,
    };
    if !compared {
        return None;
    }
    let mut cur = par;
    for _ in 0..16 {
        let up = cur.parent()?;
        match up.kind() {
            "if_statement" => return Some(up),
            "binary_expression"
            | "comparison_operator"
            | "boolean_operator"
            | "parenthesized_expression"
            | "condition_clause"
            | "argument_list"
            | "call_expression" => cur = up,
            _ => return None,
        }
    }
    None
}

impl Engine<'_> {
    /// Go flag definitions of `flag` written without its dashes (`"n-gpu-layers"` for
    /// `--n-gpu-layers` or `-n-gpu-layers`), in the Go files that hold its words.
    pub fn go_flag_defs(&mut self, flag: &str) -> Vec<Draft> {
        let bare = flag.trim_start_matches('-');
        if bare.is_empty() || bare == flag {
            return Vec::new();
        }
        let mut files: Option<Vec<FileRef>> = None;
        for word in bare.split('-').filter(|w| !w.is_empty()) {
            let with = self.files_with(word, Some(Lang::Go));
            files = Some(match files {
                None => with,
                Some(prev) => prev.into_iter().filter(|f| with.contains(f)).collect(),
            });
        }
        let files = files.unwrap_or_default();
        self.prefetch(&files);
        let quoted = format!("\"{bare}\"");
        let mut out = Vec::new();
        for f in files {
            let Some(p) = self.file(f) else { continue };
            for occ in syntax::occurrences(&p, &quoted, 0, p.src.len()) {
                out.extend(self.go_flag_def_at(f, &p, occ, flag));
            }
        }
        out
    }

    fn go_flag_def_at(&mut self, f: FileRef, p: &Parsed, occ: Node, flag: &str) -> Option<Draft> {
        let lit = if occ.kind() == "interpreted_string_literal" {
            occ
        } else {
            occ.parent()?
        };
        let call = lit.parent()?.parent()?;
        if call.kind() != "call_expression" || !is_go_flag_def(p, call) {
            return None;
        }
        let note = format!(
            "the Go flag {} is defined here (Go flags are written without dashes)",
            p.text(lit)
        );
        Some(self.go_flag_def(f, p, call, flag, note))
    }

    /// The hop onto a Go flag definition: what the program receives the flag's value in.
    pub fn go_flag_def(
        &mut self,
        f: FileRef,
        p: &Parsed,
        call: Node,
        flag: &str,
        note: String,
    ) -> Draft {
        let (item, symbol) = go_flag_target(self, f, p, call);
        Draft {
            at: f,
            line: p.line(call),
            kind: HopKind::Flag,
            evidence: HopEvidence::Inferred,
            symbol: if symbol.is_empty() {
                flag.to_string()
            } else {
                symbol
            },
            note: Some(note),
            item,
            penalty: 0,
        }
    }

    /// An argv table: the literal `lit` is compared with an argument in an `if`, and the
    /// branch reads the flag's value from `argv`. One hop per read.
    pub fn argv_reads(&self, f: FileRef, p: &Parsed, lit: Node, flag: &str) -> Option<Vec<Draft>> {
        if p.lang == Lang::Go {
            return None;
        }
        let branch = comparing_if(lit)?;
        let body = branch.child_by_field_name("consequence")?;
        let mut reads = Vec::new();
        syntax::each_node(body, &mut |n| {
            if is_argv_read(p, n) {
                reads.push(n);
                return false;
            }
            !matches!(n.kind(), "lambda_expression" | "function_definition")
        });
        if reads.is_empty() {
            return None;
        }
        let cmp = p.line(lit);
        Some(
            reads
                .into_iter()
                .map(|r| Draft {
                    at: f,
                    line: p.line(r),
                    kind: HopKind::Flag,
                    evidence: HopEvidence::Inferred,
                    symbol: flag.to_string(),
                    note: Some(format!(
                        "the argument is compared with {flag} at line {cmp}: the flag's value is read from {}",
                        p.text(r)
                    )),
                    item: Some(Item::Value {
                        at: f,
                        range: (r.start_byte(), r.end_byte()),
                        from_call: false,
                    }),
                    penalty: 0,
                })
                .collect(),
        )
    }
}
