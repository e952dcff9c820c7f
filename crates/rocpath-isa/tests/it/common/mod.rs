//! Shared helpers for the fixture tests: find `../shared`, cut code objects out of their
//! containers with `manifest.tsv`, and list executable sections and symbols.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SymbolFlags};
use rocpath_isa::{SymbolKind, SymbolStart};
use std::path::PathBuf;

/// The shared data folder (`rocpath_testdata::shared_dir`), when it holds the code-object
/// fixtures; their absence skips the test, or fails it under CI.
pub fn shared_dir() -> Option<PathBuf> {
    rocpath_testdata::codeobjects_dir()?;
    rocpath_testdata::shared_dir()
}

/// `shared/fixtures/codeobjects` (see [`shared_dir`]).
pub fn fixtures_dir() -> Option<PathBuf> {
    rocpath_testdata::codeobjects_dir()
}

/// Whether `llvm-objdump-22` runs; its absence skips the test, or fails it under CI.
pub fn have_objdump() -> bool {
    let ok = std::process::Command::new("llvm-objdump-22")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        rocpath_testdata::missing("llvm-objdump-22 not on PATH (apt-get install llvm-22)");
    }
    ok
}

/// One code object from the manifest.
pub struct CodeObject {
    /// Reference base name (`NAME` or `NAME.ENTRY`).
    pub base: String,
    pub bytes: Vec<u8>,
    /// Processor for the decoder.
    pub cpu: String,
    pub instructions: u64,
}

fn unbundle(data: &[u8], entry: &str) -> Option<Vec<u8>> {
    let magic = b"__CLANG_OFFLOAD_BUNDLE__";
    if data.get(..24)? != magic {
        return None;
    }
    let n = u64::from_le_bytes(data.get(24..32)?.try_into().ok()?) as usize;
    let mut q = 32;
    for _ in 0..n {
        let off = u64::from_le_bytes(data.get(q..q + 8)?.try_into().ok()?) as usize;
        let size = u64::from_le_bytes(data.get(q + 8..q + 16)?.try_into().ok()?) as usize;
        let idl = u64::from_le_bytes(data.get(q + 16..q + 24)?.try_into().ok()?) as usize;
        let id = std::str::from_utf8(data.get(q + 24..q + 24 + idl)?).ok()?;
        q += 24 + idl;
        if id.replace(':', "_") == entry {
            return data.get(off..off + size).map(<[u8]>::to_vec);
        }
    }
    None
}

/// Decompress a CCOB (v2: 24-byte header, then one zstd frame) into its bundle.
pub fn ccob_decompress(data: &[u8]) -> Option<Vec<u8>> {
    if data.get(..4)? != b"CCOB" {
        return None;
    }
    let total = u32::from_le_bytes(data.get(8..12)?.try_into().ok()?) as usize;
    zstd::stream::decode_all(data.get(24..total.min(data.len()))?).ok()
}

/// Processor name from the manifest's `llvm-readelf -h` flags text (`0x54c, gfx942, xnack`).
fn cpu_of(flags: &str) -> String {
    flags
        .split(',')
        .nth(1)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "gfx900".to_string())
}

/// Every code object listed in `manifest.tsv`.
pub fn code_objects() -> Option<Vec<CodeObject>> {
    let dir = fixtures_dir()?;
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).ok()?;
    let mut lines = manifest.lines();
    let header: Vec<&str> = lines.next()?.split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (cf, ce, co, cs, cfl, cm, ci) = (
        col("fixture")?,
        col("entry")?,
        col("offset_in_fixture")?,
        col("codeobj_bytes")?,
        col("elf_flags(llvm-readelf)")?,
        col("mnemonics_file")?,
        col("instructions")?,
    );
    let mut out = Vec::new();
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        let data = std::fs::read(dir.join(f[cf])).ok()?;
        let size: usize = f[cs].parse().ok()?;
        let bytes = if f[co] == "-" {
            let bundle = ccob_decompress(&data)?;
            unbundle(&bundle, f[ce])?
        } else {
            let off: usize = f[co].parse().ok()?;
            data.get(off..off + size)?.to_vec()
        };
        assert_eq!(bytes.len(), size, "{}", f[cf]);
        out.push(CodeObject {
            base: f[cm].trim_end_matches(".mnemonics.tsv").to_string(),
            bytes,
            cpu: cpu_of(f[cfl]),
            instructions: f[ci].parse().unwrap_or(0),
        });
    }
    Some(out)
}

/// An executable section: bytes, address, and the symbols inside it (sorted).
pub struct ExecSection<'a> {
    pub name: String,
    pub bytes: &'a [u8],
    pub address: u64,
    pub symbols: Vec<SymbolStart>,
}

/// Executable (SHF_EXECINSTR) sections with the symbols llvm-objdump uses as range starts.
pub fn exec_sections(elf: &[u8]) -> Vec<ExecSection<'_>> {
    let file = object::File::parse(elf).expect("ELF");
    let is_rel = file.kind() == object::ObjectKind::Relocatable;
    let mut out = Vec::new();
    for sec in file.sections() {
        let SectionFlags::Elf { sh_flags } = sec.flags() else {
            continue;
        };
        if sh_flags & 0x4 == 0 {
            continue;
        }
        let Ok(bytes) = sec.data() else { continue };
        let address = sec.address();
        let mut symbols = Vec::new();
        for sym in file.symbols() {
            if sym.section_index() != Some(sec.index()) {
                continue;
            }
            let SymbolFlags::Elf { st_info, .. } = sym.flags() else {
                continue;
            };
            let st_type = st_info & 0xf;
            if st_type == 3 || st_type == 4 {
                continue; // STT_SECTION, STT_FILE
            }
            let addr = if is_rel {
                address + sym.address()
            } else {
                sym.address()
            };
            let kind = if st_type == 10 {
                SymbolKind::LegacyKernel
            } else {
                SymbolKind::Code
            };
            symbols.push(SymbolStart {
                address: addr,
                kind,
            });
        }
        symbols.sort_by_key(|s| (s.address, s.kind == SymbolKind::Code));
        out.push(ExecSection {
            name: sec.name().unwrap_or("").to_string(),
            bytes,
            address,
            symbols,
        });
    }
    out
}

/// Parse a reference histogram file.
pub fn read_reference(path: &std::path::Path) -> Vec<(String, u64)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (m, c) = l.split_once('\t')?;
            Some((m.to_string(), c.parse().ok()?))
        })
        .collect()
}

/// AMDGPU ELF code objects inside `data`: the data itself if it is one, the device entries of
/// an offload bundle, or those of a CCOB (zstd) bundle. Names are entry ids.
pub fn code_objects_in(data: &[u8]) -> Vec<(String, Vec<u8>)> {
    if data.get(..4) == Some(b"\x7fELF") {
        let machine = data.get(18..20).map(|b| u16::from_le_bytes([b[0], b[1]]));
        if machine == Some(0xe0) {
            return vec![(String::new(), data.to_vec())];
        }
        // Host library: every bundle in `.hip_fatbin`.
        let Ok(file) = object::File::parse(data) else {
            return Vec::new();
        };
        let Some(sec) = file.section_by_name(".hip_fatbin") else {
            return Vec::new();
        };
        let Ok(fat) = sec.data() else {
            return Vec::new();
        };
        let magic = b"__CLANG_OFFLOAD_BUNDLE__";
        let mut out = Vec::new();
        let mut pos = 0;
        let mut index = 0;
        while pos + 24 <= fat.len() {
            if &fat[pos..pos + 24] == magic {
                for (id, e) in code_objects_in(&fat[pos..]) {
                    out.push((format!("b{index}.{id}"), e));
                }
                index += 1;
            }
            pos += 8;
        }
        return out;
    }
    let bundle;
    let b: &[u8] = if data.get(..4) == Some(b"CCOB") {
        match ccob_decompress(data) {
            Some(x) => {
                bundle = x;
                &bundle
            }
            None => return Vec::new(),
        }
    } else {
        data
    };
    let mut out = Vec::new();
    if b.get(..24) != Some(b"__CLANG_OFFLOAD_BUNDLE__") {
        return out;
    }
    let Some(n) = b
        .get(24..32)
        .map(|x| u64::from_le_bytes(x.try_into().unwrap()) as usize)
    else {
        return out;
    };
    let mut q = 32;
    for _ in 0..n {
        let rd = |at: usize| {
            b.get(at..at + 8)
                .map(|x| u64::from_le_bytes(x.try_into().unwrap()) as usize)
        };
        let (Some(off), Some(size), Some(idl)) = (rd(q), rd(q + 8), rd(q + 16)) else {
            break;
        };
        let id = String::from_utf8_lossy(b.get(q + 24..q + 24 + idl).unwrap_or(&[])).to_string();
        q += 24 + idl;
        if size > 0 && !id.starts_with("host") {
            if let Some(e) = b.get(off..off + size) {
                out.push((id, e.to_vec()));
            }
        }
    }
    out
}

/// ELF `e_flags`.
pub fn e_flags(elf: &[u8]) -> u32 {
    elf.get(48..52)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .unwrap_or(0)
}

/// Census of every executable section of one code object (decoder from `e_flags`).
pub fn census_of(elf: &[u8]) -> Option<rocpath_isa::Census> {
    let dec = rocpath_isa::Decoder::for_mach(e_flags(elf))?;
    let mut c = rocpath_isa::Census::new();
    for sec in exec_sections(elf) {
        c.merge(&dec.census(sec.bytes, sec.address, &sec.symbols));
    }
    Some(c)
}

/// Histogram of `llvm-objdump-22 -d` output (counted lines as in the reference files).
pub fn objdump_histogram(
    path: &std::path::Path,
) -> Option<std::collections::BTreeMap<String, u64>> {
    let out = std::process::Command::new("llvm-objdump-22")
        .arg("-d")
        .arg(path)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut h = std::collections::BTreeMap::new();
    for line in out.stdout.split(|&b| b == b'\n') {
        if line.first() != Some(&b'\t') {
            continue;
        }
        let t = String::from_utf8_lossy(line);
        let t = t.trim();
        if t.is_empty() || t == "..." {
            continue;
        }
        *h.entry(t.split_whitespace().next().unwrap_or("").to_string())
            .or_insert(0) += 1;
    }
    Some(h)
}
