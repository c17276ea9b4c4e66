//! The go-back-N receiver (RoCEv2's): only in-order data is kept.
//!
//! - Data at the expected sequence (`rcv_nxt`) advances it and is acknowledged as selective
//!   repeat's in-order data is: at once with one ACK per packet, or after `delack_count`
//!   packets (or `delack_timeout`) with coalesced ACKs, at once for data at another priority.
//! - Data above it is discarded and answered at once by a NACK, an ACK carrying the expected
//!   sequence ([`PacketKind::Nack`]), unless a NACK
//!   for that same expected sequence left less than `nack_interval` ago; then nothing is
//!   sent. A NACK also covers the ACK a coalescing receiver was holding back.
//! - A duplicate (data below the expected sequence) or an empty probe is discarded and
//!   answered at once by a cumulative ACK. RoCEv2 NICs (and HPCC's simulator) send nothing
//!   for a duplicate; that is the one deliberate difference: when the ACK of a flow's last
//!   packets is lost, the sender's timeout resends them and, without an answer to the
//!   duplicates, would never learn that they had arrived.
//!
//! No SACK block is ever sent: nothing is held above the expected sequence.

use super::TcpReceiver;
use crate::net::packet::{Packet, PacketKind};
use crate::units::Time;

impl TcpReceiver {
    /// Go-back-N's intake of a data packet (see the module docs).
    pub(super) fn take_in_order_only(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let end = pkt.seq + pkt.len as u64;
        if pkt.len > 0 && pkt.seq <= self.rcv_nxt && end > self.rcv_nxt {
            self.rcv_nxt = end;
            self.echo = pkt.ts;
            self.unacked += 1;
            if self.unacked >= self.cfg.delack_count || pkt.prio != self.cfg.prio {
                self.send_ack(now, pkt.prio, out);
            } else if self.delack_at.is_none() {
                self.delack_at = Some(now + self.cfg.delack_timeout);
            }
        } else if pkt.len > 0 && pkt.seq > self.rcv_nxt {
            let expected = self.rcv_nxt;
            let due = match self.last_nack {
                Some((seq, at)) => seq != expected || now >= at + self.cfg.nack_interval,
                None => true,
            };
            if due {
                self.last_nack = Some((expected, now));
                self.nacks += 1;
                // Timed by the packet that found the hole, as selective repeat's out-of-order
                // data.
                self.echo = pkt.ts;
                self.send_ack(now, pkt.prio, out);
                if let Some(p) = out.last_mut() {
                    p.kind = PacketKind::Nack;
                }
            }
        } else {
            self.echo = pkt.ts;
            self.send_ack(now, pkt.prio, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::conn::LossRecovery;
    use crate::transport::tcp::TcpConfig;
    use crate::transport::{Endpoint, FlowAddr};

    const ADDR: FlowAddr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };

    fn rx(delack_count: u32) -> TcpReceiver {
        let cfg = TcpConfig {
            mss: 100,
            queue_pair: true,
            recovery: LossRecovery::GoBackN,
            nack_interval: Time::from_us(500),
            delack_count,
            delack_timeout: Time::from_us(50),
            ..TcpConfig::default()
        };
        TcpReceiver::new(cfg, ADDR, Some(1000))
    }

    fn data(seq_seg: u64, ts: Time) -> Packet {
        let mut p = ADDR.forward(PacketKind::Data, ts);
        p.seq = seq_seg * 100;
        p.len = 100;
        p.wire = 140;
        p
    }

    /// Feeds segment `seg` at `at` (microseconds); returns what left, as (ack segment, nack).
    fn feed(r: &mut TcpReceiver, seg: u64, at: u64) -> Vec<(u64, bool)> {
        let mut out = Vec::new();
        let now = Time::from_us(at);
        r.on_packet(now, &data(seg, now), &mut out);
        out.iter().map(|p| (p.ack / 100, p.kind == PacketKind::Nack)).collect()
    }

    #[test]
    fn out_of_order_data_is_discarded_and_nacked_once_per_interval_for_the_same_hole() {
        let mut r = rx(1);
        assert_eq!(feed(&mut r, 0, 0), [(1, false)]);
        // Segment 1 is lost: 2 is discarded and NACKed with the expected sequence.
        assert_eq!(feed(&mut r, 2, 1), [(1, true)]);
        // 3, 4: the same hole within 500 us: nothing at all.
        assert!(feed(&mut r, 3, 2).is_empty());
        assert!(feed(&mut r, 4, 400).is_empty());
        // 500 us after the NACK, the same hole NACKs again.
        assert_eq!(feed(&mut r, 5, 501), [(1, true)]);
        assert_eq!(r.nacks, 2);
        // Nothing above the hole was kept: resending 1 advances to 2 only, and no SACK block.
        let mut out = Vec::new();
        r.on_packet(Time::from_us(510), &data(1, Time::from_us(510)), &mut out);
        assert_eq!((out[0].ack, out[0].kind, out[0].sack.n), (200, PacketKind::Ack, 0));
        assert_eq!(r.delivered(), 200);
        assert_eq!(r.sack_acks, 0);
    }

    #[test]
    fn a_new_hole_nacks_at_once_even_within_the_interval() {
        let mut r = rx(1);
        feed(&mut r, 0, 0);
        assert_eq!(feed(&mut r, 2, 1), [(1, true)]);
        assert_eq!(feed(&mut r, 1, 2), [(2, false)]);
        // Now 2 is expected (it was discarded); 3 arrives first: a new expected sequence.
        assert_eq!(feed(&mut r, 3, 3), [(2, true)]);
        assert_eq!(r.nacks, 2);
    }

    #[test]
    fn duplicates_are_acknowledged_cumulatively_at_once() {
        let mut r = rx(1);
        for k in 0..3 {
            feed(&mut r, k, k);
        }
        // A timeout resent 1 and 2 after their ACK was lost: each is answered with the
        // cumulative ACK.
        assert_eq!(feed(&mut r, 1, 10), [(3, false)]);
        assert_eq!(feed(&mut r, 2, 11), [(3, false)]);
        assert_eq!(r.delivered(), 300);
    }

    #[test]
    fn coalesced_acks_leave_every_n_in_order_packets_and_a_nack_at_once() {
        let mut r = rx(3);
        assert!(feed(&mut r, 0, 0).is_empty());
        assert!(feed(&mut r, 1, 1).is_empty());
        assert_eq!(feed(&mut r, 2, 2), [(3, false)], "one ACK per three in-order packets");
        assert!(feed(&mut r, 3, 3).is_empty());
        // A hole: the NACK leaves at once, covering the ACK held back for 3.
        assert_eq!(feed(&mut r, 5, 4), [(4, true)]);
        assert_eq!(r.poll_timeout(), None, "nothing held back any more");
        // In order again: the count restarts, and the timer sends a lone ACK.
        assert!(feed(&mut r, 4, 20).is_empty());
        assert_eq!(r.poll_timeout(), Some(Time::from_us(70)));
        let mut out = Vec::new();
        r.on_timeout(Time::from_us(70), &mut out);
        assert_eq!((out[0].ack, out[0].kind), (500, PacketKind::Ack));
    }

    #[test]
    fn the_flow_completes_when_every_byte_arrived_in_order() {
        let mut r = rx(1);
        feed(&mut r, 0, 0);
        feed(&mut r, 2, 1);
        for k in 1..10 {
            feed(&mut r, k, 10 + k);
        }
        assert_eq!(r.completed_at, Some(Time::from_us(19)));
    }
}
