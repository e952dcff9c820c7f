//! Test support for rocpath's crates: where the shared real-data fixtures are, and readers for
//! their reference answers (`manifest.tsv`, `*.kernels.tsv`, `*.mnemonics.tsv`).
//!
//! The fixtures live outside the repository (`../shared` beside the checkout, or the folder
//! named by `ROCPATH_SHARED`). A user's clone does not have them, so every test that needs them
//! calls [`fixture_dir`] (or [`codeobjects_dir`]) and returns early, saying so, when it is
//! `None` — except under CI (`CI` set), where the data must be there and its absence fails the
//! test.

pub mod bundle;
pub mod docs;
pub mod git;
pub mod kpack;
pub mod rocpd;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The shared data folder: `$ROCPATH_SHARED`, else `<workspace root>/../shared`, if it exists.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ROCPATH_SHARED") {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?.parent()?;
    let p = root.parent()?.join("shared");
    p.is_dir().then_some(p)
}

/// `shared/fixtures/codeobjects`, if present. Prints a skip note when absent, or fails the
/// test under CI (`CI` set), where the shared data must be there.
pub fn codeobjects_dir() -> Option<PathBuf> {
    let d = shared_dir()
        .map(|s| s.join("fixtures").join("codeobjects"))
        .filter(|d| d.is_dir());
    if d.is_none() {
        missing("shared/fixtures/codeobjects not found (set ROCPATH_SHARED)");
    }
    d
}

/// The Debian corpus that `../shared/tools/fetch-debian-rocm.sh` fills (`ROCPATH_CORPUS`, else
/// `~/.cache/rocpath-corpus`): `debs/` and `unpacked/<package>/`.
pub fn corpus_root() -> Option<PathBuf> {
    std::env::var_os("ROCPATH_CORPUS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/rocpath-corpus")))
}

/// `rel` inside the unpacked Debian package `package` of the corpus, if present. Prints a skip
/// note when absent, or fails the test under CI (`CI` set), where `.ci/run` fetches it.
pub fn corpus_path(package: &str, rel: &str) -> Option<PathBuf> {
    let d = corpus_root()
        .map(|r| r.join("unpacked").join(package).join(rel))
        .filter(|d| d.exists());
    if d.is_none() {
        missing(&format!(
            "Debian {package} not unpacked in ROCPATH_CORPUS (../shared/tools/fetch-debian-rocm.sh)"
        ));
    }
    d
}

/// Something a test needs is absent (shared data, the Debian corpus, a tool such as LLVM 22 or
/// git): a skip note, or under CI (`CI` set), where `.ci/run` provides all of them, a failure.
/// The one way a test skips; a test that cannot run under CI is `#[ignore]`d with its reason.
#[allow(clippy::panic)] // test support: failing the calling test is the point
pub fn missing(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{why}, and CI is set: the shared data must be present");
    }
    skip(why);
}

/// Prints why a test is skipping.
#[allow(clippy::print_stderr)]
fn skip(why: &str) {
    eprintln!("skipping: {why}");
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

/// One row of `manifest.tsv`, as a column-name → value map.
pub type Row = BTreeMap<String, String>;

/// Reads a TSV file with a header line into rows.
pub fn read_tsv(path: &Path) -> std::io::Result<Vec<Row>> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or_default()
        .split('\t')
        .map(str::to_string)
        .collect();
    Ok(lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split('\t').map(str::to_string))
                .collect()
        })
        .collect())
}

/// Reads a header-less `mnemonic<TAB>count` histogram.
pub fn read_histogram(path: &Path) -> std::io::Result<BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let (m, c) = l.split_once('\t')?;
            Some((m.to_string(), c.trim().parse().ok()?))
        })
        .collect())
}

/// Whether a command is on PATH (for tests that compare with LLVM's tools). A test that needs
/// it calls [`missing`] when it is not.
pub fn have_tool(name: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false)
}

/// `shared/fixtures/<name>` (e.g. `mi25-runs`, `ollama-runs/mi25-vega64`), if present. Prints a
/// skip note when absent.
pub fn fixture_dir(name: &str) -> Option<PathBuf> {
    let d = shared_dir()
        .map(|s| s.join("fixtures").join(name))
        .filter(|d| d.is_dir());
    if d.is_none() {
        missing(&format!(
            "shared/fixtures/{name} not found (set ROCPATH_SHARED)"
        ));
    }
    d
}

/// Every file under `dir`, depth first (an unreadable folder is left out).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}
