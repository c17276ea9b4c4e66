//! PIQI-RCP's congestion header (seed 003 sec. III-E: 24 bytes, RCP's fields plus Interval
//! Number, Reverse Interval Number and ID): forward, the smallest rate a router gave so far,
//! the interval it was computed in and that router's id; reverse, the three echoed. Here are
//! both directions' structs (held by `CongestionHeader`'s variants), the echo, and their wire
//! encoding, three 32-bit words.

use crate::protocol::wire::{rate_or_infinite, WireHeader, Words};

/// PIQI-RCP's congestion header (seed 003 sec. III-E: 24 bytes, RCP's fields plus Interval
/// Number, Reverse Interval Number and ID).
pub const BYTES: u32 = 24;

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

/// The tags PIQI-RCP's headers cross the wire under, forward and echo.
pub const TAGS: &[u8] = &[TAG, TAG_ECHO];

impl WireHeader for PiqiHeader {
    fn to_wire(&self) -> Words {
        [self.rate.to_bits(), self.interval, self.id]
    }
    fn from_wire(w: Words) -> Result<PiqiHeader, &'static str> {
        Ok(PiqiHeader { rate: rate_or_infinite(w[0], "cc.rate")?, interval: w[1], id: w[2] })
    }
}

impl WireHeader for PiqiEcho {
    fn to_wire(&self) -> Words {
        [self.rate.to_bits(), self.interval, self.id]
    }
    fn from_wire(w: Words) -> Result<PiqiEcho, &'static str> {
        Ok(PiqiEcho { rate: rate_or_infinite(w[0], "cc.rate")?, interval: w[1], id: w[2] })
    }
}
