//! Network topologies as plain structure: nodes, directed links, named host groups.
//!
//! A scenario's `[topology]` table is a [`TopologySpec`] (tagged by `kind`); [`TopologySpec::build`]
//! turns it into a [`Topology`], which the event loop turns into queues and links and
//! [`crate::routing`] turns into forwarding tables. Nothing here knows about packets.
//!
//! Conventions every builder keeps, so that the event loop and the reports can rely on them:
//! - links are duplex, stored as two directed entries: `2i` (a->b) and `2i+1` (b->a);
//! - an unnamed link direction is called `"<from>-><to>"`; a duplex link named `x` gives
//!   `x` (a->b) and `x_rev` (b->a), and both appear in [`Topology::named`];
//! - a host's first link is its uplink, so the router it hangs from is its first neighbour
//!   ([`Topology::attach`]);
//! - the built-in topologies put routers before hosts; a graph keeps the order of its list.
//!
//! Hosts may have more than one link (a graph may multi-home them); routing never uses a host
//! as a transit node, whatever its links.

mod dumbbell;
mod fat_tree;
mod graph;
mod internet2;
mod leaf_spine;
mod parking_lot;

pub use dumbbell::DumbbellSpec;
pub use fat_tree::FatTreeSpec;
pub use graph::{GraphLinkSpec, GraphNodeSpec, GraphSpec};
pub use internet2::{Internet2Spec, RC3_CORE_LINKS};
pub use leaf_spine::LeafSpineSpec;
pub use parking_lot::ParkingLotSpec;

use crate::error::{SpecError, SpecResult};
use crate::quantity::{RateQ, TimeQ};
use crate::units::{Rate, Time};
use serde::de::{self, DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Whether a node originates and sinks flows (host) or only forwards them (router or switch).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An end host: sources and sinks flows, never forwards.
    Host,
    /// A router or switch: forwards, never sources flows.
    Router,
}

/// One node of the network.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Unique name, used in scenarios and reports.
    pub name: String,
    /// Host or router.
    pub kind: NodeKind,
}

/// One direction of a link. Duplex links are two entries at indices 2i (a->b) and 2i+1 (b->a).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkDesc {
    /// Node id the link leaves.
    pub from: usize,
    /// Node id the link enters.
    pub to: usize,
    /// Line rate (serialization), always > 0.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
    /// Name for reports: `"<from>-><to>"` unless the spec named it.
    pub name: String,
}

/// A built network: what the event loop and the router tables are made from.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// Nodes, indexed by node id.
    pub nodes: Vec<Node>,
    /// Directed links, indexed by link id; duplex pairs at 2i and 2i+1.
    pub links: Vec<LinkDesc>,
    /// Named host groups (node ids, ascending); always has `"all"`.
    pub groups: BTreeMap<String, Vec<usize>>,
    /// Named directed links, e.g. `"bottleneck"` -> link id.
    pub named: BTreeMap<String, usize>,
    /// Default (source group, destination group) for workloads that name none.
    pub default_pairs: Option<(String, String)>,
}

/// The `[topology]` table of a scenario, tagged by `kind`.
///
/// Deserialized by hand rather than with `#[serde(tag = "kind")]`: serde buffers an internally
/// tagged enum and deserializes the variant from that buffer, out of serde_path_to_error's
/// sight, so an error in `bottleneck_rate` would only say `topology`. Here the variant is read
/// with its own path tracking and the inner path leads the message (`bottleneck_rate: ...`).
#[derive(Clone, Debug)]
pub enum TopologySpec {
    /// Two routers joined by one bottleneck, hosts on each side.
    Dumbbell(DumbbellSpec),
    /// A chain of bottlenecks with one long path and per-hop cross traffic.
    ParkingLot(ParkingLotSpec),
    /// The RC3 authors' 10-router Internet-2 topology with 10 hosts per router.
    Internet2Rc3(Internet2Spec),
    /// The k-ary fat tree of data-centre studies.
    FatTree(FatTreeSpec),
    /// The two-tier leaf-spine fabric (pFabric's by default).
    LeafSpine(LeafSpineSpec),
    /// Any graph, inline or from a JSON file.
    Graph(GraphSpec),
}

/// The values of `kind`, in the order error messages list them.
pub const TOPOLOGY_KINDS: &[&str] = &["dumbbell", "parking_lot", "internet2-rc3", "fat_tree", "leaf_spine", "graph"];

impl<'de> Deserialize<'de> for TopologySpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TopologySpec, D::Error> {
        let mut table = serde_json::Map::<String, Value>::deserialize(d)?;
        let kind = match table.remove("kind") {
            Some(Value::String(k)) => k,
            Some(other) => return Err(de::Error::custom(format!("kind: expected a string, got {other}"))),
            None => return Err(de::Error::missing_field("kind")),
        };
        let rest = Value::Object(table);
        match kind.as_str() {
            "dumbbell" => with_path(rest).map(TopologySpec::Dumbbell),
            "parking_lot" => with_path(rest).map(TopologySpec::ParkingLot),
            "internet2-rc3" => with_path(rest).map(TopologySpec::Internet2Rc3),
            "fat_tree" => with_path(rest).map(TopologySpec::FatTree),
            "leaf_spine" => with_path(rest).map(TopologySpec::LeafSpine),
            "graph" => with_path(rest).map(TopologySpec::Graph),
            other => Err(de::Error::unknown_variant(other, TOPOLOGY_KINDS)),
        }
    }
}

/// Deserializes `value` as a `T`, putting the path inside `value` of any error before its message.
fn with_path<T: DeserializeOwned, E: de::Error>(value: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            E::custom(e.inner())
        } else {
            E::custom(format!("{path}: {}", e.inner()))
        }
    })
}

impl TopologySpec {
    /// Builds the topology; `base_dir` resolves relative file names, `seed` drives random link rates.
    pub fn build(&self, base_dir: &Path, seed: u64) -> SpecResult<Topology> {
        match self {
            TopologySpec::Dumbbell(s) => s.build(),
            TopologySpec::ParkingLot(s) => s.build(),
            TopologySpec::Internet2Rc3(s) => s.build(seed),
            TopologySpec::FatTree(s) => s.build(),
            TopologySpec::LeafSpine(s) => s.build(),
            TopologySpec::Graph(s) => s.build(base_dir),
        }
    }

    /// Whether this kind of topology is built with equal-cost paths between its hosts (a
    /// data-centre fabric), so that routing spreads flows over them unless the scenario's
    /// `routing.ecmp` says otherwise. The other kinds route single-path by default, as they
    /// always did.
    pub fn multipath(&self) -> bool {
        matches!(self, TopologySpec::FatTree(_) | TopologySpec::LeafSpine(_))
    }

    /// The `kind` this spec was given as.
    pub fn kind(&self) -> &'static str {
        match self {
            TopologySpec::Dumbbell(_) => "dumbbell",
            TopologySpec::ParkingLot(_) => "parking_lot",
            TopologySpec::Internet2Rc3(_) => "internet2-rc3",
            TopologySpec::FatTree(_) => "fat_tree",
            TopologySpec::LeafSpine(_) => "leaf_spine",
            TopologySpec::Graph(_) => "graph",
        }
    }
}

impl Topology {
    /// Ids of all hosts, ascending.
    pub fn hosts(&self) -> Vec<usize> {
        (0..self.nodes.len()).filter(|&n| self.nodes[n].kind == NodeKind::Host).collect()
    }

    /// Per node: the node a host hangs from (the far end of its first link); a router maps to itself.
    pub fn attach(&self) -> Vec<usize> {
        let mut attach: Vec<usize> = (0..self.nodes.len()).collect();
        let mut seen = vec![false; self.nodes.len()];
        for l in &self.links {
            if !seen[l.from] && self.nodes[l.from].kind == NodeKind::Host {
                attach[l.from] = l.to;
                seen[l.from] = true;
            }
        }
        attach
    }

    /// Per node: a host's uplink rate (its first link's); routers get `Rate(0)`.
    pub fn access_rate(&self) -> Vec<Rate> {
        let mut rate = vec![Rate(0); self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        for l in &self.links {
            if !seen[l.from] && self.nodes[l.from].kind == NodeKind::Host {
                rate[l.from] = l.rate;
                seen[l.from] = true;
            }
        }
        rate
    }

    /// The id of the node called `name`.
    pub fn node_by_name(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// Checks the invariants the event loop and routing rely on; errors name the node or link.
    pub fn validate(&self) -> SpecResult<()> {
        let n = self.nodes.len();
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some(j) = names.insert(node.name.as_str(), i) {
                return Err(SpecError::new(
                    "nodes",
                    format!("duplicate node name \"{}\" (nodes {j} and {i}); expected unique names", node.name),
                ));
            }
        }
        if !self.links.len().is_multiple_of(2) {
            return Err(SpecError::new(
                "links",
                format!("expected duplex pairs, got {} directed links", self.links.len()),
            ));
        }
        let mut has_uplink = vec![false; n];
        for (i, l) in self.links.iter().enumerate() {
            if l.from >= n || l.to >= n {
                return Err(SpecError::new(
                    "links",
                    format!("link {i} \"{}\" names node {} or {}; expected ids below {n}", l.name, l.from, l.to),
                ));
            }
            if l.from == l.to {
                return Err(SpecError::new(
                    "links",
                    format!(
                        "link {i} \"{}\" joins node \"{}\" to itself; expected two different nodes",
                        l.name, self.nodes[l.from].name
                    ),
                ));
            }
            if l.rate.bps() == 0 {
                return Err(SpecError::new(
                    "links",
                    format!("link {i} \"{}\" has rate 0 bps; expected a rate > 0", l.name),
                ));
            }
            if i % 2 == 1 {
                let fwd = &self.links[i - 1];
                if fwd.from != l.to || fwd.to != l.from {
                    return Err(SpecError::new(
                        "links",
                        format!("links {} and {i} are not the two directions of one link", i - 1),
                    ));
                }
            }
            has_uplink[l.from] = true;
        }
        let hosts = self.hosts();
        if hosts.is_empty() {
            return Err(SpecError::new("nodes", "expected at least one host, got none"));
        }
        if let Some(&h) = hosts.iter().find(|&&h| !has_uplink[h]) {
            return Err(SpecError::new(
                "links",
                format!("host \"{}\" has no link; expected at least one", self.nodes[h].name),
            ));
        }
        match self.groups.get("all") {
            Some(all) if *all == hosts => {}
            _ => return Err(SpecError::new("groups", "expected group \"all\" holding every host")),
        }
        for (g, members) in &self.groups {
            if members.is_empty() {
                return Err(SpecError::new("groups", format!("group \"{g}\" is empty; expected at least one host")));
            }
            if let Some(&m) = members.iter().find(|&&m| m >= n || self.nodes[m].kind != NodeKind::Host) {
                return Err(SpecError::new("groups", format!("group \"{g}\" holds node {m}, which is not a host")));
            }
        }
        if let Some((name, &l)) = self.named.iter().find(|(_, &l)| l >= self.links.len()) {
            return Err(SpecError::new(
                "named",
                format!("named link \"{name}\" is link {l}; expected an id below {}", self.links.len()),
            ));
        }
        if let Some((src, dst)) = &self.default_pairs {
            for g in [src, dst] {
                if !self.groups.contains_key(g) {
                    return Err(SpecError::new("default_pairs", format!("unknown group \"{g}\"")));
                }
            }
        }
        Ok(())
    }
}

pub use crate::limits::MAX_NODES;
use crate::limits::{BYTES_PER_LINK, BYTES_PER_NODE};

/// Refuses a topology of `nodes` nodes and `links` directed links that would not fit in
/// memory, before anything is allocated; `field` is the count the user gave.
fn check_size(field: &str, value: u64, nodes: u64, links: u64) -> SpecResult<()> {
    if nodes > MAX_NODES {
        return Err(SpecError::new(
            field,
            format!("{value} gives {nodes} nodes; expected at most {MAX_NODES} nodes in all"),
        ));
    }
    let mut memory = crate::limits::Memory::new();
    memory.add(field, format!("{value} gives {nodes} nodes and {links} links, which"), links, BYTES_PER_LINK);
    memory.add(field, format!("{value} gives {nodes} nodes, which"), nodes, BYTES_PER_NODE);
    memory.check()
}

/// Default access rate of dumbbell and parking lot: 10 Gb/s.
fn default_access_rate() -> RateQ {
    RateQ(Rate::from_gbps(10))
}

/// Default access delay of dumbbell and parking lot: none.
fn default_access_delay() -> TimeQ {
    TimeQ(Time::ZERO)
}

/// Accumulates nodes, duplex links and groups in the order the conventions above require.
struct Builder {
    topo: Topology,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            topo: Topology {
                nodes: Vec::new(),
                links: Vec::new(),
                groups: BTreeMap::new(),
                named: BTreeMap::new(),
                default_pairs: None,
            },
        }
    }

    /// Adds a node and returns its id.
    fn node(&mut self, name: String, kind: NodeKind) -> usize {
        self.topo.nodes.push(Node { name, kind });
        self.topo.nodes.len() - 1
    }

    /// Adds the duplex link a<->b and returns the id of its a->b direction (b->a is that + 1).
    fn duplex(&mut self, a: usize, b: usize, rate: Rate, delay: Time, name: Option<&str>) -> usize {
        let id = self.topo.links.len();
        let (fwd, rev) = match name {
            Some(x) => {
                self.topo.named.insert(x.to_string(), id);
                self.topo.named.insert(format!("{x}_rev"), id + 1);
                (x.to_string(), format!("{x}_rev"))
            }
            None => {
                let (na, nb) = (&self.topo.nodes[a].name, &self.topo.nodes[b].name);
                (format!("{na}->{nb}"), format!("{nb}->{na}"))
            }
        };
        self.topo.links.push(LinkDesc { from: a, to: b, rate, delay, name: fwd });
        self.topo.links.push(LinkDesc { from: b, to: a, rate, delay, name: rev });
        id
    }

    /// Adds `count` hosts called `prefix0..`, each with an uplink to `router`; returns their ids.
    fn hosts_on(&mut self, router: usize, prefix: &str, count: u32, rate: Rate, delay: Time) -> Vec<usize> {
        (0..count)
            .map(|i| {
                let h = self.node(format!("{prefix}{i}"), NodeKind::Host);
                self.duplex(h, router, rate, delay, None);
                h
            })
            .collect()
    }

    /// Names a host group.
    fn group(&mut self, name: impl Into<String>, mut members: Vec<usize>) {
        members.sort_unstable();
        self.topo.groups.insert(name.into(), members);
    }

    /// Adds the group "all" and checks the result.
    fn finish(mut self) -> SpecResult<Topology> {
        let all = self.topo.hosts();
        self.topo.groups.insert("all".to_string(), all);
        self.topo.validate()?;
        Ok(self.topo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> Result<TopologySpec, String> {
        let de = &mut serde_json::Deserializer::from_str(json);
        serde_path_to_error::deserialize::<_, TopologySpec>(de).map_err(|e| e.to_string())
    }

    #[test]
    fn unknown_kind_lists_the_kinds() {
        let e = spec(r#"{"kind": "ring", "hosts": 3}"#).unwrap_err();
        assert!(e.contains("unknown variant `ring`"), "{e}");
        for k in ["dumbbell", "parking_lot", "internet2-rc3", "fat_tree", "leaf_spine", "graph"] {
            assert!(e.contains(&format!("`{k}`")), "{e}");
        }
    }

    #[test]
    fn unknown_field_is_refused_and_named() {
        let e = spec(
            r#"{"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "1Gbps",
                        "bottleneck_delay": "10ms", "buffer": "1MB"}"#,
        )
        .unwrap_err();
        assert!(e.contains("unknown field `buffer`"), "{e}");
    }

    #[test]
    fn bad_value_names_the_field_inside_the_variant() {
        let e = spec(
            r#"{"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "0Gbps",
                "bottleneck_delay": "10ms"}"#,
        )
        .unwrap_err();
        assert!(e.contains("bottleneck_rate: expected a rate > 0") && e.contains("0Gbps"), "{e}");
        let e = spec(
            r#"{"kind": "graph", "nodes": [{"name": "a", "kind": "router"}],
                "links": [{"a": "a", "b": "a", "rate": "1Gbps", "delay": "fast"}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("links[0].delay: ") && e.contains("\"fast\""), "{e}");
        let e = spec(r#"{"hosts_per_side": 2}"#).unwrap_err();
        assert!(e.contains("missing field `kind`"), "{e}");
    }

    fn two_hosts() -> Builder {
        let mut b = Builder::new();
        let r = b.node("r".into(), NodeKind::Router);
        b.hosts_on(r, "h", 2, Rate::from_gbps(1), Time::from_ms(1));
        b
    }

    #[test]
    fn attach_and_access_rate_follow_the_first_link() {
        let mut b = two_hosts();
        let r2 = b.node("r2".into(), NodeKind::Router);
        b.duplex(1, r2, Rate::from_gbps(5), Time::ZERO, None); // h0 multi-homed: second link
        let t = b.finish().unwrap();
        assert_eq!(t.attach(), vec![0, 0, 0, 3]);
        assert_eq!(t.access_rate(), vec![Rate(0), Rate::from_gbps(1), Rate::from_gbps(1), Rate(0)]);
        assert_eq!(t.hosts(), vec![1, 2]);
        assert_eq!(t.node_by_name("h1"), Some(2));
        assert_eq!(t.links[0].name, "h0->r");
        assert_eq!(t.links[1].name, "r->h0");
    }

    #[test]
    fn validate_refuses_zero_rate_and_duplicate_names() {
        let mut t = two_hosts().finish().unwrap();
        t.links[3].rate = Rate(0);
        let e = t.validate().unwrap_err();
        assert!(e.message.contains("\"r->h1\" has rate 0"), "{e}");
        let mut t = two_hosts().finish().unwrap();
        t.nodes[2].name = "h0".into();
        let e = t.validate().unwrap_err();
        assert!(e.message.contains("duplicate node name \"h0\""), "{e}");
    }

    #[test]
    fn validate_refuses_hosts_without_links() {
        let mut b = two_hosts();
        b.node("lonely".into(), NodeKind::Host);
        let e = b.finish().unwrap_err();
        assert!(e.message.contains("host \"lonely\" has no link"), "{e}");
    }
}
