//! pFabric's header (sec. 4.1): the packet's priority, its flow's remaining size in bytes
//! (smaller is more urgent). Only forward packets carry it; ACKs echo nothing and travel at the
//! highest priority, as in the authors' simulator.

use crate::protocol::wire::{unused_zero, WireHeader, Words};

/// Bytes on top of TCP/IP's: none (the priority rides in fields the packet has).
pub const BYTES: u32 = 0;

/// The priority of a forward packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PFabricHeader {
    /// Bytes of the flow neither acknowledged nor SACKed when the packet left (at most
    /// `u32::MAX`; a flow of unknown size sends `u32::MAX`).
    pub remaining: u32,
}

/// Wire tag of the header.
pub const TAG: u8 = 9;

/// The tag pFabric's header crosses the wire under (forward only: ACKs echo nothing).
pub const TAGS: &[u8] = &[TAG];

impl WireHeader for PFabricHeader {
    fn to_wire(&self) -> Words {
        [self.remaining, 0, 0]
    }
    fn from_wire(w: Words) -> Result<PFabricHeader, &'static str> {
        unused_zero(&w[1..])?;
        Ok(PFabricHeader { remaining: w[0] })
    }
}
