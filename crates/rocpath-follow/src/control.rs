//! What a condition decides: the statements of the branch it guards that send a flag or a
//! variable (`if fa { params = append(params, "--flash-attn") }`), set a variable or a field,
//! or return. Each is an inferred hop: the value decides whether it happens, it does not
//! flow into it.

use crate::engine::{Draft, Engine, FileRef};
use crate::model::{HopEvidence, HopKind};
use crate::syntax::{self, Parsed};
use tree_sitter::Node;

/// Hops followed from one branch.
const MAX_CONTROLLED: usize = 8;

/// A hop a condition decides ranks as this many name matches more than its evidence says:
/// the value does not flow into it, so the trail's data flow is placed first.
const CONTROL_PENALTY: usize = 6;

/// The block a branch node guards (`if c { … }`, `if (c) { … }`, `if c: …`).
pub fn guarded<'t>(n: Node<'t>) -> Option<Node<'t>> {
    let stmt = if n.kind() == "condition_clause" {
        n.parent()?
    } else {
        n
    };
    matches!(stmt.kind(), "if_statement" | "elif_clause")
        .then(|| stmt.child_by_field_name("consequence"))
        .flatten()
}

/// A switch or a variable written as a string that is sent (an argument, an element of a
/// list), not compared: a flag with no value after it (`"--flash-attn"`; a flag followed by
/// its value gets the value from elsewhere), `"K=V"`.
fn sent_key(p: &Parsed, n: Node) -> Option<(String, HopKind)> {
    let v = syntax::string_value(p, n)?;
    let mut item = n;
    let mut up = n.parent()?;
    if up.kind() == "literal_element" {
        item = up;
        up = up.parent()?;
    }
    if v.starts_with('-') && !v.contains('=') && item.next_named_sibling().is_some() {
        return None;
    }
    if !matches!(
        up.kind(),
        "argument_list" | "literal_value" | "list" | "initializer_list"
    ) {
        return None;
    }
    if v.starts_with('-') && v.len() > 1 && !v.contains(' ') {
        let flag = v.split('=').next().unwrap_or(&v).to_string();
        return Some((flag, HopKind::Flag));
    }
    let (k, _) = v.split_once('=')?;
    let env = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    env.then(|| (k.to_string(), HopKind::Env))
}

/// The target of an assignment statement.
fn assigned<'t>(n: Node<'t>) -> Option<Node<'t>> {
    if !matches!(
        n.kind(),
        "assignment_statement" | "short_var_declaration" | "assignment_expression" | "assignment"
    ) {
        return None;
    }
    let left = n.child_by_field_name("left")?;
    if left.kind() == "expression_list" {
        left.named_child(0)
    } else {
        Some(left)
    }
}

impl Engine<'_> {
    /// The hops a condition decides (see the module), `cond` being its line.
    pub fn controlled(&mut self, at: FileRef, range: (usize, usize), cond: u64) -> Vec<Draft> {
        let Some(p) = self.file(at) else {
            return Vec::new();
        };
        let Some(block) = p
            .tree
            .root_node()
            .descendant_for_byte_range(range.0, range.1)
        else {
            return Vec::new();
        };
        // Sent keys first: `params = append(params, "--flash-attn")` decides the flag, not
        // the whole list of parameters.
        let keys = self.collect(&p, block, &|p, n| sent_key(p, n).is_some());
        let mut found = keys.clone();
        let other = self.collect(&p, block, &|_, n| {
            assigned(n).is_some() || n.kind() == "return_statement"
        });
        for n in other {
            let holds_key = keys
                .iter()
                .any(|k| n.start_byte() <= k.start_byte() && k.end_byte() <= n.end_byte());
            if !holds_key && found.len() < MAX_CONTROLLED {
                found.push(n);
            }
        }
        found.truncate(MAX_CONTROLLED);
        let note = format!("happens when the condition at line {cond} decides so");
        let mut out = Vec::new();
        for n in found {
            let mut d = self.controlled_hop(at, &p, n);
            for x in &mut d {
                x.evidence = HopEvidence::Inferred;
                x.penalty = CONTROL_PENALTY;
                x.note = Some(match &x.note {
                    Some(old) => format!("{note}; {old}"),
                    None => note.clone(),
                });
            }
            out.extend(d);
        }
        out
    }

    /// The nodes of `block` that `hit` picks (not inside nested functions, nor inside a node
    /// picked), at most [`MAX_CONTROLLED`].
    fn collect<'t>(
        &self,
        p: &Parsed,
        block: Node<'t>,
        hit: &dyn Fn(&Parsed, Node) -> bool,
    ) -> Vec<Node<'t>> {
        let mut found: Vec<Node<'t>> = Vec::new();
        syntax::each_node(block, &mut |n| {
            if found.len() >= MAX_CONTROLLED || syntax::is_function(p.lang, n.kind()) {
                return false;
            }
            if hit(p, n) {
                found.push(n);
                return false;
            }
            true
        });
        found
    }

    fn controlled_hop(&mut self, at: FileRef, p: &Parsed, n: Node) -> Vec<Draft> {
        if let Some((key, kind)) = sent_key(p, n) {
            return vec![self.key_draft(at, p, n, key, kind)];
        }
        if let Some(t) = assigned(n) {
            return self.land(at, p, t, HopKind::Assign);
        }
        self.returned(at, p, n)
    }
}
