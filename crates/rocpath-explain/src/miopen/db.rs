//! MIOpen's databases: which file a device reads (exact `gfxNNN_CU` name, else the nearest CU
//! count), the text find-db (`key=item;item…`, legacy 1.0 and 2.0 items) and the SQLite perf-db.
//! Files may be bzip2-compressed as MIOpen's sources ship them (`….bz2`).
//!
//! Sources: ROCm/MIOpen@2d1fd997 `src/include/miopen/handle.hpp:225-241` (basename),
//! `src/find_db.cpp:124-197` (find-db file choice), `src/include/miopen/execution_context.hpp:183-264`
//! (perf-db file choice), `src/db_record.cpp:90-164` (record parsing, legacy items),
//! `src/include/miopen/perf_field.hpp:48-74` (2.0 item fields).

use serde::Serialize;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// SQLite refused the file.
    #[error("{path}: SQLite: {message}")]
    Sqlite {
        /// The file.
        path: String,
        /// What SQLite said.
        message: String,
    },
}

pub use rocpath_miopen::dbname::{Choice, cu_of_stem, db_basename};
pub use rocpath_miopen::findrec::{FindItem, parse_record};

/// The database file a device would read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DbFile {
    /// Path on disk (possibly `.bz2`).
    pub path: PathBuf,
    /// File name without `.bz2`, as MIOpen would see it installed.
    pub name: String,
    /// How it was chosen.
    pub choice: Choice,
    /// CU count the file name encodes.
    pub cus: Option<u32>,
    /// The basename the device asked for (`gfx900_64`).
    pub wanted: String,
}

/// Installed names (without `.bz2`) of the files of a folder, sorted, with their paths.
fn installed(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let p = e.path();
                    let n = p.file_name()?.to_str()?;
                    Some((n.strip_suffix(".bz2").unwrap_or(n).to_string(), p))
                })
                .collect()
        })
        .unwrap_or_default();
    // MIOpen iterates in directory order; sort for a deterministic answer.
    v.sort();
    v
}

fn choose_in(dir: &Path, db_id: &str, cus: u32, exact: &str, suffix: &str) -> Option<DbFile> {
    let files = installed(dir);
    let (name, choice, c) = rocpath_miopen::dbname::choose(
        files.iter().map(|(n, _)| n.as_str()),
        db_id,
        cus,
        exact,
        suffix,
    )?;
    let path = files.iter().find(|(n, _)| n == name)?.1.clone();
    Some(DbFile {
        path,
        name: name.to_string(),
        choice,
        cus: c,
        wanted: db_basename(db_id, cus),
    })
}

/// The system find-db a device with `db_id` (e.g. `gfx900`) and `cus` CUs reads from `dir`.
pub fn choose_find_db(dir: &Path, db_id: &str, cus: u32, backend: &str) -> Option<DbFile> {
    let exact = format!("{}.{backend}.fdb.txt", db_basename(db_id, cus));
    choose_in(dir, db_id, cus, &exact, ".fdb.txt")
}

/// The system SQLite perf-db (`<basename>.db`, else nearest CU count).
pub fn choose_perf_db(dir: &Path, db_id: &str, cus: u32) -> Option<DbFile> {
    let exact = format!("{}.db", db_basename(db_id, cus));
    choose_in(dir, db_id, cus, &exact, ".db")
}

/// Largest database read or decompressed.
pub const MAX_DB_BYTES: u64 = 4 << 30;

/// Most a `.bz2` database may expand (MIOpen's expand about 20×).
pub const MAX_BZ2_RATIO: u64 = 200;

/// Reads a file whole, decompressing `.bz2`.
///
/// MIOpen's sources ship its databases bzip2-compressed, and decompressing a find-db costs
/// far more than looking problems up in it. The decompressed bytes are therefore kept in a
/// cache folder (`$ROCPATH_CACHE`, else `$XDG_CACHE_HOME/rocpath`, else `~/.cache/rocpath`),
/// under the sha256 of the compressed file, and reused while that file is unchanged. The
/// cache is written atomically (temporary file, then rename); a missing or unwritable cache
/// only costs the decompression.
pub fn read_maybe_bz2(path: &Path) -> Result<Vec<u8>, DbError> {
    let io = |source| DbError::Io {
        path: path.display().to_string(),
        source,
    };
    let (raw, _held) = rocpath_budget::input::read_bytes(
        path,
        &rocpath_budget::MemoryBudget::default(),
        MAX_DB_BYTES,
        "a MIOpen database",
    )
    .map_err(|e| io(std::io::Error::other(e.to_string())))?;
    if !raw.starts_with(b"BZh") {
        return Ok(raw);
    }
    let cached = cache_dir().map(|d| d.join("bz2").join(format!("{}.raw", sha256_hex(&raw))));
    if let Some(c) = &cached {
        if let Ok(bytes) = std::fs::read(c) {
            return Ok(bytes);
        }
    }
    // A bzip2 bomb is cut: MIOpen's databases expand about 20 times; more than
    // MAX_BZ2_RATIO times, or past MAX_DB_BYTES, is refused.
    let cap = (raw.len() as u64)
        .saturating_mul(MAX_BZ2_RATIO)
        .min(MAX_DB_BYTES);
    let mut out = Vec::with_capacity((raw.len() * 24).min(cap as usize));
    bzip2::read::MultiBzDecoder::new(raw.as_slice())
        .take(cap.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(io)?;
    if out.len() as u64 > cap {
        return Err(io(std::io::Error::other(format!(
            "expands past {cap} bytes ({MAX_BZ2_RATIO}× its size or {MAX_DB_BYTES} bytes): not a MIOpen database (a decompression bomb?)"
        ))));
    }
    if let Some(c) = cached {
        if write_atomic(&c, &out).is_ok() {
            if let Some(dir) = c.parent() {
                evict(dir, MAX_CACHE_BYTES, &c);
            }
        }
    }
    Ok(out)
}

fn cache_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("ROCPATH_CACHE") {
        return (!d.is_empty()).then(|| std::path::PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(std::path::PathBuf::from(d).join("rocpath"));
    }
    std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache").join("rocpath"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Most the cache of decompressed databases holds; past it the least recently used go.
pub const MAX_CACHE_BYTES: u64 = 2 << 30;

/// Removes the least recently modified `.raw` files of `dir` until the rest fit `max` bytes,
/// never `keep` (the file just written).
fn evict(dir: &Path, max: u64, keep: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, u64, std::path::PathBuf)> = rd
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            let md = e.metadata().ok()?;
            (md.is_file() && p.extension().is_some_and(|x| x == "raw"))
                .then(|| (md.modified().unwrap_or(std::time::UNIX_EPOCH), md.len(), p))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    files.sort();
    for (_, len, p) in files {
        if total <= max {
            break;
        }
        if p != keep && std::fs::remove_file(&p).is_ok() {
            total = total.saturating_sub(len);
        }
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("no parent"))?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// A text find-db held in memory: one buffer and a key index into it.
pub struct FindDb {
    text: String,
    index: HashMap<Box<str>, (usize, usize, u64)>,
    /// Lines that were not `key=record`.
    pub bad_lines: u64,
    /// Number of records.
    pub records: usize,
}

impl FindDb {
    /// Reads a `.fdb.txt` or `.fdb.txt.bz2` file.
    pub fn open(path: &Path) -> Result<FindDb, DbError> {
        let bytes = read_maybe_bz2(path)?;
        Ok(FindDb::from_bytes(bytes))
    }

    /// Indexes the text of a find-db (invalid UTF-8 is replaced, not fatal).
    pub fn from_bytes(bytes: Vec<u8>) -> FindDb {
        let text = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        let mut index = HashMap::with_capacity(text.len() / 300 + 16);
        let mut bad_lines = 0;
        let bytes = text.as_bytes();
        let mut start = 0usize;
        let mut n = 0u64;
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            n += 1;
            let mut line_end = end;
            if line_end > start && bytes[line_end - 1] == b'\r' {
                line_end -= 1;
            }
            let line = &bytes[start..line_end];
            if !line.is_empty() && line[0] != b'#' {
                match memchr::memchr(b'=', line) {
                    // Slicing at ASCII bytes keeps `text` on char boundaries.
                    Some(eq) if eq > 0 => {
                        // The first record of a key wins (a later duplicate is ignored).
                        index.entry(text[start..start + eq].into()).or_insert((
                            start + eq + 1,
                            line_end,
                            n,
                        ));
                    }
                    _ => bad_lines += 1,
                }
            }
            start = end + 1;
        }
        let records = index.len();
        FindDb {
            text,
            index,
            bad_lines,
            records,
        }
    }

    /// The raw record of a key and its 1-based line.
    pub fn raw(&self, key: &str) -> Option<(&str, u64)> {
        self.index
            .get(key)
            .and_then(|&(a, b, line)| self.text.get(a..b).map(|s| (s, line)))
    }

    /// The parsed record of a key.
    pub fn record(&self, key: &str) -> Option<(Vec<FindItem>, u64)> {
        self.raw(key).map(|(r, l)| (parse_record(r), l))
    }

    /// Every key (unordered).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.index.keys().map(|k| &**k)
    }
}

/// One perf-db row: a tuned `PerformanceConfig` of a solver for the problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PerfRow {
    /// Solver.
    pub solver: String,
    /// The serialized performance config.
    pub params: String,
}

/// A SQLite perf-db. A compressed file is decompressed into memory first.
pub struct PerfDb {
    conn: rusqlite::Connection,
}

impl PerfDb {
    /// Opens `.db` or `.db.bz2` read-only.
    pub fn open(path: &Path) -> Result<PerfDb, DbError> {
        let sq = |e: rusqlite::Error| DbError::Sqlite {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let bytes = read_maybe_bz2(path)?;
        let mut conn = rusqlite::Connection::open_in_memory().map_err(sq)?;
        conn.deserialize_read_exact(
            rusqlite::MAIN_DB,
            std::io::Cursor::new(&bytes),
            bytes.len(),
            true,
        )
        .map_err(sq)?;
        Ok(PerfDb { conn })
    }

    /// The tuned configs stored for a problem (`config` row matched on every column of
    /// `ProblemDescription::Visit`, then `perf_db` rows of that config).
    pub fn lookup(&self, p: &rocpath_miopen::Problem) -> Result<Vec<PerfRow>, rusqlite::Error> {
        let cols = p.perf_db_columns();
        let mut sql = String::from(
            "SELECT perf_db.solver, perf_db.params FROM config JOIN perf_db ON perf_db.config = config.id WHERE config.layout = ?1 AND config.data_type = ?2 AND config.direction = ?3",
        );
        for (i, (name, _)) in cols.iter().enumerate() {
            sql.push_str(&format!(" AND config.{name} = ?{}", i + 4));
        }
        sql.push_str(" ORDER BY perf_db.solver");
        let mut stmt = self.conn.prepare(&sql)?;
        let mut params: Vec<Box<dyn rusqlite::ToSql>> = vec![
            Box::new(p.layouts[0].clone()),
            Box::new(p.types_key()),
            Box::new(p.direction.to_string()),
        ];
        for (_, v) in cols {
            params.push(Box::new(v));
        }
        let rows = stmt.query_map(rusqlite::params_from_iter(params.iter()), |r| {
            Ok(PerfRow {
                solver: r.get(0)?,
                params: r.get(1)?,
            })
        })?;
        rows.collect()
    }
}

#[cfg(test)]
mod tests {

    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn find_db_index() {
        let db = FindDb::from_bytes(b"a=S:1,0,x\nnoequals\r\nb=T:2,0,y\r\na=dup:3,0,z\n".to_vec());
        assert_eq!(db.records, 2);
        assert_eq!(db.bad_lines, 1);
        assert_eq!(db.raw("a"), Some(("S:1,0,x", 1)));
        assert_eq!(db.raw("b"), Some(("T:2,0,y", 3)));
        assert_eq!(db.raw("c"), None);
    }

    #[test]
    fn file_choice() {
        let d = std::env::temp_dir().join(format!("rocpath-explain-db-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        for n in [
            "gfx900_56.HIP.fdb.txt.bz2",
            "gfx900_64.HIP.fdb.txt.bz2",
            "gfx90878.HIP.fdb.txt",
            "gfx900_56.db.bz2",
            "gfx906_60.OpenCL.fdb.txt",
        ] {
            std::fs::write(d.join(n), b"").unwrap();
        }
        let f = choose_find_db(&d, "gfx900", 64, "HIP").unwrap();
        assert_eq!(
            (f.name.as_str(), f.choice),
            ("gfx900_64.HIP.fdb.txt", Choice::Exact)
        );
        let f = choose_find_db(&d, "gfx900", 60, "HIP").unwrap();
        assert_eq!(
            (f.name.as_str(), f.choice),
            ("gfx900_56.HIP.fdb.txt", Choice::NearestCu)
        );
        let f = choose_find_db(&d, "gfx908", 110, "HIP").unwrap();
        assert_eq!((f.cus, f.choice), (Some(120), Choice::NearestCu));
        let f = choose_find_db(&d, "gfx906", 60, "HIP").unwrap();
        assert_eq!(f.choice, Choice::AlternateBackend);
        assert!(choose_find_db(&d, "gfx1201", 32, "HIP").is_none());
        let p = choose_perf_db(&d, "gfx900", 64).unwrap();
        assert_eq!(
            (p.name.as_str(), p.choice),
            ("gfx900_56.db", Choice::NearestCu)
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn the_cache_keeps_the_newest_within_its_bound() {
        let d = tempfile::tempdir().unwrap();
        for n in ["a", "b", "c"] {
            std::fs::write(d.path().join(format!("{n}.raw")), [0u8; 100]).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::fs::write(d.path().join("other.txt"), [0u8; 500]).unwrap();
        super::evict(d.path(), 150, &d.path().join("c.raw"));
        let mut left: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["c.raw", "other.txt"]);
    }
}
