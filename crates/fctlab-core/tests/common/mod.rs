//! Helpers shared by the integration tests.
#![allow(dead_code)]

use fctlab_core::scenario;
use fctlab_core::world::World;
use std::path::Path;

/// Builds a world from a JSON scenario, panicking with the error message if it is invalid.
pub fn world(json: &serde_json::Value) -> World {
    let (w, _) = scenario::build(&json.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    w
}

/// Builds a world from a JSON scenario and runs it to its end.
pub fn run(json: serde_json::Value) -> World {
    let mut w = world(&json);
    w.run();
    w
}

/// Four long-lived flows `l<i>` -> `r<i>` starting at i seconds and stopping at `end` seconds
/// on a 100 Mb/s, 10 ms dumbbell with 1 Gb/s access links, the routers running `queue`, the
/// hosts `transport`; the bottleneck and every flow's uplink (`l<i>->rl`) and downlink
/// (`rr->r<i>`) sampled every 50 ms. The explicit-feedback protocols' steady-state test.
pub fn staggered_dumbbell(queue: serde_json::Value, transport: serde_json::Value, end: f64) -> serde_json::Value {
    let flows: Vec<_> = (0..4)
        .map(|i| serde_json::json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": format!("{i}s"), "stop": format!("{end}s")}))
        .collect();
    let mut links: Vec<String> = (0..4).flat_map(|i| [format!("l{i}->rl"), format!("rr->r{i}")]).collect();
    links.push("bottleneck".into());
    serde_json::json!({
        "duration": format!("{end}s"),
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": queue},
        "transport": transport,
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "50ms", "links": links}},
    })
}

/// A dumbbell scenario with the given flows and transport (no delayed ACKs).
pub fn dumbbell(flows: serde_json::Value, transport: serde_json::Value, buffer_pkts: u64) -> serde_json::Value {
    serde_json::json!({
        "seed": 1,
        "duration": "100s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "1Gbps",
                     "bottleneck_delay": "20ms", "access_rate": "10Gbps", "access_delay": "0s"},
        "queues": {"router": {"kind": "droptail", "limit_packets": buffer_pkts}},
        "transport": transport,
        "workload": [{"kind": "flows", "flows": flows}],
    })
}

/// (time s, value) of every series row of `metric` for `target`, in time order.
pub fn series_rows(w: &World, metric: &str, target: &str) -> Vec<(f64, f64)> {
    let s = &w.series;
    (0..s.time.len())
        .filter(|&i| s.metric[i].name() == metric && s.target[i] == target)
        .map(|i| (s.time[i].as_secs_f64(), s.value[i]))
        .collect()
}

/// Mean of a series metric for `target` over samples in (from, to] seconds.
pub fn series_mean(w: &World, metric: &str, target: &str, from: f64, to: f64) -> f64 {
    let v: Vec<f64> =
        series_rows(w, metric, target).into_iter().filter(|&(t, _)| t > from && t <= to).map(|(_, v)| v).collect();
    assert!(!v.is_empty(), "no {metric} samples for {target}");
    v.iter().sum::<f64>() / v.len() as f64
}

/// Seed 003's parking lot (Fig. 9(b), Fig. 10) at a tenth of its rates: l1 = 97 Mb/s and
/// l2 = 80 Mb/s, 25 ms each way; x1 crosses both from 0 to 3 `phase`, x2 only l1 from `phase`,
/// x3 only l2 from 2 `phase`; the run ends at 4 `phase`. Routers use `queue`, hosts
/// `transport`; the flows' uplinks (`s1->a`, `s2->a`, `s3->b`) and both links are sampled every
/// 100 ms.
pub fn seed003_parking_lot(queue: serde_json::Value, transport: serde_json::Value, phase: f64) -> serde_json::Value {
    let t = |k: f64| format!("{}s", k * phase);
    serde_json::json!({
        "duration": t(4.0),
        "topology": {"kind": "graph",
            "nodes": [{"name": "a", "kind": "router"}, {"name": "b", "kind": "router"}, {"name": "c", "kind": "router"},
                      {"name": "s1", "kind": "host"}, {"name": "d1", "kind": "host"},
                      {"name": "s2", "kind": "host"}, {"name": "d2", "kind": "host"},
                      {"name": "s3", "kind": "host"}, {"name": "d3", "kind": "host"}],
            "links": [{"a": "a", "b": "b", "rate": "97Mbps", "delay": "25ms"},
                      {"a": "b", "b": "c", "rate": "80Mbps", "delay": "25ms"},
                      {"a": "s1", "b": "a", "rate": "1Gbps", "delay": "0ms"},
                      {"a": "d1", "b": "c", "rate": "1Gbps", "delay": "0ms"},
                      {"a": "s2", "b": "a", "rate": "1Gbps", "delay": "0ms"},
                      {"a": "d2", "b": "b", "rate": "1Gbps", "delay": "0ms"},
                      {"a": "s3", "b": "b", "rate": "1Gbps", "delay": "0ms"},
                      {"a": "d3", "b": "c", "rate": "1Gbps", "delay": "0ms"}]},
        "queues": {"router": queue},
        "transport": transport,
        "workload": [{"kind": "long_lived", "flows": [
            {"src": "s1", "dst": "d1", "start": "0s", "stop": t(3.0)},
            {"src": "s2", "dst": "d2", "start": t(1.0), "stop": t(4.0)},
            {"src": "s3", "dst": "d3", "start": t(2.0), "stop": t(4.0)}]}],
        "output": {"series": {"interval": "100ms", "links": ["s1->a", "s2->a", "s3->b", "a->b", "b->c"]}},
    })
}

/// Checks a run of [`seed003_parking_lot`]: over the second half of every phase each flow sends
/// within 3% of its max-min rate times `gamma` (x1 80; x1 = x2 = 48.5; x1 = x3 = 40 and x2 57;
/// x2 97 and x3 80 Mb/s) and both queues average below `max_queue` bytes.
pub fn check_seed003_phases(w: &World, gamma: f64, phase: f64, max_queue: f64) {
    let want = [[80.0, 0.0, 0.0], [48.5, 48.5, 0.0], [40.0, 57.0, 40.0], [0.0, 97.0, 80.0]];
    for (k, want) in want.iter().enumerate() {
        let (from, to) = ((k as f64 + 0.5) * phase, (k as f64 + 1.0) * phase);
        for (link, want) in ["s1->a", "s2->a", "s3->b"].iter().zip(want) {
            let r = series_mean(w, "throughput_bps", link, from, to) / 1e6;
            if *want == 0.0 {
                assert!(r < 0.5, "{link} in {from}-{to} s: {r} Mb/s, expected idle");
            } else {
                let want = gamma * want;
                assert!((r - want).abs() < 0.03 * want, "{link} in {from}-{to} s: {r} Mb/s, max-min {want}");
            }
        }
        for l in ["a->b", "b->c"] {
            let q = series_mean(w, "queue_bytes", l, from, to);
            assert!(q < max_queue, "{l} in {from}-{to} s: queue {q} B");
        }
    }
}
