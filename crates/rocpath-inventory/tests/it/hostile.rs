//! Damaged and hostile inputs reach the inventory and the check as errors for the item, never
//! as confirmed code: a code object cut short (its first 64 bytes, all but its last byte) is
//! an error record, not a code object with kernels, and the check does not count it as code
//! the device loads. Inputs are built from the project's example code object
//! (`examples/data/.../Kernels.so-000-gfx1100.hsaco`, see `examples/README.md`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_arch::TargetId;
use rocpath_evidence::Class;
use rocpath_inventory::check::{Verdict, check, rules};
use rocpath_inventory::device::Device;
use rocpath_inventory::{NoProgress, Options, scan};

fn example() -> Vec<u8> {
    let p = rocpath_testdata::repo_root().join(
        "examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco",
    );
    std::fs::read(p).unwrap()
}

fn device(t: &str) -> Device {
    rocpath_inventory::device::from_target(TargetId::parse(t).unwrap())
}

#[test]
fn a_truncated_code_object_is_an_error_in_inventory_and_check() {
    let obj = example();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("head.co"), &obj[..64]).unwrap();
    std::fs::write(dir.path().join("cut.co"), &obj[..obj.len() - 1]).unwrap();
    let inv = scan(
        &[dir.path().to_path_buf()],
        &Options::default(),
        &NoProgress,
    );
    assert!(inv.code_objects.is_empty(), "{:#?}", inv.code_objects);
    assert_eq!(inv.errors.len(), 2);
    for (e, at) in inv.errors.iter().zip([obj.len() as u64 - 1, 64]) {
        assert!(
            e.message.starts_with("code object: truncated code object"),
            "{}",
            e.message
        );
        assert_eq!(e.offset, Some(at), "{}", e.path);
        assert_eq!(e.evidence.as_ref().map(|e| e.class), Some(Class::Limited));
        assert!(!e.message.contains("offset"), "{}", e.message);
    }
    let c = check(&inv, &device("gfx1100"), None);
    assert_eq!(c.libraries.len(), 2);
    for l in &c.libraries {
        assert_eq!(l.verdict, Verdict::NoCode, "{}", l.library);
        assert_eq!(l.evidence.class, Class::Limited);
        assert_eq!(l.evidence.rule, rules::NO_CODE_UNREADABLE);
        assert!(l.why.contains("could not be read"), "{}", l.why);
    }
}

/// A bundle with a complete gfx1100 entry and the same object cut short by one byte.
fn bundle_with_a_cut_entry(obj: &[u8]) -> Vec<u8> {
    use rocpath_testdata::bundle;
    let ids: [&[u8]; 2] = [
        b"hipv4-amdgcn-amd-amdhsa--gfx1100",
        b"hipv4-amdgcn-amd-amdhsa--gfx906",
    ];
    let (at, len) = (bundle::header_len(&ids), obj.len());
    let mut body = obj.to_vec();
    body.extend_from_slice(&obj[..len - 1]);
    let entries = [
        (ids[0], at as u64, len as u64),
        (ids[1], (at + len) as u64, len as u64 - 1),
    ];
    bundle::with_entries(&entries, at, &body)
}

#[test]
fn an_absence_next_to_an_unreadable_entry_is_not_confirmed() {
    let obj = example();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("lib.hipfb");
    std::fs::write(&f, bundle_with_a_cut_entry(&obj)).unwrap();
    let inv = scan(&[f], &Options::default(), &NoProgress);
    assert_eq!(inv.code_objects.len(), 1);
    assert_eq!(inv.errors.len(), 1);
    assert!(
        inv.errors[0].container.ends_with("gfx906"),
        "{}",
        inv.errors[0].container
    );
    // The readable gfx1100 object loads on gfx1100.
    let ok = check(&inv, &device("gfx1100"), None);
    assert_eq!(ok.libraries[0].verdict, Verdict::Runs);
    // Nothing readable loads on gfx906, but the gfx906 entry could not be read: limited.
    let no = check(&inv, &device("gfx906"), None);
    assert_eq!(no.libraries.len(), 1);
    assert_eq!(no.libraries[0].verdict, Verdict::NoCode);
    assert_eq!(no.libraries[0].evidence.class, Class::Limited);
    assert_eq!(no.libraries[0].evidence.rule, rules::NO_CODE_UNREADABLE);
}

#[test]
fn entries_sharing_one_object_are_one_record_that_names_them() {
    let obj = example();
    let n = 500usize;
    let b = rocpath_testdata::bundle::at_one_object(n, &obj, false);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("shared.hipfb");
    std::fs::write(&f, b).unwrap();
    let inv = scan(&[f], &Options::default(), &NoProgress);
    assert_eq!(inv.code_objects.len(), 1);
    let co = &inv.code_objects[0];
    assert_eq!(co.shared_by.as_ref().map(|s| s.entries), Some(n as u64 - 1));
    assert!(
        co.evidence.note.contains("499 other entries"),
        "{}",
        co.evidence.note
    );
    assert_eq!(
        inv.targets[&rocpath_arch::TargetId::new("gfx1100")].code_objects,
        1
    );
}
