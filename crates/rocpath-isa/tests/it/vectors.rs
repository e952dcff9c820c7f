//! Text test vectors (`tests/vectors.txt`), walk rules, and random-input robustness.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use proptest::prelude::*;
use rocpath_isa::{Class, Decoded, Decoder, ItemKind, Mnemonic, SymbolKind, SymbolStart};

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn text_vectors() {
    let text = include_str!("vectors.txt");
    let mut n = 0;
    for (lineno, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace().peekable();
        let cpu = parts.next().unwrap();
        let mut words = Vec::new();
        while let Some(w) = parts.peek() {
            if w.len() == 8
                && w.chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
            {
                words.push(u32::from_str_radix(w, 16).unwrap());
                parts.next();
            } else {
                break;
            }
        }
        let expected: Vec<&str> = parts.collect();
        let dec = Decoder::for_target(cpu)
            .unwrap_or_else(|| panic!("line {}: no decoder for {cpu}", lineno + 1));
        let got = dec.decode(&words_to_bytes(&words));
        match expected.as_slice() {
            ["unknown"] => assert_eq!(got, Decoded::Unknown, "line {}: {line}", lineno + 1),
            ["truncated"] => assert!(
                matches!(got, Decoded::Truncated { .. }),
                "line {}: {line}: {got:?}",
                lineno + 1
            ),
            [m, len] => {
                let Decoded::Inst(i) = got else {
                    panic!("line {}: {line}: got {got:?}", lineno + 1)
                };
                assert_eq!(
                    (i.mnemonic.as_str(), i.len.to_string().as_str()),
                    (*m, *len),
                    "line {}: {line}",
                    lineno + 1
                );
            }
            _ => panic!("line {}: bad vector {line}", lineno + 1),
        }
        n += 1;
    }
    assert!(n > 50);
}

fn walk_names(cpu: &str, bytes: &[u8], syms: &[SymbolStart]) -> Vec<(u64, &'static str)> {
    let dec = Decoder::for_target(cpu).unwrap();
    dec.walk(bytes, 0x100, syms)
        .map(|i| (i.offset, i.mnemonic.as_str()))
        .collect()
}

const NOP: u32 = 0xbf80_0000;
const ENDPGM: u32 = 0xbf81_0000;

#[test]
fn zero_runs_follow_objdump() {
    let code = |ws: &[u32]| -> Vec<u8> { words_to_bytes(ws) };
    let s = [SymbolStart {
        address: 0x100,
        kind: SymbolKind::Code,
    }];
    // A run of 4 zero bytes decodes (v_cndmask_b32_e32 on GCN).
    assert_eq!(
        walk_names("gfx900", &code(&[NOP, 0, ENDPGM]), &s),
        [(0, "s_nop"), (4, "v_cndmask_b32_e32"), (8, "s_endpgm")]
    );
    // 8 and 12 zero bytes are skipped.
    assert_eq!(
        walk_names("gfx900", &code(&[NOP, 0, 0, ENDPGM]), &s),
        [(0, "s_nop"), (12, "s_endpgm")]
    );
    assert_eq!(
        walk_names("gfx900", &code(&[NOP, 0, 0, 0, ENDPGM]), &s),
        [(0, "s_nop"), (16, "s_endpgm")]
    );
    // 10 zero bytes followed by a word with zero low bytes: 8 are skipped, the rest decodes.
    let mut b = code(&[NOP]);
    b.extend_from_slice(&[0; 10]);
    b.extend_from_slice(&[0x80, 0xbf, 0x00, 0x00, 0x81, 0xbf]);
    assert_eq!(
        walk_names("gfx900", &b, &s),
        [(0, "s_nop"), (12, "s_nop"), (16, "s_endpgm")]
    );
    // Zero runs are counted per symbol range: the run before the next symbol is cut there.
    let two = [
        SymbolStart {
            address: 0x100,
            kind: SymbolKind::Code,
        },
        SymbolStart {
            address: 0x108,
            kind: SymbolKind::Code,
        },
    ];
    assert_eq!(
        walk_names("gfx900", &code(&[NOP, 0, 0, 0]), &two),
        [(0, "s_nop"), (4, "v_cndmask_b32_e32")]
    );
}

#[test]
fn undecodable_words_resume_four_bytes_later() {
    let s = [SymbolStart {
        address: 0x100,
        kind: SymbolKind::Code,
    }];
    // gfx942 has no image instructions: the MIMG dword is `.long`, its second dword decodes.
    let b = words_to_bytes(&[0xf000_5f00, 0x0004_0707, ENDPGM]);
    assert_eq!(
        walk_names("gfx942", &b, &s),
        [(0, ".long"), (4, "v_cndmask_b32_e32"), (8, "s_endpgm")]
    );
    // A literal cut off by the section end is a `.long` too.
    assert_eq!(
        walk_names("gfx900", &words_to_bytes(&[0x8000_ff04]), &s),
        [(0, ".long")]
    );
}

#[test]
fn ranges_and_legacy_headers() {
    // Bytes before the first symbol are decoded; symbols outside the section are ignored.
    let b = words_to_bytes(&[NOP, ENDPGM]);
    let s = [
        SymbolStart {
            address: 0x10,
            kind: SymbolKind::Code,
        },
        SymbolStart {
            address: 0x104,
            kind: SymbolKind::Code,
        },
    ];
    assert_eq!(
        walk_names("gfx1030", &b, &s),
        [(0, "s_nop"), (4, "s_endpgm")]
    );
    // No symbols: the whole section.
    assert_eq!(
        walk_names("gfx1030", &b, &[]),
        [(0, "s_nop"), (4, "s_endpgm")]
    );
    // An instruction may run past its range end; the next range restarts at its symbol.
    let b = words_to_bytes(&[0xbe80_00ff, 0x1234_5678, ENDPGM]);
    let s = [
        SymbolStart {
            address: 0x100,
            kind: SymbolKind::Code,
        },
        SymbolStart {
            address: 0x104,
            kind: SymbolKind::Code,
        },
    ];
    let dec = Decoder::for_target("gfx900").unwrap();
    let items: Vec<_> = dec
        .walk(&b, 0x100, &s)
        .map(|i| (i.offset, i.mnemonic.as_str()))
        .collect();
    assert_eq!(items[0], (0, "s_mov_b32"));
    assert_eq!(items[1].0, 4);
    // Legacy kernel: 256 `.byte` lines, then code.
    let mut b = vec![0u8; 256];
    b[0] = 1;
    b.extend_from_slice(&words_to_bytes(&[ENDPGM]));
    let s = [SymbolStart {
        address: 0x100,
        kind: SymbolKind::LegacyKernel,
    }];
    let items: Vec<_> = dec.walk(&b, 0x100, &s).collect();
    assert_eq!(items.len(), 257);
    assert!(
        items[..256]
            .iter()
            .all(|i| i.kind == ItemKind::Byte && i.mnemonic == Mnemonic::BYTE)
    );
    assert_eq!(items[256].mnemonic.as_str(), "s_endpgm");
    assert!(items.iter().all(|i| i.symbol == Some(0)));
}

#[test]
fn per_symbol_totals() {
    // Padding before the first symbol has no symbol; two kernels get their own totals.
    let b = words_to_bytes(&[NOP, 0xbe80_0002, ENDPGM, 0xd3b0_4080, 0x1e02_71a0, ENDPGM]);
    let s = [
        SymbolStart {
            address: 0x104,
            kind: SymbolKind::Code,
        },
        SymbolStart {
            address: 0x10c,
            kind: SymbolKind::Code,
        },
    ];
    let dec = Decoder::for_target("gfx90a").unwrap();
    let mut per = [rocpath_isa::ClassCounts::default(); 2];
    let mut lead = 0;
    for it in dec.walk(&b, 0x100, &s) {
        match it.symbol {
            Some(k) => per[k as usize].add(it.mnemonic),
            None => lead += 1,
        }
    }
    assert_eq!(lead, 1);
    assert_eq!(per[0].total(), 2);
    assert_eq!(per[1].get(Class::Packed), 1);
    assert_eq!(per[1].group(rocpath_isa::Group::Branch), 1);
}

#[test]
fn targets_and_classes() {
    for t in [
        "gfx90a:xnack+",
        "gfx90a:sramecc+:xnack-",
        "amdgcn-amd-amdhsa--gfx942",
        "hipv4-amdgcn-amd-amdhsa--gfx1201",
        "gfx11-generic",
        "gfx9-4-generic",
        "GFX1100",
    ] {
        assert!(Decoder::for_target(t).is_some(), "{t}");
    }
    assert!(Decoder::for_target("gfx600").is_none());
    assert_eq!(
        Decoder::for_mach(0x54c).map(|d| d.processor()),
        Some("gfx942")
    );
    assert_eq!(
        Decoder::for_mach(0x4e).map(|d| d.processor()),
        Some("gfx1201")
    );
    let c = |m: &str| {
        Mnemonic::from_name(m)
            .unwrap_or_else(|| panic!("{m}"))
            .class()
    };
    assert_eq!(c("v_mfma_f32_32x32x8f16"), Class::MfmaF16);
    assert_eq!(c("v_mfma_f32_16x16x16bf16_1k"), Class::MfmaBf16);
    assert_eq!(c("v_mfma_f32_16x16x32_fp8_fp8"), Class::MfmaFp8);
    assert_eq!(c("v_mfma_scale_f32_16x16x128_f8f6f4"), Class::MfmaF8f6f4);
    assert_eq!(c("v_mfma_f64_16x16x4f64"), Class::MfmaF64);
    assert_eq!(c("v_mfma_i32_16x16x16i8"), Class::MfmaI8);
    assert_eq!(c("v_mfma_f32_16x16x8_xf32"), Class::MfmaXf32);
    assert_eq!(c("v_mfma_f32_32x32x2f32"), Class::MfmaF32);
    assert_eq!(c("v_wmma_f32_16x16x16_f16"), Class::WmmaF16);
    assert_eq!(c("v_wmma_i32_16x16x16_iu8"), Class::WmmaI8);
    assert_eq!(c("v_wmma_i32_16x16x16_iu4"), Class::WmmaI4);
    assert_eq!(c("v_dot4_i32_i8"), Class::Dot4I32I8);
    assert_eq!(c("v_dot2_f32_f16"), Class::Dot2F32F16);
    assert_eq!(c("v_dot2c_f32_f16_e32"), Class::Dot2F32F16);
    assert_eq!(c("v_pk_fma_f32"), Class::Packed);
    assert_eq!(c("v_fma_f32"), Class::Fma);
    assert_eq!(c("v_mac_f32_e32"), Class::Fma);
    assert_eq!(c("v_exp_f32_e32"), Class::Transcendental);
    assert_eq!(c("v_cvt_f32_f16_sdwa"), Class::Conversion);
    assert_eq!(c("global_load_dword"), Class::VmemGlobal);
    assert_eq!(c("buffer_load_dword"), Class::VmemBuffer);
    assert_eq!(c("ds_read_b128"), Class::Lds);
    assert_eq!(c("s_load_dwordx2"), Class::Smem);
    assert_eq!(c("s_cbranch_execz"), Class::Branch);
    assert_eq!(c("s_waitcnt"), Class::Wait);
    assert_eq!(c("s_wait_loadcnt"), Class::Wait);
    assert_eq!(c("s_add_u32"), Class::Salu);
    assert_eq!(c(".long"), Class::Other);
    let s = |m: &str| Mnemonic::from_name(m).unwrap().signals();
    assert!(s("v_dot2c_f32_f16_e32").dot4() && s("v_dot4_i32_i8").dot4());
    assert!(s("v_pk_fma_f32").packed() && !s("v_fma_f32").packed());
    assert!(s("v_mfma_f32_32x32x8f16").mfma());
    assert!(s("v_fma_f32").fma() && s("v_mac_f32_e32").fma() && s("v_mad_u64_u32").fma());
    assert!(
        s("global_load_dword").memory() && s("ds_read_b32").memory() && !s("ds_add_u32").memory()
    );
}

#[test]
fn generated_tables_are_current() {
    // The committed tables were generated for this layout and these class rules.
    assert_eq!(
        rocpath_isa::layout::fingerprint(),
        rocpath_isa::layout_fingerprint_generated(),
        "run `cargo run -p xtask -- codegen-isa`"
    );
    for m in Mnemonic::all() {
        assert_eq!(
            m.class(),
            rocpath_isa::classify::class_of(m.as_str()),
            "{m}"
        );
        assert_eq!(
            m.signals().bits(),
            rocpath_isa::classify::signals_of(m.as_str()),
            "{m}"
        );
    }
    // Names are sorted after `.long` and `.byte`, so lookups by name work.
    for m in Mnemonic::all() {
        assert_eq!(Mnemonic::from_name(m.as_str()), Some(m));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..96), t in 0usize..64) {
        let procs: Vec<&str> = Decoder::processors().collect();
        let dec = Decoder::for_target(procs[t % procs.len()]).unwrap();
        match dec.decode(&bytes) {
            Decoded::Inst(i) => prop_assert!(usize::from(i.len) <= bytes.len() && i.len >= 4),
            Decoded::Truncated { needed } => prop_assert!(usize::from(needed) > bytes.len()),
            Decoded::Unknown => {}
        }
        let syms = [SymbolStart { address: 8, kind: SymbolKind::Code }, SymbolStart { address: 40, kind: SymbolKind::LegacyKernel }];
        let mut last = None;
        let mut n = 0;
        for it in dec.walk(&bytes, 0, &syms) {
            prop_assert!((it.offset as usize) < bytes.len());
            if let Some(l) = last { prop_assert!(it.offset != l || it.kind == ItemKind::Byte); }
            last = Some(it.offset);
            n += 1;
            prop_assert!(n <= bytes.len() * 2 + 1);
        }
    }
}

#[test]
fn families() {
    let fam = |cpu: &str, words: &[u32]| {
        Decoder::for_target(cpu)
            .unwrap()
            .decode(&words_to_bytes(words))
            .inst()
            .unwrap()
            .family
    };
    use rocpath_isa::Family as F;
    assert_eq!(fam("gfx900", &[0xbe80_0002]), F::Sop1);
    assert_eq!(fam("gfx900", &[0x8004_0004]), F::Sop2);
    assert_eq!(fam("gfx900", &[0xb003_0080]), F::Sopk);
    assert_eq!(fam("gfx900", &[0xbf06_8002]), F::Sopc);
    assert_eq!(fam("gfx900", &[0xbf80_0000]), F::Sopp);
    assert_eq!(fam("gfx900", &[0xc002_0002, 0x24]), F::Smem);
    assert_eq!(fam("gfx900", &[0x7e40_0280]), F::Vop1);
    assert_eq!(fam("gfx900", &[0x0a08_0801]), F::Vop2);
    assert_eq!(fam("gfx900", &[0x7d94_3a81]), F::Vopc);
    assert_eq!(fam("gfx906", &[0xd101_0000, 0x0002_0501]), F::Vop3);
    assert_eq!(fam("gfx90a", &[0xd3b0_4080, 0x1e02_71a0]), F::Vop3p);
    assert_eq!(fam("gfx90a", &[0xd3e7_8000, 0x0402_0900]), F::Vop3p);
    assert_eq!(fam("gfx900", &[0xdc40_8000, 0x0100_0000]), F::Global);
    assert_eq!(fam("gfx803", &[0xdc40_0000, 0x0700_0003]), F::Flat);
    assert_eq!(fam("gfx942", &[0xe051_1000, 0x8001_000d]), F::Mubuf);
    assert_eq!(fam("gfx942", &[0xdbfe_0000, 0x15]), F::Ds);
    assert_eq!(fam("gfx900", &[0xf000_5f00, 0x0004_0707]), F::Mimg);
    assert_eq!(fam("gfx1100", &[0xca10_0011, 0x10]), F::Vopd);
    assert_eq!(fam("gfx1201", &[0xee05_c07c, 0x6, 0xffff_e003]), F::Global);
    assert_eq!(
        fam("gfx1201", &[0xc405_c07c, 0x4080_606a, 0x40]),
        F::Vbuffer
    );
    assert_eq!(
        fam("gfx1201", &[0xd3c0_0005, 0x800, 0x000d_0c0b]),
        F::Vimage
    );
    assert_eq!(fam("gfx1201", &[0xf400_0100, 0xf800_002c]), F::Smem);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn unsorted_symbols_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), addrs in proptest::collection::vec(0u64..400, 0..6)) {
        let dec = Decoder::for_target("gfx90a").unwrap();
        let syms: Vec<SymbolStart> = addrs
            .iter()
            .enumerate()
            .map(|(i, &a)| SymbolStart { address: a, kind: if i % 3 == 2 { SymbolKind::LegacyKernel } else { SymbolKind::Code } })
            .collect();
        let n = dec.walk(&bytes, 16, &syms).take(10_000).count();
        prop_assert!(n <= 10_000);
    }
}

/// Random words with zero runs punched in, symbols anywhere (also outside, unsorted, legacy
/// kernels) and the decoder of processor `t` (modulo their number).
fn random_section(
    words: &[u32],
    zeros: &[(usize, usize)],
    addrs: &[u64],
    t: usize,
) -> (Vec<u8>, Decoder, Vec<SymbolStart>) {
    let mut bytes = words_to_bytes(words);
    for &(at, n) in zeros {
        for b in bytes.iter_mut().skip(at * 4).take(n) {
            *b = 0;
        }
    }
    let procs: Vec<&str> = Decoder::processors().collect();
    let dec = Decoder::for_target(procs[t % procs.len()]).unwrap();
    let syms = addrs
        .iter()
        .enumerate()
        .map(|(i, &a)| SymbolStart {
            address: a,
            kind: if i % 3 == 2 {
                SymbolKind::LegacyKernel
            } else {
                SymbolKind::Code
            },
        })
        .collect();
    (bytes, dec, syms)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn census_counts_what_the_walk_yields(
        words in proptest::collection::vec(any::<u32>(), 0..80),
        zeros in proptest::collection::vec((0usize..80, 1usize..24), 0..4),
        addrs in proptest::collection::vec(0u64..400, 0..6),
        t in 0usize..64,
    ) {
        // Random words with zero runs punched in, symbols anywhere (also outside, unsorted,
        // legacy kernels), every processor: the census loop and the iterator agree.
        let (bytes, dec, syms) = random_section(&words, &zeros, &addrs, t);
        let mut want = rocpath_isa::Census::new();
        for it in dec.walk(&bytes, 16, &syms) {
            want.add_item(&it);
        }
        let got = dec.census(&bytes, 16, &syms);
        prop_assert_eq!(got.bytes(), want.bytes());
        prop_assert_eq!(got.histogram(), want.histogram());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn ranges_counted_apart_add_up_to_the_walk(
        words in proptest::collection::vec(any::<u32>(), 0..80),
        zeros in proptest::collection::vec((0usize..80, 1usize..24), 0..4),
        addrs in proptest::collection::vec(0u64..400, 0..6),
        t in 0usize..64,
    ) {
        // Each range counted into a tally (per-kernel totals), and all ranges batched into a
        // census: both equal what the iterator yields, item by item.
        let (bytes, dec, syms) = random_section(&words, &zeros, &addrs, t);
        let mut want = rocpath_isa::Census::new();
        for it in dec.walk(&bytes, 16, &syms) {
            want.add_item(&it);
        }
        let ranges: Vec<rocpath_isa::Range> = dec.walk(&bytes, 16, &syms).ranges().collect();
        let mut by_tally = rocpath_isa::Census::new();
        let mut tally = rocpath_isa::Tally::new();
        for r in &ranges {
            dec.count_range(&bytes, r, &mut tally);
            let has = !tally.is_empty();
            prop_assert_eq!(has, r.has_items(&bytes));
            tally.drain_into(&mut by_tally);
        }
        let mut batched = rocpath_isa::Census::new();
        dec.census_ranges(&bytes, &ranges, &mut batched);
        for got in [&by_tally, &batched] {
            prop_assert_eq!(got.bytes(), want.bytes());
            prop_assert_eq!(got.histogram(), want.histogram());
        }
    }
}
