//! `check` and `diff` on libraries packed for kpack: the real Debian library packed with the
//! reference packer (`rocpath-sources/tests/data/kpack`), the same tree with its archive gone
//! or empty, and per-architecture archives found through `@GFXARCH@`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_arch::TargetId;
use rocpath_evidence::Class;
use rocpath_inventory::check::{Verdict, check, rules};
use rocpath_inventory::device::Device;
use rocpath_inventory::{Inventory, NoProgress, Options, scan};
use rocpath_testdata::kpack::{with_marker, write_kpack};
use std::path::{Path, PathBuf};

fn packed() -> PathBuf {
    rocpath_testdata::repo_root().join("crates/rocpath-sources/tests/data/kpack/gloo-packed")
}

fn device(t: &str) -> Device {
    rocpath_inventory::device::from_target(TargetId::parse(t).unwrap())
}

fn inv(p: &Path) -> Inventory {
    scan(&[p.to_path_buf()], &Options::default(), &NoProgress)
}

/// A copy of the packed tree in a temporary folder.
fn copy_tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for rel in ["lib/libgloo_hip.so.0.5.0", ".kpack/gloo-gfx90X.kpack"] {
        let to = d.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(packed().join(rel), to).unwrap();
    }
    d
}

#[test]
fn missing_or_empty_archive_is_confirmed_no_code() {
    let d = copy_tree();
    let archive = d.path().join(".kpack/gloo-gfx90X.kpack");
    for empty in [false, true] {
        if empty {
            std::fs::write(&archive, b"").unwrap();
        } else {
            std::fs::remove_file(&archive).unwrap();
        }
        let i = inv(d.path());
        assert!(i.code_objects.is_empty());
        let r = &i.kpack_refs[0];
        let a = &r.archives[0];
        assert_eq!(
            a.evidence.rule,
            rocpath_inventory::rules::KPACK_ARCHIVE_MISSING
        );
        assert_eq!(a.evidence.class, Class::Confirmed);
        let c = check(&i, &device("gfx900"), None);
        let l = &c.libraries[0];
        assert_eq!(l.verdict, Verdict::NoCode);
        assert_eq!(l.evidence.rule, rules::KPACK_MISSING);
        assert_eq!(l.evidence.class, Class::Confirmed);
        assert!(l.why.contains("gloo-gfx90X.kpack"), "{}", l.why);
    }
}

#[test]
fn packed_library_runs_but_says_what_packing_lost() {
    let i = inv(&packed());
    assert_eq!(i.code_objects.len(), 10);
    let c = check(&i, &device("gfx906"), None);
    let l = &c.libraries[0];
    assert_eq!(
        (l.verdict, l.evidence.class),
        (Verdict::Runs, Class::Unresolved)
    );
    assert_eq!(l.evidence.rule, rules::KPACK_CODE_LOST);
    // Stored, but the archive advertises only gfx900, gfx906, gfx908, gfx90a.
    let c = check(&i, &device("gfx1100"), None);
    assert_eq!(c.libraries[0].evidence.rule, rules::KPACK_NOT_ADVERTISED);
    let c = check(&i, &device("gfx1201"), None);
    assert_eq!(c.libraries[0].verdict, Verdict::NoCode);
}

/// Per-architecture archives (`@GFXARCH@`): a device whose archive exists runs, one whose
/// archive is absent or empty gets a confirmed "no code" naming the file the loader wanted.
#[test]
fn per_arch_archives_are_checked_per_device() {
    let src = std::fs::read(packed().join(".kpack/gloo-gfx90X.kpack")).unwrap();
    let objs = {
        let t = rocpath_sources::kpack::parse(&src).unwrap();
        let f = rocpath_sources::kpack::frames_of(&src, &t).unwrap();
        t.entries
            .iter()
            .map(|e| {
                let b = rocpath_sources::kpack::entry_bytes(&src, &t, &f, e, &Default::default())
                    .unwrap();
                (e.arch.clone(), b.to_vec())
            })
            .collect::<Vec<_>>()
    };
    let get = |a: &str| objs.iter().find(|(x, _)| x == a).unwrap().1.clone();
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("lib")).unwrap();
    std::fs::create_dir_all(d.path().join(".kpack")).unwrap();
    let host = std::fs::read(packed().join("lib/libgloo_hip.so.0.5.0")).unwrap();
    std::fs::write(
        d.path().join("lib/libgloo_hip.so.0.5.0"),
        with_marker(&host, &["../.kpack/g_@GFXARCH@.kpack"], "g.so"),
    )
    .unwrap();
    let k = d.path().join(".kpack");
    let gfx90a = get("gfx90a");
    let gfx900 = get("gfx900");
    std::fs::write(
        k.join("g_gfx90a:xnack-.kpack"),
        write_kpack(&[("g.so", "gfx90a", &gfx90a)], true, &["gfx90a:xnack-"]),
    )
    .unwrap();
    std::fs::write(
        k.join("g_gfx900.kpack"),
        write_kpack(&[("g.so", "gfx900", &gfx900)], false, &["gfx900"]),
    )
    .unwrap();
    std::fs::write(k.join("g_gfx1100.kpack"), b"").unwrap();
    let i = inv(d.path());
    assert_eq!(i.code_objects.len(), 2);
    // The feature-split archive is the first name the loader tries for gfx90a:xnack-.
    let c = check(&i, &device("gfx90a:xnack-"), None);
    assert_eq!(c.libraries[0].verdict, Verdict::Runs);
    for (dev, want) in [
        ("gfx1100", "g_gfx1100.kpack (empty)"),
        ("gfx1030", "g_gfx1030.kpack"),
    ] {
        let c = check(&i, &device(dev), None);
        let l = &c.libraries[0];
        assert_eq!(
            (l.verdict, l.evidence.class),
            (Verdict::NoCode, Class::Confirmed)
        );
        assert_eq!(l.evidence.rule, rules::KPACK_MISSING, "{dev}");
        assert!(l.why.contains(want), "{dev}: {}", l.why);
    }
}

/// `diff ORIGINAL KPACKED`: per target, one code object and one kernel fewer — the second
/// bundle the packer did not move.
#[test]
fn diff_shows_what_the_split_kept_and_lost() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let orig = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(orig.path().join("lib")).unwrap();
    std::fs::copy(
        dir.join("gloo-rocm-0.0-git20250912_libgloo_hip.so.0.5.0"),
        orig.path().join("lib/libgloo_hip.so.0.5.0"),
    )
    .unwrap();
    let d = rocpath_inventory::diff::diff(&inv(orig.path()), &inv(&packed()));
    assert!(d.targets_added.is_empty() && d.targets_removed.is_empty());
    assert_eq!(d.libraries.len(), 1);
    let l = &d.libraries[0];
    assert_eq!(l.kernels.len(), 10);
    for k in &l.kernels {
        assert_eq!((k.objects_old, k.objects_new), (2, 1), "{}", k.target);
        assert_eq!((k.old, k.new), (33, 32));
        assert_eq!(k.removed.len(), 1);
        assert!(k.added.is_empty());
    }
    assert_eq!(d.kpack.len(), 1);
    assert!(
        d.kpack[0].starts_with("NEW lib/libgloo_hip.so: 1 of 2 fat-binary wrappers"),
        "{:?}",
        d.kpack
    );
}
