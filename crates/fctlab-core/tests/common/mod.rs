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
