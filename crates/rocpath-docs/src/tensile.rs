//! A decoded Tensile kernel name (`Cijk_Ailk_Bljk_SB_MT64x64x16_MI32x32x2x1_…`), as the
//! `rocpath.trace/2` and `rocpath.case/1` documents print it. `rocpath-logs` decodes names into
//! it (`rocpath_logs::tensile::decode`, the grammar of Tensile's `SolutionStructs.py`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A decoded kernel name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelName {
    /// Index string of the problem type (`Cijk_Ailk_Bljk`).
    pub indices: String,
    /// A is transposed (`Alik`).
    pub trans_a: bool,
    /// B is transposed (`Bjlk`).
    pub trans_b: bool,
    /// Input data type (`f16`, `bf16`, `f32`, `i8`, …).
    pub data_type: String,
    /// Destination type, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dest_type: Option<String>,
    /// Compute type, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_type: Option<String>,
    /// `B`: uses beta.
    pub beta: bool,
    /// `H`: high-precision accumulate.
    pub hpa: bool,
    /// `_GB`: general (pointer-array) batched.
    pub general_batched: bool,
    /// Macro tile `MT0 x MT1 x DepthU`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub macro_tile: Option<[u32; 3]>,
    /// `MI<M>x<N>x<K>x<B>`: the matrix instruction shape; `None` for a VALU kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_instruction: Option<Vec<u32>>,
    /// Known parameters by abbreviation (`GSU` → `1`, `WG` → `16_16_1`, `ISA` → `906`).
    pub params: BTreeMap<String, String>,
}

impl KernelName {
    /// `GSU` as a number, when present.
    pub fn global_split_u(&self) -> Option<u32> {
        self.params.get("GSU").and_then(|v| v.parse().ok())
    }
}
