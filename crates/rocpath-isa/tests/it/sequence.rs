//! Instruction-by-instruction comparison with `llvm-objdump-22 -d` (skipped when it is not on
//! PATH or the fixtures are absent; failing under CI, which has both).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use super::common;

use rocpath_isa::Decoder;
use std::process::Command;

/// `(offset, mnemonic)` of every counted line of `llvm-objdump -d`, per executable section in
/// file order. Offsets are the addresses objdump prints.
fn objdump_lines(path: &std::path::Path, extra: &[&str]) -> Option<Vec<(u64, String)>> {
    let out = Command::new("llvm-objdump-22")
        .arg("-d")
        .args(extra)
        .arg(path)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v = Vec::new();
    for line in text.lines() {
        let Some(body) = line.strip_prefix('\t') else {
            continue;
        };
        let t = body.trim();
        if t.is_empty() || t == "..." {
            continue;
        }
        let m = t.split_whitespace().next().unwrap_or("").to_string();
        // Address comment: `// 000000001234: ...`
        let addr = line
            .rsplit_once("// ")
            .and_then(|(_, r)| r.split(':').next())
            .and_then(|a| u64::from_str_radix(a.trim(), 16).ok())
            .unwrap_or(u64::MAX);
        v.push((addr, m));
    }
    Some(v)
}

/// Compare one code object; returns (instructions compared, mismatches, first mismatch lines).
fn compare(co: &common::CodeObject, extra: &[&str]) -> (usize, usize, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("rocpath-isa-seq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let path = dir.join(co.base.replace('/', "_"));
    std::fs::write(&path, &co.bytes).expect("write");
    let reference = objdump_lines(&path, extra).expect("llvm-objdump-22 -d");
    let _ = std::fs::remove_file(&path);
    let dec = Decoder::for_target(&co.cpu).expect("decoder");
    let mut ours = Vec::new();
    for sec in common::exec_sections(&co.bytes) {
        for it in dec.walk(sec.bytes, sec.address, &sec.symbols) {
            let words: Vec<String> = sec
                .bytes
                .get(
                    it.offset as usize
                        ..(it.offset as usize + usize::from(it.len).max(4)).min(sec.bytes.len()),
                )
                .unwrap_or(&[])
                .chunks(4)
                .map(|c| {
                    c.iter()
                        .rev()
                        .map(|b| format!("{b:02X}"))
                        .collect::<String>()
                })
                .collect();
            ours.push((
                sec.address + it.offset,
                it.mnemonic.as_str().to_string(),
                words.join(" "),
            ));
        }
    }
    let mut mismatches = 0;
    let mut shown = Vec::new();
    let n = reference.len().max(ours.len());
    for i in 0..n {
        let r = reference.get(i);
        let o = ours.get(i);
        let same = match (r, o) {
            (Some((ra, rm)), Some((oa, om, _))) => rm == om && (*ra == u64::MAX || ra == oa),
            _ => false,
        };
        if !same {
            mismatches += 1;
            if shown.len() < 12 {
                shown.push(format!("  #{i}: objdump {r:?} rocpath {o:?}"));
            }
        }
    }
    (reference.len(), mismatches, shown)
}

#[test]
fn sequences_match_llvm_objdump() {
    if !common::have_objdump() || common::fixtures_dir().is_none() {
        return;
    }
    let objects = common::code_objects().expect("manifest.tsv lists readable code objects");
    let all = std::env::var_os("ROCPATH_SEQ_ALL").is_some();
    // At least one per generation, plus containers and the legacy object; all with ROCPATH_SEQ_ALL.
    let wanted = [
        "rocsparse0-5.3.0_bundle080_gfx803.co",
        "rocsparse0-5.3.0_bundle080_gfx900-xnack-.co",
        "ggml-hip-0.27.0_bundle009_gfx906.co",
        "hipblaslt-7.1.1_hipblasltTransform.hsaco.hipv4-amdgcn-amd-amdhsa--gfx908",
        "rocblas4-6.4.4_TensileLibrary_Type_BB_HPA_Contraction_l_Alik_Bjlk_Cijk_Dijk_gfx90a.co",
        "aiter-0.1.7.post2.dev18_gfx942_fmha_v3_bwd_hd128_bf16_a32_rtne.co",
        "hsa-runtime-6.4.3_blit_gfx942.co",
        "aiter-0.1.7.post2.dev18_gfx950_f4gemm_bf16_per1x32Fp4_noBpreShuffle_256x256.co",
        "ggml-hip-0.27.0_bundle009_gfx1010.co",
        "rocsparse0-5.3.0_bundle080_gfx1030.co",
        "ggml-hip-0.27.0_bundle009_gfx1100.co",
        "hsa-runtime-6.4.3_blit_gfx1151.co",
        "hipblaslt-7.1.1_extop_gfx1201.co",
        "hip-quant-2.2.4.post215_C-pyd_bundle001_gfx1201.co",
        "hsa-runtime-6.4.3_legacy-v1-image-kernels.co",
    ];
    let mut failures = Vec::new();
    for co in &objects {
        if !all && !wanted.contains(&co.base.as_str()) {
            continue;
        }
        let extra: &[&str] = if co.base.contains("legacy-v1") {
            &["--triple=amdgcn-amd-amdhsa", "--mcpu=gfx900"]
        } else {
            &[]
        };
        let (n, bad, shown) = compare(co, extra);
        println!(
            "{:<90} {:>8} compared {n:>7}, mismatches {bad}",
            co.base, co.cpu
        );
        if bad > 0 {
            failures.push(format!(
                "{} ({}): {bad} of {n}\n{}",
                co.base,
                co.cpu,
                shown.join("\n")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "sequence mismatches:\n{}",
        failures.join("\n")
    );
}
