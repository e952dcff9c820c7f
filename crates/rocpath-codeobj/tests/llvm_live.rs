//! Kernel metadata compared with `llvm-readelf-22 --notes`, run live on the bundled example
//! code objects (always present) and on the standalone shared fixtures (when present).
//! Skips when LLVM 22 is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const KEYS: [&str; 7] = [
    "name",
    "sgpr_count",
    "vgpr_count",
    "wavefront_size",
    "group_segment_fixed_size",
    "private_segment_fixed_size",
    "kernarg_segment_size",
];

/// Kernel-level keys of each `amdhsa.kernels` entry, in note order, from LLVM's YAML.
fn llvm_kernels(path: &Path) -> Vec<BTreeMap<String, String>> {
    let out = std::process::Command::new("llvm-readelf-22")
        .arg("--notes")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut ks: Vec<BTreeMap<String, String>> = Vec::new();
    let mut in_kernels = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            in_kernels = line.starts_with("amdhsa.kernels:");
            continue;
        }
        if !in_kernels {
            continue;
        }
        if let Some(rest) = line.strip_prefix("  - ") {
            ks.push(BTreeMap::new());
            // The first key of an entry sits on the dash line.
            if let Some((k, v)) = rest
                .trim()
                .strip_prefix('.')
                .and_then(|r| r.split_once(':'))
            {
                ks.last_mut()
                    .unwrap()
                    .insert(k.to_string(), v.trim().to_string());
            }
        } else if let Some(rest) = line.strip_prefix("    .") {
            if let (Some(k), Some((key, v))) = (ks.last_mut(), rest.split_once(':')) {
                k.insert(key.to_string(), v.trim().to_string());
            }
        }
    }
    ks
}

fn ours(path: &Path) -> Vec<BTreeMap<String, String>> {
    let data = std::fs::read(path).unwrap();
    let co = rocpath_codeobj::parse(&data).unwrap();
    co.kernels
        .iter()
        .map(|k| {
            let o = |v: Option<u64>| v.map(|x| x.to_string());
            [
                ("name", Some(k.name.clone())),
                ("sgpr_count", o(k.sgpr_count)),
                ("vgpr_count", o(k.vgpr_count)),
                ("wavefront_size", o(k.wavefront_size)),
                ("group_segment_fixed_size", o(k.group_segment_fixed_size)),
                (
                    "private_segment_fixed_size",
                    o(k.private_segment_fixed_size),
                ),
                ("kernarg_segment_size", o(k.kernarg_segment_size)),
            ]
            .into_iter()
            .filter_map(|(k, v)| Some((k.to_string(), v?)))
            .collect()
        })
        .collect()
}

fn files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    let ex = rocpath_testdata::repo_root()
        .join("examples/data/install/opt/rocm-example/lib/example/library");
    for e in std::fs::read_dir(ex).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "co" || x == "hsaco") {
            v.push(p);
        }
    }
    if let Some(dir) = rocpath_testdata::codeobjects_dir() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let n = p.file_name().unwrap().to_string_lossy().to_string();
            if (n.ends_with(".co") || n.ends_with(".hsaco"))
                && !n.contains("legacy-v1")
                && !n.contains("hipblasltTransform")
            {
                // CCOB `.co` files are bundles, not ELF: llvm-readelf cannot read them directly.
                if std::fs::read(&p).unwrap().starts_with(b"\x7fELF") {
                    v.push(p);
                }
            }
        }
    }
    v.sort();
    v
}

#[test]
fn kernel_metadata_matches_llvm_readelf() {
    if !rocpath_testdata::have_tool("llvm-readelf-22") {
        rocpath_testdata::missing("llvm-readelf-22 not installed (apt-get install llvm-22)");
        return;
    }
    let fs = files();
    assert!(fs.len() >= 2);
    for f in fs {
        let theirs = llvm_kernels(&f);
        let mine = ours(&f);
        assert_eq!(mine.len(), theirs.len(), "{}", f.display());
        for (m, t) in mine.iter().zip(&theirs) {
            for k in KEYS {
                assert_eq!(
                    m.get(k),
                    t.get(k),
                    "{} kernel {:?} key {k}",
                    f.display(),
                    t.get("name")
                );
            }
        }
    }
}
