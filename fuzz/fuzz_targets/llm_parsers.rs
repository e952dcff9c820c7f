#![no_main]
//! The LLM-workload parsers on arbitrary bytes: rocprofv3 CSV and JSON, Ollama generate
//! documents, server-log lines, rocm-smi logs, strace lines and splits, lane files.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = rocpath_trace::csv::read(data, Some(1_000));
    let _ = rocpath_trace::csv::min_start(data);
    let _ = rocpath_trace::json::read(data, None, Some(5));
    let _ = rocpath_ollama::generate::parse(&text, None);
    for l in text.lines() {
        let _ = rocpath_ollama::log::parse(l);
        let _ = rocpath_strace::line::parse(l);
    }
    let _ = rocpath_ollama::smi::parse(&text);
    let _ = rocpath_ollama::run::read_run("f", &[("f.log".into(), text.to_string())]);
    let _ = rocpath_strace::report::process("f.1", &text);
    let _ = rocpath_lanes::summary::read_lane("a", &[("a.jsonl".into(), text.to_string())], &rocpath_lanes::Metric::EvalRate);
});
