#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Provenance on small repositories built here with a realistic history: authors, dates,
//! PR-style subjects, a gate added, its file moved to another folder, the gate line rewritten,
//! a build list that drops a target, release tags, a shallow clone and a broken repository.

use rocpath_gates::{Effect, Options, Verdict};
use rocpath_provenance::blame::{self, Query};
use rocpath_provenance::timeline::{self, Status};
use rocpath_testdata::git::git;
use std::path::Path;

const ALICE: (&str, &str) = ("Alice Example", "alice@example.org");
const ZHUORAN: (&str, &str) = ("Zhuoran Yin", "zhuoryin@amd.com");
const BOB: (&str, &str) = ("Bob Mover", "bob@users.noreply.github.com");
const CAROL: (&str, &str) = ("Carol Tidy", "carol@example.org");

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn solver(gate: Option<&str>) -> String {
    let mut s = String::from(
        "// Our own rewrite of an MLIR solver's applicability check, in the same shape.\n\
         #include \"conv.hpp\"\n\
         namespace solver {\n\
         \n\
         bool ConvMlirIgemmFwd::IsApplicable(const Ctx& ctx, const Problem& problem) const\n\
         {\n\
         \x20   if(!IsComposableKernelSupportedHardware(ctx))\n\
         \x20       return false;\n",
    );
    if let Some(g) = gate {
        s.push_str("    // Refer to https://github.com/ROCm/llvm-project-private/issues/389\n");
        s.push_str(g);
        s.push_str("        return false;\n");
    }
    s.push_str("    return MiirIsConfigApplicable(ctx, problem);\n}\n\n} // namespace solver\n");
    s
}

/// Builds the history; returns (dir, hashes of the four commits).
fn build(dir: &Path) -> Vec<String> {
    git(
        dir,
        &["init", "-q", "-b", "develop"],
        ALICE,
        "2020-03-01T10:00:00+00:00",
    );
    write(
        dir,
        "CMakeLists.txt",
        "set(DEFAULT_GPU_TARGETS\n    gfx900\n    gfx906\n    gfx908)\n",
    );
    write(dir, "src/solver/conv_mlir_igemm_fwd.cpp", &solver(None));
    git(dir, &["add", "-A"], ALICE, "2020-03-01T10:00:00+00:00");
    git(
        dir,
        &["commit", "-q", "-m", "Add MLIR iGEMM solver (#1200)"],
        ALICE,
        "2020-03-01T10:00:00+00:00",
    );
    let c1 = git(
        dir,
        &["rev-parse", "HEAD"],
        ALICE,
        "2020-03-01T10:00:00+00:00",
    );
    git(
        dir,
        &["tag", "rocm-5.0.0"],
        ALICE,
        "2020-03-01T10:00:00+00:00",
    );

    write(
        dir,
        "src/solver/conv_mlir_igemm_fwd.cpp",
        &solver(Some(
            "    const auto device_name = ctx.GetStream().GetDeviceName();\n    if(StartsWith(device_name, \"gfx900\"))\n",
        )),
    );
    git(
        dir,
        &[
            "commit",
            "-q",
            "-a",
            "-m",
            "[MLIR] Disable gfx900 from non-xdlops solver (#1328)",
        ],
        ZHUORAN,
        "2021-12-22T10:11:05-06:00",
    );
    let c2 = git(
        dir,
        &["rev-parse", "HEAD"],
        ZHUORAN,
        "2021-12-22T10:11:05-06:00",
    );
    git(
        dir,
        &["tag", "rocm-5.1.0"],
        ZHUORAN,
        "2021-12-22T10:11:05-06:00",
    );

    std::fs::create_dir_all(dir.join("src/solver/conv")).unwrap();
    git(
        dir,
        &[
            "mv",
            "src/solver/conv_mlir_igemm_fwd.cpp",
            "src/solver/conv/conv_mlir_igemm_fwd.cpp",
        ],
        BOB,
        "2023-05-10T09:00:00+02:00",
    );
    write(
        dir,
        "CMakeLists.txt",
        "set(DEFAULT_GPU_TARGETS\n    gfx900\n    gfx908)\n",
    );
    git(
        dir,
        &[
            "commit",
            "-q",
            "-a",
            "-m",
            "Move convolution solvers to src/solver/conv (#2000)",
        ],
        BOB,
        "2023-05-10T09:00:00+02:00",
    );
    let c3 = git(
        dir,
        &["rev-parse", "HEAD"],
        BOB,
        "2023-05-10T09:00:00+02:00",
    );
    git(
        dir,
        &["tag", "rocm-6.0.0"],
        BOB,
        "2023-05-10T09:00:00+02:00",
    );

    write(
        dir,
        "src/solver/conv/conv_mlir_igemm_fwd.cpp",
        &solver(Some(
            "    const auto device_name = ctx.GetStream().GetDeviceName();\n    if(StartsWith(device_name, \"gfx900\") )\n",
        )),
    );
    git(
        dir,
        &[
            "commit",
            "-q",
            "-a",
            "-m",
            "Format solver conditions (#2100)\n\nSee SWDEV-411729.",
        ],
        CAROL,
        "2024-01-02T12:00:00+00:00",
    );
    let c4 = git(
        dir,
        &["rev-parse", "HEAD"],
        CAROL,
        "2024-01-02T12:00:00+00:00",
    );
    git(
        dir,
        &["tag", "rocm-6.1.0"],
        CAROL,
        "2024-01-02T12:00:00+00:00",
    );
    vec![c1, c2, c3, c4]
}

fn gate_line(dir: &Path) -> (String, u64) {
    let r = rocpath_gates::scan(&[dir.to_path_buf()], &Options::default()).unwrap();
    let g = r
        .gates
        .iter()
        .find(|g| g.path.ends_with("conv_mlir_igemm_fwd.cpp") && g.covers == ["gfx900"])
        .expect("the MLIR gate");
    assert_eq!(g.effect, Effect::Excludes);
    assert_eq!(
        g.function.as_deref(),
        Some("ConvMlirIgemmFwd::IsApplicable")
    );
    assert!(
        g.references
            .iter()
            .any(|r| r.contains("llvm-project-private/issues/389"))
    );
    (g.path.clone(), g.line.unwrap())
}

#[test]
fn introduced_through_a_move_and_a_rewrite() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let c = build(dir);
    let (path, line) = gate_line(dir);
    assert_eq!(path, "src/solver/conv/conv_mlir_igemm_fwd.cpp");
    let q = Query {
        path: path.clone(),
        line,
        keys: vec!["gfx900".into()],
        comment_refs: vec!["https://github.com/ROCm/llvm-project-private/issues/389".into()],
    };
    let v = blame::trace(dir, &[q], &blame::Options::default()).unwrap();
    let p = &v[0];
    let last = p.last.as_ref().unwrap();
    assert_eq!(last.hash, c[3]);
    assert_eq!(last.author, "Carol Tidy");
    let intro = p.introduced.as_ref().unwrap();
    assert_eq!(intro.hash, c[1], "{p:#?}");
    assert_eq!(intro.author, "Zhuoran Yin");
    assert_eq!(intro.affiliation.as_deref(), Some("AMD"));
    assert_eq!(intro.date, "2021-12-22T10:11:05-06:00");
    assert_eq!(intro.pr, Some(1328));
    assert_eq!(
        intro.subject,
        "[MLIR] Disable gfx900 from non-xdlops solver (#1328)"
    );
    // The file was in src/solver/ when the gate was introduced.
    assert_eq!(intro.path, "src/solver/conv_mlir_igemm_fwd.cpp");
    assert_eq!(p.untouched_days, Some(0));
    assert_eq!(p.roles.insertion.status.as_str(), "history_verified");
    assert_eq!(
        p.roles.maintenance.who.as_deref(),
        Some("Carol Tidy <carol@example.org>")
    );
    assert_eq!(p.roles.operational.status.as_str(), "unresolved");
    assert_eq!(p.roles.repair_capable.status.as_str(), "unresolved");
    let private = p
        .references
        .iter()
        .find(|r| r.text.contains("private"))
        .unwrap();
    assert_eq!(private.access.as_str(), "not publicly verifiable");
    assert!(p.references.iter().any(|r| r.text == "SWDEV-411729"));
    assert_eq!(p.evidence.class, rocpath_evidence::Class::Confirmed);
    assert_eq!(p.evidence.kind, rocpath_evidence::Proof::HistoryVerified);

    // Before the rewrite, the last touch is the introduction itself and the gate has been
    // untouched since: the maintenance role stays unresolved.
    let q = Query {
        path: path.clone(),
        line,
        keys: vec!["gfx900".into()],
        comment_refs: vec![],
    };
    let v = blame::trace(
        dir,
        &[q],
        &blame::Options {
            rev: "rocm-6.0.0".into(),
            ..Default::default()
        },
    )
    .unwrap();
    let p = &v[0];
    assert_eq!(p.last.as_ref().unwrap().hash, c[1]);
    assert_eq!(p.introduced.as_ref().unwrap().hash, c[1]);
    assert_eq!(p.untouched_days, Some(503));
    assert_eq!(p.roles.maintenance.status.as_str(), "unresolved");
}

#[test]
fn timeline_added_kept_retreated() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    build(dir);
    let tl = timeline::timeline(dir, "gfx906", "rocm-*", 8 << 20).unwrap();
    let tags: Vec<&str> = tl.tags.iter().map(|r| r.tag.as_str()).collect();
    assert_eq!(
        tags,
        ["rocm-5.0.0", "rocm-5.1.0", "rocm-6.0.0", "rocm-6.1.0"]
    );
    let list = tl
        .items
        .iter()
        .find(|i| i.key.contains("DEFAULT_GPU_TARGETS"))
        .unwrap();
    let ev: Vec<(&str, Status)> = list
        .events
        .iter()
        .map(|e| (e.tag.as_str(), e.status))
        .collect();
    assert_eq!(
        ev,
        [
            ("rocm-5.0.0", Status::Added),
            ("rocm-6.0.0", Status::Retreated)
        ]
    );
    assert_eq!(list.events[1].verdict, Some(Verdict::Excludes));

    let tl = timeline::timeline(dir, "gfx900", "rocm-*", 8 << 20).unwrap();
    let mlir = tl
        .items
        .iter()
        .find(|i| i.key.contains("ConvMlirIgemmFwd::IsApplicable|string"))
        .unwrap();
    assert_eq!(mlir.events[0].tag, "rocm-5.1.0");
    assert_eq!(mlir.events[0].status, Status::Added);
    assert_eq!(mlir.events[0].verdict, Some(Verdict::Excludes));
    assert!(mlir.present);
    let counts: Vec<usize> = tl.tags.iter().map(|r| r.added).collect();
    assert_eq!(counts[0], 1, "gfx900 in the CMake list from the first tag");
}

#[test]
fn shallow_clone_is_truncated() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    build(&src);
    let url = format!("file://{}", src.display());
    git(
        t.path(),
        &["clone", "-q", "--depth", "1", &url, "shallow"],
        ALICE,
        "2024-01-03T00:00:00+00:00",
    );
    let dir = t.path().join("shallow");
    let (path, line) = gate_line(&dir);
    let q = Query {
        path,
        line: line - 1,
        keys: vec![],
        comment_refs: vec![],
    };
    let v = blame::trace(&dir, &[q], &blame::Options::default()).unwrap();
    let p = &v[0];
    let t = p.truncated.as_deref().expect("truncated");
    assert!(t.starts_with("history truncated at "), "{t}");
    assert!(p.introduced.is_none());
    assert_eq!(p.evidence.class, rocpath_evidence::Class::Unresolved);
    assert_eq!(p.roles.insertion.status.as_str(), "unresolved");
}

#[test]
fn broken_and_detached_repositories() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let c = build(dir);
    // Detached HEAD: the gates carry the commit; blame works.
    git(
        dir,
        &["checkout", "-q", &c[1]],
        ALICE,
        "2024-01-03T00:00:00+00:00",
    );
    let r = rocpath_gates::scan(&[dir.to_path_buf()], &Options::default()).unwrap();
    assert!(
        r.gates
            .iter()
            .all(|g| g.commit.as_deref() == Some(c[1].as_str()))
    );
    assert!(r.repos[0].branch.is_none());

    // A line beyond the end of a file and a missing file: per-line errors, the rest goes on.
    let qs = [
        Query {
            path: "CMakeLists.txt".into(),
            line: 99,
            keys: vec![],
            comment_refs: vec![],
        },
        Query {
            path: "nope.cpp".into(),
            line: 1,
            keys: vec![],
            comment_refs: vec![],
        },
        Query {
            path: "CMakeLists.txt".into(),
            line: 2,
            keys: vec!["gfx900".into()],
            comment_refs: vec![],
        },
    ];
    let v = blame::trace(dir, &qs, &blame::Options::default()).unwrap();
    assert!(v[0].error.as_deref().unwrap().contains("no line 99"));
    assert!(
        v[1].error
            .as_deref()
            .unwrap()
            .contains("nope.cpp: not a file at")
    );
    assert_eq!(v[2].introduced.as_ref().unwrap().hash, c[0]);

    // A corrupt repository: HEAD is garbage. The scan goes on without a commit; blame says why.
    let bad = t.path().join("bad");
    std::fs::create_dir_all(bad.join(".git")).unwrap();
    std::fs::write(bad.join(".git/HEAD"), "garbage\n").unwrap();
    write(
        &bad,
        "a.cpp",
        "bool f(const std::string& n) { return n == \"gfx1201\"; }\n",
    );
    let r = rocpath_gates::scan(std::slice::from_ref(&bad), &Options::default()).unwrap();
    assert_eq!(r.gates.len(), 1);
    assert!(r.gates[0].commit.is_none());
    assert!(r.issues.iter().any(|i| i.message.contains("HEAD")));
    let e = blame::trace(&bad, &qs[..1], &blame::Options::default()).unwrap_err();
    assert!(
        e.to_string().contains("cannot open as a git repository"),
        "{e}"
    );
}

/// A loose object whose file was cut short: libgit2 would inflate it forever, so the
/// repository is refused by name (object, file, what to do) before any history is read.
#[test]
fn a_loose_object_cut_short_refuses_the_history_by_name() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    build(dir);
    let mut loose: Vec<std::path::PathBuf> = std::fs::read_dir(dir.join(".git/objects"))
        .unwrap()
        .flatten()
        .filter(|d| d.file_name().len() == 2)
        .flat_map(|d| {
            std::fs::read_dir(d.path())
                .unwrap()
                .flatten()
                .map(|e| e.path())
        })
        .collect();
    loose.sort();
    assert!(!loose.is_empty(), "the history is kept in loose objects");
    let victim = &loose[0];
    let mut perms = std::fs::metadata(victim).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(victim, perms).unwrap();
    let bytes = std::fs::read(victim).unwrap();
    std::fs::write(victim, &bytes[..bytes.len() / 2]).unwrap();
    let err = blame::open(dir).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("cut short"), "{err}");
    assert!(err.contains(&victim.display().to_string()), "{err}");
}
