//! What a run holds per flow for its whole length, counted in bytes of the core's structures:
//! its plan, its record and the slot of its live state, about 200 bytes; paths are stored once
//! per distinct path, not per flow; the live state (endpoints) only while the flow is open.

mod common;

use fctlab_core::metrics::FlowRecord;
use fctlab_core::world::FlowPlan;
use serde_json::json;

#[test]
fn a_flow_costs_about_200_bytes_for_the_whole_run() {
    // About 20,000 one-packet flows between 10 x 10 host pairs.
    let mut w = common::world(&json!({
        "seed": 1,
        "duration": "200ms",
        "topology": {"kind": "dumbbell", "hosts_per_side": 10, "bottleneck_rate": "10Gbps",
                     "bottleneck_delay": "1ms", "access_rate": "10Gbps"},
        "workload": [{"kind": "poisson", "rate": 100000, "sizes": {"kind": "fixed", "size": 1460}}],
    }));
    let flows = w.records.len();
    assert!(flows > 15_000, "{flows}");
    let per_flow = w.flow_bytes() as f64 / flows as f64;
    assert_eq!(std::mem::size_of::<FlowRecord>() + std::mem::size_of::<FlowPlan>(), 200);
    // 128 (record) + 72 (plan) + 8 (slot): anything beyond 209 would be a path per flow.
    assert!(per_flow <= 209.0, "{per_flow:.1} bytes a flow");
    w.run();
    assert!(w.records.iter().all(|r| r.finish.is_some()));
    assert_eq!(w.flow_bytes() as f64 / flows as f64, per_flow, "nothing per flow grows while the run goes");
    assert_eq!(w.open_flows(), 0);
}
