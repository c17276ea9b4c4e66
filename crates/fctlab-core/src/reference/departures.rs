//! The fluid's pending departures: each active flow's completion time at its current rate, in
//! a binary min-heap indexed by flow, so that a re-rated flow moves its one entry (up or down)
//! instead of leaving a stale one behind. `local.rs` re-rates most of the flows it fills, and a
//! heap of stale entries grew to twice the active flows and spent its time sifting and popping
//! them.
//!
//! Ordered by (time, flow index): simultaneous departures come out in flow order.

/// No position: the flow has no entry.
const NONE: u32 = u32::MAX;

/// Departure times of flows `0..n`, at most one entry per flow.
pub(super) struct Departures {
    /// Flows, in heap order.
    heap: Vec<u32>,
    /// Per flow: its index in `heap`, or `NONE`.
    pos: Vec<u32>,
    /// Per flow: its departure time, s (meaningful while it has an entry).
    time: Vec<f64>,
}

impl Departures {
    pub(super) fn new(n: usize) -> Departures {
        Departures { heap: Vec::new(), pos: vec![NONE; n], time: vec![0.0; n] }
    }

    /// The earliest departure: (time, flow).
    pub(super) fn peek(&self) -> Option<(f64, u32)> {
        self.heap.first().map(|&f| (self.time[f as usize], f))
    }

    /// Flow `f` departs at `t` (its entry added, or moved).
    pub(super) fn set(&mut self, f: u32, t: f64) {
        let fu = f as usize;
        let old = self.time[fu];
        self.time[fu] = t;
        match self.pos[fu] {
            NONE => {
                self.pos[fu] = self.heap.len() as u32;
                self.heap.push(f);
                self.up(self.heap.len() - 1);
            }
            p if t < old => self.up(p as usize),
            p => self.down(p as usize),
        }
    }

    /// Flow `f` has no departure any more (no entry: nothing happens).
    pub(super) fn remove(&mut self, f: u32) {
        let p = self.pos[f as usize];
        if p == NONE {
            return;
        }
        self.pos[f as usize] = NONE;
        let last = self.heap.pop().expect("an entry was found");
        if last != f {
            let p = p as usize;
            self.heap[p] = last;
            self.pos[last as usize] = p as u32;
            self.up(p);
            self.down(self.pos[last as usize] as usize);
        }
    }

    /// The earliest departure, taken out.
    pub(super) fn pop(&mut self) -> Option<(f64, u32)> {
        let first = self.peek()?;
        self.remove(first.1);
        Some(first)
    }

    fn before(&self, a: u32, b: u32) -> bool {
        let (ta, tb) = (self.time[a as usize], self.time[b as usize]);
        ta < tb || (ta == tb && a < b)
    }

    fn place(&mut self, i: usize, f: u32) {
        self.heap[i] = f;
        self.pos[f as usize] = i as u32;
    }

    fn up(&mut self, mut i: usize) {
        let f = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.heap[parent];
            if !self.before(f, p) {
                break;
            }
            self.place(i, p);
            i = parent;
        }
        self.place(i, f);
    }

    fn down(&mut self, mut i: usize) {
        let f = self.heap[i];
        let n = self.heap.len();
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.before(self.heap[right], self.heap[left]) { right } else { left };
            let c = self.heap[child];
            if !self.before(c, f) {
                break;
            }
            self.place(i, c);
            i = child;
        }
        self.place(i, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Random sets, moves and removals: pops come out in (time, flow) order and match a plain
    /// list of the live entries.
    #[test]
    fn pops_follow_time_then_flow_through_moves_and_removals() {
        let mut rng = Rng::new(3);
        let n = 50;
        let mut d = Departures::new(n);
        let mut want: Vec<Option<f64>> = vec![None; n];
        for step in 0..5000 {
            let f = rng.below(n as u64) as u32;
            match rng.below(4) {
                0 => {
                    d.remove(f);
                    want[f as usize] = None;
                }
                1 => {
                    let got = d.pop();
                    let best = (0..n as u32)
                        .filter_map(|g| want[g as usize].map(|t| (t, g)))
                        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    assert_eq!(got, best, "step {step}");
                    if let Some((_, g)) = best {
                        want[g as usize] = None;
                    }
                }
                _ => {
                    // Coarse times, so that ties happen.
                    let t = rng.below(30) as f64;
                    d.set(f, t);
                    want[f as usize] = Some(t);
                }
            }
        }
    }
}
