//! `/etc/ld.so.cache`, the binary cache `ldconfig` writes (format `glibc-ld.so.cache1.1`,
//! alone or after the old `ld.so-1.7.0` table), read as glibc's `elf/dl-cache.c`
//! (`_dl_load_cache_lookup`, `search_cache`) reads it. Bounded: every count and offset is
//! checked against the file before it is used; an error names its offset.

/// Old-format magic (`CACHEMAGIC`, `sysdeps/generic/dl-cache.h`).
const OLD_MAGIC: &[u8] = b"ld.so-1.7.0";
/// New-format magic and version (`CACHEMAGIC_NEW`, `CACHE_VERSION`).
const NEW_MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
/// `sizeof (struct cache_file_new)`: magic 17, version 3, nlibs, len_strings, flags, 3
/// padding bytes, extension_offset, 3 unused words.
const NEW_HEADER: usize = 48;
/// `sizeof (struct file_entry_new)`: flags, key, value, osversion, hwcap.
const NEW_ENTRY: usize = 24;
/// `sizeof (struct cache_file)` and `sizeof (struct file_entry)` of the old format.
const OLD_HEADER: usize = 16;
const OLD_ENTRY: usize = 12;
/// Bit 62 of `hwcap`: the entry belongs to a `glibc-hwcaps` subfolder
/// (`DL_CACHE_HWCAP_EXTENSION`).
const HWCAP_EXTENSION: u64 = 1 << 62;

/// Largest cache file read (a cache of every library of a large distribution is a few MB).
pub const MAX_CACHE_BYTES: u64 = 64 << 20;

/// One library of the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `flags`: the ELF kind and architecture (`FLAG_ELF_LIBC6 | FLAG_X8664_LIB64` = 0x303).
    pub flags: i32,
    /// The name looked up (a soname).
    pub key: String,
    /// The path it resolves to.
    pub value: String,
    /// `hwcap`.
    pub hwcap: u64,
}

/// A parsed cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cache {
    /// Entries in file order (sorted by `ldconfig`, most specific first among equal names).
    pub entries: Vec<Entry>,
    /// The `glibc-hwcaps` subfolder names of the extension, by index (`x86-64-v3`).
    pub hwcaps: Vec<String>,
}

/// `cache_extension_magic` (`sysdeps/generic/dl-cache.h`).
const EXTENSION_MAGIC: u32 = 0xEAA4_2174;
/// `cache_extension_tag_glibc_hwcaps`.
const TAG_GLIBC_HWCAPS: u32 = 1;
/// Bits 32..41 of `hwcap`: the ISA level of a `glibc-hwcaps` entry
/// (`DL_CACHE_HWCAP_ISA_LEVEL_MASK`).
const ISA_LEVEL_MASK: u64 = 0x3ff;
/// Most extension sections and hwcaps names read.
const MAX_EXTENSION_ITEMS: u32 = 4096;

/// Why a cache could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ld.so.cache at offset {offset}: {what}")]
pub struct CacheError {
    /// Where in the file.
    pub offset: u64,
    /// What is wrong.
    pub what: String,
}

fn err(offset: usize, what: impl Into<String>) -> CacheError {
    CacheError {
        offset: offset as u64,
        what: what.into(),
    }
}

fn u32_at(data: &[u8], off: usize, le: bool) -> Result<u32, CacheError> {
    let b: [u8; 4] = off
        .checked_add(4)
        .and_then(|e| data.get(off..e))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| err(off, "truncated (a 4-byte field is past the end)"))?;
    Ok(if le {
        u32::from_le_bytes(b)
    } else {
        u32::from_be_bytes(b)
    })
}

fn u64_at(data: &[u8], off: usize, le: bool) -> Result<u64, CacheError> {
    let b: [u8; 8] = off
        .checked_add(8)
        .and_then(|e| data.get(off..e))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| err(off, "truncated (an 8-byte field is past the end)"))?;
    Ok(if le {
        u64::from_le_bytes(b)
    } else {
        u64::from_be_bytes(b)
    })
}

/// A NUL-terminated string at `base + off`, inside the file.
fn string_at(data: &[u8], base: usize, off: u32, field: usize) -> Result<String, CacheError> {
    let start = base
        .checked_add(off as usize)
        .filter(|&s| s < data.len())
        .ok_or_else(|| err(field, format!("string offset {off} is past the end")))?;
    let rest = &data[start..];
    let n = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or_else(|| err(start, "string not terminated before the end of the file"))?;
    Ok(String::from_utf8_lossy(&rest[..n]).into_owned())
}

/// Parses a cache file.
pub fn parse(data: &[u8]) -> Result<Cache, CacheError> {
    // dl-cache.c: a file that starts with the old magic carries the new table after the old
    // entries, aligned to 8 (ALIGN_CACHE); string offsets of the new format are relative to
    // the new header either way.
    let base = if data.starts_with(OLD_MAGIC) {
        let n = u32_at(data, OLD_MAGIC.len(), cfg!(target_endian = "little"))? as usize;
        let end = n
            .checked_mul(OLD_ENTRY)
            .and_then(|x| x.checked_add(OLD_HEADER))
            .filter(|&e| e <= data.len())
            .ok_or_else(|| {
                err(
                    OLD_MAGIC.len(),
                    format!("old format: {n} entries do not fit in {} bytes", data.len()),
                )
            })?;
        let aligned = end.checked_add(7).map(|x| x & !7).unwrap_or(usize::MAX);
        if !data
            .get(aligned..)
            .is_some_and(|d| d.starts_with(NEW_MAGIC))
        {
            // Old format only: glibc still reads it, but no system has written it since 2.32.
            return Err(err(
                aligned,
                "old-format cache without the new table (glibc-ld.so.cache1.1)",
            ));
        }
        aligned
    } else if data.starts_with(NEW_MAGIC) {
        0
    } else {
        return Err(err(0, "not an ld.so.cache (no glibc-ld.so.cache1.1 magic)"));
    };
    let header = &data[base..];
    if header.len() < NEW_HEADER {
        return Err(err(
            base,
            format!("header cut short: {} of {NEW_HEADER} bytes", header.len()),
        ));
    }
    // flags byte: 0 unset (host order), 2 little-endian, 3 big-endian; 1 invalid
    // (cache_file_new_matches_endian).
    let le = match header[28] {
        0 => cfg!(target_endian = "little"),
        2 => true,
        3 => false,
        f => {
            return Err(err(
                base + 28,
                format!("endianness flag {f} is not 0, 2 or 3"),
            ));
        }
    };
    let nlibs = u32_at(data, base + 20, le)? as usize;
    let entries_end = nlibs
        .checked_mul(NEW_ENTRY)
        .and_then(|x| x.checked_add(base + NEW_HEADER))
        .filter(|&e| e <= data.len())
        .ok_or_else(|| {
            err(
                base + 20,
                format!(
                    "{nlibs} entries of {NEW_ENTRY} bytes do not fit in {} bytes",
                    data.len()
                ),
            )
        })?;
    let hwcaps = extension(data, base, le)?;
    let mut entries = Vec::with_capacity(nlibs);
    let mut off = base + NEW_HEADER;
    while off < entries_end {
        let flags = u32_at(data, off, le)? as i32;
        let key = u32_at(data, off + 4, le)?;
        let value = u32_at(data, off + 8, le)?;
        let hwcap = u64_at(data, off + 16, le)?;
        entries.push(Entry {
            flags,
            key: string_at(data, base, key, off + 4)?,
            value: string_at(data, base, value, off + 8)?,
            hwcap,
        });
        off += NEW_ENTRY;
    }
    Ok(Cache { entries, hwcaps })
}

/// `cache_extension_load`: the extension at `extension_offset` (relative to the new header;
/// 0 = none). A bad magic, a section past the end of the file or a tag seen twice makes the
/// whole cache corrupt, as glibc has it (it then reads no cache at all); unknown tags are
/// ignored. Returns the `glibc-hwcaps` names (string offsets relative to the new header).
fn extension(data: &[u8], base: usize, le: bool) -> Result<Vec<String>, CacheError> {
    let off = u32_at(data, base + 32, le)? as usize;
    if off == 0 {
        return Ok(Vec::new());
    }
    let at = base
        .checked_add(off)
        .filter(|&a| a <= data.len())
        .ok_or_else(|| err(base + 32, format!("extension offset {off} is past the end")))?;
    if u32_at(data, at, le)? != EXTENSION_MAGIC {
        return Err(err(at, "extension without its magic (0xeaa42174)"));
    }
    let count = u32_at(data, at + 4, le)?;
    if count > MAX_EXTENSION_ITEMS {
        return Err(err(at + 4, format!("{count} extension sections")));
    }
    let mut seen = Vec::new();
    let mut hwcaps = Vec::new();
    for i in 0..count as usize {
        let s = at + 8 + i * 16;
        let tag = u32_at(data, s, le)?;
        let (sec_off, size) = (
            u32_at(data, s + 8, le)? as usize,
            u32_at(data, s + 12, le)? as usize,
        );
        if sec_off > data.len() || size > data.len() - sec_off {
            return Err(err(
                s + 8,
                format!("extension section [{sec_off}, +{size}) is past the end"),
            ));
        }
        if tag > 2 {
            continue;
        }
        if seen.contains(&tag) {
            return Err(err(s, format!("extension section {tag} twice")));
        }
        seen.push(tag);
        if tag == TAG_GLIBC_HWCAPS {
            let n = (size / 4).min(MAX_EXTENSION_ITEMS as usize);
            for k in 0..n {
                let str_off = u32_at(data, sec_off + 4 * k, le)?;
                hwcaps.push(string_at(data, base, str_off, sec_off + 4 * k)?);
            }
        }
    }
    Ok(hwcaps)
}

/// `_DL_CACHE_DEFAULT_ID` of a machine and class (`sysdeps/*/dl-cache.h`): the flags of
/// the entries the loader accepts; `None` for machines rocpath does not know.
pub fn default_id(machine: u16, class: u8) -> Option<i32> {
    use object::elf;
    const FLAG_ELF_LIBC6: i32 = 0x0003;
    match (machine, class) {
        (elf::EM_X86_64, 2) => Some(0x0300 | FLAG_ELF_LIBC6),
        (elf::EM_386, 1) => Some(FLAG_ELF_LIBC6),
        (elf::EM_AARCH64, 2) => Some(0x0a00 | FLAG_ELF_LIBC6),
        (elf::EM_PPC64, 2) => Some(0x0500 | FLAG_ELF_LIBC6),
        (elf::EM_RISCV, 2) => Some(0x1000 | FLAG_ELF_LIBC6),
        _ => None,
    }
}

impl Cache {
    /// The path the loader takes for `name` (`elf/dl-cache.c` `search_cache`), given the
    /// `glibc-hwcaps` subfolders the CPU supports, best first (`active`): among the entries of
    /// that name whose flags are the machine's (`_dl_cache_check_flags`), the `glibc-hwcaps`
    /// entry of the best active subfolder (they come first), else the first ordinary entry
    /// (`hwcap` 0; legacy hwcap entries are skipped).
    pub fn lookup(&self, name: &str, id: i32, active: &[&str]) -> Option<&str> {
        let mut best: Option<(&str, usize)> = None;
        for e in self.entries.iter().filter(|e| e.key == name) {
            if !(e.flags == id || (id == 0x0003 && e.flags == 1)) {
                continue;
            }
            // dl_cache_hwcap_extension: only bit 62 set above the ISA-level bits.
            let named = (e.hwcap >> 32) & !ISA_LEVEL_MASK == HWCAP_EXTENSION >> 32;
            if !named && best.is_some() {
                break;
            }
            if !named && e.hwcap != 0 {
                continue;
            }
            if named {
                // glibc_hwcaps_priority: the subfolder's rank among the active ones; 0 = not
                // usable (this also stands for dl_cache_hwcap_isa_level_compatible).
                let Some(sub) = self.hwcaps.get((e.hwcap & 0xffff_ffff) as usize) else {
                    continue;
                };
                let Some(rank) = active.iter().position(|a| a == sub) else {
                    continue;
                };
                if best.is_some_and(|(_, r)| r <= rank) {
                    continue;
                }
                best = Some((&e.value, rank));
                continue;
            }
            best = Some((&e.value, usize::MAX));
            if e.flags == id {
                break;
            }
        }
        best.map(|(v, _)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A new-format cache of `entries` (key, value), little-endian.
    pub(crate) fn build(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut strings = Vec::new();
        let table = NEW_HEADER + entries.len() * NEW_ENTRY;
        let mut offs = Vec::new();
        for (k, v) in entries {
            let ko = table + strings.len();
            strings.extend_from_slice(k.as_bytes());
            strings.push(0);
            let vo = table + strings.len();
            strings.extend_from_slice(v.as_bytes());
            strings.push(0);
            offs.push((ko as u32, vo as u32));
        }
        let mut d = NEW_MAGIC.to_vec();
        d.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        d.extend_from_slice(&(strings.len() as u32).to_le_bytes());
        d.extend_from_slice(&[2, 0, 0, 0]);
        d.extend_from_slice(&[0; 16]);
        for (ko, vo) in offs {
            d.extend_from_slice(&0x303u32.to_le_bytes());
            d.extend_from_slice(&ko.to_le_bytes());
            d.extend_from_slice(&vo.to_le_bytes());
            d.extend_from_slice(&[0; 12]);
        }
        d.extend_from_slice(&strings);
        d
    }

    #[test]
    fn written_cache_reads_back() {
        let d = build(&[("libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1")]);
        let c = parse(&d).unwrap();
        assert_eq!(
            c.lookup("libz.so.1", 0x303, &[]),
            Some("/lib/x86_64-linux-gnu/libz.so.1")
        );
        assert_eq!(c.lookup("libz.so.1", 0x003, &[]), None);
    }

    #[test]
    fn corrupt_caches_are_named_errors() {
        let d = build(&[("libz.so.1", "/lib/libz.so.1")]);
        let e = parse(&d[..30]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.what.contains("header cut short"), "{e}");
        let mut many = d.clone();
        many[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = parse(&many).unwrap_err();
        assert_eq!(e.offset, 20);
        let mut far = d.clone();
        far[NEW_HEADER + 8..NEW_HEADER + 12].copy_from_slice(&9999u32.to_le_bytes());
        let e = parse(&far).unwrap_err();
        assert_eq!(e.offset, (NEW_HEADER + 8) as u64);
        assert!(e.what.contains("past the end"), "{e}");
        let mut unterminated = d.clone();
        unterminated.pop();
        assert!(
            parse(&unterminated)
                .unwrap_err()
                .what
                .contains("not terminated")
        );
        assert!(parse(b"garbage").unwrap_err().what.contains("magic"));
    }

    #[test]
    fn this_machines_cache() {
        let Ok(d) = std::fs::read("/etc/ld.so.cache") else {
            return;
        };
        let c = parse(&d).unwrap();
        assert!(!c.entries.is_empty());
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512),
                                    cut in 0usize..200) {
            let _ = parse(&bytes);
            let mut d = build(&[("liba.so", "/a/liba.so"), ("libb.so.2", "/b/libb.so.2")]);
            let _ = parse(&d[..cut.min(d.len())]);
            for (i, b) in bytes.iter().enumerate().take(64) {
                let at = (i * 7 + cut) % d.len();
                d[at] ^= b;
            }
            let _ = parse(&d);
        }
    }
}
