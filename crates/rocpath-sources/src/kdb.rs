//! MIOpen kernel databases: the system `*.kdb` files MIOpen ships per device and the user
//! `*.ukdb` it writes after compiling a kernel (`~/.cache/miopen/<version>/`).
//!
//! The format (ROCm/MIOpen@2d1fd997 `src/include/miopen/kern_db.hpp:41-63` and `:104-150`,
//! `src/bz2.cpp:62-95`, `src/kern_db.cpp:61-68`): SQLite, table `kern_db` with `kernel_name`
//! (the object file name, `naive_conv.cpp.o`), `kernel_args` (build options), `kernel_blob`,
//! `kernel_hash` (md5 of the code object, lower-case hex) and `uncompressed_size` (0 when the
//! blob is stored as is, else the size of the bzip2-compressed code object). MIOpen disables a
//! database whose table lacks `kernel_name`, `kernel_args` or `kernel_blob`, and refuses a
//! kernel whose md5 differs ("Possible database corruption").
//!
//! Reading: a file is opened read-only and immutable (no journal, no lock, nothing written);
//! an archive member is deserialized from memory, its bytes reserved from the budget first.
//! Rows are listed with their sizes only (names cut at 1 KiB); each stored blob and each
//! declared uncompressed size is reserved from [`Limits::memory`] before it is read, the
//! declared size is bounded by [`Limits::max_decompressed`] and the bzip2 stream is never
//! allowed to produce more than it declares. Each kernel goes through the ordinary dispatch
//! with the chain link `kdb:<kernel_name>#<row id>`; a bad row is reported and the next read.
//!
//! [`Limits::memory`]: crate::Limits::memory
//! [`Limits::max_decompressed`]: crate::Limits::max_decompressed

use crate::{Ctx, Found, Origin, SourceError, scan_bytes};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::io::Read;
use std::path::Path;

/// The first bytes of every SQLite 3 database.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Whether a file name is a MIOpen kernel database (`.kdb` system, `.ukdb` user).
pub fn is_kdb_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with(".kdb") || n.ends_with(".ukdb")
}

fn sqlite_error(e: rusqlite::Error) -> SourceError {
    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted) {
        return SourceError::Format {
            offset: 0,
            msg: format!(
                "MIOpen kernel database: its queries ran past {} s and were stopped (a view \
                 that never ends?): check it with `sqlite3 FILE .schema`",
                SQL_DEADLINE.as_secs()
            ),
        };
    }
    SourceError::Format {
        offset: 0,
        msg: format!("MIOpen kernel database: SQLite: {e}"),
    }
}

/// Opens a SQLite file read-only and immutable: no journal, no lock, no `-wal`/`-shm` file
/// created beside it.
pub fn open_immutable(path: &Path) -> rusqlite::Result<Connection> {
    let uri = format!("file:{}?mode=ro&immutable=1", uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags)?;
    bound_time(&conn, SQL_DEADLINE);
    Ok(conn)
}

/// How long the queries of one kernel database may run in all (a view that recurses without
/// end is interrupted: an error for that database).
pub const SQL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

fn bound_time(conn: &Connection, limit: std::time::Duration) {
    let until = std::time::Instant::now() + limit;
    conn.progress_handler(100_000, Some(move || std::time::Instant::now() > until));
}

/// What a kernel database holds, without reading the code objects: the number of rows and
/// the distinct kernel file names (at most `cap`, each cut at 1 KiB), sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KdbListing {
    /// Rows (kernels, one per file name and build options).
    pub rows: u64,
    /// Distinct kernel file names (`naive_conv.cpp.o`), the first `cap`.
    pub names: Vec<String>,
    /// Distinct names in all.
    pub distinct: u64,
}

/// Lists a kernel database on disk (see [`KdbListing`]).
pub fn list_kdb(path: &Path, cap: usize) -> Result<KdbListing, SourceError> {
    let conn = open_immutable(path).map_err(sqlite_error)?;
    columns(&conn)?;
    let count = |sql: &str| -> Result<u64, SourceError> {
        conn.query_row(sql, [], |r| r.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(sqlite_error)
    };
    let rows = count("SELECT count(*) FROM kern_db")?;
    let distinct = count("SELECT count(DISTINCT kernel_name) FROM kern_db")?;
    let mut stmt = conn
        .prepare(
            "SELECT DISTINCT CAST(substr(kernel_name, 1, 1024) AS BLOB) FROM kern_db ORDER BY 1 LIMIT ?1",
        )
        .map_err(sqlite_error)?;
    let names = stmt
        .query_map([i64::try_from(cap).unwrap_or(i64::MAX)], |r| {
            Ok(match r.get_ref(0)? {
                ValueRef::Blob(b) | ValueRef::Text(b) => String::from_utf8_lossy(b).into_owned(),
                _ => String::new(),
            })
        })
        .and_then(|rows| rows.collect())
        .map_err(sqlite_error)?;
    Ok(KdbListing {
        rows,
        names,
        distinct,
    })
}

/// Scans a kernel database on disk.
pub(crate) fn scan_kdb_path(path: &Path, origin: &Origin, depth: u32, ctx: &Ctx<'_>) {
    match open_immutable(path) {
        Ok(conn) => scan_conn(&conn, origin, depth, ctx),
        Err(e) => report(ctx, origin, sqlite_error(e)),
    }
}

/// Scans a kernel database held in memory (an archive member).
pub(crate) fn scan_kdb_memory(data: &[u8], origin: &Origin, depth: u32, ctx: &Ctx<'_>) {
    if !data.starts_with(SQLITE_MAGIC) {
        return report(
            ctx,
            origin,
            SourceError::Format {
                offset: 0,
                msg: "MIOpen kernel database without the SQLite header (`SQLite format 3`)".into(),
            },
        );
    }
    let _held = match ctx.limits.memory.reserve(data.len() as u64) {
        Ok(h) => h,
        Err(e) => return report(ctx, origin, SourceError::budget(0, "kernel database", e)),
    };
    let conn = Connection::open_in_memory().and_then(|mut c| {
        c.deserialize_read_exact(
            rusqlite::MAIN_DB,
            std::io::Cursor::new(data),
            data.len(),
            true,
        )?;
        Ok(c)
    });
    match conn {
        Ok(conn) => {
            bound_time(&conn, SQL_DEADLINE);
            scan_conn(&conn, origin, depth, ctx)
        }
        Err(e) => report(ctx, origin, sqlite_error(e)),
    }
}

fn report(ctx: &Ctx<'_>, origin: &Origin, error: SourceError) {
    ctx.sink.found(Found::Error { origin, error });
}

/// A path as a SQLite URI path: every byte outside the unreserved set and `/` escaped.
fn uri_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut s = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// The columns of `kern_db` that decide how rows are read.
struct Columns {
    size: bool,
    hash: bool,
}

fn columns(conn: &Connection) -> Result<Columns, SourceError> {
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info('kern_db')")
        .map_err(sqlite_error)?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect())
        .map_err(sqlite_error)?;
    if names.is_empty() {
        return Err(SourceError::Format {
            offset: 0,
            msg: "no `kern_db` table: not a MIOpen kernel database".into(),
        });
    }
    let missing: Vec<&str> = ["kernel_name", "kernel_args", "kernel_blob"]
        .into_iter()
        .filter(|c| !names.iter().any(|n| n == c))
        .collect();
    if !missing.is_empty() {
        return Err(SourceError::Format {
            offset: 0,
            msg: format!(
                "`kern_db` lacks {}: MIOpen disables this database (kern_db.cpp:61-68)",
                missing.join(", ")
            ),
        });
    }
    let has = |c: &str| names.iter().any(|n| n == c);
    Ok(Columns {
        size: has("uncompressed_size"),
        hash: has("kernel_hash"),
    })
}

/// One row as listed, before its blob is read.
struct Row {
    id: i64,
    name: String,
    stored: Option<i64>,
    size: Option<i64>,
    hash: Option<String>,
}

fn scan_conn(conn: &Connection, origin: &Origin, depth: u32, ctx: &Ctx<'_>) {
    let cols = match columns(conn) {
        Ok(c) => c,
        Err(e) => return report(ctx, origin, e),
    };
    let list = format!(
        "SELECT rowid, CAST(substr(kernel_name, 1, 1024) AS BLOB), length(kernel_blob), {}, {} FROM kern_db ORDER BY rowid",
        if cols.size { "uncompressed_size" } else { "0" },
        if cols.hash {
            "CAST(substr(kernel_hash, 1, 64) AS BLOB)"
        } else {
            "NULL"
        },
    );
    let listed = conn.prepare(&list).and_then(|mut stmt| {
        let blob = conn.prepare("SELECT kernel_blob FROM kern_db WHERE rowid = ?1")?;
        let mut blob = blob;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let text = |i: usize| -> rusqlite::Result<Option<String>> {
                Ok(match r.get_ref(i)? {
                    ValueRef::Blob(b) | ValueRef::Text(b) => {
                        Some(String::from_utf8_lossy(b).into_owned())
                    }
                    _ => None,
                })
            };
            let row = Row {
                id: r.get(0)?,
                name: text(1)?.unwrap_or_default(),
                stored: r.get::<_, Option<i64>>(2).ok().flatten(),
                size: r.get::<_, Option<i64>>(3).ok().flatten(),
                hash: text(4)?,
            };
            scan_row(&mut blob, &row, origin, depth, ctx);
        }
        Ok(())
    });
    if let Err(e) = listed {
        report(ctx, origin, sqlite_error(e));
    }
}

fn scan_row(
    blob: &mut rusqlite::Statement<'_>,
    row: &Row,
    origin: &Origin,
    depth: u32,
    ctx: &Ctx<'_>,
) {
    let child = origin.child(format!("kdb:{}#{}", row.name, row.id));
    if let Err(e) = read_row(blob, row, &child, depth, ctx) {
        report(ctx, &child, e);
    }
}

fn read_row(
    blob: &mut rusqlite::Statement<'_>,
    row: &Row,
    child: &Origin,
    depth: u32,
    ctx: &Ctx<'_>,
) -> Result<(), SourceError> {
    let stored = row
        .stored
        .and_then(|s| u64::try_from(s).ok())
        .ok_or_else(|| format_error("kernel_blob is NULL or not a blob"))?;
    let size = match row.size {
        Some(s) => u64::try_from(s)
            .map_err(|_| format_error(&format!("uncompressed_size {s} is negative")))?,
        None => return Err(format_error("uncompressed_size is NULL")),
    };
    let _stored = ctx
        .limits
        .memory
        .reserve(stored)
        .map_err(|e| SourceError::budget(0, "kernel blob", e))?;
    let mut rows = blob.query([row.id]).map_err(sqlite_error)?;
    let r = rows
        .next()
        .map_err(sqlite_error)?
        .ok_or_else(|| format_error("row vanished while reading"))?;
    let bytes = match r.get_ref(0).map_err(sqlite_error)? {
        ValueRef::Blob(b) | ValueRef::Text(b) => b,
        _ => return Err(format_error("kernel_blob is NULL or not a blob")),
    };
    let unpacked;
    let object: &[u8] = if size == 0 {
        bytes
    } else {
        unpacked = bunzip_exact(bytes, size, ctx)?;
        &unpacked.0
    };
    if object.is_empty() {
        return Err(format_error("empty kernel blob"));
    }
    if let Some(want) = &row.hash {
        let got = md5_hex(object);
        if !want.eq_ignore_ascii_case(&got) {
            return Err(format_error(&format!(
                "kernel_hash {want} differs from the md5 of the code object ({got}): MIOpen refuses it as a possible database corruption"
            )));
        }
    }
    let name = row.name.rsplit('/').next().unwrap_or(&row.name);
    scan_bytes(object, child, name, depth + 1, ctx);
    Ok(())
}

fn format_error(msg: &str) -> SourceError {
    SourceError::Format {
        offset: 0,
        msg: msg.into(),
    }
}

/// A decompressed code object and the memory it holds from the budget.
struct Unpacked(Vec<u8>, #[allow(dead_code)] rocpath_budget::Reservation);

/// bzip2-decompresses exactly `size` bytes: more or fewer is an error, as for MIOpen's
/// `BZ2_bzBuffToBuffDecompress` into a buffer of the declared size.
fn bunzip_exact(data: &[u8], size: u64, ctx: &Ctx<'_>) -> Result<Unpacked, SourceError> {
    if size > ctx.limits.max_decompressed {
        return Err(SourceError::Limit {
            offset: 0,
            msg: format!(
                "uncompressed_size {size} is over the {} limit for one decompressed code object",
                rocpath_budget::format_size(ctx.limits.max_decompressed)
            ),
        });
    }
    let held = ctx
        .limits
        .memory
        .reserve(size)
        .map_err(|e| SourceError::budget(0, "decompressed kernel", e))?;
    let mut out = Vec::new();
    usize::try_from(size)
        .ok()
        .and_then(|c| c.checked_add(1))
        .and_then(|c| out.try_reserve_exact(c).ok())
        .ok_or_else(|| SourceError::Limit {
            offset: 0,
            msg: format!("cannot allocate {size} bytes for a decompressed kernel"),
        })?;
    bzip2::read::BzDecoder::new(data)
        .take(size + 1)
        .read_to_end(&mut out)
        .map_err(|e| format_error(&format!("kernel blob does not bunzip2: {e}")))?;
    if out.len() as u64 > size {
        return Err(format_error(&format!(
            "kernel blob decompresses to more than the {size} bytes uncompressed_size says (MIOpen's bzip2 read fails)"
        )));
    }
    if (out.len() as u64) < size {
        return Err(format_error(&format!(
            "kernel blob decompresses to {} bytes, uncompressed_size says {size}",
            out.len()
        )));
    }
    Ok(Unpacked(out, held))
}

fn md5_hex(bytes: &[u8]) -> String {
    use md5::Digest;
    md5::Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_escapes_what_sqlite_would_read_as_query() {
        assert_eq!(
            uri_path(Path::new("/a b/x?y#z%.kdb")),
            "/a%20b/x%3Fy%23z%25.kdb"
        );
        assert!(is_kdb_name("gfx900_56.kdb") && is_kdb_name("gfx90a6e.UKDB"));
        assert!(!is_kdb_name("gfx900_56.db"));
    }

    #[test]
    fn a_kern_db_view_that_never_ends_is_stopped_with_a_message() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("endless.kdb");
        Connection::open(&p)
            .unwrap()
            .execute_batch(
                "CREATE VIEW kern_db AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL \
                 SELECT x + 1 FROM n) SELECT x AS id, 'k' || x AS kernel_name, \
                 '' AS kernel_args, x'00' AS kernel_blob FROM n;",
            )
            .unwrap();
        let conn = open_immutable(&p).unwrap();
        bound_time(&conn, std::time::Duration::from_millis(200));
        let e = conn
            .query_row("SELECT count(*) FROM kern_db", [], |r| r.get::<_, i64>(0))
            .map_err(sqlite_error)
            .unwrap_err();
        assert!(e.to_string().contains("ran past 30 s"), "{e}");
    }

    #[test]
    fn listing_names_the_kernel_files() {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gfx1201_32.kdb");
        let l = list_kdb(&p, 1).unwrap();
        assert_eq!((l.rows, l.distinct), (2, 2));
        assert_eq!(l.names, vec!["blit_gfx1201.co.o".to_string()]);
        assert!(list_kdb(Path::new("/nonexistent/x.kdb"), 1).is_err());
    }
}
