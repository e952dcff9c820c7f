//! Times `rocpath follow` cold (index built, cache empty) and warm (index from the cache),
//! against `grep -rn` over the same checkout.
//!
//! `cargo run --release -p rocpath-follow --example follow_bench -- SPEC REPO... [--print]`

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::time::Instant;

fn print(h: &rocpath_follow::Hop, d: usize) {
    println!(
        "{:w$}{} {}:{} [{}] {} — {}{}",
        "",
        h.kind.as_str(),
        h.path,
        h.line,
        h.evidence.as_str(),
        h.symbol,
        h.text,
        h.note
            .as_deref()
            .map(|n| format!("  ({n})"))
            .unwrap_or_default(),
        w = d * 2
    );
    for c in &h.children {
        print(c, d + 1);
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--print");
    args.retain(|a| a != "--print");
    if args.len() < 2 {
        eprintln!("usage: follow_bench SPEC REPO... [--print]");
        std::process::exit(2);
    }
    let spec = args.remove(0);
    let roots: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    let cache = std::env::temp_dir().join(format!("rocpath-follow-bench-{}", std::process::id()));
    // SAFETY of intent: a private cache folder so that the first run is cold.
    unsafe_free_set_cache(&cache);
    let opts = rocpath_follow::Options::default();
    let t = Instant::now();
    let cold_repos = rocpath_follow::Repos::open(&roots, &opts);
    let index_t = t.elapsed();
    let cold = match &cold_repos {
        Ok(r) => rocpath_follow::follow_in(&spec, r, &opts),
        Err(_) => rocpath_follow::follow(&spec, &roots, &opts),
    };
    let cold_t = t.elapsed();
    println!(
        "cold split: index build {:.3} s, trail {:.3} s",
        index_t.as_secs_f64(),
        (cold_t - index_t).as_secs_f64()
    );
    let t = Instant::now();
    let warm = rocpath_follow::follow(&spec, &roots, &opts);
    let warm_t = t.elapsed();
    let t = Instant::now();
    let repos = rocpath_follow::Repos::open(&roots, &opts);
    let open_t = t.elapsed();
    if let Ok(r) = &repos {
        let t = Instant::now();
        let _ = rocpath_follow::follow_in(&spec, r, &opts);
        println!(
            "warm split: index load {:.3} s, trail {:.3} s",
            open_t.as_secs_f64(),
            t.elapsed().as_secs_f64()
        );
    }
    let t = Instant::now();
    let grep = std::process::Command::new("grep")
        .arg("-rn")
        .arg("--")
        .arg(spec.rsplit(':').next().unwrap_or(&spec))
        .args(&roots)
        .output();
    let grep_t = t.elapsed();
    let _ = std::fs::remove_dir_all(&cache);
    match (&cold, &warm) {
        (Ok(c), Ok(w)) => {
            println!(
                "spec {spec}: {} roots, {} hops (cold), {} hops (warm), cached {:?}",
                c.hops.len(),
                c.hop_count(),
                w.hop_count(),
                w.repos.iter().map(|r| r.cached).collect::<Vec<_>>()
            );
            if show {
                for h in &w.hops {
                    print(h, 0);
                }
            }
        }
        (Err(e), _) | (_, Err(e)) => println!("error: {e}"),
    }
    let lines = grep
        .map(|o| o.stdout.iter().filter(|&&b| b == b'\n').count())
        .unwrap_or(0);
    println!(
        "cold {:.3} s, warm {:.3} s, grep -rn {:.3} s ({lines} lines); warm/grep {:.2}",
        cold_t.as_secs_f64(),
        warm_t.as_secs_f64(),
        grep_t.as_secs_f64(),
        warm_t.as_secs_f64() / grep_t.as_secs_f64().max(1e-9)
    );
}

fn unsafe_free_set_cache(dir: &std::path::Path) {
    // `set_var` is unsafe in edition 2024; the cache folder is passed through the
    // environment before any thread starts.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("ROCPATH_CACHE", dir);
    }
}
