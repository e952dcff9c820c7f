//! The worked example on a real Ollama checkout: `num_gpu` from the API options to the
//! layers llama.cpp places on the GPU (Ollama v0.18.0, llama.cpp vendored), and at a current
//! Ollama, where the option leaves as `-ngl` for an external `llama-server`.
//!
//! The checkouts are not part of the project: `ROCPATH_OLLAMA_CHECKOUT` names a work tree of
//! ollama/ollama at tag v0.18.0 (commit 3980c021), `ROCPATH_OLLAMA_CURRENT` one of a newer
//! Ollama whose runner is `llm/llama_server.go`. Each test skips, saying so, when its variable
//! is not set (as the pinned MIOpen checkout test does, CI does not provide them).
//!
//! ```sh
//! git clone https://github.com/ollama/ollama && git -C ollama checkout v0.18.0
//! ROCPATH_OLLAMA_CHECKOUT=$PWD/ollama cargo test -p rocpath-follow --test ollama_checkout
//! ```

use rocpath_follow::{FollowDoc, Hop, HopEvidence, HopKind, Options, follow};
use std::path::PathBuf;

fn checkout(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            rocpath_testdata::missing(&format!("{var} is not set (an ollama/ollama work tree)"));
            None
        }
    }
}

/// The chain of hops from `from` to the first hop under it at `path:line`.
fn chain_from<'a>(from: &'a Hop, path: &str, line: u64) -> Option<Vec<&'a Hop>> {
    fn go<'a>(h: &'a Hop, path: &str, line: u64, acc: &mut Vec<&'a Hop>) -> bool {
        acc.push(h);
        if h.path == path && h.line == line {
            return true;
        }
        if h.children.iter().any(|c| go(c, path, line, acc)) {
            return true;
        }
        acc.pop();
        false
    }
    let mut acc = Vec::new();
    go(from, path, line, &mut acc).then_some(acc)
}

/// The chain of hops from a root to the first hop at `path:line`.
fn chain<'a>(doc: &'a FollowDoc, path: &str, line: u64) -> Option<Vec<&'a Hop>> {
    doc.hops.iter().find_map(|r| chain_from(r, path, line))
}

/// The chain from a root through the hop at `via` to the hop at `end`: where the hop at `via`
/// joins a hop followed already ("followed above at #id"), the chain goes on from that hop.
fn chain_via<'a>(doc: &'a FollowDoc, via: (&str, u64), end: (&str, u64)) -> Option<Vec<&'a Hop>> {
    let mut hops = chain(doc, via.0, via.1)?;
    let last = *hops.last()?;
    let joined = last
        .note
        .as_deref()
        .and_then(|n| n.split("followed above at #").nth(1))
        .and_then(|t| t.split_whitespace().next())
        .and_then(|id| id.parse::<usize>().ok());
    let rest = match joined {
        Some(id) => {
            let at = doc
                .hops
                .iter()
                .flat_map(Hop::walk)
                .map(|(_, h)| h)
                .find(|h| h.id == id)?;
            chain_from(at, end.0, end.1)?
        }
        None => chain_from(last, end.0, end.1)?.split_off(1),
    };
    hops.extend(rest);
    Some(hops)
}

#[test]
#[ignore = "needs an ollama/ollama v0.18.0 work tree in ROCPATH_OLLAMA_CHECKOUT, which CI does not have"]
fn num_gpu_reaches_the_gpu_layers_of_llama_cpp_at_v0_18_0() {
    let Some(root) = checkout("ROCPATH_OLLAMA_CHECKOUT") else {
        return;
    };
    let doc = follow("api/types.go:604", &[root], &Options::default());
    let doc = doc.unwrap_or_else(|e| unreachable!("{e}"));
    let end = "llama/llama.cpp/src/llama-model.cpp";
    // Line 700 writes the load request's `GPULayers`, as `ollamaServer.Load` does at line 775:
    // whichever is placed first is followed, the other joins it.
    let Some(hops) = chain_via(&doc, ("llm/server.go", 700), (end, 2396)) else {
        unreachable!("no trail to {end}:2396 through llm/server.go:700")
    };
    let at: Vec<(String, u64, HopKind)> = hops
        .iter()
        .map(|h| (h.path.clone(), h.line, h.kind))
        .collect();
    // The steps of the research's trace map, in order along one branch of the tree.
    let want: [(&str, u64, HopKind); 9] = [
        ("api/types.go", 604, HopKind::Origin),
        ("llm/server.go", 992, HopKind::Field),
        ("llm/server.go", 992, HopKind::Return),
        ("llm/server.go", 700, HopKind::Assign),
        ("runner/llamarunner/runner.go", 912, HopKind::Json),
        ("runner/llamarunner/runner.go", 924, HopKind::Field),
        ("llama/llama.go", 266, HopKind::Cgo),
        (end, 2347, HopKind::Assign),
        (end, 2396, HopKind::Assign),
    ];
    let mut k = 0;
    for (p, l, kind) in &at {
        if k < want.len() && want[k] == (p.as_str(), *l, *kind) {
            k += 1;
        }
    }
    assert_eq!(k, want.len(), "missing {:?} in {at:#?}", want.get(k));
    assert!(hops.iter().all(|h| {
        h.commit
            .as_deref()
            .is_some_and(|c| c.starts_with("3980c021"))
    }));
    assert!(
        hops.iter()
            .any(|h| h.kind == HopKind::Cgo && h.evidence == HopEvidence::CodeVerified)
    );
}

#[test]
#[ignore = "needs a current ollama/ollama work tree in ROCPATH_OLLAMA_CURRENT, which CI does not have"]
fn num_gpu_leaves_a_current_ollama_as_a_flag_for_llama_server() {
    let Some(root) = checkout("ROCPATH_OLLAMA_CURRENT") else {
        return;
    };
    let doc = follow("api/types.go:NumGPU", &[root], &Options::default());
    let doc = doc.unwrap_or_else(|e| unreachable!("{e}"));
    let flags: Vec<&Hop> = doc
        .hops
        .iter()
        .flat_map(Hop::walk)
        .map(|(_, h)| h)
        .filter(|h| h.kind == HopKind::Flag && h.symbol == "-ngl")
        .collect();
    assert!(!flags.is_empty(), "no -ngl hop");
    for f in flags {
        assert_eq!(f.path, "llm/llama_server.go");
        assert_eq!(f.evidence, HopEvidence::Unresolved);
        assert!(f.note.as_deref().unwrap_or("").contains("exec.Command"));
    }
}
