//! Lane comparisons (A/B/C…): the same workload under different settings, GPUs or library
//! paths, measured run by run and compared with statistics that say how sure the difference is.
//!
//! | module | does |
//! |---|---|
//! | [`stats`] | quantiles, population/sample stdev, seeded bootstrap CI of the ratio of medians, Mann-Whitney U |
//! | [`summary`] | lane files (tolerant JSONL) → per-lane statistics and comparisons with evidence |
//! | [`run`] | interleaved real runs: commands through the case runner, or an Ollama endpoint |
//! | [`client`] | the streaming `/api/generate` client |

pub mod client;
pub mod run;
pub mod stats;
pub mod summary;

pub use summary::{Metric, Summary};

/// Bootstrap resamples used by default.
pub const BOOTSTRAP_ITERATIONS: usize = 10_000;

/// The fixed bootstrap seed (output is deterministic).
pub const SEED: u64 = 0x726f_6370_6174_6821;

/// The `rocpath.lanes` document ([`rocpath_docs::schema::LANES`], its types
/// [`rocpath_docs::lanes::LanesDoc`]): the summary, the folder the lane files were written to
/// (`lanes run`), and the lane files that could not be read.
pub fn document(
    summary: &Summary,
    out: Option<String>,
    errors: &[rocpath_ollama::input::ReadError],
) -> rocpath_docs::lanes::LanesDoc {
    rocpath_docs::lanes::LanesDoc {
        summary: summary.clone(),
        out,
        errors: errors.iter().map(Into::into).collect(),
    }
}

/// Reads lane files (`NAME=PATH[,PATH…]` or `PATH`), each streamed with bounded memory, and
/// summarizes them. Files that cannot be read (missing, not a regular file) are errors naming
/// the file; the other files are still read.
pub fn summarize_files(
    args: &[String],
    metric: &Metric,
    iters: usize,
) -> (Summary, Vec<rocpath_ollama::input::ReadError>) {
    let mut lanes = Vec::new();
    let mut errors = Vec::new();
    for a in args {
        let (name, paths) = summary::lane_arg(a);
        let (lane, errs) = summary::read_lane_files(&name, &paths, metric);
        lanes.push(lane);
        errors.extend(errs);
    }
    (summary::summarize(lanes, metric, iters, SEED), errors)
}
