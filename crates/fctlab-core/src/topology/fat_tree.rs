//! The k-ary fat tree (Al-Fares et al., SIGCOMM 2008), the usual data-centre topology of FCT studies.
//!
//! k pods, each with k/2 edge and k/2 aggregation switches (a full bipartite mesh inside the
//! pod); (k/2)^2 core switches, where aggregation switch j of every pod connects to cores
//! j*k/2 .. (j+1)*k/2 - 1; k/2 hosts per edge switch, k^3/4 hosts in all. Between hosts in
//! different pods there are (k/2)^2 equal-cost paths, one per core.
//!
//! Node ids: core{c}, then per pod agg{p}_{j} and edge{p}_{j}, then hosts h0.. in pod order.
//! Links: edge-aggregation, then aggregation-core, then host-edge.

use super::{check_size, Builder, NodeKind, Topology};
use crate::error::{SpecError, SpecResult};
use crate::quantity::{RateQ, TimeQ};
use serde::Deserialize;

/// `kind = "fat_tree"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Switch port count: even, >= 2.
    pub k: u32,
    /// Rate of every switch-to-switch link.
    pub rate: RateQ,
    /// One-way delay of every switch-to-switch link.
    pub delay: TimeQ,
    /// Rate of host links (default: `rate`).
    #[serde(default)]
    pub host_rate: Option<RateQ>,
    /// One-way delay of host links (default: `delay`).
    #[serde(default)]
    pub host_delay: Option<TimeQ>,
}

impl FatTreeSpec {
    /// Builds the fat tree; groups "all" and "pod{p}".
    pub fn build(&self) -> SpecResult<Topology> {
        let k = self.k as usize;
        if k < 2 || !k.is_multiple_of(2) {
            return Err(SpecError::new("k", format!("expected an even number >= 2, got {k}")));
        }
        let k64 = self.k as u64;
        // k^3/4 host links, and k^3/4 each between edge and aggregation, aggregation and core.
        check_size(
            "k",
            k64,
            (k64.saturating_mul(k64).saturating_mul(5) / 4).saturating_add(k64.saturating_pow(3) / 4),
            k64.saturating_pow(3).saturating_mul(3) / 2,
        )?;
        let half = k / 2;
        let (rate, delay) = (self.rate.0, self.delay.0);
        let host_rate = self.host_rate.map_or(rate, |r| r.0);
        let host_delay = self.host_delay.map_or(delay, |d| d.0);

        let mut b = Builder::new();
        let cores: Vec<usize> = (0..half * half).map(|c| b.node(format!("core{c}"), NodeKind::Router)).collect();
        let mut aggs = Vec::with_capacity(k);
        let mut edges = Vec::with_capacity(k);
        for p in 0..k {
            let agg: Vec<usize> = (0..half).map(|j| b.node(format!("agg{p}_{j}"), NodeKind::Router)).collect();
            let edge: Vec<usize> = (0..half).map(|j| b.node(format!("edge{p}_{j}"), NodeKind::Router)).collect();
            aggs.push(agg);
            edges.push(edge);
        }
        for p in 0..k {
            for &e in &edges[p] {
                for &a in &aggs[p] {
                    b.duplex(e, a, rate, delay, None);
                }
            }
        }
        for agg in &aggs {
            for (j, &a) in agg.iter().enumerate() {
                for &c in &cores[j * half..(j + 1) * half] {
                    b.duplex(a, c, rate, delay, None);
                }
            }
        }
        let mut next_host = 0;
        for (p, edge) in edges.iter().enumerate() {
            let mut pod = Vec::with_capacity(half * half);
            for &e in edge {
                for _ in 0..half {
                    let h = b.node(format!("h{next_host}"), NodeKind::Host);
                    b.duplex(h, e, host_rate, host_delay, None);
                    pod.push(h);
                    next_host += 1;
                }
            }
            b.group(format!("pod{p}"), pod);
        }
        b.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{flow_hash, Routes};
    use crate::units::{Rate, Time};
    use std::collections::BTreeMap;

    fn fat_tree(json: &str) -> SpecResult<Topology> {
        serde_json::from_str::<FatTreeSpec>(json).unwrap().build()
    }

    fn k4() -> Topology {
        fat_tree(r#"{"k": 4, "rate": "10Gbps", "delay": "1us", "host_rate": "1Gbps"}"#).unwrap()
    }

    #[test]
    fn k4_has_16_hosts_and_20_switches() {
        let t = k4();
        assert_eq!(t.hosts().len(), 16);
        assert_eq!(t.nodes.len() - 16, 20);
        // 16 edge-agg + 16 agg-core + 16 host links, each two directions.
        assert_eq!(t.links.len(), 2 * 48);
        assert_eq!(t.groups["pod3"].len(), 4);
        let h = t.groups["pod0"][0];
        assert_eq!(t.access_rate()[h], Rate::from_gbps(1));
        assert_eq!(t.links.last().unwrap().delay, Time::from_us(1));
        for c in 0..4 {
            let degree = t.links.iter().filter(|l| l.from == t.node_by_name(&format!("core{c}")).unwrap()).count();
            assert_eq!(degree, 4, "a core switch reaches every pod once");
        }
    }

    #[test]
    fn ecmp_spreads_inter_pod_flows_over_all_four_paths() {
        let t = k4();
        let routes = Routes::compute(&t, true);
        let (s, d) = (t.groups["pod0"][0], t.groups["pod2"][3]);
        let mut paths: BTreeMap<Vec<u32>, u32> = BTreeMap::new();
        for flow in 0..400 {
            *paths.entry(routes.path(s, d, flow_hash(flow, 9))).or_default() += 1;
        }
        assert_eq!(paths.len(), 4, "{paths:?}");
        assert!(paths.values().all(|&n| n > 60), "uneven spread: {paths:?}");
        assert!(paths.keys().all(|p| p.len() == 6));
        // Same pod, different edge: k/2 = 2 paths through the two aggregation switches.
        let (s2, d2) = (t.groups["pod1"][0], t.groups["pod1"][2]);
        let within: std::collections::BTreeSet<_> = (0..100).map(|f| routes.path(s2, d2, flow_hash(f, 9))).collect();
        assert_eq!(within.len(), 2);
    }

    #[test]
    fn without_ecmp_exactly_one_path() {
        let t = k4();
        let routes = Routes::compute(&t, false);
        let (s, d) = (t.groups["pod0"][0], t.groups["pod2"][3]);
        let paths: std::collections::BTreeSet<_> = (0..100).map(|f| routes.path(s, d, flow_hash(f, 9))).collect();
        assert_eq!(paths.len(), 1);
        for n in 0..t.nodes.len() {
            for &h in &t.hosts() {
                assert!(routes.next_hops(n, h).len() <= 1);
            }
        }
    }

    #[test]
    fn k_must_be_even_and_at_least_two() {
        for k in [0, 3] {
            let e = fat_tree(&format!(r#"{{"k": {k}, "rate": "10Gbps", "delay": "1us"}}"#)).unwrap_err();
            assert_eq!(e.field, "k");
            assert!(e.message.contains(&format!("got {k}")), "{e}");
        }
        let t = fat_tree(r#"{"k": 2, "rate": "10Gbps", "delay": "1us"}"#).unwrap();
        assert_eq!((t.hosts().len(), t.nodes.len()), (2, 7), "5 switches: 1 core, 2 per pod");
        let e = fat_tree(r#"{"k": 4000000000, "rate": "10Gbps", "delay": "1us"}"#).unwrap_err();
        assert_eq!(e.field, "k");
    }
}
