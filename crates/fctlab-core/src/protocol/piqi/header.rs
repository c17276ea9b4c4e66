//! PIQI-RCP's congestion header (seed 003 sec. III-E: 24 bytes, RCP's fields plus Interval
//! Number, Reverse Interval Number and ID): forward, the smallest rate a router gave so far,
//! the interval it was computed in and that router's id; reverse, the three echoed. Here are
//! both directions' structs (held by [`CongestionHeader`]'s variants), the echo, and their wire
//! encoding, three 32-bit words.

use crate::net::packet::CongestionHeader;
use crate::protocol::wire::{rate_or_infinite, Words};

/// PIQI-RCP's forward header (seed 003 sec. III-E): the smallest rate a router on the path
/// gave so far, the control interval it was computed in, and that router's id.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PiqiHeader {
    /// The smallest rate so far, bit/s (infinite: no PIQI-RCP router yet).
    pub rate: f32,
    /// The Interval Number of the router that gave `rate`.
    pub interval: u32,
    /// That router's node id (the flow's bottleneck).
    pub id: u32,
}

/// PIQI-RCP's echo of the three (Reverse Rate, Reverse Interval Number, ID).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PiqiEcho {
    /// The path's smallest rate, bit/s.
    pub rate: f32,
    /// The Interval Number it was computed in.
    pub interval: u32,
    /// The router that gave it.
    pub id: u32,
}

impl PiqiHeader {
    /// What the receiver echoes.
    pub fn echo(self) -> PiqiEcho {
        PiqiEcho { rate: self.rate, interval: self.interval, id: self.id }
    }
}

/// Wire tag of the forward header.
pub const TAG: u8 = 7;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 8;

/// The header's tag and words, None if it is not PIQI-RCP's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::Piqi(PiqiHeader { rate, interval, id }) => Some((TAG, [rate.to_bits(), interval, id])),
        CongestionHeader::PiqiFeedback(PiqiEcho { rate, interval, id }) => {
            Some((TAG_ECHO, [rate.to_bits(), interval, id]))
        }
        _ => None,
    }
}

/// The header of tag `tag` (one of PIQI-RCP's) from its words; Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    let (rate, interval, id) = (rate_or_infinite(w[0], "cc.rate")?, w[1], w[2]);
    Ok(if tag == TAG {
        CongestionHeader::Piqi(PiqiHeader { rate, interval, id })
    } else {
        CongestionHeader::PiqiFeedback(PiqiEcho { rate, interval, id })
    })
}
