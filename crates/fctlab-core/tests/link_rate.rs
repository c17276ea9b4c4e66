//! Links whose rate changes during a run (`[[link_rate]]`), and the RCP router for a link of
//! unknown rate (thesis eq. 6.2, `variant = "unknown-rate"`).

mod common;

use common::{run, series_mean, staggered_dumbbell};
use serde_json::{json, Value};

/// Four long RCP flows on the staggered 100 Mb/s dumbbell, all present from 3 s; the
/// bottleneck's rate changes to `to` at 8 s, the router told (`notify`) or not.
fn rate_change(queue: Value, to: &str, notify: bool) -> fctlab_core::world::World {
    let mut s = staggered_dumbbell(queue, json!({"protocol": "rcp"}), 16.0);
    s["link_rate"] = json!([{"link": "bottleneck", "at": "8s", "rate": to, "notify_queue": notify}]);
    run(s)
}

fn rcp(extra: Value) -> Value {
    let mut q = json!({"kind": "rcp", "limit": "2MB", "initial_rate": 0.5, "alpha": 0.4, "beta": 0.5});
    q.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    q
}

/// A drop-tail bottleneck that slows from 100 to 40 Mb/s carries 40 Mb/s from then on: the
/// change applies to the packets that start after it (no FIFO fast path timing them at the old
/// rate).
#[test]
fn a_slower_link_carries_its_new_rate() {
    let w = rate_change(json!({"kind": "droptail", "limit": "500KB"}), "40Mbps", true);
    let before = series_mean(&w, "throughput_bps", "bottleneck", 4.0, 8.0) / 1e6;
    let after = series_mean(&w, "throughput_bps", "bottleneck", 10.0, 16.0) / 1e6;
    assert!(before > 90.0 && before <= 100.5, "before: {before} Mb/s");
    assert!(after > 37.0 && after <= 40.2, "after: {after} Mb/s");
}

/// An RCP router told of the new rate (the thesis's law, C updated) finds R = C / N again:
/// 10 Mb/s per flow on 40 Mb/s.
#[test]
fn an_rcp_router_told_the_new_rate_shares_it() {
    let w = rate_change(rcp(json!({})), "40Mbps", true);
    let r = series_mean(&w, "rcp_rate_bps", "bottleneck", 12.0, 16.0) / 1e6;
    let carried = series_mean(&w, "throughput_bps", "bottleneck", 12.0, 16.0) / 1e6;
    assert!((r - 10.0).abs() < 1.0, "R = {r} Mb/s");
    assert!(carried > 37.0, "carried {carried} Mb/s");
}

/// The link speeds up from its configured 100 Mb/s to 200 Mb/s and the router is not told:
/// eq. 3.3 keeps R at most C = 100 Mb/s and the flows leave half of the link idle; eq. 6.2,
/// which uses no C, fills it.
#[test]
fn eq_6_2_uses_a_faster_link_that_eq_3_3_does_not_know_of() {
    let stale = rate_change(rcp(json!({})), "200Mbps", false);
    let unknown = rate_change(rcp(json!({"variant": "unknown-rate"})), "200Mbps", false);
    let stale_bps = series_mean(&stale, "throughput_bps", "bottleneck", 12.0, 16.0) / 1e6;
    let unknown_bps = series_mean(&unknown, "throughput_bps", "bottleneck", 12.0, 16.0) / 1e6;
    assert!(stale_bps < 105.0, "eq. 3.3 with a stale C: {stale_bps} Mb/s");
    assert!(unknown_bps > 180.0, "eq. 6.2: {unknown_bps} Mb/s");
}

/// Before any change, on a link of known rate, eq. 6.2 also shares it: the four flows get
/// about C / 4 each (23 Mb/s measured) and the bottleneck is nearly full (93%) with a queue
/// of about a fifth of C x RTT: eq. 6.2 has no equilibrium with a standing queue (q_dot = 0
/// leaves only the -beta q / d term), so the queue fills and drains around it.
#[test]
fn eq_6_2_shares_a_fixed_link() {
    let w = rate_change(rcp(json!({"variant": "unknown-rate"})), "100Mbps", false);
    let carried = series_mean(&w, "throughput_bps", "bottleneck", 4.0, 8.0) / 1e6;
    let queue = series_mean(&w, "queue_bytes", "bottleneck", 4.0, 8.0);
    let flows: Vec<f64> =
        (0..4).map(|i| series_mean(&w, "throughput_bps", &format!("rr->r{i}"), 4.0, 8.0) / 1e6).collect();
    assert!(carried > 90.0, "carried {carried} Mb/s");
    assert!(queue < 125_000.0, "mean queue {queue} B");
    for f in &flows {
        assert!((f - 25.0).abs() < 3.0, "per-flow {flows:?}");
    }
}
