//! The survey on the committed machine images (`tests/data/README.md`), on images made of
//! bad input, and on an image built from real Debian ROCm files in `../shared` when present.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use rocpath_survey::{AnswerKind, NoProgress, Options, Outcome, Survey, survey};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn run(root: &Path) -> Survey {
    survey(
        &Options {
            root: root.to_path_buf(),
            ..Options::default()
        },
        &NoProgress,
    )
}

fn outcome(s: &Survey, install: &str) -> Outcome {
    s.verdicts
        .iter()
        .find(|v| v.install == install)
        .unwrap_or_else(|| {
            panic!(
                "no verdict for {install}: {:?}",
                s.installs.iter().map(|i| &i.label).collect::<Vec<_>>()
            )
        })
        .outcome
}

#[test]
fn gfx900_host() {
    let s = run(&data("gfx900-host"));
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(s.devices.len(), 1);
    let d = &s.devices[0];
    assert_eq!(
        (d.device.target.processor.as_str(), d.device.cus),
        ("gfx900", Some(64))
    );
    // KFD does not state xnack: the gfx900:xnack- objects depend on it.
    assert!(d.notes.iter().any(|n| n.contains("xnack")));
    let labels: Vec<&str> = s.installs.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels.len(), 4, "{labels:?}");
    let rocm = &s.installs[0];
    assert_eq!(
        (rocm.label.as_str(), rocm.version.as_deref()),
        ("rocm-6.4.0", Some("6.4.0-47"))
    );
    assert_eq!(rocm.aliases, ["/opt/rocm"]);
    // Tensile kernel files are not read, the indexes and libraries are.
    assert_eq!(rocm.files, 7, "{:?}", rocm.paths);
    // The override lives in ollama.service only.
    let ov: Vec<_> = s
        .variables
        .iter()
        .map(|v| (v.scope.as_str(), v.name.as_str(), v.value.as_str()))
        .collect();
    assert_eq!(
        ov,
        [("ollama.service", "HSA_OVERRIDE_GFX_VERSION", "9.0.6")]
    );
    let ollama = s
        .installs
        .iter()
        .find(|i| i.kind == rocpath_survey::Kind::Ollama)
        .unwrap();
    assert_eq!(ollama.scope, "ollama.service");
    assert_eq!(outcome(&s, &ollama.label), Outcome::RunsWithOverride);
    assert_eq!(outcome(&s, "rocm-6.4.0"), Outcome::Depends);
    assert_eq!(outcome(&s, "/home/user/venv torch"), Outcome::NoCode);
    assert_eq!(outcome(&s, "/home/user/cuda-env torch"), Outcome::NoGpuCode);
    let rocm_v = s
        .verdicts
        .iter()
        .find(|v| v.install == "rocm-6.4.0")
        .unwrap();
    let falls: Vec<&str> = rocm_v.fallbacks.iter().map(|f| f.then.as_str()).collect();
    assert!(
        falls
            .iter()
            .any(|f| f.contains("Cannot read") && f.contains("gfx900")),
        "{falls:?}"
    );
    assert!(
        falls
            .iter()
            .any(|f| f.contains("MIOpen") && f.contains("gfx900_64.HIP")),
        "{falls:?}"
    );
    assert_eq!(s.answer.kind, AnswerKind::GpuWork);
    assert_eq!(s.user_dbs.len(), 1);
}

#[test]
fn gfx1201_host() {
    let s = run(&data("gfx1201-host"));
    assert_eq!(s.devices[0].device.target.processor, "gfx1201");
    assert_eq!(s.devices[0].device.cus, Some(64));
    // The NFS mount is named and not entered; the link loop ends.
    assert!(
        s.skipped
            .iter()
            .any(|k| k.path == "/home/ana/nas" && k.why.contains("nfs4")),
        "{:?}",
        s.skipped
    );
    assert!(!s.installs.iter().any(|i| i.path.contains("/nas")));
    let labels: Vec<&str> = s.installs.iter().map(|i| i.label.as_str()).collect();
    assert!(labels.contains(&"/usr/lib/x86_64-linux-gnu"), "{labels:?}");
    assert!(
        labels.contains(&"llama.cpp /usr/lib/x86_64-linux-gnu/ggml/backends0"),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"llama.cpp /home/ana/src/llama.cpp/build/bin"),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"ROCBLAS_TENSILE_LIBPATH (shell)"),
        "{labels:?}"
    );
    assert_eq!(
        outcome(&s, "llama.cpp /usr/lib/x86_64-linux-gnu/ggml/backends0"),
        Outcome::Runs
    );
    assert_eq!(
        outcome(&s, "llama.cpp /home/ana/src/llama.cpp/build/bin"),
        Outcome::NoCode
    );
    let dist = s
        .verdicts
        .iter()
        .find(|v| v.install == "/usr/lib/x86_64-linux-gnu")
        .unwrap();
    assert_eq!(dist.outcome, Outcome::Partial);
    // Counts agree with their nouns and verbs.
    assert_eq!(
        dist.why,
        "1 of 2 libraries load on gfx1201; no code in 1, 0 depend on a device setting"
    );
    let tensile = s
        .verdicts
        .iter()
        .find(|v| v.install == "ROCBLAS_TENSILE_LIBPATH (shell)")
        .unwrap();
    assert_eq!(
        tensile.why,
        "0 of 1 Tensile/MIOpen folder has files for gfx1201 (no host library here)"
    );
    assert_eq!(
        s.answer.text,
        "1 GPU, 4 installs: 2 of 4 device × install pairs do GPU work"
    );
    let falls: Vec<&str> = dist.fallbacks.iter().map(|f| f.then.as_str()).collect();
    assert!(
        falls
            .iter()
            .any(|f| f.starts_with("ROCBLAS_TENSILE_LIBPATH=/opt/tensile-gfx1100")),
        "{falls:?}"
    );
    assert!(
        falls
            .iter()
            .any(|f| f.contains("MIOpen find-db for gfx1201")),
        "{falls:?}"
    );
}

#[test]
fn visible_devices_hide_a_device() {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&data("gfx1201-host"), d.path());
    std::fs::write(d.path().join("etc/environment"), "HIP_VISIBLE_DEVICES=1\n").unwrap();
    let s = run(d.path());
    assert!(
        s.verdicts.iter().all(|v| v.outcome == Outcome::Hidden),
        "{:?}",
        s.verdicts.iter().map(|v| v.outcome).collect::<Vec<_>>()
    );
    assert_eq!(s.answer.kind, AnswerKind::NoGpuWork);
}

fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        let ft = e.file_type().unwrap();
        if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&p).unwrap(), &dest).unwrap();
        } else if ft.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

#[test]
fn no_gpu_and_no_rocm_are_clear_answers() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("opt")).unwrap();
    let s = run(d.path());
    assert_eq!(s.answer.kind, AnswerKind::NoGpu);
    assert!(s.answer.text.contains("no AMD GPU"));
    let nodes = d.path().join("sys/class/kfd/kfd/topology/nodes/1");
    std::fs::create_dir_all(&nodes).unwrap();
    std::fs::write(nodes.join("properties"), "gfx_target_version 120001\n").unwrap();
    let s = run(d.path());
    assert_eq!(s.answer.kind, AnswerKind::NoRocm);
    assert!(s.installs.is_empty());
}

/// A PCI device of the image: `sys/devices/pci0000:00/ADDR` with its vendor and device ids,
/// a driver link, and the DRM card `CARD` made of links as the kernel makes them (the class
/// link absolute, so it must resolve inside the image).
fn pci_card(root: &Path, addr: &str, card: &str, vendor: &str, driver: Option<&str>) {
    use std::os::unix::fs::symlink;
    let dev = root.join("sys/devices/pci0000:00").join(addr);
    std::fs::create_dir_all(dev.join("drm").join(card)).unwrap();
    std::fs::write(dev.join("vendor"), format!("{vendor}\n")).unwrap();
    std::fs::write(dev.join("device"), "0x2204\n").unwrap();
    if let Some(d) = driver {
        let drivers = root.join("sys/bus/pci/drivers").join(d);
        std::fs::create_dir_all(&drivers).unwrap();
        symlink(format!("../../../bus/pci/drivers/{d}"), dev.join("driver")).unwrap();
    }
    symlink(
        "../../../".to_string() + addr,
        dev.join("drm").join(card).join("device"),
    )
    .unwrap();
    let class = root.join("sys/class/drm");
    std::fs::create_dir_all(&class).unwrap();
    symlink(
        format!("/sys/devices/pci0000:00/{addr}/drm/{card}"),
        class.join(card),
    )
    .unwrap();
    // A connector is no card.
    std::fs::create_dir_all(class.join(format!("{card}-VGA-1"))).unwrap();
}

#[test]
fn a_machine_whose_gpus_are_not_amd_is_told_so() {
    let d = tempfile::tempdir().unwrap();
    // A server: the BMC's display controller as card0, an NVIDIA GPU only in the driver's
    // /proc list (no DRM card without nvidia-drm).
    pci_card(d.path(), "0000:02:00.0", "card0", "0x1a03", Some("ast"));
    let nv = d.path().join("proc/driver/nvidia/gpus/0000:41:00.0");
    std::fs::create_dir_all(&nv).unwrap();
    std::fs::write(
        nv.join("information"),
        "Model: \t\t NVIDIA GeForce RTX 3090\nIRQ:   \t\t 130\nBus Location: \t 0000:41:00.0\n",
    )
    .unwrap();
    let s = run(d.path());
    assert_eq!(s.answer.kind, AnswerKind::NoGpu);
    let t = &s.answer.text;
    assert!(
        t.starts_with("this machine's GPU is NVIDIA (0000:41:00.0 NVIDIA GeForce RTX 3090, driver nvidia); no AMD GPU"),
        "{t}"
    );
    assert!(!t.contains("amdgpu") && !t.contains("ASPEED"), "{t}");
    let v: Vec<(&str, Option<&str>, bool)> = s
        .pci_gpus
        .iter()
        .map(|g| (g.vendor.as_str(), g.driver.as_deref(), g.display_only))
        .collect();
    assert_eq!(
        v,
        [
            ("ASPEED", Some("ast"), true),
            ("NVIDIA", Some("nvidia"), false)
        ]
    );
    assert_eq!(s.pci_gpus[0].card.as_deref(), Some("card0"));
    assert_eq!(s.pci_gpus[0].address.as_deref(), Some("0000:02:00.0"));
    // In JSON too, with the files read as the answer's sources.
    let j = serde_json::to_value(&s).unwrap();
    assert_eq!(j["pci_gpus"][1]["vendor_id"], "0x10de");
    assert_eq!(j["pci_gpus"][1]["model"], "NVIDIA GeForce RTX 3090");
    assert_eq!(j["pci_gpus"][1]["evidence"]["rule"], "survey.gpu_from_pci");
    let sources = j["answer"]["evidence"]["sources"].to_string();
    assert!(
        sources.contains("/proc/driver/nvidia/gpus/0000:41:00.0/information"),
        "{sources}"
    );
    // With nvidia-drm the same GPU is also a DRM card: named once.
    pci_card(d.path(), "0000:41:00.0", "card1", "0x10de", Some("nvidia"));
    let s = run(d.path());
    assert_eq!(s.pci_gpus.len(), 2, "{:?}", s.pci_gpus);
    assert!(
        s.answer
            .text
            .contains("card1 NVIDIA 0x10de:0x2204, driver nvidia"),
        "{}",
        s.answer.text
    );
}

#[test]
fn an_amd_gpu_without_kfd_and_a_machine_without_gpus() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("opt")).unwrap();
    let s = run(d.path());
    assert!(s.pci_gpus.is_empty());
    assert!(
        s.answer.text.contains("no rocminfo output"),
        "{}",
        s.answer.text
    );
    assert!(
        s.answer.text.contains("no other GPU either (no DRM card"),
        "{}",
        s.answer.text
    );
    pci_card(d.path(), "0000:03:00.0", "card0", "0x1002", None);
    let s = run(d.path());
    assert_eq!(s.answer.kind, AnswerKind::NoGpu);
    assert!(
        s.answer.text.contains("yet the PCI bus has an AMD GPU (card0 AMD 0x1002:0x2204, no driver bound); no driver is bound to it: is the amdgpu driver loaded?"),
        "{}",
        s.answer.text
    );
    let ri = rocpath_survey::Rocminfo {
        text: String::new(),
        source: "saved.txt".into(),
    };
    let s = survey(
        &Options {
            root: d.path().to_path_buf(),
            rocminfo: Some(ri),
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(
        s.answer
            .text
            .contains("no GPU agent in the rocminfo output (saved.txt)"),
        "{}",
        s.answer.text
    );
}

#[test]
fn malformed_topology_rocminfo_and_units_are_named() {
    let d = tempfile::tempdir().unwrap();
    let n = d.path().join("sys/class/kfd/kfd/topology/nodes");
    std::fs::create_dir_all(n.join("1")).unwrap();
    std::fs::create_dir_all(n.join("2")).unwrap();
    std::fs::write(
        n.join("1/properties"),
        "simd_count lots\ngfx_target_version 90000\n\u{0}\u{1}garbage\n",
    )
    .unwrap();
    std::fs::write(n.join("2/properties"), [0xffu8, 0xfe, 0x00]).unwrap();
    let units = d.path().join("etc/systemd/system");
    std::fs::create_dir_all(&units).unwrap();
    std::fs::write(
        units.join("ollama.service"),
        "[Service]\nEnvironment=HSA_OVERRIDE_GFX_VERSION\nEnvironmentFile=/etc/missing.env\n",
    )
    .unwrap();
    let rocminfo = rocpath_survey::Rocminfo {
        text: "Agent 1\n  Name: gfx\u{0}\n  Device Type: GPU\nAgent".into(),
        source: "saved.txt".into(),
    };
    let s = survey(
        &Options {
            root: d.path().to_path_buf(),
            rocminfo: Some(rocminfo),
            ..Options::default()
        },
        &NoProgress,
    );
    assert_eq!(s.devices.len(), 1);
    let msgs: Vec<String> = s
        .errors
        .iter()
        .map(|e| format!("{}:{:?}: {}", e.path, e.line, e.message))
        .collect();
    let has = |p: &str, line: Option<u64>| {
        s.errors
            .iter()
            .any(|e| e.path.ends_with(p) && e.line == line)
    };
    assert!(has("1/properties", Some(1)), "{msgs:?}");
    assert!(has("1/properties", Some(3)), "{msgs:?}");
    assert!(has("2/properties", None), "{msgs:?}");
    assert!(has("ollama.service", Some(2)), "{msgs:?}");
    assert!(has("missing.env", None), "{msgs:?}");
    assert!(has("saved.txt", Some(1)), "{msgs:?}");
}

#[test]
fn fifos_and_devices_in_an_image_are_named_not_opened() {
    let d = tempfile::tempdir().unwrap();
    let node = d.path().join("sys/class/kfd/kfd/topology/nodes/1");
    std::fs::create_dir_all(&node).unwrap();
    std::fs::create_dir_all(d.path().join("etc")).unwrap();
    // Opening any of these without a writer would wait forever.
    for f in [node.join("properties"), d.path().join("etc/environment")] {
        let made = std::process::Command::new("mkfifo").arg(&f).status();
        assert!(
            made.is_ok_and(|s| s.success()),
            "mkfifo is part of coreutils"
        );
    }
    let s = run(d.path());
    let named = |p: &str| {
        s.errors
            .iter()
            .any(|e| e.path.ends_with(p) && e.message.contains("a FIFO"))
    };
    let msgs: Vec<String> = s
        .errors
        .iter()
        .map(|e| format!("{}: {}", e.path, e.message))
        .collect();
    assert!(named("1/properties"), "{msgs:?}");
    assert!(named("etc/environment"), "{msgs:?}");
}

#[test]
fn depth_time_and_only_paths() {
    let root = data("gfx900-host");
    let s = survey(
        &Options {
            root: root.clone(),
            max_depth: 1,
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(s.skipped.iter().any(|k| k.why.contains("depth limit")));
    let s = survey(
        &Options {
            root: root.clone(),
            max_time: Some(std::time::Duration::ZERO),
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(
        s.skipped.iter().any(|k| k.why.contains("time limit")),
        "{:?}",
        s.skipped
    );
    assert!(s.verdicts.is_empty());
    let s = survey(
        &Options {
            root,
            paths: vec!["/home/user/venv".into()],
            only_paths: true,
            ..Options::default()
        },
        &NoProgress,
    );
    let labels: Vec<&str> = s.installs.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["/home/user/venv torch"]);
}

#[test]
fn every_folder_at_the_depth_limit_is_kept_nearest_first() {
    let d = tempfile::tempdir().unwrap();
    for i in 0..30 {
        std::fs::create_dir_all(d.path().join(format!("data/deep/d{i:02}/x/y"))).unwrap();
    }
    std::fs::create_dir_all(d.path().join("a/b/c/d/e")).unwrap();
    let s = survey(
        &Options {
            root: d.path().to_path_buf(),
            paths: vec!["/a/b".into(), "/data".into()],
            only_paths: true,
            max_depth: 2,
            ..Options::default()
        },
        &NoProgress,
    );
    let depth: Vec<&str> = s
        .skipped
        .iter()
        .filter(|k| k.kind == rocpath_survey::SkipKind::Depth)
        .map(|k| k.path.as_str())
        .collect();
    // None left out (the text summarises, the list is whole) and the nearest come first.
    assert_eq!(depth.len(), 31, "{depth:?}");
    assert_eq!(depth[0], "/data/deep/d00");
    assert_eq!(depth[30], "/a/b/c/d");
    let j = serde_json::to_value(&s).unwrap();
    assert_eq!(j["skipped"][0]["kind"], "depth");
}

/// The real files: Debian's ROCm code objects and Tensile libraries from
/// `shared/fixtures/codeobjects` laid out as installed, with the real rocminfo of a Vega64.
#[test]
fn image_from_real_debian_files() {
    let (Some(co), Some(shared)) = (
        rocpath_testdata::codeobjects_dir(),
        rocpath_testdata::shared_dir(),
    ) else {
        return;
    };
    let rocminfo = shared.join("fixtures/rocminfo-gfx900.txt");
    if !rocminfo.is_file() {
        rocpath_testdata::missing("shared/fixtures/rocminfo-gfx900.txt not found");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let lib = d.path().join("usr/lib/x86_64-linux-gnu");
    let rocblas = lib.join("rocblas/4.4.1/library");
    let hipblaslt = lib.join("hipblaslt/library");
    for p in [&rocblas, &hipblaslt] {
        std::fs::create_dir_all(p).unwrap();
    }
    let put = |from: &str, to: &Path| std::fs::copy(co.join(from), to).unwrap();
    put(
        "rocsparse0-5.3.0_bundle080.hipfb",
        &lib.join("librocsparse.hipfb"),
    );
    put(
        "rocblas4-6.4.4_TensileLibrary_lazy_gfx90a.dat",
        &rocblas.join("TensileLibrary_lazy_gfx90a.dat"),
    );
    put(
        "rocblas4-6.4.4_TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1102.dat",
        &rocblas.join("TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1102.dat"),
    );
    put(
        "hipblaslt-7.1.1_TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat",
        &hipblaslt
            .join("TensileLibrary_SS_SS_UA_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1201.dat"),
    );
    let venv = d.path().join("home/u/env");
    let torch = venv.join("lib/python3.13/site-packages/torch/lib");
    std::fs::create_dir_all(&torch).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "version = 3.13\n").unwrap();
    put(
        "gloo-rocm-0.0-git20250912_libgloo_hip.so.0.5.0",
        &torch.join("libgloo_hip.so.0.5.0"),
    );
    std::fs::write(torch.join("libamdhip64.so.6"), b"").unwrap();
    let ollama = d.path().join("usr/lib/ollama");
    std::fs::create_dir_all(&ollama).unwrap();
    put(
        "ggml-hip-0.27.0_bundle009_gfx906.co",
        &ollama.join("ggml-hip-gfx906.co"),
    );
    let s = survey(
        &Options {
            root: d.path().to_path_buf(),
            rocminfo: Some(rocpath_survey::Rocminfo {
                text: std::fs::read_to_string(&rocminfo).unwrap(),
                source: rocminfo.display().to_string(),
            }),
            ..Options::default()
        },
        &NoProgress,
    );
    assert!(
        s.errors.is_empty() && s.scan_errors.is_empty(),
        "{:?} {:?}",
        s.errors,
        s.scan_errors
    );
    // rocminfo alone (no KFD in the image): gfx900:xnack-, 64 CUs, the Vega's name.
    let dev = &s.devices[0].device;
    assert_eq!(dev.target.canonical(), "gfx900:xnack-");
    assert_eq!(dev.name.as_deref(), Some("AMD Radeon RX Vega"));
    // rocSPARSE 5.3 ships gfx900:xnack-: it runs, settled by rocminfo's xnack-.
    let dist = s
        .verdicts
        .iter()
        .find(|v| v.install == "/usr/lib/x86_64-linux-gnu")
        .unwrap();
    let sparse = dist
        .check
        .libraries
        .iter()
        .find(|l| l.library.ends_with("librocsparse.hipfb"))
        .unwrap();
    assert_eq!(sparse.verdict, rocpath_inventory::check::Verdict::Runs);
    // Debian's rocBLAS 6.4.4 and hipBLASLt 7.1.1 have no Tensile index for gfx900.
    let t: Vec<&str> = dist.fallbacks.iter().map(|f| f.then.as_str()).collect();
    assert!(
        t.iter()
            .any(|f| f.starts_with("no Tensile catalog for gfx900")),
        "{t:?}"
    );
    assert!(
        t.iter()
            .any(|f| f.starts_with("no hipBLASLt kernels for gfx900")),
        "{t:?}"
    );
    // Debian's gloo carries gfx900 code; the ggml-hip gfx906 object does not load on gfx900.
    assert_eq!(outcome(&s, "/home/u/env torch"), Outcome::Runs);
    assert_eq!(outcome(&s, "ollama /usr/lib/ollama"), Outcome::NoCode);
}

/// Writes a file of an image, its folders made.
fn put_text(root: &Path, path: &str, text: &str) {
    let p = root.join(path.trim_start_matches('/'));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A symbolic link of an image (`target` as the machine would read it).
fn put_link(root: &Path, path: &str, target: &str) {
    let p = root.join(path.trim_start_matches('/'));
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, p).unwrap();
}

/// A ROCm torch in a site-packages folder: the example code object library as
/// `libtorch_hip.so`, a `libamdhip64` marker and `version.py`.
fn put_rocm_torch(root: &Path, sp: &str, version: &str) {
    let lib = root.join(sp.trim_start_matches('/')).join("torch/lib");
    std::fs::create_dir_all(&lib).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/install/opt/rocm-example/lib/libexample_dnn.so.1.1");
    std::fs::copy(example, lib.join("libtorch_hip.so")).unwrap();
    std::fs::write(lib.join("libamdhip64.so"), b"").unwrap();
    put_text(
        root,
        &format!("{sp}/torch/version.py"),
        &format!("__version__ = '{version}'\n"),
    );
}

/// The layouts users have (a venv outside the homes first on PATH, the ROCm images' conda
/// environments, pyenv, a broken venv, a deep one, TheRock's wheels): each environment found
/// with its kind, the shell's interpreters tied to theirs, the packages to their environment.
#[test]
fn python_environments_where_users_keep_them() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    put_text(
        r,
        "/etc/environment",
        "PATH=\"/opt/torch/.venv/bin:/home/ana/.pyenv/shims:/usr/local/bin:/usr/bin:/bin\"\n",
    );
    // The system's Python 3.12 (Debian's layout).
    put_text(r, "/usr/bin/python3.12", "");
    put_link(r, "/usr/bin/python3", "python3.12");
    put_text(r, "/usr/lib/python3.12/os.py", "");
    std::fs::create_dir_all(r.join("usr/lib/python3/dist-packages")).unwrap();
    // A venv outside the homes, first on PATH, with a ROCm torch.
    put_text(
        r,
        "/opt/torch/.venv/pyvenv.cfg",
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n",
    );
    put_link(r, "/opt/torch/.venv/bin/python3", "/usr/bin/python3");
    put_rocm_torch(
        r,
        "/opt/torch/.venv/lib/python3.12/site-packages",
        "2.9.1+rocm6.4",
    );
    // The ROCm PyTorch image's conda base and environment.
    std::fs::create_dir_all(r.join("opt/conda/conda-meta")).unwrap();
    std::fs::create_dir_all(r.join("opt/conda/lib/python3.10/site-packages")).unwrap();
    std::fs::create_dir_all(r.join("opt/conda/envs/py_3.10/conda-meta")).unwrap();
    put_rocm_torch(
        r,
        "/opt/conda/envs/py_3.10/lib/python3.10/site-packages",
        "2.6.0+rocm6.4.1",
    );
    // pyenv: a shim on PATH, the version file naming 3.11.9.
    put_text(r, "/home/ana/.pyenv/shims/python3", "#!/usr/bin/env bash\n");
    put_text(r, "/home/ana/.pyenv/version", "3.11.9\n");
    put_text(
        r,
        "/home/ana/.pyenv/versions/3.11.9/lib/python3.11/os.py",
        "",
    );
    std::fs::create_dir_all(r.join("home/ana/.pyenv/versions/3.11.9/lib/python3.11/site-packages"))
        .unwrap();
    // A venv whose base interpreter is gone.
    put_text(r, "/srv/app/venv/pyvenv.cfg", "home = /opt/python3.9/bin\n");
    std::fs::create_dir_all(r.join("srv/app/venv/lib/python3.9/site-packages")).unwrap();
    // A venv seven folders down (the homes were searched five deep, /data not at all).
    put_text(r, "/data/a/b/c/d/e/f/venv/pyvenv.cfg", "home = /usr/bin\n");
    std::fs::create_dir_all(r.join("data/a/b/c/d/e/f/venv/lib/python3.12/site-packages")).unwrap();
    // TheRock: the rocm selector, core, libraries and a gfx942 device wheel, torch tied by
    // its _rocm_init.py.
    let sp = "/workspace/rock/.venv/lib/python3.12/site-packages";
    put_text(r, "/workspace/rock/.venv/pyvenv.cfg", "home = /usr/bin\n");
    for dist in [
        "rocm-7.10.0",
        "rocm_sdk_core-7.10.0",
        "rocm_sdk_libraries-7.10.0",
        "rocm_sdk_device_gfx942-7.10.0",
        "amd_torch_device_gfx1201-2.10.0",
    ] {
        std::fs::create_dir_all(r.join(format!("{}/{dist}.dist-info", &sp[1..]))).unwrap();
    }
    for pkg in [
        "rocm_sdk",
        "_rocm_sdk_core",
        "_rocm_sdk_libraries",
        "_rocm_sdk_device_gfx942",
    ] {
        std::fs::create_dir_all(r.join(format!("{}/{pkg}", &sp[1..]))).unwrap();
    }
    put_rocm_torch(r, sp, "2.10.0+rocm7.10.0");
    put_text(
        r,
        &format!("{sp}/torch/_rocm_init.py"),
        "def initialize():\n  import rocm_sdk\n  rocm_sdk.initialize_process(preload_shortnames=[\n    'amdhip64',\n    'hipblaslt',\n    'miopen',\n  ],\n  check_version='7.9.*')\n",
    );
    let s = run(r);
    let env = |p: &str| {
        s.python_envs
            .iter()
            .find(|e| e.path == p)
            .unwrap_or_else(|| panic!("{p} not found: {:#?}", s.python_envs))
    };
    use rocpath_survey::python::EnvKind;
    let venv = env("/opt/torch/.venv");
    assert_eq!(venv.kind, EnvKind::Venv);
    assert_eq!(venv.on_path[0].command, "python3");
    assert!(venv.on_path[0].runs);
    assert_eq!(
        s.python_envs[0].path, "/opt/torch/.venv",
        "PATH order first"
    );
    assert_eq!(env("/opt/conda").kind, EnvKind::Conda);
    assert_eq!(env("/opt/conda/envs/py_3.10").kind, EnvKind::Conda);
    let pyenv = env("/home/ana/.pyenv/versions/3.11.9");
    assert_eq!(pyenv.kind, EnvKind::Pyenv);
    assert!(!pyenv.on_path[0].runs, "python3 of the venv comes first");
    assert!(pyenv.on_path[0].via.contains("/home/ana/.pyenv/version"));
    // The system's python3 is on PATH too, after both: shadowed.
    let system = env("/usr");
    assert_eq!(system.kind, EnvKind::System);
    assert!(system.on_path.iter().all(|o| !o.runs));
    assert!(env("/srv/app/venv").problems[0].contains("home = /opt/python3.9/bin"));
    assert_eq!(env("/data/a/b/c/d/e/f/venv").kind, EnvKind::Venv);
    let rock = env("/workspace/rock/.venv").rocm_sdk.as_ref().unwrap();
    assert_eq!(rock.version.as_deref(), Some("7.10.0"));
    assert_eq!(rock.device_targets, ["gfx942"]);
    assert_eq!(rock.torch_device_targets, ["gfx1201"]);
    assert_eq!(rock.used_by[0].package, "torch");
    assert_eq!(rock.used_by[0].version_matches, Some(false));
    assert_eq!(
        rock.used_by[0].preloads,
        ["amdhip64", "hipblaslt", "miopen"]
    );
    // Each torch is an install of its environment.
    let torch: Vec<(&str, Option<&str>)> = s
        .installs
        .iter()
        .filter(|i| i.label.ends_with(" torch"))
        .map(|i| (i.label.as_str(), i.env.as_deref()))
        .collect();
    assert!(
        torch.contains(&("/opt/torch/.venv torch", Some("/opt/torch/.venv"))),
        "{torch:?}"
    );
    assert!(torch.contains(&(
        "/opt/conda/envs/py_3.10 torch",
        Some("/opt/conda/envs/py_3.10")
    )));
    assert!(torch.contains(&("/workspace/rock/.venv torch", Some("/workspace/rock/.venv"))));
    // One depth limit, named as what it is.
    assert!(
        s.skipped
            .iter()
            .all(|k| k.kind != rocpath_survey::SkipKind::Depth || k.why.contains("--max-depth 8"))
    );
}

/// Builds a shared library in an image folder with gcc (`needs`: `-l:` names; `runpath`).
fn put_elf(root: &Path, dir: &str, soname: &str, needs: &[&str], runpath: Option<&str>) {
    let d = root.join(dir.trim_start_matches('/'));
    std::fs::create_dir_all(&d).unwrap();
    let src = d.join(format!("{soname}.c"));
    std::fs::write(
        &src,
        format!(
            "int f_{}(void){{return 1;}}\n",
            soname.replace(['.', '-'], "_")
        ),
    )
    .unwrap();
    let mut args: Vec<String> = vec![
        "-shared".into(),
        "-fPIC".into(),
        "-o".into(),
        soname.into(),
        src.display().to_string(),
        format!("-Wl,-soname,{soname}"),
        "-Wl,--no-as-needed".into(),
        "-L.".into(),
    ];
    args.extend(needs.iter().map(|n| format!("-l:{n}")));
    if let Some(r) = runpath {
        args.push(format!("-Wl,--enable-new-dtags,-rpath,{r}"));
    }
    let st = std::process::Command::new("gcc")
        .args(&args)
        .current_dir(&d)
        .status()
        .unwrap();
    assert!(st.success(), "gcc {args:?}");
    std::fs::remove_file(src).unwrap();
}

/// The install on disk is not what runs: the shell's LD_LIBRARY_PATH comes before a torch
/// wheel's RUNPATH, so its libtorch_hip takes /opt/rocm's HIP; Ollama's service, without that
/// variable, takes its own copies.
#[test]
fn which_install_each_program_takes_its_libraries_from() {
    if !rocpath_testdata::have_tool("gcc") {
        rocpath_testdata::missing("gcc is not on PATH");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    put_text(r, "/etc/environment", "LD_LIBRARY_PATH=/opt/rocm/lib\n");
    put_elf(r, "/opt/rocm-6.4.0/lib", "libamdhip64.so.6", &[], None);
    put_elf(
        r,
        "/opt/rocm-6.4.0/lib",
        "librocblas.so.4",
        &["libamdhip64.so.6"],
        None,
    );
    put_link(r, "/opt/rocm", "/opt/rocm-6.4.0");
    let torch = "/home/u/venv/lib/python3.12/site-packages/torch/lib";
    put_text(r, "/home/u/venv/pyvenv.cfg", "home = /usr/bin\n");
    put_elf(r, torch, "libamdhip64.so.6", &[], None);
    put_elf(
        r,
        torch,
        "libMIOpen.so.1",
        &["libamdhip64.so.6"],
        Some("$ORIGIN"),
    );
    put_elf(
        r,
        torch,
        "libtorch_hip.so",
        &["libamdhip64.so.6", "libMIOpen.so.1"],
        Some("$ORIGIN"),
    );
    put_text(
        r,
        "/etc/systemd/system/ollama.service",
        "[Service]\nExecStart=/usr/local/bin/ollama serve\n",
    );
    let ollama = "/usr/local/lib/ollama/rocm";
    put_elf(r, ollama, "libamdhip64.so.6", &[], None);
    put_elf(
        r,
        ollama,
        "librocblas.so.4",
        &["libamdhip64.so.6"],
        Some("$ORIGIN"),
    );
    put_elf(
        r,
        ollama,
        "libggml-hip.so",
        &["librocblas.so.4", "libamdhip64.so.6"],
        Some("$ORIGIN"),
    );
    let s = run(r);
    let uses = |label: &str| {
        let i = s
            .installs
            .iter()
            .find(|i| i.label == label)
            .unwrap_or_else(|| {
                panic!(
                    "{label}: {:?}",
                    s.installs.iter().map(|i| &i.label).collect::<Vec<_>>()
                )
            });
        i.uses
            .iter()
            .map(|u| {
                (
                    u.library.clone(),
                    u.rule.clone(),
                    u.install.clone().unwrap_or_default(),
                )
            })
            .collect::<Vec<_>>()
    };
    let t = uses("/home/u/venv torch");
    let hip = (
        "libamdhip64.so.6".to_string(),
        "ld_library_path".to_string(),
        "rocm-6.4.0".to_string(),
    );
    assert!(t.contains(&hip), "{t:?}");
    let miopen = (
        "libMIOpen.so.1".to_string(),
        "runpath".to_string(),
        "/home/u/venv torch".to_string(),
    );
    assert!(t.contains(&miopen), "{t:?}");
    let o = uses("ollama /usr/local/lib/ollama");
    let own = "ollama /usr/local/lib/ollama".to_string();
    assert!(
        o.iter()
            .all(|(_, rule, from)| rule == "runpath" && *from == own),
        "{o:?}"
    );
    assert_eq!(o.len(), 2, "{o:?}");
}

/// A KFD GPU node of an image.
fn put_gpu(root: &Path, node: usize, gfx_target_version: u32, simds: u32) {
    put_text(
        root,
        &format!("/sys/class/kfd/kfd/topology/nodes/{node}/properties"),
        &format!(
            "cpu_cores_count 0\nsimd_count {simds}\nsimd_per_cu 2\ngfx_target_version {gfx_target_version}\nvendor_id 4098\n"
        ),
    );
}

/// The failure modes users hit, on one image: an APU's GPU listed first, an Ollama whose
/// ROCm backend has code for gfx1030 only (the override it needs on gfx1031, none for the
/// APU's gfx1036 either), a venv of ROCm's SDK wheels without the GPUs' device wheels and of
/// another version than its torch asks for, and a venv whose base interpreter is gone.
#[test]
fn known_failure_modes_are_findings_with_what_to_do() {
    use rocpath_survey::findings::FindingKind as K;
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    put_text(
        r,
        "/sys/class/kfd/kfd/topology/nodes/0/properties",
        "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n",
    );
    put_gpu(r, 1, 100306, 4);
    put_gpu(r, 2, 100301, 80);
    let lib = r.join("usr/local/lib/ollama/rocm");
    std::fs::create_dir_all(&lib).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/data/install/opt/rocm-example/lib/libexample_blas.so.1.1");
    std::fs::copy(&example, lib.join("libggml-hip.so")).unwrap();
    let sp = "/opt/rock/.venv/lib/python3.12/site-packages";
    put_text(r, "/opt/rock/.venv/pyvenv.cfg", "home = /usr/bin\n");
    put_text(r, "/usr/bin/python3.12", "");
    for dist in [
        "rocm-7.10.0",
        "rocm_sdk_core-7.10.0",
        "rocm_sdk_device_gfx942-7.10.0",
        "amd_torch_device_gfx1201-2.10.0",
    ] {
        std::fs::create_dir_all(r.join(format!("{}/{dist}.dist-info", &sp[1..]))).unwrap();
    }
    put_rocm_torch(r, sp, "2.10.0+rocm7.9.0");
    put_text(
        r,
        &format!("{sp}/torch/_rocm_init.py"),
        "rocm_sdk.initialize_process(preload_shortnames=['amdhip64'], check_version='7.9.0')\n",
    );
    put_text(r, "/srv/old/pyvenv.cfg", "home = /opt/python3.8/bin\n");
    let s = run(r);
    let kinds: Vec<(K, Option<usize>)> = s.findings.iter().map(|f| (f.kind, f.device)).collect();
    let has = |k: K, dev: Option<usize>| kinds.contains(&(k, dev));
    assert_eq!(s.devices.len(), 2, "{:?}", s.devices);
    assert!(has(K::IntegratedFirst, Some(0)), "{kinds:?}");
    assert!(has(K::OverrideForgotten, Some(1)), "{kinds:?}");
    let forgot = s
        .findings
        .iter()
        .find(|f| f.kind == K::OverrideForgotten && f.device == Some(1))
        .unwrap();
    assert!(
        forgot.fix.contains("HSA_OVERRIDE_GFX_VERSION=10.3.0"),
        "{}",
        forgot.fix
    );
    assert!(
        has(K::DeviceWheelMissing, Some(0)) && has(K::DeviceWheelMissing, Some(1)),
        "{kinds:?}"
    );
    assert!(has(K::SdkVersionMismatch, None), "{kinds:?}");
    assert!(has(K::BrokenEnvironment, None), "{kinds:?}");
    // Every finding says what to do, and its rule is listed by kind.
    for f in &s.findings {
        assert!(!f.fix.is_empty());
        assert_eq!(
            f.evidence.rule,
            format!("survey.finding.{}", f.kind.as_str())
        );
    }
}

/// A ROCm tree whose library was packed for kpack (the real Debian gloo library packed by the
/// reference packer, `rocpath-sources/tests/data/kpack`) with its archive gone: a finding that
/// names the archive, with what to do.
#[test]
fn a_kpack_archive_gone_is_a_finding() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    put_gpu(r, 1, 90010, 416);
    let packed = rocpath_testdata::repo_root()
        .join("crates/rocpath-sources/tests/data/kpack/gloo-packed/lib/libgloo_hip.so.0.5.0");
    let lib = r.join("opt/rocm-7.0.0/lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::copy(packed, lib.join("libgloo_hip.so.0.5.0")).unwrap();
    let s = run(r);
    let f = s
        .findings
        .iter()
        .find(|f| f.kind == rocpath_survey::findings::FindingKind::KpackMismatch)
        .unwrap_or_else(|| panic!("{:#?} {:#?}", s.findings, s.verdicts));
    assert!(f.text.contains("libgloo_hip"), "{}", f.text);
    assert_eq!(f.device, Some(0));
}
