#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A `rocpath.follow/1` trail in the ledger becomes a step-by-step page: one hop per step in
//! tree order, in Japanese and English, each with its code line (escaped), and the claims
//! that cite the trail link to it.

use rocpath_evidence::{Class, Proof};
use rocpath_ledger::model::*;
use rocpath_ledger::store::Ledger;
use rocpath_ledger::{add_claim, import::import_file, parse_support_ref, starter_meta};
use serde_json::json;

#[test]
fn a_trail_is_rendered_step_by_step_and_linked_from_its_claims() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::init(
        &dir.path().join("ledger"),
        &starter_meta(Text::new("台帳", "Ledger")),
    )
    .unwrap();
    let repo = dir.path().join("app");
    std::fs::create_dir_all(repo.join("srv")).unwrap();
    std::fs::write(
        repo.join("srv/a.go"),
        "package srv\n\tNumGPU int\n\tn := plan(o.NumGPU) // <script>alert(1)</script>\n",
    )
    .unwrap();
    let hop = |line: u64, kind: &str, ev: &str, kids: serde_json::Value| {
        json!({"path": "srv/a.go", "line": line, "commit": "0123456789abcdef0123456789abcdef01234567",
               "text": "", "kind": kind, "evidence": ev, "symbol": "NumGPU", "children": kids})
    };
    let doc = json!({
        "schema": "rocpath.follow/1",
        "observed": {"tool": "rocpath", "version": "0", "command": "rocpath --json follow --from srv/a.go:NumGPU app",
                     "time": "2026-11-23T00:00:00Z", "host": "h"},
        "spec": "srv/a.go:NumGPU",
        "repos": [{"name": "app", "root": repo.display().to_string(), "commit": "0123456789abcdef0123456789abcdef01234567", "files": 1, "cached": false}],
        "depth": 24, "limit": 400, "matched": 1, "truncated": false,
        "hops": [hop(2, "origin", "code_verified", json!([hop(3, "call-arg", "code_verified", json!([])), hop(3, "flag", "unresolved", json!([]))]))],
        "skipped": [], "notes": []
    });
    let f = dir.path().join("trail.json");
    std::fs::write(&f, serde_json::to_vec(&doc).unwrap()).unwrap();
    let g = ledger.lock("test").unwrap();
    import_file(&g, &ledger, &f, Some("trail"), dir.path()).unwrap();
    let c = Claim {
        id: "c1".into(),
        statement: Text::new("num_gpu は plan に渡る", "num_gpu goes to plan"),
        class: Some(Class::Confirmed),
        kind: Some(Proof::CodeVerified),
        world: "gfx900".into(),
        support: vec![parse_support_ref("trail").unwrap()],
        ..Claim::default()
    };
    add_claim(&g, &ledger, c, "2026-11-23").unwrap();
    drop(g);
    let out = dir.path().join("site");
    rocpath_site::build(
        &ledger.load().unwrap(),
        &out,
        &rocpath_site::Options {
            version: "test".into(),
        },
    )
    .unwrap();
    let page = std::fs::read_to_string(out.join("observations/trail.html")).unwrap();
    let a = page.find("id=\"step-1\"").unwrap();
    let b = page.find("id=\"step-2\"").unwrap();
    let c = page.find("id=\"step-3\"").unwrap();
    assert!(a < b && b < c);
    for label in [
        "値の道筋",
        "The trail of the value",
        "呼び出しの引数",
        "passed as an argument",
        "コマンドラインフラグ",
    ] {
        assert!(page.contains(label), "{label}");
    }
    // The code line as quoted at import, escaped; the commit; the way back to the parent.
    assert!(page.contains("n := plan(o.NumGPU) &#x2f;&#x2f; &lt;script&gt;alert(1)"));
    assert!(!page.contains("<script>alert(1)"));
    assert!(page.contains("srv&#x2f;a.go:3@0123456789ab"));
    assert!(page.contains("href=\"#step-1\""));
    assert!(page.contains("badge-unresolved"));
    let claim = std::fs::read_to_string(out.join("claims/c1.html")).unwrap();
    assert!(claim.contains("observations&#x2f;trail.html"), "{claim}");
}
