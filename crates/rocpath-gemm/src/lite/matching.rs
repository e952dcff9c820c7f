//! TensileLite's matching tables as hipBLASLt 7.1.1 searches them for `findTopSolutions`
//! (`PropertyMatching.hpp`, line numbers of the reference's stored text, SOURCES.txt):
//!
//! - `GridBased` (`:904-1453`, the default path: no `TENSILE_GRIDBASED_KDTREE`, no
//!   `TENSILE_GRIDBASED_BATCH_EXP`): the distance is |K − K'| alone (`Distance.hpp:389-399`);
//!   the search narrows the sorted table to the group of the nearest M, then N, then batch at
//!   or above the problem's (each clamped to the largest present), walks that group's K values
//!   keeping the *last* best (`<=`, :1287), folds a batch > 1 into M or N once and restarts
//!   when the batch group found was the batch-1 one (:1328-1367), moves on group by group until
//!   it has the solutions asked for (the `baseN`/`stepN` schedule, :1159-1191), and if it runs
//!   out walks backwards from the last group's start taking every solution that fits
//!   (:1388-1436);
//! - `Equality` (`:758-823`): the exact key or nothing;
//! - every other distance (`:465-680`, `findTopKeyMatch` :487-498): the nearest entry found by
//!   `findBestKeyMatch_BinSearch`, at most one.
//!
//! A found solution is one the entry's library accepts (`transform` =
//! `library->findBestSolution`, `MatchingLibrary.hpp:157-166`); the same solution object is
//! returned once (`std::find` on the list, :1093, :1371, :1411).

use super::select::{LiteWalk, Pick, Top};
use crate::library::File;
use crate::trace::{Near, StepKind, Tried};
use rocpath_tensile::catalog::{Distance, EntryValue, Matching};
use std::sync::Arc;

/// `std::lower_bound` over `lo..hi` with `less(i)`.
fn lower_bound(lo: usize, hi: usize, less: impl Fn(usize) -> bool) -> usize {
    let (mut first, mut count) = (lo, hi.saturating_sub(lo));
    while count > 0 {
        let step = count / 2;
        let it = first + step;
        if less(it) {
            first = it + 1;
            count -= step + 1;
        } else {
            count = step;
        }
    }
    first
}

/// [`lower_bound`] found by doubling steps from `lo` first: the same position, in a few probes
/// when it is near `lo` (the grid search's next group usually is).
fn gallop(lo: usize, hi: usize, less: impl Fn(usize) -> bool) -> usize {
    let (mut at, mut step) = (lo, 1);
    while at < hi && less(at) {
        at += step;
        step *= 2;
    }
    // `less` holds below the last probe that held: the answer is in (that probe, at].
    let from = if at == lo { lo } else { at - step / 2 + 1 };
    lower_bound(from.min(hi), at.min(hi), less)
}

/// One table search: the table, its key, what was tried.
struct Search<'m> {
    m: &'m Matching,
    key: Vec<i64>,
    considered: usize,
    tried: Vec<Tried>,
}

impl Search<'_> {
    /// Key value `j` of entry `i`. The host library dereferences `table.end()` in places where
    /// the range searched is then empty (an M group past the last, :1193-1233), so the value read
    /// there never decides anything; 0 stands for it.
    fn k(&self, i: usize, j: usize) -> i64 {
        if j >= self.m.dims {
            return 0;
        }
        self.m
            .keys
            .get(i.wrapping_mul(self.m.dims).wrapping_add(j))
            .copied()
            .unwrap_or(0)
    }

    /// `transform(entry i)`: the entry's library's `findBestSolution`, recorded when tracing.
    fn transform(
        &mut self,
        w: &mut LiteWalk<'_>,
        i: usize,
        dist: f64,
        file: &Arc<File>,
        depth: u32,
    ) -> Result<Option<Pick>, String> {
        let e = &self.m.entries[i];
        if !w.tracing() && e.pos != rocpath_tensile::catalog::UNRESOLVED {
            if let EntryValue::Index(_) = e.value {
                let r = w.single_at(file, e.pos as usize)?;
                return Ok(r.map(|mut p| {
                    p.distance = Some(dist);
                    p.key = self.m.key(i).to_vec();
                    p
                }));
            }
        }
        let mut t = w.tracing().then(|| Tried {
            position: i,
            key: self.m.key(i).to_vec(),
            distance: dist,
            speed: e.speed,
            index: match e.value {
                EntryValue::Index(x) => Some(x),
                EntryValue::Node(_) => None,
            },
            kernel: match e.value {
                EntryValue::Index(x) => file.solution(x).map(|s| s.name.clone()),
                EntryValue::Node(_) => None,
            },
            rejected_by: None,
        });
        let r = w.entry(&e.value, file, depth + 1, t.as_mut())?;
        if let Some(mut t) = t {
            if r.is_none() && t.rejected_by.is_none() {
                t.rejected_by = Some("nothing in its sub-library fits".into());
            }
            self.tried.push(t);
        }
        Ok(r.map(|mut p| {
            p.distance = Some(dist);
            p.key = self.m.key(i).to_vec();
            p
        }))
    }
}

/// `|K − K'|`: the last key value (K) of each (`GridBasedDistance`, Distance.hpp:389-399).
fn grid_distance(p1: &[i64], p2: &[i64]) -> f64 {
    let kk = |p: &[i64]| {
        let v = if p.len() > 3 {
            p[3]
        } else {
            p.get(2).copied().unwrap_or(0)
        };
        v as f64
    };
    (kk(p1) - kk(p2)).abs()
}

/// `ProblemMatchingLibrary::findTopSolutions` (MatchingLibrary.hpp:157-181) on table `m` of
/// `file`: up to `n` solutions.
pub(crate) fn top(
    w: &mut LiteWalk<'_>,
    m: &Matching,
    file: &Arc<File>,
    n: usize,
    depth: u32,
) -> Top {
    let d = match &m.distance {
        Ok(d) => *d,
        Err(name) => return Err(format!("{}: distance `{name}`", file.name())),
    };
    let key = m
        .properties
        .iter()
        .map(|p| w.problem().key_value(p))
        .collect::<Result<Vec<i64>, String>>()
        .map_err(|e| format!("{}: {e}", file.name()))?;
    let slot = w.tracing().then(|| {
        w.push(
            depth,
            StepKind::Matching {
                file: file.name(),
                properties: m.properties.iter().map(|p| format!("{p:?}")).collect(),
                distance: d.name(),
                key: key.clone(),
                entries: m.entries.len(),
                considered: 0,
                tried: Vec::new(),
                nearest: Vec::new(),
            },
        )
    });
    let mut s = Search {
        m,
        key,
        considered: 0,
        tried: Vec::new(),
    };
    let found = match d {
        Distance::GridBased => grid(w, &mut s, file, n, depth)?,
        Distance::Equality => equality(w, &mut s, file, depth)?.into_iter().collect(),
        Distance::Random => {
            return Err(format!(
                "{}: the `Random` distance (rand()) cannot be predicted",
                file.name()
            ));
        }
        _ => bin_search(w, &mut s, d, file, depth)?.into_iter().collect(),
    };
    if let (Some(Some(slot)), true) = (slot, w.tracing()) {
        let near = nearest(m, d, &s.key, file);
        let (considered, tried) = (s.considered, std::mem::take(&mut s.tried));
        w.fill_matching(slot, considered, tried, near);
    }
    Ok(found)
}

/// The Equality specialisation (:795-822): `lower_bound`, then the entry only if its key is
/// the problem's.
fn equality(
    w: &mut LiteWalk<'_>,
    s: &mut Search<'_>,
    file: &Arc<File>,
    depth: u32,
) -> Result<Option<Pick>, String> {
    let n = s.m.entries.len();
    let i = lower_bound(0, n, |i| s.m.key(i) < s.key.as_slice());
    if i == n {
        return Ok(None);
    }
    s.considered += 1;
    if s.m.key(i) != s.key.as_slice() {
        return Ok(None);
    }
    s.transform(w, i, 0.0, file, depth)
}

/// `findBestKeyMatch_BinSearch` (:501-680) for the other distances: rightward from the key's
/// `lower_bound`, then leftward, each direction stopping when `improvementPossible` says no.
fn bin_search(
    w: &mut LiteWalk<'_>,
    s: &mut Search<'_>,
    d: Distance,
    file: &Arc<File>,
    depth: u32,
) -> Result<Option<Pick>, String> {
    let n = s.m.entries.len();
    if n == 0 {
        return Ok(None);
    }
    let orig = lower_bound(0, n, |i| s.m.key(i) < s.key.as_slice());
    let mut best: Option<Pick> = None;
    let mut best_d = f64::MAX;
    let mut best_speed = 0.0;
    for leftward in [false, true] {
        let order: Box<dyn Iterator<Item = usize>> = if leftward {
            Box::new((0..orig).rev())
        } else {
            Box::new(orig..n)
        };
        for i in order {
            let k = s.m.key(i).to_vec();
            if best.is_some()
                && !crate::select::matching::improvement_possible(d, &s.key, &k, best_d)
            {
                break;
            }
            s.considered += 1;
            let dist = crate::select::matching::distance(d, &s.key, &k)?;
            let speed = s.m.entries[i].speed;
            if dist < best_d || (dist == best_d && speed > best_speed) {
                if let Some(p) = s.transform(w, i, dist, file, depth)? {
                    best_d = dist;
                    best = Some(p);
                    best_speed = speed;
                }
            }
        }
    }
    Ok(best)
}

/// After how many groups without a solution the untraced search asks [`hopeless`].
const HOPELESS_CHECK: usize = 256;

/// True when the walk is untraced and every solution the table names rejects the problem: no
/// later group and no entry of the fill-in can be taken, so the search ends with none, as the
/// host library's does after visiting every remaining group and entry. A solution that accepts
/// or that cannot be evaluated keeps the search going (the error is met in order).
fn hopeless(w: &mut LiteWalk<'_>, m: &Matching, file: &Arc<File>) -> bool {
    let Some(named) = m.solutions.as_deref() else {
        return false;
    };
    w.verdicts_of(file).is_some() && named.iter().all(|&pos| w.rejects(file, pos as usize))
}

/// `findBestKeyMatch_GridBased` (:967-1452) without the k-d tree.
fn grid(
    w: &mut LiteWalk<'_>,
    s: &mut Search<'_>,
    file: &Arc<File>,
    num: usize,
    depth: u32,
) -> Result<Vec<Pick>, String> {
    let n = s.m.entries.len();
    let mut best: Vec<Pick> = Vec::new();
    if n == 0 {
        return Ok(best);
    }
    if s.m.dims < 3 {
        return Err(format!(
            "{}: a GridBased table with keys shorter than 3 (the host library reads past them)",
            file.name()
        ));
    }
    let four = s.key.len() > 3;
    // Iterators as positions (:1145-1152); the M and N lower bounds and the start are only
    // read in the round that sets them.
    let (mut m_upper, mut n_upper) = (0usize, 0usize);
    let (mut b_lower, mut b_upper, mut batch) = (0usize, 0usize, 0usize);
    let mut best_match: Option<Pick> = None;
    let mut first_find = true;
    // baseN: the first i with i(i+1)/2 >= numSolutions (:1159-1168); both `int`.
    let mut base_n: i64 = (1..).find(|b| b * (b + 1) / 2 >= num as i64).unwrap_or(1);
    let mut step_n: i64 = 0;
    let mut rounds = 0usize;
    while b_upper != n && best.len() < num {
        rounds += 1;
        if rounds == HOPELESS_CHECK && best.is_empty() && hopeless(w, s.m, file) {
            return Ok(best);
        }
        if rounds > 4 * n + 8 {
            return Err(format!(
                "{}: a GridBased table the search cannot advance through",
                file.name()
            ));
        }
        let mut best_d = f64::MAX;
        let mut this_match = false;
        // :1181-1191 the next M group after baseN N groups, else the next N group.
        let start = if step_n == base_n && base_n != 1 {
            step_n = 1;
            base_n -= 1;
            m_upper
        } else {
            step_n += 1;
            n_upper
        };
        let g = group(s, start);
        (m_upper, n_upper, b_lower, b_upper) = (g.m_upper, g.n_upper, g.b_lower, g.b_upper);
        // :1279-1326 every K of the group; the last of equal distance wins.
        for i in b_lower..b_upper {
            s.considered += 1;
            if w.known_reject(file, s.m.entries[i].pos) {
                continue;
            }
            let dist = grid_distance(&s.key, s.m.key(i));
            if dist <= best_d {
                if let Some(p) = s.transform(w, i, dist, file, depth)? {
                    batch = i;
                    best_d = dist;
                    best_match = Some(p);
                    this_match = true;
                }
            }
        }
        // :1328-1367 once: a batch > 1 is folded into the larger of M and N; when the group
        // searched was batch 1 anyway, the search starts again with the folded key.
        if first_find {
            first_find = false;
            if four && s.key[2] != 1 {
                fold_batch(&mut s.key);
                if s.k(batch, 2) == 1 {
                    m_upper = 0;
                    n_upper = 0;
                    b_lower = 0;
                    b_upper = 0;
                    base_n = 0;
                    step_n = 0;
                    continue;
                }
            }
        }
        // :1369-1385 the group's best joins the list unless it is already there.
        match &best_match {
            Some(p) if (this_match || !best.is_empty()) && !best.iter().any(|q| q.same(p)) => {
                best.push(p.clone());
            }
            _ => {}
        }
    }
    if best.len() < num {
        fill_in(w, s, file, depth, b_lower, num, &mut best)?;
    }
    Ok(best)
}

/// :1328-1367: a batch > 1 folded into the larger of M and N, the batch then 1.
fn fold_batch(key: &mut [i64]) {
    if key[0] > key[1] {
        key[0] = key[0].wrapping_mul(key[2]);
    } else {
        key[1] = key[1].wrapping_mul(key[2]);
    }
    key[2] = 1;
}

/// The bounds of one round's group (entries are positions in the sorted table).
struct Group {
    m_upper: usize,
    n_upper: usize,
    b_lower: usize,
    b_upper: usize,
}

/// :1193-1265, the group of a round from `start`: `std::min` of the problem's value and the
/// largest in range for M, then N, then batch; a group ends at the first larger value
/// (`lower_bound` of value + 1).
fn group(s: &Search<'_>, start: usize) -> Group {
    let n = s.m.entries.len();
    let (m_lower, m_upper) = level(s, 0, start, n, n.saturating_sub(1));
    let (n_lower, n_upper) = level(s, 1, m_lower, m_upper, m_upper.saturating_sub(1));
    let (b_lower, b_upper) = level(s, 2, n_lower, n_upper, n_upper.saturating_sub(1));
    Group {
        m_upper,
        n_upper,
        b_lower,
        b_upper,
    }
}

/// One level of a group within `lo..hi`: the run of key value `j` at the problem's value or the
/// first above it, the value clamped to the largest in range (read at `top`), as `(lower,
/// upper)`.
fn level(s: &Search<'_>, j: usize, lo: usize, hi: usize, top: usize) -> (usize, usize) {
    let val = s.key[j].min(s.k(top, j));
    let lower = gallop(lo, hi, |i| s.k(i, j) < val);
    let up = s
        .k(lower, j)
        .wrapping_add(1)
        .min(s.k(top, j).wrapping_add(1));
    (lower, gallop(lower, hi, |i| s.k(i, j) < up))
}

/// :1388-1436, when the groups gave fewer than `num`: every entry before the last group's start
/// (`b_lower`), backwards, whatever its distance, until enough. Entries whose solution is known
/// to reject the problem change nothing and are passed over without a look.
#[allow(clippy::too_many_arguments)]
fn fill_in(
    w: &mut LiteWalk<'_>,
    s: &mut Search<'_>,
    file: &Arc<File>,
    depth: u32,
    b_lower: usize,
    num: usize,
    best: &mut Vec<Pick>,
) -> Result<(), String> {
    let mut next = b_lower;
    while next > 0 {
        let i = match w.verdicts_of(file) {
            Some(memo) => {
                let known = |e: &rocpath_tensile::catalog::Entry| {
                    e.pos != rocpath_tensile::catalog::UNRESOLVED
                        && memo.get(e.pos as usize) == Some(&2)
                };
                let below = s.m.entries.get(..next).unwrap_or(&[]);
                let skipped = below.iter().rev().take_while(|e| known(e)).count();
                s.considered += skipped;
                match (next - skipped).checked_sub(1) {
                    Some(i) => i,
                    None => break,
                }
            }
            None => next - 1,
        };
        next = i;
        s.considered += 1;
        let dist = grid_distance(&s.key, s.m.key(i));
        if let Some(p) = s.transform(w, i, dist, file, depth)? {
            if !best.iter().any(|q| q.same(&p)) {
                best.push(p);
            }
        }
        if best.len() == num {
            break;
        }
    }
    Ok(())
}

/// The entries nearest the key by distance alone, predicates aside (for people).
fn nearest(m: &Matching, d: Distance, key: &[i64], file: &File) -> Vec<Near> {
    let dist = |k: &[i64]| match d {
        Distance::GridBased => {
            // Nearest by M, N, batch, then K, as the grid search narrows.
            let g = |j: usize| {
                (key.get(j).copied().unwrap_or(0) - k.get(j).copied().unwrap_or(0)).unsigned_abs()
                    as f64
            };
            Some(g(0) * 1e12 + g(1) * 1e6 + g(2) * 1e3 + grid_distance(key, k))
        }
        _ => crate::select::matching::distance(d, key, k).ok(),
    };
    let mut v: Vec<(f64, usize)> = (0..m.entries.len())
        .filter_map(|i| dist(m.key(i)).map(|x| (x, i)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    v.into_iter()
        .take(5)
        .map(|(_, i)| {
            let e = &m.entries[i];
            let index = match e.value {
                EntryValue::Index(x) => Some(x),
                EntryValue::Node(_) => None,
            };
            Near {
                key: m.key(i).to_vec(),
                distance: match d {
                    Distance::GridBased => grid_distance(key, m.key(i)),
                    _ => crate::select::matching::distance(d, key, m.key(i)).unwrap_or(f64::MAX),
                },
                speed: e.speed,
                index,
                kernel: index.and_then(|x| file.solution(x)).map(|s| s.name.clone()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Galloping finds the position `lower_bound` finds, from any start in a sorted range.
        #[test]
        fn gallop_finds_the_lower_bound(
            mut v in proptest::collection::vec(0i64..40, 0..200),
            x in 0i64..42,
            lo in 0usize..210,
        ) {
            v.sort_unstable();
            let lo = lo.min(v.len());
            let less = |i: usize| v[i] < x;
            prop_assert_eq!(gallop(lo, v.len(), less), lower_bound(lo, v.len(), less));
        }
    }
}
