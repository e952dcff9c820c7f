//! Whether a solution can solve the problem, decided once per class of solutions and once per
//! predicate leaf for a walk.
//!
//! `ContractionSolution::canSolve` (ContractionSolution.cpp:1242-1255) evaluates the task, then
//! the problem, then the hardware predicate. Its verdict reads nothing of the solution but those
//! predicates and the size-mapping fields of the workspace check (`eval::required_workspace`),
//! so solutions sharing them share their verdict: a file's solutions fall into *verdict classes*
//! ([`Classes::of`]), and a walk decides each class at most once. The problem predicates of a
//! file are mostly conjunctions drawn from a few dozen distinct leaves (size multiples, types,
//! the operation's name, …), so a class whose problem predicate is a plain `And` of known leaves
//! keeps the leaves' numbers ([`Plan`]) and each leaf is evaluated at most once per walk too;
//! the conjunction is read in its order and stops at the first leaf that fails, as `And` does,
//! so the verdict — and which leaf's unknown name makes it an error — is the one of
//! `eval::can_solve`. Other predicates are evaluated whole.
//!
//! A walk keeps its memo per file as one byte per class, then per leaf, then per distinct
//! hardware predicate (0 not known yet, 1 yes, 2 no).

use crate::device::Device;
use crate::eval::{self, Rejection, Tri};
use crate::problem::Problem;
use rocpath_tensile::catalog::{HwLeaf, Pred, ProblemLeaf, Solution, TaskLeaf};

/// How a class is decided.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The problem predicate's leaves, when it is a conjunction of known leaves (in order).
    leaves: Option<Box<[u32]>>,
    /// The hardware predicate's number.
    hw: u32,
}

/// The verdict classes of a file's solutions.
#[derive(Debug, Clone, Default)]
pub struct Classes {
    /// Per solution position, its class.
    of: Vec<u32>,
    /// Per class, how it is decided.
    plans: Vec<Plan>,
    /// The distinct leaves of the plans.
    leaves: Vec<ProblemLeaf>,
    /// The distinct hardware predicates.
    hws: Vec<Pred<HwLeaf>>,
}

type Key<'a> = (
    &'a Pred<TaskLeaf>,
    &'a Pred<ProblemLeaf>,
    &'a Pred<HwLeaf>,
    [u64; 3],
);

impl Classes {
    /// Groups `solutions` (predicates already in the order they will be evaluated in).
    pub(crate) fn of(solutions: &[Solution]) -> Self {
        let mut seen: rustc_hash::FxHashMap<Key<'_>, u32> = rustc_hash::FxHashMap::default();
        let mut leaf_ids: rustc_hash::FxHashMap<&ProblemLeaf, u32> = Default::default();
        let mut hw_ids: rustc_hash::FxHashMap<&Pred<HwLeaf>, u32> = Default::default();
        let mut c = Classes::default();
        for s in solutions {
            let sm = &s.size_mapping;
            let ws = [
                sm.workspace_per_elem_c,
                sm.stream_k as u64,
                sm.stream_k_atomic as u64,
            ];
            let next = seen.len() as u32;
            let class = *seen
                .entry((&s.task, &s.problem, &s.hardware, ws))
                .or_insert(next);
            if class == next {
                let leaves = conjunction(&s.problem).map(|ls| {
                    ls.into_iter()
                        .map(|l| intern(&mut leaf_ids, &mut c.leaves, l))
                        .collect()
                });
                let hw = intern(&mut hw_ids, &mut c.hws, &s.hardware);
                c.plans.push(Plan { leaves, hw });
            }
            c.of.push(class);
        }
        c
    }

    /// The class of the solution at `pos`.
    pub fn class(&self, pos: usize) -> Option<usize> {
        self.of.get(pos).map(|&c| c as usize)
    }

    /// How many classes.
    pub fn count(&self) -> usize {
        self.plans.len()
    }

    /// The length of a walk's memo for the file: classes, leaves, hardware predicates.
    pub(crate) fn memo_len(&self) -> usize {
        self.plans.len() + self.leaves.len() + self.hws.len()
    }

    /// Whether `s` (of class `class`) can solve `p` on `dev`, with the walk's memo for its
    /// file; `Err` with what could not be evaluated.
    pub(crate) fn decide(
        &self,
        memo: &mut [u8],
        class: usize,
        s: &Solution,
        p: &Problem,
        dev: &Device,
    ) -> Result<bool, String> {
        if let Some(&known) = memo.get(class).filter(|&&v| v != 0) {
            return Ok(known == 1);
        }
        let ok = match self.plans.get(class) {
            Some(Plan {
                leaves: Some(ids),
                hw,
            }) => self.planned(memo, ids, *hw, s, p, dev)?,
            _ => whole(s, p, dev)?,
        };
        if let Some(v) = memo.get_mut(class) {
            *v = if ok { 1 } else { 2 };
        }
        Ok(ok)
    }

    /// `canSolve` with the problem leaves and the hardware predicate memoised.
    fn planned(
        &self,
        memo: &mut [u8],
        ids: &[u32],
        hw: u32,
        s: &Solution,
        p: &Problem,
        dev: &Device,
    ) -> Result<bool, String> {
        match eval::eval(&s.task, &|l| eval::task_leaf(l, s, p)) {
            Tri::Holds => {}
            Tri::Fails(_) => return Ok(false),
            Tri::Unknown(w) => return Err(w),
        }
        let base = self.plans.len();
        for &id in ids {
            let id = id as usize;
            let ok = match memo.get(base + id) {
                Some(1) => true,
                Some(2) => false,
                _ => {
                    let Some(leaf) = self.leaves.get(id) else {
                        return whole(s, p, dev);
                    };
                    let ok = eval::problem_leaf(leaf, p)?;
                    remember(memo, base + id, ok);
                    ok
                }
            };
            if !ok {
                return Ok(false);
            }
        }
        let slot = base + self.leaves.len() + hw as usize;
        match memo.get(slot) {
            Some(1) => Ok(true),
            Some(2) => Ok(false),
            _ => {
                let ok = match eval::eval(&s.hardware, &|l| eval::hw_leaf(l, dev)) {
                    Tri::Holds => true,
                    Tri::Fails(_) => false,
                    Tri::Unknown(w) => return Err(w),
                };
                remember(memo, slot, ok);
                Ok(ok)
            }
        }
    }
}

/// `canSolve` evaluated whole.
fn whole(s: &Solution, p: &Problem, dev: &Device) -> Result<bool, String> {
    match eval::can_solve(s, p, dev) {
        Rejection::None => Ok(true),
        Rejection::Unknown(w) => Err(w),
        _ => Ok(false),
    }
}

fn remember(memo: &mut [u8], slot: usize, ok: bool) {
    if let Some(v) = memo.get_mut(slot) {
        *v = if ok { 1 } else { 2 };
    }
}

/// The leaves of a predicate that is a conjunction of leaves this model knows (`True` is the
/// empty one), in order; `None` for any other shape.
fn conjunction(p: &Pred<ProblemLeaf>) -> Option<Vec<&ProblemLeaf>> {
    match p {
        Pred::True => Some(Vec::new()),
        Pred::And(v) => v.iter().map(known_leaf).collect::<Option<Vec<_>>>(),
        q => known_leaf(q).map(|l| vec![l]),
    }
}

fn known_leaf(q: &Pred<ProblemLeaf>) -> Option<&ProblemLeaf> {
    match q {
        Pred::Leaf(ProblemLeaf::Unknown(_)) => None,
        Pred::Leaf(l) => Some(l),
        _ => None,
    }
}

fn intern<'a, T: std::hash::Hash + Eq + Clone>(
    ids: &mut rustc_hash::FxHashMap<&'a T, u32>,
    all: &mut Vec<T>,
    v: &'a T,
) -> u32 {
    *ids.entry(v).or_insert_with(|| {
        all.push(v.clone());
        all.len() as u32 - 1
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::Op;
    use crate::rocblas::{self, BlasType, Call, Route, Settings};
    use rocpath_arch::TargetId;

    /// A solution with `problem` as its problem predicate (YAML flow form).
    fn solution(index: i64, problem: &str, ws: u64, hw: &str) -> String {
        format!(
            "- {{name: s{index}, index: {index}, hardwarePredicate: {hw}, problemPredicate: {problem}, taskPredicate: {{type: WorkspaceCheck}}, sizeMapping: {{workGroup: [16, 16, 1], macroTile: [64, 64, 1], depthU: 16, globalSplitU: 1, persistentKernel: 0, sourceKernel: false, workspaceSizePerElemC: {ws}, persistentKernelAlongBatch: false, globalAccumulation: 0}}, problemType: {{operationIdentifier: Contraction_l_Ailk_Bljk_Cijk_Dijk, aType: Float, bType: Float, cType: Float, dType: Float, useBeta: true, highPrecisionAccumulate: false, stridedBatched: true}}}}\n"
        )
    }

    fn solutions() -> Vec<Solution> {
        let m32 = "{type: Free0SizeMultiple, index: 0, value: 32}";
        let n16 = "{type: Free1SizeMultiple, index: 0, value: 16}";
        let k8 = "{type: BoundSizeMultiple, index: -1, value: 8}";
        let ty = "{type: TypesEqual, value: [Float, Float, Float, Float]}";
        let gfx90a = "{type: AMDGPU, value: {type: Processor, value: gfx90a}}";
        let gfx900 = "{type: AMDGPU, value: {type: Processor, value: gfx900}}";
        let t = "{type: TruePred}";
        let and = |v: &[&str]| format!("{{type: And, value: [{}]}}", v.join(", "));
        let yaml = [
            solution(0, &and(&[m32, n16, ty]), 0, t),
            solution(1, &and(&[m32, n16, ty]), 0, t),
            solution(2, &and(&[m32, n16, ty]), 4, t),
            solution(3, &and(&[n16, k8]), 0, gfx90a),
            solution(4, &format!("{{type: Or, value: [{m32}, {k8}]}}"), 0, t),
            solution(5, m32, 0, gfx900),
            solution(6, t, 0, t),
            solution(7, &and(&[k8, "{type: SomethingNew}", m32]), 0, t),
        ]
        .concat();
        let bytes = rocpath_tensile::yaml_to_msgpack(&format!("solutions:\n{yaml}")).unwrap();
        rocpath_tensile::catalog::decode(&bytes).unwrap().solutions
    }

    #[test]
    fn solutions_with_the_same_predicates_and_workspace_share_a_class() {
        let c = Classes::of(&solutions());
        assert_eq!(c.class(0), c.class(1));
        assert_ne!(
            c.class(0),
            c.class(2),
            "the workspace check reads the size mapping"
        );
        assert_eq!(c.count(), 7);
        // m32, n16, types, k8; the Or and the unknown leaf's predicate are evaluated whole.
        assert_eq!(c.leaves.len(), 4);
        assert!(c.plans[c.class(4).unwrap()].leaves.is_none());
        assert!(c.plans[c.class(7).unwrap()].leaves.is_none());
        assert_eq!(c.hws.len(), 3);
    }

    /// Every solution's verdict, decided through the shared memo in any order, is the one
    /// `canSolve` gives it alone — including the error of a leaf this model does not know,
    /// which comes only when no earlier leaf fails.
    #[test]
    fn decide_agrees_with_can_solve_in_any_order() {
        let sols = solutions();
        let c = Classes::of(&sols);
        let dev = Device::new(TargetId::parse("gfx90a").unwrap(), 104);
        let mut settings = Settings::default();
        for (m, n, k, ws) in [
            (64, 32, 16, 1 << 20),
            (33, 32, 16, 1 << 20),
            (64, 17, 8, 1 << 20),
            (64, 32, 12, 0),
            (1, 1, 1, 0),
            (96, 48, 24, 256),
        ] {
            settings.workspace = Some(ws);
            let call = Call::simple(BlasType::F32, [Op::N, Op::N], m, n, k);
            let Route::Tensile { problem } = rocblas::route_quiet(&call, &settings, &dev) else {
                panic!("{call:?} is not a Tensile call");
            };
            let alone: Vec<Result<bool, String>> =
                sols.iter().map(|s| whole(s, &problem, &dev)).collect();
            for rotate in 0..sols.len() {
                let mut memo = vec![0; c.memo_len()];
                for i in (0..sols.len()).map(|i| (i + rotate) % sols.len()) {
                    let got = c.decide(&mut memo, c.class(i).unwrap(), &sols[i], &problem, &dev);
                    assert_eq!(got, alone[i], "solution {i}, M {m} N {n} K {k} ws {ws}");
                }
            }
        }
    }
}
