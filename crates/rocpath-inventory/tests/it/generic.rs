//! Generic targets in `check`: a bundle with an object for gfx1100 and one for gfx11-generic
//! (code object v6, `rocpath-census/tests/data/generic`): gfx1100 takes its own object first,
//! gfx1103 the generic one, a processor outside the family neither.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_arch::TargetId;
use rocpath_inventory::check::{Verdict, check};
use rocpath_inventory::device::Device;
use rocpath_inventory::{NoProgress, Options, scan};

fn device(t: &str) -> Device {
    rocpath_inventory::device::from_target(TargetId::parse(t).unwrap())
}

#[test]
fn specific_object_before_generic_one() {
    let root = rocpath_testdata::repo_root();
    let specific = std::fs::read(root.join(
        "examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco",
    ))
    .unwrap();
    let generic =
        std::fs::read(root.join("crates/rocpath-census/tests/data/generic/k_gfx11-generic.hsaco"))
            .unwrap();
    let a = 4096usize;
    let b = a + specific.len().div_ceil(4096) * 4096;
    let mut body = specific.clone();
    body.resize(b - a, 0);
    body.extend_from_slice(&generic);
    let bundle = rocpath_testdata::bundle::with_entries(
        &[
            (
                b"hipv4-amdgcn-amd-amdhsa--gfx11-generic",
                b as u64,
                generic.len() as u64,
            ),
            (
                b"hipv4-amdgcn-amd-amdhsa--gfx1100",
                a as u64,
                specific.len() as u64,
            ),
        ],
        a,
        &body,
    );
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("libk.hipfb"), &bundle).unwrap();
    let inv = scan(&[d.path().to_path_buf()], &Options::default(), &NoProgress);
    assert!(inv.errors.is_empty(), "{:?}", inv.errors);
    assert_eq!(inv.code_objects.len(), 2);
    let g = inv
        .code_objects
        .iter()
        .find(|c| c.target.processor == "gfx11-generic")
        .unwrap();
    assert_eq!(
        (g.code_object_version, g.generic_version),
        (Some(6), Some(1))
    );

    let c = check(&inv, &device("gfx1100"), None);
    let l = &c.libraries[0];
    assert_eq!((l.verdict, l.compatible), (Verdict::Runs, 2));
    assert_eq!(l.deciders[0].target_id.processor, "gfx1100");
    assert!(
        l.why.contains("before the generic gfx11-generic"),
        "{}",
        l.why
    );

    let c = check(&inv, &device("gfx1103"), None);
    let l = &c.libraries[0];
    assert_eq!((l.verdict, l.compatible), (Verdict::Runs, 1));
    assert_eq!(l.deciders[0].rule, rocpath_arch::rules::GENERIC);

    let c = check(&inv, &device("gfx1201"), None);
    assert_eq!(c.libraries[0].verdict, Verdict::NoCode);
}
