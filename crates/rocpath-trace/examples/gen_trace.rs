//! Benchmark input generator: repeats the rows of a real rocprofv3 kernel trace (shifting the
//! timestamps forward each round) into an N-dispatch CSV with the same header, and the same
//! dispatches as a rocpd database with rocprofiler-sdk's schema and the `kernels` view.
//!
//! `cargo run --release -p rocpath-trace --example gen_trace -- REAL.csv N OUT.csv OUT.db`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    missing_docs
)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::Write;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (real, n, csv_out, db_out) = (&a[1], a[2].parse::<usize>().unwrap(), &a[3], &a[4]);
    let text = std::fs::read_to_string(real).unwrap();
    let header = text.lines().next().unwrap();
    let body: Vec<&str> = text.lines().skip(1).collect();
    let rows = support::rows_from_csv(&text);
    let span = rows.iter().map(|r| r.end).max().unwrap()
        - rows.iter().map(|r| r.start).min().unwrap()
        + 1000;
    // CSV: the real lines with Start/End shifted per round.
    let mut w = std::io::BufWriter::with_capacity(1 << 22, std::fs::File::create(csv_out).unwrap());
    writeln!(w, "{header}").unwrap();
    let mut all = Vec::with_capacity(n);
    'csv: for round in 0.. {
        for (line, r) in body.iter().zip(&rows) {
            if all.len() == n {
                break 'csv;
            }
            let shift = round as u64 * span;
            let (s, e) = (r.start + shift, r.end + shift);
            let q = line.rfind('"').unwrap();
            let mut f: Vec<String> = line[q + 2..].split(',').map(str::to_string).collect();
            f[1] = s.to_string();
            f[2] = e.to_string();
            writeln!(w, "{},{}", &line[..=q], f.join(",")).unwrap();
            all.push(support::Row {
                start: s,
                end: e,
                ..r.clone()
            });
        }
    }
    w.flush().unwrap();
    let _ = std::fs::remove_file(db_out);
    let conn = rusqlite::Connection::open(db_out).unwrap();
    conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        .unwrap();
    let mut s = support::Session::new(
        &conn,
        "_0196b3fa_b3e1_7e33_a35f_a6d1c1f8e2a4",
        "0196b3fa-b3e1-7e33-a35f-a6d1c1f8e2a4",
        true,
        "gfx900",
    );
    for chunk in all.chunks(500_000) {
        s.dispatches(chunk, true);
    }
    println!("{n} dispatches: {csv_out}, {db_out}");
}
