//! Builds rocpd databases (rocprofiler-sdk schema version 3) from kernel-trace rows, for the
//! tests and the benchmark generator.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rusqlite::{Connection, params};
use std::collections::HashMap;

/// One dispatch: kernel name, start, end, VGPRs, SGPRs, LDS.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: String,
    pub start: u64,
    pub end: u64,
    pub vgpr: u64,
    pub sgpr: u64,
    pub lds: u64,
}

/// Reads dispatch rows from a rocprofv3 kernel-trace CSV (by header name).
pub fn rows_from_csv(text: &str) -> Vec<Row> {
    let mut rd = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let h = rd.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|f| f == n).unwrap();
    let (name, start, end, vgpr, sgpr, lds) = (
        col("Kernel_Name"),
        col("Start_Timestamp"),
        col("End_Timestamp"),
        col("VGPR_Count"),
        col("SGPR_Count"),
        col("LDS_Block_Size"),
    );
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            Row {
                name: r[name].to_string(),
                start: r[start].parse().unwrap(),
                end: r[end].parse().unwrap(),
                vgpr: r[vgpr].parse().unwrap(),
                sgpr: r[sgpr].parse().unwrap(),
                lds: r[lds].parse().unwrap(),
            }
        })
        .collect()
}

/// A session being written.
pub struct Session<'a> {
    conn: &'a Connection,
    uuid: String,
    guid: String,
    symbols: HashMap<String, i64>,
    strings: HashMap<String, i64>,
    category: i64,
}

impl<'a> Session<'a> {
    /// Creates the session's tables (and, with `views`, the plain-name views and `kernels`) and
    /// its node, process, thread, agents (CPU, then a GPU named `gfx`), queue and stream.
    pub fn new(conn: &'a Connection, uuid: &str, guid: &str, views: bool, gfx: &str) -> Self {
        conn.execute_batch(&rocpath_testdata::rocpd::ddl(uuid, guid, views))
            .unwrap();
        let t = |n: &str| format!("\"{n}{uuid}\"");
        conn.execute(&format!("INSERT INTO {} (id, guid, hash, machine_id, hostname) VALUES (1, ?1, 7, ?2, 'hbmx-mi25')", t("rocpd_info_node")), params![guid, format!("m-{uuid}")]).unwrap();
        conn.execute(&format!("INSERT INTO {} (id, guid, nid, pid, command) VALUES (1, ?1, 1, 3284537, 'ollama serve')", t("rocpd_info_process")), params![guid]).unwrap();
        conn.execute(
            &format!(
                "INSERT INTO {} (id, guid, nid, pid, tid) VALUES (1, ?1, 1, 1, 3284561)",
                t("rocpd_info_thread")
            ),
            params![guid],
        )
        .unwrap();
        conn.execute(&format!("INSERT INTO {} (id, guid, nid, pid, type, absolute_index, logical_index, type_index, name, product_name) VALUES (1, ?1, 1, 1, 'CPU', 0, 0, 0, 'AMD Ryzen 5 3400G', 'AMD Ryzen 5 3400G')", t("rocpd_info_agent")), params![guid]).unwrap();
        conn.execute(&format!("INSERT INTO {} (id, guid, nid, pid, type, absolute_index, logical_index, type_index, name, product_name) VALUES (2, ?1, 1, 1, 'GPU', 1, 1, 0, ?2, 'Radeon Instinct MI25')", t("rocpd_info_agent")), params![guid, gfx]).unwrap();
        conn.execute(
            &format!(
                "INSERT INTO {} (id, guid, nid, pid, name) VALUES (1, ?1, 1, 1, 'queue 0')",
                t("rocpd_info_queue")
            ),
            params![guid],
        )
        .unwrap();
        conn.execute(
            &format!(
                "INSERT INTO {} (id, guid, nid, pid, name) VALUES (1, ?1, 1, 1, 'stream 0')",
                t("rocpd_info_stream")
            ),
            params![guid],
        )
        .unwrap();
        conn.execute(&format!("INSERT INTO {} (id, guid, nid, pid, agent_id, uri) VALUES (1, ?1, 1, 1, 2, 'file:///libggml-hip.so')", t("rocpd_info_code_object")), params![guid]).unwrap();
        conn.execute(
            &format!(
                "INSERT INTO {} (id, guid, string) VALUES (1, ?1, 'KERNEL_DISPATCH')",
                t("rocpd_string")
            ),
            params![guid],
        )
        .unwrap();
        Session {
            conn,
            uuid: uuid.to_string(),
            guid: guid.to_string(),
            symbols: HashMap::new(),
            strings: [("KERNEL_DISPATCH".to_string(), 1)].into(),
            category: 1,
        }
    }

    fn t(&self, n: &str) -> String {
        format!("\"{n}{}\"", self.uuid)
    }

    fn string(&mut self, s: &str) -> i64 {
        if let Some(&i) = self.strings.get(s) {
            return i;
        }
        let i = self.strings.len() as i64 + 1;
        self.conn
            .execute(
                &format!(
                    "INSERT INTO {} (id, guid, string) VALUES (?1, ?2, ?3)",
                    self.t("rocpd_string")
                ),
                params![i, self.guid, s],
            )
            .unwrap();
        self.strings.insert(s.to_string(), i);
        i
    }

    fn symbol(&mut self, r: &Row) -> i64 {
        if let Some(&i) = self.symbols.get(&r.name) {
            return i;
        }
        let i = self.symbols.len() as i64 + 1;
        self.conn
            .execute(
                &format!("INSERT INTO {} (id, guid, nid, pid, code_object_id, kernel_name, display_name, sgpr_count, arch_vgpr_count, accum_vgpr_count, group_segment_size, private_segment_size) VALUES (?1, ?2, 1, 1, 1, ?3, ?4, ?5, ?6, 0, ?7, 0)", self.t("rocpd_info_kernel_symbol")),
                params![i, self.guid, format!("{}.kd", r.name), r.name, r.sgpr as i64, r.vgpr as i64, r.lds as i64],
            )
            .unwrap();
        self.symbols.insert(r.name.clone(), i);
        i
    }

    /// Inserts dispatches (one event and one region-name string per kernel, as rocprofv3 does).
    /// With `with_region` false the dispatch has no region name (the `kernels` view drops it).
    pub fn dispatches(&mut self, rows: &[Row], with_region: bool) {
        let tx = self.conn.unchecked_transaction().unwrap();
        let ev_sql = format!(
            "INSERT INTO {} (guid, category_id, stack_id, parent_stack_id, correlation_id) VALUES (?1, ?2, 0, 0, ?3)",
            self.t("rocpd_event")
        );
        let kd_sql = format!(
            "INSERT INTO {} (guid, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, \"end\", private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id) VALUES (?1, 1, 1, 1, 2, ?2, ?3, 1, 1, ?4, ?5, 0, ?6, 256, 1, 1, 4096, 1, 1, ?7, ?8)",
            self.t("rocpd_kernel_dispatch")
        );
        for (n, r) in rows.iter().enumerate() {
            let k = self.symbol(r);
            let region = if with_region {
                Some(self.string(&r.name))
            } else {
                None
            };
            let mut ev = self.conn.prepare_cached(&ev_sql).unwrap();
            ev.execute(params![self.guid, self.category, n as i64 + 1])
                .unwrap();
            let event = self.conn.last_insert_rowid();
            let mut kd = self.conn.prepare_cached(&kd_sql).unwrap();
            kd.execute(params![
                self.guid,
                k,
                n as i64 + 1,
                r.start as i64,
                r.end as i64,
                r.lds as i64,
                region,
                event
            ])
            .unwrap();
        }
        tx.commit().unwrap();
    }
}
