//! pFabric's switch port (sec. 4.1): a small buffer where priority decides both service and
//! loss.
//!
//! - **Dequeue**: find the highest-priority packet (the smallest remaining size, the earliest
//!   among equals), then send the *earliest* packet of its flow, so that a flow's packets leave
//!   in order (the paper's starvation and reordering rule).
//! - **Enqueue**: an arriving packet joins the tail; while the buffer is over its limit, the
//!   lowest-priority packet (the largest remaining size, the latest among equals, which may be
//!   the arrival) is dropped.
//!
//! The buffer is small (the paper: about two bandwidth-delay products, 36 KB at 10 Gb/s), so
//! both are linear scans of a short array, as in the authors' simulator.

use crate::net::packet::Packet;
use crate::protocol::header::CongestionHeader;
use crate::qdisc::discipline::{Limit, QueueDiscipline};
use crate::units::Time;

/// The priority of `h` for a pFabric switch: the remaining bytes, 0 (the highest) for a packet
/// without a pFabric header.
#[inline]
pub fn priority(h: &CongestionHeader) -> u32 {
    match h {
        CongestionHeader::PFabric(p) => p.remaining,
        _ => 0,
    }
}

/// A pFabric port.
#[derive(Debug)]
pub struct PFabricQueue {
    pkts: Vec<Packet>,
    bytes: u64,
    limit: Limit,
}

impl PFabricQueue {
    /// An empty port of `limit`.
    pub fn new(limit: Limit) -> PFabricQueue {
        PFabricQueue { pkts: Vec::new(), bytes: 0, limit }
    }

    fn over(&self) -> bool {
        match self.limit {
            Limit::Bytes(b) => self.bytes > b,
            Limit::Packets(p) => self.pkts.len() as u64 > p,
        }
    }
}

impl QueueDiscipline for PFabricQueue {
    fn enqueue(&mut self, _now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        self.bytes += pkt.wire as u64;
        self.pkts.push(pkt);
        while self.over() {
            // The lowest priority, the latest among equals (the arrival wins no tie).
            let (worst, _) = self
                .pkts
                .iter()
                .enumerate()
                .max_by_key(|&(i, p)| (priority(&p.cc), i))
                .expect("a queue over its limit holds packets");
            let p = self.pkts.remove(worst);
            self.bytes -= p.wire as u64;
            drops.push(p);
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        // The highest priority, the earliest among equals...
        let best = self.pkts.iter().enumerate().min_by_key(|&(i, p)| (priority(&p.cc), i))?.1.flow;
        // ...then its flow's earliest packet.
        let i = self.pkts.iter().position(|p| p.flow == best).expect("the best packet's flow is queued");
        let p = self.pkts.remove(i);
        self.bytes -= p.wire as u64;
        Some(p)
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn packets(&self) -> usize {
        self.pkts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::CongestionHeader;
    use crate::protocol::pfabric::PFabricHeader;
    use crate::qdisc::droptail::tests::pkt;

    fn data(flow: u32, seq: u64, remaining: u32) -> Packet {
        let mut p = pkt(1500, 0);
        p.flow = flow;
        p.seq = seq;
        p.cc = CongestionHeader::PFabric(PFabricHeader { remaining });
        p
    }

    /// Flow 1's later packet carries the smallest remaining size, so flow 1 goes first, from
    /// its earliest packet (which carried a larger remaining size when it left).
    #[test]
    fn dequeue_sends_the_earliest_packet_of_the_flow_with_the_best_packet() {
        let mut q = PFabricQueue::new(Limit::Packets(10));
        let mut drops = Vec::new();
        for p in [data(1, 0, 9000), data(2, 0, 5000), data(1, 1500, 3000), data(3, 0, 4000)] {
            q.enqueue(Time::ZERO, p, &mut drops);
        }
        let order: Vec<(u32, u64)> = (0..4).map(|_| q.dequeue(Time::ZERO).map(|p| (p.flow, p.seq)).unwrap()).collect();
        assert_eq!(order, [(1, 0), (1, 1500), (3, 0), (2, 0)]);
        assert!(q.dequeue(Time::ZERO).is_none() && q.bytes() == 0);
    }

    /// A packet without a pFabric header (an ACK) has the highest priority.
    #[test]
    fn a_packet_without_the_header_goes_first() {
        let mut q = PFabricQueue::new(Limit::Packets(10));
        let mut drops = Vec::new();
        q.enqueue(Time::ZERO, data(1, 0, 100), &mut drops);
        let mut ack = pkt(40, 0);
        ack.flow = 7;
        q.enqueue(Time::ZERO, ack, &mut drops);
        assert_eq!(q.dequeue(Time::ZERO).unwrap().flow, 7);
    }

    /// Overflow drops the largest remaining size: a queued packet for a more urgent arrival,
    /// the arrival itself when it is the least urgent or ties with the least urgent.
    #[test]
    fn overflow_drops_the_lowest_priority_packet_which_may_be_the_arrival() {
        let mut q = PFabricQueue::new(Limit::Packets(2));
        let mut drops = Vec::new();
        q.enqueue(Time::ZERO, data(1, 0, 8000), &mut drops);
        q.enqueue(Time::ZERO, data(2, 0, 2000), &mut drops);
        q.enqueue(Time::ZERO, data(3, 0, 1000), &mut drops);
        assert_eq!(drops.iter().map(|p| p.flow).collect::<Vec<_>>(), [1], "flow 1's 8000 is the worst");
        q.enqueue(Time::ZERO, data(4, 0, 9000), &mut drops);
        assert_eq!(drops.last().unwrap().flow, 4, "the least urgent arrival is dropped");
        q.enqueue(Time::ZERO, data(5, 0, 2000), &mut drops);
        assert_eq!(drops.last().unwrap().flow, 5, "a tie drops the later packet: the arrival");
        assert_eq!((q.packets(), q.bytes()), (2, 3000));
    }

    #[test]
    fn a_byte_limit_drops_until_the_rest_fits() {
        let mut q = PFabricQueue::new(Limit::Bytes(3000));
        let mut drops = Vec::new();
        q.enqueue(Time::ZERO, data(1, 0, 500), &mut drops);
        q.enqueue(Time::ZERO, data(2, 0, 600), &mut drops);
        let mut big = data(3, 0, 100);
        big.wire = 3000;
        q.enqueue(Time::ZERO, big, &mut drops);
        assert_eq!(drops.iter().map(|p| p.flow).collect::<Vec<_>>(), [2, 1], "both make room for the urgent one");
        assert_eq!(q.bytes(), 3000);
    }
}
