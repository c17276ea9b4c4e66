//! pFabric end to end: on one bottleneck its ports serve the flow with the least left first,
//! so short flows cut through a long one's backlog, where drop-tail makes them wait behind it.

mod common;

use common::run;
use serde_json::{json, Value};

/// One 5 MB flow from l0 at t = 0 and 20 flows of 15 KB from l1 every 1 ms from 2 ms, on a
/// 1 Gb/s dumbbell with a 100 us round trip; routers run `queue`, hosts `transport`.
fn long_and_short(queue: Value, transport: Value) -> Value {
    let mut flows = vec![json!({"src": "l0", "dst": "r0", "start": 0, "size": "5MB"})];
    for i in 0..20 {
        flows.push(json!({"src": "l1", "dst": "r1", "start": format!("{}ms", 2 + i), "size": "15KB"}));
    }
    json!({
        "duration": "60ms",
        "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "1Gbps",
                     "bottleneck_delay": "25us", "access_rate": "1Gbps", "access_delay": "12.5us"},
        "queues": {"router": queue},
        "transport": transport,
        "workload": [{"kind": "flows", "flows": flows}],
    })
}

/// Mean FCT over ideal FCT of the short flows, and the long flow's FCT, in seconds.
fn short_slowdown(w: &fctlab_core::world::World) -> (f64, f64) {
    let fct: Vec<f64> = w.records.iter().map(|r| r.fct().expect("every flow completes").as_secs_f64()).collect();
    let short: Vec<f64> = w.records.iter().zip(&fct).skip(1).map(|(r, f)| f / r.ideal.as_secs_f64()).collect();
    (short.iter().sum::<f64>() / short.len() as f64, fct[0])
}

#[test]
fn short_flows_cut_through_a_long_flows_backlog() {
    // pFabric: a window of one BDP (1 Gb/s x 140 us, the 100 us of propagation and a packet's
    // serialization on each of three links each way: 12 segments), a 24-packet buffer, a fixed
    // RTO of about three RTTs.
    let pfabric = run(long_and_short(
        json!({"kind": "pfabric", "limit_packets": 24}),
        json!({"cc": "pfabric", "iw": 12, "min_rto": "300us", "initial_rto": "300us", "max_rto": "300us"}),
    ));
    let reno = run(long_and_short(json!({"kind": "droptail", "limit_packets": 200}), json!({"cc": "newreno"})));
    let (sp, lp) = short_slowdown(&pfabric);
    let (sr, lr) = short_slowdown(&reno);
    eprintln!("short flows' mean slowdown: pfabric {sp:.2}, newreno {sr:.2}; long flow {lp:.4} s, {lr:.4} s");
    assert!(sp < 1.5, "pFabric serves the short flows nearly as if alone: {sp}");
    assert!(sr > 2.0 * sp, "drop-tail queues them behind the long flow: {sr} against {sp}");
    // The long flow still gets the link: it finishes within 5% of when it does under NewReno.
    assert!(lp < 1.05 * lr, "{lp} s against {lr} s");
}
