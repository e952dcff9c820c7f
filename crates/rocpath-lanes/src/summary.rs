//! Lane files → per-lane statistics and pairwise comparisons.
//!
//! A lane file is JSONL: Ollama `/api/generate` responses (Ollama's field names or a harness's
//! `*_ns` names, with or without a `_meta` object), or the records `rocpath lanes run` writes.
//! What the research's files hold is tolerated and counted, never silently dropped: records
//! separated by a literal `\n`, `_meta` records, failed runs (`null` fields, `eval_count: 0`,
//! `{"error": …}`), non-JSON lines, and warm-up records (`"warmup": true`, excluded).

use crate::stats::{self, MannWhitney};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use rocpath_ollama::generate::{Record, line_records};
use rocpath_ollama::input::{self, ReadError, TextLine};
use serde_json::Value;
use std::path::Path;

/// What is compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Metric {
    /// `eval_count / eval_duration`, tokens/s (the default).
    EvalRate,
    /// `eval_count / total_duration`, tokens/s.
    E2eRate,
    /// `prompt_eval_count / prompt_eval_duration`, tokens/s.
    PrefillRate,
    /// Time to first token, ms (`ttft_ms`, `_meta.ttft_ms`).
    TtftMs,
    /// `total_duration`, s.
    TotalS,
    /// `load_duration`, s.
    LoadS,
    /// Wall time of the request or command, s (`wall_s`, `_meta.wall_s`, `duration_s`).
    WallS,
    /// Any numeric field: a key, or a JSON pointer (`/_meta/wall_s`).
    Field(String),
}

impl Metric {
    /// Parses `eval_rate`, `e2e_rate`, `prefill_rate`, `ttft`/`ttft_ms`, `total_s`, `load_s`,
    /// `wall_s`, or `field:NAME`.
    pub fn parse(s: &str) -> Option<Metric> {
        Some(match s {
            "eval_rate" | "eval_tps" => Metric::EvalRate,
            "e2e_rate" => Metric::E2eRate,
            "prefill_rate" => Metric::PrefillRate,
            "ttft" | "ttft_ms" => Metric::TtftMs,
            "total_s" | "total" => Metric::TotalS,
            "load_s" | "load" => Metric::LoadS,
            "wall_s" | "wall" => Metric::WallS,
            _ => Metric::Field(s.strip_prefix("field:")?.to_string()),
        })
    }

    /// Its name.
    pub fn name(&self) -> String {
        match self {
            Metric::EvalRate => "eval_rate".into(),
            Metric::E2eRate => "e2e_rate".into(),
            Metric::PrefillRate => "prefill_rate".into(),
            Metric::TtftMs => "ttft_ms".into(),
            Metric::TotalS => "total_s".into(),
            Metric::LoadS => "load_s".into(),
            Metric::WallS => "wall_s".into(),
            Metric::Field(f) => format!("field:{f}"),
        }
    }

    /// Unit and how it is computed.
    pub fn unit(&self) -> (&'static str, &'static str) {
        match self {
            Metric::EvalRate => ("tokens/s", "eval_count / eval_duration"),
            Metric::E2eRate => ("tokens/s", "eval_count / total_duration"),
            Metric::PrefillRate => ("tokens/s", "prompt_eval_count / prompt_eval_duration"),
            Metric::TtftMs => ("ms", "first token − request start"),
            Metric::TotalS => ("s", "total_duration"),
            Metric::LoadS => ("s", "load_duration"),
            Metric::WallS => ("s", "wall time of the request or command"),
            Metric::Field(_) => ("", "the field's value"),
        }
    }

    /// Whether larger is better (rates) — for the wording only.
    pub fn higher_is_better(&self) -> bool {
        matches!(
            self,
            Metric::EvalRate | Metric::E2eRate | Metric::PrefillRate
        )
    }

    fn num(v: &Value, keys: &[&str]) -> Option<f64> {
        keys.iter().find_map(|k| {
            let x = if k.starts_with('/') {
                v.pointer(k)
            } else {
                v.get(*k)
            };
            x.and_then(Value::as_f64)
        })
    }

    /// The value of a record, if it has one.
    pub fn value(&self, v: &Value) -> Option<f64> {
        let r = rocpath_ollama::generate::response_of(v).rates();
        let x = match self {
            Metric::EvalRate => r.eval_rate,
            Metric::E2eRate => r.e2e_rate,
            Metric::PrefillRate => r.prefill_rate,
            Metric::TotalS => r.total_s,
            Metric::LoadS => r.load_s,
            Metric::TtftMs => Self::num(v, &["ttft_ms", "/_meta/ttft_ms", "ttft_ms_wall"]),
            Metric::WallS => Self::num(v, &["wall_s", "/_meta/wall_s", "duration_s"]),
            Metric::Field(f) => Self::num(v, &[f.as_str()]),
        };
        x.filter(|x| x.is_finite())
    }
}

pub use rocpath_docs::lanes::{Comparison, Lane, LaneVerdict, Summary};

/// Reads a lane from texts `(path, text)`: the same path as [`read_lane_files`], for tests and
/// fuzzing.
pub fn read_lane(name: &str, files: &[(String, String)], metric: &Metric) -> Lane {
    let mut lane = new_lane(name);
    for (path, text) in files {
        lane.files.push(path.clone());
        let mut f = LaneFile::default();
        input::for_each_text_line(text, &mut |l| f.line(&mut lane, metric, l));
        end_file(&mut lane, path, f);
    }
    finish(lane)
}

/// Reads a lane from its files, each streamed with bounded memory (one line at a time; lines
/// longer than [`input::MAX_LINE`] are cut, and count as not JSON). A file that cannot be read
/// (missing, not a regular file) is an error for that file; the lane goes on with the others.
pub fn read_lane_files(name: &str, paths: &[String], metric: &Metric) -> (Lane, Vec<ReadError>) {
    let mut lane = new_lane(name);
    let mut errors = Vec::new();
    for path in paths {
        let mut f = LaneFile::default();
        match input::for_each_line(Path::new(path), &mut |l| f.line(&mut lane, metric, l)) {
            Ok(_) => {
                lane.files.push(path.clone());
                end_file(&mut lane, path, f);
            }
            Err(e) => errors.push(e),
        }
    }
    (finish(lane), errors)
}

/// Per-file state while a lane file is streamed.
#[derive(Default)]
struct LaneFile {
    first_line: Option<u64>,
}

impl LaneFile {
    fn line(&mut self, lane: &mut Lane, metric: &Metric, l: TextLine<'_>) {
        if l.truncated {
            lane.long_lines += 1;
        }
        let mut n = 0u64;
        line_records(l.no, l.text, &mut |r| {
            n += 1;
            self.record(lane, metric, r);
        });
        lane.literal_newline_records += n.saturating_sub(1);
    }

    fn record(&mut self, lane: &mut Lane, metric: &Metric, r: Record) {
        let Ok(v) = r.value else {
            lane.not_json += 1;
            return;
        };
        if !v.is_object() {
            lane.not_json += 1;
            return;
        }
        lane.records += 1;
        if v.get("_meta").is_some() {
            lane.meta_records += 1;
        }
        if v.get("warmup").and_then(Value::as_bool) == Some(true) {
            lane.warmup += 1;
            return;
        }
        match metric.value(&v) {
            Some(x) if !(metric.higher_is_better() && x <= 0.0) => {
                lane.values.push(x);
                self.first_line.get_or_insert(r.line);
            }
            _ => lane.failed += 1,
        }
    }
}

/// A lane before any file is read.
fn new_lane(name: &str) -> Lane {
    Lane {
        name: name.to_string(),
        files: Vec::new(),
        values: Vec::new(),
        stats: None,
        records: 0,
        failed: 0,
        warmup: 0,
        meta_records: 0,
        literal_newline_records: 0,
        not_json: 0,
        long_lines: 0,
        evidence: Evidence::new(Class::Confirmed, Proof::RuntimeVerified, "lanes.values"),
    }
}

/// A file of the lane read: its first line with a value is a source.
fn end_file(lane: &mut Lane, path: &str, f: LaneFile) {
    lane.evidence = lane.evidence.clone().at(match f.first_line {
        Some(l) => Locator::file(path).with_line(l),
        None => Locator::file(path),
    });
}

/// The lane's statistics and the note of its evidence.
fn finish(mut lane: Lane) -> Lane {
    lane.stats = stats::describe(&lane.values);
    if lane.values.is_empty() {
        lane.evidence.class = Class::Unresolved;
        lane.evidence.note = "no record of this lane has a value".into();
    } else {
        lane.evidence.note = format!(
            "{} value(s); {} failed record(s) counted, not used",
            lane.values.len(),
            lane.failed
        );
    }
    lane
}

/// Compares lanes: every later lane against the first, then the other pairs in order.
pub fn summarize(lanes: Vec<Lane>, metric: &Metric, iters: usize, seed: u64) -> Summary {
    let (unit, definition) = metric.unit();
    let mut pairs = Vec::new();
    for j in 1..lanes.len() {
        pairs.push((0, j));
    }
    for i in 1..lanes.len() {
        for j in i + 1..lanes.len() {
            pairs.push((i, j));
        }
    }
    let mut comparisons = Vec::new();
    for (i, j) in pairs {
        let (a, b) = (&lanes[i], &lanes[j]);
        let (Some(sa), Some(sb)) = (a.stats, b.stats) else {
            continue;
        };
        let ratio = sb.median / sa.median;
        let (lo, hi) = stats::bootstrap_ratio_ci(&a.values, &b.values, iters, 0.95, seed)
            .unwrap_or((f64::NAN, f64::NAN));
        let mw: MannWhitney = match stats::mann_whitney(&a.values, &b.values) {
            Some(m) => m,
            None => continue,
        };
        let differ = lo > 1.0 || hi < 1.0;
        let mut ev = if differ {
            Evidence::new(Class::Inferred, Proof::RuntimeVerified, "lanes.differ").because(format!(
                "median {} / {} = {ratio:.3}, 95% bootstrap interval [{lo:.3}, {hi:.3}] excludes 1; Mann-Whitney p = {:.4}",
                b.name, a.name, mw.p_value
            ))
        } else {
            Evidence::new(Class::Unresolved, Proof::RuntimeVerified, "lanes.no_difference_shown").because(format!(
                "median {} / {} = {ratio:.3}, 95% bootstrap interval [{lo:.3}, {hi:.3}] includes 1; Mann-Whitney p = {:.4}",
                b.name, a.name, mw.p_value
            ))
        };
        ev.sources = a
            .evidence
            .sources
            .iter()
            .chain(&b.evidence.sources)
            .cloned()
            .collect();
        comparisons.push(Comparison {
            a: a.name.clone(),
            b: b.name.clone(),
            ratio_of_medians: ratio,
            ci_low: lo,
            ci_high: hi,
            u: mw.u,
            p_value: mw.p_value,
            test: mw.method,
            verdict: if differ {
                LaneVerdict::Differ
            } else {
                LaneVerdict::NoDifferenceShown
            },
            evidence: ev,
        });
    }
    Summary {
        metric: metric.name(),
        unit: unit.to_string(),
        definition: definition.to_string(),
        bootstrap_iterations: iters,
        seed,
        lanes,
        comparisons,
    }
}

/// A lane argument: `NAME=PATH[,PATH…]` or `PATH` (the name is the file stem).
pub fn lane_arg(arg: &str) -> (String, Vec<String>) {
    if let Some((n, p)) = arg.split_once('=') {
        if !n.contains('/') && !n.is_empty() {
            return (n.to_string(), p.split(',').map(str::to_string).collect());
        }
    }
    let stem = std::path::Path::new(arg)
        .file_name()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| arg.to_string());
    let stem = stem
        .strip_suffix(".jsonl")
        .or_else(|| stem.strip_suffix(".json"))
        .unwrap_or(&stem)
        .to_string();
    (stem, vec![arg.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerant_reading() {
        let t = "{\"eval_count\":128,\"eval_duration_ns\":640000000}\n\
{\"eval_count\":0,\"eval_duration_ns\":0,\"total_duration_ns\":null}\n\
{\"error\":\"boom\"}\n\
not json\n\
{\"eval_count\":128,\"eval_duration\":500000000,\"_meta\":{\"run_idx\":1}}\\n{\"eval_count\":128,\"eval_duration\":512000000,\"_meta\":{\"run_idx\":2}}\\n\n\
{\"warmup\":true,\"eval_count\":1,\"eval_duration\":1}\n";
        let l = read_lane("x", &[("x.jsonl".into(), t.into())], &Metric::EvalRate);
        assert_eq!(l.values, vec![200.0, 256.0, 250.0]);
        assert_eq!(
            (
                l.records,
                l.failed,
                l.warmup,
                l.meta_records,
                l.literal_newline_records,
                l.not_json
            ),
            (6, 2, 1, 2, 1, 1)
        );
        assert_eq!(l.stats.unwrap().median, 250.0);
        assert_eq!(l.evidence.sources[0].line, Some(1));
    }

    #[test]
    fn devices_and_fifos_are_refused_the_rest_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f.jsonl");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let good = dir.path().join("g.jsonl");
        std::fs::write(&good, "{\"eval_count\":10,\"eval_duration\":1000000000}\n").unwrap();
        let paths = vec![
            "/dev/zero".to_string(),
            fifo.display().to_string(),
            good.display().to_string(),
        ];
        let (lane, errors) = read_lane_files("a", &paths, &Metric::EvalRate);
        let msgs: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].starts_with("/dev/zero: not a regular file (a character device)"));
        assert!(msgs[1].contains("not a regular file (a FIFO)"));
        assert_eq!(lane.values, vec![10.0]);
        assert_eq!(lane.files, vec![good.display().to_string()]);
    }

    #[test]
    fn a_line_past_the_limit_is_cut_and_counted() {
        let t = format!(
            "{{\"eval_count\":1,\"eval_duration\":1000000000}}\n{{\"x\":\"{}\"}}\n",
            "y".repeat(input::MAX_LINE)
        );
        let l = read_lane("x", &[("x.jsonl".into(), t)], &Metric::EvalRate);
        assert_eq!((l.records, l.not_json, l.long_lines), (1, 1, 1));
    }

    #[test]
    fn lane_names() {
        assert_eq!(
            lane_arg("a=x.jsonl,y.jsonl"),
            ("a".into(), vec!["x.jsonl".into(), "y.jsonl".into()])
        );
        assert_eq!(
            lane_arg("/d/mi25_rocm.jsonl"),
            ("mi25_rocm".into(), vec!["/d/mi25_rocm.jsonl".into()])
        );
        assert_eq!(
            Metric::parse("field:/_meta/wall_s"),
            Some(Metric::Field("/_meta/wall_s".into()))
        );
        assert_eq!(Metric::parse("nonsense"), None);
    }

    #[test]
    fn verdicts() {
        let mk = |name: &str, v: &[f64]| {
            let text: String = v.iter().map(|x| format!("{{\"value\":{x}}}\n")).collect();
            read_lane(
                name,
                &[(format!("{name}.jsonl"), text)],
                &Metric::Field("value".into()),
            )
        };
        let s = summarize(
            vec![
                mk("a", &[1.0, 1.1, 0.9, 1.05, 0.95]),
                mk("b", &[2.0, 2.1, 1.9, 2.05, 1.95]),
                mk("c", &[1.0, 1.1, 0.9, 1.05, 0.96]),
            ],
            &Metric::Field("value".into()),
            2000,
            1,
        );
        assert_eq!(s.comparisons.len(), 3);
        assert_eq!(
            (
                s.comparisons[0].a.as_str(),
                s.comparisons[0].b.as_str(),
                s.comparisons[0].verdict
            ),
            ("a", "b", LaneVerdict::Differ)
        );
        assert_eq!(s.comparisons[1].verdict, LaneVerdict::NoDifferenceShown);
        assert_eq!(s.comparisons[1].evidence.class, Class::Unresolved);
        assert_eq!(
            (s.comparisons[2].a.as_str(), s.comparisons[2].b.as_str()),
            ("b", "c")
        );
    }
}
