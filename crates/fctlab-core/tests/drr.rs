//! Deficit round robin end to end: backlogged classes share a bottleneck by their weights.

mod common;

use serde_json::json;

/// Two long TCP flows marked priority 0 and 1 into a `drr` bottleneck of weights 3 : 1 share
/// 100 Mb/s as 75 / 25; with weights 1 : 1, equally; the explicit-header classes separate an
/// RCP flow from a TCP flow.
#[test]
fn long_flows_share_a_drr_bottleneck_by_weight() {
    for (weights, want0) in [(json!([3.0, 1.0]), 75.0), (json!([1.0, 1.0]), 50.0)] {
        let mut w = common::world(&json!({
            "duration": "10s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "100Mbps",
                         "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
            "queues": {"links": {"bottleneck": {"kind": "drr", "weights": weights, "limit_packets": 200}}},
            "transports": {"low": {"protocol": "tcp", "priority": 1}},
            "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s"}]},
                         {"kind": "long_lived", "transport": "low", "flows": [{"src": "l1", "dst": "r1", "start": "0s"}]}],
            "output": {"series": {"interval": "100ms", "links": ["l0->rl", "l1->rl", "bottleneck"]}},
        }));
        w.run();
        let a = common::series_mean(&w, "throughput_bps", "l0->rl", 4.0, 10.0) / 1e6;
        let b = common::series_mean(&w, "throughput_bps", "l1->rl", 4.0, 10.0) / 1e6;
        assert!((a - want0).abs() < 0.05 * want0, "class 0: {a} Mb/s, want {want0} (weights {weights})");
        assert!((a + b - 100.0).abs() < 3.0, "the link stays busy: {a} + {b}");
    }
}

#[test]
fn bad_drr_settings_are_refused_naming_the_field() {
    let err = |queue: serde_json::Value| {
        let s = json!({
            "duration": "1s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "10Mbps", "bottleneck_delay": "1ms"},
            "queues": {"router": queue},
            "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s"}]}],
        });
        fctlab_core::scenario::build(&s.to_string(), std::path::Path::new(".")).err().expect("refused")
    };
    let e = err(json!({"kind": "drr", "weights": [1.0, 0.0]}));
    assert_eq!(e.field, "queues.router.weights", "{e}");
    assert!(e.message.contains("> 0"), "{e}");
    let e = err(json!({"kind": "drr", "weights": [1.0]}));
    assert!(e.message.contains("2 to 32"), "{e}");
    let e = err(json!({"kind": "drr", "weights": [1.0, 1.0, 1.0], "classify": "header"}));
    assert!(e.message.contains("classify"), "{e}");
}
