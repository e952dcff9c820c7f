//! Differential check on random words: decode random instruction bytes with rocpath-isa and with
//! `llvm-mc-22 --disassemble`, and report how often the first instruction agrees (valid or not,
//! mnemonic, and length where llvm-mc's output pins it down).
//!
//! Uniformly random bytes are far from real code (non-zero unused fields, reserved operand
//! values), so this measures the decoder's behaviour off the path of real code objects.
//!
//! `cargo run --release -p rocpath-isa --example random_diff -- [--n 20000] [--seed 1] CPU...`
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used
)]

use rocpath_isa::{Decoded, Decoder};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

/// xorshift64*
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const MARKS: usize = 4;

/// First instruction of each probe per llvm-mc: `None` = invalid, else (mnemonic, exact length).
fn llvm(cpu: &str, probes: &[Vec<u8>]) -> Vec<Option<(String, Option<usize>)>> {
    let mark_of = |i: usize| 0x100 + (i % 0x7000) as u32;
    let mut text = String::new();
    for (i, p) in probes.iter().enumerate() {
        let mut b = p.clone();
        for _ in 0..MARKS {
            b.extend_from_slice(&(0xbf80_0000 | mark_of(i)).to_le_bytes());
        }
        for (k, x) in b.iter().enumerate() {
            if k > 0 {
                text.push(' ');
            }
            let _ = write!(text, "0x{x:02x}");
        }
        text.push('\n');
    }
    let path = std::env::temp_dir().join(format!("rocpath-random-diff-{}.txt", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let out = Command::new("llvm-mc-22")
        .args([
            "--disassemble",
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
        ])
        .arg(&path)
        .output()
        .expect("llvm-mc-22");
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Per line: failure at the first byte, failure anywhere.
    let mut fail0 = vec![false; probes.len()];
    let mut fails = vec![false; probes.len()];
    for l in stderr.lines() {
        if let Some(rest) = l.strip_suffix(": warning: invalid instruction encoding") {
            let mut it = rest.rsplit(':');
            let col: usize = it.next().unwrap().parse().unwrap();
            let line: usize = it.next().unwrap().parse().unwrap();
            fails[line - 1] = true;
            if col == 1 {
                fail0[line - 1] = true;
            }
        }
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let items: Vec<(String, Option<u32>)> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix('\t'))
        .filter(|b| !b.starts_with(".amdgcn_target"))
        .map(|b| {
            let mut w = b.split_whitespace();
            let m = w.next().unwrap_or("").to_string();
            let mark = if m == "s_nop" {
                w.next()
                    .and_then(|v| {
                        v.strip_prefix("0x")
                            .map_or(v.parse().ok(), |h| u32::from_str_radix(h, 16).ok())
                    })
                    .filter(|&v| v >= 0x100)
            } else {
                None
            };
            (m, mark)
        })
        .collect();
    let mut res = Vec::new();
    let mut k = 0;
    for (i, p) in probes.iter().enumerate() {
        let m = mark_of(i);
        let mut body = Vec::new();
        while k < items.len() && items[k].1 != Some(m) {
            body.push(items[k].0.clone());
            k += 1;
        }
        let mut marks = 0;
        while k < items.len() && items[k].1 == Some(m) {
            marks += 1;
            k += 1;
        }
        if fail0[i] || body.is_empty() {
            res.push(None);
        } else {
            let exact = (body.len() == 1 && !fails[i]).then_some(p.len() + 4 * (MARKS - marks));
            res.push(Some((body[0].clone(), exact)));
        }
    }
    res
}

fn main() {
    let mut n = 20_000usize;
    let mut seed = 1u64;
    let mut cpus = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--n" => n = args.next().unwrap().parse().unwrap(),
            "--seed" => seed = args.next().unwrap().parse().unwrap(),
            _ => cpus.push(a),
        }
    }
    for cpu in cpus {
        let dec = Decoder::for_target(&cpu).expect("processor");
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        // Random words, 16 bytes each (enough for every length but 20-byte NSA images).
        let probes: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                (0..4)
                    .flat_map(|_| (rng.next() as u32).to_le_bytes())
                    .collect()
            })
            .collect();
        let reference = llvm(&cpu, &probes);
        let mut per_family: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        let (mut agree, mut total) = (0u64, 0u64);
        // Disagreements: decoded here but invalid for LLVM, the reverse, mnemonic, length.
        let mut kinds = [0u64; 4];
        let mut examples = Vec::new();
        for (p, r) in probes.iter().zip(&reference) {
            let ours = dec.decode(p);
            let fam = match ours {
                Decoded::Inst(i) => i.family.name(),
                _ => "invalid",
            };
            let ok = match (ours, r) {
                (Decoded::Unknown | Decoded::Truncated { .. }, None) => true,
                (Decoded::Inst(i), Some((m, len))) => {
                    i.mnemonic.as_str() == m && len.is_none_or(|l| l == usize::from(i.len))
                }
                _ => false,
            };
            total += 1;
            if !ok {
                let k = match (ours, r) {
                    (Decoded::Inst(_), None) => 0,
                    (_, Some(_)) if ours.inst().is_none() => 1,
                    (Decoded::Inst(i), Some((m, _))) if i.mnemonic.as_str() != m => 2,
                    _ => 3,
                };
                kinds[k] += 1;
            }
            let e = per_family.entry(fam).or_default();
            e.1 += 1;
            if ok {
                agree += 1;
                e.0 += 1;
            } else if examples.len() < 8
                && std::env::var("ROCPATH_DIFF_FAMILY").is_ok_and(|f| f == fam)
                    == std::env::var("ROCPATH_DIFF_FAMILY").is_ok()
                && (std::env::var("ROCPATH_DIFF_LENGTH").is_err()
                    || ours.inst().is_some() && r.is_some())
            {
                let w: Vec<String> = p
                    .chunks(4)
                    .map(|c| format!("{:08X}", u32::from_le_bytes(c.try_into().unwrap())))
                    .collect();
                examples.push(format!(
                    "  {}: rocpath {:?} llvm {:?}",
                    w.join(" "),
                    ours.inst().map(|i| (i.mnemonic.as_str(), i.len)),
                    r
                ));
            }
        }
        println!(
            "{cpu}: {agree}/{total} agree ({:.2}%); disagreements: {} valid here/invalid in LLVM, \
             {} invalid here/valid in LLVM, {} other mnemonic, {} other length",
            100.0 * agree as f64 / total as f64,
            kinds[0],
            kinds[1],
            kinds[2],
            kinds[3]
        );
        for (f, (a, t)) in &per_family {
            println!("  {f:<8} {a}/{t} ({:.1}%)", 100.0 * *a as f64 / *t as f64);
        }
        for e in examples {
            println!("{e}");
        }
    }
}
