//! The reading of `rocpath.follow/1` documents (a trail of hops through source code): the
//! source lines each hop names, hashed and quoted at import like the sources of evidence,
//! and the steps in tree order for the site.
//!
//! A hop's `path` is relative to its repository (prefixed by the repository's name when a
//! trail went through several); `repos[]` gives each repository's `root` and `name`. The
//! document is read with its own types (`rocpath_docs::follow`); one that does not read as a
//! trail gives no steps (an older version is brought to this one by the ledger's migrations
//! before it is read).

use rocpath_docs::follow::{FollowDoc, Hop};
use serde::Deserialize;
use serde_json::Value;

/// One hop of a trail, in tree order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// Hops above it (0 for a start).
    pub depth: usize,
    /// Its number in tree order (1-based).
    pub number: usize,
    /// The number of the hop it comes from.
    pub parent: Option<usize>,
    /// The path as the document gives it.
    pub path: String,
    /// The file as read at import (repository root joined with the path).
    pub input: String,
    /// 1-based line.
    pub line: u64,
    /// The repository's commit.
    pub commit: String,
    /// The quoted line.
    pub text: String,
    /// `assign`, `call-arg`, `param`, `return`, `field`, `json`, `flag`, `env`, `cgo`, `branch`,
    /// `origin`.
    pub kind: String,
    /// `code_verified`, `inferred` or `unresolved`.
    pub evidence: String,
    /// What the value is there.
    pub symbol: String,
    /// Why, when inferred or unresolved; limits reached.
    pub note: String,
}

/// Whether a document is a trail.
pub fn is_trail(doc: &Value) -> bool {
    doc.get("schema").and_then(Value::as_str) == Some(rocpath_docs::schema::FOLLOW.id)
}

/// Where a hop's file is: its repository's root joined with the path (the repository's
/// name stripped when the trail went through several).
pub(crate) fn input_of(repos: &[(String, String)], path: &str) -> String {
    if let [(_, root)] = repos {
        return format!("{}/{path}", root.trim_end_matches('/'));
    }
    for (name, root) in repos {
        if let Some(rest) = path.strip_prefix(&format!("{name}/")) {
            return format!("{}/{rest}", root.trim_end_matches('/'));
        }
    }
    path.to_string()
}

/// The hops of a trail document in tree order (nothing for other documents).
pub fn steps(doc: &Value) -> Vec<Step> {
    if !is_trail(doc) {
        return Vec::new();
    }
    let Ok(trail) = FollowDoc::deserialize(doc) else {
        return Vec::new();
    };
    let repos: Vec<(String, String)> = trail
        .repos
        .iter()
        .map(|r| (r.name.clone(), r.root.clone()))
        .collect();
    let mut out = Vec::new();
    let mut stack: Vec<(&Hop, usize, Option<usize>)> =
        trail.hops.iter().rev().map(|h| (h, 0, None)).collect();
    while let Some((h, depth, parent)) = stack.pop() {
        let number = out.len() + 1;
        out.push(Step {
            depth,
            number,
            parent,
            input: input_of(&repos, &h.path),
            path: h.path.clone(),
            line: h.line,
            commit: h.commit.clone().unwrap_or_default(),
            text: h.text.clone(),
            kind: h.kind.as_str().to_string(),
            evidence: h.evidence.as_str().to_string(),
            symbol: h.symbol.clone(),
            note: h.note.clone().unwrap_or_default(),
        });
        for k in h.children.iter().rev() {
            stack.push((k, depth + 1, Some(number)));
        }
    }
    out
}

/// The source files and lines a trail names, for hashing and quoting at import.
pub fn hop_locations(doc: &Value) -> Vec<(String, u64)> {
    steps(doc)
        .into_iter()
        .filter(|s| !s.path.is_empty() && s.line > 0)
        .map(|s| (s.input, s.line))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_are_in_tree_order_with_inputs_under_their_repository() {
        let hop = |path: &str, line: u64, kind: &str, children: Vec<Value>| {
            json!({"path": path, "line": line, "commit": null, "text": "", "kind": kind,
                   "evidence": "code_verified", "symbol": "num_gpu", "children": children})
        };
        let repo = |name: &str, root: &str| json!({"name": name, "root": root, "commit": null, "files": 1, "cached": false});
        let doc = json!({
            "schema": "rocpath.follow/1", "spec": "num_gpu", "depth": 24, "limit": 400,
            "matched": 2, "truncated": false,
            "repos": [repo("ollama", "/src/ollama"), repo("llama.cpp", "/src/llama.cpp/")],
            "hops": [hop("ollama/api/types.go", 4, "origin",
                         vec![hop("llama.cpp/common/arg.cpp", 9, "flag", vec![])]),
                     hop("ollama/x.go", 1, "origin", vec![])]
        });
        let st = steps(&doc);
        let got: Vec<(usize, usize, Option<usize>, &str)> = st
            .iter()
            .map(|s| (s.number, s.depth, s.parent, s.input.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (1, 0, None, "/src/ollama/api/types.go"),
                (2, 1, Some(1), "/src/llama.cpp/common/arg.cpp"),
                (3, 0, None, "/src/ollama/x.go"),
            ]
        );
        assert_eq!(hop_locations(&doc).len(), 3);
        assert_eq!(st[1].kind, "flag");
        assert!(steps(&json!({"schema": "rocpath.gates/1", "hops": []})).is_empty());
        // A document that does not read as a trail gives no steps, not a partial reading.
        assert!(steps(&json!({"schema": "rocpath.follow/1", "hops": [{"line": "x"}]})).is_empty());
    }
}
