//! The figures of a rocblas-bench result row, which the report lists and the outcome weighs.

/// Rate, time and error of one rocblas-bench row.
pub(crate) struct BenchFigures {
    pub rate: Option<f64>,
    pub rate_unit: Option<&'static str>,
    pub us: Option<f64>,
    pub norm_error: Option<f64>,
}

/// The figures of a rocblas-bench row: rate (`rocblas-Gflops` or `rocblas-GB/s`), `us`,
/// and the first `norm_error*` column.
pub(crate) fn bench_figures(cols: &[(String, String)]) -> BenchFigures {
    let f = |k: &str| {
        cols.iter()
            .find(|(c, _)| c == k)
            .and_then(|(_, v)| v.parse::<f64>().ok())
    };
    let (rate, rate_unit) = match (f("rocblas-Gflops"), f("rocblas-GB/s")) {
        (Some(g), _) => (Some(g), Some("rocblas-Gflops")),
        (None, Some(b)) => (Some(b), Some("rocblas-GB/s")),
        _ => (None, None),
    };
    BenchFigures {
        rate,
        rate_unit,
        us: f("us"),
        norm_error: cols
            .iter()
            .find(|(c, _)| c.starts_with("norm_error"))
            .and_then(|(_, v)| v.parse::<f64>().ok()),
    }
}
