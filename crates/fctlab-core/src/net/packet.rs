//! The packet: one plain `Copy` struct, moved by value; no allocation per packet.
//!
//! Sequence numbers are byte offsets into the flow's payload. Congestion headers of the
//! explicit-feedback protocols live in [`CongestionHeader`], a closed enum.

use crate::units::Time;

/// JetMax's RT / RS value for "no router yet" (router ids on JetMax paths are below it).
pub const JETMAX_NO_ROUTER: u16 = u16::MAX;

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
}

/// Up to three SACK blocks, byte ranges `[start, end)`, most recent first (RFC 2018).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// Number of valid blocks.
    pub n: u8,
    /// The blocks; only the first `n` are meaningful.
    pub blocks: [(u64, u64); 3],
}

impl SackBlocks {
    /// The valid blocks.
    pub fn iter(&self) -> impl Iterator<Item = &(u64, u64)> {
        self.blocks[..self.n as usize].iter()
    }
}

/// Router-writable congestion header of explicit-feedback protocols.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum CongestionHeader {
    /// Plain TCP: no header.
    #[default]
    None,
    // Header fields are 32-bit, as in the protocols' wire formats, so that the packet stays
    // within two cache lines (its in-flight read is the event loop's main cache miss).
    /// RCP, forward (SYN, data, probes): routers lower `rate` to their fair rate.
    Rcp {
        /// Rate the path allows so far, kbit/s (`u32::MAX`: no limit yet).
        rate_kbps: u32,
        /// The sender's RTT estimate in microseconds (zero: none yet); routers average it.
        rtt_us: u32,
        /// KiB the flow has sent so far (for differential bandwidth sharing).
        age_kib: u32,
    },
    /// RCP, reverse: the receiver's echo of the rate the forward packet collected.
    RcpFeedback {
        /// Rate for the sender, kbit/s.
        rate_kbps: u32,
    },
    /// XCP, forward: the sender's window and RTT, and the window change routers allow.
    Xcp {
        /// Sender's congestion window, bytes.
        cwnd: f32,
        /// Sender's RTT estimate in microseconds (zero: none yet).
        rtt_us: u32,
        /// Window change for this packet, bytes; routers only lower it.
        feedback: f32,
    },
    /// XCP, reverse: the receiver's echo of the feedback.
    XcpFeedback {
        /// Window change for the sender, bytes.
        feedback: f32,
    },
    /// JetMax, forward (seed 003 sec. III-E): the flow's bottleneck router RT, and the smallest
    /// rate a router on the path offered so far with that router's id RS (router ids are
    /// 16-bit so that the header fits the packet's two cache lines).
    JetMax {
        /// The flow's current bottleneck router (`JETMAX_NO_ROUTER`: none yet).
        rt: u16,
        /// The router that offered `rate` (`JETMAX_NO_ROUTER`: none yet).
        rs: u16,
        /// The smallest rate offered so far, bit/s (infinite: none yet).
        rate: f32,
        /// The flow's inter-packet interval, s (zero before it has a rate).
        ipi: f32,
    },
    /// JetMax, reverse: the echo of RS and the rate.
    JetMaxFeedback {
        /// The router that offered the rate.
        rs: u16,
        /// The path's smallest offered rate, bit/s.
        rate: f32,
    },
    /// PIQI-RCP, forward (seed 003 sec. III-E): the smallest rate a router on the path gave so
    /// far, the control interval it was computed in, and that router's id.
    Piqi {
        /// The smallest rate so far, bit/s (infinite: no PIQI-RCP router yet).
        rate: f32,
        /// The Interval Number of the router that gave `rate`.
        interval: u32,
        /// That router's node id (the flow's bottleneck).
        id: u32,
    },
    /// PIQI-RCP, reverse: the echo of the three (Reverse Rate, Reverse Interval Number, ID).
    PiqiFeedback {
        /// The path's smallest rate, bit/s.
        rate: f32,
        /// The Interval Number it was computed in.
        interval: u32,
        /// The router that gave it.
        id: u32,
    },
}

impl CongestionHeader {
    /// What a receiver copies into its ACK for the header a forward packet carried.
    pub fn feedback(self) -> CongestionHeader {
        match self {
            CongestionHeader::Rcp { rate_kbps, .. } => CongestionHeader::RcpFeedback { rate_kbps },
            CongestionHeader::Xcp { feedback, .. } => CongestionHeader::XcpFeedback { feedback },
            CongestionHeader::JetMax { rs, rate, .. } => CongestionHeader::JetMaxFeedback { rs, rate },
            CongestionHeader::Piqi { rate, interval, id } => CongestionHeader::PiqiFeedback { rate, interval, id },
            other => other,
        }
    }
}

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
    /// This data segment ends the stream (its last byte is the flow's last): how a receiver
    /// learns the end of a stream without being told its size.
    pub fin: bool,
}

impl Packet {
    /// True if the packet travels from the flow's sender to its receiver.
    pub fn is_forward(&self) -> bool {
        matches!(self.kind, PacketKind::Syn | PacketKind::Data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packet stays within two cache lines: its in-flight read is the event loop's main
    /// cache miss, and every queue holds packets by value.
    #[test]
    fn a_packet_fits_two_cache_lines() {
        assert!(std::mem::size_of::<Packet>() <= 128, "{} bytes", std::mem::size_of::<Packet>());
    }
}
