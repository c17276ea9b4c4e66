//! RC3 end to end: the paper's walk-through (sec. 2.2) and RC3 against TCP on an idle path.
//!
//! ```text
//!   l0 --12 Mb/s, 0 ms-- rl ==1 Gb/s, 25 ms== rr --1 Gb/s-- r0
//! ```
//! The sender's access link is the bottleneck: 1 ms per 1500-byte packet, a 50 ms round trip,
//! so 50 packets fill a round trip (the walk-through's "edge-limited delay-bandwidth product of
//! 50 packets"). Every port is a strict-priority queue.

mod common;

use fctlab_core::units::Time;
use fctlab_core::world::World;
use serde_json::json;

const MSS: u64 = 1460;

fn edge_limited(protocol: &str, segments: u64, iw: u64, drops: serde_json::Value) -> World {
    let s = json!({
        "duration": "10s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "1Gbps",
                     "bottleneck_delay": "25ms", "access_rate": "1Gbps", "access_delay": "0s"},
        "queues": {"router": {"kind": "prio", "limit": "5MB"}, "host": {"kind": "prio"},
                   "links": {"l0->rl": {"kind": "prio"}}},
        "transport": {"protocol": protocol, "iw": iw},
        "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": segments * MSS}]}],
        "loss": [{"link": "bottleneck", "drop": drops}],
    });
    let mut s = s;
    // 12 Mb/s on the sender's uplink only: 1500 B take 1 ms.
    s["topology"] = json!({"kind": "graph",
        "nodes": [{"name": "l0", "kind": "host"}, {"name": "rl", "kind": "router"},
                  {"name": "rr", "kind": "router"}, {"name": "r0", "kind": "host"}],
        "links": [{"a": "l0", "b": "rl", "rate": "12Mbps", "delay": "0s"},
                  {"a": "rl", "b": "rr", "rate": "1Gbps", "delay": "25ms", "name": "bottleneck"},
                  {"a": "rr", "b": "r0", "rate": "1Gbps", "delay": "0s"}]});
    s["queues"]["links"] = json!({});
    let mut w = common::world(&s);
    w.run();
    w
}

/// Sec. 2.2: 66 packets, a 50-packet round trip, the 21st and 22nd (sent at priority 2 by the
/// low-priority loop) dropped. Round 1: 4 packets at P0 and 46 at low priority; round 2: TCP
/// sends 8 at P0 while the NIC drains the rest of the low-priority packets; round 3: every
/// packet but the two holes is acknowledged, and TCP sends exactly those two; round 4: they
/// are acknowledged.
#[test]
fn walk_through_completes_in_four_round_trips_with_two_retransmissions() {
    let w = edge_limited("rc3", 66, 4, json!([{"flow": 0, "segment": 21}, {"flow": 0, "segment": 22}]));
    let r = &w.records[0];
    assert_eq!(r.retx_bytes, 2 * MSS, "exactly the two holes are sent again");
    assert_eq!(r.timeouts, 0);
    let rtt = Time::from_ms(50);
    let fct = r.fct().expect("completes");
    // Rounds are counted after the handshake's round trip: round k spans [k, k + 1) RTTs from
    // the start. The holes are sent again early in round 3 and reach the receiver within it
    // (the FCT); their ACKs, half a round trip later, reach the sender in round 4.
    let last_ack = fct + Time(rtt.0 / 2);
    assert!(fct > rtt.times(3) && fct < rtt.times(4), "FCT {fct}");
    assert!(last_ack >= rtt.times(4) && last_ack < rtt.times(5), "last ACK at {last_ack}");
}

/// On an idle path RC3 is never slower than TCP, whatever the flow size.
#[test]
fn rc3_is_never_slower_than_tcp_on_an_idle_path() {
    for segments in [1u64, 2, 4, 5, 10, 30, 49, 50, 51, 66, 100, 200, 500, 1000, 2107] {
        let tcp = edge_limited("tcp", segments, 4, json!([])).records[0].fct().unwrap();
        let rc3 = edge_limited("rc3", segments, 4, json!([])).records[0].fct().unwrap();
        assert!(rc3 <= tcp, "{segments} segments: RC3 {rc3} > TCP {tcp}");
        if segments > 4 {
            // TCP needs a second round for anything beyond its initial window; RC3 does not.
            let saved = tcp - rc3;
            assert!(saved > Time::from_ms(45), "{segments} segments: RC3 saves only {saved}");
        }
    }
}
