#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! `RULES.md` lists exactly the evidence rule ids the sources use: an id written in a crate's
//! `src/` (outside its test module) must be listed, and a listed id must be used. Ids built at
//! run time (`format!("case.outcome.{}", …)`) match the listed ids of that family.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const FAMILIES: &[&str] = &[
    "inventory",
    "check",
    "target_id",
    "isa",
    "case",
    "explain",
    "trace",
    "ollama",
    "strace",
    "lanes",
    "gates",
    "provenance",
    "ledger",
    "site",
    "survey",
    "loads",
    "derive",
];
/// String literals of those families that name files, not rules.
const FILE_EXTENSIONS: &[&str] = &["json", "html", "toml", "md", "txt", "tsv", "log", "service"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `{…}` and `<…>` placeholders both become `<>`.
fn normalise(id: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in id.chars() {
        match c {
            '{' | '<' => {
                if depth == 0 {
                    out.push_str("<>");
                }
                depth += 1;
            }
            '}' | '>' => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn is_id(s: &str) -> bool {
    let Some((family, rest)) = s.split_once('.') else {
        return false;
    };
    FAMILIES.contains(&family)
        && !rest.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.<>".contains(c))
        && !s.ends_with('.')
        && !FILE_EXTENSIONS
            .iter()
            .any(|x| s.ends_with(&format!(".{x}")))
}

fn ids_in_code() -> BTreeSet<String> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        // The documents layer's literals are schema names (`explain.gemm`), not rule ids.
        if e.file_name() == "rocpath-docs" {
            continue;
        }
        let src = e.path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    let mut ids = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, _) in code.match_indices('"') {
            let rest = &code[i + 1..];
            let Some(end) = rest.find('"') else { continue };
            let lit = normalise(&rest[..end]);
            if is_id(&lit) {
                ids.insert(lit);
            }
        }
    }
    ids
}

fn ids_in_doc() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(root().join("RULES.md")).unwrap();
    doc.split('`')
        .skip(1)
        .step_by(2)
        .map(normalise)
        .filter(|s| is_id(s))
        .collect()
}

/// Whether `pattern` (with `<>` placeholders, each one or more id characters) matches `id`.
fn matches(pattern: &str, id: &str) -> bool {
    match pattern.split_once("<>") {
        None => pattern == id,
        Some((head, tail)) => {
            let Some(rest) = id.strip_prefix(head) else {
                return false;
            };
            (1..=rest.len()).any(|n| rest.is_char_boundary(n) && matches(tail, &rest[n..]))
        }
    }
}

#[test]
fn every_rule_in_the_code_is_listed_and_every_listed_rule_is_used() {
    let code = ids_in_code();
    let doc = ids_in_doc();
    assert!(
        code.len() > 100,
        "the scan found the rule ids ({} of them)",
        code.len()
    );
    let unlisted: Vec<&String> = code
        .iter()
        .filter(|c| !doc.iter().any(|d| d == *c || matches(c, d)))
        .collect();
    let unused: Vec<&String> = doc
        .iter()
        .filter(|d| !code.iter().any(|c| c == *d || matches(c, d)))
        .collect();
    assert!(
        unlisted.is_empty(),
        "rule ids used in the code but missing from RULES.md: {unlisted:?}"
    );
    assert!(
        unused.is_empty(),
        "rule ids listed in RULES.md but used nowhere: {unused:?}"
    );
}

#[test]
fn placeholders_match_whole_id_parts() {
    assert!(matches("case.outcome.<>", "case.outcome.natural"));
    assert!(!matches("case.outcome.<>", "case.outcome."));
    assert!(matches("case.<>.kernel", "case.tensile.kernel"));
    assert!(!matches("case.db.hit", "case.db.miss"));
    assert_eq!(normalise("case.fact.{w}"), "case.fact.<>");
    assert!(!is_id("case.json"));
}
