//! Idle-path FCT against the slow-start closed form.
//!
//! ```text
//!   l0 --10G,0ms-- rl ==1G,20ms== rr --10G,0ms-- r0
//! ```
//! One flow on an idle dumbbell, an ACK per segment, no loss (deep buffers). The closed form:
//! - handshake: SYN and SYN-ACK each cross the path once: `2 (2 tx_A(40) + tx_B(40) + d)`;
//! - rounds: round k carries `iw * 2^k` segments (every ACK of round k releases two);
//!   round k starts service at the bottleneck at `b_k`, and is served back to back, ending at
//!   `e_k = b_k + sum of tx_B(segment)`;
//! - the first segment of round k+1 reaches the bottleneck `L` after round k started service:
//!   its own bottleneck serialization, the rest of the forward path, the ACK's path back, and
//!   the new segment's access hop; so `b_{k+1} = max(b_k + L, e_k)` (the link is saturated
//!   once a round lasts longer than `L`);
//! - the last byte arrives `d + tx_A(last)` after the last round leaves the bottleneck.
//!
//! Every term is computed with the simulator's own integer serialization times.

mod common;

use fctlab_core::units::{Rate, Time};
use serde_json::json;

const MSS: u64 = 1460;
const HDR: u64 = 40;

fn closed_form(segments: u64, iw: u64) -> Time {
    let a = Rate::from_gbps(10);
    let b = Rate::from_gbps(1);
    let d = Time::from_ms(20);
    let tx = |r: Rate, bytes: u64| r.tx_time(bytes);
    let size = segments * MSS;
    let seg_wire = |i: u64| (MSS.min(size - i * MSS)) + HDR;
    let one_way_ctl = tx(a, HDR) + tx(b, HDR) + tx(a, HDR) + d;
    let t0 = one_way_ctl + one_way_ctl; // SYN, SYN-ACK
    let full = MSS + HDR;
    let loop_l = tx(b, full) + d + tx(a, full) + one_way_ctl + tx(a, full);
    let mut b_k = t0 + tx(a, seg_wire(0));
    let mut sent = 0u64;
    let mut round = iw;
    loop {
        let n = round.min(segments - sent);
        let e_k = (sent..sent + n).fold(b_k, |t, i| t + tx(b, seg_wire(i)));
        sent += n;
        if sent == segments {
            return e_k + d + tx(a, seg_wire(segments - 1));
        }
        b_k = (b_k + loop_l).max(e_k);
        round *= 2;
    }
}

fn simulate(segments: u64, iw: u64) -> Time {
    let flows = json!([{"src": "l0", "dst": "r0", "start": 0, "size": segments * MSS}]);
    let mut w = common::world(&common::dumbbell(flows, json!({"iw": iw}), 1_000_000));
    w.run();
    let r = &w.records[0];
    assert_eq!(r.timeouts, 0);
    r.fct().expect("the flow completes")
}

fn check(segments: u64, iw: u64) -> f64 {
    let sim = simulate(segments, iw).as_secs_f64();
    let model = closed_form(segments, iw).as_secs_f64();
    let err = (sim - model).abs() / model;
    assert!(err < 0.005, "{segments} segments, IW {iw}: simulated {sim:.9} s, closed form {model:.9} s");
    err
}

/// Every size from 1 to 10,000 segments, for IW 1, 4 and 10 (one thread per IW).
#[test]
fn every_size_matches_the_closed_form() {
    let threads: Vec<_> = [1u64, 4, 10]
        .into_iter()
        .map(|iw| std::thread::spawn(move || (1..=10_000).map(|n| check(n, iw)).fold(0.0f64, f64::max)))
        .collect();
    for t in threads {
        let worst = t.join().expect("no size failed");
        // Not just within 0.5%: the model and the simulator agree to the picosecond grid.
        assert!(worst < 1e-9, "worst relative error {worst}");
    }
}
