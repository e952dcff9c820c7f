//! Print the instruction histogram of AMDGPU code objects (ELF, offload bundle or CCOB), in the
//! format of the reference `*.mnemonics.tsv` files, or with `--summary` the totals, classes,
//! signals and decode speed.
//!
//! `cargo run --release -p rocpath-isa --example census -- [--summary] FILE...`
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/common/mod.rs"]
mod common;

use rocpath_isa::{Census, Class, Decoder};

fn main() {
    let mut summary = false;
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "--summary" {
            summary = true;
        } else {
            files.push(a);
        }
    }
    let mut total = Census::new();
    let mut code_bytes = 0u64;
    let mut elapsed = 0.0f64;
    for f in &files {
        let Ok(data) = std::fs::read(f) else {
            eprintln!("cannot read {f}");
            continue;
        };
        for (_, elf) in common::code_objects_in(&data) {
            let Some(dec) = Decoder::for_mach(common::e_flags(&elf)) else {
                eprintln!("{f}: no decoder for e_flags {:#x}", common::e_flags(&elf));
                continue;
            };
            let secs = common::exec_sections(&elf);
            let t = std::time::Instant::now();
            for s in &secs {
                total.merge(&dec.census(s.bytes, s.address, &s.symbols));
                code_bytes += s.bytes.len() as u64;
            }
            elapsed += t.elapsed().as_secs_f64();
        }
    }
    if !summary {
        print!("{}", total.to_tsv());
        return;
    }
    println!("instructions\t{}", total.instructions());
    println!("code_bytes\t{code_bytes}");
    println!("decode_seconds\t{elapsed:.4}");
    println!(
        "mb_per_s\t{:.1}",
        code_bytes as f64 / 1e6 / elapsed.max(1e-9)
    );
    let by = total.by_class();
    for c in Class::ALL {
        if by[c as usize] > 0 {
            println!("class.{}\t{}", c.name(), by[c as usize]);
        }
    }
    let s = total.signals();
    println!(
        "signal.dot4\t{}\nsignal.packed\t{}\nsignal.mfma\t{}\nsignal.fma\t{}\nsignal.memory\t{}",
        s.dot4, s.packed, s.mfma, s.fma, s.memory
    );
}
