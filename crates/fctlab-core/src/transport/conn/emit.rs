//! What to send and sending it: NextSeg rules (1) and (2) of RFC 6675 sec. 4 (the first lost
//! segment above HighRxt, else new data at HighData), the data packet itself and the counters.
//! A loop arms the retransmission timer after what it sent (RFC 6298 sec. 5.1,
//! [`Connection::arm_rto`]): once per pass, not once per packet.

use super::scoreboard::{LP_SENT, SACKED};
use super::Connection;
use crate::net::packet::{CongestionHeader, Packet, PacketKind};
use crate::units::Time;

/// What a loop's congestion header may depend on, for one outgoing packet.
#[derive(Copy, Clone, Debug)]
pub struct Stamp {
    /// The packet's kind.
    pub kind: PacketKind,
    /// The connection's smoothed RTT, once measured.
    pub srtt: Option<Time>,
    /// Payload bytes sent before this packet, retransmissions included.
    pub sent_bytes: u64,
    /// The packet's size on the wire.
    pub wire: u32,
    /// Bytes of the flow neither acknowledged nor SACKed (SACKed segments counted as full
    /// ones; `u64::MAX` while the size is unknown, and unless the connection's loop asked for
    /// it: the connection's `stamps_remaining`).
    pub remaining: u64,
}

impl Connection {
    /// What a header for a packet of `kind` and `wire` bytes leaving now may depend on.
    #[inline]
    pub fn stamp(&self, kind: PacketKind, wire: u32) -> Stamp {
        let remaining = match self.app.total() {
            Some(total) if self.stamps_remaining => total
                .saturating_sub(self.acked_bytes())
                .saturating_sub(self.board.sacked_count() as u64 * self.segs.mss()),
            _ => u64::MAX,
        };
        Stamp { kind, srtt: self.rtt.srtt(), sent_bytes: self.stats.data_bytes, wire, remaining }
    }

    /// RFC 6675 NextSeg rule (1): the first segment above HighRxt deemed lost, neither SACKed
    /// nor retransmitted yet.
    #[inline]
    pub fn next_lost(&self) -> Option<u32> {
        self.board.next_lost(self.rxt_scan, self.nxt)
    }

    /// RFC 6675 NextSeg rule (2): the first segment not yet sent by the primary loop, if one
    /// is written. HighData first skips what is already SACKed (RC3's low-priority copies
    /// deliver data ahead of it).
    #[inline]
    pub fn next_new(&mut self) -> Option<u32> {
        while self.nxt < self.segs.count() && self.board.get(self.nxt) & SACKED != 0 {
            self.nxt += 1;
        }
        (self.nxt < self.segs.count()).then_some(self.nxt)
    }

    /// True if rule (1) or (2) has a segment to send.
    #[inline]
    pub fn has_data_to_send(&self) -> bool {
        self.nxt < self.segs.count() || self.next_lost().is_some()
    }

    /// Sends segment `i` = HighData for the first time from the primary loop at band `prio`,
    /// with the header `header` makes; HighData moves past it. `counted_as_retx`: the segment
    /// left before (RC3's low-priority copy, known lost), so the counters count a repair; so
    /// does a segment below HighData of before a go-back-N step back.
    /// Returns the packet's wire size.
    #[inline]
    pub fn send_new(
        &mut self,
        now: Time,
        i: u32,
        counted_as_retx: bool,
        prio: u8,
        header: impl FnOnce(Stamp) -> CongestionHeader,
        out: &mut Vec<Packet>,
    ) -> u32 {
        debug_assert_eq!(i, self.nxt);
        self.nxt += 1;
        self.board.on_sent(i);
        let again = counted_as_retx || i < self.resend_below;
        self.emit(now, i, again, prio, header, out)
    }

    /// RFC 6675 sec. 5 (C.2): retransmits segment `i` (rule (1) or (3)); HighRxt moves to it.
    #[inline]
    pub fn retransmit_lost(
        &mut self,
        now: Time,
        i: u32,
        prio: u8,
        header: impl FnOnce(Stamp) -> CongestionHeader,
        out: &mut Vec<Packet>,
    ) -> u32 {
        self.rxt_scan = i + 1;
        self.retransmit(now, i, prio, header, out)
    }

    /// Retransmits segment `i` without moving HighRxt (RFC 6675 sec. 5 (C.3), the rescue).
    #[inline]
    pub fn retransmit(
        &mut self,
        now: Time,
        i: u32,
        prio: u8,
        header: impl FnOnce(Stamp) -> CongestionHeader,
        out: &mut Vec<Packet>,
    ) -> u32 {
        self.board.on_retransmit(i);
        self.emit(now, i, true, prio, header, out)
    }

    /// Sends segment `i` once at low priority `prio` (RC3's loop), unless it was already sent
    /// that way or is known to have arrived; returns the packet's wire size if one left.
    #[inline]
    pub fn emit_low_priority(
        &mut self,
        now: Time,
        i: u32,
        prio: u8,
        header: impl FnOnce(Stamp) -> CongestionHeader,
        out: &mut Vec<Packet>,
    ) -> Option<u32> {
        if i < self.board.una() || self.board.get(i) & (SACKED | LP_SENT) != 0 {
            return None;
        }
        self.board.on_lp_sent(i);
        let wire = self.emit(now, i, false, prio, header, out);
        self.stats.low_priority_pkts += 1;
        self.arm_rto(now);
        Some(wire)
    }

    /// A header-only probe at the oldest unacknowledged byte, at band `prio` with the header
    /// `header` makes: the receiver answers it with an ACK at once (the paced loop's probes, pFabric's
    /// probe mode). Not counted as data.
    /// Returns its wire size.
    pub fn send_probe(
        &mut self,
        now: Time,
        prio: u8,
        header: impl FnOnce(Stamp) -> CongestionHeader,
        out: &mut Vec<Packet>,
    ) -> u32 {
        let mut p = self.addr.forward(PacketKind::Data, now);
        p.seq = self.segs.range(self.board.una().min(self.segs.count().saturating_sub(1))).0;
        p.wire = self.header;
        p.prio = prio;
        p.cc = header(self.stamp(PacketKind::Data, p.wire));
        p.ecn = self.ecn.control();
        out.push(p);
        p.wire
    }

    /// The data packet of segment `i`: its bytes, FIN on the last byte of a finite flow, the
    /// header the loop makes, and counts it. The caller arms the timer (RFC 6298 sec. 5.1).
    #[inline]
    fn emit(
        &mut self,
        now: Time,
        i: u32,
        retx: bool,
        prio: u8,
        header: impl FnOnce(Stamp) -> CongestionHeader,
        out: &mut Vec<Packet>,
    ) -> u32 {
        let (a, b) = self.segs.range(i);
        let mut p = self.addr.forward(PacketKind::Data, now);
        p.seq = a;
        p.len = (b - a) as u32;
        p.fin = self.app.total() == Some(b);
        p.wire = p.len + self.header;
        p.prio = prio;
        p.cc = header(self.stamp(PacketKind::Data, p.wire));
        p.ecn = self.ecn.data(retx);
        let wire = p.wire;
        out.push(p);
        self.stats.data_pkts += 1;
        self.stats.data_bytes += b - a;
        if retx {
            self.stats.retx_pkts += 1;
            self.stats.retx_bytes += b - a;
        }
        wire
    }
}
