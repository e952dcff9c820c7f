#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The generated site: hostile log lines and statements end up escaped, every internal link
//! resolves to a file and an anchor, nothing is loaded from outside, missing translations are
//! marked, and the output depends only on the ledger.

use rocpath_evidence::{Class, Proof};
use rocpath_ledger::model::*;
use rocpath_ledger::store::Ledger;
use rocpath_ledger::{add_claim, import::import_file, parse_support_ref, starter_meta};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const XSS_LOG: &str = "MIOpen(HIP): Info [GetSolutions] <script>alert(1)</script>\n\
MIOpen Error: \"><img src=x onerror=alert(2)> & 'quoted' </code></div>\n\
rc = 0x7\n";

/// A ledger with a case document whose evidence points at a hostile log line, and claims
/// whose text is hostile too.
fn hostile_ledger(dir: &Path) -> Ledger {
    let ledger = Ledger::init(
        &dir.join("ledger"),
        &starter_meta(Text::new("台帳 <i>", "Ledger <i>")),
    )
    .unwrap();
    std::fs::write(dir.join("case.log"), XSS_LOG).unwrap();
    let ev = |line: u64| {
        json!({"class": "confirmed", "kind": "runtime_verified", "rule": "case.error",
                                "sources": [{"path": "case.log", "line": line}]})
    };
    let doc = json!({
        "schema": "rocpath.case/1",
        "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json case read <b>x</b>",
                     "time": "2026-11-20T00:00:00Z", "host": "h<script>", "schema": "rocpath.case/1"},
        "case": "forced <script>alert(3)</script>",
        "device": {"arch": "gfx900:xnack-"},
        "forced": {"solver": "ConvMlirIgemmFwd<script>"},
        "outcome": {"kind": "build_failure", "sub": "miir"},
        "exit": {"code": 7},
        "errors": [{"message": "MIIR_INVALID_PARAM <script>alert(4)</script>", "evidence": ev(2)}],
        "selected": {"solver": "x", "evidence": ev(1)}
    });
    let f = dir.join("case.json");
    std::fs::write(&f, serde_json::to_vec(&doc).unwrap()).unwrap();
    let g = ledger.lock("test").unwrap();
    import_file(&g, &ledger, &f, Some("case1"), dir).unwrap();
    let c = Claim {
        id: "c1".into(),
        statement: Text::new(
            "",
            "Build fails with <script>alert(5)</script> & \"quotes\"",
        ),
        class: Some(Class::Confirmed),
        kind: Some(Proof::RuntimeVerified),
        world: "gfx900\"><script>alert(6)</script>".into(),
        floor: Some(Floor::MathLibrary),
        layer: Some(Layer::Selection),
        support: vec![parse_support_ref("case1#/errors/0").unwrap()],
        ..Claim::default()
    };
    add_claim(&g, &ledger, c, "2026-11-20").unwrap();
    let mut case = ledger
        .load()
        .unwrap()
        .cases
        .into_iter()
        .find(|c| c.id == "case1")
        .unwrap();
    case.claims.push("c1".into());
    g.write_case(&case).unwrap();
    g.write_question(&Question {
        schema: QUESTION_SCHEMA.into(),
        id: "q1".into(),
        text: Text::new("なぜ <u>?", ""),
        world: "gfx900".into(),
        ..Question::default()
    })
    .unwrap();
    ledger
}

fn build(ledger: &Ledger, out: &Path) -> rocpath_site::Report {
    let loaded = ledger.load().unwrap();
    rocpath_site::build(
        &loaded,
        out,
        &rocpath_site::Options {
            version: "test".into(),
        },
    )
    .unwrap()
}

fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn log_lines_and_statements_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = hostile_ledger(dir.path());
    let out = dir.path().join("site");
    build(&ledger, &out);
    let case = std::fs::read_to_string(out.join("cases/case1.html")).unwrap();
    // The raw lines are on the case page, escaped.
    assert!(
        case.contains(
            "MIOpen(HIP): Info [GetSolutions] &lt;script&gt;alert(1)&lt;&#x2f;script&gt;"
        ),
        "{case}"
    );
    assert!(
        case.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt; &amp; &#x27;quoted&#x27;"),
        "{case}"
    );
    for (path, bytes) in files(&out) {
        let text = String::from_utf8_lossy(&bytes);
        if path.extension().is_some_and(|e| e == "html") {
            for bad in [
                "<script>alert",
                "<img src=x",
                "<b>x</b>",
                "<i>",
                "<u>",
                "h<script>",
            ] {
                assert!(!text.contains(bad), "{} contains {bad:?}", path.display());
            }
            // The only scripts are rocpath's own.
            for (i, _) in text.match_indices("<script") {
                let tag = &text[i..text[i..].find('>').map_or(text.len(), |j| i + j)];
                assert!(
                    tag.contains("assets/site.js") || tag.contains("assets/search-index.js"),
                    "{}: {tag}",
                    path.display()
                );
            }
        }
    }
    // The world id with markup is a file name made safe and escaped where shown.
    let claim = std::fs::read_to_string(out.join("claims/c1.html")).unwrap();
    assert!(
        claim.contains("gfx900&quot;&gt;&lt;script&gt;alert(6)"),
        "{claim}"
    );
    assert!(claim.contains("Build fails with &lt;script&gt;alert(5)"));
    // Search results are built with textContent, never parsed as HTML.
    let js = std::fs::read_to_string(out.join("assets/site.js")).unwrap();
    assert!(
        !js.contains("innerHTML")
            && !js.contains("insertAdjacentHTML")
            && !js.contains("document.write")
    );
    assert!(js.contains("textContent"));
}

#[test]
fn templates_never_mark_text_safe() {
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("templates")).unwrap()
    {
        let p = entry.unwrap().path();
        let t = std::fs::read_to_string(&p).unwrap();
        for bad in ["|safe", "| safe", "autoescape false", "markup_safe"] {
            assert!(!t.contains(bad), "{}: {bad}", p.display());
        }
    }
}

#[test]
fn missing_translations_are_marked() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = hostile_ledger(dir.path());
    let out = dir.path().join("site");
    build(&ledger, &out);
    let claim = std::fs::read_to_string(out.join("claims/c1.html")).unwrap();
    // The claim has English only: the Japanese side shows the English with a marker.
    assert!(
        claim.contains("<span class=\"ja\" lang=\"ja\">Build fails with"),
        "{claim}"
    );
    assert!(claim.contains("class=\"tr-missing\""));
    let matrix = std::fs::read_to_string(out.join("matrix.html")).unwrap();
    assert!(matrix.contains("translation missing"));
}

#[test]
fn every_internal_link_resolves_and_nothing_is_external() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = hostile_ledger(dir.path());
    let out = dir.path().join("site");
    let report = build(&ledger, &out);
    let all = files(&out);
    assert_eq!(report.files, all.len());
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let attr = |text: &str, name: &str| -> Vec<String> {
        let pat = format!("{name}=\"");
        text.match_indices(&pat)
            .map(|(i, _)| {
                let s = &text[i + pat.len()..];
                unescape(&s[..s.find('"').unwrap()])
            })
            .collect()
    };
    for (p, b) in &all {
        if p.extension().is_some_and(|e| e == "html") {
            ids.insert(
                p.clone(),
                attr(&String::from_utf8_lossy(b), " id")
                    .into_iter()
                    .collect(),
            );
        }
    }
    let mut checked = 0;
    for (p, b) in &all {
        if p.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let text = String::from_utf8_lossy(b);
        for name in [" href", " src"] {
            for link in attr(&text, name) {
                if link == "data:," {
                    // The inline empty favicon: no request at all.
                    continue;
                }
                assert!(
                    !link.contains("://") && !link.starts_with("//") && !link.starts_with('/'),
                    "{}: {link}",
                    p.display()
                );
                let (file, frag) = link.split_once('#').unwrap_or((&link, ""));
                let target = if file.is_empty() {
                    p.clone()
                } else {
                    normalize(&p.parent().unwrap().join(file))
                };
                assert!(
                    all.contains_key(&target),
                    "{}: {link} → {} missing",
                    p.display(),
                    target.display()
                );
                if !frag.is_empty() {
                    assert!(
                        ids.get(&target).is_some_and(|s| s.contains(frag)),
                        "{}: #{frag} not in {}",
                        p.display(),
                        target.display()
                    );
                }
                checked += 1;
            }
        }
        assert!(
            !text.contains("@import") && !text.contains("url(http"),
            "{}",
            p.display()
        );
    }
    assert!(checked > 100, "{checked}");
    let css = std::fs::read_to_string(out.join("assets/site.css")).unwrap();
    assert!(!css.contains("http") && !css.contains("@font-face") && !css.contains("url("));
}

/// Decodes the entities minijinja's HTML escaping produces.
fn unescape(s: &str) -> String {
    s.replace("&#x2f;", "/")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn output_depends_only_on_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = hostile_ledger(dir.path());
    build(&ledger, &dir.path().join("a"));
    build(&ledger, &dir.path().join("b"));
    let (a, b) = (files(&dir.path().join("a")), files(&dir.path().join("b")));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(b[k] == *v, "{} differs between two builds", k.display());
    }
    // A rebuild into a previous site replaces it; another folder is refused.
    build(&ledger, &dir.path().join("a"));
    std::fs::create_dir_all(dir.path().join("busy")).unwrap();
    std::fs::write(dir.path().join("busy/notes.txt"), "mine").unwrap();
    let loaded = ledger.load().unwrap();
    let e = rocpath_site::build(
        &loaded,
        &dir.path().join("busy"),
        &rocpath_site::Options {
            version: "t".into(),
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("not a rocpath site"));
    assert!(dir.path().join("busy/notes.txt").exists());
}

#[test]
fn taxonomy_and_pages_reflect_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = hostile_ledger(dir.path());
    let out = dir.path().join("site");
    build(&ledger, &out);
    let raw_tax = std::fs::read_to_string(out.join("taxonomy.html")).unwrap();
    assert!(raw_tax.contains("MIIR_INVALID_PARAM &lt;script&gt;"));
    let tax = unescape(&raw_tax);
    assert!(
        tax.contains("Build / tuning failure") && tax.contains("<code>miir</code>"),
        "{tax}"
    );
    assert!(tax.contains("href=\"cases/case1.html\""));
    let index = unescape(&std::fs::read_to_string(out.join("index.html")).unwrap());
    assert!(index.contains("honestly recording what is unresolved is the quality standard"));
    assert!(index.contains("未確定を正直に記録することがこのサイトの品質基準"));
    for class in [
        "badge-confirmed",
        "badge-inferred",
        "badge-unresolved",
        "badge-limited",
        "callout-unresolved",
    ] {
        assert!(index.contains(class), "{class}");
    }
    let case = unescape(&std::fs::read_to_string(out.join("cases/case1.html")).unwrap());
    for h in [
        "観測済み事実",
        "Interpretation",
        "Open Question / Limitation",
        "callout-confirmed",
    ] {
        assert!(case.contains(h), "{h}");
    }
    let stack = unescape(&std::fs::read_to_string(out.join("stack.html")).unwrap());
    assert!(stack.contains("id=\"floor-4\"") && stack.contains("claims/c1.html"));
    let search = std::fs::read_to_string(out.join("assets/search-index.js")).unwrap();
    assert!(search.starts_with("window.ROCPATH_SEARCH = [") && search.contains("\"id\":\"c1\""));
}

/// A document imported from a folder beside the ledger (its relative inputs relative to
/// another one): the published data names the file, never the ledger's paths to it.
#[test]
fn published_data_names_no_folder_outside_the_site() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::init(
        &dir.path().join("work/ledger"),
        &starter_meta(Text::new("t", "t")),
    )
    .unwrap();
    let docs = dir.path().join("recordings/run1");
    std::fs::create_dir_all(&docs).unwrap();
    let doc = json!({
        "schema": "rocpath.ollama/2",
        "observed": {"tool": "rocpath", "version": "0.1.0", "command": "rocpath --json ollama read x",
                     "time": "2026-11-20T00:00:00Z", "host": "h", "schema": "rocpath.ollama/2"},
        "runs": [], "notes": [], "errors": []
    });
    let f = docs.join("ollama.json");
    std::fs::write(&f, serde_json::to_vec(&doc).unwrap()).unwrap();
    let g = ledger.lock("test").unwrap();
    import_file(&g, &ledger, &f, Some("run1"), &docs).unwrap();
    drop(g);
    let out = dir.path().join("site");
    build(&ledger, &out);
    let data = std::fs::read_to_string(out.join("data/run1.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&data).unwrap();
    assert_eq!(v["imported"]["file"], "ollama.json", "{data}");
    assert!(v["imported"].get("base").is_none(), "{data}");
    assert!(!data.contains("../"), "{data}");
    let page = std::fs::read_to_string(out.join("observations/run1.html")).unwrap();
    assert!(
        !page.contains("recordings/run1"),
        "the page names the import folder"
    );
}

/// A case page's raw lines start at the lines its claims rest on (the error the claim
/// cites), the others folded below them.
#[test]
fn a_case_page_starts_its_raw_lines_at_the_deciding_ones() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = hostile_ledger(dir.path());
    let out = dir.path().join("site");
    build(&ledger, &out);
    let page = std::fs::read_dir(out.join("cases"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .find(|t| t.contains("raw-line"))
        .expect("a case page with raw lines");
    let raw = &page[page.find("class=\"raw\"").unwrap()..];
    let first = raw.find("case.log:2").expect("the cited error line");
    let fold = raw.find("raw-more").expect("the other lines folded");
    let other = raw.find("case.log:1").expect("the line no claim cites");
    assert!(first < fold && fold < other, "{raw}");
}
