//! The census on hostile bundles and cut objects, built from the project's example code
//! object (`examples/data/.../Kernels.so-000-gfx1100.hsaco`, see `examples/README.md`): a
//! bundle whose thousands of entries point at one object is decoded once and reported once,
//! and an object cut short is an error, as in the inventory.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_census::{Options, Progress, run};
use rocpath_evidence::Class;

struct Quiet;
impl Progress for Quiet {}

fn example() -> Vec<u8> {
    let p = rocpath_testdata::repo_root().join(
        "examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco",
    );
    std::fs::read(p).unwrap()
}

#[test]
fn a_bundle_of_4000_entries_at_one_object_is_decoded_once() {
    let obj = example();
    let n = 4000usize;
    let b = rocpath_testdata::bundle::at_one_object(n, &obj, false);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("shared.hipfb");
    std::fs::write(&f, b).unwrap();
    let opts = Options {
        per_kernel: true,
        ..Options::default()
    };
    let r = run(&[f], &opts, &Quiet);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.code_objects.len(), 1);
    let co = &r.code_objects[0];
    assert_eq!(co.shared_by.as_ref().map(|s| s.entries), Some(3999));
    assert!(
        co.evidence.note.contains("decoded and listed once"),
        "{}",
        co.evidence.note
    );
    assert!(co.counts.instructions > 0);
    assert_eq!(
        r.targets[&rocpath_arch::TargetId::new("gfx1100")].instructions,
        co.counts.instructions
    );
}

#[test]
fn a_cut_object_is_an_error_not_a_census() {
    let obj = example();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cut.hsaco");
    std::fs::write(&f, &obj[..obj.len() - 1]).unwrap();
    let r = run(&[f], &Options::default(), &Quiet);
    assert!(r.code_objects.is_empty());
    assert_eq!(r.errors.len(), 1);
    let e = &r.errors[0];
    assert!(
        e.message.starts_with("code object: truncated code object"),
        "{}",
        e.message
    );
    assert_eq!(e.offset, Some(obj.len() as u64 - 1));
    assert_eq!(e.evidence.as_ref().map(|e| e.class), Some(Class::Limited));
}
