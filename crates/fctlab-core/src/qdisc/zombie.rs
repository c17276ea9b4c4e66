//! The zombie list: a router's estimate of how many flows send through a port, without
//! per-flow state (thesis ref. [74], SRED; used by the RCP/TCP coexistence scheme's STEP C.1,
//! 004:3180-3187).
//!
//! The thesis: "A zombie list is a fixed size array recording the flow identifiers of recently
//! seen packets. On each packet arrival, the flow Id either writes to an empty entry or, with
//! probability p, overwrites a stored entry if the list is full. The number of flows ... is
//! estimated by the reciprocal of the hit probability - the probability that an incoming
//! packet belongs to a flow in the list."
//!
//! Our reading, after SRED (the thesis gives no more detail):
//! - each arrival is compared with **one** entry drawn uniformly from the list; a *hit* is an
//!   entry holding the arrival's flow id. While the list is not full the arrival also takes
//!   an empty entry; once full, a miss overwrites the drawn entry with probability p (a hit
//!   leaves it: the flow is already there);
//! - the hit probability P is a running average of the hits, with gain 1/n over the first n
//!   arrivals (the plain mean) and then 1/(4M) for a list of M entries (SRED uses 1/M; with
//!   N = 80 equal flows and M = 1000 that left the estimate 20% off, 1/(4M) about 10%);
//! - N = 1/P. In steady state each flow holds entries in proportion to its share of the
//!   packets, so P = sum_i s_i^2 (s_i: flow i's share): exactly 1/N for N equal flows, and for
//!   unequal flows fewer ("effective" flows), e.g. one flow of half the packets among many
//!   small ones counts as at most four. Before the first hit P = 0; the estimate is then the
//!   list's size (at least that many distinct flows would be needed to miss so often).
//!
//! The coexistence queue keeps one list per class (RCP, TCP) so each class's N is that of its
//! own packets. Draws come from the run's seeded generator: deterministic for a seed.

use crate::rng::Rng;

/// The hit average's memory in list lengths: gain 1/(MEMORY M) once past the start.
pub const MEMORY: f64 = 4.0;

/// A fixed-size list of recently seen flow ids and the running hit probability.
#[derive(Debug)]
pub struct ZombieList {
    entries: Vec<u32>,
    size: usize,
    /// Probability p that a miss overwrites the drawn entry of a full list.
    overwrite: f64,
    /// Running average of hits, P.
    hit: f64,
    /// Arrivals compared so far (for the 1/n gain of the start).
    seen: u64,
    rng: Rng,
}

impl ZombieList {
    /// An empty list of `size` entries (> 0) whose misses overwrite with probability `overwrite`.
    pub fn new(size: usize, overwrite: f64, rng: Rng) -> ZombieList {
        assert!(size > 0, "a zombie list needs at least one entry");
        ZombieList { entries: Vec::with_capacity(size), size, overwrite, hit: 0.0, seen: 0, rng }
    }

    /// A packet of `flow` arrives.
    pub fn observe(&mut self, flow: u32) {
        if self.entries.is_empty() {
            self.entries.push(flow);
            return;
        }
        let k = self.rng.below(self.entries.len() as u64) as usize;
        let hit = self.entries[k] == flow;
        self.seen += 1;
        let gain = (1.0 / self.seen as f64).max(1.0 / (MEMORY * self.size as f64));
        self.hit += gain * (f64::from(u8::from(hit)) - self.hit);
        if self.entries.len() < self.size {
            self.entries.push(flow);
        } else if !hit && self.rng.bernoulli(self.overwrite) {
            self.entries[k] = flow;
        }
    }

    /// The running hit probability P.
    pub fn hit_probability(&self) -> f64 {
        self.hit
    }

    /// The estimated number of flows, 1/P (the list's size before the first hit).
    pub fn flows(&self) -> f64 {
        if self.hit > 0.0 {
            (1.0 / self.hit).min(self.size as f64 * 1e3)
        } else {
            self.size as f64
        }
    }

    /// Whether any arrival was seen.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `packets` arrivals round-robin over `n` flows (ids offset by `base`).
    fn feed(z: &mut ZombieList, n: u32, base: u32, packets: u32) {
        for i in 0..packets {
            z.observe(base + i % n);
        }
    }

    #[test]
    fn equal_flows_are_counted_by_the_reciprocal_of_the_hit_probability() {
        for n in [1, 5, 20, 80] {
            let mut z = ZombieList::new(1000, 0.25, Rng::new(7));
            feed(&mut z, n, 0, 200_000);
            let est = z.flows();
            assert!((est - n as f64).abs() < 0.15 * n as f64, "{n} flows estimated as {est}");
        }
    }

    #[test]
    fn the_estimate_follows_a_change_in_the_number_of_flows() {
        let mut z = ZombieList::new(1000, 0.25, Rng::new(3));
        feed(&mut z, 40, 0, 100_000);
        // The 40 flows end; 10 others take the link.
        feed(&mut z, 10, 1000, 100_000);
        assert!((z.flows() - 10.0).abs() < 1.5, "{}", z.flows());
    }

    #[test]
    fn unequal_flows_count_as_the_inverse_sum_of_squared_shares() {
        // One flow sends half the packets, ten others a twentieth each: 1 / (0.25 + 10/400) = 3.6.
        let mut z = ZombieList::new(1000, 0.25, Rng::new(11));
        for i in 0..300_000u32 {
            z.observe(if i % 2 == 0 { 0 } else { 1 + (i / 2) % 10 });
        }
        assert!((z.flows() - 3.64).abs() < 0.4, "{}", z.flows());
    }

    #[test]
    fn an_empty_or_unhit_list_says_its_size() {
        let mut z = ZombieList::new(50, 0.25, Rng::new(1));
        assert!(z.is_empty());
        assert_eq!(z.flows(), 50.0);
        z.observe(1);
        z.observe(2);
        assert_eq!(z.flows(), 50.0, "no hit yet");
    }
}
