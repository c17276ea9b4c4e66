//! ECMP's default by topology (on for the data-centre fabrics, off elsewhere, `routing.ecmp`
//! always wins) and the run's notice of equal-cost paths that single-path routing left unused.

use fctlab_core::scenario::{self, RunInfo};
use fctlab_core::world::World;
use serde_json::{json, Value};
use std::path::Path;

fn build(s: &Value) -> (World, RunInfo) {
    scenario::build(&s.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

/// Poisson flows of 20 KB between uniformly drawn host pairs (some under one switch, most
/// not) on `topology`, with `routing` as the scenario's routing table (`Value::Null`: none).
fn scenario(topology: Value, routing: Value) -> Value {
    let mut s = json!({
        "seed": 11,
        "duration": "20ms",
        "topology": topology,
        "transport": {"iw": 10},
        "workload": [{"kind": "poisson", "rate": 10000, "sizes": {"kind": "fixed", "size": 20000},
                      "pairs": {"kind": "uniform"}}],
    });
    if !routing.is_null() {
        s["routing"] = routing;
    }
    s
}

fn fat_tree_k4() -> Value {
    json!({"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us"})
}

/// Node name of a flow's source and destination.
fn ends(w: &World, info: &RunInfo, f: usize) -> (String, String) {
    let r = &w.records[f];
    (info.node_names[r.src as usize].clone(), info.node_names[r.dst as usize].clone())
}

/// Host number of a fat tree or leaf-spine host name ("h13" -> 13).
fn host_number(name: &str) -> usize {
    name.strip_prefix('h').and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("not a host: {name}"))
}

/// Packets sent on the links that leave each of the switches called `prefix{i}`, i < `count`.
fn packets_from(w: &World, info: &RunInfo, prefix: &str, count: usize) -> Vec<u64> {
    (0..count)
        .map(|i| {
            let from = format!("{prefix}{i}->");
            info.link_names
                .iter()
                .enumerate()
                .filter(|(_, n)| n.starts_with(&from))
                .map(|(l, _)| w.links[l].stats.pkts_sent)
                .sum()
        })
        .collect()
}

#[test]
fn a_fat_tree_without_ecmp_says_how_many_flows_left_equal_cost_paths_unused() {
    let (mut w, info) = build(&scenario(fat_tree_k4(), json!({"ecmp": false})));
    let flows = w.records.len();
    // Hosts h{2e} and h{2e+1} share edge switch e, the only path between them; every other
    // pair has two (same pod) or four (other pod) equal-cost paths.
    let spread = (0..flows)
        .filter(|&f| {
            let (s, d) = ends(&w, &info, f);
            host_number(&s) / 2 != host_number(&d) / 2
        })
        .count();
    assert!(flows > 100 && spread > 0 && spread < flows, "{spread} of {flows}: pairs of both kinds");
    assert_eq!(
        info.notices,
        [format!(
            "routing: single-path (routing.ecmp = false) left equal-cost paths unused for {spread} of {flows} flows; \
             set routing.ecmp = true to spread them"
        )]
    );
    // And so they are: every flow between pods crosses core0.
    w.run();
    let cores = packets_from(&w, &info, "core", 4);
    assert!(cores[0] > 0 && cores[1..] == [0, 0, 0], "packets out of each core: {cores:?}");
}

#[test]
fn a_fat_tree_spreads_flows_over_every_core_by_default() {
    let (mut w, info) = build(&scenario(fat_tree_k4(), Value::Null));
    assert!(info.notices.is_empty(), "{:?}", info.notices);
    w.run();
    let cores = packets_from(&w, &info, "core", 4);
    assert!(cores.iter().all(|&p| p > 0), "packets out of each core: {cores:?}");
    // `routing.ecmp = true` is the same run.
    let (mut explicit, _) = build(&scenario(fat_tree_k4(), json!({"ecmp": true})));
    explicit.run();
    assert_eq!(packets_from(&explicit, &info, "core", 4), cores);
}

#[test]
fn a_leaf_spine_spreads_flows_over_every_spine_by_default() {
    let topology = json!({"kind": "leaf_spine", "leaves": 4, "hosts_per_leaf": 4});
    let (mut w, info) = build(&scenario(topology.clone(), Value::Null));
    assert!(info.notices.is_empty(), "{:?}", info.notices);
    w.run();
    let spines = packets_from(&w, &info, "spine", 4);
    assert!(spines.iter().all(|&p| p > 0), "packets out of each spine: {spines:?}");

    let (mut single, info) = build(&scenario(topology, json!({"ecmp": false})));
    let flows = single.records.len();
    let between_racks = (0..flows)
        .filter(|&f| {
            let (s, d) = ends(&single, &info, f);
            host_number(&s) / 4 != host_number(&d) / 4
        })
        .count();
    assert!(between_racks > 0 && between_racks < flows);
    assert_eq!(info.notices.len(), 1);
    assert!(info.notices[0].contains(&format!("for {between_racks} of {flows} flows")), "{:?}", info.notices);
    single.run();
    assert_eq!(packets_from(&single, &info, "spine", 4)[1..], [0, 0, 0]);
}

#[test]
fn a_dumbbell_never_has_equal_cost_paths_to_report() {
    let topology = json!({"kind": "dumbbell", "hosts_per_side": 3, "bottleneck_rate": "1Gbps",
                          "bottleneck_delay": "1ms"});
    for routing in [Value::Null, json!({"ecmp": false}), json!({"ecmp": true})] {
        let (w, info) = build(&scenario(topology.clone(), routing.clone()));
        assert!(w.records.len() > 100);
        assert!(info.notices.is_empty(), "{routing}: {:?}", info.notices);
    }
}

#[test]
fn other_topologies_stay_single_path_by_default_and_say_so() {
    // The diamond a - r1 - {r2, r3} - r4 - b: two equal paths, single-path unless asked.
    let graph = json!({
        "kind": "graph",
        "nodes": [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"},
                  {"name": "r3", "kind": "router"}, {"name": "r4", "kind": "router"},
                  {"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "links": [{"a": "r1", "b": "r2", "rate": "1Gbps", "delay": "1ms"},
                  {"a": "r1", "b": "r3", "rate": "1Gbps", "delay": "1ms"},
                  {"a": "r2", "b": "r4", "rate": "1Gbps", "delay": "1ms"},
                  {"a": "r3", "b": "r4", "rate": "1Gbps", "delay": "1ms"},
                  {"a": "a", "b": "r1", "rate": "1Gbps", "delay": "0"},
                  {"a": "b", "b": "r4", "rate": "1Gbps", "delay": "0"}],
    });
    let (w, info) = build(&scenario(graph.clone(), Value::Null));
    let flows = w.records.len();
    assert_eq!(
        info.notices,
        [format!(
            "routing: single-path (routing.ecmp unset, off for kind = \"graph\") left equal-cost paths unused for \
             {flows} of {flows} flows; set routing.ecmp = true to spread them"
        )]
    );
    let (_, info) = build(&scenario(graph, json!({"ecmp": true})));
    assert!(info.notices.is_empty());
}
