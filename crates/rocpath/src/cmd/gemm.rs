//! `rocpath explain gemm`: which Tensile kernel a GEMM runs, per shape and GPU — through rocBLAS
//! (Tensile, or hipBLASLt for the calls rocBLAS routes there), or a hipBLASLt matmul query.

use crate::cli::ExplainGemmArgs;
use crate::output::{Printer, Status};
use rayon::prelude::*;
use rocpath_docs::{ErrorItem, schema};
use rocpath_explain::gemm::{self, GemmExplanation, GemmOutcome, Libraries, Spec};
use rocpath_gemm::rocblas::{Call, Settings};
use std::collections::HashMap;
use std::path::PathBuf;

/// What `--env` says of hipBLASLt: its library folder (`HIPBLASLT_TENSILE_LIBPATH`), and the
/// variables TensileLite's switches are read from.
struct Lite {
    libpath: Option<PathBuf>,
    env: HashMap<String, String>,
}

/// The route's settings, and what `--env` says of hipBLASLt.
fn settings(a: &ExplainGemmArgs, p: &Printer) -> anyhow::Result<(Settings, Lite)> {
    let env: HashMap<String, String> = a
        .env
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.to_string()))
                .ok_or_else(|| anyhow::anyhow!("--env {kv:?}: expected NAME=VALUE"))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut s = Settings::from_env(|k| env.get(k).cloned());
    s.atomics_not_allowed = a.atomics_not_allowed;
    s.workspace = a
        .workspace
        .as_deref()
        .map(|w| rocpath_budget::parse_size(w).map_err(|e| anyhow::anyhow!("--workspace: {e}")))
        .transpose()?;
    for k in env.keys() {
        if !rocpath_gemm::rocblas::WATCHED.contains(&k.as_str())
            && !rocpath_gemm::lite::SWITCHES.contains(&k.as_str())
            && k != "HIPBLASLT_TENSILE_LIBPATH"
        {
            p.note(&format!(
                "--env {k}: not a variable the GEMM route reads (ignored)"
            ));
        }
    }
    let lt = Lite {
        libpath: env.get("HIPBLASLT_TENSILE_LIBPATH").map(PathBuf::from),
        env,
    };
    Ok((s, lt))
}

fn calls(a: &ExplainGemmArgs) -> anyhow::Result<(Vec<Call>, Vec<ErrorItem>, bool)> {
    if let Some(line) = &a.line {
        let parsed =
            rocpath_gemm::logline::parse(line).map_err(|e| anyhow::anyhow!("--line: {e}"))?;
        return Ok((vec![parsed.call], Vec::new(), parsed.atomics_not_allowed));
    }
    if let Some(file) = &a.problems {
        let text = rocpath_budget::special::read_small_text(file, 256 << 20)
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let mut lines = text.lines();
        let header = rocpath_gemm::batch::Header::parse(lines.next().unwrap_or(""))
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let mut out = Vec::new();
        let mut errs = Vec::new();
        for (i, l) in lines.enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            match header.call(l, i + 2) {
                Ok((_, c)) => out.push(c),
                Err(e) => errs.push(
                    ErrorItem::at(file.display().to_string(), e.msg).line(Some(e.line as u64)),
                ),
            }
        }
        return Ok((out, errs, false));
    }
    let mut shapes: Vec<(i64, i64, i64)> = a
        .shapes
        .iter()
        .map(|s| gemm::parse_shape(s).map_err(|e| anyhow::anyhow!("--shape: {e}")))
        .collect::<anyhow::Result<_>>()?;
    if let (Some(m), Some(n), Some(k)) = (a.m, a.n, a.k) {
        shapes.insert(0, (m, n, k));
    }
    if shapes.is_empty() {
        anyhow::bail!("give --m, --n and --k, --shape MxNxK, --line LINE or --problems FILE.tsv");
    }
    let calls = shapes
        .into_iter()
        .map(|mnk| {
            gemm::call_from(&Spec {
                ty: a.ty.clone(),
                compute: a.compute_type.clone(),
                output: a.output_type.clone(),
                api: a.api.clone(),
                trans: [a.trans_a.clone(), a.trans_b.clone()],
                mnk,
                batch: a.batch,
                ld: [a.lda, a.ldb, a.ldc],
                alpha: a.alpha,
                beta: a.beta,
                ..Spec::default()
            })
            .map_err(|e| anyhow::anyhow!(e))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok((calls, Vec::new(), false))
}

fn shapes(a: &ExplainGemmArgs) -> anyhow::Result<Vec<(i64, i64, i64)>> {
    let mut shapes: Vec<(i64, i64, i64)> = a
        .shapes
        .iter()
        .map(|s| gemm::parse_shape(s).map_err(|e| anyhow::anyhow!("--shape: {e}")))
        .collect::<anyhow::Result<_>>()?;
    if let (Some(m), Some(n), Some(k)) = (a.m, a.n, a.k) {
        shapes.insert(0, (m, n, k));
    }
    if shapes.is_empty() {
        anyhow::bail!("give --m, --n and --k, --shape MxNxK or --problems FILE.tsv");
    }
    Ok(shapes)
}

/// hipBLASLt matmuls: a problem list in the reference's columns (`id trans_a trans_b m n k
/// batch_count a_type … bias activation requested`), or the shape flags.
fn matmuls(
    a: &ExplainGemmArgs,
) -> anyhow::Result<(Vec<rocpath_gemm::lite::Matmul>, Vec<ErrorItem>)> {
    if let Some(file) = &a.problems {
        let text = rocpath_budget::special::read_small_text(file, 256 << 20)
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let mut lines = text.lines();
        let header = rocpath_gemm::lite::batch::Header::parse(lines.next().unwrap_or(""))
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let mut out = Vec::new();
        let mut errs = Vec::new();
        for (i, l) in lines.enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            match header.matmul(l, i + 2) {
                Ok((_, m)) => out.push(m),
                Err(e) => errs.push(
                    ErrorItem::at(file.display().to_string(), e.msg).line(Some(e.line as u64)),
                ),
            }
        }
        return Ok((out, errs));
    }
    let workspace = a
        .workspace
        .as_deref()
        .map(|w| rocpath_budget::parse_size(w).map_err(|e| anyhow::anyhow!("--workspace: {e}")))
        .transpose()?;
    let out = shapes(a)?
        .into_iter()
        .map(|mnk| {
            gemm::matmul_from(&Spec {
                ty: a.ty.clone(),
                compute: a.compute_type.clone(),
                output: a.output_type.clone(),
                api: None,
                trans: [a.trans_a.clone(), a.trans_b.clone()],
                mnk,
                batch: a.batch,
                ld: [a.lda, a.ldb, a.ldc],
                alpha: a.alpha,
                beta: a.beta,
                bias: a.bias.clone(),
                activation: a.activation.clone(),
                requested: a.requested,
                workspace,
            })
            .map_err(|e| anyhow::anyhow!(e))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok((out, Vec::new()))
}

fn dirs(a: &ExplainGemmArgs) -> anyhow::Result<Vec<PathBuf>> {
    let lt = a.library.as_deref() == Some("hipblaslt");
    let d = if !a.dirs.is_empty() {
        a.dirs.clone()
    } else if lt {
        gemm::default_hipblaslt_dirs()
    } else {
        gemm::default_dirs()
    };
    if d.is_empty() {
        if lt {
            anyhow::bail!(
                "no hipBLASLt library folder found (none under /opt/rocm*/lib/hipblaslt or /usr/lib/*/hipblaslt): give the folder that holds TensileLibrary_lazy_*.dat"
            );
        }
        anyhow::bail!(
            "no rocBLAS catalog folder found (none under /opt/rocm*/lib/rocblas or /usr/lib/*/rocblas): give the folder that holds TensileLibrary_*.dat"
        );
    }
    for x in &d {
        if !x.is_dir() {
            anyhow::bail!(
                "{}: not a folder (give rocBLAS's `…/rocblas/library`)",
                x.display()
            );
        }
    }
    Ok(d)
}

/// Every (folder, problem, device) position, folder first, in the order answers are printed.
fn grid(dirs: usize, problems: usize, devices: usize) -> Vec<(usize, usize, usize)> {
    let mut v = Vec::with_capacity((dirs * problems * devices).min(1 << 24));
    for x in 0..dirs {
        for m in 0..problems {
            for d in 0..devices {
                v.push((x, m, d));
            }
        }
    }
    v
}

pub fn run(a: ExplainGemmArgs, p: &Printer) -> anyhow::Result<Status> {
    let dirs = dirs(&a)?;
    if let Some(k) = &a.kernel {
        return run_kernel(&a, k, &dirs, p);
    }
    if let Some(t) = &a.attribute {
        return run_attribute(&a, t, &dirs, p);
    }
    for t in &a.target {
        super::known_target(t)?;
    }
    let (mut settings, lt) = settings(&a, p)?;
    let devices = a
        .target
        .iter()
        .map(|t| gemm::device(t, a.cu).map_err(|e| anyhow::anyhow!(e)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (rocblas_dirs, lt_dirs) = split_dirs(&a, &dirs, lt.libpath.clone());
    let libs = Libraries::new(super::budget(p)).with_env(|k| lt.env.get(k).cloned());
    let out: Vec<GemmExplanation>;
    let errors;
    if rocblas_dirs.is_empty() {
        // hipBLASLt's own query.
        if a.line.is_some() {
            anyhow::bail!(
                "--line describes a rocBLAS call: give a rocBLAS folder, or the shape flags for hipBLASLt"
            );
        }
        let (matmuls, errs) = matmuls(&a)?;
        errors = errs;
        let single = matmuls.len() == 1 && devices.len() == 1 && lt_dirs.len() == 1;
        let jobs = grid(lt_dirs.len(), matmuls.len(), devices.len());
        out = sweep(p, &jobs, |(x, m, d)| {
            let (dir, from_env) = &lt_dirs[x];
            gemm::explain_hipblaslt(
                &libs,
                dir,
                *from_env,
                &matmuls[m],
                &devices[d],
                single || a.walk,
            )
        });
    } else {
        if a.bias.is_some() || a.activation.is_some() || a.requested.is_some() {
            p.note("--bias, --activation and --requested describe a hipBLASLt query; a rocBLAS call has none (ignored)");
        }
        let (calls, errs, atomics) = calls(&a)?;
        errors = errs;
        settings.atomics_not_allowed |= atomics;
        let hip = lt_dirs.first().map(|(d, e)| (d.as_path(), *e));
        let single = calls.len() == 1 && devices.len() == 1 && rocblas_dirs.len() == 1;
        let jobs = grid(rocblas_dirs.len(), calls.len(), devices.len());
        out = sweep(p, &jobs, |(x, c, d)| {
            gemm::explain_with(
                &libs,
                &rocblas_dirs[x],
                &calls[c],
                &devices[d],
                &settings,
                single || a.walk,
                hip,
            )
        });
    }
    print(&a, p, &out, errors)
}

/// The answers, in JSON, TSV, one explanation or a table; the exit status from their outcomes.
fn print(
    a: &ExplainGemmArgs,
    p: &Printer,
    out: &[GemmExplanation],
    errors: Vec<ErrorItem>,
) -> anyhow::Result<Status> {
    let status = if out.iter().any(|e| e.outcome == GemmOutcome::Unresolved) || !errors.is_empty() {
        Status::Error
    } else if out.iter().all(|e| e.outcome == GemmOutcome::Chosen) {
        Status::Ok
    } else {
        Status::Negative
    };
    if p.global.json {
        p.json(
            &schema::EXPLAIN_GEMM,
            &gemm::GemmDoc {
                explanations: out,
                errors,
            },
        )?;
    } else if a.tsv {
        p.data(&rocpath_render::gemm::gemm_tsv(out))?;
    } else {
        for e in &errors {
            p.error_text(&e.to_string());
        }
        match out {
            [one] => p.data(&rocpath_render::gemm::gemm(one))?,
            _ => p.data(&rocpath_render::gemm::gemm_table(out))?,
        }
    }
    Ok(status)
}

/// rocBLAS folders and hipBLASLt folders (`true`: `HIPBLASLT_TENSILE_LIBPATH`, read as is,
/// first).
fn split_dirs(
    a: &ExplainGemmArgs,
    dirs: &[PathBuf],
    lt_libpath: Option<PathBuf>,
) -> (Vec<PathBuf>, Vec<(PathBuf, bool)>) {
    let mut rocblas_dirs = Vec::new();
    let mut lt_dirs: Vec<(PathBuf, bool)> = Vec::new();
    for d in dirs {
        let lt = match a.library.as_deref() {
            Some(l) => l == "hipblaslt",
            None => rocpath_gemm::lite::library::is_hipblaslt_folder(d),
        };
        if lt {
            lt_dirs.push((d.clone(), false));
        } else {
            rocblas_dirs.push(d.clone());
        }
    }
    if let Some(e) = lt_libpath {
        lt_dirs.insert(0, (e, true));
    }
    (rocblas_dirs, lt_dirs)
}

/// Answers every (folder, problem, device) position on every core: each is answered alone,
/// the threads share the libraries (which load each file once), and the order is the input's.
fn sweep(
    p: &Printer,
    jobs: &[(usize, usize, usize)],
    answer: impl Fn((usize, usize, usize)) -> GemmExplanation + Sync,
) -> Vec<GemmExplanation> {
    let bar = p.counter("predicting", jobs.len() as u64);
    let out = jobs
        .par_iter()
        .map(|&j| {
            let e = answer(j);
            bar.inc(1);
            e
        })
        .collect();
    bar.finish_and_clear();
    out
}

fn run_kernel(
    a: &ExplainGemmArgs,
    k: &str,
    dirs: &[PathBuf],
    p: &Printer,
) -> anyhow::Result<Status> {
    let processor = a.target.first().map(|t| t.processor.clone());
    let (entries, errs) = gemm::find_kernel(dirs, k, processor.as_deref(), &super::budget(p));
    let errors: Vec<ErrorItem> = errs.into_iter().map(ErrorItem::new).collect();
    if p.global.json {
        p.json(
            &schema::EXPLAIN_GEMM_KERNEL,
            &gemm::KernelDoc {
                kernel: k,
                entries: &entries,
                errors,
            },
        )?;
    } else {
        for e in &errors {
            p.error_text(&e.message);
        }
        p.data(&rocpath_render::gemm::kernel_entries(k, &entries))?;
    }
    Ok(if entries.is_empty() {
        Status::Negative
    } else {
        Status::Ok
    })
}

fn run_attribute(
    a: &ExplainGemmArgs,
    trace: &std::path::Path,
    dirs: &[PathBuf],
    p: &Printer,
) -> anyhow::Result<Status> {
    let text = rocpath_budget::special::read_small_text(trace, 512 << 20)
        .map_err(|e| anyhow::anyhow!("{}: {e}", trace.display()))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: {e} (give a `rocpath --json trace` document)",
            trace.display()
        )
    })?;
    let mut doc = doc;
    rocpath_docs::upgrade(&mut doc).map_err(|e| anyhow::anyhow!("{}: {e}", trace.display()))?;
    if doc.get("schema").and_then(|s| s.as_str()) != Some(schema::TRACE.id) {
        anyhow::bail!(
            "{}: not a {} document (make one with `rocpath --json trace DIR`)",
            trace.display(),
            schema::TRACE
        );
    }
    let doc: rocpath_docs::trace::TraceDoc = serde_json::from_value(doc).map_err(|e| {
        anyhow::anyhow!("{}: not a {} document: {e}", trace.display(), schema::TRACE)
    })?;
    let processor = a.target.first().map(|t| t.processor.clone());
    let (out, errs) = gemm::attribute(&doc, trace, dirs, processor.as_deref(), &super::budget(p));
    if out.is_empty() {
        p.note(&format!(
            "{}: no Tensile kernel (Cijk_…) in the trace",
            trace.display()
        ));
    }
    let errors: Vec<ErrorItem> = errs.into_iter().map(ErrorItem::new).collect();
    if p.global.json {
        p.json(
            &schema::EXPLAIN_GEMM_ATTRIBUTION,
            &gemm::AttributionDoc {
                attributions: &out,
                errors,
            },
        )?;
    } else {
        for e in &errors {
            p.error_text(&e.message);
        }
        p.data(&rocpath_render::gemm::attributions(&out))?;
    }
    Ok(if out.iter().all(|x| !x.entries.is_empty()) {
        Status::Ok
    } else {
        Status::Negative
    })
}
