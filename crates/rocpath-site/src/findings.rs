//! What a world page lists after its question chain: the open questions recorded for the world
//! and the planned observations — what would answer them, and what would settle each
//! unresolved claim (its `falsified_by`). The claims themselves are listed in the chain
//! (`crate::chain`), once each.

use crate::views::{Model, tv};
use minijinja::{Value, context};
use rocpath_ledger::derive::{Block, block_of};
use rocpath_ledger::store::Loaded;

/// The open questions and planned observations of the world `world`.
pub(crate) fn world_blocks(l: &Loaded, m: &Model<'_>, world: &str) -> Value {
    let mut claims: Vec<_> = l.claims.iter().filter(|c| c.world == world).collect();
    claims.sort_by(|a, b| a.id.cmp(&b.id));
    let questions: Vec<_> = l
        .questions
        .iter()
        .filter(|q| q.world == world && q.answer.is_empty())
        .collect();
    let mut planned: Vec<Value> = questions
        .iter()
        .filter(|q| !q.would_answer.is_empty())
        .map(|q| context! { text => tv(&q.would_answer), question => tv(&q.text) })
        .collect();
    planned.extend(
        claims
            .iter()
            .filter(|c| block_of(c) == Some(Block::OpenQuestions) && !c.falsified_by.is_empty())
            .map(|c| context! { text => tv(&c.falsified_by), question => tv(&c.statement) }),
    );
    context! {
        questions => questions.iter().map(|q| m.question(q)).collect::<Vec<_>>(),
        planned => planned,
    }
}
