//! A code object cut short is an error, never a partial success: every prefix of a real code
//! object that stops before the extent its headers describe is refused, and the first 64 bytes
//! or all but the last byte are refused as [`Error::Truncated`].
//!
//! The sweep always runs on the project's own example code object
//! (`examples/data/.../Kernels.so-000-gfx1100.hsaco`, compiled from `examples/src/kernels.cl`
//! by `examples/make-example-data.sh`, see `examples/README.md`), and on the shared real
//! fixtures when they are present.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_codeobj::{Error, parse};
use rocpath_testdata::{codeobjects_dir, read_tsv, repo_root};

/// The committed example code object.
fn example() -> Vec<u8> {
    let p = repo_root().join(
        "examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco",
    );
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Asserts that every cut of `data` before its extent is an error, and that the two cuts of
/// the issue (64 bytes, all but the last byte) are `Truncated` with the right sizes.
fn sweep(what: &str, data: &[u8], every: usize) {
    let co = parse(data).unwrap_or_else(|e| panic!("{what}: the whole object: {e}"));
    let extent = co.elf_extent as usize;
    assert!(extent <= data.len(), "{what}");
    for cut in (0..extent).step_by(every).chain([64, extent - 1]) {
        match parse(&data[..cut]) {
            Ok(co) => panic!(
                "{what}: a prefix of {cut} of {extent} bytes parsed ({} kernels)",
                co.kernels.len()
            ),
            Err(e) if cut >= 64 => assert!(
                matches!(e, Error::Truncated { extent: x, len } if len == cut as u64 && x > len)
                    || matches!(e, Error::Malformed { .. }),
                "{what}: cut {cut}: {e}"
            ),
            Err(_) => {}
        }
    }
    for cut in [64, extent - 1] {
        let e = parse(&data[..cut]).unwrap_err();
        assert!(
            matches!(e, Error::Truncated { len, .. } if len == cut as u64),
            "{what}: cut {cut}: {e}"
        );
        assert_eq!(e.offset(), Some(cut as u64), "{what}");
        assert!(e.to_string().contains("truncated code object"), "{e}");
    }
}

#[test]
fn every_prefix_of_the_example_object_is_an_error() {
    sweep("example gfx1100 hsaco", &example(), 1);
}

#[test]
fn the_message_names_the_sizes_once() {
    let data = example();
    let e = parse(&data[..data.len() - 1]).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("but only {} are present", data.len() - 1)),
        "{msg}"
    );
    assert!(
        !msg.contains("offset"),
        "the offset is printed by the caller: {msg}"
    );
}

#[test]
fn every_real_fixture_cut_short_is_an_error() {
    let Some(dir) = codeobjects_dir() else { return };
    let mut swept = 0;
    for row in read_tsv(&dir.join("manifest.tsv")).unwrap() {
        let Ok(offset) = row["offset_in_fixture"].parse::<usize>() else {
            continue; // CCOB payloads: the same bytes once decompressed, swept in rocpath-sources
        };
        let size: usize = row["codeobj_bytes"].parse().unwrap();
        let data = std::fs::read(dir.join(&row["fixture"])).unwrap();
        let what = format!("{} {}", row["fixture"], row["entry"]);
        sweep(&what, &data[offset..offset + size], 997);
        swept += 1;
    }
    assert!(swept >= 60, "only {swept} objects swept");
}
