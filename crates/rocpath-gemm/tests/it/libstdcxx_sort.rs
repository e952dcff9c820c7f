//! `sort::std_sort` against libstdc++'s own `std::sort`, built here with the system's C++
//! compiler: the same inputs (keys with many ties, as matching tables have) must come out in the
//! same order, ties included. Skips when no `g++` is installed.

use std::process::{Command, Stdio};

const PROGRAM: &str = r#"
#include <algorithm>
#include <cstdio>
#include <vector>
struct E { long key; int speed; int id; };
int main() {
    int n;
    while (std::scanf("%d", &n) == 1) {
        std::vector<E> v(n);
        for (int i = 0; i < n; i++) { std::scanf("%ld %d", &v[i].key, &v[i].speed); v[i].id = i; }
        std::sort(v.begin(), v.end(), [](E const& a, E const& b) {
            return a.key < b.key || (a.key == b.key && a.speed > b.speed);
        });
        for (auto& e : v) std::printf("%d ", e.id);
        std::printf("\n");
    }
}
"#;

fn cases() -> Vec<Vec<(i64, i32)>> {
    // A small deterministic generator: sizes around the insertion threshold, large tables, and
    // tables whose keys are mostly equal (the heapsort fallback).
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut out = Vec::new();
    for &n in &[0usize, 1, 2, 3, 15, 16, 17, 33, 100, 1000, 5000, 20000] {
        for distinct in [2u64, 7, 50, 100_000] {
            let v = (0..n)
                .map(|_| ((next() % distinct) as i64, (next() % 3) as i32))
                .collect();
            out.push(v);
        }
    }
    out
}

#[test]
fn matches_libstdcxx_std_sort() {
    if !rocpath_testdata::have_tool("g++") {
        rocpath_testdata::missing("g++ not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let src = dir.path().join("sort.cpp");
    let bin = dir.path().join("sort");
    std::fs::write(&src, PROGRAM).unwrap_or_else(|e| panic!("{e}"));
    let st = Command::new("g++")
        .args(["-O1", "-o"])
        .arg(&bin)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(st.success());
    let cases = cases();
    let mut input = String::new();
    for c in &cases {
        input.push_str(&format!("{}\n", c.len()));
        for (k, s) in c {
            input.push_str(&format!("{k} {s}\n"));
        }
    }
    // Input from a file: writing to the child's stdin while it fills its stdout would deadlock.
    let input_path = dir.path().join("input.txt");
    std::fs::write(&input_path, input).unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(&bin)
        .stdin(Stdio::from(
            std::fs::File::open(&input_path).unwrap_or_else(|e| panic!("{e}")),
        ))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), cases.len());
    for (c, line) in cases.iter().zip(lines) {
        let want: Vec<usize> = line
            .split_whitespace()
            .map(|t| t.parse().unwrap_or(usize::MAX))
            .collect();
        let mut got: Vec<usize> = (0..c.len()).collect();
        rocpath_gemm::sort::std_sort(&mut got, &|a: &usize, b: &usize| {
            let (x, y) = (c[*a], c[*b]);
            x.0 < y.0 || (x.0 == y.0 && x.1 > y.1)
        });
        assert_eq!(got, want, "n = {}", c.len());
    }
}
