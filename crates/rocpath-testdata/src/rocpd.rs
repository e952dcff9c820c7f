//! The rocpd SQLite schema (rocprofiler-sdk, schema version 3) as DDL, for tests and benchmark
//! generators that build rocpd databases: the physical tables with their per-session suffix,
//! the plain-name views over them, and the `kernels` view, which joins each dispatch to its
//! agent, event, region name, kernel symbol, stream, queue, process and thread exactly as
//! rocprofiler-sdk's `data_views.sql` does (so rows without a region name or event are not in
//! it). Column lists follow `rocpd_tables.sql` of ROCm/rocm-systems; only the tables a kernel
//! trace touches are made.

/// The tables (base names) this DDL makes, in creation order.
pub const TABLES: &[&str] = &[
    "rocpd_metadata",
    "rocpd_string",
    "rocpd_info_node",
    "rocpd_info_process",
    "rocpd_info_thread",
    "rocpd_info_agent",
    "rocpd_info_queue",
    "rocpd_info_stream",
    "rocpd_info_code_object",
    "rocpd_info_kernel_symbol",
    "rocpd_event",
    "rocpd_region",
    "rocpd_kernel_dispatch",
];

fn columns(table: &str) -> &'static str {
    match table {
        "rocpd_metadata" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, tag TEXT NOT NULL, value TEXT NOT NULL"
        }
        "rocpd_string" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, string TEXT NOT NULL UNIQUE ON CONFLICT ABORT"
        }
        "rocpd_info_node" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, hash BIGINT NOT NULL UNIQUE, machine_id TEXT NOT NULL UNIQUE, system_name TEXT, hostname TEXT, release TEXT, version TEXT, hardware_name TEXT, domain_name TEXT"
        }
        "rocpd_info_process" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER NOT NULL, init BIGINT, fini BIGINT, start BIGINT, \"end\" BIGINT, command TEXT, environment JSONB DEFAULT '{}' NOT NULL, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_info_thread" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, ppid INTEGER, pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT, start BIGINT, \"end\" BIGINT, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_info_agent" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, type TEXT CHECK (type IN ('CPU', 'GPU', 'NIC')), absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_info_queue" | "rocpd_info_stream" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_info_code_object" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, agent_id INTEGER, uri TEXT, load_base BIGINT, load_size BIGINT, load_delta BIGINT, storage_type TEXT CHECK (storage_type IN ('FILE', 'MEMORY')), extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_info_kernel_symbol" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, code_object_id INTEGER NOT NULL, kernel_name TEXT, display_name TEXT, kernel_object INTEGER, kernarg_segment_size INTEGER, kernarg_segment_alignment INTEGER, group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER, arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_event" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, category_id INTEGER, stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, call_stack JSONB DEFAULT '{}' NOT NULL, line_info JSONB DEFAULT '{}' NOT NULL, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_region" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start BIGINT NOT NULL, \"end\" BIGINT NOT NULL, name_id INTEGER NOT NULL, event_id INTEGER, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        "rocpd_kernel_dispatch" => {
            "id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, guid TEXT DEFAULT '{guid}' NOT NULL, nid INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER, agent_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL, queue_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, start BIGINT NOT NULL, \"end\" BIGINT NOT NULL, private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL, workgroup_size_y INTEGER NOT NULL, workgroup_size_z INTEGER NOT NULL, grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL, grid_size_z INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER, extdata JSONB DEFAULT '{}' NOT NULL"
        }
        _ => "",
    }
}

const KERNELS_VIEW: &str = "CREATE VIEW kernels AS SELECT
    K.id, K.guid, T.tid,
    (SELECT string FROM rocpd_string RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
    R.string AS region, S.display_name AS name, K.nid, P.pid,
    A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,
    A.type_index AS agent_type_index, A.type AS agent_type,
    S.code_object_id AS code_object_id, K.kernel_id, K.dispatch_id, K.stream_id, K.queue_id,
    Q.name AS queue, ST.name AS stream, K.start, K.\"end\", (K.\"end\" - K.start) AS duration,
    K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
    K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y, K.workgroup_size_z AS workgroup_z,
    K.group_segment_size AS lds_size, K.private_segment_size AS scratch_size,
    S.arch_vgpr_count AS vgpr_count, S.accum_vgpr_count, S.sgpr_count,
    S.group_segment_size AS static_lds_size, S.private_segment_size AS static_scratch_size,
    E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id
FROM rocpd_kernel_dispatch K
    INNER JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid
    INNER JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
    INNER JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid
    INNER JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
    LEFT JOIN rocpd_info_stream ST ON ST.id = K.stream_id AND ST.guid = K.guid
    LEFT JOIN rocpd_info_queue Q ON Q.id = K.queue_id AND Q.guid = K.guid
    INNER JOIN rocpd_info_process P ON P.id = Q.pid AND P.guid = Q.guid
    INNER JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid;";

/// The DDL for one session: tables suffixed with `uuid` (rocprofv3 writes
/// `_<hex>` uuids), `guid` the default of every `guid` column, plain-name views, the `kernels`
/// view (when `views` is true), and the `schema_version` metadata row.
pub fn ddl(uuid: &str, guid: &str, views: bool) -> String {
    let mut s = String::new();
    for t in TABLES {
        let cols = columns(t).replace("{guid}", guid);
        s.push_str(&format!("CREATE TABLE \"{t}{uuid}\" ({cols});\n"));
    }
    if views {
        for t in TABLES {
            s.push_str(&format!(
                "CREATE VIEW \"{t}\" AS SELECT * FROM \"{t}{uuid}\";\n"
            ));
        }
        s.push_str(KERNELS_VIEW);
        s.push('\n');
    }
    s.push_str(&format!(
        "INSERT INTO \"rocpd_metadata{uuid}\" (tag, value) VALUES ('schema_version', '3'), ('uuid', '{uuid}'), ('guid', '{guid}');\n"
    ));
    s
}

/// The GROUP BY on the `kernels` view that `rocpath trace` must agree with (and is benchmarked
/// against): dispatches, total and mean duration per kernel name.
pub const KERNELS_GROUP_BY: &str = "SELECT name, COUNT(*), SUM(duration), AVG(duration) FROM kernels GROUP BY name ORDER BY COUNT(*) DESC, name";
