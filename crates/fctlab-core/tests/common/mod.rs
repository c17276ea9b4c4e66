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
