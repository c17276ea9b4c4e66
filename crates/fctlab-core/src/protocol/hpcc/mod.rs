//! HPCC, high precision congestion control (Li et al., SIGCOMM 2019): switches push in-band
//! telemetry (INT) onto data packets; senders compute the path's utilization from it and set
//! their window and pacing rate per ACK.
//!
//! | part | file |
//! |---|---|
//! | header | `header.rs`: [`IntHop`] (8 bytes per port), [`IntStack`]; wire encoding |
//! | router law | `router.rs`: [`HpccLaw`], a record per departing data packet (sec. 3.2) |
//! | host law (window and pacing) | `host.rs`: [`Hpcc`], Algorithm 1 (eqs. 2-4) |
//! | queue kind | `kind.rs`: `queues.*.kind = "hpcc"` ([`HpccQueueKeys`], none of its own) |
//! | scenario keys | `transport.protocol = "hpcc"` (`params.rs`) |
//! | metrics | `hpcc_u` (per flow) |

pub mod header;
pub mod host;
pub mod kind;
pub mod params;
pub mod router;

pub use header::{IntHop, IntStack};
pub use host::{Hpcc, HpccConfig};
pub use kind::HpccQueueKeys;
pub use params::HpccKeys;
pub use router::HpccLaw;

use crate::protocol::header::CongestionHeader;

impl IntStack {
    /// The forward header holding these records.
    pub fn forward(self) -> CongestionHeader {
        CongestionHeader::Hpcc(self)
    }

    /// The records of an HPCC header (either direction), None for any other header.
    #[inline]
    pub fn of(h: &CongestionHeader) -> Option<IntStack> {
        match *h {
            CongestionHeader::Hpcc(s) | CongestionHeader::HpccFeedback(s) => Some(s),
            _ => None,
        }
    }
}
