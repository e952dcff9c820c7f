//! A world's page in the research's form: what the page lets a reader understand, then the
//! chain of questions ([`rocpath_ledger::chain::Step`]), each with its observation point, its
//! context (the experiments and the kinds of observation), its sources, its result and a
//! "can show / cannot show" table built from the claims' classes, and the next question.
//!
//! The "can show" side holds the step's observed facts (confirmed, one observation each) and
//! current findings (what several add up to, confirmed or inferred); the "cannot show" side its
//! unresolved and limited claims. Every claim of the world is listed once, in the step it
//! answers, and the step's next question is what would settle its open ones. A lead a person
//! wrote in `ledger.toml` (`[[world]] lead`) is shown instead of the generated one.

use crate::views::{ClaimV, Model, shows_evidence, tv};
use minijinja::{Value, context};
use rocpath_ledger::chain::{Step, settled_by};
use rocpath_ledger::derive::{Block, block_of, rule};
use rocpath_ledger::model::{Claim, Text, WorldDecl};
use rocpath_ledger::store::Loaded;
use std::collections::{BTreeMap, BTreeSet};

/// How many observations or cases a step names before it says how many more there are.
const NAMED: usize = 8;

/// The chain of the world `wd`: `lead` (a person's, or generated), `understand[]` (one line per
/// step that has claims), `steps[]`, and `missing[]`: the research's questions this world has
/// no claim for yet, with where one would look.
pub(crate) fn world_chain(l: &Loaded, m: &Model<'_>, wd: &WorldDecl) -> Value {
    let mut by_step: BTreeMap<Step, Vec<&Claim>> = BTreeMap::new();
    let mut claims: Vec<&Claim> = l
        .claims
        .iter()
        .filter(|c| c.world == wd.id && block_of(c).is_some())
        .collect();
    claims.sort_by_key(|c| (rule_rank(c), c.id.as_str()));
    for c in claims {
        by_step.entry(Step::of(c)).or_default().push(c);
    }
    let order: Vec<Step> = by_step.keys().copied().collect();
    let unobserved = |s: &Step| {
        Step::ALL
            .into_iter()
            .filter(|x| x > s && !matches!(x, Step::Trail | Step::Other))
            .find(|x| !by_step.contains_key(x))
    };
    let steps: Vec<Value> = order
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let next = order.get(i + 1).copied();
            let gap = next.is_none().then(|| unobserved(s)).flatten();
            step_view(l, m, *s, &by_step[s], (next, gap))
        })
        .collect();
    let understand: Vec<Value> = order
        .iter()
        .map(|s| context! { id => s.as_str(), text => tv(&s.text().understand) })
        .collect();
    // The questions of the research's chain this world has no claim for yet, each with where
    // one would look: its planned observations.
    let missing: Vec<Value> = Step::ALL
        .into_iter()
        .filter(|s| !matches!(s, Step::Trail | Step::Other) && !by_step.contains_key(s))
        .map(unobserved_view)
        .collect();
    context! {
        lead => (!wd.lead.is_empty()).then(|| tv(&wd.lead)),
        understand => understand,
        steps => steps,
        missing => missing,
    }
}

/// A question of the chain a world has no claim for: the question and where one would look.
fn unobserved_view(s: Step) -> Value {
    let t = s.text();
    context! { question => tv(&t.question), point => tv(&t.point) }
}

/// Where a claim stands in its step: a person's claims first, then by the order the rules run
/// (a step's summary rules, such as the inventory, before its per-item ones, such as check).
fn rule_rank(c: &Claim) -> usize {
    if c.derived_by.is_empty() {
        return 0;
    }
    rule::ALL
        .iter()
        .chain([&rule::EXPLAIN_GEMM])
        .position(|r| *r == c.derived_by)
        .map_or(usize::MAX, |i| i + 1)
}

/// One step: its texts, context, sources, result and next question — the next step with
/// claims, else the next question of the chain this world has not observed yet (`gap`).
fn step_view(
    l: &Loaded,
    m: &Model<'_>,
    s: Step,
    claims: &[&Claim],
    (next, gap): (Option<Step>, Option<Step>),
) -> Value {
    let text = s.text();
    let views = |keep: &dyn Fn(&Claim) -> bool| -> Vec<ClaimV> {
        claims
            .iter()
            .filter(|c| keep(c))
            .filter_map(|c| m.claim(&c.id))
            .collect()
    };
    let facts = views(&|c| block_of(c) == Some(Block::ObservedFacts));
    let findings =
        views(&|c| block_of(c) == Some(Block::CurrentFindings) && shows_evidence(c.class));
    let cannot = views(&|c| !shows_evidence(c.class));
    context! {
        id => s.as_str(),
        question => tv(&text.question),
        point => tv(&text.point),
        context => step_context(l, m, claims),
        result => counts(claims),
        facts => facts,
        findings => findings,
        cannot => cannot,
        settle => settle(claims),
        next => next.map(|n| context! { id => n.as_str(), question => tv(&n.text().question) }),
        unobserved => gap.map(unobserved_view),
    }
}

/// What would settle the step's open claims: a person's `falsified_by`, else what the rule
/// that wrote the claim names ([`settled_by`]); each text once, with how many claims it settles.
fn settle(claims: &[&Claim]) -> Vec<Value> {
    let mut out: Vec<(Text, usize)> = Vec::new();
    for c in claims.iter().filter(|c| !shows_evidence(c.class)) {
        let t = if c.falsified_by.is_empty() {
            match settled_by(&c.derived_by) {
                Some(t) => t,
                None => continue,
            }
        } else {
            c.falsified_by.clone()
        };
        match out.iter_mut().find(|(x, _)| *x == t) {
            Some((_, n)) => *n += 1,
            None => out.push((t, 1)),
        }
    }
    out.into_iter()
        .map(|(t, n)| context! { text => tv(&t), n => n })
        .collect()
}

/// Claims per class, in the classes' order, for the classes that have any.
fn counts(claims: &[&Claim]) -> Vec<Value> {
    let mut n: BTreeMap<String, usize> = BTreeMap::new();
    for c in claims {
        *n.entry(crate::views::class_name(c.class)).or_default() += 1;
    }
    crate::views::CLASSES
        .into_iter()
        .filter_map(|k| n.get(k).map(|v| context! { class => k, n => v }))
        .collect()
}

/// The experiments (cases) behind a step's claims, the observations that support them and
/// how many of each producer schema.
fn step_context(l: &Loaded, m: &Model<'_>, claims: &[&Claim]) -> Value {
    let ids: BTreeSet<&str> = claims.iter().map(|c| c.id.as_str()).collect();
    let cases: Vec<_> = l
        .cases
        .iter()
        .filter(|k| k.claims.iter().any(|c| ids.contains(c.as_str())))
        .collect();
    let mut seen = BTreeSet::new();
    let obs: Vec<_> = claims
        .iter()
        .flat_map(|c| &c.support)
        .filter_map(|s| s.observation.as_deref())
        .filter(|o| seen.insert(*o))
        .filter_map(|o| m.ix.observations.get(o).copied())
        .collect();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for o in &obs {
        *kinds.entry(m.obs_ref(o).schema).or_default() += 1;
    }
    context! {
        cases => cases.iter().take(NAMED).map(|c| Model::case_ref(c)).collect::<Vec<_>>(),
        more_cases => cases.len().saturating_sub(NAMED),
        observations => obs.iter().take(NAMED).map(|o| m.obs_ref(o)).collect::<Vec<_>>(),
        more_observations => obs.len().saturating_sub(NAMED),
        kinds => kinds.into_iter().map(|(schema, n)| context! { command => command_of(&schema), schema, n }).collect::<Vec<_>>(),
    }
}

/// The command that prints documents of `schema` (`rocpath case read`), or the schema id when
/// this build does not know it.
fn command_of(schema: &str) -> String {
    rocpath_docs::schema::ALL
        .iter()
        .find(|s| s.is_any_version(schema))
        .map_or_else(|| schema.to_string(), |s| s.command.to_string())
}
