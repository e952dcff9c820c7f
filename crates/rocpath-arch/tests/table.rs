//! Consistency of the architecture table itself (no external tools needed).

use rocpath_arch::{Family, Generation, Mfma, TARGETS, TargetFeature, Wmma, by_mach, target};
use std::collections::BTreeSet;

#[test]
fn names_and_mach_values_are_unique() {
    let names: BTreeSet<_> = TARGETS.iter().map(|t| t.name).collect();
    assert_eq!(names.len(), TARGETS.len());
    let machs: BTreeSet<_> = TARGETS.iter().map(|t| t.mach).collect();
    assert_eq!(machs.len(), TARGETS.len());
}

#[test]
fn rows_are_sorted_by_generation_with_generics_last() {
    let specific: Vec<_> = TARGETS
        .iter()
        .take_while(|t| t.family != Family::Generic)
        .collect();
    assert!(specific.windows(2).all(|w| w[0].version < w[1].version));
    assert!(
        TARGETS[specific.len()..]
            .iter()
            .all(|t| t.family == Family::Generic)
    );
}

#[test]
fn generic_rows_and_their_members_agree() {
    for g in TARGETS.iter().filter(|t| t.family == Family::Generic) {
        assert!(!g.covers.is_empty(), "{} covers nothing", g.name);
        assert_eq!(g.generic, None);
        for member in g.covers {
            let m = target(member).unwrap_or_else(|| panic!("{} covers unknown {member}", g.name));
            assert_eq!(
                m.generic,
                Some(g.name),
                "{member} should name {} as its generic",
                g.name
            );
            assert_eq!(m.generation, g.generation);
            // A generic target offers no more than each member has.
            assert!(
                g.dot.iter().all(|d| m.dot.contains(d)),
                "{}: dot {:?} vs {member} {:?}",
                g.name,
                g.dot,
                m.dot
            );
            assert!(g.mfma <= m.mfma && g.wmma <= m.wmma);
            assert!(!g.fp8 || m.fp8);
            assert!(!g.xf32 || m.xf32);
            assert!(!g.packed_fp32 || m.packed_fp32);
            assert!(g.lds_bytes <= m.lds_bytes);
        }
    }
    for t in TARGETS.iter().filter(|t| t.family != Family::Generic) {
        assert!(t.covers.is_empty());
        if let Some(g) = t.generic {
            assert!(
                target(g).is_some_and(|r| r.covers.contains(&t.name)),
                "{} -> {g}",
                t.name
            );
        }
    }
}

#[test]
fn columns_follow_the_generation() {
    for t in TARGETS {
        match t.generation {
            Generation::Si | Generation::Ci | Generation::Vi | Generation::Gfx9 => {
                assert_eq!(t.wavefront_sizes, &[64], "{}", t.name);
                assert_eq!(t.wmma, None, "{}", t.name);
            }
            Generation::Gfx10 | Generation::Gfx11 | Generation::Gfx12 => {
                assert_eq!(t.wavefront_sizes.first(), Some(&32), "{}", t.name);
                assert_eq!(t.mfma, None, "{}", t.name);
            }
        }
        assert!(
            t.dot.windows(2).all(|w| w[0] < w[1]) && t.dot.iter().all(|d| (1..=13).contains(d))
        );
        if t.xnack_always_on {
            assert_eq!(t.xnack, TargetFeature::Unsupported, "{}", t.name);
        }
        if t.xnack == TargetFeature::Supported {
            assert_eq!(t.elf_xnack, TargetFeature::Supported, "{}", t.name);
        }
        if t.sramecc == TargetFeature::Supported {
            assert_eq!(t.elf_sramecc, TargetFeature::Supported, "{}", t.name);
        }
        assert!(!t.source.is_empty());
    }
}

#[test]
fn well_known_rows() {
    let gfx90a = target("gfx90a").expect("gfx90a");
    assert_eq!(
        (gfx90a.version, gfx90a.mach, gfx90a.mfma),
        ((9, 0, 10), 0x3f, Some(Mfma::Cdna2))
    );
    assert_eq!(target("gfx90c").map(|t| t.version), Some((9, 0, 12)));
    assert_eq!(target("gfx1030").map(|t| t.version), Some((10, 3, 0)));
    assert_eq!(
        target("gfx942").map(|t| (t.mfma, t.xf32, t.fp8)),
        Some((Some(Mfma::Cdna3), true, true))
    );
    assert_eq!(target("gfx1201").map(|t| t.wmma), Some(Some(Wmma::Gfx12)));
    assert_eq!(by_mach(0x2c).map(|t| t.name), Some("gfx900"));
    assert_eq!(by_mach(0x5f).map(|t| t.name), Some("gfx9-4-generic"));
    // Removed in LLVM 22; their mach values are reserved.
    assert!(target("gfx940").is_none() && target("gfx941").is_none());
    assert!(by_mach(0x40).is_none() && by_mach(0x4b).is_none());
    // Exact names only.
    assert!(
        target("gfx90a:xnack+").is_none()
            && target("tahiti").is_none()
            && target("GFX90A").is_none()
    );
}
