//! RCP's congestion header (thesis Fig. 6.2): forward, the rate the path allows so far, the
//! sender's RTT and its age; reverse, the rate echoed to the sender. The fields are variants
//! of [`CongestionHeader`]; here is their wire encoding, three 32-bit words.

use crate::net::packet::CongestionHeader;
use crate::protocol::{unused_zero, Words};

/// Wire tag of the forward header.
pub const TAG: u8 = 1;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 2;

/// The header's tag and words, None if it is not RCP's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::Rcp { rate_kbps, rtt_us, age_kib } => Some((TAG, [rate_kbps, rtt_us, age_kib])),
        CongestionHeader::RcpFeedback { rate_kbps } => Some((TAG_ECHO, [rate_kbps, 0, 0])),
        _ => None,
    }
}

/// The header of tag `tag` (one of RCP's) from its words; Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    if tag == TAG {
        Ok(CongestionHeader::Rcp { rate_kbps: w[0], rtt_us: w[1], age_kib: w[2] })
    } else {
        unused_zero(&w[1..])?;
        Ok(CongestionHeader::RcpFeedback { rate_kbps: w[0] })
    }
}
