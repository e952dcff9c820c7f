//! MIOpen's kernel cache in `check`: the system kernel database a device opens (exact
//! `<processor>_<CUs>.kdb`, else `<processor>.kdb`, never another CU count), its code objects
//! counted from inside the database, and the user caches of earlier runs named. The database
//! is the committed fixture of rocpath-sources (`crates/rocpath-sources/tests/data/README.md`:
//! real gfx1201 code objects in MIOpen's `kern_db` schema).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_arch::TargetId;
use rocpath_evidence::Class;
use rocpath_inventory::check::{LibraryCheck, Verdict, check};
use rocpath_inventory::device::Device;
use rocpath_inventory::miopen_cache::rules;
use rocpath_inventory::{NoProgress, Options, scan};
use std::path::Path;

fn kdb() -> std::path::PathBuf {
    rocpath_testdata::repo_root().join("crates/rocpath-sources/tests/data/gfx1201_32.kdb")
}

fn device(t: &str, cus: Option<u32>) -> Device {
    Device {
        cus,
        ..rocpath_inventory::device::from_target(TargetId::parse(t).unwrap())
    }
}

fn cache_check(dir: &Path, dev: &Device) -> LibraryCheck {
    let inv = scan(&[dir.to_path_buf()], &Options::default(), &NoProgress);
    assert!(inv.errors.is_empty(), "{:?}", inv.errors);
    let c = check(&inv, dev, None);
    c.libraries
        .into_iter()
        .find(|l| l.kind == rocpath_inventory::check::Checked::MiopenKernelDb)
        .expect("a kernel-cache verdict")
}

#[test]
fn the_device_opens_its_exact_database_or_none() {
    let tmp = tempfile::tempdir().unwrap();
    let sys = tmp.path().join("share/miopen/db");
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::copy(kdb(), sys.join("gfx1201_32.kdb")).unwrap();

    let l = cache_check(tmp.path(), &device("gfx1201", Some(32)));
    assert_eq!((l.verdict, l.compatible, l.total), (Verdict::Runs, 2, 2));
    assert_eq!(l.evidence.rule, rules::KERNEL_DB);
    assert_eq!(l.evidence.class, Class::Confirmed);
    assert!(l.why.contains("21 kernels"), "{}", l.why);

    // Another CU count: MIOpen does not take the nearest one for kernels.
    let l = cache_check(tmp.path(), &device("gfx1201", Some(64)));
    assert_eq!(l.verdict, Verdict::Untuned);
    assert_eq!(l.evidence.rule, rules::NO_KERNEL_DB);
    assert!(
        l.why.contains("gfx1201_32.kdb is for another CU count"),
        "{}",
        l.why
    );

    let l = cache_check(tmp.path(), &device("gfx1201", None));
    assert_eq!(l.verdict, Verdict::Depends);
    assert_eq!(l.evidence.class, Class::Unresolved);

    // The database without a CU count is the fallback for any CU count.
    std::fs::copy(kdb(), sys.join("gfx1201.kdb")).unwrap();
    let l = cache_check(tmp.path(), &device("gfx1201", Some(64)));
    assert_eq!(l.verdict, Verdict::Runs);
    assert!(
        l.why.starts_with("gfx1201.kdb holds 2 code objects"),
        "{}",
        l.why
    );

    let l = cache_check(tmp.path(), &device("gfx900", Some(64)));
    assert_eq!((l.verdict, l.compatible), (Verdict::Untuned, 0));
    assert!(
        l.why.contains("compiles each kernel on its first use"),
        "{}",
        l.why
    );
}

#[test]
fn user_caches_of_earlier_runs_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join(".cache/miopen/3.4.0.0");
    let config = tmp.path().join(".config/miopen");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    std::fs::copy(kdb(), cache.join("gfx1201_32.ukdb")).unwrap();
    std::fs::write(
        config.join("gfx1201_32.HIP.3_4_0_abcdef.ufdb.txt"),
        "1-32-32-3x3-64-32-32-1-1x1-1x1-1x1-0-NCHW-FP32-F=miopenConvolutionFwdAlgoWinograd:ConvBinWinograd3x3U,0.02,0,miopenConvolutionFwdAlgoWinograd,<unused>\n",
    )
    .unwrap();
    let l = cache_check(tmp.path(), &device("gfx1201", Some(32)));
    assert_eq!(l.verdict, Verdict::Untuned, "no system database");
    assert!(
        l.why
            .contains("gfx1201_32.ukdb (2 compiled code objects, not compiled again)"),
        "{}",
        l.why
    );
    assert!(l.why.contains("ufdb.txt (Find results)"), "{}", l.why);
}
