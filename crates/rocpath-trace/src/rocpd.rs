//! rocpd, rocprofv3's default output (`<pid>_results.db`): a SQLite database, schema version 3.
//!
//! The physical tables carry a per-session suffix (`rocpd_kernel_dispatch<uuid>`) and plain-name
//! views select from them (`rocpd_kernel_dispatch`); the `kernels` convenience view joins every
//! dispatch to its symbol, agent, event, region string, queue, stream, process and thread. rocpath
//! does not go through `kernels`: it groups `rocpd_kernel_dispatch` by (`guid`, `kernel_id`)
//! inside SQLite and joins the few resulting rows to `rocpd_info_kernel_symbol`, so that nothing
//! per dispatch leaves the database. When the plain-name views are missing (a database whose
//! views were dropped, or several sessions), the suffixed tables are read directly and unioned.

use crate::model::{Agent, At, Collected, KernelAgg, Resources};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::collections::HashMap;
use std::path::Path;

/// Errors of the rocpd reader.
#[derive(Debug, thiserror::Error)]
pub enum RocpdError {
    /// SQLite could not open or query the file.
    #[error("{0}")]
    Sqlite(rusqlite::Error),
    /// The queries ran past [`SQL_DEADLINE`] and were stopped.
    #[error(
        "its queries ran past {} s and were stopped (a view that never ends, or a database far \
         larger than a profiling run): check it with `sqlite3 FILE .schema`",
        SQL_DEADLINE.as_secs()
    )]
    Deadline,
    /// A table rocpath needs is not there.
    #[error("not a rocpd database: no {0} table or view")]
    MissingTable(&'static str),
}

/// What the database says about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Meta {
    /// `schema_version` from `rocpd_metadata`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_version: Option<String>,
    /// Session suffixes of the physical tables.
    pub sessions: Vec<String>,
}

fn names(conn: &Connection, kind: &str, like: &str) -> Result<Vec<String>, rusqlite::Error> {
    let mut st = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = ?1 AND name LIKE ?2 ORDER BY name")?;
    let rows = st.query_map([kind, like], |r| r.get::<_, String>(0))?;
    rows.collect()
}

fn quote(n: &str) -> String {
    format!("\"{}\"", n.replace('"', "\"\""))
}

impl From<rusqlite::Error> for RocpdError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::OperationInterrupted) => RocpdError::Deadline,
            _ => RocpdError::Sqlite(e),
        }
    }
}

/// A FROM source for a rocpd table: its plain-name view, else the union of its suffixed tables.
fn source(conn: &Connection, base: &'static str) -> Result<Option<String>, RocpdError> {
    let view = names(conn, "view", base)?;
    if view.iter().any(|v| v == base) {
        return Ok(Some(quote(base)));
    }
    let plain = names(conn, "table", base)?;
    if plain.iter().any(|v| v == base) {
        return Ok(Some(quote(base)));
    }
    let like = format!("{}%", base.replace('_', "\\_"));
    let mut st = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?1 ESCAPE '\\' ORDER BY name")?;
    let tables: Vec<String> = st
        .query_map([like], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    // `rocpd_info_kernel_symbol` must not pick up a longer table name that shares its prefix.
    let tables: Vec<String> = tables
        .into_iter()
        .filter(|t| {
            let rest = &t[base.len()..];
            rest.is_empty() || !rest.starts_with(|c: char| c.is_ascii_lowercase())
        })
        .collect();
    Ok(match tables.len() {
        0 => None,
        1 => Some(quote(&tables[0])),
        _ => Some(format!(
            "({})",
            tables
                .iter()
                .map(|t| format!("SELECT * FROM {}", quote(t)))
                .collect::<Vec<_>>()
                .join(" UNION ALL ")
        )),
    })
}

/// Opens a database read-only. The GROUP BY over the dispatch table sorts every dispatch:
/// SQLite's sorter may use as many helper threads as the run has workers (`--threads`);
/// its memory stays SQLite's own bounded sort buffers.
pub fn open(path: &Path) -> Result<Connection, RocpdError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let threads = rayon::current_num_threads().clamp(1, 8) as i64;
    conn.pragma_update(None, "threads", threads)?;
    bound_time(&conn, SQL_DEADLINE);
    Ok(conn)
}

/// How long the queries of one database may run in all: a view that recurses without end, or
/// is slow by design, is interrupted (`interrupted`, an error for that file).
pub const SQL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(45);

/// Interrupts every statement of `conn` once `limit` has passed since now.
pub fn bound_time(conn: &Connection, limit: std::time::Duration) {
    let until = std::time::Instant::now() + limit;
    conn.progress_handler(100_000, Some(move || std::time::Instant::now() > until));
}

/// Reads the database's metadata.
pub fn meta(conn: &Connection) -> Result<Meta, RocpdError> {
    let mut m = Meta::default();
    if let Some(src) = source(conn, "rocpd_metadata")? {
        m.schema_version = conn
            .query_row(
                &format!("SELECT value FROM {src} WHERE tag = 'schema_version' LIMIT 1"),
                [],
                |r| r.get::<_, String>(0),
            )
            .optional()?;
    }
    for t in names(conn, "table", "rocpd_kernel_dispatch%")? {
        let Some(s) = t.strip_prefix("rocpd_kernel_dispatch") else {
            continue;
        };
        let s = s.to_string();
        if !s.is_empty() && !m.sessions.contains(&s) {
            m.sessions.push(s);
        }
    }
    Ok(m)
}

/// The earliest dispatch start.
pub fn min_start(conn: &Connection) -> Result<Option<u64>, RocpdError> {
    let kd = source(conn, "rocpd_kernel_dispatch")?
        .ok_or(RocpdError::MissingTable("rocpd_kernel_dispatch"))?;
    let v: Option<i64> =
        conn.query_row(&format!("SELECT MIN(start) FROM {kd}"), [], |r| r.get(0))?;
    Ok(v.and_then(|v| u64::try_from(v).ok()))
}

fn u(v: Option<i64>) -> Option<u64> {
    v.and_then(|v| u64::try_from(v).ok())
}

/// Aggregates the dispatches per kernel inside SQLite. `boundary` is an absolute phase boundary.
pub fn read(conn: &Connection, boundary: Option<u64>) -> Result<Collected, RocpdError> {
    let kd = source(conn, "rocpd_kernel_dispatch")?
        .ok_or(RocpdError::MissingTable("rocpd_kernel_dispatch"))?;
    let ks = source(conn, "rocpd_info_kernel_symbol")?;
    let mut c = Collected::default();
    let mut agents_by_id = AgentNames::new();
    if let Some(ag) = source(conn, "rocpd_info_agent")? {
        (c.agents, agents_by_id) = agents(conn, &ag)?;
    }
    let mut st = conn.prepare(&kernel_sql(&kd, ks.as_deref()))?;
    let mut rows = st.query([boundary.and_then(|b| i64::try_from(b).ok())])?;
    let mut by_name: HashMap<String, usize> = HashMap::new();
    while let Some(r) = rows.next()? {
        let k = kernel(r, boundary, &agents_by_id)?;
        c.dispatches += k.dispatches;
        if let Some(fs) = u(r.get(11)?) {
            c.first_start_ns = Some(c.first_start_ns.map_or(fs, |x| x.min(fs)));
        }
        if let Some(le) = u(r.get(12)?) {
            c.last_end_ns = Some(c.last_end_ns.map_or(le, |x| x.max(le)));
        }
        // Names cut and distinct kernels bounded as in every trace (`model::MAX_KERNELS`).
        let mut k = k;
        if k.name.len() > crate::model::MAX_NAME {
            let mut end = crate::model::MAX_NAME;
            while !k.name.is_char_boundary(end) {
                end -= 1;
            }
            k.name.truncate(end);
        }
        if c.kernels.len() >= crate::model::MAX_KERNELS && !by_name.contains_key(&k.name) {
            k.name = crate::model::OVERFLOW.to_string();
        }
        // Two sessions (or two code objects) with the same kernel name are one kernel here.
        match by_name.get(&k.name) {
            Some(&i) => {
                if let Some(e) = c.kernels.get_mut(i) {
                    e.merge(&k);
                }
            }
            None => {
                by_name.insert(k.name.clone(), c.kernels.len());
                c.kernels.push(k);
            }
        }
    }
    Ok(c)
}

/// Agent names by (`guid`, `id`).
type AgentNames = HashMap<(String, i64), String>;

/// The agents of `rocpd_info_agent` (or its session table `ag`), and their names.
fn agents(conn: &Connection, ag: &str) -> Result<(Vec<Agent>, AgentNames), RocpdError> {
    let mut st = conn.prepare(&format!(
        "SELECT id, guid, type, name, product_name FROM {ag} ORDER BY absolute_index, id \
         LIMIT {}",
        crate::model::MAX_AGENTS
    ))?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            r.get::<_, Option<String>>(3)?.unwrap_or_default(),
            r.get::<_, Option<String>>(4)?.unwrap_or_default(),
        ))
    })?;
    let mut agents = Vec::new();
    let mut by_id = HashMap::new();
    for row in rows {
        let (id, guid, kind, name, product) = row?;
        by_id.insert((guid, id), name.clone());
        agents.push(Agent {
            id: id.to_string(),
            kind,
            name,
            product,
        });
    }
    Ok((agents, by_id))
}

/// One row per (`guid`, `kernel_id`) of the dispatch table `kd`, with the symbol from `ks`
/// when there is one; `?1` is the phase boundary.
fn kernel_sql(kd: &str, ks: Option<&str>) -> String {
    let sym_cols = if ks.is_some() {
        "S.display_name, S.kernel_name, S.arch_vgpr_count, S.accum_vgpr_count, S.sgpr_count"
    } else {
        "NULL, NULL, NULL, NULL, NULL"
    };
    let join = ks
        .map(|ks| format!("LEFT JOIN {ks} S ON S.id = K.kernel_id AND S.guid = K.guid"))
        .unwrap_or_default();
    format!(
        "SELECT K.guid, K.kernel_id, K.n, K.total, K.mn, K.mx, K.first_id, K.prefill, K.agent_id, \
                K.lds, K.scratch, K.first_start, K.last_end, {sym_cols} \
         FROM (SELECT guid, kernel_id, COUNT(*) AS n, SUM(\"end\" - start) AS total, \
                      MIN(\"end\" - start) AS mn, MAX(\"end\" - start) AS mx, MIN(id) AS first_id, \
                      SUM(CASE WHEN ?1 IS NOT NULL AND start <= ?1 THEN 1 ELSE 0 END) AS prefill, \
                      MIN(agent_id) AS agent_id, MAX(group_segment_size) AS lds, \
                      MAX(private_segment_size) AS scratch, MIN(start) AS first_start, \
                      MAX(\"end\") AS last_end \
               FROM {kd} GROUP BY guid, kernel_id) K {join} \
         ORDER BY K.first_id"
    )
}

/// A row of [`kernel_sql`] as a kernel aggregate.
fn kernel(
    r: &rusqlite::Row<'_>,
    boundary: Option<u64>,
    agents_by_id: &AgentNames,
) -> Result<KernelAgg, RocpdError> {
    let guid: String = r.get::<_, Option<String>>(0)?.unwrap_or_default();
    let kernel_id: i64 = r.get(1)?;
    let n = u(r.get(2)?).unwrap_or(0);
    let display: Option<String> = r.get(13)?;
    let kname: Option<String> = r.get(14)?;
    let name = display
        .filter(|s| !s.is_empty())
        .or(kname)
        .unwrap_or_else(|| format!("<kernel_id {kernel_id}>"));
    let prefill = u(r.get(7)?).unwrap_or(0);
    let agent_id: Option<i64> = r.get(8)?;
    let mut k = KernelAgg::new(name);
    k.dispatches = n;
    k.total_ns = u(r.get(3)?).unwrap_or(0);
    k.min_ns = u(r.get(4)?).unwrap_or(0);
    k.max_ns = u(r.get(5)?).unwrap_or(0);
    if boundary.is_some() {
        k.prefill = prefill;
        k.decode = n.saturating_sub(prefill);
    }
    k.resources = Resources {
        vgpr_count: u(r.get(15)?),
        accum_vgpr_count: u(r.get(16)?),
        sgpr_count: u(r.get(17)?),
        lds_bytes: u(r.get(9)?),
        scratch_bytes: u(r.get(10)?),
    };
    k.agent = agent_id.map(|a| {
        agents_by_id
            .get(&(guid.clone(), a))
            .cloned()
            .unwrap_or_else(|| a.to_string())
    });
    k.first = At {
        line: None,
        member: format!("rocpd_kernel_dispatch id={}", r.get::<_, i64>(6)?),
    };
    Ok(k)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_view_that_never_ends_is_interrupted() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("endless.db");
        let c = Connection::open(&p).unwrap();
        c.execute_batch(
            "CREATE VIEW rocpd_kernel_dispatch AS WITH RECURSIVE n(x) AS \
             (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x AS start FROM n;",
        )
        .unwrap();
        drop(c);
        let conn = open(&p).unwrap();
        bound_time(&conn, std::time::Duration::from_millis(300));
        let t = std::time::Instant::now();
        let r = min_start(&conn);
        assert!(matches!(r, Err(RocpdError::Deadline)), "{r:?}");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            t.elapsed()
        );
    }
}
