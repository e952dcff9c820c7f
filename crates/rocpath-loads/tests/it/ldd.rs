#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]
//! The reference is the real loader: glibc's `ldd` prints what ld.so resolves. Each program
//! or library here is resolved by `rocpath_loads::loads` and by `ldd`, and the two sets of
//! (name → path) and of names not found must be equal. System programs, then small programs
//! built with gcc in a temporary folder for RUNPATH, RPATH, `$ORIGIN` and `LD_LIBRARY_PATH`.

use rocpath_loads::{Loads, Options, Rule};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// name → path (None: not found), as ldd prints it.
type Resolved = BTreeMap<String, Option<String>>;

fn ldd(target: &Path, env: &[(&str, &str)]) -> Option<Resolved> {
    let mut c = Command::new("ldd");
    c.arg(target)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_PRELOAD");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains("not a dynamic executable") || text.contains("statically linked") {
        return None;
    }
    let mut m = Resolved::new();
    for line in text.lines() {
        let Some((name, rest)) = line.trim().split_once(" => ") else {
            continue;
        };
        if rest.starts_with("not found") {
            m.insert(name.to_string(), None);
        } else if let Some((path, _)) = rest.rsplit_once(" (") {
            m.insert(name.to_string(), Some(path.to_string()));
        }
    }
    Some(m)
}

fn ours(l: &Loads) -> Resolved {
    let mut m: Resolved = l
        .libraries
        .iter()
        .filter(|x| x.rule != Rule::Interpreter)
        .map(|x| (x.name.clone(), Some(x.path.clone())))
        .collect();
    for x in &l.missing {
        m.insert(x.name.clone(), None);
    }
    m
}

fn resolve(target: &Path, env: &[(&str, &str)]) -> Loads {
    let mut o = Options::new(target);
    for (k, v) in env {
        o.env.insert(k.to_string(), v.to_string());
    }
    rocpath_loads::loads(&o).unwrap_or_else(|e| panic!("{}: {e}", target.display()))
}

fn have_ldd() -> bool {
    if rocpath_testdata::have_tool("ldd") {
        return true;
    }
    rocpath_testdata::missing("ldd is not on PATH");
    false
}

/// Dynamic ELF files (by magic) among `paths`.
fn elf(p: &Path) -> bool {
    use std::io::Read;
    let mut b = [0u8; 4];
    std::fs::File::open(p)
        .and_then(|mut f| f.read_exact(&mut b))
        .is_ok()
        && b == *b"\x7fELF"
}

#[test]
fn system_programs_agree_with_ldd() {
    if !have_ldd() {
        return;
    }
    let named = [
        "/bin/ls",
        "/usr/bin/python3",
        "/usr/bin/git",
        "/usr/bin/gcc",
        "/usr/bin/perl",
        "/usr/bin/ssh",
        "/usr/bin/curl",
        "/usr/bin/tar",
        "/usr/bin/cmake",
        "/usr/bin/gdb",
    ];
    let mut targets: Vec<PathBuf> = named
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .collect();
    // A sweep of /usr/bin (sorted, bounded) and a few libraries.
    let mut sweep: Vec<PathBuf> = std::fs::read_dir("/usr/bin")
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    sweep.sort();
    targets.extend(sweep.into_iter().filter(|p| p.is_file()).take(400));
    for lib in [
        "libstdc++.so.6",
        "libgit2.so.1.9",
        "libcurl.so.4",
        "libpython3.13.so.1.0",
    ] {
        let p = Path::new("/usr/lib/x86_64-linux-gnu").join(lib);
        if p.is_file() {
            targets.push(p);
        }
    }
    let mut seen = BTreeSet::new();
    let (mut compared, mut names, mut differ) = (0, 0, Vec::new());
    for t in targets {
        // A program's $ORIGIN is its real folder when it is executed (/proc/self/exe), but
        // ldd hands the loader the path as written: a program reached through a link
        // (/usr/bin/clang-check-22 → /usr/lib/llvm-22/bin) is compared at its real path.
        let t = std::fs::canonicalize(&t).unwrap_or(t);
        if !seen.insert(t.clone()) || !elf(&t) {
            continue;
        }
        let Some(reference) = ldd(&t, &[]) else {
            continue;
        };
        let Ok(l) = rocpath_loads::loads(&Options::new(&t)) else {
            continue;
        };
        compared += 1;
        names += reference.len();
        let got = ours(&l);
        if got != reference {
            differ.push(format!(
                "{}:\n  ldd:  {reference:?}\n  ours: {got:?}",
                t.display()
            ));
        }
    }
    eprintln!(
        "compared {compared} ELF files with ldd ({names} names): {} differ",
        differ.len()
    );
    assert!(compared >= 3, "too few programs compared ({compared})");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

fn gcc(args: &[&str], dir: &Path) {
    let st = Command::new("gcc")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success(), "gcc {args:?}");
}

/// Builds the fixture tree:
/// - `lib/libleaf.so`; `lib/libmid.so` needs libleaf, RUNPATH `$ORIGIN`;
/// - `bin/runpath` needs libmid, RUNPATH `$ORIGIN/../lib` (new dtags);
/// - `lib2/libd.so` needs `libe.so` (no path of its own); `lib2/libe.so`;
/// - `bin/rpath` needs libd, RPATH `$ORIGIN/../lib2` (old dtags): libe found through the
///   program's RPATH, inherited;
/// - `bin/runpath2` needs libd, RUNPATH `$ORIGIN/../lib2`: libe not found (RUNPATH is not
///   inherited);
/// - `alt/libd.so`, `alt/libe.so`: a second copy, for LD_LIBRARY_PATH precedence;
/// - `bin/missing` needs `libnothere.so`.
fn fixtures() -> Option<tempfile::TempDir> {
    if !rocpath_testdata::have_tool("gcc") {
        rocpath_testdata::missing("gcc is not on PATH");
        return None;
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for sub in ["src", "lib", "lib2", "alt", "bin"] {
        std::fs::create_dir_all(p.join(sub)).unwrap();
    }
    let w = |name: &str, text: &str| std::fs::write(p.join("src").join(name), text).unwrap();
    w("leaf.c", "int leaf(void){return 1;}\n");
    w("mid.c", "int leaf(void); int mid(void){return leaf()+1;}\n");
    w("e.c", "int e(void){return 5;}\n");
    w("d.c", "int e(void); int d(void){return e()+1;}\n");
    w(
        "main_mid.c",
        "int mid(void); int main(void){return mid();}\n",
    );
    w("main_d.c", "int d(void); int main(void){return d();}\n");
    w("nothere.c", "int nothere(void){return 0;}\n");
    w(
        "main_nothere.c",
        "int nothere(void); int main(void){return nothere();}\n",
    );
    let so = |out: &str, src: &str, soname: &str, extra: &[&str]| {
        let mut a = vec!["-shared", "-fPIC", "-o", out, src];
        let s = format!("-Wl,-soname,{soname}");
        a.push(&s);
        a.extend_from_slice(extra);
        gcc(&a, p);
    };
    so("lib/libleaf.so", "src/leaf.c", "libleaf.so", &[]);
    // A second copy in a glibc-hwcaps subfolder: taken first when the CPU has the level.
    std::fs::create_dir_all(p.join("lib/glibc-hwcaps/x86-64-v2")).unwrap();
    so(
        "lib/glibc-hwcaps/x86-64-v2/libleaf.so",
        "src/leaf.c",
        "libleaf.so",
        &[],
    );
    so(
        "lib/libmid.so",
        "src/mid.c",
        "libmid.so",
        &[
            "-Llib",
            "-lleaf",
            "-Wl,-rpath,$ORIGIN",
            "-Wl,--enable-new-dtags",
        ],
    );
    so("lib2/libe.so", "src/e.c", "libe.so", &[]);
    so("lib2/libd.so", "src/d.c", "libd.so", &["-Llib2", "-le"]);
    so("alt/libe.so", "src/e.c", "libe.so", &[]);
    so("alt/libd.so", "src/d.c", "libd.so", &["-Lalt", "-le"]);
    gcc(
        &[
            "-o",
            "bin/runpath",
            "src/main_mid.c",
            "-Llib",
            "-lmid",
            "-Wl,-rpath-link,lib",
            "-Wl,-rpath,$ORIGIN/../lib",
            "-Wl,--enable-new-dtags",
        ],
        p,
    );
    gcc(
        &[
            "-o",
            "bin/rpath",
            "src/main_d.c",
            "-Llib2",
            "-ld",
            "-Wl,-rpath-link,lib2",
            "-Wl,-rpath,$ORIGIN/../lib2",
            "-Wl,--disable-new-dtags",
        ],
        p,
    );
    gcc(
        &[
            "-o",
            "bin/runpath2",
            "src/main_d.c",
            "-Llib2",
            "-ld",
            "-Wl,-rpath-link,lib2",
            "-Wl,-rpath,$ORIGIN/../lib2",
            "-Wl,--enable-new-dtags",
        ],
        p,
    );
    so("src/libnothere.so", "src/nothere.c", "libnothere.so", &[]);
    gcc(
        &[
            "-o",
            "bin/missing",
            "src/main_nothere.c",
            "-Lsrc",
            "-lnothere",
        ],
        p,
    );
    std::fs::remove_file(p.join("src/libnothere.so")).unwrap();
    Some(d)
}

fn rule_of(l: &Loads, name: &str) -> Option<Rule> {
    l.libraries.iter().find(|x| x.name == name).map(|x| x.rule)
}

#[test]
fn runpath_rpath_origin_and_ld_library_path_agree_with_ldd() {
    let Some(d) = fixtures() else { return };
    if !have_ldd() {
        return;
    }
    let p = d.path();
    let alt = p.join("alt").display().to_string();
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("bin/runpath", vec![]),
        ("bin/rpath", vec![]),
        ("bin/runpath2", vec![]),
        ("bin/missing", vec![]),
        ("bin/rpath", vec![("LD_LIBRARY_PATH", alt.as_str())]),
        ("bin/runpath2", vec![("LD_LIBRARY_PATH", alt.as_str())]),
        ("lib/libmid.so", vec![]),
    ];
    for (t, env) in &cases {
        let target = p.join(t);
        let l = resolve(&target, env);
        let reference = ldd(&target, env).unwrap();
        assert_eq!(ours(&l), reference, "{t} {env:?}");
    }
    // The rules that found them.
    let l = resolve(&p.join("bin/runpath"), &[]);
    assert_eq!(rule_of(&l, "libmid.so"), Some(Rule::Runpath));
    assert_eq!(rule_of(&l, "libleaf.so"), Some(Rule::Runpath));
    let leaf = l.libraries.iter().find(|x| x.name == "libleaf.so").unwrap();
    assert_eq!(
        leaf.path.contains("/glibc-hwcaps/x86-64-v2/"),
        l.hwcaps.iter().any(|h| h == "x86-64-v2"),
        "{} with {:?}",
        leaf.path,
        l.hwcaps
    );
    assert!(
        l.libraries
            .iter()
            .any(|x| x.name == "libleaf.so" && x.depth == 2 && x.needed_by.ends_with("libmid.so"))
    );
    let l = resolve(&p.join("bin/rpath"), &[]);
    assert_eq!(rule_of(&l, "libd.so"), Some(Rule::Rpath));
    assert_eq!(
        rule_of(&l, "libe.so"),
        Some(Rule::Rpath),
        "the program's RPATH is inherited"
    );
    let l = resolve(&p.join("bin/runpath2"), &[]);
    assert_eq!(rule_of(&l, "libd.so"), Some(Rule::Runpath));
    let m = l
        .missing
        .iter()
        .find(|m| m.name == "libe.so")
        .expect("RUNPATH is not inherited");
    assert!(
        m.searched
            .iter()
            .all(|s| s.rule != Rule::Runpath && s.rule != Rule::Rpath)
    );
    assert!(m.searched.iter().any(|s| s.rule == Rule::Default));
    let l = resolve(&p.join("bin/rpath"), &[("LD_LIBRARY_PATH", &alt)]);
    assert_eq!(
        rule_of(&l, "libd.so"),
        Some(Rule::Rpath),
        "RPATH before LD_LIBRARY_PATH"
    );
    let l = resolve(&p.join("bin/runpath2"), &[("LD_LIBRARY_PATH", &alt)]);
    assert_eq!(
        rule_of(&l, "libd.so"),
        Some(Rule::LdLibraryPath),
        "LD_LIBRARY_PATH before RUNPATH"
    );
    // A program reached through a link: executed, its $ORIGIN is its real folder (the
    // kernel's /proc/self/exe), which is what ldd shows for the real path; ldd given the
    // link itself computes $ORIGIN from the link's folder and finds nothing.
    std::fs::create_dir_all(p.join("elsewhere/deep")).unwrap();
    std::os::unix::fs::symlink(p.join("bin/runpath"), p.join("elsewhere/deep/runpath")).unwrap();
    let l = resolve(&p.join("elsewhere/deep/runpath"), &[]);
    assert_eq!(ours(&l), ldd(&p.join("bin/runpath"), &[]).unwrap());
    let via_link = ldd(&p.join("elsewhere/deep/runpath"), &[]).unwrap();
    assert_eq!(via_link.get("libmid.so"), Some(&None));
    // A file by that name that is not ELF, first in the search: the loader stops there.
    std::fs::create_dir_all(p.join("junk")).unwrap();
    std::fs::write(p.join("junk/libd.so"), vec![b'#'; 200]).unwrap();
    let junk = p.join("junk").display().to_string();
    let env = [("LD_LIBRARY_PATH", junk.as_str())];
    let l = resolve(&p.join("bin/runpath2"), &env);
    let m = l.missing.iter().find(|m| m.name == "libd.so").unwrap();
    assert!(m.rejected.last().unwrap().fatal);
    assert_eq!(m.evidence.rule, "loads.invalid_file");
    let out = Command::new("ldd")
        .arg(p.join("bin/runpath2"))
        .env("LD_LIBRARY_PATH", &junk)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("junk/libd.so: invalid ELF header"), "{said}");
    let l = resolve(&p.join("bin/missing"), &[]);
    assert_eq!(l.missing.len(), 1);
    assert_eq!(l.missing[0].name, "libnothere.so");
}

#[test]
fn corrupt_program_is_a_named_error() {
    let d = tempfile::tempdir().unwrap();
    let Ok(ls) = std::fs::read("/bin/ls") else {
        return;
    };
    let cut = d.path().join("cut");
    std::fs::write(&cut, &ls[..ls.len() / 3]).unwrap();
    let e = rocpath_loads::loads(&Options::new(&cut)).unwrap_err();
    assert!(matches!(e, rocpath_loads::LoadsError::Elf { .. }), "{e}");
    assert!(e.to_string().contains("offset"), "{e}");
    let junk = d.path().join("junk");
    std::fs::write(&junk, b"#!/bin/sh\necho\n").unwrap();
    let e = rocpath_loads::loads(&Options::new(&junk)).unwrap_err();
    assert!(e.to_string().contains("ELF"), "{e}");
}

#[test]
fn corrupt_cache_is_named_and_the_search_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("ld.so.cache");
    std::fs::write(&bad, b"glibc-ld.so.cache1.1\xff\xff\xff\xff").unwrap();
    if !Path::new("/bin/ls").is_file() {
        return;
    }
    let mut o = Options::new("/bin/ls");
    o.cache = bad;
    let l = rocpath_loads::loads(&o).unwrap();
    assert!(l.cache.error.as_deref().unwrap().contains("offset"));
    assert!(
        l.libraries
            .iter()
            .any(|x| x.name == "libc.so.6" && x.rule == Rule::Default)
    );
}
