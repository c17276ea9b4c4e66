//! XCP's congestion header (seed 003: 20 bytes): forward, the sender's window and RTT and the
//! window change routers allow; reverse, that feedback echoed. Here are both directions'
//! structs (held by `CongestionHeader`'s variants), the echo, and their wire encoding, three
//! 32-bit words.

use crate::protocol::wire::{finite, unused_zero, WireHeader, Words};

/// Bytes of the XCP header (cwnd, RTT, feedback; seed 003) on top of the TCP/IP headers.
pub const BYTES: u32 = 20;

/// XCP's forward header: the sender's window and RTT, and the window change routers allow.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct XcpHeader {
    /// Sender's congestion window, bytes.
    pub cwnd: f32,
    /// Sender's RTT estimate in microseconds (zero: none yet).
    pub rtt_us: u32,
    /// Window change for this packet, bytes; routers only lower it.
    pub feedback: f32,
}

/// XCP's echo: the feedback for the sender.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct XcpEcho {
    /// Window change for the sender, bytes.
    pub feedback: f32,
}

impl XcpHeader {
    /// What the receiver echoes.
    pub fn echo(self) -> XcpEcho {
        XcpEcho { feedback: self.feedback }
    }
}

/// Wire tag of the forward header.
pub const TAG: u8 = 3;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 4;

/// The tags XCP's headers cross the wire under, forward and echo.
pub const TAGS: &[u8] = &[TAG, TAG_ECHO];

impl WireHeader for XcpHeader {
    fn to_wire(&self) -> Words {
        [self.cwnd.to_bits(), self.rtt_us, self.feedback.to_bits()]
    }
    fn from_wire(w: Words) -> Result<XcpHeader, &'static str> {
        Ok(XcpHeader { cwnd: finite(w[0], "cc.cwnd")?, rtt_us: w[1], feedback: finite(w[2], "cc.feedback")? })
    }
}

impl WireHeader for XcpEcho {
    fn to_wire(&self) -> Words {
        [self.feedback.to_bits(), 0, 0]
    }
    fn from_wire(w: Words) -> Result<XcpEcho, &'static str> {
        unused_zero(&w[1..])?;
        Ok(XcpEcho { feedback: finite(w[0], "cc.feedback")? })
    }
}
