//! MIOpen, as rocpath models it: one convolution problem type and its printed forms, the
//! MIOpenDriver command line, the solver registry, database file names and find-db records —
//! shared by the log readers, the case reports and the explanations.
//!
//! | module | what it models |
//! |---|---|
//! | [`problem`] | `conv::ProblemDescription`: [`Problem`], find-db / network-config / perf-db keys |
//! | [`driver`] | `MIOpenDriver conv…` command lines: problems per direction, `-S`, `-s` |
//! | [`registry`] | solver id ↔ name (`SolverDbId`), as logged |
//! | [`dbname`] | database file names (`gfx900_64.HIP.fdb.txt`, CU suffixes) and the file a device reads |
//! | [`findrec`] | find-db records (legacy 1.0 and 2.0 items) |
//! | [`tunanet`] | the immediate fallback's network: its files, the problem's features, the solvers' order |
//!
//! ```
//! use rocpath_miopen::{DriverCommand, Problem};
//! let d = DriverCommand::parse_line("conv -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1")?;
//! let key = d.problems[0].fdb_key();
//! assert_eq!(key, "64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F");
//! assert_eq!(Problem::from_fdb_key(&key)?, d.problems[0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// A convolution problem and its keys: the type the documents print, defined in
/// `rocpath-docs` (`conv`).
pub use rocpath_docs::conv as problem;
/// Database file names (the `rocpath-miopen-names` crate, which the file readers use alone).
pub use rocpath_miopen_names as dbname;
pub mod driver;
pub mod findrec;
pub mod model;
pub mod registry;
pub mod select;
pub mod tunanet;

pub use driver::{DriverCommand, DriverError, DriverPath, Strictness};
pub use problem::{DataType, Direction, KeyError, Problem};

/// The MIOpen source the models and citations of this crate were read from.
pub const MIOPEN_SOURCE: &str = "ROCm/MIOpen@2d1fd997";
