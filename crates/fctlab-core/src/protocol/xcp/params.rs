//! XCP's scenario keys: the host's (`protocol = "xcp"`: the reaction to loss under the
//! routers' feedback) and the router's (`kind = "xcp"`: [`super::XcpParams`] deserializes itself).

use super::header;
use super::XcpConfig;
use crate::error::SpecResult;
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::CcConfig;
use crate::protocol::CcKind;
use crate::transport::tcp::TcpConfig;
use serde::Deserialize;

/// The rate an XCP sender asks the routers for, bit/s: more than any link, so the routers'
/// feedback alone sets the window.
const DESIRED_BPS: f64 = 100e9;

/// XCP's host keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XcpKeys {
    /// The reaction to loss: "newreno" (default) or "cubic".
    #[serde(default)]
    pub cc: Option<CcKind>,
}

impl ProtocolKeys for XcpKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        // The XCP header (cwnd, RTT, feedback: 20 bytes in seed 003) rides on TCP/IP's; a new
        // flow starts from one segment unless `iw` says otherwise.
        let cfg = TcpConfig {
            header: c.header.unwrap_or(TcpConfig::default().header + header::BYTES),
            iw: c.iw.unwrap_or(1),
            cc: CcConfig::Xcp(XcpConfig { loss: self.cc.unwrap_or(CcKind::NewReno), desired_bps: DESIRED_BPS }),
            ..c.cfg
        };
        Ok(c.tcp(cfg))
    }
}
