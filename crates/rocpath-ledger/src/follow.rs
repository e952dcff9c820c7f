//! The reading of `rocpath.follow/1` documents (a trail of hops through source code): the
//! source lines each hop names, hashed and quoted at import like the sources of evidence,
//! and the steps in tree order for the site.
//!
//! A hop's `path` is relative to its repository (prefixed by the repository's name when a
//! trail went through several); `repos[]` gives each repository's `root` and `name`. Readers
//! are tolerant: a hop without a path or line, or a repository not listed, gives nothing.

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

fn s(v: &Value, k: &str) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
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
    let repos: Vec<(String, String)> = doc
        .get("repos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| (s(r, "name"), s(r, "root")))
        .collect();
    let mut out = Vec::new();
    let mut stack: Vec<(&Value, usize, Option<usize>)> = doc
        .get("hops")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .rev()
        .map(|h| (h, 0, None))
        .collect();
    while let Some((h, depth, parent)) = stack.pop() {
        let number = out.len() + 1;
        let path = s(h, "path");
        out.push(Step {
            depth,
            number,
            parent,
            input: input_of(&repos, &path),
            path,
            line: h.get("line").and_then(Value::as_u64).unwrap_or(0),
            commit: s(h, "commit"),
            text: s(h, "text"),
            kind: s(h, "kind"),
            evidence: s(h, "evidence"),
            symbol: s(h, "symbol"),
            note: s(h, "note"),
        });
        if let Some(kids) = h.get("children").and_then(Value::as_array) {
            for k in kids.iter().rev() {
                stack.push((k, depth + 1, Some(number)));
            }
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
        let doc = json!({
            "schema": "rocpath.follow/1",
            "repos": [{"name": "ollama", "root": "/src/ollama"}, {"name": "llama.cpp", "root": "/src/llama.cpp/"}],
            "hops": [{"path": "ollama/api/types.go", "line": 4, "kind": "origin", "evidence": "code_verified",
                      "children": [{"path": "llama.cpp/common/arg.cpp", "line": 9, "kind": "flag", "evidence": "inferred",
                                    "children": []}]},
                     {"path": "ollama/x.go", "line": 1, "kind": "origin", "children": []}]
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
        assert!(steps(&json!({"schema": "rocpath.gates/1", "hops": []})).is_empty());
    }
}
