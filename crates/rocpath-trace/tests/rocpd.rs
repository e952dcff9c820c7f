#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The rocpd reader on databases built here with rocprofiler-sdk's schema (version 3,
//! session-suffixed tables, plain-name views, the `kernels` view): against the `kernels` view's
//! own GROUP BY, against the CSV reader on the same rows, without views, and with two sessions.

mod support;

use rocpath_trace::{Format, Input, PhaseRequest};
use rusqlite::Connection;
use std::collections::BTreeMap;
use support::{Row, Session};

fn synthetic() -> Vec<Row> {
    let names = [
        "void mul_mat_vec_q<(ggml_type)12, 1, true>(void const*, void const*, float*, int)",
        "quantize_q8_1(float const*, void*, long, long)",
        "Cijk_Alik_Bljk_HSS_BH_GB_MT64x32x8_SE_ISA900_WG16_16_1",
        "__amd_rocclr_copyBuffer",
    ];
    (0..400u64)
        .map(|i| {
            let k = (i * 7 % 11 % 4) as usize;
            Row {
                name: names[k].to_string(),
                start: 1_000_000 + i * 1000,
                end: 1_000_000 + i * 1000 + 100 + (i % 13) * 10,
                vgpr: 16 + k as u64 * 8,
                sgpr: 24,
                lds: if k == 2 { 4096 } else { 0 },
            }
        })
        .collect()
}

fn db(rows: &[Row], views: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("3284537_results.db");
    let conn = Connection::open(&path).unwrap();
    let mut s = Session::new(
        &conn,
        "_0196b3fa_b3e1_7e33_a35f_a6d1c1f8e2a4",
        "0196b3fa-b3e1-7e33-a35f-a6d1c1f8e2a4",
        views,
        "gfx900",
    );
    s.dispatches(rows, true);
    (dir, path)
}

/// name → (dispatches, total duration) from the `kernels` view, as `sqlite3` would give it.
fn view_group_by(path: &std::path::Path) -> BTreeMap<String, (u64, u64)> {
    let conn = Connection::open(path).unwrap();
    let mut st = conn
        .prepare(rocpath_testdata::rocpd::KERNELS_GROUP_BY)
        .unwrap();
    st.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            (r.get::<_, i64>(1)? as u64, r.get::<_, i64>(2)? as u64),
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn ours(path: &std::path::Path, phase: Option<PhaseRequest>) -> rocpath_trace::TraceRecord {
    rocpath_trace::read_input(
        &Input {
            path: path.to_path_buf(),
            format: Format::Rocpd,
        },
        phase,
    )
    .unwrap()
}

#[test]
fn agrees_with_the_kernels_view() {
    let rows = synthetic();
    let (_d, path) = db(&rows, true);
    let t = ours(&path, None);
    assert_eq!(t.format.as_str(), "rocpd");
    assert_eq!(t.dispatches, 400);
    let view = view_group_by(&path);
    let mine: BTreeMap<String, (u64, u64)> = t
        .kernels
        .iter()
        .map(|k| (k.name.clone(), (k.dispatches, k.total_ns)))
        .collect();
    assert_eq!(mine, view);
    let tensile = t
        .kernels
        .iter()
        .find(|k| k.name.starts_with("Cijk_"))
        .unwrap();
    let info = tensile.tensile.as_ref().unwrap();
    assert_eq!(info.isa.as_deref(), Some("900"));
    assert_eq!(info.instructions.as_str(), "valu");
    assert!(info.name.general_batched);
    assert_eq!(tensile.resources.lds_bytes, Some(4096));
    assert_eq!(tensile.resources.vgpr_count, Some(32));
    assert_eq!(t.gpus(), vec!["gfx900"]);
    assert!(
        tensile.evidence.sources[0]
            .member
            .starts_with("rocpd_kernel_dispatch id=")
    );
    assert!(t.blas_dispatches() > 0);
    let meta = rocpath_trace::rocpd::meta(&rocpath_trace::rocpd::open(&path).unwrap()).unwrap();
    assert_eq!(meta.schema_version.as_deref(), Some("3"));
    assert_eq!(meta.sessions, vec!["_0196b3fa_b3e1_7e33_a35f_a6d1c1f8e2a4"]);
}

#[test]
fn phase_split_in_sql_equals_the_row_count() {
    let rows = synthetic();
    let (_d, path) = db(&rows, true);
    let pe = 123_456;
    let t = ours(&path, Some(PhaseRequest::PromptEval(pe)));
    let b = 1_000_000 + pe;
    let p = t.phase.unwrap();
    assert_eq!(p.boundary_ns, Some(b));
    assert_eq!(
        p.prefill_dispatches,
        rows.iter().filter(|r| r.start <= b).count() as u64
    );
    let blas_after = rows
        .iter()
        .filter(|r| r.start > b && r.name.starts_with("Cijk_"))
        .count() as u64;
    assert_eq!(p.decode_blas_dispatches, blas_after);
    assert_eq!(p.status.as_str(), "decode_signature_detected");
}

#[test]
fn without_views_the_suffixed_tables_are_read() {
    let rows = synthetic();
    let (_d, path) = db(&rows, false);
    let t = ours(&path, None);
    assert_eq!(t.dispatches, 400);
    assert_eq!(t.kernels.len(), 4);
}

#[test]
fn two_sessions_are_unioned_and_rows_outside_the_view_are_counted() {
    let rows = synthetic();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("merged.db");
    let conn = Connection::open(&path).unwrap();
    let mut a = Session::new(&conn, "_aaaa", "guid-a", false, "gfx900");
    a.dispatches(&rows[..100], true);
    let mut b = Session::new(&conn, "_bbbb", "guid-b", false, "gfx900");
    // The second session's dispatches have no region name.
    b.dispatches(&rows[100..], false);
    drop(conn);
    let t = ours(&path, None);
    assert_eq!(t.dispatches, 400);
    let meta = rocpath_trace::rocpd::meta(&rocpath_trace::rocpd::open(&path).unwrap()).unwrap();
    assert_eq!(meta.sessions, vec!["_aaaa", "_bbbb"]);
}

#[test]
fn real_rows_give_the_same_answer_as_csv() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let csv_path =
        dir.join("rocprofv3_probe_qwen2.5_7b_20260324_020303/hbmx-mi25/3284537_kernel_trace.csv");
    let rows = support::rows_from_csv(&std::fs::read_to_string(&csv_path).unwrap());
    let (_d, path) = db(&rows, true);
    let from_db = ours(&path, None);
    let from_csv = rocpath_trace::read_input(
        &Input {
            path: csv_path,
            format: Format::Csv,
        },
        None,
    )
    .unwrap();
    assert_eq!(from_db.dispatches, from_csv.dispatches);
    assert_eq!(from_db.research, from_csv.research);
    let a: Vec<_> = from_db
        .kernels
        .iter()
        .map(|k| {
            (
                &k.name,
                k.dispatches,
                k.total_ns,
                k.min_ns,
                k.max_ns,
                k.resources.vgpr_count,
            )
        })
        .collect();
    let b: Vec<_> = from_csv
        .kernels
        .iter()
        .map(|k| {
            (
                &k.name,
                k.dispatches,
                k.total_ns,
                k.min_ns,
                k.max_ns,
                k.resources.vgpr_count,
            )
        })
        .collect();
    assert_eq!(a, b);
    assert_eq!(
        view_group_by(&path).values().map(|v| v.0).sum::<u64>(),
        4727
    );
}

#[test]
fn not_a_rocpd_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER);")
        .unwrap();
    let e = rocpath_trace::read_input(
        &Input {
            path,
            format: Format::Rocpd,
        },
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("not a rocpd database"), "{e}");
}
