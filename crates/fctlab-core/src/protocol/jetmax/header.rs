//! JetMax's congestion header (seed 003 sec. III-D/E: 32 bytes, the fields of both directions):
//! forward, the flow's bottleneck router RT, the router RS that offered the smallest rate so
//! far, that rate and the flow's inter-packet interval; reverse, RS and the rate echoed. Here
//! are both directions' structs (held by [`CongestionHeader`]'s variants), the echo, and their
//! wire encoding, three 32-bit words (RT and RS share the first).

use crate::net::packet::CongestionHeader;
use crate::protocol::wire::{finite, rate_or_infinite, unused_zero, Words};

/// JetMax's RT / RS value for "no router yet" (router ids on JetMax paths are below it).
pub const JETMAX_NO_ROUTER: u16 = u16::MAX;

/// JetMax's forward header (seed 003 sec. III-E): the flow's bottleneck router RT, and the
/// smallest rate a router on the path offered so far with that router's id RS (router ids are
/// 16-bit so that the header fits the packet's two cache lines).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JetMaxHeader {
    /// The flow's current bottleneck router (`JETMAX_NO_ROUTER`: none yet).
    pub rt: u16,
    /// The router that offered `rate` (`JETMAX_NO_ROUTER`: none yet).
    pub rs: u16,
    /// The smallest rate offered so far, bit/s (infinite: none yet).
    pub rate: f32,
    /// The flow's inter-packet interval, s (zero before it has a rate).
    pub ipi: f32,
}

/// JetMax's echo of RS and the rate.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JetMaxEcho {
    /// The router that offered the rate.
    pub rs: u16,
    /// The path's smallest offered rate, bit/s.
    pub rate: f32,
}

impl JetMaxHeader {
    /// What the receiver echoes.
    pub fn echo(self) -> JetMaxEcho {
        JetMaxEcho { rs: self.rs, rate: self.rate }
    }
}

/// Wire tag of the forward header.
pub const TAG: u8 = 5;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 6;

/// The header's tag and words, None if it is not JetMax's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::JetMax(JetMaxHeader { rt, rs, rate, ipi }) => {
            Some((TAG, [(rt as u32) << 16 | rs as u32, rate.to_bits(), ipi.to_bits()]))
        }
        CongestionHeader::JetMaxFeedback(JetMaxEcho { rs, rate }) => {
            Some((TAG_ECHO, [(rs as u32) << 16, rate.to_bits(), 0]))
        }
        _ => None,
    }
}

/// The header of tag `tag` (one of JetMax's) from its words; Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    if tag == TAG {
        Ok(CongestionHeader::JetMax(JetMaxHeader {
            rt: (w[0] >> 16) as u16,
            rs: w[0] as u16,
            rate: rate_or_infinite(w[1], "cc.rate")?,
            ipi: finite(w[2], "cc.ipi")?,
        }))
    } else {
        unused_zero(&w[2..])?;
        if w[0] & 0xFFFF != 0 {
            return Err("cc");
        }
        Ok(CongestionHeader::JetMaxFeedback(JetMaxEcho {
            rs: (w[0] >> 16) as u16,
            rate: rate_or_infinite(w[1], "cc.rate")?,
        }))
    }
}
