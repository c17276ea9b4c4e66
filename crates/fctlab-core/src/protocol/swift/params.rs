//! `cc = "swift"` of `protocol = "tcp"`: Swift's constants (`swift_*`, `host.rs` gives the
//! defaults and where they come from), over a TCP without ECN (Swift reads delay, not marks)
//! and without a slow-start exit to choose (Swift has no slow start).

use super::SwiftConfig;
use crate::error::{SpecError, SpecResult};
use crate::protocol::tcp_cc::{CcKeys, TcpChoice};
use crate::protocol::CcConfig;
use crate::quantity::TimeQ;
use crate::transport::tcp::TcpConfig;
use serde::Deserialize;

/// Swift's own keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwiftKeys {
    /// base_target (default 25us).
    #[serde(default)]
    pub swift_base_target: Option<TimeQ>,
    /// Hops of every flow's path, for the topology-based scaling (default 1).
    #[serde(default)]
    pub swift_hops: Option<u32>,
    /// h, the target per hop (default 1us).
    #[serde(default)]
    pub swift_h: Option<TimeQ>,
    /// fs_range, the flow-based scaling's range (default 125us).
    #[serde(default)]
    pub swift_fs_range: Option<TimeQ>,
    /// fs_min_cwnd, packets (default 0.1).
    #[serde(default)]
    pub swift_fs_min_cwnd: Option<f64>,
    /// fs_max_cwnd, packets (default 100).
    #[serde(default)]
    pub swift_fs_max_cwnd: Option<f64>,
    /// ai, packets per round trip (default 1).
    #[serde(default)]
    pub swift_ai: Option<f64>,
    /// beta, the multiplicative decrease constant (default 0.8).
    #[serde(default)]
    pub swift_beta: Option<f64>,
    /// max_mdf, the largest multiplicative decrease (default 0.5).
    #[serde(default)]
    pub swift_max_mdf: Option<f64>,
    /// Timeouts in a row that reset the window to min_cwnd (default 5).
    #[serde(default)]
    pub swift_retx_reset: Option<u32>,
    /// min_cwnd, packets (default 0.001).
    #[serde(default)]
    pub swift_min_cwnd: Option<f64>,
    /// max_cwnd, packets (default unbounded).
    #[serde(default)]
    pub swift_max_cwnd: Option<f64>,
}

/// `value` if it is a finite number above zero, else an error naming `key`.
fn positive(key: &str, value: f64, what: &str) -> SpecResult<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(SpecError::new(key, format!("expected {what} above zero, got {value}")))
    }
}

impl SwiftKeys {
    /// The constants these keys give; Err names the key refused.
    pub fn config(&self) -> SpecResult<SwiftConfig> {
        let d = SwiftConfig::default();
        let base_target = self.swift_base_target.map_or(d.base_target, |t| t.0);
        if base_target.ps() == 0 {
            return Err(SpecError::new("swift_base_target", "expected a time above zero, got 0"));
        }
        let fs_min_cwnd = positive("swift_fs_min_cwnd", self.swift_fs_min_cwnd.unwrap_or(d.fs_min_cwnd), "packets")?;
        let fs_max_cwnd = positive("swift_fs_max_cwnd", self.swift_fs_max_cwnd.unwrap_or(d.fs_max_cwnd), "packets")?;
        if fs_max_cwnd <= fs_min_cwnd {
            return Err(SpecError::new(
                "swift_fs_max_cwnd",
                format!("expected a window above swift_fs_min_cwnd ({fs_min_cwnd}), got {fs_max_cwnd}"),
            ));
        }
        let ai = positive("swift_ai", self.swift_ai.unwrap_or(d.ai), "packets per round trip")?;
        let beta = self.swift_beta.unwrap_or(d.beta);
        if !(beta > 0.0 && beta <= 1.0) {
            return Err(SpecError::new("swift_beta", format!("expected a constant in (0, 1], got {beta}")));
        }
        let max_mdf = self.swift_max_mdf.unwrap_or(d.max_mdf);
        if !(max_mdf > 0.0 && max_mdf < 1.0) {
            return Err(SpecError::new("swift_max_mdf", format!("expected a fraction in (0, 1), got {max_mdf}")));
        }
        let retx_reset = self.swift_retx_reset.unwrap_or(d.retx_reset);
        if retx_reset == 0 {
            return Err(SpecError::new("swift_retx_reset", "expected a count of timeouts above zero, got 0"));
        }
        let min_cwnd = positive("swift_min_cwnd", self.swift_min_cwnd.unwrap_or(d.min_cwnd), "packets")?;
        let max_cwnd = match self.swift_max_cwnd {
            None => d.max_cwnd,
            Some(w) if w.is_finite() && w >= min_cwnd => w,
            Some(w) => {
                return Err(SpecError::new(
                    "swift_max_cwnd",
                    format!("expected a window of at least swift_min_cwnd ({min_cwnd}) packets, got {w}"),
                ))
            }
        };
        Ok(SwiftConfig {
            base_target,
            hops: self.swift_hops.unwrap_or(d.hops),
            h: self.swift_h.map_or(d.h, |t| t.0),
            fs_range: self.swift_fs_range.map_or(d.fs_range, |t| t.0),
            fs_min_cwnd,
            fs_max_cwnd,
            ai,
            beta,
            max_mdf,
            retx_reset,
            min_cwnd,
            max_cwnd,
        })
    }
}

impl CcKeys for SwiftKeys {
    fn apply(&self, tcp: TcpChoice, cfg: TcpConfig) -> SpecResult<TcpConfig> {
        if tcp.hystart.is_some() {
            return Err(SpecError::new("hystart", "set, but Swift's window has no slow start to leave"));
        }
        if tcp.ecn == Some(true) {
            return Err(SpecError::new("ecn", "true, but Swift's window reacts to delay, not to marks"));
        }
        Ok(TcpConfig { cc: CcConfig::Swift(self.config()?), ..cfg })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;

    fn keys(v: serde_json::Value) -> SwiftKeys {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn keys_over_the_defaults() {
        let c = keys(serde_json::json!({"swift_base_target": "40us", "swift_hops": 3, "swift_beta": 0.5})).config();
        let c = c.unwrap();
        assert_eq!((c.base_target, c.hops, c.beta), (Time::from_us(40), 3, 0.5));
        assert_eq!(SwiftKeys::default().config().unwrap(), SwiftConfig::default());
    }

    #[test]
    fn bad_values_name_their_key_value_and_what_was_expected() {
        let err = |v| {
            let e = keys(v).config().unwrap_err();
            format!("{}: {}", e.field, e.message)
        };
        for (json, message) in [
            (serde_json::json!({"swift_base_target": "0s"}), "swift_base_target: expected a time above zero, got 0"),
            (serde_json::json!({"swift_fs_min_cwnd": 0}), "swift_fs_min_cwnd: expected packets above zero, got 0"),
            (
                serde_json::json!({"swift_fs_min_cwnd": 5, "swift_fs_max_cwnd": 5}),
                "swift_fs_max_cwnd: expected a window above swift_fs_min_cwnd (5), got 5",
            ),
            (serde_json::json!({"swift_ai": -1}), "swift_ai: expected packets per round trip above zero, got -1"),
            (serde_json::json!({"swift_beta": 1.5}), "swift_beta: expected a constant in (0, 1], got 1.5"),
            (serde_json::json!({"swift_max_mdf": 1}), "swift_max_mdf: expected a fraction in (0, 1), got 1"),
            (
                serde_json::json!({"swift_retx_reset": 0}),
                "swift_retx_reset: expected a count of timeouts above zero, got 0",
            ),
            (serde_json::json!({"swift_min_cwnd": 0}), "swift_min_cwnd: expected packets above zero, got 0"),
            (
                serde_json::json!({"swift_max_cwnd": 0.0001}),
                "swift_max_cwnd: expected a window of at least swift_min_cwnd (0.001) packets, got 0.0001",
            ),
        ] {
            assert_eq!(err(json.clone()), message, "{json}");
        }
    }
}
