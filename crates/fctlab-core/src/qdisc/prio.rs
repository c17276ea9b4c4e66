//! Strict priority with a shared buffer and push-out (the WQoS queues RC3 relies on).
//!
//! Band 0 is the highest. A packet of band n is served only while bands 0..n are empty.
//! All bands share one buffer; when a packet does not fit, packets are pushed out from the
//! tail of the lowest-priority non-empty band below the arrival's, repeatedly, until it fits;
//! if no lower band has anything left, the arrival itself is dropped. So a low-priority packet
//! can never cost a higher-priority one its place. Packets marked beyond the last band join
//! the last band.

use super::discipline::{Limit, QueueDiscipline};
use crate::net::packet::Packet;
use crate::units::Time;
use std::collections::VecDeque;

/// Per-band counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BandStats {
    /// Packets dequeued (sent) from the band.
    pub pkts_sent: u64,
    /// Bytes dequeued from the band.
    pub bytes_sent: u64,
    /// Packets of the band dropped on arrival or pushed out.
    pub drops_pkts: u64,
    /// Bytes of the band dropped.
    pub drops_bytes: u64,
}

/// A strict-priority queue with a shared buffer.
#[derive(Debug)]
pub struct Prio {
    bands: Vec<VecDeque<Packet>>,
    /// Bit b set while band b holds packets.
    busy: u32,
    bytes: u64,
    packets: usize,
    limit: Limit,
    /// Counters per band.
    pub stats: Vec<BandStats>,
}

impl Prio {
    /// `n` bands (1..=32) sharing a buffer of `limit`.
    pub fn new(n: usize, limit: Limit) -> Prio {
        let n = n.clamp(1, 32);
        Prio {
            bands: (0..n).map(|_| VecDeque::new()).collect(),
            busy: 0,
            bytes: 0,
            packets: 0,
            limit,
            stats: vec![BandStats::default(); n],
        }
    }

    /// The band a packet of priority `prio` goes to.
    #[inline]
    pub fn band_of(&self, prio: u8) -> usize {
        (prio as usize).min(self.bands.len() - 1)
    }

    /// Number of bands.
    pub fn band_count(&self) -> usize {
        self.bands.len()
    }

    /// Packets queued in band `b`.
    pub fn band_len(&self, b: usize) -> usize {
        self.bands[b].len()
    }

    fn drop_tail_of(&mut self, b: usize, drops: &mut Vec<Packet>) {
        if let Some(p) = self.bands[b].pop_back() {
            self.bytes -= p.wire as u64;
            self.packets -= 1;
            self.stats[b].drops_pkts += 1;
            self.stats[b].drops_bytes += p.wire as u64;
            if self.bands[b].is_empty() {
                self.busy &= !(1 << b);
            }
            drops.push(p);
        }
    }
}

impl QueueDiscipline for Prio {
    fn enqueue(&mut self, _now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        let b = self.band_of(pkt.prio);
        while !self.limit.fits(self.bytes, self.packets, pkt.wire) {
            // The lowest-priority non-empty band strictly below the arrival's.
            let lower = self.busy & !((2u32 << b) - 1);
            if lower == 0 {
                self.stats[b].drops_pkts += 1;
                self.stats[b].drops_bytes += pkt.wire as u64;
                drops.push(pkt);
                return;
            }
            let victim = 31 - lower.leading_zeros() as usize;
            self.drop_tail_of(victim, drops);
        }
        self.bytes += pkt.wire as u64;
        self.packets += 1;
        self.busy |= 1 << b;
        self.bands[b].push_back(pkt);
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        if self.busy == 0 {
            return None;
        }
        let b = self.busy.trailing_zeros() as usize;
        let p = self.bands[b].pop_front()?;
        if self.bands[b].is_empty() {
            self.busy &= !(1 << b);
        }
        self.bytes -= p.wire as u64;
        self.packets -= 1;
        self.stats[b].pkts_sent += 1;
        self.stats[b].bytes_sent += p.wire as u64;
        Some(p)
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
    use crate::qdisc::droptail::tests::pkt;

    #[test]
    fn a_band_is_served_only_when_every_higher_band_is_empty() {
        let mut q = Prio::new(4, Limit::Packets(100));
        let mut d = Vec::new();
        for (i, prio) in [3u8, 1, 2, 0, 1, 3, 0].into_iter().enumerate() {
            let mut p = pkt(100, prio);
            p.seq = i as u64;
            q.enqueue(Time::ZERO, p, &mut d);
        }
        let order: Vec<(u8, u64)> = std::iter::from_fn(|| q.dequeue(Time::ZERO)).map(|p| (p.prio, p.seq)).collect();
        assert_eq!(order, vec![(0, 3), (0, 6), (1, 1), (1, 4), (2, 2), (3, 0), (3, 5)]);
        assert_eq!((q.bytes(), q.packets()), (0, 0));
    }

    #[test]
    fn a_full_buffer_pushes_out_the_lowest_band_tail_first() {
        let mut q = Prio::new(4, Limit::Bytes(400));
        let mut d = Vec::new();
        for (seq, prio) in [(1, 1u8), (2, 3), (3, 2), (4, 3)] {
            let mut p = pkt(100, prio);
            p.seq = seq;
            q.enqueue(Time::ZERO, p, &mut d);
        }
        assert!(d.is_empty());
        // A band-0 arrival pushes out band 3's tail (seq 4); a second one band 3's next (seq 2).
        q.enqueue(Time::ZERO, pkt(100, 0), &mut d);
        q.enqueue(Time::ZERO, pkt(100, 0), &mut d);
        assert_eq!(d.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![4, 2]);
        // A band-2 arrival finds no band below it with packets: it is dropped itself.
        q.enqueue(Time::ZERO, pkt(100, 2), &mut d);
        assert_eq!(d.last().unwrap().prio, 2);
        assert_eq!(q.stats[3].drops_pkts, 2);
        assert_eq!(q.stats[2].drops_pkts, 1);
        assert!(q.bytes() <= 400);
    }

    #[test]
    fn a_large_arrival_pushes_out_several_small_packets() {
        let mut q = Prio::new(2, Limit::Bytes(1500));
        let mut d = Vec::new();
        for _ in 0..30 {
            q.enqueue(Time::ZERO, pkt(50, 1), &mut d);
        }
        q.enqueue(Time::ZERO, pkt(1500, 0), &mut d);
        assert_eq!(d.len(), 30);
        assert_eq!((q.packets(), q.bytes()), (1, 1500));
    }

    #[test]
    fn invariants_hold_under_a_random_load() {
        // Strict priority and push-out never let a lower band cost a higher band a packet.
        let mut q = Prio::new(5, Limit::Bytes(20_000));
        let mut r = crate::rng::Rng::new(9);
        let mut d = Vec::new();
        for step in 0..50_000 {
            if r.below(3) > 0 {
                let prio = r.below(6) as u8;
                let before = d.len();
                q.enqueue(Time::ZERO, pkt(40 + r.below(1460) as u32, prio), &mut d);
                for victim in &d[before..] {
                    // Only the arrival itself or strictly lower-priority packets are dropped.
                    assert!(q.band_of(victim.prio) > q.band_of(prio) || std::ptr::eq(victim, d.last().unwrap()));
                }
            } else if let Some(p) = q.dequeue(Time::ZERO) {
                let b = q.band_of(p.prio);
                assert!((0..b).all(|h| q.band_len(h) == 0), "step {step}: served band {b} with a higher band busy");
            }
            assert!(q.bytes() <= 20_000);
        }
    }
}
