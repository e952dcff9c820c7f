//! Clang offload bundles written byte by byte for tests (`__CLANG_OFFLOAD_BUNDLE__`, the
//! entry count, then per entry offset, size, id length and id, all little-endian u64).

/// The bundle magic.
pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";

/// Header bytes of a bundle whose entries have these ids.
pub fn header_len(ids: &[&[u8]]) -> usize {
    MAGIC.len() + 8 + ids.iter().map(|i| 24 + i.len()).sum::<usize>()
}

/// A bundle whose entries are `(id, offset, size)` as given, followed by `body` placed at
/// offset `body_at` (zeros in between; `body_at` must not be inside the header).
pub fn with_entries(entries: &[(&[u8], u64, u64)], body_at: usize, body: &[u8]) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    b.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    for (id, off, size) in entries {
        for v in [*off, *size, id.len() as u64] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(id);
    }
    assert!(body_at >= b.len(), "the body would overwrite the header");
    b.resize(body_at, 0);
    b.extend_from_slice(body);
    b
}

/// A bundle of `n` gfx1100 entries that all start at the one code object `obj` (placed at
/// the first 4 KiB boundary after the header); with `vary`, entry `i` claims `i` more bytes
/// (zeros follow the object).
pub fn at_one_object(n: usize, obj: &[u8], vary: bool) -> Vec<u8> {
    let id: &[u8] = b"hipv4-amdgcn-amd-amdhsa--gfx1100";
    let off = (MAGIC.len() + 8 + n * (24 + id.len())).div_ceil(4096) * 4096;
    let entries: Vec<(&[u8], u64, u64)> = (0..n)
        .map(|i| {
            (
                id,
                off as u64,
                (obj.len() + if vary { i } else { 0 }) as u64,
            )
        })
        .collect();
    let mut b = with_entries(&entries, off, obj);
    b.resize(b.len() + if vary { n } else { 0 }, 0);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_where_the_entries_say() {
        let b = at_one_object(3, b"OBJ", true);
        assert_eq!(&b[..24], MAGIC);
        assert_eq!(u64::from_le_bytes(b[24..32].try_into().unwrap()), 3);
        let off = u64::from_le_bytes(b[32..40].try_into().unwrap()) as usize;
        assert_eq!(off % 4096, 0);
        assert_eq!(&b[off..off + 3], b"OBJ");
        // The third entry claims two bytes more, and they are there.
        assert_eq!(b.len(), off + 3 + 3);
        assert_eq!(header_len(&[b"ab"]), 24 + 8 + 24 + 2);
    }
}
