//! `std::sort` as libstdc++ implements it (introsort: median-of-three quicksort to a depth of
//! 2·⌊log₂ n⌋, heapsort past it, insertion sort over runs of 16), step for step.
//!
//! Tensile sorts each matching table at load time with `std::sort` and a comparator under which
//! entries with the same key and speed are equivalent (`Serialization/MatchingLibrary.hpp`:
//! `e1.key < e2.key || (e1.key == e2.key && e1.speed > e2.speed)`). `std::sort` is not stable,
//! so which of two such twins comes first — and so which one the search returns — is decided by
//! the algorithm itself. rocBLAS and hipBLASLt on Linux are built against libstdc++; this is
//! its algorithm (`bits/stl_algo.h`: `__introsort_loop`, `__unguarded_partition_pivot`,
//! `__move_median_to_first`, `__final_insertion_sort`; `bits/stl_heap.h`: `__adjust_heap`,
//! `__push_heap`, `__pop_heap`), so the order of twins is the one the library sees.

/// Runs below this length are left to the final insertion sort (`_S_threshold`).
const THRESHOLD: usize = 16;

/// Sorts `v` exactly as libstdc++'s `std::sort(v.begin(), v.end(), less)` does.
pub fn std_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let lg = (usize::BITS - 1 - n.leading_zeros()) as usize;
    introsort_loop(v, 0, n, lg * 2, less);
    final_insertion_sort(v, n, less);
}

fn introsort_loop<T: Copy>(
    v: &mut [T],
    first: usize,
    mut last: usize,
    mut depth: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    while last - first > THRESHOLD {
        if depth == 0 {
            heap_sort(&mut v[first..last], less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        introsort_loop(v, cut, last, depth, less);
        last = cut;
    }
}

fn partition_pivot<T: Copy>(
    v: &mut [T],
    first: usize,
    last: usize,
    less: &impl Fn(&T, &T) -> bool,
) -> usize {
    let mid = first + (last - first) / 2;
    move_median_to_first(v, first, first + 1, mid, last - 1, less);
    unguarded_partition(v, first + 1, last, first, less)
}

fn move_median_to_first<T: Copy>(
    v: &mut [T],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

fn unguarded_partition<T: Copy>(
    v: &mut [T],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &impl Fn(&T, &T) -> bool,
) -> usize {
    loop {
        while less(&v[first], &v[pivot]) {
            first += 1;
        }
        last -= 1;
        while less(&v[pivot], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

fn final_insertion_sort<T: Copy>(v: &mut [T], n: usize, less: &impl Fn(&T, &T) -> bool) {
    if n > THRESHOLD {
        insertion_sort(&mut v[..THRESHOLD], less);
        for i in THRESHOLD..n {
            unguarded_linear_insert(v, i, less);
        }
    } else {
        insertion_sort(&mut v[..n], less);
    }
}

fn insertion_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        if less(&v[i], &v[0]) {
            let val = v[i];
            v.copy_within(0..i, 1);
            v[0] = val;
        } else {
            unguarded_linear_insert(v, i, less);
        }
    }
}

fn unguarded_linear_insert<T: Copy>(v: &mut [T], mut last: usize, less: &impl Fn(&T, &T) -> bool) {
    let val = v[last];
    // A smaller element is known to exist to the left (the guard), so `last` stays above 0.
    while last > 0 && less(&val, &v[last - 1]) {
        v[last] = v[last - 1];
        last -= 1;
    }
    v[last] = val;
}

fn heap_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let len = v.len();
    if len >= 2 {
        let mut parent = (len - 2) / 2;
        loop {
            let value = v[parent];
            adjust_heap(v, parent, len, value, less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    let mut last = len;
    while last > 1 {
        last -= 1;
        let value = v[last];
        v[last] = v[0];
        adjust_heap(v, 0, last, value, less);
    }
}

fn adjust_heap<T: Copy>(
    v: &mut [T],
    mut hole: usize,
    len: usize,
    value: T,
    less: &impl Fn(&T, &T) -> bool,
) {
    let top = hole;
    let mut second = hole;
    while second < len.saturating_sub(1) / 2 {
        second = 2 * (second + 1);
        if less(&v[second], &v[second - 1]) {
            second -= 1;
        }
        v[hole] = v[second];
        hole = second;
    }
    if len & 1 == 0 && len >= 2 && second == (len - 2) / 2 {
        second = 2 * (second + 1);
        v[hole] = v[second - 1];
        hole = second - 1;
    }
    // __push_heap
    let mut parent = hole.wrapping_sub(1) / 2;
    while hole > top && less(&v[parent], &value) {
        v[hole] = v[parent];
        hole = parent;
        parent = hole.wrapping_sub(1) / 2;
    }
    v[hole] = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Sorted by the comparator, and a permutation of the input.
        #[test]
        fn sorts_and_permutes(v in proptest::collection::vec((0u8..6, 0u8..3), 0..300)) {
            let mut idx: Vec<usize> = (0..v.len()).collect();
            let less = |a: &usize, b: &usize| v[*a].0 < v[*b].0;
            std_sort(&mut idx, &less);
            for w in idx.windows(2) {
                prop_assert!(v[w[0]].0 <= v[w[1]].0);
            }
            let mut seen = idx.clone();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..v.len()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn deep_recursion_falls_back_to_heapsort_and_still_sorts() {
        // Many equal keys drive the partition to its worst case, reaching the heapsort branch.
        let v: Vec<u32> = (0..5000).map(|i| (i % 7) as u32).collect();
        let mut idx: Vec<usize> = (0..v.len()).collect();
        std_sort(&mut idx, &|a: &usize, b: &usize| v[*a] < v[*b]);
        assert!(idx.windows(2).all(|w| v[w[0]] <= v[w[1]]));
    }
}
