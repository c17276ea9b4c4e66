//! HyStart ends slow start before the queue overflows (issue: fctlab's CUBIC, without it,
//! retransmitted 448 KB of a 1,000-segment flow where Linux's CUBIC retransmits nothing).
//!
//! ```text
//!   l0 --100M,0ms-- rl ==10M,10ms, drop-tail== rr --100M,0ms-- r0
//! ```
//!
//! The fct-accuracy path: one flow on an idle 10 Mb/s bottleneck with a 20 ms round trip
//! (BDP 25 KB, 17 packets), buffers of 100 or 200 packets.

mod common;

use fctlab_core::world::World;
use serde_json::{json, Value};

const MSS: u64 = 1460;

fn one_flow(transport: Value, buffer: u64, segments: u64) -> Value {
    json!({
        "seed": 1,
        "duration": "10s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "10Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "100Mbps", "access_delay": "0s"},
        "queues": {"router": {"kind": "droptail", "limit_packets": buffer}},
        "transport": transport,
        "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "size": segments * MSS}]}],
        "output": {"series": {"interval": "1ms", "flows": [0]}},
    })
}

/// (drops, retransmitted bytes, FCT in ms) of a 1,000-segment flow.
fn outcome(w: &World) -> (u64, u64, f64) {
    let r = &w.records[0];
    assert_eq!(r.delivered, 1000 * MSS);
    (w.counters.dropped_pkts, r.retx_bytes, r.finish.expect("the flow completes").as_secs_f64() * 1e3)
}

#[test]
fn cubic_leaves_slow_start_before_the_queue_overflows_by_default() {
    for iw in [4, 10] {
        for buffer in [100, 200] {
            let off = common::run(one_flow(json!({"cc": "cubic", "iw": iw, "hystart": "off"}), buffer, 1000));
            let (drops_off, retx_off, fct_off) = outcome(&off);
            assert!(drops_off > 250 && retx_off > 250 * MSS, "without HyStart the last doubling overflows");

            let w = common::run(one_flow(json!({"cc": "cubic", "iw": iw}), buffer, 1000));
            let (drops, retx, fct) = outcome(&w);
            assert_eq!((drops, retx), (0, 0), "iw {iw}, {buffer} packets: HyStart (Linux) by default");
            assert!(fct <= fct_off, "no loss, no later: {fct} ms against {fct_off} ms");
            // The window where slow start ended holds the path (17 packets in flight) and at
            // most what the buffer adds, and congestion avoidance keeps it there.
            let peak = common::series_rows(&w, "cwnd_bytes", "flow0").iter().map(|&(_, c)| c as u64).max().unwrap();
            assert!((17 * MSS..(17 + buffer) * MSS).contains(&peak), "peak cwnd {} segments", peak / MSS);
        }
    }
}

#[test]
fn the_kernels_fct_at_iw_4_and_10() {
    // Linux's CUBIC, emulated on this path with a 200-packet buffer (docs/emulate.md):
    // 1,262.0 ms at IW 4 and 1,240.4 ms at IW 10, nothing retransmitted. The simulation has
    // no wake-up or veth delays, so it may only be faster, by less than 1 ms.
    for (iw, kernel) in [(4, 1262.0), (10, 1240.4)] {
        let (_, _, fct) = outcome(&common::run(one_flow(json!({"cc": "cubic", "iw": iw}), 200, 1000)));
        assert!(fct <= kernel && kernel - fct < 1.0, "iw {iw}: {fct} ms, kernel {kernel} ms");
    }
}

#[test]
fn hystart_applies_to_newreno_when_asked() {
    let (drops_off, _, _) = outcome(&common::run(one_flow(json!({"cc": "newreno", "iw": 10}), 200, 1000)));
    assert!(drops_off > 200, "NewReno's default is standard slow start");
    let (drops, _, _) =
        outcome(&common::run(one_flow(json!({"cc": "newreno", "iw": 10, "hystart": "linux"}), 200, 1000)));
    assert_eq!(drops, 0);
}

#[test]
fn hystart_plus_plus_loses_far_less_than_standard_slow_start() {
    // RFC 9406's delay detector leaves slow start at the first rounds with a standing queue;
    // Conservative Slow Start then grows a quarter as fast for five rounds, which on a
    // 100-packet buffer still ends in a (much smaller) overflow.
    for buffer in [100, 200] {
        let (drops_off, _, _) =
            outcome(&common::run(one_flow(json!({"cc": "cubic", "iw": 10, "hystart": "off"}), buffer, 1000)));
        let (drops, _, _) =
            outcome(&common::run(one_flow(json!({"cc": "cubic", "iw": 10, "hystart": "hystart++"}), buffer, 1000)));
        assert!(drops * 5 < drops_off, "{buffer} packets: {drops} drops against {drops_off}");
    }
}

#[test]
fn hystart_is_refused_where_no_slow_start_runs() {
    for (transport, needle) in [
        (json!({"protocol": "xcp", "hystart": "linux"}), "hystart"),
        (json!({"protocol": "rtcp", "hystart": "off"}), "hystart"),
        (json!({"cc": "cubic", "hystart": "on"}), "hystart++"),
    ] {
        let sc = one_flow(transport.clone(), 100, 10);
        let err = match fctlab_core::scenario::build(&sc.to_string(), std::path::Path::new(".")) {
            Ok(_) => panic!("{transport} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(needle) && err.contains("hystart"), "{transport}: {err}");
    }
}
