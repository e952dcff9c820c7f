//! Statistics for lane comparisons: order statistics, a seeded bootstrap of the ratio of
//! medians, and the Mann-Whitney U test. Deterministic: the same input gives the same output.
//!
//! Conventions (they reproduce the research summaries): quantiles interpolate linearly between
//! order statistics (`(n-1)·p`, numpy's default and R's type 7); the median is the 0.5 quantile;
//! `stdev` is the population standard deviation (numpy's `std`), `stdev_sample` the n−1 one.

use serde::Serialize;

/// The `p` quantile (0 ≤ p ≤ 1) of sorted values, linear interpolation. `None` when empty.
pub fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let h = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (h - lo as f64))
}

/// Sorted copy (NaNs removed).
pub fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    s.sort_by(f64::total_cmp);
    s
}

pub use rocpath_docs::lanes::{Describe, UTest};

/// Describes values. `None` when empty.
pub fn describe(v: &[f64]) -> Option<Describe> {
    let s = sorted(v);
    let n = s.len();
    if n == 0 {
        return None;
    }
    let mean = s.iter().sum::<f64>() / n as f64;
    let ss: f64 = s.iter().map(|x| (x - mean) * (x - mean)).sum();
    Some(Describe {
        n,
        min: s[0],
        p10: quantile(&s, 0.1)?,
        median: quantile(&s, 0.5)?,
        p90: quantile(&s, 0.9)?,
        max: s[n - 1],
        mean,
        stdev: (ss / n as f64).sqrt(),
        stdev_sample: if n > 1 {
            (ss / (n - 1) as f64).sqrt()
        } else {
            0.0
        },
    })
}

/// SplitMix64: a small, fixed, well-known generator (the bootstrap must not change with a
/// dependency's version).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform index below `n` (n > 0), without modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        let n64 = n as u64;
        let zone = u64::MAX - u64::MAX % n64;
        loop {
            let r = self.next_u64();
            if r < zone {
                return (r % n64) as usize;
            }
        }
    }
}

fn median_of_resample(s: &[f64], rng: &mut SplitMix64, buf: &mut Vec<f64>) -> f64 {
    buf.clear();
    buf.extend((0..s.len()).map(|_| s[rng.below(s.len())]));
    buf.sort_by(f64::total_cmp);
    quantile(buf, 0.5).unwrap_or(f64::NAN)
}

/// Percentile bootstrap confidence interval of median(b) / median(a): `iters` resamples of
/// each lane with replacement, the `(1−level)/2` and `(1+level)/2` quantiles of the ratios.
pub fn bootstrap_ratio_ci(
    a: &[f64],
    b: &[f64],
    iters: usize,
    level: f64,
    seed: u64,
) -> Option<(f64, f64)> {
    let (a, b) = (sorted(a), sorted(b));
    if a.is_empty() || b.is_empty() || iters == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut buf = Vec::with_capacity(a.len().max(b.len()));
    let mut ratios: Vec<f64> = (0..iters)
        .map(|_| {
            let ma = median_of_resample(&a, &mut rng, &mut buf);
            let mb = median_of_resample(&b, &mut rng, &mut buf);
            mb / ma
        })
        .filter(|r| r.is_finite())
        .collect();
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    Some((quantile(&ratios, tail)?, quantile(&ratios, 1.0 - tail)?))
}

/// The Mann-Whitney U test of two samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MannWhitney {
    /// U of the first sample (pairs where a > b, ties counted ½).
    pub u: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// `exact` (no ties, n₁, n₂ ≤ 50) or `normal` (tie-corrected, continuity-corrected).
    pub method: UTest,
}

/// Number of orderings giving each U, for samples of n and m without ties: the coefficients of
/// the Gaussian binomial [n+m choose n]_q.
fn u_distribution(n: usize, m: usize) -> Vec<f64> {
    let deg = n * m;
    let mut c = vec![0.0f64; deg + 1];
    c[0] = 1.0;
    // prod_{i=1..n} (1 - q^{m+i}) / (1 - q^i)
    for i in 1..=n {
        let k = m + i;
        for d in (k..=deg).rev() {
            c[d] -= c[d - k];
        }
        for d in i..=deg {
            c[d] += c[d - i];
        }
    }
    c
}

fn normal_cdf(z: f64) -> f64 {
    // Abramowitz–Stegun 7.1.26 via erf; |error| < 1.5e-7.
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    let erf = if x >= 0.0 { y } else { -y };
    0.5 * (1.0 + erf)
}

/// Mann-Whitney U test, two-sided. `None` when a sample is empty.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return None;
    }
    let mut u: f64 = 0.0;
    for x in a {
        for y in b {
            u += if x > y {
                1.0
            } else if x == y {
                0.5
            } else {
                0.0
            };
        }
    }
    // Ranks of the pooled values, for ties.
    let mut pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    pooled.sort_by(f64::total_cmp);
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < pooled.len() {
        let mut j = i;
        while j + 1 < pooled.len() && pooled[j + 1] == pooled[i] {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        i = j + 1;
    }
    let (nf, mf) = (n as f64, m as f64);
    if tie_term == 0.0 && n <= 50 && m <= 50 {
        let dist = u_distribution(n, m);
        let total: f64 = dist.iter().sum();
        let k = u.round() as usize;
        let lower: f64 = dist[..=k.min(dist.len() - 1)].iter().sum::<f64>() / total;
        let upper: f64 = dist[k.min(dist.len() - 1)..].iter().sum::<f64>() / total;
        return Some(MannWhitney {
            u,
            p_value: (2.0f64 * lower.min(upper)).min(1.0),
            method: UTest::Exact,
        });
    }
    let mu = nf * mf / 2.0;
    let nn = nf + mf;
    let sigma = (nf * mf / 12.0 * ((nn + 1.0) - tie_term / (nn * (nn - 1.0)))).sqrt();
    let p = if sigma == 0.0 {
        1.0
    } else {
        let z = ((u - mu).abs() - 0.5).max(0.0) / sigma;
        (2.0 * (1.0 - normal_cdf(z))).min(1.0)
    };
    Some(MannWhitney {
        u,
        p_value: p,
        method: UTest::Normal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_like_numpy() {
        let s = sorted(&[184.92, 206.72, 201.86, 210.94, 186.08]);
        assert_eq!(quantile(&s, 0.5), Some(201.86));
        // numpy.percentile([...], 10) = 184.92 + 0.4*(186.08-184.92)
        assert!((quantile(&s, 0.1).unwrap() - 185.384).abs() < 1e-9);
        assert_eq!(quantile(&[], 0.5), None);
        let d = describe(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(d.median, 2.5);
        assert!((d.stdev - 1.118_033_988_749_895).abs() < 1e-12);
        assert!((d.stdev_sample - 1.290_994_448_735_805_6).abs() < 1e-12);
    }

    #[test]
    fn u_distribution_counts() {
        // n = m = 2: U ∈ {0,1,2,3,4} with counts 1,1,2,1,1.
        assert_eq!(u_distribution(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
        assert_eq!(u_distribution(5, 5).iter().sum::<f64>(), 252.0);
    }

    #[test]
    fn mann_whitney_values() {
        // Complete separation, 5 vs 5: exact two-sided p = 2/252.
        let mw = mann_whitney(&[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]).unwrap();
        assert_eq!(mw.u, 0.0);
        assert!((mw.p_value - 2.0 / 252.0).abs() < 1e-12);
        assert_eq!(mw.method, UTest::Exact);
        // Identical samples: p = 1.
        let mw = mann_whitney(&[1.0, 2.0], &[1.0, 2.0]).unwrap();
        assert_eq!(mw.method, UTest::Normal);
        assert!(mw.p_value > 0.99);
        // 8 vs 6, U = 9: the exact two-sided p by enumerating all C(14, 8) orderings is
        // 0.059274059274…
        let mw = mann_whitney(
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
            &[3.5, 5.5, 7.5, 9.0, 11.0, 13.0],
        )
        .unwrap();
        assert_eq!(mw.u, 9.0);
        assert!(
            (mw.p_value - 0.059_274_059_274_059_27).abs() < 1e-12,
            "{}",
            mw.p_value
        );
    }

    #[test]
    fn bootstrap_is_deterministic_and_brackets_the_ratio() {
        let a = [200.0, 201.0, 202.0, 199.0, 198.0];
        let b = [250.0, 252.0, 249.0, 251.0, 248.0];
        let ci = bootstrap_ratio_ci(&a, &b, 2000, 0.95, 7).unwrap();
        assert_eq!(ci, bootstrap_ratio_ci(&a, &b, 2000, 0.95, 7).unwrap());
        assert!(ci.0 > 1.2 && ci.1 < 1.3 && ci.0 <= 250.0 / 200.0 && ci.1 >= 250.0 / 200.0);
        assert_eq!(bootstrap_ratio_ci(&[], &b, 10, 0.95, 1), None);
    }
}
