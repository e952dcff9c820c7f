//! What the generated tables are made of: one decoder variant's tables, and the `const`
//! helpers that expand the generated compact forms into dense tables. The decoder reads
//! variants; the generated module builds them (`xtask codegen-isa`).

use crate::layout::Gen;

/// Tables of one decoder variant (a set of processors with identical tables).
#[derive(Debug)]
pub(crate) struct Variant {
    /// Generation, which fixes the encoding formats.
    pub(crate) gen_: Gen,
    /// One dense table per format of the generation's layout, in layout order.
    pub(crate) tables: &'static [&'static [u32]],
    /// gfx950: key of `v_mfma_ld_scale_b32` in the VOP3P table, and the table of the 16-byte
    /// scaled MFMA by the opcode of the second half.
    pub(crate) px2: Option<(usize, &'static [u32])>,
    /// Entry for the all-zero word when LLVM decodes it specially (`v_illegal` on GFX10+), or 0.
    pub(crate) zero: u32,
    /// Reserved source-operand codes (bitmap of 512), by `format index * 3 + literal field`:
    /// LLVM rejects an instruction whose source field holds one of them.
    pub(crate) reserved: &'static [[u64; 8]; 64],
}

/// Expand `(row, bitmap)` pairs into the dense reserved-code table (used by the generated
/// tables).
pub(crate) const fn rows(list: &[(usize, [u64; 8])]) -> [[u64; 8]; 64] {
    let mut t = [[0u64; 8]; 64];
    let mut i = 0;
    while i < list.len() {
        let (row, bits) = list[i];
        if row < 64 {
            t[row] = bits;
        }
        i += 1;
    }
    t
}

/// Expand `(start, count, value)` runs into a dense table (used by the generated tables).
pub(crate) const fn sparse<const N: usize>(runs: &[(usize, usize, u32)]) -> [u32; N] {
    let mut t = [0u32; N];
    let mut i = 0;
    while i < runs.len() {
        let (start, count, value) = runs[i];
        let mut k = 0;
        while k < count {
            if start + k < N {
                t[start + k] = value;
            }
            k += 1;
        }
        i += 1;
    }
    t
}
