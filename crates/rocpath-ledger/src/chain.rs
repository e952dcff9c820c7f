//! The chain of questions a research page walks for one observation world (seed page "Why does
//! gfx900 still run?": what the install ships → where the source gates it → what the library
//! selects → what happens when the fast path is unavailable → what reaches the GPU → what the
//! application does), and the step each claim answers.
//!
//! A step is a question with its observation point: where one looks to answer it. A derived
//! claim belongs to the step of the rule that wrote it; a claim a person recorded belongs to
//! the step of its layer and floor. A claim about a forced run, or on the Fallback layer,
//! answers the fallback question whatever rule wrote it.

use crate::derive::rule;
use crate::model::{Claim, Floor, Layer, SelectionKind, Text};
use serde::Serialize;

/// One step of the chain, in reading order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// What the install ships for the GPU.
    Shipped,
    /// Where the source keeps or gates the target.
    Source,
    /// What the library selects, and why.
    Selection,
    /// What happens when the fast path is unavailable.
    Fallback,
    /// What reaches the GPU at run time.
    Dispatch,
    /// What the application does with the GPU.
    Application,
    /// Where a setting travels in the code.
    Trail,
    /// Claims no other step takes.
    Other,
}

/// The texts of a step: its question, its observation point, what it lets a reader understand.
#[derive(Debug, Clone, PartialEq)]
pub struct StepText {
    /// The question the step asks.
    pub question: Text,
    /// Where one looks to answer it.
    pub point: Text,
    /// What its answer lets a reader understand (a phrase for a page's lead).
    pub understand: Text,
}

impl Step {
    /// Every step, in reading order.
    pub const ALL: [Step; 8] = [
        Step::Shipped,
        Step::Source,
        Step::Selection,
        Step::Fallback,
        Step::Dispatch,
        Step::Application,
        Step::Trail,
        Step::Other,
    ];

    /// The snake_case name (an anchor on a page).
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Shipped => "shipped",
            Step::Source => "source",
            Step::Selection => "selection",
            Step::Fallback => "fallback",
            Step::Dispatch => "dispatch",
            Step::Application => "application",
            Step::Trail => "trail",
            Step::Other => "other",
        }
    }

    /// The step's question, observation point and what it lets a reader understand.
    pub fn text(self) -> StepText {
        let (q, p, u) = match self {
            Step::Shipped => SHIPPED,
            Step::Source => SOURCE,
            Step::Selection => SELECTION,
            Step::Fallback => FALLBACK,
            Step::Dispatch => DISPATCH,
            Step::Application => APPLICATION,
            Step::Trail => TRAIL,
            Step::Other => OTHER,
        };
        let t = |(ja, en): (&str, &str)| Text::new(ja, en);
        StepText {
            question: t(q),
            point: t(p),
            understand: t(u),
        }
    }

    /// The step a claim answers.
    pub fn of(c: &Claim) -> Step {
        let fallback = c.layer == Some(Layer::Fallback)
            || matches!(
                c.selection,
                Some(SelectionKind::Forced | SelectionKind::Fallback)
            );
        let step = match c.derived_by.as_str() {
            "" => Self::of_place(c.layer, c.floor),
            r => Self::of_rule(r),
        };
        match step {
            Step::Selection | Step::Shipped | Step::Other if fallback => Step::Fallback,
            s => s,
        }
    }

    /// The step of a derivation rule's claims.
    fn of_rule(r: &str) -> Step {
        match r {
            rule::INVENTORY_SHIPPED | rule::ISA_INSTRUCTIONS | rule::CHECK_VERDICT => Step::Shipped,
            rule::GATES_TARGET | rule::GATES_TABLE | rule::PROVENANCE_GATE => Step::Source,
            rule::CASE_OUTCOME
            | rule::CASE_GROUP
            | rule::EXPLAIN_PREDICTION
            | rule::EXPLAIN_GEMM => Step::Selection,
            rule::TRACE_DISPATCH | rule::STRACE_CATALOG | rule::STRACE_LINK => Step::Dispatch,
            rule::OLLAMA_PLACEMENT | rule::OLLAMA_PLACEMENT_GROUP | rule::LANES_RATIO => {
                Step::Application
            }
            rule::FOLLOW_END | rule::FOLLOW_BOUNDARY => Step::Trail,
            _ => Step::Other,
        }
    }

    /// The step of a claim a person recorded, from where it sits in the stack.
    fn of_place(layer: Option<Layer>, floor: Option<Floor>) -> Step {
        match (layer, floor) {
            (Some(Layer::Fallback), _) => Step::Fallback,
            (_, Some(Floor::Application)) => Step::Application,
            (_, Some(Floor::Runtime | Floor::Driver | Floor::Hardware)) => Step::Dispatch,
            (Some(Layer::Build), _) => Step::Shipped,
            (Some(Layer::Selection), _) => Step::Selection,
            (None, _) => Step::Other,
        }
    }
}

/// The observation that would settle an unresolved or limited claim of a derivation rule: the
/// next question a page asks where the evidence stops. `None` for a claim a person recorded
/// (its own `falsified_by` says it) or an unknown rule.
pub fn settled_by(rule_id: &str) -> Option<Text> {
    let (ja, en) = match rule_id {
        rule::CASE_OUTCOME => (
            "同じプログラムを、実行した畳み込みと solver をログに出す設定(MIOPEN_LOG_LEVEL=6)で走らせた記録",
            "a run of the same program that logs the convolution it executes and its solver (MIOPEN_LOG_LEVEL=6)",
        ),
        rule::CASE_GROUP => (
            "同じ問題と設定での追加の実行(各々を rocpath case read で読む)",
            "more runs of the same problem and configuration, each read with rocpath case read",
        ),
        rule::EXPLAIN_PREDICTION => (
            "その問題のデバイス上の find-db レコード、または各候補の時間をログに出す実行(MIOPEN_FIND_MODE=NORMAL、MIOPEN_LOG_LEVEL=6)",
            "the device's find-db record of the problem, or a run that logs each candidate's time (MIOPEN_FIND_MODE=NORMAL, MIOPEN_LOG_LEVEL=6)",
        ),
        rule::EXPLAIN_GEMM => (
            "デバイス上でその呼び出しを記録した rocBLAS / hipBLASLt のログ(ROCBLAS_LAYER=2、HIPBLASLT_LOG_MASK=32)",
            "a rocBLAS / hipBLASLt log of the call on the device (ROCBLAS_LAYER=2, HIPBLASLT_LOG_MASK=32)",
        ),
        rule::TRACE_DISPATCH => (
            "同じ実行のカーネルトレース(rocprofv3 --kernel-trace)",
            "a kernel trace of the same run (rocprofv3 --kernel-trace)",
        ),
        rule::STRACE_CATALOG | rule::STRACE_LINK => (
            "strace と同じ実行でのカーネルトレース(rocprofv3)と rocBLAS のレイヤーログ。カタログの読み込みを投入と結び付けられる",
            "a kernel trace (rocprofv3) and rocBLAS layer logging in the same run as the strace, so catalog reads can be tied to dispatches",
        ),
        rule::OLLAMA_PLACEMENT | rule::OLLAMA_PLACEMENT_GROUP => (
            "同じ実行のサーバーログを OLLAMA_DEBUG=1 で記録したもの(各デバイスに載った層を名指しする)",
            "the server log of the same run at OLLAMA_DEBUG=1, which names the layers offloaded to each device",
        ),
        rule::LANES_RATIO => (
            "同じホストで交互に走らせたレーンごとの追加の実行(区間は実行回数とともに狭まる)",
            "more runs per lane, alternating on the same host (the interval narrows as runs are added)",
        ),
        rule::INVENTORY_SHIPPED | rule::ISA_INSTRUCTIONS | rule::CHECK_VERDICT => (
            "インストール全体の inventory(パックされた code object を含む)",
            "an inventory of the whole install, packed code objects included",
        ),
        rule::GATES_TARGET | rule::GATES_TABLE | rule::PROVENANCE_GATE => (
            "インストールされたリリースのソースでの判定と、その git 履歴(rocpath provenance)",
            "the gate in the source of the installed release, and its git history (rocpath provenance)",
        ),
        rule::FOLLOW_END | rule::FOLLOW_BOUNDARY => (
            "境界の先にあるライブラリのソースを含めてたどり直した経路(rocpath follow)",
            "the trail followed again with the source of the library beyond the boundary (rocpath follow)",
        ),
        _ => return None,
    };
    Some(Text::new(ja, en))
}

type Pair = (&'static str, &'static str);

const SHIPPED: (Pair, Pair, Pair) = (
    (
        "インストールはこの GPU 向けに何を出荷しているか",
        "What does the install ship for this GPU?",
    ),
    (
        "出荷されたコードオブジェクト(ELF ノートとカーネルの ISA)と、デバイスに対する check の判定",
        "The shipped code objects (ELF notes and kernel ISA) and check's verdict for the device",
    ),
    (
        "どのライブラリがこの世界のコードを持ち、そのコードがどの命令(MFMA・WMMA・dot)を使うか",
        "which libraries carry code for this world, and which instructions (MFMA, WMMA, dot) that code uses",
    ),
);

const SOURCE: (Pair, Pair, Pair) = (
    (
        "ソースはこのターゲットをどこで通し、どこで止めるか。それはいつからか",
        "Where does the source keep or gate this target, and since when?",
    ),
    (
        "ライブラリのソースにあるアーキテクチャ判定と、その git 履歴",
        "The architecture gates in the libraries' source and their git history",
    ),
    (
        "ソースのどの判定がこのターゲットを通すか、誰がいつそれを加えたか",
        "which gates in the source let this target through, and who added them when",
    ),
);

const SELECTION: (Pair, Pair, Pair) = (
    (
        "ライブラリはどの solver・カーネルを選ぶか。なぜそれなのか",
        "Which solver or kernel does the library choose, and why?",
    ),
    (
        "ライブラリの実行ログ(MIOpen・rocBLAS)と、ソースから導いた選択モデルの予測",
        "The libraries' run-time logs (MIOpen, rocBLAS) and the predictions of the selection model derived from source",
    ),
    (
        "ライブラリが自ら選んだ経路と、その選択をソースが説明できるかどうか",
        "which path the library chose by itself, and whether the source explains the choice",
    ),
);

const FALLBACK: (Pair, Pair, Pair) = (
    (
        "本命の経路が使えないとき何が起きるか(棄却・強制・失敗)",
        "What happens when the fast path is unavailable: refused, forced, failing?",
    ),
    (
        "solver を強制した実行と、それぞれが失敗する段階(適用判定・ビルド・実行時)",
        "Runs with a forced solver, and the stage at which each fails (applicability, build, run time)",
    ),
    (
        "本命の経路がどの段階で落ち、代わりにどの経路が走るか",
        "at which stage the fast path drops out, and which path runs instead",
    ),
);

const DISPATCH: (Pair, Pair, Pair) = (
    (
        "実行時に GPU へ届いているのは何か",
        "What reaches the GPU at run time?",
    ),
    (
        "カーネルのトレース(rocprofv3)とシステムコール(strace)",
        "Kernel traces (rocprofv3) and system calls (strace)",
    ),
    (
        "どのカーネルが実際に GPU へ投入され、どのライブラリのコードが読まれたか",
        "which kernels were actually dispatched to the GPU, and which libraries' code was read",
    ),
);

const APPLICATION: (Pair, Pair, Pair) = (
    (
        "アプリケーションは計算を GPU に載せているか。どれだけ速いか",
        "Does the application put its work on the GPU, and how fast does it run?",
    ),
    (
        "Ollama のサーバーログと、条件を揃えた A/B 実行(レーン)",
        "Ollama's server logs and A/B runs under matched conditions (lanes)",
    ),
    (
        "モデルの層が GPU と CPU にどう配置され、機種の間で速度がどれだけ違うか",
        "how a model's layers are placed on the GPU and the CPU, and how speed differs between machines",
    ),
);

const TRAIL: (Pair, Pair, Pair) = (
    (
        "設定値はコードの中をどこまで届くか",
        "Where does a setting travel in the code?",
    ),
    (
        "アプリケーションとライブラリのソースをたどった経路(follow)",
        "A trail through the application's and libraries' source (follow)",
    ),
    (
        "設定のどの読み取りが経路を決めるか",
        "which reads of a setting decide the path",
    ),
);

const OTHER: (Pair, Pair, Pair) = (
    ("その他の観測", "Other observations"),
    (
        "上のどの段階にも属さない主張",
        "Claims that belong to none of the steps above",
    ),
    ("その他の観測", "further observations"),
);

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(rule: &str, layer: Option<Layer>, sel: Option<SelectionKind>) -> Claim {
        Claim {
            derived_by: rule.into(),
            layer,
            selection: sel,
            ..Claim::default()
        }
    }

    #[test]
    fn every_rule_has_a_step_of_its_own() {
        for r in rule::ALL.iter().chain([&rule::EXPLAIN_GEMM]) {
            assert_ne!(Step::of_rule(r), Step::Other, "{r}");
        }
        assert_eq!(Step::of_rule("derive.not.a.rule"), Step::Other);
    }

    #[test]
    fn a_forced_run_answers_the_fallback_question() {
        let natural = claim(rule::CASE_OUTCOME, Some(Layer::Selection), None);
        let forced = claim(
            rule::CASE_OUTCOME,
            Some(Layer::Selection),
            Some(SelectionKind::Forced),
        );
        assert_eq!(Step::of(&natural), Step::Selection);
        assert_eq!(Step::of(&forced), Step::Fallback);
        // A forced run's trace is still what reached the GPU.
        let trace = claim(rule::TRACE_DISPATCH, None, Some(SelectionKind::Forced));
        assert_eq!(Step::of(&trace), Step::Dispatch);
    }

    #[test]
    fn a_person_s_claim_goes_by_its_place_in_the_stack() {
        let mut c = claim("", Some(Layer::Build), None);
        assert_eq!(Step::of(&c), Step::Shipped);
        c.floor = Some(Floor::Application);
        assert_eq!(Step::of(&c), Step::Application);
        c.layer = Some(Layer::Fallback);
        assert_eq!(Step::of(&c), Step::Fallback);
        assert_eq!(Step::of(&claim("", None, None)), Step::Other);
    }

    #[test]
    fn every_rule_says_what_would_settle_its_open_claims() {
        for r in rule::ALL.iter().chain([&rule::EXPLAIN_GEMM]) {
            let t = settled_by(r).unwrap_or_else(|| panic!("{r}"));
            assert!(!t.ja.is_empty() && !t.en.is_empty(), "{r}");
        }
        assert_eq!(settled_by(""), None);
    }

    #[test]
    fn every_step_speaks_both_languages() {
        for s in Step::ALL {
            let t = s.text();
            for x in [&t.question, &t.point, &t.understand] {
                assert!(!x.ja.trim().is_empty() && !x.en.trim().is_empty(), "{s:?}");
            }
        }
    }
}
