//! `protocol = "timely"`: TIMELY's constants, each defaulting to the paper's Table 1 (Mittal et
//! al. 2015) unless said otherwise; HPCC's simulator (`rdma-hw.cc`) has the same defaults for
//! alpha, beta, Tlow, Thigh and minRTT, and its run.py scales delta with the line rate (10 Mb/s
//! per 10 Gb/s, HAI's step five times that).

use super::{HaiAfter, TimelyConfig};
use crate::error::{SpecError, SpecResult};
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::{RateConfig, UNLIMITED_RATE};
use crate::quantity::{RateQ, TimeQ};
use crate::units::{Rate, Time};
use serde::Deserialize;

/// alpha = 0.875, the EWMA weight of the newest RTT difference: Table 1.
pub const ALPHA: f64 = 0.875;
/// beta = 0.8, the multiplicative decrease factor: Table 1.
pub const BETA: f64 = 0.8;
/// delta = 10 Mb/s, the additive step: Table 1.
pub const DELTA: Rate = Rate::from_mbps(10);
/// Tlow = 50 us: Table 1.
pub const T_LOW: Time = Time::from_us(50);
/// Thigh = 500 us: Table 1.
pub const T_HIGH: Time = Time::from_us(500);
/// minRTT = 20 us: Table 1.
pub const MIN_RTT: Time = Time::from_us(20);
/// N = 5: HAI's step in deltas after five completions of negative gradient (Algorithm 1).
pub const HAI: u32 = 5;
/// The minimum rate, 100 Mb/s: HPCC's `mix/config.txt` (`MIN_RATE`); the paper names none.
pub const MIN_RATE: Rate = Rate::from_mbps(100);

/// TIMELY's keys (all optional).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelyKeys {
    /// The line rate: the start and the ceiling (default 10 Gb/s, a paced sender's
    /// "unlimited"; set it to the hosts' link rate).
    #[serde(default)]
    pub line_rate: Option<RateQ>,
    /// The least rate (default 100 Mb/s).
    #[serde(default)]
    pub min_rate: Option<RateQ>,
    /// alpha (default 0.875).
    #[serde(default)]
    pub timely_alpha: Option<f64>,
    /// beta (default 0.8).
    #[serde(default)]
    pub timely_beta: Option<f64>,
    /// delta (default 10 Mb/s).
    #[serde(default)]
    pub delta: Option<RateQ>,
    /// Tlow (default 50 us).
    #[serde(default)]
    pub t_low: Option<TimeQ>,
    /// Thigh (default 500 us).
    #[serde(default)]
    pub t_high: Option<TimeQ>,
    /// minRTT (default 20 us).
    #[serde(default)]
    pub min_rtt: Option<TimeQ>,
    /// N (default 5).
    #[serde(default)]
    pub hai: Option<u32>,
    /// What starts HAI: "gradient" (default, the paper) or "increases" (HPCC's simulator).
    #[serde(default)]
    pub hai_after: Option<String>,
}

fn fraction(field: &str, x: f64) -> SpecResult<f64> {
    if x > 0.0 && x <= 1.0 {
        Ok(x)
    } else {
        Err(SpecError::new(field, format!("expected a number in (0, 1], got {x}")))
    }
}

impl TimelyKeys {
    /// The law's config these keys give.
    pub fn config(&self) -> SpecResult<TimelyConfig> {
        let line_rate = self.line_rate.map_or(UNLIMITED_RATE, |r| r.0);
        let min_rate = self.min_rate.map_or(MIN_RATE, |r| r.0);
        if min_rate > line_rate {
            return Err(SpecError::new(
                "min_rate",
                format!("expected at most line_rate = {} bit/s, got {} bit/s", line_rate.bps(), min_rate.bps()),
            ));
        }
        let t_low = self.t_low.map_or(T_LOW, |t| t.0);
        let t_high = self.t_high.map_or(T_HIGH, |t| t.0);
        if t_high <= t_low {
            return Err(SpecError::new(
                "t_high",
                format!("expected above t_low = {} s, got {} s", t_low.as_secs_f64(), t_high.as_secs_f64()),
            ));
        }
        let min_rtt = self.min_rtt.map_or(MIN_RTT, |t| t.0);
        if min_rtt == Time::ZERO {
            return Err(SpecError::new("min_rtt", "expected a duration above 0, got 0"));
        }
        let hai = self.hai.unwrap_or(HAI);
        if hai == 0 {
            return Err(SpecError::new("hai", "expected at least 1, got 0"));
        }
        let hai_after = match self.hai_after.as_deref() {
            None | Some("gradient") => HaiAfter::Gradient,
            Some("increases") => HaiAfter::Increases,
            Some(other) => {
                return Err(SpecError::new(
                    "hai_after",
                    format!("expected \"gradient\" or \"increases\", got \"{other}\""),
                ))
            }
        };
        Ok(TimelyConfig {
            hai_after,
            line_rate,
            min_rate,
            alpha: fraction("timely_alpha", self.timely_alpha.unwrap_or(ALPHA))?,
            beta: fraction("timely_beta", self.timely_beta.unwrap_or(BETA))?,
            delta: self.delta.map_or(DELTA, |r| r.0),
            t_low,
            t_high,
            min_rtt,
            hai,
        })
    }
}

impl ProtocolKeys for TimelyKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        Ok(c.paced(0, RateConfig::Timely(self.config()?), true, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(v: serde_json::Value) -> TimelyKeys {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn defaults_are_table_1_and_bad_values_name_their_key() {
        let c = keys(serde_json::json!({})).config().unwrap();
        assert_eq!((c.alpha, c.beta, c.delta, c.hai), (0.875, 0.8, Rate::from_mbps(10), 5));
        assert_eq!((c.t_low, c.t_high, c.min_rtt), (Time::from_us(50), Time::from_us(500), Time::from_us(20)));
        for (v, field) in [
            (serde_json::json!({"timely_alpha": 0.0}), "timely_alpha"),
            (serde_json::json!({"timely_beta": 2.0}), "timely_beta"),
            (serde_json::json!({"t_low": "600us"}), "t_high"),
            (serde_json::json!({"min_rtt": 0}), "min_rtt"),
            (serde_json::json!({"hai": 0}), "hai"),
            (serde_json::json!({"hai_after": "rtt"}), "hai_after"),
            (serde_json::json!({"line_rate": "1Gbps", "min_rate": "2Gbps"}), "min_rate"),
        ] {
            let e = keys(v.clone()).config().unwrap_err();
            assert!(e.to_string().contains(field), "{v}: {e}");
        }
    }
}
