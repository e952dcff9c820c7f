//! The trail of a `rocpath.follow/1` observation as steps: one hop per step, with its
//! location, how the value got there and how well that is established, in Japanese and
//! English, and the source line as quoted at import (or as the trail gave it).

use crate::views::{TextV, lit};
use rocpath_ledger::follow::steps;
use rocpath_ledger::model::Observation;
use serde::Serialize;

/// The templates of trail pages (included by `observation.html`).
pub const TEMPLATES: [(&str, &str); 1] = [("trail.html", include_str!("../templates/trail.html"))];

/// One step of a trail page.
#[derive(Debug, Clone, Serialize)]
pub struct StepV {
    /// Its number.
    pub number: usize,
    /// The step it comes from.
    pub parent: Option<usize>,
    /// Hops above it.
    pub depth: usize,
    /// How the value got here.
    pub kind: String,
    /// `kind` in both languages.
    pub kind_text: TextV,
    /// The evidence class badge (`confirmed`, `inferred`, `unresolved`).
    pub class: String,
    /// `code_verified`, `inferred`, `unresolved`.
    pub evidence: String,
    /// Location.
    pub path: String,
    /// Line.
    pub line: u64,
    /// Short commit.
    pub commit: String,
    /// What the value is there.
    pub symbol: String,
    /// The source line: quoted from the file at import when it was read, else the trail's.
    pub code: String,
    /// Whether `code` was quoted from the file at import.
    pub quoted: bool,
    /// Why (inferred, unresolved, limits).
    pub note: String,
}

/// The kind of a hop in both languages.
pub fn kind_text(kind: &str) -> TextV {
    match kind {
        "origin" => lit("起点", "start"),
        "assign" => lit("代入", "assigned"),
        "call-arg" => lit("呼び出しの引数", "passed as an argument"),
        "param" => lit("仮引数として受け取る", "received as a parameter"),
        "return" => lit("戻り値として呼び出し元へ", "returned to the callers"),
        "field" => lit("構造体フィールド", "a struct field"),
        "json" => lit("JSON としてプロセス間を渡る", "crosses as JSON"),
        "flag" => lit("コマンドラインフラグ", "a command-line flag"),
        "env" => lit("環境変数", "an environment variable"),
        "cgo" => lit("cgo で Go から C へ", "from Go into C through cgo"),
        "branch" => lit("この値で分岐する", "a condition decides on it"),
        other => lit(other, other),
    }
}

fn class_of(evidence: &str) -> &'static str {
    match evidence {
        "code_verified" => "confirmed",
        "inferred" => "inferred",
        _ => "unresolved",
    }
}

/// The steps of a trail observation (`None` for other documents).
pub fn trail_view(o: &Observation) -> Option<Vec<StepV>> {
    let st = steps(&o.document);
    if st.is_empty() {
        return None;
    }
    Some(
        st.into_iter()
            .map(|s| {
                let quote = o
                    .quotes
                    .iter()
                    .find(|q| q.path == s.input && q.line == s.line);
                StepV {
                    number: s.number,
                    parent: s.parent,
                    depth: s.depth.min(40),
                    kind_text: kind_text(&s.kind),
                    class: class_of(&s.evidence).to_string(),
                    kind: s.kind,
                    evidence: s.evidence,
                    path: s.path,
                    line: s.line,
                    commit: s.commit.chars().take(12).collect(),
                    symbol: s.symbol,
                    code: quote.map_or(s.text, |q| q.text.trim().to_string()),
                    quoted: quote.is_some(),
                    note: s.note,
                }
            })
            .collect(),
    )
}
