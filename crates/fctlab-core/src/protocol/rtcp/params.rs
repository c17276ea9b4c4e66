//! `protocol = "rtcp"`'s scenario keys: whether it falls back to TCP.

use super::RtcpConfig;
use crate::error::SpecResult;
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::rcp::header::BYTES as RCP_BYTES;
use crate::protocol::CcConfig;
use crate::transport::tcp::TcpConfig;
use serde::Deserialize;

fn yes() -> bool {
    true
}

/// R-TCP's keys.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtcpKeys {
    /// Fall back to TCP on a path without RCP routers or with a non-RCP bottleneck (thesis
    /// sec. 6.2.2; default true).
    #[serde(default = "yes")]
    pub fallback: bool,
}

impl ProtocolKeys for RtcpKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        // Its packets carry the 12-byte RCP header (thesis Fig. 6.2) on the TCP/IP headers.
        let header = c.header.unwrap_or(TcpConfig::default().header + RCP_BYTES);
        let cc = CcConfig::Rtcp(RtcpConfig { fallback: self.fallback, ..RtcpConfig::default() });
        let cfg = TcpConfig { header, cc, ..c.cfg };
        Ok(c.tcp(cfg))
    }
}
