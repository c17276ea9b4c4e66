//! The scenario schema (one place) and the build from a validated spec to a runnable [`World`].
//!
//! Python turns the TOML file into JSON; this module parses it with serde (unknown fields are
//! errors) through `serde_path_to_error`, so every error names the field path, the value and
//! what was expected. Field-by-field documentation lives in `docs/scenario.md`.
//!
//! [`build_spec`] runs the build steps in a fixed order (the order errors are reported in);
//! each step lives in the file of its concern:
//!
//! | file | concern |
//! |---|---|
//! | `mod.rs` | [`ScenarioSpec`], [`RoutingSpec`]; [`parse`], [`build`], and [`build_spec`]: topology, routes, then the steps below |
//! | `names.rs` | link names: [`resolve_link`], the unknown-link error |
//! | `queues.rs` | [`QueuesSpec`], [`QueueSpec`] (one port per kind); the links and their ports |
//! | `transports/` | [`TransportTable`] parsed into a [`Transport`] (the TCP part [`TcpPart`] and a protocol's keys from `protocol/keys.rs`), [`HostTransportSpec`]; the profiles and which flow gets which |
//! | `stack.rs` | [`Stack`], [`KernelKeys`] (parsed into a [`KernelStack`]): transports run by the kernel's TCP (`stack = "linux"`, emulation only) |
//! | `flows.rs` | the flow plan: arrivals, paths, propagation RTT and ideal FCT of every flow; the memory of flows and RC3 bursts |
//! | `fabric.rs` | [`FabricSpec`]: a lossless fabric of shared-buffer switches with PFC (`[fabric]`) |
//! | `losses.rs` | [`LossSpec`], [`DropSpec`]: random and scripted losses on links |
//! | `link_rates.rs` | [`LinkRateSpec`]: links whose rate changes at given times |
//! | `outputs.rs` | [`OutputSpec`], [`SeriesSpec`], [`PcapSpec`]: the series recorder and the memory of its rows, the capture plan |
//!
//! What the build hands down (profiles, flow plans, run limits, [`RunInfo`]) is defined below
//! this layer, in [`crate::plan`]: the protocols, the world and the tables take it from there,
//! and nothing but the crate's users imports this module.

mod fabric;
mod flows;
mod link_rates;
mod losses;
mod names;
mod outputs;
mod queues;
mod stack;
mod transports;

pub use crate::plan::{Common, KernelStack, RunInfo, KERNEL_IW, KERNEL_MSS};
pub use crate::protocol::keys::{Protocol, ProtocolKeys};
pub use fabric::{EcnSpec, FabricSpec};
pub use link_rates::LinkRateSpec;
pub use losses::{DropSpec, LossSpec};
pub use names::resolve_link;
pub use outputs::{OutputSpec, PcapSpec, SeriesSpec};
pub use queues::{QueueKind, QueueSpec, QueuesSpec};
pub use stack::KernelKeys;
pub use stack::{check_kernel_flows, kernel_stacks, refuse_in_simulation, Stack, KERNEL_MAX_FLOWS, KERNEL_PORT_BASE};
pub use transports::{AppSpec, DelayedAckSpec, HostTransportSpec, TcpPart, Transport, TransportTable};

use crate::error::{SpecError, SpecResult};
use crate::limits::{Memory, BYTES_PER_ROUTE_ENTRY};
use crate::plan::{Profile, RunLimits};
use crate::plugin::Loader;
use crate::quantity::TimeQ;
use crate::routing::{flow_hash, Routes, DENSE_LIMIT};
use crate::topology::{NodeKind, Topology, TopologySpec};
use crate::units::Time;
use crate::workload::{FlowArrival, WorkloadEntry};
use crate::world::World;
use flows::Planner;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use transports::{ProfileChoice, Profiles};

fn default_seed() -> u64 {
    1
}
fn yes() -> bool {
    true
}

/// A whole scenario: topology, queues, transports, workload, run limits, outputs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Free-form name, copied into the results.
    #[serde(default)]
    pub name: Option<String>,
    /// Free-form description.
    #[serde(default)]
    pub description: Option<String>,
    /// Seed of every random stream of the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Flow arrivals happen in [0, duration).
    pub duration: TimeQ,
    /// Keep running after `duration` until every finite flow completes (default true).
    #[serde(default = "yes")]
    pub drain: bool,
    /// Hard stop (default: duration + 300 s).
    #[serde(default)]
    pub max_time: Option<TimeQ>,
    /// Flows starting before this are not `measured` (warm-up), default 0.
    #[serde(default)]
    pub measure_from: Option<TimeQ>,
    /// The network.
    pub topology: TopologySpec,
    /// Routing options.
    #[serde(default)]
    pub routing: RoutingSpec,
    /// Queue disciplines of router ports and host NICs.
    #[serde(default)]
    pub queues: QueuesSpec,
    /// A lossless fabric: shared-buffer switches and PFC (none: per-port buffers that drop).
    #[serde(default)]
    pub fabric: Option<FabricSpec>,
    /// The default transport of every flow (parsed by [`Transport::resolve`]).
    #[serde(default)]
    pub transport: TransportTable,
    /// Named transports (each takes the keys it lacks from `transport`, as far as its protocol
    /// has them), chosen by `workload[i].transport`.
    #[serde(default)]
    pub transports: BTreeMap<String, TransportTable>,
    /// Flow sources.
    #[serde(deserialize_with = "crate::spec_de::tagged_vec")]
    pub workload: Vec<WorkloadEntry>,
    /// Transports chosen by source host (flows of entries without their own `transport`).
    #[serde(default)]
    pub host_transport: Vec<HostTransportSpec>,
    /// Random loss on links.
    #[serde(default)]
    pub loss: Vec<LossSpec>,
    /// Scheduled changes of link rates.
    #[serde(default)]
    pub link_rate: Vec<LinkRateSpec>,
    /// Optional outputs.
    #[serde(default)]
    pub output: OutputSpec,
    /// Run the network cut into partitions on several cores.
    #[serde(default)]
    pub parallel: Option<ParallelSpec>,
}

/// One run on several cores ([`crate::world::parallel`]): the network is cut into `partitions`,
/// which define the run's results; `threads` only share them out, and any number gives the
/// same bytes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParallelSpec {
    /// Partitions the network is cut into (1: the whole world, as without this table).
    pub partitions: u32,
    /// Threads that run them (default: one per partition, at most one per core).
    #[serde(default)]
    pub threads: Option<u32>,
}

/// Routing options.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// Spread flows over equal-cost paths by flow hash; unset, on for the topologies built
    /// with equal-cost paths ([`TopologySpec::multipath`]: fat tree, leaf-spine) and off for
    /// the others.
    #[serde(default)]
    pub ecmp: Option<bool>,
}

impl RoutingSpec {
    /// Whether routes spread flows over equal-cost paths on `topology`: `ecmp` if given, else
    /// the topology's default.
    pub fn ecmp_on(&self, topology: &TopologySpec) -> bool {
        self.ecmp.unwrap_or_else(|| topology.multipath())
    }
}

/// Parses a scenario from JSON; errors name the field path.
pub fn parse(json: &str) -> SpecResult<ScenarioSpec> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let (path, msg) = crate::spec_de::join_path(path, crate::spec_de::json_message(json, e.inner()));
        SpecError::new(path, msg)
    })
}

/// Builds the world of a scenario given as JSON; file paths are relative to `base_dir`.
pub fn build(json: &str, base_dir: &Path) -> SpecResult<(World, RunInfo)> {
    let spec = parse(json)?;
    build_spec(&spec, base_dir)
}

/// Builds the world of a parsed scenario.
pub fn build_spec(spec: &ScenarioSpec, base_dir: &Path) -> SpecResult<(World, RunInfo)> {
    let seed = spec.seed;
    let duration = spec.duration.0;
    if duration == Time::ZERO {
        return Err(SpecError::new("duration", "expected a duration > 0, got 0"));
    }
    let topo = spec.topology.build(base_dir, seed).map_err(|e| e.within("topology"))?;
    topo.validate().map_err(|e| e.within("topology"))?;
    let plugins = Loader::new(base_dir);
    let mut links = queues::build_links(&spec.queues, &topo, seed, &plugins)?;
    let profiles = Profiles::build(spec, &plugins)?;
    let largest_packet = profiles.list.iter().map(|p| p.packet_sizes()).map(|(m, h)| m + h).max().unwrap_or(0);
    let pulls = |p: &Profile| matches!(p, Profile::Paced { cfg, .. } if cfg.nic_pull);
    let pulled = profiles.list.iter().any(pulls);
    let fabric = fabric::build(spec.fabric.as_ref(), &topo, &mut links, largest_packet, pulled, seed)?;
    if fabric.is_none() {
        if let Some(i) = profiles.list.iter().position(pulls) {
            return Err(SpecError::new(
                format!("{}.nic_pull", profiles.paths[i]),
                "expected a [fabric] with it: the NIC hears a packet left at a lossless port, got none",
            ));
        }
    }
    if fabric.is_some() && spec.parallel.as_ref().is_some_and(|p| p.partitions > 1) {
        return Err(SpecError::new(
            "parallel.partitions",
            "a lossless fabric (`[fabric]`) runs whole: expected 1 partition, got more",
        ));
    }
    let nodes = Nodes::of(&topo);
    let arrivals = flows::arrivals(spec, &topo, &nodes, base_dir)?;
    // Routes towards the hosts flows send to (data) and from (ACKs) only.
    let ecmp = spec.routing.ecmp_on(&spec.topology);
    let routes = build_routes(&topo, ecmp, &arrivals, seed)?;
    let notices: Vec<String> = unused_paths(spec, &routes, &arrivals).into_iter().collect();
    let mut choice = ProfileChoice::build(spec, &profiles, &topo, &nodes)?;
    // Memory that grows with user numbers, estimated before it is allocated (crate::limits).
    let mut memory = flows::flow_memory(spec.workload.len(), &arrivals)?;
    let planner =
        Planner { topo: &topo, routes: &routes, names: &nodes.names, profiles: &profiles.list, seed, duration };
    let flows = planner.plan(arrivals, &mut choice)?;
    flows.check_app_writes()?;
    losses::apply_losses(&spec.loss, &topo, &flows.plans, &profiles.list, &mut links, seed)?;
    let rate_changes = link_rates::schedule(&spec.link_rate, &topo, &mut links)?;
    let max_time = spec.max_time.map_or(duration + Time::from_secs(300), |t| t.0);
    if max_time < duration {
        return Err(SpecError::new("max_time", format!("expected max_time >= duration ({duration}), got {max_time}")));
    }
    flows.largest_burst.add_to(&mut memory);
    flows.add_open_flows(&topo, spec.workload.len(), &mut memory);
    let end = outputs::RunEnd::of(duration, spec.drain, max_time);
    let series =
        outputs::build_series(&spec.output, &topo, &links, &flows.records, spec.workload.len(), end, &mut memory)?;
    let capture = outputs::build_pcap(&spec.output, &topo, &flows.records, spec.workload.len())?;
    memory.check()?;
    let packet_sizes = profiles.list.iter().map(Profile::packet_sizes).collect();
    let mut info = run_info(spec, &topo, nodes.names, profiles.labels, packet_sizes);
    info.notices = notices;
    let is_host = topo.nodes.iter().map(|n| n.kind == NodeKind::Host).collect();
    let limits = RunLimits { duration, drain: spec.drain, max_time };
    let mut world = World::new(
        links,
        is_host,
        routes,
        profiles.list,
        flows.plans,
        flows.records,
        flows.paths,
        limits,
        seed,
        series,
    );
    world.schedule_rate_changes(rate_changes);
    if let Some(f) = fabric {
        world.set_fabric(f);
    }
    world.plan_capture(capture);
    world.watch_plugins(plugins.fault_slot());
    if let Some(p) = &spec.parallel {
        if p.threads == Some(0) {
            return Err(SpecError::new("parallel.threads", "expected a whole number >= 1, got 0"));
        }
        // The cut is checked here, so that validating a scenario finds what running it would,
        // and so is the memory its partitions take beside the whole network.
        let cut = world.partition(p.partitions as usize).map_err(|e| SpecError::new(e.field, e.msg))?;
        let mut memory = Memory::new();
        let (links, nodes, flows) = (world.links.len() as u64, world.node_count() as u64, world.plans().len() as u64);
        crate::limits::partition_memory(&mut memory, cut.count as u64, links, nodes, flows);
        memory.check()?;
    }
    Ok((world, info))
}

/// Build step: the routes of `topo` that the flows of `arrivals` use: dense tables towards
/// the hosts they send to and from, refused before allocating if they would take too much
/// memory; or, when the tables would exceed [`DENSE_LIMIT`] entries, sparse rows that keep
/// only the entries on the flows' paths (memory linear in nodes and flows; `routing.rs`).
fn build_routes(topo: &Topology, ecmp: bool, arrivals: &[FlowArrival], seed: u64) -> SpecResult<Routes> {
    let used = arrivals.iter().flat_map(|a| [a.src, a.dst]);
    let entries = Routes::table_entries(topo, used.clone());
    let mut routing_memory = Memory::new();
    if entries <= DENSE_LIMIT {
        routing_memory.add(
            "topology",
            format!("its routing tables ({entries} entries)"),
            entries,
            BYTES_PER_ROUTE_ENTRY,
        );
        routing_memory.check()?;
        return Ok(Routes::compute_for(topo, ecmp, used));
    }
    // Flow f (in arrival order, as the planner numbers them) in both directions.
    let ways: Vec<(usize, usize, u64)> = arrivals
        .iter()
        .enumerate()
        .flat_map(|(f, a)| {
            let hash = flow_hash(f as u64, seed);
            [(a.src, a.dst, hash), (a.dst, a.src, hash)]
        })
        .collect();
    let routes = Routes::compute_sparse(topo, ecmp, &ways);
    let kept = routes.sparse_entries() as u64;
    routing_memory.add("topology", format!("its sparse routing rows ({kept} entries)"), kept, BYTES_PER_ROUTE_ENTRY);
    routing_memory.check()?;
    Ok(routes)
}

/// Build step: without ECMP, a notice of how many flows have a path through a node that had
/// another next hop on an equally short path (the routes kept the first:
/// [`Routes::passes_over_equal_cost`]), out of how many flows; `None` with ECMP or when no flow
/// does. Each flow counts once, in its data direction; one walk of its path, and none at all
/// when no route left a hop out.
fn unused_paths(spec: &ScenarioSpec, routes: &Routes, arrivals: &[FlowArrival]) -> Option<String> {
    if spec.routing.ecmp_on(&spec.topology) {
        return None;
    }
    let passing = arrivals.iter().filter(|a| routes.passes_over_equal_cost(a.src, a.dst)).count();
    if passing == 0 {
        return None;
    }
    let setting = match spec.routing.ecmp {
        Some(_) => "routing.ecmp = false".to_string(),
        None => format!("routing.ecmp unset, off for kind = \"{}\"", spec.topology.kind()),
    };
    Some(format!(
        "routing: single-path ({setting}) left equal-cost paths unused for {passing} of {} flows; set \
         routing.ecmp = true to spread them",
        arrivals.len()
    ))
}

/// What several build steps read of the topology's nodes.
struct Nodes {
    /// Node names by node id.
    names: Vec<String>,
    /// Node ids of all hosts.
    hosts: Vec<usize>,
    /// By node id: the router a host hangs from (routers: themselves).
    attach: Vec<usize>,
}

impl Nodes {
    fn of(topo: &Topology) -> Nodes {
        Nodes { names: topo.nodes.iter().map(|n| n.name.clone()).collect(), hosts: topo.hosts(), attach: topo.attach() }
    }
}

/// The names, labels and packet sizes of a built scenario.
fn run_info(
    spec: &ScenarioSpec,
    topo: &Topology,
    node_names: Vec<String>,
    profile_labels: Vec<String>,
    profile_packet_sizes: Vec<(u32, u32)>,
) -> RunInfo {
    let workload_labels = spec
        .workload
        .iter()
        .enumerate()
        .map(|(i, w)| w.label().map_or_else(|| format!("w{i}"), |s| s.to_string()))
        .collect();
    RunInfo {
        link_names: topo.links.iter().map(|l| l.name.clone()).collect(),
        link_delays: topo.links.iter().map(|l| l.delay).collect(),
        node_names,
        profile_labels,
        profile_packet_sizes,
        workload_labels,
        measure_from: spec.measure_from.map_or(Time::ZERO, |t| t.0),
        duration: spec.duration.0,
        seed: spec.seed,
        partitions: spec.parallel.as_ref().map_or(1, |p| p.partitions as usize),
        threads: spec.parallel.as_ref().and_then(|p| p.threads).map(|t| t as usize),
        notices: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routing(topology: &str, routing: &str) -> bool {
        let json = format!(
            r#"{{"duration": "1s", "topology": {topology}, "routing": {routing},
                "workload": [{{"kind": "poisson", "rate": 1, "sizes": {{"kind": "fixed", "size": 1}}}}]}}"#
        );
        let spec = parse(&json).unwrap_or_else(|e| panic!("{e}"));
        spec.routing.ecmp_on(&spec.topology)
    }

    #[test]
    fn ecmp_is_on_by_default_for_the_fabrics_only_and_an_explicit_value_wins() {
        let kinds = [
            (r#"{"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "1us"}"#, true),
            (r#"{"kind": "leaf_spine"}"#, true),
            (
                r#"{"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "1Gbps", "bottleneck_delay": "1ms"}"#,
                false,
            ),
            (r#"{"kind": "parking_lot", "bottlenecks": 2, "rate": "1Gbps", "delay": "1ms"}"#, false),
            (r#"{"kind": "internet2-rc3"}"#, false),
            (
                r#"{"kind": "graph", "nodes": [{"name": "r", "kind": "router"}, {"name": "h", "kind": "host"}],
                    "links": [{"a": "h", "b": "r", "rate": "1Gbps", "delay": "0"}]}"#,
                false,
            ),
        ];
        for (topology, default) in kinds {
            assert_eq!(routing(topology, "{}"), default, "{topology}");
            assert!(routing(topology, r#"{"ecmp": true}"#), "{topology}");
            assert!(!routing(topology, r#"{"ecmp": false}"#), "{topology}");
        }
        let e = parse(
            r#"{"duration": "1s", "topology": {"kind": "leaf_spine"}, "routing": {"ecmp": "yes"}, "workload": []}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "routing.ecmp");
        assert!(e.to_string().contains("yes"), "{e}");
    }
}
