//! Drop-tail FIFO: the arrival is dropped when the buffer is full.

use super::discipline::{Limit, QueueDiscipline};
use crate::net::packet::Packet;
use crate::units::Time;
use std::collections::VecDeque;

/// A FIFO with a byte or packet limit.
#[derive(Debug)]
pub struct DropTail {
    q: VecDeque<Packet>,
    bytes: u64,
    limit: Limit,
}

impl DropTail {
    /// An empty queue with the given limit.
    pub fn new(limit: Limit) -> DropTail {
        DropTail { q: VecDeque::new(), bytes: 0, limit }
    }
}

impl QueueDiscipline for DropTail {
    #[inline]
    fn enqueue(&mut self, _now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        if self.limit.fits(self.bytes, self.q.len(), pkt.wire) {
            self.bytes += pkt.wire as u64;
            self.q.push_back(pkt);
        } else {
            drops.push(pkt);
        }
    }
    #[inline]
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.wire as u64;
        Some(p)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn packets(&self) -> usize {
        self.q.len()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::packet::{CongestionHeader, Ecn, PacketKind, SackBlocks};

    /// A data packet of `wire` bytes for queue tests.
    pub(crate) fn pkt(wire: u32, prio: u8) -> Packet {
        Packet {
            flow: 0,
            kind: PacketKind::Data,
            src: 0,
            dst: 1,
            seq: 0,
            len: wire.saturating_sub(40),
            wire,
            ack: 0,
            sack: SackBlocks::default(),
            prio,
            ts: Time::ZERO,
            ts_echo: Time::ZERO,
            cc: CongestionHeader::None,
            fin: false,
            ecn: Ecn::NOT_ECT,
        }
    }

    #[test]
    fn byte_limit_drops_the_arrival_that_does_not_fit() {
        let mut q = DropTail::new(Limit::Bytes(3000));
        let mut drops = Vec::new();
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut drops);
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut drops);
        q.enqueue(Time::ZERO, pkt(40, 0), &mut drops);
        assert_eq!((q.packets(), q.bytes(), drops.len()), (2, 3000, 1));
        assert_eq!(drops[0].wire, 40);
    }

    #[test]
    fn packet_limit_and_fifo_order() {
        let mut q = DropTail::new(Limit::Packets(2));
        let mut drops = Vec::new();
        for w in [100, 200, 300] {
            q.enqueue(Time::ZERO, pkt(w, 0), &mut drops);
        }
        assert_eq!(drops.len(), 1);
        assert_eq!(q.dequeue(Time::ZERO).unwrap().wire, 100);
        assert_eq!(q.dequeue(Time::ZERO).unwrap().wire, 200);
        assert!(q.dequeue(Time::ZERO).is_none());
        assert_eq!(q.bytes(), 0);
    }
}
