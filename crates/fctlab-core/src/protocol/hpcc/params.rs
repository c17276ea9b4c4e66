//! `protocol = "hpcc"`'s scenario keys (HPCC's sender, `host.rs`); its switches are
//! `queues.*.kind = "hpcc"` (`kind.rs`), which have no keys beyond the buffer's.

use super::header;
use super::HpccConfig;
use crate::error::{SpecError, SpecResult};
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::CcConfig;
use crate::quantity::{BytesQ, RateQ, TimeQ};
use crate::transport::tcp::TcpConfig;
use serde::Deserialize;

/// HPCC's host keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccKeys {
    /// The NIC's rate: flows start at it, with one bandwidth-delay product (required).
    #[serde(default)]
    pub line_rate: Option<RateQ>,
    /// The base RTT T of the window law (default: each flow's handshake RTT).
    #[serde(default)]
    pub base_rtt: Option<TimeQ>,
    /// Target utilization eta (default 0.95).
    #[serde(default)]
    pub eta: Option<f64>,
    /// Additive steps before a multiplicative one, maxStage (default 5).
    #[serde(default)]
    pub max_stage: Option<u32>,
    /// The additive step W_AI (default: one 2500th of line rate x T).
    #[serde(default)]
    pub w_ai: Option<BytesQ>,
}

impl HpccKeys {
    /// The constants these keys give; Err names the key refused.
    pub fn config(&self) -> SpecResult<HpccConfig> {
        let Some(rate) = self.line_rate else {
            return Err(SpecError::new(
                "line_rate",
                "missing: HPCC's flows start at their NIC's rate with one bandwidth-delay product; give it, e.g. \"10Gbps\"",
            ));
        };
        if rate.0.bps() == 0 {
            return Err(SpecError::new("line_rate", "expected a rate above zero, got 0"));
        }
        let mut cfg = HpccConfig::new(rate.0);
        if let Some(t) = self.base_rtt {
            if t.0.ps() == 0 {
                return Err(SpecError::new("base_rtt", "expected a time above zero, got 0"));
            }
            cfg.base_rtt = Some(t.0);
        }
        if let Some(eta) = self.eta {
            if !(eta > 0.0 && eta <= 1.0) {
                return Err(SpecError::new("eta", format!("expected a target utilization in (0, 1], got {eta}")));
            }
            cfg.eta = eta;
        }
        if let Some(s) = self.max_stage {
            cfg.max_stage = s;
        }
        if let Some(w) = self.w_ai {
            cfg.w_ai = Some(w.0 as f64);
        }
        Ok(cfg)
    }
}

impl ProtocolKeys for HpccKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        // The INT header (2 bytes and five 8-byte records, the paper's) rides on TCP/IP's, which
        // `header` gives (docs/scenario.md, HPCC: "added to `header`"): HPCC's own packets are
        // 48 bytes of headers without it (`fctlab.hpcc_files.HEADER`), 90 with it.
        let cfg = TcpConfig {
            header: c.header.unwrap_or(TcpConfig::default().header) + header::BYTES,
            cc: CcConfig::Hpcc(self.config()?),
            ..c.cfg
        };
        Ok(c.tcp(cfg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Rate, Time};

    fn keys(v: serde_json::Value) -> HpccKeys {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn keys_over_the_papers_constants() {
        let c = keys(serde_json::json!({"line_rate": "10Gbps", "base_rtt": "14us", "eta": 0.9})).config().unwrap();
        assert_eq!(
            (c.line_rate, c.base_rtt, c.eta, c.max_stage),
            (Rate::from_gbps(10), Some(Time::from_us(14)), 0.9, 5)
        );
    }

    #[test]
    fn bad_values_name_their_key() {
        let err = |v| keys(v).config().unwrap_err().to_string();
        assert!(err(serde_json::json!({})).contains("line_rate"));
        assert!(err(serde_json::json!({"line_rate": "10Gbps", "eta": 1.5})).contains("eta"));
        assert!(err(serde_json::json!({"line_rate": "10Gbps", "base_rtt": "0s"})).contains("base_rtt"));
    }
}
