//! `protocol = "tcp"`: fctlab's TCP with a loss-based window, NewReno (`newreno/`) or CUBIC
//! (`cubic/`), and the keys that choose it (`cc`, `hystart`), which RC3, RCP's fallback TCP
//! and XCP's reaction to loss share.

use super::cubic::HyStartMode;
use super::CcKind;
use crate::error::SpecResult;
use crate::scenario::{Common, ProtocolKeys};
use crate::transport::cc::CcConfig;
use crate::transport::tcp::TcpConfig;
use crate::world::Profile;
use serde::de::{self, Deserializer};
use serde::Deserialize;

impl<'de> Deserialize<'de> for CcKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CcKind, D::Error> {
        match String::deserialize(d)?.as_str() {
            "newreno" => Ok(CcKind::NewReno),
            "cubic" => Ok(CcKind::Cubic),
            other => Err(de::Error::custom(format!(
                "expected \"newreno\" or \"cubic\" (fctlab's stack; the kernel's controllers need \
                 stack = \"linux\"), got {other:?}"
            ))),
        }
    }
}

/// The loss-based window's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossKeys {
    /// Congestion controller (default "newreno").
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// How slow start ends before a loss: "linux" (HyStart's ACK-train and delay detectors,
    /// the default with `cc = "cubic"`, as in Linux), "hystart++" (RFC 9406) or "off" (the
    /// default with `cc = "newreno"`).
    #[serde(default)]
    pub hystart: Option<HyStartMode>,
}

impl LossKeys {
    /// `cfg` with this window: its controller and its slow-start exit.
    pub fn apply(&self, cfg: TcpConfig) -> TcpConfig {
        let kind = self.cc.unwrap_or(CcKind::NewReno);
        let hystart = self.hystart.unwrap_or(match kind {
            // Linux turns HyStart on with CUBIC (`tcp_cubic.hystart = 1`).
            CcKind::Cubic => HyStartMode::Linux,
            CcKind::NewReno => HyStartMode::Off,
        });
        TcpConfig { cc: CcConfig::Loss(kind), hystart, ..cfg }
    }
}

/// `protocol = "tcp"`: the loss-based window over the TCP part.
impl ProtocolKeys for LossKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        let cfg = self.apply(c.cfg);
        Ok(c.tcp(cfg))
    }
}
