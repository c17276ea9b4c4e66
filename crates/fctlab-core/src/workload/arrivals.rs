//! Open-loop arrivals: flows that start at random times, at a rate set by an offered load.
//!
//! Offered load counts payload bits, as the RCP work writes it (rho = lambda E[L] / C):
//! lambda = load * C / (8 * E[L]), with E[L] the exact mean of the size sampler. C is the
//! rate of a named link (`load_on = "link"`), or by default ("access") the sum of the
//! access-link rates of the hosts that can send, so that each sender's access link carries
//! `load` on average (RC3's "30% load" = 30% of every host's 1 Gb/s link).
//!
//! Arrivals fall in [start, stop); the first comes one gap after `start`. Gaps are
//! exponential (Poisson) or Pareto with the same mean 1/lambda (ns-2 convention:
//! scale = mean (shape-1)/shape). Pareto gaps with a shape near 1 make the achieved rate
//! in a finite window fall short of lambda; that is the process, not an error.

use super::pairs::{PairSampler, PairSpec};
use super::sizes::{SizeDist, SizeSpec};
use super::WorkloadCtx;
use crate::error::{SpecError, SpecResult};
use crate::quantity::TimeQ;
use crate::rng::Rng;
use crate::units::Time;
use serde::Deserialize;

/// A share of an entry's flows carried by another transport.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixSpec {
    /// Named transport (from the scenario's `[transports]`).
    pub transport: String,
    /// Probability that a flow uses it, in (0, 1].
    pub fraction: f64,
}

/// The capacity name that means "the access links of the sending hosts".
pub const ACCESS: &str = "access";

pub use crate::limits::MAX_FLOWS_PER_ENTRY;

/// The body of a `poisson` or `pareto` workload entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenLoopSpec {
    /// Pareto shape of the inter-arrival gaps (only for `kind = "pareto"`), > 1.
    pub shape: Option<f64>,
    /// Offered load in (0, 1) of the capacity named by `load_on`.
    pub load: Option<f64>,
    /// Flow arrivals per second (instead of `load`).
    pub rate: Option<f64>,
    /// Named link whose rate `load` is relative to; default "access".
    pub load_on: Option<String>,
    /// Flow sizes.
    #[serde(deserialize_with = "crate::spec_de::tagged")]
    pub sizes: SizeSpec,
    /// Host pairs; default from the topology.
    #[serde(default, deserialize_with = "crate::spec_de::tagged_opt")]
    pub pairs: Option<PairSpec>,
    /// First instant at which flows may arrive (default 0).
    pub start: Option<TimeQ>,
    /// Arrivals stop before this instant (default: the scenario's duration).
    pub stop: Option<TimeQ>,
    /// Transport of these flows (resolved by the scenario).
    pub transport: Option<String>,
    /// Part of the flows carried by other transports: each flow independently takes the
    /// first `mix` entry its draw falls in (e.g. 10% "critical" flows), else `transport`.
    #[serde(default)]
    pub mix: Vec<MixSpec>,
    /// Label carried to the per-flow table.
    pub label: Option<String>,
}

/// The process of gaps between arrivals.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrivalProcess {
    /// Exponential gaps, mean 1/rate.
    Poisson { rate: f64 },
    /// Pareto gaps, mean 1/rate.
    Pareto { shape: f64, rate: f64 },
}

impl ArrivalProcess {
    /// Arrivals per second.
    pub fn rate(&self) -> f64 {
        match self {
            ArrivalProcess::Poisson { rate } | ArrivalProcess::Pareto { rate, .. } => *rate,
        }
    }

    /// One gap in seconds.
    pub fn gap(&self, rng: &mut Rng) -> f64 {
        match self {
            ArrivalProcess::Poisson { rate } => rng.exponential(1.0 / rate),
            ArrivalProcess::Pareto { shape, rate } => {
                let scale = (shape - 1.0) / shape / rate;
                scale / rng.uniform_open0().powf(1.0 / shape)
            }
        }
    }

    /// Arrival instants in [start, stop), the first one gap after `start`. Gaps that do not
    /// move the clock on (a mean gap below 1 ps, a NaN rate) are an error rather than an
    /// endless loop, and so is an arrival count beyond twice [`MAX_FLOWS_PER_ENTRY`] (the build
    /// refuses an expected count beyond it) rather than an unbounded allocation.
    pub fn times(&self, start: Time, stop: Time, rng: &mut Rng) -> Result<Vec<Time>, String> {
        self.at_most((2.0 * MAX_FLOWS_PER_ENTRY) as usize, start, stop, rng)
    }

    /// [`ArrivalProcess::times`], with at most `most` arrivals.
    fn at_most(&self, most: usize, start: Time, stop: Time, rng: &mut Rng) -> Result<Vec<Time>, String> {
        let mean_gap = 1.0 / self.rate();
        if mean_gap.is_nan() || mean_gap < 1e-12 {
            return Err(format!(
                "gives a mean gap between arrivals of {mean_gap:e} s; expected at least 1 ps, the clock's resolution"
            ));
        }
        let mut times = Vec::new();
        let mut t = start;
        loop {
            t = t.saturating_add(Time::from_secs_f64(self.gap(rng)));
            if t >= stop {
                return Ok(times);
            }
            if times.len() == most {
                return Err(format!("gives more than {most} arrivals before {stop}; expected at most {}", most / 2));
            }
            times.push(t);
        }
    }
}

/// A built open-loop entry: when flows arrive, how big they are, between whom.
#[derive(Clone, Debug)]
pub struct OpenLoop {
    /// The arrival process, rate resolved.
    pub process: ArrivalProcess,
    /// Flow sizes.
    pub sizes: SizeDist,
    /// Host pairs.
    pub pairs: PairSampler,
    /// Arrival window start.
    pub start: Time,
    /// Arrival window end (excluded).
    pub stop: Time,
}

impl OpenLoop {
    /// Offered payload rate in bits/s: lambda * 8 * E[L].
    pub fn offered_rate_bps(&self) -> f64 {
        self.process.rate() * 8.0 * self.sizes.mean()
    }
}

fn gap_shape(kind: &str, shape: Option<f64>) -> SpecResult<Option<f64>> {
    match (kind, shape) {
        ("pareto", Some(a)) if a.is_finite() && a > 1.0 => Ok(Some(a)),
        ("pareto", Some(a)) => {
            Err(SpecError::new("shape", format!("expected a shape > 1 (the mean gap is infinite otherwise), got {a}")))
        }
        ("pareto", None) => Err(SpecError::new("shape", "expected the Pareto shape of the gaps (> 1), got none")),
        (_, Some(a)) => Err(SpecError::new(
            "shape",
            format!("expected no shape for kind = \"{kind}\" (only \"pareto\" gaps have one), got {a}"),
        )),
        (_, None) => Ok(None),
    }
}

impl OpenLoopSpec {
    /// Resolves the rate, sizes and pairs. `kind` is "poisson" or "pareto".
    pub fn build(&self, kind: &str, ctx: &WorkloadCtx) -> SpecResult<OpenLoop> {
        let shape = gap_shape(kind, self.shape)?;
        let sizes = self.sizes.build(ctx.base_dir).map_err(|e| e.within("sizes"))?;
        let mean = sizes.mean();
        if !(mean.is_finite() && mean >= 1.0) {
            return Err(SpecError::new(
                "sizes",
                format!("the distribution's mean comes out as {mean} B; expected a finite mean >= 1 B"),
            ));
        }
        let pairs = match &self.pairs {
            Some(p) => p.build(ctx).map_err(|e| e.within("pairs"))?,
            None => PairSpec::default_for(ctx).build(ctx).map_err(|e| e.within("pairs (default)"))?,
        };
        let rate = match (self.load, self.rate) {
            (Some(load), Some(rate)) => {
                return Err(SpecError::new(
                    "load",
                    format!("expected exactly one of load and rate, got load = {load} and rate = {rate}"),
                ))
            }
            (None, None) => return Err(SpecError::new("load", "expected exactly one of load and rate, got neither")),
            (Some(load), None) => {
                if !(load > 0.0 && load < 1.0) {
                    return Err(SpecError::new("load", format!("expected an offered load in (0, 1), got {load}")));
                }
                let capacity = self.capacity_bps(ctx, &pairs)?;
                let rate = load * capacity / (8.0 * mean);
                if !(rate.is_finite() && rate > 0.0) {
                    return Err(SpecError::new(
                        "load",
                        format!(
                            "load = {load} of {capacity} bit/s with a mean size of {mean} B gives {rate} flows/s; expected a finite rate > 0"
                        ),
                    ));
                }
                rate
            }
            (None, Some(rate)) => {
                if let Some(link) = &self.load_on {
                    return Err(SpecError::new(
                        "load_on",
                        format!("expected load_on only with load, got \"{link}\" with rate"),
                    ));
                }
                if !(rate.is_finite() && rate > 0.0) {
                    return Err(SpecError::new("rate", format!("expected flows per second > 0, got {rate}")));
                }
                rate
            }
        };
        let start = self.start.map_or(Time::ZERO, |t| t.0);
        let stop = self.stop.map_or(ctx.duration, |t| t.0);
        if stop <= start {
            return Err(SpecError::new("stop", format!("expected stop > start = {start}, got {stop}")));
        }
        let expected = rate * (stop - start).as_secs_f64();
        if expected.is_nan() || expected > MAX_FLOWS_PER_ENTRY {
            let what = self.load.map_or(format!("rate = {rate}"), |l| format!("load = {l}"));
            return Err(SpecError::new(
                if self.load.is_some() { "load" } else { "rate" },
                format!(
                    "expected at most {MAX_FLOWS_PER_ENTRY:e} flows per entry, got {what}, which gives {expected:.3e} flows in {:.3} s",
                    (stop - start).as_secs_f64()
                ),
            ));
        }
        let process = match shape {
            Some(shape) => ArrivalProcess::Pareto { shape, rate },
            None => ArrivalProcess::Poisson { rate },
        };
        Ok(OpenLoop { process, sizes, pairs, start, stop })
    }

    /// The C of lambda = load C / (8 E[L]), in bits/s.
    fn capacity_bps(&self, ctx: &WorkloadCtx, pairs: &PairSampler) -> SpecResult<f64> {
        let name = self.load_on.as_deref().unwrap_or(ACCESS);
        if name == ACCESS {
            let sum: f64 = pairs.sources().iter().map(|&h| ctx.access_rate[h].bps_f64()).sum();
            if sum <= 0.0 {
                return Err(SpecError::new(
                    "load_on",
                    "expected sending hosts with access links, got a total access rate of 0",
                ));
            }
            return Ok(sum);
        }
        match ctx.link_rates.get(name) {
            Some(rate) => Ok(rate.bps_f64()),
            None => {
                let mut known: Vec<&str> = vec![ACCESS];
                known.extend(ctx.link_rates.keys().map(String::as_str));
                Err(SpecError::new("load_on", format!("expected one of {}, got \"{name}\"", known.join(", "))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_stay_in_the_window_and_keep_the_rate() {
        for process in [ArrivalProcess::Poisson { rate: 1000.0 }, ArrivalProcess::Pareto { shape: 2.5, rate: 1000.0 }] {
            let mut rng = Rng::new(9);
            let (start, stop) = (Time::from_secs(2), Time::from_secs(102));
            let times = process.times(start, stop, &mut rng).unwrap();
            assert!(times.windows(2).all(|w| w[0] <= w[1]));
            assert!(times[0] > start && *times.last().unwrap() < stop);
            let n = times.len() as f64;
            assert!((n - 100_000.0).abs() / 100_000.0 < 0.02, "{process:?}: {n}");
        }
    }

    #[test]
    fn gaps_that_do_not_move_the_clock_are_an_error_not_an_endless_loop() {
        let (start, stop) = (Time::ZERO, Time::from_secs(1));
        for process in [
            ArrivalProcess::Poisson { rate: f64::NAN },
            ArrivalProcess::Poisson { rate: 2e12 },
            ArrivalProcess::Pareto { shape: 2.0, rate: f64::INFINITY },
        ] {
            let e = process.times(start, stop, &mut Rng::new(1)).unwrap_err();
            assert!(e.contains("mean gap between arrivals") && e.contains("at least 1 ps"), "{process:?}: {e}");
        }
        // One arrival per picosecond on average is allowed, but not beyond the count bound.
        let e = ArrivalProcess::Poisson { rate: 1e12 }.at_most(1000, start, stop, &mut Rng::new(1)).unwrap_err();
        assert!(e.contains("more than 1000 arrivals before 1.000000000s; expected at most 500"), "{e}");
    }

    #[test]
    fn pareto_gaps_have_the_asked_mean() {
        let p = ArrivalProcess::Pareto { shape: 3.0, rate: 50.0 };
        let mut rng = Rng::new(1);
        let mean = (0..200_000).map(|_| p.gap(&mut rng)).sum::<f64>() / 200_000.0;
        assert!((mean - 0.02).abs() / 0.02 < 0.01, "{mean}");
    }
}
