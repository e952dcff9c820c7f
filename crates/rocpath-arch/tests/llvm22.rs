//! Checks the architecture table against the installed LLVM 22 tools (`llvm-mc-22`, `llc-22`,
//! `clang-22`).
//!
//! Every test returns early with a note when `llvm-mc-22` is not on PATH (fails under CI, which
//! installs LLVM 22); parts that need `llc-22` or `clang-22` are skipped the same way. The probes run
//! `llvm-mc-22` once per target and probe, spread over a few threads.

// Test helpers outside `#[test]` functions panic on tool failures and print skip notes.
#![allow(clippy::expect_used, clippy::print_stderr)]

use rocpath_arch::{Generation, Mfma, TARGETS, TargetFeature, TargetInfo, Wmma, by_mach, target};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const MC: &str = "llvm-mc-22";
const LLC: &str = "llc-22";
const CLANG: &str = "clang-22";
const TRIPLE: &str = "amdgcn-amd-amdhsa";
const THREADS: usize = 4;

/// True when `tool` runs; otherwise the test skips (`rocpath_testdata::missing`: a failure under
/// CI, which installs LLVM 22).
fn have(tool: &str, test: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        rocpath_testdata::missing(&format!(
            "{tool} is not on PATH (apt-get install llvm-22 clang-22); {test} skipped"
        ));
    }
    ok
}

/// Output of one tool run.
struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// Runs `cmd` with `input` on stdin.
fn run(cmd: &mut Command, input: &str) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tool");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for tool");
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn mc(cpu: &str, extra: &[&str], input: &str) -> Run {
    run(
        Command::new(MC)
            .arg(format!("-triple={TRIPLE}"))
            .arg(format!("-mcpu={cpu}"))
            .args(extra),
        input,
    )
}

/// Runs `f` on every item on a few threads and returns the results in item order.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(&items[i]);
                    results.lock().expect("lock")[i] = Some(r);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("lock")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// Collects mismatches and fails once with all of them.
fn report(test: &str, errors: Vec<String>) {
    assert!(
        errors.is_empty(),
        "{test}: {} mismatch(es) between the table and LLVM 22:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

fn temp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rocpath-arch-llvm22-{}-{tag}", std::process::id()))
}

#[test]
fn processor_names_equal_llc_cpu_list() {
    if !have(MC, "processor_names_equal_llc_cpu_list")
        || !have(LLC, "processor_names_equal_llc_cpu_list")
    {
        return;
    }
    let out = run(Command::new(LLC).args(["-march=amdgcn", "-mcpu=help"]), "");
    let text = format!("{}{}", out.stdout, out.stderr);
    // The CPU list runs from "Available CPUs" to the first blank line after it.
    let mut llc = BTreeSet::new();
    let mut in_cpus = false;
    for line in text.lines() {
        if line.starts_with("Available CPUs") {
            in_cpus = true;
            continue;
        }
        if in_cpus {
            let name = line.split_whitespace().next();
            match name {
                None if !llc.is_empty() => break,
                None => {}
                // Legacy aliases (tahiti, fiji, ...) and "generic"/"generic-hsa" are not gfx
                // processors and have no row.
                Some(n) if n.starts_with("gfx") => {
                    llc.insert(n.to_string());
                }
                Some(_) => {}
            }
        }
    }
    assert!(
        llc.len() > 40,
        "could not parse the CPU list of {LLC}:\n{text}"
    );
    let table: BTreeSet<String> = TARGETS.iter().map(|t| t.name.to_string()).collect();
    let missing: Vec<_> = llc.difference(&table).collect();
    let extra: Vec<_> = table.difference(&llc).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "processors LLVM 22 knows but the table lacks: {missing:?}; rows LLVM 22 does not know: {extra:?}"
    );
}

/// Parses the 64-byte ELF64 header and returns `e_flags`.
fn elf_flags(bytes: &[u8]) -> Result<u32, String> {
    if bytes.len() < 64 {
        return Err(format!(
            "object is {} bytes, shorter than an ELF64 header",
            bytes.len()
        ));
    }
    if bytes[0..4] != [0x7f, b'E', b'L', b'F'] {
        return Err("no ELF magic".into());
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        return Err(format!(
            "not ELF64 little-endian (class {}, data {})",
            bytes[4], bytes[5]
        ));
    }
    if bytes[7] != 64 {
        return Err(format!(
            "EI_OSABI {} is not ELFOSABI_AMDGPU_HSA (64)",
            bytes[7]
        ));
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if machine != 224 {
        return Err(format!("e_machine {machine} is not EM_AMDGPU (224)"));
    }
    Ok(u32::from_le_bytes([
        bytes[48], bytes[49], bytes[50], bytes[51],
    ]))
}

const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;

fn feature_in_elf(flags: u32, mask: u32) -> TargetFeature {
    if flags & mask == 0 {
        TargetFeature::Unsupported
    } else {
        TargetFeature::Supported
    }
}

#[test]
fn mach_and_e_flags_of_an_empty_object() {
    if !have(MC, "mach_and_e_flags_of_an_empty_object") {
        return;
    }
    let errors = par_map(TARGETS, |t| {
        let path = temp_path(&format!("{}.o", t.name));
        let path_arg = path.to_string_lossy().into_owned();
        let out = mc(t.name, &["-filetype=obj", "-o", &path_arg], "");
        let bytes = std::fs::read(&path).unwrap_or_default();
        let _ = std::fs::remove_file(&path);
        if !out.ok {
            return vec![format!("{}: {MC} failed: {}", t.name, out.stderr.trim())];
        }
        let flags = match elf_flags(&bytes) {
            Ok(f) => f,
            Err(e) => return vec![format!("{}: {e}", t.name)],
        };
        let mut errs = Vec::new();
        if flags & 0xff != t.mach {
            errs.push(format!(
                "{}: mach 0x{:03x} in the table, 0x{:03x} in e_flags",
                t.name,
                t.mach,
                flags & 0xff
            ));
        }
        // Code object v6 stores the generic version in bits 24-31; only generic targets set it.
        let is_generic = !t.covers.is_empty();
        if (flags >> 24 != 0) != is_generic {
            errs.push(format!(
                "{}: generic version {} in e_flags, but the row is generic: {is_generic}",
                t.name,
                flags >> 24
            ));
        }
        let x = feature_in_elf(flags, EF_AMDGPU_FEATURE_XNACK_V4);
        if x != t.elf_xnack {
            errs.push(format!(
                "{}: elf_xnack {:?} in the table, {x:?} in e_flags 0x{flags:x}",
                t.name, t.elf_xnack
            ));
        }
        let s = feature_in_elf(flags, EF_AMDGPU_FEATURE_SRAMECC_V4);
        if s != t.elf_sramecc {
            errs.push(format!(
                "{}: elf_sramecc {:?} in the table, {s:?} in e_flags 0x{flags:x}",
                t.name, t.elf_sramecc
            ));
        }
        if by_mach(flags & 0xff).map(|r| r.name) != Some(t.name) {
            errs.push(format!(
                "{}: by_mach(0x{:x}) does not find it",
                t.name,
                flags & 0xff
            ));
        }
        errs
    });
    report("mach", errors.into_iter().flatten().collect());
}

#[test]
fn isa_version_from_assembler_symbols() {
    if !have(MC, "isa_version_from_assembler_symbols") {
        return;
    }
    // The assembler defines these symbols from AMDGPU::getIsaVersion, the same numbers the
    // HSA runtime and HSA_OVERRIDE_GFX_VERSION use.
    let src = ".byte .amdgcn.gfx_generation_number, .amdgcn.gfx_generation_minor, .amdgcn.gfx_generation_stepping\n";
    let errors = par_map(TARGETS, |t| {
        let out = mc(t.name, &[], src);
        let bytes: Vec<u8> = out
            .stdout
            .lines()
            .filter_map(|l| l.trim().strip_prefix(".byte"))
            .filter_map(|v| v.trim().parse().ok())
            .collect();
        match bytes[..] {
            [a, b, c] if (a, b, c) == t.version => None,
            _ => Some(format!(
                "{}: version {:?} in the table, LLVM says {bytes:?} {}",
                t.name,
                t.version,
                out.stderr.trim()
            )),
        }
    });
    report("version", errors.into_iter().flatten().collect());
}

/// One instruction whose acceptance by the assembler shows a table column.
struct Probe {
    /// Short label for messages.
    label: &'static str,
    /// Assembly line.
    asm: &'static str,
    /// Mnemonics the assembler may print back for it (without `_e32`/`_e64`). A spelling not
    /// in this list means the assembler took the line as another instruction (an alias), which
    /// does not count.
    spellings: &'static [&'static str],
    /// Whether the table says the target has the instruction.
    expected: fn(&TargetInfo) -> bool,
}

fn has_dot(t: &TargetInfo, n: u8) -> bool {
    t.dot.contains(&n)
}

/// The probes. Spellings were taken from the feature descriptions in AMDGPU.td
/// (`FeatureDotNInsts`: "Has v_dot4_i32_i8 and v_dot8_i32_i4 instructions", ...) and
/// VOP3PInstructions.td / VOP2Instructions.td.
#[rustfmt::skip]
const PROBES: &[Probe] = &[
    // Dot1. On GFX11+ the assembler accepts `v_dot4_i32_i8` as an alias of `v_dot4_i32_iu8`
    // (a Dot8 instruction with the same opcode), so only the unchanged spelling counts.
    Probe { label: "dot1", asm: "v_dot4_i32_i8 v0, v1, v2, v3", spellings: &["v_dot4_i32_i8"], expected: |t| has_dot(t, 1) },
    Probe { label: "dot2", asm: "v_dot2_i32_i16 v0, v1, v2, v3", spellings: &["v_dot2_i32_i16"], expected: |t| has_dot(t, 2) },
    Probe { label: "dot3", asm: "v_dot8c_i32_i4 v0, v1, v2", spellings: &["v_dot8c_i32_i4"], expected: |t| has_dot(t, 3) },
    Probe { label: "dot4", asm: "v_dot2c_i32_i16 v0, v1, v2", spellings: &["v_dot2c_i32_i16"], expected: |t| has_dot(t, 4) },
    // Dot5. GFX11 prints v_dot2c_f32_f16 under its GFX11 name v_dot2acc_f32_f16.
    Probe { label: "dot5", asm: "v_dot2c_f32_f16 v0, v1, v2", spellings: &["v_dot2c_f32_f16", "v_dot2acc_f32_f16"], expected: |t| has_dot(t, 5) },
    Probe { label: "dot6", asm: "v_dot4c_i32_i8 v0, v1, v2", spellings: &["v_dot4c_i32_i8"], expected: |t| has_dot(t, 6) },
    Probe { label: "dot7", asm: "v_dot4_u32_u8 v0, v1, v2, v3", spellings: &["v_dot4_u32_u8"], expected: |t| has_dot(t, 7) },
    Probe { label: "dot8", asm: "v_dot4_i32_iu8 v0, v1, v2, v3", spellings: &["v_dot4_i32_iu8"], expected: |t| has_dot(t, 8) },
    Probe { label: "dot9", asm: "v_dot2_f16_f16 v0, v1, v2, v3", spellings: &["v_dot2_f16_f16"], expected: |t| has_dot(t, 9) },
    Probe { label: "dot10", asm: "v_dot2_f32_f16 v0, v1, v2, v3", spellings: &["v_dot2_f32_f16"], expected: |t| has_dot(t, 10) },
    Probe { label: "dot11", asm: "v_dot4_f32_fp8_fp8 v0, v1, v2, v3", spellings: &["v_dot4_f32_fp8_fp8"], expected: |t| has_dot(t, 11) },
    Probe { label: "dot12", asm: "v_dot2_f32_bf16 v0, v1, v2, v3", spellings: &["v_dot2_f32_bf16"], expected: |t| has_dot(t, 12) },
    Probe { label: "dot13", asm: "v_dot2c_f32_bf16 v0, v1, v2", spellings: &["v_dot2c_f32_bf16"], expected: |t| has_dot(t, 13) },
    // FeatureDLInsts ("Has v_fmac_f32 and v_xnor_b32"). Only distinguishing up to GFX9: from
    // GFX10 on both instructions are in the base ISA, and every GFX10+ row has dl_insts.
    Probe { label: "dl", asm: "v_xnor_b32 v0, v1, v2", spellings: &["v_xnor_b32"], expected: |t| t.dl_insts || t.generation >= Generation::Gfx10 },
    // MFMA, first generation: any MAI target. gfx940+ prints the renamed form.
    Probe {
        label: "mfma-cdna1",
        asm: "v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]",
        spellings: &["v_mfma_f32_32x32x1f32", "v_mfma_f32_32x32x1_2b_f32"],
        expected: |t| t.mfma.is_some(),
    },
    // FP64 MFMA with VGPR operands: FeatureGFX90AInsts.
    Probe {
        label: "mfma-cdna2",
        asm: "v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[0:1]",
        spellings: &["v_mfma_f64_4x4x4f64", "v_mfma_f64_4x4x4_4b_f64"],
        expected: |t| t.mfma >= Some(Mfma::Cdna2),
    },
    // Int8 16x16x32 MFMA and sparse SMFMAC: FeatureGFX940Insts.
    Probe {
        label: "mfma-cdna3",
        asm: "v_mfma_i32_16x16x32_i8 v[0:3], v[4:5], v[6:7], v[0:3]",
        spellings: &["v_mfma_i32_16x16x32_i8"],
        expected: |t| t.mfma >= Some(Mfma::Cdna3),
    },
    Probe {
        label: "smfmac",
        asm: "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10",
        spellings: &["v_smfmac_f32_16x16x32_f16"],
        expected: |t| t.mfma >= Some(Mfma::Cdna3),
    },
    // Double-width f16 MFMA: FeatureGFX950Insts.
    Probe {
        label: "mfma-cdna4",
        asm: "v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[0:3]",
        spellings: &["v_mfma_f32_16x16x32_f16"],
        expected: |t| t.mfma >= Some(Mfma::Cdna4),
    },
    Probe {
        label: "xf32",
        asm: "v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[0:3]",
        spellings: &["v_mfma_f32_16x16x8_xf32"],
        expected: |t| t.xf32,
    },
    // FP8 conversion (FeatureFP8ConversionInsts; every FeatureFP8Insts target has it too).
    Probe { label: "fp8", asm: "v_cvt_pk_fp8_f32 v0, v1, v2", spellings: &["v_cvt_pk_fp8_f32"], expected: |t| t.fp8 },
    // WMMA. The operand shapes differ by generation: GFX11 wave32 takes 8-VGPR A/B operands,
    // GFX12 4-VGPR ones. gfx1250 also accepts the GFX12 shape, so the GFX12 probe covers both.
    Probe {
        label: "wmma-gfx11",
        asm: "v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7]",
        spellings: &["v_wmma_f32_16x16x16_f16"],
        expected: |t| t.wmma == Some(Wmma::Gfx11),
    },
    Probe {
        label: "wmma-gfx12",
        asm: "v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]",
        spellings: &["v_wmma_f32_16x16x16_f16"],
        expected: |t| t.wmma >= Some(Wmma::Gfx12),
    },
    Probe {
        label: "wmma-gfx1250",
        asm: "v_wmma_f32_16x16x32_f16 v[0:7], v[8:15], v[16:23], v[0:7]",
        spellings: &["v_wmma_f32_16x16x32_f16"],
        expected: |t| t.wmma == Some(Wmma::Gfx1250),
    },
    Probe {
        label: "packed-fp32",
        asm: "v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]",
        spellings: &["v_pk_fma_f32"],
        expected: |t| t.packed_fp32,
    },
    // mix_insts is MadMix or FmaMix; no target has both, so exactly one of these two passes
    // on a target with mix_insts (checked separately below).
    Probe { label: "mad-mix", asm: "v_mad_mix_f32 v0, v1, v2, v3", spellings: &["v_mad_mix_f32"], expected: |_| true },
    Probe { label: "fma-mix", asm: "v_fma_mix_f32 v0, v1, v2, v3", spellings: &["v_fma_mix_f32"], expected: |_| true },
];

/// Assembles `probe` for `cpu`; true when accepted and printed back under one of its spellings.
fn probe_passes(cpu: &str, probe: &Probe) -> bool {
    let out = mc(cpu, &["-show-encoding"], &format!("{}\n", probe.asm));
    if !out.ok {
        return false;
    }
    out.stdout
        .lines()
        .filter(|l| l.contains("encoding:"))
        .filter_map(|l| l.split_whitespace().next())
        .any(|m| {
            let m = m
                .strip_suffix("_e32")
                .or_else(|| m.strip_suffix("_e64"))
                .unwrap_or(m);
            probe.spellings.contains(&m)
        })
}

#[test]
fn isa_features_by_assembler_probes() {
    if !have(MC, "isa_features_by_assembler_probes") {
        return;
    }
    let jobs: Vec<(&TargetInfo, &Probe)> = TARGETS
        .iter()
        .flat_map(|t| PROBES.iter().map(move |p| (t, p)))
        .collect();
    let passed = par_map(&jobs, |(t, p)| probe_passes(t.name, p));
    let mut errors = Vec::new();
    for t in TARGETS {
        let got = |label: &str| {
            jobs.iter()
                .zip(&passed)
                .find(|((jt, jp), _)| jt.name == t.name && jp.label == label)
                .map(|(_, ok)| *ok)
                .expect("probe ran")
        };
        for p in PROBES.iter().filter(|p| !p.label.ends_with("-mix")) {
            let want = (p.expected)(t);
            let ok = got(p.label);
            if ok != want {
                errors.push(format!(
                    "{}: probe {} (`{}`): table expects {want}, assembler says {ok}",
                    t.name, p.label, p.asm
                ));
            }
        }
        let mix = got("mad-mix") || got("fma-mix");
        if mix != t.mix_insts {
            errors.push(format!(
                "{}: mix_insts {} in the table, mad-mix/fma-mix probes say {mix}",
                t.name, t.mix_insts
            ));
        }
    }
    report("isa probes", errors);
}

#[test]
fn wavefront_sizes() {
    if !have(MC, "wavefront_sizes") {
        return;
    }
    // Default wave size of the assembler: the wave32 form of a VOPC with SGPR result only
    // assembles when the default is wave32.
    let defaults = par_map(TARGETS, |t| {
        mc(t.name, &["-show-encoding"], "v_cmp_eq_u32_e64 s0, v0, v1\n").ok
    });
    let mut errors = Vec::new();
    for (t, wave32_default) in TARGETS.iter().zip(defaults) {
        let want = t.wavefront_sizes.first() == Some(&32);
        if wave32_default != want {
            errors.push(format!("{}: default wave size {:?} in the table, assembler default wave32: {wave32_default}", t.name, t.wavefront_sizes.first()));
        }
    }
    // clang decides which wave sizes a processor allows: it rejects -mwavefrontsize64 where
    // wave64 is not available and ignores -mno-wavefrontsize64 where wave32 is not.
    if have(CLANG, "the clang part of wavefront_sizes") {
        let sizes = par_map(TARGETS, |t| {
            let mut set = BTreeSet::new();
            for opt in [
                None,
                Some("-mno-wavefrontsize64"),
                Some("-mwavefrontsize64"),
            ] {
                let mut cmd = Command::new(CLANG);
                cmd.args([
                    "-target",
                    TRIPLE,
                    &format!("-mcpu={}", t.name),
                    "-nogpulib",
                    "-S",
                    "-emit-llvm",
                    "-o",
                    "-",
                    "-x",
                    "c",
                    "-",
                ]);
                if let Some(o) = opt {
                    cmd.arg(o);
                }
                let out = run(&mut cmd, "void f(void) {}\n");
                if !out.ok {
                    continue;
                }
                for w in [32u32, 64] {
                    if out.stdout.contains(&format!("+wavefrontsize{w}")) {
                        set.insert(w);
                    }
                }
            }
            set
        });
        for (t, set) in TARGETS.iter().zip(sizes) {
            let table: BTreeSet<u32> = t.wavefront_sizes.iter().copied().collect();
            if set != table {
                errors.push(format!(
                    "{}: wave sizes {:?} in the table, clang allows {set:?}",
                    t.name, t.wavefront_sizes
                ));
            }
        }
    }
    report("wavefront sizes", errors);
}

#[test]
fn target_id_features_accepted_by_clang() {
    if !have(MC, "target_id_features_accepted_by_clang")
        || !have(CLANG, "target_id_features_accepted_by_clang")
    {
        return;
    }
    let results = par_map(TARGETS, |t| {
        let accepts = |feature: &str| {
            run(
                Command::new(CLANG).args([
                    "-target",
                    TRIPLE,
                    &format!("-mcpu={}:{feature}+", t.name),
                    "-nogpulib",
                    "-fsyntax-only",
                    "-x",
                    "c",
                    "-",
                ]),
                "void f(void) {}\n",
            )
            .ok
        };
        (accepts("xnack"), accepts("sramecc"))
    });
    let mut errors = Vec::new();
    for (t, (xnack, sramecc)) in TARGETS.iter().zip(results) {
        if xnack != (t.xnack == TargetFeature::Supported) {
            errors.push(format!(
                "{}: xnack {:?} in the table, clang accepts `:xnack+`: {xnack}",
                t.name, t.xnack
            ));
        }
        if sramecc != (t.sramecc == TargetFeature::Supported) {
            errors.push(format!(
                "{}: sramecc {:?} in the table, clang accepts `:sramecc+`: {sramecc}",
                t.name, t.sramecc
            ));
        }
        if t.xnack_always_on && t.xnack != TargetFeature::Unsupported {
            errors.push(format!(
                "{}: xnack is always on, so the target id cannot name it",
                t.name
            ));
        }
    }
    report("target-id features", errors);
}

#[test]
fn lds_size_limit_of_llc() {
    if !have(MC, "lds_size_limit_of_llc") || !have(LLC, "lds_size_limit_of_llc") {
        return;
    }
    // A kernel with 1 MiB of LDS is over every limit; llc names the limit in its error:
    // "local memory (1048576) exceeds limit (65536) in function 'k'".
    let ir = "@lds = internal addrspace(3) global [1048576 x i8] poison, align 4\n\
              define amdgpu_kernel void @k(i32 %i) {\n\
              %p = getelementptr [1048576 x i8], ptr addrspace(3) @lds, i32 0, i32 %i\n\
              store i8 1, ptr addrspace(3) %p\n\
              ret void\n\
              }\n";
    let errors = par_map(TARGETS, |t| {
        let out = run(
            Command::new(LLC).args([
                &format!("-mtriple={TRIPLE}"),
                &format!("-mcpu={}", t.name),
                "-o",
                "/dev/null",
            ]),
            ir,
        );
        let limit: Option<u32> = out
            .stderr
            .split("exceeds limit (")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .and_then(|n| n.parse().ok());
        (limit != Some(t.lds_bytes)).then(|| {
            format!(
                "{}: lds_bytes {} in the table, llc limit {limit:?}",
                t.name, t.lds_bytes
            )
        })
    });
    report("lds", errors.into_iter().flatten().collect());
}

#[test]
fn lookups_find_llvm_names() {
    if !have(MC, "lookups_find_llvm_names") {
        return;
    }
    // The assembler echoes the canonical processor name in .amdgcn_target.
    let errors = par_map(TARGETS, |t| {
        let out = mc(t.name, &[], "");
        let want = format!("\"{TRIPLE}--{}\"", t.name);
        let ok = out.stdout.contains(&want) && target(t.name).map(|r| r.name) == Some(t.name);
        (!ok).then(|| {
            format!(
                "{}: .amdgcn_target is not {want}: {}",
                t.name,
                out.stdout.trim()
            )
        })
    });
    report("lookup", errors.into_iter().flatten().collect());
}
