//! Max-min fair sharing recomputed locally: the completion times of [`super::ps::max_min_fct`]
//! (the same model, equations (1)-(6) there) at a cost that follows what an event changes, not
//! the number of active flows. `fctlab estimate --method fluid` runs on it: a loaded fabric has
//! thousands of active flows, and water-filling all of them at every arrival and departure
//! costs seconds per thousand flows.
//!
//! ## The local fill
//! An event (arrivals or departures at one instant) changes the flows on the links of the
//! flows that came or went. Let `F` be a set of active flows, the rest (`N`) keeping their
//! rates `r_h`. Water-filling `F` alone, each link `l` offering the capacity the flows of `N`
//! leave,
//!
//! ```text
//! (8)  R_l = C_l - sum_{h in N : l in P_h} r_h
//! ```
//!
//! gives `F` new rates `r'`. Each active flow `h` has a *bottleneck* `b_h`: the link it froze
//! at when last filled, which is full and where no flow has a higher rate (every flow gets
//! one at its arrival's fill, and the fills below keep that true). The new rates of `F`
//! together with the old rates of `N` are the max-min allocation of the whole network when
//!
//! ```text
//! (9)   no link crossed by a flow of F whose rate changed is the bottleneck of a flow of N,
//! (10)  every flow of F frozen at a link l that carries flows of N has r'_f >= r_h for each
//!       of them
//! ```
//!
//! since max-min fairness is feasibility plus, for every flow, a full link on its path where
//! no flow has a higher rate (eq. (2) of `ps.rs`). Feasibility holds link by link: (8) on links
//! that carry flows of `F`, unchanged elsewhere. A flow `h` of `N` keeps its bottleneck, full,
//! with the same rates on it: by (9) no flow on `b_h` changed. A flow of `F` has the link it
//! froze at, full by construction, where it has the highest rate among `F` (water-filling)
//! and, by (10), among `N`; that link becomes its bottleneck. So the fill starts with `F` =
//! the flows on the event's links and, while (9) or (10) fails at some link, adds that link's
//! flows to `F` and fills again. `F` only grows, and with every active flow in it the fill is
//! the global one, so this ends, and always with the exact allocation (up to the rounding of a
//! rate "unchanged" within 1e-9 relative).
//!
//! (9) asks less than "no flow of N on the link": a re-rated flow crosses links where every
//! other flow is held back elsewhere (on a fabric, the switch-to-switch links, most flows held
//! at a host's link), and those links no longer pull their flows into `F`. On the 224,628
//! flows of the Parsimon-size fabric's first 100 ms that took the flows water-filled per event
//! from 361 to 73.
//!
//! Between events every flow's bits fall at its rate (eq. (5) of `ps.rs`); a flow whose rate
//! changes has its bits left brought up to date then, and its departure rescheduled.
//!
//! Deterministic: flows in `F` and links are visited in the order they were added, heap ties
//! broken by link and flow index, arrivals by (start, index), departures at one instant by
//! flow index.

use super::departures::Departures;
use super::shared::{check_input, PsFlow};
use crate::error::SpecResult;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A rate is "unchanged" (condition (9)) within this relative difference.
const SAME_RATE: f64 = 1e-9;

/// No link (a flow not yet filled).
const NONE: u32 = u32::MAX;

/// Fluid completion time (finish - start, s) of every flow under max-min fair sharing of
/// `links` (capacities, bit/s), recomputed locally at each arrival and departure; in input
/// order. The same model as [`super::ps::max_min_fct`]; a flow with an empty path or no bits
/// completes on arrival (0 s).
pub fn max_min_fct_local(links: &[f64], flows: &[PsFlow]) -> SpecResult<Vec<f64>> {
    check_input(links, flows)?;
    let (hops, hop0) = flat_paths(flows);
    Ok(Local::new(links, flows, &hops, &hop0).run())
}

/// What [`max_min_fct_local`] did: events, local fills, and the flows they re-rated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalStats {
    /// Instants with arrivals or departures.
    pub events: u64,
    /// Water-fillings (an event takes one, plus one per growth of `F`).
    pub fills: u64,
    /// Flows water-filled, summed over the fills.
    pub filled_flows: u64,
    /// The most flows one fill took.
    pub largest_fill: u64,
    /// The most flows active at once.
    pub peak_active: u64,
}

/// [`max_min_fct_local`] with what it did.
pub fn max_min_fct_local_stats(links: &[f64], flows: &[PsFlow]) -> SpecResult<(Vec<f64>, LocalStats)> {
    check_input(links, flows)?;
    let (hops, hop0) = flat_paths(flows);
    let mut l = Local::new(links, flows, &hops, &hop0);
    let fct = l.run();
    Ok((fct, l.stats))
}

/// Every flow's path in one array (flow f's hops are `hops[hop0[f]..hop0[f + 1]]`): a fill
/// walks the paths of many flows, and one array keeps them off separate allocations.
fn flat_paths(flows: &[PsFlow]) -> (Vec<u32>, Vec<u32>) {
    let mut hops = Vec::with_capacity(flows.iter().map(|f| f.path.len()).sum());
    let mut hop0 = Vec::with_capacity(flows.len() + 1);
    for f in flows {
        hop0.push(hops.len() as u32);
        hops.extend_from_slice(&f.path);
    }
    hop0.push(hops.len() as u32);
    (hops, hop0)
}

/// The fluid state between events, and the scratch of the local fill.
struct Local<'a> {
    cap: &'a [f64],
    flows: &'a [PsFlow],
    /// Per flow: rate (bit/s) and bits left at `since`.
    rate: Vec<f64>,
    left: Vec<f64>,
    since: Vec<f64>,
    /// The flows' paths ([`flat_paths`]).
    hops: &'a [u32],
    hop0: &'a [u32],
    /// Per flow and hop (`hop0[f] + k`): the flow's index in its k-th link's `on_link` list.
    pos: Vec<u32>,
    /// Per link: the active flows crossing it, and the sum of their rates.
    on_link: Vec<Vec<u32>>,
    load: Vec<f64>,
    /// Each active flow's departure at its current rate.
    deps: Departures,
    /// Active flows.
    live: usize,
    // The local fill's scratch: the epoch marks membership of F (per flow) and of the touched
    // links (per link) without clearing.
    epoch: u32,
    in_f: Vec<u32>,
    frozen: Vec<u32>,
    new_rate: Vec<f64>,
    bottleneck: Vec<u32>,
    link_epoch: Vec<u32>,
    resid: Vec<f64>,
    weight: Vec<u32>,
    /// Flows of F on each touched link (before the fill freezes any).
    in_f_on: Vec<u32>,
    /// The flows of F on each touched link: `f_on[f_at[l]..f_at[l] + in_f_on[l]]`.
    f_at: Vec<u32>,
    f_on: Vec<u32>,
    grow_epoch: Vec<u32>,
    /// Per flow, the link it froze at when last filled (its bottleneck: full, and no flow
    /// there has a higher rate), or `NONE`; per link, the active flows it holds so, and, valid
    /// when `held_epoch` is the fill's epoch, how many of them are in F.
    held_at: Vec<u32>,
    held: Vec<u32>,
    held_f: Vec<u32>,
    held_epoch: Vec<u32>,
    f_list: Vec<u32>,
    touched: Vec<u32>,
    sorted: Vec<u128>,
    heap: BinaryHeap<Reverse<u128>>,
    stats: LocalStats,
}

impl<'a> Local<'a> {
    fn new(cap: &'a [f64], flows: &'a [PsFlow], hops: &'a [u32], hop0: &'a [u32]) -> Local<'a> {
        let n = flows.len();
        Local {
            cap,
            flows,
            rate: vec![0.0; n],
            left: vec![0.0; n],
            since: vec![0.0; n],
            pos: vec![0; hops.len()],
            hops,
            hop0,
            on_link: vec![Vec::new(); cap.len()],
            load: vec![0.0; cap.len()],
            deps: Departures::new(n),
            live: 0,
            epoch: 0,
            in_f: vec![0; n],
            frozen: vec![0; n],
            new_rate: vec![0.0; n],
            bottleneck: vec![0; n],
            link_epoch: vec![0; cap.len()],
            resid: vec![0.0; cap.len()],
            weight: vec![0; cap.len()],
            in_f_on: vec![0; cap.len()],
            f_at: vec![0; cap.len()],
            f_on: Vec::new(),
            grow_epoch: vec![0; cap.len()],
            held_at: vec![NONE; n],
            held: vec![0; cap.len()],
            held_f: vec![0; cap.len()],
            held_epoch: vec![0; cap.len()],
            f_list: Vec::new(),
            touched: Vec::new(),
            sorted: Vec::new(),
            heap: BinaryHeap::new(),
            stats: LocalStats::default(),
        }
    }

    fn path(&self, f: u32) -> &'a [u32] {
        let f = f as usize;
        &self.hops[self.hop0[f] as usize..self.hop0[f + 1] as usize]
    }

    fn run(&mut self) -> Vec<f64> {
        let flows = self.flows;
        let mut fct = vec![0.0; flows.len()];
        let mut order: Vec<u32> = (0..flows.len() as u32)
            .filter(|&i| !flows[i as usize].path.is_empty() && flows[i as usize].bits > 0.0)
            .collect();
        order.sort_by(|&a, &b| flows[a as usize].start.total_cmp(&flows[b as usize].start).then(a.cmp(&b)));
        let mut next = 0;
        let mut seeds: Vec<u32> = Vec::new();
        let mut gone: Vec<u32> = Vec::new();
        loop {
            let departure = self.next_departure();
            let arrival = order.get(next).map(|&i| flows[i as usize].start);
            seeds.clear();
            let now = match (arrival, departure) {
                (Some(ta), d) if d.is_none_or(|td| ta <= td) => {
                    // Everything arriving at this instant joins before the rates are recomputed.
                    while let Some(&i) = order.get(next).filter(|&&i| flows[i as usize].start == ta) {
                        self.arrive(i, ta);
                        seeds.extend_from_slice(self.path(i));
                        next += 1;
                    }
                    ta
                }
                (_, Some(td)) => {
                    gone.clear();
                    while let Some((_, f)) = self.deps.peek().filter(|&(t, _)| t == td) {
                        self.deps.pop();
                        gone.push(f);
                    }
                    gone.sort_unstable();
                    for &f in &gone {
                        self.depart(f);
                        fct[f as usize] = td - flows[f as usize].start;
                        seeds.extend_from_slice(self.path(f));
                    }
                    td
                }
                _ => break,
            };
            self.stats.events += 1;
            self.recompute(now, &seeds);
        }
        fct
    }

    /// The earliest departure time.
    fn next_departure(&mut self) -> Option<f64> {
        self.deps.peek().map(|(t, _)| t)
    }

    fn arrive(&mut self, f: u32, now: f64) {
        let fu = f as usize;
        self.live += 1;
        self.stats.peak_active = self.stats.peak_active.max(self.live as u64);
        self.rate[fu] = 0.0;
        self.left[fu] = self.flows[fu].bits;
        self.since[fu] = now;
        for (k, &l) in self.path(f).iter().enumerate() {
            let list = &mut self.on_link[l as usize];
            self.pos[self.hop0[fu] as usize + k] = list.len() as u32;
            list.push(f);
        }
    }

    fn depart(&mut self, f: u32) {
        let fu = f as usize;
        self.live -= 1;
        if self.held_at[fu] != NONE {
            self.held[self.held_at[fu] as usize] -= 1;
            self.held_at[fu] = NONE;
        }
        let rate = std::mem::take(&mut self.rate[fu]);
        for (k, &l) in self.path(f).iter().enumerate() {
            self.load[l as usize] -= rate;
            let p = self.pos[self.hop0[fu] as usize + k] as usize;
            let list = &mut self.on_link[l as usize];
            list.swap_remove(p);
            if let Some(&moved) = list.get(p) {
                let kk = self.path(moved).iter().position(|&x| x == l).expect("a flow on a link has it on its path");
                self.pos[self.hop0[moved as usize] as usize + kk] = p as u32;
            }
        }
    }

    /// The local fill after an event at `now` on the links `seeds` (with duplicates).
    fn recompute(&mut self, now: f64, seeds: &[u32]) {
        self.epoch += 1;
        let grow = self.epoch;
        self.f_list.clear();
        let mut grown: Vec<u32> = Vec::new();
        for &l in seeds {
            if self.grow_epoch[l as usize] != grow {
                self.grow_epoch[l as usize] = grow;
                grown.push(l);
            }
        }
        loop {
            // F += the flows of the links that grew it (each link's once: grow_epoch).
            self.epoch += 1;
            let e = self.epoch;
            let mut members = std::mem::take(&mut self.f_list);
            // Keep the earlier members (re-marked with the new epoch), then the new links' flows.
            for &f in &members {
                self.in_f[f as usize] = e;
            }
            for &l in &grown {
                for &f in &self.on_link[l as usize] {
                    if self.in_f[f as usize] != e {
                        self.in_f[f as usize] = e;
                        members.push(f);
                    }
                }
            }
            self.f_list = members;
            self.fill(e);
            grown.clear();
            // The flows of F each link holds (their bottleneck before this event): the rest of
            // the link's `held` count are flows of N that it holds.
            for i in 0..self.f_list.len() {
                let b = self.held_at[self.f_list[i] as usize];
                if b != NONE {
                    let bu = b as usize;
                    if self.held_epoch[bu] != e {
                        self.held_epoch[bu] = e;
                        self.held_f[bu] = 0;
                    }
                    self.held_f[bu] += 1;
                }
            }
            // (9): a re-rated flow's links must hold no flow of N; (10): a flow frozen at a
            // link shared with N must not be outrated there.
            for i in 0..self.f_list.len() {
                let f = self.f_list[i];
                let fu = f as usize;
                let (old, new) = (self.rate[fu], self.new_rate[fu]);
                if (new - old).abs() > SAME_RATE * old.max(new) {
                    for &l in self.path(f) {
                        let lu = l as usize;
                        let of_f = if self.held_epoch[lu] == e { self.held_f[lu] } else { 0 };
                        if self.held[lu] > of_f && self.grow_epoch[lu] != grow {
                            self.grow_epoch[lu] = grow;
                            grown.push(l);
                        }
                    }
                }
                let b = self.bottleneck[fu] as usize;
                if (self.in_f_on[b] as usize) < self.on_link[b].len() && self.grow_epoch[b] != grow {
                    let ceiling = new * (1.0 + SAME_RATE);
                    let outrated =
                        self.on_link[b].iter().any(|&h| self.in_f[h as usize] != e && self.rate[h as usize] > ceiling);
                    if outrated {
                        self.grow_epoch[b] = grow;
                        grown.push(b as u32);
                    }
                }
            }
            if grown.is_empty() {
                break;
            }
        }
        // Apply: each flow of F is held by the link it froze at; bring each re-rated flow's
        // bits up to `now`, set its rate, reschedule it.
        for i in 0..self.f_list.len() {
            let f = self.f_list[i];
            let fu = f as usize;
            if self.held_at[fu] != NONE {
                self.held[self.held_at[fu] as usize] -= 1;
            }
            self.held_at[fu] = self.bottleneck[fu];
            self.held[self.bottleneck[fu] as usize] += 1;
            let new = self.new_rate[fu];
            let old = self.rate[fu];
            if (new - old).abs() <= SAME_RATE * old.max(new) {
                continue; // unchanged (eq. 9's test): the old rate and departure stand
            }
            self.left[fu] = (self.left[fu] - self.rate[fu] * (now - self.since[fu])).max(0.0);
            self.since[fu] = now;
            self.rate[fu] = new;
            for &l in self.path(f) {
                self.load[l as usize] += new - old;
            }
            if new > 0.0 {
                self.deps.set(f, now + self.left[fu] / new);
            } else {
                self.deps.remove(f);
            }
        }
    }

    /// Water-fills the flows of F (`in_f == e`, listed in `f_list`), each link offering what
    /// the other flows leave (eq. 8); sets `new_rate` and `bottleneck` of each.
    fn fill(&mut self, e: u32) {
        self.stats.fills += 1;
        self.stats.filled_flows += self.f_list.len() as u64;
        self.stats.largest_fill = self.stats.largest_fill.max(self.f_list.len() as u64);
        self.touched.clear();
        for i in 0..self.f_list.len() {
            let f = self.f_list[i];
            for &l in self.path(f) {
                let lu = l as usize;
                if self.link_epoch[lu] != e {
                    self.link_epoch[lu] = e;
                    self.touched.push(l);
                    self.weight[lu] = 0;
                }
                self.weight[lu] += 1;
            }
        }
        // Each touched link's flows of F, laid out flat (in F's order), and what the flows of
        // N leave on it (eq. 8): its load less the old rates of F's flows there.
        let mut at = 0u32;
        for i in 0..self.touched.len() {
            let lu = self.touched[i] as usize;
            self.f_at[lu] = at;
            at += self.weight[lu];
            self.in_f_on[lu] = 0;
            self.resid[lu] = self.cap[lu] - self.load[lu];
        }
        self.f_on.resize(at as usize, 0);
        for i in 0..self.f_list.len() {
            let f = self.f_list[i];
            let r = self.rate[f as usize];
            for &l in self.path(f) {
                let lu = l as usize;
                self.f_on[(self.f_at[lu] + self.in_f_on[lu]) as usize] = f;
                self.in_f_on[lu] += 1;
                self.resid[lu] += r;
            }
        }
        for i in 0..self.touched.len() {
            let lu = self.touched[i] as usize;
            // Rounding of the running loads can leave a full link a hair below zero.
            self.resid[lu] = self.resid[lu].clamp(0.0, self.cap[lu]);
        }
        // Water-filling (eqs. 3-4), lazily: a link's share only rises as flows freeze
        // (`ps.rs`), so a share computed earlier is a lower bound of the link's share now. The
        // links are sorted once by their first share; the smallest candidate (of that list and
        // of a heap of shares recomputed since) whose link still has that share is the most
        // constrained link, and a candidate gone stale goes into the heap with its current
        // share. A link is queued again only when it is found stale, not at every flow that
        // freezes on it. Shares are >= 0, so their bits sort as they do; with the link in the
        // low bits, ties go to the lower link.
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        sorted.extend(self.touched.iter().map(|&l| {
            let lu = l as usize;
            share_key(self.resid[lu] / self.weight[lu] as f64, l)
        }));
        sorted.sort_unstable();
        self.heap.clear();
        let mut next = 0;
        loop {
            let from_list = sorted.get(next).copied();
            let key = match (from_list, self.heap.peek()) {
                (Some(k), Some(&Reverse(h))) if h < k => self.heap.pop().map(|Reverse(h)| h),
                (Some(k), _) => {
                    next += 1;
                    Some(k)
                }
                (None, _) => self.heap.pop().map(|Reverse(h)| h),
            };
            let Some(key) = key else { break };
            let (lower, l) = (f64::from_bits((key >> 32) as u64), key as u32);
            let lu = l as usize;
            if self.weight[lu] == 0 {
                continue;
            }
            let share = self.resid[lu] / self.weight[lu] as f64;
            if share > lower {
                self.heap.push(Reverse(share_key(share, l)));
                continue;
            }
            self.freeze_at(lu, share, e);
        }
        self.sorted = sorted;
    }

    /// Every unfrozen flow of F on link `lu`, the most constrained, gets `share` (eq. 4); the
    /// links of its path give it up.
    fn freeze_at(&mut self, lu: usize, share: f64, e: u32) {
        let (from, n) = (self.f_at[lu] as usize, self.in_f_on[lu] as usize);
        for j in from..from + n {
            let f = self.f_on[j];
            let fu = f as usize;
            if self.frozen[fu] == e {
                continue;
            }
            self.frozen[fu] = e;
            self.new_rate[fu] = share;
            self.bottleneck[fu] = lu as u32;
            for &l2 in self.path(f) {
                let u = l2 as usize;
                self.resid[u] = (self.resid[u] - share).max(0.0);
                self.weight[u] -= 1;
            }
        }
    }
}

/// A link's share (>= 0, finite) and the link, ordered by share then link.
fn share_key(share: f64, link: u32) -> u128 {
    debug_assert!(share >= 0.0 && share.is_finite());
    ((share.to_bits() as u128) << 32) | link as u128
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::ps::max_min_fct;
    use crate::rng::Rng;

    fn flow(start: f64, bits: f64, path: &[u32]) -> PsFlow {
        PsFlow { start, bits, path: path.to_vec() }
    }

    #[test]
    fn two_flows_on_one_link_share_it_then_the_survivor_speeds_up() {
        // C = 1 bit/s; 1 bit and 3 bits at t = 0: both at 1/2 until t = 2, then 2 bits at 1/1.
        let fct = max_min_fct_local(&[1.0], &[flow(0.0, 1.0, &[0]), flow(0.0, 3.0, &[0])]).unwrap();
        assert_eq!(fct, vec![2.0, 4.0]);
    }

    #[test]
    fn a_rate_change_travels_beyond_the_links_of_the_event() {
        // Links 0 (C 1) and 1 (C 10). A crosses 0 alone; B crosses 0 and 1; C crosses 1 only.
        // While A and B share link 0 (1/2 each), C gets 10 - 1/2 on link 1; when A leaves, B
        // doubles and C, which shares no link with A, must drop to 9: only the local fill's
        // growth (eq. 9) reaches it.
        let flows = [flow(0.0, 1.0, &[0]), flow(0.0, 100.0, &[0, 1]), flow(0.0, 1000.0, &[1])];
        let got = max_min_fct_local(&[1.0, 10.0], &flows).unwrap();
        let want = max_min_fct(&[1.0, 10.0], &flows).unwrap();
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-9 * w, "{got:?} vs {want:?}");
        }
    }

    /// Random networks of a few links, random paths and arrivals: the local fill's completion
    /// times are the global fill's (`ps.rs`, which water-fills every active flow at every event).
    #[test]
    fn local_fills_give_the_global_fills_completion_times() {
        let mut rng = Rng::new(7);
        for case in 0..200 {
            let n_links = 2 + rng.below(7) as usize;
            let caps: Vec<f64> = (0..n_links).map(|_| 1.0 + rng.below(10) as f64).collect();
            let n_flows = 1 + rng.below(40) as usize;
            let flows: Vec<PsFlow> = (0..n_flows)
                .map(|_| {
                    let mut path: Vec<u32> = (0..n_links as u32).filter(|_| rng.below(3) == 0).collect();
                    if path.is_empty() {
                        path.push(rng.below(n_links as u64) as u32);
                    }
                    // Starts on a coarse grid, so that some arrivals coincide.
                    let start = rng.below(20) as f64 * 0.5;
                    flow(start, 1.0 + rng.below(50) as f64, &path)
                })
                .collect();
            let got = max_min_fct_local(&caps, &flows).unwrap();
            let want = max_min_fct(&caps, &flows).unwrap();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!((g - w).abs() <= 1e-7 * w.max(1.0), "case {case}, flow {i}: local {g}, global {w}");
            }
        }
    }

    /// Fills over hundreds of links, where the lazy heap of link shares pops many stale
    /// entries: 300 flows that all cross link 0, each also three of 600 others, starting
    /// together and apart.
    #[test]
    fn a_fill_over_many_links_gives_the_global_fills_completion_times() {
        let mut rng = Rng::new(11);
        let caps: Vec<f64> = (0..601).map(|l| if l == 0 { 1000.0 } else { 1.0 + rng.below(20) as f64 }).collect();
        let flows: Vec<PsFlow> = (0..300)
            .map(|i| {
                let mut path = vec![0];
                while path.len() < 4 {
                    let l = 1 + rng.below(600) as u32;
                    if !path.contains(&l) {
                        path.push(l);
                    }
                }
                flow(if i < 150 { 0.0 } else { rng.below(10) as f64 }, 1.0 + rng.below(100) as f64, &path)
            })
            .collect();
        let (got, stats) = max_min_fct_local_stats(&caps, &flows).unwrap();
        assert!(stats.largest_fill >= 150, "the test must make fills over hundreds of links: {stats:?}");
        let want = max_min_fct(&caps, &flows).unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-7 * w.max(1.0), "flow {i}: local {g}, global {w}");
        }
    }

    /// (9) stops at links that are no flow's bottleneck: 100 flows each held at its own host
    /// link (1 bit/s) share a core link of 1,000 bit/s; a short flow arriving on the first
    /// host link re-rates the first flow, whose core link holds nobody, so neither its arrival
    /// nor its departure fills the other 99 again (with "no flow of N on the link" both would).
    #[test]
    fn a_rate_change_stops_at_links_that_hold_no_flow() {
        let caps: Vec<f64> = (0..101).map(|l| if l == 100 { 1000.0 } else { 1.0 }).collect();
        let mut flows: Vec<PsFlow> = (0..100).map(|i| flow(0.0, 10.0, &[i, 100])).collect();
        flows.push(flow(1.0, 1.0, &[0]));
        let (got, stats) = max_min_fct_local_stats(&caps, &flows).unwrap();
        let want = max_min_fct(&caps, &flows).unwrap();
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-9 * w, "flow {i}: local {g}, global {w}");
        }
        // 100 at the start, 2 at the arrival, 1 at its departure, 1 (the first flow, on the
        // core link) when the 99 others leave together, none when it leaves.
        assert_eq!(stats.filled_flows, 104, "{stats:?}");
    }

    #[test]
    fn flows_without_bits_or_path_complete_on_arrival_and_bad_input_is_named() {
        let fct = max_min_fct_local(&[5.0], &[flow(1.0, 0.0, &[0]), flow(1.0, 10.0, &[]), flow(1.0, 10.0, &[0])]);
        assert_eq!(fct.unwrap(), vec![0.0, 0.0, 2.0]);
        let e = max_min_fct_local(&[5.0], &[flow(0.0, 1.0, &[3])]).unwrap_err();
        assert!(e.to_string().contains("flows[0].path[0]"), "{e}");
    }
}
