//! The RC3 authors' Internet-2 "fanout 10" topology (RC3 paper sec. 5.1 and their ns-3.16 code).
//!
//! Ten core routers r0..r9 (node ids 0..9) joined by the 16 core links of [`RC3_CORE_LINKS`]
//! (10 ms one-way each, rates in Mb/s as the authors scaled them), and `hosts_per_router`
//! hosts per router: host h{i} (node id 10 + i) hangs from router r{i mod 10}, as in the
//! authors' code. With the defaults a path of k core hops has a round-trip propagation of
//! 4 ms + 20k ms. Core links are links 0..32 in table order; host links follow.
//!
//! Rates: each core link gets its table rate, or, with `core_rate_uniform = [lo, hi]`, a rate
//! drawn uniformly in [lo, hi] (the link heterogeneity of RC3 Table 1) from the stream
//! "topology.core_rates"; `core_rate_scale` then multiplies whichever rate was chosen.

use super::{check_size, Builder, NodeKind, Topology};
use crate::error::{SpecError, SpecResult};
use crate::limits::{shown, MAX_RATE, MAX_RATE_SHOWN};
use crate::quantity::{RateQ, TimeQ};
use crate::rng::Rng;
use crate::units::{Rate, Time};
use serde::Deserialize;

/// The 16 core links (router a, router b, Mb/s) of the RC3 Internet-2 topology.
pub const RC3_CORE_LINKS: [(usize, usize, u64); 16] = [
    (0, 1, 5556),
    (0, 2, 7778),
    (0, 3, 14445),
    (1, 2, 3334),
    (2, 4, 3334),
    (1, 5, 5556),
    (4, 5, 1112),
    (3, 5, 3334),
    (3, 4, 5556),
    (5, 6, 4445),
    (3, 6, 10000),
    (3, 7, 14445),
    (7, 8, 1112),
    (6, 8, 8889),
    (8, 9, 2223),
    (7, 9, 7778),
];

/// Number of core routers.
const ROUTERS: usize = 10;

fn default_access_rate() -> RateQ {
    RateQ(Rate::from_gbps(1))
}
fn default_access_delay() -> TimeQ {
    TimeQ(Time::from_ms(1))
}
fn default_core_delay() -> TimeQ {
    TimeQ(Time::from_ms(10))
}
fn default_scale() -> f64 {
    1.0
}
fn default_hosts_per_router() -> u32 {
    10
}

/// `kind = "internet2-rc3"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Internet2Spec {
    /// Rate of every host link (default 1 Gb/s: the paper's bottleneck).
    #[serde(default = "default_access_rate")]
    pub access_rate: RateQ,
    /// One-way delay of every host link (default 1 ms).
    #[serde(default = "default_access_delay")]
    pub access_delay: TimeQ,
    /// One-way delay of every core link (default 10 ms).
    #[serde(default = "default_core_delay")]
    pub core_delay: TimeQ,
    /// Multiplies every core rate (default 1.0, > 0).
    #[serde(default = "default_scale")]
    pub core_rate_scale: f64,
    /// If set, each core rate is drawn uniformly in [lo, hi] instead of taken from the table.
    #[serde(default)]
    pub core_rate_uniform: Option<[RateQ; 2]>,
    /// If set, each table rate is multiplied by a factor drawn uniformly in [lo, hi]
    /// (heterogeneity around the designed capacities).
    #[serde(default)]
    pub core_rate_factor_uniform: Option<[f64; 2]>,
    /// Hosts per router (default 10, >= 1).
    #[serde(default = "default_hosts_per_router")]
    pub hosts_per_router: u32,
}

impl Internet2Spec {
    /// Builds the topology; groups "all" and "r{j}" (hosts of router j); no default pairs.
    pub fn build(&self, seed: u64) -> SpecResult<Topology> {
        let hpr = self.hosts_per_router;
        if hpr == 0 {
            return Err(SpecError::new("hosts_per_router", "expected at least 1 host per router, got 0"));
        }
        let hosts = ROUTERS as u64 * hpr as u64;
        check_size("hosts_per_router", hpr as u64, ROUTERS as u64 + hosts, 2 * (RC3_CORE_LINKS.len() as u64 + hosts))?;
        let scale = self.core_rate_scale;
        if !(scale.is_finite() && scale > 0.0) {
            return Err(SpecError::new("core_rate_scale", format!("expected a number > 0, got {scale}")));
        }
        let core_rates = self.core_rates(seed)?;

        let mut b = Builder::new();
        let routers: Vec<usize> = (0..ROUTERS).map(|j| b.node(format!("r{j}"), NodeKind::Router)).collect();
        for (&(x, y, _), &rate) in RC3_CORE_LINKS.iter().zip(&core_rates) {
            b.duplex(routers[x], routers[y], rate, self.core_delay.0, None);
        }
        let mut per_router: Vec<Vec<usize>> = vec![Vec::new(); ROUTERS];
        for i in 0..hpr as usize * ROUTERS {
            let h = b.node(format!("h{i}"), NodeKind::Host);
            b.duplex(h, routers[i % ROUTERS], self.access_rate.0, self.access_delay.0, None);
            per_router[i % ROUTERS].push(h);
        }
        for (j, hosts) in per_router.into_iter().enumerate() {
            b.group(format!("r{j}"), hosts);
        }
        b.finish()
    }

    /// The rate of each core link, in [`RC3_CORE_LINKS`] order, after drawing and scaling.
    fn core_rates(&self, seed: u64) -> SpecResult<Vec<Rate>> {
        let base: Vec<f64> = match (self.core_rate_uniform, self.core_rate_factor_uniform) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new(
                    "core_rate_factor_uniform",
                    "give core_rate_uniform (absolute rates) or core_rate_factor_uniform (factors), not both",
                ))
            }
            (None, None) => RC3_CORE_LINKS.iter().map(|&(_, _, mbps)| mbps as f64 * 1e6).collect(),
            (None, Some([lo, hi])) => {
                if !(lo > 0.0 && lo <= hi && hi.is_finite()) {
                    return Err(SpecError::new(
                        "core_rate_factor_uniform",
                        format!("expected [lo, hi] with 0 < lo <= hi, got [{lo}, {hi}]"),
                    ));
                }
                let mut rng = Rng::stream(seed, "topology.core_rates");
                RC3_CORE_LINKS
                    .iter()
                    .map(|&(_, _, mbps)| mbps as f64 * 1e6 * (lo + rng.uniform() * (hi - lo)))
                    .collect()
            }
            (Some([RateQ(lo), RateQ(hi)]), None) => {
                if lo > hi {
                    return Err(SpecError::new(
                        "core_rate_uniform",
                        format!("expected [lo, hi] with lo <= hi, got [{lo}, {hi}]"),
                    ));
                }
                let mut rng = Rng::stream(seed, "topology.core_rates");
                let (lo, hi) = (lo.bps_f64(), hi.bps_f64());
                RC3_CORE_LINKS.iter().map(|_| lo + rng.uniform() * (hi - lo)).collect()
            }
        };
        base.into_iter()
            .map(|bps| {
                let r = (bps * self.core_rate_scale).round();
                // `as u64` saturates; a rate rounded to 0 would stall the link forever.
                if r < 1.0 {
                    Err(SpecError::new(
                        "core_rate_scale",
                        format!(
                            "{} makes a core rate {bps} b/s round to 0; expected a larger scale",
                            self.core_rate_scale
                        ),
                    ))
                } else if r > MAX_RATE.0 as f64 {
                    Err(SpecError::new(
                        "core_rate_scale",
                        format!(
                            "{} makes a core rate {bps} b/s into {} b/s; expected core rates <= {MAX_RATE_SHOWN}",
                            self.core_rate_scale,
                            shown(r)
                        ),
                    ))
                } else {
                    Ok(Rate(r as u64))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::Routes;

    fn build(json: &str, seed: u64) -> SpecResult<Topology> {
        serde_json::from_str::<Internet2Spec>(json).unwrap().build(seed)
    }

    #[test]
    fn nodes_links_and_rates_match_the_paper() {
        let t = build("{}", 1).unwrap();
        assert_eq!(t.nodes.len(), 110);
        assert_eq!(t.hosts().len(), 100);
        assert_eq!(t.links.len(), 2 * (16 + 100));
        for (i, &(a, b, mbps)) in RC3_CORE_LINKS.iter().enumerate() {
            let l = &t.links[2 * i];
            assert_eq!((l.from, l.to), (a, b));
            assert_eq!(l.rate, Rate::from_mbps(mbps));
            assert_eq!(l.delay, Time::from_ms(10));
            assert_eq!(t.links[2 * i + 1].rate, Rate::from_mbps(mbps));
        }
        // Host h{i} is node 10 + i and hangs from router i mod 10 at 1 Gb/s, 1 ms.
        let attach = t.attach();
        assert_eq!(t.node_by_name("h37"), Some(47));
        assert_eq!(attach[47], 7);
        assert_eq!(t.access_rate()[47], Rate::from_gbps(1));
        assert_eq!(t.groups["r7"].len(), 10);
        assert!(t.groups["r7"].contains(&47));
        assert_eq!(t.default_pairs, None);
    }

    /// The authors scaled every core link to the traffic routed over it: 1111 Mb/s per ordered
    /// router pair. The default routes must put exactly that many pairs on every link,
    /// otherwise some 1112 Mb/s link carries several pairs and the "30% load" core overloads.
    #[test]
    fn routes_put_on_each_core_link_the_router_pairs_its_rate_was_sized_for() {
        let t = build("{}", 1).unwrap();
        let routes = Routes::compute(&t, false);
        let rep: Vec<usize> = (0..ROUTERS).map(|j| t.groups[&format!("r{j}")][0]).collect();
        let mut pairs = vec![0u32; t.links.len()];
        for &s in &rep {
            for &d in &rep {
                if s != d {
                    for l in routes.path(s, d, 0) {
                        pairs[l as usize] += 1;
                    }
                }
            }
        }
        for (l, link) in t.links.iter().enumerate() {
            if link.delay == Time::from_ms(10) {
                let sized_for = (link.rate.bps() as f64 / 1111.1e6).round() as u32;
                assert_eq!(
                    pairs[l],
                    sized_for,
                    "{}: {} router pairs on {} Mb/s",
                    link.name,
                    pairs[l],
                    link.rate.bps() / 1_000_000
                );
            }
        }
    }

    #[test]
    fn core_hop_counts_and_mean_rtt_match_the_reference() {
        let t = build("{}", 1).unwrap();
        let routes = Routes::compute(&t, false);
        // One host per router stands for all ten: every router has the same number of hosts.
        let rep: Vec<usize> = (0..ROUTERS).map(|j| t.groups[&format!("r{j}")][0]).collect();
        let mut count = [0u32; 5];
        let mut rtt_sum = 0.0;
        for (i, &s) in rep.iter().enumerate() {
            for (j, &d) in rep.iter().enumerate() {
                if i == j {
                    continue;
                }
                let path = routes.path(s, d, 0);
                let core_hops = path.len() - 2;
                count[core_hops] += 1;
                let one_way: u64 = path.iter().map(|&l| t.links[l as usize].delay.ps()).sum();
                let rtt = Time(2 * one_way);
                assert_eq!(rtt, Time::from_ms(4 + 20 * core_hops as u64));
                rtt_sum += rtt.as_secs_f64();
            }
        }
        assert_eq!(count, [0, 32, 34, 18, 6]);
        let mean_ms = rtt_sum / 90.0 * 1e3;
        assert!((mean_ms - 43.56).abs() < 0.01, "{mean_ms}");
        // With all core delays equal, delay-shortest must equal hop-shortest: check by BFS.
        for (s, &rs) in rep.iter().enumerate() {
            let bfs = core_bfs(s);
            for (d, &rd) in rep.iter().enumerate() {
                if s != d {
                    assert_eq!(routes.path(rs, rd, 0).len() - 2, bfs[d], "r{s} -> r{d}");
                }
            }
        }
    }

    /// Hop distances from router `s` over the core, by breadth-first search.
    fn core_bfs(s: usize) -> Vec<usize> {
        let mut dist = vec![usize::MAX; ROUTERS];
        dist[s] = 0;
        let mut queue = std::collections::VecDeque::from([s]);
        while let Some(u) = queue.pop_front() {
            for &(a, b, _) in &RC3_CORE_LINKS {
                for (x, y) in [(a, b), (b, a)] {
                    if x == u && dist[y] == usize::MAX {
                        dist[y] = dist[u] + 1;
                        queue.push_back(y);
                    }
                }
            }
        }
        dist
    }

    #[test]
    fn uniform_core_rates_are_within_bounds_and_deterministic() {
        let json = r#"{"core_rate_uniform": ["1Gbps", "10Gbps"], "hosts_per_router": 2}"#;
        let rates = |seed| -> Vec<Rate> { build(json, seed).unwrap().links[..32].iter().map(|l| l.rate).collect() };
        let a = rates(5);
        assert!(a.iter().all(|&r| r >= Rate::from_gbps(1) && r <= Rate::from_gbps(10)), "{a:?}");
        assert_eq!(a, rates(5));
        assert_ne!(a, rates(6));
        let distinct: std::collections::BTreeSet<_> = a.iter().step_by(2).collect();
        assert!(distinct.len() > 10, "rates should vary per link: {a:?}");
        assert_eq!(build(json, 5).unwrap().nodes.len(), 30);
    }

    #[test]
    fn scale_multiplies_core_rates() {
        let t = build(r#"{"core_rate_scale": 0.5}"#, 1).unwrap();
        assert_eq!(t.links[0].rate, Rate::from_mbps(2778));
        assert_eq!(t.links[32].rate, Rate::from_gbps(1), "host links are not scaled");
    }

    #[test]
    fn factor_heterogeneity_stays_within_the_factors_of_the_table() {
        let t = build(r#"{"core_rate_factor_uniform": [0.5, 2.0]}"#, 4).unwrap();
        let again = build(r#"{"core_rate_factor_uniform": [0.5, 2.0]}"#, 4).unwrap();
        let core: Vec<_> = t.links.iter().filter(|l| l.delay == Time::from_ms(10)).collect();
        assert_eq!(core.len(), 32);
        for (l, (a, b, mbps)) in core.iter().step_by(2).zip(RC3_CORE_LINKS.iter()) {
            let f = l.rate.bps() as f64 / (*mbps as f64 * 1e6);
            assert!((0.5..=2.0).contains(&f), "link {a}-{b}: factor {f}");
        }
        assert!(t.links.iter().zip(&again.links).all(|(x, y)| x.rate == y.rate));
    }

    #[test]
    fn bad_parameters_name_field_and_value() {
        let e = build(r#"{"core_rate_scale": -2}"#, 1).unwrap_err();
        assert_eq!(e.field, "core_rate_scale");
        assert!(e.message.contains("-2"), "{e}");
        let e = build(r#"{"core_rate_uniform": ["10Gbps", "1Gbps"]}"#, 1).unwrap_err();
        assert_eq!(e.field, "core_rate_uniform");
        assert!(e.message.contains("10000000000bps"), "{e}");
        let e = build(r#"{"core_rate_factor_uniform": [0, 2]}"#, 1).unwrap_err();
        assert_eq!(e.field, "core_rate_factor_uniform");
        let e = build(r#"{"hosts_per_router": 0}"#, 1).unwrap_err();
        assert_eq!(e.field, "hosts_per_router");
    }
}
