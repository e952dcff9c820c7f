//! What the `rocpath.inventory/1` and `rocpath.isa/1` documents say of every code object they
//! list: how its sha256 was obtained, the other entries of its container that point at the
//! same bytes, its kernels' metadata, and what a kpack marker's archives hold
//! (`rocpath-sources` and `rocpath-codeobj` fill these while they read).

use serde::{Deserialize, Serialize};

/// How the sha256 of an object was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HashSource {
    /// Not hashed (the question did not need it).
    NotHashed,
    /// Computed from the bytes during this run (the default: documents written before
    /// hashing became optional always computed it).
    #[default]
    Computed,
    /// Taken from the hash cache: computed from the same file (same device, inode, size and
    /// modification time) by an earlier run.
    Cached,
}

crate::words!(HashSource {
    NotHashed => "not_hashed",
    Computed => "computed",
    Cached => "cached",
});

/// Entries of a container that point at the same code object as the one reported (the same
/// offset in an offload bundle, the same stored bytes in a kpack archive): the object is read
/// once, under one of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedBy {
    /// How many other entries point at it.
    pub entries: u64,
    /// Their ids, the first [`SharedBy::MAX_IDS`] of them in header order.
    pub ids: Vec<String>,
}

impl SharedBy {
    /// Most entry ids kept.
    pub const MAX_IDS: usize = 64;

    /// A note for the evidence of the object, `done` saying what was done once (`read`,
    /// `decoded`).
    pub fn note(&self, done: &str) -> String {
        let listed = if self.ids.len() as u64 == self.entries {
            String::new()
        } else {
            format!(" (the first {} listed in shared_by)", self.ids.len())
        };
        format!(
            "{} other entries of this container point at the same bytes{listed}; the code object is {done} and listed once",
            self.entries
        )
    }
}

/// A kernel and the resource facts of its metadata. Fields are named as in the note,
/// without the leading dot; a field absent from the note is `None`. It serializes with every
/// field of the note, `symbol` included.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "KernelDoc", from = "KernelDoc")]
pub struct Kernel {
    /// `.name`
    pub name: String,
    /// `.symbol` when it is not `<name>.kd`: Tensile names run to hundreds of bytes, and an
    /// inventory holds tens of thousands of them, so the usual one is not kept twice.
    symbol: Option<String>,
    /// `.sgpr_count`
    pub sgpr_count: Option<u64>,
    /// `.vgpr_count`
    pub vgpr_count: Option<u64>,
    /// `.agpr_count`
    pub agpr_count: Option<u64>,
    /// `.wavefront_size`
    pub wavefront_size: Option<u64>,
    /// `.group_segment_fixed_size` (LDS bytes)
    pub group_segment_fixed_size: Option<u64>,
    /// `.private_segment_fixed_size` (scratch bytes per work-item)
    pub private_segment_fixed_size: Option<u64>,
    /// `.kernarg_segment_size`
    pub kernarg_segment_size: Option<u64>,
    /// `.kernarg_segment_align`
    pub kernarg_segment_align: Option<u64>,
    /// `.max_flat_workgroup_size`
    pub max_flat_workgroup_size: Option<u64>,
    /// `.sgpr_spill_count`
    pub sgpr_spill_count: Option<u64>,
    /// `.vgpr_spill_count`
    pub vgpr_spill_count: Option<u64>,
    /// `.uses_dynamic_stack`
    pub uses_dynamic_stack: Option<bool>,
    /// `.uniform_work_group_size` (an integer 1 in the note)
    pub uniform_work_group_size: Option<u64>,
}

impl Kernel {
    /// A kernel of this name whose descriptor symbol is `<name>.kd`, no other facts known.
    pub fn named(name: String) -> Kernel {
        Kernel {
            name,
            ..Kernel::default()
        }
    }

    /// `.symbol` (the kernel descriptor symbol, `<name>.kd` unless the note says otherwise).
    pub fn symbol(&self) -> std::borrow::Cow<'_, str> {
        match &self.symbol {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(format!("{}.kd", self.name)),
        }
    }

    /// Sets `.symbol`; kept only when it is not `<name>.kd`.
    pub fn set_symbol(&mut self, symbol: String) {
        let usual = symbol.strip_suffix(".kd").is_some_and(|n| n == self.name);
        self.symbol = (!usual).then_some(symbol);
    }
}

/// [`Kernel`] as documents have it: `symbol` spelled out.
#[derive(Clone, Serialize, Deserialize)]
struct KernelDoc {
    name: String,
    symbol: String,
    sgpr_count: Option<u64>,
    vgpr_count: Option<u64>,
    agpr_count: Option<u64>,
    wavefront_size: Option<u64>,
    group_segment_fixed_size: Option<u64>,
    private_segment_fixed_size: Option<u64>,
    kernarg_segment_size: Option<u64>,
    kernarg_segment_align: Option<u64>,
    max_flat_workgroup_size: Option<u64>,
    sgpr_spill_count: Option<u64>,
    vgpr_spill_count: Option<u64>,
    uses_dynamic_stack: Option<bool>,
    uniform_work_group_size: Option<u64>,
}

impl From<Kernel> for KernelDoc {
    fn from(k: Kernel) -> KernelDoc {
        KernelDoc {
            symbol: k.symbol().into_owned(),
            name: k.name,
            sgpr_count: k.sgpr_count,
            vgpr_count: k.vgpr_count,
            agpr_count: k.agpr_count,
            wavefront_size: k.wavefront_size,
            group_segment_fixed_size: k.group_segment_fixed_size,
            private_segment_fixed_size: k.private_segment_fixed_size,
            kernarg_segment_size: k.kernarg_segment_size,
            kernarg_segment_align: k.kernarg_segment_align,
            max_flat_workgroup_size: k.max_flat_workgroup_size,
            sgpr_spill_count: k.sgpr_spill_count,
            vgpr_spill_count: k.vgpr_spill_count,
            uses_dynamic_stack: k.uses_dynamic_stack,
            uniform_work_group_size: k.uniform_work_group_size,
        }
    }
}

impl From<KernelDoc> for Kernel {
    fn from(d: KernelDoc) -> Kernel {
        let mut k = Kernel {
            name: d.name,
            symbol: None,
            sgpr_count: d.sgpr_count,
            vgpr_count: d.vgpr_count,
            agpr_count: d.agpr_count,
            wavefront_size: d.wavefront_size,
            group_segment_fixed_size: d.group_segment_fixed_size,
            private_segment_fixed_size: d.private_segment_fixed_size,
            kernarg_segment_size: d.kernarg_segment_size,
            kernarg_segment_align: d.kernarg_segment_align,
            max_flat_workgroup_size: d.max_flat_workgroup_size,
            sgpr_spill_count: d.sgpr_spill_count,
            vgpr_spill_count: d.vgpr_spill_count,
            uses_dynamic_stack: d.uses_dynamic_stack,
            uniform_work_group_size: d.uniform_work_group_size,
        };
        k.set_symbol(d.symbol);
        k
    }
}

/// The fat-binary wrappers of `.hipFatBinSegment`, by magic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wrappers {
    /// 24-byte records.
    pub total: u32,
    /// Records marked `HIPK` (their image is the kpack marker).
    pub hipk: u32,
    /// Records still marked `HIPF` (their image is in `.hip_fatbin`).
    pub hipf: u32,
}

/// What became of one candidate archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveStatus {
    /// Read; it lists code objects of the binary.
    Found,
    /// No file at the path.
    Missing,
    /// A file of 0 bytes.
    Empty,
    /// Not a regular file (a folder, FIFO, device).
    NotAFile,
    /// The file could not be opened or its header or TOC is damaged.
    Unreadable,
    /// A valid archive with no entry for the binary (an archive of another library).
    NoEntries,
    /// An `@GFXARCH@` pattern that no file matches.
    PatternUnmatched,
}

impl ArchiveStatus {
    /// The archive gives the binary no code.
    pub fn is_problem(self) -> bool {
        self != ArchiveStatus::Found
    }
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ArchiveStatus::Found => "found",
            ArchiveStatus::Missing => "missing",
            ArchiveStatus::Empty => "empty",
            ArchiveStatus::NotAFile => "not_a_file",
            ArchiveStatus::Unreadable => "unreadable",
            ArchiveStatus::NoEntries => "no_entries",
            ArchiveStatus::PatternUnmatched => "pattern_unmatched",
        }
    }
}

/// One archive a binary's marker leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveRef {
    /// The search path as written in the marker.
    pub search_path: String,
    /// The path looked at (relative paths joined to the binary's folder, `.`/`..` folded).
    pub path: String,
    /// The architecture `@GFXARCH@` stood for, when the path is a pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// What was found there.
    pub status: ArchiveStatus,
    /// `group_name` of the archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    /// `gfx_arch_family`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gfx_arch_family: Option<String>,
    /// `gfx_arches`: what the archive advertises to the loader.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gfx_arches: Vec<String>,
    /// Architectures stored for this binary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arches: Vec<String>,
    /// Code objects stored for this binary.
    pub code_objects: u32,
    /// Why the status is not `found`, or what else is wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Wrapper indices without a code object for one architecture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingIndices {
    /// The architecture key.
    pub arch: String,
    /// Indices of `HIPK` wrappers (`kernel_name#N`) with no object for it.
    pub indices: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::Kernel;

    #[test]
    fn the_usual_symbol_is_not_kept_twice_and_documents_spell_it_out() {
        let mut k = Kernel::named("Cijk_Ailk".to_string());
        k.set_symbol("Cijk_Ailk.kd".to_string());
        assert_eq!(k.symbol, None);
        assert_eq!(k.symbol(), "Cijk_Ailk.kd");
        let doc = serde_json::to_value(&k).unwrap_or_default();
        assert_eq!(doc["symbol"], "Cijk_Ailk.kd");
        let back: Kernel = serde_json::from_value(doc).unwrap_or_default();
        assert_eq!(back, k);

        let mut odd = Kernel::named("main".to_string());
        odd.set_symbol("main_descriptor".to_string());
        assert_eq!(odd.symbol(), "main_descriptor");
        let doc = serde_json::to_value(&odd).unwrap_or_default();
        assert_eq!(doc["symbol"], "main_descriptor");
        // A note without `.symbol` says so: an empty symbol stays empty.
        let mut none = Kernel::named("k".to_string());
        none.set_symbol(String::new());
        assert_eq!(none.symbol(), "");
    }
}
