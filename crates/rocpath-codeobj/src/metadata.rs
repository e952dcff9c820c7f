//! `NT_AMDGPU_METADATA` (MessagePack) decoding: `amdhsa.version`, `amdhsa.target` and the
//! fields of each `amdhsa.kernels` entry that tell how a kernel uses the GPU.

use crate::MetadataInfo;
use rocpath_mpack::{Reader, Result};
use serde::{Deserialize, Serialize};

/// A kernel and the resource facts of its metadata. Fields are named as in the note,
/// without the leading dot; a field absent from the note is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    /// `.name`
    pub name: String,
    /// `.symbol` (the kernel descriptor symbol, `<name>.kd`).
    pub symbol: String,
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

fn parse_kernel(rd: &mut Reader<'_>) -> Result<Kernel> {
    let mut k = Kernel::default();
    rd.for_each_entry(|key, rd| {
        match key {
            ".name" => k.name = rd.str_or_skip()?.unwrap_or_default().to_string(),
            ".symbol" => k.symbol = rd.str_or_skip()?.unwrap_or_default().to_string(),
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
