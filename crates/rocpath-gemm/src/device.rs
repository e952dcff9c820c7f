//! The device as the host library sees it: `AMDGPU(gcnArchName, multiProcessorCount,
//! directManagedMemAccessFromHost)` (ROCm/Tensile@be49885f `source/hip/HipHardware.cpp:35-40`),
//! its processor found by `toProcessorId` (`include/Tensile/AMDGPU.hpp:125-160`: the first of
//! the known names that occurs in the arch string; a device none of them names is processor 0
//! and matches no `Processor` row), and `runsKernelTargeting` (`source/AMDGPU.cpp:67-81`).

use rocpath_arch::TargetId;
use serde::{Deserialize, Serialize};

/// The processors this Tensile version names, in `toProcessorId`'s order, with the numbers of
/// `AMDGPU::Processor` (`AMDGPU.hpp:50-77`).
const PROCESSORS: [(&str, u32); 19] = [
    ("gfx803", 803),
    ("gfx900", 900),
    ("gfx906", 906),
    ("gfx908", 908),
    ("gfx90a", 910),
    ("gfx940", 940),
    ("gfx941", 941),
    ("gfx942", 942),
    ("gfx1010", 1010),
    ("gfx1011", 1011),
    ("gfx1012", 1012),
    ("gfx1030", 1030),
    ("gfx1100", 1100),
    ("gfx1101", 1101),
    ("gfx1102", 1102),
    // In the enum but not found by toProcessorId: a device reporting them is processor 0.
    ("gfx1031", 1031),
    ("gfx1032", 1032),
    ("gfx1034", 1034),
    ("gfx1035", 1035),
];

/// How many of [`PROCESSORS`] `toProcessorId` searches.
const SEARCHED: usize = 15;

/// True when `name` is a processor this Tensile version can name in a catalog.
pub fn is_tensile_processor(name: &str) -> bool {
    PROCESSORS.iter().any(|(n, _)| *n == name)
}

fn number(name: &str) -> Option<u32> {
    PROCESSORS.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// A GPU for selection. Read back from a document as [`Device::new`] makes it (the derived
/// values are not printed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Printed")]
pub struct Device {
    /// The target id (`gfx90a:sramecc+:xnack-`).
    pub target: TargetId,
    /// Compute units (`multiProcessorCount`).
    pub cu_count: u32,
    /// An APU (`directManagedMemAccessFromHost`).
    pub is_apu: bool,
    /// The arch string (`gcnArchName`), made once: predicates read it on every evaluation.
    #[serde(skip)]
    arch: String,
    /// TensileLite's number for the processor ([`processor_of_arch`]), made once.
    #[serde(skip)]
    lite_processor: u32,
}

/// What a document prints of a device.
#[derive(Deserialize)]
struct Printed {
    target: TargetId,
    cu_count: u32,
    #[serde(default)]
    is_apu: bool,
}

impl From<Printed> for Device {
    fn from(p: Printed) -> Device {
        Device {
            is_apu: p.is_apu,
            ..Device::new(p.target, p.cu_count)
        }
    }
}

impl Device {
    /// A device of `target` with `cu_count` compute units.
    pub fn new(target: TargetId, cu_count: u32) -> Device {
        let arch = target.canonical();
        Device {
            lite_processor: processor_of_arch(&arch),
            arch,
            target,
            cu_count,
            is_apu: false,
        }
    }

    /// The arch string as HIP reports it (`gcnArchName`: the canonical target id).
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// TensileLite's processor number (`toProcessor(gcnArchName)`), 0 if it has none.
    pub fn lite_processor(&self) -> u32 {
        self.lite_processor
    }

    /// The processor name (`gfx90a`), what libraries name their files after.
    pub fn processor(&self) -> &str {
        &self.target.processor
    }

    /// The processor as Tensile's `toProcessorId` finds it in the arch string, if it does.
    pub fn tensile_processor(&self) -> Option<&'static str> {
        let arch = self.arch();
        PROCESSORS[..SEARCHED]
            .iter()
            .find(|(n, _)| arch.contains(n))
            .map(|&(n, _)| n)
    }

    /// `AMDGPU::runsKernelTargeting(other)`.
    pub fn runs_kernel_targeting(&self, other: &str) -> bool {
        let mine = self.tensile_processor().and_then(number).unwrap_or(0);
        let Some(other) = number(other) else {
            return false;
        };
        if other > mine {
            return false;
        }
        other == mine || other == 900
    }
}

/// Compute units of the shipping parts of each processor (the first is the usual one), for a
/// device given without `--cu`. Sources: AMD's product specifications (MI25 64, MI50 60, MI60 64,
/// MI100 120, MI210 104, MI250/MI250X 208/220 as two 104/110-CU dies, MI300X 304, MI300A 228,
/// Radeon VII 60, RX 5700 XT 40, RX 6900 XT 80, RX 7900 XTX 96, RX 7800 XT 60, RX 7600 32,
/// RX 9070 XT 64, RX 9060 XT 32).
pub fn usual_cu_counts(processor: &str) -> &'static [u32] {
    match processor {
        "gfx803" => &[36, 64, 32],
        "gfx900" => &[64, 56],
        "gfx906" => &[60, 64],
        "gfx908" => &[120],
        "gfx90a" => &[104, 110],
        "gfx940" | "gfx941" | "gfx942" => &[304, 228, 80],
        "gfx950" => &[256],
        "gfx1010" => &[40, 36],
        "gfx1011" | "gfx1012" => &[24, 22],
        "gfx1030" => &[80, 72, 60],
        "gfx1031" => &[40],
        "gfx1032" => &[32, 28],
        "gfx1100" => &[96, 84],
        "gfx1101" => &[60, 54],
        "gfx1102" => &[32],
        "gfx1150" | "gfx1151" => &[16, 40],
        "gfx1200" => &[32],
        "gfx1201" => &[64, 56],
        _ => &[],
    }
}

/// TensileLite's processors (`AMDGPU::Processor`, `AMDGPU.hpp:52-80`) in the order
/// `toProcessor` searches the arch name for them (`AMDGPU.hpp:82-176`: the first name found as a
/// substring wins; none is processor 0).
const LITE_PROCESSORS: [(&str, u32); 23] = [
    ("gfx803", 803),
    ("gfx900", 900),
    ("gfx906", 906),
    ("gfx908", 908),
    ("gfx90a", 910),
    ("gfx940", 940),
    ("gfx941", 941),
    ("gfx942", 942),
    ("gfx1010", 1010),
    ("gfx1011", 1011),
    ("gfx1012", 1012),
    ("gfx1030", 1030),
    ("gfx1100", 1100),
    ("gfx1101", 1101),
    ("gfx1102", 1102),
    ("gfx1103", 1103),
    ("gfx1150", 1150),
    ("gfx1151", 1151),
    ("gfx1152", 1152),
    ("gfx1153", 1153),
    ("gfx950", 950),
    ("gfx1200", 1200),
    ("gfx1201", 1201),
];

/// TensileLite's processor number for an arch string (`toProcessor(gcnArchName)`): the first
/// known name it contains, 0 if none.
pub fn processor_of_arch(arch: &str) -> u32 {
    LITE_PROCESSORS
        .iter()
        .find(|(n, _)| arch.contains(n))
        .map_or(0, |&(_, v)| v)
}

/// The number of a processor a catalog names, if TensileLite's serialization knows it
/// (`Serialization/Predicates.hpp:205-232`: the same names).
pub fn processor_number(name: &str) -> Option<u32> {
    LITE_PROCESSORS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(t: &str) -> Device {
        Device::new(
            TargetId::parse(t).unwrap_or_else(|_| TargetId::unknown()),
            64,
        )
    }

    #[test]
    fn processors_are_found_as_tensile_finds_them() {
        assert_eq!(
            dev("gfx90a:sramecc+:xnack-").tensile_processor(),
            Some("gfx90a")
        );
        assert_eq!(dev("gfx1031").tensile_processor(), None);
        assert_eq!(dev("gfx1201").tensile_processor(), None);
        assert!(dev("gfx906").runs_kernel_targeting("gfx900"));
        assert!(!dev("gfx906").runs_kernel_targeting("gfx908"));
        assert!(!dev("gfx900").runs_kernel_targeting("gfx803"));
    }
}
