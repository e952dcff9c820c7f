//! Native AMDGPU instruction decoder for GFX8 to GFX12.
//!
//! `rocpath-isa` tells, for every instruction of an AMDGPU code object, its length, its encoding
//! family, its mnemonic exactly as `llvm-objdump-22 -d` prints it, and a class (MFMA/WMMA by data
//! type, each dot-product variant, packed math, FMA, memory kinds, ...). It decodes hundreds of
//! MB/s per core, where `llvm-objdump` manages 1-3 MB/s.
//!
//! The opcode tables are data generated from LLVM's own disassembler by
//! `cargo run -p xtask -- codegen-isa` and committed; building this crate never needs LLVM.
//!
//! # Example
//!
//! ```
//! use rocpath_isa::{Census, Class, Decoded, Decoder, Family, SymbolKind, SymbolStart};
//!
//! let dec = Decoder::for_target("gfx90a:xnack+").expect("gfx90a is covered");
//!
//! // s_mov_b32 s0, 0x1234 (SOP1 with a 32-bit literal), then s_endpgm.
//! let code = [0xff, 0x00, 0x80, 0xbe, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00, 0x81, 0xbf];
//! let Decoded::Inst(i) = dec.decode(&code) else { panic!() };
//! assert_eq!((i.mnemonic.as_str(), i.len, i.family), ("s_mov_b32", 8, Family::Sop1));
//!
//! // Walk a section like llvm-objdump: one range per symbol.
//! let syms = [SymbolStart { address: 0x1000, kind: SymbolKind::Code }];
//! let names: Vec<&str> = dec.walk(&code, 0x1000, &syms).map(|it| it.mnemonic.as_str()).collect();
//! assert_eq!(names, ["s_mov_b32", "s_endpgm"]);
//!
//! // Count by mnemonic, class and signal; censuses merge.
//! let mut total = Census::new();
//! total.merge(&dec.census(&code, 0x1000, &syms));
//! assert_eq!(total.instructions(), 2);
//! assert_eq!(total.class_count(Class::Branch), 1);
//! assert_eq!(total.signals().mfma, 0);
//! ```
//!
//! # Main types
//!
//! * [`Decoder`]: one per processor ([`Decoder::for_target`] takes `gfx90a`,
//!   `gfx90a:xnack+`, `amdgcn-amd-amdhsa--gfx942` or `gfx11-generic`; [`Decoder::for_mach`]
//!   takes ELF `e_flags`). [`Decoder::decode`] returns a [`Decoded`]: an [`Inst`] (length,
//!   [`Mnemonic`], [`Family`]), `Unknown`, or `Truncated`.
//! * [`Decoder::walk`]: iterator of [`Item`]s over one executable section, with llvm-objdump's
//!   rules; each item knows its offset, length, mnemonic, kind and symbol index.
//! * [`Mnemonic`]: a `u16` id; [`Mnemonic::as_str`], [`Mnemonic::class`] ([`Class`], grouped
//!   by [`Group`]) and [`Mnemonic::signals`] ([`Signals`]) are table lookups.
//! * [`Census`]: counts by mnemonic id, mergeable, with [`Census::histogram`] (reference
//!   order), [`Census::by_class`] and [`Census::signals`]. [`ClassCounts`] is a fixed-size,
//!   allocation-free count by class for per-kernel totals.
//!
//! # Counting rules
//!
//! [`Decoder::walk`] follows `llvm-objdump -d`: ranges start at each distinct symbol address
//! (and at the section start when bytes precede the first symbol); a run of at least 8 zero
//! bytes at an instruction boundary is skipped (rounded down to a multiple of 4); an
//! undecodable word counts as `.long` and decoding resumes 4 bytes later; legacy
//! `STT_AMDGPU_HSA_KERNEL` symbols start with 256 `.byte` lines. A [`Census`] built from the walk
//! equals the histogram of first tokens of `llvm-objdump-22 -d` instruction lines.

#![forbid(unsafe_code)]

mod census;
pub mod classify;
mod decoder;
mod generated;
#[doc(hidden)]
pub mod layout;
mod variant;
mod walk;

pub use census::{Census, ClassCounts, SignalCounts};
pub use classify::{Class, Group};
pub use decoder::{Decoded, Decoder, Inst, Mnemonic, Signals};
pub use layout::{Family, Gen};
pub use walk::{Item, ItemKind, Range, SymbolKind, SymbolStart, Tally, Walk};

/// Version of LLVM whose disassembler the tables were generated from.
pub const LLVM_VERSION: &str = "22.1.8";

#[doc(hidden)]
pub fn layout_fingerprint_generated() -> u64 {
    generated::tables::LAYOUT_FINGERPRINT
}
