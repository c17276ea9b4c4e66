//! JetMax end to end (seed 003 sec. II and IV): flows reach max-min rates (of the capacity
//! times gamma = 0.98, the default utilization) with the queue near zero, on a dumbbell and on
//! seed 003's parking lot (Fig. 10, rates scaled down tenfold), and a flow converges in the same number of RTTs on links of any capacity.

mod common;

use serde_json::json;

use common::run;

/// ```text
///   l0..l3 --1G-- rl ==100M, 10 ms, JetMax== rr --1G-- r0..r3
/// ```
#[test]
fn long_lived_flows_share_a_dumbbell_equally_with_an_empty_queue() {
    let uplinks: Vec<String> = (0..4).map(|i| format!("l{i}->rl")).collect();
    let w =
        run(common::staggered_dumbbell(json!({"kind": "jetmax", "limit": "2MB"}), json!({"protocol": "jetmax"}), 8.0));
    let total = common::series_mean(&w, "throughput_bps", "bottleneck", 5.0, 8.0) / 1e6;
    assert!((total - 98.0).abs() < 1.0, "utilization {total} Mb/s, gamma C = 98");
    for u in &uplinks {
        let r = common::series_mean(&w, "throughput_bps", u, 5.0, 8.0) / 1e6;
        assert!((r - 24.5).abs() < 0.03 * 24.5, "{u}: {r} Mb/s, fair share 24.5");
    }
    let q = common::series_mean(&w, "queue_bytes", "bottleneck", 5.0, 8.0);
    assert!(q < 5_000.0, "steady-state queue {q} B");
    assert!(w.records.iter().all(|r| r.retx_bytes == 0), "JetMax loses nothing here");
}

/// Seed 003 Fig. 9(b)/10 at a tenth of the rates, phases of 4 s (`common::seed003_parking_lot`):
/// every flow within 3% of its max-min rate (times gamma = 0.98) in every phase, queues < 15 kB.
#[test]
fn parking_lot_flows_follow_the_max_min_rates_of_every_phase() {
    let queue = json!({"kind": "jetmax", "limit": "4MB"});
    let w = run(common::seed003_parking_lot(queue, json!({"protocol": "jetmax"}), 4.0));
    common::check_seed003_phases(&w, 0.98, 4.0, 15_000.0);
}

/// One flow alone on a link of 1 Mb/s, 100 Mb/s or 10 Gb/s, RTT 100 ms: six RTTs after its
/// first data it sends within a few percent of the capacity, and in its second RTT well below
/// it (eq. 3: 60%, 84%, 94%, 97%, 99% of the offer, whatever the capacity).
#[test]
fn convergence_takes_the_same_number_of_rtts_at_any_capacity() {
    for (rate, c) in [("1Mbps", 1e6), ("100Mbps", 1e8), ("10Gbps", 1e10)] {
        let w = run(json!({
            "duration": "2s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": rate,
                         "bottleneck_delay": "50ms", "access_rate": "40Gbps"},
            "queues": {"router": {"kind": "jetmax", "limit_packets": 100000}},
            "transport": {"protocol": "jetmax"},
            "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "2s"}]}],
            "output": {"series": {"interval": "100ms", "links": ["l0->rl"]}},
        }));
        // Data starts after the handshake (one RTT, 0.1 s).
        let early = common::series_mean(&w, "throughput_bps", "l0->rl", 0.15, 0.25) / c;
        let late = common::series_mean(&w, "throughput_bps", "l0->rl", 1.0, 2.0) / c;
        assert!(early < 0.9, "{rate}: {early} of C in the second RTT");
        assert!((late - 0.98).abs() < 0.01, "{rate}: {late} of C from the seventh RTT on, gamma = 0.98");
    }
}

#[test]
fn bad_jetmax_settings_are_refused_naming_the_field() {
    let scenario = |queue: serde_json::Value, transport: serde_json::Value| {
        json!({
            "duration": "1s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "10Mbps", "bottleneck_delay": "1ms"},
            "queues": {"router": queue},
            "transport": transport,
            "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s"}]}],
        })
        .to_string()
    };
    let err = |q, t| fctlab_core::scenario::build(&scenario(q, t), std::path::Path::new(".")).err().expect("refused");
    let e = err(json!({"kind": "jetmax", "gamma": 1.5}), json!({"protocol": "jetmax"}));
    assert_eq!(e.field, "queues.router.gamma", "{e}");
    assert!(e.message.contains("1.5"), "{e}");
    let e = err(json!({"kind": "jetmax"}), json!({"protocol": "jetmax", "fixed_rate": "1Mbps"}));
    assert_eq!(e.field, "transport.fixed_rate", "{e}");
}

/// Two JetMax links of the same capacity in series (the bottleneck and the receiver's access
/// link, both 100 Mb/s): their offers tie, and the flow must keep one bottleneck and its rate
/// instead of switching between them every RTT.
#[test]
fn two_equal_routers_in_series_do_not_take_turns() {
    let w = run(json!({
        "duration": "6s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "100Mbps"},
        "queues": {"router": {"kind": "jetmax", "limit": "4MB"}},
        "transport": {"protocol": "jetmax"},
        "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "6s"}]}],
        "output": {"series": {"interval": "100ms", "links": ["l0->rl", "bottleneck", "rr->r0"]}},
    }));
    let r = common::series_mean(&w, "throughput_bps", "l0->rl", 3.0, 6.0) / 1e6;
    assert!((r - 98.0).abs() < 0.03 * 98.0, "{r} Mb/s, gamma C = 98");
    for l in ["bottleneck", "rr->r0"] {
        let q = common::series_mean(&w, "queue_bytes", l, 3.0, 6.0);
        assert!(q < 15_000.0, "{l}: queue {q} B");
    }
}
