//! Catalog reads: which libraries and Tensile catalog files a process opened, from
//! `strace -ff [-tt] -e trace=openat,openat2 -o PREFIX` splits (one `PREFIX.<pid>` file per
//! process), and the *link* view that puts catalog reads next to kernel dispatches.
//!
//! A Tensile file opened is a catalog read, not a dispatch: rocBLAS reads every `.dat` of its
//! library folder (and the `.hsaco` code objects they reference) whether or not a GEMM ever runs.
//! The two kinds of evidence are kept apart, and the link says only what both show together.
//!
//! | module | does |
//! |---|---|
//! | [`line`] | one strace line → an `openat` call (timestamp, path, result), `unfinished`/`resumed` pairs |
//! | [`catalog`] | a path → library name or Tensile catalog file (type token, `.dat`/`.hsaco`, fallback) |
//! | [`report`] | per-process and total catalog-read summaries with evidence |
//! | [`link`] | catalog reads × kernel dispatches × rocBLAS trace → `link_status` |

pub mod catalog;
pub mod line;
pub mod link;
pub mod report;

pub use link::{Link, RocblasTrace};
pub use report::{StraceReport, read_files};

/// Largest strace split or rocBLAS trace log read whole (a 1.5 GB single line is refused, not
/// allocated).
pub const MAX_LOG_BYTES: u64 = 1 << 30;

/// The JSON document of `rocpath strace` ([`rocpath_docs::strace::StraceDoc`]): the catalog
/// reads, the rocBLAS traces, the link view between them and the kernel trace, and what could
/// not be read.
pub fn document(
    catalog: &StraceReport,
    rocblas_traces: &[RocblasTrace],
    link: &Link,
    errors: &[String],
) -> rocpath_docs::strace::StraceDoc {
    rocpath_docs::strace::StraceDoc {
        catalog: catalog.clone(),
        rocblas_traces: rocblas_traces.to_vec(),
        link: link.clone(),
        errors: errors.to_vec(),
    }
}
