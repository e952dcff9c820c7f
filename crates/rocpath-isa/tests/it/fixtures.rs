//! Histograms of every fixture code object must equal llvm-objdump-22's reference exactly.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use super::common;

use rocpath_isa::{Census, Decoder};

#[test]
fn fixture_histograms_match_llvm_objdump() {
    let Some(dir) = common::fixtures_dir() else {
        return;
    };
    let objects = common::code_objects().expect("manifest.tsv lists readable code objects");
    let mut failures = Vec::new();
    let mut total = 0u64;
    for co in &objects {
        let dec =
            Decoder::for_target(&co.cpu).unwrap_or_else(|| panic!("no decoder for {}", co.cpu));
        let mut census = Census::new();
        for sec in common::exec_sections(&co.bytes) {
            census.merge(&dec.census(sec.bytes, sec.address, &sec.symbols));
        }
        let reference = common::read_reference(&dir.join(format!("{}.mnemonics.tsv", co.base)));
        let got: Vec<(String, u64)> = census
            .histogram()
            .into_iter()
            .map(|(m, c)| (m.to_string(), c))
            .collect();
        total += census.instructions();
        // Differences per mnemonic.
        let mut diff = Vec::new();
        let mut all: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
        for (m, c) in &reference {
            all.entry(m).or_default().0 = *c;
        }
        for (m, c) in &got {
            all.entry(m).or_default().1 = *c;
        }
        for (m, (r, g)) in &all {
            if r != g {
                diff.push(format!("{m}: objdump {r}, rocpath {g}"));
            }
        }
        println!(
            "{:<100} {:>8} {:>8} instructions, {} mnemonic differences",
            co.base,
            co.cpu,
            census.instructions(),
            diff.len()
        );
        if !diff.is_empty() {
            failures.push(format!("{} ({}): {}", co.base, co.cpu, diff.join("; ")));
        }
    }
    println!("{} code objects, {total} instructions", objects.len());
    assert!(
        failures.is_empty(),
        "{} code objects differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
