//! A running process read from `/proc`: real child processes of this test, one that only
//! links (`sleep`: every mapped library is predicted) and one that opens a library by name
//! (Python's `ctypes.CDLL`: that library is mapped but not predicted).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use rocpath_loads::process::{Running, running};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kills the child when the test ends, however it ends.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads the child until `ready` holds (it has started and loaded), for at most 10 s.
fn settle(pid: u32, ready: impl Fn(&Running) -> bool) -> Running {
    let start = Instant::now();
    loop {
        let r = running(Path::new("/proc"), pid, Path::new("/etc/ld.so.cache")).unwrap();
        if ready(&r) || start.elapsed() > Duration::from_secs(10) {
            return r;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn has(r: &Running, name: &str) -> Option<bool> {
    r.mapped
        .iter()
        .find(|m| m.path.rsplit('/').next().unwrap_or("").starts_with(name))
        .map(|m| m.predicted)
}

#[test]
fn a_linked_program_maps_what_the_loader_rules_predict() {
    let child = Command::new("sleep")
        .arg("30")
        .env("HIP_VISIBLE_DEVICES", "1")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let c = Reaped(child);
    let r = settle(c.0.id(), |r| has(r, "libc.so").is_some());
    assert!(r.exe.as_deref().unwrap_or("").ends_with("sleep"), "{r:?}");
    assert_eq!(has(&r, "libc.so"), Some(true), "{r:?}");
    assert!(r.mapped.iter().all(|m| m.predicted), "{:?}", r.mapped);
    assert!(
        r.predicted_not_mapped.is_empty(),
        "{:?}",
        r.predicted_not_mapped
    );
    assert_eq!(
        r.env.get("HIP_VISIBLE_DEVICES").map(String::as_str),
        Some("1")
    );
    assert_eq!(r.cmdline, ["sleep", "30"]);
}

#[test]
fn a_library_opened_by_name_is_mapped_but_not_predicted() {
    let script = "import ctypes, sys, time; ctypes.CDLL('libz.so.1'); print('ok', flush=True); time.sleep(30)";
    let Ok(mut child) = Command::new("python3")
        .args(["-c", script])
        .stdout(Stdio::piped())
        .spawn()
    else {
        rocpath_testdata::missing("python3 is not on PATH");
        return;
    };
    // Wait for the line the script prints once the library is open.
    let mut out = child.stdout.take().unwrap();
    let mut buf = [0u8; 3];
    std::io::Read::read_exact(&mut out, &mut buf).unwrap();
    let c = Reaped(child);
    let r = settle(c.0.id(), |r| has(r, "libz.so").is_some());
    assert_eq!(has(&r, "libz.so"), Some(false), "{:?}", r.mapped);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
}

#[test]
fn a_process_that_does_not_exist_is_named_with_what_to_check() {
    let e = running(
        Path::new("/proc"),
        u32::MAX - 7,
        Path::new("/etc/ld.so.cache"),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("/proc/") && msg.contains("no such process"),
        "{msg}"
    );
}
