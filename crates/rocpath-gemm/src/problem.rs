//! The problem the selection tree is asked about: Tensile's `ContractionProblem` in the GEMM
//! form rocBLAS builds (two free indices, one bound, one batch index), with every value the
//! predicates, properties and distances read.
//!
//! Source: ROCm/Tensile@be49885f `Tensile/Source/lib/source/ContractionProblem.cpp`
//! (`normalize` :836-936: free, batch and bound sizes, `problemSizes`, `maxProblemSize`,
//! `transposeC01`; `getIndexNames`/`getOperationIdentifier` :1138-1237;
//! `calcArithmeticIntensity` :1048-1080; `flopCount` :1115-1133) and
//! `include/Tensile/ContractionProblem.hpp` :847-866 (member defaults).

use rocpath_tensile::catalog::{DataType, ScalarValue};
use serde::{Deserialize, Serialize};

/// A transposition of an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// `N`: as stored.
    N,
    /// `T`: transposed.
    T,
    /// `C`: conjugate-transposed.
    C,
}

impl Op {
    /// Parses `N`, `T` or `C` (either case).
    pub fn parse(s: &str) -> Option<Op> {
        match s {
            "N" | "n" => Some(Op::N),
            "T" | "t" => Some(Op::T),
            "C" | "c" => Some(Op::C),
            _ => None,
        }
    }

    /// The letter.
    pub fn letter(self) -> char {
        match self {
            Op::N => 'N',
            Op::T => 'T',
            Op::C => 'C',
        }
    }
}

/// Tensile's performance metric (`PerformanceMetricTypes.hpp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Metric {
    /// `Auto`.
    Auto,
    /// `CUEfficiency`.
    CuEfficiency,
    /// `DeviceEfficiency` (the default).
    DeviceEfficiency,
    /// `ExperimentalGrid`.
    ExperimentalGrid,
    /// `ExperimentalDTree`.
    ExperimentalDTree,
}

/// What the caller describes: one GEMM, `D = alpha·op(A)·op(B) + beta·C`, column-major, as a
/// library hands it to Tensile (`RocblasContractionProblem`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gemm {
    /// Types of A, B, C, D.
    pub types: [DataType; 4],
    /// Type of alpha and beta (the compute type).
    pub compute: DataType,
    /// op(A), op(B).
    pub trans: [Op; 2],
    /// M, N, K.
    pub m: u64,
    /// N.
    pub n: u64,
    /// K (0 when alpha is 0: rocBLAS folds alpha = 0 into K = 0).
    pub k: u64,
    /// Batch count.
    pub batch: u64,
    /// Leading dimensions of A, B, C, D.
    pub ld: [u64; 4],
    /// Batch strides of A, B, C, D.
    pub batch_stride: [u64; 4],
    /// The value of beta (its category: 0, 1, -1 or other, as `value_category` gives it).
    pub beta: f64,
    /// The restriction alpha's value places (`toScalarValueEnum(alpha)`).
    pub alpha: ScalarValue,
}

/// Everything about the call that is not the shape: the handle's modes and the flags.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Modes {
    /// C and D are the same buffer.
    pub c_equals_d: bool,
    /// Strided-batched (pointer arithmetic) rather than arrays of pointers.
    pub strided_batched: bool,
    /// Atomics disallowed (`rocblas_atomics_not_allowed`) → deterministic mode.
    pub deterministic: bool,
    /// Performance metric.
    pub metric: Metric,
    /// `F32XdlMathOp`: `XFloat32` when XF32 is asked for f32.
    pub f32_xdl: DataType,
    /// `fp16AltImpl`, `fp16AltImplRound`, `stochasticRounding`.
    pub fp16_alt_impl: bool,
    /// `fp16AltImplRound`.
    pub fp16_alt_impl_round: bool,
    /// `stochasticRounding`.
    pub stochastic_rounding: bool,
    /// VALU forced for DGEMM (`ROCBLAS_INTERNAL_FORCE_VALU_FOR_DGEMM`).
    pub force_valu: bool,
    /// Workspace available, bytes.
    pub workspace: u64,
    /// The host library's selection switches (all off unless set).
    #[serde(skip_serializing_if = "Switches::is_off")]
    pub switches: Switches,
}

/// Tensile's selection switches, read once per process from the environment
/// (ROCm/Tensile@be49885f `Debug.cpp:185-216`; rocBLAS's own at `tensile_host.cpp:990-1004`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Switches {
    /// `TENSILE_NAIVE_SEARCH` non-zero: tables of the generic distances are searched entry by
    /// entry (`PropertyMatching.hpp:312-320, 505-574`).
    pub naive_search: bool,
    /// `TENSILE_METRIC`: the distance every table is loaded with, whatever its file says
    /// (`Serialization/MatchingLibrary.hpp:134-137`).
    pub metric: Option<String>,
    /// `TENSILE_SOLUTION_INDEX` when ≥ 0 (`MasterSolutionLibrary.hpp:124-143`).
    pub solution_index: Option<i64>,
    /// `ROCBLAS_TENSILE_GEMM_OVERRIDE_PATH` (`tensile_host.cpp:990-1004`).
    pub override_path: Option<String>,
}

impl Switches {
    /// True when no switch is set (the default selection).
    pub fn is_off(&self) -> bool {
        *self == Switches::default()
    }
}

/// Tensile's `ContractionProblem` for a GEMM, with its derived values.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// The GEMM.
    pub gemm: Gemm,
    /// Modes and flags.
    pub modes: Modes,
    /// `operationIdentifier` (`Contraction_l_Alik_Bljk_Cijk_Dijk`).
    pub operation: &'static str,
    /// High-precision accumulation: the compute type is wider than the input.
    pub hpa: bool,
    /// Strides of A, B, C, D: `[1, ld, batch stride]`.
    pub strides: [[u64; 3]; 4],
    /// `arithmeticIntensity`.
    pub arithmetic_intensity: f64,
}

impl Problem {
    /// Builds the problem as `ContractionProblem`'s constructor does for these indices.
    pub fn new(gemm: Gemm, modes: Modes) -> Problem {
        let hpa = gemm.compute.bytes() > gemm.types[0].bytes()
            || gemm.compute.bytes() > gemm.types[1].bytes();
        let strides = [0, 1, 2, 3].map(|t| [1, gemm.ld[t], gemm.batch_stride[t]]);
        let operation = operation_identifier(gemm.trans, &gemm.types, gemm.beta);
        let mut p = Problem {
            gemm,
            modes,
            operation,
            hpa,
            strides,
            arithmetic_intensity: 0.0,
        };
        p.arithmetic_intensity = p.intensity();
        p
    }

    /// `freeSizeA(0)` = M.
    pub fn free_size_a(&self) -> u64 {
        self.gemm.m
    }

    /// `freeSizeB(0)` = N.
    pub fn free_size_b(&self) -> u64 {
        self.gemm.n
    }

    /// `batchSize(0)`.
    pub fn batch_size(&self) -> u64 {
        self.gemm.batch
    }

    /// `boundSize(0)` = K.
    pub fn bound_size(&self) -> u64 {
        self.gemm.k
    }

    /// `size(i)`: C's sizes (M, N, batch), then the bound sizes (K); `None` past them.
    pub fn size(&self, i: u64) -> Option<u64> {
        match i {
            0 => Some(self.gemm.m),
            1 => Some(self.gemm.n),
            2 => Some(self.gemm.batch),
            3 => Some(self.gemm.k),
            _ => None,
        }
    }

    /// `maxProblemSize`: the largest free or bound size (batch not included).
    pub fn max_problem_size(&self) -> u64 {
        self.gemm.m.max(self.gemm.n).max(self.gemm.k)
    }

    /// `flopCount`: 2 · packing · M · N · batch · K (wrapping as `size_t` does).
    pub fn flop_count(&self) -> u64 {
        let g = &self.gemm;
        (2 * g.types[0].packing())
            .wrapping_mul(g.m)
            .wrapping_mul(g.n)
            .wrapping_mul(g.batch)
            .wrapping_mul(g.k)
    }

    /// `d().totalLogicalElements()`: M · N · batch.
    pub fn d_elements(&self) -> u64 {
        self.gemm
            .m
            .wrapping_mul(self.gemm.n)
            .wrapping_mul(self.gemm.batch)
    }

    fn intensity(&self) -> f64 {
        let g = &self.gemm;
        let problem =
            g.m.wrapping_mul(g.n)
                .wrapping_mul(g.batch)
                .wrapping_mul(g.k);
        let mut gflop = 2.0 * problem as f64 * 1e-9;
        // A's and B's sizes are {M, K, batch} and {K, N, batch} in some order.
        let a = g.m.wrapping_mul(g.k).wrapping_mul(g.batch);
        let b = g.k.wrapping_mul(g.n).wrapping_mul(g.batch);
        let mut c = g.m.wrapping_mul(g.n).wrapping_mul(g.batch);
        if g.beta != 0.0 {
            gflop += 2.0 * c as f64 * 1e-9;
            c = c.wrapping_mul(2);
        }
        let gbyte = (a
            .wrapping_mul(g.types[0].bytes())
            .wrapping_add(b.wrapping_mul(g.types[1].bytes()))
            .wrapping_add(c.wrapping_mul(g.types[2].bytes()))) as f64
            * 1e-9;
        gflop / gbyte
    }

    /// `betaRestriction`, from the beta value (`toScalarValueEnum(beta)`).
    pub fn beta_restriction(&self) -> ScalarValue {
        ScalarValue::of(self.gemm.beta)
    }
}

/// `getOperationIdentifier` for a GEMM: index names i, j (free), k (batch), l (bound); A is
/// `ilk` or `lik` (transposed), B `ljk` or `jlk`, a conjugated complex operand gets `C`; C's
/// names are D's.
pub fn operation_identifier(trans: [Op; 2], types: &[DataType; 4], _beta: f64) -> &'static str {
    const NAMES: [&str; 16] = [
        "Contraction_l_Ailk_Bljk_Cijk_Dijk",
        "Contraction_l_Ailk_BljkC_Cijk_Dijk",
        "Contraction_l_Ailk_Bjlk_Cijk_Dijk",
        "Contraction_l_Ailk_BjlkC_Cijk_Dijk",
        "Contraction_l_AilkC_Bljk_Cijk_Dijk",
        "Contraction_l_AilkC_BljkC_Cijk_Dijk",
        "Contraction_l_AilkC_Bjlk_Cijk_Dijk",
        "Contraction_l_AilkC_BjlkC_Cijk_Dijk",
        "Contraction_l_Alik_Bljk_Cijk_Dijk",
        "Contraction_l_Alik_BljkC_Cijk_Dijk",
        "Contraction_l_Alik_Bjlk_Cijk_Dijk",
        "Contraction_l_Alik_BjlkC_Cijk_Dijk",
        "Contraction_l_AlikC_Bljk_Cijk_Dijk",
        "Contraction_l_AlikC_BljkC_Cijk_Dijk",
        "Contraction_l_AlikC_Bjlk_Cijk_Dijk",
        "Contraction_l_AlikC_BjlkC_Cijk_Dijk",
    ];
    let conj = |op: Op, t: DataType| {
        op == Op::C && matches!(t, DataType::ComplexFloat | DataType::ComplexDouble)
    };
    // Bits, high to low: A transposed (`lik`), A conjugated, B transposed (`jlk`), B conjugated.
    let bit = |b: bool, v: usize| if b { v } else { 0 };
    NAMES[bit(trans[0] != Op::N, 8)
        + bit(conj(trans[0], types[0]), 4)
        + bit(trans[1] != Op::N, 2)
        + bit(conj(trans[1], types[1]), 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_follow_the_transpositions() {
        let f = [DataType::Float; 4];
        let z = [DataType::ComplexDouble; 4];
        assert_eq!(
            operation_identifier([Op::N, Op::N], &f, 1.0),
            "Contraction_l_Ailk_Bljk_Cijk_Dijk"
        );
        assert_eq!(
            operation_identifier([Op::T, Op::N], &f, 0.0),
            "Contraction_l_Alik_Bljk_Cijk_Dijk"
        );
        assert_eq!(
            operation_identifier([Op::C, Op::T], &f, 1.0),
            "Contraction_l_Alik_Bjlk_Cijk_Dijk"
        );
        assert_eq!(
            operation_identifier([Op::C, Op::C], &z, 1.0),
            "Contraction_l_AlikC_BjlkC_Cijk_Dijk"
        );
    }
}
