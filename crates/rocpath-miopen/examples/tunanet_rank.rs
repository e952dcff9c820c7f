//! TunaNet's order for find-db keys read from stdin, one line each, in the oracle's form
//! (`key \t supported \t solver:score;…`; `key \t unsupported \t why` when the features cannot
//! be written — the shape tests are the model's part, see `tests/tunanet.rs`), for timing
//! against `scripts/oracle/tunanet`:
//! `cargo run --release -p rocpath-miopen --example tunanet_rank -- DIR DEVICE < keys`.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use rocpath_miopen::Problem;
use rocpath_miopen::tunanet::{ModelClass, TunaNet};
use std::io::{BufRead, Write};
use std::path::Path;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).map(String::as_str).unwrap_or("."));
    let class = ModelClass::for_device(args.get(2).map(String::as_str).unwrap_or("gfx942"));
    let read = |name: String| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let net = TunaNet::parse(
        class,
        &read(class.model_file()),
        &read(class.metadata_file()),
    )
    .expect("the model files");
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for line in std::io::stdin().lock().lines() {
        let key = line.unwrap();
        let Ok(p) = Problem::from_fdb_key(&key) else {
            continue;
        };
        match net.rank(&p) {
            Ok(r) => {
                let list: Vec<String> = r
                    .iter()
                    .map(|s| format!("{}:{:.9}", s.solver, s.score))
                    .collect();
                writeln!(out, "{key}\tsupported\t{}", list.join(";")).unwrap();
            }
            Err(e) => writeln!(out, "{key}\tunsupported\t{e}").unwrap(),
        }
    }
}
