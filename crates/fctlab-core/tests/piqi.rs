//! PIQI-RCP end to end (seed 003 sec. II and IV): flows reach max-min rates of the virtual
//! capacity (gamma = 0.95) with the queue near zero, on a dumbbell and on seed 003's parking
//! lot (Fig. 10, rates scaled down tenfold), a join of ten flows overshoots far less than RCP's,
//! and a flow converges in the same number of control intervals at any capacity.

mod common;

use serde_json::json;

use common::run;

/// ```text
///   l0..l3 --1G-- rl ==100M, 10 ms, PIQI-RCP== rr --1G-- r0..r3
/// ```
#[test]
fn long_lived_flows_share_a_dumbbell_equally_with_an_empty_queue() {
    let uplinks: Vec<String> = (0..4).map(|i| format!("l{i}->rl")).collect();
    let w = run(common::staggered_dumbbell(json!({"kind": "piqi", "limit": "2MB"}), json!({"protocol": "piqi"}), 12.0));
    let total = common::series_mean(&w, "throughput_bps", "bottleneck", 9.0, 12.0) / 1e6;
    assert!((total - 95.0).abs() < 1.0, "utilization {total} Mb/s, gamma C = 95");
    for u in &uplinks {
        let r = common::series_mean(&w, "throughput_bps", u, 9.0, 12.0) / 1e6;
        assert!((r - 23.75).abs() < 0.03 * 23.75, "{u}: {r} Mb/s, fair share 23.75");
    }
    let q = common::series_mean(&w, "queue_bytes", "bottleneck", 9.0, 12.0);
    assert!(q < 5_000.0, "steady-state queue {q} B");
    let r = common::series_mean(&w, "piqi_rate_bps", "bottleneck", 9.0, 12.0) / 1e6;
    assert!((r - 23.75).abs() < 0.03 * 23.75, "the router's R is the fair share: {r} Mb/s");
    assert!(w.records.iter().all(|r| r.retx_bytes == 0), "PIQI-RCP loses nothing here");
}

/// Seed 003 Fig. 9(b)/10 at a tenth of the rates, phases of 8 s: every flow within 3% of its
/// max-min rate times gamma = 0.95 (the paper's "scaled by 0.95") in every phase, queues
/// below 15 kB.
#[test]
fn parking_lot_flows_follow_the_max_min_rates_of_every_phase() {
    let queue = json!({"kind": "piqi", "limit": "4MB"});
    let w = run(common::seed003_parking_lot(queue, json!({"protocol": "piqi"}), 8.0));
    common::check_seed003_phases(&w, 0.95, 8.0, 15_000.0);
}

/// Seed 003 Fig. 8's surge, shortened: one flow on 100 Mb/s (RTT 50 ms), ten more join at 3 s.
/// The newcomers start from nothing (eq. 7 from x = 0), so the queue stays below 2,000 packets
/// (RCP's reaches about 11,000 in the paper); 6 s after the join (eq. 7 closes 1% of the gap
/// per interval: 0.99^600) the eleven flows share 95 Mb/s.
#[test]
fn ten_flows_joining_at_once_barely_overshoot() {
    let mut flows = vec![json!({"src": "l0", "dst": "r0", "start": "0s", "stop": "12s"})];
    flows.extend(
        (1..=10).map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": "3s", "stop": "12s"})),
    );
    let w = run(json!({
        "duration": "12s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 11, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "24ms", "access_rate": "1Gbps", "access_delay": "0.5ms"},
        "queues": {"router": {"kind": "piqi", "limit_packets": 100000}},
        "transport": {"protocol": "piqi"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "100ms", "links": ["bottleneck", "l0->rl"]}},
    }));
    let peak_queue = (30..60)
        .map(|k| common::series_mean(&w, "queue_bytes", "bottleneck", k as f64 * 0.1 - 0.05, k as f64 * 0.1 + 0.05))
        .fold(0.0, f64::max);
    assert!(peak_queue < 2_000.0 * 1500.0, "peak queue after the join {peak_queue} B");
    let total = common::series_mean(&w, "throughput_bps", "bottleneck", 9.0, 12.0) / 1e6;
    assert!((total - 95.0).abs() < 1.0, "utilization {total} Mb/s after the join");
    let first = common::series_mean(&w, "throughput_bps", "l0->rl", 9.0, 12.0) / 1e6;
    assert!((first - 95.0 / 11.0).abs() < 0.05 * 95.0 / 11.0, "the first flow's share {first} Mb/s");
    let q = common::series_mean(&w, "queue_bytes", "bottleneck", 9.0, 12.0);
    assert!(q < 5_000.0, "queue {q} B after the join");
}

/// One flow alone on a link of 10 Mb/s, 100 Mb/s or 10 Gb/s, RTT 100 ms: eq. 7 closes 1% of the
/// gap per 10 ms interval whatever the capacity, so the flow is at a third of the capacity or
/// less half a second in, and at the virtual capacity within 1% from 6 s on. (At 1 Mb/s a
/// 10 ms interval sees 0 or 1 packet, e in eq. 6 jumps between 1 and -0.3, and R does not
/// settle: docs/scenario.md.)
#[test]
fn convergence_takes_the_same_number_of_intervals_at_any_capacity() {
    for (rate, c) in [("10Mbps", 1e7), ("100Mbps", 1e8), ("10Gbps", 1e10)] {
        let w = run(json!({
            "duration": "8s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": rate,
                         "bottleneck_delay": "50ms", "access_rate": "40Gbps"},
            "queues": {"router": {"kind": "piqi", "limit_packets": 100000}},
            "transport": {"protocol": "piqi"},
            "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "8s"}]}],
            "output": {"series": {"interval": "100ms", "links": ["l0->rl"]}},
        }));
        let early = common::series_mean(&w, "throughput_bps", "l0->rl", 0.4, 0.6) / c;
        let late = common::series_mean(&w, "throughput_bps", "l0->rl", 6.0, 8.0) / c;
        assert!(early < 0.35, "{rate}: {early} of C half a second in");
        assert!((late - 0.95).abs() < 0.01, "{rate}: {late} of C from 6 s on, gamma = 0.95");
    }
}

#[test]
fn bad_piqi_settings_are_refused_naming_the_field() {
    let scenario = |queue: serde_json::Value| {
        json!({
            "duration": "1s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "10Mbps", "bottleneck_delay": "1ms"},
            "queues": {"router": queue},
            "transport": {"protocol": "piqi"},
            "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s"}]}],
        })
        .to_string()
    };
    let err = |q| fctlab_core::scenario::build(&scenario(q), std::path::Path::new(".")).err().expect("refused");
    let e = err(json!({"kind": "piqi", "gamma": 0}));
    assert_eq!(e.field, "queues.router.gamma", "{e}");
    let e = err(json!({"kind": "piqi", "kappa1": 0.2, "kappa2": -0.3}));
    assert_eq!(e.field, "queues.router.kappa2", "{e}");
    assert!(e.message.contains("integral"), "{e}");
    let e = err(json!({"kind": "piqi", "interval": "0s"}));
    assert_eq!(e.field, "queues.router.interval", "{e}");
}
