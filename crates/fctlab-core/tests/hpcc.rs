//! HPCC end to end: the ports' telemetry and the senders' window law keep a shared
//! bottleneck near the target utilization eta with a near-empty queue (HPCC's design goal,
//! Li et al. 2019 sec. 3), and an incast's queue drains within a few round trips.

mod common;

use common::{run, series_rows};
use serde_json::{json, Value};

const PKT: f64 = 1500.0;

/// `n` long-lived flows `l<i>` -> `r<i>` through a 10 Gb/s dumbbell (round trip about 14 us)
/// with HPCC's ports, starting at `starts[i]` seconds, for `secs` seconds; the bottleneck
/// sampled every 10 us.
fn hpcc_flows(starts: &[f64], secs: f64, receivers: usize) -> Value {
    let flows: Vec<_> = starts
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"src": format!("l{i}"), "dst": format!("r{}", i % receivers), "start": format!("{s}s")}))
        .collect();
    json!({
        "duration": format!("{secs}s"),
        "max_time": format!("{secs}s"),
        "drain": false,
        "topology": {"kind": "dumbbell", "hosts_per_side": starts.len(), "bottleneck_rate": "10Gbps",
                     "bottleneck_delay": "5us", "access_rate": "10Gbps", "access_delay": "1us"},
        "queues": {"router": {"kind": "hpcc", "limit": "1MB"}},
        "transport": {"protocol": "hpcc", "line_rate": "10Gbps", "base_rtt": "14us"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "10us", "links": ["bottleneck"]}},
    })
}

fn after(rows: Vec<(f64, f64)>, t0: f64) -> Vec<f64> {
    rows.into_iter().filter(|&(t, _)| t > t0).map(|(_, v)| v).collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Four flows share the bottleneck: its throughput settles near eta = 95% of the link (the
/// INT header's bytes included) and the queue stays below one packet on average, where a
/// loss-based TCP would fill the 1 MB buffer.
#[test]
fn flows_share_a_bottleneck_at_eta_with_a_near_empty_queue() {
    let w = run(hpcc_flows(&[0.0, 0.0, 0.0, 0.0], 0.01, 4));
    let thr = after(series_rows(&w, "throughput_bps", "bottleneck"), 0.002);
    let q = after(series_rows(&w, "queue_bytes", "bottleneck"), 0.002);
    let (u, qm) = (mean(&thr) / 10e9, mean(&q));
    eprintln!("utilization {u:.3}, mean queue {qm:.0} bytes");
    assert!((0.88..=0.97).contains(&u), "utilization {u}");
    assert!(qm < PKT, "mean queue {qm} bytes");
}

/// Sixteen senders start at once towards one receiver, each with one BDP at line rate: the
/// first ACKs' telemetry shows the queue they built, every window is cut by U / eta, and the
/// receiver's port drains it at close to its line rate: within twice the time it takes to send
/// the peak queue at 10 Gb/s the queue is below five packets, and stays there, with the link
/// busy.
#[test]
fn an_incast_queue_drains_at_line_rate() {
    let w = run(hpcc_flows(&[0.0; 16], 0.002, 1));
    let q = series_rows(&w, "queue_bytes", "bottleneck");
    let (t_peak, peak) = q.iter().copied().fold((0.0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let drained = t_peak + 2.0 * peak * 8.0 / 10e9;
    let late_max = after(q, drained).into_iter().fold(0.0, f64::max);
    let thr = after(series_rows(&w, "throughput_bps", "bottleneck"), 100e-6);
    eprintln!(
        "peak {peak:.0} bytes at {:.0} us; after {:.0} us at most {late_max:.0}; utilization {:.3}",
        t_peak * 1e6,
        drained * 1e6,
        mean(&thr) / 10e9
    );
    assert!(peak > 10.0 * PKT, "the incast builds a queue: {peak}");
    assert!(late_max < 5.0 * PKT, "the queue drained: {late_max} bytes after {drained} s");
    assert!(mean(&thr) / 10e9 > 0.85);
}
