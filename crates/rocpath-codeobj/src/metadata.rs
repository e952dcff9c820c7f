//! `NT_AMDGPU_METADATA` (MessagePack) decoding: `amdhsa.version`, `amdhsa.target` and the
//! fields of each `amdhsa.kernels` entry that tell how a kernel uses the GPU.

use crate::MetadataInfo;
use rocpath_mpack::{Reader, Result};

pub use rocpath_docs::object::Kernel;

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
