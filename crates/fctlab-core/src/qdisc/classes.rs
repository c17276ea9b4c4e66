//! Traffic classes of a lossless port: one FIFO per class (IEEE 802.1Qbb's eight), served
//! round robin among the classes that have packets and are not paused, a packet at a time, as
//! the switches of HPCC's simulator serve their data queues (`BEgressQueue::DoDequeueRR`: the
//! next class after the last one served). A fabric gives every FIFO port this discipline
//! (`scenario/fabric.rs`); with packets of one class it is that class's FIFO.
//!
//! The buffer is unlimited: in a fabric the switch's shared buffer admits or drops before a
//! packet reaches its port, and hosts never drop.

use super::discipline::QueueDiscipline;
use crate::net::packet::{Packet, CLASSES};
use crate::units::Time;
use std::collections::VecDeque;

/// One FIFO per traffic class.
#[derive(Debug, Default)]
pub struct Classes {
    fifos: [VecDeque<Packet>; CLASSES],
    /// Bit `c`: class `c` has packets.
    backlogged: u8,
    /// The class served last (the turn starts after it).
    last: u8,
    bytes: u64,
    packets: usize,
}

impl Classes {
    /// An empty port.
    pub fn new() -> Classes {
        Classes::default()
    }

    /// The next class to serve among `ready` (bit `c`: class `c` may send): the first set bit
    /// after the last class served, wrapping around.
    #[inline]
    fn next(&self, ready: u8) -> Option<usize> {
        if ready == 0 {
            return None;
        }
        let after = (self.last as u32 + 1) % CLASSES as u32;
        Some((ready.rotate_right(after).trailing_zeros() + after) as usize % CLASSES)
    }

    /// The next packet of a class not in `paused` (bit `c`: class `c` is paused).
    #[inline]
    pub fn dequeue_unpaused(&mut self, paused: u8) -> Option<Packet> {
        let c = self.next(self.backlogged & !paused)?;
        let p = self.fifos[c].pop_front().expect("a backlogged class has a packet");
        if self.fifos[c].is_empty() {
            self.backlogged &= !(1 << c);
        }
        self.last = c as u8;
        self.bytes -= p.wire as u64;
        self.packets -= 1;
        Some(p)
    }

    /// Whether a class not in `paused` has a packet.
    #[inline]
    pub fn has_unpaused(&self, paused: u8) -> bool {
        self.backlogged & !paused != 0
    }
}

impl QueueDiscipline for Classes {
    #[inline]
    fn enqueue(&mut self, _now: Time, pkt: Packet, _drops: &mut Vec<Packet>) {
        let c = pkt.class();
        self.bytes += pkt.wire as u64;
        self.packets += 1;
        self.backlogged |= 1 << c;
        self.fifos[c].push_back(pkt);
    }
    #[inline]
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        self.dequeue_unpaused(0)
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn packets(&self) -> usize {
        self.packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(prio: u8, seq: u64) -> Packet {
        Packet { prio, seq, ..crate::qdisc::droptail::tests::pkt(1000, 0) }
    }

    fn order(q: &mut Classes, paused: u8) -> Vec<(u8, u64)> {
        std::iter::from_fn(|| q.dequeue_unpaused(paused).map(|p| (p.prio, p.seq))).collect()
    }

    #[test]
    fn one_class_is_a_fifo() {
        let mut q = Classes::new();
        for s in 0..4 {
            q.enqueue(Time::ZERO, pkt(3, s), &mut Vec::new());
        }
        assert_eq!(order(&mut q, 0), vec![(3, 0), (3, 1), (3, 2), (3, 3)]);
        assert_eq!((q.bytes(), q.packets()), (0, 0));
    }

    #[test]
    fn classes_take_turns_and_a_paused_class_waits_while_the_others_go_on() {
        let mut q = Classes::new();
        for s in 0..3 {
            q.enqueue(Time::ZERO, pkt(1, s), &mut Vec::new());
            q.enqueue(Time::ZERO, pkt(3, s), &mut Vec::new());
        }
        q.enqueue(Time::ZERO, pkt(9, 0), &mut Vec::new());
        // Class 3 paused: class 1 and class 7 (band 9) alternate, class 3 stays.
        assert!(q.has_unpaused(1 << 3));
        assert_eq!(order(&mut q, 1 << 3), vec![(1, 0), (9, 0), (1, 1), (1, 2)]);
        assert!(!q.has_unpaused(1 << 3), "only the paused class is left");
        assert_eq!(q.packets(), 3);
        assert_eq!(order(&mut q, 0), vec![(3, 0), (3, 1), (3, 2)]);
    }

    #[test]
    fn the_turn_resumes_after_the_class_served_last() {
        let mut q = Classes::new();
        for c in [2, 5, 6] {
            for s in 0..2 {
                q.enqueue(Time::ZERO, pkt(c, s), &mut Vec::new());
            }
        }
        assert_eq!(order(&mut q, 0), vec![(2, 0), (5, 0), (6, 0), (2, 1), (5, 1), (6, 1)]);
    }
}
