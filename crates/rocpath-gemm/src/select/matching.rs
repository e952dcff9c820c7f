//! Matching tables: the key a problem makes, the distances, and the three searches of
//! ROCm/Tensile@be49885f `PropertyMatching.hpp` — `findBestKeyMatch_BinSearch` (:262-415, every
//! distance but two), the `Equality` specialisation (:474-517) and the `GridBased`
//! specialisation (:519-800) — with the distances of `Distance.hpp` (:67-400) computed in the
//! host library's arithmetic (`int64_t` keys, differences converted to `double`).
//! Decision trees' `predict` (`DecisionTree.hpp:56-76`) is here too.

use super::{Chosen, Out, Walk};
use crate::library::File;
use crate::trace::{Near, StepKind, Tried};
use rocpath_tensile::catalog::{
    Distance, EntryValue, Matching, Near3, Property, TreeNode, UNRESOLVED,
};
use std::sync::Arc;

/// A problem's key: as many values as the table has properties (few; kept inline).
pub type Key = smallvec::SmallVec<[i64; 4]>;

/// The key of a problem for `properties` (`ProblemKey::keyForProblem`: `size_t` values stored
/// in `int64_t`).
pub fn key(properties: &[Property], w: &Walk<'_>) -> Result<Key, String> {
    let p = w.problem();
    properties
        .iter()
        .map(|prop| {
            Ok(match *prop {
                Property::FreeSizeA(0) => p.free_size_a() as i64,
                Property::FreeSizeB(0) => p.free_size_b() as i64,
                Property::BatchSize(0) => p.batch_size() as i64,
                Property::BoundSize(0) => p.bound_size() as i64,
                Property::Stride(t, i) => p
                    .strides
                    .get(usize::from(t))
                    .and_then(|s| s.get(i))
                    .map(|&v| v as i64)
                    .ok_or_else(|| format!("stride {i} of a 3-dimension tensor"))?,
                ref other => return Err(format!("matching property {other:?}")),
            })
        })
        .collect()
}

/// `Distance::operator()(p1 = problem key, p2 = table key)`.
pub fn distance(d: Distance, p1: &[i64], p2: &[i64]) -> Result<f64, String> {
    Ok(match d {
        Distance::Euclidean | Distance::Equality => p1
            .iter()
            .zip(p2)
            .map(|(a, b)| {
                let di = a.wrapping_sub(*b) as f64;
                di * di
            })
            .sum(),
        Distance::Manhattan => p1.iter().zip(p2).fold(0.0, |acc, (a, b)| {
            acc + a.wrapping_sub(*b).wrapping_abs() as f64
        }),
        Distance::Ratio => p1
            .iter()
            .zip(p2)
            .fold(1.0, |acc, (a, b)| acc + (*a as f64 / *b as f64).ln().abs()),
        Distance::GridBased => grid_distance(p1, p2)?,
        Distance::Jsd => jsd(p1, p2)?,
        Distance::Random => return Err("the `Random` distance (rand()) cannot be predicted".into()),
    })
}

/// `improvementPossible(p1, p2, 0, best)`.
pub(crate) fn improvement_possible(d: Distance, p1: &[i64], p2: &[i64], best: f64) -> bool {
    let a = p1.first().copied().unwrap_or(0);
    let b = p2.first().copied().unwrap_or(0);
    match d {
        Distance::Euclidean => {
            let d0 = a.wrapping_sub(b) as f64;
            d0 * d0 < best || p1 == p2
        }
        Distance::Manhattan => (a.wrapping_sub(b).wrapping_abs() as f64) < best || p1 == p2,
        Distance::Jsd => jsd_first(p1, p2).is_none_or(|d0| d0 < best) || p1 == p2,
        _ => true,
    }
}

fn grid_distance(p1: &[i64], p2: &[i64]) -> Result<f64, String> {
    if p1.len() < 3 || p2.len() < 3 {
        return Err("a GridBased table with keys shorter than 3".into());
    }
    let (m, n, k) = (p2[0] as f64, p2[1] as f64, p2[2] as f64);
    let (x0, x1) = (p1[0] as f64, p1[1] as f64);
    let step_m = if p1[0] <= 32768 { (x0 / m).ceil() } else { 1.0 };
    let step_n = if p1[1] <= 32768 { (x1 / n).ceil() } else { 1.0 };
    let mut d = if p1[0] <= 32768 && p1[1] <= 32768 {
        let prod = p1[0].wrapping_mul(p1[1]) as f64;
        (100.0 * step_m * step_n / (prod / (step_m * m * step_n * n)).powi(2)).round()
    } else {
        (10000.0 * step_m * step_n * ((x0 - m).powi(2) + (x1 - n).powi(2)).powf(0.5)).round()
    };
    d += (k - p1[2] as f64).abs() / (k + p1[2].wrapping_mul(8) as f64);
    Ok(d)
}

fn jsd_norm(p: &[i64], q: &[i64]) -> Option<([f64; 3], [f64; 3])> {
    if p.len() != 3 || q.len() != 3 {
        return None;
    }
    let sp: f64 = p.iter().map(|&v| v as f64).sum();
    let sq: f64 = q.iter().map(|&v| v as f64).sum();
    Some((
        [p[0] as f64 / sp, p[1] as f64 / sp, p[2] as f64 / sp],
        [q[0] as f64 / sq, q[1] as f64 / sq, q[2] as f64 / sq],
    ))
}

fn jsd(p1: &[i64], p2: &[i64]) -> Result<f64, String> {
    let (np, nq) = jsd_norm(p1, p2).ok_or(
        "a JSD table with keys of a length other than 3 (the host library reads past them)",
    )?;
    let m = [0, 1, 2].map(|i| 0.5 * (np[i] + nq[i]));
    let kl = |p: &[f64; 3]| (0..3).map(|i| p[i] * (p[i] / m[i]).ln()).sum::<f64>();
    Ok(0.5 * kl(&np) + 0.5 * kl(&nq))
}

fn jsd_first(p1: &[i64], p2: &[i64]) -> Option<f64> {
    let (np, nq) = jsd_norm(p1, p2)?;
    let m = 0.5 * (np[0] + nq[0]);
    Some(0.5 * (np[0] * (np[0] / m).ln()) + 0.5 * (nq[0] * (nq[0] / m).ln()))
}

/// The first index past `i` (at most `n`) where `inside` stops holding, `inside` holding on
/// `i..` up to there: doubling steps from `i`, then a binary search (runs are short, tables long).
fn gallop_up(i: usize, n: usize, inside: &impl Fn(usize) -> bool) -> usize {
    let mut lo = i + 1;
    let mut step = 1;
    while lo < n && inside(lo) {
        lo += step;
        step *= 2;
    }
    let from = lo.saturating_sub(step / 2).max(i + 1);
    lower_bound(from, lo.min(n), inside)
}

/// The first index of the run of `i`: `inside` holds on it up to `i`.
fn gallop_down(i: usize, inside: &impl Fn(usize) -> bool) -> usize {
    let mut lo = i;
    let mut step = 1;
    while lo > 0 && inside(lo - 1) {
        lo = lo.saturating_sub(step);
        step *= 2;
    }
    // `inside` fails below `lo` (or lo is 0); it holds from the last probe up to `i`.
    let hi = (lo + step / 2).min(i);
    lower_bound(lo, hi, |x| !inside(x))
}

/// `std::lower_bound` over entries `lo..hi` with `less(entry)`.
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

struct Search<'m> {
    m: &'m Matching,
    d: Distance,
    key: Key,
    best: Option<Chosen>,
    best_d: f64,
    best_speed: f64,
    considered: usize,
    tried: Vec<Tried>,
}

impl Search<'_> {
    /// Calls the entry's library (the `transform`), recording what it said.
    fn transform(
        &mut self,
        w: &mut Walk<'_>,
        i: usize,
        dist: f64,
        file: &Arc<File>,
        depth: u32,
    ) -> Out {
        let e = &self.m.entries[i];
        if !w.tracing() {
            let r = w.value(&e.value, file, depth + 1, None)?;
            return Ok(r.map(|mut c| {
                c.distance = Some(dist);
                c
            }));
        }
        let index = match e.value {
            EntryValue::Index(x) => Some(x),
            EntryValue::Node(_) => None,
        };
        let mut t = Tried {
            position: i,
            key: self.m.key(i).to_vec(),
            distance: dist,
            speed: e.speed,
            index,
            kernel: index.and_then(|x| file.solution(x)).map(|s| s.name.clone()),
            rejected_by: None,
        };
        let r = w.value(&e.value, file, depth + 1, Some(&mut t))?;
        if r.is_none() && t.rejected_by.is_none() {
            t.rejected_by = Some("nothing in its sub-library fits".into());
        }
        self.tried.push(t);
        Ok(r.map(|mut c| {
            c.distance = Some(dist);
            c
        }))
    }

    /// Entry `i` at `dist` in the Euclidean scan: tried when nearer than the best, or as near
    /// and faster; untraced (`fast`), a resolved solution's verdict comes from the walk's memo.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn consider(
        &mut self,
        w: &mut Walk<'_>,
        memo: &mut [u8],
        fast: bool,
        i: usize,
        dist: f64,
        file: &Arc<File>,
        depth: u32,
    ) -> Result<(), String> {
        self.considered += 1;
        let e = &self.m.entries[i];
        let speed = e.speed;
        if !(dist < self.best_d || (dist == self.best_d && speed > self.best_speed)) {
            return Ok(());
        }
        let found = if fast && e.pos != UNRESOLVED {
            let pos = e.pos as usize;
            w.verdict_in(memo, file, pos)?.then(|| Chosen {
                file: file.clone(),
                pos,
                distance: Some(dist),
            })
        } else {
            self.transform(w, i, dist, file, depth)?
        };
        if let Some(c) = found {
            self.best_d = dist;
            self.best = Some(c);
            self.best_speed = speed;
        }
        Ok(())
    }

    /// One step of `findBestKeyMatch_BinSearch`; false when the direction stops.
    fn visit(
        &mut self,
        w: &mut Walk<'_>,
        i: usize,
        file: &Arc<File>,
        depth: u32,
    ) -> Result<bool, String> {
        let k = self.m.key(i);
        if self.best.is_some() && !improvement_possible(self.d, &self.key, k, self.best_d) {
            return Ok(false);
        }
        self.considered += 1;
        let dist = distance(self.d, &self.key, k)?;
        let speed = self.m.entries[i].speed;
        if dist < self.best_d || (dist == self.best_d && speed > self.best_speed) {
            if let Some(c) = self.transform(w, i, dist, file, depth)? {
                self.best_d = dist;
                self.best = Some(c);
                self.best_speed = speed;
            }
        }
        Ok(true)
    }
}

/// `ProblemMatchingLibrary::findBestSolution`.
pub(crate) fn search(w: &mut Walk<'_>, m: &Matching, file: &Arc<File>, depth: u32) -> Out {
    let switches = &w.problem().modes.switches;
    // `TENSILE_METRIC` replaces the file's distance when the table is loaded.
    let d = match (
        switches.metric.as_deref().and_then(Distance::parse),
        &m.distance,
    ) {
        (Some(d), _) | (None, &Ok(d)) => d,
        (None, Err(name)) => return Err(format!("{}: distance `{name}`", file.name())),
    };
    let naive = switches.naive_search;
    let key = key(&m.properties, w).map_err(|e| format!("{}: {e}", file.name()))?;
    let slot = w.tracing().then(|| {
        w.push(
            depth,
            StepKind::Matching {
                file: file.name(),
                properties: m.properties.iter().map(|p| format!("{p:?}")).collect(),
                distance: d.name(),
                key: key.to_vec(),
                entries: m.entries.len(),
                considered: 0,
                tried: Vec::new(),
                nearest: Vec::new(),
            },
        )
    });
    let mut s = Search {
        m,
        d,
        key,
        best: None,
        best_d: f64::MAX,
        best_speed: 0.0,
        considered: 0,
        tried: Vec::new(),
    };
    match d {
        Distance::Equality => equality(w, &mut s, file, depth)?,
        Distance::GridBased => grid(w, &mut s, file, depth)?,
        _ if naive => naive_search(w, &mut s, file, depth)?,
        _ => bin_search(w, &mut s, file, depth)?,
    }
    if let (Some(slot), Some(t)) = (slot.flatten(), w.trace.as_mut()) {
        let nearest = nearest(m, d, &s.key, file);
        if let Some(StepKind::Matching {
            considered,
            tried,
            nearest: n,
            ..
        }) = t.kind_mut(slot)
        {
            *considered = s.considered;
            *tried = std::mem::take(&mut s.tried);
            *n = nearest;
        }
    }
    Ok(s.best)
}

fn bin_search(
    w: &mut Walk<'_>,
    s: &mut Search<'_>,
    file: &Arc<File>,
    depth: u32,
) -> Result<(), String> {
    let n = s.m.entries.len();
    if n == 0 {
        return Ok(());
    }
    let orig = match (s.m.near3.as_slice(), s.key.as_slice()) {
        (recs @ [_, ..], &[a, b, c]) => recs.partition_point(|r| r.key.map(i64::from) < [a, b, c]),
        _ => lower_bound(0, n, |i| s.m.key(i) < s.key.as_slice()),
    };
    if s.d == Distance::Euclidean && s.m.keys.len() == n * s.m.dims {
        // The same walk as `visit`, with the Euclidean distance inline: most of a
        // prediction's time is this scan (hundreds of entries per table).
        euclidean_scan(w, s, true, orig, file, depth)?;
        return euclidean_scan(w, s, false, orig, file, depth);
    }
    for i in orig..n {
        if !s.visit(w, i, file, depth)? {
            break;
        }
    }
    for i in (0..orig).rev() {
        if !s.visit(w, i, file, depth)? {
            break;
        }
    }
    Ok(())
}

/// `findBestKeyMatch_NaiveSearch` (`PropertyMatching.hpp:505-574`, with `TENSILE_NAIVE_SEARCH`):
/// the first entry's library is asked whatever its distance, then every later entry strictly
/// nearer than the best so far; speed breaks no tie.
fn naive_search(
    w: &mut Walk<'_>,
    s: &mut Search<'_>,
    file: &Arc<File>,
    depth: u32,
) -> Result<(), String> {
    for i in 0..s.m.entries.len() {
        let dist = distance(s.d, &s.key, s.m.key(i))?;
        s.considered += 1;
        if i > 0 && dist >= s.best_d {
            continue;
        }
        if let Some(c) = s.transform(w, i, dist, file, depth)? {
            s.best_d = dist;
            s.best = Some(c);
        }
    }
    Ok(())
}

/// One direction of `findBestKeyMatch_BinSearch` for the Euclidean distance:
/// `improvementPossible` (first dimension squared below the best, or the very key), then the
/// squared distance summed in index order as `EuclideanDistance` does.
///
/// Without a trace, entries that can change nothing are stepped over. The table is sorted by
/// key, so entries sharing a key prefix form a run, sorted by the next value. When the squares of
/// an entry's first `j + 1` differences already exceed the best distance, every entry of its
/// run (same first `j` values) lying farther in that `j`-th value exceeds it too (adding squares
/// never rounds down): none of them can be tried, and none can stop the walk (the stop depends
/// on the first value, the same for the whole run, and on the best, which changes only when a
/// solution is tried). The walk therefore tries and stops exactly where the host library's
/// does; only the count of entries considered is smaller.
fn euclidean_scan(
    w: &mut Walk<'_>,
    s: &mut Search<'_>,
    forward: bool,
    orig: usize,
    file: &Arc<File>,
    depth: u32,
) -> Result<(), String> {
    let fast = !w.tracing();
    let skip = fast && s.m.dims >= 2;
    let mut memo = if fast { w.take_memo(file) } else { Vec::new() };
    let r = if fast && !s.m.near3.is_empty() && s.key.len() == 3 {
        scan3(w, s, forward, orig, file, depth, &mut memo)
    } else {
        scan_with(w, s, forward, orig, file, depth, fast, skip, &mut memo)
    };
    if fast {
        w.put_memo(file, memo);
    }
    r
}

#[allow(clippy::too_many_arguments)]
fn scan_with(
    w: &mut Walk<'_>,
    s: &mut Search<'_>,
    forward: bool,
    orig: usize,
    file: &Arc<File>,
    depth: u32,
    fast: bool,
    skip: bool,
    memo: &mut [u8],
) -> Result<(), String> {
    let dims = s.m.dims;
    let keys = &s.m.keys;
    let n = s.m.entries.len();
    let key = s.key.clone();
    let mut next = if forward {
        (orig < n).then_some(orig)
    } else {
        orig.checked_sub(1)
    };
    while let Some(i) = next {
        let k = &keys[i * dims..i * dims + dims];
        let d0 = key[0].wrapping_sub(k[0]) as f64;
        if s.best.is_some() && d0 * d0 >= s.best_d && k != key.as_slice() {
            break;
        }
        let (dist, far) = if dims == 3 {
            // The usual key (M, N, K), unrolled.
            let s0 = d0 * d0;
            let d1 = key[1].wrapping_sub(k[1]) as f64;
            let s1 = s0 + d1 * d1;
            if skip && s1 > s.best_d {
                (s1, Some((1, s0)))
            } else {
                let d2 = key[2].wrapping_sub(k[2]) as f64;
                let s2 = s1 + d2 * d2;
                (s2, (skip && s2 > s.best_d).then_some((2, s1)))
            }
        } else {
            let mut dist = 0.0;
            let mut far = None;
            for (j, (a, b)) in key.iter().zip(k).enumerate() {
                let dj = a.wrapping_sub(*b) as f64;
                let before = dist;
                dist += dj * dj;
                if skip && j > 0 && dist > s.best_d {
                    far = Some((j, before));
                    break;
                }
            }
            (dist, far)
        };
        if let Some((j, before)) = far {
            next = step_over(keys, dims, n, &key, forward, i, j, before, s.best_d);
            continue;
        }
        s.consider(w, memo, fast, i, dist, file, depth)?;
        next = if forward {
            (i + 1 < n).then_some(i + 1)
        } else {
            i.checked_sub(1)
        };
    }
    Ok(())
}

/// [`scan_with`] without a trace over a three-value table's [`Near3`] records: the same entries
/// tried in the same order, the same stop, the same runs stepped over, reading one record (one
/// cache line) per entry looked at instead of its key, entry and run bounds apart. Before any
/// solution is found every entry is tried in walk order and nothing stops the walk or steps over
/// a run, so an entry whose solution is already known not to solve the problem is passed over.
fn scan3(
    w: &mut Walk<'_>,
    s: &mut Search<'_>,
    forward: bool,
    orig: usize,
    file: &Arc<File>,
    depth: u32,
    memo: &mut [u8],
) -> Result<(), String> {
    let recs = &s.m.near3;
    let key = [s.key[0], s.key[1], s.key[2]];
    let advance = |i: usize| {
        if forward {
            (i + 1 < recs.len()).then_some(i + 1)
        } else {
            i.checked_sub(1)
        }
    };
    let mut next = if forward {
        Some(orig)
    } else {
        orig.checked_sub(1)
    };
    while let Some(i) = next {
        let Some(r) = recs.get(i) else { break };
        if s.best.is_none() && memo.get(r.class as usize) == Some(&2) {
            s.considered += 1;
            next = advance(i);
            continue;
        }
        let d = |j: usize| {
            let x = key[j].wrapping_sub(i64::from(r.key[j])) as f64;
            x * x
        };
        let s0 = d(0);
        if s.best.is_some() && s0 >= s.best_d && r.key.map(i64::from) != key {
            break;
        }
        let s1 = s0 + d(1);
        let (far, before, dist) = if s1 > s.best_d {
            (Some(1), s0, s1)
        } else {
            let s2 = s1 + d(2);
            ((s2 > s.best_d).then_some(2), s1, s2)
        };
        if let Some(j) = far {
            next = step3(recs, &key, forward, i, j, before, s.best_d);
            continue;
        }
        s.consider(w, memo, true, i, dist, file, depth)?;
        next = advance(i);
    }
    Ok(())
}

/// [`step_over`] over [`Near3`] records, whose run bounds the loader recorded.
fn step3(
    recs: &[Near3],
    key: &[i64; 3],
    forward: bool,
    i: usize,
    j: usize,
    before: f64,
    best: f64,
) -> Option<usize> {
    let [start, end] = recs[i].runs[j - 1].map(|b| b as usize);
    let v = |x: usize| i64::from(recs[x].key[j]);
    let far = |x: usize| {
        let d = key[j].wrapping_sub(v(x)) as f64;
        before + d * d > best
    };
    if forward {
        let to = if v(i) < key[j] {
            lower_bound(i, end, |x| v(x) < key[j] && far(x))
        } else {
            end
        };
        (to < recs.len()).then_some(to.max(i + 1))
    } else {
        let to = if v(i) > key[j] {
            lower_bound(start, i + 1, |x| !(v(x) > key[j] && far(x)))
        } else {
            start
        };
        to.min(i).checked_sub(1)
    }
}

/// The next entry worth visiting after `i`, whose squares up to dimension `j` exceed `best`
/// (`before`: the sum of the squares before dimension `j`, the same for its whole run of equal
/// first `j` values). Within that run, the first entry in walk order whose `j`-th value is near
/// enough, else the first entry past the run.
#[allow(clippy::too_many_arguments)]
fn step_over(
    keys: &[i64],
    dims: usize,
    n: usize,
    key: &[i64],
    forward: bool,
    i: usize,
    j: usize,
    before: f64,
    best: f64,
) -> Option<usize> {
    let prefix = &keys[i * dims..i * dims + j];
    let in_run = |x: usize| {
        keys[x * dims..x * dims + j]
            .iter()
            .zip(prefix)
            .all(|(a, b)| a == b)
    };
    let v = |x: usize| keys[x * dims + j];
    let far = |x: usize| {
        let d = key[j].wrapping_sub(v(x)) as f64;
        before + d * d > best
    };
    if forward {
        // The run ends at the first entry after `i` whose prefix is greater.
        let end = gallop_up(i, n, &in_run);
        let to = if v(i) < key[j] {
            lower_bound(i, end, |x| v(x) < key[j] && far(x))
        } else {
            end
        };
        (to < n).then_some(to.max(i + 1))
    } else {
        let start = gallop_down(i, &in_run);
        let to = if v(i) > key[j] {
            lower_bound(start, i + 1, |x| !(v(x) > key[j] && far(x)))
        } else {
            start
        };
        to.min(i).checked_sub(1)
    }
}

fn equality(
    w: &mut Walk<'_>,
    s: &mut Search<'_>,
    file: &Arc<File>,
    depth: u32,
) -> Result<(), String> {
    let n = s.m.entries.len();
    let i = lower_bound(0, n, |i| s.m.key(i) < s.key.as_slice());
    if i == n {
        // The host library reads past the table here (undefined behaviour); nothing matches.
        return Ok(());
    }
    s.considered += 1;
    if s.m.key(i) == s.key.as_slice() {
        s.best_d = 0.0;
        s.best = s.transform(w, i, 0.0, file, depth)?;
    }
    Ok(())
}

fn grid(w: &mut Walk<'_>, s: &mut Search<'_>, file: &Arc<File>, depth: u32) -> Result<(), String> {
    let n = s.m.entries.len();
    if n == 0 {
        return Ok(());
    }
    if s.m.dims < 3 {
        return Err(format!(
            "{}: a GridBased table with keys shorter than 3",
            file.name()
        ));
    }
    let k = |i: usize, j: usize| s.m.key(i).get(j).copied().unwrap_or(0);
    let last = n - 1;
    let (key0, key1) = (s.key[0], s.key[1]);
    let mut n_lower;
    let mut n_upper = 0;
    let mut found = false;
    while n_upper != n && !found {
        let before = n_upper;
        let m_val = key0.min(k(last, 0));
        let m_lower = lower_bound(n_upper, n, |i| k(i, 0) < m_val);
        let m_lower_key = k(m_lower.min(last), 0);
        let m_up_val = (m_lower_key.wrapping_add(1)).min(k(last, 0).wrapping_add(1));
        let m_upper = lower_bound(m_lower, n, |i| k(i, 0) < m_up_val);
        let before_m_upper = m_upper.saturating_sub(1);
        let n_val = key1.min(k(before_m_upper, 1));
        n_lower = lower_bound(m_lower, m_upper, |i| k(i, 1) < n_val);
        let n_up_val =
            (k(n_lower.min(last), 1).wrapping_add(1)).min(k(before_m_upper, 1).wrapping_add(1));
        n_upper = lower_bound(n_lower, m_upper, |i| k(i, 1) < n_up_val);
        if n_upper <= before {
            // No progress (keys at the integer limit): the host library would loop forever.
            return Err(format!(
                "{}: a GridBased table the search cannot advance through",
                file.name()
            ));
        }
        for i in n_lower..n_upper {
            s.considered += 1;
            let dist = distance(Distance::GridBased, &s.key, s.m.key(i))?;
            if dist < s.best_d {
                if let Some(c) = s.transform(w, i, dist, file, depth)? {
                    s.best_d = dist;
                    s.best = Some(c);
                    found = true;
                }
            }
        }
        if !found && n_upper == n {
            // Backward search from the last group's start.
            for i in (0..n_lower).rev() {
                s.considered += 1;
                let dist = distance(Distance::GridBased, &s.key, s.m.key(i))?;
                if let Some(c) = s.transform(w, i, dist, file, depth)? {
                    s.best_d = dist;
                    s.best = Some(c);
                    break;
                }
            }
            return Ok(());
        }
    }
    Ok(())
}

/// The entries nearest the key by distance alone, predicates aside (for people).
fn nearest(m: &Matching, d: Distance, key: &[i64], file: &File) -> Vec<Near> {
    let mut v: Vec<(f64, usize)> = (0..m.entries.len())
        .filter_map(|i| distance(d, key, m.key(i)).ok().map(|x| (x, i)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    v.into_iter()
        .take(5)
        .map(|(dist, i)| {
            let e = &m.entries[i];
            let index = match e.value {
                EntryValue::Index(x) => Some(x),
                EntryValue::Node(_) => None,
            };
            Near {
                key: m.key(i).to_vec(),
                distance: dist,
                speed: e.speed,
                index,
                kernel: index.and_then(|x| file.solution(x)).map(|s| s.name.clone()),
            }
        })
        .collect()
}

/// `Tree::predict`: follows `<=` / `>` from node 0 until a leaf (-1 false, -2 true).
pub fn predict(nodes: &[TreeNode], key: &[f32]) -> Result<bool, String> {
    let mut idx: i32 = 0;
    let mut steps = 0usize;
    while (idx as i64) < nodes.len() as i64 {
        let node = usize::try_from(idx)
            .ok()
            .and_then(|i| nodes.get(i))
            .ok_or_else(|| format!("node index {idx} is outside the tree"))?;
        let v = usize::try_from(node.feature)
            .ok()
            .and_then(|f| key.get(f))
            .ok_or_else(|| format!("feature {} is outside the key", node.feature))?;
        idx = if *v <= node.threshold {
            node.lte
        } else {
            node.gt
        };
        match idx {
            -1 => return Ok(false),
            -2 => return Ok(true),
            _ => {}
        }
        steps += 1;
        if steps > nodes.len() {
            return Err("the tree loops".into());
        }
    }
    Err("\"Decision Tree out of bounds error.\" (the host library throws)".into())
}
