//! TensileLite's indexed catalogs (`format_version` 2) and zlib-compressed catalogs
//! (`*.dat.zlib`).
//!
//! An indexed catalog keeps its solutions unparsed: `solutions_index` is a flat array of
//! `(index, offset, length)` triples into `solutions_blob` (a msgpack `bin` holding one packed
//! solution map per slice), next to the usual `library` tree. hipBLASLt's loader refuses the
//! whole file when the format version is not one it knows, the table is not triples, a field
//! is negative, an index does not fit an `int`, an index repeats, a slice runs past the blob or
//! the blob is missing (ROCm/rocm-libraries hipBLASLt `tensilelite` tests of the indexed layout,
//! `IndexedLibraryLoadTest`). rocpath reads the same rules and reports the first one broken as
//! [`LibrarySummary::loader_rejects`]; the solutions of the slices are counted as usual.
//!
//! `*.dat.zlib` is the catalog compressed with zlib (`compress2`); it is inflated here in
//! steps, each reserved from the run's memory budget, never past [`MAX_INFLATED`].

use crate::{Error, LibrarySummary, Walk, solution};
use rocpath_mpack::{Kind, Reader, Result as MResult};
use std::io::Read;

/// The indexed layout this reader knows.
pub const FORMAT_INDEXED: i128 = 2;

/// Largest inflated `.dat.zlib` accepted (real catalogs are under 200 MB).
pub const MAX_INFLATED: u64 = 4 << 30;

/// The raw parts of an indexed catalog, as found at the top level.
#[derive(Default)]
pub(crate) struct Parts<'a> {
    pub version: Option<i128>,
    pub index: Option<&'a [u8]>,
    pub blob: Option<&'a [u8]>,
}

/// The payload of a msgpack `bin` value (its whole encoding in `raw`).
pub(crate) fn bin_payload(raw: &[u8]) -> &[u8] {
    let skip = match raw.first() {
        Some(0xc4) => 2,
        Some(0xc5) => 3,
        Some(0xc6) => 5,
        _ => return &[],
    };
    raw.get(skip..).unwrap_or(&[])
}

/// Reads the index triples and the solutions of the slices into `out`; a rule of the loader
/// that the file breaks goes to `out.loader_rejects` (the rest is still counted).
pub(crate) fn read(parts: &Parts<'_>, out: &mut LibrarySummary, w: &mut Walk) -> MResult<()> {
    let Some(v) = parts.version else {
        return Ok(());
    };
    out.format_version = i64::try_from(v).ok();
    if v != FORMAT_INDEXED {
        out.loader_rejects = Some(format!(
            "format_version {v}: hipBLASLt reads the legacy layout and format_version 2 only"
        ));
        return Ok(());
    }
    let (Some(index), Some(blob)) = (parts.index, parts.blob) else {
        out.loader_rejects = Some(
            if parts.index.is_none() {
                "format_version 2 without `solutions_index`"
            } else {
                "format_version 2 without `solutions_blob`"
            }
            .into(),
        );
        return Ok(());
    };
    let mut rd = Reader::new(index);
    let n = rd.array_len()?;
    if n % 3 != 0 {
        out.loader_rejects = Some(format!(
            "solutions_index has {n} numbers, not (index, offset, length) triples"
        ));
        return Ok(());
    }
    let mut seen = std::collections::HashSet::new();
    for _ in 0..n / 3 {
        let at = rd.offset();
        let (i, off, len) = (rd.int()?, rd.int()?, rd.int()?);
        if let Err(why) = slice_ok(i, off, len, blob.len(), &mut seen) {
            out.loader_rejects
                .get_or_insert_with(|| format!("solutions_index at byte {at}: {why}"));
            continue;
        }
        let (off, len) = (off as usize, len as usize);
        let mut s = Reader::new(&blob[off..off + len]);
        if s.peek()? != Kind::Map {
            out.loader_rejects.get_or_insert_with(|| {
                format!("solutions_blob slice of index {i} is not a solution map")
            });
            continue;
        }
        out.count(solution(&mut s)?, w);
    }
    Ok(())
}

/// One triple by the loader's rules.
fn slice_ok(
    i: i128,
    off: i128,
    len: i128,
    blob: usize,
    seen: &mut std::collections::HashSet<i128>,
) -> Result<(), String> {
    if i < 0 || off < 0 || len < 0 {
        return Err(format!("negative field ({i}, {off}, {len})"));
    }
    if i32::try_from(i).is_err() {
        return Err(format!("index {i} does not fit an int"));
    }
    if off.checked_add(len).is_none_or(|end| end > blob as i128) {
        return Err(format!(
            "slice {off}+{len} runs past the {blob}-byte solutions_blob"
        ));
    }
    if !seen.insert(i) {
        return Err(format!("index {i} appears twice"));
    }
    Ok(())
}

/// Inflates a `.dat.zlib` catalog: the output grows in steps of at most 64 MiB, each reserved
/// from `budget` first, and stops at [`MAX_INFLATED`] or at the budget.
pub fn inflate(
    data: &[u8],
    budget: &rocpath_budget::MemoryBudget,
) -> Result<(Vec<u8>, rocpath_budget::Reservation), Error> {
    const STEP: u64 = 64 << 20;
    let mut held = rocpath_budget::Reservation::empty(budget);
    let mut out = Vec::new();
    let mut z = flate2::read::ZlibDecoder::new(data).take(MAX_INFLATED + 1);
    loop {
        let want = (data.len() as u64).saturating_mul(4).clamp(1 << 16, STEP);
        let start = out.len();
        held.ensure(start as u64 + want)?;
        out.reserve_exact(want as usize);
        out.resize(start + want as usize, 0);
        let mut filled = start;
        while filled < out.len() {
            match z.read(&mut out[filled..]) {
                Ok(0) => break,
                Ok(k) => filled += k,
                Err(e) => return Err(Error::Shape(format!("zlib: {e}"))),
            }
        }
        out.truncate(filled);
        if filled < start + want as usize {
            break;
        }
        if out.len() as u64 > MAX_INFLATED {
            return Err(Error::Shape(format!(
                "zlib stream inflates past {} bytes; refused as a bomb",
                MAX_INFLATED
            )));
        }
    }
    held.shrink_to(out.len() as u64);
    Ok((out, held))
}
