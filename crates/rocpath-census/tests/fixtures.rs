//! The census through every container kind (standalone objects, offload bundles, a host
//! library, CCOB, the legacy v1 object) against the llvm-objdump-22 reference histograms of
//! `shared/fixtures/codeobjects` (skips when absent).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_census::{KernelFilter, Options, Progress, run};
use std::collections::BTreeMap;

struct Quiet;
impl Progress for Quiet {}

#[test]
fn every_code_object_matches_the_llvm_histogram() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let report = run(
        std::slice::from_ref(&dir),
        &Options {
            per_kernel: true,
            ..Options::default()
        },
        &Quiet,
    );
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let manifest = rocpath_testdata::read_tsv(&dir.join("manifest.tsv")).unwrap();
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for row in &manifest {
        let want = rocpath_testdata::read_histogram(&dir.join(&row["mnemonics_file"])).unwrap();
        // The same object can sit in several fixture files (a bundle and its extracted
        // entries): every copy must give the reference histogram.
        let copies: Vec<_> = report
            .code_objects
            .iter()
            .filter(|c| c.sha256.as_deref() == Some(row["codeobj_sha256"].as_str()))
            .collect();
        assert!(
            !copies.is_empty(),
            "{} {} not found",
            row["fixture"],
            row["entry"]
        );
        for c in copies {
            let got: BTreeMap<String, u64> = c.counts.mnemonics.clone();
            if got != want {
                mismatches.push(format!("{} [{}]", c.path, c.container));
            }
            assert_eq!(
                c.counts.instructions.to_string(),
                row["instructions"],
                "{} [{}]",
                c.path,
                c.container
            );
            // Per-kernel counts add up to at most the total (padding belongs to no kernel).
            let sum: u64 = c.kernels.iter().map(|k| k.counts.instructions).sum();
            assert!(sum <= c.counts.instructions);
            checked += 1;
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches: {:?}",
        mismatches.len(),
        mismatches
    );
    assert!(checked >= 63);
}

#[test]
fn find_and_kernel_filter() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let opts = Options {
        find: vec![
            "v_mfma".into(),
            "v_dot4_i32_i8".into(),
            "v_no_such_thing".into(),
        ],
        per_kernel: true,
        ..Options::default()
    };
    let r = run(
        &[dir.join(
            "rocblas4-6.4.4_TensileLibrary_Type_BB_HPA_Contraction_l_Alik_Bjlk_Cijk_Dijk_gfx90a.co",
        )],
        &opts,
        &Quiet,
    );
    // The BF16 HPA Tensile kernels for gfx90a use MFMA.
    assert!(
        r.find
            .iter()
            .any(|h| h.mnemonic.starts_with("v_mfma_") && h.count > 0)
    );
    assert!(r.not_found.contains(&"v_no_such_thing".to_string()));
    let k = &r.code_objects[0].kernels;
    assert_eq!(k.iter().filter(|k| k.is_kernel).count(), 7);
    let name = k[0].name.clone();
    let r2 = run(
        &[dir.join(
            "rocblas4-6.4.4_TensileLibrary_Type_BB_HPA_Contraction_l_Alik_Bjlk_Cijk_Dijk_gfx90a.co",
        )],
        &Options {
            kernel: Some(KernelFilter::Exact(name.clone())),
            disasm: true,
            per_kernel: true,
            ..Options::default()
        },
        &Quiet,
    );
    assert_eq!(r2.code_objects[0].kernels.len(), 1);
    assert_eq!(
        r2.disasm.len() as u64,
        r2.code_objects[0].kernels[0].counts.instructions
    );
    assert!(r2.disasm.iter().all(|l| l.kernel == name));
}
