//! TIMELY end to end: two flows through a 10 Gb/s dumbbell (a drop-tail router: TIMELY reads
//! only RTTs), the second starting 2 ms after the first at line rate: the multiplicative
//! decreases shrink the gap between them while the additive steps keep it, so they settle near
//! half the link each, and the queue stays bounded near the RTT band of Tlow (50 us) to Thigh
//! (500 us), far below the 1 MB buffer.

mod common;

use common::{run, series_mean, series_rows};
use serde_json::json;

#[test]
fn two_flows_share_a_10g_bottleneck_fairly_with_a_bounded_queue() {
    let flows = json!([{"src": "l0", "dst": "r0", "start": "0s"}, {"src": "l1", "dst": "r1", "start": "2ms"}]);
    let w = run(json!({
        "duration": "40ms",
        "max_time": "40ms",
        "drain": false,
        "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "10Gbps",
                     "bottleneck_delay": "5us", "access_rate": "10Gbps", "access_delay": "1us"},
        "queues": {"router": {"kind": "droptail", "limit": "1MB"}},
        "transport": {"protocol": "timely", "line_rate": "10Gbps"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "100us", "links": ["bottleneck", "l0->rl", "l1->rl"]}},
    }));
    let (from, to) = (0.020, 0.040);
    let r0 = series_mean(&w, "throughput_bps", "l0->rl", from, to) / 1e9;
    let r1 = series_mean(&w, "throughput_bps", "l1->rl", from, to) / 1e9;
    let total = series_mean(&w, "throughput_bps", "bottleneck", from, to) / 1e9;
    let q = series_rows(&w, "queue_bytes", "bottleneck");
    let q_mean = series_mean(&w, "queue_bytes", "bottleneck", from, to);
    let q_max = q.iter().filter(|&&(t, _)| t > 0.003).map(|&(_, v)| v).fold(0.0, f64::max);
    let drops = series_rows(&w, "drops_bytes", "bottleneck").last().expect("the bottleneck's drops are sampled").1;
    eprintln!("rates {r0:.2} and {r1:.2} Gb/s, bottleneck {total:.2} Gb/s, queue mean {q_mean:.0} max {q_max:.0} bytes, drops {drops}");
    let jain = (r0 + r1).powi(2) / (2.0 * (r0 * r0 + r1 * r1));
    assert!(jain > 0.95, "Jain's index {jain}: {r0} and {r1} Gb/s");
    assert!(total > 8.5, "the bottleneck is used: {total} Gb/s");
    assert!(q_max < 700e3, "queue bounded by Thigh: max {q_max} bytes");
    assert_eq!(drops, 0.0);
}
