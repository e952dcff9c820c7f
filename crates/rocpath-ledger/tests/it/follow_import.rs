#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A `rocpath.follow/1` trail imported into a ledger: the source files its hops name are
//! hashed and their lines quoted, and a source that changes afterwards makes the trail stale.

use rocpath_ledger::check::{check, rule};
use rocpath_ledger::model::Text;
use rocpath_ledger::store::Ledger;
use rocpath_ledger::{import::import_file, starter_meta};
use serde_json::json;

#[test]
fn a_trail_imports_with_its_source_lines_and_goes_stale_when_they_change() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::init(
        &dir.path().join("ledger"),
        &starter_meta(Text::new("t", "t")),
    )
    .unwrap();
    let repo = dir.path().join("app");
    std::fs::create_dir_all(repo.join("srv")).unwrap();
    std::fs::write(
        repo.join("srv/options.go"),
        "package srv\n\ntype Options struct {\n\tNumGPU int `json:\"num_gpu\"`\n}\n\nfunc f(o Options) { n := o.NumGPU; _ = n }\n",
    )
    .unwrap();
    let doc = json!({
        "schema": "rocpath.follow/1",
        "observed": {"tool": "rocpath", "version": "0", "command": "rocpath --json follow --from srv/options.go:NumGPU app", "time": "t", "host": "h"},
        "spec": "srv/options.go:NumGPU",
        "repos": [{"name": "app", "root": repo.display().to_string(), "commit": null, "files": 1, "cached": false}],
        "depth": 24, "limit": 400, "matched": 1, "truncated": false,
        "hops": [{"path": "srv/options.go", "line": 4, "commit": null, "text": "NumGPU int `json:\"num_gpu\"`",
                  "kind": "origin", "evidence": "code_verified", "symbol": "NumGPU",
                  "children": [{"path": "srv/options.go", "line": 7, "commit": null, "text": "func f(o Options) { n := o.NumGPU; _ = n }",
                                "kind": "field", "evidence": "code_verified", "symbol": ".NumGPU", "children": []}]}],
        "skipped": [], "notes": []
    });
    let f = dir.path().join("trail.json");
    std::fs::write(&f, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let g = ledger.lock("test").unwrap();
    let r = import_file(&g, &ledger, &f, Some("trail"), dir.path()).unwrap();
    drop(g);
    assert_eq!(
        (r.schema.as_str(), r.inputs, r.hashed, r.quotes),
        ("rocpath.follow/1", 1, 1, 2)
    );
    let loaded = ledger.load().unwrap();
    let o = &loaded.observations[0];
    let lines: Vec<u64> = o.quotes.iter().map(|q| q.line).collect();
    assert_eq!(lines, [4, 7]);
    assert!(o.quotes[0].text.contains("NumGPU"));
    assert!(check(ledger.root(), &loaded).is_empty());
    // The source changes after the trail was taken.
    std::fs::write(repo.join("srv/options.go"), "package srv\n").unwrap();
    let problems = check(ledger.root(), &ledger.load().unwrap());
    assert!(
        problems.iter().any(|p| p.rule == rule::STALE_EVIDENCE),
        "{problems:#?}"
    );
}
