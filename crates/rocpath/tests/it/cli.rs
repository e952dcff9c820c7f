//! End-to-end tests of the `rocpath` binary: JSON contracts, exit codes, error reporting,
//! on the bundled example data (always present) and on the shared real fixtures (skipped
//! when absent).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn repo() -> PathBuf {
    rocpath_testdata::repo_root()
}

fn example() -> PathBuf {
    repo().join("examples").join("data")
}

fn rocpath() -> Command {
    let mut c = Command::cargo_bin("rocpath").unwrap();
    c.arg("--no-progress");
    c
}

fn json(args: &[&str]) -> (Value, i32, String) {
    let out = rocpath().arg("--json").args(args).output().unwrap();
    let code = out.status.code().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (v, code, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn assert_evidence(v: &Value, what: &str) {
    let ev = &v["evidence"];
    let class = ev["class"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: no evidence class in {v}"));
    assert!(
        ["confirmed", "inferred", "unresolved", "limited"].contains(&class),
        "{what}: {class}"
    );
    let kind = ev["kind"].as_str().unwrap();
    assert!(
        [
            "shipped_artifact_verified",
            "code_verified",
            "runtime_verified",
            "history_verified",
            "hypothesis",
            "speculative"
        ]
        .contains(&kind),
        "{what}: {kind}"
    );
    assert!(!ev["rule"].as_str().unwrap().is_empty());
}

#[test]
fn inventory_json_contract_on_the_example() {
    let ex = example();
    let (v, code, _) = json(&["inventory", ex.join("install").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(v["schema"], "rocpath.inventory/1");
    crate::doc_contract::reads_back::<rocpath_docs::inventory::Inventory>(v.clone());
    for k in ["tool", "version", "command", "time", "host"] {
        assert!(
            v["observed"][k].as_str().is_some_and(|s| !s.is_empty()),
            "observed.{k}"
        );
    }
    let cos = v["code_objects"].as_array().unwrap();
    // blas: 5 targets, dnn (CCOB): 3, Tensile folder: 2 standalone objects.
    assert_eq!(cos.len(), 10);
    for co in cos {
        assert_evidence(co, "code object");
        assert_eq!(co["evidence"]["class"], "confirmed");
        assert!(co["path"].as_str().is_some());
        assert!(
            co["target"]
                .as_str()
                .unwrap()
                .starts_with("amdgcn-amd-amdhsa--gfx")
        );
        // Hashing is asked for with --hash; the record says it was not hashed.
        assert!(co.get("sha256").is_none(), "{co}");
        assert_eq!(co["sha256_source"], "not_hashed");
        let ks = co["kernels"].as_array().unwrap();
        assert_eq!(ks.len(), 3, "{co}");
        let names: BTreeSet<&str> = ks.iter().map(|k| k["name"].as_str().unwrap()).collect();
        assert_eq!(names, BTreeSet::from(["saxpy", "dot_i8", "gemm_tile"]));
        for k in ks {
            for f in [
                "sgpr_count",
                "vgpr_count",
                "wavefront_size",
                "group_segment_fixed_size",
                "private_segment_fixed_size",
                "kernarg_segment_size",
            ] {
                assert!(k[f].as_u64().is_some(), "{f} missing in {k}");
            }
        }
    }
    let dnn: Vec<&Value> = cos
        .iter()
        .filter(|c| c["path"].as_str().unwrap().contains("libexample_dnn"))
        .collect();
    assert_eq!(dnn.len(), 3);
    assert!(
        dnn.iter().all(|c| c["container"]
            .as_str()
            .unwrap()
            .starts_with("hip_fatbin > ccob#0@")),
        "{}",
        dnn[0]["container"]
    );
    let t = &v["targets"];
    assert_eq!(t["gfx906"]["code_objects"], 2);
    assert_eq!(t["gfx1100"]["code_objects"], 3);
    assert_eq!(t["gfx906"]["kernels"], 6);
    assert_eq!(v["errors"].as_array().unwrap().len(), 0);
    for r in v["tensile"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["miopen_dbs"].as_array().unwrap())
    {
        assert_evidence(r, "tensile/miopen");
    }
    let lazy1100 = v["tensile"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "TensileLibrary_lazy_gfx1100.dat")
        .unwrap();
    assert_eq!(
        lazy1100["missing_placeholders"].as_array().unwrap().len(),
        1
    );
    let dbs = v["miopen_dbs"].as_array().unwrap();
    assert!(
        dbs.iter()
            .any(|d| d["processor"] == "gfx90a" && d["cus"] == 104)
    );
}

#[test]
fn the_deb_gives_the_same_code_objects_as_the_unpacked_install() {
    let ex = example();
    let install = ex.join("install");
    let (a, _, _) = json(&[
        "inventory",
        "--hash",
        "--no-hash-cache",
        install.to_str().unwrap(),
    ]);
    let (b, code, _) = json(&[
        "inventory",
        "--hash",
        "--no-hash-cache",
        ex.join("rocm-example_1.1_amd64.deb").to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let hashes = |v: &Value| -> BTreeSet<String> {
        v["code_objects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["sha256"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(hashes(&a), hashes(&b));
    assert!(
        b["code_objects"][0]["container"]
            .as_str()
            .unwrap()
            .starts_with("deb:data.tar.xz:./opt/rocm-example/")
    );
}

#[test]
fn target_filter_keeps_one_target() {
    let ex = example();
    let (v, code, _) = json(&["inventory", "--target", "gfx900", ex.to_str().unwrap()]);
    assert_eq!(code, 0);
    let cos = v["code_objects"].as_array().unwrap();
    assert!(!cos.is_empty());
    assert!(cos.iter().all(|c| c["processor"] == "gfx900"));
    let out = rocpath()
        .args(["inventory", "--target", "gfx9000", ex.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown gfx target"));
}

#[test]
fn tsv_has_one_row_per_code_object_and_per_kernel() {
    let ex = example().join("install");
    let out = rocpath()
        .args(["inventory", "--tsv", ex.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("path\tcontainer\tlibrary\toffset"));
    assert_eq!(lines.len(), 1 + 10);
    assert!(
        lines
            .iter()
            .skip(1)
            .all(|l| l.split('\t').count() == lines[0].split('\t').count())
    );
    let out = rocpath()
        .args(["inventory", "--tsv", "--kernels", ex.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().lines().count(),
        1 + 30
    );
}

#[test]
fn exit_codes_and_errors_name_the_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    // Empty folder: nothing found -> 1.
    let out = rocpath()
        .args(["inventory", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // Missing path -> 2, named.
    let missing = dir.path().join("nope");
    let out = rocpath()
        .args(["inventory", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    // A truncated bundle next to a good library: the bad one is an error with its offset,
    // the good one is still inventoried, exit 2.
    let blas = std::fs::read(example().join("install/opt/rocm-example/lib/libexample_blas.so.1.1"))
        .unwrap();
    std::fs::write(dir.path().join("good.so"), &blas).unwrap();
    let start = blas
        .windows(24)
        .position(|w| w == b"__CLANG_OFFLOAD_BUNDLE__")
        .unwrap();
    std::fs::write(dir.path().join("bad.hipfb"), &blas[start..start + 200]).unwrap();
    let (v, code, stderr) = json(&["inventory", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(v["code_objects"].as_array().unwrap().len(), 5);
    let errs = v["errors"].as_array().unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0]["path"].as_str().unwrap().ends_with("bad.hipfb"));
    assert!(errs[0]["offset"].as_u64().is_some());
    assert_evidence(&errs[0], "error");
    assert!(
        stderr.contains("bad.hipfb") && stderr.contains("offset"),
        "{stderr}"
    );
}

#[test]
fn check_with_saved_rocminfo_and_override() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::missing("shared/ not present");
        return;
    };
    let ri = shared.join("fixtures/rocminfo-gfx900.txt");
    let ex = example().join("install");
    let (v, code, _) = json(&[
        "check",
        "--rocminfo",
        ri.to_str().unwrap(),
        "--override",
        "9.0.6",
        ex.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "some libraries have no gfx900 code");
    let d = &v["devices"][0];
    assert_eq!(
        d["device"]["target"], "gfx900:xnack-",
        "rocminfo names the xnack setting"
    );
    assert_eq!(d["device"]["cus"], 64);
    let libs = d["libraries"].as_array().unwrap();
    let by = |needle: &str| {
        libs.iter()
            .find(|l| l["library"].as_str().unwrap().contains(needle))
            .unwrap()
    };
    let blas = by("libexample_blas");
    assert_eq!(blas["verdict"], "runs");
    assert_eq!(blas["evidence"]["class"], "inferred");
    let dnn = by("libexample_dnn");
    assert_eq!(dnn["verdict"], "no_code");
    assert_eq!(dnn["evidence"]["class"], "confirmed");
    assert_eq!(dnn["with_override"]["verdict"], "no_code");
    let tensile = by("(Tensile library)");
    assert_eq!(tensile["verdict"], "no_code");
    assert_eq!(
        tensile["with_override"]["verdict"], "runs",
        "gfx906 has a Tensile index"
    );
    for l in libs {
        assert_evidence(l, "check");
    }
    crate::doc_contract::reads_back::<rocpath_docs::check::CheckDoc>(v.clone());
}

#[test]
fn check_feature_rules() {
    let ex = example().join("install");
    // gfx90a:xnack- cannot load the xnack+ object -> no code in blas.
    let (v, _, _) = json(&["check", "--target", "gfx90a:xnack-", ex.to_str().unwrap()]);
    let blas = v["devices"][0]["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["library"].as_str().unwrap().contains("blas"))
        .cloned()
        .unwrap();
    assert_eq!(blas["verdict"], "no_code");
    // gfx90a with xnack unknown: depends (unresolved).
    let (v, _, _) = json(&["check", "--target", "gfx90a", ex.to_str().unwrap()]);
    let blas = v["devices"][0]["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["library"].as_str().unwrap().contains("blas"))
        .cloned()
        .unwrap();
    assert_eq!(blas["verdict"], "depends");
    assert_eq!(blas["evidence"]["class"], "unresolved");
    // Unknown target: usage error.
    let out = rocpath()
        .args(["check", "--target", "gfx999", ex.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn diff_between_example_versions_and_saved_json() {
    let ex = example();
    let (v, code, _) = json(&[
        "diff",
        ex.join("install-old").to_str().unwrap(),
        ex.join("install").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(v["targets_removed"], serde_json::json!(["gfx803"]));
    assert!(
        v["targets_added"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "gfx1201")
    );
    let blas = v["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| {
            l["library"]
                .as_str()
                .unwrap()
                .ends_with("libexample_blas.so")
        })
        .unwrap();
    assert_eq!(blas["status"], "changed");
    assert_eq!(blas["targets_removed"], serde_json::json!(["gfx803"]));
    assert_eq!(
        blas["targets_added"],
        serde_json::json!(["gfx1030", "gfx1100"])
    );
    // Same install on both sides: no change, exit 0. One side as a saved JSON inventory.
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("old.json");
    let out = rocpath()
        .args(["--json", "inventory", ex.join("install").to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::write(&saved, &out.stdout).unwrap();
    let (v, code, _) = json(&[
        "diff",
        saved.to_str().unwrap(),
        ex.join("install").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["libraries"].as_array().unwrap().len(), 0);
}

#[test]
fn arch_json_and_lookup() {
    let (v, code, _) = json(&["arch"]);
    assert_eq!(code, 0);
    let rows = v["targets"].as_array().unwrap();
    assert!(rows.len() >= 50);
    for r in rows {
        assert_evidence(r, "arch row");
    }
    let (v, _, _) = json(&["arch", "gfx90a:xnack+"]);
    assert_eq!(v["targets"][0]["name"], "gfx90a");
    assert_eq!(v["targets"][0]["mfma"], "Cdna2");
    let (v, _, _) = json(&["arch", "gfx120"]);
    assert_eq!(v["targets"].as_array().unwrap().len(), 2);
    let out = rocpath().args(["arch", "gfx4242"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn real_fixtures_inventory_matches_llvm_manifest() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    let (v, code, stderr) = json(&[
        "inventory",
        "--hash",
        "--no-hash-cache",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let manifest = rocpath_testdata::read_tsv(&dir.join("manifest.tsv")).unwrap();
    let want: BTreeSet<String> = manifest
        .iter()
        .map(|r| r["codeobj_sha256"].clone())
        .collect();
    let cos = v["code_objects"].as_array().unwrap();
    // Standalone fixtures are cut out of the containers that are fixtures too, so the same
    // object can appear twice: compare sets, and counts per fixture file.
    let got: BTreeSet<String> = cos
        .iter()
        .map(|c| c["sha256"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, want);
    for row in &manifest {
        let co = cos
            .iter()
            .find(|c| {
                c["sha256"] == row["codeobj_sha256"].as_str()
                    && c["path"].as_str().unwrap().ends_with(&row["fixture"])
            })
            .unwrap_or_else(|| panic!("{} {}", row["fixture"], row["entry"]));
        let proc_ = row["elf_flags(llvm-readelf)"]
            .split(", ")
            .nth(1)
            .unwrap_or("gfx900");
        assert_eq!(co["processor"], proc_);
        assert_eq!(
            co["size"].as_u64().unwrap().to_string(),
            row["codeobj_bytes"]
        );
    }
}

#[test]
fn offload_entries_agree_with_llvm_readobj() {
    let Some(dir) = rocpath_testdata::codeobjects_dir() else {
        return;
    };
    if !rocpath_testdata::have_tool("llvm-readobj-22") {
        rocpath_testdata::missing("llvm-readobj-22 not installed");
        return;
    }
    let so = dir.join("gloo-rocm-0.0-git20250912_libgloo_hip.so.0.5.0");
    let out = std::process::Command::new("llvm-readobj-22")
        .arg("--offloading")
        .arg(&so)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut llvm: BTreeSet<(String, u64, u64)> = BTreeSet::new();
    for line in text.lines() {
        let Some((id, uri)) = line.split_once('\t') else {
            continue;
        };
        if id.starts_with("host-") {
            continue;
        }
        let q = uri.rsplit_once('#').unwrap().1;
        let get = |k: &str| {
            q.split('&')
                .find_map(|p| p.strip_prefix(k))
                .unwrap()
                .parse::<u64>()
                .unwrap()
        };
        llvm.insert((id.to_string(), get("offset="), get("size=")));
    }
    let (v, _, _) = json(&["inventory", so.to_str().unwrap()]);
    let ours: BTreeSet<(String, u64, u64)> = v["code_objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["bundle_id"].as_str().unwrap().to_string(),
                c["offset"].as_u64().unwrap(),
                c["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(llvm.len(), 20);
    assert_eq!(ours, llvm);
}

#[test]
fn isa_json_contract_and_find() {
    let ex = example().join("install");
    let (v, code, _) = json(&["isa", ex.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(v["schema"], "rocpath.isa/1");
    crate::doc_contract::reads_back::<rocpath_docs::isa::IsaReport>(v.clone());
    let cos = v["code_objects"].as_array().unwrap();
    assert_eq!(cos.len(), 10);
    for co in cos {
        assert_evidence(co, "isa code object");
        for k in ["path", "target"] {
            assert!(co[k].as_str().is_some());
        }
        assert!(co["instructions"].as_u64().unwrap() > 0);
        assert!(co["code_bytes"].as_u64().unwrap() > 0);
        let m = co["mnemonics"].as_object().unwrap();
        assert_eq!(
            m.values().map(|x| x.as_u64().unwrap()).sum::<u64>(),
            co["instructions"].as_u64().unwrap()
        );
        assert!(co["classes"].as_object().is_some());
        let ks = co["kernels"].as_array().unwrap();
        assert!(ks.iter().any(|k| k["name"] == "dot_i8"
            && k["is_kernel"] == true
            && k["mnemonics"].is_object()));
    }
    // The example's capability gates: dot4 only where the chip has it, MFMA on CDNA, WMMA on RDNA3/4.
    let (v, code, _) = json(&[
        "isa",
        "--find",
        "v_dot4_i32_i8,v_mfma,v_wmma",
        ex.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let hits = v["find"].as_array().unwrap();
    let targets = |term: &str| -> BTreeSet<String> {
        hits.iter()
            .filter(|h| h["term"] == term && h["kernel"] != "")
            .map(|h| h["target_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        targets("v_dot4_i32_i8"),
        BTreeSet::from(["gfx906".to_string()])
    );
    assert_eq!(
        targets("v_mfma"),
        BTreeSet::from(["gfx90a:xnack+".to_string(), "gfx942".to_string()])
    );
    assert_eq!(
        targets("v_wmma"),
        BTreeSet::from(["gfx1100".to_string(), "gfx1201".to_string()])
    );
    assert!(hits.iter().all(|h| h["evidence"]["class"] == "confirmed"));
    // gfx900 takes the fallback: no dot, no matrix instructions, FMA/MAD only.
    let (v, _, _) = json(&["isa", "--target", "gfx900", ex.to_str().unwrap()]);
    let g = &v["targets"]["gfx900:xnack-"]["groups"];
    assert!(
        g.get("dot").is_none() && g.get("mfma").is_none() && g.get("wmma").is_none(),
        "{g}"
    );
    assert!(g["fma"].as_u64().unwrap() > 0);
    // Nothing found -> exit 1.
    let out = rocpath()
        .args(["isa", "--find", "v_no_such", ex.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // --disasm prints the stream of one kernel.
    let out = rocpath()
        .args([
            "isa",
            "--kernel",
            "saxpy",
            "--exact",
            "--disasm",
            "--target",
            "gfx906",
            ex.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("<saxpy>:") && text.contains("s_endpgm"),
        "{text}"
    );
}

/// Two GPUs: the real gfx900 rocminfo with its GPU agent repeated as a gfx1201 (`Agent 3`).
/// Each device gets its own verdict, and `HSA_OVERRIDE_GFX_VERSION_1` applies to the second
/// only.
#[test]
fn check_gives_one_verdict_per_device_with_per_device_overrides() {
    let Some(shared) = rocpath_testdata::shared_dir() else {
        rocpath_testdata::missing("shared/ not present");
        return;
    };
    let text = std::fs::read_to_string(shared.join("fixtures/rocminfo-gfx900.txt")).unwrap();
    let start = text.find("Agent 2").unwrap();
    let end = text[start + 7..]
        .find("Agent ")
        .map_or(text.len(), |i| start + 7 + i);
    let second = text[start..end]
        .replace("Agent 2", "Agent 3")
        .replace("gfx900:xnack-", "gfx1201")
        .replace("gfx900", "gfx1201");
    let tmp = tempfile::tempdir().unwrap();
    let ri = tmp.path().join("rocminfo.txt");
    std::fs::write(&ri, format!("{text}\n*******\n{second}")).unwrap();
    let ex = example().join("install");
    let out = rocpath()
        .args(["--json", "check", "--rocminfo"])
        .arg(&ri)
        .arg(&ex)
        .env_remove("HSA_OVERRIDE_GFX_VERSION")
        .env("HSA_OVERRIDE_GFX_VERSION_1", "11.0.0")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let devs = v["devices"].as_array().unwrap();
    assert_eq!(devs.len(), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(devs[0]["device"]["target"], "gfx900:xnack-");
    assert!(devs[0]["override"].is_null());
    assert_eq!(devs[1]["device"]["target"], "gfx1201");
    assert_eq!(devs[1]["override"]["source"], "HSA_OVERRIDE_GFX_VERSION_1");
    assert_eq!(devs[1]["override"]["processor"], "gfx1100");
    for d in devs {
        let v = d["verdict"].as_str().unwrap();
        assert!(
            ["runs", "partial", "no_code", "depends"].contains(&v),
            "{v}"
        );
    }
    assert!(devs[1]["verdict_with_override"].is_string());
}

#[test]
fn hashes_are_computed_then_taken_from_the_cache_and_say_so() {
    let cache = tempfile::tempdir().unwrap();
    let install = example().join("install");
    let run = || -> Value {
        let out = rocpath()
            .env("ROCPATH_CACHE", cache.path())
            .args(["--json", "inventory", "--hash", install.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let first = run();
    let second = run();
    let n = first["code_objects"].as_array().unwrap().len() as u64;
    assert_eq!(first["hashing"]["mode"], "cached");
    assert_eq!(first["hashing"]["computed"], n);
    let mut cached = 0;
    for (a, b) in first["code_objects"]
        .as_array()
        .unwrap()
        .iter()
        .zip(second["code_objects"].as_array().unwrap())
    {
        assert_eq!(a["sha256"].as_str().unwrap().len(), 64);
        assert_eq!(a["sha256"], b["sha256"]);
        assert_eq!(a["evidence"]["sources"][0]["sha256"], a["sha256"], "{a}");
        assert_eq!(a["sha256_source"], "computed");
        // Only a file's own bytes are cached: an object decompressed from a CCOB is hashed
        // again, and says so.
        let compressed = b["container"].as_str().unwrap().contains("ccob#");
        let want = if compressed { "computed" } else { "cached" };
        assert_eq!(b["sha256_source"], want, "{b}");
        cached += u64::from(!compressed);
    }
    assert!(cached > 0);
    assert_eq!(second["hashing"]["cached"], cached, "{}", second["hashing"]);
    assert_eq!(second["hashing"]["computed"], n - cached);
    assert!(cache.path().join("hashes-v1.tsv").is_file());
}
