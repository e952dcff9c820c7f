//! `codegen-isa`: build the AMDGPU opcode tables of `rocpath-isa` by asking LLVM's disassembler.
//!
//! For every processor and every encoding format of its generation (see `layout.rs`), the
//! generator enumerates the table key (opcode field plus the few bits that change the mnemonic)
//! and each sub-index (SDWA/DPP/DPP8 forms), fills the other fields from a list of representative
//! operand templates, and disassembles all probes with one `llvm-mc --disassemble` run per round.
//! A probe's length comes from the encoding llvm-mc prints; failed words come from its warnings.
//! Literal operands are found by setting each source field to 255 and checking that the length
//! grows by 4 bytes. Identical tables are shared between processors.

use crate::classify::{class_of, signals_of};
use crate::layout::{Format, Gen, Sub, entry, layout};
use anyhow::{Context, Result, bail};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Processors to generate, with their generation. Order is the output order.
const CPUS: &[(&str, Gen)] = &[
    ("gfx801", Gen::Gfx8),
    ("gfx802", Gen::Gfx8),
    ("gfx803", Gen::Gfx8),
    ("gfx805", Gen::Gfx8),
    ("gfx810", Gen::Gfx8),
    ("gfx900", Gen::Gfx9),
    ("gfx902", Gen::Gfx9),
    ("gfx904", Gen::Gfx9),
    ("gfx906", Gen::Gfx9),
    ("gfx908", Gen::Gfx9),
    ("gfx909", Gen::Gfx9),
    ("gfx90a", Gen::Gfx9),
    ("gfx90c", Gen::Gfx9),
    ("gfx942", Gen::Gfx9),
    ("gfx950", Gen::Gfx9),
    ("gfx9-generic", Gen::Gfx9),
    ("gfx9-4-generic", Gen::Gfx9),
    ("gfx1010", Gen::Gfx10),
    ("gfx1011", Gen::Gfx10),
    ("gfx1012", Gen::Gfx10),
    ("gfx1013", Gen::Gfx10),
    ("gfx1030", Gen::Gfx10),
    ("gfx1031", Gen::Gfx10),
    ("gfx1032", Gen::Gfx10),
    ("gfx1033", Gen::Gfx10),
    ("gfx1034", Gen::Gfx10),
    ("gfx1035", Gen::Gfx10),
    ("gfx1036", Gen::Gfx10),
    ("gfx10-1-generic", Gen::Gfx10),
    ("gfx10-3-generic", Gen::Gfx10),
    ("gfx1100", Gen::Gfx11),
    ("gfx1101", Gen::Gfx11),
    ("gfx1102", Gen::Gfx11),
    ("gfx1103", Gen::Gfx11),
    ("gfx1150", Gen::Gfx11),
    ("gfx1151", Gen::Gfx11),
    ("gfx1152", Gen::Gfx11),
    ("gfx1153", Gen::Gfx11),
    ("gfx11-generic", Gen::Gfx11),
    ("gfx1200", Gen::Gfx12),
    ("gfx1201", Gen::Gfx12),
    ("gfx12-generic", Gen::Gfx12),
];

/// Literal value used when probing literal operands (not an inline constant either).
const LITERAL: u32 = 0x1234_5678;

/// SDWA extra dwords to try (src0 v4; sels DWORD/WORD_1; VOP1 forms need src1_sel 0).
const SDWA_WORDS: &[u32] = &[
    0x0006_0604,
    0x0606_0604,
    0x0605_1604,
    0x0006_0004,
    0x0606_0004,
    0x0000_0004,
];
/// DPP16 extra dwords to try (src0 v4, quad_perm identity / row_shr:1, all rows and banks).
const DPP16_WORDS: &[u32] = &[0xff00_e404, 0xff08_e404, 0xff01_1104, 0x0000_e404];
/// DPP8 extra dwords to try (src0 v4, identity lane selects).
const DPP8_WORDS: &[u32] = &[0xfac6_8804, 0x0000_0004];

/// VOP3-style second dword with src0/src1/src2 = the given 9-bit operand codes.
const fn srcs(a: u32, b: u32, c: u32) -> u32 {
    a | (b << 9) | (c << 18)
}

/// Representative operand templates for a format (first valid one wins). The key fields are
/// overwritten. Mostly real encodings seen in shipped code objects, plus regular synthetic ones.
fn templates(g: Gen, name: &str) -> Vec<Vec<u32>> {
    let t = |v: &[&[u32]]| v.iter().map(|x| x.to_vec()).collect::<Vec<_>>();
    let gfx9 = matches!(g, Gen::Gfx8 | Gen::Gfx9);
    match name {
        "sop1" => t(&[
            &[0xbe84_0006],
            &[0xbe80_0080],
            &[0xbe80_001e],
            &[0xbe80_0000],
        ]),
        "sopc" => t(&[&[0xbf00_0604], &[0xbf00_8004], &[0xbf00_0000]]),
        "sopp" => t(&[&[0xbf80_0000], &[0xbf80_0001], &[0xbf80_0007]]),
        "sopk" => t(&[
            &[0xb004_0010],
            &[0xb000_0000],
            &[0xb07c_0000],
            &[0xb004_1801],
        ]),
        "sop2" => t(&[&[0x8084_0806], &[0x8080_8006], &[0x8000_0000]]),
        "smem" if gfx9 => t(&[
            &[0xc002_0002, 0x0000_0024],
            &[0xc00a_0402, 0x0000_0030],
            &[0xc006_0100, 0x0000_0020],
            &[0xc000_0000, 0x0000_0000],
            &[0xc002_0202, 0x0000_0000],
            &[0xc006_4002, 0x0600_0000],
        ]),
        "smem" if g == Gen::Gfx12 => t(&[
            &[0xf400_0100, 0xf800_002c],
            &[0xf400_4100, 0xf800_0000],
            &[0xf400_2080, 0xf800_0018],
            &[0xf400_0000, 0xf800_0000],
            &[0xf400_0000, 0x0000_0000],
        ]),
        "smem" if g == Gen::Gfx11 => t(&[
            &[0xf400_0100, 0xf800_0054],
            &[0xf408_0400, 0xf800_0030],
            &[0xf404_0080, 0xf800_0040],
            &[0xf400_0000, 0xf800_0000],
            &[0xf400_0000, 0x0000_0000],
        ]),
        "smem" => t(&[
            &[0xf400_0082, 0xfa00_0024],
            &[0xf408_0402, 0xfa00_0030],
            &[0xf404_0082, 0xfa00_0040],
            &[0xf400_0000, 0xfa00_0000],
            &[0xf400_0000, 0x0000_0000],
        ]),
        "vopc" => t(&[
            &[0x7c00_0d04],
            &[0x7c00_0c80],
            &[0x7c00_0c04],
            &[0x7c00_0d00],
        ]),
        "vop1" => t(&[
            &[0x7e04_0104],
            &[0x7e04_0004],
            &[0x7e04_0080],
            &[0x7e00_0100],
        ]),
        "vop2" => t(&[
            &[0x0004_0d04],
            &[0x0004_0c04],
            &[0x0004_0c80],
            &[0x0000_0100],
        ]),
        "vop3p" if gfx9 => t(&[
            &[0xd380_4002, srcs(0x104, 0x106, 0x108) | (3 << 27)],
            &[0xd3d8_401e, 0x1800_01a0],
            &[0xd3d9_40ff, 0x1800_0080],
            &[0xd3e7_8000, 0x0402_0900],
            &[0xd3e1_0020, 0x1c82_0140],
            &[0xd3f3_0058, 0x0a02_a100],
            &[0xd3cc_0000, 0x0402_0500],
            &[0xd380_0000, srcs(0x100, 0x104, 0x108)],
            &[0xd380_8000, srcs(0x100, 0x104, 0x100)],
            &[0xd380_0000, srcs(0x100, 0x108, 0x110)],
            &[0xd380_8000, srcs(0x100, 0x108, 0x100)],
            &[0xd3b0_4080, 0x1e02_71a0],
            &[0xd3b3_5004, 0x1800_140a],
            &[0xd3ad_8c00, 0x8402_194c],
        ]),
        "vop3p" => t(&[
            &[0xcc00_4002, srcs(0x104, 0x106, 0x108) | (3 << 27)],
            &[0xcc21_0005, 0x0202_0b02],
            &[0xcc40_4000, 0x1c02_2108],
            &[0xcc40_4000, 0x1c02_1908],
            &[0xcc40_4000, 0x1c02_1108],
            &[0xcc00_0000, srcs(0x108, 0x110, 0x100)],
            &[0xcc00_0000, srcs(0x108, 0x10c, 0x100)],
            &[0xcc00_4000, srcs(0x108, 0x10c, 0x110) | (3 << 27)],
            &[0xcc00_0000, srcs(0x104, 0x106, 0x108)],
        ]),
        "vop3" if gfx9 => t(&[
            &[0xd000_0002, srcs(0x104, 0x106, 0x108)],
            &[0xd000_0002, srcs(4, 0x106, 0x108)],
            &[0xd000_0004, srcs(0x104, 0x106, 0x104)],
            &[0xd1e8_0640, 0x0408_0707],
            &[0xd28f_0004, 0x0002_0081],
            &[0xd0c9_0028, 0x0002_7d74],
            &[0xd119_000a, 0x0002_0a82],
            &[0xd000_0000, 0x0000_0000],
            &[0xd000_0002, srcs(0x104, 0x104, 0x104)],
        ]),
        "vop3" => t(&[
            &[0xd400_0002, srcs(0x104, 0x106, 0x108)],
            &[0xd400_0002, srcs(4, 0x106, 0x108)],
            &[0xd400_0004, srcs(0x104, 0x106, 0x104)],
            &[0xd70f_6a03, 0x0002_000c],
            &[0xd576_0600, 0x0400_0c07],
            &[0xd494_007e, 0x0002_0b04],
            &[0xd501_000a, 0x01a9_8280],
            &[0xd45a_0000, 0x0002_2206],
            &[0xd400_0000, 0x0000_0000],
            &[0xd400_0002, srcs(0x104, 0x104, 0x104)],
            &[0xd400_007e, srcs(0x104, 0x106, 0x108)],
        ]),
        "vopd" => t(&[
            &[0xc800_0104, 0x0100_0106],
            &[0xc800_0011, 0x0000_0010],
            &[0xc800_0d04, 0x0100_0106],
            &[0xc800_0104, 0x0100_0d06],
            &[0xca12_0102, 0x0100_0700],
            &[0xc800_1b0f, 0x0d0e_1d10],
            &[0xc8e0_0700, 0x0000_0205],
            &[0xca52_130c, 0x0000_150d],
            &[0xc800_0d04, 0x0102_0d08],
            &[0xc800_0d04, 0x0003_0d08],
        ]),
        "vintrp" => t(&[
            &[0xd408_0102],
            &[0xc808_0102],
            &[0xd400_0000],
            &[0xc800_0000],
        ]),
        "vinterp" => t(&[&[0xcd00_0000, srcs(0x101, 0x102, 0x103)], &[0xcd00_0000, 0]]),
        "ldsdir" => t(&[&[0xce00_0001], &[0xce00_0000]]),
        "ds" => t(&[
            &[0xd800_0000, 0x0806_0402],
            &[0xd878_0000, 0x0700_0003],
            &[0xd87e_0004, 0x0500_0500],
            &[0xd86e_1000, 0x1000_000a],
            &[0xd81a_4400, 0x0000_c80d],
            &[0xd9be_0000, 0x0000_2015],
            &[0xdbfe_0000, 0x0000_0015],
            &[0xd8d8_0000, 0x0700_0005],
            &[0xd834_0000, 0x0000_0204],
            &[0xd800_0000, 0x0000_0000],
            &[0xd800_0000, 0x0800_0402],
            &[0xd800_0000, 0x0808_0402],
        ]),
        "flat" if gfx9 => t(&[
            &[0xdc00_0000, 0x067f_0402],
            &[0xdc50_8000, 0x072c_0038],
            &[0xdc50_0000, 0x0800_0006],
            &[0xdc70_8000, 0x007f_0306],
            &[0xdc74_8000, 0x007f_0608],
            &[0xdc00_0000, 0x0800_0406],
            &[0xdc00_0000, 0x0000_0000],
            &[0xdc00_0000, 0x007f_0000],
        ]),
        "flat" if g == Gen::Gfx10 => t(&[
            &[0xdc00_0000, 0x067d_0402],
            &[0xdc30_8000, 0x037d_0008],
            &[0xdc70_8000, 0x007d_0306],
            &[0xdc34_8000, 0x067d_0008],
            &[0xdc00_0000, 0x0800_0406],
            &[0xdc00_0000, 0x0000_0000],
            &[0xdc00_0000, 0x007d_0000],
        ]),
        "flat" => t(&[
            &[0xdc00_0000, 0x067c_0402],
            &[0xdc52_0000, 0x037c_0008],
            &[0xdc6a_0000, 0x007c_0306],
            &[0xdc5e_1fe0, 0x067c_0004],
            &[0xdc00_0000, 0x0800_0406],
            &[0xdc00_0000, 0x0000_0000],
            &[0xdc00_0000, 0x007c_0000],
        ]),
        "mubuf" => t(&[
            &[0xe000_0000, 0x8001_0402],
            &[0xe051_1000, 0x8001_000d],
            &[0xe070_1000, 0x8002_7008],
            &[0xe134_2100, 0x8008_8c07],
            &[0xe050_0000, 0x8042_0611],
            &[0xe000_0000, 0x0000_0000],
            &[0xe000_2000, 0x8001_0402],
            &[0xe000_0000, 0x8001_0400],
        ]),
        "mtbuf" => t(&[
            &[0xe800_0000, 0x8001_0402],
            &[0xe900_0000, 0x8001_0402],
            &[0xea00_0000, 0x8001_0402],
            &[0xebf8_0000, 0x8001_0402],
            &[0xe800_0000, 0x0000_0000],
        ]),
        "mimg" if gfx9 => t(&[
            &[0xf000_0f00, 0x0002_0402],
            &[0xf000_0f00, 0x0022_0402],
            &[0xf020_5f00, 0x0001_050f],
            &[0xf000_5f00, 0x0004_0707],
            &[0xf000_0100, 0x0002_0402],
            &[0xf000_0000, 0x0000_0000],
        ]),
        "mimg" if g == Gen::Gfx10 => {
            let mut v = Vec::new();
            for ssamp in [0u32, 0x0020_0000] {
                for dim in 0..8u32 {
                    v.push(vec![
                        0xf000_0f00 | (dim << 3),
                        0x0002_0402 | ssamp,
                        0x0706_0503,
                        0x0b0a_0908,
                        0x0f0e_0d0c,
                    ]);
                }
            }
            v.push(vec![0xf000_0000, 0, 0x0706_0503, 0x0b0a_0908, 0x0f0e_0d0c]);
            v
        }
        "mimg" => {
            let mut v = Vec::new();
            for ssamp in [0u32, 0x0020_0000] {
                for dim in 0..8u32 {
                    v.push(vec![
                        0xf000_0f00 | (dim << 2),
                        0x0002_0402 | ssamp,
                        0x0706_0503,
                    ]);
                }
            }
            v.push(vec![0xf000_0f94, 0x0001_000b, 0x0706_0503]);
            v.push(vec![0xf000_0000, 0, 0]);
            v
        }
        "exp" if gfx9 => t(&[&[0xc400_000f, 0x0302_0100], &[0xc400_0000, 0]]),
        "exp" => t(&[&[0xf800_000f, 0x0302_0100], &[0xf800_0000, 0]]),
        "vbuffer" => t(&[
            &[0xc405_007c, 0x4080_3014, 0x0000_0010],
            &[0xc406_807c, 0x4080_3806, 0x0000_0010],
            &[0xc400_c07c, 0x8080_0000, 0x0000_0000],
            &[0xc420_0002, 0x0b00_0801, 0x0000_0000],
            &[0xc400_007c, 0x4080_0000, 0x0000_0000],
            &[0xc400_0000, 0x0000_0000, 0x0000_0000],
        ]),
        "vimage" => t(&[
            &[0xd3c0_0005, 0x0000_0800, 0x000d_0c0b],
            &[0xd3c1_8005, 0x0000_080f, 0x000d_0c0b],
            &[0xd000_0000, 0x0000_0800, 0x000d_0c0b],
            &[0xd000_0004, 0x0000_0800, 0x0000_0c0b],
            &[0xd000_0000, 0x0000_0000, 0x0000_0000],
        ]),
        "vsample" => t(&[
            &[0xe7c6_c001, 0x0400_0000, 0x0000_0504],
            &[0xe400_c001, 0x0400_0000, 0x0000_0504],
            &[0xe400_c000, 0x0400_0000, 0x0000_0004],
            &[0xe400_c002, 0x0400_0000, 0x0006_0504],
            &[0xe400_0000, 0x0000_0000, 0x0000_0000],
        ]),
        "vflat" => t(&[
            &[0xee05_007c, 0x0000_0008, 0xffff_fe02],
            &[0xee06_807c, 0x0300_0000, 0x0000_0001],
            &[0xec05_007c, 0x0000_0001, 0x0000_0002],
            &[0xed05_007c, 0x0000_0001, 0x0000_0000],
            &[0xec00_007c, 0x0300_0001, 0x0000_0002],
            &[0xec00_0000, 0x0000_0000, 0x0000_0000],
        ]),
        _ => Vec::new(),
    }
}

/// Probe outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Valid {
        mnemonic: String,
        len: usize,
    },
    Invalid,
    /// Decoded, but the length could not be established from this probe.
    Uncertain,
}

struct Mc {
    program: String,
    dir: PathBuf,
    runs: usize,
}

impl Mc {
    fn version(&self) -> Result<String> {
        let out = Command::new(&self.program)
            .arg("--version")
            .output()
            .with_context(|| format!("running {}", self.program))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let v = text
            .split_whitespace()
            .skip_while(|w| *w != "version")
            .nth(1)
            .context("no version in llvm-mc --version")?;
        Ok(v.to_string())
    }

    /// Disassemble every probe in one llvm-mc run. Each probe sits on its own line, followed by
    /// `MARKS` copies of a marker word `s_nop <m>` whose immediate differs from the previous
    /// line's. The markers split llvm-mc's output into lines, and the number of markers left
    /// tells how many bytes after the probe the instruction consumed (its literal), without
    /// trusting the re-encoded length.
    fn run(&mut self, cpu: &str, probes: &[Vec<u8>]) -> Result<Vec<Outcome>> {
        self.run_split(cpu, probes, true)
    }

    /// llvm-mc can crash while re-encoding some instructions for `-show-encoding`; then the
    /// batch is split in halves, and a single crashing probe is run without `-show-encoding`.
    fn run_split(&mut self, cpu: &str, probes: &[Vec<u8>], show: bool) -> Result<Vec<Outcome>> {
        match self.run_once(cpu, probes, show)? {
            Some(v) => Ok(v),
            None if probes.len() == 1 && show => self.run_split(cpu, probes, false),
            None if probes.len() == 1 => Ok(vec![Outcome::Invalid]),
            None => {
                let (a, b) = probes.split_at(probes.len() / 2);
                let mut v = self.run_split(cpu, a, show)?;
                v.extend(self.run_split(cpu, b, show)?);
                Ok(v)
            }
        }
    }

    /// One llvm-mc run; `None` if llvm-mc crashed.
    fn run_once(
        &mut self,
        cpu: &str,
        probes: &[Vec<u8>],
        show: bool,
    ) -> Result<Option<Vec<Outcome>>> {
        const MARKS: usize = 4;
        if probes.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let mark_of = |i: usize| 0x100 + (i % 0x7000) as u32;
        let mut text = String::new();
        for (i, p) in probes.iter().enumerate() {
            let mut bytes = p.clone();
            for _ in 0..MARKS {
                bytes.extend_from_slice(&(0xbf80_0000 | mark_of(i)).to_le_bytes());
            }
            for (k, b) in bytes.iter().enumerate() {
                if k > 0 {
                    text.push(' ');
                }
                let _ = write!(text, "0x{b:02x}");
            }
            text.push('\n');
        }
        self.runs += 1;
        let path = self
            .dir
            .join(format!("probe-{}-{}.txt", std::process::id(), self.runs));
        std::fs::write(&path, &text)?;
        let mut cmd = Command::new(&self.program);
        cmd.args([
            "--disassemble",
            "-triple=amdgcn-amd-amdhsa",
            &format!("-mcpu={cpu}"),
        ]);
        if show {
            cmd.arg("-show-encoding");
        }
        let out = cmd
            .arg(&path)
            .output()
            .with_context(|| format!("running {}", self.program))?;
        if std::env::var_os("ROCPATH_KEEP_PROBES").is_none() {
            let _ = std::fs::remove_file(&path);
        }
        if !out.status.success() {
            return Ok(None);
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Failed words per line (0-based line, byte column).
        let mut fails: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        for l in stderr.lines() {
            if let Some(rest) = l.strip_suffix(": warning: invalid instruction encoding") {
                let mut it = rest.rsplit(':');
                let col: usize = it.next().context("col")?.parse()?;
                let line: usize = it.next().context("line")?.parse()?;
                fails.entry(line - 1).or_default().insert((col - 1) / 5);
            } else if l.contains(": error:") {
                bail!("llvm-mc error for {cpu}: {l}");
            }
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        // (mnemonic, encoding bytes, marker immediate if this is a marker)
        let mut items: Vec<(String, Vec<u8>, Option<u32>)> = Vec::new();
        for l in stdout.lines() {
            let Some(body) = l.strip_prefix('\t') else {
                continue;
            };
            if body.starts_with(".amdgcn_target") {
                continue;
            }
            let (asm, enc) = match body.split_once("; encoding: [") {
                Some(x) => x,
                None if !show => (body, ""),
                None => bail!("no encoding in llvm-mc output line {l:?}"),
            };
            let bytes: Vec<u8> = enc
                .trim_end_matches(']')
                .split(',')
                .filter_map(|s| {
                    let s = s.trim();
                    u8::from_str_radix(s.trim_start_matches("0x"), 16).ok()
                })
                .collect();
            let mut words = asm.split_whitespace();
            let mnemonic = words.next().unwrap_or("").to_string();
            let mark = if mnemonic == "s_nop" {
                words.next().and_then(|v| {
                    if let Some(h) = v.strip_prefix("0x") {
                        u32::from_str_radix(h, 16).ok()
                    } else {
                        v.parse().ok()
                    }
                })
            } else {
                None
            };
            let mark = mark.filter(|&m| m >= 0x100);
            items.push((mnemonic, bytes, mark));
        }
        // Split items into lines at marker runs.
        let mut out_v = Vec::with_capacity(probes.len());
        let mut k = 0usize;
        for (i, p) in probes.iter().enumerate() {
            let m = mark_of(i);
            let mut body: Vec<&(String, Vec<u8>, Option<u32>)> = Vec::new();
            while k < items.len() && items[k].2 != Some(m) {
                body.push(&items[k]);
                k += 1;
            }
            let mut marks = 0;
            while k < items.len() && items[k].2 == Some(m) {
                marks += 1;
                k += 1;
            }
            if marks == 0 {
                bail!(
                    "{cpu}: lost line {i} in llvm-mc output ({})",
                    path.display()
                );
            }
            let line_fails = fails.get(&i);
            if line_fails.is_some_and(|f| f.contains(&0)) {
                out_v.push(Outcome::Invalid);
                continue;
            }
            let Some(first) = body.first() else {
                out_v.push(Outcome::Invalid);
                continue;
            };
            let consumed = p.len() + 4 * (MARKS - marks);
            let exact = body.len() == 1 && line_fails.is_none_or(|f| f.is_empty());
            if exact {
                out_v.push(Outcome::Valid {
                    mnemonic: first.0.clone(),
                    len: consumed,
                });
            } else if !first.1.is_empty() && p.starts_with(&first.1) {
                out_v.push(Outcome::Valid {
                    mnemonic: first.0.clone(),
                    len: first.1.len(),
                });
            } else {
                out_v.push(Outcome::Uncertain);
            }
        }
        Ok(Some(out_v))
    }
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn q_of(words: &[u32]) -> u64 {
    u64::from(words.first().copied().unwrap_or(0))
        | (u64::from(words.get(1).copied().unwrap_or(0)) << 32)
}

fn set_q(words: &mut Vec<u32>, q: u64) {
    while words.len() < 2 {
        words.push(0);
    }
    words[0] = q as u32;
    words[1] = (q >> 32) as u32;
}

/// Full templates of a format for one sub-index: the base templates, with the SDWA/DPP/DPP8
/// source code and extra dword applied for sub-indices above 0.
fn sub_templates(base: &[Vec<u32>], f: &Format, sub: usize) -> Vec<Vec<u32>> {
    let (code, words, dw): (u32, &[u32], usize) = match (f.sub, sub) {
        (_, 0) => return base.to_vec(),
        (Sub::Src0 { .. }, 1) => (0xf9, SDWA_WORDS, 0),
        (Sub::Src0 { .. }, 2) => (0xfa, DPP16_WORDS, 0),
        (Sub::Src0 { .. }, _) => (0xe9, DPP8_WORDS, 0),
        (Sub::Vop3Dpp, 1) => (0xfa, DPP16_WORDS, 1),
        (Sub::Vop3Dpp, _) => (0xe9, DPP8_WORDS, 1),
        (Sub::None, _) => return Vec::new(),
    };
    let mut out = Vec::new();
    for &word in words {
        for b in base {
            let mut w = b.clone();
            w.resize(dw + 1, 0);
            w[dw] = (w[dw] & !0x1ff) | code;
            w.push(word);
            out.push(w);
        }
    }
    out
}

/// Build the probe words for `key` from a full template, or `None` if the result would not be
/// classified back into the same format, key and sub-index.
fn probe_words(
    g: Gen,
    fi: usize,
    f: &Format,
    tmpl: &[u32],
    key: usize,
    sub: usize,
) -> Option<Vec<u32>> {
    let mut w = tmpl.to_vec();
    let q = f.with_key(q_of(&w), key);
    let single = w.len() == 1;
    set_q(&mut w, q);
    if single {
        w.truncate(1);
    }
    // MIMG with NSA: exactly as many address dwords as the NSA field says, so the probe's
    // length is measured exactly.
    if f.family == crate::layout::Family::Mimg {
        let extra = match g {
            Gen::Gfx10 => ((q >> 1) & 3) as usize,
            Gen::Gfx11 => (q & 1) as usize,
            _ => 0,
        };
        w.truncate(2);
        w.extend_from_slice(&[0x0706_0503, 0x0b0a_0908, 0x0f0e_0d0c][..extra]);
    }
    let lay = layout(g);
    let q = q_of(&w);
    if lay.format_of(w[0]) != Some(fi) || f.sub.of(q) != sub || f.key_of(q) != key {
        return None;
    }
    Some(w)
}

/// Tables of one processor: one dense table per format, plus the gfx950 scaled-MFMA table.
struct CpuTables {
    tables: Vec<Table>,
    px2: Option<(usize, Table)>,
    /// How LLVM decodes the all-zero word, if not as the VOP2 table says.
    zero: Option<(u16, u8, u8)>,
    /// Reserved source-operand codes, by `format * 3 + literal field`: codes LLVM rejects for
    /// every sampled opcode of the format.
    reserved: Vec<[u64; 8]>,
}

/// Entries `(mnemonic index into Names, dwords, litmask)`; dwords 0 = invalid.
type Table = Vec<(u16, u8, u8)>;

/// A decoder variant: generation, table index per format, gfx950 `(prefix key, table index)`.
type VariantDef = (Gen, Vec<usize>, Option<(usize, usize)>, u32, usize);

struct Names {
    list: Vec<String>,
    index: HashMap<String, u16>,
}

impl Names {
    fn id(&mut self, m: &str) -> u16 {
        if let Some(&i) = self.index.get(m) {
            return i;
        }
        let i = self.list.len() as u16;
        self.list.push(m.to_string());
        self.index.insert(m.to_string(), i);
        i
    }
}

fn gen_cpu(mc: &mut Mc, cpu: &str, g: Gen, names: &mut Names) -> Result<CpuTables> {
    let lay = layout(g);
    let mut tables: Vec<Vec<(u16, u8, u8)>> = lay
        .formats
        .iter()
        .map(|f| vec![(0, 0, 0); f.table_len()])
        .collect();
    // Pending work: (format, key, sub).
    let mut pending: Vec<(usize, usize, usize)> = Vec::new();
    for (fi, f) in lay.formats.iter().enumerate() {
        for key in 0..(1usize << f.key_bits()) {
            for sub in 0..f.sub.count() {
                pending.push((fi, key, sub));
            }
        }
    }
    let tmpls: Vec<Vec<Vec<Vec<u32>>>> = lay
        .formats
        .iter()
        .map(|f| {
            let base = templates(g, f.name);
            (0..f.sub.count())
                .map(|sub| sub_templates(&base, f, sub))
                .collect()
        })
        .collect();
    // Base words of each valid entry (for the literal round).
    let mut base: HashMap<(usize, usize, usize), Vec<u32>> = HashMap::new();
    let mut work: Vec<((usize, usize, usize), usize)> =
        pending.into_iter().map(|p| (p, 0usize)).collect();
    let mut rounds = 0;
    while !work.is_empty() {
        rounds += 1;
        if rounds > 64 {
            bail!("{cpu}: probing does not converge");
        }
        let mut probes = Vec::new();
        let mut owners = Vec::new();
        let mut next = Vec::new();
        for ((fi, key, sub), t) in work {
            let f = &lay.formats[fi];
            let list = &tmpls[fi][sub];
            // Find the next template that yields a consistent probe.
            let mut t = t;
            let mut words = None;
            while t < list.len() {
                if let Some(w) = probe_words(g, fi, f, &list[t], key, sub) {
                    words = Some(w);
                    break;
                }
                t += 1;
            }
            let Some(w) = words else { continue };
            probes.push(to_bytes(&w));
            owners.push(((fi, key, sub), t, w));
        }
        let out = mc.run(cpu, &probes)?;
        for (o, (id, t, w)) in out.into_iter().zip(owners) {
            match o {
                Outcome::Valid { mnemonic, len } => {
                    if len % 4 != 0 || len > 60 {
                        bail!("{cpu}: odd length {len} for {mnemonic}");
                    }
                    let m = names.id(&mnemonic);
                    let (fi, key, sub) = id;
                    let idx = key * lay.formats[fi].sub.count() + sub;
                    tables[fi][idx] = (m, (len / 4) as u8, 0);
                    let mut bw = w.clone();
                    bw.truncate(len / 4);
                    base.insert(id, bw);
                }
                Outcome::Invalid | Outcome::Uncertain => next.push((id, t + 1)),
            }
        }
        work = next;
    }
    // Literal round(s): which source fields select a 32-bit literal.
    let mut lit_work: Vec<((usize, usize, usize), usize)> = Vec::new();
    for (&id, _) in base.iter() {
        let f = &lay.formats[id.0];
        for j in 0..f.lits.len() {
            lit_work.push((id, j));
        }
    }
    lit_work.sort_unstable();
    {
        let mut probes = Vec::new();
        let mut owners = Vec::new();
        for (id, j) in &lit_work {
            let (fi, key, sub) = *id;
            let f = &lay.formats[fi];
            let Some(bw) = base.get(id) else { continue };
            let mut w = bw.clone();
            let lo = f.lits[*j];
            let mask = ((1u64 << f.lit_width) - 1) << lo;
            let mut q = q_of(&w);
            let single = w.len() == 1;
            q = (q & !mask) | (0xff_u64 << lo);
            set_q(&mut w, q);
            if single {
                w.truncate(1);
            }
            if f.sub.of(q) != sub || f.key_of(q) != key || u32::from(lo) >= 32 * w.len() as u32 {
                continue;
            }
            w.push(LITERAL);
            probes.push(to_bytes(&w));
            owners.push((*id, *j));
        }
        let out = mc.run(cpu, &probes)?;
        for (o, (id, j)) in out.into_iter().zip(owners) {
            let (fi, key, sub) = id;
            let idx = key * lay.formats[fi].sub.count() + sub;
            let e = &mut tables[fi][idx];
            if let Outcome::Valid { len, .. } = o {
                if len == usize::from(e.1) * 4 + 4 {
                    e.2 |= 1 << j;
                }
            }
        }
    }
    // Reserved source codes: for each source field that can hold a literal, try every code on a
    // sample of opcodes; a code is reserved if LLVM rejects it for all of them.
    let mut reserved = vec![[0u64; 8]; 64];
    {
        let mut probes = Vec::new();
        let mut owners: Vec<(usize, usize, usize)> = Vec::new(); // (row, code, sample)
        let mut tried: HashMap<(usize, usize), (usize, usize)> = HashMap::new(); // (row, code) -> (probed, invalid)
        for (fi, f) in lay.formats.iter().enumerate() {
            for j in 0..f.lits.len() {
                let row = fi * 3 + j;
                let mut ids: Vec<&(usize, usize, usize)> = base
                    .keys()
                    .filter(|id| {
                        id.0 == fi
                            && id.2 == 0
                            && tables[fi][id.1 * f.sub.count()].2 & (1 << j) != 0
                    })
                    .collect();
                ids.sort_unstable();
                let step = (ids.len() / 16).max(1);
                for (si, id) in ids.into_iter().step_by(step).take(16).enumerate() {
                    let Some(bw) = base.get(id) else { continue };
                    let lo = f.lits[j];
                    let mask = ((1u64 << f.lit_width) - 1) << lo;
                    for code in 0..(1usize << f.lit_width) {
                        if code == 0xff {
                            continue;
                        }
                        let mut w = bw.clone();
                        let single = w.len() == 1;
                        let q = (q_of(&w) & !mask) | ((code as u64) << lo);
                        set_q(&mut w, q);
                        if single {
                            w.truncate(1);
                        }
                        if lay.format_of(w[0]) != Some(fi)
                            || f.sub.of(q) != 0
                            || f.key_of(q) != id.1
                        {
                            continue;
                        }
                        probes.push(to_bytes(&w));
                        owners.push((row, code, si));
                    }
                }
            }
        }
        let out = mc.run(cpu, &probes)?;
        for (o, (row, code, _)) in out.into_iter().zip(owners) {
            let e = tried.entry((row, code)).or_insert((0, 0));
            e.0 += 1;
            if matches!(o, Outcome::Invalid) {
                e.1 += 1;
            }
        }
        for ((row, code), (probed, invalid)) in tried {
            if probed > 0 && probed == invalid {
                reserved[row][code / 64] |= 1 << (code % 64);
            }
        }
    }
    // gfx950: v_mfma_ld_scale_b32 followed by an MFMA decodes as one 16-byte scaled MFMA.
    let mut px2 = None;
    if let Some(fi) = lay.formats.iter().position(|f| f.name == "vop3p") {
        if matches!(g, Gen::Gfx9) {
            let f = &lay.formats[fi];
            let ld = names.index.get("v_mfma_ld_scale_b32").copied();
            let prefix_key = ld.and_then(|m| {
                (0..(1usize << f.key_bits())).find(|&k| {
                    tables[fi][k * f.sub.count()].0 == m && tables[fi][k * f.sub.count()].1 != 0
                })
            });
            if let Some(pk) = prefix_key {
                let mut t = vec![(0u16, 0u8, 0u8); 128];
                let mut probes = Vec::new();
                for op2 in 0..128u32 {
                    let w0 = 0xd380_6000 | ((pk as u32) << 16);
                    probes.push(to_bytes(&[
                        w0,
                        0x0003_319c,
                        0xd380_8c00 | (op2 << 16),
                        0x8402_194c,
                    ]));
                }
                let out = mc.run(cpu, &probes)?;
                for (op2, o) in out.into_iter().enumerate() {
                    if let Outcome::Valid { mnemonic, len } = o {
                        if len == 16 {
                            t[op2] = (names.id(&mnemonic), 4, 0);
                        }
                    }
                }
                if t.iter().any(|e| e.1 != 0) {
                    px2 = Some((pk, t));
                }
            }
        }
    }
    // The all-zero word: some generations decode it as a dedicated instruction (`v_illegal`).
    let mut zero = None;
    if let Some(Outcome::Valid { mnemonic, len }) =
        mc.run(cpu, &[vec![0, 0, 0, 0]])?.into_iter().next()
    {
        if let Some(fi) = lay.format_of(0) {
            let f = &lay.formats[fi];
            let normal = tables[fi][f.index_of(0)];
            let m = names.id(&mnemonic);
            if normal.0 != m || usize::from(normal.1) * 4 != len || normal.1 == 0 {
                zero = Some((m, (len / 4) as u8, 0));
            }
        }
    }
    Ok(CpuTables {
        tables,
        px2,
        zero,
        reserved,
    })
}

fn gen_name(g: Gen) -> &'static str {
    match g {
        Gen::Gfx8 => "Gfx8",
        Gen::Gfx9 => "Gfx9",
        Gen::Gfx10 => "Gfx10",
        Gen::Gfx11 => "Gfx11",
        Gen::Gfx12 => "Gfx12",
    }
}

/// Run the generator and write `mnemonics.rs`, `tables.rs` and `mod.rs` into `out`.
pub fn codegen(out: &Path, only: Option<&str>) -> Result<()> {
    let tmp = std::env::temp_dir().join(format!("rocpath-codegen-isa-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let program = std::env::var("LLVM_MC").unwrap_or_else(|_| "llvm-mc-22".to_string());
    let mut mc = Mc {
        program,
        dir: tmp.clone(),
        runs: 0,
    };
    let version = mc.version()?;
    let mut names = Names {
        list: vec![".long".to_string(), ".byte".to_string()],
        index: HashMap::new(),
    };
    names.index.insert(".long".into(), 0);
    names.index.insert(".byte".into(), 1);
    let mut per_cpu = Vec::new();
    for &(cpu, g) in CPUS {
        if only.is_some_and(|o| o != cpu) {
            continue;
        }
        let t0 = std::time::Instant::now();
        let t = gen_cpu(&mut mc, cpu, g, &mut names)?;
        let valid: usize = t
            .tables
            .iter()
            .map(|x| x.iter().filter(|e| e.1 != 0).count())
            .sum();
        eprintln!("{cpu}: {valid} entries, {:.1}s", t0.elapsed().as_secs_f64());
        per_cpu.push((cpu, g, t));
    }
    let _ = std::fs::remove_dir_all(&tmp);

    // Deterministic mnemonic ids: sorted, with .long and .byte first.
    let mut sorted: Vec<String> = names.list.iter().skip(2).cloned().collect();
    sorted.sort();
    sorted.dedup();
    let mut final_names = vec![".long".to_string(), ".byte".to_string()];
    final_names.extend(sorted);
    let final_id: HashMap<&str, u16> = final_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u16))
        .collect();
    let remap = |tmp_id: u16| -> u16 {
        final_id
            .get(names.list[usize::from(tmp_id)].as_str())
            .copied()
            .unwrap_or(0)
    };

    // Pack and deduplicate tables.
    let mut table_ids: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
    let mut table_list: Vec<Vec<u32>> = Vec::new();
    let mut intern = |v: Vec<u32>| -> usize {
        if let Some(&i) = table_ids.get(&v) {
            return i;
        }
        let i = table_list.len();
        table_list.push(v.clone());
        table_ids.insert(v, i);
        i
    };
    let pack = |e: &(u16, u8, u8)| -> u32 {
        if e.1 == 0 {
            0
        } else {
            entry::pack(remap(e.0), e.1, e.2)
        }
    };
    let mut variants: Vec<VariantDef> = Vec::new();
    let mut reserved_list: Vec<Vec<[u64; 8]>> = Vec::new();
    let mut cpu_variant: Vec<(&str, usize)> = Vec::new();
    for (cpu, g, t) in &per_cpu {
        let ids: Vec<usize> = t
            .tables
            .iter()
            .map(|tb| intern(tb.iter().map(pack).collect()))
            .collect();
        let px2 = t
            .px2
            .as_ref()
            .map(|(k, tb)| (*k, intern(tb.iter().map(pack).collect())));
        let ri = match reserved_list.iter().position(|r| *r == t.reserved) {
            Some(i) => i,
            None => {
                reserved_list.push(t.reserved.clone());
                reserved_list.len() - 1
            }
        };
        let v = (*g, ids, px2, t.zero.as_ref().map_or(0, pack), ri);
        let vi = match variants.iter().position(|x| *x == v) {
            Some(i) => i,
            None => {
                variants.push(v);
                variants.len() - 1
            }
        };
        cpu_variant.push((cpu, vi));
    }

    let header = format!(
        "//! Generated by `cargo run -p xtask -- codegen-isa` from llvm-mc {version}; do not edit.\n"
    );
    // mnemonics.rs
    let mut m = header.clone();
    m.push_str("\nuse crate::classify::Class;\n\n");
    let _ = writeln!(
        m,
        "/// Number of mnemonics.\npub(crate) const COUNT: usize = {};\n",
        final_names.len()
    );
    m.push_str("/// Mnemonic text by id, as `llvm-objdump` prints it.\npub(crate) static NAMES: [&str; COUNT] = [\n");
    for n in &final_names {
        let _ = writeln!(m, "    {n:?},");
    }
    m.push_str("];\n\n/// Class by mnemonic id.\npub(crate) static CLASSES: [Class; COUNT] = [\n");
    for n in &final_names {
        let _ = writeln!(m, "    Class::{:?},", class_of(n));
    }
    m.push_str(
        "];\n\n/// Signal bits by mnemonic id.\npub(crate) static SIGNALS: [u8; COUNT] = [\n",
    );
    for chunk in final_names.chunks(24) {
        let row: Vec<String> = chunk.iter().map(|n| signals_of(n).to_string()).collect();
        let _ = writeln!(m, "    {},", row.join(", "));
    }
    m.push_str("];\n");

    // tables.rs
    let mut t = header.clone();
    t.push_str("\nuse crate::variant::{Variant, rows, sparse};\nuse crate::layout::Gen;\n\n");
    let _ = writeln!(
        t,
        "/// Fingerprint of the encoding layouts the tables were generated for.\npub(crate) const LAYOUT_FINGERPRINT: u64 = 0x{:016x};\n",
        crate::layout::fingerprint()
    );
    for (i, tb) in table_list.iter().enumerate() {
        let nz: Vec<(usize, u32)> = tb
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, e)| *e != 0)
            .collect();
        let _ = writeln!(t, "static T{i}: [u32; {}] = sparse(&[", tb.len());
        // Runs of equal consecutive entries are written as (start, count, value).
        let mut line = String::from("   ");
        let mut k = 0;
        while k < nz.len() {
            let (start, val) = nz[k];
            let mut n = 1;
            while k + n < nz.len() && nz[k + n].0 == start + n && nz[k + n].1 == val {
                n += 1;
            }
            let item = format!(" ({start}, {n}, 0x{val:x}),");
            if line.len() + item.len() > 99 {
                t.push_str(&line);
                t.push('\n');
                line = String::from("   ");
            }
            line.push_str(&item);
            k += n;
        }
        if !line.trim().is_empty() {
            t.push_str(&line);
            t.push('\n');
        }
        t.push_str("]);\n");
    }
    for (ri, rows) in reserved_list.iter().enumerate() {
        let _ = writeln!(t, "static R{ri}: [[u64; 8]; 64] = rows(&[");
        for (row, bits) in rows.iter().enumerate() {
            if bits.iter().any(|&b| b != 0) {
                let v: Vec<String> = bits.iter().map(|b| format!("0x{b:x}")).collect();
                let _ = writeln!(t, "    ({row}, [{}]),", v.join(", "));
            }
        }
        t.push_str("]);\n");
    }
    let _ = writeln!(
        t,
        "\n/// Decoder variants (processors with identical tables share one).\npub(crate) static VARIANTS: [Variant; {}] = [",
        variants.len()
    );
    for (g, ids, px2, zero, ri) in &variants {
        let list: Vec<String> = ids.iter().map(|i| format!("&T{i}")).collect();
        let px = match px2 {
            Some((k, i)) => format!("Some(({k}, &T{i}))"),
            None => "None".to_string(),
        };
        let _ = writeln!(
            t,
            "    Variant {{ gen_: Gen::{}, tables: &[{}], px2: {px}, zero: 0x{zero:x}, reserved: &R{ri} }},",
            gen_name(*g),
            list.join(", ")
        );
    }
    t.push_str("];\n\n/// Processor name to variant index.\n");
    let _ = writeln!(
        t,
        "pub(crate) static CPUS: [(&str, u8); {}] = [",
        cpu_variant.len()
    );
    for (c, v) in &cpu_variant {
        let _ = writeln!(t, "    ({c:?}, {v}),");
    }
    t.push_str("];\n");

    let mut modrs = header;
    modrs.push_str(
        "\n#[rustfmt::skip]\npub(crate) mod mnemonics;\n#[rustfmt::skip]\npub(crate) mod tables;\n",
    );
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("mnemonics.rs"), m)?;
    std::fs::write(out.join("tables.rs"), t)?;
    std::fs::write(out.join("mod.rs"), modrs)?;
    eprintln!(
        "{} mnemonics, {} tables, {} variants for {} processors ({} llvm-mc runs)",
        final_names.len(),
        table_list.len(),
        variants.len(),
        cpu_variant.len(),
        mc.runs
    );
    Ok(())
}
