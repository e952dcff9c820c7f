#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The applicability model against every real Vega64 log (`shared/fixtures/miopen-logs/vega64/`,
//! MIOpen 3.5.1 on gfx900:xnack-): each case read as `rocpath case read` reads it, compared as
//! `rocpath explain --compare` compares it. No case may disagree; at least 90 % of the
//! comparable ones agree; every natural INT8 case ends at the naive solver; every forced DLOPS
//! case is rejected as not applicable; no logged statement about a solver contradicts the model.

use rocpath_explain::compare::{Options, compare};
use std::path::Path;

fn case_docs(dir: &Path) -> Vec<(String, rocpath_docs::case::CaseDoc)> {
    let mut out = Vec::new();
    let mut logs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".log") && !n.ends_with("_extract.log")
        })
        .collect();
    logs.sort();
    for l in logs {
        let src = rocpath_case::case_source(&l).unwrap();
        let (report, _) = rocpath_case::read_case(&src);
        let doc = rocpath_docs::case::CaseDoc {
            cases: vec![report],
            errors: Vec::new(),
        };
        out.push((l.file_name().unwrap().to_string_lossy().into_owned(), doc));
    }
    out
}

#[test]
fn every_vega64_case_agrees_or_says_why() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::missing("shared data not found");
        return;
    };
    let dir = shared.join("fixtures/miopen-logs/vega64");
    assert!(dir.is_dir(), "{} is missing", dir.display());
    let model = rocpath_miopen::model::pinned().unwrap();
    let opts = Options {
        model,
        by_release: true,
        db_dir: Some(shared.join("data/miopen-db")),
        cu: None,
        vram: Some(8 << 30),
    };
    let (mut agree, mut comparable) = (0, 0);
    let mut rows = Vec::new();
    for (name, doc) in case_docs(&dir) {
        for c in compare(&doc, Path::new(&name), &opts) {
            rows.push(format!(
                "{}\t{:?}\t{:?}\t{}",
                c.case,
                c.observed.clone().or(c.observed_outcome.clone()),
                c.predicted,
                c.verdict
            ));
            assert_ne!(
                c.verdict,
                rocpath_explain::compare::Verdict::Disagree,
                "{}: {}",
                c.case,
                c.statement
            );
            for s in &c.solvers {
                assert_ne!(
                    s.verdict,
                    rocpath_explain::compare::Verdict::Disagree,
                    "{}: {s:?}",
                    c.case
                );
            }
            if c.verdict != rocpath_explain::compare::Verdict::NotMiopen {
                comparable += 1;
                agree += usize::from(c.verdict == rocpath_explain::compare::Verdict::Agree);
            }
            if c.case.starts_with("vega64_int8_")
                && c.mode.as_deref() == Some("find")
                && c.observed.is_some()
            {
                assert_eq!(
                    c.predicted.as_deref(),
                    Some("ConvDirectNaiveConvFwd"),
                    "{}",
                    c.case
                );
                assert_eq!(
                    c.verdict,
                    rocpath_explain::compare::Verdict::Agree,
                    "{}",
                    c.case
                );
            }
            if c.case.contains("force_dlops") {
                assert_eq!(
                    c.predicted.as_deref(),
                    Some("failure: rejected_not_applicable"),
                    "{}",
                    c.case
                );
                assert_eq!(
                    c.verdict,
                    rocpath_explain::compare::Verdict::Agree,
                    "{}",
                    c.case
                );
            }
        }
    }
    assert!(
        comparable >= 40,
        "only {comparable} comparable cases:\n{}",
        rows.join("\n")
    );
    assert!(
        agree * 10 >= comparable * 9,
        "{agree} of {comparable} agree:\n{}",
        rows.join("\n")
    );
}
