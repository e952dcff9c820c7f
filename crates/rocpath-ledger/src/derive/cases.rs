//! Rules over runtime cases (`rocpath.case/1`): each case's outcome, and the cases grouped by
//! world, library and version, operation, data type and selection — and, when that group
//! splits, by layout and mode too.
//!
//! A forced case only ever joins a group of the same forced solver: a natural group never
//! counts a forced run, so adding forced cases never changes a natural claim.

use super::digest::{Doc, ObsDigest};
use super::text::{self, m_of_n, num};
use super::{Finding, record_support, rule};
use crate::model::*;
use rocpath_docs::case::CaseReport;
use rocpath_docs::conv::{DataType, Direction};
use rocpath_evidence::{Class, Proof};
use std::collections::BTreeMap;

/// What the rules read of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseFact {
    /// Observation id.
    pub obs: String,
    /// JSON pointer of the case's outcome record.
    pub pointer: String,
    /// Case name.
    pub name: String,
    /// World (processor).
    pub world: String,
    /// Library and version (`MIOpen 3.5.1`, `rocBLAS`).
    pub library: String,
    /// `conv_fwd`, `conv_bwd`, `conv_wrw`, `gemm`, or empty.
    pub op: String,
    /// Input data type (`INT8`).
    pub dtype: String,
    /// Input layout (`NCHW`).
    pub layout: String,
    /// The full problem the group keys on: direction, input/weight/output types, their
    /// casts and layouts (`F|INT8/INT8/INT32|-/-/-|NCHW/NCHW/NCHW`).
    pub problem: String,
    /// The problem's shape (its find-db key), to tell cases of one problem from others.
    pub shape: String,
    /// How the program reached the library: `MIOpenDriver`, `C API`, or empty.
    pub api: String,
    /// `natural`, `find` (natural, with a search) or `forced`.
    pub mode: String,
    /// The forced solver.
    pub forced: Option<String>,
    /// Outcome kind.
    pub outcome: String,
    /// The solver that ran.
    pub selected: Option<String>,
    /// The producer's reason.
    pub reason: String,
    /// The outcome's class.
    pub class: Class,
}

impl CaseFact {
    /// What the case did, or `None` when its record lacks the value the sentence needs.
    fn predicate(&self) -> Option<Text> {
        text::outcome_predicate(&self.outcome, self.selected.as_deref())
    }
    /// What the case did, for a note: the predicate, or that the record names no solver.
    fn note(&self) -> Text {
        self.predicate()
            .unwrap_or_else(|| text::outcome_unnamed(&self.outcome))
    }
    /// What the case shows, as one value to count (`natural ConvDirectNaiveConvFwd`).
    fn value(&self) -> String {
        match &self.selected {
            Some(s)
                if matches!(
                    self.outcome.as_str(),
                    "natural" | "fallback_observed" | "success"
                ) =>
            {
                format!("{} {s}", self.outcome)
            }
            _ => self.outcome.clone(),
        }
    }
    fn selection(&self) -> String {
        match &self.forced {
            Some(f) => format!("forced {f}"),
            None => "natural".into(),
        }
    }
}

fn version3(v: &str) -> String {
    let parts: Vec<&str> = v
        .split(['.', '-', '+'])
        .take_while(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .take(3)
        .collect();
    parts.join(".")
}

/// A problem's data type with its output cast (`INT8 (out cast FP32)`).
pub fn data_type(input: &str, out_cast: &str) -> String {
    if out_cast.is_empty() {
        input.to_string()
    } else {
        format!("{input} (out cast {out_cast})")
    }
}

/// What a case's first problem says: the data type as worded (`INT8 (out INT32)`), the input
/// layout, the full problem the groups key on, and the shape (find-db key).
struct ProblemFacts {
    dtype: String,
    layout: String,
    full: String,
    shape: String,
}

fn problem_facts(c: &CaseReport) -> ProblemFacts {
    let Some(first) = c.problems.first() else {
        return ProblemFacts {
            dtype: String::new(),
            layout: String::new(),
            full: String::new(),
            shape: String::new(),
        };
    };
    let p = &first.problem;
    let [input, _, output] = p.types.map(DataType::key_name);
    let cast = |t: Option<DataType>| t.map_or("-", DataType::key_name);
    let worded = if output == input {
        input.to_string()
    } else {
        format!("{input} (out {output})")
    };
    let layouts: Vec<&str> = p
        .layouts
        .iter()
        .map(|l| if l.is_empty() { "-" } else { l.as_str() })
        .collect();
    ProblemFacts {
        dtype: data_type(&worded, p.casts[2].map_or("", DataType::key_name)),
        layout: p.layouts[0].clone(),
        full: [
            p.direction.letter().to_string(),
            p.types.map(DataType::key_name).join("/"),
            p.casts.map(cast).join("/"),
            layouts.join("/"),
        ]
        .join("|"),
        shape: first.key.clone(),
    }
}

/// How the run reached the library and whether it searched: (`api`, `mode`).
fn api_and_mode(c: &CaseReport, forced: bool) -> (&'static str, &'static str) {
    let (line, searched_by_env) = c.meta.as_ref().map_or(("", false), |m| {
        (
            m.command_line.as_str(),
            m.env.contains_key("MIOPEN_FIND_ENFORCE"),
        )
    });
    let cmd = format!(" {line} ");
    let search = cmd.contains(" -s 1 ") || cmd.contains(" --search 1 ") || searched_by_env;
    let mode = match (forced, search) {
        (true, _) => "forced",
        (false, true) => "find",
        (false, false) => "natural",
    };
    let api = if cmd.contains("MIOpenDriver") {
        "MIOpenDriver"
    } else if !c.capi_blocks.is_empty() {
        "C API"
    } else {
        ""
    };
    (api, mode)
}

/// Reads the facts of one case.
pub fn fact(o: &ObsDigest, i: usize, c: &CaseReport) -> CaseFact {
    let miopen = c
        .libraries
        .iter()
        .find(|l| l.what == "miopen_version")
        .map(|l| version3(&l.value));
    let problem = c.problems.first().map(|p| &p.problem);
    let gemm = !c.gemm_calls.is_empty();
    let library = match (&miopen, problem) {
        (Some(v), _) if !v.is_empty() => format!("MIOpen {v}"),
        (_, Some(_)) => "MIOpen".into(),
        (_, None) if gemm => "rocBLAS".into(),
        _ => String::new(),
    };
    let op = match problem.map(|p| p.direction) {
        Some(Direction::Forward) => "conv_fwd",
        Some(Direction::BackwardData) => "conv_bwd",
        Some(Direction::BackwardWeights) => "conv_wrw",
        None if gemm => "gemm",
        None => "",
    };
    let forced = c.forced.as_ref().map(|f| f.solver.clone());
    let (api, mode) = api_and_mode(c, forced.is_some());
    let pf = problem_facts(c);
    CaseFact {
        obs: o.id.clone(),
        pointer: format!("/cases/{i}/outcome"),
        name: if c.name.is_empty() {
            o.id.clone()
        } else {
            c.name.clone()
        },
        world: match &c.device {
            Some(d) => d.arch.processor.clone(),
            None => o.world.clone(),
        },
        library,
        op: op.into(),
        dtype: pf.dtype,
        layout: pf.layout,
        problem: pf.full,
        shape: pf.shape,
        api: api.into(),
        mode: mode.into(),
        forced,
        outcome: c.outcome.kind.as_str().into(),
        selected: c.selected.as_ref().map(|s| s.solver.clone()),
        reason: c.outcome.reason.clone(),
        class: c.outcome.evidence.class,
    }
}

/// Every case of the observations, one per case name (a name seen again in a later
/// observation replaces the earlier one, so a case imported twice counts once).
pub fn facts(obs: &[ObsDigest]) -> Vec<CaseFact> {
    let mut by_name: BTreeMap<String, CaseFact> = BTreeMap::new();
    for o in obs {
        if let Doc::Case(d) = &o.doc {
            for (i, c) in d.cases.iter().enumerate() {
                let f = fact(o, i, c);
                by_name.insert(f.name.clone(), f);
            }
        }
    }
    by_name.into_values().collect()
}

/// The subject of a statement: `natural INT8 NCHW forward convolution on gfx900 with MIOpen
/// 3.5.1`, and its Japanese frame (`gfx900 の MIOpen 3.5.1 で、…`).
struct Subject {
    ja_where: String,
    ja_what: String,
    en: String,
}

fn subject(f: &CaseFact) -> Subject {
    let layout = true;
    let op = text::operation(&f.op);
    let mut what: Vec<String> = Vec::new();
    if !f.dtype.is_empty() {
        what.push(f.dtype.clone());
    }
    if layout && !f.layout.is_empty() {
        what.push(f.layout.clone());
    }
    let (op_ja, op_en) = if f.op.is_empty() {
        ("実行".to_string(), "run".to_string())
    } else {
        (op.ja, op.en)
    };
    let en_what = [what.join(" "), op_en].join(" ").trim().to_string();
    let ja_what = [what.join(" "), op_ja].join(" ").trim().to_string();
    let mut en_where = String::new();
    let mut ja_where = String::new();
    if !f.world.is_empty() {
        en_where.push_str(&format!(" on {}", f.world));
        ja_where.push_str(&format!("{} の", f.world));
    }
    if !f.library.is_empty() {
        en_where.push_str(&format!(" with {}", f.library));
        ja_where.push_str(&format!(" {}", f.library));
    }
    if !f.api.is_empty() {
        en_where.push_str(&format!(" through {}", api_en(&f.api)));
        ja_where.push_str(&format!("({} 経由)", f.api));
    }
    let search_en = if f.mode == "find" && layout {
        " (with search)"
    } else {
        ""
    };
    let search_ja = if f.mode == "find" && layout {
        "探索付き・"
    } else {
        ""
    };
    let (ja_what, en) = match &f.forced {
        Some(s) => (
            format!("{ja_what}に {s} を強制すると"),
            format!("forced {s} on {en_what}{en_where}"),
        ),
        None => (
            format!("{search_ja}自然選択の {ja_what}は"),
            format!("natural{search_en} {en_what}{en_where}"),
        ),
    };
    Subject {
        ja_where: if ja_where.is_empty() {
            String::new()
        } else {
            format!("{} で、", ja_where.trim())
        },
        ja_what,
        en,
    }
}

fn api_en(api: &str) -> String {
    match api {
        "C API" => "the C API".into(),
        other => other.into(),
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The layer a case is about: a fallback the library reported, or a run that ended in
/// MIOpen's naive reference solvers (`ConvDirectNaiveConv*`, which apply to nearly every
/// problem and are what remains when no tuned or device-specific solver applies:
/// `src/solver/conv_direct_naive_conv_fwd.cpp@2d1fd997`), is the fallback; a kernel that could
/// not be built for the device is the build layer; the rest is selection.
fn layer_of(f: &CaseFact) -> Layer {
    let naive = f.selected.as_deref().is_some_and(|s| {
        s.rsplit('/')
            .next()
            .unwrap_or(s)
            .starts_with("ConvDirectNaiveConv")
    });
    match f.outcome.as_str() {
        "fallback_observed" => Layer::Fallback,
        "natural" | "success" if naive => Layer::Fallback,
        "build_failure" => Layer::Build,
        _ => Layer::Selection,
    }
}

fn selection_kind(f: &CaseFact) -> SelectionKind {
    if f.forced.is_some() {
        SelectionKind::Forced
    } else {
        SelectionKind::Natural
    }
}

/// One finding per case: its outcome. A case whose record does not name what it selected has
/// no claim (its observation still shows it).
pub fn outcome_findings(facts: &[CaseFact]) -> Vec<Finding> {
    facts
        .iter()
        .filter_map(|f| {
            let s = subject(f);
            let p = f.predicate()?;
            let reason = if f.reason.is_empty() {
                String::new()
            } else {
                format!(" ({})", f.reason)
            };
            let statement = Text::new(
                format!("{}: {}{} {}。", f.name, s.ja_where, s.ja_what, p.ja),
                format!("{}: {} {}{reason}.", f.name, s.en, p.en),
            );
            Some(Finding {
                rule: rule::CASE_OUTCOME,
                key: f.name.clone(),
                statement,
                class: f.class,
                kind: Proof::RuntimeVerified,
                world: f.world.clone(),
                floor: Some(Floor::MathLibrary),
                layer: Some(layer_of(f)),
                selection: Some(selection_kind(f)),
                agree: 1,
                of: 1,
                exceptions: Vec::new(),
                support: vec![record_support(&f.obs, &f.pointer, Text::new(p.ja, p.en))],
                cases: vec![f.obs.clone()],
            })
        })
        .collect()
}

/// The group findings: cases of one full problem — world, library and version, direction,
/// input/weight/output types with their casts and layouts, selection (natural, with a search,
/// or one forced solver) and API path —, two cases or more.
pub fn group_findings(facts: &[CaseFact]) -> Vec<Finding> {
    let mut groups: BTreeMap<String, Vec<&CaseFact>> = BTreeMap::new();
    for f in facts {
        if f.world.is_empty() || f.op.is_empty() {
            continue;
        }
        let key = [
            f.world.as_str(),
            &f.library,
            &f.op,
            &f.problem,
            &f.selection(),
            &f.mode,
            &f.api,
        ]
        .join("|");
        groups.entry(key).or_default().push(f);
    }
    groups
        .iter()
        .filter(|(_, m)| m.len() >= 2)
        .filter_map(|(key, members)| group(key, members))
        .collect()
}

/// How a group's cases relate when they do not all agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    /// They agree.
    None,
    /// They are different problems (shapes): the outcome depends on the problem. Not a
    /// limit of the observation.
    Heterogeneous,
    /// One problem, different outcomes.
    SameProblem,
}

fn split_of(members: &[&CaseFact], all_agree: bool) -> Split {
    if all_agree {
        return Split::None;
    }
    let mut shapes: Vec<&str> = members.iter().map(|f| f.shape.as_str()).collect();
    shapes.sort_unstable();
    shapes.dedup();
    if shapes.len() == 1 && !shapes[0].is_empty() {
        Split::SameProblem
    } else {
        Split::Heterogeneous
    }
}

/// The group's class: `limited` only when a case's own record is limited (a limit of the
/// observation); cases that agree, or different problems ending differently, keep the class
/// of their records; one problem ending differently leaves the group unresolved.
fn group_class(members: &[&CaseFact], split: Split) -> Class {
    let weakest = Class::ALL
        .into_iter()
        .rev()
        .find(|c| members.iter().any(|f| f.class == *c))
        .unwrap_or(Class::Unresolved);
    match (weakest, split) {
        (Class::Limited, _) => Class::Limited,
        (_, Split::SameProblem) => Class::Unresolved,
        (w, _) => w,
    }
}

/// One group's finding; `None` when the outcome most cases share lacks the value its sentence
/// needs.
fn group(key: &str, members: &[&CaseFact]) -> Option<Finding> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for f in members {
        *counts.entry(f.value()).or_default() += 1;
    }
    let (top, top_n) = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, v)| (k.clone(), *v))
        .unwrap_or_default();
    let n = members.len() as u64;
    let lead = members
        .iter()
        .find(|f| f.value() == top)
        .copied()
        .unwrap_or(members[0]);
    let exceptions: Vec<String> = members
        .iter()
        .filter(|f| f.value() != top)
        .map(|f| format!("{}: {}", f.name, f.note().en))
        .collect();
    let split = split_of(members, exceptions.is_empty());
    let statement = group_statement(lead, members, &counts, (top_n, n), split)?;
    let support = members
        .iter()
        .map(|f| {
            let p = f.note();
            let tag = if f.value() == top { "" } else { " [exception]" };
            record_support(
                &f.obs,
                &f.pointer,
                Text::new(
                    format!("{}: {}{tag}", f.name, p.ja),
                    format!("{}: {}{tag}", f.name, p.en),
                ),
            )
        })
        .collect();
    let mut cases: Vec<String> = members.iter().map(|f| f.obs.clone()).collect();
    cases.sort();
    cases.dedup();
    Some(Finding {
        rule: rule::CASE_GROUP,
        key: key.to_string(),
        statement,
        class: group_class(members, split),
        kind: Proof::RuntimeVerified,
        world: lead.world.clone(),
        floor: Some(Floor::MathLibrary),
        layer: Some(layer_of(lead)),
        selection: Some(selection_kind(lead)),
        agree: top_n,
        of: n,
        exceptions,
        support,
        cases,
    })
}

/// The statement of a group: "… selected S in N of N cases", or for a split, what split it.
fn group_statement(
    lead: &CaseFact,
    members: &[&CaseFact],
    counts: &BTreeMap<String, u64>,
    (top_n, n): (u64, u64),
    split: Split,
) -> Option<Text> {
    let s = subject(lead);
    let split_list = |sep_ja: &str, sep_en: &str| {
        let v: Vec<(String, String)> = counts
            .iter()
            .map(|(v, c)| (format!("{v} {}", num(*c)), format!("{v} {}", num(*c))))
            .collect();
        (
            v.iter()
                .map(|x| x.0.clone())
                .collect::<Vec<_>>()
                .join(sep_ja),
            v.iter()
                .map(|x| x.1.clone())
                .collect::<Vec<_>>()
                .join(sep_en),
        )
    };
    let exceptions = |sep: &str, ja: bool| {
        members
            .iter()
            .filter(|f| f.value() != lead.value())
            .map(|f| {
                let p = f.note();
                format!("{}: {}", f.name, if ja { p.ja } else { p.en })
            })
            .collect::<Vec<_>>()
            .join(sep)
    };
    match split {
        Split::None => {
            let p = lead.predicate()?;
            let m = m_of_n(top_n, n, "cases");
            Some(Text::new(
                format!("{}{} {} {}。", s.ja_where, s.ja_what, m.ja, p.ja),
                format!("{} {} {}.", capitalized(&s.en), p.en, m.en),
            ))
        }
        Split::Heterogeneous => {
            let mut shapes: Vec<&str> = members.iter().map(|f| f.shape.as_str()).collect();
            shapes.sort_unstable();
            shapes.dedup();
            let (ja, en) = split_list("、", ", ");
            Some(Text::new(
                format!(
                    "{}{} 問題(形状)によって結果が異なる — {} 件・{} 形状: {ja}。",
                    s.ja_where,
                    s.ja_what,
                    num(n),
                    num(shapes.len() as u64)
                ),
                format!(
                    "{}: the outcome differs by problem — {} cases of {} shapes: {en}.",
                    capitalized(&s.en),
                    num(n),
                    num(shapes.len() as u64)
                ),
            ))
        }
        Split::SameProblem => {
            let p = lead.predicate()?;
            let m = m_of_n(top_n, n, "cases");
            Some(Text::new(
                format!(
                    "{}{} 同じ問題で {} {}。例外: {}。",
                    s.ja_where,
                    s.ja_what,
                    m.ja,
                    p.ja,
                    exceptions("、", true)
                ),
                format!(
                    "{} {} {} of the same problem. Exceptions: {}.",
                    capitalized(&s.en),
                    p.en,
                    m.en,
                    exceptions("; ", false)
                ),
            ))
        }
    }
}

/// The case rules.
pub fn findings(obs: &[ObsDigest]) -> Vec<Finding> {
    let facts = facts(obs);
    let mut out = outcome_findings(&facts);
    out.extend(group_findings(&facts));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(name: &str, forced: Option<&str>, outcome: &str, selected: Option<&str>) -> CaseFact {
        CaseFact {
            obs: format!("o-{name}"),
            pointer: "/cases/0/outcome".into(),
            name: name.into(),
            world: "gfx900".into(),
            library: "MIOpen 3.5.1".into(),
            op: "conv_fwd".into(),
            dtype: "INT8".into(),
            layout: "NCHW".into(),
            problem: "F|INT8/INT8/INT8|-/-/-|NCHW/NCHW/NCHW".into(),
            shape: format!("64-56-56-3x3-64-56-56-{name}-NCHW-INT8-F"),
            api: "MIOpenDriver".into(),
            mode: if forced.is_some() {
                "forced"
            } else {
                "natural"
            }
            .into(),
            forced: forced.map(str::to_string),
            outcome: outcome.into(),
            selected: selected.map(str::to_string),
            reason: String::new(),
            class: Class::Confirmed,
        }
    }

    #[test]
    fn the_layer_says_fallback_for_the_naive_solvers_and_build_for_a_kernel_not_built() {
        let naive = fact("a", None, "natural", Some("85/ConvDirectNaiveConvFwd"));
        assert_eq!(layer_of(&naive), Layer::Fallback);
        let tuned = fact("b", None, "natural", Some("ConvOclDirectFwd"));
        assert_eq!(layer_of(&tuned), Layer::Selection);
        let reported = fact("c", None, "fallback_observed", Some("GemmFwdRest"));
        assert_eq!(layer_of(&reported), Layer::Fallback);
        let forced = fact("d", Some("ConvMlirIgemmFwd"), "build_failure", None);
        assert_eq!(layer_of(&forced), Layer::Build);
        let rejected = fact(
            "e",
            Some("ConvCkIgemmFwdV6r1DlopsNchw"),
            "applicability_reject",
            None,
        );
        assert_eq!(layer_of(&rejected), Layer::Selection);
    }

    #[test]
    fn natural_groups_never_count_forced_runs() {
        let naive = Some("ConvDirectNaiveConvFwd");
        let mut facts = vec![
            fact("a", None, "natural", naive),
            fact("b", None, "natural", naive),
        ];
        let before = group_findings(&facts);
        assert_eq!(before.len(), 1);
        assert_eq!(before[0].class, Class::Confirmed);
        assert_eq!(
            before[0].statement.en,
            "Natural INT8 NCHW forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver selected ConvDirectNaiveConvFwd in 2 of 2 cases."
        );
        facts.push(fact(
            "f",
            Some("ConvCkIgemmFwdV6r1DlopsNchw"),
            "applicability_reject",
            None,
        ));
        let after = group_findings(&facts);
        assert_eq!(after, before);
    }

    #[test]
    fn different_problems_ending_differently_are_not_limited() {
        // The FP32 cases of the Vega64 logs: three shapes, three solvers.
        let mut facts = vec![
            fact("1x1", None, "natural", Some("ConvAsm1x1U")),
            fact("3x3", None, "natural", Some("ConvBinWinograd3x3U")),
            fact("g2", None, "natural", Some("ConvBinWinogradRxSf2x3")),
        ];
        for f in &mut facts {
            f.dtype = "FP32".into();
            f.problem = "F|FP32/FP32/FP32|-/-/-|NCHW/NCHW/NCHW".into();
        }
        let g = &group_findings(&facts)[0];
        assert_eq!(g.class, Class::Confirmed);
        assert_eq!(
            g.statement.en,
            "Natural FP32 NCHW forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver: the outcome differs by problem — 3 cases of 3 shapes: natural ConvAsm1x1U 1, natural ConvBinWinograd3x3U 1, natural ConvBinWinogradRxSf2x3 1."
        );
        assert!(g.statement.ja.contains("問題(形状)によって結果が異なる"));
        // A case whose own record is limited makes the group limited: that is a limit.
        facts[0].class = Class::Limited;
        assert_eq!(group_findings(&facts)[0].class, Class::Limited);
    }

    #[test]
    fn one_problem_ending_differently_is_unresolved_naming_the_exception() {
        let naive = Some("ConvDirectNaiveConvFwd");
        let mut facts = vec![
            fact("a", None, "natural", naive),
            fact("b", None, "natural", naive),
            fact("c", None, "natural", Some("GemmFwdRest")),
        ];
        for f in &mut facts {
            f.shape = "64-56-56-3x3-64-56-56-32-NCHW-INT8-F".into();
        }
        let g = &group_findings(&facts)[0];
        assert_eq!(g.class, Class::Unresolved);
        assert_eq!((g.agree, g.of), (2, 3));
        assert_eq!(g.exceptions, ["c: selected GemmFwdRest"]);
        assert!(
            g.statement.en.ends_with(
                "in 2 of 3 cases of the same problem. Exceptions: c: selected GemmFwdRest."
            ),
            "{}",
            g.statement.en
        );
        assert!(
            g.statement.ja.contains("3 件中 2 件で"),
            "{}",
            g.statement.ja
        );
    }

    #[test]
    fn groups_key_on_the_full_problem() {
        // The natural INT8 driver cases and a C-API probe whose output tensor is INT32
        // (`…-INT8INT8INT32`): different problems, never one group.
        let naive = Some("ConvDirectNaiveConvFwd");
        let mut facts = vec![
            fact("a", None, "natural", naive),
            fact("b", None, "natural", naive),
            fact("probe", None, "natural", Some("GemmFwd1x1_0_1_int8")),
            fact("probe2", None, "natural", Some("GemmFwd1x1_0_1_int8")),
            fact("nhwc", None, "natural", naive),
            fact("search", None, "natural", naive),
        ];
        for f in &mut facts[2..4] {
            f.problem = "F|INT8/INT8/INT32|-/-/-|NCHW/NCHW/NCHW".into();
            f.dtype = "INT8 (out INT32)".into();
            f.api = "C API".into();
        }
        facts[4].problem = "F|INT8/INT8/INT8|-/-/-|NHWC/NHWC/NHWC".into();
        facts[5].mode = "find".into();
        let g = group_findings(&facts);
        assert_eq!(g.len(), 2, "{g:#?}");
        assert!(
            g.iter()
                .all(|g| g.class == Class::Confirmed && g.exceptions.is_empty())
        );
        assert_eq!((g[0].agree, g[0].of), (2, 2));
        let probe = g.iter().find(|g| g.statement.en.contains("INT32")).unwrap();
        assert_eq!(
            probe.statement.en,
            "Natural INT8 (out INT32) NCHW forward convolution on gfx900 with MIOpen 3.5.1 through the C API selected GemmFwd1x1_0_1_int8 in 2 of 2 cases."
        );
    }

    #[test]
    fn forced_groups_say_forced() {
        let facts = vec![
            fact("x", Some("S"), "applicability_reject", None),
            fact("y", Some("S"), "applicability_reject", None),
        ];
        let g = &group_findings(&facts)[0];
        assert_eq!(g.selection, Some(SelectionKind::Forced));
        assert_eq!(
            g.statement.en,
            "Forced S on INT8 NCHW forward convolution on gfx900 with MIOpen 3.5.1 through MIOpenDriver was rejected as not applicable in 2 of 2 cases."
        );
        let o = &outcome_findings(&facts)[0];
        assert!(
            o.statement.en.starts_with("x: forced S on INT8 NCHW"),
            "{}",
            o.statement.en
        );
        assert!(
            o.statement.ja.contains("S を強制すると"),
            "{}",
            o.statement.ja
        );
    }

    #[test]
    fn versions() {
        assert_eq!(version3("3.5.1.5b515cf1bca-dirty"), "3.5.1");
        assert_eq!(version3("2.19.0"), "2.19.0");
        assert_eq!(version3("abc"), "");
    }
}
