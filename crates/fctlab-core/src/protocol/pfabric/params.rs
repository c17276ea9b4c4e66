//! `cc = "pfabric"` of `protocol = "tcp"`: pFabric's window over TCP, one BDP (`iw` x `mss`)
//! as its first window and its ceiling (`host.rs`); no keys of its own, and neither a
//! slow-start exit (`hystart`) nor ECN to choose.

use super::PFabricConfig;
use crate::error::{SpecError, SpecResult};
use crate::protocol::tcp_cc::{CcKeys, TcpChoice};
use crate::protocol::CcConfig;
use crate::transport::tcp::TcpConfig;
use serde::Deserialize;

/// pFabric's own keys under `cc = "pfabric"`: none.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PFabricCcKeys {}

impl CcKeys for PFabricCcKeys {
    fn apply(&self, tcp: TcpChoice, cfg: TcpConfig) -> SpecResult<TcpConfig> {
        if tcp.hystart.is_some() {
            return Err(SpecError::new("hystart", "set, but pFabric's window has no slow-start exit to choose"));
        }
        if tcp.ecn == Some(true) {
            return Err(SpecError::new("ecn", "true, but pFabric's window does not react to marks"));
        }
        // The first window is one BDP, and the ceiling (`host.rs`).
        let max_cwnd = cfg.iw as u64 * cfg.mss as u64;
        Ok(TcpConfig { cc: CcConfig::PFabric(PFabricConfig { max_cwnd }), ..cfg })
    }
}
