//! Whole-run invariants on a loaded dumbbell: every flow completes, packets are conserved,
//! and runs are deterministic for a seed.
//!
//! ```text
//!   l0..l9 --10G-- rl ==1G,20ms, 100-packet buffer== rr --10G-- r0..r9
//! ```

mod common;

use fctlab_core::world::World;
use serde_json::json;

fn loaded(seed: u64, cc: &str) -> World {
    let s = json!({
        "seed": seed,
        "duration": "2s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 10, "bottleneck_rate": "1Gbps",
                     "bottleneck_delay": "20ms", "access_rate": "10Gbps"},
        "queues": {"router": {"kind": "droptail", "limit_packets": 100}},
        "transport": {"iw": 10, "cc": cc},
        "workload": [{"kind": "poisson", "load": 0.7, "load_on": "bottleneck",
                      "sizes": {"kind": "cdf", "name": "rc3-internet"}}],
    });
    let mut w = common::world(&s);
    w.run();
    w
}

fn check_conservation(w: &World) {
    assert!(w.records.len() > 500, "enough flows to load the link: {}", w.records.len());
    assert!(w.records.iter().all(|r| r.finish.is_some()), "every flow completes");
    assert!(w.records.iter().all(|r| r.delivered == r.size.unwrap()), "every byte is delivered");
    let c = &w.counters;
    assert!(c.dropped_pkts > 0, "the buffer must overflow for the test to mean something");
    assert_eq!(w.packets_in_network(), (0, 0), "the network is empty at the end");
    assert_eq!(c.sent_pkts, c.delivered_pkts + c.dropped_pkts);
    assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes);
    let link_drops: u64 = w.links.iter().map(|l| l.stats.drops_pkts + l.stats.lost_pkts).sum();
    assert_eq!(link_drops, c.dropped_pkts, "every drop happens at some link");
}

#[test]
fn newreno_under_load_completes_every_flow_and_conserves_packets() {
    check_conservation(&loaded(1, "newreno"));
}

#[test]
fn cubic_under_load_completes_every_flow_and_conserves_packets() {
    check_conservation(&loaded(1, "cubic"));
}

#[test]
fn same_seed_same_run_other_seed_other_run() {
    let key = |w: &World| -> Vec<(u64, Option<u64>, u64)> {
        w.records.iter().map(|r| (r.start.0, r.finish.map(|f| f.0), r.retx_bytes)).collect()
    };
    let a = loaded(7, "newreno");
    let b = loaded(7, "newreno");
    let c = loaded(8, "newreno");
    assert_eq!(key(&a), key(&b));
    assert_eq!(a.counters.packet_hops, b.counters.packet_hops);
    assert_ne!(key(&a), key(&c));
}

/// Random and scripted loss on the bottleneck, behind a FIFO port or a qdisc port (whose
/// packets go on the wire when the serializer frees up, not at admission).
fn lossy(queue: serde_json::Value) -> World {
    let s = json!({
        "seed": 3,
        "duration": "1s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "1Gbps",
                     "bottleneck_delay": "5ms", "access_rate": "10Gbps"},
        "queues": {"router": queue},
        "transport": {"iw": 10},
        "workload": [{"kind": "poisson", "load": 0.5, "load_on": "bottleneck",
                      "sizes": {"kind": "cdf", "name": "rc3-internet"}}],
        "loss": [{"link": "bottleneck", "p": 0.01,
                  "drop": [{"flow": 0, "segment": 1}, {"flow": 1, "segment": 2}]}],
    });
    let mut w = common::world(&s);
    w.run();
    w
}

fn check_loss_is_counted(w: &World) {
    let c = &w.counters;
    let lost: u64 = w.links.iter().map(|l| l.stats.lost_pkts).sum();
    let lost_bytes: u64 = w.links.iter().map(|l| l.stats.lost_bytes).sum();
    assert!(lost > 10, "the link must lose packets for the test to mean something: {lost}");
    let (q_pkts, q_bytes) = w.packets_in_network();
    assert_eq!(c.sent_pkts, c.delivered_pkts + c.dropped_pkts + q_pkts, "sent = delivered + dropped + in network");
    assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes + q_bytes);
    let queue_drops: u64 = w.links.iter().map(|l| l.stats.drops_pkts).sum();
    let queue_drop_bytes: u64 = w.links.iter().map(|l| l.stats.drops_bytes).sum();
    assert_eq!(c.dropped_pkts, queue_drops + lost, "every drop happens at some link");
    assert_eq!(c.dropped_bytes, queue_drop_bytes + lost_bytes);
}

#[test]
fn random_and_scripted_loss_behind_a_fifo_port_are_counted_as_drops() {
    check_loss_is_counted(&lossy(json!({"kind": "droptail", "limit_packets": 100})));
}

#[test]
fn random_and_scripted_loss_behind_a_qdisc_port_are_counted_as_drops() {
    check_loss_is_counted(&lossy(json!({"kind": "prio", "limit_packets": 100})));
}
