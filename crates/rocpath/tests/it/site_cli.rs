//! `rocpath site serve LEDGER`: the site is built into a private temporary folder that is
//! removed when serving ends (before: a predictable `/tmp/rocpath-site-<pid>`, adopted if it
//! already existed and never removed), and only loopback `Host` names are answered.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_rocpath");

fn get(addr: &str, host: &str) -> String {
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    write!(c, "GET / HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
    let mut s = String::new();
    c.read_to_string(&mut s).unwrap();
    s
}

#[test]
fn serving_a_ledger_uses_a_private_folder_removed_on_exit() {
    let t = tempfile::tempdir().unwrap();
    let ledger = t.path().join("ledger");
    assert!(
        Command::new(BIN)
            .args(["ledger", "init"])
            .arg(&ledger)
            .status()
            .unwrap()
            .success()
    );
    let mut child = Command::new(BIN)
        .args(["site", "serve", "--port", "0"])
        .arg(&ledger)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // "serving DIR on http://127.0.0.1:PORT/ (Ctrl-C to stop)"
    let words: Vec<&str> = line.split_whitespace().collect();
    let site = PathBuf::from(words[1]);
    let addr = words[3]
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    assert!(site.join("index.html").is_file(), "{line}");
    let private = site.parent().unwrap();
    let name = private.file_name().unwrap().to_string_lossy().to_string();
    assert!(name.starts_with("rocpath-site-"), "{name}");
    assert_ne!(name, format!("rocpath-site-{}", child.id()));
    let mode = std::fs::metadata(private).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
    assert!(get(&addr, &addr).starts_with("HTTP/1.1 200"));
    assert!(get(&addr, "attacker.example").starts_with("HTTP/1.1 421"));
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(!private.exists(), "{} left behind", private.display());
}

#[test]
fn a_site_that_cannot_be_written_is_one_error_naming_the_folder() {
    let t = tempfile::tempdir().unwrap();
    let ledger = t.path().join("ledger");
    assert!(
        Command::new(BIN)
            .args(["ledger", "init"])
            .arg(&ledger)
            .status()
            .unwrap()
            .success()
    );
    let file = t.path().join("file");
    std::fs::write(&file, "").unwrap();
    let out = Command::new(BIN)
        .args(["site", "build"])
        .arg(&ledger)
        .arg("-o")
        .arg(file.join("site"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("error: {}: ", file.join("site").display())),
        "{stderr}"
    );
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
}
