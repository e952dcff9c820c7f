#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The MI25 strace splits (seed-system.md §5.3): fallback catalog reads, their timing and types,
//! against the research's `fallback_phase_summary` TSV; the link with the real kernel trace and
//! the handle-only rocBLAS traces.

use std::path::PathBuf;

#[test]
fn fallback_hsaco_window_matches_the_phase_summary() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let split = dir.join("g4_strace_openat_tinyllama_latest_20260324_014707.log.3269468");
    let (r, errors) = rocpath_strace::read_files(&[split]);
    assert!(errors.is_empty());
    let p = &r.processes[0];
    assert_eq!(p.pid, Some(3269468));
    let rows = rocpath_testdata::read_tsv(
        &dir.join("fallback_phase_summary_tinyllama_latest_20260324_014707.tsv"),
    )
    .unwrap();
    let row = rows
        .iter()
        .find(|r| r["file"].ends_with(".3269468"))
        .unwrap();
    let w = &p.fallback_hsaco;
    assert_eq!(w.count.to_string(), row["hsaco_count"]);
    assert_eq!(w.first_line.unwrap().to_string(), row["hsaco_first_line"]);
    assert_eq!(w.last_line.unwrap().to_string(), row["hsaco_last_line"]);
    assert_eq!(
        w.first_time.as_deref(),
        Some(row["hsaco_first_time"].as_str())
    );
    assert_eq!(
        w.last_time.as_deref(),
        Some(row["hsaco_last_time"].as_str())
    );
    assert_eq!(format!("{:.6}", w.span_s.unwrap()), row["hsaco_span_s"]);
    assert_eq!(p.fallback_dat.count.to_string(), row["dat_count"]);
    // 54 fallback .hsaco opens; by type 9 each for CC and ZZ and 4 for the nine others — the
    // `.hsaco` half of the research's type summary (108 = 54 .dat + 54 .hsaco).
    assert_eq!(p.research.fallback_hsaco_openat, 54);
    assert_eq!(p.research.libggml_hip_openat, 1);
    let by_type: std::collections::BTreeMap<&str, u64> = r
        .tensile
        .iter()
        .filter(|t| t.fallback && t.ext == "hsaco")
        .map(|t| (t.type_token.as_str(), t.opens))
        .collect();
    assert_eq!(by_type["Type_CC"], 9);
    assert_eq!(by_type["Type_ZZ"], 9);
    for t in [
        "Type_4xi8I_HPA",
        "Type_BB_HPA",
        "Type_BS_HPA",
        "Type_DD",
        "Type_HH",
        "Type_HH_HPA",
        "Type_HS_HPA",
        "Type_I8I_HPA",
        "Type_SS",
    ] {
        assert_eq!(by_type[t], 4, "{t}");
    }
    assert_eq!(by_type.values().sum::<u64>(), 54);
    // The ggml backend resolved rocBLAS from the system ROCm after failing in its own folder.
    let rb = r.libraries.iter().find(|l| l.name == "librocblas").unwrap();
    assert_eq!(
        rb.resolved.as_deref(),
        Some("/opt/rocm-7.2.0/lib/librocblas.so.5")
    );
    assert!(rb.failed > 0);
    assert_eq!(r.catalog_read.class.as_str(), "confirmed");
    assert_eq!(r.catalog_read.sources[0].line, Some(910));
}

#[test]
fn prefix_expansion() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let (files, errors) = rocpath_strace::report::expand(&[
        dir.join("g4_strace_openat_tinyllama_latest_20260324_020550.log")
    ]);
    assert!(errors.is_empty());
    assert_eq!(files.len(), 1);
    let (_, errors) = rocpath_strace::report::expand(&[PathBuf::from("/nonexistent/prefix.log")]);
    assert_eq!(errors.len(), 1);
}

#[test]
fn link_with_real_trace_and_handle_only_rocblas_trace() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let (cat, _) = rocpath_strace::read_files(&[
        dir.join("g4_strace_openat_tinyllama_latest_20260324_020550.log.3287135")
    ]);
    let input = rocpath_trace::Input {
        path: dir.join(
            "rocprofv3_probe_tinyllama_latest_20260324_015840/hbmx-mi25/3280769_kernel_trace.csv",
        ),
        format: rocpath_trace::Format::Csv,
    };
    let trace = rocpath_trace::merge(vec![rocpath_trace::read_input(&input, None).unwrap()]);
    let tpath = dir.join("g4_rocblas_trace_tinyllama_latest_20260324_020804.log");
    let text = std::fs::read_to_string(&tpath).unwrap();
    assert_eq!(text, "rocblas_create_handle,atomics_not_allowed\n");
    let rb = rocpath_strace::link::rocblas_trace(&tpath.display().to_string(), &text);
    assert_eq!(
        (
            rb.lines,
            rb.handle_lines,
            rb.gemm_calls,
            rb.research_gemm_lines
        ),
        (1, 1, 0, 0)
    );
    // One split holds the libggml-hip open but not the .dat reads (those are in another pid's
    // file): the research gate needs all three.
    let l = rocpath_strace::link::link(&cat, Some(&trace), std::slice::from_ref(&rb));
    if cat.fallback_confirmed {
        assert_eq!(l.link_status.as_str(), "indirect_link_only_same_scenario");
    } else {
        assert_eq!(l.link_status.as_str(), "insufficient_evidence");
    }
    assert!(!l.direct_rocblas_or_tensile_dispatch);
    assert!(l.dispatch_confirmed);
}

/// The recordings keep one process's split of the 02:05 run: its 54 fallback `.hsaco` opens
/// make the catalog-read line `confirmed`, while the `.dat` opens were another process's. The
/// link must name those missing halves, not say "neither a fallback catalog read nor a
/// dispatch" under a confirmed catalog read.
#[test]
fn one_split_says_which_half_is_missing() {
    let Some(dir) = rocpath_testdata::fixture_dir("mi25-runs") else {
        return;
    };
    let split = dir.join("g4_strace_openat_tinyllama_latest_20260324_020550.log.3287135");
    let (r, errors) = rocpath_strace::read_files(&[split]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(r.catalog_read.rule, "strace.fallback_catalog_read");
    assert_eq!(r.catalog_read.class.as_str(), "confirmed");
    assert!(r.catalog_read.note.starts_with("54 fallback"));
    let l = rocpath_strace::link::link(&r, None, &[]);
    assert_eq!(l.link_status.as_str(), "insufficient_evidence");
    let note = &l.evidence.note;
    assert!(!note.contains("neither"), "{note}");
    assert!(
        note.starts_with("fallback gate not met: no open of a fallback .dat (1 libggml-hip, 0 fallback .dat and 54 fallback .hsaco open(s) in the 1 split file(s) given)"),
        "{note}"
    );
    assert!(
        note.contains("the split of the process that opened it"),
        "{note}"
    );
    assert!(note.ends_with("no kernel trace given (--trace): the dispatch half is missing"));
}
