//! XCP's congestion header (seed 003: 20 bytes): forward, the sender's window and RTT and the
//! window change routers allow; reverse, that feedback echoed. Here are both directions'
//! structs (held by [`CongestionHeader`]'s variants), the echo, and their wire encoding, three
//! 32-bit words.

use crate::net::packet::CongestionHeader;
use crate::protocol::wire::{finite, unused_zero, Words};

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

/// The header's tag and words, None if it is not XCP's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::Xcp(XcpHeader { cwnd, rtt_us, feedback }) => {
            Some((TAG, [cwnd.to_bits(), rtt_us, feedback.to_bits()]))
        }
        CongestionHeader::XcpFeedback(XcpEcho { feedback }) => Some((TAG_ECHO, [feedback.to_bits(), 0, 0])),
        _ => None,
    }
}

/// The header of tag `tag` (one of XCP's) from its words; Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    if tag == TAG {
        Ok(CongestionHeader::Xcp(XcpHeader {
            cwnd: finite(w[0], "cc.cwnd")?,
            rtt_us: w[1],
            feedback: finite(w[2], "cc.feedback")?,
        }))
    } else {
        unused_zero(&w[1..])?;
        Ok(CongestionHeader::XcpFeedback(XcpEcho { feedback: finite(w[0], "cc.feedback")? }))
    }
}
