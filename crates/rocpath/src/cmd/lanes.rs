//! `rocpath lanes summarize|run`

use crate::cli::{LanesArgs, LanesCommand, LanesRunArgs, LanesSummarizeArgs};
use crate::output::{Printer, Status};
use rocpath_lanes::run::{MetricSource, OllamaBase, RunConfig};
use rocpath_lanes::{Metric, Summary};

fn metric(s: &str) -> anyhow::Result<Metric> {
    Metric::parse(s).ok_or_else(|| {
        anyhow::anyhow!("unknown metric {s:?} (eval_rate, e2e_rate, prefill_rate, ttft_ms, total_s, load_s, wall_s, field:NAME)")
    })
}

fn print(
    p: &Printer,
    s: &Summary,
    out: Option<String>,
    errors: &[rocpath_ollama::input::ReadError],
) -> anyhow::Result<Status> {
    for e in errors {
        p.error_text(&format!("error: {e}\n"));
    }
    if p.global.json {
        p.json(
            &rocpath_docs::schema::LANES,
            &rocpath_lanes::document(s, out, errors),
        )?;
    } else {
        p.data(&rocpath_render::lanes::summary(s))?;
    }
    Ok(if !errors.is_empty() {
        Status::Error
    } else if s.lanes.iter().any(|l| l.stats.is_none()) {
        Status::Negative
    } else {
        Status::Ok
    })
}

pub fn run(a: LanesArgs, p: &Printer) -> anyhow::Result<Status> {
    match a.command {
        LanesCommand::Summarize(a) => summarize(a, p),
        LanesCommand::Run(a) => run_lanes(*a, p),
    }
}

fn summarize(a: LanesSummarizeArgs, p: &Printer) -> anyhow::Result<Status> {
    let m = metric(&a.metric)?;
    let (s, errors) = rocpath_lanes::summarize_files(&a.lanes, &m, a.iterations);
    print(p, &s, None, &errors)
}

/// Where a command lane's metric comes from: `--metric-json`, `--metric-regex`, else the wall
/// time.
fn metric_source(a: &LanesRunArgs) -> anyhow::Result<MetricSource> {
    Ok(match (&a.metric_json, &a.metric_regex) {
        (Some(f), _) => MetricSource::Json(f.clone()),
        (None, Some(r)) => MetricSource::Regex(
            regex::Regex::new(r).map_err(|e| anyhow::anyhow!("--metric-regex: {e}"))?,
        ),
        _ => MetricSource::Wall,
    })
}

/// The shared Ollama request, with `--ollama URL`.
fn ollama_base(a: &LanesRunArgs) -> anyhow::Result<Option<OllamaBase>> {
    let Some(url) = &a.ollama else {
        return Ok(None);
    };
    let options = match serde_json::from_str::<serde_json::Value>(&a.options) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => anyhow::bail!("--options must be a JSON object"),
    };
    Ok(Some(OllamaBase {
        url: url.clone(),
        model: a.model.clone(),
        prompt: a.prompt.clone(),
        options,
        keep_alive: a.keep_alive.clone(),
        timeout: std::time::Duration::from_secs(a.timeout),
    }))
}

fn run_lanes(a: LanesRunArgs, p: &Printer) -> anyhow::Result<Status> {
    let lanes = a
        .lanes
        .iter()
        .map(|l| rocpath_lanes::run::lane_spec(l))
        .collect::<Result<Vec<_>, _>>()?;
    let source = metric_source(&a)?;
    let ollama = ollama_base(&a)?;
    let m = match &a.metric {
        Some(s) => metric(s)?,
        None if ollama.is_some() => Metric::EvalRate,
        None => Metric::Field("value".into()),
    };
    let quiet = p.global.quiet || a.no_echo;
    let cfg = RunConfig {
        lanes,
        repeat: a.repeat,
        warmup: a.warmup,
        out: a.out.clone(),
        metric: source,
        ollama,
        echo: if quiet {
            None
        } else {
            Some(Box::new(|| {
                Some(Box::new(std::io::stderr()) as Box<dyn std::io::Write + Send>)
            }))
        },
        tool_version: env!("CARGO_PKG_VERSION").into(),
        progress: None,
    };
    let outcome = rocpath_lanes::run::run(&cfg, m.clone())?;
    if outcome.interrupted {
        p.note("interrupted: the lane files hold the runs done so far");
    }
    let args: Vec<String> = outcome
        .files
        .iter()
        .map(|(n, f)| format!("{n}={}", f.display()))
        .collect();
    let (s, errors) =
        rocpath_lanes::summarize_files(&args, &outcome.metric, rocpath_lanes::BOOTSTRAP_ITERATIONS);
    let st = print(p, &s, Some(a.out.display().to_string()), &errors)?;
    Ok(if outcome.interrupted {
        Status::Negative
    } else {
        st
    })
}
