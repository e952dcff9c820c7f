//! Calls through a field that holds a function (`s.loadFn(req, …)` after
//! `sched.loadFn = sched.load`, or `Scheduler{loadFn: load}`): the functions assigned to the
//! field are found where it is written, and the call's argument goes to their parameters.

use crate::engine::{Draft, Engine, FileRef, Item, Param};
use crate::model::{HopEvidence, HopKind};
use crate::syntax::{self, Parsed};
use tree_sitter::Node;

/// How many functions assigned to one field are followed.
const MAX_TARGETS: usize = 4;

/// The value written to the field `name` at an occurrence of the name: `x.name = v`,
/// `name: v` in a Go composite literal.
fn assigned_value(occ: Node) -> Option<Node> {
    let mut par = occ.parent()?;
    if par.kind() == "literal_element" {
        // The key of a keyed element: `Scheduler{newServerFn: llm.NewLlamaServer}`.
        par = par.parent()?;
    }
    match par.kind() {
        "keyed_element" => {
            let key = par.named_child(0)?;
            let key_id = if key.kind() == "literal_element" {
                key.named_child(0)?
            } else {
                key
            };
            (key_id.id() == occ.id() || key.id() == occ.id())
                .then(|| par.named_child(1))
                .flatten()
                .map(|v| {
                    if v.kind() == "literal_element" {
                        v.named_child(0).unwrap_or(v)
                    } else {
                        v
                    }
                })
        }
        "selector_expression" | "field_expression" => {
            let mut target = par;
            if let Some(l) = par.parent().filter(|l| l.kind() == "expression_list") {
                target = l;
            }
            let assign = target.parent()?;
            let is_left = assign
                .child_by_field_name("left")
                .is_some_and(|l| l.id() == target.id());
            if !is_left {
                return None;
            }
            let right = assign.child_by_field_name("right")?;
            if right.kind() == "expression_list" {
                right.named_child(0)
            } else {
                Some(right)
            }
        }
        _ => None,
    }
}

impl Engine<'_> {
    /// The parameters receiving argument `idx` of a call through the function-valued field
    /// `name`, with where each function was assigned to it.
    fn field_targets(&mut self, name: &str, p0: &Parsed, idx: usize) -> Vec<(Param, String)> {
        let mut out = Vec::new();
        for f in self.files_with(name, Some(p0.lang)) {
            let Some(p) = self.file(f) else { continue };
            for occ in syntax::occurrences(&p, name, 0, p.src.len()) {
                let Some(v) = assigned_value(occ) else {
                    continue;
                };
                if !matches!(
                    v.kind(),
                    "identifier"
                        | "selector_expression"
                        | "field_expression"
                        | "qualified_identifier"
                ) {
                    continue;
                }
                let fname = syntax::last_name(&p, v).to_string();
                let at = format!("{}:{}", self.path(f), p.line(occ));
                for (df, d) in self.resolve(&fname, p.lang, Some((f, &p))) {
                    if let Some((pn, byte)) = d.params.get(idx).cloned() {
                        let param = Param {
                            at: df,
                            line: d.line,
                            name: pn,
                            byte,
                            scope: d.scope,
                        };
                        out.push((param, format!("{fname} (assigned at {at})")));
                    }
                }
                if out.len() >= MAX_TARGETS {
                    return out;
                }
            }
        }
        out
    }

    /// A value passed to a call through a field holding a function: the hop into the
    /// functions assigned to the field (matched by the field's name).
    pub fn func_field_call(
        &mut self,
        at: FileRef,
        p: &Parsed,
        callee: Node,
        arg: Node,
        idx: usize,
    ) -> Option<Draft> {
        if !matches!(callee.kind(), "selector_expression" | "field_expression") {
            return None;
        }
        let name = syntax::last_name(p, callee).to_string();
        let targets = self.field_targets(&name, p, idx);
        if targets.is_empty() {
            return None;
        }
        let held: Vec<String> = targets.iter().map(|(_, w)| w.clone()).collect();
        let params = targets.into_iter().map(|(prm, _)| prm).collect();
        Some(Draft {
            at,
            line: p.line(arg),
            kind: HopKind::CallArg,
            evidence: HopEvidence::Inferred,
            symbol: name.clone(),
            note: Some(format!(
                "{} holds a function: {}",
                p.text(callee),
                held.join(", ")
            )),
            item: Some(Item::Params(params)),
            penalty: 0,
        })
    }
}
