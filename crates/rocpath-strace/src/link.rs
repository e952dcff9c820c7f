//! The link view: catalog reads (strace) next to dispatches (rocprofv3) and the rocBLAS layer
//! trace of the same scenario. It never claims that a catalog read caused a dispatch; it says
//! what was observed together:
//!
//! * `direct_rocblas_or_tensile_dispatch_observed` — a rocBLAS/Tensile GEMM was seen running
//!   (a `Cijk_`/`rocblas_` kernel in the kernel trace, or a GEMM call in the rocBLAS trace);
//! * `indirect_link_only_same_scenario` — fallback catalog files were read and kernels were
//!   dispatched, but none of them through rocBLAS/Tensile;
//! * `insufficient_evidence` — one of the two layers is missing.
//!
//! The gates are the research workflow's (`g4-fallback-dispatch-link-check.sh`), computed from
//! parsed records; the rocBLAS trace's API lines and `rocblas_internal` backend lines are
//! counted separately (the research counted both as GEMM lines).

use crate::report::StraceReport;
pub use rocpath_docs::strace::{Layer, Link, LinkStatus, RocblasTrace};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_logs::rocblas::Event;

/// Reads a rocBLAS layer trace (rocpath-logs parses each line).
pub fn rocblas_trace(path: &str, text: &str) -> RocblasTrace {
    let mut t = RocblasTrace {
        path: path.to_string(),
        ..RocblasTrace::default()
    };
    let mut shapes: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for (i, l) in text.lines().enumerate() {
        t.lines += 1;
        let lower = l.to_ascii_lowercase();
        if ["gemm", "matmul", "tensile"]
            .iter()
            .any(|w| lower.contains(w))
        {
            t.research_gemm_lines += 1;
        }
        match rocpath_logs::rocblas::parse(l.as_bytes()) {
            Some(Event::Trace(g)) => {
                t.gemm_calls += g.count;
                t.first_gemm_line.get_or_insert((i + 1) as u64);
                *shapes
                    .entry(format!(
                        "{} {} {} {}x{}x{}",
                        g.api, g.trans_a, g.trans_b, g.m, g.n, g.k
                    ))
                    .or_default() += g.count;
            }
            Some(Event::Backend { .. }) => t.backend_lines += 1,
            Some(Event::Api(a)) if a == "rocblas_create_handle" => t.handle_lines += 1,
            _ => {}
        }
    }
    let mut v: Vec<(String, u64)> = shapes.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    t.shapes = v;
    t
}

/// Which half of the evidence is missing, said precisely: the parts of the fallback gate that
/// no split file shows (with the catalog reads that were seen, so the two lines of a report
/// never contradict each other), and whether the dispatch trace was absent or empty.
fn missing(catalog: &StraceReport, trace: Option<&rocpath_trace::Report>) -> String {
    let mut parts = Vec::new();
    if !catalog.fallback_confirmed {
        let r = &catalog.research;
        let absent: Vec<&str> = [
            (r.libggml_hip_openat, "libggml-hip.so"),
            (r.fallback_dat_openat, "a fallback .dat"),
            (r.fallback_hsaco_openat, "a fallback .hsaco"),
        ]
        .iter()
        .filter(|(n, _)| *n == 0)
        .map(|(_, what)| *what)
        .collect();
        let seen = format!(
            "{} libggml-hip, {} fallback .dat and {} fallback .hsaco open(s) in the {} split file(s) given",
            r.libggml_hip_openat, r.fallback_dat_openat, r.fallback_hsaco_openat, catalog.files
        );
        parts.push(if absent.len() == 3 {
            format!("no fallback catalog read ({seen})")
        } else {
            format!(
                "fallback gate not met: no open of {} ({seen}); strace -ff writes one file per process, so the split of the process that opened {} is probably not among the inputs",
                absent.join(" nor "),
                if absent.len() == 1 { "it" } else { "them" }
            )
        });
    }
    match trace {
        None => {
            parts.push("no kernel trace given (--trace): the dispatch half is missing".to_string())
        }
        Some(t) if t.dispatches == 0 => parts.push(format!(
            "the kernel trace ({} file(s)) holds no dispatch",
            t.traces.len()
        )),
        Some(_) => {}
    }
    parts.join("; ")
}

/// Builds the link. `trace` is a kernel-trace report of the same scenario, `rocblas` its
/// rocBLAS layer traces.
pub fn link(
    catalog: &StraceReport,
    trace: Option<&rocpath_trace::Report>,
    rocblas: &[RocblasTrace],
) -> Link {
    let dispatch = trace.is_some_and(|t| t.dispatches > 0);
    let blas_kernels = trace.map_or(0, |t| t.blas_dispatches);
    let gemm_calls: u64 = rocblas.iter().map(|r| r.gemm_calls).sum();
    let direct = blas_kernels > 0 || gemm_calls > 0;
    let fallback = catalog.fallback_confirmed;
    let mut layers = vec![Layer::CatalogRead];
    if trace.is_some() {
        layers.push(Layer::Dispatch);
    }
    if !rocblas.is_empty() {
        layers.push(Layer::RocblasTrace);
    }
    let mut sources: Vec<Locator> = catalog.catalog_read.sources.clone();
    if let Some(t) = trace {
        sources.extend(t.traces.iter().map(|r| Locator::file(&r.path)));
    }
    for r in rocblas {
        let mut l = Locator::file(&r.path);
        if let Some(line) = r.first_gemm_line {
            l = l.with_line(line);
        }
        sources.push(l);
    }
    let (status, mut ev) = if direct {
        (
            LinkStatus::DirectRocblasOrTensileDispatchObserved,
            Evidence::new(Class::Confirmed, Proof::RuntimeVerified, "strace.link.direct").because(format!(
                "rocBLAS/Tensile GEMM seen running ({blas_kernels} Tensile/rocBLAS kernel dispatch(es), {gemm_calls} rocBLAS GEMM call(s)); \
                 which catalog entries served them is not established"
            )),
        )
    } else if fallback && dispatch {
        (
            LinkStatus::IndirectLinkOnlySameScenario,
            Evidence::new(Class::Inferred, Proof::Hypothesis, "strace.link.indirect").because(
                "fallback catalog read and kernels dispatched in the same scenario, but no rocBLAS/Tensile dispatch: \
                 the catalog was loaded, the GEMMs ran elsewhere (ggml's own kernels) — same scenario, not a causal link",
            ),
        )
    } else {
        (
            LinkStatus::InsufficientEvidence,
            Evidence::new(
                Class::Unresolved,
                Proof::RuntimeVerified,
                "strace.link.insufficient",
            )
            .because(missing(catalog, trace)),
        )
    };
    ev.sources = sources;
    Link {
        fallback_confirmed: fallback,
        dispatch_confirmed: dispatch,
        direct_rocblas_or_tensile_dispatch: direct,
        link_status: status,
        blas_kernel_dispatches: blas_kernels,
        rocblas_gemm_calls: gemm_calls,
        layers,
        evidence: ev,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{process, total};

    const GPT: &str = "rocblas_create_handle,atomics_not_allowed\n\
rocblas_set_stream,0x7e0694009520,atomics_not_allowed\n\
rocblas_gemm_ex,T,N,4096,512,2880,1,0x195a280,bf16_r,2880,0x80,bf16_r,2880,0,0x80,bf16_r,4096,0x80,bf16_r,4096,f32_r,0,0,none,atomics_not_allowed\n\
rocblas_internal,rocblas_gemm_tensile_backend,T,N,4096,512,2880,1,0x195a280,2880,0x80,2880,0,0x80,4096,0x80,4096,atomics_not_allowed\n\
rocblas_sgemm,T,N,32,512,2880,1,0x14050d00,2880,0x80,2880,0,0x2441900,32,atomics_not_allowed\n";

    #[test]
    fn rocblas_trace_counts_api_and_backend_apart() {
        let t = rocblas_trace("t.log", GPT);
        assert_eq!(
            (t.lines, t.handle_lines, t.gemm_calls, t.backend_lines),
            (5, 1, 2, 1)
        );
        assert_eq!(t.research_gemm_lines, 3);
        assert_eq!(t.first_gemm_line, Some(3));
        let h = rocblas_trace("h.log", "rocblas_create_handle,atomics_not_allowed\n");
        assert_eq!(
            (h.gemm_calls, h.research_gemm_lines, h.handle_lines),
            (0, 0, 1)
        );
    }

    /// One process's split: its fallback .hsaco opens are read (the catalog-read line is
    /// confirmed) but the .dat was opened by another process. Before, the link said "neither a
    /// fallback catalog read nor a dispatch".
    #[test]
    fn a_single_split_names_the_missing_half() {
        let split = "01:00:00.000001 openat(AT_FDCWD, \"/l/libggml-hip.so\", O_RDONLY) = 3\n\
01:00:00.000003 openat(AT_FDCWD, \"/l/TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback_gfx900.hsaco\", O_RDONLY) = 5\n";
        let cat = total(vec![process("s.1", split)]);
        assert_eq!(cat.catalog_read.rule, "strace.fallback_catalog_read");
        let l = link(&cat, None, &[]);
        assert_eq!(l.link_status, LinkStatus::InsufficientEvidence);
        assert!(!l.evidence.note.contains("neither"), "{}", l.evidence.note);
        assert_eq!(
            l.evidence.note,
            "fallback gate not met: no open of a fallback .dat (1 libggml-hip, 0 fallback .dat and 1 fallback .hsaco open(s) in the 1 split file(s) given); \
strace -ff writes one file per process, so the split of the process that opened it is probably not among the inputs; \
no kernel trace given (--trace): the dispatch half is missing"
        );
        let cat = total(vec![process(
            "s.2",
            "01:00:00.000001 openat(AT_FDCWD, \"/l/x.so\", O_RDONLY) = 3\n",
        )]);
        assert!(
            link(&cat, None, &[])
                .evidence
                .note
                .starts_with("no fallback catalog read (0 libggml-hip")
        );
    }

    #[test]
    fn statuses() {
        let split = "01:00:00.000001 openat(AT_FDCWD, \"/l/libggml-hip.so\", O_RDONLY) = 3\n\
01:00:00.000002 openat(AT_FDCWD, \"/l/TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback.dat\", O_RDONLY) = 4\n\
01:00:00.000003 openat(AT_FDCWD, \"/l/TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback_gfx900.hsaco\", O_RDONLY) = 5\n";
        let cat = total(vec![process("s.1", split)]);
        let l = link(&cat, None, &[]);
        assert_eq!(l.link_status, LinkStatus::InsufficientEvidence);
        assert_eq!(l.evidence.class, Class::Unresolved);
        assert_eq!(
            l.evidence.note,
            "no kernel trace given (--trace): the dispatch half is missing"
        );
        let l = link(&cat, None, &[rocblas_trace("t.log", GPT)]);
        assert_eq!(
            l.link_status,
            LinkStatus::DirectRocblasOrTensileDispatchObserved
        );
        assert_eq!(l.evidence.class, Class::Confirmed);
        assert!(
            l.evidence
                .sources
                .iter()
                .any(|s| s.path == "t.log" && s.line == Some(3))
        );
    }
}
