//! The packet: one plain `Copy` struct, moved by value; no allocation per packet.
//!
//! Sequence numbers are byte offsets into the flow's payload. Congestion headers of the
//! explicit-feedback protocols live in [`CongestionHeader`], a closed enum the protocol
//! registry generates (`protocol/header.rs`).

pub use crate::protocol::header::{CongestionHeader, PLUGIN_ECHO_TAGS, PLUGIN_TAGS};
use crate::units::Time;

/// Index of a flow in the world's flow arena.
pub type FlowId = u32;

/// What a packet is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// Connection request (sender -> receiver).
    Syn,
    /// Connection accept (receiver -> sender).
    SynAck,
    /// Payload (sender -> receiver).
    Data,
    /// Acknowledgment (receiver -> sender).
    Ack,
    /// Negative acknowledgment (receiver -> sender; go-back-N, RoCEv2's NACK): an ACK, its
    /// cumulative ACK the receiver's expected sequence, that also says data above it arrived
    /// and was discarded, so the sender resends from there. A control packet like an ACK.
    Nack,
}

/// Up to three SACK blocks, byte ranges `[start, end)`, most recent first (RFC 2018).
///
/// Held as TCP carries them, 32-bit sequence numbers (the low 32 bits of the byte offsets),
/// and read back next to the cumulative ACK of the packet that carries them
/// ([`Packet::sacks`]): a block lies within 2^31 bytes of it, as TCP's 32-bit sequence space
/// requires of any window. Half the size of 64-bit blocks, which keeps the packet within two
/// cache lines beside the larger congestion headers (HPCC's telemetry).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// Number of valid blocks.
    pub n: u8,
    /// The blocks' 32-bit sequence numbers; only the first `n` are meaningful.
    blocks: [(u32, u32); 3],
}

impl SackBlocks {
    /// The blocks `bs` (at most three), most recent first.
    pub fn of(bs: &[(u64, u64)]) -> SackBlocks {
        let mut sb = SackBlocks::default();
        for &(s, e) in bs {
            sb.push(s, e);
        }
        sb
    }

    /// Appends the block `[start, end)`; a fourth block is refused (debug builds panic).
    #[inline]
    pub fn push(&mut self, start: u64, end: u64) {
        debug_assert!(self.n < 3 && end >= start && end - start < 1 << 31, "{self:?} + [{start}, {end})");
        if self.n < 3 {
            self.blocks[self.n as usize] = (start as u32, end as u32);
            self.n += 1;
        }
    }

    /// The valid blocks as byte offsets, each put back next to `near` (the cumulative ACK of
    /// the packet carrying them).
    #[inline]
    pub fn iter(&self, near: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.n as usize].iter().map(move |&(s, e)| {
            let start = unwrap32(s, near);
            (start, start + e.wrapping_sub(s) as u64)
        })
    }
}

/// The 64-bit offset whose low 32 bits are `x`, within 2^31 of `near`.
#[inline]
fn unwrap32(x: u32, near: u64) -> u64 {
    let d = x.wrapping_sub(near as u32) as i32 as i64;
    (near as i64).wrapping_add(d).max(0) as u64
}

/// A packet's ECN bits: the IP header's ECN field (RFC 3168 sec. 5: Not-ECT 00, ECT(1) 01,
/// ECT(0) 10, CE 11) in bits 0-1, and the TCP header's ECE (bit 2) and CWR (bit 3) flags
/// (sec. 6.1). One byte, so the packet keeps its two cache lines.
#[derive(Copy, Clone, Default, PartialEq, Eq)]
pub struct Ecn(u8);

impl Ecn {
    /// Not ECN-capable transport: a marking queue drops what it would mark.
    pub const NOT_ECT: Ecn = Ecn(0b00);
    /// ECT(1).
    pub const ECT1: Ecn = Ecn(0b01);
    /// ECT(0): what fctlab's ECN senders set.
    pub const ECT0: Ecn = Ecn(0b10);
    /// Congestion Experienced: set by a router instead of a drop.
    pub const CE: Ecn = Ecn(0b11);
    const FIELD: u8 = 0b11;
    const ECE: u8 = 0b100;
    const CWR: u8 = 0b1000;

    /// The bits as one byte (bits 4-7 zero).
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The ECN bits of `b`, if bits 4-7 are zero.
    pub fn from_bits(b: u8) -> Option<Ecn> {
        (b & !(Self::FIELD | Self::ECE | Self::CWR) == 0).then_some(Ecn(b))
    }

    /// The IP codepoint alone (flags cleared).
    #[inline]
    pub fn codepoint(self) -> Ecn {
        Ecn(self.0 & Self::FIELD)
    }

    /// ECN-capable: ECT(0), ECT(1) or CE.
    #[inline]
    pub fn is_ect(self) -> bool {
        self.0 & Self::FIELD != 0
    }

    /// Congestion Experienced.
    #[inline]
    pub fn is_ce(self) -> bool {
        self.0 & Self::FIELD == Self::FIELD
    }

    /// Sets CE (a router's mark), flags kept.
    #[inline]
    pub fn mark_ce(&mut self) {
        self.0 |= Self::FIELD;
    }

    /// The TCP ECE flag (ECN-Echo, receiver -> sender).
    #[inline]
    pub fn ece(self) -> bool {
        self.0 & Self::ECE != 0
    }

    /// The TCP CWR flag (Congestion Window Reduced, sender -> receiver).
    #[inline]
    pub fn cwr(self) -> bool {
        self.0 & Self::CWR != 0
    }

    /// These bits with ECE set to `on`.
    #[inline]
    pub fn with_ece(self, on: bool) -> Ecn {
        Ecn(if on { self.0 | Self::ECE } else { self.0 & !Self::ECE })
    }

    /// These bits with CWR set to `on`.
    #[inline]
    pub fn with_cwr(self, on: bool) -> Ecn {
        Ecn(if on { self.0 | Self::CWR } else { self.0 & !Self::CWR })
    }
}

impl std::fmt::Debug for Ecn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cp = ["Not-ECT", "ECT(1)", "ECT(0)", "CE"][(self.0 & Self::FIELD) as usize];
        write!(f, "{cp}{}{}", if self.ece() { "+ECE" } else { "" }, if self.cwr() { "+CWR" } else { "" })
    }
}

/// A flow's initial sequence number: a hash of the flow id and the run's seed, so that both
/// ends (and a capture) agree without a negotiation, and sequence numbers start anywhere in
/// the 32-bit space. The emulator's datagrams and the capture's TCP headers both use it.
pub fn isn(flow: FlowId, seed: u64) -> u32 {
    (crate::routing::flow_hash(flow as u64 ^ 0x5EC0_F1A5_0000_0000, seed) >> 17) as u32
}

/// The DSCP (six bits) that carries priority band `prio` in an IP header: the band itself, as
/// RC3's Linux implementation marks its low-priority packets.
pub fn dscp_of_band(prio: u8) -> u8 {
    prio & 0x3F
}

/// Traffic classes of a lossless port (IEEE 802.1Qbb: eight, each paused on its own).
pub const CLASSES: usize = 8;

/// A packet on the wire.
#[derive(Copy, Clone, Debug)]
pub struct Packet {
    /// Flow this packet belongs to.
    pub flow: FlowId,
    /// What the packet is.
    pub kind: PacketKind,
    /// Source node id.
    pub src: u32,
    /// Destination node id.
    pub dst: u32,
    /// First payload byte (data), or 0.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Bytes on the wire (payload + headers).
    pub wire: u32,
    /// Cumulative acknowledgment: next byte expected (ACKs).
    pub ack: u64,
    /// Selective acknowledgments (ACKs).
    pub sack: SackBlocks,
    /// Priority band: 0 is the highest.
    pub prio: u8,
    /// When the sender emitted it (the TCP timestamp value).
    pub ts: Time,
    /// The timestamp this ACK echoes (RFC 7323 TSecr).
    pub ts_echo: Time,
    /// Router-writable congestion header.
    pub cc: CongestionHeader,
    /// ECN: the IP codepoint routers may mark, and TCP's ECE and CWR flags.
    pub ecn: Ecn,
    /// This data segment ends the stream (its last byte is the flow's last): how a receiver
    /// learns the end of a stream without being told its size.
    pub fin: bool,
}

impl Packet {
    /// The packet's traffic class at a lossless port: its priority band, bands above 7 sharing
    /// class 7 (802.1Q maps priorities onto fewer classes so).
    #[inline]
    pub fn class(&self) -> usize {
        (self.prio as usize).min(CLASSES - 1)
    }

    /// True if the packet travels from the flow's sender to its receiver.
    pub fn is_forward(&self) -> bool {
        matches!(self.kind, PacketKind::Syn | PacketKind::Data)
    }

    /// Its SACK blocks as byte offsets (read next to its cumulative ACK).
    #[inline]
    pub fn sacks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sack.iter(self.ack)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecn_bits_keep_the_codepoint_and_the_flags_apart() {
        let mut e = Ecn::ECT0.with_cwr(true);
        assert!(e.is_ect() && !e.is_ce() && e.cwr() && !e.ece());
        e.mark_ce();
        assert!(e.is_ce() && e.cwr(), "a mark keeps the TCP flags");
        assert_eq!(e.codepoint(), Ecn::CE);
        assert!(!Ecn::NOT_ECT.is_ect() && Ecn::ECT1.is_ect() && !Ecn::ECT1.is_ce());
        let ack = Ecn::NOT_ECT.with_ece(true);
        assert!(ack.ece() && !ack.is_ect() && !ack.with_ece(false).ece());
        assert_eq!(Ecn::from_bits(e.bits()), Some(e));
        assert_eq!(Ecn::from_bits(0x10), None);
        assert_eq!(format!("{:?}", Ecn::CE.with_ece(true)), "CE+ECE");
    }

    #[test]
    fn sack_blocks_come_back_next_to_the_ack_across_the_32_bit_wrap() {
        let sb = SackBlocks::of(&[((1 << 32) - 100, (1 << 32) + 1360), (6_000_000_000, 6_000_002_920)]);
        let got: Vec<_> = sb.iter(6_000_001_460).collect();
        assert_eq!(got, vec![((1 << 32) - 100, (1 << 32) + 1360), (6_000_000_000, 6_000_002_920)]);
        let near_zero: Vec<_> = SackBlocks::of(&[(900, 1000)]).iter(0).collect();
        assert_eq!(near_zero, vec![(900, 1000)]);
    }

    #[test]
    fn a_packet_fits_two_cache_lines() {
        assert!(std::mem::size_of::<Packet>() <= 128, "{} bytes", std::mem::size_of::<Packet>());
        assert_eq!(std::mem::size_of::<SackBlocks>(), 28);
    }
}
