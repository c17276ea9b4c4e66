//! Round robin over flows: one FIFO per flow, served one packet at a time in turn, all sharing
//! one buffer. An RDMA NIC schedules its queue pairs so (HPCC's simulator: `RdmaEgressQueue`
//! takes the next QP with data round robin), which keeps a host's short flows from waiting
//! behind its long ones as they would in one FIFO. Meant for host NICs (`queues.host`).
//!
//! The flows with packets waiting take the turn in the order they became backlogged; a flow
//! whose FIFO empties leaves the turn and its slot is reused. An arrival that does not fit the
//! buffer is dropped. At a lossless port a flow whose traffic class is paused keeps its place
//! in the turn and is passed over ([`RoundRobin::dequeue_unpaused`]), as HPCC's NIC skips the
//! queue pairs of a paused priority.

use super::discipline::{Limit, QueueDiscipline};
use crate::net::packet::Packet;
use crate::units::Time;
use std::collections::{HashMap, VecDeque};

/// A round-robin-over-flows queue.
#[derive(Debug)]
pub struct RoundRobin {
    /// FIFOs, by slot.
    fifos: Vec<VecDeque<Packet>>,
    /// The slot of each flow with packets waiting.
    slot_of: HashMap<u32, usize>,
    /// Slots free for reuse.
    free: Vec<usize>,
    /// Backlogged slots, the next to serve first.
    turn: VecDeque<usize>,
    bytes: u64,
    packets: usize,
    limit: Limit,
}

impl RoundRobin {
    /// An empty queue of `limit`.
    pub fn new(limit: Limit) -> RoundRobin {
        RoundRobin {
            fifos: Vec::new(),
            slot_of: HashMap::new(),
            free: Vec::new(),
            turn: VecDeque::new(),
            bytes: 0,
            packets: 0,
            limit,
        }
    }
}

impl RoundRobin {
    /// The next packet of a flow whose class is not in `paused` (bit `c`: class `c` paused): the
    /// first such flow in the turn; the flows passed over keep their places.
    pub fn dequeue_unpaused(&mut self, now: Time, paused: u8) -> Option<Packet> {
        if paused == 0 {
            return self.dequeue(now);
        }
        let at =
            self.turn.iter().position(|&s| self.fifos[s].front().is_some_and(|p| paused & (1 << p.class()) == 0))?;
        let slot = self.turn.remove(at).expect("a position in the turn");
        Some(self.serve(slot))
    }

    /// Takes the head of `slot`, just taken out of the turn: the slot goes to the back of the
    /// turn, or is freed if that emptied it.
    fn serve(&mut self, slot: usize) -> Packet {
        let pkt = self.fifos[slot].pop_front().expect("a slot in the turn has a packet");
        if self.fifos[slot].is_empty() {
            self.slot_of.remove(&pkt.flow);
            self.free.push(slot);
        } else {
            self.turn.push_back(slot);
        }
        self.bytes -= pkt.wire as u64;
        self.packets -= 1;
        pkt
    }

    /// Whether a flow whose class is not in `paused` has a packet.
    pub fn has_unpaused(&self, paused: u8) -> bool {
        if paused == 0 {
            return self.packets > 0;
        }
        self.turn.iter().any(|&s| self.fifos[s].front().is_some_and(|p| paused & (1 << p.class()) == 0))
    }
}

impl QueueDiscipline for RoundRobin {
    fn enqueue(&mut self, _now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        if !self.limit.fits(self.bytes, self.packets, pkt.wire) {
            drops.push(pkt);
            return;
        }
        let slot = match self.slot_of.get(&pkt.flow) {
            Some(&s) => s,
            None => {
                let s = self.free.pop().unwrap_or_else(|| {
                    self.fifos.push(VecDeque::new());
                    self.fifos.len() - 1
                });
                self.slot_of.insert(pkt.flow, s);
                self.turn.push_back(s);
                s
            }
        };
        self.bytes += pkt.wire as u64;
        self.packets += 1;
        self.fifos[slot].push_back(pkt);
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let slot = self.turn.pop_front()?;
        Some(self.serve(slot))
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

    fn pkt(flow: u32, seq: u64) -> Packet {
        let mut p = crate::qdisc::droptail::tests::pkt(1000, 0);
        p.flow = flow;
        p.seq = seq;
        p
    }

    #[test]
    fn flows_take_turns_one_packet_each_and_a_late_flow_joins_the_turn() {
        let mut q = RoundRobin::new(Limit::UNLIMITED);
        let mut drops = Vec::new();
        for s in 0..4 {
            q.enqueue(Time::ZERO, pkt(7, s), &mut drops);
        }
        q.enqueue(Time::ZERO, pkt(3, 0), &mut drops);
        let first: Vec<(u32, u64)> = (0..3).map(|_| q.dequeue(Time::ZERO).map(|p| (p.flow, p.seq)).unwrap()).collect();
        assert_eq!(first, vec![(7, 0), (3, 0), (7, 1)]);
        // Flow 3 emptied and left; it comes back behind flow 7.
        q.enqueue(Time::ZERO, pkt(3, 1), &mut drops);
        let rest: Vec<(u32, u64)> = std::iter::from_fn(|| q.dequeue(Time::ZERO).map(|p| (p.flow, p.seq))).collect();
        assert_eq!(rest, vec![(7, 2), (3, 1), (7, 3)]);
        assert_eq!((q.bytes(), q.packets(), drops.len()), (0, 0, 0));
    }

    #[test]
    fn a_flow_of_a_paused_class_keeps_its_place_and_the_others_are_served() {
        let mut q = RoundRobin::new(Limit::UNLIMITED);
        let mut drops = Vec::new();
        for (flow, prio) in [(1, 3), (2, 1), (3, 3)] {
            for s in 0..2 {
                let mut p = pkt(flow, s);
                p.prio = prio;
                q.enqueue(Time::ZERO, p, &mut drops);
            }
        }
        let paused = 1 << 3;
        assert!(q.has_unpaused(paused));
        let served: Vec<u32> = std::iter::from_fn(|| q.dequeue_unpaused(Time::ZERO, paused).map(|p| p.flow)).collect();
        assert_eq!(served, vec![2, 2], "only the flow of class 1");
        assert!(!q.has_unpaused(paused));
        let rest: Vec<u32> = std::iter::from_fn(|| q.dequeue_unpaused(Time::ZERO, 0).map(|p| p.flow)).collect();
        assert_eq!(rest, vec![1, 3, 1, 3], "flows 1 and 3 kept their turn");
    }

    #[test]
    fn the_shared_buffer_drops_what_does_not_fit() {
        let mut q = RoundRobin::new(Limit::Packets(2));
        let mut drops = Vec::new();
        for s in 0..3 {
            q.enqueue(Time::ZERO, pkt(s as u32, s), &mut drops);
        }
        assert_eq!((q.packets(), drops.len(), drops[0].flow), (2, 1, 2));
    }
}
