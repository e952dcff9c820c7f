//! `rocpath loads`: the JSON document's shape and the exit codes (0 all found, 1 a name not
//! found, 2 an unreadable program).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use assert_cmd::Command;
use serde_json::Value;

fn rocpath() -> Command {
    let mut c = Command::cargo_bin("rocpath").unwrap();
    c.arg("--no-progress");
    c
}

#[test]
fn json_document_and_exit_codes() {
    if !std::path::Path::new("/bin/ls").is_file() {
        rocpath_testdata::missing("no /bin/ls");
        return;
    }
    let out = rocpath()
        .args(["--json", "loads", "/bin/ls", "--no-env"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "rocpath.loads/1");
    assert_eq!(v["observed"]["schema"], "rocpath.loads/1");
    let libs = v["libraries"].as_array().unwrap();
    let libc = libs.iter().find(|l| l["name"] == "libc.so.6").unwrap();
    for k in ["path", "rule", "needed_by", "depth"] {
        assert!(libc.get(k).is_some(), "{k}");
    }
    assert_eq!(libc["evidence"]["class"], "inferred");
    assert_eq!(libc["evidence"]["kind"], "code_verified");
    assert!(
        libc["evidence"]["rule"]
            .as_str()
            .unwrap()
            .starts_with("loads.")
    );
    assert!(v["missing"].as_array().unwrap().is_empty());

    // A name not found: exit 1, the places searched listed.
    let d = tempfile::tempdir().unwrap();
    if rocpath_testdata::have_tool("gcc") {
        let p = d.path();
        std::fs::write(p.join("n.c"), "int n(void){return 0;}\n").unwrap();
        std::fs::write(p.join("m.c"), "int n(void); int main(void){return n();}\n").unwrap();
        let gcc = |args: &[&str]| {
            let ok = std::process::Command::new("gcc")
                .args(args)
                .current_dir(p)
                .status();
            assert!(ok.unwrap().success(), "gcc {args:?}");
        };
        gcc(&["-shared", "-fPIC", "-o", "libn.so", "n.c"]);
        gcc(&["-o", "m", "m.c", "-L.", "-ln"]);
        std::fs::remove_file(p.join("libn.so")).unwrap();
        let out = rocpath()
            .args(["--json", "loads", "--no-env"])
            .arg(p.join("m"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let m = &v["missing"][0];
        assert_eq!(m["name"], "libn.so");
        assert_eq!(m["evidence"]["rule"], "loads.not_found");
        assert!(!m["searched"].as_array().unwrap().is_empty());
    } else {
        rocpath_testdata::missing("gcc is not on PATH");
    }

    // An unreadable program: exit 2.
    let junk = d.path().join("junk");
    std::fs::write(&junk, b"\x7fELF\x02\x01\x01").unwrap();
    let out = rocpath().args(["loads"]).arg(&junk).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("offset"));
}

/// `--root`: a saved image, its cache written by the real `ldconfig -r`, a library folder
/// reached through an absolute link that must resolve inside the image.
#[test]
fn root_reads_a_saved_image() {
    for tool in ["gcc", "ldconfig"] {
        if !rocpath_testdata::have_tool(tool) {
            rocpath_testdata::missing(&format!("{tool} is not on PATH"));
            return;
        }
    }
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("image");
    let src = d.path().join("src");
    for sub in ["opt/real/lib", "usr/bin", "etc", "opt/x"] {
        std::fs::create_dir_all(img.join(sub)).unwrap();
    }
    std::fs::create_dir_all(&src).unwrap();
    std::os::unix::fs::symlink("/opt/real/lib", img.join("opt/x/lib")).unwrap();
    std::fs::write(img.join("etc/ld.so.conf"), "/opt/x/lib\n").unwrap();
    std::fs::write(src.join("o.c"), "int o(void){return 0;}\n").unwrap();
    std::fs::write(
        src.join("m.c"),
        "int o(void); int main(void){return o();}\n",
    )
    .unwrap();
    let gcc = |args: &[&str]| {
        let ok = std::process::Command::new("gcc")
            .args(args)
            .current_dir(&src)
            .status();
        assert!(ok.unwrap().success(), "gcc {args:?}");
    };
    let lib = img.join("opt/real/lib/libo.so.1");
    let lib_s = lib.display().to_string();
    gcc(&[
        "-shared",
        "-fPIC",
        "-o",
        &lib_s,
        "o.c",
        "-Wl,-soname,libo.so.1",
    ]);
    let prog = img.join("usr/bin/prog").display().to_string();
    let libdir = format!("-L{}", img.join("opt/real/lib").display());
    gcc(&["-o", &prog, "m.c", &libdir, "-l:libo.so.1"]);
    let st = std::process::Command::new("ldconfig")
        .arg("-r")
        .arg(&img)
        .status()
        .unwrap();
    assert!(st.success());
    let out = rocpath()
        .args(["--json", "loads", "--root"])
        .arg(&img)
        .arg("/usr/bin/prog")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let libs = v["libraries"].as_array().unwrap();
    let o = libs.iter().find(|l| l["name"] == "libo.so.1").unwrap();
    assert_eq!(o["rule"], "cache");
    assert!(o["path"].as_str().unwrap().starts_with("/opt/"), "{o}");
    assert!(v["cache"]["entries"].as_u64().unwrap() >= 1);
    // libc is not in the image: named as not found, exit 1.
    assert!(
        v["missing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "libc.so.6")
    );
    assert_eq!(out.status.code(), Some(1));
}

/// `--pid`: the document of a running process, and a pid that names none (exit 2, named).
#[test]
fn a_running_process_document() {
    let mut child = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    // The child is read once it has its libraries mapped.
    let start = std::time::Instant::now();
    let v: Value = loop {
        let out = rocpath()
            .args(["--json", "loads", "--pid", &pid])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let ready = v["exe"].as_str().is_some_and(|e| e.ends_with("sleep"))
            && !v["mapped"].as_array().unwrap().is_empty();
        if ready || start.elapsed().as_secs() > 10 {
            break v;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(v["schema"], "rocpath.loads.process/2");
    for k in [
        "pid",
        "cmdline",
        "env",
        "mapped",
        "predicted_not_mapped",
        "open_data",
        "prediction",
        "errors",
    ] {
        assert!(v.get(k).is_some(), "{k}: {v}");
    }
    let libc = v["mapped"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["path"].as_str().unwrap().contains("libc.so"))
        .unwrap();
    assert_eq!(libc["predicted"], true);
    assert_eq!(libc["evidence"]["class"], "confirmed");
    assert_eq!(libc["evidence"]["kind"], "runtime_verified");

    let out = rocpath()
        .args(["loads", "--pid", "4294967200"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no such process"), "{err}");
    // A program and --pid together is a usage error.
    let out = rocpath()
        .args(["loads", "/bin/ls", "--pid", &pid])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A Python module: a package laid out as a ROCm torch wheel (an extension module whose
/// `DT_RUNPATH` is `$ORIGIN/lib`, its own `libamdhip64.so` there) resolves to the package's HIP.
#[test]
fn a_python_module_resolves_through_its_extension_modules() {
    if !rocpath_testdata::have_tool("gcc") || !rocpath_testdata::have_tool("python3") {
        rocpath_testdata::missing("gcc or python3 is not on PATH");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let pkg = d.path().join("wheelpkg");
    std::fs::create_dir_all(pkg.join("lib")).unwrap();
    std::fs::write(pkg.join("__init__.py"), "").unwrap();
    std::fs::write(d.path().join("h.c"), "int hip(void){return 1;}\n").unwrap();
    std::fs::write(
        d.path().join("c.c"),
        "int hip(void); int c(void){return hip();}\n",
    )
    .unwrap();
    let gcc = |args: &[&str]| {
        let ok = std::process::Command::new("gcc")
            .args(args)
            .current_dir(d.path())
            .status();
        assert!(ok.unwrap().success(), "gcc {args:?}");
    };
    gcc(&[
        "-shared",
        "-fPIC",
        "-Wl,-soname,libamdhip64.so.6",
        "-o",
        "wheelpkg/lib/libamdhip64.so.6",
        "h.c",
    ]);
    gcc(&[
        "-shared",
        "-fPIC",
        "-o",
        "wheelpkg/_C.abi3.so",
        "c.c",
        "-Lwheelpkg/lib",
        "-l:libamdhip64.so.6",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN/lib",
    ]);
    let out = rocpath()
        .env("PYTHONPATH", d.path())
        .args([
            "--json", "loads", "wheelpkg", "--no-env", "--python", "python3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "rocpath.loads.module/2");
    assert_eq!(v["extensions"].as_array().unwrap().len(), 1, "{v}");
    let hip = v["libraries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "libamdhip64.so.6")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(hip["rule"], "runpath");
    assert_eq!(hip["rocm"], "hip");
    assert!(
        hip["path"].as_str().unwrap().contains("wheelpkg/lib"),
        "{hip}"
    );
    // A name that is neither a file nor a module: exit 2, named.
    let out = rocpath()
        .args(["loads", "no_such_module_here", "--python", "python3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("finds no module"));
}
