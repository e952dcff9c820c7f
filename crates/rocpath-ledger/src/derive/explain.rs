//! Rule over `explain --compare` documents: a prediction of the applicability model (an
//! interpretation: inferred, code_verified) grouped by world, release, mode, data type and
//! operation, raised to confirmed when every run compared with it agrees; a disagreement
//! keeps it an open question (unresolved), next to agreements too, with the split named.

use super::digest::{Doc, ObsDigest};
use super::text::{self, num};
use super::{Finding, record_support, rule};
use crate::model::*;
use crate::schemas::processor_of;
use rocpath_evidence::{Class, Proof};
use std::collections::BTreeMap;

struct Cmp<'a> {
    obs: &'a str,
    index: usize,
    case: String,
    verdict: String,
    observed: String,
    statement: String,
}

/// `…-NCHW-INT8-F` → (`NCHW`, `INT8`, `conv_fwd`).
fn problem_parts(key: &str) -> (String, String, String) {
    let parts: Vec<&str> = key.rsplitn(4, '-').collect();
    if parts.len() < 3 {
        return Default::default();
    }
    // The direction may carry suffixes: `F_g2` (groups), `F_coFP32` (output cast).
    let mut last = parts[0].split('_');
    let op = match last.next() {
        Some("F") => "conv_fwd",
        Some("B") => "conv_bwd",
        Some("W") => "conv_wrw",
        _ => "",
    };
    let cast = last.find_map(|x| x.strip_prefix("co")).unwrap_or_default();
    (
        parts[2].to_string(),
        super::cases::data_type(parts[1], cast),
        op.to_string(),
    )
}

fn predicted_text(p: &str) -> Text {
    if p == "unresolved" {
        return Text::new(
            "一つの solver に決まらない(実機のタイミングが決める)",
            "no single solver (timing on the device decides)",
        );
    }
    match p.strip_prefix("failure: ") {
        Some(f) => Text::new(format!("失敗({f})"), format!("a failure ({f})")),
        None => Text::new(p, p),
    }
}

/// The prediction findings.
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    // (world, release, mode, subject, predicted)
    type Key = (String, String, String, String, String);
    let mut groups: BTreeMap<Key, Vec<Cmp<'_>>> = BTreeMap::new();
    for o in obs {
        let Doc::Compare(d) = &o.doc else { continue };
        for (i, c) in d.comparisons.iter().enumerate() {
            let predicted = c.predicted.as_str();
            let verdict = c.verdict.as_str();
            if predicted.is_empty() || !matches!(verdict, "agree" | "disagree" | "unresolved") {
                continue;
            }
            let world = if c.arch.as_str().is_empty() {
                o.world.clone()
            } else {
                processor_of(c.arch.as_str())
            };
            let (_, dtype, op) = problem_parts(c.problem_key.as_str());
            let subject = if c.kernel.0.is_some() {
                "ggml".to_string()
            } else {
                format!("{dtype} {op}")
            };
            let key = (
                world,
                c.release.as_str().to_string(),
                c.mode.as_str().to_string(),
                subject,
                predicted.to_string(),
            );
            groups.entry(key).or_default().push(Cmp {
                obs: &o.id,
                index: i,
                case: c
                    .case
                    .0
                    .clone()
                    .or_else(|| c.trace.0.clone())
                    .unwrap_or_default(),
                verdict: verdict.to_string(),
                observed: c
                    .observed
                    .0
                    .clone()
                    .or_else(|| c.observed_outcome.0.clone())
                    .unwrap_or_default(),
                statement: c.statement.as_str().to_string(),
            });
        }
    }
    groups
        .into_iter()
        .map(|((world, release, mode, subject, predicted), m)| {
            finding(&world, &release, &mode, &subject, &predicted, &m)
        })
        .collect()
}

fn finding(
    world: &str,
    release: &str,
    mode: &str,
    subject: &str,
    predicted: &str,
    m: &[Cmp<'_>],
) -> Finding {
    let n = m.len() as u64;
    let agree = m.iter().filter(|c| c.verdict == "agree").count() as u64;
    let disagree = m.iter().filter(|c| c.verdict == "disagree").count() as u64;
    let (class, kind) = if agree == n {
        (Class::Confirmed, Proof::RuntimeVerified)
    } else if agree > 0 {
        // Runs that disagree are not a limit of the observation: the prediction is open.
        (Class::Unresolved, Proof::RuntimeVerified)
    } else {
        (Class::Unresolved, Proof::CodeVerified)
    };
    let (dtype_op, model) = match subject.rsplit_once(' ') {
        Some((dt, op)) => {
            let o = text::operation(op);
            (
                Text::new(format!("{dt} {}", o.ja), format!("{dt} {}", o.en)),
                if release.is_empty() {
                    Text::new(
                        "MIOpen のソースから導いた適用可否モデル",
                        "The applicability model from MIOpen's source",
                    )
                } else {
                    Text::new(
                        format!("MIOpen {release} のソースから導いた適用可否モデル"),
                        format!("The applicability model from MIOpen {release}'s source"),
                    )
                },
            )
        }
        None => (
            Text::new("ggml カーネル", "ggml kernels"),
            Text::new("ggml のディスパッチ規則", "ggml's dispatch rules"),
        ),
    };
    let p = predicted_text(predicted);
    let exceptions: Vec<String> = m
        .iter()
        .filter(|c| c.verdict != "agree")
        .map(|c| format!("{}: {} ({})", c.case, c.verdict, c.statement))
        .collect();
    let mut statement = Text::new(
        format!(
            "{}は、{world} の {dtype_ja}({mode})に {} を予測する。実行結果との一致は {} 件中 {} 件。",
            model.ja,
            p.ja,
            num(n),
            num(agree),
            dtype_ja = dtype_op.ja,
        ),
        format!(
            "{} predicts {} for {} on {world} ({mode}); the runs agree in {} of {}.",
            model.en,
            p.en,
            dtype_op.en,
            num(agree),
            num(n)
        ),
    );
    if disagree > 0 {
        statement
            .ja
            .push_str(&format!(" 不一致 {} 件は未解決の問い。", num(disagree)));
        statement
            .en
            .push_str(&format!(" {} disagree: open questions.", num(disagree)));
    }
    let support = m
        .iter()
        .map(|c| {
            record_support(
                c.obs,
                &format!("/comparisons/{}", c.index),
                Text::new(
                    format!("{}: {}({})", c.case, c.verdict, c.observed),
                    format!("{}: {} ({})", c.case, c.verdict, c.observed),
                ),
            )
        })
        .collect();
    Finding {
        rule: rule::EXPLAIN_PREDICTION,
        key: [world, release, mode, subject, predicted].join("|"),
        statement,
        class,
        kind,
        world: world.to_string(),
        floor: Some(Floor::MathLibrary),
        layer: Some(Layer::Selection),
        selection: None,
        agree,
        of: n,
        exceptions,
        support,
        cases: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_keys() {
        assert_eq!(
            problem_parts("32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F"),
            ("NCHW".into(), "INT8".into(), "conv_fwd".into())
        );
        assert_eq!(
            problem_parts("64-56-56-1x1-64-56-56-32-0x0-1x1-1x1-0-NCHW-INT8-F_coFP32"),
            (
                "NCHW".into(),
                "INT8 (out cast FP32)".into(),
                "conv_fwd".into()
            )
        );
        assert_eq!(problem_parts("1-2-NCHW-FP32-F_g2").2, "conv_fwd");
        assert_eq!(problem_parts("x"), Default::default());
    }
}
