//! Readable output of `rocpath lanes`.

use crate::{right, table};
use comfy_table::Cell;
use rocpath_docs::lanes::Summary;
use std::fmt::Write;

/// Lanes and comparisons.
pub fn summary(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "metric: {} ({}; {})", s.metric, s.unit, s.definition);
    let mut t = table(&[
        "lane", "n", "min", "p10", "median", "p90", "max", "mean", "stdev", "failed", "warm-up",
    ]);
    for l in &s.lanes {
        let v = |x: Option<f64>| x.map_or_else(|| "-".into(), |x| format!("{x:.2}"));
        let st = l.stats;
        t.add_row(vec![
            Cell::new(&l.name),
            right(st.map_or(0, |s| s.n)),
            right(v(st.map(|s| s.min))),
            right(v(st.map(|s| s.p10))),
            right(v(st.map(|s| s.median))),
            right(v(st.map(|s| s.p90))),
            right(v(st.map(|s| s.max))),
            right(v(st.map(|s| s.mean))),
            right(v(st.map(|s| s.stdev))),
            right(l.failed),
            right(l.warmup),
        ]);
    }
    let _ = writeln!(out, "{t}");
    let mut t = table(&["b / a", "ratio of medians", "95% CI", "U", "p", "verdict"]);
    for c in &s.comparisons {
        t.add_row(vec![
            Cell::new(format!("{} / {}", c.b, c.a)),
            right(format!("{:.3}×", c.ratio_of_medians)),
            right(format!("[{:.3}, {:.3}]", c.ci_low, c.ci_high)),
            right(format!("{}", c.u)),
            right(format!("{:.4} ({})", c.p_value, c.test.as_str())),
            Cell::new(c.verdict.as_str()),
        ]);
    }
    if !s.comparisons.is_empty() {
        let _ = writeln!(out, "{t}");
        let _ = writeln!(
            out,
            "stdev: population; CI: percentile bootstrap, {} resamples, fixed seed",
            s.bootstrap_iterations
        );
    }
    for l in &s.lanes {
        if l.literal_newline_records + l.not_json + l.meta_records > 0 {
            let _ = writeln!(
                out,
                "{}: {} record(s), {} with _meta, {} glued by a literal \\n, {} non-JSON line(s)",
                l.name, l.records, l.meta_records, l.literal_newline_records, l.not_json
            );
        }
    }
    out
}
