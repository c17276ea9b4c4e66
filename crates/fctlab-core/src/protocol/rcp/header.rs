//! RCP's congestion header (thesis Fig. 6.2): forward, the rate the path allows so far, the
//! sender's RTT and its age; reverse, the rate echoed to the sender. Here are both
//! directions' structs (held by [`CongestionHeader`]'s variants), the echo, and their wire
//! encoding, three 32-bit words.

use crate::net::packet::CongestionHeader;
use crate::protocol::wire::{unused_zero, Words};

/// RCP's forward header (SYN, data, probes): routers lower `rate_kbps` to their fair rate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RcpHeader {
    /// Rate the path allows so far, kbit/s (`u32::MAX`: no limit yet).
    pub rate_kbps: u32,
    /// The sender's RTT estimate in microseconds (zero: none yet); routers average it.
    pub rtt_us: u32,
    /// KiB the flow has sent so far (for differential bandwidth sharing).
    pub age_kib: u32,
}

/// RCP's echo: the rate the forward packet collected, for the sender.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RcpEcho {
    /// Rate for the sender, kbit/s.
    pub rate_kbps: u32,
}

impl RcpHeader {
    /// What the receiver echoes.
    pub fn echo(self) -> RcpEcho {
        RcpEcho { rate_kbps: self.rate_kbps }
    }
}

/// Wire tag of the forward header.
pub const TAG: u8 = 1;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 2;

/// The header's tag and words, None if it is not RCP's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::Rcp(RcpHeader { rate_kbps, rtt_us, age_kib }) => Some((TAG, [rate_kbps, rtt_us, age_kib])),
        CongestionHeader::RcpFeedback(RcpEcho { rate_kbps }) => Some((TAG_ECHO, [rate_kbps, 0, 0])),
        _ => None,
    }
}

/// The header of tag `tag` (one of RCP's) from its words; Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    if tag == TAG {
        Ok(CongestionHeader::Rcp(RcpHeader { rate_kbps: w[0], rtt_us: w[1], age_kib: w[2] }))
    } else {
        unused_zero(&w[1..])?;
        Ok(CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: w[0] }))
    }
}
