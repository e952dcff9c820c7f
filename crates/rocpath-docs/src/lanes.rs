//! The `rocpath.lanes/2` document: lanes of measured runs, their statistics and their pairwise
//! comparisons. Written by `rocpath lanes summarize`/`run` (`rocpath-lanes`, which computes
//! them), read by the ledger's rules, all through these types.
//!
//! A statistic that is not a finite number (a bootstrap interval that could not be drawn, a
//! ratio of a zero median) is printed as `null`, as `serde_json` prints a NaN, and read back
//! as NaN.

use crate::ErrorItem;
use rocpath_evidence::Evidence;
use serde::{Deserialize, Deserializer, Serialize};

/// Reads a number, `null` as NaN.
fn number<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Descriptive statistics of one lane.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Describe {
    /// Values.
    pub n: usize,
    /// Smallest.
    #[serde(deserialize_with = "number")]
    pub min: f64,
    /// 10th percentile.
    #[serde(deserialize_with = "number")]
    pub p10: f64,
    /// Median.
    #[serde(deserialize_with = "number")]
    pub median: f64,
    /// 90th percentile.
    #[serde(deserialize_with = "number")]
    pub p90: f64,
    /// Largest.
    #[serde(deserialize_with = "number")]
    pub max: f64,
    /// Mean.
    #[serde(deserialize_with = "number")]
    pub mean: f64,
    /// Population standard deviation.
    #[serde(deserialize_with = "number")]
    pub stdev: f64,
    /// Sample standard deviation (n − 1).
    #[serde(deserialize_with = "number")]
    pub stdev_sample: f64,
}

/// One lane read from its file(s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lane {
    /// Name (the file stem, or `NAME=` given).
    pub name: String,
    /// Files.
    pub files: Vec<String>,
    /// Values.
    pub values: Vec<f64>,
    /// Statistics (None without values).
    #[serde(flatten)]
    pub stats: Option<Describe>,
    /// JSON records read.
    pub records: u64,
    /// Records without a value (failed runs: error objects, null or zero durations).
    pub failed: u64,
    /// Warm-up records excluded.
    pub warmup: u64,
    /// Records that carried a `_meta` object.
    pub meta_records: u64,
    /// Records glued with a literal `\n` instead of a newline.
    pub literal_newline_records: u64,
    /// Lines that are not JSON.
    pub not_json: u64,
    /// Lines longer than the limit, cut (and so not JSON).
    #[serde(default, skip_serializing_if = "crate::is_zero")]
    pub long_lines: u64,
    /// Evidence for the values.
    pub evidence: Evidence,
}

/// How the Mann-Whitney p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UTest {
    /// Exactly (no ties, both samples ≤ 50).
    Exact,
    /// By the normal approximation (tie- and continuity-corrected).
    Normal,
}

impl UTest {
    /// As printed.
    pub fn as_str(self) -> &'static str {
        match self {
            UTest::Exact => "exact",
            UTest::Normal => "normal",
        }
    }
}

/// What a comparison shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaneVerdict {
    /// The 95 % interval of the ratio of medians excludes 1.
    Differ,
    /// It includes 1.
    NoDifferenceShown,
}

impl LaneVerdict {
    /// As printed.
    pub fn as_str(self) -> &'static str {
        match self {
            LaneVerdict::Differ => "differ",
            LaneVerdict::NoDifferenceShown => "no_difference_shown",
        }
    }
}

/// A pairwise comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Lane a.
    pub a: String,
    /// Lane b.
    pub b: String,
    /// median(b) / median(a).
    #[serde(deserialize_with = "number")]
    pub ratio_of_medians: f64,
    /// Bootstrap 95 % interval, low.
    #[serde(deserialize_with = "number")]
    pub ci_low: f64,
    /// Bootstrap 95 % interval, high.
    #[serde(deserialize_with = "number")]
    pub ci_high: f64,
    /// Mann-Whitney U (of a).
    #[serde(deserialize_with = "number")]
    pub u: f64,
    /// Two-sided p-value.
    #[serde(deserialize_with = "number")]
    pub p_value: f64,
    /// How the p-value was computed.
    pub test: UTest,
    /// Whether the interval excludes 1.
    pub verdict: LaneVerdict,
    /// Evidence.
    pub evidence: Evidence,
}

/// The whole summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Metric name.
    pub metric: String,
    /// Unit.
    pub unit: String,
    /// How it is computed.
    pub definition: String,
    /// Bootstrap resamples.
    pub bootstrap_iterations: usize,
    /// Bootstrap seed.
    pub seed: u64,
    /// Lanes in the order given.
    pub lanes: Vec<Lane>,
    /// Each later lane against the first, then every other pair in order.
    pub comparisons: Vec<Comparison>,
}

/// The `rocpath.lanes/2` document (without its `schema` and `observed`, which every document
/// carries): the summary, the folder `lanes run` wrote the lane files to, and the lane files
/// that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LanesDoc {
    /// The summary.
    #[serde(flatten)]
    pub summary: Summary,
    /// The output folder of `lanes run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out: Option<String>,
    /// Lane files that could not be read.
    #[serde(default)]
    pub errors: Vec<ErrorItem>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocpath_evidence::{Class, Proof};

    #[test]
    fn a_statistic_that_is_not_a_number_reads_back_as_nan() {
        let c = Comparison {
            a: "a".into(),
            b: "b".into(),
            ratio_of_medians: 1.5,
            ci_low: f64::NAN,
            ci_high: f64::NAN,
            u: 3.0,
            p_value: 0.2,
            test: UTest::Exact,
            verdict: LaneVerdict::NoDifferenceShown,
            evidence: Evidence::new(Class::Unresolved, Proof::RuntimeVerified, "lanes.x"),
        };
        let text = serde_json::to_string(&c).unwrap_or_default();
        assert!(text.contains("\"ci_low\":null") && text.contains("\"test\":\"exact\""));
        let back: Comparison = serde_json::from_str(&text).unwrap_or_else(|e| unreachable!("{e}"));
        assert!(back.ci_low.is_nan() && back.ratio_of_medians == 1.5);
        assert_eq!(back.verdict, LaneVerdict::NoDifferenceShown);
    }
}
