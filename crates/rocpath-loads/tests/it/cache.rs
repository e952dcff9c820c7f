#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! A cache written by the real `ldconfig` (into a saved-image folder with `-r`), with a
//! library in a `glibc-hwcaps` subfolder: the extension is read and the lookup takes the
//! subfolder's entry only when that level is active.

use rocpath_loads::cache;
use std::process::Command;

#[test]
fn ldconfig_cache_with_glibc_hwcaps() {
    for tool in ["gcc", "ldconfig"] {
        if !rocpath_testdata::have_tool(tool) {
            rocpath_testdata::missing(&format!("{tool} is not on PATH"));
            return;
        }
    }
    let d = tempfile::tempdir().unwrap();
    let img = d.path();
    let v2 = img.join("opt/x/lib/glibc-hwcaps/x86-64-v2");
    std::fs::create_dir_all(&v2).unwrap();
    std::fs::create_dir_all(img.join("etc")).unwrap();
    std::fs::write(img.join("etc/ld.so.conf"), "/opt/x/lib\n").unwrap();
    std::fs::write(img.join("o.c"), "int o(void){return 0;}\n").unwrap();
    for out in [
        "opt/x/lib/libo.so.1",
        "opt/x/lib/glibc-hwcaps/x86-64-v2/libo.so.1",
    ] {
        let st = Command::new("gcc")
            .args([
                "-shared",
                "-fPIC",
                "-o",
                out,
                "o.c",
                "-Wl,-soname,libo.so.1",
            ])
            .current_dir(img)
            .status()
            .unwrap();
        assert!(st.success());
    }
    let st = Command::new("ldconfig")
        .arg("-r")
        .arg(img)
        .status()
        .unwrap();
    assert!(st.success());
    let bytes = std::fs::read(img.join("etc/ld.so.cache")).unwrap();
    let c = cache::parse(&bytes).unwrap();
    assert!(c.hwcaps.iter().any(|h| h == "x86-64-v2"), "{:?}", c.hwcaps);
    assert_eq!(
        c.lookup("libo.so.1", 0x303, &["x86-64-v3", "x86-64-v2"]),
        Some("/opt/x/lib/glibc-hwcaps/x86-64-v2/libo.so.1")
    );
    assert_eq!(
        c.lookup("libo.so.1", 0x303, &[]),
        Some("/opt/x/lib/libo.so.1")
    );
    assert_eq!(
        c.lookup("libo.so.1", 0x303, &["x86-64-v3"]),
        Some("/opt/x/lib/libo.so.1")
    );
    // A corrupt extension makes the whole cache unusable, as for glibc.
    let mut bad = bytes.clone();
    let ext = u32::from_le_bytes(bad[32..36].try_into().unwrap()) as usize;
    bad[ext] ^= 0xff;
    let e = cache::parse(&bad).unwrap_err();
    assert_eq!(e.offset, ext as u64);
}
