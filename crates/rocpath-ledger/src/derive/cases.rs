//! Rules over runtime cases (`rocpath.case/1`): each case's outcome, and the cases grouped by
//! world, library and version, operation, data type and selection — and, when that group
//! splits, by layout and mode too.
//!
//! A forced case only ever joins a group of the same forced solver: a natural group never
//! counts a forced run, so adding forced cases never changes a natural claim.

use super::digest::{CaseD, Doc, ObsDigest};
use super::text::{self, m_of_n, num};
use super::{Finding, record_support, rule};
use crate::model::*;
use crate::schemas::processor_of;
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

/// Reads the facts of one case.
pub fn fact(o: &ObsDigest, i: usize, c: &CaseD) -> CaseFact {
    let lib = |what: &str| {
        c.libraries
            .iter()
            .find(|l| l.what.as_str() == what)
            .map(|l| l.value.as_str().to_string())
    };
    let problem = c.problems.first().and_then(|p| p.problem.clone());
    let miopen = lib("miopen_version").map(|v| version3(&v));
    let library = match (&miopen, &problem, c.gemm_calls.0) {
        (Some(v), _, _) if !v.is_empty() => format!("MIOpen {v}"),
        (_, Some(_), _) => "MIOpen".into(),
        (_, None, n) if n > 0 => "rocBLAS".into(),
        _ => String::new(),
    };
    let op = match problem.as_ref().map(|p| p.direction.as_str()) {
        Some("F") => "conv_fwd",
        Some("B") => "conv_bwd",
        Some("W") => "conv_wrw",
        _ if c.gemm_calls.0 > 0 => "gemm",
        _ => "",
    };
    let first = |v: Option<&Vec<super::digest::Loose>>| {
        v.and_then(|v| v.first())
            .map(|l| l.as_str().to_string())
            .unwrap_or_default()
    };
    let forced = c
        .forced
        .as_ref()
        .map(|f| f.solver.0.clone().unwrap_or_else(|| "a solver".into()));
    let meta = c.meta.clone().unwrap_or_default();
    let cmd = format!(" {} ", meta.command_line.as_str());
    let search = cmd.contains(" -s 1 ")
        || cmd.contains(" --search 1 ")
        || meta.env.contains_key("MIOPEN_FIND_ENFORCE");
    let mode = match (&forced, search) {
        (Some(_), _) => "forced",
        (None, true) => "find",
        (None, false) => "natural",
    };
    let outcome = c.outcome.clone().unwrap_or_default();
    let arch = c
        .device
        .as_ref()
        .map(|d| d.arch.as_str())
        .unwrap_or_default();
    CaseFact {
        obs: o.id.clone(),
        pointer: format!("/cases/{i}/outcome"),
        name: c.name.0.clone().unwrap_or_else(|| o.id.clone()),
        world: if arch.is_empty() {
            o.world.clone()
        } else {
            processor_of(arch)
        },
        library,
        op: op.into(),
        dtype: data_type(
            &first(problem.as_ref().map(|p| &p.types)),
            problem
                .as_ref()
                .and_then(|p| p.casts.get(2))
                .map(|c| c.as_str())
                .unwrap_or_default(),
        ),
        layout: first(problem.as_ref().map(|p| &p.layouts)),
        mode: mode.into(),
        forced,
        outcome: outcome.kind.0.unwrap_or_else(|| "undetermined".into()),
        selected: c.selected.as_ref().and_then(|s| s.solver.0.clone()),
        reason: outcome.reason.0.unwrap_or_default(),
        class: outcome.evidence.class.unwrap_or(Class::Unresolved),
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

fn subject(f: &CaseFact, layout: bool) -> Subject {
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

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn layer_of(outcome: &str) -> Layer {
    if outcome == "fallback_observed" {
        Layer::Fallback
    } else {
        Layer::Selection
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
            let s = subject(f, true);
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
                layer: Some(layer_of(&f.outcome)),
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

/// The group findings: by world, library, operation, data type and selection; where such a
/// group splits by layout or mode, each part of two cases or more as well.
pub fn group_findings(facts: &[CaseFact]) -> Vec<Finding> {
    let mut broad: BTreeMap<String, Vec<&CaseFact>> = BTreeMap::new();
    for f in facts {
        if f.world.is_empty() || f.op.is_empty() {
            continue;
        }
        let key = [
            f.world.as_str(),
            &f.library,
            &f.op,
            &f.dtype,
            &f.selection(),
        ]
        .join("|");
        broad.entry(key).or_default().push(f);
    }
    let mut out = Vec::new();
    for (key, members) in &broad {
        if members.len() < 2 {
            continue;
        }
        out.extend(group(key, members, false));
        let mut fine: BTreeMap<String, Vec<&CaseFact>> = BTreeMap::new();
        for f in members {
            fine.entry(format!("{key}|{}|{}", f.layout, f.mode))
                .or_default()
                .push(f);
        }
        if fine.len() > 1 {
            for (k, m) in &fine {
                if m.len() >= 2 {
                    out.extend(group(k, m, true));
                }
            }
        }
    }
    out
}

/// One group's finding; `None` when the outcome most cases share lacks the value its sentence
/// needs.
fn group(key: &str, members: &[&CaseFact], fine: bool) -> Option<Finding> {
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
    let s = subject(lead, fine);
    let exceptions: Vec<String> = members
        .iter()
        .filter(|f| f.value() != top)
        .map(|f| format!("{}: {}", f.name, f.note().en))
        .collect();
    let all_agree = exceptions.is_empty();
    let statement = if top_n * 2 > n {
        let p = lead.predicate()?;
        let m = m_of_n(top_n, n, "cases");
        let mut st = Text::new(
            format!("{}{} {} {}。", s.ja_where, s.ja_what, m.ja, p.ja),
            format!("{} {} {}.", capitalized(&s.en), p.en, m.en),
        );
        if !all_agree {
            st.ja
                .push_str(&format!("例外: {}。", exceptions.join("、")));
            st.en
                .push_str(&format!(" Exceptions: {}.", exceptions.join("; ")));
        }
        st
    } else {
        let split: Vec<String> = counts
            .iter()
            .map(|(v, c)| format!("{v} {}", num(*c)))
            .collect();
        Text::new(
            format!(
                "{}{} {} 件で一つの結果にまとまらない: {}。",
                s.ja_where,
                s.ja_what,
                num(n),
                split.join("、")
            ),
            format!(
                "{} shows no single outcome across {} cases: {}.",
                capitalized(&s.en),
                num(n),
                split.join(", ")
            ),
        )
    };
    let class = if !all_agree {
        Class::Limited
    } else if members.iter().all(|f| f.class == Class::Confirmed) {
        Class::Confirmed
    } else {
        members
            .iter()
            .map(|f| f.class)
            .find(|c| *c != Class::Confirmed)
            .unwrap_or(Class::Unresolved)
    };
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
        class,
        kind: Proof::RuntimeVerified,
        world: lead.world.clone(),
        floor: Some(Floor::MathLibrary),
        layer: Some(layer_of(&lead.outcome)),
        selection: Some(selection_kind(lead)),
        agree: top_n,
        of: n,
        exceptions,
        support,
        cases,
    })
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
            "Natural INT8 forward convolution on gfx900 with MIOpen 3.5.1 selected ConvDirectNaiveConvFwd in 2 of 2 cases."
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
    fn a_contradicting_case_makes_a_limited_claim_naming_it() {
        let naive = Some("ConvDirectNaiveConvFwd");
        let facts = vec![
            fact("a", None, "natural", naive),
            fact("b", None, "natural", naive),
            fact("c", None, "natural", Some("GemmFwdRest")),
        ];
        let g = &group_findings(&facts)[0];
        assert_eq!(g.class, Class::Limited);
        assert_eq!((g.agree, g.of), (2, 3));
        assert_eq!(g.exceptions, ["c: selected GemmFwdRest"]);
        assert!(
            g.statement
                .en
                .contains("in 2 of 3 cases. Exceptions: c: selected GemmFwdRest."),
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
    fn forced_groups_say_forced() {
        let facts = vec![
            fact("x", Some("S"), "applicability_reject", None),
            fact("y", Some("S"), "applicability_reject", None),
        ];
        let g = &group_findings(&facts)[0];
        assert_eq!(g.selection, Some(SelectionKind::Forced));
        assert_eq!(
            g.statement.en,
            "Forced S on INT8 forward convolution on gfx900 with MIOpen 3.5.1 was rejected as not applicable in 2 of 2 cases."
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
