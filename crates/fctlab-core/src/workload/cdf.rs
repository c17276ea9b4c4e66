//! Empirical flow-size distributions given as (size, cdf) points: the built-in tables of
//! FCT studies, points from the scenario, or a text file.
//!
//! Two readings of the same points, as the public simulators use them:
//! - *discrete*: the listed sizes are the only values, `P(size_i) = cdf_i - cdf_{i-1}`
//!   (the RC3 authors' ns-3 code draws its 11-point table this way);
//! - *interpolated*: a size is drawn linearly between consecutive points (the HPCC and
//!   YAPS convention), then rounded to the nearest byte. The first point carries the mass
//!   `cdf_0` as an atom (nothing is smaller than the first size).
//!
//! Every draw is at least 1 byte. `mean()` is the exact mean of what `sample` draws,
//! rounding included, because offered loads are computed from it.

use crate::error::{SpecError, SpecResult};
use crate::limits::{shown, MAX_BYTES, MAX_BYTES_SHOWN};
use crate::rng::Rng;
use std::path::Path;

/// How far the last cdf value may sit from 1 and still be read as 1 (printing round-off).
const LAST_CDF_TOLERANCE: f64 = 1e-9;

/// A built-in table: sizes in `unit` bytes, cdf in [0, 1].
struct Builtin {
    name: &'static str,
    unit: f64,
    interpolate: bool,
    points: &'static [[f64; 2]],
}

/// The distributions of shared/reference: RC3's Internet table, DCTCP web search, VL2 data
/// mining (in 1460-byte packets, as pFabric uses it) and Facebook Hadoop.
const BUILTINS: &[Builtin] = &[
    Builtin {
        // RC3 sec. 5.1 and its ns-3 code: 11 sizes in 1460-byte packets, drawn as is.
        name: "rc3-internet",
        unit: 1460.0,
        interpolate: false,
        points: &[
            [1.0, 0.50],
            [2.0, 0.60],
            [3.0, 0.70],
            [5.0, 0.75],
            [7.0, 0.80],
            [40.0, 0.8125],
            [72.0, 0.825],
            [137.0, 0.85],
            [267.0, 0.90],
            [1187.0, 0.95],
            [2107.0, 1.00],
        ],
    },
    Builtin {
        name: "websearch",
        unit: 1.0,
        interpolate: true,
        points: &[
            [0.0, 0.0],
            [10e3, 0.15],
            [20e3, 0.20],
            [30e3, 0.30],
            [50e3, 0.40],
            [80e3, 0.53],
            [200e3, 0.60],
            [1e6, 0.70],
            [2e6, 0.80],
            [5e6, 0.90],
            [10e6, 0.97],
            [30e6, 1.00],
        ],
    },
    Builtin {
        name: "datamining",
        unit: 1460.0,
        interpolate: true,
        points: &[
            [1.0, 0.5],
            [2.0, 0.6],
            [3.0, 0.7],
            [7.0, 0.8],
            [267.0, 0.9],
            [2107.0, 0.95],
            [66667.0, 0.99],
            [666667.0, 1.0],
        ],
    },
    Builtin {
        name: "fb-hadoop",
        unit: 1.0,
        interpolate: true,
        points: &[
            [0.0, 0.0],
            [100.0, 0.01],
            [200.0, 0.02],
            [300.0, 0.05],
            [350.0, 0.15],
            [400.0, 0.20],
            [500.0, 0.30],
            [600.0, 0.40],
            [700.0, 0.50],
            [1000.0, 0.60],
            [2000.0, 0.67],
            [7000.0, 0.70],
            [30000.0, 0.72],
            [50000.0, 0.82],
            [80000.0, 0.87],
            [120000.0, 0.90],
            [300000.0, 0.95],
            [1000000.0, 0.975],
            [2000000.0, 0.99],
            [10000000.0, 1.0],
        ],
    },
];

/// Names of the built-in distributions, for `name = "..."` and for error messages.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.name).collect()
}

/// Where points came from, so that a validation error can point at the right place.
enum Origin<'a> {
    Points,
    File { shown: &'a str, lines: &'a [usize] },
    Builtin(&'a str),
}

impl Origin<'_> {
    fn error(&self, index: usize, message: String) -> SpecError {
        match self {
            Origin::Points => SpecError::new(format!("points[{index}]"), message),
            Origin::File { shown, lines } => {
                let line = lines.get(index).copied().unwrap_or(0);
                SpecError::new("file", format!("\"{shown}\" line {line}: {message}"))
            }
            Origin::Builtin(name) => SpecError::new("name", format!("built-in \"{name}\": {message}")),
        }
    }

    fn empty(&self) -> SpecError {
        let message = "expected at least one (size, cdf) point, got none".to_string();
        match self {
            Origin::Points => SpecError::new("points", message),
            Origin::File { shown, .. } => SpecError::new("file", format!("\"{shown}\": {message}")),
            Origin::Builtin(name) => SpecError::new("name", format!("built-in \"{name}\": {message}")),
        }
    }
}

/// A validated empirical distribution of flow sizes in bytes.
#[derive(Clone, Debug)]
pub struct EmpiricalCdf {
    /// Sizes in bytes (unit applied, not yet rounded), non-decreasing.
    sizes: Vec<f64>,
    /// Cumulative probabilities, non-decreasing, the last exactly 1.
    cdf: Vec<f64>,
    interpolate: bool,
    mean: f64,
}

/// A size in bytes as a draw: nearest byte, at least 1.
fn to_bytes(x: f64) -> u64 {
    (x.round() as u64).max(1)
}

/// `integral_0^y (round(t) - t) dt` for y in [0, 1): the sawtooth that rounding adds.
fn rounding_integral(y: f64) -> f64 {
    if y <= 0.5 {
        -y * y / 2.0
    } else {
        y - y * y / 2.0 - 0.5
    }
}

/// Exact mean of `to_bytes(X)` for X uniform on [a, b], 0 <= a <= b.
fn uniform_segment_mean(a: f64, b: f64) -> f64 {
    if b <= a {
        return to_bytes(a) as f64;
    }
    let w = b - a;
    // E[round X] = (a+b)/2 + the sawtooth's integral over [a, b] / w (it has period 1).
    let rounded = (a + b) / 2.0 + (rounding_integral(b.fract()) - rounding_integral(a.fract())) / w;
    // to_bytes lifts the values that round to 0 (X < 0.5) to 1.
    let below_half = ((0.5 - a) / w).clamp(0.0, 1.0);
    rounded + below_half
}

impl EmpiricalCdf {
    /// The built-in distribution `name`, read discretely or interpolated.
    pub fn builtin(name: &str, interpolate: Option<bool>) -> SpecResult<EmpiricalCdf> {
        let Some(b) = BUILTINS.iter().find(|b| b.name == name) else {
            return Err(SpecError::new(
                "name",
                format!("expected one of {}, got \"{name}\"", builtin_names().join(", ")),
            ));
        };
        EmpiricalCdf::validated(b.points, b.unit, interpolate.unwrap_or(b.interpolate), &Origin::Builtin(b.name))
    }

    /// Points given in the scenario, sizes multiplied by `unit` bytes.
    pub fn from_points(points: &[[f64; 2]], unit: f64, interpolate: bool) -> SpecResult<EmpiricalCdf> {
        EmpiricalCdf::validated(points, unit, interpolate, &Origin::Points)
    }

    /// Points read from a text file: one "size cdf" pair per line, whitespace or comma
    /// separated, `#` starts a comment. `file` is relative to `base_dir`.
    pub fn from_file(file: &str, base_dir: &Path, unit: f64, interpolate: bool) -> SpecResult<EmpiricalCdf> {
        let path = base_dir.join(file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| SpecError::new("file", format!("cannot read \"{}\": {e}", path.display())))?;
        let mut points = Vec::new();
        let mut lines = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> =
                line.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()).collect();
            let parsed: Option<Vec<f64>> = fields.iter().map(|t| t.parse::<f64>().ok()).collect();
            match parsed.as_deref() {
                Some([size, cdf]) => {
                    points.push([*size, *cdf]);
                    lines.push(n + 1);
                }
                _ => {
                    return Err(SpecError::new(
                        "file",
                        format!("\"{file}\" line {}: expected two numbers \"size cdf\", got \"{line}\"", n + 1),
                    ))
                }
            }
        }
        EmpiricalCdf::validated(&points, unit, interpolate, &Origin::File { shown: file, lines: &lines })
    }

    /// Checks the points (non-empty, monotone, cdf in [0, 1] ending at 1) and builds.
    fn validated(points: &[[f64; 2]], unit: f64, interpolate: bool, origin: &Origin) -> SpecResult<EmpiricalCdf> {
        if points.is_empty() {
            return Err(origin.empty());
        }
        let last = points.len() - 1;
        let mut sizes = Vec::with_capacity(points.len());
        let mut cdf = Vec::with_capacity(points.len());
        for (i, &[s, c]) in points.iter().enumerate() {
            if !s.is_finite() || s < 0.0 {
                return Err(origin.error(i, format!("expected a size >= 0, got {s}")));
            }
            if s * unit > MAX_BYTES as f64 {
                return Err(
                    origin.error(i, format!("expected sizes <= {MAX_BYTES_SHOWN}, got {} x {unit} B", shown(s)))
                );
            }
            if !c.is_finite() || !(0.0..=1.0 + LAST_CDF_TOLERANCE).contains(&c) {
                return Err(origin.error(i, format!("expected a cdf value in [0, 1], got {c}")));
            }
            if let (Some(&ps), Some(&pc)) = (sizes.last(), cdf.last()) {
                if s * unit < ps {
                    return Err(origin.error(i, format!("expected non-decreasing sizes, got {s} after {}", ps / unit)));
                }
                if c < pc {
                    return Err(origin.error(i, format!("expected non-decreasing cdf values, got {c} after {pc}")));
                }
            }
            sizes.push(s * unit);
            cdf.push(c.min(1.0));
        }
        let end = points[last][1];
        if (end - 1.0).abs() > LAST_CDF_TOLERANCE {
            return Err(origin.error(last, format!("expected the last cdf value to be 1, got {end}")));
        }
        cdf[last] = 1.0;
        let mut dist = EmpiricalCdf { sizes, cdf, interpolate, mean: 0.0 };
        dist.mean = dist.exact_mean();
        Ok(dist)
    }

    /// Whether sizes are interpolated between points (else only the listed sizes occur).
    pub fn is_interpolated(&self) -> bool {
        self.interpolate
    }

    /// The size at cumulative probability `u` in [0, 1): the inverse of the cdf.
    pub fn quantile(&self, u: f64) -> u64 {
        if u < self.cdf[0] {
            return to_bytes(self.sizes[0]);
        }
        // First point whose cdf exceeds u; it exists because the last cdf is 1 > u.
        let i = self.cdf.partition_point(|&c| c <= u).min(self.cdf.len() - 1);
        if !self.interpolate || i == 0 {
            return to_bytes(self.sizes[i]);
        }
        let (s0, s1, c0, c1) = (self.sizes[i - 1], self.sizes[i], self.cdf[i - 1], self.cdf[i]);
        to_bytes(s0 + (s1 - s0) * (u - c0) / (c1 - c0))
    }

    /// One flow size in bytes.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        self.quantile(rng.uniform())
    }

    /// The exact mean of `sample`, in bytes.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The largest size `sample` can return.
    pub fn max_size(&self) -> u64 {
        to_bytes(self.sizes[self.sizes.len() - 1])
    }

    fn exact_mean(&self) -> f64 {
        let mut mean = self.cdf[0] * to_bytes(self.sizes[0]) as f64;
        for i in 1..self.sizes.len() {
            let p = self.cdf[i] - self.cdf[i - 1];
            if p <= 0.0 {
                continue;
            }
            let m = if self.interpolate {
                uniform_segment_mean(self.sizes[i - 1], self.sizes[i])
            } else {
                to_bytes(self.sizes[i]) as f64
            };
            mean += p * m;
        }
        mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mean by brute force: the quantile function averaged over a fine grid of u.
    fn grid_mean(d: &EmpiricalCdf, n: usize) -> f64 {
        (0..n).map(|j| d.quantile((j as f64 + 0.5) / n as f64) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn rc3_internet_mean_and_max_match_the_paper() {
        let d = EmpiricalCdf::builtin("rc3-internet", None).unwrap();
        assert!(!d.is_interpolated());
        // 184.5 packets of 1460 B; the table gives 269,333.5 B exactly.
        assert!((d.mean() - 269_334.0).abs() <= 1.0, "{}", d.mean());
        assert_eq!(d.max_size(), 3_076_220);
    }

    #[test]
    fn builtin_means_match_the_reference_figures() {
        let ws = EmpiricalCdf::builtin("websearch", None).unwrap();
        assert!((ws.mean() - 1.71e6).abs() / 1.71e6 < 0.01, "{}", ws.mean());
        let dm = EmpiricalCdf::builtin("datamining", None).unwrap();
        assert!((dm.mean() - 7.5e6).abs() / 7.5e6 < 0.02, "{}", dm.mean());
        let fb = EmpiricalCdf::builtin("fb-hadoop", None).unwrap();
        assert!((fb.mean() - 120e3).abs() / 120e3 < 0.05, "{}", fb.mean());
    }

    #[test]
    fn mean_is_exact_including_rounding() {
        // Segments of a few bytes make rounding and the 1-byte floor matter.
        let small = EmpiricalCdf::from_points(&[[0.0, 0.1], [0.7, 0.3], [3.2, 0.6], [3.2, 0.7], [9.9, 1.0]], 1.0, true)
            .unwrap();
        for d in [
            small,
            EmpiricalCdf::builtin("websearch", None).unwrap(),
            EmpiricalCdf::builtin("fb-hadoop", None).unwrap(),
        ] {
            let brute = grid_mean(&d, 2_000_000);
            assert!((d.mean() - brute).abs() / brute < 1e-5, "exact {} grid {}", d.mean(), brute);
        }
    }

    #[test]
    fn discrete_draws_only_listed_sizes() {
        let d = EmpiricalCdf::from_points(&[[10.0, 0.25], [20.0, 0.25], [30.0, 1.0]], 1.0, false).unwrap();
        let mut rng = Rng::new(1);
        let mut counts = [0u32; 3];
        for _ in 0..40_000 {
            match d.sample(&mut rng) {
                10 => counts[0] += 1,
                30 => counts[2] += 1,
                other => panic!("drew {other}, which has probability 0"),
            }
        }
        assert!((counts[0] as f64 / 40_000.0 - 0.25).abs() < 0.01, "{counts:?}");
    }

    #[test]
    fn first_point_is_an_atom_when_interpolated() {
        // Data mining: half of the flows are exactly one 1460-byte packet.
        let d = EmpiricalCdf::builtin("datamining", None).unwrap();
        assert_eq!(d.quantile(0.0), 1460);
        assert_eq!(d.quantile(0.4999), 1460);
        assert_eq!(d.quantile(0.55), 2190);
    }

    #[test]
    fn file_points_with_comments_and_commas() {
        let dir = std::env::temp_dir().join(format!("fctlab-cdf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("s.cdf"), "# size cdf\n100 0.5\n\n200, 1.0  # end\n").unwrap();
        let d = EmpiricalCdf::from_file("s.cdf", &dir, 1.0, false).unwrap();
        assert_eq!((d.quantile(0.1), d.quantile(0.9)), (100, 200));
        std::fs::write(dir.join("bad.cdf"), "100 0.5\n200 0.4\n").unwrap();
        let e = EmpiricalCdf::from_file("bad.cdf", &dir, 1.0, true).unwrap_err();
        assert_eq!(e.field, "file");
        assert!(e.message.contains("line 2") && e.message.contains("0.4 after 0.5"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
