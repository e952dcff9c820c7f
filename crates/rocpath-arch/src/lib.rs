//! AMD GPU architecture table and LLVM target-id rules.

mod model;
pub use model::*;

mod target_id;
pub use target_id::*;

mod table;
pub use table::TARGETS;

pub mod lookup;

/// The row of the processor named exactly `name` (`gfx90a`, `gfx11-generic`), if any.
///
/// The name must be LLVM's canonical processor name: no target-id features (`:xnack+`) and no
/// legacy alias (`tahiti`).
pub fn target(name: &str) -> Option<&'static TargetInfo> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The row whose `EF_AMDGPU_MACH_*` value is `mach` (ELF `e_flags & 0xff`), if any.
pub fn by_mach(mach: u32) -> Option<&'static TargetInfo> {
    TARGETS.iter().find(|t| t.mach == mach)
}
