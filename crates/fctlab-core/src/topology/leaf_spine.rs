//! The two-tier leaf-spine fabric: racks of hosts under leaf (top-of-rack) switches, every leaf
//! joined to every spine switch.
//!
//! `leaves` leaf switches, `spines` spine switches and `hosts_per_leaf` hosts under each leaf.
//! Between hosts under different leaves there are `spines` equal-cost paths, one per spine
//! (host, leaf, spine, leaf, host); hosts under one leaf reach each other through it alone.
//!
//! The defaults are the fabric of pFabric's simulations (M. Alizadeh, S. Yang, M. Sharif,
//! S. Katti, N. McKeown, B. Prabhakar, S. Shenker, "pFabric: Minimal Near-Optimal Datacenter
//! Transport", SIGCOMM 2013, sec. 5.1, Fig. 3): 144 hosts in 9 racks of 16, 4 spine switches,
//! 10 Gb/s host links and 40 Gb/s leaf-spine links, so each leaf has as much capacity up
//! (4 x 40 Gb/s) as down (16 x 10 Gb/s): "a non-oversubscribed (full bisection bandwidth)
//! fabric". The paper gives no link delays, only round trips: "~14.6 us" across the spine
//! (4 hops), "of which 10 us is spent in the hosts", and "~13.3 us" across 2 hops under a leaf.
//! Both are met by 0.2 us of propagation per link, with the hosts' 10 us as 2.5 us more on
//! each of the 4 host-link crossings of a round trip: host links of 2.7 us, leaf-spine links of
//! 0.2 us. A 1500-byte packet and its 40-byte ACK then take 14.68 us across the spine (11.6 us
//! of propagation, 3.08 us of serialization) and 13.26 us under a leaf (a test checks both).
//!
//! Node ids: spine{s}, then leaf{l}, then hosts h0.. in rack order (h{l * hosts_per_leaf + i}
//! under leaf{l}). Links: leaf-spine (per leaf, every spine), then host-leaf.

use super::{check_size, Builder, NodeKind, Topology};
use crate::error::{SpecError, SpecResult};
use crate::quantity::{RateQ, TimeQ};
use crate::units::{Rate, Time};
use serde::Deserialize;

/// `kind = "leaf_spine"`; every field has pFabric's value by default.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeafSpineSpec {
    /// Leaf (top-of-rack) switches, one per rack (>= 1; default 9).
    #[serde(default = "default_leaves")]
    pub leaves: u32,
    /// Hosts under each leaf (>= 1; default 16).
    #[serde(default = "default_hosts_per_leaf")]
    pub hosts_per_leaf: u32,
    /// Spine switches, each joined to every leaf (>= 1; default 4).
    #[serde(default = "default_spines")]
    pub spines: u32,
    /// Rate of every host link (default 10 Gb/s).
    #[serde(default = "default_host_rate")]
    pub host_rate: RateQ,
    /// Rate of every leaf-spine link (default 40 Gb/s).
    #[serde(default = "default_fabric_rate")]
    pub fabric_rate: RateQ,
    /// One-way delay of every host link (default 2.7 us).
    #[serde(default = "default_host_delay")]
    pub host_delay: TimeQ,
    /// One-way delay of every leaf-spine link (default 0.2 us).
    #[serde(default = "default_fabric_delay")]
    pub fabric_delay: TimeQ,
}

fn default_leaves() -> u32 {
    9
}
fn default_hosts_per_leaf() -> u32 {
    16
}
fn default_spines() -> u32 {
    4
}
fn default_host_rate() -> RateQ {
    RateQ(Rate::from_gbps(10))
}
fn default_fabric_rate() -> RateQ {
    RateQ(Rate::from_gbps(40))
}
fn default_host_delay() -> TimeQ {
    TimeQ(Time::from_ns(2700))
}
fn default_fabric_delay() -> TimeQ {
    TimeQ(Time::from_ns(200))
}

impl LeafSpineSpec {
    /// Builds the fabric; groups "all" and "rack{l}" (the hosts under leaf{l}).
    pub fn build(&self) -> SpecResult<Topology> {
        for (field, value, what) in [
            ("leaves", self.leaves, "leaf switch"),
            ("hosts_per_leaf", self.hosts_per_leaf, "host per leaf"),
            ("spines", self.spines, "spine switch"),
        ] {
            if value == 0 {
                return Err(SpecError::new(field, format!("expected at least 1 {what}, got 0")));
            }
        }
        let (leaves, hosts, spines) = (self.leaves as u64, self.hosts_per_leaf as u64, self.spines as u64);
        let host_count = leaves.saturating_mul(hosts);
        let nodes = spines.saturating_add(leaves).saturating_add(host_count);
        let links = leaves.saturating_mul(spines).saturating_add(host_count).saturating_mul(2);
        // The field whose value makes the fabric too large: the largest of the three counts.
        let (field, value) = [("leaves", leaves), ("hosts_per_leaf", hosts), ("spines", spines)]
            .into_iter()
            .max_by_key(|&(_, v)| v)
            .expect("three counts");
        check_size(field, value, nodes, links)?;

        let mut b = Builder::new();
        let spine: Vec<usize> = (0..self.spines).map(|s| b.node(format!("spine{s}"), NodeKind::Router)).collect();
        let leaf: Vec<usize> = (0..self.leaves).map(|l| b.node(format!("leaf{l}"), NodeKind::Router)).collect();
        for &l in &leaf {
            for &s in &spine {
                b.duplex(l, s, self.fabric_rate.0, self.fabric_delay.0, None);
            }
        }
        let mut next_host = 0u64;
        for (l, &leaf_node) in leaf.iter().enumerate() {
            let rack: Vec<usize> = (0..self.hosts_per_leaf)
                .map(|_| {
                    let h = b.node(format!("h{next_host}"), NodeKind::Host);
                    b.duplex(h, leaf_node, self.host_rate.0, self.host_delay.0, None);
                    next_host += 1;
                    h
                })
                .collect();
            b.group(format!("rack{l}"), rack);
        }
        b.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{flow_hash, Routes};
    use crate::topology::TopologySpec;
    use crate::transport::tcp::TcpConfig;
    use std::collections::BTreeSet;
    use std::path::Path;

    /// The topology of a `[topology]` table given as JSON (with `kind` added), or the error
    /// message as a user sees it (field path first).
    fn leaf_spine(fields: &str) -> Result<Topology, String> {
        let sep = if fields.trim().is_empty() { "" } else { "," };
        let json = format!(r#"{{"kind": "leaf_spine"{sep} {fields}}}"#);
        let de = &mut serde_json::Deserializer::from_str(&json);
        let spec: TopologySpec = serde_path_to_error::deserialize(de).map_err(|e| e.to_string())?;
        spec.build(Path::new("."), 0).map_err(|e| e.to_string())
    }

    fn pfabric() -> Topology {
        leaf_spine("").unwrap()
    }

    fn id(t: &Topology, name: &str) -> usize {
        t.node_by_name(name).unwrap_or_else(|| panic!("no node {name}"))
    }

    fn names(t: &Topology, path: &[u32]) -> Vec<String> {
        path.iter().map(|&l| t.links[l as usize].name.clone()).collect()
    }

    #[test]
    fn defaults_are_pfabrics_fabric() {
        let t = pfabric();
        assert_eq!(t.hosts().len(), 144, "144 hosts");
        assert_eq!(t.nodes.len() - 144, 9 + 4, "9 leaves and 4 spines");
        // 9 x 4 leaf-spine links and 144 host links, two directions each.
        assert_eq!(t.links.len(), 2 * (9 * 4 + 144));
        let racks: Vec<&String> = t.groups.keys().filter(|g| g.starts_with("rack")).collect();
        assert_eq!(racks.len(), 9);
        for l in 0..9 {
            assert_eq!(t.groups[&format!("rack{l}")].len(), 16, "rack{l}");
        }
        assert_eq!(t.groups["all"].len(), 144);
        assert_eq!(t.default_pairs, None);
        let leaf0 = id(&t, "leaf0");
        for l in &t.links {
            let fabric = t.nodes[l.from].kind == NodeKind::Router && t.nodes[l.to].kind == NodeKind::Router;
            let (rate, delay) = if fabric {
                (Rate::from_gbps(40), Time::from_ns(200))
            } else {
                (Rate::from_gbps(10), Time::from_ns(2700))
            };
            assert_eq!((l.rate, l.delay), (rate, delay), "{}", l.name);
        }
        // Full bisection bandwidth: a leaf has as much capacity up as down.
        let up: u64 = t
            .links
            .iter()
            .filter(|l| l.from == leaf0 && t.nodes[l.to].kind == NodeKind::Router)
            .map(|l| l.rate.bps())
            .sum();
        let down: u64 = t
            .links
            .iter()
            .filter(|l| l.from == leaf0 && t.nodes[l.to].kind == NodeKind::Host)
            .map(|l| l.rate.bps())
            .sum();
        assert_eq!((up, down), (160_000_000_000, 160_000_000_000));
    }

    #[test]
    fn names_order_and_links_follow_the_conventions() {
        let t = leaf_spine(r#""leaves": 3, "hosts_per_leaf": 2, "spines": 2"#).unwrap();
        let order: Vec<&str> = t.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(order, ["spine0", "spine1", "leaf0", "leaf1", "leaf2", "h0", "h1", "h2", "h3", "h4", "h5"]);
        assert!(t.nodes[..5].iter().all(|n| n.kind == NodeKind::Router), "routers before hosts");
        assert_eq!(t.links[0].name, "leaf0->spine0");
        assert_eq!(t.links[1].name, "spine0->leaf0");
        assert_eq!(t.links[2].name, "leaf0->spine1");
        // A host's first link is its uplink to its leaf.
        let attach = t.attach();
        for (h, leaf) in [("h0", "leaf0"), ("h1", "leaf0"), ("h2", "leaf1"), ("h5", "leaf2")] {
            assert_eq!(attach[id(&t, h)], id(&t, leaf), "{h}");
        }
        assert_eq!(t.links[2 * 6].name, "h0->leaf0");
        assert_eq!(t.groups["rack1"], vec![id(&t, "h2"), id(&t, "h3")]);
        assert!(t.named.is_empty(), "links are unnamed");
    }

    #[test]
    fn between_racks_four_equal_cost_paths_through_the_spines() {
        let t = pfabric();
        let (s, d) = (id(&t, "h0"), id(&t, "h17")); // rack0 -> rack1
        let ecmp = Routes::compute(&t, true);
        let leaf0 = id(&t, "leaf0");
        assert_eq!(ecmp.next_hops(leaf0, d).len(), 4, "one next hop per spine");
        let paths: BTreeSet<Vec<String>> = (0..200).map(|f| names(&t, &ecmp.path(s, d, flow_hash(f, 5)))).collect();
        assert_eq!(paths.len(), 4, "{paths:?}");
        for (i, p) in paths.iter().enumerate() {
            assert_eq!(p.len(), 4, "host, leaf, spine, leaf, host: {p:?}");
            assert_eq!(p[0], "h0->leaf0");
            assert_eq!(p[1], format!("leaf0->spine{i}"));
            assert_eq!(p[2], format!("spine{i}->leaf1"));
            assert_eq!(p[3], "leaf1->h17");
        }
        // Without ECMP, one of them: through the spine of the lowest node id.
        let single = Routes::compute(&t, false);
        assert_eq!(names(&t, &single.path(s, d, 0)), ["h0->leaf0", "leaf0->spine0", "spine0->leaf1", "leaf1->h17"]);
    }

    #[test]
    fn within_a_rack_the_leaf_alone() {
        let t = pfabric();
        for ecmp in [false, true] {
            let routes = Routes::compute(&t, ecmp);
            let (s, d) = (id(&t, "h32"), id(&t, "h47")); // both in rack2
            assert_eq!(names(&t, &routes.path(s, d, flow_hash(1, 1))), ["h32->leaf2", "leaf2->h47"], "ecmp {ecmp}");
        }
    }

    /// The unloaded round trip of one full-sized packet and its ACK, summed over the links of
    /// the route from `a` to `b` and back: propagation plus store-and-forward serialization.
    fn round_trip(t: &Topology, a: &str, b: &str) -> f64 {
        let routes = Routes::compute(t, false);
        let tcp = TcpConfig::default();
        let (data, ack) = ((tcp.mss + tcp.header) as u64, tcp.header as u64);
        let one_way = |from: &str, to: &str, bytes: u64| -> f64 {
            routes
                .path(id(t, from), id(t, to), 0)
                .iter()
                .map(|&l| {
                    let l = &t.links[l as usize];
                    (l.delay.ps() + l.rate.tx_time(bytes).ps()) as f64 * 1e-6
                })
                .sum()
        };
        one_way(a, b, data) + one_way(b, a, ack)
    }

    #[test]
    fn default_round_trips_are_the_papers() {
        let t = pfabric();
        // pFabric sec. 5.1: ~14.6 us across the spine, ~13.3 us under one leaf.
        let spine = round_trip(&t, "h0", "h143");
        let leaf = round_trip(&t, "h0", "h15");
        assert!((spine - 14.6).abs() < 0.1, "across the spine: {spine} us");
        assert!((leaf - 13.3).abs() < 0.1, "under a leaf: {leaf} us");
        // "Of which 10 us is spent in the hosts": what a host link has beyond a fabric link's
        // propagation, on each of the 4 host-link crossings of a round trip.
        let host_link = t.links.iter().find(|l| t.nodes[l.from].kind == NodeKind::Host).unwrap().delay;
        let fabric_link = t.links[0].delay;
        assert_eq!(host_link.saturating_sub(fabric_link).times(4), Time::from_us(10));
    }

    #[test]
    fn every_field_can_be_set() {
        let t = leaf_spine(
            r#""leaves": 2, "hosts_per_leaf": 3, "spines": 5, "host_rate": "1Gbps", "fabric_rate": "2Gbps",
               "host_delay": "1us", "fabric_delay": "3us""#,
        )
        .unwrap();
        assert_eq!(t.hosts().len(), 6);
        assert_eq!(t.nodes.len(), 6 + 2 + 5);
        assert_eq!(t.links.len(), 2 * (2 * 5 + 6));
        let h = id(&t, "h4");
        assert_eq!(t.access_rate()[h], Rate::from_gbps(1));
        assert_eq!((t.links[0].rate, t.links[0].delay), (Rate::from_gbps(2), Time::from_us(3)));
        assert_eq!(t.links.last().unwrap().delay, Time::from_us(1));
        assert_eq!(Routes::compute(&t, true).next_hops(id(&t, "leaf0"), h).len(), 5);
    }

    #[test]
    fn bad_values_name_the_field_the_value_and_what_was_expected() {
        for (fields, want) in [
            (r#""spines": 0"#, "field `spines`: expected at least 1 spine switch, got 0"),
            (r#""leaves": 0"#, "field `leaves`: expected at least 1 leaf switch, got 0"),
            (r#""hosts_per_leaf": 0"#, "field `hosts_per_leaf`: expected at least 1 host per leaf, got 0"),
            (r#""host_rate": "0Gbps""#, "host_rate: expected a rate > 0, got \"0Gbps\""),
            (r#""fabric_rate": "-40Gbps""#, "fabric_rate: expected a rate > 0, got \"-40Gbps\""),
            (r#""fabric_rate": 0"#, "fabric_rate: expected a rate > 0, got 0"),
            (r#""host_delay": "-1us""#, "host_delay: expected a duration >= 0, got \"-1us\""),
        ] {
            let e = leaf_spine(fields).unwrap_err();
            assert!(e.contains(want), "{fields}: {e}");
        }
        let e = leaf_spine(r#""spines": -2"#).unwrap_err();
        assert!(e.starts_with("spines: ") && e.contains("-2"), "{e}");
        let e = leaf_spine(r#""racks": 3"#).unwrap_err();
        assert!(e.contains("unknown field `racks`"), "{e}");
        let e = leaf_spine(r#""leaves": 4000000000, "hosts_per_leaf": 2"#).unwrap_err();
        assert!(e.contains("field `leaves`: 4000000000 gives"), "{e}");
    }
}
