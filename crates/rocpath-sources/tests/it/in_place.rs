//! Archives read in place find what unpacking finds: the same code objects at the same
//! offsets of the same members, with the same targets and kernels, the same Tensile files and
//! the same errors — whatever the size of a member, of a bundle or of the stream's window.
//!
//! Packages (.deb, tar, tar.gz, tar.zst, zip) are built here from the project's example code
//! objects (`examples/data`), laid out as a host library would hold them (bundles in
//! `.hip_fatbin`, compressed bundles, raw objects in `.data`), as fat binaries and as lone
//! objects, with bundle entries much larger than the stream window; the window and the member
//! buffer are set small so that every object crosses a window edge. Then the real
//! `librocrand1` package of the Debian corpus, when it is present (`ROCPATH_CORPUS`, else
//! `~/.cache/rocpath-corpus`, as `../shared/tools/fetch-debian-rocm.sh` fills it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rocpath_sources::{Found, Limits, Origin, Sink, scan_file, scan_paths};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One find, told apart only by what unpacking keeps: the member (the path inside the
/// package, then any archive inside it), the offset, and what was read there.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Object {
        member: String,
        offset: u64,
        target: String,
        kernels: Vec<String>,
    },
    Tensile {
        member: String,
    },
    Error {
        member: String,
        offset: Option<u64>,
        message: String,
    },
}

/// Collects [`Item`]s. `root` is the folder of the unpacked files, `None` for a package.
struct Collect {
    root: Option<PathBuf>,
    items: Mutex<BTreeSet<Item>>,
    objects: Mutex<usize>,
}

impl Collect {
    fn new(root: Option<&Path>) -> Self {
        Collect {
            root: root.map(Path::to_path_buf),
            items: Mutex::new(BTreeSet::new()),
            objects: Mutex::new(0),
        }
    }

    /// The member an origin names: for a package its first archive link, for an unpacked
    /// file its path under the root; then the archive links inside it.
    fn member(&self, origin: &Origin) -> String {
        let mut links = origin.chain.iter().filter_map(|l| archive_member(l));
        let mut parts = Vec::new();
        match &self.root {
            Some(root) => parts.push(
                Path::new(&origin.path)
                    .strip_prefix(root)
                    .unwrap()
                    .display()
                    .to_string(),
            ),
            None => parts.push(links.next().unwrap_or_default()),
        }
        parts.extend(links);
        parts.join(" > ")
    }

    fn items(&self) -> BTreeSet<Item> {
        self.items.lock().unwrap().clone()
    }
}

/// The member path of an archive link (`deb:data.tar.xz:./usr/lib/x.so` → `usr/lib/x.so`).
fn archive_member(link: &str) -> Option<String> {
    ["deb:", "tar:", "zip:", "ar:"].iter().find_map(|p| {
        let rest = link.strip_prefix(p)?;
        let m = rest.rsplit_once(':').map(|x| x.1).unwrap_or(rest);
        Some(m.trim_start_matches("./").to_string())
    })
}

impl Sink for Collect {
    fn found(&self, f: Found<'_>) {
        let item = match f {
            Found::CodeObject {
                origin,
                offset,
                bytes,
                ..
            } => {
                *self.objects.lock().unwrap() += 1;
                let (target, kernels) = match rocpath_codeobj::parse(bytes) {
                    Ok(co) => (
                        co.target_id.to_string(),
                        co.kernels.iter().map(|k| k.name.clone()).collect(),
                    ),
                    Err(e) => (format!("unparsed: {e}"), Vec::new()),
                };
                Item::Object {
                    member: self.member(origin),
                    offset,
                    target,
                    kernels,
                }
            }
            Found::Tensile { origin, .. } => Item::Tensile {
                member: self.member(origin),
            },
            Found::Error { origin, error } => Item::Error {
                member: self.member(origin),
                offset: error.offset(),
                message: error.to_string(),
            },
            Found::Named { .. } | Found::KpackRef { .. } => return,
        };
        self.items.lock().unwrap().insert(item);
    }
}

fn example(name: &str) -> Vec<u8> {
    std::fs::read(
        rocpath_testdata::repo_root()
            .join("examples/data/install/opt/rocm-example/lib/example/library")
            .join(name),
    )
    .unwrap()
}

/// The example code objects and their bundle entry ids.
fn objects() -> Vec<(Vec<u8>, &'static str)> {
    vec![
        (
            example("Kernels.so-000-gfx1100.hsaco"),
            "hipv4-amdgcn-amd-amdhsa--gfx1100",
        ),
        (
            example("TensileLibrary_Type_SS_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx906.co"),
            "hipv4-amdgcn-amd-amdhsa--gfx906",
        ),
    ]
}

/// One bundle entry: which example object, and how many zero bytes follow it inside the entry
/// (LLVM pads entries; here it makes them larger than the stream window).
#[derive(Debug, Clone)]
struct Entry {
    object: usize,
    pad: usize,
}

#[derive(Debug, Clone)]
struct BundleSpec {
    entries: Vec<Entry>,
    /// Entry alignment (LLVM aligns HIP entries to 4096).
    align: usize,
    /// A leading empty host entry, as clang writes it.
    host_entry: bool,
}

/// Something in a fat binary region, after `gap` zero bytes.
#[derive(Debug, Clone)]
enum Part {
    Bundle(BundleSpec),
    /// A compressed bundle: version (1–3), zstd (else zlib).
    Ccob(u16, bool, BundleSpec),
}

#[derive(Debug, Clone)]
enum FileSpec {
    /// A host library: a `.hip_fatbin` section of parts (each after a gap), raw objects in
    /// `.data` (each after a gap), some text before.
    Host {
        fatbin: Vec<(usize, Part)>,
        raw: Vec<(usize, usize)>,
        text: usize,
    },
    /// A fat binary file: parts back to back (the first at offset 0).
    Fatbin(Vec<(usize, Part)>),
    /// A lone code object followed by `pad` bytes.
    Object(usize, usize),
    /// A Tensile library file, and its size.
    Tensile(usize),
    /// Bytes rocpath does not read.
    Junk(usize),
    /// A tar.gz holding a host library and a lone object.
    NestedTar(Box<FileSpec>, usize),
}

fn bundle_bytes(b: &BundleSpec, objs: &[(Vec<u8>, &str)]) -> Vec<u8> {
    let mut ids: Vec<(&str, Vec<u8>)> = Vec::new();
    if b.host_entry {
        ids.push(("host-x86_64-unknown-linux-gnu-", Vec::new()));
    }
    for e in &b.entries {
        let (o, id) = &objs[e.object % objs.len()];
        let mut body = o.clone();
        body.resize(o.len() + e.pad, 0);
        ids.push((id, body));
    }
    let hlen = 24 + 8 + ids.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
    let mut entries = Vec::new();
    let mut at = hlen;
    let mut body = Vec::new();
    for (id, data) in &ids {
        if data.is_empty() {
            entries.push((id.as_bytes(), 0u64, 0u64));
            continue;
        }
        at = at.div_ceil(b.align) * b.align;
        entries.push((id.as_bytes(), at as u64, data.len() as u64));
        body.resize(at - hlen, 0);
        body.extend_from_slice(data);
        at += data.len();
    }
    rocpath_testdata::bundle::with_entries(&entries, hlen, &body)
}

fn ccob_bytes(version: u16, zstd: bool, payload: &[u8]) -> Vec<u8> {
    let comp = if zstd {
        zstd::encode_all(payload, 3).unwrap()
    } else {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(payload).unwrap();
        e.finish().unwrap()
    };
    let mut c = b"CCOB".to_vec();
    c.extend_from_slice(&version.to_le_bytes());
    c.extend_from_slice(&u16::from(zstd).to_le_bytes());
    let n = payload.len();
    match version {
        1 => {
            c.extend_from_slice(&(n as u32).to_le_bytes());
        }
        2 => {
            c.extend_from_slice(&((24 + comp.len()) as u32).to_le_bytes());
            c.extend_from_slice(&(n as u32).to_le_bytes());
        }
        _ => {
            c.extend_from_slice(&((32 + comp.len()) as u64).to_le_bytes());
            c.extend_from_slice(&(n as u64).to_le_bytes());
        }
    }
    c.extend_from_slice(&0x1234_5678_9abc_def0u64.to_le_bytes());
    c.extend_from_slice(&comp);
    c
}

fn region(parts: &[(usize, Part)], objs: &[(Vec<u8>, &str)]) -> Vec<u8> {
    let mut r = Vec::new();
    for (gap, p) in parts {
        r.resize(r.len() + gap, 0);
        match p {
            Part::Bundle(b) => r.extend(bundle_bytes(b, objs)),
            Part::Ccob(v, z, b) => r.extend(ccob_bytes(*v, *z, &bundle_bytes(b, objs))),
        }
    }
    r
}

/// A minimal x86-64 shared object with the given sections (name, type, flags, bytes), laid
/// out as a linker would: header, section contents (aligned), names, section headers.
fn host_elf(sections: &[(&str, u32, u64, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![0u8; 64];
    let mut names = vec![0u8];
    let mut headers: Vec<[u8; 64]> = vec![[0; 64]];
    let mut header = |name_off: usize, ty: u32, flags: u64, off: usize, size: usize, align| {
        let mut h = [0u8; 64];
        h[0..4].copy_from_slice(&(name_off as u32).to_le_bytes());
        h[4..8].copy_from_slice(&ty.to_le_bytes());
        h[8..16].copy_from_slice(&flags.to_le_bytes());
        h[16..24].copy_from_slice(&(off as u64).to_le_bytes()); // sh_addr = offset
        h[24..32].copy_from_slice(&(off as u64).to_le_bytes());
        h[32..40].copy_from_slice(&(size as u64).to_le_bytes());
        h[48..56].copy_from_slice(&(align as u64).to_le_bytes());
        headers.push(h);
    };
    for (name, ty, flags, bytes) in sections {
        let off = out.len().div_ceil(4096) * 4096;
        out.resize(off, 0);
        out.extend_from_slice(bytes);
        header(names.len(), *ty, *flags, off, bytes.len(), 4096);
        names.extend_from_slice(name.as_bytes());
        names.push(0);
    }
    let strtab_name = names.len();
    names.extend_from_slice(b".shstrtab\0");
    let off = out.len();
    out.extend_from_slice(&names);
    header(strtab_name, 3, 0, off, names.len(), 1);
    let shoff = out.len().div_ceil(8) * 8;
    out.resize(shoff, 0);
    for h in &headers {
        out.extend_from_slice(h);
    }
    let e = &mut out[..64];
    e[..8].copy_from_slice(b"\x7fELF\x02\x01\x01\x00");
    e[16..18].copy_from_slice(&3u16.to_le_bytes()); // ET_DYN
    e[18..20].copy_from_slice(&62u16.to_le_bytes()); // x86-64
    e[20..24].copy_from_slice(&1u32.to_le_bytes());
    e[40..48].copy_from_slice(&(shoff as u64).to_le_bytes());
    e[52..54].copy_from_slice(&64u16.to_le_bytes());
    e[58..60].copy_from_slice(&64u16.to_le_bytes());
    e[60..62].copy_from_slice(&(headers.len() as u16).to_le_bytes());
    e[62..64].copy_from_slice(&((headers.len() - 1) as u16).to_le_bytes());
    out
}

/// Text-like bytes with no magic in them.
fn filler(n: usize) -> Vec<u8> {
    b"host code; ".iter().copied().cycle().take(n).collect()
}

fn file_bytes(f: &FileSpec, objs: &[(Vec<u8>, &str)]) -> Vec<u8> {
    match f {
        FileSpec::Host { fatbin, raw, text } => {
            let mut data = Vec::new();
            for (gap, o) in raw {
                data.resize(data.len() + gap, 0);
                data.extend_from_slice(&objs[o % objs.len()].0);
            }
            data.resize(data.len() + 64, 0);
            host_elf(&[
                (".text", 1, 6, filler(*text)),
                (".hip_fatbin", 1, 2, region(fatbin, objs)),
                (".data", 1, 3, data),
            ])
        }
        FileSpec::Fatbin(parts) => region(parts, objs),
        FileSpec::Object(o, pad) => {
            let mut b = objs[o % objs.len()].0.clone();
            b.resize(b.len() + pad, 0);
            b
        }
        FileSpec::Tensile(n) => {
            let mut b = example("TensileLibrary_lazy_gfx906.dat");
            b.resize(b.len().max(*n), 0);
            b
        }
        FileSpec::Junk(n) => filler(*n),
        FileSpec::NestedTar(host, o) => {
            let tar = tar_of(&[
                ("lib/inner.so".to_string(), file_bytes(host, objs)),
                (
                    "lib/inner.hsaco".to_string(),
                    file_bytes(&FileSpec::Object(*o, 0), objs),
                ),
            ]);
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&tar).unwrap();
            gz.finish().unwrap()
        }
    }
}

fn file_name(i: usize, f: &FileSpec) -> String {
    match f {
        FileSpec::Host { .. } => format!("usr/lib/x86_64-linux-gnu/libhost{i}.so.1"),
        FileSpec::Fatbin(_) => format!("usr/lib/x86_64-linux-gnu/fat/kernels{i}.hipfb"),
        FileSpec::Object(..) => format!("usr/lib/x86_64-linux-gnu/lib/Kernels{i}.hsaco"),
        FileSpec::Tensile(_) => format!("usr/lib/x86_64-linux-gnu/lib/TensileLibrary_lazy_{i}.dat"),
        FileSpec::Junk(_) => format!("usr/share/doc/pkg/notes{i}.txt"),
        FileSpec::NestedTar(..) => format!("usr/share/pkg/extra{i}.tar.gz"),
    }
}

fn tar_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, &data[..]).unwrap();
    }
    b.into_inner().unwrap()
}

/// An ar archive of the given members (a `.deb` when they are Debian's).
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

/// The package formats: file name and bytes.
fn packages(files: &[(String, Vec<u8>)]) -> Vec<(&'static str, Vec<u8>)> {
    let tar = tar_of(files);
    // dpkg writes `./`-prefixed paths.
    let dotted: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(n, d)| (format!("./{n}"), d.clone()))
        .collect();
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 0);
    xz.write_all(&tar_of(&dotted)).unwrap();
    let control = tar_of(&[("./control".to_string(), b"Package: pkg\n".to_vec())]);
    let deb = ar_of(&[
        ("debian-binary", b"2.0\n"),
        ("control.tar", &control),
        ("data.tar.xz", &xz.finish().unwrap()),
    ]);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    let zst = zstd::encode_all(&tar[..], 1).unwrap();
    let mut zw = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (n, d) in files {
        zw.start_file(n.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        zw.write_all(d).unwrap();
    }
    let zip = zw.finish().unwrap().into_inner();
    vec![
        ("pkg_1.0_amd64.deb", deb),
        ("pkg.tar", tar),
        ("pkg.tar.gz", gz.finish().unwrap()),
        ("pkg.tar.zst", zst),
        ("pkg-1.0-py3-none-linux_x86_64.whl", zip),
    ]
}

/// Scans the files unpacked in a folder and each package of them in place (under `limits`),
/// and checks that every package gives what the folder gives. Returns the folder's items.
fn compare(files: &[(String, Vec<u8>)], limits: &[Limits]) -> BTreeSet<Item> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("unpacked");
    for (n, d) in files {
        let p = root.join(n);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, d).unwrap();
    }
    let unpacked = Collect::new(Some(&root));
    scan_paths(
        std::slice::from_ref(&root),
        &Limits::default(),
        &unpacked,
        |_| {},
    );
    let want = unpacked.items();
    for (name, bytes) in packages(files) {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        for l in limits {
            let c = Collect::new(None);
            scan_file(&p, l, &c);
            let got = c.items();
            let missing: Vec<_> = want.difference(&got).collect();
            let extra: Vec<_> = got.difference(&want).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{name} with member buffer {} and stream chunk {}: missing in place {missing:#?}, only in place {extra:#?}",
                l.max_member_buffer,
                l.stream_chunk
            );
        }
    }
    want
}

fn small(buffer: u64, chunk: u64) -> Limits {
    Limits {
        max_member_buffer: buffer,
        stream_chunk: chunk,
        ..Limits::default()
    }
}

fn spec_bundle(entries: Vec<(usize, usize)>, align: usize) -> BundleSpec {
    BundleSpec {
        entries: entries
            .into_iter()
            .map(|(object, pad)| Entry { object, pad })
            .collect(),
        align,
        host_entry: true,
    }
}

#[test]
fn bundles_larger_than_the_window_are_read_at_their_offsets() {
    // The shape of the issue: a host library whose bundles hold entries several times larger
    // than the window, separated by alignment gaps, then more bundles after them. Before, the
    // window lost count of the bytes it held when it skipped a gap, and every later offset
    // (and entry) drifted.
    let objs = objects();
    let big = |n: usize| spec_bundle((0..n).map(|i| (i, 300_000 + 1000 * i)).collect(), 4096);
    // Entries larger than the default window (4 MiB) too.
    let huge = spec_bundle((0..3).map(|i| (i, (9 << 20) + 1000 * i)).collect(), 4096);
    let host = FileSpec::Host {
        fatbin: vec![
            (0, Part::Bundle(huge)),
            (4096, Part::Bundle(big(4))),
            (0, Part::Ccob(3, true, big(2))),
            (100, Part::Bundle(spec_bundle(vec![(1, 0), (0, 10)], 1))),
        ],
        raw: vec![(0, 0), (70_000, 1)],
        text: 200_000,
    };
    let files = vec![(file_name(0, &host), file_bytes(&host, &objs))];
    let want = compare(
        &files,
        &[
            Limits::default(),
            small(64 << 10, 64 << 10),
            small(4096, 4096),
        ],
    );
    let objects = want
        .iter()
        .filter(|i| matches!(i, Item::Object { .. }))
        .count();
    assert_eq!(objects, 3 + 4 + 2 + 2 + 2, "{want:#?}");
    assert!(
        !want.iter().any(|i| matches!(i, Item::Error { .. })),
        "{want:#?}"
    );
}

#[test]
fn every_kind_of_member_is_read_as_its_unpacked_file() {
    let objs = objects();
    let b = |pad| spec_bundle(vec![(0, pad), (1, pad / 2)], 4096);
    let files: Vec<FileSpec> = vec![
        FileSpec::Host {
            fatbin: vec![
                (0, Part::Bundle(b(150_000))),
                (8, Part::Ccob(2, false, b(90_000))),
            ],
            raw: vec![(16, 1)],
            text: 10,
        },
        FileSpec::Fatbin(vec![
            (0, Part::Ccob(1, true, b(70_000))),
            (0, Part::Ccob(1, false, b(70_000))),
        ]),
        FileSpec::Fatbin(vec![
            (0, Part::Bundle(b(200_000))),
            (0, Part::Ccob(3, true, b(0))),
        ]),
        FileSpec::Object(1, 300_000),
        FileSpec::Tensile(200_000),
        FileSpec::Junk(300_000),
        FileSpec::NestedTar(
            Box::new(FileSpec::Host {
                fatbin: vec![(0, Part::Bundle(b(100_000)))],
                raw: vec![],
                text: 1,
            }),
            0,
        ),
    ];
    let files: Vec<(String, Vec<u8>)> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (file_name(i, f), file_bytes(f, &objs)))
        .collect();
    let want = compare(
        &files,
        &[
            small(64 << 10, 64 << 10),
            small(4096, 4096),
            small(64 << 10, 4096),
        ],
    );
    let members: BTreeSet<&str> = want
        .iter()
        .filter_map(|i| match i {
            Item::Object { member, .. } | Item::Tensile { member } => Some(member.as_str()),
            Item::Error { .. } => None,
        })
        .collect();
    // Every kind was found in the folder (so the comparison compared something).
    assert_eq!(members.len(), 7, "{members:#?}");
}

fn arb_bundle() -> impl Strategy<Value = BundleSpec> {
    (
        proptest::collection::vec((0usize..2, 0usize..150_000), 1..4),
        prop_oneof![Just(1usize), Just(8), Just(4096)],
        any::<bool>(),
    )
        .prop_map(|(e, align, host_entry)| BundleSpec {
            entries: e
                .into_iter()
                .map(|(object, pad)| Entry { object, pad })
                .collect(),
            align,
            host_entry,
        })
}

/// A part of a region; `v1` allows CCOB v1 (whose payload runs to the region's end).
fn arb_part(v1: bool) -> impl Strategy<Value = Part> {
    let low = if v1 { 1u16 } else { 2 };
    prop_oneof![
        3 => arb_bundle().prop_map(Part::Bundle),
        1 => (low..=3u16, any::<bool>(), arb_bundle()).prop_map(|(v, z, b)| Part::Ccob(v, z, b)),
    ]
}

fn arb_host() -> impl Strategy<Value = FileSpec> {
    (
        proptest::collection::vec((0usize..5000, arb_part(false)), 0..4),
        proptest::collection::vec((0usize..80_000, 0usize..2), 0..3),
        0usize..100_000,
    )
        .prop_map(|(fatbin, raw, text)| FileSpec::Host { fatbin, raw, text })
}

fn arb_file() -> impl Strategy<Value = FileSpec> {
    prop_oneof![
        4 => arb_host(),
        2 => (arb_part(true), proptest::collection::vec((0usize..3000, arb_part(false)), 0..3))
            .prop_map(|(first, rest)| {
                let mut parts = vec![(0, first)];
                parts.extend(rest);
                FileSpec::Fatbin(parts)
            }),
        2 => (0usize..2, 0usize..200_000).prop_map(|(o, pad)| FileSpec::Object(o, pad)),
        1 => (0usize..100_000).prop_map(FileSpec::Tensile),
        1 => (0usize..100_000).prop_map(FileSpec::Junk),
        1 => (arb_host(), 0usize..2).prop_map(|(h, o)| FileSpec::NestedTar(Box::new(h), o)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any package of host libraries, fat binaries, lone objects, Tensile files, other files
    /// and nested tars, read in place with a small window and member buffer, gives exactly
    /// what its unpacked files give.
    #[test]
    fn a_package_read_in_place_gives_what_its_unpacked_files_give(
        specs in proptest::collection::vec(arb_file(), 1..4),
        buffer in prop_oneof![Just(4096u64), Just(64 << 10), Just(32 << 20)],
        chunk in prop_oneof![Just(4096u64), Just(64 << 10), Just(4 << 20)],
    ) {
        let objs = objects();
        let files: Vec<(String, Vec<u8>)> = specs
            .iter()
            .enumerate()
            .map(|(i, f)| (file_name(i, f), file_bytes(f, &objs)))
            .collect();
        compare(&files, &[small(buffer, chunk)]);
    }
}

/// The Debian corpus (`ROCPATH_CORPUS`, else `~/.cache/rocpath-corpus`), when present.
fn corpus() -> Option<PathBuf> {
    rocpath_testdata::corpus_path("librocrand1", "")?;
    rocpath_testdata::corpus_root()
}

#[test]
fn the_rocrand_package_read_in_place_gives_what_dpkg_unpacks() {
    // The package of the issue: librocrand.so.1.1 (139 MB) in data.tar.xz, 15 bundles of 10
    // entries each, most of them larger than the default 4 MiB window.
    let Some(root) = corpus() else { return };
    let unpacked = root.join("unpacked/librocrand1");
    let deb = std::fs::read_dir(root.join("debs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("librocrand1_"))
        });
    let (Some(deb), true) = (deb, unpacked.is_dir()) else {
        rocpath_testdata::missing("the librocrand1 .deb is not in the corpus's debs/");
        return;
    };
    let folder = Collect::new(Some(&unpacked));
    scan_paths(
        std::slice::from_ref(&unpacked),
        &Limits::default(),
        &folder,
        |_| {},
    );
    let want = folder.items();
    assert_eq!(*folder.objects.lock().unwrap(), 150);
    let kernels: usize = want
        .iter()
        .map(|i| match i {
            Item::Object { kernels, .. } => kernels.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(kernels, 4080);
    for limits in [Limits::default(), small(32 << 20, 64 << 10)] {
        let c = Collect::new(None);
        scan_file(&deb, &limits, &c);
        let got = c.items();
        let missing: Vec<_> = want.difference(&got).take(3).collect();
        let extra: Vec<_> = got.difference(&want).take(3).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "stream chunk {}: missing in place {missing:#?}, only in place {extra:#?}",
            limits.stream_chunk
        );
    }
}
