//! `lanes run`: real runs, interleaved (A B A B …, warm-ups first), one JSONL per lane.
//!
//! A command lane is `NAME=ENV=… CMD ARGS…`: leading `VAR=value` words set the environment, the
//! rest is the command (shell-like quoting, no shell). Each run goes through the case runner
//! (`rocpath-case`): its own case folder with `stdout.log`, `stderr.log` and `case.json`
//! (exit code or signal, duration, env, hashes), streamed as it comes, Ctrl-C forwarded. The
//! metric is a JSON field of the output, a regex's first group, or the wall time.
//!
//! An Ollama lane is `NAME=key=value …` over the shared request: `model=`, `url=`,
//! `keep_alive=`, `prompt=`, anything else an option (`num_thread=16`). Each run streams
//! `/api/generate` and records the time of every line, so the time to first token is measured,
//! not estimated.

use crate::client::{self, Request};
use crate::summary::Metric;
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a `--lane` argument could not be read; offsets are bytes into the spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// No `=` after the lane's name.
    #[error("--lane {arg:?}: expected NAME=SPEC")]
    NoName {
        /// The argument.
        arg: String,
    },
    /// A name that cannot be a file name.
    #[error(
        "--lane {arg:?}: bad lane name {name:?}; a lane name is not empty and has no `/` or space"
    )]
    BadName {
        /// The argument.
        arg: String,
        /// The name.
        name: String,
    },
    /// A quote that is never closed.
    #[error("unterminated {quote} in {spec:?} (opened at byte {offset}); close it")]
    Unterminated {
        /// The spec.
        spec: String,
        /// `'` or `"`.
        quote: char,
        /// Where it opened.
        offset: usize,
    },
    /// A backslash that ends the spec.
    #[error("dangling \\ in {spec:?} (byte {offset}); write \\\\ for a backslash")]
    DanglingEscape {
        /// The spec.
        spec: String,
        /// Where the backslash is.
        offset: usize,
    },
}

/// Splits a lane spec into words: whitespace-separated, `'…'` and `"…"` quoting, `\` escapes.
pub fn words(s: &str) -> Result<Vec<String>, SpecError> {
    let unterminated = |quote, offset| SpecError::Unterminated {
        spec: s.to_string(),
        quote,
        offset,
    };
    let dangling = |offset| SpecError::DanglingEscape {
        spec: s.to_string(),
        offset,
    };
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut it = s.char_indices();
    while let Some((at, c)) = it.next() {
        match c {
            '\'' => {
                have = true;
                loop {
                    match it.next() {
                        Some((_, '\'')) => break,
                        Some((_, x)) => cur.push(x),
                        None => return Err(unterminated('\'', at)),
                    }
                }
            }
            '"' => {
                have = true;
                loop {
                    match it.next() {
                        Some((_, '"')) => break,
                        Some((e, '\\')) => cur.push(it.next().ok_or_else(|| dangling(e))?.1),
                        Some((_, x)) => cur.push(x),
                        None => return Err(unterminated('"', at)),
                    }
                }
            }
            '\\' => {
                have = true;
                cur.push(it.next().ok_or_else(|| dangling(at))?.1);
            }
            c if c.is_whitespace() => {
                if have {
                    out.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            c => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        out.push(cur);
    }
    Ok(out)
}

fn is_assignment(w: &str) -> Option<(String, String)> {
    let (k, v) = w.split_once('=')?;
    (!k.is_empty()
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !k.starts_with(|c: char| c.is_ascii_digit()))
    .then(|| (k.to_string(), v.to_string()))
}

/// Why lanes could not be run. A run that fails (its command exits non-zero, its request
/// fails) is not an error: it is recorded in its lane file.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A folder or lane file could not be made or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A lane file already exists (lane files are appended to, never replaced).
    #[error("{}: exists; choose another --out", path.display())]
    Exists {
        /// The lane file.
        path: PathBuf,
    },
    /// A command lane without a command.
    #[error(
        "lane {lane}: no command; give NAME=[VAR=value…] CMD ARGS…, or --ollama URL for request lanes"
    )]
    NoCommand {
        /// The lane.
        lane: String,
    },
    /// A run's case could not be made.
    #[error(transparent)]
    Case(#[from] rocpath_case::run::RunError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |error| RunError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// One lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneSpec {
    /// Name.
    pub name: String,
    /// `VAR=value` (command lanes) or `key=value` settings (Ollama lanes).
    pub assignments: Vec<(String, String)>,
    /// The command (empty for Ollama lanes).
    pub command: Vec<String>,
}

/// Parses `NAME=SPEC`.
pub fn lane_spec(arg: &str) -> Result<LaneSpec, SpecError> {
    let (name, spec) = arg.split_once('=').ok_or_else(|| SpecError::NoName {
        arg: arg.to_string(),
    })?;
    if name.is_empty() || name.contains(['/', ' ']) {
        return Err(SpecError::BadName {
            arg: arg.to_string(),
            name: name.to_string(),
        });
    }
    let w = words(spec)?;
    let n = w.iter().take_while(|x| is_assignment(x).is_some()).count();
    Ok(LaneSpec {
        name: name.to_string(),
        assignments: w[..n].iter().filter_map(|x| is_assignment(x)).collect(),
        command: w[n..].to_vec(),
    })
}

/// Where a command's metric comes from.
#[derive(Debug, Clone)]
pub enum MetricSource {
    /// A numeric field (key or JSON pointer) of the last JSON object printed on stdout.
    Json(String),
    /// The first capture group (or the whole match) of the last match in stdout, then stderr.
    Regex(regex::Regex),
    /// Wall time, s.
    Wall,
}

/// The shared Ollama request.
#[derive(Debug, Clone)]
pub struct OllamaBase {
    /// Endpoint (`http://127.0.0.1:11434`).
    pub url: String,
    /// Model.
    pub model: String,
    /// Prompt.
    pub prompt: String,
    /// Options object.
    pub options: Map<String, Value>,
    /// `keep_alive`, if set.
    pub keep_alive: Option<String>,
    /// Per-request timeout.
    pub timeout: Duration,
}

/// Makes a sink for a run's echoed output (a terminal), or none.
pub type EchoFactory = Box<dyn Fn() -> Option<Box<dyn Write + Send>>>;

/// Told after every run: lane, run index, warm-up, value.
pub type Progress = Box<dyn Fn(&str, usize, bool, Option<f64>)>;

/// What to run.
pub struct RunConfig {
    /// Lanes in order.
    pub lanes: Vec<LaneSpec>,
    /// Measured runs per lane.
    pub repeat: usize,
    /// Warm-up runs per lane (recorded with `"warmup": true`, excluded from the summary).
    pub warmup: usize,
    /// Output folder: `<lane>.jsonl` and the run folders.
    pub out: PathBuf,
    /// Command metric.
    pub metric: MetricSource,
    /// Ollama mode.
    pub ollama: Option<OllamaBase>,
    /// Echo sink for command output.
    pub echo: Option<EchoFactory>,
    /// rocpath's version.
    pub tool_version: String,
    /// Called after every run (`lane`, `run`, value).
    pub progress: Option<Progress>,
}

/// What the runs produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// `<lane>.jsonl` files, in lane order.
    pub files: Vec<(String, PathBuf)>,
    /// Runs done.
    pub runs: usize,
    /// Stopped by a signal before the end.
    pub interrupted: bool,
    /// The metric to summarize the files with.
    pub metric: Metric,
}

fn last_json_field(stdout: &str, field: &str) -> Option<f64> {
    stdout.lines().rev().find_map(|l| {
        let v: Value = serde_json::from_str(l.trim()).ok()?;
        let x = if field.starts_with('/') {
            v.pointer(field)
        } else {
            v.get(field)
        };
        x.and_then(|x| {
            x.as_f64()
                .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()))
        })
    })
}

fn regex_value(re: &regex::Regex, texts: &[&str]) -> Option<f64> {
    texts.iter().find_map(|t| {
        let c = re.captures_iter(t).last()?;
        let m = c.get(1).or_else(|| c.get(0))?;
        m.as_str().trim().parse().ok()
    })
}

fn append(path: &Path, v: &Value) -> Result<(), RunError> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_error(path))?;
    let line = format!("{v}\n");
    f.write_all(line.as_bytes())
        .and_then(|_| f.flush())
        .map_err(io_error(path))
}

fn command_run(
    cfg: &RunConfig,
    lane: &LaneSpec,
    idx: usize,
    warmup: bool,
) -> Result<(Value, bool), RunError> {
    let dir = cfg.out.join(&lane.name);
    std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    let name = if warmup {
        format!("warmup-{idx:03}")
    } else {
        format!("run-{idx:03}")
    };
    let opts = rocpath_case::run::RunOptions {
        name,
        out: dir,
        knobs: Vec::new(),
        command: lane.command.iter().map(Into::into).collect(),
        gpu: Vec::new(),
        echo: cfg.echo.as_ref().and_then(|f| f()),
        tool_version: cfg.tool_version.clone(),
        drain_timeout: Duration::from_secs(5),
        env: lane.assignments.clone(),
    };
    let res = rocpath_case::run::run(opts)?;
    let stdout = std::fs::read_to_string(res.dir.join("stdout.log")).unwrap_or_default();
    let stderr = std::fs::read_to_string(res.dir.join("stderr.log")).unwrap_or_default();
    let exit = res.meta.exit.clone();
    let ok = res.meta.status == rocpath_case::meta::RunStatus::Exited
        && exit.as_ref().and_then(|x| x.code) == Some(0);
    let value = if !ok {
        None
    } else {
        match &cfg.metric {
            MetricSource::Json(f) => last_json_field(&stdout, f),
            MetricSource::Regex(re) => regex_value(re, &[&stdout, &stderr]),
            MetricSource::Wall => res.meta.duration_s,
        }
    };
    let interrupted = res.meta.status == rocpath_case::meta::RunStatus::Interrupted;
    Ok((
        json!({
            "lane": lane.name,
            "run": idx,
            "warmup": warmup,
            "value": value,
            "status": res.meta.status,
            "exit_code": exit.as_ref().and_then(|x| x.code),
            "signal": exit.as_ref().and_then(|x| x.signal.clone()),
            "wall_s": res.meta.duration_s,
            "case": res.dir.display().to_string(),
        }),
        interrupted,
    ))
}

fn ollama_run(
    base: &OllamaBase,
    out: &Path,
    lane: &LaneSpec,
    idx: usize,
    warmup: bool,
) -> Result<Value, RunError> {
    let mut req = Request {
        url: base.url.clone(),
        model: base.model.clone(),
        prompt: base.prompt.clone(),
        options: base.options.clone(),
        keep_alive: base.keep_alive.clone(),
        timeout: base.timeout,
    };
    for (k, v) in &lane.assignments {
        match k.as_str() {
            "model" => req.model.clone_from(v),
            "url" => req.url.clone_from(v),
            "prompt" => req.prompt.clone_from(v),
            "keep_alive" => req.keep_alive = Some(v.clone()),
            _ => {
                let val =
                    serde_json::from_str::<Value>(v).unwrap_or_else(|_| Value::String(v.clone()));
                req.options.insert(k.clone(), val);
            }
        }
    }
    let dir = out.join(&lane.name);
    std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    let capture = dir.join(format!(
        "{}-{idx:03}.stream.jsonl",
        if warmup { "warmup" } else { "run" }
    ));
    let r = client::generate(&req, &capture);
    let mut rec = match r {
        Ok(resp) => resp,
        Err(e) => json!({"error": e.to_string()}),
    };
    if let Some(o) = rec.as_object_mut() {
        o.insert("lane".into(), json!(lane.name));
        o.insert("run".into(), json!(idx));
        o.insert("warmup".into(), json!(warmup));
        o.insert(
            "stream_capture".into(),
            json!(capture.display().to_string()),
        );
    }
    Ok(rec)
}

/// Runs the lanes. Lane files are appended to (a run that stops keeps what it did).
pub fn run(cfg: &RunConfig, metric: Metric) -> Result<RunOutcome, RunError> {
    std::fs::create_dir_all(&cfg.out).map_err(io_error(&cfg.out))?;
    let files: Vec<(String, PathBuf)> = cfg
        .lanes
        .iter()
        .map(|l| (l.name.clone(), cfg.out.join(format!("{}.jsonl", l.name))))
        .collect();
    for (_, f) in &files {
        if f.exists() {
            return Err(RunError::Exists { path: f.clone() });
        }
    }
    let mut runs = 0;
    let mut interrupted = false;
    let schedule: Vec<(usize, bool)> = (0..cfg.warmup)
        .map(|i| (i, true))
        .chain((0..cfg.repeat).map(|i| (i, false)))
        .collect();
    'outer: for (idx, warm) in schedule {
        for (li, lane) in cfg.lanes.iter().enumerate() {
            let (rec, stop) = match &cfg.ollama {
                Some(base) => (ollama_run(base, &cfg.out, lane, idx, warm)?, false),
                None => {
                    if lane.command.is_empty() {
                        return Err(RunError::NoCommand {
                            lane: lane.name.clone(),
                        });
                    }
                    command_run(cfg, lane, idx, warm)?
                }
            };
            append(&files[li].1, &rec)?;
            runs += 1;
            if let Some(p) = &cfg.progress {
                p(&lane.name, idx, warm, metric.value(&rec));
            }
            if stop {
                interrupted = true;
                break 'outer;
            }
        }
    }
    Ok(RunOutcome {
        files,
        runs,
        interrupted,
        metric,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_specs() {
        let l = lane_spec("fast=OMP_NUM_THREADS=4 A='x y' sh -c 'echo \"hi there\"'").unwrap();
        assert_eq!(l.name, "fast");
        assert_eq!(
            l.assignments,
            vec![
                ("OMP_NUM_THREADS".into(), "4".into()),
                ("A".into(), "x y".into())
            ]
        );
        assert_eq!(l.command, vec!["sh", "-c", "echo \"hi there\""]);
        assert_eq!(
            lane_spec("noequals"),
            Err(SpecError::NoName {
                arg: "noequals".into()
            })
        );
        assert!(matches!(lane_spec("a/b=x"), Err(SpecError::BadName { .. })));
        let e = lane_spec("a=sh -c 'oops").unwrap_err();
        assert_eq!(
            e,
            SpecError::Unterminated {
                spec: "sh -c 'oops".into(),
                quote: '\'',
                offset: 6
            }
        );
        assert_eq!(
            e.to_string(),
            "unterminated ' in \"sh -c 'oops\" (opened at byte 6); close it"
        );
        assert_eq!(
            words("x \"a\\"),
            Err(SpecError::DanglingEscape {
                spec: "x \"a\\".into(),
                offset: 4
            })
        );
        let o = lane_spec("t16=num_thread=16 model=tinyllama:latest").unwrap();
        assert_eq!(o.assignments.len(), 2);
        assert!(o.command.is_empty());
    }

    #[test]
    fn metric_extraction() {
        assert_eq!(
            last_json_field("noise\n{\"tok_s\": 12.5}\n{\"other\":1}\n", "tok_s"),
            Some(12.5)
        );
        assert_eq!(
            last_json_field("{\"m\":{\"v\":\"3\"}}\n", "/m/v"),
            Some(3.0)
        );
        let re = regex::Regex::new(r"rate=([0-9.]+)").unwrap();
        assert_eq!(
            regex_value(&re, &["rate=1\nrate=2.5\n", "rate=9"]),
            Some(2.5)
        );
        assert_eq!(regex_value(&re, &["", "rate=9"]), Some(9.0));
    }
}
