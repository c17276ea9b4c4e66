//! `cc = "dctcp"` of `protocol = "tcp"`: DCTCP's constants (`dctcp_g`, `dctcp_alpha`) and the
//! TCP it runs over: ECN always on, with the exact echo ([`DctcpEcho`]), and HyStart off
//! unless `hystart` says otherwise.

use super::{DctcpConfig, DctcpEcho};
use crate::error::{SpecError, SpecResult};
use crate::protocol::tcp_cc::{CcKeys, TcpChoice};
use crate::protocol::{CcConfig, EcnEcho};
use crate::transport::cc::hystart::HyStartMode;
use crate::transport::ecn::EcnMode;
use crate::transport::tcp::TcpConfig;
use serde::Deserialize;

/// DCTCP's own keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DctcpKeys {
    /// DCTCP's weight g of the newest window in alpha (default 1/16).
    #[serde(default)]
    pub dctcp_g: Option<f64>,
    /// DCTCP's alpha before its first window ends (default 1).
    #[serde(default)]
    pub dctcp_alpha: Option<f64>,
}

impl CcKeys for DctcpKeys {
    fn apply(&self, tcp: TcpChoice, cfg: TcpConfig) -> SpecResult<TcpConfig> {
        if tcp.ecn == Some(false) {
            return Err(SpecError::new("ecn", "false, but DCTCP needs ECN: leave `ecn` out or set it to true"));
        }
        let d = DctcpConfig::default();
        let g = self.dctcp_g.unwrap_or(d.g);
        if !(g > 0.0 && g <= 1.0) {
            return Err(SpecError::new("dctcp_g", format!("expected a weight in (0, 1], got {g}")));
        }
        let alpha0 = self.dctcp_alpha.unwrap_or(d.alpha0);
        if !(0.0..=1.0).contains(&alpha0) {
            return Err(SpecError::new("dctcp_alpha", format!("expected a fraction in [0, 1], got {alpha0}")));
        }
        Ok(TcpConfig {
            cc: CcConfig::Dctcp(DctcpConfig { g, alpha0 }),
            hystart: tcp.hystart.unwrap_or(HyStartMode::Off),
            ecn: EcnMode::Exact(EcnEcho::Dctcp(DctcpEcho::INITIAL)),
            ..cfg
        })
    }
}
