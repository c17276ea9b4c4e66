//! The registry's exact ECN echoes: what a receiver in
//! [`crate::transport::ecn::EcnMode::Exact`] runs, each from its protocol's folder.

use crate::protocol::dctcp::echo::DctcpEcho;

/// The exact ECN echoes fctlab has (RFC 8257 sec. 3.2: an ACK's ECE is the CE of the packets
/// it covers), statically dispatched: the receiver's state machine of
/// [`crate::transport::ecn::EcnMode::Exact`].
#[derive(Copy, Clone, Debug)]
pub enum EcnEcho {
    /// DCTCP's (sec. 3.1, Fig. 10).
    Dctcp(DctcpEcho),
}

impl Default for EcnEcho {
    fn default() -> EcnEcho {
        EcnEcho::Dctcp(DctcpEcho::default())
    }
}

impl EcnEcho {
    /// A data packet arrived, with CE if `ce`, while `pending` packets wait for a delayed
    /// ACK; true if that ACK must leave first, with the ECE [`EcnEcho::ece`] gave before.
    #[inline]
    pub fn on_data(&mut self, ce: bool, pending: u32) -> bool {
        match self {
            EcnEcho::Dctcp(e) => e.on_data(ce, pending),
        }
    }

    /// The ECE of the next ACK.
    #[inline]
    pub fn ece(&self) -> bool {
        match self {
            EcnEcho::Dctcp(e) => e.ece(),
        }
    }
}
