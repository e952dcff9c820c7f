//! Reader for AMDGPU code objects: the ELF files that carry GPU kernels.
//!
//! Given the bytes of one code object (a `.hsaco`, a `.co`, a bundle entry), [`parse`]
//! returns its target (from `e_flags`, or from the legacy `NT_AMD_HSA_ISA` note for code
//! object v1/v2), its code object version, its kernels with the metadata of the
//! `NT_AMDGPU_METADATA` notes (all of them: Tensile assembly objects carry one per kernel),
//! and the size of its executable code. [`symbols`] lists function symbols for
//! disassembly.
//!
//! The reader is lazy (headers, section table and notes only) and never panics on bad
//! input: every problem is an [`Error`] with the byte offset it concerns. When the section
//! header table is damaged, notes are still read from the `PT_NOTE` program headers and the
//! problem is reported in [`CodeObject::warnings`].
//!
//! ```no_run
//! let bytes = std::fs::read("kernel.hsaco").unwrap();
//! let co = rocpath_codeobj::parse(&bytes).unwrap();
//! println!("{} v{:?}: {} kernels", co.target_id.canonical(), co.version, co.kernels.len());
//! ```

mod metadata;

pub use metadata::Kernel;
use object::LittleEndian as LE;
use object::elf;
use object::read::elf::{FileHeader, NoteIterator, ProgramHeader, SectionHeader, Sym};
use rocpath_arch::{FeatureSetting, TargetId};
use serde::Serialize;

/// `e_machine` of AMDGPU ELF files.
pub const EM_AMDGPU: u16 = 224;
/// `EI_OSABI` of HSA code objects.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `EI_OSABI` of PAL code objects.
pub const ELFOSABI_AMDGPU_PAL: u8 = 65;
/// `EI_OSABI` of Mesa code objects.
pub const ELFOSABI_AMDGPU_MESA3D: u8 = 66;
/// `STT_AMDGPU_HSA_KERNEL`: symbol type of kernels in code object v1/v2.
pub const STT_AMDGPU_HSA_KERNEL: u8 = 10;

/// Hard limits that keep memory bounded on hostile input.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most kernels accepted from one code object's metadata.
    pub max_kernels: usize,
    /// Largest metadata note accepted, in bytes.
    pub max_note_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_kernels: 1 << 20,
            max_note_bytes: 512 << 20,
        }
    }
}

/// Why a code object could not be read. The message does not repeat the offset: it is
/// [`Error::offset`], printed once by whoever names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Not an ELF file, or not 64-bit little-endian.
    #[error("not an ELF64 little-endian file (magic/class/data at offset 0)")]
    NotElf,
    /// An ELF file for another machine.
    #[error("ELF e_machine is {0}, not AMDGPU (224)")]
    NotAmdgpu(u16),
    /// The ELF header or a table it points to is damaged.
    #[error("malformed ELF: {what}")]
    Malformed {
        /// Offset of the structure.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// The headers describe more bytes than there are: the object was cut short (a partial
    /// download or copy, a bundle entry whose size is too small).
    #[error(
        "truncated code object: its headers describe {extent} bytes (header tables and the sections and segments they point to) but only {len} are present; the object was cut short or its headers are damaged — read a complete copy"
    )]
    Truncated {
        /// Bytes the headers describe.
        extent: u64,
        /// Bytes present.
        len: u64,
    },
}

impl Error {
    /// The offset the error concerns, relative to the code object's first byte, when it has
    /// one (the end of the data for a truncated object).
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Malformed { offset, .. } => Some(*offset),
            Error::Truncated { len, .. } => Some(*len),
            Error::NotElf | Error::NotAmdgpu(_) => None,
        }
    }
}

/// Kind of a code object by its ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Abi {
    /// HSA (ROCm) code object.
    Hsa,
    /// PAL (graphics drivers).
    Pal,
    /// Mesa.
    Mesa3d,
    /// Anything else.
    Other,
}

/// One metadata note's header fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MetadataInfo {
    /// `amdhsa.version` as `major.minor`.
    pub version: Option<String>,
    /// `amdhsa.target`, verbatim (can be absent in hand-written assembly, or non-standard).
    pub target: Option<String>,
    /// Number of `NT_AMDGPU_METADATA` notes merged.
    pub notes: u32,
}

/// Facts from a legacy (v1/v2) code object's `NT_AMD_HSA_*` notes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LegacyInfo {
    /// `NT_AMD_HSA_CODE_OBJECT_VERSION` major.minor.
    pub code_object_version: Option<(u32, u32)>,
    /// `NT_AMD_HSA_ISA` major, minor, stepping.
    pub isa: Option<(u32, u32, u32)>,
    /// `NT_AMD_HSA_ISA` vendor and architecture names.
    pub isa_names: Option<(String, String)>,
    /// `NT_AMD_HSA_PRODUCER` name and version.
    pub producer: Option<String>,
}

/// Everything rocpath reads from one code object.
#[derive(Debug, Clone, Serialize)]
pub struct CodeObject {
    /// ABI by `EI_OSABI`.
    pub abi: Abi,
    /// `EI_ABIVERSION`.
    pub abi_version: u8,
    /// Code object version (1..=6) when it can be told.
    pub version: Option<u8>,
    /// `e_type` (1 = REL, 3 = DYN).
    pub e_type: u16,
    /// `e_flags` verbatim.
    pub e_flags: u32,
    /// `EF_AMDGPU_MACH` (low 8 bits of `e_flags`).
    pub mach: u32,
    /// Generic version (`e_flags` bits 24..31, code object v6).
    pub generic_version: u8,
    /// Target id from `e_flags` (or the legacy ISA note). Processor `unknown` when neither
    /// tells.
    pub target_id: TargetId,
    /// Metadata header facts.
    pub metadata: MetadataInfo,
    /// Legacy note facts (v1/v2 objects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legacy: Option<LegacyInfo>,
    /// Kernels, in metadata order (or symbol order for legacy objects).
    pub kernels: Vec<Kernel>,
    /// Total size of executable sections (`SHF_EXECINSTR`).
    pub text_bytes: u64,
    /// Size the ELF claims for itself: the end of its furthest section or header table.
    pub elf_extent: u64,
    /// Problems that did not stop the read (damaged section table, bad metadata note, ...).
    pub warnings: Vec<String>,
}

fn malformed(offset: u64, what: impl Into<String>) -> Error {
    Error::Malformed {
        offset,
        what: what.into(),
    }
}

/// Reads the ELF header and checks it is an AMDGPU ELF64 little-endian file.
fn header(data: &[u8]) -> Result<&elf::FileHeader64<LE>, Error> {
    if data.len() < 6 || &data[..4] != b"\x7fELF" || data[4] != 2 || data[5] != 1 {
        return Err(Error::NotElf);
    }
    let m = data
        .get(18..20)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .unwrap_or(0);
    if m != EM_AMDGPU {
        return Err(Error::NotAmdgpu(m));
    }
    elf::FileHeader64::<LE>::parse(data).map_err(|e| malformed(0, e.to_string()))
}

/// True when `data` starts with an AMDGPU ELF64 header.
pub fn is_amdgpu_elf(data: &[u8]) -> bool {
    data.len() >= 20
        && &data[..4] == b"\x7fELF"
        && data[4] == 2
        && data[5] == 1
        && u16::from_le_bytes([data[18], data[19]]) == EM_AMDGPU
}

/// The number of bytes an ELF file occupies according to its own headers: the furthest end
/// of the section header table, the program header table, and every section and segment
/// with file contents. Used to cut code objects embedded raw in host data sections, and by
/// [`parse`] to refuse objects cut short. When the section header table itself lies past the
/// data, its end is the extent (the sections cannot be read).
pub fn elf_extent(data: &[u8]) -> Result<u64, Error> {
    if data.len() < 64 || &data[..4] != b"\x7fELF" || data[4] != 2 || data[5] != 1 {
        return Err(Error::NotElf);
    }
    let rd64 = |o: usize| le64(data, o);
    let rd16 = |o: usize| u64::from(u16::from_le_bytes([data[o], data[o + 1]]));
    let (shoff, shentsize, shnum) = (rd64(0x28), rd16(0x3a), rd16(0x3c));
    let (phoff, phentsize, phnum) = (rd64(0x20), rd16(0x36), rd16(0x38));
    let sh_end = shoff
        .checked_add(shentsize.saturating_mul(shnum))
        .ok_or_else(|| malformed(0x28, "e_shoff overflows"))?;
    let ph_end = phoff
        .checked_add(phentsize.saturating_mul(phnum))
        .ok_or_else(|| malformed(0x20, "e_phoff overflows"))?;
    let mut end = 64u64.max(sh_end).max(ph_end);
    if end > data.len() as u64 {
        return Ok(end);
    }
    if shoff != 0 && shentsize == 64 {
        // (type, offset, size) of each section header: NOBITS and NULL occupy no bytes.
        end = end.max(table_extent(data, shoff, shnum, 64, |h| {
            let ty = le32(h, 4);
            (ty != elf::SHT_NOBITS && ty != elf::SHT_NULL).then(|| (le64(h, 24), le64(h, 32)))
        })?);
    }
    if phoff != 0 && phentsize == 56 {
        end = end.max(table_extent(data, phoff, phnum, 56, |h| {
            Some((le64(h, 8), le64(h, 32)))
        })?);
    }
    Ok(end)
}

/// The furthest `offset + size` over the entries of a header table at `off` (`n` entries of
/// `size` bytes, already known to lie inside `data`); `range` reads one entry's file range.
fn table_extent(
    data: &[u8],
    off: u64,
    n: u64,
    size: u64,
    range: impl Fn(&[u8]) -> Option<(u64, u64)>,
) -> Result<u64, Error> {
    let mut end = 0u64;
    for i in 0..n {
        let o = off.saturating_add(i * size);
        let Some(h) = usize::try_from(o)
            .ok()
            .and_then(|o| data.get(o..o.checked_add(size as usize)?))
        else {
            return Err(malformed(
                o,
                "header table extends past the end of the data",
            ));
        };
        if let Some((start, len)) = range(h) {
            let e = start
                .checked_add(len)
                .ok_or_else(|| malformed(o, "offset+size overflows"))?;
            end = end.max(e);
        }
    }
    Ok(end)
}

fn le64(b: &[u8], o: usize) -> u64 {
    b.get(o..o + 8)
        .and_then(|s| s.try_into().ok())
        .map(u64::from_le_bytes)
        .unwrap_or(0)
}

fn feature(mask: u32, flags: u32, unsupported: u32, any: u32, off: u32, on: u32) -> FeatureSetting {
    match flags & mask {
        x if x == on => FeatureSetting::On,
        x if x == off => FeatureSetting::Off,
        x if x == any => FeatureSetting::Any,
        x if x == unsupported => FeatureSetting::Unsupported,
        _ => FeatureSetting::Any,
    }
}

/// Decodes `e_flags` for a given code object version into target features.
pub fn decode_e_flags(e_flags: u32, version: Option<u8>) -> (FeatureSetting, FeatureSetting) {
    match version {
        Some(v) if v >= 4 => (
            // sramecc: bits 10..11
            feature(0xc00, e_flags, 0x000, 0x400, 0x800, 0xc00),
            // xnack: bits 8..9
            feature(0x300, e_flags, 0x000, 0x100, 0x200, 0x300),
        ),
        Some(3) => (
            if e_flags & 0x200 != 0 {
                FeatureSetting::On
            } else {
                FeatureSetting::Any
            },
            if e_flags & 0x100 != 0 {
                FeatureSetting::On
            } else {
                FeatureSetting::Any
            },
        ),
        _ => (
            FeatureSetting::Any,
            if e_flags & 0x100 != 0 {
                FeatureSetting::On
            } else {
                FeatureSetting::Any
            },
        ),
    }
}

/// One note, with its absolute offset.
struct RawNote<'a> {
    name: &'a [u8],
    n_type: u32,
    desc: &'a [u8],
    offset: u64,
}

fn read_notes<'a>(data: &'a [u8], base: u64, out: &mut Vec<RawNote<'a>>) -> Result<(), Error> {
    // AMDGPU and legacy AMD notes use 4-byte alignment, even inside 8-aligned sections.
    let mut it = NoteIterator::<elf::FileHeader64<LE>>::new(LE, 4, data)
        .map_err(|e| malformed(base, e.to_string()))?;
    let mut pos = 0u64;
    loop {
        match it.next() {
            Ok(Some(n)) => {
                let name = n.name();
                let desc = n.desc();
                // Position of this note: compute from the desc pointer.
                let desc_off = (desc.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize) as u64;
                let name_pad = (n.name_bytes().len() as u64).div_ceil(4) * 4;
                let start = desc_off.saturating_sub(12 + name_pad);
                pos = pos.max(start);
                out.push(RawNote {
                    name,
                    n_type: n.n_type(LE),
                    desc,
                    offset: base + start,
                });
            }
            Ok(None) => return Ok(()),
            Err(e) => return Err(malformed(base + pos, format!("note: {e}"))),
        }
    }
}

/// Parses a code object.
pub fn parse(data: &[u8]) -> Result<CodeObject, Error> {
    parse_with(data, Limits::default())
}

/// The notes of an object, from its SHT_NOTE sections, else from its PT_NOTE segments, and
/// the bytes of its executable sections. Problems are warnings: what can be read is kept.
fn collect_notes<'a>(
    h: &elf::FileHeader64<LE>,
    data: &'a [u8],
    warnings: &mut Vec<String>,
) -> (Vec<RawNote<'a>>, u64) {
    let mut notes = Vec::new();
    let mut text_bytes = 0u64;
    let mut used_sections = false;
    match h.sections(LE, data) {
        Ok(sections) => {
            used_sections = true;
            for (i, s) in sections.iter().enumerate() {
                let off = s.sh_offset(LE);
                if s.sh_flags(LE) & u64::from(elf::SHF_EXECINSTR) != 0 {
                    text_bytes = text_bytes.saturating_add(s.sh_size(LE));
                }
                if s.sh_type(LE) == elf::SHT_NOTE {
                    match s.data(LE, data) {
                        Ok(d) => {
                            if let Err(e) = read_notes(d, off, &mut notes) {
                                warnings.push(e.to_string());
                            }
                        }
                        Err(e) => warnings.push(format!("note section #{i} at offset {off}: {e}")),
                    }
                }
            }
        }
        Err(e) => warnings.push(format!(
            "section header table (e_shoff {}): {e}; reading PT_NOTE segments",
            h.e_shoff(LE)
        )),
    }
    if (!used_sections || notes.is_empty())
        && let Ok(phdrs) = h.program_headers(LE, data)
    {
        {
            for p in phdrs {
                if p.p_type(LE) == elf::PT_NOTE {
                    let off = p.p_offset(LE);
                    if let Ok(d) = p.data(LE, data) {
                        let _ = read_notes(d, off, &mut notes)
                            .map_err(|e| warnings.push(e.to_string()));
                    }
                }
            }
        }
    }
    (notes, text_bytes)
}

/// What the notes tell: legacy facts, metadata and the kernels it lists.
struct NoteFacts {
    legacy: LegacyInfo,
    has_legacy: bool,
    meta: MetadataInfo,
    kernels: Vec<Kernel>,
}

/// Reads the AMDGPU metadata notes and the legacy `AMD` notes.
fn note_facts(notes: &[RawNote<'_>], limits: &Limits, warnings: &mut Vec<String>) -> NoteFacts {
    let mut legacy = LegacyInfo::default();
    let mut has_legacy = false;
    let mut meta = MetadataInfo::default();
    let mut kernels = Vec::new();
    for n in notes {
        match (n.name, n.n_type) {
            (b"AMDGPU", 32) => {
                meta.notes += 1;
                if n.desc.len() > limits.max_note_bytes {
                    warnings.push(format!(
                        "metadata note at offset {} is {} bytes, over the limit",
                        n.offset,
                        n.desc.len()
                    ));
                    continue;
                }
                let desc_off = n.offset + 12 + 8;
                match metadata::parse_note(
                    n.desc,
                    desc_off,
                    &mut meta,
                    &mut kernels,
                    limits.max_kernels,
                ) {
                    Ok(()) => {}
                    Err(e) => warnings.push(format!("metadata note at offset {}: {e}", n.offset)),
                }
            }
            (b"AMD", 1) if n.desc.len() >= 8 => {
                has_legacy = true;
                legacy.code_object_version = Some((le32(n.desc, 0), le32(n.desc, 4)));
            }
            (b"AMD", 3) if n.desc.len() >= 16 => {
                has_legacy = true;
                let vsz = usize::from(u16::from_le_bytes([n.desc[0], n.desc[1]]));
                let asz = usize::from(u16::from_le_bytes([n.desc[2], n.desc[3]]));
                legacy.isa = Some((le32(n.desc, 4), le32(n.desc, 8), le32(n.desc, 12)));
                let v = n.desc.get(16..16 + vsz).map(cstr).unwrap_or_default();
                let a = n
                    .desc
                    .get(16 + vsz..16 + vsz + asz)
                    .map(cstr)
                    .unwrap_or_default();
                legacy.isa_names = Some((v, a));
            }
            (b"AMD", 4) if n.desc.len() >= 12 => {
                has_legacy = true;
                let nsz = usize::try_from(le32(n.desc, 0)).unwrap_or(0);
                let name = n
                    .desc
                    .get(12..12usize.saturating_add(nsz))
                    .map(cstr)
                    .unwrap_or_default();
                legacy.producer = Some(format!("{name} {}.{}", le32(n.desc, 4), le32(n.desc, 8)));
            }
            (b"AMD", _) => has_legacy = true,
            _ => {}
        }
    }
    NoteFacts {
        legacy,
        has_legacy,
        meta,
        kernels,
    }
}

/// The processor: from `EF_AMDGPU_MACH`, else from the legacy ISA note (`gfx` + major,
/// minor, stepping in hex past 9), else unknown.
fn processor_of(mach: u32, legacy_isa: Option<(u32, u32, u32)>) -> String {
    if mach != 0 {
        rocpath_arch::by_mach(mach)
            .map(|t| t.name.to_string())
            .unwrap_or_else(|| format!("{}-mach-0x{mach:x}", rocpath_arch::UNKNOWN_PROCESSOR))
    } else if let Some((maj, min, step)) = legacy_isa {
        format!(
            "gfx{maj}{min}{}",
            if step < 10 {
                step.to_string()
            } else {
                format!("{:x}", step)
            }
        )
    } else {
        rocpath_arch::UNKNOWN_PROCESSOR.to_string()
    }
}

/// Parses a code object with explicit limits.
pub fn parse_with(data: &[u8], limits: Limits) -> Result<CodeObject, Error> {
    let h = header(data)?;
    let elf_extent = elf_extent(data)?;
    if elf_extent > data.len() as u64 {
        return Err(Error::Truncated {
            extent: elf_extent,
            len: data.len() as u64,
        });
    }
    let ident = &h.e_ident;
    let abi = match ident.os_abi {
        ELFOSABI_AMDGPU_HSA => Abi::Hsa,
        ELFOSABI_AMDGPU_PAL => Abi::Pal,
        ELFOSABI_AMDGPU_MESA3D => Abi::Mesa3d,
        _ => Abi::Other,
    };
    let abi_version = ident.abi_version;
    let e_flags = h.e_flags(LE);
    let e_type = h.e_type(LE);
    let mut warnings = Vec::new();

    let (notes, text_bytes) = collect_notes(h, data, &mut warnings);

    let NoteFacts {
        legacy,
        has_legacy,
        meta,
        mut kernels,
    } = note_facts(&notes, &limits, &mut warnings);

    let version = match (abi, abi_version) {
        (Abi::Hsa, 0) => legacy
            .code_object_version
            .map(|(maj, _)| maj.min(2) as u8)
            .or(Some(2)),
        (Abi::Hsa, v @ 1..=4) => Some(v + 2),
        (Abi::Hsa, _) => None,
        _ => None,
    };
    let mach = e_flags & 0xff;
    let generic_version = ((e_flags >> 24) & 0xff) as u8;
    let (sramecc, xnack) = decode_e_flags(e_flags, version);
    let processor = processor_of(mach, legacy.isa);
    let target_id = TargetId {
        processor,
        sramecc,
        xnack,
    };

    // Legacy objects have no metadata: take kernels from STT_AMDGPU_HSA_KERNEL symbols.
    if kernels.is_empty()
        && (has_legacy || version.is_some_and(|v| v <= 2))
        && let Ok(syms) = symbols(data)
    {
        {
            for s in syms.into_iter().filter(|s| s.kind == SymbolKind::HsaKernel) {
                let mut k = Kernel::named(s.name.clone());
                k.set_symbol(s.name);
                kernels.push(k);
            }
        }
    }

    Ok(CodeObject {
        abi,
        abi_version,
        version,
        e_type,
        e_flags,
        mach,
        generic_version,
        target_id,
        metadata: meta,
        legacy: has_legacy.then_some(legacy),
        kernels,
        text_bytes,
        elf_extent,
        warnings,
    })
}

fn le32(b: &[u8], o: usize) -> u32 {
    b.get(o..o + 4)
        .and_then(|s| s.try_into().ok())
        .map(u32::from_le_bytes)
        .unwrap_or(0)
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Kind of a symbol that marks code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// `STT_FUNC` (kernels and device functions in v3+ objects).
    Func,
    /// `STT_AMDGPU_HSA_KERNEL` (v1/v2 kernels).
    HsaKernel,
    /// Any other symbol inside an executable section.
    Other,
}

/// A symbol inside an executable section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeSymbol {
    /// Symbol name.
    pub name: String,
    /// `st_value` (address).
    pub value: u64,
    /// `st_size`.
    pub size: u64,
    /// Index of its section.
    pub section: usize,
    /// Kind.
    pub kind: SymbolKind,
}

/// An executable section: name, address, and where its bytes are in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeSection {
    /// Section index.
    pub index: usize,
    /// Section name (`.text`, `.hsatext`).
    pub name: String,
    /// `sh_addr`.
    pub addr: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size`.
    pub size: u64,
}

/// Lists the executable sections of a code object.
pub fn code_sections(data: &[u8]) -> Result<Vec<CodeSection>, Error> {
    let h = header(data)?;
    let sections = h
        .sections(LE, data)
        .map_err(|e| malformed(h.e_shoff(LE), e.to_string()))?;
    let mut out = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        if s.sh_flags(LE) & u64::from(elf::SHF_EXECINSTR) == 0 || s.sh_type(LE) == elf::SHT_NOBITS {
            continue;
        }
        let name = sections
            .section_name(LE, s)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        let offset = s.sh_offset(LE);
        let size = s.sh_size(LE);
        if offset
            .checked_add(size)
            .is_none_or(|e| e > data.len() as u64)
        {
            return Err(malformed(
                offset,
                format!("section {name} extends past the end of the data"),
            ));
        }
        out.push(CodeSection {
            index: i,
            name,
            addr: s.sh_addr(LE),
            offset,
            size,
        });
    }
    Ok(out)
}

/// Lists the symbols that point into executable sections, sorted by section and address.
pub fn symbols(data: &[u8]) -> Result<Vec<CodeSymbol>, Error> {
    symbols_with(data, true)
}

/// Like [`symbols`]; with `label_names` false, symbols of kind [`SymbolKind::Other`] (the
/// local labels of assembly kernels — Tensile objects have millions) get an empty name, which
/// saves the memory of their names when only their addresses are needed.
pub fn symbols_with(data: &[u8], label_names: bool) -> Result<Vec<CodeSymbol>, Error> {
    let h = header(data)?;
    let sections = h
        .sections(LE, data)
        .map_err(|e| malformed(h.e_shoff(LE), e.to_string()))?;
    let syms = sections
        .symbols(LE, data, elf::SHT_SYMTAB)
        .map_err(|e| malformed(0, format!("symbol table: {e}")))?;
    let mut out = Vec::new();
    for s in syms.iter() {
        let shndx = usize::from(s.st_shndx(LE));
        let Some(sec) = sections.iter().nth(shndx) else {
            continue;
        };
        if shndx == 0 || sec.sh_flags(LE) & u64::from(elf::SHF_EXECINSTR) == 0 {
            continue;
        }
        let kind = match s.st_type() {
            elf::STT_FUNC => SymbolKind::Func,
            STT_AMDGPU_HSA_KERNEL => SymbolKind::HsaKernel,
            elf::STT_SECTION | elf::STT_FILE => continue,
            _ => SymbolKind::Other,
        };
        let name = if kind == SymbolKind::Other && !label_names {
            String::new()
        } else {
            s.name(LE, syms.strings())
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .unwrap_or_default()
        };
        out.push(CodeSymbol {
            name,
            value: s.st_value(LE),
            size: s.st_size(LE),
            section: shndx,
            kind,
        });
    }
    out.sort_by(|a, b| (a.section, a.value, &a.name).cmp(&(b.section, b.value, &b.name)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_elf_and_other_machines() {
        assert_eq!(parse(b"hello").unwrap_err(), Error::NotElf);
        let mut x86 = vec![0u8; 64];
        x86[..4].copy_from_slice(b"\x7fELF");
        x86[4] = 2;
        x86[5] = 1;
        x86[18] = 62;
        assert_eq!(parse(&x86).unwrap_err(), Error::NotAmdgpu(62));
        assert!(!is_amdgpu_elf(&x86));
    }

    #[test]
    fn e_flags_v4() {
        // gfx90a:sramecc+:xnack- = 0x3f | 0xc00 | 0x200
        let (s, x) = decode_e_flags(0x3f | 0xc00 | 0x200, Some(4));
        assert_eq!((s, x), (FeatureSetting::On, FeatureSetting::Off));
        let (s, x) = decode_e_flags(0x54c, Some(6));
        assert_eq!((s, x), (FeatureSetting::Any, FeatureSetting::Any));
        let (s, x) = decode_e_flags(0x2c, Some(6));
        assert_eq!(
            (s, x),
            (FeatureSetting::Unsupported, FeatureSetting::Unsupported)
        );
    }
}
