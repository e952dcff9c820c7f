#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `lanes run` for real: a CPU workload whose lanes truly differ, and an HTTP server on
//! 127.0.0.1 that speaks Ollama's streaming `/api/generate` protocol with real timing.

use rocpath_lanes::run::{MetricSource, OllamaBase, RunConfig, lane_spec, run};
use rocpath_lanes::{Metric, summarize_files};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

fn cfg(out: &std::path::Path, lanes: &[&str], metric: MetricSource) -> RunConfig {
    RunConfig {
        lanes: lanes.iter().map(|l| lane_spec(l).unwrap()).collect(),
        repeat: 5,
        warmup: 1,
        out: out.to_path_buf(),
        metric,
        ollama: None,
        echo: None,
        tool_version: "test".into(),
        progress: None,
    }
}

/// A shell loop: `N` iterations of arithmetic. Lane "big" does 8× the work of lane "small".
const LOOP: &str = "i=0; while [ $i -lt $N ]; do i=$((i+1)); done; echo \"{\\\"iters\\\": $i}\"";

#[test]
fn cpu_lanes_by_wall_time_truly_differ() {
    let t = tempfile::tempdir().unwrap();
    let small = format!("small=N=20000 sh -c '{LOOP}'");
    let big = format!("big=N=160000 sh -c '{LOOP}'");
    let c = cfg(t.path(), &[&small, &big], MetricSource::Wall);
    let o = run(&c, Metric::WallS).unwrap();
    assert_eq!(o.runs, 12);
    assert!(!o.interrupted);
    // Interleaved: each lane file has 1 warm-up + 5 runs, each with its own case folder.
    let text = std::fs::read_to_string(&o.files[0].1).unwrap();
    assert_eq!(text.lines().count(), 6);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["warmup"], true);
    let case = std::path::PathBuf::from(first["case"].as_str().unwrap());
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("case.json")).unwrap()).unwrap();
    assert_eq!(meta["env_set"]["N"], "20000");
    assert_eq!(meta["status"], "exited");
    let args: Vec<String> = o
        .files
        .iter()
        .map(|(n, p)| format!("{n}={}", p.display()))
        .collect();
    let (s, errors) = summarize_files(&args, &Metric::WallS, 2000);
    assert!(errors.is_empty());
    assert_eq!(s.lanes[0].values.len(), 5);
    assert_eq!(s.lanes[0].warmup, 1);
    let cmp = &s.comparisons[0];
    assert!(cmp.ratio_of_medians > 2.0, "{}", cmp.ratio_of_medians);
    assert_eq!(cmp.verdict.as_str(), "differ");
    assert!(cmp.p_value < 0.05);
}

#[test]
fn json_and_regex_metrics_and_a_failing_lane() {
    let t = tempfile::tempdir().unwrap();
    let ok = format!("ok=N=3000 sh -c '{LOOP}'");
    let c = cfg(
        t.path(),
        &[&ok, "bad=sh -c 'exit 3'"],
        MetricSource::Json("iters".into()),
    );
    let o = run(&c, Metric::Field("value".into())).unwrap();
    let args: Vec<String> = o
        .files
        .iter()
        .map(|(n, p)| format!("{n}={}", p.display()))
        .collect();
    let (s, _) = summarize_files(&args, &Metric::Field("value".into()), 100);
    assert_eq!(s.lanes[0].values, vec![3000.0; 5]);
    // The failing lane's runs are counted, not dropped, and it cannot be compared.
    assert_eq!((s.lanes[1].failed, s.lanes[1].values.len()), (5, 0));
    assert!(s.comparisons.is_empty());
    let rec: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&o.files[1].1)
            .unwrap()
            .lines()
            .nth(1)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(rec["exit_code"], 3);

    let t = tempfile::tempdir().unwrap();
    let c = cfg(
        t.path(),
        &["r=sh -c 'echo rate=4.5 >&2'"],
        MetricSource::Regex(regex::Regex::new(r"rate=([0-9.]+)").unwrap()),
    );
    let o = run(&c, Metric::Field("value".into())).unwrap();
    let (s, _) = summarize_files(
        &[o.files[0].1.display().to_string()],
        &Metric::Field("value".into()),
        100,
    );
    assert_eq!(s.lanes[0].values, vec![4.5; 5]);
}

/// A minimal Ollama: answers `POST /api/generate` with a chunked NDJSON stream of `tokens`
/// chunks, `delay` apart per model, then the final object with the durations it measured.
fn ollama_server(
    delay_by_model: &'static [(&'static str, u64)],
) -> (String, std::thread::JoinHandle<u64>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("http://{}", l.local_addr().unwrap());
    let h = std::thread::spawn(move || {
        let mut served = 0;
        for stream in l.incoming() {
            let mut s = stream.unwrap();
            let mut rd = BufReader::new(s.try_clone().unwrap());
            let mut request_line = String::new();
            rd.read_line(&mut request_line).unwrap();
            let mut len = 0usize;
            loop {
                let mut h = String::new();
                rd.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0u8; len];
            rd.read_exact(&mut body).unwrap();
            let req: serde_json::Value = serde_json::from_slice(&body).unwrap();
            if req["model"] == "quit" {
                s.write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .unwrap();
                break;
            }
            assert!(request_line.starts_with("POST /api/generate"));
            assert_eq!(req["stream"], true);
            let model = req["model"].as_str().unwrap().to_string();
            let delay = delay_by_model
                .iter()
                .find(|(m, _)| *m == model)
                .map_or(5, |x| x.1);
            let tokens = req["options"]["num_predict"].as_u64().unwrap_or(8);
            s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n").unwrap();
            let chunk = |s: &mut std::net::TcpStream, line: String| {
                let line = format!("{line}\n");
                s.write_all(format!("{:x}\r\n{line}\r\n", line.len()).as_bytes())
                    .unwrap();
                s.flush().unwrap();
            };
            let t0 = Instant::now();
            std::thread::sleep(Duration::from_millis(20)); // prompt evaluation
            let pe = t0.elapsed();
            let t1 = Instant::now();
            for i in 0..tokens {
                std::thread::sleep(Duration::from_millis(delay));
                chunk(&mut s, serde_json::json!({"model": model, "response": format!("t{i} "), "done": false}).to_string());
            }
            let ev = t1.elapsed();
            let fin = serde_json::json!({
                "model": model, "response": "", "done": true, "done_reason": "length",
                "total_duration": t0.elapsed().as_nanos() as u64, "load_duration": 1000,
                "prompt_eval_count": 5, "prompt_eval_duration": pe.as_nanos() as u64,
                "eval_count": tokens, "eval_duration": ev.as_nanos() as u64,
            });
            chunk(&mut s, fin.to_string());
            s.write_all(b"0\r\n\r\n").unwrap();
            served += 1;
        }
        served
    });
    (addr, h)
}

#[test]
fn ollama_endpoint_lanes() {
    static DELAYS: &[(&str, u64)] = &[("fast", 4), ("slow", 16)];
    let (url, server) = ollama_server(DELAYS);
    let t = tempfile::tempdir().unwrap();
    let mut options = serde_json::Map::new();
    options.insert("num_predict".into(), serde_json::json!(10));
    let mut c = cfg(
        t.path(),
        &["A=model=fast", "B=model=slow"],
        MetricSource::Wall,
    );
    c.repeat = 4;
    c.ollama = Some(OllamaBase {
        url: url.clone(),
        model: "unused".into(),
        prompt: "Write a concise note.".into(),
        options,
        keep_alive: Some("10m".into()),
        timeout: Duration::from_secs(30),
    });
    let o = run(&c, Metric::EvalRate).unwrap();
    assert_eq!(o.runs, 10);
    let args: Vec<String> = o
        .files
        .iter()
        .map(|(n, p)| format!("{n}={}", p.display()))
        .collect();
    let (s, _) = summarize_files(&args, &Metric::EvalRate, 2000);
    assert_eq!(s.lanes[0].values.len(), 4);
    let (fast, slow) = (
        s.lanes[0].stats.unwrap().median,
        s.lanes[1].stats.unwrap().median,
    );
    assert!(fast > 2.0 * slow, "{fast} vs {slow}");
    assert_eq!(s.comparisons[0].verdict.as_str(), "differ");
    // TTFT was measured from the stream: at least the prompt time plus one token.
    let (tt, _) = summarize_files(&args, &Metric::TtftMs, 100);
    let ttft_fast = tt.lanes[0].stats.unwrap().median;
    assert!((20.0..1000.0).contains(&ttft_fast), "{ttft_fast}");
    assert!(tt.lanes[1].stats.unwrap().median > ttft_fast);
    // Each run kept its stream capture, readable as a stream.
    let rec: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&o.files[0].1)
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    let cap = std::fs::read_to_string(rec["stream_capture"].as_str().unwrap()).unwrap();
    match rocpath_ollama::generate::parse(&cap, Some(0)) {
        rocpath_ollama::generate::Document::Stream(st, Some(_)) => {
            assert_eq!(st.chunks, 10);
            assert_eq!(st.first_token_channel.as_str(), "response");
        }
        other => panic!("{other:?}"),
    }
    // Stop the server.
    let _ = rocpath_lanes::client::generate(
        &rocpath_lanes::client::Request {
            url,
            model: "quit".into(),
            prompt: String::new(),
            options: serde_json::Map::new(),
            keep_alive: None,
            timeout: Duration::from_secs(5),
        },
        &t.path().join("quit.jsonl"),
    );
    assert_eq!(server.join().unwrap(), 10);
}

#[test]
fn unreachable_endpoint_is_a_counted_failure() {
    let t = tempfile::tempdir().unwrap();
    let mut c = cfg(t.path(), &["A=model=x"], MetricSource::Wall);
    c.repeat = 2;
    c.warmup = 0;
    c.ollama = Some(OllamaBase {
        url: "http://127.0.0.1:9".into(),
        model: "x".into(),
        prompt: "p".into(),
        options: serde_json::Map::new(),
        keep_alive: None,
        timeout: Duration::from_secs(5),
    });
    let o = run(&c, Metric::EvalRate).unwrap();
    let (s, _) = summarize_files(
        &[o.files[0].1.display().to_string()],
        &Metric::EvalRate,
        100,
    );
    assert_eq!((s.lanes[0].records, s.lanes[0].failed), (2, 2));
}
