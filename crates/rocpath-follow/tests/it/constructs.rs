//! Constructs real repositories use to move a value, each on a small repository written here
//! by hand in the shape of the code it stands for (Ollama's `envconfig` getters and its
//! runner's Go flags, llama.cpp's argv table, string building before a process starts).

use rocpath_follow::{FollowDoc, Hop, HopEvidence, HopKind, Options, follow};
use std::path::{Path, PathBuf};

fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap_or_else(|e| unreachable!("{e}"));
    for (rel, text) in files {
        let p = d.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(d.path()))
            .unwrap_or_else(|e| unreachable!("{e}"));
        std::fs::write(p, text).unwrap_or_else(|e| unreachable!("{e}"));
    }
    d
}

fn run(spec: &str, root: &Path) -> FollowDoc {
    let o = Options {
        cache: false,
        ..Options::default()
    };
    follow(spec, &[PathBuf::from(root)], &o).unwrap_or_else(|e| unreachable!("{spec}: {e}"))
}

fn hops(doc: &FollowDoc) -> Vec<&Hop> {
    doc.hops
        .iter()
        .flat_map(Hop::walk)
        .map(|(_, h)| h)
        .collect()
}

/// The trail, one hop a line, for assertion messages.
fn show(doc: &FollowDoc) -> String {
    let mut out = String::new();
    for (d, h) in doc.hops.iter().flat_map(Hop::walk) {
        out.push_str(&format!(
            "{:w$}{} {}:{} {} {} {}\n",
            "",
            h.kind.as_str(),
            h.path,
            h.line,
            h.evidence.as_str(),
            h.symbol,
            h.note.as_deref().unwrap_or(""),
            w = d * 2
        ));
    }
    out
}

fn must<'a>(doc: &'a FollowDoc, path: &str, line: u64, kind: HopKind) -> &'a Hop {
    match hops(doc)
        .into_iter()
        .find(|h| h.path == path && h.line == line && h.kind == kind)
    {
        Some(h) => h,
        None => unreachable!(
            "no {} hop at {path}:{line}; the trail:\n{}",
            kind.as_str(),
            show(doc)
        ),
    }
}

/// Shaped like Ollama's `envconfig/config.go`: getters with a default that return the reader.
const ENVCONFIG_GO: &str = r#"package envconfig

import (
	"os"
	"strconv"
	"strings"
)

func Var(key string) string {
	return strings.Trim(strings.TrimSpace(os.Getenv(key)), "\"'")
}

func Bool(k string) func() bool {
	return func() bool {
		if s := Var(k); s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return true
			}
			return b
		}
		return false
	}
}

func Uint(key string, defaultValue uint) func() uint {
	return func() uint {
		if s := Var(key); s != "" {
			if n, err := strconv.ParseUint(s, 10, 64); err == nil {
				return uint(n)
			}
		}
		return defaultValue
	}
}

var (
	FlashAttention = Bool("OLLAMA_FLASH_ATTENTION")
	NumParallel    = Uint("OLLAMA_NUM_PARALLEL", 0)
	MaxRunners     = Uint("OLLAMA_MAX_LOADED_MODELS", 0)
)
"#;

/// Shaped like Ollama's scheduler: the getters' readers called where they decide.
const SCHED_GO: &str = r#"package server

import "example.com/ollama/envconfig"

func parallel() int {
	n := int(envconfig.NumParallel())
	if n == 0 {
		n = 1
	}
	return n
}

func flash() bool {
	if envconfig.FlashAttention() {
		return true
	}
	return false
}

func runners() uint {
	return envconfig.MaxRunners()
}
"#;

#[test]
fn a_getter_with_a_default_is_followed_to_its_reader_and_its_callers() {
    let r = repo(&[
        ("envconfig/config.go", ENVCONFIG_GO),
        ("server/sched.go", SCHED_GO),
    ]);
    let doc = run("OLLAMA_NUM_PARALLEL", r.path());
    // The key goes into the getter (it used to be taken as sent, and the trail was empty).
    let key = must(&doc, "envconfig/config.go", 39, HopKind::Env);
    assert_eq!(key.evidence, HopEvidence::Inferred);
    assert!(
        key.note.as_deref().unwrap_or("").contains("Uint"),
        "{}",
        show(&doc)
    );
    let param = must(&doc, "envconfig/config.go", 26, HopKind::Param);
    assert_eq!(param.symbol, "key");
    // The real reader: os.Getenv with the key, in the wrapper Var.
    let get = must(&doc, "envconfig/config.go", 10, HopKind::Env);
    assert_eq!(get.evidence, HopEvidence::CodeVerified);
    // The closure's result leaves through the getter's result, to this call only.
    must(&doc, "envconfig/config.go", 30, HopKind::Return);
    must(&doc, "envconfig/config.go", 39, HopKind::Assign);
    let read = must(&doc, "server/sched.go", 6, HopKind::Field);
    assert_eq!(read.evidence, HopEvidence::CodeVerified);
    must(&doc, "server/sched.go", 7, HopKind::Branch);
    // The other getters built by Uint are not callers of this value.
    assert!(
        hops(&doc)
            .iter()
            .all(|h| h.symbol != "MaxRunners"
                && (h.path.as_str(), h.line) != ("server/sched.go", 21)),
        "{}",
        show(&doc)
    );
}

#[test]
fn a_getter_without_a_default_returns_a_reader_called_in_a_condition() {
    let r = repo(&[
        ("envconfig/config.go", ENVCONFIG_GO),
        ("server/sched.go", SCHED_GO),
    ]);
    let doc = run("OLLAMA_FLASH_ATTENTION", r.path());
    must(&doc, "envconfig/config.go", 13, HopKind::Param);
    must(&doc, "envconfig/config.go", 10, HopKind::Env);
    must(&doc, "envconfig/config.go", 38, HopKind::Assign);
    must(&doc, "server/sched.go", 14, HopKind::Branch);
}

/// Shaped like Ollama's `llm/server.go` (v0.3–v0.5): the runner's command line built with
/// `append`, `fmt.Sprintf` and a string builder.
const SERVER_GO: &str = r#"package llm

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

type Options struct {
	NumGPU   int
	NumBatch int
	NumCtx   int
}

func start(opts Options, exe string) *exec.Cmd {
	params := []string{"--model", "m.gguf"}
	params = append(params, "--n-gpu-layers", fmt.Sprintf("%d", opts.NumGPU))
	params = append(params, fmt.Sprintf("--batch-size=%d", opts.NumBatch))
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(opts.NumCtx))
	params = append(params, "--ctx-size", sb.String())
	return exec.Command(exe, params...)
}
"#;

/// Shaped like Ollama's Go runner (`runner/runner.go`, v0.3–v0.5): Go `flag` definitions,
/// written without dashes.
const RUNNER_GO: &str = r#"package main

import "flag"

func main() {
	nGpuLayers := flag.Int("n-gpu-layers", 0, "Number of layers to offload to GPU")
	var batchSize int
	flag.IntVar(&batchSize, "batch-size", 512, "Batch size")
	ctx := flag.Int("ctx-size", 2048, "Context size")
	flag.Parse()
	load(*nGpuLayers, batchSize, *ctx)
}

func load(layers int, batch int, ctx int) {
	if layers > 0 {
		offload(layers)
	}
	if batch > 1 {
		split(batch)
	}
	if ctx > 4096 {
		grow()
	}
}
"#;

fn launcher_and_runner() -> tempfile::TempDir {
    repo(&[("llm/server.go", SERVER_GO), ("runner/main.go", RUNNER_GO)])
}

#[test]
fn a_flag_built_with_sprintf_reaches_a_go_flag_written_without_dashes() {
    let r = launcher_and_runner();
    let doc = run("llm/server.go:NumGPU", r.path());
    // Sprintf carries the value on (it used to be taken as logging, ending the trail).
    let sent = must(&doc, "llm/server.go", 18, HopKind::Flag);
    assert_eq!(sent.symbol, "--n-gpu-layers");
    assert_eq!(sent.evidence, HopEvidence::CodeVerified);
    // The Go flag "n-gpu-layers" is the reader (it used to be reported as outside).
    let def = must(&doc, "runner/main.go", 6, HopKind::Flag);
    assert_eq!(def.evidence, HopEvidence::Inferred);
    must(&doc, "runner/main.go", 6, HopKind::Assign);
    must(&doc, "runner/main.go", 14, HopKind::Param);
    must(&doc, "runner/main.go", 15, HopKind::Branch);
}

#[test]
fn a_flag_in_a_format_string_and_a_string_builder_carry_the_value() {
    let r = launcher_and_runner();
    let doc = run("llm/server.go:NumBatch", r.path());
    let sent = must(&doc, "llm/server.go", 19, HopKind::Flag);
    assert_eq!(sent.symbol, "--batch-size");
    // IntVar writes the variable given by pointer.
    let def = must(&doc, "runner/main.go", 8, HopKind::Flag);
    assert_eq!(def.symbol, "batchSize");
    must(&doc, "runner/main.go", 18, HopKind::Branch);
    let doc = run("llm/server.go:NumCtx", r.path());
    let sb = must(&doc, "llm/server.go", 21, HopKind::Assign);
    assert_eq!(sb.symbol, "sb");
    must(&doc, "llm/server.go", 22, HopKind::Flag);
    must(&doc, "runner/main.go", 21, HopKind::Branch);
}

#[test]
fn a_go_flag_spec_may_be_given_with_one_dash_or_two() {
    let r = launcher_and_runner();
    for spec in ["--n-gpu-layers", "-n-gpu-layers"] {
        let doc = run(spec, r.path());
        must(&doc, "runner/main.go", 6, HopKind::Flag);
        must(&doc, "runner/main.go", 15, HopKind::Branch);
    }
}

/// Shaped like llama.cpp's `common/common.cpp` before its argument table (b1000–b3000):
/// an argv loop comparing each argument with the flag's names.
const COMMON_CPP: &str = r#"#include <string>
#include "common.h"

bool parse_args(int argc, char ** argv, gpt_params & params) {
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "-ngl" || arg == "--gpu-layers" || arg == "--n-gpu-layers") {
            if (++i >= argc) {
                return false;
            }
            params.n_gpu_layers = std::stoi(argv[i]);
        } else if (arg == "-t" || arg == "--threads") {
            params.n_threads = std::stoi(argv[++i]);
        }
    }
    return true;
}
"#;

const LOAD_CPP: &str = r#"#include "common.h"

void load(const gpt_params & params) {
    const int n = params.n_gpu_layers;
    if (n > 0) {
        offload(n);
    }
}
"#;

#[test]
fn an_argv_table_in_cpp_is_the_reader_of_a_flag() {
    let r = repo(&[
        ("common/common.cpp", COMMON_CPP),
        ("src/load.cpp", LOAD_CPP),
    ]);
    let doc = run("--n-gpu-layers", r.path());
    let read = must(&doc, "common/common.cpp", 11, HopKind::Flag);
    assert_eq!(read.evidence, HopEvidence::Inferred);
    assert!(
        read.note.as_deref().unwrap_or("").contains("line 7"),
        "{}",
        show(&doc)
    );
    let field = must(&doc, "common/common.cpp", 11, HopKind::Assign);
    assert_eq!(field.symbol, ".n_gpu_layers");
    must(&doc, "src/load.cpp", 4, HopKind::Assign);
    must(&doc, "src/load.cpp", 5, HopKind::Branch);
    // The other branch of the table reads another flag.
    assert!(
        hops(&doc).iter().all(|h| h.symbol != ".n_threads"),
        "{}",
        show(&doc)
    );
    let doc = run("--threads", r.path());
    must(&doc, "common/common.cpp", 13, HopKind::Flag);
}

/// Shaped like a Python build script handing options to CMake.
const BUILD_PY: &str = r#"import subprocess


def configure(hip, jobs):
    args = ["cmake", "-B", "build"]
    args.append(f"-DGGML_HIP={hip}")
    args.append("-j" + str(jobs))
    subprocess.run(args)
"#;

#[test]
fn a_python_f_string_into_cmake_names_the_cmake_boundary() {
    let r = repo(&[("tools/build.py", BUILD_PY)]);
    let doc = run("tools/build.py:hip", r.path());
    let flag = must(&doc, "tools/build.py", 6, HopKind::Flag);
    assert_eq!(flag.symbol, "-DGGML_HIP");
    assert_eq!(flag.evidence, HopEvidence::Unresolved);
    assert!(
        flag.note.as_deref().unwrap_or("").contains("CMake"),
        "{}",
        show(&doc)
    );
}

/// Written by hand: two types of one package with a field of the same name, read through a
/// parameter of each type, through a variable of each type, and from a call's result.
const TYPES_GO: &str = r#"package srv

type Options struct {
	NumCtx int
}

type Cache struct {
	NumCtx int
}

func newCache() Cache { return Cache{} }

func run(o Options, c Cache) {
	a := o.NumCtx
	b := c.NumCtx
	d := newCache().NumCtx
	k := newCache()
	e := k.NumCtx
	var opts Options
	g := opts.NumCtx
	_, _, _, _, _ = a, b, d, e, g
}
"#;

#[test]
fn a_field_read_is_code_verified_only_when_its_type_is_resolved() {
    let r = repo(&[("srv/types.go", TYPES_GO)]);
    let doc = run("srv/types.go:4", r.path());
    let ev = |line: u64| must(&doc, "srv/types.go", line, HopKind::Field).evidence;
    // `o Options` and `var opts Options`: the type is written, and it has the field.
    assert_eq!(ev(14), HopEvidence::CodeVerified, "{}", show(&doc));
    assert_eq!(ev(20), HopEvidence::CodeVerified, "{}", show(&doc));
    // `c Cache`: resolved, but to the other type.
    let other = must(&doc, "srv/types.go", 15, HopKind::Field);
    assert_eq!(other.evidence, HopEvidence::Inferred);
    assert!(
        other.note.as_deref().unwrap_or("").contains("Cache"),
        "{}",
        show(&doc)
    );
    // A call's result and a variable assigned from one: the name matches, nothing more.
    assert_eq!(ev(16), HopEvidence::Inferred, "{}", show(&doc));
    assert_eq!(ev(18), HopEvidence::Inferred, "{}", show(&doc));
}

/// Written by hand: a field read once through its type, down to the condition it decides,
/// and read by name on twelve values of unknown type elsewhere.
const RANKED_GO: &str = r#"package app

type Opts struct {
	Layers int
}

func Use(o Opts) {
	a := o.Layers
	b := a + 1
	c := b * 2
	d := c - 3
	if d > 8 {
		offload(d)
	}
}
"#;

fn name_matches() -> String {
    let mut s = String::from("package other\n\n");
    for i in 0..12 {
        s.push_str(&format!(
            "func f{i}() int {{\n\tx := get{i}()\n\treturn x.Layers\n}}\n\n"
        ));
    }
    s
}

#[test]
fn the_hop_limit_is_spent_on_resolved_hops_before_name_matches() {
    let other = name_matches();
    let r = repo(&[("app/use.go", RANKED_GO), ("other/other.go", &other)]);
    let o = Options {
        cache: false,
        limit: 12,
        ..Options::default()
    };
    let doc = follow("app/use.go:Layers", &[r.path().to_path_buf()], &o)
        .unwrap_or_else(|e| unreachable!("{e}"));
    // The resolved trail reaches the condition although the name matches come first in
    // number (they used to take the whole budget from the start).
    must(&doc, "app/use.go", 11, HopKind::Assign);
    must(&doc, "app/use.go", 12, HopKind::Branch);
    assert_eq!(doc.hop_count(), 12);
    assert!(doc.truncated);
    // What the limit left out is counted on the hop it leaves from, and in a note.
    let root = &doc.hops[0];
    let cut = root.note.as_deref().unwrap_or("");
    assert!(
        cut.contains("next hops not followed (--limit)"),
        "{}",
        show(&doc)
    );
    assert!(
        doc.notes.iter().any(|n| n.contains("--limit")),
        "{:?}",
        doc.notes
    );
    // Name matches placed keep their place among the root's next hops, in the order found.
    assert_eq!(root.children[0].path, "app/use.go", "{}", show(&doc));
}

/// Shaped like Ollama's `server/sched.go` and `model/…`: a field `BatchSize` of the options,
/// and a method `BatchSize()` of another type called on a value whose type is not resolved.
const METHOD_GO: &str = r#"package srv

type Options struct {
	BatchSize int
}

type Image struct{}

func (i Image) BatchSize() int { return 1 }

func plan(o Options, s server) int {
	n := s.image.BatchSize()
	m := o.BatchSize
	return n + m
}
"#;

#[test]
fn a_method_call_of_the_same_name_is_not_a_field_read() {
    let r = repo(&[("srv/opts.go", METHOD_GO)]);
    let doc = run("srv/opts.go:4", r.path());
    must(&doc, "srv/opts.go", 13, HopKind::Field);
    assert!(
        hops(&doc).iter().all(|h| h.line != 12),
        "the method call is not a read: {}",
        show(&doc)
    );
}

/// Shaped like Ollama's `llm/server.go` (v0.3–v0.5): variables set for the runner it starts,
/// by `"K="+v` on `cmd.Env`, by `Sprintf("K=%s", v)`, and in a map of variables.
const CHILD_ENV_GO: &str = r#"package llm

import (
	"fmt"
	"os"
	"os/exec"
)

func start(gfx string, exe string) {
	cmd := exec.Command(exe, "runner")
	cmd.Env = append(os.Environ(), "HSA_OVERRIDE_GFX_VERSION="+gfx)
	cmd.Env = append(cmd.Env, fmt.Sprintf("HIP_VISIBLE_DEVICES=%s", gfx))
	env := map[string]string{}
	env["ROCR_VISIBLE_DEVICES"] = gfx
	_ = env
}
"#;

#[test]
fn variables_set_for_a_child_process_name_the_process() {
    let r = repo(&[("llm/server.go", CHILD_ENV_GO)]);
    let doc = run("llm/server.go:gfx", r.path());
    for (line, key) in [
        (11, "HSA_OVERRIDE_GFX_VERSION"),
        (12, "HIP_VISIBLE_DEVICES"),
        (14, "ROCR_VISIBLE_DEVICES"),
    ] {
        let h = must(&doc, "llm/server.go", line, HopKind::Env);
        assert_eq!(h.symbol, key);
        assert_eq!(h.evidence, HopEvidence::Unresolved, "{}", show(&doc));
        let note = h.note.as_deref().unwrap_or("");
        assert!(note.contains("exec.Command"), "{note}");
    }
}

/// Written by hand: a generated table reading the field 20,000 times, over the memory budget
/// of the run once parsed, though the file size limit was raised for it.
#[test]
fn a_file_whose_syntax_tree_does_not_fit_the_memory_budget_is_skipped_and_said() {
    let mut table =
        String::from("#include \"opts.h\"\n\nint table(struct opts o) {\n    int t[] = {\n");
    for i in 0..20_000 {
        table.push_str(&format!("        o.n_gpu + {i},\n"));
    }
    table.push_str("    };\n    return t[0];\n}\n");
    let r = repo(&[
        ("app/opts.h", "struct opts {\n    int n_gpu;\n};\n"),
        (
            "app/use.c",
            "#include \"opts.h\"\n\nint use(struct opts o) {\n    int n = o.n_gpu;\n    return n;\n}\n",
        ),
        ("gen/table.c", &table),
    ]);
    let mut o = Options {
        cache: false,
        memory: Some(rocpath_budget::MemoryBudget::with_wait(
            8 << 20,
            std::time::Duration::ZERO,
        )),
        ..Options::default()
    };
    o.index.max_file_bytes = 64 << 20;
    let doc = follow("app/opts.h:n_gpu", &[r.path().to_path_buf()], &o)
        .unwrap_or_else(|e| unreachable!("{e}"));
    let why = doc
        .skipped
        .iter()
        .find(|s| s.path == "gen/table.c")
        .map(|s| s.reason.clone())
        .unwrap_or_default();
    assert!(why.contains("--max-memory"), "{:?}", doc.skipped);
    must(&doc, "app/use.c", 4, HopKind::Assign);
    assert!(hops(&doc).iter().all(|h| h.path != "gen/table.c"));
}

/// Shaped like MIOpen: an environment variable declared by a macro defined in the
/// repository (`MIOPEN_DECLARE_ENV_VAR_BOOL`), read through `env::disabled` in a solver.
const MIOPEN_ENV_HPP: &str = r#"#pragma once
#include <cstdlib>

#define MIOPEN_DECLARE_ENV_VAR(name, type, ...)        \
    struct name                                        \
    {                                                  \
        static const char* GetName() { return #name; } \
    };

#define MIOPEN_DECLARE_ENV_VAR_BOOL(name, ...) \
    MIOPEN_DECLARE_ENV_VAR(name, bool, __VA_ARGS__)
"#;

const MIOPEN_SOLVER_CPP: &str = r#"#include <miopen/env.hpp>

MIOPEN_DECLARE_ENV_VAR_BOOL(MIOPEN_DEBUG_CONV_DIRECT)

bool ConvDirect::IsApplicable(const ExecutionContext& ctx) const
{
    if(env::disabled(MIOPEN_DEBUG_CONV_DIRECT))
        return false;
    return ctx.use_hip_kernels;
}
"#;

#[test]
fn a_macro_defined_in_the_repository_is_named_not_called_undefined() {
    let r = repo(&[
        ("include/miopen/env.hpp", MIOPEN_ENV_HPP),
        ("src/solver/conv_direct.cpp", MIOPEN_SOLVER_CPP),
    ]);
    let doc = run("MIOPEN_DEBUG_CONV_DIRECT", r.path());
    let m = must(&doc, "src/solver/conv_direct.cpp", 3, HopKind::CallArg);
    assert_eq!(m.evidence, HopEvidence::Inferred, "{}", show(&doc));
    let note = m.note.as_deref().unwrap_or("");
    assert!(note.contains("include/miopen/env.hpp:10"), "{note}");
    assert!(!note.contains("not defined"), "{note}");
    must(&doc, "src/solver/conv_direct.cpp", 7, HopKind::Branch);
}

/// Written by hand: a value sent on a Go channel, which the trail does not follow.
#[test]
fn a_construct_not_followed_is_named_on_the_hop_and_counted() {
    let r = repo(&[(
        "app/ch.go",
        "package app\n\nfunc produce(v int, ch chan int) {\n\tch <- v\n}\n",
    )]);
    let doc = run("app/ch.go:v", r.path());
    let root = &doc.hops[0];
    let note = root.note.as_deref().unwrap_or("");
    assert!(
        note.contains("send_statement") && note.contains("line 4"),
        "{}",
        show(&doc)
    );
    let ends = rocpath_follow::ends(&doc);
    assert_eq!(
        ends.stops,
        vec![(rocpath_follow::Stop::NotFollowed, 1)],
        "{}",
        show(&doc)
    );
}

/// Shaped like llama.cpp's `src/llama-context.{h,cpp}`: a member read without `this->` in a
/// method defined out of the class and in one defined in it, and a local of the same name in
/// another class.
const CONTEXT_H: &str = r#"struct llama_context {
    int n_ctx;
    void reserve();
    int doubled() const { return n_ctx * 2; }
};

struct other {
    int n_ctx;
    void f() {
        int n_ctx = 3;
        use(n_ctx);
    }
};
"#;

const CONTEXT_CPP: &str = r#"#include "llama-context.h"

void llama_context::reserve() {
    if (n_ctx > 4096) {
        grow();
    }
}
"#;

#[test]
fn a_cpp_member_read_without_this_is_resolved_through_its_class() {
    let r = repo(&[
        ("src/llama-context.h", CONTEXT_H),
        ("src/llama-context.cpp", CONTEXT_CPP),
    ]);
    let doc = run("src/llama-context.h:2", r.path());
    let read = must(&doc, "src/llama-context.cpp", 4, HopKind::Field);
    assert_eq!(read.evidence, HopEvidence::CodeVerified);
    assert!(
        read.note.as_deref().unwrap_or("").contains("llama_context"),
        "{}",
        show(&doc)
    );
    must(&doc, "src/llama-context.cpp", 4, HopKind::Branch);
    must(&doc, "src/llama-context.h", 4, HopKind::Field);
    // The local `n_ctx` of other::f is not the member.
    assert!(
        hops(&doc)
            .iter()
            .all(|h| (h.path.as_str(), h.line) != ("src/llama-context.h", 11)),
        "{}",
        show(&doc)
    );
}

/// Shaped like rocBLAS's `library/src/handle.cpp` and MIOpen's `FindMode`: a member written
/// without `this->` in a method defined out of its class and in a constructor, read through a
/// pointer in another file and in another method; a local of the same name is not the member.
const HANDLE_HPP: &str = r#"struct _rocblas_handle {
    int check_numerics = 0;
    int layer_mode = 0;
    void init_check_numerics();
    void init_layer();
    _rocblas_handle() { layer_mode = read_env("ROCBLAS_LAYER"); }
    bool tracing() const { return layer_mode & 1; }
};
"#;

const HANDLE_CPP: &str = r#"#include "handle.hpp"

void _rocblas_handle::init_check_numerics()
{
    const char* str_check_numerics_mode = read_env("ROCBLAS_CHECK_NUMERICS");
    if(str_check_numerics_mode)
    {
        check_numerics = strtol(str_check_numerics_mode, 0, 0);
    }
}

void _rocblas_handle::init_layer()
{
    int check_numerics = 7;
    use(check_numerics);
}
"#;

const GEMM_CPP: &str = r#"#include "handle.hpp"

int rocblas_gemm(_rocblas_handle* handle)
{
    if(handle->check_numerics)
    {
        return check_numerics_vector(handle);
    }
    return 0;
}
"#;

const ENV_CPP: &str = r#"#include <cstdlib>

const char* read_env(const char* env_var)
{
    return getenv(env_var);
}
"#;

#[test]
fn a_cpp_member_written_without_this_is_followed_to_its_reads() {
    let r = repo(&[
        ("src/handle.hpp", HANDLE_HPP),
        ("src/handle.cpp", HANDLE_CPP),
        ("src/gemm.cpp", GEMM_CPP),
        ("src/env.cpp", ENV_CPP),
    ]);
    let doc = run("ROCBLAS_CHECK_NUMERICS", r.path());
    let write = must(&doc, "src/handle.cpp", 8, HopKind::Assign);
    assert_eq!(write.symbol, ".check_numerics", "{}", show(&doc));
    assert!(
        write
            .note
            .as_deref()
            .unwrap_or("")
            .contains("_rocblas_handle"),
        "{}",
        show(&doc)
    );
    must(&doc, "src/gemm.cpp", 5, HopKind::Field);
    must(&doc, "src/gemm.cpp", 5, HopKind::Branch);
    // The local `check_numerics` of init_layer is not the member.
    assert!(
        hops(&doc)
            .iter()
            .all(|h| (h.path.as_str(), h.line) != ("src/handle.cpp", 15)),
        "{}",
        show(&doc)
    );

    // Written in a constructor defined in the class, read in another method of it.
    let doc = run("ROCBLAS_LAYER", r.path());
    let write = must(&doc, "src/handle.hpp", 6, HopKind::Assign);
    assert_eq!(write.symbol, ".layer_mode", "{}", show(&doc));
    must(&doc, "src/handle.hpp", 7, HopKind::Field);
}

/// Shaped like MIOpen's `find_controls.{hpp,cpp}`: a class declared with an export macro
/// (`class MIOPEN_INTERNALS_EXPORT FindMode`), its member written in the constructor's switch
/// and read in an inline method that chooses the find path.
const FIND_CONTROLS_HPP: &str = r#"#define MIOPEN_INTERNALS_EXPORT __attribute__((visibility("default")))

class MIOPEN_INTERNALS_EXPORT FindMode
{
public:
    FindMode(int primitive);
    bool IsFast() const { return value == 2; }
    template <class Context>
    bool IsHybrid(const Context& c) const { return value == 3 && c.ok; }

private:
    int value;
};

struct MIOPEN_INTERNALS_EXPORT FindEnforce : Base
{
    int action;
};
"#;

const FIND_CONTROLS_CPP: &str = r#"#include "find_controls.hpp"

FindMode::FindMode(int primitive)
{
    switch(primitive)
    {
    case 1: value = 2; break;
    default: value = read_env("MIOPEN_FIND_MODE"); break;
    }
}
"#;

#[test]
fn a_class_declared_with_an_export_macro_has_its_members_resolved() {
    let r = repo(&[
        ("src/find_controls.hpp", FIND_CONTROLS_HPP),
        ("src/find_controls.cpp", FIND_CONTROLS_CPP),
        ("src/env.cpp", ENV_CPP),
    ]);
    let doc = run("MIOPEN_FIND_MODE", r.path());
    let write = must(&doc, "src/find_controls.cpp", 8, HopKind::Assign);
    assert_eq!(write.symbol, ".value", "{}", show(&doc));
    let read = must(&doc, "src/find_controls.hpp", 7, HopKind::Field);
    assert_eq!(read.evidence, HopEvidence::CodeVerified, "{}", show(&doc));
    // In a member template too.
    let read = must(&doc, "src/find_controls.hpp", 9, HopKind::Field);
    assert_eq!(read.evidence, HopEvidence::CodeVerified, "{}", show(&doc));
    assert!(
        doc.skipped
            .iter()
            .all(|s| !s.path.ends_with("find_controls.hpp")),
        "{:?}",
        doc.skipped
    );
}

/// Shaped like Ollama v0.3.0's `envconfig.LoadConfig`: a package variable assigned inside a
/// function (`MaxRunners = m`), read through its package by the scheduler; a local of the same
/// name in another function is not it.
const LOADCONFIG_GO: &str = r#"package envconfig

import (
	"os"
	"strconv"
)

var (
	MaxRunners int
)

func clean(key string) string {
	return os.Getenv(key)
}

func LoadConfig() {
	maxRunners := clean("OLLAMA_MAX_LOADED_MODELS")
	if maxRunners != "" {
		m, err := strconv.Atoi(maxRunners)
		if err == nil {
			MaxRunners = m
		}
	}
}

func other(m int) {
	MaxRunners := m
	use(MaxRunners)
}
"#;

const LOADCONFIG_SCHED_GO: &str = r#"package server

import "example.com/ollama/envconfig"

func schedule(loaded int) bool {
	if envconfig.MaxRunners > 0 && loaded >= envconfig.MaxRunners {
		return true
	}
	return false
}
"#;

#[test]
fn a_package_variable_assigned_in_a_function_is_followed_to_its_package_reads() {
    let r = repo(&[
        ("envconfig/config.go", LOADCONFIG_GO),
        ("server/sched.go", LOADCONFIG_SCHED_GO),
    ]);
    let doc = run("OLLAMA_MAX_LOADED_MODELS", r.path());
    let write = must(&doc, "envconfig/config.go", 21, HopKind::Assign);
    assert!(
        write
            .note
            .as_deref()
            .unwrap_or("")
            .contains("package variable"),
        "{}",
        show(&doc)
    );
    let read = must(&doc, "server/sched.go", 6, HopKind::Field);
    assert_eq!(read.evidence, HopEvidence::CodeVerified, "{}", show(&doc));
    must(&doc, "server/sched.go", 6, HopKind::Branch);
    // The local `MaxRunners` of other() is not the package variable.
    assert!(
        hops(&doc)
            .iter()
            .all(|h| (h.path.as_str(), h.line) != ("envconfig/config.go", 28)),
        "{}",
        show(&doc)
    );
}

/// Shaped like Ollama's `cmd/cmd.go` help text and `envconfig`: the variable's name is looked
/// up in a map for the help (`envVars["OLLAMA_NUM_PARALLEL"]`, a file found first) and read by
/// its getter, which the scheduler calls.
const HELP_CMD_GO: &str = r#"package cmd

import "example.com/ollama/envconfig"

func appendEnvDocs(envs []envconfig.EnvVar) string {
	if len(envs) == 0 {
		return ""
	}
	return envs[0].Name
}

func help() string {
	envVars := envconfig.AsMap()
	return appendEnvDocs([]envconfig.EnvVar{
		envVars["OLLAMA_NUM_PARALLEL"],
	})
}
"#;

const HELP_SCHED_GO: &str = r#"package server

import "example.com/ollama/envconfig"

func load() int {
	numParallel := int(envconfig.NumParallel())
	if numParallel > 1 {
		return numParallel
	}
	return 1
}
"#;

#[test]
fn the_definition_of_a_variable_is_the_first_start_and_its_decisions_come_first() {
    let r = repo(&[
        ("cmd/cmd.go", HELP_CMD_GO),
        ("envconfig/config.go", ENVCONFIG_GO),
        ("server/sched.go", HELP_SCHED_GO),
    ]);
    let doc = run("OLLAMA_NUM_PARALLEL", r.path());
    assert!(doc.hops.len() >= 2, "{}", show(&doc));
    assert_eq!(doc.hops[0].path, "envconfig/config.go", "{}", show(&doc));
    assert_eq!(doc.hops[0].id, 1, "{}", show(&doc));
    assert_eq!(doc.hops.last().map(|h| h.path.as_str()), Some("cmd/cmd.go"));
    let ends = rocpath_follow::ends(&doc);
    let first = ends.decisions.first().map(|h| h.path.as_str());
    assert_ne!(first, Some("cmd/cmd.go"), "{}", show(&doc));
    assert!(
        ends.decisions.iter().any(|h| h.path == "server/sched.go"),
        "{}",
        show(&doc)
    );
}

/// Shaped like rocBLAS's `rmake.py` beside `rdeps.py`: each script defines its own `run_cmd`;
/// the one a script calls by its bare name is its own.
const RMAKE_PY: &str = r#"import argparse
import subprocess

def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('-j', '--jobs', type=int, default=0)
    return parser.parse_args()

def run_cmd(exe, opts):
    program = f"{exe} {opts}"
    return subprocess.run(program, shell=True).returncode

def main():
    args = parse_args()
    exe = f"make -j{args.jobs}"
    run_cmd(exe, "install")
"#;

const RDEPS_PY: &str = r#"import subprocess

def run_cmd(cmd, test=False):
    if cmd.startswith('cd '):
        return 0
    return subprocess.call(cmd, shell=True)
"#;

#[test]
fn a_python_call_by_bare_name_goes_to_the_function_of_its_own_file() {
    let r = repo(&[("rmake.py", RMAKE_PY), ("rdeps.py", RDEPS_PY)]);
    let doc = run("--jobs", r.path());
    let call = must(&doc, "rmake.py", 16, HopKind::CallArg);
    assert_eq!(call.evidence, HopEvidence::CodeVerified, "{}", show(&doc));
    must(&doc, "rmake.py", 9, HopKind::Param);
    assert!(
        hops(&doc).iter().all(|h| h.path != "rdeps.py"),
        "{}",
        show(&doc)
    );
}

/// Shaped like Ollama v0.18.0's scheduler: the function-valued field is set in a composite
/// literal (`Scheduler{newServerFn: llm.NewLlamaServer}`) and called with the value.
const KEYED_SCHED_GO: &str = r#"package server

import "github.com/ollama/ollama/llm"

type Scheduler struct {
	newServerFn func(model string, numParallel int) (llm.LlamaServer, error)
}

func InitScheduler() *Scheduler {
	sched := &Scheduler{
		newServerFn: llm.NewLlamaServer,
	}
	return sched
}

func (s *Scheduler) load(model string, n int) {
	numParallel := max(n, 1)
	llama, err := s.newServerFn(model, numParallel)
	use(llama, err)
}
"#;

const KEYED_LLM_GO: &str = r#"package llm

func NewLlamaServer(modelPath string, numParallel int) (LlamaServer, error) {
	if numParallel > 1 {
		return nil, nil
	}
	return nil, nil
}
"#;

#[test]
fn a_function_field_set_in_a_composite_literal_is_followed_into_the_function() {
    let r = repo(&[
        ("server/sched.go", KEYED_SCHED_GO),
        ("llm/server.go", KEYED_LLM_GO),
    ]);
    let doc = run("server/sched.go:17", r.path());
    let call = must(&doc, "server/sched.go", 18, HopKind::CallArg);
    assert!(
        call.note
            .as_deref()
            .unwrap_or("")
            .contains("NewLlamaServer"),
        "{}",
        show(&doc)
    );
    must(&doc, "llm/server.go", 3, HopKind::Param);
    must(&doc, "llm/server.go", 4, HopKind::Branch);
}

/// Shaped like Ollama's `server/sched.go`: the scheduler calls its loader through a field
/// holding a function (`s.loadFn(…)`, set by `sched.loadFn = sched.load`).
const SCHED_FN_GO: &str = r#"package server

type Scheduler struct {
	loadFn func(req *LlmRequest, numParallel int) bool
}

func InitScheduler() *Scheduler {
	sched := &Scheduler{}
	sched.loadFn = sched.load
	return sched
}

func (s *Scheduler) run(pending *LlmRequest, numParallel int) {
	s.loadFn(pending, numParallel)
}

func (s *Scheduler) load(req *LlmRequest, numParallel int) bool {
	if numParallel < 1 {
		numParallel = 1
	}
	return true
}
"#;

#[test]
fn a_call_through_a_field_holding_a_function_reaches_the_function_assigned() {
    let r = repo(&[("server/sched.go", SCHED_FN_GO)]);
    let doc = run("server/sched.go:numParallel", r.path());
    let call = must(&doc, "server/sched.go", 14, HopKind::CallArg);
    assert_eq!(call.evidence, HopEvidence::Inferred, "{}", show(&doc));
    let note = call.note.as_deref().unwrap_or("");
    assert!(
        note.contains("load (assigned at server/sched.go:9)"),
        "{note}"
    );
    let param = must(&doc, "server/sched.go", 17, HopKind::Param);
    assert_eq!(param.symbol, "numParallel");
    must(&doc, "server/sched.go", 18, HopKind::Branch);
}

/// Shaped like Ollama's `llm/server.go` and Go runner (v0.5): a condition on the value decides
/// whether a flag is passed, and the runner defines that flag.
const FA_SERVER_GO: &str = r#"package llm

func start(fa bool, exe string) {
	params := []string{"--model", "m.gguf"}
	if fa {
		params = append(params, "--flash-attn")
	}
	exec.Command(exe, params...)
}
"#;

const FA_RUNNER_GO: &str = r#"package main

import "flag"

func main() {
	flashAttention := flag.Bool("flash-attn", false, "Enable flash attention")
	flag.Parse()
	if *flashAttention {
		enable()
	}
}
"#;

#[test]
fn a_condition_is_followed_to_the_flag_it_decides() {
    let r = repo(&[
        ("llm/server.go", FA_SERVER_GO),
        ("runner/main.go", FA_RUNNER_GO),
    ]);
    let doc = run("llm/server.go:fa", r.path());
    must(&doc, "llm/server.go", 5, HopKind::Branch);
    let flag = must(&doc, "llm/server.go", 6, HopKind::Flag);
    assert_eq!(flag.symbol, "--flash-attn");
    assert_eq!(flag.evidence, HopEvidence::Inferred);
    assert!(
        flag.note
            .as_deref()
            .unwrap_or("")
            .contains("condition at line 5"),
        "{}",
        show(&doc)
    );
    must(&doc, "runner/main.go", 6, HopKind::Flag);
    must(&doc, "runner/main.go", 8, HopKind::Branch);
    // Not the whole list of parameters the flag is appended to.
    assert!(
        hops(&doc).iter().all(|h| h.symbol != "params"),
        "{}",
        show(&doc)
    );
}

/// Written by hand: what a condition decides sets a variable another condition tests; that
/// second condition's block is not followed (one condition deep), and its hop says so.
#[test]
fn what_a_condition_decides_is_followed_one_condition_deep() {
    let r = repo(&[(
        "app/f.go",
        "package app\n\nfunc f(v int) int {\n\tx := 0\n\tif v > 0 {\n\t\tx = 1\n\t}\n\tif x > 0 {\n\t\treturn 2\n\t}\n\treturn 0\n}\n",
    )]);
    let doc = run("app/f.go:v", r.path());
    let set = must(&doc, "app/f.go", 6, HopKind::Assign);
    assert_eq!(set.evidence, HopEvidence::Inferred);
    let second = must(&doc, "app/f.go", 8, HopKind::Branch);
    let note = second.note.as_deref().unwrap_or("");
    assert!(note.contains("through another condition"), "{}", show(&doc));
    assert!(second.children.is_empty());
    assert!(hops(&doc).iter().all(|h| h.line != 9), "{}", show(&doc));
}

/// Shaped like Ollama's `discover/runner.go` (it reads `HSA_OVERRIDE_GFX_VERSION` to warn) and
/// `llm/server.go` (it starts the runner with `append(os.Environ(), …)`): the runner and the
/// ROCm runtime it loads read the variable too, outside the repository.
const DISCOVER_GO: &str = r#"package discover

import (
	"log/slog"
	"os"
)

func warn() {
	if v := os.Getenv("HSA_OVERRIDE_GFX_VERSION"); v != "" {
		slog.Info("override", "HSA_OVERRIDE_GFX_VERSION", v)
	}
}
"#;

const LAUNCH_GO: &str = r#"package llm

import (
	"os"
	"os/exec"
)

func start(exe string) error {
	cmd := exec.Command(exe, "runner")
	cmd.Env = append(os.Environ(), "OLLAMA_RUNNER=1")
	return cmd.Start()
}
"#;

/// Lists the environment but starts nothing: no inheritance.
const LIST_ENV_GO: &str = r#"package debug

import "os"

func dump() int {
	return len(os.Environ())
}
"#;

#[test]
fn a_variable_read_here_is_also_inherited_by_the_child_processes_started_here() {
    let r = repo(&[
        ("discover/runner.go", DISCOVER_GO),
        ("llm/server.go", LAUNCH_GO),
        ("debug/env.go", LIST_ENV_GO),
    ]);
    let doc = run("HSA_OVERRIDE_GFX_VERSION", r.path());
    // The repository's own read is still a start.
    assert!(
        hops(&doc).iter().any(|h| h.path == "discover/runner.go"),
        "{}",
        show(&doc)
    );
    let h = must(&doc, "llm/server.go", 10, HopKind::Env);
    assert_eq!(h.evidence, HopEvidence::Unresolved, "{}", show(&doc));
    let note = h.note.as_deref().unwrap_or("");
    assert!(note.contains("os.Environ()"), "{note}");
    assert!(note.contains("exec.Command(exe, \"runner\")"), "{note}");
    assert!(
        !hops(&doc).iter().any(|h| h.path == "debug/env.go"),
        "{}",
        show(&doc)
    );
    // A variable the repository never reads is not made up from its process starts.
    let o = rocpath_follow::Options {
        cache: false,
        ..rocpath_follow::Options::default()
    };
    assert!(follow("NOT_READ_ANYWHERE", &[PathBuf::from(r.path())], &o).is_err());
}

/// A Python build script that runs a tool without `env=`: the tool inherits.
#[test]
fn a_python_subprocess_without_env_inherits_the_variable() {
    let r = repo(&[(
        "build.py",
        "import os\nimport subprocess\n\nif os.environ.get('ROCM_PATH'):\n    print('rocm')\n\nsubprocess.run(['cmake', '..'])\n",
    )]);
    let doc = run("ROCM_PATH", r.path());
    let h = must(&doc, "build.py", 7, HopKind::Env);
    assert!(
        h.note.as_deref().unwrap_or("").contains("no `env=`"),
        "{}",
        show(&doc)
    );
}

/// rocBLAS's `rmake.py` shape again: `--jobs` is built into the command its own `run_cmd`
/// hands to `subprocess.run`; the command line of that process is where it leaves.
#[test]
fn a_value_on_a_child_process_command_line_names_that_boundary() {
    let r = repo(&[("rmake.py", RMAKE_PY), ("rdeps.py", RDEPS_PY)]);
    let doc = run("--jobs", r.path());
    let h = must(&doc, "rmake.py", 11, HopKind::Flag);
    assert_eq!(h.evidence, HopEvidence::Unresolved, "{}", show(&doc));
    let note = h.note.as_deref().unwrap_or("");
    assert!(
        note.contains("command line of the process started by `subprocess.run(…)`"),
        "{note}"
    );
}

/// A field of the same name in another type, read in a condition near the start, and the
/// value's own path to a condition further down: the resolved one is the first decision.
const OPTS_GO: &str = r#"package server

type Options struct {
	NumCtx int
}

func load(o Options) int {
	n := o.NumCtx
	m := n * 2
	k := m + 1
	if k > 100 {
		return 1
	}
	return 0
}
"#;

const UI_GO: &str = r#"package ui

func show(v struct{ NumCtx int }) {
	if v.NumCtx > 0 {
		println("x")
	}
}
"#;

#[test]
fn decisions_reached_through_resolved_hops_come_before_name_matches() {
    let r = repo(&[("server/opts.go", OPTS_GO), ("ui/ui.go", UI_GO)]);
    let doc = run("server/opts.go:NumCtx", r.path());
    let ends = rocpath_follow::ends(&doc);
    let paths: Vec<&str> = ends.decisions.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths.first(), Some(&"server/opts.go"), "{}", show(&doc));
    assert!(paths.contains(&"ui/ui.go"), "{}", show(&doc));
}

/// Shaped like Ollama v0.3.0's `llm/ext_server/server.cpp`: the argv table writes the flag's
/// value into a field of `gpt_params`, a type of llama.cpp's `common.h` — a submodule the
/// checkout does not hold — and a type the repository does define is written the same way.
const EXT_SERVER_CPP: &str = r#"#include "common.h"
#include "llama.h"
#include "utils.hpp"

static void server_params_parse(int argc, char **argv, server_params &sparams, gpt_params &params)
{
    for (int i = 1; i < argc; i++)
    {
        std::string arg = argv[i];
        if (arg == "--n-gpu-layers")
        {
            params.n_gpu_layers = std::stoi(argv[i]);
        }
        else if (arg == "--port")
        {
            sparams.port = std::stoi(argv[i]);
        }
    }
}
"#;

const UTILS_HPP: &str = r#"struct server_params
{
    int port = 8080;
};
"#;

#[test]
fn a_field_of_a_type_the_repositories_do_not_define_names_where_the_value_leaves() {
    let r = repo(&[
        ("llm/ext_server/server.cpp", EXT_SERVER_CPP),
        ("llm/ext_server/utils.hpp", UTILS_HPP),
    ]);
    let doc = run("--n-gpu-layers", r.path());
    let leave = hops(&doc)
        .into_iter()
        .find(|h| h.evidence == HopEvidence::Unresolved)
        .unwrap_or_else(|| unreachable!("{}", show(&doc)));
    assert_eq!(leave.symbol, "gpt_params.n_gpu_layers", "{}", show(&doc));
    assert_eq!((leave.line, leave.kind), (12, HopKind::Field));
    let note = leave.note.as_deref().unwrap_or("");
    // The headers that are not in the checkout are named; the one that is, is not.
    assert!(note.contains("common.h, llama.h"), "{note}");
    assert!(!note.contains("utils.hpp"), "{note}");

    // A field of a type the repository defines is no boundary.
    let doc = run("--port", r.path());
    must(&doc, "llm/ext_server/server.cpp", 16, HopKind::Assign);
    assert!(
        hops(&doc)
            .iter()
            .all(|h| h.evidence != HopEvidence::Unresolved),
        "{}",
        show(&doc)
    );
}

/// Shaped like rocBLAS 6.2.2's `tensile_host.cpp`: a static written inside a lambda that
/// captures by reference (`[&] { … base_path = env; … }()`), read after the lambda; and a lambda
/// that declares its own variable of the same name, which is not the outer one.
const TENSILE_HOST_CPP: &str = r#"#include <cstdlib>
#include <string>

static bool TestPath(const std::string& path);

void initialize()
{
    static std::string base_path;
    static int         once = [&] {
        const char* env = getenv("ROCBLAS_TENSILE_LIBPATH");
        if(env)
            base_path = env;
        return 0;
    }();
    std::string path = base_path;
    if(TestPath(path + "/gfx900"))
        path += "/gfx900";
}

void other()
{
    std::string base_path = "/opt";
    auto f = [&] {
        std::string base_path = getenv("OTHER_LIBPATH");
        return base_path.size();
    };
    std::string path = base_path;
}
"#;

/// The Go counterpart: a function literal assigning a variable of the function around it.
const LOAD_GO: &str = r#"package server

import "os"

func load() string {
	var dir string
	set := func() {
		dir = os.Getenv("OLLAMA_MODELS")
	}
	set()
	if dir != "" {
		return dir
	}
	return "/usr/share/ollama"
}
"#;

#[test]
fn a_variable_a_closure_writes_for_the_function_around_it_is_followed_after_the_closure() {
    let r = repo(&[
        ("library/src/tensile_host.cpp", TENSILE_HOST_CPP),
        ("server/load.go", LOAD_GO),
    ]);
    let doc = run("ROCBLAS_TENSILE_LIBPATH", r.path());
    must(&doc, "library/src/tensile_host.cpp", 15, HopKind::Assign);
    must(&doc, "library/src/tensile_host.cpp", 16, HopKind::Branch);

    // A lambda's own variable of that name stays the lambda's.
    let doc = run("OTHER_LIBPATH", r.path());
    assert!(
        hops(&doc)
            .iter()
            .all(|h| (h.path.as_str(), h.line) != ("library/src/tensile_host.cpp", 27)),
        "{}",
        show(&doc)
    );

    let doc = run("OLLAMA_MODELS", r.path());
    must(&doc, "server/load.go", 11, HopKind::Branch);
}

/// Shaped like Ollama v0.24.0: `envconfig.ContextLength`, a package-level getter, is read as
/// `envconfig.ContextLength()` in `api` (and through an import alias in `server`), while the
/// desktop app's `Settings` has a field of the same name that is another thing.
const CONFIG_GO: &str = r#"package envconfig

import "os"

func Uint(key string, def uint) func() uint {
	return func() uint {
		if s := os.Getenv(key); s != "" {
			return 1
		}
		return def
	}
}

var ContextLength = Uint("OLLAMA_CONTEXT_LENGTH", 0)
"#;

const API_TYPES_GO: &str = r#"package api

import "github.com/ollama/ollama/envconfig"

func DefaultNumCtx() int {
	n := int(envconfig.ContextLength())
	if n > 4096 {
		return 4096
	}
	return n
}
"#;

const ROUTES_GO: &str = r#"package server

import (
	ec "github.com/ollama/ollama/envconfig"
)

func limit() bool {
	if ec.ContextLength() == 0 {
		return true
	}
	return false
}
"#;

const SETTINGS_GO: &str = r#"package store

type Settings struct {
	ContextLength int
}

func apply(s Settings) bool {
	if s.ContextLength > 0 {
		return true
	}
	return false
}
"#;

#[test]
fn a_package_level_variable_is_read_through_its_package_not_as_a_field_of_that_name() {
    let r = repo(&[
        ("envconfig/config.go", CONFIG_GO),
        ("api/types.go", API_TYPES_GO),
        ("server/routes.go", ROUTES_GO),
        ("app/store/settings.go", SETTINGS_GO),
    ]);
    let doc = run("OLLAMA_CONTEXT_LENGTH", r.path());
    must(&doc, "api/types.go", 7, HopKind::Branch);
    must(&doc, "server/routes.go", 8, HopKind::Branch);
    assert!(
        hops(&doc).iter().all(|h| h.path != "app/store/settings.go"),
        "{}",
        show(&doc)
    );
}

/// Shaped like Ollama's scheduler: the value is one argument of a call whose result (a server
/// and an error) is used, but the function called does not return what the argument became.
const NEW_SERVER_GO: &str = r#"package sched

import (
	"os"
	"strconv"
)

type Server struct{ big bool }

func newServer(model string, n int) (*Server, error) {
	s := &Server{}
	m := n * 2
	if m > 4 {
		s.big = true
	}
	return s, nil
}

func schedule() {
	n, _ := strconv.Atoi(os.Getenv("OLLAMA_NUM_PARALLEL"))
	srv, err := newServer("m", n)
	if srv == nil || err != nil {
		return
	}
}
"#;

#[test]
fn a_decision_reached_through_a_result_the_trail_does_not_bear_out_comes_after_the_others() {
    let r = repo(&[("server/sched.go", NEW_SERVER_GO)]);
    let doc = run("OLLAMA_NUM_PARALLEL", r.path());
    let ends = rocpath_follow::ends(&doc);
    let lines: Vec<u64> = ends.decisions.iter().map(|h| h.line).collect();
    let inside = lines.iter().position(|&l| l == 13);
    let result = lines.iter().position(|&l| l == 22);
    assert!(
        inside.is_some() && result.is_some() && inside < result,
        "{lines:?}\n{}",
        show(&doc)
    );
}

/// Shaped like Ollama's scheduler: a value passed to a function through a function-valued
/// field (`s.newServerFn(…, numParallel)`, set to `NewLlamaServer` in the scheduler's literal),
/// whose result — which may not carry it — is used a lot: with a small hop limit, the
/// function's own use of the value is placed before the result's drift.
const DRIFT_GO: &str = r#"package sched

import (
	"os"
	"strconv"
)

type Server struct{ big bool }

type Scheduler struct {
	newServerFn func(model string, n int) *Server
}

func NewScheduler() *Scheduler {
	return &Scheduler{newServerFn: newServer}
}

func newServer(model string, n int) *Server {
	m := n * 2
	k := m + 1
	if k > 4 {
		return &Server{big: true}
	}
	return &Server{}
}

func (s *Scheduler) schedule() {
	n, _ := strconv.Atoi(os.Getenv("OLLAMA_NUM_PARALLEL"))
	srv := s.newServerFn("m", n)
	a := srv
	b := a
	c := b
	d := c
	if d.big {
		return
	}
}
"#;

#[test]
fn a_result_that_may_not_carry_the_value_does_not_spend_the_limit_before_the_function_s_use() {
    let r = repo(&[("server/sched.go", DRIFT_GO)]);
    let o = Options {
        cache: false,
        limit: 8,
        ..Options::default()
    };
    let doc = follow("OLLAMA_NUM_PARALLEL", &[r.path().to_path_buf()], &o)
        .unwrap_or_else(|e| unreachable!("{e}"));
    must(&doc, "server/sched.go", 21, HopKind::Branch);
}

/// Shaped like Ollama v0.18.0's `llmServer.Completion`: the semaphore the value sizes is
/// acquired in an `if` whose initialiser declares `err`; the `err` the function declares later
/// (`status, err := …`) is another variable, and so is a C++ `rc` declared in a block and
/// again after it.
const COMPLETION_GO: &str = r#"package llm

import "os"

type server struct {
	sem int
}

func (s *server) Completion() error {
	if err := acquire(s.sem); err != nil {
		return err
	}
	status, err := ready()
	if err != nil {
		return err
	}
	_ = status
	return nil
}

func acquire(n int) error { return nil }

func ready() (int, error) { return 0, nil }

func NewServer() *server {
	n := len(os.Getenv("OLLAMA_NUM_PARALLEL"))
	return &server{sem: n}
}
"#;

const BLOCK_CPP: &str = r#"#include <cstdlib>

int check(int);

int run()
{
    {
        int rc = check(std::atoi(getenv("ROCBLAS_LEVEL")));
        if(rc > 2)
            return rc;
    }
    int rc = check(0);
    if(rc < 0)
        return 1;
    return 0;
}
"#;

#[test]
fn a_variable_declared_in_a_statement_or_block_is_not_read_after_it() {
    let r = repo(&[("llm/server.go", COMPLETION_GO), ("src/run.cpp", BLOCK_CPP)]);
    let doc = run("OLLAMA_NUM_PARALLEL", r.path());
    must(&doc, "llm/server.go", 10, HopKind::Branch);
    assert!(
        hops(&doc)
            .iter()
            .all(|h| (h.path.as_str(), h.line) != ("llm/server.go", 14)),
        "{}",
        show(&doc)
    );

    let doc = run("ROCBLAS_LEVEL", r.path());
    must(&doc, "src/run.cpp", 9, HopKind::Branch);
    assert!(
        hops(&doc)
            .iter()
            .all(|h| (h.path.as_str(), h.line) != ("src/run.cpp", 13)),
        "{}",
        show(&doc)
    );
}

/// A value handed to a function that uses it in sixteen places, and to a chain of six calls
/// whose last one decides on it: with a limit of 40 hops, the wide branch's shallow hops would
/// all come first (they are as strong and shallower); each branch's share of the limit lets the
/// chain reach its decision.
fn wide_and_deep_go() -> String {
    let uses: String = (0..16)
        .map(|i| format!("\tb{i} := a + \"{i}\"\n\tif b{i} == \"x\" {{\n\t\tprintln({i})\n\t}}\n"))
        .collect();
    let chain: String = (1..6)
        .map(|i| format!("func deep{i}(v string) {{\n\tdeep{}(v)\n}}\n\n", i + 1))
        .collect();
    format!(
        "package main\n\nimport \"os\"\n\nfunc main() {{\n\tv := os.Getenv(\"X_SIZE\")\n\twide(v)\n\tdeep1(v)\n}}\n\n\
         func wide(a string) {{\n{uses}}}\n\n{chain}\
         func deep6(v string) {{\n\tif v == \"big\" {{\n\t\tprintln(\"big\")\n\t}}\n}}\n"
    )
}

#[test]
fn each_branch_gets_its_share_of_the_hop_limit() {
    let src = wide_and_deep_go();
    let r = repo(&[("cmd/main.go", &src)]);
    let o = Options {
        cache: false,
        limit: 40,
        ..Options::default()
    };
    let doc =
        follow("X_SIZE", &[r.path().to_path_buf()], &o).unwrap_or_else(|e| unreachable!("{e}"));
    let line = src
        .lines()
        .position(|l| l.contains("v == \"big\""))
        .map_or(0, |i| i + 1) as u64;
    must(&doc, "cmd/main.go", line, HopKind::Branch);
    // The wide branch still gets hops, and what the limit left out is said on the hop.
    must(&doc, "cmd/main.go", 13, HopKind::Branch);
    assert!(doc.truncated, "{}", show(&doc));
    assert!(
        hops(&doc)
            .iter()
            .any(|h| h.note.as_deref().is_some_and(|n| n.contains("(--limit)"))),
        "{}",
        show(&doc)
    );
}

/// Shaped like Ollama v0.18.0's `NewLlamaServer`: the value goes into a field of the server the
/// function makes, read where the reader's type is not resolved (a name match); the call's
/// result, which the trail does not bear out, is checked right after the call.
const FIELD_AND_RESULT_GO: &str = r#"package sched

import (
	"os"
	"strconv"

	"example.com/remote"
)

type Server struct{ limit int }

func newServer(model string, n int) (*Server, error) {
	s := &Server{}
	s.limit = n
	return s, nil
}

func admit() bool {
	v := remote.Lookup()
	if v.limit > 1 {
		return true
	}
	return false
}

func schedule() {
	n, _ := strconv.Atoi(os.Getenv("OLLAMA_NUM_PARALLEL"))
	srv, err := newServer("m", n)
	if srv == nil || err != nil {
		return
	}
}
"#;

#[test]
fn what_the_value_itself_decides_comes_before_what_a_result_it_may_not_reach_decides() {
    let r = repo(&[("server/sched.go", FIELD_AND_RESULT_GO)]);
    let doc = run("OLLAMA_NUM_PARALLEL", r.path());
    let ends = rocpath_follow::ends(&doc);
    let lines: Vec<u64> = ends.decisions.iter().map(|h| h.line).collect();
    // The field's reader is a name match, the result's check a result not borne out: the
    // value's own flow first.
    assert_eq!(lines, vec![20, 29], "{}", show(&doc));
}

/// Shaped like Ollama's scheduler: `OLLAMA_MAX_QUEUE` is the capacity of the channel requests
/// wait in; a send in a `select` with a `default` answers "server busy" when it is full.
const QUEUE_GO: &str = r#"package server

import (
	"errors"
	"os"
	"strconv"
)

var ErrMaxQueue = errors.New("server busy")

type Scheduler struct {
	pendingReqCh chan int
}

func InitScheduler() *Scheduler {
	maxQueue, _ := strconv.Atoi(os.Getenv("OLLAMA_MAX_QUEUE"))
	return &Scheduler{pendingReqCh: make(chan int, maxQueue)}
}

func (s *Scheduler) GetRunner(req int) error {
	select {
	case s.pendingReqCh <- req:
	default:
		return ErrMaxQueue
	}
	return nil
}
"#;

#[test]
fn a_send_on_a_channel_the_value_sizes_is_where_it_decides() {
    let r = repo(&[("server/sched.go", QUEUE_GO)]);
    let doc = run("OLLAMA_MAX_QUEUE", r.path());
    let send = must(&doc, "server/sched.go", 22, HopKind::Branch);
    assert!(
        send.note
            .as_deref()
            .is_some_and(|n| n.contains("default at line 23")),
        "{}",
        show(&doc)
    );
    // What the default does is what the value decides.
    must(&doc, "server/sched.go", 24, HopKind::Return);
    let ends = rocpath_follow::ends(&doc);
    assert!(
        ends.decisions.iter().any(|h| h.line == 22),
        "{}",
        show(&doc)
    );
}

/// Two packages each with a `Server`: the scheduler's has the field the value is written into,
/// the other's does not. A read through `*remote.Server` is not a read of the scheduler's type.
const SCHED_SERVER_GO: &str = r#"package sched

import (
	"os"
	"strconv"

	"example.com/app/remote"
)

type Server struct{ limit int }

func newServer() *Server {
	n, _ := strconv.Atoi(os.Getenv("APP_LIMIT"))
	s := &Server{}
	s.limit = n
	return s
}

func admitLocal(v *Server) bool {
	return v.limit > 1
}

func admitRemote(v *remote.Server) bool {
	return v.limit > 2
}
"#;

const REMOTE_SERVER_GO: &str = r#"package remote

type Server struct{ other int }
"#;

#[test]
fn a_go_type_written_with_another_package_is_that_package_s_type() {
    let r = repo(&[
        ("sched/sched.go", SCHED_SERVER_GO),
        ("remote/remote.go", REMOTE_SERVER_GO),
    ]);
    let doc = run("APP_LIMIT", r.path());
    let local = must(&doc, "sched/sched.go", 20, HopKind::Field);
    assert_eq!(local.evidence, HopEvidence::CodeVerified, "{}", show(&doc));
    let remote = must(&doc, "sched/sched.go", 24, HopKind::Field);
    assert_eq!(remote.evidence, HopEvidence::Inferred, "{}", show(&doc));
}

/// A variable given another value in the same block: what it decides after that is not the
/// value's; a reassignment that may not run (in an `if`) or that reads the variable ends
/// nothing.
const OVERWRITE_GO: &str = r#"package app

import "os"

func run(cond bool) {
	v := os.Getenv("X_MODE")
	if v == "a" {
		println(1)
	}
	v = "fixed"
	if v == "b" {
		println(2)
	}
	w := os.Getenv("X_MODE")
	if cond {
		w = "z"
	}
	w = w + "-"
	if w == "c" {
		println(3)
	}
}
"#;

#[test]
fn a_variable_given_another_value_in_the_same_block_no_longer_carries_it() {
    let r = repo(&[("app/run.go", OVERWRITE_GO)]);
    let doc = run("X_MODE", r.path());
    must(&doc, "app/run.go", 7, HopKind::Branch);
    assert!(
        hops(&doc)
            .iter()
            .all(|h| (h.path.as_str(), h.line) != ("app/run.go", 11)),
        "{}",
        show(&doc)
    );
    must(&doc, "app/run.go", 19, HopKind::Branch);
}
