//! Processor sharing on a network: an exact, event-driven fluid simulation of max-min fair
//! sharing, the "PS" reference curve of the RCP work generalized to any topology.
//!
//! ## The model
//! Link `l` has capacity `C_l` (bit/s). Flow `f` arrives at `a_f` with `b_f` bits and crosses
//! the link set `P_f`. Between two events the set `A` of active flows is fixed and each flow is
//! served at its max-min fair rate `r_f`: the allocation where
//!
//! ```text
//! (1)  sum_{f in A : l in P_f} r_f <= C_l                         for every link l
//! (2)  every f has a link l in P_f that is full and where r_f = max_{g in A : l in P_g} r_g
//! ```
//!
//! Water-filling computes it. With `R_l` the capacity of `l` not yet given away and `W_l` the
//! number of unfrozen flows crossing `l`, repeat until every flow is frozen:
//!
//! ```text
//! (3)  s = min_{l : W_l > 0} R_l / W_l                 (the most constrained link l*)
//! (4)  every unfrozen f with l* in P_f gets r_f = s; for each link l in P_f:
//!      R_l -= s,  W_l -= 1
//! ```
//!
//! The level `s` never decreases: a link `l` that loses `k` flows at rate `s <= R_l / W_l` keeps
//! `(R_l - k s) / (W_l - k) >= R_l / W_l`. So a min-heap of link shares with stale entries
//! skipped finds each `l*` without rescanning every link.
//!
//! Between events `t_k` and `t_{k+1}` every active flow's remaining bits fall linearly,
//!
//! ```text
//! (5)  x_f(t_{k+1}) = x_f(t_k) - r_f (t_{k+1} - t_k)
//! (6)  t_{k+1} = min( next arrival,  t_k + min_{f in A} x_f(t_k) / r_f )
//! ```
//!
//! and the rates are recomputed after every arrival and departure. The result per flow is the
//! fluid completion time `d_f - a_f`, where `d_f` is the event at which `x_f` reaches 0.
//!
//! ## Grouping by path
//! Flows with the same link set are interchangeable in (1)-(4), so they get the same rate. The
//! simulation keeps one group per distinct path, with `n_g` active flows, and water-fills over
//! groups (subtracting `n_g s` and `n_g` in (4)). Inside a group, instead of applying (5) to every
//! flow, it tracks the service a flow of the group has received since the group was last empty,
//!
//! ```text
//! (7)  S_g(t) = integral of r_g dt,    and gives flow f the tag  F_f = S_g(a_f) + b_f,
//! ```
//!
//! so `f` leaves when `S_g` reaches `F_f`: the group's next departure is its smallest tag, at
//! `t + (F_min - S_g) / r_g`. An event costs O(active groups + their path lengths) plus heap
//! operations: on one link (one group) that is O(log n) per event, whatever the number of flows.
//!
//! On a single link of capacity `C` with Poisson arrivals this is M/G/1-PS, whose conditional
//! mean response time is `E[T | x] = x / (C (1 - rho))` for every size distribution (Kleinrock);
//! the thesis's PS curve adds 1.5 RTT of handshake and propagation to it.
//!
//! Deterministic: arrivals are taken in (start, index) order and simultaneous departures in
//! flow-index order. A flow with an empty path or zero bits completes on arrival (0 s).

pub use super::shared::PsFlow;

use super::shared::{arrivals, check_input, check_links, check_path, Key, PathGroups};
use crate::error::SpecResult;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Fluid completion time (finish - start, s) of every flow under max-min fair sharing of
/// `links` (capacities, bit/s), recomputed at each arrival and departure; in input order.
pub fn max_min_fct(links: &[f64], flows: &[PsFlow]) -> SpecResult<Vec<f64>> {
    check_input(links, flows)?;
    let (paths, group_of, order) = arrivals(flows);

    let mut fct = vec![0.0; flows.len()];
    let mut fluid = Fluid::new(links, paths.links);
    let mut arrivals = order.into_iter().peekable();
    let mut now = f64::NEG_INFINITY;
    loop {
        fluid.water_fill_if_changed();
        let departure = fluid.next_departure();
        let t_dep = departure.map_or(f64::INFINITY, |(dt, _, _)| now + dt);
        match arrivals.peek() {
            Some(&i) if flows[i].start <= t_dep => {
                let t = flows[i].start;
                fluid.advance(t - now);
                now = t;
                // Everything arriving at this instant joins before the rates are recomputed.
                while let Some(&j) = arrivals.peek().filter(|&&j| flows[j].start == t) {
                    fluid.arrive(group_of[j], j, flows[j].bits);
                    arrivals.next();
                }
            }
            _ => match departure {
                Some((dt, g, f)) => {
                    fluid.advance(dt);
                    now = t_dep;
                    fluid.depart(g, f);
                    fct[f] = now - flows[f].start;
                }
                None => break,
            },
        }
    }
    Ok(fct)
}

/// Max-min fair rate (bit/s) of each of a fixed set of flows, given by their paths, sharing
/// `links` (capacities, bit/s); an empty path gets infinity (nothing limits it).
pub fn max_min_rates(links: &[f64], paths: &[Vec<u32>]) -> SpecResult<Vec<f64>> {
    check_links(links)?;
    let mut groups = PathGroups::default();
    let mut group_of = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        check_path(links.len(), p, &format!("paths[{i}]"))?;
        group_of.push((!p.is_empty()).then(|| groups.group(p)));
    }
    let mut fluid = Fluid::new(links, groups.links);
    for (i, g) in group_of.iter().enumerate() {
        if let Some(g) = *g {
            fluid.arrive(g, i, 1.0);
        }
    }
    fluid.water_fill_if_changed();
    Ok(group_of.iter().map(|g| g.map_or(f64::INFINITY, |g| fluid.groups[g].rate)).collect())
}

/// Flows with one link set: they always share the same max-min rate.
struct Group {
    links: Vec<u32>,
    /// Finishing tags `F_f` (eq. 7) of the active flows with their flow index, smallest first.
    tags: BinaryHeap<Reverse<(Key, usize)>>,
    /// Service `S_g` (eq. 7) each flow of the group received since the group was last empty, bits.
    service: f64,
    /// Rate of each flow of the group, bit/s, from the last water-filling.
    rate: f64,
}

/// The fluid state between events.
struct Fluid<'a> {
    capacity: &'a [f64],
    groups: Vec<Group>,
    /// Groups with at least one active flow.
    active: Vec<usize>,
    /// Active groups crossing each link.
    on_link: Vec<Vec<usize>>,
    /// Membership changed since the last water-filling.
    changed: bool,
    // Water-filling scratch, per link: R_l, W_l, and a version that marks heap entries stale;
    // the links active groups cross; per group, whether its rate is set.
    left: Vec<f64>,
    weight: Vec<u64>,
    version: Vec<u64>,
    busy: Vec<usize>,
    frozen: Vec<bool>,
    /// Link shares (share, link, version): an entry whose version is not the link's current one is stale.
    heap: BinaryHeap<Reverse<(Key, usize, u64)>>,
}

impl<'a> Fluid<'a> {
    fn new(capacity: &'a [f64], group_links: Vec<Vec<u32>>) -> Fluid<'a> {
        let n_groups = group_links.len();
        let groups = group_links
            .into_iter()
            .map(|links| Group { links, tags: BinaryHeap::new(), service: 0.0, rate: 0.0 })
            .collect();
        Fluid {
            capacity,
            groups,
            active: Vec::new(),
            on_link: vec![Vec::new(); capacity.len()],
            changed: false,
            left: vec![0.0; capacity.len()],
            weight: vec![0; capacity.len()],
            version: vec![0; capacity.len()],
            busy: Vec::new(),
            frozen: vec![false; n_groups],
            heap: BinaryHeap::new(),
        }
    }

    /// Flow `f` with `bits` joins group `g`.
    fn arrive(&mut self, g: usize, f: usize, bits: f64) {
        let group = &mut self.groups[g];
        if group.tags.is_empty() {
            self.active.push(g);
            for &l in &group.links {
                self.on_link[l as usize].push(g);
            }
        }
        group.tags.push(Reverse((Key(group.service + bits), f)));
        self.changed = true;
    }

    /// Flow `f`, the smallest tag of group `g`, leaves.
    fn depart(&mut self, g: usize, f: usize) {
        let group = &mut self.groups[g];
        if let Some(Reverse((Key(tag), head))) = group.tags.pop() {
            debug_assert_eq!(head, f);
            // The departure time was computed to bring S_g to this tag; pin it against rounding.
            group.service = group.service.max(tag);
        }
        if group.tags.is_empty() {
            // Restarting S_g at 0 keeps tags near the flow sizes: no large offset eats their precision.
            group.service = 0.0;
            remove(&mut self.active, g);
            for &l in &group.links {
                remove(&mut self.on_link[l as usize], g);
            }
        }
        self.changed = true;
    }

    /// Serves every active flow at its rate for `dt` seconds (eq. 5 via eq. 7).
    fn advance(&mut self, dt: f64) {
        if dt > 0.0 {
            for &g in &self.active {
                let group = &mut self.groups[g];
                group.service += group.rate * dt;
            }
        }
    }

    /// The earliest departure under the current rates: (delay, group, flow); ties to the lower flow index.
    fn next_departure(&self) -> Option<(f64, usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for &g in &self.active {
            let group = &self.groups[g];
            if let Some(&Reverse((Key(tag), f))) = group.tags.peek() {
                let dt = ((tag - group.service) / group.rate).max(0.0);
                if best.is_none_or(|(bdt, _, bf)| (dt, f) < (bdt, bf)) {
                    best = Some((dt, g, f));
                }
            }
        }
        best
    }

    /// Recomputes every active group's rate by water-filling (eqs. 3-4), if membership changed.
    fn water_fill_if_changed(&mut self) {
        if !std::mem::take(&mut self.changed) {
            return;
        }
        let Fluid { capacity, groups, active, on_link, left, weight, version, busy, frozen, heap, .. } = self;
        busy.clear();
        for &g in active.iter() {
            frozen[g] = false;
            let n = groups[g].tags.len() as u64;
            for &l in &groups[g].links {
                let l = l as usize;
                if weight[l] == 0 {
                    left[l] = capacity[l];
                    busy.push(l);
                }
                weight[l] += n;
            }
        }
        heap.clear();
        heap.extend(busy.iter().map(|&l| Reverse((Key(left[l] / weight[l] as f64), l, version[l]))));
        let mut level = 0.0f64;
        while let Some(Reverse((Key(share), l, v))) = heap.pop() {
            if v != version[l] || weight[l] == 0 {
                continue;
            }
            // Rounding must not let the level fall (it cannot in exact arithmetic; see the module doc).
            level = level.max(share);
            for &g in &on_link[l] {
                if frozen[g] {
                    continue;
                }
                frozen[g] = true;
                groups[g].rate = level;
                let n = groups[g].tags.len() as u64;
                for &l2 in &groups[g].links {
                    let l2 = l2 as usize;
                    left[l2] = (left[l2] - n as f64 * level).max(0.0);
                    weight[l2] -= n;
                    version[l2] += 1;
                    if weight[l2] > 0 {
                        heap.push(Reverse((Key(left[l2] / weight[l2] as f64), l2, version[l2])));
                    }
                }
            }
        }
    }
}

/// Removes one `x` from an unordered list.
fn remove(list: &mut Vec<usize>, x: usize) {
    if let Some(i) = list.iter().position(|&y| y == x) {
        list.swap_remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testing::{close, flow, pareto, poisson_one_link, ring_of_20, GBPS};
    use crate::rng::Rng;

    /// The flows whose statistics are steady: the first 10% (the system filling from empty) and
    /// the last 5% (no arrivals behind them, so they finish early) are left out.
    fn steady(n: usize) -> std::ops::Range<usize> {
        n / 10..n - n / 20
    }

    /// Mean of T/x over the steady flows, in units of the M/G/1-PS value 1 / (C (1 - rho)).
    fn slowdown_ratio(flows: &[PsFlow], fct: &[f64], c: f64, load: f64) -> f64 {
        let range = steady(flows.len());
        let n = range.len() as f64;
        let mean: f64 = range.map(|i| fct[i] / flows[i].bits).sum::<f64>() / n;
        mean * c * (1.0 - load)
    }

    /// Steady flows binned by size in factors of 2 from mean/64: per bin (flows, mean T in units
    /// of the PS curve at the bin's mean size, mean x / (C (1 - rho))).
    fn ps_curve_ratio_by_bin(flows: &[PsFlow], fct: &[f64], c: f64, load: f64) -> Vec<(usize, f64)> {
        let mean = flows.iter().map(|f| f.bits).sum::<f64>() / flows.len() as f64;
        let mut bins = vec![(0usize, 0.0f64, 0.0f64); 16];
        for i in steady(flows.len()) {
            let b = ((flows[i].bits / (mean / 64.0)).log2().floor().max(0.0) as usize).min(15);
            bins[b].0 += 1;
            bins[b].1 += fct[i];
            bins[b].2 += flows[i].bits;
        }
        bins.iter().map(|&(n, t, x)| (n, t / (x / (c * (1.0 - load))))).collect()
    }

    /// One link, Poisson arrivals at `load`: the mean slowdown and the per-bin PS curve against
    /// M/G/1-PS, E[T | x] = x / (C (1 - rho)), whatever the size distribution.
    ///
    /// 10^6 flows, not 10^5: at rho = 0.8 the sample mean of T/x over 10^5 flows still has a
    /// spread of about 2.5% (seeds 1-8 gave 0.950 to 1.043 for exponential sizes), because the
    /// queue's busy periods correlate neighbouring flows; over 10^6 flows seeds 1-8 stay within
    /// 1.1%, so 3% fails only on a real error. A size bin holds fewer flows, each bin's mean moves
    /// with 1/sqrt(count): bins of >= 10^4 flows are held to 3%, bins of 10^3..10^4 to 5%
    /// (seen: within 1.7%); sparser bins (the tail) are not checked.
    fn check_mg1_ps(load: f64, size: impl FnMut(&mut Rng) -> f64) {
        let (c, mean) = (GBPS, 1e6);
        let flows = poisson_one_link(1, c, load, mean, 1_000_000, size);
        let fct = max_min_fct(&[c], &flows).unwrap();
        let ratio = slowdown_ratio(&flows, &fct, c, load);
        assert!(close(ratio, 1.0, 0.03), "load {load}: mean T/x is {ratio} x 1/(C(1-rho))");
        let bins = ps_curve_ratio_by_bin(&flows, &fct, c, load);
        let checked: Vec<_> = bins.iter().filter(|&&(n, _)| n >= 1000).collect();
        assert!(checked.len() >= 4, "too few populated bins to test the curve: {bins:?}");
        for &&(n, r) in &checked {
            let tolerance = if n >= 10_000 { 0.03 } else { 0.05 };
            assert!(
                close(r, 1.0, tolerance),
                "load {load}: a bin of {n} flows is at {r} x the PS curve; bins {bins:?}"
            );
        }
    }

    #[test]
    fn one_link_matches_mg1_ps_for_exponential_sizes_at_half_load() {
        check_mg1_ps(0.5, |r| r.exponential(1e6));
    }

    #[test]
    fn one_link_matches_mg1_ps_for_exponential_sizes_at_load_0_8() {
        check_mg1_ps(0.8, |r| r.exponential(1e6));
    }

    // Shape 2.5 (finite variance): with the RCP work's 1.4, 10^6 flows still miss the formula by
    // up to 10% at rho = 0.8 (the rare huge flows set the realized load), a sampling limit, not
    // a property of the simulation; PS is insensitive to the distribution beyond its mean.
    #[test]
    fn one_link_matches_mg1_ps_for_pareto_sizes_at_half_load() {
        check_mg1_ps(0.5, |r| pareto(r, 2.5, 1e6));
    }

    #[test]
    fn one_link_matches_mg1_ps_for_pareto_sizes_at_load_0_8() {
        check_mg1_ps(0.8, |r| pareto(r, 2.5, 1e6));
    }

    /// The textbook algorithm, per flow: water-filling over flows, every remaining size
    /// decremented at every event, one departure per event. Slow, obviously right.
    fn naive_max_min_fct(links: &[f64], flows: &[PsFlow]) -> Vec<f64> {
        let mut order: Vec<usize> = (0..flows.len()).collect();
        order.sort_by(|&a, &b| flows[a].start.total_cmp(&flows[b].start).then(a.cmp(&b)));
        let mut left: Vec<f64> = flows.iter().map(|f| f.bits).collect();
        let (mut active, mut fct, mut next, mut now) = (Vec::<usize>::new(), vec![0.0; flows.len()], 0, 0.0);
        loop {
            let mut rate = vec![0.0; flows.len()];
            let mut cap = links.to_vec();
            let mut unfrozen = active.clone();
            while !unfrozen.is_empty() {
                let count = |l: usize| unfrozen.iter().filter(|&&f| flows[f].path.contains(&(l as u32))).count();
                let (l_star, share) = (0..links.len())
                    .filter(|&l| count(l) > 0)
                    .map(|l| (l, cap[l] / count(l) as f64))
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap();
                for &f in unfrozen.iter().filter(|&&f| flows[f].path.contains(&(l_star as u32))) {
                    rate[f] = share;
                    for &l in &flows[f].path {
                        cap[l as usize] -= share;
                    }
                }
                unfrozen.retain(|&f| !flows[f].path.contains(&(l_star as u32)));
            }
            let done = active.iter().map(|&f| (left[f] / rate[f], f)).min_by(|a, b| a.0.total_cmp(&b.0));
            let t_arrival = order.get(next).map_or(f64::INFINITY, |&f| flows[f].start);
            match done {
                Some((dt, f)) if now + dt < t_arrival => {
                    for &g in &active {
                        left[g] -= rate[g] * dt;
                    }
                    now += dt;
                    fct[f] = now - flows[f].start;
                    active.retain(|&g| g != f);
                }
                _ if next < order.len() => {
                    for &g in &active {
                        left[g] -= rate[g] * (t_arrival - now);
                    }
                    now = t_arrival;
                    active.push(order[next]);
                    next += 1;
                }
                _ => return fct,
            }
        }
    }

    #[test]
    fn grouped_simulation_agrees_with_the_per_flow_textbook_one_on_a_20_link_ring() {
        // Mean gap 0.1 ms at 1 Mbit per flow: tens of flows active at once, links often full.
        let (links, flows) = ring_of_20(7, 600, 1e-4);
        let fast = max_min_fct(&links, &flows).unwrap();
        let slow = naive_max_min_fct(&links, &flows);
        let spread = fast.iter().zip(&slow).filter(|(a, b)| !close(**a, **b, 1e-9)).count();
        assert_eq!(spread, 0, "flows whose completion times differ: {spread}");
        assert!(
            fast.iter().zip(&flows).any(|(t, f)| *t > 2.0 * f.bits / GBPS),
            "no sharing happened: the test is vacuous"
        );
    }

    #[test]
    fn identical_input_gives_identical_output_and_input_order_does_not_matter() {
        let (links, flows) = ring_of_20(3, 3000, 2e-5);
        let a = max_min_fct(&links, &flows).unwrap();
        assert_eq!(
            a.iter().map(|t| t.to_bits()).collect::<Vec<_>>(),
            max_min_fct(&links, &flows).unwrap().iter().map(|t| t.to_bits()).collect::<Vec<_>>()
        );
        let reversed: Vec<PsFlow> = flows.iter().rev().cloned().collect();
        let b: Vec<f64> = max_min_fct(&links, &reversed).unwrap().into_iter().rev().collect();
        assert!(a.iter().zip(&b).all(|(x, y)| close(*x, *y, 1e-9)));
    }

    #[test]
    fn simultaneous_equal_flows_finish_together() {
        let flows: Vec<PsFlow> = (0..1000).map(|_| flow(1.0, 1e6, &[0])).collect();
        let fct = max_min_fct(&[GBPS], &flows).unwrap();
        assert!(fct.iter().all(|&t| close(t, 1.0, 1e-9)), "{:?}", &fct[..5]);
    }

    #[test]
    fn a_lone_flow_takes_bits_over_capacity() {
        let fct = max_min_fct(&[2.0 * GBPS, 0.5 * GBPS], &[flow(3.0, 1e9, &[0, 1])]).unwrap();
        assert_eq!(fct, vec![2.0]);
    }

    #[test]
    fn empty_paths_and_empty_flows_complete_on_arrival() {
        let flows = [flow(1.0, 1e9, &[]), flow(1.0, 0.0, &[0]), flow(1.0, 1e9, &[0])];
        assert_eq!(max_min_fct(&[GBPS], &flows).unwrap(), vec![0.0, 0.0, 1.0]);
        assert_eq!(max_min_fct(&[GBPS], &[]).unwrap(), Vec::<f64>::new());
    }

    #[test]
    fn equal_flows_on_one_link_share_it_equally() {
        // Flow 0 alone for 0.5 s (half its bits), then two at 0.5 Gb/s each.
        let fct = max_min_fct(&[GBPS], &[flow(0.0, 1e9, &[0]), flow(0.5, 1e9, &[0])]).unwrap();
        assert!(close(fct[0], 1.5, 1e-12), "{fct:?}");
        assert!(close(fct[1], 1.5, 1e-12), "{fct:?}");
    }

    // Parking lot of two links:   long: 0 -> 1;   cross1: link 0 only;   cross2: link 1 only.
    const PARKING_LOT: [&[u32]; 3] = [&[0, 1], &[0], &[1]];

    #[test]
    fn parking_lot_with_equal_links_gives_everyone_half() {
        let paths: Vec<Vec<u32>> = PARKING_LOT.iter().map(|p| p.to_vec()).collect();
        let rates = max_min_rates(&[GBPS, GBPS], &paths).unwrap();
        assert_eq!(rates, vec![0.5 * GBPS; 3]);
        let flows: Vec<PsFlow> = PARKING_LOT.iter().map(|p| flow(0.0, 1e9, p)).collect();
        assert_eq!(max_min_fct(&[GBPS, GBPS], &flows).unwrap(), vec![2.0; 3]);
    }

    #[test]
    fn parking_lot_gives_the_spare_of_the_faster_link_to_its_cross_flow() {
        let paths: Vec<Vec<u32>> = PARKING_LOT.iter().map(|p| p.to_vec()).collect();
        let rates = max_min_rates(&[GBPS, 2.0 * GBPS], &paths).unwrap();
        assert_eq!(rates, vec![0.5 * GBPS, 0.5 * GBPS, 1.5 * GBPS]);
        // 1 Gbit each: cross2 leaves at 2/3 s; the other two, bottlenecked on link 0, keep
        // 0.5 Gb/s and finish their remaining 2/3 Gbit at 2 s.
        let flows: Vec<PsFlow> = PARKING_LOT.iter().map(|p| flow(0.0, 1e9, p)).collect();
        let fct = max_min_fct(&[GBPS, 2.0 * GBPS], &flows).unwrap();
        for (got, want) in fct.iter().zip([2.0, 2.0, 2.0 / 3.0]) {
            assert!(close(*got, want, 1e-12), "{fct:?}");
        }
    }

    #[test]
    fn unconstrained_paths_get_infinite_rate() {
        assert_eq!(max_min_rates(&[GBPS], &[vec![], vec![0]]).unwrap(), vec![f64::INFINITY, GBPS]);
    }

    #[test]
    fn bad_inputs_name_the_field() {
        let err = |links: &[f64], f: PsFlow| max_min_fct(links, &[flow(0.0, 1.0, &[0]), f]).unwrap_err().field;
        assert_eq!(err(&[GBPS], flow(0.0, 1.0, &[1])), "flows[1].path[0]");
        assert_eq!(err(&[GBPS, GBPS], flow(0.0, 1.0, &[1, 0, 1])), "flows[1].path[2]");
        assert_eq!(err(&[GBPS], flow(0.0, -1.0, &[0])), "flows[1].bits");
        assert_eq!(err(&[GBPS], flow(f64::NAN, 1.0, &[0])), "flows[1].start");
        assert_eq!(err(&[GBPS, 0.0], flow(0.0, 1.0, &[0])), "links[1]");
        let e = max_min_rates(&[GBPS], &[vec![0], vec![3]]).unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("paths[1][0]", "expected a link index below 1, got 3"));
    }
}
