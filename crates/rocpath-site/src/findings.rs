//! What a world page lists after its question chain: the open questions recorded for the world
//! and the planned observations that would answer them. The claims, and what would settle the
//! open ones, are in the chain (`crate::chain`).

use crate::views::{Model, tv};
use minijinja::{Value, context};
use rocpath_ledger::store::Loaded;

/// The open questions and planned observations of the world `world`.
pub(crate) fn world_blocks(l: &Loaded, m: &Model<'_>, world: &str) -> Value {
    let questions: Vec<_> = l
        .questions
        .iter()
        .filter(|q| q.world == world && q.answer.is_empty())
        .collect();
    let planned: Vec<Value> = questions
        .iter()
        .filter(|q| !q.would_answer.is_empty())
        .map(|q| context! { text => tv(&q.would_answer), question => tv(&q.text) })
        .collect();
    context! {
        questions => questions.iter().map(|q| m.question(q)).collect::<Vec<_>>(),
        planned => planned,
    }
}
