//! Hostile containers, each built here from a minimal input: the scanner reports the item by
//! name with a clear error and goes on, and memory stays within the run's budget.
//!
//! The code object inside is the project's own example (`examples/data/.../
//! Kernels.so-000-gfx1100.hsaco`, see `examples/README.md`), so these tests always run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rocpath_sources::bundle::SharedBy;
use rocpath_sources::{
    Found, Limits, MemoryBudget, Origin, Sink, SourceError, scan_memory, scan_paths,
};
use std::sync::Mutex;
use std::time::Duration;

#[derive(Default)]
struct Collect {
    /// (origin, offset, shared_by)
    objects: Mutex<Vec<(String, u64, Option<SharedBy>)>>,
    /// (origin, error)
    errors: Mutex<Vec<(String, SourceError)>>,
}

impl Sink for Collect {
    fn found(&self, f: Found<'_>) {
        match f {
            Found::CodeObject {
                origin,
                offset,
                shared_by,
                ..
            } => {
                self.objects
                    .lock()
                    .unwrap()
                    .push((origin.to_string(), offset, shared_by.cloned()))
            }
            Found::Error { origin, error } => self
                .errors
                .lock()
                .unwrap()
                .push((origin.to_string(), error)),
            _ => {}
        }
    }
}

fn example() -> Vec<u8> {
    let p = rocpath_testdata::repo_root().join(
        "examples/data/install/opt/rocm-example/lib/example/library/Kernels.so-000-gfx1100.hsaco",
    );
    std::fs::read(p).unwrap()
}

/// A budget that refuses at once instead of waiting for other items.
fn budget(bytes: u64) -> Limits {
    Limits {
        memory: MemoryBudget::with_wait(bytes, Duration::ZERO),
        ..Limits::default()
    }
}

fn scan(data: &[u8], name: &str, limits: &Limits) -> Collect {
    let c = Collect::default();
    scan_memory(data, &Origin::file(name), name, limits, &c);
    c
}

#[test]
fn thousands_of_entries_at_one_object_are_read_once() {
    let obj = example();
    for vary in [false, true] {
        let b = rocpath_testdata::bundle::at_one_object(4000, &obj, vary);
        let c = scan(&b, "x.hipfb", &Limits::default());
        assert!(c.errors.lock().unwrap().is_empty(), "{:?}", c.errors);
        let objs = c.objects.lock().unwrap();
        assert_eq!(objs.len(), 1, "vary={vary}: one code object, read once");
        let shared = objs[0]
            .2
            .as_ref()
            .expect("the other entries are referenced");
        assert_eq!(shared.entries, 3999);
        assert_eq!(shared.ids.len(), SharedBy::MAX_IDS);
        assert!(shared.ids.iter().all(|i| i.ends_with("gfx1100")));
        assert!(shared.note("read").contains("3999 other entries"));
    }
}

/// A CCOB v3 (zstd) whose payload is `size` zero bytes.
fn zstd_ccob(size: usize) -> Vec<u8> {
    let comp = zstd::encode_all(&vec![0u8; size][..], 3).unwrap();
    let mut c = b"CCOB".to_vec();
    c.extend_from_slice(&3u16.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&((32 + comp.len()) as u64).to_le_bytes());
    c.extend_from_slice(&(size as u64).to_le_bytes());
    c.extend_from_slice(&0u64.to_le_bytes());
    c.extend_from_slice(&comp);
    c
}

#[test]
fn a_zstd_bomb_is_refused_by_the_budget_and_named() {
    let bomb = zstd_ccob(64 << 20);
    assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
    let limits = budget(16 << 20);
    let c = scan(&bomb, "bomb.hipfb", &limits);
    let errors = c.errors.lock().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let (origin, e) = &errors[0];
    assert!(
        origin.starts_with("bomb.hipfb > ccob#0@0x0 v3 zstd"),
        "{origin}"
    );
    assert!(matches!(e, SourceError::Budget { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("CCOB payload needs 64 MiB of memory"),
        "{msg}"
    );
    assert!(msg.contains("--max-memory"), "{msg}");
    assert_eq!(limits.memory.in_use(), 0, "nothing stays reserved");
    // Within the budget the same payload is decompressed (zeros: nothing to find).
    let c = scan(&bomb, "bomb.hipfb", &budget(128 << 20));
    assert!(c.errors.lock().unwrap().is_empty());
}

#[test]
fn parallel_items_draw_from_one_budget() {
    let ccob = zstd_ccob(8 << 20);
    let limits = budget(12 << 20);
    // Another item holds 6 MiB: an 8 MiB payload no longer fits.
    let other = limits.memory.try_reserve(6 << 20).unwrap();
    let c = scan(&ccob, "a.hipfb", &limits);
    let errors = c.errors.lock().unwrap();
    assert!(
        matches!(&errors[..], [(_, SourceError::Budget { source, .. })] if source.available == 6 << 20),
        "{errors:?}"
    );
    assert!(
        errors[0]
            .1
            .to_string()
            .contains("other items held the rest")
    );
    drop(other);
    let c = scan(&ccob, "a.hipfb", &limits);
    assert!(c.errors.lock().unwrap().is_empty());
}

fn tar_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, *data).unwrap();
    }
    b.into_inner().unwrap()
}

#[test]
fn an_archive_member_over_the_budget_is_refused_by_name_and_the_rest_goes_on() {
    let obj = example();
    let big = vec![7u8; 2 << 20];
    let t = tar_of(&[("big.bin", &big[..]), ("lib/k.hsaco", &obj[..])]);
    let c = scan(&t, "x.tar", &budget(1 << 20));
    let errors = c.errors.lock().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "x.tar > tar:big.bin");
    assert!(
        errors[0]
            .1
            .to_string()
            .starts_with("archive member needs 2 MiB")
    );
    let objs = c.objects.lock().unwrap();
    assert_eq!(objs.len(), 1, "the next member is still read");
    assert_eq!(objs[0].0, "x.tar > tar:lib/k.hsaco");
}

/// The example object with its machine changed to x86-64: the start of a host binary.
fn host_header() -> Vec<u8> {
    let mut h = example()[..64].to_vec();
    h[18..20].copy_from_slice(&62u16.to_le_bytes());
    h
}

#[test]
fn a_streamed_object_over_the_budget_is_refused_and_the_stream_goes_on() {
    // A host binary larger than the buffer limit is scanned as a stream; the window that
    // would hold its first embedded object does not fit, the second object (after 17 MiB) is
    // still found at its own offset.
    let obj = example();
    let mut member = host_header();
    member.resize(0x1000, 0);
    let first = member.len();
    member.extend_from_slice(&obj);
    // Claim a section table far away: holding the object needs a 16 MiB window.
    member[first + 0x28..first + 0x30].copy_from_slice(&(16u64 << 20).to_le_bytes());
    member.resize(17 << 20, 0);
    member.extend_from_slice(&obj);
    let t = tar_of(&[("lib/two.bin", &member[..])]);
    let limits = Limits {
        max_member_buffer: 1 << 20,
        ..budget(12 << 20)
    };
    let c = scan(&t, "x.tar", &limits);
    let errors = c.errors.lock().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "x.tar > tar:lib/two.bin > elf@0x1000");
    assert!(
        matches!(errors[0].1, SourceError::Budget { .. }),
        "{}",
        errors[0].1
    );
    assert!(errors[0].1.to_string().contains("--max-memory"));
    let objs = c.objects.lock().unwrap();
    assert_eq!(objs.len(), 1, "{objs:?}");
    assert_eq!(objs[0].1, 17 << 20);
}

#[test]
fn a_member_read_whole_over_the_budget_is_refused_by_name() {
    // A member that is one code object (or a zip, or a Tensile library) cannot be streamed:
    // it is read whole, and when the budget cannot hold it, it is named with what it is and
    // the option that raises the budget; the next member is still read.
    let obj = example();
    let mut big = obj.clone();
    big.resize(3 << 20, 0);
    let mut zw = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zw.start_file("k.hsaco", stored).unwrap();
    std::io::Write::write_all(&mut zw, &big).unwrap();
    let wheel = zw.finish().unwrap().into_inner();
    let t = tar_of(&[
        ("lib/big.hsaco", &big[..]),
        ("lib/pkg.whl", &wheel[..]),
        ("lib/k.hsaco", &obj[..]),
    ]);
    let limits = Limits {
        max_member_buffer: 1 << 20,
        ..budget(2 << 20)
    };
    let c = scan(&t, "x.tar", &limits);
    let errors = c.errors.lock().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[0].0, "x.tar > tar:lib/big.hsaco");
    assert!(
        errors[0]
            .1
            .to_string()
            .starts_with("code object (an archive member read whole) needs 3 MiB of memory"),
        "{}",
        errors[0].1
    );
    assert_eq!(errors[1].0, "x.tar > tar:lib/pkg.whl");
    assert!(
        errors[1].1.to_string().starts_with("zip archive"),
        "{}",
        errors[1].1
    );
    for (_, e) in errors.iter() {
        assert!(matches!(e, SourceError::Budget { .. }), "{e}");
        assert!(e.to_string().contains("raise it with --max-memory"), "{e}");
    }
    let objs = c.objects.lock().unwrap();
    assert_eq!(objs.len(), 1, "{objs:?}");
    assert_eq!(objs[0].0, "x.tar > tar:lib/k.hsaco");
    // Within the budget both are read, as the unpacked files would be.
    let c = scan(
        &t,
        "x.tar",
        &Limits {
            max_member_buffer: 1 << 20,
            ..budget(16 << 20)
        },
    );
    assert!(c.errors.lock().unwrap().is_empty());
    let mut got: Vec<String> = c
        .objects
        .lock()
        .unwrap()
        .iter()
        .map(|o| o.0.clone())
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "x.tar > tar:lib/big.hsaco",
            "x.tar > tar:lib/k.hsaco",
            "x.tar > tar:lib/pkg.whl > zip:k.hsaco",
        ]
    );
}

/// An ar archive (a `.deb`) of the given members.
fn ar_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut a = b"!<arch>\n".to_vec();
    for (name, data) in members {
        a.extend_from_slice(
            format!(
                "{name:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                0,
                0,
                0,
                100644,
                data.len()
            )
            .as_bytes(),
        );
        a.extend_from_slice(data);
        if data.len() % 2 == 1 {
            a.push(b'\n');
        }
    }
    a
}

#[test]
fn deb_member_errors_name_the_member() {
    let junk: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    let mut xz = vec![0xfd, b'7', b'z', b'X', b'Z', 0];
    xz.extend_from_slice(&junk);
    let deb = ar_of(&[("debian-binary", b"2.0\n"), ("data.tar.xz", &xz[..])]);
    let c = scan(&deb, "broken.deb", &Limits::default());
    let errors = c.errors.lock().unwrap();
    assert!(!errors.is_empty());
    for (origin, e) in errors.iter() {
        assert_eq!(origin, "broken.deb > deb:data.tar.xz", "{e}");
    }
    // An ar member cut short names itself too.
    let mut cut = ar_of(&[("debian-binary", b"2.0\n"), ("data.tar.xz", &xz[..])]);
    cut.truncate(cut.len() - 100);
    let c = scan(&cut, "cut.deb", &Limits::default());
    let errors = c.errors.lock().unwrap();
    assert_eq!(errors[0].0, "cut.deb > deb:data.tar.xz");
    assert!(matches!(errors[0].1, SourceError::Truncated { .. }));
}

#[test]
fn error_messages_do_not_repeat_their_offset() {
    let mut c = b"CCOB".to_vec();
    c.extend_from_slice(&3u16.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&64u64.to_le_bytes());
    c.extend_from_slice(&(5u64 << 40).to_le_bytes());
    c.resize(64, 0);
    let r = scan(&c, "bad.hipfb", &Limits::default());
    let errors = r.errors.lock().unwrap();
    assert_eq!(errors.len(), 1);
    let e = &errors[0].1;
    assert_eq!(e.offset(), Some(8));
    assert!(!e.to_string().contains("offset"), "{e}");
    assert!(e.to_string().starts_with("CCOB declares"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_given_by_name_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo");
    // Inside a folder a FIFO is skipped, as every reader skips it.
    let c = Collect::default();
    let t = scan_paths(&[dir.path().to_path_buf()], &Limits::default(), &c, |_| {});
    assert_eq!(t.files, 0);
    assert!(c.errors.lock().unwrap().is_empty());
    for (path, kind) in [
        (fifo.clone(), "a FIFO"),
        ("/dev/zero".into(), "a character device"),
    ] {
        let c = Collect::default();
        scan_paths(std::slice::from_ref(&path), &Limits::default(), &c, |_| {});
        let errors = c.errors.lock().unwrap();
        assert_eq!(errors.len(), 1, "{}", path.display());
        assert_eq!(errors[0].0, path.display().to_string());
        assert!(
            matches!(errors[0].1, SourceError::NotAFile(k) if k == kind),
            "{}",
            errors[0].1
        );
        assert!(
            errors[0]
                .1
                .to_string()
                .contains("not a regular file or folder")
        );
    }
}

/// The committed fuzz seeds (`fuzz/seeds/sources_scan`, see its README) still give the answers
/// the README promises, under the fuzz target's names and limits.
#[test]
fn the_fuzz_seeds_give_the_documented_answers() {
    let dir = rocpath_testdata::repo_root().join("fuzz/seeds/sources_scan");
    let names = [
        "x.so",
        "x.deb",
        "x.tar.gz",
        "x.whl",
        "TensileLibrary_gfx90a.dat",
        "x.hipfb",
    ];
    let limits = Limits {
        max_decompressed: 64 << 20,
        max_member_buffer: 1 << 16,
        max_archive_bytes: 256 << 20,
        ..budget(32 << 20)
    };
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let seed = p.file_name().unwrap().to_string_lossy().to_string();
        let data = std::fs::read(&p).unwrap();
        let name = names[usize::from(data[0]) % names.len()];
        let c = scan(&data, name, &limits);
        let objs = c.objects.lock().unwrap();
        let errors = c.errors.lock().unwrap();
        match seed.as_str() {
            s if s.starts_with("bundle-1000") => {
                assert_eq!(objs.len(), 1, "{seed}");
                assert_eq!(objs[0].2.as_ref().map(|s| s.entries), Some(999), "{seed}");
            }
            "ccob-zstd-bomb-64MiB" => assert!(
                matches!(&errors[..], [(_, SourceError::Budget { .. })]),
                "{seed}: {errors:?}"
            ),
            s if s.starts_with("codeobj-") => {
                // Found as a standalone object (by its magic); refused by the parser.
                let e = rocpath_codeobj::parse(&data).unwrap_err();
                assert!(
                    matches!(e, rocpath_codeobj::Error::Truncated { .. }),
                    "{seed}: {e}"
                );
            }
            "deb-broken-data-tar-xz" => {
                assert!(!errors.is_empty(), "{seed}");
                assert!(
                    errors.iter().all(|(o, _)| o.ends_with("> deb:data.tar.xz")),
                    "{errors:?}"
                );
            }
            other => panic!("seed {other} has no expected answer here; add one"),
        }
        seen += 1;
    }
    assert_eq!(seen, 6);
}

/// A sink that truncates the scanned file when it is handed the first code object, as
/// another process rewriting the library would.
struct TruncateOnFirst {
    path: std::path::PathBuf,
    inner: Collect,
    done: std::sync::atomic::AtomicBool,
}

impl Sink for TruncateOnFirst {
    fn found(&self, f: Found<'_>) {
        if matches!(f, Found::CodeObject { .. })
            && !self.done.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            std::fs::File::options()
                .write(true)
                .open(&self.path)
                .unwrap()
                .set_len(4096)
                .unwrap();
        }
        self.inner.found(f);
    }
}

/// Truncating a file while it was scanned killed the process with SIGBUS (exit 135); now the
/// lost pages read as zeros and the file gets an error that says it changed.
#[cfg(target_os = "linux")]
#[test]
fn a_file_truncated_while_scanned_is_an_error_for_that_file() {
    let obj = example();
    let members: Vec<(String, Vec<u8>)> = (0..40)
        .map(|i| (format!("lib/k{i}.hsaco"), obj.clone()))
        .collect();
    let refs: Vec<(&str, &[u8])> = members
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kernels.tar");
    std::fs::write(&path, tar_of(&refs)).unwrap();
    let sink = TruncateOnFirst {
        path: path.clone(),
        inner: Collect::default(),
        done: Default::default(),
    };
    scan_paths(
        std::slice::from_ref(&path),
        &Limits::default(),
        &sink,
        |_| {},
    );
    let errors = sink.inner.errors.lock().unwrap();
    assert!(
        errors
            .iter()
            .any(|(_, e)| e.to_string().contains("the file shrank while it was read")),
        "{errors:?}"
    );
    assert!(sink.inner.objects.lock().unwrap().len() < 40);
}
