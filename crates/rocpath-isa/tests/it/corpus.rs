//! Checks against the real ROCm corpus (`ROCPATH_CORPUS`, made by
//! `shared/tools/fetch-debian-rocm.sh`): the large reference histograms, and a sample of code
//! objects compared with `llvm-objdump-22 -d`. Both are `#[ignore]`d (long, and they read
//! packages CI does not fetch): `cargo test -p rocpath-isa --test it corpus -- --ignored`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use super::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The corpus folder, when it has been filled; its absence skips the test (fails under CI).
fn corpus() -> Option<PathBuf> {
    let p = rocpath_testdata::corpus_root().filter(|p| p.join("unpacked").is_dir());
    if p.is_none() {
        rocpath_testdata::missing("no Debian corpus (../shared/tools/fetch-debian-rocm.sh)");
    }
    p
}

fn diff(a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>) -> Vec<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (
                a.get(k).copied().unwrap_or(0),
                b.get(k).copied().unwrap_or(0),
            );
            (x != y).then(|| format!("{k}: objdump {x}, rocpath {y}"))
        })
        .collect()
}

#[test]
#[ignore = "decodes whole Debian libraries (librocblas0, librocsparse0, libhipblaslt1), some of which CI does not fetch; minutes in a debug build"]
fn large_reference_histograms() {
    let (Some(c), Some(shared)) = (corpus(), common::shared_dir()) else {
        return;
    };
    let refs = shared.join("fixtures/codeobjects/large-reference");
    let cases = [
        (
            "trixie-librocblas0-5.5.1+dfsg-7_TensileLibrary_gfx90a.co.mnemonics.tsv",
            "unpacked/librocblas0/usr/lib/x86_64-linux-gnu/rocblas/2.47.0/library/TensileLibrary_gfx90a.co",
            None,
        ),
        (
            "sid-libhipblaslt1-7.1.1+dfsg-4_Kernels.so-000-gfx1201.hsaco.mnemonics.tsv",
            "unpacked/libhipblaslt1/usr/lib/x86_64-linux-gnu/hipblaslt/library/Kernels.so-000-gfx1201.hsaco",
            None,
        ),
        (
            "bookworm-librocsparse0-5.3.0+dfsg-2_largest-gfx803.co.mnemonics.tsv",
            "unpacked/librocsparse0/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1",
            Some((435_613_696usize, 14_086_824usize)),
        ),
    ];
    let mut failures = Vec::new();
    for (tsv, rel, cut) in cases {
        let path = c.join(rel);
        let Ok(data) = std::fs::read(&path) else {
            rocpath_testdata::missing(&format!("{tsv}: {} not in the corpus", path.display()));
            continue;
        };
        let elf = match cut {
            Some((off, len)) => match data.get(off..off + len) {
                Some(x) => x.to_vec(),
                None => continue,
            },
            None => data,
        };
        let t = std::time::Instant::now();
        let census = common::census_of(&elf).expect("decoder");
        let secs = t.elapsed().as_secs_f64();
        let reference: BTreeMap<String, u64> = common::read_reference(&refs.join(tsv))
            .into_iter()
            .collect();
        let got: BTreeMap<String, u64> = census
            .histogram()
            .into_iter()
            .map(|(m, n)| (m.to_string(), n))
            .collect();
        let d = diff(&reference, &got);
        println!(
            "{tsv}: {} instructions, {} differences, {secs:.2}s",
            census.instructions(),
            d.len()
        );
        if !d.is_empty() {
            failures.push(format!("{tsv}: {}", d.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "co" || e == "hsaco")
            || p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("lib") && (n.ends_with(".so") || n.contains(".so.")))
        {
            out.push(p);
        }
    }
}

#[test]
#[ignore = "runs llvm-objdump-22 over a sample of every library in the Debian corpus; minutes"]
fn corpus_sample_matches_llvm_objdump() {
    let Some(c) = corpus() else {
        return;
    };
    if !common::have_objdump() {
        return;
    }
    let limit: usize = std::env::var("ROCPATH_CORPUS_SAMPLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let max_bytes: usize = std::env::var("ROCPATH_CORPUS_MAX_BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8 << 20);
    let mut files = Vec::new();
    walk(&c.join("unpacked"), &mut files);
    let is_so = |p: &PathBuf| p.extension().is_none_or(|e| e != "co" && e != "hsaco");
    let (libs, objs): (Vec<&PathBuf>, Vec<&PathBuf>) = files.iter().partition(|p| is_so(p));
    // Spread the sample over the list (deterministic); host libraries contribute a few entries each.
    let objs: Vec<&PathBuf> = objs
        .into_iter()
        .filter(|p| p.metadata().is_ok_and(|m| (m.len() as usize) <= max_bytes))
        .collect();
    let step = (objs.len() / limit.max(1)).max(1);
    let per_lib: usize = std::env::var("ROCPATH_CORPUS_PER_LIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let tmp = std::env::temp_dir().join(format!("rocpath-isa-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (mut objects, mut instructions, mut failures) = (0, 0u64, Vec::new());
    let chosen: Vec<&PathBuf> = objs
        .iter()
        .copied()
        .step_by(step)
        .take(limit)
        .chain(libs.iter().copied())
        .collect();
    for p in chosen {
        let data = std::fs::read(p).unwrap();
        let mut entries: Vec<(String, Vec<u8>)> = common::code_objects_in(&data);
        if is_so(p) {
            entries.retain(|(_, e)| e.len() <= max_bytes / 2);
            let k = (entries.len() / per_lib.max(1)).max(1);
            entries = entries.into_iter().step_by(k).take(per_lib).collect();
        }
        for (id, elf) in entries {
            let Some(census) = common::census_of(&elf) else {
                println!(
                    "no decoder for {} {id} (e_flags {:#x})",
                    p.display(),
                    common::e_flags(&elf)
                );
                continue;
            };
            let f = tmp.join("obj");
            std::fs::write(&f, &elf).unwrap();
            let Some(reference) = common::objdump_histogram(&f) else {
                continue;
            };
            let got: BTreeMap<String, u64> = census
                .histogram()
                .into_iter()
                .map(|(m, n)| (m.to_string(), n))
                .collect();
            let d = diff(&reference, &got);
            objects += 1;
            instructions += census.instructions();
            println!(
                "{} {id}: {} instructions, {} differences",
                p.display(),
                census.instructions(),
                d.len()
            );
            if !d.is_empty() {
                failures.push(format!("{} {id}: {}", p.display(), d.join("; ")));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("{objects} code objects, {instructions} instructions compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
