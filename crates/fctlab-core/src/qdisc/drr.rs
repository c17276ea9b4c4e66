//! Deficit round robin (Shreedhar and Varghese, SIGCOMM 1995): weighted fair queuing in O(1) per
//! packet, the discipline the RCP thesis's coexistence scheme (sec. 6.2.1) serves its RCP and
//! TCP queues with.
//!
//! Packets are sorted into classes by their priority mark (class = the packet's `prio`, the
//! last class for marks beyond it) or by whether they carry an explicit-feedback header (class
//! 0: an RCP, XCP, JetMax or PIQI-RCP header; class 1: the rest). Each class has a FIFO and a
//! quantum proportional to its weight (the largest weight gets `QUANTUM` bytes). The scheduler
//! visits the backlogged classes in turn; a visit adds the quantum to the class's deficit and
//! sends head packets while they fit in it; a class that empties loses its deficit. Over a busy
//! period each backlogged class gets the link in proportion to its weight, within one packet
//! per round. All classes share one buffer: an arrival that does not fit is dropped (no
//! push-out), so a class that fills the buffer can take arrivals' places from the others;
//! give each its own port if that matters.

use super::discipline::{Limit, QueueDiscipline};
use crate::net::packet::{CongestionHeader, Packet};
use crate::units::Time;
use std::collections::VecDeque;

/// Bytes per round of the class with the largest weight (a little above the largest packet).
pub const QUANTUM: u64 = 1600;

/// How packets are sorted into classes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Classify {
    /// By the packet's priority mark: class = `prio`, at most the last class.
    Priority,
    /// Class 0 for packets with an explicit-feedback header, class 1 for the rest.
    Header,
}

#[derive(Debug)]
struct Class {
    fifo: VecDeque<Packet>,
    quantum: u64,
    deficit: u64,
    /// True while the class is in the round-robin list.
    active: bool,
}

/// A deficit-round-robin queue with a shared buffer.
#[derive(Debug)]
pub struct Drr {
    classes: Vec<Class>,
    /// Backlogged classes in visiting order; the front is being served.
    round: VecDeque<usize>,
    /// True if the front class already had its quantum for this visit.
    visiting: bool,
    classify: Classify,
    bytes: u64,
    packets: usize,
    limit: Limit,
}

impl Drr {
    /// Classes with these weights (each > 0), sorted by `classify`, sharing `limit`.
    pub fn new(weights: &[f64], classify: Classify, limit: Limit) -> Drr {
        let max = weights.iter().cloned().fold(f64::MIN, f64::max);
        let classes = weights
            .iter()
            .map(|w| Class {
                fifo: VecDeque::new(),
                quantum: ((w / max) * QUANTUM as f64).round().max(1.0) as u64,
                deficit: 0,
                active: false,
            })
            .collect();
        Drr { classes, round: VecDeque::new(), visiting: false, classify, bytes: 0, packets: 0, limit }
    }

    /// The class of a packet.
    pub fn class_of(&self, pkt: &Packet) -> usize {
        let c = match self.classify {
            Classify::Priority => pkt.prio as usize,
            Classify::Header => usize::from(pkt.cc == CongestionHeader::None),
        };
        c.min(self.classes.len() - 1)
    }

    /// Gives the classes new weights (each > 0, as many as classes): new quanta from the next
    /// visit on; deficits and queued packets stay (the RCP/TCP coexistence queue's STEP S).
    pub fn set_weights(&mut self, weights: &[f64]) {
        debug_assert_eq!(weights.len(), self.classes.len());
        let max = weights.iter().cloned().fold(f64::MIN, f64::max);
        for (class, w) in self.classes.iter_mut().zip(weights) {
            class.quantum = ((w / max) * QUANTUM as f64).round().max(1.0) as u64;
        }
    }

    /// Packets queued in class `c`.
    pub fn class_len(&self, c: usize) -> usize {
        self.classes[c].fifo.len()
    }
}

impl QueueDiscipline for Drr {
    fn enqueue(&mut self, _now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        if !self.limit.fits(self.bytes, self.packets, pkt.wire) {
            drops.push(pkt);
            return;
        }
        let c = self.class_of(&pkt);
        self.bytes += pkt.wire as u64;
        self.packets += 1;
        let class = &mut self.classes[c];
        class.fifo.push_back(pkt);
        if !class.active {
            class.active = true;
            self.round.push_back(c);
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        loop {
            let &c = self.round.front()?;
            let class = &mut self.classes[c];
            if !self.visiting {
                class.deficit += class.quantum;
                self.visiting = true;
            }
            let head = class.fifo.front().map_or(0, |p| p.wire as u64);
            if head > 0 && head <= class.deficit {
                let p = class.fifo.pop_front().expect("a head packet");
                class.deficit -= head;
                if class.fifo.is_empty() {
                    // An emptied class leaves the round and forfeits what it had left.
                    class.deficit = 0;
                    class.active = false;
                    self.round.pop_front();
                    self.visiting = false;
                }
                self.bytes -= head;
                self.packets -= 1;
                return Some(p);
            }
            // The head does not fit this visit: the next class's turn.
            self.round.rotate_left(1);
            self.visiting = false;
        }
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
    use crate::protocol::rcp::header::RcpHeader;
    use crate::qdisc::droptail::tests::pkt;

    fn marked(wire: u32, prio: u8) -> Packet {
        let mut p = pkt(wire, 0);
        p.prio = prio;
        p
    }

    /// Serves a backlog of `n` packets per class and returns the class of each packet sent.
    fn serve(q: &mut Drr, n: usize, wire: u32) -> Vec<u8> {
        let mut drops = Vec::new();
        for _ in 0..n {
            for c in 0..q.classes.len() as u8 {
                q.enqueue(Time::ZERO, marked(wire, c), &mut drops);
            }
        }
        assert!(drops.is_empty());
        std::iter::from_fn(|| q.dequeue(Time::ZERO)).map(|p| p.prio).collect()
    }

    #[test]
    fn backlogged_classes_share_in_proportion_to_their_weights() {
        let mut q = Drr::new(&[4.0, 1.0], Classify::Priority, Limit::Packets(10_000));
        let order = serve(&mut q, 1000, 1000);
        // While both are backlogged (the first 1250 packets: 1000 of class 0, 250 of class 1).
        let first: Vec<u8> = order[..1250].to_vec();
        let zeros = first.iter().filter(|&&c| c == 0).count();
        assert!((zeros as f64 / 1250.0 - 0.8).abs() < 0.01, "class 0 got {zeros} of 1250");
        assert_eq!(order.len(), 2000, "everything is sent");
    }

    #[test]
    fn an_idle_class_lends_its_share_and_keeps_no_credit() {
        let mut q = Drr::new(&[1.0, 1.0], Classify::Priority, Limit::Packets(100));
        let mut drops = Vec::new();
        for _ in 0..10 {
            q.enqueue(Time::ZERO, marked(1000, 1), &mut drops);
        }
        let sent: Vec<u8> = std::iter::from_fn(|| q.dequeue(Time::ZERO)).map(|p| p.prio).collect();
        assert_eq!(sent, vec![1; 10], "class 1 alone takes the link");
        assert_eq!((q.bytes(), q.packets()), (0, 0));
        assert_eq!(q.classes[1].deficit, 0, "an emptied class forfeits its deficit");
    }

    #[test]
    fn explicit_feedback_packets_and_the_rest_are_two_classes() {
        let q = Drr::new(&[1.0, 1.0], Classify::Header, Limit::Packets(10));
        let mut rcp = pkt(1000, 0);
        rcp.cc = CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 0, age_kib: 0 });
        assert_eq!((q.class_of(&rcp), q.class_of(&pkt(1000, 0))), (0, 1));
    }

    #[test]
    fn a_full_buffer_drops_the_arrival() {
        let mut q = Drr::new(&[1.0, 1.0], Classify::Priority, Limit::Packets(2));
        let mut drops = Vec::new();
        for c in [0, 0, 1] {
            q.enqueue(Time::ZERO, marked(1000, c), &mut drops);
        }
        assert_eq!((drops.len(), drops[0].prio, q.packets()), (1, 1, 2));
    }
}
