//! Rule over `explain --compare` documents: a prediction of the applicability model (an
//! interpretation: inferred, code_verified) grouped by world, release, mode, data type, layout
//! and operation, worded with the problem shapes it was compared on; raised to confirmed when
//! two or more runs agree and none disagrees — one agreeing run leaves it inferred
//! (runtime_verified): a single run does not repeat the result —; a disagreement keeps it an
//! open question (unresolved), next to agreements too, with the split named. "Timing decides"
//! is said only where MIOpen times candidates (Find); a forced run times nothing.

use super::digest::{Doc, ObsDigest};
use super::text::{self, num};
use super::{Finding, record_support, rule};
use crate::model::*;
use rocpath_docs::compare::{ReadComparison, Verdict};
use rocpath_evidence::{Class, Proof};
use std::collections::BTreeMap;

struct Cmp<'a> {
    obs: &'a str,
    index: usize,
    case: String,
    verdict: String,
    observed: String,
    statement: String,
    /// The problem's shape (`N16 C32 28×28 K32 1×1`).
    shape: String,
}

/// Runs that must agree, none disagreeing, before a prediction is confirmed.
pub const CONFIRMING_RUNS: u64 = 2;

/// A find-db key's shape, readable: `32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F` →
/// `N16 C32 28×28 K32 1×1` (pad, stride and dilation when they are not 0, 1 and 1). A key of
/// another form is given as it is, without its layout, type and direction.
fn shape_text(key: &str) -> String {
    let p: Vec<&str> = key.split('-').collect();
    // 2-D keys: 12 shape fields, then the layout (input, weights, output when they differ from
    // NCHW), the type and the direction.
    let two_d = (15..=17).contains(&p.len()) && p[3].contains('x') && p[8].contains('x');
    if !two_d {
        return p[..p.len().saturating_sub(3)].join("-");
    }
    let x = |s: &str| s.replace('x', "×");
    let mut out = format!(
        "N{} C{} {}×{} K{} {}",
        p[7],
        p[0],
        p[1],
        p[2],
        p[4],
        x(p[3])
    );
    for (name, v, plain) in [
        ("pad", p[8], "0x0"),
        ("stride", p[9], "1x1"),
        ("dilation", p[10], "1x1"),
    ] {
        if v != plain {
            out.push_str(&format!(" {name} {}", x(v)));
        }
    }
    out
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

/// The prediction, worded for its mode: only Find times candidates on the device.
fn predicted_text(p: &str, mode: &str) -> Text {
    if p == "unresolved" {
        return if mode.starts_with("forced") {
            Text::new(
                "強制した solver の結果を決められない(モデルが評価できない条件がある)",
                "no outcome for the forced solver (a condition the model cannot evaluate)",
            )
        } else if mode == "find" {
            Text::new(
                "一つの solver に決まらない(実機のタイミングが決める)",
                "no single solver (timing on the device decides)",
            )
        } else {
            Text::new(
                "一つの solver に決まらない(モデルが評価できない条件がある)",
                "no single solver (a condition the model cannot evaluate)",
            )
        };
    }
    match p.strip_prefix("failure: ") {
        Some(f) => Text::new(format!("失敗({f})"), format!("a failure ({f})")),
        None => Text::new(p, p),
    }
}

/// A group of predictions: (world, release, mode, subject, predicted).
type Key = (String, String, String, String, String);

/// A comparison that states a prediction (agreeing, disagreeing or left open), with the
/// key of its group: (world, release, mode, subject, predicted).
fn compared<'a>(o: &'a ObsDigest, index: usize, c: &ReadComparison) -> Option<(Key, Cmp<'a>)> {
    let (verdict, predicted) = match c {
        ReadComparison::Case(c) => (c.verdict, c.predicted.as_deref()),
        ReadComparison::Kernel(k) => (k.verdict, k.predicted.as_deref()),
    };
    let predicted = predicted.filter(|p| !p.is_empty())?;
    if !matches!(
        verdict,
        Verdict::Agree | Verdict::Disagree | Verdict::Unresolved
    ) {
        return None;
    }
    let world = |arch: Option<&rocpath_arch::TargetId>| {
        arch.map_or_else(|| o.world.clone(), |a| a.processor.clone())
    };
    let opt = |s: &Option<String>| s.clone().unwrap_or_default();
    let (key, cmp) = match c {
        ReadComparison::Case(c) => {
            let key_text = opt(&c.problem_key);
            let (layout, dtype, op) = problem_parts(&key_text);
            let key = (
                world(c.arch.as_ref()),
                opt(&c.release),
                opt(&c.mode),
                format!("{dtype} {layout} {op}"),
                predicted.to_string(),
            );
            let observed = c.observed.clone().or_else(|| c.observed_outcome.clone());
            (
                key,
                (
                    c.case.clone(),
                    observed.unwrap_or_default(),
                    c.statement.clone(),
                    shape_text(&key_text),
                ),
            )
        }
        ReadComparison::Kernel(k) => {
            let key = (
                world(Some(&k.arch)),
                String::new(),
                String::new(),
                "ggml".to_string(),
                predicted.to_string(),
            );
            (
                key,
                (
                    k.trace.clone(),
                    k.observed.clone(),
                    k.statement.clone(),
                    String::new(),
                ),
            )
        }
    };
    let (case, observed, statement, shape) = cmp;
    Some((
        key,
        Cmp {
            obs: &o.id,
            index,
            case,
            verdict: verdict.as_str().to_string(),
            observed,
            statement,
            shape,
        },
    ))
}

/// The prediction findings.
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    let mut groups: BTreeMap<Key, Vec<Cmp<'_>>> = BTreeMap::new();
    for o in obs {
        let Doc::Compare(d) = &o.doc else { continue };
        for (i, c) in d.comparisons.iter().enumerate() {
            let Some((key, cmp)) = compared(o, i, c) else {
                continue;
            };
            groups.entry(key).or_default().push(cmp);
        }
    }
    // The case records of the cases compared: their pages list the prediction as what is
    // inferred about them.
    let records: BTreeMap<String, String> = super::cases::facts(obs)
        .into_iter()
        .map(|f| (f.name, f.obs))
        .collect();
    groups
        .into_iter()
        .map(|((world, release, mode, subject, predicted), m)| {
            let mut f = finding(&world, &release, &mode, &subject, &predicted, &m);
            let mut cases: Vec<String> = m
                .iter()
                .filter_map(|c| records.get(&c.case).cloned())
                .collect();
            cases.sort();
            cases.dedup();
            f.cases = cases;
            f
        })
        .collect()
}

/// What a prediction is about (`INT8 NCHW forward convolution`) and whose it is.
fn subject_text(subject: &str, release: &str) -> (Text, Text) {
    match subject.rsplit_once(' ') {
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
    }
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
    let (class, kind) = if agree == n && n >= CONFIRMING_RUNS {
        (Class::Confirmed, Proof::RuntimeVerified)
    } else if agree == n {
        // One run agrees: the result is not repeated, so the prediction stays an inference.
        (Class::Inferred, Proof::RuntimeVerified)
    } else if agree > 0 {
        // Runs that disagree are not a limit of the observation: the prediction is open.
        (Class::Unresolved, Proof::RuntimeVerified)
    } else {
        (Class::Unresolved, Proof::CodeVerified)
    };
    let (dtype_op, model) = subject_text(subject, release);
    let p = predicted_text(predicted, mode);
    let scope = shapes_text(m);
    let exceptions: Vec<String> = m
        .iter()
        .filter(|c| c.verdict != "agree")
        .map(|c| format!("{}: {} ({})", c.case, c.verdict, c.statement))
        .collect();
    let mut statement = Text::new(
        format!(
            "{}は、{world} の {dtype_ja}({mode}){}に {} を予測する。これらの実行との一致は {} 件中 {} 件。",
            model.ja,
            scope.ja,
            p.ja,
            num(n),
            num(agree),
            dtype_ja = dtype_op.ja,
        ),
        format!(
            "{} predicts {} for {} on {world} ({mode}){}; the runs of these shapes agree in {} of {}.",
            model.en,
            p.en,
            dtype_op.en,
            scope.en,
            num(agree),
            num(n)
        ),
    );
    if n < CONFIRMING_RUNS && agree == n {
        statement
            .ja
            .push_str(" 1 回の実行のみで、繰り返されていない。");
        statement.en.push_str(" One run only: not repeated.");
    }
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
        selection: mode.starts_with("forced").then_some(SelectionKind::Forced),
        agree,
        of: n,
        exceptions,
        support,
        cases: Vec::new(),
    }
}

/// The shapes a prediction was compared on: its scope (up to 4 named, the rest counted).
fn shapes_text(m: &[Cmp<'_>]) -> Text {
    let mut shapes: Vec<&str> = m
        .iter()
        .map(|c| c.shape.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    shapes.sort_unstable();
    shapes.dedup();
    if shapes.is_empty() {
        return Text::default();
    }
    let shown = shapes[..shapes.len().min(4)].join("; ");
    let more = shapes.len().saturating_sub(4);
    let (more_ja, more_en) = if more > 0 {
        (format!(" ほか {more} 形状"), format!(" and {more} more"))
    } else {
        Default::default()
    };
    if shapes.len() == 1 {
        Text::new(format!("、形状 {shown} "), format!(", shape {shown}"))
    } else {
        Text::new(
            format!("、{} 形状 {shown}{more_ja} ", shapes.len()),
            format!(", {} shapes: {shown}{more_en}", shapes.len()),
        )
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

    #[test]
    fn shapes_and_wording() {
        assert_eq!(
            shape_text("32-28-28-1x1-32-28-28-16-0x0-1x1-1x1-0-NCHW-INT8-F"),
            "N16 C32 28×28 K32 1×1"
        );
        assert_eq!(
            shape_text("64-56-56-3x3-128-28-28-32-1x1-2x2-1x1-0-NCHW-INT8-F"),
            "N32 C64 56×56 K128 3×3 pad 1×1 stride 2×2"
        );
        assert_eq!(
            shape_text("64-32-32-1x1-64-32-32-16-0x0-1x1-1x1-0-NHWC-NHWC-NHWC-INT8-F"),
            "N16 C64 32×32 K64 1×1"
        );
        // Only Find times candidates on the device.
        let forced = predicted_text("unresolved", "forced: ConvMlirIgemmFwd");
        assert!(!forced.en.contains("timing"), "{}", forced.en);
        assert!(!forced.ja.contains("タイミング"), "{}", forced.ja);
        assert!(predicted_text("unresolved", "find").en.contains("timing"));
        assert!(
            !predicted_text("unresolved", "immediate")
                .en
                .contains("timing")
        );
    }
}
