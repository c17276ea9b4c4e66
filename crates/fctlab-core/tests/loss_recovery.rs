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
    // Segment 30 twice, and the recovery's rescue retransmission (RFC 6675 NextSeg rule (4)) of
    // segment 100 once the flow's last segment has left and nothing else may be sent.
    assert_eq!((o.retx_segments, o.timeouts), (3, 1));
}

#[test]
fn losses_in_two_windows_cause_two_recoveries_without_timeout() {
    let o = run(json!([{"flow": 0, "segment": 12}, {"flow": 0, "segment": 150}]), 300);
    assert_eq!((o.retx_segments, o.timeouts), (2, 0));
}

/// Scripted drops of flow 0's segments (1-based, as `[[loss]]` counts them).
fn drops(segments: &[u64]) -> serde_json::Value {
    json!(segments.iter().map(|&s| json!({"flow": 0, "segment": s})).collect::<Vec<_>>())
}

/// A 60-segment flow (IW 10, then windows of 20 and 30 segments: the third is 31..=60)
/// loses 35 and 36, which start a recovery, and the last `tail` segments of the window and
/// flow: no SACKed segment lies above those, so IsLost (RFC 6675 sec. 4) never fires for them.
fn tail_losses(tail: u64) -> Outcome {
    let mut lost = vec![35, 36];
    lost.extend(61 - tail..=60);
    let clean = run(json!([]), 60);
    let o = run(drops(&lost), 60);
    // One RTT to learn of 35-36, one for the rescue and the rule-(3) retransmissions.
    assert!(o.fct < clean.fct + rtt() + rtt() + rtt(), "{} vs {}", o.fct, clean.fct);
    o
}

#[test]
fn losing_the_last_two_segments_of_a_window_in_recovery_needs_no_timeout() {
    // 35 and 36 by IsLost, 60 by the rescue retransmission, then 59 by rule (3).
    let o = tail_losses(2);
    assert_eq!((o.retx_segments, o.timeouts), (4, 0));
}

#[test]
fn losing_the_last_three_segments_of_a_window_in_recovery_needs_no_timeout() {
    // 35 and 36 by IsLost, 60 by the rescue retransmission, then 58 and 59 by rule (3).
    let o = tail_losses(3);
    assert_eq!((o.retx_segments, o.timeouts), (5, 0));
}

/// The flow of the report: 10,000 segments, IW 10, 1 Gb/s x 20 ms, a buffer of one BDP
/// (1,667 packets of 1,500 B), minimum RTO 1 s. Slow start overflows the buffer near the end
/// of the flow and every other segment is lost from about #6,650 on; the last holes have fewer
/// than three SACKed segments above them. Rules (3) and (4) repair them within the recovery.
#[test]
fn slow_start_overflow_at_the_tail_of_a_long_flow_needs_no_timeout() {
    let segments = 10_000;
    let flows = json!([{"src": "l0", "dst": "r0", "start": 0, "size": segments * MSS}]);
    let mut s = common::dumbbell(flows, json!({"iw": 10, "min_rto": "1s"}), 1_667);
    s["topology"]["bottleneck_delay"] = json!("10ms");
    let mut w = common::world(&s);
    w.run();
    let r = &w.records[0];
    assert_eq!(r.delivered, segments * MSS);
    // Every other segment of #6,660-#10,000 (the last one included) overflows the buffer.
    let dropped = w.counters.dropped_pkts;
    assert_eq!(dropped, 1_671, "slow start overflows the buffer");
    assert_eq!(r.timeouts, 0, "the tail is repaired without the RTO");
    assert_eq!(r.retx_bytes / MSS, dropped, "each loss retransmitted once, the last one by the rescue");
    // Transfer at line rate is 10,000 x 1,500 B / 1 Gb/s = 120 ms; an RTO would add >= 1 s.
    let fct = r.fct().unwrap().as_secs_f64();
    assert!(fct < 0.5, "FCT {fct} s");
}
