//! `NT_AMDGPU_METADATA` (MessagePack) decoding: `amdhsa.version`, `amdhsa.target` and the
//! fields of each `amdhsa.kernels` entry that tell how a kernel uses the GPU.

use crate::MetadataInfo;
use rocpath_mpack::{Reader, Result};
use serde::{Deserialize, Serialize};

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

fn parse_kernel(rd: &mut Reader<'_>) -> Result<Kernel> {
    let mut k = Kernel::default();
    let mut symbol = String::new();
    rd.for_each_entry(|key, rd| {
        match key {
            ".name" => k.name = rd.str_or_skip()?.unwrap_or_default().to_string(),
            ".symbol" => symbol = rd.str_or_skip()?.unwrap_or_default().to_string(),
            ".sgpr_count" => k.sgpr_count = rd.u64_or_skip()?,
            ".vgpr_count" => k.vgpr_count = rd.u64_or_skip()?,
            ".agpr_count" => k.agpr_count = rd.u64_or_skip()?,
            ".wavefront_size" => k.wavefront_size = rd.u64_or_skip()?,
            ".group_segment_fixed_size" => k.group_segment_fixed_size = rd.u64_or_skip()?,
            ".private_segment_fixed_size" => k.private_segment_fixed_size = rd.u64_or_skip()?,
            ".kernarg_segment_size" => k.kernarg_segment_size = rd.u64_or_skip()?,
            ".kernarg_segment_align" => k.kernarg_segment_align = rd.u64_or_skip()?,
            ".max_flat_workgroup_size" => k.max_flat_workgroup_size = rd.u64_or_skip()?,
            ".sgpr_spill_count" => k.sgpr_spill_count = rd.u64_or_skip()?,
            ".vgpr_spill_count" => k.vgpr_spill_count = rd.u64_or_skip()?,
            ".uses_dynamic_stack" => k.uses_dynamic_stack = rd.bool_or_skip()?,
            ".uniform_work_group_size" => k.uniform_work_group_size = rd.u64_or_skip()?,
            _ => rd.skip()?,
        }
        Ok(())
    })?;
    // After the loop: `.name` may come after `.symbol` in the map.
    k.set_symbol(symbol);
    Ok(k)
}

/// Parses one metadata note's payload, adding its kernels to `kernels` (at most
/// `max_kernels` in all) and its header facts to `meta`.
pub(crate) fn parse_note(
    desc: &[u8],
    base: u64,
    meta: &mut MetadataInfo,
    kernels: &mut Vec<super::Kernel>,
    max_kernels: usize,
) -> Result<()> {
    let mut rd = Reader::with_base(desc, base);
    rd.for_each_entry(|key, rd| {
        match key {
            "amdhsa.version" => {
                let n = rd.array_len()?;
                let mut parts = Vec::new();
                for _ in 0..n {
                    if let Some(v) = rd.u64_or_skip()? {
                        parts.push(v.to_string());
                    }
                }
                if meta.version.is_none() && !parts.is_empty() {
                    meta.version = Some(parts.join("."));
                }
            }
            "amdhsa.target" => {
                if let Some(t) = rd.str_or_skip()? {
                    meta.target.get_or_insert_with(|| t.to_string());
                }
            }
            "amdhsa.kernels" => {
                let n = rd.array_len()?;
                for _ in 0..n {
                    if kernels.len() >= max_kernels {
                        rd.skip()?;
                        continue;
                    }
                    kernels.push(parse_kernel(rd)?);
                }
            }
            _ => rd.skip()?,
        }
        Ok(())
    })
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
