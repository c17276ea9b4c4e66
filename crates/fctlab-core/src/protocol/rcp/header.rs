//! RCP's congestion header (thesis Fig. 6.2): forward, the rate the path allows so far, the
//! sender's RTT and its age; reverse, the rate echoed to the sender. Here are both
//! directions' structs (held by `CongestionHeader`'s variants), the echo, and their wire
//! encoding, three 32-bit words.

use crate::protocol::wire::{unused_zero, WireHeader, Words};

/// Bytes of the RCP header (rate, reverse rate, RTT, protocol; thesis Fig. 6.2) on top of the
/// TCP/IP headers, for RCP and R-TCP.
pub const BYTES: u32 = 12;

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

/// The tags RCP's headers cross the wire under, forward and echo.
pub const TAGS: &[u8] = &[TAG, TAG_ECHO];

impl WireHeader for RcpHeader {
    fn to_wire(&self) -> Words {
        [self.rate_kbps, self.rtt_us, self.age_kib]
    }
    fn from_wire(w: Words) -> Result<RcpHeader, &'static str> {
        Ok(RcpHeader { rate_kbps: w[0], rtt_us: w[1], age_kib: w[2] })
    }
}

impl WireHeader for RcpEcho {
    fn to_wire(&self) -> Words {
        [self.rate_kbps, 0, 0]
    }
    fn from_wire(w: Words) -> Result<RcpEcho, &'static str> {
        unused_zero(&w[1..])?;
        Ok(RcpEcho { rate_kbps: w[0] })
    }
}
