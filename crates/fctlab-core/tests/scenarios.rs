//! Small end-to-end runs of each topology and application model.

mod common;

use fctlab_core::units::Time;
use fctlab_core::world::World;
use serde_json::json;

use common::run;

/// ```text
///   l0, l1 --10G-- rl ==100M,10ms== rr --10G-- r0, r1
/// ```
/// Two long-lived flows share the bottleneck: together they fill it, and neither starves.
#[test]
fn long_lived_flows_fill_the_bottleneck_and_share_it() {
    let w = run(json!({
        "duration": "20s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "10Gbps"},
        "queues": {"router": {"kind": "droptail", "limit": "250KB"}},
        "workload": [{"kind": "long_lived", "flows": [
            {"src": "l0", "dst": "r0", "start": "0s", "stop": "20s"},
            {"src": "l1", "dst": "r1", "start": "0s", "stop": "20s"}]}],
    }));
    let a = w.records[0].delivered as f64;
    let b = w.records[1].delivered as f64;
    let capacity = 100e6 / 8.0 * 20.0 * 1460.0 / 1500.0;
    assert!((a + b) / capacity > 0.9, "utilization {}", (a + b) / capacity);
    assert!(a.min(b) / a.max(b) > 0.5, "shares {a} and {b}");
    assert!(w.records.iter().all(|r| r.finish.is_none() && r.stopped));
}

/// A long-lived flow without `stop` stops at the duration: a drained run ends soon after, even
/// with RCP routers, whose control ticks never let the event queue run dry.
#[test]
fn long_lived_flows_without_stop_end_at_the_duration() {
    for (protocol, queue) in [("tcp", "droptail"), ("rcp", "rcp")] {
        let w = run(json!({
            "duration": "1s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                         "bottleneck_delay": "5ms"},
            "queues": {"router": {"kind": queue}},
            "transport": {"protocol": protocol},
            "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s"}]}],
        }));
        assert!(w.records[0].stopped, "{protocol}: the flow stopped");
        // Then the packets in flight reach their hosts (with the repairs their ACKs trigger).
        assert!(w.now() < Time::from_secs(3), "{protocol}: the run went on to {}", w.now());
    }
}

/// A k = 4 fat tree with ECMP: every inter-pod flow completes.
#[test]
fn fat_tree_with_ecmp_completes_every_flow() {
    let w = run(json!({
        "duration": "0.2s",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us"},
        "routing": {"ecmp": true},
        "queues": {"router": {"kind": "droptail", "limit_packets": 200}},
        "transport": {"iw": 10, "min_rto": "10ms"},
        "workload": [{"kind": "poisson", "load": 0.3, "sizes": {"kind": "cdf", "name": "websearch"}}],
    }));
    assert!(w.records.len() > 100);
    assert!(w.records.iter().all(|r| r.finish.is_some()));
    // ECMP spreads the load: both core-facing uplinks of the first edge switch carry traffic.
    let used = w.links.iter().filter(|l| l.stats.pkts_sent > 0).count();
    assert!(used as f64 > 0.9 * w.links.len() as f64, "{used} of {} links used", w.links.len());
}

/// A parking lot of three hops with long and cross traffic.
#[test]
fn parking_lot_runs_long_and_cross_traffic() {
    let w = run(json!({
        "duration": "1s",
        "topology": {"kind": "parking_lot", "bottlenecks": 3, "rate": "1Gbps", "delay": "5ms",
                     "access_rate": "10Gbps", "access_delay": "0s"},
        "queues": {"router": {"kind": "droptail", "limit": "1MB"}},
        "workload": [
            {"kind": "poisson", "load": 0.2, "load_on": "hop0", "sizes": {"kind": "fixed", "size": 100000}},
            {"kind": "poisson", "load": 0.2, "load_on": "hop1", "sizes": {"kind": "fixed", "size": 100000},
             "pairs": {"kind": "uniform", "src": "cross1_src", "dst": "cross1_dst"}}],
    }));
    assert!(w.records.iter().all(|r| r.finish.is_some()));
    let long = w.records.iter().find(|r| r.workload == 0).unwrap();
    let cross = w.records.iter().find(|r| r.workload == 1).unwrap();
    // Long flows cross 3 hops of 5 ms, cross flows one: 2 x (3 x 5) vs 2 x 5 ms of propagation.
    assert_eq!(long.rtt_prop, Time::from_ms(30));
    assert_eq!(cross.rtt_prop, Time::from_ms(10));
}

/// Delayed ACKs halve the ACKs of a bulk transfer and the flow still completes.
#[test]
fn delayed_acks_send_about_one_ack_per_two_segments() {
    let flows = json!([{"src": "l0", "dst": "r0", "start": 0, "size": 1460 * 1000}]);
    let mut every = common::dumbbell(flows.clone(), json!({"iw": 10}), 10_000);
    let mut delayed =
        common::dumbbell(flows, json!({"iw": 10, "delayed_ack": {"count": 2, "timeout": "40ms"}}), 10_000);
    every["duration"] = json!("1s");
    delayed["duration"] = json!("1s");
    let a = run(every);
    let b = run(delayed);
    // Node 1 is the right-hand router, node 0 the left: the reverse bottleneck carries the ACKs.
    let acks = |w: &World| w.links.iter().find(|l| l.from == 1 && l.to == 0).map(|l| l.stats.pkts_sent).unwrap();
    assert!(b.records[0].finish.is_some());
    let ratio = acks(&b) as f64 / acks(&a) as f64;
    assert!((0.45..0.6).contains(&ratio), "ACK ratio {ratio}");
}

/// A scheduled writer (1.5 MB, then 64 KB every 100 ms) finishes after its last write.
#[test]
fn scheduled_writes_end_after_the_last_write() {
    let flows = json!([{"src": "l0", "dst": "r0", "start": 0, "size": 1_500_000 + 10 * 65_536}]);
    let mut s = common::dumbbell(
        flows,
        json!({"iw": 10, "app": {"kind": "scheduled", "initial": "1.5MB",
        "chunk": "64KiB", "interval": "100ms"}}),
        10_000,
    );
    s["duration"] = json!("5s");
    let w = run(s);
    let fct = w.records[0].fct().unwrap();
    // The tenth 64 KB write happens at 1.0 s; it is delivered about half an RTT (plus
    // serialization) later.
    assert!(fct > Time::from_ms(1000) && fct < Time::from_ms(1100), "{fct}");
}

/// `initial = 0` is a valid request: nothing at start, the first 1 KB chunk one interval (0.8 ms)
/// later. 100 chunks: the last is written at 80 ms. Each chunk leaves as a segment of its own
/// and the window counts segments (IW 10, then slow start), so the 100 segments take four
/// round trips of 40 ms after the handshake: the flow ends at 180 ms, as with `initial = 1024`.
/// Before, the flow delivered nothing and never finished.
#[test]
fn a_scheduled_writer_without_an_initial_write_sends_its_chunks() {
    let flows = json!([{"src": "l0", "dst": "r0", "start": 0, "size": 102_400},
                       {"src": "l1", "dst": "r1", "start": "1ms", "size": 102_400}]);
    let mut s = common::dumbbell(
        flows,
        json!({"iw": 10, "app": {"kind": "scheduled", "initial": 0, "chunk": 1024, "interval": "0.8ms"}}),
        10_000,
    );
    s["duration"] = json!("1s");
    let w = run(s);
    for r in &w.records {
        let fct = r.fct().expect("the flow completes");
        assert_eq!(r.delivered, 102_400);
        assert!(fct > Time::from_ms(160) && fct < Time::from_ms(200), "{fct}");
    }
}
