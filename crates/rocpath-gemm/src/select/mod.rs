//! `findBestSolution`, node by node, as ROCm/Tensile@be49885f walks it:
//! `ExactLogicLibrary.hpp:66-81` (rows in order; a row whose predicate holds but whose library
//! finds nothing falls through to the next), `MapLibrary.hpp:85-120` (one sub-library per
//! property value, nothing when the value is absent), `PlaceholderLibrary.hpp:172-185`,
//! `SingleSolutionLibrary.hpp:64-79` (`canSolve`), `MatchingLibrary.hpp:73-103` with
//! `PropertyMatching.hpp` (the searches, in [`matching`]) and `DecisionTreeLibrary.hpp`
//! with `DecisionTree.hpp:56-76, 177-231`.
//!
//! What the model cannot decide — a node, predicate, property or distance it does not know, a
//! placeholder file that cannot be loaded, `Random` distance — ends the walk as
//! [`Found::Unresolved`] with the reason: the host library would have refused the file or
//! crashed, and nothing after that point can be predicted.

pub mod matching;

use crate::device::Device;
use crate::eval::{self, Rejection, Tri};
use crate::library::{File, Library};
use crate::problem::Problem;
use crate::trace::{Step, StepKind, Trace, Tried};
use rocpath_tensile::catalog::{EntryValue, Forest, Node, Property};
use std::sync::Arc;

/// A solution the walk returned: the file that holds it and its position there.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The catalog file.
    pub file: Arc<File>,
    /// Position in the file's solutions.
    pub pos: usize,
    /// The matching distance of the entry that led to it, when a table did.
    pub distance: Option<f64>,
}

impl Chosen {
    /// The solution.
    pub fn solution(&self) -> Option<&rocpath_tensile::catalog::Solution> {
        self.file.catalog.solutions.get(self.pos)
    }
}

/// The outcome of a walk.
#[derive(Debug, Clone)]
pub enum Found {
    /// A solution.
    Solution(Chosen),
    /// No solution fits.
    None,
    /// The walk met what the model cannot decide.
    Unresolved(String),
}

/// What a sub-walk returns: a solution, none, or the reason it cannot be decided.
pub(crate) type Out = Result<Option<Chosen>, String>;

/// Deepest walk (placeholder chains included).
const MAX_DEPTH: u32 = 64;

/// One walk over a library.
pub struct Walk<'a> {
    lib: &'a Library,
    dev: &'a Device,
    problem: &'a Problem,
    /// The steps, when asked for.
    pub trace: Option<Trace>,
    chain: Vec<String>,
    verdicts: Vec<(usize, Vec<u8>)>,
}

/// Why a switch of the environment makes the answer one this model cannot give.
fn unmodelled_switch(sw: &crate::problem::Switches) -> Option<String> {
    if let Some(i) = sw.solution_index {
        return Some(format!(
            "TENSILE_SOLUTION_INDEX={i}: the host library skips the selection and takes solution \
             {i} only if a per-type file holding it was already loaded by an earlier call of the \
             same process, and only if it can solve the problem (Tensile \
             MasterSolutionLibrary.hpp:124-143, 157-183); that depends on the process's history"
        ));
    }
    if let Some(path) = &sw.override_path {
        return Some(format!(
            "ROCBLAS_TENSILE_GEMM_OVERRIDE_PATH={path}: rocBLAS preloads the problem → solution \
             pairs of that file into the library's cache (tensile_host.cpp:990-1004, \
             MasterSolutionLibrary.hpp:185-240); rocpath does not read override files"
        ));
    }
    if let Some(m) = &sw.metric {
        if rocpath_tensile::catalog::Distance::parse(m).is_none() {
            return Some(format!(
                "TENSILE_METRIC={m}: not a distance the host library knows, so every per-type file \
                 fails to load (`Unknown distance function`, Serialization/MatchingLibrary.hpp:134-180)"
            ));
        }
    }
    None
}

impl<'a> Walk<'a> {
    /// A walk of `lib` for `problem` on `dev`; `trace` records every step.
    pub fn new(lib: &'a Library, dev: &'a Device, problem: &'a Problem, trace: bool) -> Self {
        Walk {
            lib,
            dev,
            problem,
            trace: trace.then(Trace::default),
            chain: Vec::new(),
            verdicts: Vec::new(),
        }
    }

    /// `MasterSolutionLibrary::findBestSolution`.
    pub fn run(&mut self) -> Found {
        if let Some(why) = unmodelled_switch(&self.problem.modes.switches) {
            return Found::Unresolved(why);
        }
        let master = self.lib.master.clone();
        let Some(root) = master.catalog.library.as_ref() else {
            return Found::Unresolved(format!(
                "{}: no `library` in the master file",
                master.name()
            ));
        };
        match self.node(root, &master, 0) {
            Ok(Some(c)) => Found::Solution(c),
            Ok(None) => Found::None,
            Err(w) => Found::Unresolved(w),
        }
    }

    /// Records a step; `kind` is only built when a trace is kept.
    fn step(&mut self, depth: u32, kind: impl FnOnce() -> StepKind) {
        if let Some(t) = self.trace.as_mut() {
            let _ = t.push(Step {
                depth,
                kind: kind(),
            });
        }
    }

    pub(crate) fn node(&mut self, node: &Node, file: &Arc<File>, depth: u32) -> Out {
        if depth > MAX_DEPTH {
            return Err(format!(
                "{}: the library nests deeper than {MAX_DEPTH} levels",
                file.name()
            ));
        }
        match node {
            Node::Hardware(rows) => {
                for (i, row) in rows.iter().enumerate() {
                    let t = eval::eval(&row.predicate, &|l| eval::hw_leaf(l, self.dev));
                    self.row_step(depth, "hardware", i, &row.predicate, &t);
                    match t {
                        Tri::Holds => {
                            if let Some(c) = self.node(&row.library, file, depth + 1)? {
                                return Ok(Some(c));
                            }
                        }
                        Tri::Fails(_) => {}
                        Tri::Unknown(w) => return Err(format!("{}: {w}", file.name())),
                    }
                }
                Ok(None)
            }
            Node::Problem(rows) => {
                for (i, row) in rows.iter().enumerate() {
                    let t = eval::eval(&row.predicate, &|l| eval::problem_leaf(l, self.problem));
                    self.row_step(depth, "problem", i, &row.predicate, &t);
                    match t {
                        Tri::Holds => {
                            if let Some(c) = self.node(&row.library, file, depth + 1)? {
                                return Ok(Some(c));
                            }
                        }
                        Tri::Fails(_) => {}
                        Tri::Unknown(w) => return Err(format!("{}: {w}", file.name())),
                    }
                }
                Ok(None)
            }
            Node::ProblemMap { property, map } => {
                if property != "OperationIdentifier" {
                    return Err(format!("{}: map property `{property}`", file.name()));
                }
                let key = self.problem.operation;
                let hit = map.iter().find(|(k, _)| k == key);
                self.step(depth, || StepKind::Map {
                    property: property.clone(),
                    key: key.to_string(),
                    found: hit.is_some(),
                    keys: map.len(),
                });
                match hit {
                    Some((_, n)) => self.node(n, file, depth + 1),
                    None => Ok(None),
                }
            }
            Node::Placeholder(value) => self.placeholder(value, depth),
            Node::Single(index) => self.single(*index, file, depth, None),
            Node::Matching(m) => matching::search(self, m, file, depth),
            Node::DecisionTree(f) => self.forest(f, file, depth),
            Node::Unknown(kind) => Err(format!("{}: library node `{kind}`", file.name())),
        }
    }

    fn row_step<L: crate::trace::LeafText>(
        &mut self,
        depth: u32,
        library: &'static str,
        row: usize,
        predicate: &rocpath_tensile::catalog::Pred<L>,
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

    fn placeholder(&mut self, value: &str, depth: u32) -> Out {
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
        let file = loaded.map_err(|e| {
            format!("{e} — the library cannot load a file its catalog names (the host library dereferences the failed load)")
        })?;
        let Some(root) = file.catalog.library.as_ref() else {
            return Err(format!("{}: no `library` in the file", file.name()));
        };
        self.chain.push(value.to_string());
        let r = self.node(root, &file, depth + 1);
        self.chain.pop();
        r
    }

    /// `SingleSolutionLibrary::findBestSolution`: the solution if it can solve the problem.
    pub(crate) fn single(
        &mut self,
        index: i64,
        file: &Arc<File>,
        depth: u32,
        tried: Option<&mut Tried>,
    ) -> Out {
        let Some(pos) = file.position(index) else {
            return Err(format!(
                "{}: solution {index} is not in the file",
                file.name()
            ));
        };
        let Some(s) = file.catalog.solutions.get(pos) else {
            return Err(format!(
                "{}: solution {index} is not in the file",
                file.name()
            ));
        };
        if self.trace.is_none() {
            return Ok(self.verdict(file, pos)?.then(|| Chosen {
                file: file.clone(),
                pos,
                distance: None,
            }));
        }
        let why = match eval::can_solve(s, self.problem, self.dev) {
            Rejection::None => None,
            Rejection::Unknown(w) => return Err(format!("{}: solution {index}: {w}", file.name())),
            r => Some(crate::trace::rejection_text(&r, self.problem)),
        };
        if let Some(t) = tried {
            t.rejected_by = why.clone();
        } else if self.trace.is_some() {
            self.step(depth, || StepKind::Single {
                index,
                name: s.name.clone(),
                rejected_by: why.clone(),
            });
        }
        Ok(why.is_none().then(|| Chosen {
            file: file.clone(),
            pos,
            distance: None,
        }))
    }

    /// Whether the solution at `pos` of `file` can solve the problem (`canSolve`). A verdict is
    /// fixed for one problem and device, and tables name the same solution for many tuned
    /// sizes, so each is evaluated once per walk.
    pub(crate) fn verdict(&mut self, file: &Arc<File>, pos: usize) -> Result<bool, String> {
        let mut memo = self.take_memo(file);
        let r = self.verdict_in(&mut memo, file, pos);
        self.put_memo(file, memo);
        r
    }

    /// The verdicts of `file` so far (`crate::verdict`: one byte per class, leaf and hardware
    /// predicate; 0 unknown, 1 yes, 2 no), taken out of the walk for a table scan and put back
    /// with [`Walk::put_memo`].
    pub(crate) fn take_memo(&mut self, file: &Arc<File>) -> Vec<u8> {
        // A walk reaches one or two files: a list beats a map.
        let id = Arc::as_ptr(file) as usize;
        match self.verdicts.iter().position(|(f, _)| *f == id) {
            Some(i) => self.verdicts.swap_remove(i).1,
            None => vec![0; file.classes.memo_len()],
        }
    }

    /// Puts back what [`Walk::take_memo`] took.
    pub(crate) fn put_memo(&mut self, file: &Arc<File>, memo: Vec<u8>) {
        self.verdicts.push((Arc::as_ptr(file) as usize, memo));
    }

    /// [`Walk::verdict`] with the file's verdicts in hand.
    pub(crate) fn verdict_in(
        &self,
        memo: &mut [u8],
        file: &Arc<File>,
        pos: usize,
    ) -> Result<bool, String> {
        let class = file.classes.class(pos).unwrap_or(usize::MAX);
        let Some(s) = file.catalog.solutions.get(pos) else {
            return Err(format!(
                "{}: solution position {pos} is not in the file",
                file.name()
            ));
        };
        file.classes
            .decide(memo, class, s, self.problem, self.dev)
            .map_err(|w| format!("{}: solution {}: {w}", file.name(), s.index))
    }

    /// What a matching entry or tree value leads to.
    pub(crate) fn value(
        &mut self,
        v: &EntryValue,
        file: &Arc<File>,
        depth: u32,
        tried: Option<&mut Tried>,
    ) -> Out {
        match v {
            EntryValue::Index(i) => self.single(*i, file, depth, tried),
            EntryValue::Node(n) => self.node(n, file, depth + 1),
        }
    }

    /// The problem.
    pub(crate) fn problem(&self) -> &Problem {
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

    /// `BasicForest::findBestMatch`: the first tree whose solution fits and whose prediction
    /// is true, else the null value.
    fn forest(&mut self, f: &Forest, file: &Arc<File>, depth: u32) -> Out {
        let key = f
            .features
            .iter()
            .map(|p| feature(p, self.problem))
            .collect::<Result<Vec<f32>, String>>()
            .map_err(|w| format!("{}: {w}", file.name()))?;
        for (i, tree) in f.trees.iter().enumerate() {
            let Some(c) = self.node(&tree.value, file, depth + 1)? else {
                continue;
            };
            let yes = matching::predict(&tree.nodes, &key)
                .map_err(|w| format!("{}: tree {i}: {w}", file.name()))?;
            self.step(depth, || StepKind::Tree {
                tree: i,
                predicts: yes,
            });
            if yes {
                return Ok(Some(c));
            }
        }
        self.node(&f.null_value, file, depth + 1)
    }
}

/// A decision-tree feature of the problem (`MLFeatures.hpp`, `MLFeatures.cpp:33-41`), in
/// `float` as the host library computes it.
fn feature(p: &Property, pr: &Problem) -> Result<f32, String> {
    let gran = |x: f32| x / x.ceil();
    let tiles_per_cu = |mt0: f32, mt1: f32, cus: f32| {
        let m = pr.free_size_a() as f32 * mt0;
        let n = pr.free_size_b() as f32 * mt1;
        m.ceil() * n.ceil() * cus
    };
    Ok(match *p {
        Property::FreeSizeA(0) => pr.free_size_a() as f32,
        Property::FreeSizeB(0) => pr.free_size_b() as f32,
        Property::BatchSize(0) => pr.batch_size() as f32,
        Property::BoundSize(0) => pr.bound_size() as f32,
        Property::Tile0Granularity(v) => gran(pr.free_size_a() as f32 * v),
        Property::Tile1Granularity(v) => gran(pr.free_size_b() as f32 * v),
        Property::CuGranularity([mt0, mt1, cus]) => gran(tiles_per_cu(mt0, mt1, cus)),
        Property::WavesPerSimd([mt0, mt1, cus, ws]) => tiles_per_cu(mt0, mt1, cus).ceil() * ws,
        Property::ProblemScaleMeasure => pr
            .free_size_b()
            .wrapping_mul(pr.free_size_b())
            .wrapping_mul(pr.batch_size()) as f32,
        ref other => return Err(format!("decision-tree feature {other:?}")),
    })
}
