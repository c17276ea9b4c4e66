//! Flow-size distributions: the scenario's `sizes = { kind = ... }` and the built sampler.
//!
//! Sizes are payload bytes and every draw is at least 1 byte. `SizeDist::mean()` is the
//! exact mean of what `sample` draws, rounding and truncation included, because offered
//! loads are computed from it (`lambda = load * C / (8 * mean)`): a mean that ignores the
//! rounding up to whole packets would overload the network by up to half a packet per flow.

use super::cdf::EmpiricalCdf;
use crate::error::{SpecError, SpecResult};
use crate::quantity::BytesQ;
use crate::rng::Rng;
use serde::Deserialize;
use std::path::Path;

/// A flow-size distribution as the scenario writes it.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeSpec {
    /// Every flow has `size` bytes.
    Fixed { size: BytesQ },
    /// Integers uniform on [min, max], both included.
    Uniform { min: BytesQ, max: BytesQ },
    /// Exponential with mean `mean`, rounded up to a multiple of `round_to` (default 1 B).
    Exponential { mean: BytesQ, round_to: Option<BytesQ> },
    /// Pareto as the RCP work draws it (ns-2), rounded up to `round_to`, cut at `max`.
    Pareto { shape: f64, mean: BytesQ, round_to: Option<BytesQ>, max: Option<BytesQ> },
    /// `small` with probability `p_small`, else `large`.
    Bimodal { small: BytesQ, large: BytesQ, p_small: f64 },
    /// An empirical distribution: exactly one of a built-in `name`, a `file` or `points`.
    Cdf {
        /// A built-in table: rc3-internet, websearch, datamining, fb-hadoop.
        name: Option<String>,
        /// A text file of "size cdf" lines, relative to the scenario.
        file: Option<String>,
        /// (size, cdf) pairs.
        points: Option<Vec<[f64; 2]>>,
        /// Linear between points (default, except rc3-internet) or the listed sizes only.
        interpolate: Option<bool>,
        /// Bytes per size unit of `file` or `points` (default 1).
        unit: Option<BytesQ>,
    },
}

/// A built flow-size sampler.
#[derive(Clone, Debug)]
pub enum SizeDist {
    /// Always the same size.
    Fixed(u64),
    /// Integers uniform on [min, max].
    Uniform { min: u64, max: u64 },
    /// Exponential, rounded up to whole multiples of a unit.
    Exponential(ExponentialSizes),
    /// Pareto (ns-2 convention), rounded up, optionally truncated.
    Pareto(ParetoSizes),
    /// Two sizes.
    Bimodal { small: u64, large: u64, p_small: f64 },
    /// Empirical, discrete or interpolated.
    Cdf(EmpiricalCdf),
}

/// Exponential sizes: `ceil(X / round_to) * round_to`, X exponential, at least one unit.
#[derive(Clone, Debug)]
pub struct ExponentialSizes {
    mean_x: f64,
    round_to: u64,
}

/// Pareto sizes, ns-2 convention: `x = scale / U^(1/shape)`, U uniform on (0, 1],
/// `scale = mean (shape - 1) / shape`; rounded up to `round_to`, then cut at `max`.
#[derive(Clone, Debug)]
pub struct ParetoSizes {
    shape: f64,
    scale: f64,
    round_to: u64,
    max: Option<u64>,
    mean: f64,
}

fn at_least_one_byte(field: &str, q: BytesQ) -> SpecResult<u64> {
    if q.0 == 0 {
        return Err(SpecError::new(field, "expected a size >= 1 byte, got 0"));
    }
    Ok(q.0)
}

fn probability(field: &str, p: f64) -> SpecResult<f64> {
    if !(0.0..=1.0).contains(&p) {
        return Err(SpecError::new(field, format!("expected a probability in [0, 1], got {p}")));
    }
    Ok(p)
}

impl SizeSpec {
    /// Validates and builds the sampler; `file`s are read relative to `base_dir`.
    pub fn build(&self, base_dir: &Path) -> SpecResult<SizeDist> {
        match self {
            SizeSpec::Fixed { size } => Ok(SizeDist::Fixed(at_least_one_byte("size", *size)?)),
            SizeSpec::Uniform { min, max } => {
                let lo = at_least_one_byte("min", *min)?;
                if max.0 < lo {
                    return Err(SpecError::new("max", format!("expected max >= min = {lo}, got {}", max.0)));
                }
                Ok(SizeDist::Uniform { min: lo, max: max.0 })
            }
            SizeSpec::Exponential { mean, round_to } => {
                let mean_x = at_least_one_byte("mean", *mean)? as f64;
                let round_to = at_least_one_byte("round_to", round_to.unwrap_or(BytesQ(1)))?;
                Ok(SizeDist::Exponential(ExponentialSizes { mean_x, round_to }))
            }
            SizeSpec::Pareto { shape, mean, round_to, max } => {
                if !shape.is_finite() || *shape <= 1.0 {
                    return Err(SpecError::new(
                        "shape",
                        format!("expected a shape > 1 (the mean is infinite otherwise), got {shape}"),
                    ));
                }
                let mean = at_least_one_byte("mean", *mean)? as f64;
                let round_to = at_least_one_byte("round_to", round_to.unwrap_or(BytesQ(1)))?;
                let max = max.map(|m| at_least_one_byte("max", m)).transpose()?;
                Ok(SizeDist::Pareto(ParetoSizes::new(*shape, mean, round_to, max)))
            }
            SizeSpec::Bimodal { small, large, p_small } => Ok(SizeDist::Bimodal {
                small: at_least_one_byte("small", *small)?,
                large: at_least_one_byte("large", *large)?,
                p_small: probability("p_small", *p_small)?,
            }),
            SizeSpec::Cdf { name, file, points, interpolate, unit } => {
                let given: Vec<&str> =
                    [("name", name.is_some()), ("file", file.is_some()), ("points", points.is_some())]
                        .iter()
                        .filter(|(_, present)| *present)
                        .map(|(f, _)| *f)
                        .collect();
                if given.len() != 1 {
                    let field = given.first().copied().unwrap_or("name");
                    let seen = if given.is_empty() { "none".to_string() } else { given.join(" and ") };
                    return Err(SpecError::new(
                        field,
                        format!("expected exactly one of name, file, points; got {seen}"),
                    ));
                }
                if let Some(name) = name {
                    if let Some(u) = unit {
                        return Err(SpecError::new(
                            "unit",
                            format!("expected no unit with a built-in name (\"{name}\" has its own), got {}", u.0),
                        ));
                    }
                    return Ok(SizeDist::Cdf(EmpiricalCdf::builtin(name, *interpolate)?));
                }
                let unit = at_least_one_byte("unit", unit.unwrap_or(BytesQ(1)))? as f64;
                let interpolate = interpolate.unwrap_or(true);
                let dist = match (file, points) {
                    (Some(file), _) => EmpiricalCdf::from_file(file, base_dir, unit, interpolate)?,
                    (None, Some(points)) => EmpiricalCdf::from_points(points, unit, interpolate)?,
                    (None, None) => {
                        return Err(SpecError::new("points", "expected exactly one of name, file, points; got none"))
                    }
                };
                Ok(SizeDist::Cdf(dist))
            }
        }
    }
}

impl SizeDist {
    /// One flow size in bytes (>= 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match self {
            SizeDist::Fixed(size) => *size,
            SizeDist::Uniform { min, max } => min + rng.below(max - min + 1),
            SizeDist::Exponential(e) => e.sample(rng),
            SizeDist::Pareto(p) => p.quantile(rng.uniform_open0()),
            SizeDist::Bimodal { small, large, p_small } => {
                if rng.bernoulli(*p_small) {
                    *small
                } else {
                    *large
                }
            }
            SizeDist::Cdf(c) => c.sample(rng),
        }
    }

    /// The exact mean of `sample`, in bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(size) => *size as f64,
            SizeDist::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            SizeDist::Exponential(e) => e.mean(),
            SizeDist::Pareto(p) => p.mean,
            SizeDist::Bimodal { small, large, p_small } => p_small * *small as f64 + (1.0 - p_small) * *large as f64,
            SizeDist::Cdf(c) => c.mean(),
        }
    }

    /// The largest size `sample` can return, if bounded.
    pub fn max_size(&self) -> Option<u64> {
        match self {
            SizeDist::Fixed(size) => Some(*size),
            SizeDist::Uniform { max, .. } => Some(*max),
            SizeDist::Exponential(_) => None,
            SizeDist::Pareto(p) => p.max,
            SizeDist::Bimodal { small, large, .. } => Some(*small.max(large)),
            SizeDist::Cdf(c) => Some(c.max_size()),
        }
    }
}

impl ExponentialSizes {
    fn sample(&self, rng: &mut Rng) -> u64 {
        let units = (rng.exponential(self.mean_x) / self.round_to as f64).ceil().max(1.0);
        (units as u64).saturating_mul(self.round_to)
    }

    /// E[ceil(X/u) u] = u sum_{n>=0} P(X > n u) = u / (1 - e^{-u/m}).
    fn mean(&self) -> f64 {
        let u = self.round_to as f64;
        u / -(-u / self.mean_x).exp_m1()
    }
}

/// Terms of the Pareto tail series summed one by one before the Euler-Maclaurin remainder.
const DIRECT_TERMS: u64 = 1000;

impl ParetoSizes {
    fn new(shape: f64, mean: f64, round_to: u64, max: Option<u64>) -> ParetoSizes {
        let mut p = ParetoSizes { shape, scale: mean * (shape - 1.0) / shape, round_to, max, mean: 0.0 };
        p.mean = p.exact_mean();
        p
    }

    /// The size for U = `u` in (0, 1].
    pub fn quantile(&self, u: f64) -> u64 {
        let x = self.scale / u.powf(1.0 / self.shape);
        let units = (x / self.round_to as f64).ceil().max(1.0);
        // `as` saturates: a draw beyond u64 (U near 2^-53, shape near 1) stays finite.
        let size = (units as u64).saturating_mul(self.round_to);
        self.max.map_or(size, |m| size.min(m))
    }

    /// P(X > t) of the continuous Pareto variable.
    fn survival(&self, t: f64) -> f64 {
        if t <= self.scale {
            1.0
        } else {
            (self.scale / t).powf(self.shape)
        }
    }

    /// sum_{n >= first} P(X > n u): the direct terms, then the Euler-Maclaurin remainder of
    /// c * sum n^-a (c = (k/u)^a), whose next correction is O(N^-(a+5)) relative, far
    /// below 1e-6 with N >= DIRECT_TERMS. For large shapes c overflows ((k/u)^250 at shape 250)
    /// and inf x 0 made the mean NaN, the arrival rate NaN and the gaps zero: there the same
    /// remainder is summed with r = c N^-a = P(X > N u) factored out. Elsewhere the first form
    /// stays, to the last bit, so that the arrival times of every scenario that ran are kept.
    fn tail_series(&self, first: f64) -> f64 {
        let u = self.round_to as f64;
        // Terms with n u <= k are all 1.
        let n_one = (self.scale / u).floor() + 1.0;
        let mut sum = 0.0;
        let mut n = first;
        if n < n_one {
            sum += n_one - n;
            n = n_one;
        }
        for _ in 0..DIRECT_TERMS {
            sum += self.survival(n * u);
            n += 1.0;
        }
        let a = self.shape;
        let c = (self.scale / u).powf(a);
        if c.is_finite() {
            let euler_maclaurin = n.powf(1.0 - a) / (a - 1.0) + n.powf(-a) / 2.0 + a * n.powf(-a - 1.0) / 12.0
                - a * (a + 1.0) * (a + 2.0) * n.powf(-a - 3.0) / 720.0;
            return sum + c * euler_maclaurin;
        }
        let r = self.survival(n * u);
        if r == 0.0 {
            return sum;
        }
        sum + r * (n / (a - 1.0) + 0.5 + a / (12.0 * n) - a * (a + 1.0) * (a + 2.0) / (720.0 * n.powi(3)))
    }

    /// E[min(ceil(X/u) u, M)] = integral_0^M P(Y > t) dt, and P(Y > t) = P(X > n u) on
    /// [n u, (n+1) u): u sum_{n < M/u} P(X > n u), the last step cut at M.
    fn exact_mean(&self) -> f64 {
        let u = self.round_to as f64;
        let full = u * self.tail_series(0.0);
        let Some(m) = self.max else { return full };
        let m = m as f64;
        let whole_steps = (m / u).floor();
        let partial = m - whole_steps * u;
        full - u * self.tail_series(whole_steps) + partial * self.survival(whole_steps * u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> SizeSpec {
        crate::spec_de::tagged(&mut serde_json::Deserializer::from_str(json)).unwrap()
    }

    fn build(json: &str) -> SizeDist {
        spec(json).build(Path::new(".")).unwrap()
    }

    fn build_err(json: &str) -> SpecError {
        spec(json).build(Path::new(".")).unwrap_err()
    }

    fn sample_mean(d: &SizeDist, n: usize, seed: u64) -> f64 {
        let mut rng = Rng::new(seed);
        (0..n).map(|_| d.sample(&mut rng) as f64).sum::<f64>() / n as f64
    }

    /// Guards the contract loads rely on: `mean()` is what `sample()` draws on average.
    fn assert_sample_mean(json: &str, n: usize) {
        let d = build(json);
        let m = sample_mean(&d, n, 42);
        assert!((m - d.mean()).abs() / d.mean() < 0.02, "{json}: sample mean {m}, mean() {}", d.mean());
    }

    #[test]
    fn sample_means_match_mean_for_parametric_distributions() {
        assert_sample_mean(r#"{"kind": "fixed", "size": "1460B"}"#, 100_000);
        assert_sample_mean(r#"{"kind": "uniform", "min": 1, "max": 100000}"#, 100_000);
        assert_sample_mean(r#"{"kind": "exponential", "mean": "100KB"}"#, 100_000);
        assert_sample_mean(r#"{"kind": "exponential", "mean": 3000, "round_to": 1460}"#, 100_000);
        assert_sample_mean(r#"{"kind": "bimodal", "small": 1000, "large": "1MB", "p_small": 0.9}"#, 100_000);
        assert_sample_mean(r#"{"kind": "pareto", "shape": 2.5, "mean": 25000}"#, 100_000);
        assert_sample_mean(r#"{"kind": "pareto", "shape": 2.5, "mean": 25000, "round_to": 1000}"#, 100_000);
        assert_sample_mean(
            r#"{"kind": "pareto", "shape": 1.2, "mean": 25000, "round_to": 1000, "max": "1MB"}"#,
            100_000,
        );
    }

    #[test]
    fn sample_means_match_mean_for_builtin_cdfs() {
        for name in ["rc3-internet", "websearch", "fb-hadoop"] {
            assert_sample_mean(&format!(r#"{{"kind": "cdf", "name": "{name}"}}"#), 100_000);
        }
        // Data mining's last 1% spans 97 MB..973 MB: the standard error of a 10^5-draw mean
        // is 2.5%, so 2% needs 4 10^6 draws to be a test of mean() and not of luck.
        assert_sample_mean(r#"{"kind": "cdf", "name": "datamining"}"#, 4_000_000);
        // The discrete table read interpolated, and an interpolated one read discretely.
        assert_sample_mean(r#"{"kind": "cdf", "name": "rc3-internet", "interpolate": true}"#, 100_000);
        assert_sample_mean(r#"{"kind": "cdf", "name": "websearch", "interpolate": false}"#, 100_000);
    }

    #[test]
    fn rc3_internet_mean_is_269334_bytes() {
        let d = build(r#"{"kind": "cdf", "name": "rc3-internet"}"#);
        assert!((d.mean() - 269_334.0).abs() <= 1.0, "{}", d.mean());
        assert_eq!(d.max_size(), Some(3_076_220));
    }

    #[test]
    fn exponential_mean_counts_rounding_up() {
        let d = build(r#"{"kind": "exponential", "mean": 3000, "round_to": 1460}"#);
        // Rounding up to whole packets adds about half a packet (plus u^2 / 12m = 59 B).
        assert!((d.mean() - 3000.0 - 730.0 - 59.0).abs() < 2.0, "{}", d.mean());
        let brute: f64 = (0..10_000).map(|n| 1460.0 * (-(n as f64) * 1460.0 / 3000.0).exp()).sum();
        assert!((d.mean() - brute).abs() < 1e-6 * brute);
    }

    /// The RCP thesis's Pareto: shape 1.2, mean 25 packets of 1000 B (k = 4.17 packets).
    #[test]
    fn pareto_shape_1_2_median_and_tail_follow_ns2() {
        let rounded = build(r#"{"kind": "pareto", "shape": 1.2, "mean": 25000, "round_to": 1000}"#);
        let raw = build(r#"{"kind": "pareto", "shape": 1.2, "mean": 25000}"#);
        let n = 1_000_000;
        let (mut rng_a, mut rng_b) = (Rng::new(5), Rng::new(6));
        let mut packets: Vec<u64> = (0..n).map(|_| rounded.sample(&mut rng_a)).collect();
        let mut bytes: Vec<u64> = (0..n).map(|_| raw.sample(&mut rng_b)).collect();
        packets.sort_unstable();
        bytes.sort_unstable();
        // Median of X is k 2^(1/1.2) = 7.42 packets; rounded up to whole packets, 8.
        assert_eq!(packets[n / 2], 8000);
        let median = bytes[n / 2] as f64;
        assert!((median - 7424.0).abs() / 7424.0 < 0.01, "{median}");
        // P(X > 1000 packets) = (4.1667/1000)^1.2 = 0.139%.
        let tail = packets.iter().filter(|&&s| s > 1_000_000).count() as f64 / n as f64;
        assert!((tail - 0.00139).abs() < 0.00014, "{tail}");
    }

    #[test]
    fn pareto_mean_matches_brute_force_summation() {
        // Untruncated, shape 1.2: the series converges like N^-0.2, so sum 10^7 terms and
        // bracket the rest between its integral bounds.
        let d = build(r#"{"kind": "pareto", "shape": 1.2, "mean": 25000, "round_to": 1000}"#);
        let (k, a, u) = (25000.0 * 0.2 / 1.2, 1.2f64, 1000.0);
        let survival = |t: f64| if t <= k { 1.0 } else { (k / t).powf(a) };
        let big_n = 10_000_000u64;
        let head: f64 = (0..big_n).map(|n| survival(n as f64 * u)).sum();
        let integral = (k / u).powf(a) * (big_n as f64).powf(1.0 - a) / (a - 1.0);
        let (lo, hi) = (u * (head + integral), u * (head + integral + survival(big_n as f64 * u)));
        assert!(d.mean() >= lo * (1.0 - 1e-9) && d.mean() <= hi * (1.0 + 1e-9), "{} not in [{lo}, {hi}]", d.mean());
        // Rounding up to 1000 B adds about half a packet to the continuous mean of 25000 B.
        assert!(d.mean() > 25_300.0 && d.mean() < 25_700.0, "{}", d.mean());

        // Far from the origin, rounding up to whole bytes adds half a byte to the mean.
        let d = build(r#"{"kind": "pareto", "shape": 2.5, "mean": 1e9}"#);
        assert!((d.mean() - 1e9 - 0.5).abs() < 0.01, "{}", d.mean());

        // Truncated at a max that is not a multiple of round_to: a finite sum, exactly.
        let d = build(r#"{"kind": "pareto", "shape": 1.2, "mean": 25000, "round_to": 1000, "max": 123456789}"#);
        let m = 123_456_789.0;
        let exact: f64 = (0..=123_456u64)
            .map(|n| {
                let t = n as f64 * u;
                survival(t) * ((t + u).min(m) - t)
            })
            .sum();
        assert!((d.mean() - exact).abs() / exact < 1e-9, "{} vs {exact}", d.mean());
        assert_eq!(d.max_size(), Some(123_456_789));
    }

    #[test]
    fn pareto_mean_stays_finite_for_large_shapes() {
        // (k/u)^shape overflows from shape ~ 70 at k = 25000: the mean used to be NaN.
        for shape in [70.0, 250.0, 1e4] {
            let d = build(&format!(r#"{{"kind": "pareto", "shape": {shape}, "mean": 25000}}"#));
            // Nearly all mass just above k = 25000 (shape - 1) / shape, rounded up to a byte.
            assert!((d.mean() - 25000.5).abs() < 0.05, "shape {shape}: {}", d.mean());
            assert_sample_mean(&format!(r#"{{"kind": "pareto", "shape": {shape}, "mean": 25000}}"#), 10_000);
        }
    }

    #[test]
    fn pareto_shape_at_most_one_is_refused() {
        for shape in ["1", "0.8", "-2"] {
            let e = build_err(&format!(r#"{{"kind": "pareto", "shape": {shape}, "mean": 25000}}"#));
            assert_eq!(e.field, "shape");
            assert!(e.message.contains("> 1") && e.message.contains(&format!("got {shape}")), "{e}");
        }
    }

    #[test]
    fn cdf_errors_name_the_field_and_value() {
        let e = build_err(r#"{"kind": "cdf", "points": []}"#);
        assert_eq!(e.field, "points");
        assert!(e.message.contains("at least one") && e.message.contains("got none"), "{e}");

        let e = build_err(r#"{"kind": "cdf", "points": [[100, 0.5], [200, 0.9]]}"#);
        assert_eq!(e.field, "points[1]");
        assert!(e.message.contains("last cdf value to be 1") && e.message.contains("0.9"), "{e}");

        let e = build_err(r#"{"kind": "cdf", "points": [[100, 0.5], [200, 0.3], [300, 1.0]]}"#);
        assert_eq!(e.field, "points[1]");
        assert!(e.message.contains("non-decreasing") && e.message.contains("0.3 after 0.5"), "{e}");

        let e = build_err(r#"{"kind": "cdf", "points": [[300, 0.5], [200, 1.0]]}"#);
        assert!(e.field == "points[1]" && e.message.contains("200 after 300"), "{e}");

        let e = build_err(r#"{"kind": "cdf", "points": [[1e300, 1.0]], "unit": "1KB"}"#);
        assert_eq!(e.field, "points[0]");
        assert!(e.message.contains("expected sizes <= 1e15 B (1 PB), got 1e300 x 1000 B"), "{e}");

        let e = build_err(r#"{"kind": "cdf", "file": "no/such/file.cdf"}"#);
        assert_eq!(e.field, "file");
        assert!(e.message.contains("no/such/file.cdf") && e.message.contains("cannot read"), "{e}");

        let e = build_err(r#"{"kind": "cdf", "name": "websarch"}"#);
        assert_eq!(e.field, "name");
        assert!(
            e.message.contains("\"websarch\"") && e.message.contains("rc3-internet, websearch, datamining, fb-hadoop"),
            "{e}"
        );

        let e = build_err(r#"{"kind": "cdf", "name": "websearch", "points": [[1, 1]]}"#);
        assert!(e.message.contains("exactly one of name, file, points; got name and points"), "{e}");
    }

    #[test]
    fn other_invalid_sizes_are_refused() {
        let e = build_err(r#"{"kind": "uniform", "min": 500, "max": 100}"#);
        assert!(e.field == "max" && e.message.contains("got 100"), "{e}");
        let e = build_err(r#"{"kind": "fixed", "size": 0}"#);
        assert!(e.field == "size" && e.message.contains(">= 1"), "{e}");
        let e = build_err(r#"{"kind": "bimodal", "small": 1, "large": 2, "p_small": 1.5}"#);
        assert!(e.field == "p_small" && e.message.contains("1.5"), "{e}");
    }

    #[test]
    fn unknown_fields_are_refused_by_serde() {
        let e = crate::spec_de::tagged::<_, SizeSpec>(&mut serde_json::Deserializer::from_str(
            r#"{"kind": "pareto", "shape": 1.5, "mean": 1000, "scale": 3}"#,
        ))
        .unwrap_err();
        assert!(e.to_string().contains("unknown field `scale`"), "{e}");
    }
}
