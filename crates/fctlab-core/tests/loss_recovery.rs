//! Scripted losses: SACK recovery repairs what it can without a timeout, the RTO the rest.
//!
//! ```text
//!   l0 --10G,0ms-- rl ==1G,20ms== rr --10G,0ms-- r0     one 100-segment flow, IW 10
//! ```

mod common;

use fctlab_core::units::Time;
use serde_json::json;

const MSS: u64 = 1460;

struct Outcome {
    fct: Time,
    retx_segments: u64,
    timeouts: u64,
}

fn run(drops: serde_json::Value, segments: u64) -> Outcome {
    let flows = json!([{"src": "l0", "dst": "r0", "start": 0, "size": segments * MSS}]);
    let mut s = common::dumbbell(flows, json!({"iw": 10}), 10_000);
    s["loss"] = json!([{"link": "bottleneck", "drop": drops}]);
    let mut w = common::world(&s);
    w.run();
    let r = &w.records[0];
    assert_eq!(r.delivered, segments * MSS, "every byte arrives");
    Outcome { fct: r.fct().expect("the flow completes"), retx_segments: r.retx_bytes / MSS, timeouts: r.timeouts }
}

fn rtt() -> Time {
    Time::from_ms(40)
}

#[test]
fn one_lost_segment_is_repaired_by_one_fast_retransmit() {
    let clean = run(json!([]), 100);
    let o = run(json!([{"flow": 0, "segment": 30}]), 100);
    assert_eq!((o.retx_segments, o.timeouts), (1, 0));
    assert!(o.fct < clean.fct + rtt() + rtt(), "recovery costs about one RTT: {} vs {}", o.fct, clean.fct);
}

#[test]
fn three_losses_in_one_window_need_no_timeout() {
    let o = run(json!([{"flow": 0, "segment": 30}, {"flow": 0, "segment": 32}, {"flow": 0, "segment": 35}]), 100);
    assert_eq!((o.retx_segments, o.timeouts), (3, 0));
}

#[test]
fn a_burst_of_losses_is_repaired_in_one_recovery() {
    let drops: Vec<_> = (40..=49).map(|s| json!({"flow": 0, "segment": s})).collect();
    let o = run(json!(drops), 200);
    assert_eq!((o.retx_segments, o.timeouts), (10, 0));
}

#[test]
fn a_lost_last_segment_is_repaired_by_the_retransmission_timeout() {
    let o = run(json!([{"flow": 0, "segment": 100}]), 100);
    // Nothing follows the last segment, so no SACK can reveal its loss.
    assert_eq!((o.retx_segments, o.timeouts), (1, 1));
}

#[test]
fn a_lost_retransmission_is_repaired_after_a_timeout() {
    let o = run(json!([{"flow": 0, "segment": 30}, {"flow": 0, "segment": 30, "transmission": 2}]), 100);
    assert_eq!((o.retx_segments, o.timeouts), (2, 1));
}

#[test]
fn losses_in_two_windows_cause_two_recoveries_without_timeout() {
    let o = run(json!([{"flow": 0, "segment": 12}, {"flow": 0, "segment": 150}]), 300);
    assert_eq!((o.retx_segments, o.timeouts), (2, 0));
}
