//! `check` with a device setting not known: the example BLAS library ships `gfx900:xnack-`, so
//! on a plain `gfx900` it depends on xnack, and the check names the two explicit target ids
//! to check again with; once xnack is given there is nothing left to settle.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_arch::TargetId;
use rocpath_inventory::check::{Settle, Verdict, check};
use rocpath_inventory::{NoProgress, Options, scan};

fn checked(target: &str) -> rocpath_inventory::check::DeviceCheck {
    let lib = rocpath_testdata::repo_root()
        .join("examples/data/install/opt/rocm-example/lib/libexample_blas.so.1.1");
    let opts = Options {
        limits: Default::default(),
        target: None,
        no_kernels: true,
        index_only: false,
    };
    let inv = scan(&[lib], &opts, &NoProgress);
    check(
        &inv,
        &rocpath_inventory::device::from_target(TargetId::parse(target).unwrap()),
        None,
    )
}

#[test]
fn an_unknown_xnack_names_both_target_ids() {
    let c = checked("gfx900");
    assert_eq!(c.libraries[0].verdict, Verdict::Depends);
    assert_eq!(
        c.to_settle,
        [Settle {
            feature: "xnack".into(),
            targets: vec!["gfx900:xnack-".into(), "gfx900:xnack+".into()],
        }]
    );
    let c = checked("gfx900:xnack-");
    assert_eq!(c.libraries[0].verdict, Verdict::Runs);
    assert!(c.to_settle.is_empty());
    // gfx90a:xnack+ is shipped; on gfx90a with sramecc given, only xnack is open.
    let c = checked("gfx90a:sramecc+");
    assert_eq!(c.to_settle.len(), 1, "{:?}", c.to_settle);
    assert_eq!(
        c.to_settle[0].targets,
        ["gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack+"]
    );
    // A library with no code for the processor has nothing to settle.
    assert!(checked("gfx1201").to_settle.is_empty());
}
