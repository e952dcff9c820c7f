//! Predicts a problem list (`batch` format) on one catalog folder and device, writing the
//! reference oracle's columns: `id index name fallback`.
//! `cargo run --release -p rocpath-gemm --example predict -- LIBDIR TARGET CUS < problems.tsv`
#![allow(clippy::print_stdout, clippy::print_stderr)]

use rocpath_gemm::batch::{self, Header};
use rocpath_gemm::{Device, Library};
use std::io::{BufRead, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, target, cus] = &args[..] else {
        return Err("usage: predict LIBDIR TARGET CUS < problems.tsv".into());
    };
    let target = rocpath_arch::TargetId::parse(target).map_err(|e| format!("{e:?}"))?;
    let dev = Device::new(target, cus.parse()?);
    let budget = rocpath_budget::MemoryBudget::new(8 << 30);
    let lib = Library::open(dir.as_ref(), dev.processor(), &budget)?;
    let settings = rocpath_gemm::rocblas::Settings {
        built_with_hipblaslt: Some(false),
        ..Default::default()
    };
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let header = Header::parse(&lines.next().ok_or("empty input")??)?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let t = std::time::Instant::now();
    let mut n = 0;
    for (i, line) in lines.enumerate() {
        let line = line?;
        match header.call(&line, i + 2) {
            Ok((id, call)) => {
                let o = batch::predict(&lib, &dev, &settings, &call);
                if let batch::Outcome::Unresolved(w) = &o {
                    eprintln!("{id}: unresolved: {w}");
                }
                writeln!(out, "{id}\t{}", batch::oracle_columns(&o))?;
                n += 1;
            }
            Err(e) => eprintln!("{e}"),
        }
    }
    out.flush()?;
    eprintln!("{n} problems in {:?}", t.elapsed());
    Ok(())
}
