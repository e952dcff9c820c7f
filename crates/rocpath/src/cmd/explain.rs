//! `rocpath explain miopen|ggml|rocblas`, `rocpath explain --compare CASE.json`

use crate::cli::{
    ExplainArgs, ExplainCommand, ExplainDeriveArgs, ExplainGgmlArgs, ExplainMiopenArgs,
    ExplainMode, ExplainRocblasArgs,
};
use crate::output::{Printer, Status};
use rocpath_docs::schema;
use rocpath_explain::{compare, ggml, miopen, rocblas};
use rocpath_miopen::model::ir::Model;
use rocpath_miopen::select::Mode;

pub fn run(mut a: ExplainArgs, p: &Printer) -> anyhow::Result<Status> {
    match (a.command.take(), a.compare.clone()) {
        (Some(ExplainCommand::Miopen(m)), _) => run_miopen(m, p),
        (Some(ExplainCommand::MiopenDerive(d)), _) => run_derive(d, p),
        (Some(ExplainCommand::Ggml(g)), _) => run_ggml(g, p),
        (Some(ExplainCommand::Rocblas(r)), _) => run_rocblas(r, p),
        (Some(ExplainCommand::Gemm(g)), _) => super::gemm::run(*g, p),
        (None, Some(file)) => run_compare(&file, &a, p),
        (None, None) => {
            anyhow::bail!(
                "explain: give `miopen`, `ggml`, `rocblas`, `gemm` or `--compare CASE.json`"
            )
        }
    }
}

/// Largest model or document `explain` reads (the pinned model is about 20 MB).
const MAX_EXPLAIN_INPUT: u64 = 1 << 30;

fn load_model(
    path: Option<&std::path::Path>,
    budget: &rocpath_budget::MemoryBudget,
) -> anyhow::Result<std::borrow::Cow<'static, Model>> {
    Ok(match path {
        Some(f) => {
            let (text, _held) = rocpath_budget::input::read_text(
                f,
                budget,
                MAX_EXPLAIN_INPUT,
                "an applicability model",
            )?;
            std::borrow::Cow::Owned(
                rocpath_miopen::model::from_json(&text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?,
            )
        }
        None => std::borrow::Cow::Borrowed(
            rocpath_miopen::model::pinned().map_err(|e| anyhow::anyhow!(e))?,
        ),
    })
}

/// The release of the MIOpen installed beside the database folder, when its library says.
fn installed_release(db: &std::path::Path) -> Option<(String, std::path::PathBuf)> {
    let lib = miopen::install::library_near(db)?;
    let v = miopen::install::version_of(&lib).ok()??;
    Some((v, lib))
}

/// The model and overlay for `--model`/`--release`: a model file as given (the release's
/// overlay applied to it, if it has one), else the shipped model of that release or the
/// nearest (with a note saying so), else the pinned one.
fn model_for(
    path: Option<&std::path::Path>,
    release: Option<&str>,
    p: &Printer,
) -> anyhow::Result<(
    std::borrow::Cow<'static, Model>,
    Option<&'static str>,
    Option<String>,
)> {
    use rocpath_miopen::model::release;
    match (path, release) {
        (None, Some(r)) => {
            let c = release::for_release(r).map_err(|e| anyhow::anyhow!("--release {e}"))?;
            let m = c.shipped.model().map_err(|e| anyhow::anyhow!(e))?;
            Ok((std::borrow::Cow::Borrowed(m), c.overlay, c.note))
        }
        (path, r) => Ok((
            load_model(path, &super::budget(p))?,
            r.and_then(release::overlay_for),
            None,
        )),
    }
}

fn size(v: Option<&str>) -> anyhow::Result<Option<u64>> {
    v.map(|s| rocpath_budget::parse_size(s).map_err(|e| anyhow::anyhow!("{e}")))
        .transpose()
}

fn pairs(v: &[String], what: &str) -> anyhow::Result<Vec<(String, String)>> {
    v.iter()
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.to_string()))
                .ok_or_else(|| anyhow::anyhow!("--{what} {p:?}: expected NAME=VALUE"))
        })
        .collect()
}

fn run_miopen(a: Box<ExplainMiopenArgs>, p: &Printer) -> anyhow::Result<Status> {
    let default_mode = match a.mode {
        Some(ExplainMode::Immediate) => Mode::Immediate,
        _ => Mode::Find,
    };
    let found = match (&a.release, &a.model) {
        (None, None) => installed_release(&a.db),
        _ => None,
    };
    let release = a
        .release
        .clone()
        .or_else(|| found.as_ref().map(|f| f.0.clone()));
    let (problems, mode) = miopen::request::problems(
        a.problem.as_deref(),
        &a.driver,
        default_mode,
        release.as_deref(),
    )?;
    let (model, overlay, mut model_note) = model_for(a.model.as_deref(), release.as_deref(), p)?;
    if let Some((v, lib)) = &found {
        let found = format!("MIOpen {v} read from {}", lib.display());
        model_note = Some(match model_note {
            Some(n) => format!("{found}; {n}"),
            None => found,
        });
    }
    let env = rocpath_miopen::model::context::Env {
        vars: pairs(&a.env, "env")?.into_iter().collect(),
    };
    let build: std::collections::HashMap<String, i64> = pairs(&a.build, "build")?
        .into_iter()
        .map(|(k, v)| {
            v.parse::<i64>()
                .map(|v| (k.clone(), v))
                .map_err(|_| anyhow::anyhow!("--build {k}={v}: the value must be an integer"))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut device = miopen::Device::new(&a.target, a.cu);
    device.vram = size(a.vram.as_deref())?;
    let mut out = Vec::new();
    for pr in problems {
        let q = miopen::Query {
            model: &model,
            release: overlay.map(str::to_string),
            device: device.clone(),
            db_dir: Some(a.db.clone()),
            tunanet_dir: None,
            user_db: a.user_db.clone(),
            user_cache: a.user_cache.clone(),
            record: None,
            problem: pr,
            mode: mode.clone(),
            env: env.clone(),
            build: build.clone(),
            model_note: model_note.clone(),
        };
        out.push(miopen::explain(&q)?);
    }
    gemm_kernels(&mut out, a.rocblas_library.as_deref(), p);
    if p.global.json {
        match out.as_slice() {
            [one] => p.json(&schema::EXPLAIN_MIOPEN, one)?,
            many => p.json(
                &schema::EXPLAIN_MIOPEN,
                &miopen::ExplanationsDoc { problems: many },
            )?,
        }
    } else {
        let text: Vec<String> = out
            .iter()
            .map(|e| rocpath_render::explain::miopen(e, a.all))
            .collect();
        p.data(&text.join("\n"))?;
    }
    Ok(if out.iter().all(|e| e.predicted.is_some()) {
        Status::Ok
    } else {
        Status::Negative
    })
}

/// The kernel of each GEMM solver's rocBLAS call, with the library folder given or found.
fn gemm_kernels(out: &mut [miopen::MiopenExplanation], dir: Option<&std::path::Path>, p: &Printer) {
    if out.iter().all(|e| e.gemms.is_empty()) {
        return;
    }
    let Some(dir) = dir
        .map(std::path::Path::to_path_buf)
        .or_else(|| rocpath_explain::gemm::default_dirs().into_iter().next())
    else {
        for e in out.iter_mut().filter(|e| !e.gemms.is_empty()) {
            e.notes.push("no rocBLAS library folder found (none under /opt/rocm*/lib/rocblas or /usr/lib/*/rocblas): the GEMM solvers' kernels are not predicted (give --rocblas-library)".into());
        }
        return;
    };
    let libs = rocpath_explain::gemm::Libraries::new(super::budget(p));
    for e in out.iter_mut() {
        miopen::gemm::predict_kernels(e, &libs, &dir);
    }
}

fn run_derive(a: ExplainDeriveArgs, p: &Printer) -> anyhow::Result<Status> {
    let bar = p.counter("files parsed", 0);
    let (model, report) = rocpath_miopen_derive::derive(&a.checkout, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    bar.finish_and_clear();
    if let Some(out) = &a.out {
        let text = serde_json::to_string(&model)?;
        rocpath_miopen_derive::write_atomic(out, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
    }
    if p.global.json {
        p.json(
            &schema::EXPLAIN_MIOPEN_DERIVE,
            &rocpath_miopen_derive::DeriveDoc {
                source: &model.source,
                report: &report,
                out: a.out.as_ref().map(|o| o.display().to_string()),
            },
        )?;
    } else {
        p.data(&rocpath_render::explain::derive_report(
            &model.source,
            &report,
        ))?;
    }
    Ok(if report.is_complete() {
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
            p.json(&schema::EXPLAIN_GGML, &ggml::SweepDoc::new(&r, &runs))?;
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
        p.json(&schema::EXPLAIN_GGML, &d)?;
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
    super::known_target(&a.target)?;
    let q = rocblas::Query {
        processor: a.target.processor.clone(),
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
        p.json(&schema::EXPLAIN_ROCBLAS, &e)?;
    } else {
        p.data(&rocpath_render::explain::rocblas(&e))?;
    }
    Ok(match e.outcome {
        rocpath_explain::rocblas::RocblasEnd::Error => Status::Negative,
        _ => Status::Ok,
    })
}

fn run_compare(file: &std::path::Path, a: &ExplainArgs, p: &Printer) -> anyhow::Result<Status> {
    let target = a.target.as_ref();
    let (bytes, _held) = rocpath_budget::input::read_bytes(
        file,
        &super::budget(p),
        MAX_EXPLAIN_INPUT,
        "a rocpath JSON document",
    )?;
    let mut doc: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    rocpath_docs::upgrade(&mut doc).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    if doc.get("schema").and_then(|s| s.as_str()) == Some(schema::TRACE.id) {
        let rules = rocpath_explain::ggml::rules(None)?;
        let trace: rocpath_docs::trace::TraceDoc = serde_json::from_value(doc).map_err(|e| {
            anyhow::anyhow!("{}: not a rocpath.trace document: {e}", file.display())
        })?;
        let c = rocpath_explain::compare_trace::compare_trace(&trace, file, target, &rules);
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
            p.json(
                &schema::EXPLAIN_COMPARE,
                &compare::ComparisonsDoc { comparisons: &c },
            )?;
        } else {
            p.data(&rocpath_render::explain::kernel_comparisons(&c))?;
        }
        return Ok(
            if c.iter()
                .any(|c| c.verdict == rocpath_explain::compare::Verdict::Disagree)
            {
                Status::Negative
            } else if c.is_empty() {
                Status::Error
            } else {
                Status::Ok
            },
        );
    }
    let model = load_model(a.model.as_deref(), &super::budget(p))?;
    let opts = compare::Options {
        model: &model,
        by_release: a.model.is_none(),
        db_dir: Some(a.db.clone()),
        cu: a.cu,
        vram: size(a.vram.as_deref())?,
    };
    let doc: rocpath_docs::case::CaseDoc = serde_json::from_value(doc).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a rocpath.case document (give the output of rocpath --json case read, or of rocpath --json trace): {e}",
            file.display()
        )
    })?;
    let c = compare::compare(&doc, file, &opts);
    if p.global.json {
        p.json(
            &schema::EXPLAIN_COMPARE,
            &compare::ComparisonsDoc { comparisons: &c },
        )?;
    } else {
        p.data(&rocpath_render::explain::comparisons(&c))?;
    }
    Ok(
        if c.iter()
            .any(|c| c.verdict == rocpath_explain::compare::Verdict::Disagree)
        {
            Status::Negative
        } else {
            Status::Ok
        },
    )
}
