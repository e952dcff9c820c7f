#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! What `ARCHITECTURE.md` says that a machine can check: every crate of the workspace has its
//! entry, and no crate's top-level modules use each other in a cycle (a module that needs
//! another's helper takes it from a module both can use, or is its submodule) — except the
//! cycles listed in [`KNOWN`], which are still to be broken: a new cycle fails, and so does a
//! listed one that is gone (take it off the list).

/// Cycles not broken yet, as `crate: module module …` (the modules of the cycle, sorted).
const KNOWN: &[&str] = &[];

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    rocpath_testdata::repo_root()
}

fn crates() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().into_string().ok()?;
            e.path()
                .join("Cargo.toml")
                .is_file()
                .then(|| (name, e.path()))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_crate_has_its_entry() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let missing: Vec<String> = crates()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| !text.contains(&format!("**`{n}`**")))
        .collect();
    assert!(
        missing.is_empty(),
        "crates without an entry in ARCHITECTURE.md: {missing:?}"
    );
    assert!(
        text.lines().count() < 300,
        "ARCHITECTURE.md is meant to stay a short map"
    );
}

/// The top-level modules of a crate (`src/x.rs`, `src/x/mod.rs`) and the other top-level
/// modules each names as `crate::y` (in any of its files).
fn module_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            let mut all = Vec::new();
            collect_rs(&p, &mut all);
            files.insert(name, all);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "lib" && stem != "main" {
                files.entry(stem.to_string()).or_default().push(p);
            }
        }
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (m, paths) in &files {
        let mut to = BTreeSet::new();
        for p in paths {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + 7..];
                let id: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if id != *m && names.contains(&id) {
                    to.insert(id);
                }
            }
        }
        edges.insert(m.clone(), to);
    }
    edges
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_rs(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A cycle through `start`, as the module names along it.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((m, path)) = stack.pop() {
        for n in edges.get(&m).into_iter().flatten() {
            if n == start {
                return Some(path);
            }
            if seen.insert(n.clone()) {
                let mut p = path.clone();
                p.push(n.clone());
                stack.push((n.clone(), p));
            }
        }
    }
    None
}

#[test]
fn no_crate_has_a_cycle_among_its_top_level_modules() {
    let mut found = Vec::new();
    for (name, dir) in crates() {
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let edges = module_edges(&src);
        let mut reported = BTreeSet::new();
        for m in edges.keys() {
            if let Some(c) = cycle(&edges, m) {
                let key: BTreeSet<String> = c.iter().cloned().collect();
                if reported.insert(key.clone()) {
                    let sorted: Vec<String> = key.into_iter().collect();
                    found.push(format!("{name}: {}", sorted.join(" ")));
                }
            }
        }
    }
    let new: Vec<&String> = found
        .iter()
        .filter(|c| !KNOWN.contains(&c.as_str()))
        .collect();
    assert!(new.is_empty(), "new module cycles (break them):\n{new:?}");
    let gone: Vec<&&str> = KNOWN
        .iter()
        .filter(|k| !found.iter().any(|c| c == *k))
        .collect();
    assert!(
        gone.is_empty(),
        "listed cycles that are gone (take them off KNOWN): {gone:?}"
    );
}

/// File formats that are not a command's `--json` output keep their id beside their reader.
const FILE_FORMATS: &[&str] = &[
    "rocpath.case-meta/1",
    "rocpath.follow.index/",
    "rocpath.follow.memo/",
    "rocpath.ledger/1",
    "rocpath.ledger.case/1",
    "rocpath.ledger.claim/1",
    "rocpath.ledger.observation/1",
    "rocpath.ledger.question/1",
    "rocpath.study/1",
];

/// Every document schema is written once, in `rocpath-docs`: library code names no
/// `"rocpath.<name>/<version>"` of a document (tests may, to read what was printed).
#[test]
fn document_schemas_are_defined_only_in_the_documents_layer() {
    let mut found = Vec::new();
    for (name, dir) in crates() {
        if name == "rocpath-docs" {
            continue;
        }
        let mut files = Vec::new();
        collect_rs(&dir.join("src"), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (i, _) in code.match_indices("\"rocpath.") {
                let lit = &code[i + 1..];
                let Some(end) = lit.find('"') else { continue };
                let lit = &lit[..end];
                let versioned = lit
                    .rsplit_once('/')
                    .is_some_and(|(_, v)| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()));
                if versioned && !FILE_FORMATS.iter().any(|k| lit.starts_with(k)) {
                    found.push(format!("{}: {lit}", f.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "schema ids outside rocpath-docs (use rocpath_docs::schema::*): {found:#?}"
    );
    for s in rocpath_docs::schema::ALL {
        assert!(
            !FILE_FORMATS.iter().any(|k| s.id.starts_with(k)),
            "{}",
            s.id
        );
    }
}

/// The non-optional `[dependencies]` of a crate, by name.
fn dependencies(krate: &str) -> BTreeSet<String> {
    let text =
        std::fs::read_to_string(root().join("crates").join(krate).join("Cargo.toml")).unwrap();
    let mut in_deps = false;
    let mut out = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && !line.is_empty() && !line.contains("optional = true") {
            if let Some((name, _)) = line.split_once(['=', '.']) {
                out.insert(name.trim().to_string());
            }
        }
    }
    out
}

/// What ARCHITECTURE.md states of the crates every other builds on: `rocpath-evidence`
/// "depends on serde only", `rocpath-docs` "on serde, serde_json, thiserror,
/// `rocpath-evidence` and `rocpath-arch` only", and the renderers read the
/// documents layer's types instead of their producers' crates for trace, Ollama, lanes and ISA.
#[test]
fn the_foundation_crates_depend_on_what_architecture_says() {
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(dependencies("rocpath-evidence"), set(&["serde"]));
    assert_eq!(
        dependencies("rocpath-docs"),
        set(&[
            "rocpath-arch",
            "rocpath-evidence",
            "serde",
            "serde_json",
            "thiserror"
        ])
    );
    let render = dependencies("rocpath-render");
    for producer in [
        "rocpath-trace",
        "rocpath-ollama",
        "rocpath-lanes",
        "rocpath-census",
    ] {
        assert!(
            !render.contains(producer),
            "rocpath-render depends on {producer}"
        );
    }
    // The statements themselves, wherever the lines wrap.
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "depends on serde only",
        "depends on serde, serde_json, thiserror, `rocpath-evidence` and `rocpath-arch`",
    ] {
        assert!(
            text.contains(said),
            "ARCHITECTURE.md no longer says: {said}"
        );
    }
}
