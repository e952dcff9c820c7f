//! The walk of a hipBLASLt library tree, node by node, for the three searches hipBLASLt 7.1.1
//! asks of it (TensileLite, line numbers of the reference's stored sources, SOURCES.txt):
//!
//! - `findTopSolutions(problem, hardware, n)`: `MasterSolutionLibrary.hpp:311-329` (through the
//!   per-file `CachingLibrary`, which a fresh process answers from the library itself);
//!   `ExactLogicLibrary.hpp:160-184` (rows in order, each holding row's library asked for what is
//!   still missing, results appended, stop when there are `n`); `MapLibrary.hpp:190-200`
//!   (the sub-library of the problem's `OperationIdentifier`, nothing when absent);
//!   `PlaceholderLibrary.hpp:292-309` (the file on first use); `MatchingLibrary.hpp:157-181`
//!   with [`super::matching`]; a `Single` node answers nothing (`SolutionLibrary.hpp:193-198`:
//!   it does not override `findTopSolutions`);
//! - `findBestSolution`, which a table entry's library answers (`transform`):
//!   `SingleSolutionLibrary.hpp:89-123` (hardware, problem and task predicates),
//!   `ExactLogicLibrary.hpp:90-112`, `MapLibrary.hpp:119-130`, `PlaceholderLibrary.hpp:228-242`,
//!   `MatchingLibrary.hpp:81-96` (a GridBased table's best is its first top solution,
//!   `PropertyMatching.hpp:948-956`);
//! - `findAllSolutions(GEMM_TYPE_ONLY)`, for hipBLASLt's fill-in: `ExactLogicLibrary.hpp:114-132`
//!   (only a row whose predicate is an `AMDGPU` one is evaluated; every other row is searched),
//!   `MapLibrary.hpp:132-157`, `MatchingLibrary.hpp:98-125` (every entry, `GetAll`),
//!   `SingleSolutionLibrary.hpp:188-227` (hardware predicate and `isGemmTypeSame`).
//!
//! What the model cannot decide — a node, predicate, property or distance it does not know, a
//! placeholder file that cannot be loaded, a `Random` distance — ends the walk with the reason.

use super::eval::{self, Verdict};
use super::library::LiteLibrary;
use super::problem::LiteProblem;
use crate::device::Device;
use crate::eval::Tri;
use crate::library::File;
use crate::trace::{Near, Step, StepKind, Trace, Tried};
use rocpath_tensile::catalog::{EntryValue, HwLeaf, Node, Pred};
use std::sync::Arc;

/// A solution a search returned: the file that holds it and its position there.
#[derive(Debug, Clone)]
pub struct Pick {
    /// The catalog file.
    pub file: Arc<File>,
    /// Position in the file's solutions.
    pub pos: usize,
    /// The key of the table entry that led to it, when a table did.
    pub key: Vec<i64>,
    /// That entry's distance to the problem's key.
    pub distance: Option<f64>,
}

impl Pick {
    /// The solution.
    pub fn solution(&self) -> Option<&rocpath_tensile::catalog::Solution> {
        self.file.catalog.solutions.get(self.pos)
    }

    /// The solution index (-1 if the position is out of the file, which loading rules out).
    pub fn index(&self) -> i64 {
        self.solution().map_or(-1, |s| s.index)
    }

    /// The same solution object (`shared_ptr` equality: one file's solution).
    pub fn same(&self, other: &Pick) -> bool {
        Arc::ptr_eq(&self.file, &other.file) && self.pos == other.pos
    }
}

/// Solutions found, or why the model cannot decide.
pub type Top = Result<Vec<Pick>, String>;

/// Deepest walk (placeholder chains included).
const MAX_DEPTH: u32 = 64;

/// One walk over a library for one problem and device.
pub struct LiteWalk<'a> {
    lib: &'a LiteLibrary,
    dev: &'a Device,
    problem: &'a LiteProblem,
    /// The steps, when asked for.
    pub trace: Option<Trace>,
    chain: Vec<String>,
    verdicts: rustc_hash::FxHashMap<usize, Vec<u8>>,
    /// The verdicts of the file searched last, out of the map (a table search asks hundreds of
    /// times in one file).
    current: (usize, Vec<u8>),
}

impl<'a> LiteWalk<'a> {
    /// A walk of `lib` for `problem` on `dev`; `trace` records every step.
    pub fn new(
        lib: &'a LiteLibrary,
        dev: &'a Device,
        problem: &'a LiteProblem,
        trace: bool,
    ) -> Self {
        LiteWalk {
            lib,
            dev,
            problem,
            trace: trace.then(Trace::default),
            chain: Vec::new(),
            verdicts: rustc_hash::FxHashMap::default(),
            current: (0, Vec::new()),
        }
    }

    /// The problem.
    pub fn problem(&self) -> &LiteProblem {
        self.problem
    }

    /// True when steps are recorded.
    pub(crate) fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    pub(crate) fn push(&mut self, depth: u32, kind: StepKind) -> Option<usize> {
        self.trace
            .as_mut()
            .and_then(|t| t.push(Step { depth, kind }))
    }

    pub(crate) fn fill_matching(
        &mut self,
        slot: usize,
        n_considered: usize,
        n_tried: Vec<Tried>,
        n_nearest: Vec<Near>,
    ) {
        if let Some(StepKind::Matching {
            considered,
            tried,
            nearest,
            ..
        }) = self
            .trace
            .as_mut()
            .and_then(|t| t.steps.get_mut(slot))
            .map(|s| &mut s.kind)
        {
            *considered = n_considered;
            *tried = n_tried;
            *nearest = n_nearest;
        }
    }

    fn step(&mut self, depth: u32, kind: impl FnOnce() -> StepKind) {
        if let Some(t) = self.trace.as_mut() {
            let _ = t.push(Step {
                depth,
                kind: kind(),
            });
        }
    }

    fn row_step<L: crate::trace::LeafText>(
        &mut self,
        depth: u32,
        library: &'static str,
        row: usize,
        predicate: &Pred<L>,
        t: &Tri<'_, L>,
    ) {
        if self.trace.is_none() {
            return;
        }
        let holds = match t {
            Tri::Holds => Some(true),
            Tri::Fails(_) => Some(false),
            Tri::Unknown(_) => None,
        };
        self.step(depth, || StepKind::Row {
            library,
            row,
            predicate: crate::trace::pred_text(predicate),
            holds,
        });
    }

    /// `MasterSolutionLibrary::findTopSolutions`: up to `n` solutions from the master's tree.
    pub fn top_solutions(&mut self, n: usize) -> Top {
        let master = self.lib.master.clone();
        let Some(root) = master.catalog.library.as_ref() else {
            return Err(format!(
                "{}: no `library` in the master file",
                master.name()
            ));
        };
        self.top(root, &master, n, 0)
    }

    /// `MasterSolutionLibrary::findAllSolutions(GEMM_TYPE_ONLY)`: every solution of the
    /// problem's type the device's rows lead to, without order (a `std::set` of pointers).
    pub fn all_of_gemm_type(&mut self) -> Top {
        let master = self.lib.master.clone();
        let Some(root) = master.catalog.library.as_ref() else {
            return Err(format!(
                "{}: no `library` in the master file",
                master.name()
            ));
        };
        let mut out = Vec::new();
        self.all(root, &master, 0, &mut out)?;
        Ok(out)
    }

    fn deep(&self, file: &File, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            Err(format!(
                "{}: the library nests deeper than {MAX_DEPTH} levels",
                file.name()
            ))
        } else {
            Ok(())
        }
    }

    fn hw_holds<'p>(&self, p: &'p Pred<HwLeaf>) -> Tri<'p, HwLeaf> {
        crate::eval::eval(p, &|l| eval::hw_leaf(l, self.dev))
    }

    /// `findTopSolutions` of a node.
    pub(crate) fn top(&mut self, node: &Node, file: &Arc<File>, n: usize, depth: u32) -> Top {
        self.deep(file, depth)?;
        match node {
            Node::Hardware(rows) => {
                let mut rv = Vec::new();
                for (i, row) in rows.iter().enumerate() {
                    let t = self.hw_holds(&row.predicate);
                    self.row_step(depth, "hardware", i, &row.predicate, &t);
                    match t {
                        Tri::Holds => {
                            let got = self.top(&row.library, file, n - rv.len(), depth + 1)?;
                            rv.extend(got);
                            if rv.len() == n {
                                return Ok(rv);
                            }
                        }
                        Tri::Fails(_) => {}
                        Tri::Unknown(w) => return Err(format!("{}: {w}", file.name())),
                    }
                }
                Ok(rv)
            }
            Node::Problem(rows) => {
                let mut rv = Vec::new();
                for (i, row) in rows.iter().enumerate() {
                    let t =
                        crate::eval::eval(&row.predicate, &|l| eval::problem_leaf(l, self.problem));
                    self.row_step(depth, "problem", i, &row.predicate, &t);
                    match t {
                        Tri::Holds => {
                            let got = self.top(&row.library, file, n - rv.len(), depth + 1)?;
                            rv.extend(got);
                            if rv.len() == n {
                                return Ok(rv);
                            }
                        }
                        Tri::Fails(_) => {}
                        Tri::Unknown(w) => return Err(format!("{}: {w}", file.name())),
                    }
                }
                Ok(rv)
            }
            Node::ProblemMap { .. } => match self.map_lookup(node, file, depth)? {
                Some(sub) => self.top(sub, file, n, depth + 1),
                None => Ok(Vec::new()),
            },
            Node::Placeholder(value) => {
                let f = self.load(value, depth)?;
                self.chain.push(value.clone());
                let r = self.top(root_of(&f), &f, n, depth + 1);
                self.chain.pop();
                r
            }
            Node::Matching(m) => super::matching::top(self, m, file, n, depth),
            // SolutionLibrary.hpp:193-198: the default findTopSolutions answers nothing.
            Node::Single(_) => Ok(Vec::new()),
            Node::DecisionTree(_) => Err(format!(
                "{}: a `DecisionTree` node (not a TensileLite 7.1 library type)",
                file.name()
            )),
            Node::Unknown(kind) => Err(format!("{}: library node `{kind}`", file.name())),
        }
    }

    /// `findBestSolution` of a node (what a table entry's library answers).
    pub(crate) fn best(
        &mut self,
        node: &Node,
        file: &Arc<File>,
        depth: u32,
        tried: Option<&mut Tried>,
    ) -> Result<Option<Pick>, String> {
        self.deep(file, depth)?;
        match node {
            Node::Hardware(rows) => {
                for row in rows {
                    match self.hw_holds(&row.predicate) {
                        Tri::Holds => {
                            if let Some(p) = self.best(&row.library, file, depth + 1, None)? {
                                return Ok(Some(p));
                            }
                        }
                        Tri::Fails(_) => {}
                        Tri::Unknown(w) => return Err(format!("{}: {w}", file.name())),
                    }
                }
                Ok(None)
            }
            Node::Problem(rows) => {
                for row in rows {
                    match crate::eval::eval(&row.predicate, &|l| {
                        eval::problem_leaf(l, self.problem)
                    }) {
                        Tri::Holds => {
                            if let Some(p) = self.best(&row.library, file, depth + 1, None)? {
                                return Ok(Some(p));
                            }
                        }
                        Tri::Fails(_) => {}
                        Tri::Unknown(w) => return Err(format!("{}: {w}", file.name())),
                    }
                }
                Ok(None)
            }
            Node::ProblemMap { .. } => match self.map_lookup(node, file, depth)? {
                Some(sub) => self.best(sub, file, depth + 1, None),
                None => Ok(None),
            },
            Node::Placeholder(value) => {
                let f = self.load(value, depth)?;
                self.chain.push(value.clone());
                let r = self.best(root_of(&f), &f, depth + 1, None);
                self.chain.pop();
                r
            }
            Node::Matching(m) => Ok(super::matching::top(self, m, file, 1, depth)?
                .into_iter()
                .next()),
            Node::Single(index) => self.single(*index, file, tried),
            Node::DecisionTree(_) => Err(format!(
                "{}: a `DecisionTree` node (not a TensileLite 7.1 library type)",
                file.name()
            )),
            Node::Unknown(kind) => Err(format!("{}: library node `{kind}`", file.name())),
        }
    }

    /// What a table entry's library answers (`transform`).
    pub(crate) fn entry(
        &mut self,
        v: &EntryValue,
        file: &Arc<File>,
        depth: u32,
        tried: Option<&mut Tried>,
    ) -> Result<Option<Pick>, String> {
        match v {
            EntryValue::Index(i) => self.single(*i, file, tried),
            EntryValue::Node(n) => self.best(n, file, depth + 1, tried),
        }
    }

    /// `SingleSolutionLibrary::findBestSolution`: the solution if its predicates accept the
    /// problem on the device. A verdict is fixed for one problem and device, so each is
    /// evaluated once per walk.
    fn single(
        &mut self,
        index: i64,
        file: &Arc<File>,
        tried: Option<&mut Tried>,
    ) -> Result<Option<Pick>, String> {
        let Some(pos) = file.position(index) else {
            return Err(format!(
                "{}: solution {index} is not in the file",
                file.name()
            ));
        };
        let known = self.memo(file).get(pos).copied().unwrap_or(0);
        let ok = if known != 0 && tried.is_none() {
            known == 1
        } else {
            let Some(s) = file.catalog.solutions.get(pos) else {
                return Err(format!(
                    "{}: solution {index} is not in the file",
                    file.name()
                ));
            };
            let v = eval::verdict(s, self.problem, self.dev);
            if let Verdict::Unknown(w) = &v {
                return Err(format!("{}: solution {index}: {w}", file.name()));
            }
            if let Some(t) = tried {
                if v != Verdict::Accepts {
                    t.rejected_by = Some(eval::verdict_text(&v, self.problem));
                }
            }
            let ok = v == Verdict::Accepts;
            if let Some(m) = self.memo(file).get_mut(pos) {
                *m = if ok { 1 } else { 2 };
            }
            ok
        };
        Ok(ok.then(|| Pick {
            file: file.clone(),
            pos,
            key: Vec::new(),
            distance: None,
        }))
    }

    /// The verdicts of `file` (one byte per solution: 0 unknown, 1 accepts, 2 rejects).
    fn memo(&mut self, file: &Arc<File>) -> &mut Vec<u8> {
        let key = Arc::as_ptr(file) as usize;
        if self.current.0 != key {
            let old = std::mem::replace(&mut self.current, (key, Vec::new()));
            if old.0 != 0 {
                self.verdicts.insert(old.0, old.1);
            }
            self.current.1 = self
                .verdicts
                .remove(&key)
                .unwrap_or_else(|| vec![0; file.catalog.solutions.len()]);
        }
        &mut self.current.1
    }

    /// True when the untraced walk already knows that the solution at `pos` of `file` rejects
    /// the problem: its entry can change nothing.
    pub(crate) fn known_reject(&mut self, file: &Arc<File>, pos: u32) -> bool {
        !self.tracing()
            && pos != rocpath_tensile::catalog::UNRESOLVED
            && self.memo(file).get(pos as usize) == Some(&2)
    }

    /// The untraced walk's verdicts of `file` (see [`LiteWalk::known_reject`]); `None` when
    /// tracing, where every entry is recorded.
    pub(crate) fn verdicts_of(&mut self, file: &Arc<File>) -> Option<&[u8]> {
        (!self.tracing()).then(|| self.memo(file).as_slice())
    }

    /// True when the solution at `pos` of `file` rejects the problem, deciding it now if the
    /// walk has not yet (an error decides nothing and is left for the walk to meet in order).
    pub(crate) fn rejects(&mut self, file: &Arc<File>, pos: usize) -> bool {
        match self.memo(file).get(pos) {
            Some(2) => return true,
            Some(1) | None => return false,
            _ => {}
        }
        let Some(s) = file.catalog.solutions.get(pos) else {
            return false;
        };
        let ok = match eval::verdict(s, self.problem, self.dev) {
            Verdict::Unknown(_) => return false,
            v => v == Verdict::Accepts,
        };
        if let Some(m) = self.memo(file).get_mut(pos) {
            *m = if ok { 1 } else { 2 };
        }
        !ok
    }

    /// [`LiteWalk::single`] for an entry whose solution position the loader resolved.
    pub(crate) fn single_at(
        &mut self,
        file: &Arc<File>,
        pos: usize,
    ) -> Result<Option<Pick>, String> {
        let known = self.memo(file).get(pos).copied().unwrap_or(0);
        if known == 0 {
            let index = file.catalog.solutions.get(pos).map_or(-1, |s| s.index);
            return self.single(index, file, None);
        }
        Ok((known == 1).then(|| Pick {
            file: file.clone(),
            pos,
            key: Vec::new(),
            distance: None,
        }))
    }

    /// The sub-library of a `ProblemMap` for the problem (`MapLibrary::lookup`, :74-105).
    fn map_lookup<'n>(
        &mut self,
        node: &'n Node,
        file: &File,
        depth: u32,
    ) -> Result<Option<&'n Node>, String> {
        let Node::ProblemMap { property, map } = node else {
            return Ok(None);
        };
        if property != "OperationIdentifier" {
            return Err(format!("{}: map property `{property}`", file.name()));
        }
        let key = self.problem.operation.clone();
        let hit = map.iter().find(|(k, _)| *k == key);
        self.step(depth, || StepKind::Map {
            property: property.clone(),
            key: key.clone(),
            found: hit.is_some(),
            keys: map.len(),
        });
        Ok(hit.map(|(_, n)| n))
    }

    /// The file a placeholder names, loaded on first use.
    fn load(&mut self, value: &str, depth: u32) -> Result<Arc<File>, String> {
        if self.chain.iter().any(|c| c == value) {
            return Err(format!(
                "placeholder `{value}` names itself through its own file (a cycle)"
            ));
        }
        let loaded = self.lib.placeholder(value);
        self.step(depth, || StepKind::Placeholder {
            file: self.lib.placeholder_path(value).display().to_string(),
            error: loaded.as_ref().err().map(ToString::to_string),
        });
        let f = loaded.map_err(|e| {
            format!("{e} — hipBLASLt cannot load a file its catalog names (it dereferences the failed load)")
        })?;
        if f.catalog.library.is_none() {
            return Err(format!("{}: no `library` in the file", f.name()));
        }
        Ok(f)
    }

    /// `findAllSolutions(GEMM_TYPE_ONLY)` of a node, into `out` (each solution object once).
    fn all(
        &mut self,
        node: &Node,
        file: &Arc<File>,
        depth: u32,
        out: &mut Vec<Pick>,
    ) -> Result<(), String> {
        self.deep(file, depth)?;
        match node {
            Node::Hardware(rows) => {
                for row in rows {
                    // Only a row whose predicate is itself `AMDGPU` is evaluated.
                    if matches!(row.predicate, Pred::Leaf(HwLeaf::Amdgpu(_))) {
                        match self.hw_holds(&row.predicate) {
                            Tri::Holds => {}
                            Tri::Fails(_) => continue,
                            Tri::Unknown(w) => return Err(format!("{}: {w}", file.name())),
                        }
                    }
                    self.all(&row.library, file, depth + 1, out)?;
                }
                Ok(())
            }
            Node::Problem(rows) => {
                for row in rows {
                    self.all(&row.library, file, depth + 1, out)?;
                }
                Ok(())
            }
            Node::ProblemMap { .. } => match self.map_lookup(node, file, depth)? {
                Some(sub) => self.all(sub, file, depth + 1, out),
                None => Ok(()),
            },
            Node::Placeholder(value) => {
                let f = self.load(value, depth)?;
                self.chain.push(value.clone());
                let r = self.all(root_of(&f), &f, depth + 1, out);
                self.chain.pop();
                r
            }
            Node::Matching(m) => {
                for e in &m.entries {
                    match &e.value {
                        EntryValue::Index(i) => self.all_single(*i, file, out)?,
                        EntryValue::Node(n) => self.all(n, file, depth + 1, out)?,
                    }
                }
                Ok(())
            }
            Node::Single(i) => self.all_single(*i, file, out),
            Node::DecisionTree(_) => Err(format!(
                "{}: a `DecisionTree` node (not a TensileLite 7.1 library type)",
                file.name()
            )),
            Node::Unknown(kind) => Err(format!("{}: library node `{kind}`", file.name())),
        }
    }

    fn all_single(
        &mut self,
        index: i64,
        file: &Arc<File>,
        out: &mut Vec<Pick>,
    ) -> Result<(), String> {
        let Some(pos) = file.position(index) else {
            return Err(format!(
                "{}: solution {index} is not in the file",
                file.name()
            ));
        };
        let pick = Pick {
            file: file.clone(),
            pos,
            key: Vec::new(),
            distance: None,
        };
        if out.iter().any(|p| p.same(&pick)) {
            return Ok(());
        }
        let Some(s) = file.catalog.solutions.get(pos) else {
            return Ok(());
        };
        let hw = match self.hw_holds(&s.hardware) {
            Tri::Holds => true,
            Tri::Fails(_) => false,
            Tri::Unknown(w) => return Err(format!("{}: solution {index}: {w}", file.name())),
        };
        if hw && eval::gemm_type_same(s, self.problem) {
            out.push(pick);
        }
        Ok(())
    }

    /// `isSolutionSupported` (tensile_host.cpp, chars ~163000-176000) for a fill-in candidate:
    /// hardware, problem and task predicates with the preference's workspace.
    pub fn supported(&mut self, p: &Pick) -> Result<bool, String> {
        let Some(s) = p.solution() else {
            return Ok(false);
        };
        match eval::verdict(s, self.problem, self.dev) {
            Verdict::Accepts => Ok(true),
            Verdict::Unknown(w) => Err(format!("{}: solution {}: {w}", p.file.name(), s.index)),
            _ => Ok(false),
        }
    }
}

/// The root of a loaded placeholder file (checked by `load`).
fn root_of(f: &Arc<File>) -> &Node {
    match f.catalog.library.as_ref() {
        Some(n) => n,
        None => &EMPTY,
    }
}

static EMPTY: Node = Node::Problem(Vec::new());
