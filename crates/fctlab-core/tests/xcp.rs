//! XCP end to end: long-lived flows converge to max-min fair shares with the queue near zero.

mod common;

use serde_json::json;

use common::run;

/// ```text
///   l0..l3 --1G-- rl ==100M, 10 ms, XCP== rr --1G-- r0..r3
/// ```
#[test]
fn long_lived_flows_share_a_dumbbell_equally_with_an_empty_queue() {
    let downlinks: Vec<String> = (0..4).map(|i| format!("rr->r{i}")).collect();
    let w = run(common::staggered_dumbbell(json!({"kind": "xcp", "limit": "2MB"}), json!({"protocol": "xcp"}), 15.0));
    let total = common::series_mean(&w, "throughput_bps", "bottleneck", 10.0, 15.0) / 1e6;
    assert!(total > 90.0, "utilization {total} Mb/s");
    for d in &downlinks {
        let r = common::series_mean(&w, "throughput_bps", d, 10.0, 15.0) / 1e6;
        assert!((r - 25.0).abs() < 2.5, "{d}: {r} Mb/s");
    }
    let q = common::series_mean(&w, "queue_bytes", "bottleneck", 10.0, 15.0);
    assert!(q < 5_000.0, "steady-state queue {q} B");
    assert!(w.records.iter().all(|r| r.retx_bytes == 0), "XCP loses nothing here");
}

/// Two bottlenecks in a row with a long flow and one cross flow each: max-min gives the long
/// flow and the first cross flow 50 Mb/s on the 100 Mb/s hop, the second cross flow the rest
/// (150 Mb/s) of the 200 Mb/s hop.
#[test]
fn parking_lot_flows_get_their_max_min_rates() {
    let w = run(json!({
        "duration": "20s",
        "topology": {"kind": "graph",
            "nodes": [{"name": "c0", "kind": "router"}, {"name": "c1", "kind": "router"}, {"name": "c2", "kind": "router"},
                      {"name": "long_s", "kind": "host"}, {"name": "long_d", "kind": "host"},
                      {"name": "x0_s", "kind": "host"}, {"name": "x0_d", "kind": "host"},
                      {"name": "x1_s", "kind": "host"}, {"name": "x1_d", "kind": "host"}],
            "links": [{"a": "c0", "b": "c1", "rate": "100Mbps", "delay": "5ms"},
                      {"a": "c1", "b": "c2", "rate": "200Mbps", "delay": "5ms"},
                      {"a": "long_s", "b": "c0", "rate": "1Gbps", "delay": "1ms"},
                      {"a": "long_d", "b": "c2", "rate": "1Gbps", "delay": "1ms"},
                      {"a": "x0_s", "b": "c0", "rate": "1Gbps", "delay": "1ms"},
                      {"a": "x0_d", "b": "c1", "rate": "1Gbps", "delay": "1ms"},
                      {"a": "x1_s", "b": "c1", "rate": "1Gbps", "delay": "1ms"},
                      {"a": "x1_d", "b": "c2", "rate": "1Gbps", "delay": "1ms"}]},
        "queues": {"router": {"kind": "xcp", "limit": "2MB"}},
        "transport": {"protocol": "xcp"},
        "workload": [{"kind": "long_lived", "flows": [
            {"src": "long_s", "dst": "long_d", "start": "0s", "stop": "20s"},
            {"src": "x0_s", "dst": "x0_d", "start": "0s", "stop": "20s"},
            {"src": "x1_s", "dst": "x1_d", "start": "0s", "stop": "20s"}]}],
        "output": {"series": {"interval": "50ms", "links": ["long_s->c0", "x0_s->c0", "x1_s->c1", "c0->c1"]}},
    }));
    let rate = |l: &str| common::series_mean(&w, "throughput_bps", l, 15.0, 20.0) / 1e6;
    for (l, want) in [("long_s->c0", 50.0), ("x0_s->c0", 50.0), ("x1_s->c1", 150.0)] {
        let r = rate(l);
        assert!((r - want).abs() < 0.1 * want, "{l}: {r} Mb/s, max-min {want}");
    }
    let q = common::series_mean(&w, "queue_bytes", "c0->c1", 15.0, 20.0);
    assert!(q < 5_000.0, "queue {q} B");
}
