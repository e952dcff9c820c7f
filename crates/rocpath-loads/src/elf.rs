//! What the dynamic loader reads of an ELF file: class, machine, the interpreter and the
//! dynamic section (`DT_NEEDED`, `DT_RPATH`, `DT_RUNPATH`, `DT_SONAME`, `DT_FLAGS_1`), through
//! the program headers as ld.so does (section headers may be stripped). Bytes in, values or
//! a named error with its offset out; never a panic.

use object::Endianness;
use object::elf;
use object::read::elf::{Dyn, FileHeader, ProgramHeader};

/// `e_ident` positions of the class and data encoding.
const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;

/// Most `DT_NEEDED` entries kept for one object.
pub const MAX_NEEDED: usize = 4096;

/// The dynamic-loading view of one ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfInfo {
    /// `EI_CLASS`: 1 (32-bit) or 2 (64-bit).
    pub class: u8,
    /// `e_machine`.
    pub machine: u16,
    /// `e_type` (`ET_EXEC`, `ET_DYN`, …).
    pub e_type: u16,
    /// `PT_INTERP`, when present.
    pub interp: Option<String>,
    /// `DT_NEEDED`, in order.
    pub needed: Vec<String>,
    /// `DT_RPATH` (dropped when `DT_RUNPATH` is present, as ld.so drops it).
    pub rpath: Option<String>,
    /// `DT_RUNPATH`.
    pub runpath: Option<String>,
    /// `DT_SONAME`.
    pub soname: Option<String>,
    /// `DF_1_NODEFLIB` in `DT_FLAGS_1`: the cache and the default folders are not searched
    /// for this object's dependencies.
    pub nodeflib: bool,
    /// Whether the object has a `PT_DYNAMIC` segment (a static program has none).
    pub dynamic: bool,
    /// The search paths of its kpack marker (`.rocm_kpack_ref`: the archives that hold the
    /// device code packed out of it), when it has a readable one.
    pub kpack_search_paths: Vec<String>,
}

/// The kpack marker's search paths, from the section headers (absent, stripped or
/// unreadable: none — the loader itself only needs the program headers).
fn kpack_paths<H: FileHeader<Endian = Endianness>>(
    header: &H,
    endian: Endianness,
    data: &[u8],
) -> Vec<String> {
    let Ok(sections) = header.sections(endian, data) else {
        return Vec::new();
    };
    let Some((_, sec)) = sections.section_by_name(endian, b".rocm_kpack_ref") else {
        return Vec::new();
    };
    use object::read::elf::SectionHeader;
    sec.data(endian, data)
        .ok()
        .and_then(|b| rocpath_sources::kpack_ref::parse_marker(b).ok())
        .map(|m| m.search_paths)
        .unwrap_or_default()
}

/// Why an ELF file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at offset {offset}: {what}")]
pub struct ElfError {
    /// Where in the file.
    pub offset: u64,
    /// What is wrong.
    pub what: String,
}

fn err(offset: u64, what: impl Into<String>) -> ElfError {
    ElfError {
        offset,
        what: what.into(),
    }
}

/// `e_ident`: the file starts with the ELF magic; returns (class, data encoding).
pub fn ident(data: &[u8]) -> Result<(u8, u8), ElfError> {
    let Some(id) = data.get(..16) else {
        return Err(err(
            0,
            format!("file too short for an ELF header ({} bytes)", data.len()),
        ));
    };
    if id[..4] != elf::ELFMAG {
        return Err(err(0, "invalid ELF header (no ELF magic)"));
    }
    Ok((id[EI_CLASS], id[EI_DATA]))
}

/// Reads the dynamic-loading view of an ELF file.
pub fn parse(data: &[u8]) -> Result<ElfInfo, ElfError> {
    let (class, _) = ident(data)?;
    match class {
        elf::ELFCLASS64 => parse_as::<elf::FileHeader64<Endianness>>(data),
        elf::ELFCLASS32 => parse_as::<elf::FileHeader32<Endianness>>(data),
        c => Err(err(EI_CLASS as u64, format!("unknown ELF class {c}"))),
    }
}

fn parse_as<H: FileHeader<Endian = Endianness>>(data: &[u8]) -> Result<ElfInfo, ElfError> {
    let header = H::parse(data).map_err(|e| err(0, format!("ELF header: {e}")))?;
    let endian = header
        .endian()
        .map_err(|e| err(EI_DATA as u64, format!("{e}")))?;
    let phoff: u64 = header.e_phoff(endian).into();
    let phdrs = header
        .program_headers(endian, data)
        .map_err(|e| err(phoff, format!("program headers: {e}")))?;
    let mut info = ElfInfo {
        class: if header.is_class_64() { 2 } else { 1 },
        machine: header.e_machine(endian),
        e_type: header.e_type(endian),
        interp: None,
        needed: Vec::new(),
        rpath: None,
        runpath: None,
        soname: None,
        nodeflib: false,
        dynamic: false,
        kpack_search_paths: kpack_paths(header, endian, data),
    };
    let mut dynamic = None;
    for ph in phdrs {
        let off: u64 = ph.p_offset(endian).into();
        match ph.p_type(endian) {
            elf::PT_INTERP => {
                let bytes = ph
                    .interpreter(endian, data)
                    .map_err(|e| err(off, format!("PT_INTERP: {e}")))?;
                if let Some(b) = bytes {
                    info.interp = Some(String::from_utf8_lossy(b).into_owned());
                }
            }
            elf::PT_DYNAMIC if dynamic.is_none() => {
                let d = ph
                    .dynamic(endian, data)
                    .map_err(|e| err(off, format!("PT_DYNAMIC: {e}")))?;
                dynamic = d.map(|d| (d, off));
            }
            _ => {}
        }
    }
    let Some((dyns, dyn_off)) = dynamic else {
        return Ok(info);
    };
    info.dynamic = true;
    let refs = dyn_refs::<H>(dyns, endian, &mut info);
    let names = refs.needed.len()
        + [refs.rpath, refs.runpath, refs.soname]
            .iter()
            .flatten()
            .count();
    if names == 0 {
        return Ok(info);
    }
    let (start, bytes) = string_table::<H>(phdrs, endian, data, &refs, dyn_off)?;
    let string = |off: u64, what: &str| table_string(bytes, start, off, what);
    for off in &refs.needed {
        info.needed.push(string(*off, "DT_NEEDED")?);
    }
    info.runpath = refs.runpath.map(|o| string(o, "DT_RUNPATH")).transpose()?;
    // elf/get-dynamic-info.h: "If both DT_RPATH and DT_RUNPATH are present, DT_RPATH is
    // ignored."
    if info.runpath.is_none() {
        info.rpath = refs.rpath.map(|o| string(o, "DT_RPATH")).transpose()?;
    }
    info.soname = refs.soname.map(|o| string(o, "DT_SONAME")).transpose()?;
    Ok(info)
}

/// What the dynamic section names: the string table (by address) and the offsets in it of
/// the names the loader reads.
#[derive(Default)]
struct DynRefs {
    strtab: Option<u64>,
    strsz: Option<u64>,
    needed: Vec<u64>,
    rpath: Option<u64>,
    runpath: Option<u64>,
    soname: Option<u64>,
}

/// Reads the dynamic entries up to `DT_NULL` (`DT_FLAGS_1`'s `DF_1_NODEFLIB` into `info`).
fn dyn_refs<H: FileHeader<Endian = Endianness>>(
    dyns: &[H::Dyn],
    endian: Endianness,
    info: &mut ElfInfo,
) -> DynRefs {
    let mut r = DynRefs::default();
    for d in dyns {
        let tag: u64 = d.d_tag(endian).into();
        let val: u64 = d.d_val(endian).into();
        match tag as u32 {
            _ if tag > u64::from(u32::MAX) => {}
            elf::DT_NULL => break,
            elf::DT_STRTAB => r.strtab = Some(val),
            elf::DT_STRSZ => r.strsz = Some(val),
            elf::DT_NEEDED if r.needed.len() < MAX_NEEDED => r.needed.push(val),
            elf::DT_RPATH => r.rpath = Some(val),
            elf::DT_RUNPATH => r.runpath = Some(val),
            elf::DT_SONAME => r.soname = Some(val),
            elf::DT_FLAGS_1 => info.nodeflib = val & u64::from(elf::DF_1_NODEFLIB) != 0,
            _ => {}
        }
    }
    r
}

/// The string table's file offset and bytes: named by address (`DT_STRTAB`), the loader finds
/// it through the `PT_LOAD` segment that maps that address, bounded by `DT_STRSZ`.
fn string_table<'d, H: FileHeader<Endian = Endianness>>(
    phdrs: &[H::ProgramHeader],
    endian: Endianness,
    data: &'d [u8],
    refs: &DynRefs,
    dyn_off: u64,
) -> Result<(u64, &'d [u8]), ElfError> {
    let Some(addr) = refs.strtab else {
        return Err(err(
            dyn_off,
            "dynamic section names strings but has no DT_STRTAB",
        ));
    };
    let table = phdrs.iter().find_map(|ph| {
        let vaddr: u64 = ph.p_vaddr(endian).into();
        let filesz: u64 = ph.p_filesz(endian).into();
        let offset: u64 = ph.p_offset(endian).into();
        let maps = ph.p_type(endian) == elf::PT_LOAD && addr >= vaddr && addr - vaddr < filesz;
        maps.then(|| {
            let start = offset.saturating_add(addr - vaddr);
            let seg_end = offset.saturating_add(filesz);
            let end = match refs.strsz {
                Some(n) => start.saturating_add(n).min(seg_end),
                None => seg_end,
            };
            (start, end)
        })
    });
    let Some((start, end)) = table else {
        return Err(err(
            dyn_off,
            format!("DT_STRTAB address {addr:#x} is in no PT_LOAD segment"),
        ));
    };
    let bytes = usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(s, e)| data.get(s..e))
        .ok_or_else(|| {
            err(
                start,
                format!(
                    "string table [{start}, {end}) is past the end of the file ({} bytes)",
                    data.len()
                ),
            )
        })?;
    Ok((start, bytes))
}

/// The NUL-terminated string at `off` of a string table that starts at file offset `start`.
fn table_string(bytes: &[u8], start: u64, off: u64, what: &str) -> Result<String, ElfError> {
    let s = usize::try_from(off)
        .ok()
        .and_then(|o| bytes.get(o..))
        .ok_or_else(|| {
            err(
                start.saturating_add(off),
                format!("{what}: past the string table"),
            )
        })?;
    let n = s.iter().position(|&b| b == 0).ok_or_else(|| {
        err(
            start.saturating_add(off),
            format!("{what}: string not terminated"),
        )
    })?;
    Ok(String::from_utf8_lossy(&s[..n]).into_owned())
}

/// The `e_machine` name of the machines rocpath knows the loader's folders for.
pub fn machine_name(m: u16) -> String {
    match m {
        elf::EM_X86_64 => "x86_64".into(),
        elf::EM_386 => "i386".into(),
        elf::EM_AARCH64 => "aarch64".into(),
        elf::EM_PPC64 => "ppc64".into(),
        elf::EM_RISCV => "riscv".into(),
        elf::EM_AMDGPU => "amdgpu".into(),
        m => format!("machine {m}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_and_corrupt_files_are_named_errors() {
        assert_eq!(parse(b"").unwrap_err().offset, 0);
        assert!(
            parse(b"not an elf file at all")
                .unwrap_err()
                .what
                .contains("magic")
        );
        let ls = std::fs::read("/bin/ls").or_else(|_| std::fs::read("/bin/sh"));
        let Ok(ls) = ls else { return };
        assert!(parse(&ls).is_ok());
        // Every truncation of a real program is a value or a named error, never a panic.
        for n in (0..ls.len().min(1 << 16)).step_by(61) {
            if let Err(e) = parse(&ls[..n]) {
                assert!(!e.what.is_empty());
            }
        }
        let mut bad = ls.clone();
        bad[4] = 9;
        assert!(parse(&bad).unwrap_err().what.contains("class"));
    }
}
