//! Reading a case: find its files, stream each through the line splitter and the parsers into
//! a [`Collector`], hash the raw bytes on a second thread while parsing, and finish the report.

use crate::collect::Collector;
pub use crate::error::CaseError;
use crate::meta::META_FILE;
use crate::model::CaseReport;
use rocpath_logs::LineSplitter;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// Bytes read at a time.
pub const CHUNK: usize = 1 << 20;

/// The files of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseSource {
    /// Case name.
    pub name: String,
    /// The folder or file given.
    pub path: PathBuf,
    /// Metadata file (`case.json` or `<case>.meta.txt`).
    pub meta: Option<PathBuf>,
    /// Log files, in the order they are read.
    pub logs: Vec<PathBuf>,
}

/// Files of the research workflow derived from a case's own log (ripgrep extracts, filled
/// templates): reading them would count the same lines twice.
fn derived(name: &str) -> bool {
    name.ends_with("_extract.log") || name.ends_with(".trace_map.md") || name.ends_with(".md.tmp")
}

fn is_log(name: &str) -> bool {
    if derived(name) || name == META_FILE || name.ends_with(".meta.txt") {
        return false;
    }
    [".log", ".txt", ".out", ".err", ".trace", ".csv", ".jsonl"]
        .iter()
        .any(|e| name.ends_with(e))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

impl std::fmt::Display for CaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.message())
    }
}

/// The case at `path`: a case folder (`case.json` and logs, or just logs), or one log file
/// (with its `<case>.meta.txt` sidecar when there is one).
pub fn case_source(path: &Path) -> Result<CaseSource, CaseError> {
    let md = std::fs::metadata(path).map_err(CaseError::io(path))?;
    if md.is_dir() {
        let mut logs = Vec::new();
        let rd = std::fs::read_dir(path).map_err(CaseError::io(path))?;
        for ent in rd.flatten() {
            let p = ent.path();
            if p.is_file() && is_log(&file_name(&p)) {
                logs.push(p);
            }
        }
        logs.sort();
        let meta = path.join(META_FILE);
        Ok(CaseSource {
            name: file_name(path),
            path: path.to_path_buf(),
            meta: meta.is_file().then_some(meta),
            logs,
        })
    } else {
        let name = file_name(path);
        let stem = name
            .strip_suffix(".log")
            .or_else(|| name.strip_suffix(".txt"))
            .unwrap_or(&name)
            .to_string();
        let sidecar = path.with_file_name(format!("{stem}.meta.txt"));
        Ok(CaseSource {
            name: stem,
            path: path.to_path_buf(),
            meta: sidecar.is_file().then_some(sidecar),
            logs: vec![path.to_path_buf()],
        })
    }
}

/// The cases of a folder of cases: every sub-folder, and every log file directly in it. A
/// folder that is itself a case (it has `case.json`) is one case.
pub fn discover(dir: &Path) -> Result<Vec<CaseSource>, CaseError> {
    if dir.join(META_FILE).is_file() || dir.is_file() {
        return Ok(vec![case_source(dir)?]);
    }
    let rd = std::fs::read_dir(dir).map_err(CaseError::io(dir))?;
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = file_name(&p);
        if p.is_dir() {
            let c = case_source(&p)?;
            if c.meta.is_some() || !c.logs.is_empty() {
                out.push(c);
            }
        } else if name.ends_with(".log") && is_log(&name) {
            out.push(case_source(&p)?);
        }
    }
    Ok(out)
}

/// The cases `case read PATH` reads at `path`, each read on its own: a log file or a case
/// folder (`case.json`) is one case; a folder that holds several cases — `<case>.meta.txt`
/// sidecars (the research workflow's layout) or sub-folders that are cases — is read case by
/// case, as `case table` does, never merged into one; a folder of bare logs is one case.
pub fn cases_at(path: &Path) -> Result<Vec<CaseSource>, CaseError> {
    let md = std::fs::metadata(path).map_err(CaseError::io(path))?;
    if md.is_dir() && !path.join(META_FILE).is_file() && holds_cases(path)? {
        return discover(path);
    }
    Ok(vec![case_source(path)?])
}

/// Whether a folder holds cases of its own: a `<case>.meta.txt` sidecar, or a sub-folder with a
/// `case.json` or logs.
fn holds_cases(dir: &Path) -> Result<bool, CaseError> {
    for ent in std::fs::read_dir(dir)
        .map_err(CaseError::io(dir))?
        .flatten()
    {
        let p = ent.path();
        let name = file_name(&p);
        if p.is_file() && name.ends_with(".meta.txt") {
            return Ok(true);
        }
        if p.is_dir() {
            let c = case_source(&p)?;
            if c.meta.is_some() || !c.logs.is_empty() {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Streams one file into the collector. What was read before an error is kept.
pub fn read_file(c: &mut Collector, path: &Path) -> Result<(), CaseError> {
    let md = std::fs::metadata(path).map_err(CaseError::io(path))?;
    if let Some(what) = rocpath_budget::non_regular(md.file_type()) {
        return Err(CaseError::NotRegular {
            path: path.to_path_buf(),
            what,
        });
    }
    let idx = c.begin_file(&path.display().to_string());
    let mut input =
        rocpath_budget::input::open(path).map_err(|e| CaseError::io(path)(e.into_io()))?;
    let mut f = input.reader();
    let (to_hash, hash_rx) = mpsc::sync_channel::<Vec<u8>>(4);
    let (give_back, spare) = mpsc::sync_channel::<Vec<u8>>(8);
    let hasher = std::thread::spawn(move || {
        let mut h = Sha256::new();
        for chunk in hash_rx {
            h.update(&chunk);
            let _ = give_back.try_send(chunk);
        }
        let d = h.finalize();
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    });
    let mut splitter = LineSplitter::default();
    let mut bytes = 0u64;
    let mut err = None;
    loop {
        let mut buf = spare.try_recv().unwrap_or_default();
        buf.resize(CHUNK, 0);
        let mut n = 0;
        while n < CHUNK {
            match f.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    err = Some(CaseError::Read {
                        path: path.to_path_buf(),
                        offset: bytes + n as u64,
                        error,
                    });
                    break;
                }
            }
        }
        if n == 0 {
            break;
        }
        buf.truncate(n);
        bytes += n as u64;
        splitter.push(&buf, &mut |l| c.line(idx, &l));
        if to_hash.send(buf).is_err() || err.is_some() {
            break;
        }
    }
    drop(to_hash);
    splitter.finish(&mut |l| c.line(idx, &l));
    let sha = hasher.join().unwrap_or_default();
    c.end_file(
        idx,
        sha,
        bytes,
        splitter.lines(),
        splitter.truncated_lines(),
    );
    match err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

pub use crate::meta::MAX_META_BYTES;

/// Hashes a small file (metadata) and registers it.
fn register_meta(c: &mut Collector, path: &Path) -> Result<u32, CaseError> {
    let (bytes, _held) = rocpath_budget::input::read_bytes(
        path,
        &rocpath_budget::MemoryBudget::default(),
        MAX_META_BYTES,
        "a case's metadata",
    )
    .map_err(|e| CaseError::io(path)(e.into_io()))?;
    let idx = c.begin_file(&path.display().to_string());
    let d = Sha256::digest(&bytes);
    let sha = d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let lines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    c.end_file(idx, sha, bytes.len() as u64, lines, 0);
    Ok(idx)
}

/// Reads a case. Returns the report and the errors met (unreadable files); a report is always
/// produced from what could be read.
pub fn read_case(src: &CaseSource) -> (CaseReport, Vec<CaseError>) {
    let mut c = Collector::new();
    let mut errors = Vec::new();
    if let Some(m) = &src.meta {
        let parsed = if file_name(m) == META_FILE {
            crate::meta::read_json(m).map(|meta| {
                let mut lines = std::collections::BTreeMap::new();
                lines.insert("command".to_string(), 1);
                (meta, lines)
            })
        } else {
            crate::meta::read_txt(m)
        };
        match parsed.and_then(|(meta, lines)| register_meta(&mut c, m).map(|i| (meta, lines, i))) {
            Ok((meta, lines, idx)) => c.set_meta(meta, idx, lines),
            Err(e) => errors.push(e),
        }
    }
    for log in &src.logs {
        if let Err(e) = read_file(&mut c, log) {
            errors.push(e);
        }
    }
    let report = c.finish(&src.name, &src.path.display().to_string());
    (report, errors)
}

/// Reads a case from in-memory files (name, bytes): the same path as [`read_case`], for tests
/// and fuzzing.
pub fn read_bytes(name: &str, files: &[(&str, &[u8])]) -> CaseReport {
    let mut c = Collector::new();
    for (path, bytes) in files {
        let idx = c.begin_file(path);
        let mut s = LineSplitter::default();
        for chunk in bytes.chunks(4096) {
            s.push(chunk, &mut |l| c.line(idx, &l));
        }
        s.finish(&mut |l| c.line(idx, &l));
        let d = Sha256::digest(bytes);
        let sha = d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        c.end_file(idx, sha, bytes.len() as u64, s.lines(), s.truncated_lines());
    }
    c.finish(name, name)
}
