//! The words of derived statements, in Japanese and English. Every generated sentence is
//! assembled from these, so the two languages say the same thing.

use crate::model::Text;

/// `3605` → `3,605`.
pub fn num(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A ratio or interval end with three decimals (`1.111`).
pub fn ratio(x: f64) -> String {
    format!("{x:.3}")
}

/// The operation of a problem: `conv_fwd` → forward convolution.
pub fn operation(op: &str) -> Text {
    match op {
        "conv_fwd" => Text::new("順方向畳み込み", "forward convolution"),
        "conv_bwd" => Text::new("逆方向(データ)畳み込み", "backward-data convolution"),
        "conv_wrw" => Text::new("逆方向(重み)畳み込み", "backward-weights convolution"),
        "gemm" => Text::new("GEMM", "GEMM"),
        other => Text::new(other, other),
    }
}

/// What the outcome did, as a predicate (`was rejected as not applicable`). `solver` is the
/// selected solver, when one ran; an outcome that names what ran but whose record does not
/// name it has no predicate (`None`): a statement is never written with a gap in it.
pub fn outcome_predicate(kind: &str, solver: Option<&str>) -> Option<Text> {
    let named = matches!(kind, "natural" | "fallback_observed" | "success");
    let s = match solver {
        Some(s) if !s.trim().is_empty() => s,
        _ if named => return None,
        _ => "",
    };
    Some(match kind {
        "natural" => Text::new(format!("{s} を選んだ"), format!("selected {s}")),
        "fallback_observed" => Text::new(
            format!("フォールバックして {s} を実行した"),
            format!("fell back and ran {s}"),
        ),
        "success" => Text::new(format!("{s} を実行した"), format!("ran {s}")),
        "applicability_reject" => {
            Text::new("適用不可として拒否された", "was rejected as not applicable")
        }
        "build_failure" => Text::new(
            "コードオブジェクトのビルドに失敗した",
            "failed to build its code object",
        ),
        "runtime_abort" => Text::new("実行時に異常終了した", "aborted at run time"),
        "gpu_fault" => Text::new(
            "GPU のメモリアクセス違反で停止した",
            "stopped on a GPU memory access fault",
        ),
        "cli_error" => Text::new(
            "コマンドラインの段階で拒否された",
            "was refused on the command line",
        ),
        "library_error" => Text::new("ライブラリエラーで終了した", "ended in a library error"),
        "incomplete" => Text::new("記録が途中で終わっている", "has an incomplete record"),
        _ => Text::new("結果を判定できなかった", "could not be decided"),
    })
}

/// What an outcome did when its record does not name the solver or kernel (`completed
/// without naming what it selected`): for the notes of a group's exceptions, never a claim's
/// subject.
pub fn outcome_unnamed(kind: &str) -> Text {
    match kind {
        "natural" | "success" | "fallback_observed" => Text::new(
            "完了したが、選ばれたソルバー/カーネルの名前は記録にない",
            "completed, and its record does not name what it selected",
        ),
        other => Text::new(other, other),
    }
}

/// `N 件中 M 件` / `in M of N cases`.
pub fn m_of_n(m: u64, n: u64, unit_en: &str) -> Text {
    Text::new(
        format!("{} 件中 {} 件で", num(n), num(m)),
        format!("in {} of {} {unit_en}", num(m), num(n)),
    )
}

/// The selection a case or group is about.
pub fn selection(mode: &str, forced: Option<&str>) -> Text {
    match (mode, forced) {
        (_, Some(f)) => Text::new(format!("{f} を強制した"), format!("forced {f}")),
        ("find", None) => Text::new("探索(Find)付きの自然選択の", "natural (with search)"),
        _ => Text::new("自然選択の", "natural"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(num(0), "0");
        assert_eq!(num(999), "999");
        assert_eq!(num(3605), "3,605");
        assert_eq!(num(1234567), "1,234,567");
        assert_eq!(ratio(1.11111), "1.111");
    }

    #[test]
    fn an_outcome_without_its_solver_has_no_predicate() {
        assert_eq!(outcome_predicate("natural", None), None);
        assert_eq!(outcome_predicate("success", Some(" ")), None);
        let p = outcome_predicate("natural", Some("GemmFwdRest")).unwrap();
        assert_eq!(p.en, "selected GemmFwdRest");
        let r = outcome_predicate("applicability_reject", None).unwrap();
        assert_eq!(r.en, "was rejected as not applicable");
        assert_eq!(outcome_unnamed("natural").placeholder(), None);
    }
}
