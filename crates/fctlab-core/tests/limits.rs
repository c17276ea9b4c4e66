//! Scenarios at the edges of the core's integers (crates/fctlab-core/src/limits.rs): sums of
//! valid values that would overflow are refused or saturate, never wrap; values a narrower
//! integer cannot hold are refused, never truncated.

mod common;

use fctlab_core::error::SpecError;
use fctlab_core::scenario;
use fctlab_core::units::Time;
use serde_json::{json, Value};
use std::path::Path;

fn build_err(s: &Value) -> SpecError {
    match scenario::build(&s.to_string(), Path::new(".")) {
        Ok(_) => panic!("expected an error for {s}"),
        Err(e) => e,
    }
}

/// A dumbbell whose links all run at `rate`, with one flow of `size` bytes (or a long-lived one).
fn one_flow(rate: &str, size: Option<&str>, transport: Value) -> Value {
    let workload = match size {
        Some(size) => json!([{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": size}]}]),
        None => json!([{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": 0}]}]),
    };
    json!({
        "duration": "1000000s",
        "max_time": "1000000s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": rate,
                     "bottleneck_delay": "1ms", "access_rate": rate},
        "transport": transport,
        "workload": workload,
    })
}

#[test]
fn a_header_beyond_64_kib_is_refused_not_wrapped() {
    // 2^32 + 40 used to become a 40-byte header.
    let e = build_err(&one_flow("1Gbps", Some("1MB"), json!({"header": 4_294_967_336u64})));
    assert_eq!(e.field, "transport.header");
    assert!(e.message.contains("expected a header <= 65536 B (64 KiB), got 4294967336"), "{e}");
    let e = build_err(&one_flow("1Gbps", Some("1MB"), json!({"protocol": "rcp", "header": "1MB"})));
    assert!(e.field == "transport.header" && e.message.contains("got 1000000"), "{e}");
}

#[test]
fn path_delays_that_add_up_beyond_the_clock_are_refused() {
    // 20 hops of 1e6 s each way: 4e19 ps of round trip, more than 2^64.
    let s = json!({
        "duration": "1s",
        "topology": {"kind": "parking_lot", "bottlenecks": 20, "rate": "1Gbps", "delay": "1000000s"},
        "workload": [{"kind": "flows", "flows": [{"src": "long_src0", "dst": "long_dst0", "start": 0, "size": 1000}]}],
    });
    let e = build_err(&s);
    assert_eq!(e.field, "workload[0]");
    assert!(e.message.contains("flow 0 from \"long_src0\" to \"long_dst0\": its paths' propagation delays"), "{e}");
    assert!(e.message.contains("more than 2^64 ps"), "{e}");
}

#[test]
fn an_ideal_fct_beyond_the_clock_is_refused_not_truncated() {
    // 1e12 B at 1 bit/s is 8e12 s: it used to be cut to its low 64 bits of picoseconds.
    let e = build_err(&one_flow("1", Some("1e12"), json!({})));
    assert_eq!(e.field, "workload[0]");
    assert!(e.message.contains("its ideal FCT at the bottleneck's 1bps is more than 2^64 ps"), "{e}");
}

#[test]
fn flows_beyond_two_to_the_32_segments_are_refused() {
    let e = build_err(&one_flow("1Gbps", Some("10000GB"), json!({"mss": 1000})));
    assert!(e.field == "workload[0]" && e.message.contains("10000000000 segments of 1000 B"), "{e}");
    assert!(e.message.contains("expected at most 4294967295 (2^32 - 1) segments per flow, 4294967295000 B"), "{e}");
    // A long-lived flow at 100 Gb/s for 1e6 s could send 8.6e12 segments of 1460 B.
    let e = build_err(&one_flow("100Gbps", None, json!({})));
    assert!(e.message.contains("long-lived at up to 100000000000bps until 1000000.000000000s, it can send"), "{e}");
}

#[test]
fn rc3_flows_whose_low_priority_burst_exceeds_the_memory_bound_are_refused() {
    let rc3 = json!({"protocol": "rc3"});
    let e = build_err(&one_flow("1Gbps", Some("100GB"), rc3.clone()));
    assert_eq!(e.field, "workload[0]");
    assert!(e.message.contains("RC3 flow 0's 68493151 segments (queued at once"), "{e}");
    assert!(e.message.contains("would take about 20.4 GiB"), "{e}");
    // 10 GB is 6.8e6 segments, about 2 GiB: allowed.
    assert!(scenario::build(&one_flow("1Gbps", Some("10GB"), rc3).to_string(), Path::new(".")).is_ok());
}

#[test]
fn a_run_whose_nic_queue_passes_the_clock_ends_at_max_time_with_packets_conserved() {
    // Ten flows of 2 MB from one host behind a 1 bit/s NIC, each sending its whole flow at once:
    // each alone serializes in 1.6e7 s (its ideal FCT fits the clock), together in 1.6e8 s,
    // beyond 2^64 ps (1.8e7 s); those departures saturate at "never" (net/link.rs tests).
    let flows: Vec<Value> =
        (0..10).map(|i| json!({"src": "l0", "dst": "r0", "start": format!("{i}ms"), "size": "2MB"})).collect();
    let mut s = one_flow("1Gbps", None, json!({"iw": 2000}));
    s["workload"] = json!([{"kind": "flows", "flows": flows}]);
    s["duration"] = json!("1s");
    s["max_time"] = json!("100000s");
    s["topology"]["access_rate"] = json!("1");
    s["queues"] = json!({"host": {"kind": "prio"}});
    let mut w = common::world(&s);
    let mut last = Time::ZERO;
    for k in 1..=100 {
        w.run_until(Time::from_secs(1000 * k));
        assert!(w.now() >= last, "time went back from {last} to {}", w.now());
        last = w.now();
    }
    assert!(w.is_finished() && w.now() <= Time::from_secs(100_000), "{}", w.now());
    assert!(w.records.iter().all(|r| r.finish.is_none()));
    let c = &w.counters;
    let (q_pkts, _) = w.packets_in_network();
    assert_eq!(c.sent_pkts, c.delivered_pkts + c.dropped_pkts + q_pkts);
}

#[test]
fn a_scripted_drop_beyond_the_segment_numbers_is_refused_not_wrapped() {
    let mut s = one_flow("1Gbps", Some("1MB"), json!({}));
    s["loss"] = json!([{"link": "bottleneck", "drop": [{"flow": 0, "segment": 12_633_823_931_371_300_865u64}]}]);
    let e = build_err(&s);
    assert_eq!(e.field, "loss[0].drop[0].segment");
    assert!(e.message.contains("expected a segment <= 4294967295 (2^32 - 1), got 12633823931371300865"), "{e}");
}

#[test]
fn rcp_queues_refuse_links_faster_than_their_rate_field() {
    let mut s = one_flow("5Tbps", Some("1MB"), json!({"protocol": "rcp"}));
    s["queues"] = json!({"router": {"kind": "rcp"}});
    let e = build_err(&s);
    assert_eq!(e.field, "queues.router.kind");
    assert!(e.message.contains("an rcp queue on a 5000000000000bps link: expected links of at most 4.29 Tbps"), "{e}");
    s["topology"]["bottleneck_rate"] = json!("4Tbps");
    s["topology"]["access_rate"] = json!("4Tbps");
    assert!(scenario::build(&s.to_string(), Path::new(".")).is_ok());
}

#[test]
fn an_internet2_core_rate_scaled_beyond_the_largest_rate_is_refused() {
    let s = json!({
        "duration": "1s",
        "topology": {"kind": "internet2-rc3", "core_rate_scale": 1e9},
        "workload": [{"kind": "poisson", "load": 0.1, "sizes": {"kind": "fixed", "size": 1000}}],
    });
    let e = build_err(&s);
    assert_eq!(e.field, "topology.core_rate_scale");
    assert!(e.message.contains("expected core rates <= 1e15 bit/s"), "{e}");
}

/// A graph of `hosts` hosts, each multi-homed to two routers: every host is a destination group
/// of its own and a transit column, so routing needs (hosts flows use) x (hosts + 2) entries.
/// With `all`, Poisson flows between random pairs use nearly every host; else one flow.
fn multi_homed(hosts: usize, all: bool) -> Value {
    let mut nodes = vec![json!({"name": "r0", "kind": "router"}), json!({"name": "r1", "kind": "router"})];
    let mut links = vec![json!({"a": "r0", "b": "r1", "rate": "1Gbps", "delay": "1ms"})];
    for h in 0..hosts {
        nodes.push(json!({"name": format!("h{h}"), "kind": "host"}));
        for r in ["r0", "r1"] {
            links.push(json!({"a": format!("h{h}"), "b": r, "rate": "1Gbps", "delay": "1ms"}));
        }
    }
    let workload = if all {
        json!([{"kind": "poisson", "rate": 200_000, "sizes": {"kind": "fixed", "size": 1000},
                "pairs": {"kind": "uniform"}}])
    } else {
        json!([{"kind": "flows", "flows": [{"src": "h0", "dst": "h1", "start": 0, "size": 1000}]}])
    };
    json!({"duration": "1s", "topology": {"kind": "graph", "nodes": nodes, "links": links}, "workload": workload})
}

#[test]
fn routing_tables_beyond_the_dense_limit_become_sparse_rows_that_run() {
    // 6,000 multi-homed hosts, flows to nearly all of them: 6,000 rows of 6,002 entries, 36
    // million in all (the dense limit is 2^24), used to be refused for its memory (and before
    // that, at 50,000 hosts, to abort the process). Sparse rows keep the entries on the flows'
    // paths only, and the run forwards every packet.
    let mut s = multi_homed(6_000, true);
    s["duration"] = json!("0.05s");
    let (mut world, _) = scenario::build(&s.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    assert!(world.records.len() > 5_000, "{} flows", world.records.len());
    world.run_until(Time::from_secs(1));
    assert!(world.records.iter().all(|r| r.finish.is_some()), "every flow completes");
    assert_eq!(world.counters.dropped_pkts, 0, "no packet lacks a route");
}

#[test]
fn routing_memory_follows_the_hosts_flows_use() {
    // The same 50,000 hosts with one flow: two rows of 50,002 entries.
    let (mut world, _) = scenario::build(&multi_homed(50_000, false).to_string(), Path::new(".")).expect("builds");
    world.run_until(Time::from_secs(1));
    assert!(world.records[0].finish.is_some());
}

#[test]
fn a_huge_initial_window_is_refused_by_the_memory_estimate() {
    // iw = 2^32 - 1 sends a long-lived flow's whole write at once: 4e9 packets at the host
    // (the process used to abort on a 4 GiB allocation).
    let mut s = one_flow("1Gbps", None, json!({"iw": 4_294_967_295u64}));
    s["duration"] = json!("10s");
    s["max_time"] = json!("20s");
    let e = build_err(&s);
    assert_eq!(e.field, "workload[0]");
    assert!(e.message.contains("flow 0's initial window (iw = 4294967295): 4294967295 segments queued at once"), "{e}");
    // A finite flow's burst is at most its segments: 1 MB is 685 of them, whatever the iw.
    assert!(scenario::build(
        &one_flow("1Gbps", Some("1MB"), json!({"iw": 4_294_967_295u64})).to_string(),
        Path::new(".")
    )
    .is_ok());
}

#[test]
fn a_topology_beyond_the_memory_estimate_is_refused_before_it_is_built() {
    // 10 routers x 10^5 hosts is 1,000,010 nodes (under the 2^20 node limit) and 2,000,032 links
    // (about 2 GB); 2^20 nodes of a fat tree's k = 160 would be 1.5 x 10^7 links.
    let s = json!({
        "duration": "1ms",
        "topology": {"kind": "fat_tree", "k": 160, "rate": "1Gbps", "delay": "1us"},
        "workload": [{"kind": "flows", "flows": [{"src": "h0", "dst": "h1", "start": 0, "size": 1000}]}],
    });
    let e = build_err(&s);
    assert_eq!(e.field, "topology.k");
    assert!(e.message.contains("160 gives 1056000 nodes"), "{e}");
}

#[test]
fn a_dumbbell_of_20000_hosts_per_side_builds_and_runs() {
    let s = json!({
        "duration": "1ms",
        "topology": {"kind": "dumbbell", "hosts_per_side": 20000, "bottleneck_rate": "1Gbps", "bottleneck_delay": "1ms"},
        "workload": [{"kind": "flows", "flows": [{"src": "l19999", "dst": "r7", "start": 0, "size": 10000}]}],
    });
    let (mut world, _) = scenario::build(&s.to_string(), Path::new(".")).expect("builds");
    world.run_until(Time::from_secs(10));
    assert!(world.records[0].finish.is_some(), "the flow across it completes");
}

#[test]
fn scheduled_writes_beyond_the_limit_are_refused_with_the_estimate() {
    // 1-byte chunks of a 10 GB flow: 1e10 writes, each an event (a run that would not end).
    let app = json!({"app": {"kind": "scheduled", "initial": 0, "chunk": 1, "interval": "1ps"}});
    let e = build_err(&one_flow("1Gbps", Some("10GB"), app));
    assert_eq!(e.field, "workload[0]");
    assert!(e.message.contains("would make 10000000001 writes"), "{e}");
    assert!(e.message.contains("expected at most 1000000000 per run"), "{e}");
    // 1 KB chunks of the same flow: 1e7 writes, allowed however short the interval.
    let app = json!({"app": {"kind": "scheduled", "initial": 0, "chunk": "1KB", "interval": "1ps"}});
    assert!(scenario::build(&one_flow("1Gbps", Some("10GB"), app).to_string(), Path::new(".")).is_ok());
}
