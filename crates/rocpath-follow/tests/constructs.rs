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
