//! Flows as RDMA queue pairs (`queue_pair = true`): no handshake, data from the first instant,
//! the path's base RTT known at start.
//!
//! ```text
//!   a --100G, 1us-- sw --100G, 1us-- b
//! ```
//!
//! Protects: a queue pair's flow completes one round trip sooner than the same flow over a
//! TCP connection (no SYN / SYN-ACK), for a window law (HPCC, TCP) and a paced one (RCP at a
//! fixed rate); its first RTT sample is the path's; nothing changes for flows that do not ask.

mod common;

use fctlab_core::units::Time;
use serde_json::{json, Value};

fn one_flow(transport: Value) -> Value {
    json!({
        "duration": "1ms",
        "topology": {"kind": "graph",
                     "nodes": [{"name": "sw", "kind": "router"}, {"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
                     "links": [{"a": "a", "b": "sw", "rate": "100Gbps", "delay": "1us"},
                               {"a": "b", "b": "sw", "rate": "100Gbps", "delay": "1us"}]},
        "transport": transport,
        "workload": [{"kind": "flows", "flows": [{"src": "a", "dst": "b", "size": "20KB", "start": "0s"}]}],
    })
}

fn fct(transport: Value) -> Time {
    let w = common::run(one_flow(transport));
    let r = &w.records[0];
    r.finish.expect("completes") - r.start
}

#[test]
fn a_queue_pair_saves_the_handshake_round_trip() {
    let cases = [
        json!({"protocol": "hpcc", "line_rate": "100Gbps", "mss": 1000, "header": 48}),
        json!({"iw": 64, "mss": 1000}),
        json!({"protocol": "rcp", "fixed_rate": "50Gbps", "mss": 1000}),
    ];
    for t in cases {
        let mut qp = t.clone();
        qp["queue_pair"] = json!(true);
        let (tcp, rdma) = (fct(t.clone()), fct(qp));
        // The SYN / SYN-ACK round trip: 4 us of propagation and a little serialization.
        let saved = tcp.as_secs_f64() - rdma.as_secs_f64();
        assert!((4.0e-6..4.5e-6).contains(&saved), "{t}: {tcp} vs {rdma}");
    }
}

#[test]
fn a_queue_pairs_first_rtt_sample_is_the_paths() {
    // HPCC without base_rtt takes T from the first feedback: with a queue pair, the path's
    // propagation RTT (4 us); its window is then B x T = 50 KB, so a 20 KB flow leaves at once.
    let t = json!({"protocol": "hpcc", "line_rate": "100Gbps", "mss": 1000, "header": 48, "queue_pair": true});
    let w = common::run(one_flow(t));
    let r = &w.records[0];
    assert_eq!(r.rtt_prop, Time::from_us(4));
    // 20 packets of 1,048 B at 100 Gb/s, 2 hops of 1 us, the last ACK back: about 6.2 us.
    let fct = (r.finish.unwrap() - r.start).as_secs_f64();
    assert!(fct < 7.0e-6, "{fct}");
    assert_eq!(r.timeouts, 0);
}

#[test]
fn a_nic_serving_its_flows_round_robin_keeps_a_short_flow_from_waiting_behind_a_long_one() {
    // A 2 MB flow puts its whole 1,000-segment first window in a's NIC at t = 0; a 10 KB flow
    // from the same host starts 1 us later.
    let short_fct = |host_queue: Value| {
        let mut s = one_flow(json!({"iw": 1000, "mss": 1000, "queue_pair": true}));
        s["workload"][0]["flows"] = json!([
            {"src": "a", "dst": "b", "size": "2MB", "start": "0s"},
            {"src": "a", "dst": "b", "size": "10KB", "start": "1us"},
        ]);
        s["queues"] = json!({"host": host_queue});
        let w = common::run(s);
        let r = &w.records[1];
        (r.finish.unwrap() - r.start).as_secs_f64()
    };
    let fifo = short_fct(json!({"kind": "droptail"}));
    let rr = short_fct(json!({"kind": "round_robin"}));
    // Behind the FIFO: ~1,000 packets of 1,040 B at 100 Gb/s, 83 us. Round robin: every other
    // packet is the short flow's, 10 packets in ~1.7 us, plus the path.
    assert!(fifo > 80e-6, "{fifo}");
    assert!(rr < 6e-6, "{rr}");
}
