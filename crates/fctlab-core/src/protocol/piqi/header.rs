//! PIQI-RCP's congestion header (seed 003 sec. III-E: 24 bytes, RCP's fields plus Interval
//! Number, Reverse Interval Number and ID): forward, the smallest rate a router gave so far,
//! the interval it was computed in and that router's id; reverse, the three echoed. The
//! fields are variants of [`CongestionHeader`]; here is their wire encoding, three 32-bit
//! words.

use crate::net::packet::CongestionHeader;
use crate::protocol::{float, Words};

/// Wire tag of the forward header.
pub const TAG: u8 = 7;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 8;

/// The header's tag and words, None if it is not PIQI-RCP's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::Piqi { rate, interval, id } => Some((TAG, [rate.to_bits(), interval, id])),
        CongestionHeader::PiqiFeedback { rate, interval, id } => Some((TAG_ECHO, [rate.to_bits(), interval, id])),
        _ => None,
    }
}

/// The header of tag `tag` (one of PIQI-RCP's) from its words; Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    let (rate, interval, id) = (float(w[0], "cc.rate")?, w[1], w[2]);
    Ok(if tag == TAG {
        CongestionHeader::Piqi { rate, interval, id }
    } else {
        CongestionHeader::PiqiFeedback { rate, interval, id }
    })
}
