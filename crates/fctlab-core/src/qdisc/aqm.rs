//! Active queue management with ECN (RFC 3168 sec. 5, 7): a drop-tail FIFO whose *marker*
//! looks at each packet and lets it pass, marks it Congestion Experienced (an ECN-capable
//! packet) or drops it early (one that is not), counting what it did.
//!
//! Two markers:
//!
//! - **RED** (Floyd and Jacobson, "Random Early Detection Gateways for Congestion Avoidance",
//!   1993, sec. 4 and its Fig. 2), with the *gentle* mode (Floyd, 2000). At every arrival the
//!   average queue follows
//!
//!   ```text
//!   (R1)  avg <- (1 - w_q) avg + w_q q                 queue not empty (q: the queue found)
//!   (R2)  avg <- (1 - w_q)^m avg,  m = idle / s        queue empty since `idle` (s: one
//!                                                       typical packet's transmission time)
//!   ```
//!
//!   and the arrival is marked with probability
//!
//!   ```text
//!   (R3)  p_b = max_p (avg - min_th) / (max_th - min_th)             min_th <= avg < max_th
//!   (R4)  p_b = max_p + (1 - max_p) (avg - max_th) / max_th          max_th <= avg < 2 max_th (gentle)
//!   (R5)  p_a = p_b / (1 - count p_b)                                 (1 once count p_b >= 1)
//!   ```
//!
//!   where `count` is the number of arrivals since the last mark (-1 below `min_th`, so the
//!   first arrival above it starts at 0). Without `spread` (R5) is skipped and each arrival is
//!   marked with probability p_b alone, independently of the others: with `w_q = 1` and
//!   `gentle = false` that is the marking of DCQCN's switch (Zhu et al. 2015, sec. 3.1: Kmin,
//!   Kmax, Pmax on the instantaneous queue), also HPCC's simulator's. Above `max_th` (without gentle) or `2 max_th` (with)
//!   every arrival is marked. An ECN-capable arrival is marked CE and queued (Linux's RED
//!   with `ecn`, also in the hard-mark region); one that is not is dropped.
//!
//! - **Step at K** (DCTCP, Alizadeh et al. SIGCOMM 2010 sec. 3.1: "mark arriving packets with
//!   the CE codepoint if the queue occupancy is greater than K upon its arrival"): the
//!   instantaneous queue, no average. At enqueue, an arrival that finds K or more queued ahead
//!   of it (so the queue with it exceeds K) is marked; at dequeue, a departure that leaves K
//!   or more behind it is. A packet that is not ECN-capable and would be marked is dropped
//!   at enqueue (`non_ect = "drop"`, as a switch running RED's ECN mode does) or passes
//!   unmarked (`"pass"`); at dequeue it passes (a packet already queued is not dropped).
//!
//! The queue is measured in bytes (thresholds `min_th`, `max_th`, `k`) or in packets
//! (`min_packets`, `max_packets`, `k_packets`), as the scenario gives the thresholds.
//! Marking is deterministic for a seed: RED draws from the port's own stream.

use super::discipline::{Limit, QueueDiscipline};
use super::droptail::DropTail;
use crate::metrics::metric::Metric;
use crate::net::packet::Packet;
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// How a marker measures the queue: thresholds in bytes or in packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueUnit {
    /// Bytes on the wire.
    Bytes,
    /// Packets.
    Packets,
}

impl QueueUnit {
    /// The queue of `bytes` and `packets` in this unit.
    #[inline]
    fn of(self, bytes: u64, packets: usize) -> f64 {
        match self {
            QueueUnit::Bytes => bytes as f64,
            QueueUnit::Packets => packets as f64,
        }
    }
}

/// What a marking queue does with a packet that is not ECN-capable where it would mark one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NonEct {
    /// Drop it (RFC 3168: the mark stands for a drop).
    Drop,
    /// Let it through unmarked.
    Pass,
}

/// Where a step marker looks at the queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MarkAt {
    /// On arrival: the queue the packet finds.
    Enqueue,
    /// On departure: the queue the packet leaves behind.
    Dequeue,
}

/// RED's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Below this average nothing is marked.
    pub min_th: f64,
    /// From here the probability rises towards 1 (gentle) or every packet is marked.
    pub max_th: f64,
    /// Marking probability at `max_th`.
    pub max_p: f64,
    /// Weight of the newest sample in the average (R1).
    pub w_q: f64,
    /// Gentle mode: (R4) between `max_th` and `2 max_th`.
    pub gentle: bool,
    /// (R5): marks spread out by the count since the last one; false: each arrival marked with
    /// probability p_b independently.
    pub spread: bool,
    /// Unit of the thresholds.
    pub unit: QueueUnit,
}

impl Default for RedParams {
    /// Floyd's recommendations: max_p = 0.1, w_q = 0.002, gentle, (R5); thresholds 5 and 15
    /// packets.
    fn default() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            spread: true,
            unit: QueueUnit::Packets,
        }
    }
}

/// RED's state on one port.
#[derive(Clone, Debug)]
pub struct Red {
    p: RedParams,
    /// The average queue.
    avg: f64,
    /// Arrivals since the last mark (-1: below `min_th`).
    count: i64,
    /// Transmission time of a typical packet (1,500 bytes) at the port's rate: (R2)'s `s`.
    s: Time,
    rng: Rng,
}

/// The wire size (bytes) RED's idle decay counts a typical packet as.
pub const RED_TYPICAL_PACKET: u64 = 1500;

impl Red {
    /// RED with `p` on a port of `capacity`, drawing from `rng`.
    pub fn new(p: RedParams, capacity: Rate, rng: Rng) -> Red {
        Red { p, avg: 0.0, count: -1, s: capacity.tx_time(RED_TYPICAL_PACKET).max(Time::from_ps(1)), rng }
    }

    /// The average queue, in the thresholds' unit.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// (R1)/(R2): the average after an arrival that finds `q` queued, the queue empty since
    /// `idle_since` if it is.
    fn update_avg(&mut self, now: Time, q: f64, idle_since: Option<Time>) {
        let w = self.p.w_q;
        match idle_since {
            Some(t0) if q == 0.0 => {
                let m = (now.saturating_sub(t0)).0 as f64 / self.s.0 as f64;
                self.avg *= (1.0 - w).powf(m);
            }
            _ => self.avg = (1.0 - w) * self.avg + w * q,
        }
    }

    /// (R3)-(R4): the base probability at the current average (0 below `min_th`, 1 in the
    /// hard-mark region).
    pub fn p_b(&self) -> f64 {
        let RedParams { min_th, max_th, max_p, gentle, .. } = self.p;
        let avg = self.avg;
        if avg < min_th {
            0.0
        } else if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            1.0
        }
    }

    /// Whether to mark the arrival that finds `q` queued.
    fn decide(&mut self, now: Time, q: f64, idle_since: Option<Time>) -> bool {
        self.update_avg(now, q, idle_since);
        let p_b = self.p_b();
        if p_b <= 0.0 {
            self.count = -1;
            return false;
        }
        if p_b >= 1.0 {
            self.count = 0;
            return true;
        }
        if !self.p.spread {
            return self.rng.uniform() < p_b;
        }
        self.count += 1;
        // (R5): marks spread out evenly between marks rather than clustered.
        let denom = 1.0 - self.count as f64 * p_b;
        let p_a = if denom <= 0.0 { 1.0 } else { (p_b / denom).min(1.0) };
        if self.rng.uniform() < p_a {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

/// The step marker's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StepParams {
    /// The threshold K.
    pub k: u64,
    /// Unit of K.
    pub unit: QueueUnit,
    /// Where the queue is read.
    pub at: MarkAt,
}

/// A marker: RED or a step at K.
#[derive(Clone, Debug)]
pub enum Marker {
    /// RED with its average.
    Red(Red),
    /// A step at K on the instantaneous queue.
    Step(StepParams),
}

/// Counters of a marking queue.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AqmStats {
    /// Packets marked CE.
    pub marks: u64,
    /// Packets dropped by the marker (not ECN-capable), besides the buffer's drops.
    pub early_drops: u64,
}

/// A drop-tail FIFO with an ECN marker.
#[derive(Debug)]
pub struct AqmQueue {
    fifo: DropTail,
    marker: Marker,
    non_ect: NonEct,
    /// Since when the queue is empty (None while it holds packets).
    idle_since: Option<Time>,
    /// What the marker did.
    pub stats: AqmStats,
}

impl AqmQueue {
    /// An empty queue of `limit` run by `marker`.
    pub fn new(limit: Limit, marker: Marker, non_ect: NonEct) -> AqmQueue {
        AqmQueue {
            fifo: DropTail::new(limit),
            marker,
            non_ect,
            idle_since: Some(Time::ZERO),
            stats: AqmStats::default(),
        }
    }

    /// The marker (RED's average, the step's K).
    pub fn marker(&self) -> &Marker {
        &self.marker
    }

    /// Series rows per sample: marks and early drops so far, and RED's average.
    pub fn metric_count(&self) -> usize {
        match self.marker {
            Marker::Red(_) => 3,
            Marker::Step(_) => 2,
        }
    }

    /// Emits [`AqmQueue::metric_count`] rows.
    pub fn metrics(&self, out: &mut impl FnMut(Metric, f64)) {
        out(Metric::Law("ecn_marks"), self.stats.marks as f64);
        out(Metric::Law("early_drops"), self.stats.early_drops as f64);
        if let Marker::Red(r) = &self.marker {
            out(Metric::Law("red_avg"), r.avg);
        }
    }

    /// Marks `pkt`, or returns it back if it is to be dropped.
    #[inline]
    fn mark(&mut self, pkt: &mut Packet, may_drop: bool) -> bool {
        if pkt.ecn.is_ect() {
            pkt.ecn.mark_ce();
            self.stats.marks += 1;
            true
        } else {
            !(may_drop && self.non_ect == NonEct::Drop)
        }
    }
}

impl QueueDiscipline for AqmQueue {
    fn metric_count(&self) -> usize {
        AqmQueue::metric_count(self)
    }
    fn metrics(&self, out: &mut impl FnMut(Metric, f64)) {
        AqmQueue::metrics(self, out)
    }
    fn enqueue(&mut self, now: Time, mut pkt: Packet, drops: &mut Vec<Packet>) {
        let (bytes, pkts) = (self.fifo.bytes(), self.fifo.packets());
        let hit = match &mut self.marker {
            Marker::Red(r) => r.decide(now, r.p.unit.of(bytes, pkts), self.idle_since),
            Marker::Step(s) => s.at == MarkAt::Enqueue && s.unit.of(bytes, pkts) >= s.k as f64,
        };
        if hit && !self.mark(&mut pkt, true) {
            self.stats.early_drops += 1;
            drops.push(pkt);
            return;
        }
        self.fifo.enqueue(now, pkt, drops);
        if self.fifo.packets() > 0 {
            self.idle_since = None;
        }
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let mut p = self.fifo.dequeue(now)?;
        if let Marker::Step(s) = &self.marker {
            if s.at == MarkAt::Dequeue && s.unit.of(self.fifo.bytes(), self.fifo.packets()) >= s.k as f64 {
                self.mark(&mut p, false);
            }
        }
        if self.fifo.packets() == 0 {
            self.idle_since = Some(now);
        }
        Some(p)
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn packets(&self) -> usize {
        self.fifo.packets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;
    use crate::qdisc::droptail::tests::pkt;

    fn ect(wire: u32) -> Packet {
        Packet { ecn: Ecn::ECT0, ..pkt(wire, 0) }
    }

    fn red(p: RedParams) -> Red {
        Red::new(p, Rate::from_gbps(1), Rng::new(1))
    }

    /// (R3) and (R4) at hand-picked averages: min_th 5, max_th 15, max_p 0.1.
    #[test]
    fn red_base_probability_is_linear_then_gentle_then_one() {
        let mut r = red(RedParams::default());
        for (avg, want) in [
            (4.9, 0.0),
            (5.0, 0.0),
            (10.0, 0.05),
            (15.0, 0.1),
            (22.5, 0.55),
            (29.99, 0.1 + 0.9 * 14.99 / 15.0),
            (30.0, 1.0),
        ] {
            r.avg = avg;
            assert!((r.p_b() - want).abs() < 1e-12, "avg {avg}: {} != {want}", r.p_b());
        }
        r.p.gentle = false;
        r.avg = 15.0;
        assert_eq!(r.p_b(), 1.0, "without gentle, max_th marks everything");
    }

    /// (R1) moves the average by w_q towards each sample; (R2) decays it over an idle period as
    /// m samples of 0 would.
    #[test]
    fn red_average_follows_samples_and_decays_while_idle() {
        let mut r = red(RedParams { w_q: 0.5, ..RedParams::default() });
        r.update_avg(Time::ZERO, 8.0, None);
        assert_eq!(r.avg, 4.0);
        r.update_avg(Time::ZERO, 8.0, None);
        assert_eq!(r.avg, 6.0);
        // 1,500 bytes at 1 Gb/s is 12 us: 36 us idle is three packets' worth, avg * 0.5^3.
        r.update_avg(Time::from_us(36), 0.0, Some(Time::ZERO));
        assert!((r.avg - 0.75).abs() < 1e-12, "{}", r.avg);
    }

    /// (R5): with count, marks come no later than 1/p_b arrivals apart.
    #[test]
    fn red_marks_at_least_once_every_one_over_p_b_arrivals() {
        let mut r = red(RedParams { w_q: 1.0, ..RedParams::default() });
        let mut since = 0;
        let mut marks = 0;
        for _ in 0..10_000 {
            since += 1;
            // Queue steady at 10 packets: p_b = 0.05, so at most 20 arrivals between marks.
            if r.decide(Time::ZERO, 10.0, None) {
                assert!(since <= 20, "{since} arrivals without a mark");
                since = 0;
                marks += 1;
            }
        }
        // Uniform spacing on 1..=20 arrivals: a mean gap of 10.5, about 950 marks.
        assert!((850..1050).contains(&marks), "{marks}");
    }

    /// Without (R5), at a steady queue the marked fraction is p_b itself (DCQCN's marking):
    /// gaps between marks are geometric, longer than 1/p_b arrivals now and then.
    #[test]
    fn red_without_spread_marks_each_arrival_with_p_b() {
        let mut r = red(RedParams { w_q: 1.0, spread: false, ..RedParams::default() });
        let (mut marks, mut since, mut longest) = (0, 0, 0);
        for _ in 0..100_000 {
            since += 1;
            if r.decide(Time::ZERO, 10.0, None) {
                marks += 1;
                longest = longest.max(since);
                since = 0;
            }
        }
        // p_b = 0.05: 5,000 marks expected, standard deviation about 69.
        assert!((4_750..5_250).contains(&marks), "{marks}");
        assert!(longest > 20, "no gap above 1/p_b: marks are being spread ({longest})");
    }

    #[test]
    fn red_marks_ect_packets_and_drops_the_others() {
        let p = RedParams { min_th: 0.0, max_th: 1.0, w_q: 1.0, gentle: false, ..RedParams::default() };
        let mut q = AqmQueue::new(Limit::Packets(100), Marker::Red(red(p)), NonEct::Drop);
        let mut drops = Vec::new();
        q.enqueue(Time::ZERO, ect(1500), &mut drops); // finds 0 queued: avg 0 < max_th, p_b 0
        q.enqueue(Time::ZERO, ect(1500), &mut drops); // finds 1: hard mark
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut drops); // not ECT: dropped
        assert_eq!((q.packets(), drops.len()), (2, 1));
        assert_eq!(q.stats, AqmStats { marks: 1, early_drops: 1 });
        assert!(!q.dequeue(Time::ZERO).unwrap().ecn.is_ce());
        assert!(q.dequeue(Time::ZERO).unwrap().ecn.is_ce());
    }

    /// DCTCP's step: with K = 2 packets, the third arrival (two ahead of it) is the first
    /// marked; at dequeue, a packet is marked while two or more stay behind it.
    #[test]
    fn step_marks_above_k_at_enqueue_or_at_dequeue() {
        let mut drops = Vec::new();
        let step = |at| Marker::Step(StepParams { k: 2, unit: QueueUnit::Packets, at });
        let mut q = AqmQueue::new(Limit::Packets(100), step(MarkAt::Enqueue), NonEct::Pass);
        for _ in 0..4 {
            q.enqueue(Time::ZERO, ect(1500), &mut drops);
        }
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut drops);
        let ce: Vec<bool> = (0..5).map(|_| q.dequeue(Time::ZERO).unwrap().ecn.is_ce()).collect();
        assert_eq!(ce, [false, false, true, true, false], "a non-ECT packet passes unmarked with non_ect = pass");
        assert_eq!(q.stats.marks, 2);

        let mut q = AqmQueue::new(Limit::Packets(100), step(MarkAt::Dequeue), NonEct::Drop);
        for _ in 0..4 {
            q.enqueue(Time::ZERO, ect(1500), &mut drops);
        }
        let ce: Vec<bool> = (0..4).map(|_| q.dequeue(Time::ZERO).unwrap().ecn.is_ce()).collect();
        assert_eq!(ce, [true, true, false, false]);
        assert!(drops.is_empty());
    }

    #[test]
    fn step_in_bytes_drops_non_ect_arrivals_above_k() {
        let marker = Marker::Step(StepParams { k: 3000, unit: QueueUnit::Bytes, at: MarkAt::Enqueue });
        let mut q = AqmQueue::new(Limit::Packets(100), marker, NonEct::Drop);
        let mut drops = Vec::new();
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut drops);
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut drops);
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut drops); // finds 3000 bytes: K reached
        assert_eq!((q.packets(), drops.len(), q.stats.early_drops), (2, 1, 1));
    }
}
