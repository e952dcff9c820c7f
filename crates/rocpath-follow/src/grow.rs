//! Growing the tree of hops within its limits. Next hops wait in a queue ranked by evidence
//! strength (the name-matched hops on the way from the start, fewest first), then by whether
//! their branch has spent its share of the hop limit, then depth, and become hops of the tree
//! only when they are taken from it, so that syntactic trails anywhere in the tree are placed
//! before guesses and the hop limit is spent on them first, and no branch of equal strength
//! spends it all before the others reach their ends. Hops not placed for a limit are counted on
//! the hop they leave from.
//!
//! The shares: the starts divide the limit between them, and a hop with k next hops divides
//! what is left of its own share between them (never less than [`MIN_SHARE`]). A hop whose
//! way from the start crosses a branch that has placed its share waits behind the hops of the
//! same strength whose branches have not; once those are placed it goes on with twice the
//! share (then four times, …), so the limit is still spent in full.

use crate::engine::{Draft, Engine, Item};
use crate::memo::Memo;
use crate::model::{Hop, HopEvidence, HopKind};
use crate::{Options, join, to_hop};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

struct Slot {
    hop: Hop,
    parent: Option<usize>,
    /// Its branch's share of the hop limit (hops in its subtree, itself included).
    share: usize,
    /// Hops placed in its subtree, itself included.
    size: usize,
    item: Option<Item>,
    depth: usize,
    /// Inferred hops from the root to here.
    inferred: usize,
    /// The order it was found in among its siblings.
    seq: usize,
    kids: Vec<usize>,
    /// Next hops not placed for the hop limit.
    cut: usize,
    /// The hop where its item was followed already.
    joins: Option<usize>,
    /// It is reached through what a condition decides (a hop with a rank penalty).
    controlled: bool,
}

/// A next hop waiting to be placed.
struct Pending {
    parent: Option<usize>,
    draft: Draft,
    depth: usize,
    inferred: usize,
    seq: usize,
    /// The share of the limit its subtree gets.
    share: usize,
    /// How many times its branches' shares are doubled before it fits, when it was queued.
    over: u32,
}

/// The least share of the hop limit a branch gets, however many siblings it has.
pub const MIN_SHARE: usize = 8;

/// The order hops are placed and expanded in: fewest name-matched (inferred) hops on the way
/// first, then those whose branches are within their shares, then shallow first, so that
/// syntactic trails are followed before guesses and siblings of equal strength in turn.
type Cost = (usize, u32, usize);

/// The share of each of `k` next hops of a hop whose share is `share`.
fn child_share(share: usize, k: usize) -> usize {
    (share.saturating_sub(1) / k.max(1)).max(MIN_SHARE)
}

/// The tree being grown.
pub struct Grower<'e, 'a> {
    eng: &'e mut Engine<'a>,
    memo: &'e mut Memo,
    opts: &'e Options,
    slots: Vec<Slot>,
    pending: Vec<Option<Pending>>,
    queue: BinaryHeap<Reverse<(Cost, usize)>>,
    seen: HashMap<Item, usize>,
    roots: Vec<usize>,
    /// Starts not placed for the hop limit.
    roots_cut: usize,
    /// Whether a limit cut the tree short.
    pub truncated: bool,
}

impl<'e, 'a> Grower<'e, 'a> {
    /// A tree starting at `origins`.
    pub fn new(
        eng: &'e mut Engine<'a>,
        memo: &'e mut Memo,
        opts: &'e Options,
        origins: Vec<Draft>,
    ) -> Self {
        let mut g = Grower {
            eng,
            memo,
            opts,
            slots: Vec::new(),
            pending: Vec::new(),
            queue: BinaryHeap::new(),
            seen: HashMap::new(),
            roots: Vec::new(),
            roots_cut: 0,
            truncated: false,
        };
        // The definition first: a start that only looks the name up in a map (the help text's
        // `envVars["OLLAMA_NUM_PARALLEL"]`) after the getter, the tag, the flag or the read.
        let mut origins = origins;
        let lookup: Vec<bool> = origins
            .iter()
            .map(|d| {
                d.note.as_deref() == Some("read by this key here")
                    && g.eng
                        .file(d.at)
                        .is_none_or(|p| !p.line_text(d.line).contains("environ"))
            })
            .collect();
        let mut order: Vec<usize> = (0..origins.len()).collect();
        order.sort_by_key(|&i| lookup[i]);
        let share = child_share(g.opts.limit + 1, origins.len());
        let mut taken: Vec<Option<Draft>> = origins.drain(..).map(Some).collect();
        for (seq, i) in order.into_iter().enumerate() {
            if let Some(draft) = taken[i].take() {
                g.wait(Pending {
                    parent: None,
                    draft,
                    depth: 0,
                    inferred: 0,
                    seq,
                    share,
                    over: 0,
                });
            }
        }
        g
    }

    fn wait(&mut self, p: Pending) {
        let cost = (p.inferred, p.over, p.depth);
        self.queue.push(Reverse((cost, self.pending.len())));
        self.pending.push(Some(p));
    }

    /// How many times the shares of the branches on the way to a hop under `parent` must be
    /// doubled for one more hop to fit in each.
    fn over(&self, parent: Option<usize>) -> u32 {
        let mut over = 0;
        let mut at = parent;
        while let Some(a) = at {
            let (need, share) = (self.slots[a].size + 1, self.slots[a].share);
            while share.checked_shl(over).is_some_and(|s| s < need) {
                over += 1;
            }
            at = self.slots[a].parent;
        }
        over
    }

    /// Places and expands hops, strongest first, until the queue is empty or the limit is
    /// reached (the rest are counted where they leave from).
    pub fn run(&mut self) {
        while let Some(Reverse((_, k))) = self.queue.pop() {
            let Some(mut p) = self.pending[k].take() else {
                continue;
            };
            // Its branches may have placed hops since it was queued: behind the others then.
            let over = self.over(p.parent);
            if over > p.over {
                p.over = over;
                self.wait(p);
                continue;
            }
            if self.slots.len() >= self.opts.limit {
                self.truncated = true;
                match p.parent {
                    Some(i) => self.slots[i].cut += 1,
                    None => self.roots_cut += 1,
                }
                continue;
            }
            let i = self.place(p);
            self.expand(i);
        }
    }

    fn place(&mut self, p: Pending) -> usize {
        let hop = to_hop(self.eng, &p.draft);
        let controlled =
            p.draft.penalty > 0 || p.parent.is_some_and(|par| self.slots[par].controlled);
        let i = self.slots.len();
        let mut at = p.parent;
        while let Some(a) = at {
            self.slots[a].size += 1;
            at = self.slots[a].parent;
        }
        self.slots.push(Slot {
            hop,
            parent: p.parent,
            share: p.share,
            size: 1,
            item: p.draft.item,
            depth: p.depth,
            inferred: p.inferred,
            seq: p.seq,
            kids: Vec::new(),
            cut: 0,
            joins: None,
            controlled,
        });
        match p.parent {
            Some(par) => self.slots[par].kids.push(i),
            None => self.roots.push(i),
        }
        i
    }

    fn note(&mut self, i: usize, text: &str) {
        let n = join(&self.slots[i].hop.note, text);
        self.slots[i].hop.note = Some(n);
    }

    /// Where the hop at `i` leads: its next hops wait in the queue.
    fn expand(&mut self, i: usize) {
        let Some(item) = self.slots[i].item.take() else {
            return;
        };
        if self.slots[i].depth + 1 >= self.opts.depth {
            self.note(i, "not followed further: the --depth limit");
            self.truncated = true;
            return;
        }
        if matches!(item, Item::Controlled { .. }) && self.slots[i].controlled {
            // One condition deep: what a condition reached through another decides is not
            // followed (the trail would spread over everything the first one guards).
            self.note(
                i,
                "what it decides is not followed: the trail reached it through another condition",
            );
            return;
        }
        if let Some(&first) = self.seen.get(&item.seen_key()) {
            self.slots[i].joins = Some(first);
            return;
        }
        self.seen.insert(item.seen_key(), i);
        let exp = match self.memo.expansion(&item) {
            Some(e) => e,
            None => {
                let e = self.eng.expand(&item);
                self.memo.set_expansion(&item, &e);
                e
            }
        };
        if let Some(u) = exp.unresolved {
            self.slots[i].hop.evidence = HopEvidence::Unresolved;
            self.note(i, &u);
        }
        if let Some(s) = exp.stopped {
            self.note(i, &s);
        }
        let mut here = HashSet::new();
        let mut drafts: Vec<Draft> = exp
            .drafts
            .into_iter()
            .filter(|d| here.insert((d.at, d.line, d.kind, d.symbol.clone())))
            .collect();
        let from = self.slots[i].hop.path.clone();
        if let Some(left) = cap_fan_out(&mut drafts, &from, self.eng, self.opts.fan_out) {
            self.note(i, &format!("{left} more places not followed (--fan-out)"));
            self.truncated = true;
        }
        let (depth, inferred) = (self.slots[i].depth + 1, self.slots[i].inferred);
        let share = child_share(self.slots[i].share, drafts.len());
        let over = self.over(Some(i));
        let results: Vec<bool> = drafts.iter().map(|d| followed_beside(d, &drafts)).collect();
        for (seq, (draft, result)) in drafts.into_iter().zip(results).enumerate() {
            let inferred = inferred
                + usize::from(draft.evidence != HopEvidence::CodeVerified)
                + draft.penalty
                + usize::from(result);
            self.wait(Pending {
                parent: Some(i),
                draft,
                depth,
                inferred,
                seq,
                share,
                over,
            });
        }
    }

    /// The tree: hops in the order they were found and numbered so, each cut by the limit
    /// saying so, each joining a hop followed already pointing at it.
    pub fn finish(mut self) -> (Vec<Hop>, usize) {
        let mut cut = self.roots_cut;
        for i in 0..self.slots.len() {
            let n = self.slots[i].cut;
            if n > 0 {
                cut += n;
                self.note(i, &format!("{n} next hops not followed (--limit)"));
            }
        }
        let mut roots = std::mem::take(&mut self.roots);
        roots.sort_by_key(|&r| self.slots[r].seq);
        let mut ids = vec![0; self.slots.len()];
        let mut next = 0;
        for &r in &roots {
            number(&mut self.slots, r, &mut ids, &mut next);
        }
        for i in 0..self.slots.len() {
            if let Some(first) = self.slots[i].joins {
                let text = format!("followed above at #{} (a cycle or a join)", ids[first]);
                self.note(i, &text);
            }
        }
        let hops = roots
            .into_iter()
            .map(|r| assemble(&mut self.slots, r))
            .collect();
        (hops, cut)
    }
}

/// A call's result taken to depend on the argument while the argument is also followed into
/// the function called (a sibling hop into its parameters): the result ranks one guess lower,
/// so the function's own use of the value is placed first and a result that may not carry it
/// does not spend the hop limit ahead of it.
fn followed_beside(d: &Draft, siblings: &[Draft]) -> bool {
    d.kind == HopKind::Return
        && d.evidence == HopEvidence::Inferred
        && siblings
            .iter()
            .any(|s| s.symbol == d.symbol && matches!(s.item, Some(Item::Params(_))))
}

/// Keeps the `fan_out` next hops to follow from one hop: syntactic hops first, then those in
/// the nearest files. Returns how many were left out, if any.
fn cap_fan_out(drafts: &mut Vec<Draft>, from: &str, eng: &Engine, fan_out: usize) -> Option<usize> {
    if drafts.len() <= fan_out {
        return None;
    }
    drafts.sort_by_key(|d| {
        (
            d.evidence != HopEvidence::CodeVerified,
            nearness(from, &eng.path(d.at)),
        )
    });
    let left = drafts.len() - fan_out;
    drafts.truncate(fan_out);
    Some(left)
}

/// How far apart two paths are: 0 the same file, then by the folders they do not share.
fn nearness(a: &str, b: &str) -> usize {
    if a == b {
        return 0;
    }
    let (da, db): (Vec<&str>, Vec<&str>) = (a.split('/').collect(), b.split('/').collect());
    let common = da.iter().zip(&db).take_while(|(x, y)| x == y).count();
    1 + (da.len() - common) + (db.len() - common)
}

/// Numbers the hops under `i` depth first, children in the order they were found (which
/// they are left sorted in).
fn number(slots: &mut [Slot], i: usize, ids: &mut [usize], next: &mut usize) {
    *next += 1;
    ids[i] = *next;
    slots[i].hop.id = *next;
    let mut kids = std::mem::take(&mut slots[i].kids);
    kids.sort_by_key(|&k| slots[k].seq);
    for &k in &kids {
        number(slots, k, ids, next);
    }
    slots[i].kids = kids;
}

fn assemble(slots: &mut [Slot], i: usize) -> Hop {
    let kids = std::mem::take(&mut slots[i].kids);
    let children = kids.into_iter().map(|k| assemble(slots, k)).collect();
    let mut hop = std::mem::replace(
        &mut slots[i].hop,
        Hop {
            id: 0,
            path: String::new(),
            line: 0,
            commit: None,
            text: String::new(),
            kind: HopKind::Origin,
            evidence: HopEvidence::CodeVerified,
            symbol: String::new(),
            note: None,
            children: Vec::new(),
        },
    );
    hop.children = children;
    hop
}
