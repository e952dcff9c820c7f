//! One module per command. Each takes its parsed arguments and the printer and returns the
//! exit status.

mod arch;
mod case;
mod check;
mod completions;
mod diff;
mod explain;
mod fleet;
mod follow;
mod gates;
mod gemm;
mod inventory;
mod isa;
mod lanes;
mod ledger;
mod loads;
mod ollama;
mod site;
mod strace;
mod study;
mod survey;
mod trace;

use crate::cli::{Command, ScanArgs};
use crate::output::{Printer, Status};
use rocpath_sources::{Limits, MemoryBudget};
use std::sync::OnceLock;

pub fn run(cmd: Command, p: &Printer) -> anyhow::Result<Status> {
    match cmd {
        Command::Arch(a) => arch::run(a, p),
        Command::Inventory(a) => inventory::run(a, p),
        Command::Check(a) => check::run(a, p),
        Command::Diff(a) => diff::run(a, p),
        Command::Isa(a) => isa::run(a, p),
        Command::Trace(a) => trace::run(a, p),
        Command::Ollama(a) => ollama::run(a, p),
        Command::Strace(a) => strace::run(a, p),
        Command::Lanes(a) => lanes::run(a, p),
        Command::Ledger(a) => ledger::run(a, p),
        Command::Site(a) => site::run(a, p),
        Command::Case(a) => case::run(a, p),
        Command::Explain(a) => explain::run(a, p),
        Command::Gates(a) => gates::run(a, p),
        Command::Provenance(a) => gates::run_provenance(a, p),
        Command::Survey(a) => survey::run(a, p),
        Command::Fleet(a) => fleet::run(a, p),
        Command::Loads(a) => loads::run(a, p),
        Command::Follow(a) => follow::run(a, p),
        Command::Study(a) => study::run(a, p),
        Command::Completions(a) => completions::run(a, p),
        Command::Man(a) => completions::run_man(a, p),
    }
}

/// The run's one memory budget (`--max-memory`), shared by every command step that reads.
pub fn budget(p: &Printer) -> MemoryBudget {
    static BUDGET: OnceLock<MemoryBudget> = OnceLock::new();
    BUDGET
        .get_or_init(|| MemoryBudget::new(p.global.max_memory))
        .clone()
}

/// Limits from the scan flags and the run's memory budget.
pub fn limits(s: &ScanArgs, p: &Printer) -> Limits {
    Limits {
        max_decompressed: s.max_decompressed,
        max_member_buffer: s.max_member_buffer,
        memory: budget(p),
        hashing: hashing(s.hash, s.no_hash_cache),
        ..Limits::default()
    }
}

/// The hashing policy: off unless asked for; through the hash cache unless told not to.
pub fn hashing(hash: bool, no_cache: bool) -> rocpath_sources::Hashing {
    use rocpath_sources::{HashCache, Hashing};
    match (hash, no_cache) {
        (false, _) => Hashing::Off,
        (true, true) => Hashing::Compute,
        (true, false) => Hashing::Cached(std::sync::Arc::new(HashCache::open_default())),
    }
}

/// Writes back the hash cache of a run (a failure is a warning: the run's hashes stand).
pub fn save_hashes(l: &Limits, p: &Printer) {
    if let rocpath_sources::Hashing::Cached(c) = &l.hashing {
        if let Err(e) = c.save() {
            p.note(&format!("warning: could not write the hash cache: {e}"));
        }
    }
}

/// Refuses a target id whose processor the architecture table does not know.
pub fn known_target(t: &rocpath_arch::TargetId) -> anyhow::Result<()> {
    if rocpath_arch::target(&t.processor).is_none() {
        anyhow::bail!(
            "unknown gfx target {:?} (see `rocpath arch`)",
            t.to_string()
        );
    }
    Ok(())
}

/// Checks that every path exists before a long scan starts.
pub fn check_paths(paths: &[std::path::PathBuf]) -> anyhow::Result<()> {
    for p in paths {
        if std::fs::symlink_metadata(p).is_err() {
            anyhow::bail!("{}: no such file or directory", p.display());
        }
    }
    Ok(())
}

/// The paths given, and the site-packages folders of `--python PYTHON`.
pub fn with_python(
    paths: &[std::path::PathBuf],
    python: Option<&std::path::Path>,
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    let mut all = paths.to_vec();
    if let Some(py) = python {
        let sp = rocpath_inventory::python::site_packages_of(py).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot ask it for its site-packages folders: {e}",
                py.display()
            )
        })?;
        if sp.is_empty() {
            anyhow::bail!(
                "{}: reports no site-packages folder that exists",
                py.display()
            );
        }
        all.extend(sp);
    }
    Ok(all)
}
