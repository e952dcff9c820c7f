//! Benchmark: predict N problems against one find-db (decompress, index, look up, rank).
//! `cargo run --release -p rocpath-explain --example predict_bench -- DB.fdb.txt.bz2 KEYS.txt`
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use rocpath_explain::miopen::{db::FindDb, predict_keys};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (db, keys) = (&args[1], &args[2]);
    let keys: Vec<String> = std::fs::read_to_string(keys)
        .expect("keys file")
        .lines()
        .map(str::to_string)
        .collect();
    let t = Instant::now();
    let fdb = FindDb::open(std::path::Path::new(db)).expect("find-db");
    let loaded = t.elapsed();
    let p = predict_keys(&fdb, &keys);
    let total = t.elapsed();
    let hits = p.iter().filter(|x| x.is_some()).count();
    println!(
        "{} records; {} problems, {} with a record; load {:.3} s, predict {:.3} ms, total {:.3} s",
        fdb.records,
        keys.len(),
        hits,
        loaded.as_secs_f64(),
        (total - loaded).as_secs_f64() * 1e3,
        total.as_secs_f64()
    );
}
