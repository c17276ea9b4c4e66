//! Go-back-N loss recovery of queue pairs (`transport.recovery`), end to end.
//!
//! ```text
//!   s0..s3 --100G, 1us-- sw --100G, 1us-- dst      (each host uplink loses 1% of its packets)
//!   s0..s7 --10G, 1us-- sw --10G, 1us-- dst         (incast on a lossless fabric, PFC)
//! ```
//!
//! Protects: over lossy links a queue pair completes with go-back-N and with selective repeat,
//! window and paced senders alike, every byte delivered, and go-back-N resends more than
//! selective repeat (everything from each hole); on a lossless fabric nothing is lost, so
//! go-back-N and selective repeat run the same flows to the picosecond; a TCP connection
//! refuses go-back-N.

mod common;

use fctlab_core::scenario;
use fctlab_core::world::World;
use serde_json::{json, Value};
use std::path::Path;

/// `n` senders to one receiver through one switch, links of `rate` and 1 us, each sending
/// `size` bytes at t = 0 with `transport`.
fn incast(n: usize, rate: &str, size: &str, transport: Value) -> Value {
    let mut nodes = vec![json!({"name": "sw", "kind": "router"}), json!({"name": "dst", "kind": "host"})];
    let mut links = vec![json!({"a": "dst", "b": "sw", "rate": rate, "delay": "1us"})];
    let mut flows = Vec::new();
    for i in 0..n {
        nodes.push(json!({"name": format!("s{i}"), "kind": "host"}));
        links.push(json!({"a": format!("s{i}"), "b": "sw", "rate": rate, "delay": "1us"}));
        flows.push(json!({"src": format!("s{i}"), "dst": "dst", "size": size, "start": "0s"}));
    }
    json!({
        "duration": "1ms",
        "max_time": "10s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "transport": transport,
        "workload": [{"kind": "flows", "flows": flows}],
    })
}

/// Four 1 MB queue pairs, every host uplink (data, and the receiver's ACKs and NACKs) losing
/// 1% of its packets.
fn lossy(transport: Value, recovery: &str) -> World {
    let mut t = transport;
    t["queue_pair"] = json!(true);
    t["recovery"] = json!(recovery);
    t["min_rto"] = json!("1ms");
    let mut s = incast(4, "100Gbps", "1MB", t);
    s["queues"] = json!({"router": {"kind": "droptail", "limit": "10MB"}});
    s["loss"] = json!([{"link": "hosts", "p": 0.01}]);
    common::run(s)
}

fn retx_bytes(w: &World) -> u64 {
    w.records.iter().map(|r| r.retx_bytes).sum()
}

#[test]
fn a_queue_pair_over_lossy_links_completes_with_either_recovery_go_back_n_resending_more() {
    let transports = [
        ("window", json!({"iw": 64, "mss": 1000})),
        ("hpcc", json!({"protocol": "hpcc", "line_rate": "100Gbps", "mss": 1000, "header": 48})),
        ("dcqcn", json!({"protocol": "dcqcn", "line_rate": "100Gbps", "mss": 1000})),
    ];
    for (name, t) in transports {
        let gbn = lossy(t.clone(), "go_back_n");
        let sel = lossy(t, "selective");
        for w in [&gbn, &sel] {
            assert!(w.counters.dropped_pkts > 0, "{name}: the links lose packets");
            for r in &w.records {
                assert!(r.finish.is_some() && r.acked().is_some(), "{name}: every flow completes");
                assert_eq!(r.delivered, 1_000_000, "{name}: every byte delivered");
            }
        }
        let (g, s) = (retx_bytes(&gbn), retx_bytes(&sel));
        assert!(s > 0 && g > 2 * s, "{name}: go-back-N resends {g} B, selective repeat {s} B");
    }
}

#[test]
fn on_a_lossless_fabric_go_back_n_and_selective_repeat_run_the_same_flows() {
    let run = |recovery: &str| {
        let t = json!({"iw": 64, "mss": 1000, "min_rto": "1ms", "queue_pair": true, "recovery": recovery});
        let mut s = incast(8, "10Gbps", "1MB", t);
        s["fabric"] = json!({"buffer": "300KB"});
        common::run(s)
    };
    let (gbn, sel) = (run("go_back_n"), run("selective"));
    assert_eq!(gbn.counters.dropped_pkts, 0, "lossless");
    assert_eq!(gbn.counters.sent_pkts, sel.counters.sent_pkts);
    for (a, b) in gbn.records.iter().zip(&sel.records) {
        assert_eq!((a.finish, a.acked(), a.retx_bytes, a.timeouts), (b.finish, b.acked(), b.retx_bytes, b.timeouts));
        assert_eq!((a.delivered, a.retx_bytes), (1_000_000, 0));
    }
}

#[test]
fn go_back_n_is_a_queue_pairs_and_nack_interval_go_back_ns() {
    let err = |t: Value| {
        let s = incast(1, "10Gbps", "10KB", t);
        scenario::build(&s.to_string(), Path::new(".")).map(|_| ()).unwrap_err().to_string()
    };
    let e = err(json!({"recovery": "go_back_n"}));
    assert!(e.contains("`transport.recovery`") && e.contains("queue_pair = true"), "{e}");
    let e = err(json!({"queue_pair": true, "recovery": "go-back-n"}));
    assert!(e.contains("expected \"go_back_n\" or \"selective\", got \"go-back-n\""), "{e}");
    let e = err(json!({"queue_pair": true, "recovery": "selective", "nack_interval": "100us"}));
    assert!(e.contains("`transport.nack_interval`") && e.contains("go_back_n"), "{e}");
    let e = err(json!({"nack_interval": "100us"}));
    assert!(e.contains("`transport.nack_interval`"), "{e}");
    let e = err(json!({"protocol": "rc3", "queue_pair": true}));
    assert!(e.contains("`transport.recovery`") && e.contains("selective"), "{e}");
    // Accepted: a queue pair's default, and selective repeat on either.
    for t in [json!({"queue_pair": true, "nack_interval": "100us"}), json!({"recovery": "selective"})] {
        let s = incast(1, "10Gbps", "10KB", t);
        assert!(scenario::build(&s.to_string(), Path::new(".")).is_ok());
    }
}
