//! Derivation benchmark: a ledger of N case observations and M trace observations generated
//! from real `rocpath --json case read` and `rocpath --json trace` documents (each copy renamed,
//! its device and data type varied so that the groups are many), then `derive` timed twice —
//! the first run writes every claim, the second finds nothing changed.
//!
//! `cargo run --release -p rocpath-ledger --example derive_bench -- DOCS_DIR LEDGER N_CASES N_TRACES`
//!
//! DOCS_DIR holds the real documents (`*.json`; schema decides which are cases and traces).
#![allow(clippy::print_stdout)]

use rocpath_ledger::model::*;
use rocpath_ledger::store::Ledger;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

const WORLDS: [&str; 4] = ["gfx900:xnack-", "gfx906:xnack-", "gfx90a:xnack-", "gfx1030"];

fn observation(id: String, document: Value) -> Observation {
    Observation {
        schema: OBSERVATION_SCHEMA.into(),
        id,
        imported: Imported {
            file: "bench.json".into(),
            sha256: "0".repeat(64),
            base: ".".into(),
            world: String::new(),
        },
        inputs: Vec::new(),
        quotes: Vec::new(),
        document,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [docs, ledger, n_cases, n_traces] = a.as_slice() else {
        return Err("usage: derive_bench DOCS_DIR LEDGER N_CASES N_TRACES".into());
    };
    let (n_cases, n_traces): (usize, usize) = (n_cases.parse()?, n_traces.parse()?);
    let mut cases = Vec::new();
    let mut traces = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(docs)?
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for p in names
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
    {
        let mut v: Value = serde_json::from_slice(&std::fs::read(p)?)?;
        rocpath_docs::upgrade(&mut v)?;
        match v["schema"].as_str() {
            Some(s) if s == rocpath_docs::schema::CASE.id => cases.push(v),
            Some(s) if s == rocpath_docs::schema::TRACE.id => traces.push(v),
            _ => {}
        }
    }
    if cases.is_empty() || traces.is_empty() {
        return Err(format!("{docs}: needs case and trace documents").into());
    }
    let root = Path::new(ledger);
    let l = Ledger::init(
        root,
        &rocpath_ledger::starter_meta(Text::new("bench", "bench")),
    )?;
    let g = l.lock("bench")?;
    let started = Instant::now();
    let mut bytes = 0usize;
    for i in 0..n_cases {
        let mut d = cases[i % cases.len()].clone();
        if let Some(c) = d["cases"].get_mut(0) {
            let name = format!("{}-{i:05}", c["name"].as_str().unwrap_or("case"));
            c["name"] = Value::String(name);
            // Four devices: the same recordings make four worlds' groups.
            if let Some(dev) = c.get_mut("device").and_then(|d| d.as_object_mut()) {
                dev.insert(
                    "arch".into(),
                    WORLDS[(i / cases.len()) % WORLDS.len()].into(),
                );
            }
        }
        let o = observation(format!("case-{i:05}"), d);
        bytes += rocpath_ledger::files::observation_to_json(&o)?.len();
        g.write_observation(&o)?;
    }
    for i in 0..n_traces {
        let mut d = traces[i % traces.len()].clone();
        if let Some(t) = d["traces"].get_mut(0) {
            t["path"] = Value::String(format!("run-{i:04}/kernel_trace.csv"));
        }
        let o = observation(format!("trace-{i:04}"), d);
        bytes += rocpath_ledger::files::observation_to_json(&o)?.len();
        g.write_observation(&o)?;
    }
    let gen_s = started.elapsed().as_secs_f64();
    let t = Instant::now();
    let first = rocpath_ledger::derive::derive(&g, &l, "2026-03-24")?;
    let first_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let second = rocpath_ledger::derive::derive(&g, &l, "2026-03-25")?;
    let second_s = t.elapsed().as_secs_f64();
    println!(
        "{n_cases} cases + {n_traces} traces ({:.0} MB of observations, written in {gen_s:.2} s)",
        bytes as f64 / 1e6
    );
    println!(
        "derive 1st: {first_s:.3} s, {} claims written ({} rules)",
        first.created.len(),
        first.rules.len()
    );
    println!(
        "derive 2nd: {second_s:.3} s, {} unchanged, {} written",
        second.unchanged,
        second.created.len() + second.updated.len()
    );
    Ok(())
}
