//! pFabric's header (sec. 4.1): the packet's priority, its flow's remaining size in bytes
//! (smaller is more urgent). Only forward packets carry it; ACKs echo nothing and travel at the
//! highest priority, as in the authors' simulator.

use crate::net::packet::CongestionHeader;
use crate::protocol::wire::{unused_zero, Words};

/// The priority of a forward packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PFabricHeader {
    /// Bytes of the flow neither acknowledged nor SACKed when the packet left (at most
    /// `u32::MAX`; a flow of unknown size sends `u32::MAX`).
    pub remaining: u32,
}

/// Wire tag of the header.
pub const TAG: u8 = 9;

/// The priority of `h` for a pFabric switch: the remaining bytes, 0 (the highest) for a packet
/// without a pFabric header.
#[inline]
pub fn priority(h: &CongestionHeader) -> u32 {
    match h {
        CongestionHeader::PFabric(p) => p.remaining,
        _ => 0,
    }
}

/// The header's tag and words, None if it is not pFabric's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::PFabric(PFabricHeader { remaining }) => Some((TAG, [remaining, 0, 0])),
        _ => None,
    }
}

/// The header from its words; Err names the field refused.
pub fn from_wire(w: Words) -> Result<CongestionHeader, &'static str> {
    unused_zero(&w[1..])?;
    Ok(CongestionHeader::PFabric(PFabricHeader { remaining: w[0] }))
}
