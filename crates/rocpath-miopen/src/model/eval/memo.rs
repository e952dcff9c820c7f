//! The read-path memo. An evaluation is deterministic in the problem values it reads (the
//! device, environment and build are fixed per memo), so a result is remembered under the
//! values its evaluation read, in the order it read them: a trie per solver verdict and per
//! helper call (function, arguments). A later problem that reads the same values on the same
//! path gets the same result without running the code again. A helper's reads are replayed
//! into its caller's, so the caller's key stays complete.

use super::{
    Blame, MAX_DEPTH, MAX_STEPS, Obj, Outcome, Run, Solver, Step, Sv, Val, class_last, new_run,
};
use super::{Evaluator, Input};
use crate::problem::Problem;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::rc::Rc;

/// Trie nodes a memo keeps before it stops remembering (memory stays bounded).
const MAX_NODES: usize = 4_000_000;

/// Which problem value a function read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum ReadKind {
    Getter,
    Tensor(u8),
    Conv,
    ProblemField,
    ConvField,
    /// `miopen::debug::AlwaysEnableConvDirectNaive`, a property of the input.
    Naive,
}

/// One problem value read: what kind of access, by which name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Read<'m> {
    pub(super) kind: ReadKind,
    pub(super) name: &'m str,
}

/// A read value, comparable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RVal<'m> {
    I(i128),
    B(bool),
    F(u64),
    S(Box<str>),
    Sym(&'m str),
    L(Vec<RVal<'m>>),
    Opt(Box<RVal<'m>>),
    Other(Box<str>),
}

impl<'m> RVal<'m> {
    fn of(v: &Val<'m>) -> RVal<'m> {
        match v {
            Val::Int(i) => RVal::I(*i),
            Val::Bool(b) => RVal::B(*b),
            Val::Float(f) => RVal::F(f.to_bits()),
            Val::Str(s) => RVal::S(Box::from(&**s)),
            Val::Sym(s) => RVal::Sym(s),
            Val::List(l) => RVal::L(l.iter().map(RVal::of).collect()),
            Val::Opt(x) => RVal::Opt(Box::new(RVal::of(x))),
            other => RVal::Other(Box::from(other.show())),
        }
    }
}

/// An argument of a remembered call: values that compare by content.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Arg<'m> {
    Void,
    Null,
    B(bool),
    I(i128),
    F(u64),
    Str(&'m str),
    OStr(Rc<str>),
    Sym(&'m str),
    Obj(Obj<'m>),
}

impl<'m> Arg<'m> {
    /// `None` for values that carry state a key cannot compare (closures, lists, objects,
    /// unknowns).
    fn of(v: &Val<'m>) -> Option<Arg<'m>> {
        Some(match v {
            Val::Void => Arg::Void,
            Val::Null => Arg::Null,
            Val::Bool(b) => Arg::B(*b),
            Val::Int(i) => Arg::I(*i),
            Val::Float(f) => Arg::F(f.to_bits()),
            Val::Str(Sv::B(s)) => Arg::Str(s),
            Val::Str(Sv::O(s)) => Arg::OStr(s.clone()),
            Val::Sym(s) => Arg::Sym(s),
            Val::Obj(o) => Arg::Obj(o.clone()),
            Val::Opt(_) | Val::List(_) | Val::Closure(_) | Val::Struct(_) | Val::Unknown(_) => {
                return None;
            }
        })
    }
}

/// A helper call: the function, the solver when its result depends on which solver is
/// evaluated (template arguments bound from it), and the arguments (template ones first).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct CallKey<'m> {
    func: u32,
    solver: u64,
    args: SmallVec<[Arg<'m>; 4]>,
}

/// The key of a call, when every argument can be compared.
pub(super) fn call_key<'m>(func: u32, args: &[Val<'m>], targs: &[Val<'m>]) -> Option<CallKey<'m>> {
    let mut key = SmallVec::new();
    for v in targs.iter().chain(args) {
        key.push(Arg::of(v)?);
    }
    // The number of template arguments is part of the key.
    key.push(Arg::I(targs.len() as i128));
    Some(CallKey {
        func,
        solver: 0,
        args: key,
    })
}

/// A remembered call: its result, and the steps and call depth it took (a hit is taken only
/// where the evaluation would not have reached the evaluator's limits).
struct CallLeaf<'m> {
    v: Val<'m>,
    blame: Blame,
    undecided: Vec<Step>,
    steps: u32,
    depth: u32,
}

/// A trie of read paths: compact nodes (a walk touches one cache line per read), leaves apart.
struct Trie<L> {
    nodes: Vec<Node>,
    leaves: Vec<L>,
}

impl<L> Default for Trie<L> {
    fn default() -> Self {
        Trie {
            nodes: Vec::new(),
            leaves: Vec::new(),
        }
    }
}

enum Node {
    /// The index of a leaf.
    Leaf(u32),
    /// A read (by id) and, per value id read (sorted by value id), the next node.
    Read {
        read: u32,
        next: SmallVec<[(u32, u32); 2]>,
    },
}

const NOT_READ: u32 = u32::MAX;

/// The read (id) and value (id) pairs of one path, in first-read order.
pub(super) type Reads = Vec<(u32, u32)>;

/// Results of one device, environment and build, remembered by the problem values each
/// evaluation read. Reads and their values are interned, and each read is made once per
/// problem. Only results without blame are kept. One memo per thread.
pub struct Memo<'m> {
    solvers: FxHashMap<(u64, u32), Trie<Outcome>>,
    calls: FxHashMap<CallKey<'m>, Trie<CallLeaf<'m>>>,
    /// Functions seen to depend on the solver evaluated: their calls are keyed by solver too.
    solver_dep: FxHashSet<u32>,
    reads: Interned<Read<'m>>,
    values: Interned<(u32, RVal<'m>)>,
    /// The input the read cache belongs to.
    problem: Option<(Problem, bool)>,
    /// Per read id, the value id it has for `problem` (or `NOT_READ`).
    cache: Vec<u32>,
    nodes: usize,
    /// Verdicts answered from the memo.
    pub hits: u64,
    /// Verdicts evaluated.
    pub misses: u64,
    /// Helper calls answered from the memo.
    pub call_hits: u64,
    /// Helper calls evaluated.
    pub call_misses: u64,
}

struct Interned<T> {
    ids: FxHashMap<T, u32>,
    list: Vec<T>,
}

impl<T: std::hash::Hash + Eq + Clone> Interned<T> {
    fn new() -> Self {
        Interned {
            ids: FxHashMap::default(),
            list: Vec::new(),
        }
    }
    fn id(&mut self, t: &T) -> u32 {
        if let Some(&i) = self.ids.get(t) {
            return i;
        }
        let i = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.list.push(t.clone());
        self.ids.insert(t.clone(), i);
        i
    }
}

impl Default for Memo<'_> {
    fn default() -> Self {
        Memo::new()
    }
}

impl<'m> Memo<'m> {
    /// An empty memo. Use it with one device, environment and build only.
    pub fn new() -> Memo<'m> {
        Memo {
            solvers: FxHashMap::default(),
            calls: FxHashMap::default(),
            solver_dep: FxHashSet::default(),
            reads: Interned::new(),
            values: Interned::new(),
            problem: None,
            cache: Vec::new(),
            nodes: 0,
            hits: 0,
            misses: 0,
            call_hits: 0,
            call_misses: 0,
        }
    }

    /// Remembered verdicts per (solver id, function), most first.
    pub fn sizes(&self) -> Vec<((u64, u32), usize)> {
        let mut v: Vec<_> = self
            .solvers
            .iter()
            .map(|(k, t)| (*k, t.leaves.len()))
            .collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.1));
        v
    }

    /// Points the read cache at `inp`'s problem.
    fn start(&mut self, inp: &Input) {
        let same = self
            .problem
            .as_ref()
            .is_some_and(|(p, n)| *n == inp.always_enable_naive && p == inp.problem);
        if !same {
            self.problem = Some((inp.problem.clone(), inp.always_enable_naive));
            self.cache.clear();
        }
    }

    /// The value id of read `r` whose value is `v` (known to the caller).
    fn value_id(&mut self, r: u32, v: &Val<'m>) -> u32 {
        let i = r as usize;
        if self.cache.len() <= i {
            self.cache.resize(i + 1, NOT_READ);
        }
        if self.cache[i] == NOT_READ {
            self.cache[i] = self.values.id(&(r, RVal::of(v)));
        }
        self.cache[i]
    }

    /// Adds a path to a trie, unless the memo is full.
    fn insert<L>(nodes: &mut usize, trie: &mut Trie<L>, reads: &[(u32, u32)], leaf: L) {
        if *nodes >= MAX_NODES {
            return;
        }
        let before = trie.nodes.len();
        insert(trie, reads, leaf);
        *nodes += trie.nodes.len() - before;
    }
}

/// The value id of read `r` for the memo's current problem, read once per problem.
fn memo_value<'m>(
    cache: &mut Vec<u32>,
    reads: &Interned<Read<'m>>,
    values: &mut Interned<(u32, RVal<'m>)>,
    run: &mut Run<'_, 'm>,
    r: u32,
) -> u32 {
    let i = r as usize;
    if cache.len() <= i {
        cache.resize(i + 1, NOT_READ);
    }
    if cache[i] == NOT_READ {
        let v = run.reread(&reads.list[i]);
        cache[i] = values.id(&(r, RVal::of(&v)));
    }
    cache[i]
}

/// Walks a trie from its root, reading each value its path asks for: the leaf reached, with
/// the reads made on the way in `path`.
fn walk<'t, L>(
    trie: &'t Trie<L>,
    mut value: impl FnMut(u32) -> u32,
    path: &mut Reads,
) -> Option<&'t L> {
    let mut at = 0usize;
    loop {
        match trie.nodes.get(at)? {
            Node::Leaf(l) => return trie.leaves.get(*l as usize),
            Node::Read { read, next } => {
                let v = value(*read);
                path.push((*read, v));
                let k = next.binary_search_by_key(&v, |&(x, _)| x).ok()?;
                at = next[k].1 as usize;
            }
        }
    }
}

/// Adds a read sequence (read id, value id) and its leaf to a trie (the root is node 0).
fn insert<L>(trie: &mut Trie<L>, reads: &[(u32, u32)], leaf: L) {
    let mut at = 0usize;
    let mut i = 0usize;
    let mut leaf = Some(leaf);
    loop {
        if at >= trie.nodes.len() {
            match reads.get(i) {
                Some(&(r, _)) => trie.nodes.push(Node::Read {
                    read: r,
                    next: SmallVec::new(),
                }),
                None => {
                    let (Some(l), Ok(k)) = (leaf.take(), u32::try_from(trie.leaves.len())) else {
                        return;
                    };
                    trie.leaves.push(l);
                    trie.nodes.push(Node::Leaf(k));
                    return;
                }
            }
        }
        let Ok(n) = u32::try_from(trie.nodes.len()) else {
            return;
        };
        match &mut trie.nodes[at] {
            Node::Leaf(_) => return,
            Node::Read { read, next } => {
                let Some(&(r, v)) = reads.get(i) else { return };
                if *read != r {
                    // The same values so far must lead to the same next read; anything else
                    // means the evaluation was not deterministic in its reads: not kept.
                    return;
                }
                match next.binary_search_by_key(&v, |&(x, _)| x) {
                    Ok(k) => at = next[k].1 as usize,
                    Err(k) => {
                        next.insert(k, (v, n));
                        at = n as usize;
                    }
                }
                i += 1;
            }
        }
    }
}

/// Appends reads to a frame, keeping each read's first value only.
fn merge_reads(frame: &mut Reads, reads: &[(u32, u32)]) {
    for &(r, v) in reads {
        if !frame.iter().any(|&(x, _)| x == r) {
            frame.push((r, v));
        }
    }
}

impl<'m> Evaluator<'m> {
    /// [`Evaluator::solver_fn`] without blame, answered from `memo` when an earlier problem
    /// read the same values.
    pub fn solver_fn_memo<'v>(
        &self,
        memo: &mut Memo<'v>,
        solver: &'v Solver,
        func: u32,
        input: &Input<'v>,
    ) -> Outcome
    where
        'm: 'v,
    {
        memo_solver(self, memo, solver, func, input)
    }
}

fn memo_solver<'v>(
    ev: &Evaluator<'v>,
    memo: &mut Memo<'v>,
    solver: &'v Solver,
    func: u32,
    input: &Input<'v>,
) -> Outcome {
    memo.start(input);
    let key = (solver.id, func);
    // A hit builds no run until a value must be read for this problem the first time.
    let mut run = None;
    let mut path = Reads::new();
    {
        let Memo {
            solvers,
            cache,
            reads,
            values,
            hits,
            ..
        } = &mut *memo;
        if let Some(trie) = solvers.get(&key) {
            let value = |r| {
                let run = run.get_or_insert_with(|| new_run(ev, input, Some(solver), false));
                memo_value(cache, reads, values, run, r)
            };
            if let Some(o) = walk(trie, value, &mut path) {
                *hits += 1;
                return o.clone();
            }
        }
    }
    memo.misses += 1;
    let mut run = run.unwrap_or_else(|| new_run(ev, input, Some(solver), false));
    run.memo = Some(&mut *memo);
    run.frames.push(Reads::new());
    let this = Val::Obj(Obj::Class(class_last(&solver.class)));
    let f = &ev.model.functions[ev.resolve(func) as usize];
    let mut args = vec![this];
    if f.params.len() >= 2 {
        args.push(Val::Obj(Obj::Ctx));
        args.push(Val::Obj(Obj::Problem));
    }
    let (v, blame, undecided) = run.call_body(ev.resolve(func), args, &[]);
    let reads = run.frames.pop().unwrap_or_default();
    drop(run);
    let outcome = ev.verdict(func, f, v, blame, undecided).outcome;
    let trie = memo.solvers.entry(key).or_default();
    Memo::insert(&mut memo.nodes, trie, &reads, outcome.clone());
    outcome
}

impl<'e, 'm> Run<'e, 'm> {
    /// Records a problem value read, when a memo asks.
    pub(super) fn note(&mut self, kind: ReadKind, name: &'m str, v: &Val<'m>) {
        let (Some(memo), Some(frame)) = (self.memo.as_deref_mut(), self.frames.last_mut()) else {
            return;
        };
        let r = memo.reads.id(&Read { kind, name });
        // A problem value is the same however often it is read (a loop reads it on every
        // pass): the key keeps its first read only.
        if frame.iter().any(|&(x, _)| x == r) {
            return;
        }
        let v = memo.value_id(r, v);
        frame.push((r, v));
    }

    /// Reads one problem value again, for a memo's walk.
    fn reread(&mut self, r: &Read<'m>) -> Val<'m> {
        let n = r.name;
        match r.kind {
            ReadKind::Getter => self.problem_getter(n).unwrap_or(Val::Void),
            ReadKind::Tensor(i) => self.object_method(0, 0, &Obj::Tensor(i), n, &[]),
            ReadKind::Conv => self.object_method(0, 0, &Obj::Conv, n, &[]),
            ReadKind::ProblemField => self.field(0, 0, &Val::Obj(Obj::Problem), n),
            ReadKind::ConvField => self.field(0, 0, &Val::Obj(Obj::Conv), n),
            ReadKind::Naive => Val::Bool(self.inp.always_enable_naive),
        }
    }

    /// A helper call through the memo: answered from it when the same function with the same
    /// arguments read the same values before, else evaluated and remembered.
    pub(super) fn call_memo(
        &mut self,
        mut key: CallKey<'m>,
        args: Vec<Val<'m>>,
        targs: &[Val<'m>],
    ) -> (Val<'m>, Blame, Vec<Step>) {
        let solver_id = self.solver.map_or(0, |s| s.id.wrapping_add(1));
        if self
            .memo
            .as_deref()
            .is_some_and(|m| m.solver_dep.contains(&key.func))
        {
            key.solver = solver_id;
        }
        if let Some(r) = self.call_hit(&key) {
            return r;
        }
        let (steps, dep, limits, deepest) =
            (self.steps, self.solver_dep, self.limits, self.deepest);
        self.deepest = self.depth;
        self.frames.push(Reads::new());
        let (v, blame, undecided) = self.call_body(key.func, args, targs);
        let reads = self.frames.pop().unwrap_or_default();
        let (took_steps, took_depth) = (self.steps - steps, self.deepest - self.depth);
        self.deepest = self.deepest.max(deepest);
        if let Some(frame) = self.frames.last_mut() {
            merge_reads(frame, &reads);
        }
        let Some(memo) = self.memo.as_deref_mut() else {
            return (v, blame, undecided);
        };
        memo.call_misses += 1;
        // A result cut by the evaluator's limits depends on where the call was made: not kept.
        if self.limits == limits {
            if self.solver_dep != dep && key.solver == 0 {
                memo.solver_dep.insert(key.func);
                key.solver = solver_id;
            }
            let leaf = CallLeaf {
                v: v.clone(),
                blame: blame.clone(),
                undecided: undecided.clone(),
                steps: took_steps,
                depth: took_depth,
            };
            let trie = memo.calls.entry(key).or_default();
            Memo::insert(&mut memo.nodes, trie, &reads, leaf);
        }
        (v, blame, undecided)
    }

    /// The remembered result of a call, when this problem reads the values of a path to one.
    fn call_hit(&mut self, key: &CallKey<'m>) -> Option<(Val<'m>, Blame, Vec<Step>)> {
        let memo = self.memo.take()?;
        let mut path = Reads::new();
        let found = {
            let Memo {
                calls,
                cache,
                reads,
                values,
                ..
            } = &mut *memo;
            calls.get(key).and_then(|trie| {
                let value = |r| memo_value(cache, reads, values, self, r);
                walk(trie, value, &mut path)
            })
        };
        let hit = found.filter(|l| {
            self.steps.saturating_add(l.steps) <= MAX_STEPS && self.depth + l.depth < MAX_DEPTH
        });
        let out = hit.map(|l| {
            self.steps += l.steps;
            self.deepest = self.deepest.max(self.depth + l.depth);
            (l.v.clone(), l.blame.clone(), l.undecided.clone())
        });
        if out.is_some() {
            memo.call_hits += 1;
            if key.solver != 0 {
                self.solver_dep += 1;
            }
            if let Some(frame) = self.frames.last_mut() {
                merge_reads(frame, &path);
            }
        }
        self.memo = Some(memo);
        out
    }
}
