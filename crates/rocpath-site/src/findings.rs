//! A world's claims in the research's four blocks: Observed facts, Current findings, Open
//! questions (unresolved claims and open questions) and Planned observations (what would
//! answer them). The block of a claim is `rocpath_ledger::derive::block_of`.

use crate::views::{Model, tv};
use minijinja::{Value, context};
use rocpath_ledger::derive::{Block, block_of};
use rocpath_ledger::store::Loaded;

/// The four blocks of the world `world` (claims whose world is it).
pub(crate) fn world_blocks(l: &Loaded, m: &Model<'_>, world: &str) -> Value {
    let mut claims: Vec<_> = l.claims.iter().filter(|c| c.world == world).collect();
    claims.sort_by(|a, b| a.id.cmp(&b.id));
    let of = |b: Block| {
        claims
            .iter()
            .filter(|c| block_of(c) == Some(b))
            .filter_map(|c| m.claim(&c.id))
            .collect::<Vec<_>>()
    };
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
        observed => of(Block::ObservedFacts),
        findings => of(Block::CurrentFindings),
        open => of(Block::OpenQuestions),
        questions => questions.iter().map(|q| m.question(q)).collect::<Vec<_>>(),
        planned => planned,
    }
}
