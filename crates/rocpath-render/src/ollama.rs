//! Readable output of `rocpath ollama read`: one block per run.

use crate::{right, table};
use comfy_table::Cell;
use rocpath_docs::ollama::RunReport;
use std::fmt::Write;

fn f(v: Option<f64>, d: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.d$}"))
}

/// The runs for people.
pub fn runs(reports: &[RunReport], notes: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", rates_table(reports));
    let _ = writeln!(
        out,
        "eval tok/s = eval_count / eval_duration; e2e tok/s = eval_count / total_duration (includes load and prefill)"
    );
    for r in reports {
        run_block(&mut out, r);
    }
    for n in notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// One row per run: the verdict, the rates, the GPU's peaks, the failures.
fn rates_table(reports: &[RunReport]) -> comfy_table::Table {
    let mut t = table(&[
        "run",
        "verdict",
        "class",
        "eval tok/s",
        "e2e tok/s",
        "prefill tok/s",
        "load s",
        "GPU use %",
        "VRAM %",
        "power W",
        "failures",
    ]);
    for r in reports {
        let g = r.generate.as_ref().map(|g| g.rates).unwrap_or_default();
        let peak = |k: fn(&rocpath_docs::ollama::GpuPeaks) -> Option<f64>| {
            r.smi
                .as_ref()
                .and_then(|s| s.gpus.iter().filter_map(k).reduce(f64::max))
        };
        let failures: Vec<&str> = r.failures.iter().map(|x| x.kind.as_str()).collect();
        t.add_row(vec![
            Cell::new(&r.run),
            Cell::new(r.verdict.verdict.as_str()),
            Cell::new(r.verdict.evidence.class.as_str()),
            right(f(g.eval_rate, 2)),
            right(f(g.e2e_rate, 2)),
            right(f(g.prefill_rate, 1)),
            right(f(g.load_s, 3)),
            right(f(peak(|p| p.max_use_pct), 0)),
            right(f(peak(|p| p.max_vram_pct), 0)),
            right(f(peak(|p| p.max_power_w), 0)),
            Cell::new(failures.join(",")),
        ]);
    }
    t
}

/// A run's block: the verdict and its signals, the server's facts, the response and stream,
/// failures and notes.
fn run_block(out: &mut String, r: &RunReport) {
    let _ = writeln!(
        out,
        "\n{}: {} [{} / {}] {}",
        r.run,
        r.verdict.verdict.as_str(),
        r.verdict.evidence.class,
        r.verdict.evidence.rule,
        r.verdict.evidence.note
    );
    for s in &r.verdict.signals {
        let _ = writeln!(out, "  {} {:<18} {:<24} {}", s.side, s.what, s.value, s.at);
    }
    let facts = server_facts(&r.server);
    if !facts.is_empty() {
        let _ = writeln!(out, "  {}", facts.join("  "));
    }
    if let Some(g) = &r.generate {
        let resp = &g.response;
        let _ = writeln!(
            out,
            "  response: {} done_reason={} eval_count={} prompt_eval_count={}{}",
            resp.model.clone().unwrap_or_default(),
            resp.done_reason.clone().unwrap_or_default(),
            resp.eval_count
                .map_or_else(|| "-".into(), |v| v.to_string()),
            resp.prompt_eval_count
                .map_or_else(|| "-".into(), |v| v.to_string()),
            if resp.response_chars == 0 && resp.thinking_chars > 0 {
                "  (thinking only)"
            } else {
                ""
            }
        );
        if let Some(s) = &g.stream {
            let _ = writeln!(
                out,
                "  stream: {} chunk(s), first token {} ttft {} ms ({})",
                s.chunks,
                s.first_token_channel,
                f(s.ttft_ms, 3),
                s.ttft_basis.map_or("-", |b| b.as_str())
            );
        }
    }
    for x in &r.failures {
        let at = x
            .evidence
            .sources
            .first()
            .map(|s| s.to_string())
            .unwrap_or_default();
        let _ = writeln!(out, "  failure {}: {}  {at}", x.kind, x.detail);
    }
    for n in &r.notes {
        let _ = writeln!(out, "  note: {n}");
    }
}

/// What the server log says of the run: library, compute, device, layers, threads.
fn server_facts(sv: &rocpath_docs::ollama::Server) -> Vec<String> {
    let mut facts = Vec::new();
    if let Some(l) = &sv.library {
        facts.push(format!("library={l}"));
    }
    if let Some(c) = &sv.compute {
        facts.push(format!("compute={c}"));
    }
    if let Some(d) = sv.devices.first() {
        facts.push(format!(
            "device {} {} wave{}",
            d.name,
            d.target,
            d.wave_size.map_or_else(String::new, |w| w.to_string())
        ));
    }
    if let Some(n) = sv.gpu_layers {
        facts.push(format!("GPULayers={n}"));
    }
    if let Some([a, b]) = sv.offloaded {
        facts.push(format!("offloaded {a}/{b}"));
    }
    if let Some(n) = sv.num_threads {
        facts.push(format!("NumThreads={n}"));
    }
    facts
}
