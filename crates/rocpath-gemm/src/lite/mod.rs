//! hipBLASLt 7.1.1's kernel selection: TensileLite's host library over an install's hipBLASLt
//! catalogs, as `hipblasLtMatmulAlgoGetHeuristic` runs it.
//!
//! hipBLASLt ships its own Tensile fork (TensileLite) with its own catalogs
//! (`hipblaslt/library/TensileLibrary_lazy_<processor>.dat`, one file per type, transposition
//! and epilogue family, `TensileLiteLibrary_lazy_Mapping.dat`). Its selection differs from
//! rocBLAS's Tensile in ways that change the answer: a problem is described by five types (the
//! compute-input type too), bias, activation, scaling and amax flags that rows and solutions
//! test; tables are `GridBased` with keys (M, N, batch, K) searched group by group and K by
//! |K − K'| with the last tie winning; the query asks for the *top n*, appending across rows;
//! the default workspace is 0, so split-K (GSU > 1) kernels are refused; and when the tuned
//! table gives fewer than asked, hipBLASLt fills in from every solution of the type in an order
//! that is not the catalogs'.
//!
//! - [`problem`]: the matmul (types, compute type, transpositions, sizes, strides, bias,
//!   activation, count asked) → the `ContractionProblemGemm` hipBLASLt builds;
//! - [`library`]: the folder as hipBLASLt finds and loads it;
//! - [`eval`]: TensileLite's predicates, the workspace rules;
//! - [`matching`]: the 7.1 GridBased search, Equality, the binary search of other distances;
//! - [`select`]: the walk (`findTopSolutions`, `findBestSolution`, `findAllSolutions`);
//! - [`heuristic`]: the query — the table's answer, the XF32 → FP32 retry, the fill-in;
//! - [`batch`]: problem lists in the reference's columns.
//!
//! Sources are cited per rule: TensileLite headers by the line numbers of the reference's stored
//! texts (the nearest obtainable to 7.1.1; `SOURCES.txt` of the reference names each one), the
//! hipBLASLt glue by function and character offsets of the stored ROCm/rocm-libraries files.

pub mod batch;
pub mod eval;
pub mod heuristic;
pub mod library;
pub mod matching;
pub mod problem;
pub mod select;

pub use heuristic::{FillIn, Heuristic, Rank0, heuristic};

/// TensileLite's selection switches, read once per process by `TensileLite::Debug::Debug()`
/// (`tensilelite/src/Debug.cpp`, ROCm/rocm-libraries): the model follows the default
/// selection, so each of them, when set to a value that leaves that path, is named here.
pub const SWITCHES: [&str; 8] = [
    "TENSILE_NAIVE_SEARCH",
    "TENSILE_SOLUTION_SELECTION_METHOD",
    "TENSILE_PREDICTION_LIB",
    "TENSILE_SOLUTION_INDEX",
    "TENSILE_METRIC",
    "GRIDBASED_TOPSOLS",
    "TENSILE_GRIDBASED_KDTREE",
    "TENSILE_GRIDBASED_BATCH_EXP",
];

/// Why the environment `get` reads makes hipBLASLt's answer one this model cannot give: the
/// first TensileLite switch set to leave the default selection (`strtol(v, nullptr, 0)` as
/// `Debug.cpp` reads them; an index below 0 and an empty metric are the defaults).
pub fn unmodelled_switch(get: impl Fn(&str) -> Option<String>) -> Option<String> {
    SWITCHES.iter().find_map(|&name| {
        let v = get(name)?;
        let n = crate::rocblas::strtol0(&v);
        let leaves = match name {
            "TENSILE_SOLUTION_INDEX" => n >= 0,
            "TENSILE_METRIC" => !v.is_empty(),
            // Its default is not read from the environment: any value may change the list.
            "GRIDBASED_TOPSOLS" => true,
            _ => n != 0,
        };
        leaves.then(|| {
            format!(
                "{name}={v}: TensileLite reads it (Debug.cpp, Debug::Debug) and selects another way; \
                 rocpath models hipBLASLt's default selection only"
            )
        })
    })
}
pub use library::{LiteLibrary, LiteLoadError};
pub use problem::{Activation, ComputeType, HipType, LiteProblem, Matmul};
pub use select::{LiteWalk, Pick};

/// The library version these rules were read from.
pub const VERSION: &str = "hipBLASLt 7.1.1 (TensileLite)";
