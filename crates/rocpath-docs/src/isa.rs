//! The `rocpath.isa/1` document (`rocpath isa`): per code object and kernel, the instructions
//! of the machine code by mnemonic, class, coarse group and the research's signals (dot4,
//! packed, MFMA, FMA, memory), searched mnemonics and disassembly when asked. `rocpath-census`
//! decodes code objects into these records; the ledger reads them.

use crate::ErrorItem;
use crate::object::{HashSource, SharedBy};
use rocpath_arch::TargetId;
use rocpath_evidence::Evidence;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything a census found: the document of `rocpath isa`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct IsaReport {
    /// Per code object, sorted by path, container and offset.
    pub code_objects: Vec<CodeObjectCensus>,
    /// Totals per short target id.
    pub targets: BTreeMap<TargetId, Counts>,
    /// Hits of `find` terms, per kernel.
    pub find: Vec<FindHit>,
    /// Search terms that matched nowhere.
    pub not_found: Vec<String>,
    /// Instruction stream of the selected kernels (`disasm`).
    pub disasm: Vec<DisasmLine>,
    /// Code objects the decoder does not cover (GFX6/GFX7, gfx125x).
    pub skipped: Vec<Skipped>,
    /// Problems.
    pub errors: Vec<ErrorItem>,
}

/// Counts of one census, named for output.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Counts {
    /// Instructions (including `.long` undecodable words, as llvm-objdump counts them).
    pub instructions: u64,
    /// Bytes of code covered.
    pub code_bytes: u64,
    /// Words that did not decode (`.long`).
    pub unknown: u64,
    /// Count per mnemonic.
    pub mnemonics: BTreeMap<String, u64>,
    /// Count per instruction class.
    pub classes: BTreeMap<String, u64>,
    /// Count per coarse group (mfma, wmma, dot, packed, fma, valu, salu, vmem, lds, smem, ...).
    pub groups: BTreeMap<String, u64>,
    /// The research workflow's signals: dot4, packed, mfma, fma, memory.
    pub signals: BTreeMap<String, u64>,
}

/// One kernel (or device function) of a code object.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KernelCensus {
    /// Symbol name.
    pub name: String,
    /// True when the metadata lists it as a kernel (false for device functions).
    pub is_kernel: bool,
    /// Its counts.
    #[serde(flatten)]
    pub counts: Counts,
}

/// One code object's census.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeObjectCensus {
    /// File on disk.
    pub path: String,
    /// Container chain inside the file.
    pub container: String,
    /// Library (file or archive member).
    pub library: String,
    /// Offset in the innermost container.
    pub offset: u64,
    /// sha256 of the code object, when hashing was asked for (`--hash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// How `sha256` was obtained: `computed`, `cached` (the hash cache, same file unchanged)
    /// or `not_hashed`.
    pub sha256_source: HashSource,
    /// Target id, written as `target` (full), `target_id` (short) and `processor`.
    #[serde(flatten, with = "rocpath_arch::fields")]
    pub target: TargetId,
    /// Processor whose decoding tables were used.
    pub decoder: String,
    /// Totals over all executable sections.
    #[serde(flatten)]
    pub counts: Counts,
    /// Number of kernels and functions with code.
    pub kernel_count: usize,
    /// Per kernel / function symbol, in address order (empty unless per-kernel counts were
    /// asked for).
    pub kernels: Vec<KernelCensus>,
    /// Other entries of the same bundle that point at this object (the same offset): it is
    /// decoded and listed once, here, and they are referenced by id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by: Option<SharedBy>,
    /// Evidence.
    pub evidence: Evidence,
}

/// A code object that was found but not decoded, and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Skipped {
    /// File.
    pub path: String,
    /// Container chain.
    pub container: String,
    /// Target id.
    pub target_id: TargetId,
    /// Why it was not decoded.
    pub reason: String,
    /// Evidence (`limited`: the tool does not cover it).
    pub evidence: Evidence,
}

/// A searched mnemonic found in a kernel.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FindHit {
    /// File.
    pub path: String,
    /// Container chain.
    pub container: String,
    /// Target id.
    pub target_id: TargetId,
    /// Kernel (or function) name.
    pub kernel: String,
    /// The search term that matched.
    pub term: String,
    /// The mnemonic found.
    pub mnemonic: String,
    /// How many times.
    pub count: u64,
    /// Evidence.
    pub evidence: Evidence,
}

/// One line of `--disasm` output.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DisasmLine {
    /// Code object file.
    pub path: String,
    /// Kernel.
    pub kernel: String,
    /// Address.
    pub address: u64,
    /// Instruction bytes, hex.
    pub bytes: String,
    /// Mnemonic (`.long` for an undecodable word).
    pub mnemonic: String,
    /// Class.
    pub class: String,
}

impl Counts {
    /// Adds another set of counts.
    pub fn merge(&mut self, o: &Counts) {
        self.instructions += o.instructions;
        self.code_bytes += o.code_bytes;
        self.unknown += o.unknown;
        for (dst, src) in [
            (&mut self.mnemonics, &o.mnemonics),
            (&mut self.classes, &o.classes),
            (&mut self.groups, &o.groups),
            (&mut self.signals, &o.signals),
        ] {
            for (k, v) in src {
                *dst.entry(k.clone()).or_default() += v;
            }
        }
    }
}
