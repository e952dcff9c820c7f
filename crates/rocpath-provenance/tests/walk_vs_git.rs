#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The history walk against `git blame` itself: random histories (seeded) with line edits,
//! insertions, deletions, a side branch merged back, a merge that resolves a conflict by
//! hand, and a file moved to another folder; every line of every file must be blamed on
//! the same commit as `git blame --porcelain` says.

use rocpath_provenance::walk::{self, Outcome, Start};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const WHO: (&str, &str) = ("A U Thor", "author@example.org");

fn date(t: u64) -> String {
    format!("{} +0000", 1_600_000_000 + t * 3600)
}

fn git(dir: &Path, args: &[&str], t: u64) -> String {
    rocpath_testdata::git::git(dir, args, WHO, &date(t))
}

fn edit(rng: &mut Rng, lines: &mut Vec<String>, tag: &str) {
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(lines.len() + 1);
        match rng.below(4) {
            0 if !lines.is_empty() => {
                let at = at.min(lines.len() - 1);
                lines[at] = format!(
                    "    if(StartsWith(name, \"gfx9{}\")) // {tag}",
                    rng.below(100)
                );
            }
            1 if lines.len() > 3 => {
                let at = at.min(lines.len() - 1);
                let n = (1 + rng.below(2)).min(lines.len() - at);
                lines.drain(at..at + n);
            }
            _ => {
                for k in 0..1 + rng.below(3) {
                    lines.insert(at.min(lines.len()), format!("    step_{tag}_{k}();"));
                }
            }
        }
    }
}

fn write(dir: &Path, rel: &str, lines: &[String]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let mut s = lines.join("\n");
    s.push('\n');
    std::fs::write(p, s).unwrap();
}

fn git_blame(dir: &Path, path: &str) -> Vec<String> {
    let out = git(dir, &["blame", "--porcelain", "--", path], 0);
    let mut v = Vec::new();
    for l in out.lines() {
        let mut w = l.split(' ');
        if let (Some(h), Some(_), Some(_)) = (w.next(), w.next(), w.next()) {
            if h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
                v.push(h.to_string());
            }
        }
    }
    v
}

fn history(seed: u64, dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut rng = Rng(seed);
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, name) in ["src/solver/a.cpp", "src/solver/b.cpp", "CMakeLists.txt"]
        .iter()
        .enumerate()
    {
        let lines = (0..20 + i * 5)
            .map(|k| format!("line {k} of {name}"))
            .collect();
        files.insert((*name).to_string(), lines);
    }
    git(dir, &["init", "-q", "-b", "main"], 0);
    for (p, l) in &files {
        write(dir, p, l);
    }
    git(dir, &["add", "-A"], 0);
    git(dir, &["commit", "-q", "-m", "initial"], 0);
    let mut t = 1;
    let names: Vec<String> = files.keys().cloned().collect();
    for round in 0..3 {
        // Main line.
        for _ in 0..4 {
            let f = names[rng.below(names.len())].clone();
            let cur = files.get_mut(&f).unwrap();
            edit(&mut rng, cur, &format!("m{t}"));
            write(dir, &f, cur);
            git(dir, &["commit", "-q", "-am", &format!("main {t}")], t);
            t += 1;
        }
        // A side branch editing another file, merged back with --no-ff.
        let br = format!("side{round}");
        git(dir, &["checkout", "-q", "-b", &br], t);
        let f = names[2].clone();
        let mut side = files[&f].clone();
        for _ in 0..2 {
            edit(&mut rng, &mut side, &format!("s{t}"));
            write(dir, &f, &side);
            git(dir, &["commit", "-q", "-am", &format!("side {t}")], t);
            t += 1;
        }
        git(dir, &["checkout", "-q", "main"], t);
        let g = names[0].clone();
        let cur = files.get_mut(&g).unwrap();
        edit(&mut rng, cur, &format!("m{t}"));
        write(dir, &g, cur);
        git(dir, &["commit", "-q", "-am", &format!("main {t}")], t);
        t += 1;
        git(
            dir,
            &["merge", "-q", "--no-ff", "-m", &format!("Merge {br}"), &br],
            t,
        );
        t += 1;
        files.insert(f, side);
    }
    // A merge whose result differs from both parents (a conflict resolved by hand).
    let f = names[1].clone();
    git(dir, &["checkout", "-q", "-b", "conflict"], t);
    let mut theirs = files[&f].clone();
    theirs[5] = "    theirs();".into();
    write(dir, &f, &theirs);
    git(dir, &["commit", "-q", "-am", "theirs"], t);
    t += 1;
    git(dir, &["checkout", "-q", "main"], t);
    let mut ours = files[&f].clone();
    ours[5] = "    ours();".into();
    write(dir, &f, &ours);
    git(dir, &["commit", "-q", "-am", "ours"], t);
    t += 1;
    // Stops on the conflict (exit 1), leaving MERGE_HEAD for the commit below.
    let merge = rocpath_testdata::git::git_output(dir, &["merge", "-q", "conflict"], WHO, &date(t))
        .unwrap();
    assert!(!merge.status.success(), "the merge was meant to conflict");
    assert!(dir.join(".git/MERGE_HEAD").exists());
    let mut res = files[&f].clone();
    res[5] = "    resolved(ours(), theirs());".into();
    res.insert(6, "    // merged by hand".into());
    write(dir, &f, &res);
    git(dir, &["add", "-A"], t);
    git(dir, &["commit", "-q", "-m", "Merge conflict"], t);
    t += 1;
    files.insert(f, res);
    // Move a file to another folder, then edit it there.
    std::fs::create_dir_all(dir.join("src/solver/conv")).unwrap();
    git(dir, &["mv", "src/solver/a.cpp", "src/solver/conv/a.cpp"], t);
    git(dir, &["commit", "-q", "-m", "move a.cpp into conv/"], t);
    t += 1;
    let moved = files.remove("src/solver/a.cpp").unwrap();
    files.insert("src/solver/conv/a.cpp".into(), moved);
    let cur = files.get_mut("src/solver/conv/a.cpp").unwrap();
    edit(&mut rng, cur, &format!("m{t}"));
    write(dir, "src/solver/conv/a.cpp", cur);
    git(dir, &["commit", "-q", "-am", &format!("after move {t}")], t);
    files
}

#[test]
fn walk_agrees_with_git_blame_on_random_histories() {
    if !rocpath_testdata::git::have_git() {
        return;
    }
    for seed in [1u64, 7, 42, 1234, 99_991] {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path();
        let files = history(seed, dir);
        let repo = git2::Repository::open(dir).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap().id();
        let mut starts = Vec::new();
        let mut want = Vec::new();
        let keys: Vec<String> = Vec::new();
        let expected: BTreeMap<String, Vec<String>> = files
            .keys()
            .map(|p| (p.clone(), git_blame(dir, p)))
            .collect();
        for (p, hashes) in &expected {
            assert_eq!(hashes.len(), files[p].len(), "seed {seed}: {p}");
            for (i, h) in hashes.iter().enumerate() {
                starts.push(Start {
                    path: p.as_str(),
                    line: i as u64 + 1,
                    keys: &keys,
                });
                want.push(h.clone());
            }
        }
        // max_hops 0: plain blame.
        let done = std::sync::atomic::AtomicU64::new(0);
        let got = walk::blame_many_with(&repo, head, &starts, &HashSet::new(), 0, &|n| {
            done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(
            done.into_inner(),
            starts.len() as u64,
            "progress counts every line once"
        );
        assert_eq!(got.len(), want.len());
        let mut moved_followed = false;
        for ((s, w), g) in starts.iter().zip(&want).zip(&got) {
            let Outcome::Traced { chain, .. } = g else {
                panic!("seed {seed}: {}:{}: {g:?}", s.path, s.line);
            };
            assert_eq!(
                chain[0].commit.to_string(),
                *w,
                "seed {seed}: {}:{} blamed on a different commit than git blame",
                s.path,
                s.line
            );
            if s.path == "src/solver/conv/a.cpp" && chain[0].path == "src/solver/a.cpp" {
                moved_followed = true;
            }
        }
        assert!(moved_followed, "seed {seed}: the move was not followed");
    }
}
