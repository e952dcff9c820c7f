//! Answers a hipBLASLt problem list (`lite::batch` format, the reference's input) on one
//! library folder and device, writing the reference's columns: `id rank index name`.
//! `cargo run --release -p rocpath-gemm --example lite_predict -- LIBDIR TARGET CUS < problems.tsv`
//! (`LITE_NOTES=0` silences the per-problem notes on stderr for unresolved answers.)
#![allow(clippy::print_stdout, clippy::print_stderr)]

use rocpath_gemm::Device;
use rocpath_gemm::lite::batch::{self, Header};
use rocpath_gemm::lite::{LiteLibrary, heuristic};
use std::io::{BufRead, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, target, cus] = &args[..] else {
        return Err("usage: lite_predict LIBDIR TARGET CUS < problems.tsv".into());
    };
    let notes = std::env::var("LITE_NOTES").map_or(true, |v| v != "0");
    // LITE_SLOW=N: report the queries that take longer than N µs.
    let slow: Option<u128> = std::env::var("LITE_SLOW").ok().and_then(|v| v.parse().ok());
    let target = rocpath_arch::TargetId::parse(target).map_err(|e| format!("{e:?}"))?;
    let dev = Device::new(target, cus.parse()?);
    let budget = rocpath_budget::MemoryBudget::new(8 << 30);
    let t0 = std::time::Instant::now();
    let lib = LiteLibrary::open(dir.as_ref(), dev.processor(), true, &budget)?;
    let load = t0.elapsed();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let header = Header::parse(&lines.next().ok_or("empty input")??)?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t = std::time::Instant::now();
    let (mut n, mut unresolved) = (0, 0);
    for (i, line) in lines.enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match header.matmul(&line, i + 2) {
            Ok((id, m)) => {
                let t1 = std::time::Instant::now();
                let h = heuristic(&lib, &dev, &m, false);
                if let Some(limit) = slow {
                    let us = t1.elapsed().as_micros();
                    if us > limit {
                        eprintln!("{id}: {us} µs");
                    }
                }
                if let Some(w) = batch::unresolved_reason(&h) {
                    unresolved += 1;
                    if notes {
                        eprintln!("{id}: unresolved: {w}");
                    }
                }
                for l in batch::oracle_lines(&id, &h) {
                    writeln!(out, "{l}")?;
                }
                n += 1;
            }
            Err(e) => eprintln!("{e}"),
        }
    }
    out.flush()?;
    eprintln!(
        "lite_predict: {} {} CUs, master load {:?}; {n} problems, {unresolved} unresolved, {:?}",
        dev.processor(),
        dev.cu_count,
        load,
        t.elapsed()
    );
    Ok(())
}
