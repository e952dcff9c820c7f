//! `rocpath explain miopen|ggml|rocblas`, `rocpath explain --compare CASE.json`

use crate::cli::{
    ExplainArgs, ExplainCommand, ExplainGgmlArgs, ExplainMiopenArgs, ExplainRocblasArgs,
};
use crate::output::{Printer, Status};
use rocpath_explain::{compare, ggml, miopen, rocblas};
use serde::Serialize;

pub fn run(a: ExplainArgs, p: &Printer) -> anyhow::Result<Status> {
    match (a.command, a.compare) {
        (Some(ExplainCommand::Miopen(m)), _) => run_miopen(m, p),
        (Some(ExplainCommand::Ggml(g)), _) => run_ggml(g, p),
        (Some(ExplainCommand::Rocblas(r)), _) => run_rocblas(r, p),
        (None, Some(file)) => run_compare(&file, &a.db, a.cu, a.target.as_deref(), p),
        (None, None) => {
            anyhow::bail!("explain: give `miopen`, `ggml`, `rocblas` or `--compare CASE.json`")
        }
    }
}

fn run_miopen(a: ExplainMiopenArgs, p: &Printer) -> anyhow::Result<Status> {
    let target = rocpath_arch::TargetId::parse(&a.target)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.target))?;
    let (problems, forced) = match (&a.problem, a.driver.is_empty()) {
        (Some(k), _) => (vec![rocpath_miopen::Problem::from_fdb_key(k)?], None),
        (None, false) => {
            let d = rocpath_miopen::DriverCommand::parse(
                &a.driver,
                rocpath_miopen::Strictness::Strict,
            )?;
            let forced = d.forced_solver().map(str::to_string);
            (d.problems, forced)
        }
        (None, true) => anyhow::bail!("give `--problem KEY` or `-- MIOpenDriver conv …`"),
    };
    let gates_doc = match &a.gates {
        Some(f) => Some((
            f.display().to_string(),
            serde_json::from_slice(
                &std::fs::read(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?,
            )
            .map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?,
        )),
        None => None,
    };
    let mut out = Vec::new();
    for pr in problems {
        let q = miopen::Query {
            device: miopen::Device::new(&target, a.cu),
            db_dir: a.db.clone(),
            user_db: a.user_db.clone(),
            problem: pr,
            forced: forced.clone(),
            gates_doc: gates_doc.clone(),
        };
        out.push(miopen::explain(&q)?);
    }
    if p.global.json {
        // One problem (the usual `-F 1`) prints its explanation at the top level.
        if out.len() == 1 {
            p.json("rocpath.explain.miopen/1", &out[0])?;
        } else {
            #[derive(Serialize)]
            struct Many<'a> {
                problems: &'a [miopen::MiopenExplanation],
            }
            p.json("rocpath.explain.miopen/1", &Many { problems: &out })?;
        }
    } else {
        let text: Vec<String> = out.iter().map(rocpath_render::explain::miopen).collect();
        p.data(&text.join("\n"))?;
    }
    Ok(if out.iter().all(|e| e.predicted.is_some()) {
        Status::Ok
    } else {
        Status::Negative
    })
}

fn run_ggml(a: ExplainGgmlArgs, p: &Printer) -> anyhow::Result<Status> {
    let r = ggml::rules(a.ggml_version.as_deref())?;
    let q = ggml::Query {
        target: a.target.clone(),
        src0_type: a.ty.to_ascii_lowercase(),
        ne11: a.ne11,
        experts: a.experts,
        ne01: a.rows,
    };
    if let Some(sw) = &a.sweep {
        let range = sw.strip_prefix("ne11=").unwrap_or(sw);
        let (x, y) = range
            .split_once("..")
            .and_then(|(x, y)| Some((x.parse::<i64>().ok()?, y.parse::<i64>().ok()?)))
            .filter(|(x, y)| x <= y && *x >= 1 && y - x <= 1 << 20)
            .ok_or_else(|| anyhow::anyhow!("--sweep wants ne11=A..B with 1 <= A <= B"))?;
        let runs = ggml::sweep(&r, &q, x, y)?;
        if p.global.json {
            #[derive(Serialize)]
            struct Run<'a> {
                from: i64,
                to: i64,
                #[serde(flatten)]
                decision: &'a ggml::Decision,
            }
            #[derive(Serialize)]
            struct Sweep<'a> {
                ggml: String,
                runs: Vec<Run<'a>>,
            }
            let runs: Vec<Run> = runs
                .iter()
                .map(|(a, b, d)| Run {
                    from: *a,
                    to: *b,
                    decision: d,
                })
                .collect();
            p.json(
                "rocpath.explain.ggml/1",
                &Sweep {
                    ggml: r.version(),
                    runs,
                },
            )?;
        } else {
            p.data(&rocpath_render::explain::ggml_sweep(&runs))?;
        }
        return Ok(Status::Ok);
    }
    let d = if a.op == "flash_attn" {
        ggml::flash_attn(
            &r,
            &ggml::FaQuery {
                target: a.target,
                head: a.head,
                head_v: a.head,
                batch: a.ne11,
                gqa: a.gqa,
                kv_type: a.ty.to_ascii_lowercase(),
                kv_len: a.kv_len,
            },
        )?
    } else {
        ggml::mul_mat(&r, &q)?
    };
    if p.global.json {
        p.json("rocpath.explain.ggml/1", &d)?;
    } else {
        p.data(&rocpath_render::explain::ggml(&d))?;
    }
    Ok(if d.path == "none" {
        Status::Negative
    } else {
        Status::Ok
    })
}

fn run_rocblas(a: ExplainRocblasArgs, p: &Printer) -> anyhow::Result<Status> {
    let processor = a.target.split(':').next().unwrap_or(&a.target).to_string();
    if rocpath_arch::target(&processor).is_none() {
        anyhow::bail!("unknown gfx target {:?} (see `rocpath arch`)", a.target);
    }
    let q = rocblas::Query {
        processor,
        dtype: a.ty.to_ascii_lowercase(),
        rocblas_dir: a.library_dir,
        hipblaslt_dir: a.hipblaslt_dir,
        use_hipblaslt: std::env::var("ROCBLAS_USE_HIPBLASLT").ok(),
        batched: a.batched,
    };
    let e = rocblas::explain(&q).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown type {:?} (f32, f64, f16, bf16, i8, c32, c64, xf32)",
            a.ty
        )
    })?;
    if p.global.json {
        p.json("rocpath.explain.rocblas/1", &e)?;
    } else {
        p.data(&rocpath_render::explain::rocblas(&e))?;
    }
    Ok(match e.outcome.as_str() {
        "error" => Status::Negative,
        _ => Status::Ok,
    })
}

fn run_compare(
    file: &std::path::Path,
    db: &std::path::Path,
    cu: Option<u32>,
    target: Option<&str>,
    p: &Printer,
) -> anyhow::Result<Status> {
    let bytes = std::fs::read(file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let doc: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    if doc.get("schema").and_then(|s| s.as_str()) == Some("rocpath.trace/1") {
        let rules = rocpath_explain::ggml::rules(None)?;
        let c = rocpath_explain::compare_trace::compare_trace(&doc, file, target, &rules);
        if c.is_empty() {
            let why = if target.is_none() {
                " (the trace names no gfx device: give --target gfxNNN)"
            } else {
                ""
            };
            p.note(&format!(
                "{}: no ggml matrix-multiplication kernel to compare{why}",
                file.display()
            ));
        }
        if p.global.json {
            #[derive(Serialize)]
            struct Doc<'a> {
                comparisons: &'a [rocpath_explain::compare_trace::KernelComparison],
            }
            p.json("rocpath.explain.compare/1", &Doc { comparisons: &c })?;
        } else {
            p.data(&rocpath_render::explain::kernel_comparisons(&c))?;
        }
        return Ok(if c.iter().any(|c| c.verdict == "disagree") {
            Status::Negative
        } else if c.is_empty() {
            Status::Error
        } else {
            Status::Ok
        });
    }
    let c = compare::compare(&doc, file, db, cu);
    if p.global.json {
        #[derive(Serialize)]
        struct Doc<'a> {
            comparisons: &'a [compare::Comparison],
        }
        p.json("rocpath.explain.compare/1", &Doc { comparisons: &c })?;
    } else {
        p.data(&rocpath_render::explain::comparisons(&c))?;
    }
    Ok(if c.iter().any(|c| c.verdict == "disagree") {
        Status::Negative
    } else {
        Status::Ok
    })
}
