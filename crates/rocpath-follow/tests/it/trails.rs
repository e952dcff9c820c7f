//! Trails through a small repository (`crates/rocpath/tests/data/follow`, copied per
//! test): a Go server that sends a value to a Go runner as JSON, which hands it to C through cgo; the same value as a flag to a Python
//! worker and as an environment variable; a flag to a program outside the repository; a
//! recursive function (a cycle), a variable never read (a dead end), and a value read in
//! several places (a fan-out). The shapes are those of Ollama, llama.cpp and their tools.

use rocpath_follow::{FollowDoc, FollowError, Hop, HopEvidence, HopKind, Options, follow};
use std::path::{Path, PathBuf};

/// The repository of `crates/rocpath/tests/data/follow` (the CLI snapshots read it in
/// place), copied so a test can add files to it.
fn repo() -> tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rocpath/tests/data/follow");
    let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    for rel in [
        "srv/options.go",
        "srv/cycle.go",
        "runner/runner.go",
        "native/model.h",
        "native/model.cpp",
        "tools/worker.py",
    ] {
        let bytes = std::fs::read(src.join(rel)).unwrap_or_else(|e| unreachable!("{rel}: {e}"));
        write(d.path(), rel, &bytes);
    }
    d
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap_or(root)).unwrap_or_else(|e| unreachable!("{e}"));
    std::fs::write(p, bytes).unwrap_or_else(|e| unreachable!("{e}"));
}

fn opts() -> Options {
    Options {
        cache: false,
        ..Options::default()
    }
}

fn run(spec: &str, root: &Path, o: &Options) -> FollowDoc {
    match follow(spec, &[PathBuf::from(root)], o) {
        Ok(d) => d,
        Err(e) => unreachable!("{spec}: {e}"),
    }
}

/// Every hop as `path:line kind evidence symbol`.
fn flat(doc: &FollowDoc) -> Vec<(usize, &Hop)> {
    doc.hops.iter().flat_map(Hop::walk).collect()
}

fn find<'a>(doc: &'a FollowDoc, path: &str, line: u64, kind: HopKind) -> Option<&'a Hop> {
    flat(doc)
        .into_iter()
        .map(|(_, h)| h)
        .find(|h| h.path == path && h.line == line && h.kind == kind)
}

fn must<'a>(doc: &'a FollowDoc, path: &str, line: u64, kind: HopKind) -> &'a Hop {
    match find(doc, path, line, kind) {
        Some(h) => h,
        None => unreachable!(
            "no {} hop at {path}:{line}; the trail:\n{}",
            kind.as_str(),
            flat(doc)
                .iter()
                .map(|(d, h)| format!(
                    "{:w$}{} {}:{} {} {}",
                    "",
                    h.kind.as_str(),
                    h.path,
                    h.line,
                    h.evidence.as_str(),
                    h.symbol,
                    w = d * 2
                ))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

#[test]
fn a_field_goes_through_calls_json_and_cgo_into_cpp() {
    let r = repo();
    let doc = run("srv/options.go:NumGPU", r.path(), &opts());
    assert_eq!(doc.matched, 1);
    let root = &doc.hops[0];
    assert_eq!(
        (root.path.as_str(), root.line, root.kind),
        ("srv/options.go", 4, HopKind::Origin)
    );
    // The read, the argument and the parameter, the condition deciding on it, the return.
    let read = must(&doc, "srv/options.go", 20, HopKind::Field);
    assert_eq!(read.evidence, HopEvidence::CodeVerified);
    must(&doc, "srv/options.go", 20, HopKind::CallArg);
    let param = must(&doc, "srv/options.go", 12, HopKind::Param);
    assert_eq!(param.symbol, "requested");
    must(&doc, "srv/options.go", 13, HopKind::Branch);
    must(&doc, "srv/options.go", 16, HopKind::Return);
    // Callers of plan receive the result; it goes into a struct literal field.
    must(&doc, "srv/options.go", 20, HopKind::Assign);
    must(&doc, "srv/options.go", 21, HopKind::Field);
    // The runner decodes the request from JSON: a name-matched bridge.
    let json = must(&doc, "runner/runner.go", 17, HopKind::Json);
    assert_eq!(json.evidence, HopEvidence::Inferred);
    assert!(
        json.note
            .as_deref()
            .unwrap_or("")
            .contains("decoded from JSON at line 15")
    );
    // Written into a C struct through cgo, then read in C++.
    let cgo = must(&doc, "runner/runner.go", 17, HopKind::Cgo);
    assert_eq!(cgo.symbol, ".n_layers");
    must(&doc, "native/model.h", 2, HopKind::Field);
    must(&doc, "native/model.cpp", 4, HopKind::Field);
    must(&doc, "native/model.cpp", 4, HopKind::Assign);
    must(&doc, "native/model.cpp", 5, HopKind::Assign);
    must(&doc, "native/model.cpp", 6, HopKind::Branch);
    must(&doc, "native/model.cpp", 9, HopKind::Return);
    // Every hop carries the quoted line.
    assert!(flat(&doc).iter().all(|(_, h)| !h.text.is_empty()));
    assert!(!doc.truncated, "{:?}", doc.notes);
}

#[test]
fn a_flag_reaches_argparse_and_an_env_var_reaches_getenv() {
    let r = repo();
    let doc = run("srv/options.go:NumGPU", r.path(), &opts());
    let flag = must(&doc, "srv/options.go", 26, HopKind::Flag);
    assert_eq!(flag.symbol, "--gpu-layers");
    assert_eq!(flag.evidence, HopEvidence::CodeVerified);
    let def = must(&doc, "tools/worker.py", 7, HopKind::Flag);
    assert_eq!(def.evidence, HopEvidence::Inferred);
    assert_eq!(def.symbol, ".gpu_layers");
    must(&doc, "tools/worker.py", 9, HopKind::Field);
    must(&doc, "tools/worker.py", 9, HopKind::CallArg);
    must(&doc, "tools/worker.py", 12, HopKind::Param);
    must(&doc, "tools/worker.py", 13, HopKind::Branch);
    must(&doc, "tools/worker.py", 15, HopKind::Assign);
    must(&doc, "tools/worker.py", 16, HopKind::Return);
    let env = must(&doc, "srv/options.go", 29, HopKind::Env);
    assert_eq!(env.symbol, "TEST_GPU_LAYERS");
    let get = must(&doc, "tools/worker.py", 20, HopKind::Env);
    assert_eq!(get.evidence, HopEvidence::Inferred);
    must(&doc, "tools/worker.py", 20, HopKind::Assign);
}

#[test]
fn a_flag_to_an_outside_program_is_unresolved_naming_the_command() {
    let r = repo();
    let doc = run("srv/options.go:NumThread", r.path(), &opts());
    let flag = must(&doc, "srv/options.go", 30, HopKind::Flag);
    assert_eq!(flag.evidence, HopEvidence::Unresolved);
    let note = flag.note.as_deref().unwrap_or("");
    assert!(
        note.contains("--threads") && note.contains("exec.Command"),
        "{note}"
    );
    assert!(flag.children.is_empty());
}

#[test]
fn a_bare_json_key_starts_at_the_tag_and_the_python_reader() {
    let r = repo();
    let doc = run("num_gpu", r.path(), &opts());
    assert_eq!(doc.matched, 2, "{:?}", doc.hops);
    must(&doc, "srv/options.go", 4, HopKind::Json);
    must(&doc, "tools/worker.py", 25, HopKind::Json);
    must(&doc, "tools/worker.py", 25, HopKind::Assign);
    // From the tag, the Go field is followed as before.
    must(&doc, "srv/options.go", 20, HopKind::CallArg);
}

#[test]
fn a_recursive_call_is_a_cycle_followed_once() {
    let r = repo();
    let doc = run("srv/cycle.go:k", r.path(), &opts());
    let back = must(&doc, "srv/cycle.go", 3, HopKind::Param);
    assert!(
        back.note
            .as_deref()
            .unwrap_or("")
            .contains("followed above")
    );
    assert!(back.children.is_empty());
    must(&doc, "srv/cycle.go", 4, HopKind::Branch);
}

/// The summary before the tree: the conditions (resolved and shallow first), the boundaries,
/// and the other branches by why they stop; a join points at the hop it joins.
#[test]
fn the_ends_of_a_trail_are_summarised_and_joins_point_at_their_hop() {
    let r = repo();
    let doc = run("srv/options.go:NumGPU", r.path(), &opts());
    let ends = rocpath_follow::ends(&doc);
    let first = ends.decisions.first().map(|h| (h.path.as_str(), h.line));
    assert_eq!(first, Some(("srv/options.go", 13)));
    assert!(ends.decisions.iter().all(|h| h.kind == HopKind::Branch));
    let doc = run("srv/options.go:NumThread", r.path(), &opts());
    let ends = rocpath_follow::ends(&doc);
    let b: Vec<(&str, u64)> = ends
        .boundaries
        .iter()
        .map(|h| (h.path.as_str(), h.line))
        .collect();
    assert_eq!(b, vec![("srv/options.go", 30)]);
    let doc = run("srv/cycle.go:k", r.path(), &opts());
    let back = must(&doc, "srv/cycle.go", 3, HopKind::Param);
    let note = back.note.as_deref().unwrap_or("");
    let root = &doc.hops[0];
    assert_eq!(root.id, 1);
    assert!(note.contains("followed above at #1"), "{note}");
    let ids: Vec<usize> = flat(&doc).iter().map(|(_, h)| h.id).collect();
    assert_eq!(
        ids,
        (1..=ids.len()).collect::<Vec<_>>(),
        "depth first from 1"
    );
    let ends = rocpath_follow::ends(&doc);
    assert!(
        ends.stops
            .iter()
            .any(|(s, n)| *s == rocpath_follow::Stop::Joined && *n == 3),
        "{:?}",
        ends.stops
    );
}

#[test]
fn a_variable_never_read_is_a_dead_end() {
    let r = repo();
    let doc = run("srv/options.go:NumGPU", r.path(), &opts());
    let dead = must(&doc, "srv/options.go", 32, HopKind::Assign);
    assert_eq!(dead.symbol, "unused");
    assert!(dead.children.is_empty());
}

#[test]
fn fan_out_is_capped_with_a_note_and_depth_too() {
    let r = repo();
    let o = Options {
        fan_out: 2,
        ..opts()
    };
    let doc = run("srv/options.go:NumGPU", r.path(), &o);
    assert!(doc.truncated);
    let root = &doc.hops[0];
    assert_eq!(root.children.len(), 2);
    assert!(
        root.note
            .as_deref()
            .unwrap_or("")
            .contains("more places not followed")
    );
    let o = Options { depth: 2, ..opts() };
    let doc = run("srv/options.go:NumGPU", r.path(), &o);
    assert!(flat(&doc).iter().all(|(d, _)| *d < 2));
    assert!(doc.truncated);
}

#[test]
fn file_line_starts_at_the_declaration_on_the_line() {
    let r = repo();
    let doc = run("native/model.cpp:4", r.path(), &opts());
    assert_eq!(doc.hops[0].symbol, "n");
    must(&doc, "native/model.cpp", 5, HopKind::Assign);
}

#[test]
fn a_spec_matching_nothing_names_the_nearest_names() {
    let r = repo();
    match follow("num_gpus", &[r.path().to_path_buf()], &opts()) {
        Err(FollowError::NoMatch { nearest, .. }) => {
            assert!(nearest.contains(&"num_gpu".to_string()), "{nearest:?}")
        }
        other => unreachable!("{other:?}"),
    }
    assert!(matches!(
        follow("nope/x.go:3", &[r.path().to_path_buf()], &opts()),
        Err(FollowError::NoSuchFile { .. })
    ));
    assert!(matches!(
        follow("srv/cycle.go:999", &[r.path().to_path_buf()], &opts()),
        Err(FollowError::NoSuchLine { .. })
    ));
}

#[test]
fn a_spec_matching_many_places_is_cut_with_a_note() {
    let r = repo();
    let mut many = String::from("package many\n\ntype T struct {\n");
    for i in 0..60 {
        many.push_str(&format!("\tF{i} int `json:\"wide\"`\n"));
    }
    many.push_str("}\n");
    write(r.path(), "many/many.go", many.as_bytes());
    let doc = run("wide", r.path(), &opts());
    assert_eq!(doc.matched, 60);
    assert_eq!(doc.hops.len(), opts().max_matches);
    assert!(doc.truncated);
    assert!(doc.notes[0].contains("matches 60 places"));
}

#[test]
fn bad_files_are_skipped_with_a_reason_and_the_rest_is_followed() {
    let r = repo();
    write(r.path(), "gen/huge.go", &vec![b'a'; 3 << 20]);
    write(r.path(), "gen/blob.c", b"\x7fELF\x00\x00\x01NumGPU");
    write(
        r.path(),
        "srv/broken.go",
        b"package srv\nfunc ( {{{ o.NumGPU\n",
    );
    #[cfg(unix)]
    {
        let l = r.path().join("loop");
        std::fs::create_dir_all(&l).unwrap_or_else(|e| unreachable!("{e}"));
        let _ = std::os::unix::fs::symlink("..", l.join("up"));
    }
    let doc = run("srv/options.go:NumGPU", r.path(), &opts());
    let reason = |p: &str| {
        doc.skipped
            .iter()
            .find(|s| s.path.contains(p))
            .map(|s| s.reason.clone())
            .unwrap_or_default()
    };
    assert!(
        reason("huge.go").contains("byte limit"),
        "{:?}",
        doc.skipped
    );
    assert!(reason("blob.c").contains("binary"));
    assert!(reason("broken.go").contains("syntax errors"));
    #[cfg(unix)]
    assert!(reason("loop").contains("not walked"), "{:?}", doc.skipped);
    must(&doc, "native/model.cpp", 4, HopKind::Assign);
}

/// A committed link to a folder or a file outside the checkout used to be walked and its
/// lines cited as `code_verified` (a link to `/` walked the machine).
#[cfg(unix)]
#[test]
fn links_out_of_the_checkout_are_skipped_and_said() {
    let outside = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    write(
        outside.path(),
        "leak/secret.go",
        b"package leak\nfunc f(o Options) { key := o.NumGPU }\n",
    );
    let r = repo();
    let link = |to: &Path, name: &str| {
        std::os::unix::fs::symlink(to, r.path().join(name)).unwrap_or_else(|e| unreachable!("{e}"))
    };
    link(&outside.path().join("leak"), "vendor");
    link(&outside.path().join("leak/secret.go"), "secret.go");
    link(Path::new("/"), "slash");
    link(Path::new("srv"), "srv2");
    let doc = run("srv/options.go:NumGPU", r.path(), &opts());
    let reason = |p: &str| {
        doc.skipped
            .iter()
            .find(|s| s.path == p)
            .map(|s| s.reason.clone())
            .unwrap_or_default()
    };
    for p in ["vendor", "secret.go", "slash"] {
        assert!(
            reason(p).contains("outside the folder given"),
            "{p}: {:?}",
            doc.skipped
        );
    }
    assert!(reason("srv2").contains("met already"), "{:?}", doc.skipped);
    assert!(
        flat(&doc)
            .iter()
            .all(|(_, h)| !h.path.contains("secret") && !h.path.starts_with("srv2")),
        "{:#?}",
        flat(&doc)
    );
    must(&doc, "native/model.cpp", 4, HopKind::Assign);
}

#[test]
fn the_commit_of_a_git_checkout_is_on_every_hop() {
    let r = repo();
    let git = r.path().join(".git");
    std::fs::create_dir_all(git.join("refs/heads")).unwrap_or_else(|e| unreachable!("{e}"));
    let hash = "0123456789abcdef0123456789abcdef01234567";
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n")
        .unwrap_or_else(|e| unreachable!("{e}"));
    std::fs::write(git.join("refs/heads/main"), format!("{hash}\n"))
        .unwrap_or_else(|e| unreachable!("{e}"));
    let doc = run("srv/cycle.go:k", r.path(), &opts());
    assert_eq!(doc.repos[0].commit.as_deref(), Some(hash));
    assert!(
        flat(&doc)
            .iter()
            .all(|(_, h)| h.commit.as_deref() == Some(hash))
    );
}

#[test]
fn the_index_is_cached_per_commit() {
    let r = repo();
    let git = r.path().join(".git");
    std::fs::create_dir_all(&git).unwrap_or_else(|e| unreachable!("{e}"));
    std::fs::write(
        git.join("HEAD"),
        "89abcdef0123456789abcdef0123456789abcdef\n",
    )
    .unwrap_or_else(|e| unreachable!("{e}"));
    let cache = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    // The cache folder is taken from the environment; this test sets it for itself only
    // through the index functions' explicit folder.
    let o = Options {
        cache: true,
        ..Options::default()
    };
    let repos = [r.path().to_path_buf()];
    let first =
        rocpath_follow::index::load_or_build_in(cache.path(), &repos[0], Some("89ab"), &o.index);
    let second =
        rocpath_follow::index::load_or_build_in(cache.path(), &repos[0], Some("89ab"), &o.index);
    match (first, second) {
        (Ok((a, false)), Ok((b, true))) => {
            assert_eq!(a.files, b.files);
            assert_eq!(a.names, b.names);
            assert_eq!(a.defs, b.defs);
        }
        other => unreachable!("{:?}", other.0.map(|x| x.1)),
    }
}

/// The cached index belongs to a state of the work tree: a file edited after it was cached
/// (same commit) has the index built again, with the file's new names.
#[test]
fn the_index_is_built_again_for_an_edited_work_tree() {
    let r = repo();
    let cache = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    let o = Options::default();
    let load = || {
        rocpath_follow::index::load_or_build_in(cache.path(), r.path(), Some("89ab"), &o.index)
            .unwrap_or_else(|e| unreachable!("{e}"))
    };
    let (first, was) = load();
    assert!(!was);
    let (_, was) = load();
    assert!(was, "the same work tree reuses the cache");
    write(
        r.path(),
        "srv/cycle.go",
        b"package srv\n\nfunc EditedHere(k int) int { return k }\n",
    );
    let (edited, was) = load();
    assert!(!was, "an edited work tree is indexed again");
    assert_ne!(first.state, edited.state);
    assert!(edited.names.contains_key("EditedHere"));
    assert!(!first.names.contains_key("EditedHere"));
}

const LAUNCH_GO: &str = r#"package app

type Opts struct {
	NumGPU int
}

func launch(o Opts) {
	params := []string{"--model", "m.gguf"}
	params = append(params, "-ngl", strconv.Itoa(o.NumGPU))
	cmd := exec.Command("llama-server", params...)
	_ = cmd
}
"#;

const ARG_CPP: &str = r#"void add_options(std::vector<common_arg> & opts) {
    add_opt(common_arg(
        {"-ngl", "--gpu-layers", "--n-gpu-layers"}, "N",
        "number of layers to store in VRAM",
        [](common_params & params, int value) {
            params.n_gpu_layers = value;
        }
    ));
}
"#;

const LOAD_CPP: &str = r#"void load(const common_params & params) {
    const int n = params.n_gpu_layers;
    if (n > 0) {
        offload(n);
    }
}
"#;

#[test]
fn a_flag_continues_into_the_argument_table_of_a_second_repository() {
    let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    write(d.path(), "ollama/app/launch.go", LAUNCH_GO.as_bytes());
    write(d.path(), "llama.cpp/common/arg.cpp", ARG_CPP.as_bytes());
    write(d.path(), "llama.cpp/src/load.cpp", LOAD_CPP.as_bytes());
    let app = d.path().join("ollama");
    // Alone, the application passes the flag to a program outside it.
    let doc = run("app/launch.go:NumGPU", &app, &opts());
    let flag = must(&doc, "app/launch.go", 9, HopKind::Flag);
    assert_eq!(flag.evidence, HopEvidence::Unresolved);
    assert!(flag.note.as_deref().unwrap_or("").contains("llama-server"));
    // With the program's source, the flag's handler takes the value on.
    let both = [app.clone(), d.path().join("llama.cpp")];
    let doc =
        follow("app/launch.go:NumGPU", &both, &opts()).unwrap_or_else(|e| unreachable!("{e}"));
    let flag = must(&doc, "ollama/app/launch.go", 9, HopKind::Flag);
    assert_eq!(flag.evidence, HopEvidence::CodeVerified);
    let table = must(&doc, "llama.cpp/common/arg.cpp", 2, HopKind::Flag);
    assert_eq!(table.evidence, HopEvidence::Inferred);
    assert!(table.note.as_deref().unwrap_or("").contains("value"));
    let field = must(&doc, "llama.cpp/common/arg.cpp", 6, HopKind::Assign);
    assert_eq!(field.symbol, ".n_gpu_layers");
    must(&doc, "llama.cpp/src/load.cpp", 2, HopKind::Assign);
    must(&doc, "llama.cpp/src/load.cpp", 3, HopKind::Branch);
    must(&doc, "llama.cpp/src/load.cpp", 4, HopKind::CallArg);
    assert_eq!(doc.repos.len(), 2);
}

/// A flag the repository only sends (to a program outside it) is still a SPEC: the trail
/// starts where it is sent and names the program (it used to match nothing).
#[test]
fn a_flag_only_sent_starts_where_it_is_sent() {
    let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    write(d.path(), "ollama/app/launch.go", LAUNCH_GO.as_bytes());
    let doc = run("-ngl", &d.path().join("ollama"), &opts());
    assert_eq!(doc.matched, 1);
    let root = &doc.hops[0];
    assert_eq!((root.path.as_str(), root.line), ("app/launch.go", 9));
    assert_eq!(root.kind, HopKind::Flag);
    assert_eq!(root.evidence, HopEvidence::Unresolved);
    assert!(root.note.as_deref().unwrap_or("").contains("llama-server"));
}

const BIND_CPP: &str = r#"#include <pybind11/pybind11.h>

int scale_impl(int n) {
    int doubled = n * 2;
    return doubled;
}

PYBIND11_MODULE(native, m) {
    m.def("scale", &scale_impl, "scale the layers");
}
"#;

const CALLER_PY: &str = r#"import native


def run(layers):
    out = native.scale(layers)
    return out
"#;

#[test]
fn python_goes_into_a_native_extension_where_the_binding_is_visible() {
    let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    write(d.path(), "ext/bind.cpp", BIND_CPP.as_bytes());
    write(d.path(), "py/caller.py", CALLER_PY.as_bytes());
    let doc = run("py/caller.py:layers", d.path(), &opts());
    let call = must(&doc, "py/caller.py", 5, HopKind::CallArg);
    assert_eq!(call.evidence, HopEvidence::Inferred);
    assert!(call.note.as_deref().unwrap_or("").contains("scale_impl"));
    let param = must(&doc, "ext/bind.cpp", 3, HopKind::Param);
    assert_eq!(param.symbol, "n");
    must(&doc, "ext/bind.cpp", 4, HopKind::Assign);
    must(&doc, "ext/bind.cpp", 5, HopKind::Return);
    must(&doc, "py/caller.py", 5, HopKind::Assign);
}

/// An environment variable declared by a macro is an identifier, not a string: the trail
/// starts at its declaration and at each use.
#[test]
fn a_name_declared_by_a_macro_starts_at_its_uses() {
    let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    write(
        d.path(),
        "src/controls.cpp",
        b"DECLARE_ENV_VAR_STR(MY_FIND_MODE)\n\
          \n\
          int Lookup(int variable) {\n\
          \x20   return variable + 1;\n\
          }\n\
          \n\
          int Mode() {\n\
          \x20   int value = Lookup(MY_FIND_MODE);\n\
          \x20   return value;\n\
          }\n",
    );
    let doc = run("MY_FIND_MODE", d.path(), &opts());
    must(&doc, "src/controls.cpp", 1, HopKind::Origin);
    must(&doc, "src/controls.cpp", 8, HopKind::Origin);
    must(&doc, "src/controls.cpp", 8, HopKind::CallArg);
    must(&doc, "src/controls.cpp", 3, HopKind::Param);
}
