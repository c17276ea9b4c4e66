//! DCTCP and classic ECN end to end: the queue DCTCP keeps at a step-marking bottleneck
//! against the analysis of the DCTCP paper (sec. 3.3), alpha against the same analysis, and
//! RFC 3168 ECN keeping a loss-based window off the buffer's limit.

mod common;

use common::{run, series_rows};
use fctlab_core::protocol::dctcp::{DctcpConfig, SawtoothQueue};
use serde_json::{json, Value};

const PKT: f64 = 1500.0;
/// The dumbbell's rl -> rr link: its first link.
const BOTTLENECK: usize = 0;

/// `n` long-lived flows `l<i>` -> `r<i>` on a dumbbell of `rate` with a round trip of 100 us
/// (25 us each way on the bottleneck, 12.5 us on each access link), routers running `queue`,
/// hosts `transport`; the bottleneck and flow 0 sampled every 20 us for `secs` seconds.
fn long_flows(n: usize, rate: &str, queue: Value, transport: Value, secs: f64) -> Value {
    let flows: Vec<_> = (0..n).map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": 0})).collect();
    json!({
        "duration": format!("{secs}s"),
        "max_time": format!("{secs}s"),
        "topology": {"kind": "dumbbell", "hosts_per_side": n, "bottleneck_rate": rate,
                     "bottleneck_delay": "25us", "access_rate": rate, "access_delay": "12.5us"},
        "queues": {"router": queue},
        "transport": transport,
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "20us", "links": ["bottleneck"], "flows": [0]}},
    })
}

fn step(k: u64) -> Value {
    json!({"kind": "step", "k_packets": k, "limit_packets": 1000})
}

/// The queue in packets after `warm` seconds.
fn queue_packets(w: &fctlab_core::world::World, warm: f64) -> Vec<f64> {
    series_rows(w, "queue_bytes", "bottleneck").into_iter().filter(|&(t, _)| t > warm).map(|(_, q)| q / PKT).collect()
}

fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// Sec. 3.3 (Fig. 13's setting): two long flows at 10 Gb/s, RTT 100 us, K = 40, g = 1/16.
/// The analysis gives a sawtooth between Q_min = 30.9 and Q_max = 42 packets. The queue stays
/// in that band up to the packet-level noise the fluid analysis leaves out (a window is whole
/// packets, the last ACKs of a window arrive in bursts): 90% of samples within 3 packets of it,
/// its median inside it, and never empty, so the link stays busy.
#[test]
fn two_dctcp_flows_hold_the_queue_in_the_band_of_the_analysis() {
    let w = run(long_flows(2, "10Gbps", step(40), json!({"cc": "dctcp", "iw": 10}), 0.2));
    let bdp = 10e9 * 100e-6 / (PKT * 8.0);
    let band = SawtoothQueue::new(2.0, bdp, 40.0);
    let q = queue_packets(&w, 0.05);
    let inside = q.iter().filter(|&&x| x >= band.q_min - 3.0 && x <= band.q_max + 3.0).count();
    let (p5, p50, p95) = (quantile(&q, 0.05), quantile(&q, 0.5), quantile(&q, 0.95));
    eprintln!("queue p5 {p5:.1} p50 {p50:.1} p95 {p95:.1} packets; band [{:.1}, {:.1}]", band.q_min, band.q_max);
    assert!(inside as f64 >= 0.9 * q.len() as f64, "{inside} of {} samples in the band", q.len());
    assert!(p50 >= band.q_min && p50 <= band.q_max, "median {p50}");
    assert!(q.iter().all(|&x| x > 0.0), "the queue never drains");
    let link = &w.links[BOTTLENECK];
    assert_eq!(link.stats.drops_pkts, 0, "marks, not drops");
    // alpha against the analysis: `the_marked_fraction_and_alpha_follow_the_analysis`.
}

/// Sec. 3.3: N synchronized flows mark one window of data in each sawtooth, so the
/// fraction of packets marked, and alpha with it, is alpha ~ sqrt(2 / W*), W* = (C x RTT + K) / N.
/// Two long flows at 10 Gb/s, RTT 100 us, K = 65 (the paper's K at 10 Gb/s): C x RTT = 83.3
/// packets, W* = 74.2, sqrt(2 / W*) = 0.164.
///
/// The tolerance is the analysis's own resolution at this W* ([`SawtoothQueue::alpha_tolerance`],
/// 8.7%): sqrt(2 / W*) is 1.1% from the exact root (0.166); the analysis holds alpha constant
/// where DCTCP's moving average (g = 1/16) cuts at its trough, which over a sawtooth of 5.7
/// windows raises the marked fraction by 6.2%; and a flow's marked span is one window to within
/// a packet, 1 / W* = 1.3%. A second reduction in the same window (two per sawtooth) takes the
/// fraction to about sqrt(1 / W*), 0.71 of the analysis, far outside.
#[test]
fn the_marked_fraction_and_alpha_follow_the_analysis() {
    let (n, k, warm, secs) = (2, 65.0, 0.05, 0.2);
    let mut spec = long_flows(n, "10Gbps", step(65), json!({"cc": "dctcp", "iw": 10}), secs);
    spec["output"]["series"]["flows"] = json!([0, 1]);
    let w = run(spec);
    let bdp = 10e9 * 100e-6 / (PKT * 8.0);
    let sec33 = SawtoothQueue::new(n as f64, bdp, k);
    let (analysis, tolerance) = (sec33.alpha(), sec33.alpha_tolerance(DctcpConfig::default().g));
    let after = |metric: &str, target: &str| -> Vec<f64> {
        series_rows(&w, metric, target).into_iter().filter(|&(t, _)| t > warm).map(|(_, v)| v).collect()
    };
    // Packets the bottleneck sent between the first sample after the warm-up and the last, from
    // its throughput samples (20 us apart, each the rate over the interval before it).
    let sent = after("throughput_bps", "bottleneck")[1..].iter().sum::<f64>() * 20e-6 / (PKT * 8.0);
    let marks = after("ecn_marks", "bottleneck");
    let marked = (marks[marks.len() - 1] - marks[0]) / sent;
    let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    let alpha = (mean(after("dctcp_alpha", "flow0")) + mean(after("dctcp_alpha", "flow1"))) / 2.0;
    eprintln!(
        "marked fraction {marked:.3}, mean alpha {alpha:.3}, sqrt(2 / W*) {analysis:.3} +- {:.1}%",
        100.0 * tolerance
    );
    assert!((marked - analysis).abs() <= tolerance * analysis, "marked fraction {marked:.3} against {analysis:.3}");
    assert!((alpha - analysis).abs() <= tolerance * analysis, "mean alpha {alpha:.3} against {analysis:.3}");
}

/// A drop-tail TCP fills the buffer; DCTCP at the same port keeps the queue near K and the
/// link as busy (the paper's Fig. 1 and sec. 4.1 claim: same throughput, far less buffer).
#[test]
fn dctcp_keeps_a_small_queue_where_newreno_fills_the_buffer() {
    let reno =
        run(long_flows(2, "1Gbps", json!({"kind": "droptail", "limit_packets": 200}), json!({"cc": "newreno"}), 0.3));
    let dctcp = run(long_flows(2, "1Gbps", step(20), json!({"cc": "dctcp"}), 0.3));
    let (qr, qd) = (queue_packets(&reno, 0.1), queue_packets(&dctcp, 0.1));
    let (mr, md) = (quantile(&qr, 0.5), quantile(&qd, 0.5));
    eprintln!("median queue: newreno {mr:.1}, dctcp {md:.1} packets");
    assert!(md < 30.0 && mr > 3.0 * md, "newreno {mr}, dctcp {md}");
    let sent = |w: &fctlab_core::world::World| w.links[BOTTLENECK].stats.bytes_sent as f64;
    assert!(sent(&dctcp) > 0.97 * sent(&reno), "dctcp {} bytes, newreno {}", sent(&dctcp), sent(&reno));
}

/// RFC 3168: with ECN the window halves on marks instead of losses, so a NewReno flow behind
/// a RED queue loses nothing and never times out, where without ECN the same RED drops.
#[test]
fn classic_ecn_turns_red_drops_into_marks() {
    let red = json!({"kind": "red", "min_packets": 5, "max_packets": 15, "limit_packets": 1000});
    let plain = run(long_flows(2, "1Gbps", red.clone(), json!({"cc": "newreno"}), 0.3));
    let ecn = run(long_flows(2, "1Gbps", red, json!({"cc": "newreno", "ecn": true}), 0.3));
    let bottleneck = |w: &fctlab_core::world::World| w.links[BOTTLENECK].stats.clone();
    assert!(bottleneck(&plain).drops_pkts > 10, "RED drops non-ECN packets: {}", bottleneck(&plain).drops_pkts);
    assert_eq!(bottleneck(&ecn).drops_pkts, 0);
    let marks = series_rows(&ecn, "ecn_marks", "bottleneck").last().unwrap().1;
    assert!(marks > 10.0, "{marks} marks");
    assert_eq!(series_rows(&plain, "ecn_marks", "bottleneck").last().unwrap().1, 0.0);
    assert_eq!(ecn.records.iter().map(|r| r.timeouts).sum::<u64>(), 0);
    assert!(ecn.records.iter().all(|r| r.retx_bytes == 0), "no retransmissions with ECN");
}
