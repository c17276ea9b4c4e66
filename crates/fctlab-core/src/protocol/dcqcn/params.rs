//! `protocol = "dcqcn"`: the RP's and the NP's constants, each defaulting to the paper's (Zhu
//! et al. 2015) unless said otherwise; where HPCC's simulator (`rdma-hw.cc`, `run.py`) differs,
//! its value is named beside, so a scenario can run its settings. The CP is the queue's
//! (`kind = "red"` with `w_q = 1`, `gentle = false`, `spread = false`).

use super::{DcqcnConfig, DcqcnEcho, HyperStep};
use crate::error::{SpecError, SpecResult};
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::{EcnEcho, RateConfig, UNLIMITED_RATE};
use crate::quantity::{BytesQ, RateQ, TimeQ};
use crate::transport::ecn::EcnMode;
use crate::transport::tcp::TcpConfig;
use crate::units::{Rate, Time};
use serde::Deserialize;

/// g = 1/256: the paper's; HPCC's run.py (`EWMA_GAIN 0.00390625`) too.
pub const G: f64 = 1.0 / 256.0;
/// K = 55 us, the alpha timer: the paper's; `rdma-hw.cc`'s default (`AlphaResumInterval`) too,
/// run.py's `dcqcn` setting 1 us.
pub const ALPHA_TIMER: Time = Time::from_us(55);
/// T = 55 us, the rate increase timer: the paper's (run.py's `dcqcn_paper`); run.py's `dcqcn`
/// setting 300 us, `rdma-hw.cc`'s default 1,500 us.
pub const TIMER: Time = Time::from_us(55);
/// B = 10 MB, the byte counter: the paper's; HPCC's simulator has none (`byte_counter = 0`).
pub const BYTE_COUNTER: u64 = 10_000_000;
/// F = 5 fast recovery stages: the paper's, `rdma-hw.cc`'s default; run.py sets 1.
pub const FAST_RECOVERY: u32 = 5;
/// R_AI = 40 Mb/s: the paper's (for its 40 Gb/s hosts); run.py: 5 Mb/s per 25 Gb/s of line rate.
pub const RATE_AI: Rate = Rate::from_mbps(40);
/// R_HAI = 400 Mb/s: ten times R_AI, the ratio of HPCC's simulator (`rdma-hw.cc` 5 and 50 Mb/s,
/// run.py 5 and 50 Mb/s per 25 Gb/s).
pub const RATE_HAI: Rate = Rate::from_mbps(400);
/// The minimum rate, 100 Mb/s: HPCC's `mix/config.txt` (`MIN_RATE`; run.py 1 Gb/s); the paper
/// names none.
pub const MIN_RATE: Rate = Rate::from_mbps(100);
/// N = 50 us, the NP's least time between two CNPs of a flow: the paper's.
pub const CNP_INTERVAL: Time = Time::from_us(50);

/// DCQCN's keys (all optional).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnKeys {
    /// The line rate: the start and the ceiling (default 10 Gb/s, a paced sender's "unlimited";
    /// set it to the hosts' link rate).
    #[serde(default)]
    pub line_rate: Option<RateQ>,
    /// The least rate (default 100 Mb/s).
    #[serde(default)]
    pub min_rate: Option<RateQ>,
    /// g (default 1/256).
    #[serde(default)]
    pub dcqcn_g: Option<f64>,
    /// K, the alpha timer (default 55 us).
    #[serde(default)]
    pub alpha_timer: Option<TimeQ>,
    /// T, the rate increase timer (default 55 us).
    #[serde(default)]
    pub timer: Option<TimeQ>,
    /// B, the byte counter (default 10 MB; 0: none).
    #[serde(default)]
    pub byte_counter: Option<BytesQ>,
    /// F, fast recovery stages (default 5).
    #[serde(default)]
    pub fast_recovery: Option<u32>,
    /// R_AI (default 40 Mb/s).
    #[serde(default)]
    pub rate_ai: Option<RateQ>,
    /// R_HAI (default 400 Mb/s).
    #[serde(default)]
    pub rate_hai: Option<RateQ>,
    /// N, the NP's CNP interval (default 50 us).
    #[serde(default)]
    pub cnp_interval: Option<TimeQ>,
    /// RT = RC at every cut (default true, the paper; false: HPCC's `CLAMP_TARGET_RATE 0`).
    #[serde(default)]
    pub clamp_target: Option<bool>,
    /// "growing" (default: i R_HAI, eq. 6) or "fixed" (R_HAI per step, HPCC's simulator).
    #[serde(default)]
    pub hyper_step: Option<String>,
    /// HPCC's simulator's periodic cut check (default: none, each CNP cuts).
    #[serde(default)]
    pub rate_decrease_interval: Option<TimeQ>,
}

fn positive_time(field: &str, t: Time) -> SpecResult<Time> {
    if t > Time::ZERO {
        Ok(t)
    } else {
        Err(SpecError::new(field, "expected a duration above 0, got 0"))
    }
}

impl DcqcnKeys {
    /// The RP's config and the NP's interval these keys give.
    pub fn config(&self) -> SpecResult<(DcqcnConfig, Time)> {
        let line_rate = self.line_rate.map_or(UNLIMITED_RATE, |r| r.0);
        let min_rate = self.min_rate.map_or(MIN_RATE, |r| r.0);
        if min_rate > line_rate {
            return Err(SpecError::new(
                "min_rate",
                format!("expected at most line_rate = {} bit/s, got {} bit/s", line_rate.bps(), min_rate.bps()),
            ));
        }
        let g = self.dcqcn_g.unwrap_or(G);
        if !(g > 0.0 && g <= 1.0) {
            return Err(SpecError::new("dcqcn_g", format!("expected a weight in (0, 1], got {g}")));
        }
        let fast_recovery = self.fast_recovery.unwrap_or(FAST_RECOVERY);
        if fast_recovery == 0 {
            return Err(SpecError::new("fast_recovery", "expected at least 1 stage, got 0"));
        }
        let hyper_step = match self.hyper_step.as_deref() {
            None | Some("growing") => HyperStep::Growing,
            Some("fixed") => HyperStep::Fixed,
            Some(other) => {
                return Err(SpecError::new("hyper_step", format!("expected \"growing\" or \"fixed\", got \"{other}\"")))
            }
        };
        let cfg = DcqcnConfig {
            line_rate,
            min_rate,
            g,
            alpha_timer: positive_time("alpha_timer", self.alpha_timer.map_or(ALPHA_TIMER, |t| t.0))?,
            timer: positive_time("timer", self.timer.map_or(TIMER, |t| t.0))?,
            byte_counter: self.byte_counter.map_or(BYTE_COUNTER, |b| b.0),
            fast_recovery,
            rate_ai: self.rate_ai.map_or(RATE_AI, |r| r.0),
            rate_hai: self.rate_hai.map_or(RATE_HAI, |r| r.0),
            clamp_target: self.clamp_target.unwrap_or(true),
            hyper_step,
            rate_decrease_interval: match self.rate_decrease_interval {
                None => None,
                Some(t) => Some(positive_time("rate_decrease_interval", t.0)?),
            },
        };
        let interval = self.cnp_interval.map_or(CNP_INTERVAL, |t| t.0);
        Ok((cfg, interval))
    }
}

impl ProtocolKeys for DcqcnKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        let (law, interval) = self.config()?;
        let ecn = EcnMode::Exact(EcnEcho::Dcqcn(DcqcnEcho::new(interval)));
        match c.paced(0, RateConfig::Dcqcn(law), true, None) {
            Profile::Paced { mut cfg, rx, app } => {
                cfg.ecn = ecn;
                Ok(Profile::Paced { cfg, rx: TcpConfig { ecn, ..rx }, app })
            }
            other => Ok(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(v: serde_json::Value) -> DcqcnKeys {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn defaults_are_the_papers_and_bad_values_name_their_key() {
        let (c, n) = keys(serde_json::json!({})).config().unwrap();
        assert_eq!(
            (c.g, c.alpha_timer, c.timer, c.byte_counter),
            (1.0 / 256.0, Time::from_us(55), Time::from_us(55), 10_000_000)
        );
        assert_eq!((c.fast_recovery, c.rate_ai, n), (5, Rate::from_mbps(40), Time::from_us(50)));
        assert_eq!((c.clamp_target, c.hyper_step), (true, HyperStep::Growing));
        for (v, field) in [
            (serde_json::json!({"dcqcn_g": 0.0}), "dcqcn_g"),
            (serde_json::json!({"dcqcn_g": 1.5}), "dcqcn_g"),
            (serde_json::json!({"timer": "0us"}), "timer"),
            (serde_json::json!({"alpha_timer": "0us"}), "alpha_timer"),
            (serde_json::json!({"line_rate": "1Gbps", "min_rate": "2Gbps"}), "min_rate"),
            (serde_json::json!({"fast_recovery": 0}), "fast_recovery"),
            (serde_json::json!({"hyper_step": "linear"}), "hyper_step"),
            (serde_json::json!({"rate_decrease_interval": "0us"}), "rate_decrease_interval"),
        ] {
            let e = keys(v.clone()).config().unwrap_err();
            assert!(e.to_string().contains(field), "{v}: {e}");
        }
    }
}
