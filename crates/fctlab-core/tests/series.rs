//! The series seed 003's explicit-feedback plots need: a flow's sending rate (`send_rate_bps`),
//! a link's offered input (`input_bps`), and a JetMax port's g_l and N_l (`jetmax_rate_bps`,
//! `jetmax_flows`), each checked against a value computed here without the series.

mod common;

use fctlab_core::scenario;
use fctlab_core::world::World;
use serde_json::json;
use std::path::Path;

use common::run;

use common::series_rows as rows;

/// Values of `metric` for `target`, one per sample.
fn values(w: &World, metric: &str, target: &str) -> Vec<f64> {
    rows(w, metric, target).into_iter().map(|(_, v)| v).collect()
}

/// ```text
///   l0 --1G-- rl ==100M, 10 ms== rr --1G-- r0      one flow at a fixed 10 Mb/s, no handshake
/// ```
/// 960 payload bytes under 40 of headers, sampled every 10 ms for 2 s.
fn fixed_rate_flow() -> World {
    run(json!({
        "duration": "2s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "droptail"}},
        "transport": {"protocol": "rcp", "mss": 960, "header": 40, "fixed_rate": "10Mbps", "handshake": false},
        "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": 0}]}],
        "output": {"series": {"interval": "10ms", "flows": [0]}},
    }))
}

/// The pacing clock spaces wire bytes (960 payload + 40 header) at 10 Mb/s, so the rate on the
/// wire is 10 Mb/s and the payload rate 9.6: the series must report the first.
#[test]
fn a_fixed_rate_flow_reports_its_rate_on_the_wire() {
    let w = fixed_rate_flow();
    let rate = rows(&w, "send_rate_bps", "flow0");
    assert!(rows(&w, "cwnd_bytes", "flow0").is_empty(), "a paced sender has no window");
    // Before the first ACK (RTT 20 ms) no window can close, and the first closes 2 SRTT later.
    assert_eq!(rate[0], (0.01, 0.0));
    let running: Vec<f64> = rate.iter().filter(|(t, _)| *t >= 0.2).map(|&(_, v)| v).collect();
    assert!(running.len() > 150);
    for v in running {
        assert!((v - 10e6).abs() < 0.01 * 10e6, "{v} b/s, fixed rate 10 Mb/s on the wire");
    }
}

/// ```text
///   l0 --10G-- rl ==10G, 20 ms== rr --10G-- r0      one 300 KB TCP transfer, no queue to speak of
/// ```
/// The window never reaches a BDP (50 MB), so the RTT stays the propagation delay (plus a few
/// microseconds of serialization) and the rate is the window's wire bits over the RTT of the path.
#[test]
fn a_tcp_flow_reports_its_window_over_its_srtt() {
    let w = run(json!({
        "duration": "1s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "10Gbps",
                     "bottleneck_delay": "20ms", "access_rate": "10Gbps"},
        "queues": {"router": {"kind": "droptail"}},
        "transport": {"cc": "newreno", "iw": 4},
        "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": "300KB"}]}],
        "output": {"series": {"interval": "5ms", "flows": [0]}},
    }));
    let rtt = w.records[0].rtt_prop.as_secs_f64();
    let cwnd = rows(&w, "cwnd_bytes", "flow0");
    let rate = rows(&w, "send_rate_bps", "flow0");
    assert_eq!(cwnd.len(), rate.len(), "one rate per window sample");
    assert!(cwnd.len() > 30);
    let mut measured = 0;
    let mut windows = Vec::new();
    for (&(t, c), &(t2, r)) in cwnd.iter().zip(&rate) {
        assert_eq!(t, t2);
        if t <= rtt {
            assert_eq!(r, 0.0, "no RTT sample before the SYN-ACK, at {t} s");
            continue;
        }
        // The window's bytes on the wire: 1460-byte segments with 40 bytes of headers.
        let want = c * 1500.0 / 1460.0 * 8.0 / rtt;
        // SRTT is at least the propagation RTT, and at most a fraction of a percent above.
        assert!(r <= want * (1.0 + 1e-9) && r > 0.995 * want, "{t} s: {r} b/s, cwnd x 8 / RTT = {want}");
        measured += 1;
        windows.push(c as u64);
    }
    windows.dedup();
    assert!(measured > 20 && windows.len() >= 4, "the window grows through the samples: {windows:?}");
}

/// Two long-lived TCP flows into a 20-packet buffer on 100 Mb/s: the bottleneck drops. Returns
/// the world and a lookup of link ids by name.
fn lossy_dumbbell(queue: serde_json::Value) -> (World, impl Fn(&str) -> usize) {
    let spec = json!({
        "duration": "2s",
        "drain": false,
        "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": queue},
        "transport": {"cc": "newreno"},
        "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": 0},
                                                      {"src": "l1", "dst": "r1", "start": "10ms"}]}],
        "output": {"series": {"interval": "10ms", "links": ["bottleneck", "bottleneck_rev", "l0->rl"]}},
    });
    let (mut w, info) = scenario::build(&spec.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    w.run();
    let names = info.link_names;
    (w, move |name: &str| names.iter().position(|n| n == name).expect("a link of the dumbbell"))
}

/// ```text
///   l0, l1 --1G-- rl ==100M, 10 ms, 20-packet queue== rr --1G-- r0, r1
/// ```
/// What a port is offered either leaves on the wire, is dropped, or is still inside it (waiting,
/// or partly serialized): sample by sample, input - throughput is the drops plus the growth of
/// what is inside, which is the queue's growth up to one packet in serialization; over the run
/// the sum is the drops plus what is inside at the end. The same for a drop-tail port (counted
/// at admission, on the FIFO fast path) and a `prio` port (counted at dequeue): the series do
/// not depend on where the counters count. A link that drops nothing and hardly queues (the
/// ACKs' `bottleneck_rev`, the sender's NIC) has its input as throughput up to one packet.
#[test]
fn input_is_throughput_plus_drops_plus_what_the_port_holds() {
    for queue in [json!({"kind": "droptail", "limit_packets": 20}), json!({"kind": "prio", "limit_packets": 20})] {
        let (w, id) = lossy_dumbbell(queue.clone());
        let dt = 0.01;
        let end = w.now();
        for (name, lossy) in [("bottleneck", true), ("bottleneck_rev", false), ("l0->rl", false)] {
            let input = values(&w, "input_bps", name);
            let thr = values(&w, "throughput_bps", name);
            let queue_bytes = values(&w, "queue_bytes", name);
            assert_eq!(input.len(), 200);
            let link = &w.links[id(name)];
            let wire_bits = 1500.0 * 8.0;
            let (mut offered_minus_sent, mut before, mut grew) = (0.0, 0.0, 0);
            for k in 0..input.len() {
                let growth = (queue_bytes[k] - before) * 8.0;
                before = queue_bytes[k];
                let surplus = (input[k] - thr[k]) * dt;
                // Drops are never negative; the packet in serialization moves by at most one packet.
                assert!(surplus - growth > -wire_bits - 1e-3, "{queue} {name} sample {k}: {surplus} - {growth}");
                offered_minus_sent += surplus;
                grew += (growth > 0.0) as usize;
            }
            let drops = link.stats.drops_bytes as f64 * 8.0;
            let inside = link.offered_bytes() as f64 * 8.0
                - drops
                - link.serialized_bit_ps(fctlab_core::units::Time::from_secs(2)) as f64 / 1e12;
            let want = drops + inside;
            assert!(
                (offered_minus_sent - want).abs() <= 1e-6 * want.max(1.0) + 1e-3,
                "{queue} {name}: input - throughput summed to {offered_minus_sent} bits, drops + inside {want}"
            );
            if lossy {
                assert!(drops > 10.0 * wire_bits && grew > 10, "the test needs drops and a growing queue");
            } else {
                assert_eq!(drops, 0.0, "{name} drops nothing");
            }
            assert!(end >= fctlab_core::units::Time::from_secs(2));
        }
    }
}

/// ```text
///   4 hosts --10G-- rl ==1G, 10 ms== rr --10G-- 4 hosts     web-search flows at 50% (quickstart)
/// ```
/// No link ever reports a throughput above its rate, sample by sample, on drop-tail ports (timed
/// at admission), `prio` ports (at dequeue), RCP ports and a link whose rate drops mid-run; and
/// the bottleneck is busy enough that the bound is tight (some sample above 95% of the rate;
/// 75% for RCP, whose routers start at 5% of the rate and whose hosts pace below it).
#[test]
fn no_link_reports_more_than_its_rate() {
    let queues = [
        json!({"kind": "droptail", "limit": "2.5MB"}),
        json!({"kind": "prio", "limit": "2.5MB"}),
        json!({"kind": "rcp", "limit": "2.5MB"}),
    ];
    for (k, queue) in queues.into_iter().enumerate() {
        let protocol = if k == 2 { "rcp" } else { "tcp" };
        let mut spec = json!({
            "seed": 1,
            "duration": "3s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "1Gbps",
                         "bottleneck_delay": "10ms"},
            "queues": {"router": queue},
            "transport": {"protocol": protocol, "cc": "cubic", "iw": 10},
            "workload": [{"kind": "poisson", "load": 0.5, "load_on": "bottleneck",
                          "sizes": {"kind": "cdf", "name": "websearch"}}],
            "output": {"series": {"interval": "10ms", "links": ["bottleneck", "bottleneck_rev", "l0->rl", "rr->r0"]}},
        });
        if k == 1 {
            spec["link_rate"] = json!([{"link": "bottleneck", "at": "1500ms", "rate": "400Mbps"}]);
        }
        let (mut w, info) = scenario::build(&spec.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        w.run();
        let mut busiest: f64 = 0.0;
        for name in ["bottleneck", "bottleneck_rev", "l0->rl", "rr->r0"] {
            let link = &w.links[info.link_names.iter().position(|n| n == name).unwrap()];
            for (t, v) in rows(&w, "throughput_bps", name) {
                // After a rate change the link's rate is the new one; the bound is the rate in force.
                // The packet on the wire at the change finishes at the old rate (at most one
                // 1,500-byte packet, 12 us at 1 Gb/s), so the first interval after it may carry
                // those 12 us at 1 Gb/s and the rest at 400 Mb/s.
                let changed = k == 1 && name == "bottleneck";
                let rate = if changed && t <= 1.5 {
                    1e9
                } else if changed && t <= 1.51 {
                    400e6 + (1e9 - 400e6) * (1500.0 * 8.0 / 1e9) / 0.01
                } else {
                    link.rate.0 as f64
                };
                assert!(v <= rate, "queue {k}: {name} reports {v} b/s at {t} s, above its rate {rate}");
                if name == "bottleneck" && t <= 1.5 {
                    busiest = busiest.max(v / rate);
                }
            }
        }
        let busy = if k == 2 { 0.75 } else { 0.95 };
        assert!(busiest > busy, "queue {k}: the bottleneck never got busy ({busiest})");
    }
}

/// ```text
///   l0..l3 --1G-- rl ==100M, 10 ms, JetMax== rr --1G-- r0..r3
/// ```
/// Four long-lived flows: N_l = 4 and g_l = gamma C / N = 0.98 x 100 / 4 = 24.5 Mb/s, which the
/// flows send at (on the wire) and the series reports averaged over two RTTs.
#[test]
fn jetmax_ports_report_their_fair_rate_and_flow_count() {
    let flows: Vec<_> = (0..4)
        .map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": format!("{}ms", 100 * i)}))
        .collect();
    let w = run(json!({
        "duration": "4s",
        "drain": false,
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "jetmax", "limit": "2MB"}},
        "transport": {"protocol": "jetmax"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "50ms", "links": ["bottleneck", "l0->rl"], "flows": [0, 1, 2, 3]}},
    }));
    let fair = 0.98 * 100e6 / 4.0;
    let n = common::series_mean(&w, "jetmax_flows", "bottleneck", 2.0, 4.0);
    assert!((n - 4.0).abs() < 0.03 * 4.0, "N = {n}");
    let g = common::series_mean(&w, "jetmax_rate_bps", "bottleneck", 2.0, 4.0);
    assert!((g - fair).abs() < 0.03 * fair, "g = {g}, 0.98 C / 4 = {fair}");
    for f in 0..4 {
        let x = common::series_mean(&w, "send_rate_bps", &format!("flow{f}"), 2.0, 4.0);
        assert!((x - fair).abs() < 0.03 * fair, "flow {f} sends at {x}");
    }
    assert!(rows(&w, "jetmax_rate_bps", "l0->rl").is_empty(), "a host NIC is not a JetMax port");
    assert_eq!(rows(&w, "jetmax_flows", "bottleneck").len(), rows(&w, "queue_bytes", "bottleneck").len());
}

/// A flow's progress (`acked_bytes`): a fixed-rate flow at 10 Mb/s on the wire (960 of every
/// 1000 bytes payload, one-way delay about 10.5 ms) has about 9.6 Mb/s x (t - RTT) acknowledged
/// at time t, never decreasing; a TCP transfer's progress ends at its size.
#[test]
fn acked_bytes_follow_a_flows_progress() {
    let w = fixed_rate_flow();
    let acked = rows(&w, "acked_bytes", "flow0");
    assert!(acked.windows(2).all(|p| p[1].1 >= p[0].1), "progress never goes back");
    let rtt = w.records[0].rtt_prop.as_secs_f64();
    for &(t, b) in acked.iter().filter(|(t, _)| *t >= 0.5) {
        let want = 9.6e6 / 8.0 * (t - rtt);
        assert!((b - want).abs() < 2.0 * 960.0 + 0.002 * want, "{t} s: {b} B acknowledged, about {want}");
    }
    let tcp = run(json!({
        "duration": "5s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "droptail"}},
        "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": "200KB"}]}],
        "output": {"series": {"interval": "1ms", "flows": [0]}},
    }));
    let acked = values(&tcp, "acked_bytes", "flow0");
    assert_eq!(acked[0], 0.0);
    assert!(acked.windows(2).all(|p| p[1] >= p[0]));
    assert!(*acked.last().unwrap() <= 200_000.0 && *acked.last().unwrap() > 150_000.0, "{acked:?}");
}

/// `workloads = [1]` samples every flow of workload entry 1 whatever its id: two flows written
/// in the scenario, placed among Poisson arrivals that start before them, get series rows
/// (their `acked_bytes` rising towards their size while they are active) and no Poisson flow
/// does.
#[test]
fn a_workload_entry_can_be_sampled_by_index() {
    let w = run(json!({
        "duration": "1s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "workload": [
            {"kind": "poisson", "load": 0.3, "sizes": {"kind": "fixed", "size": 10_000}},
            {"kind": "flows", "flows": [
                {"src": "l0", "dst": "r0", "start": "0.3s", "size": 50_000},
                {"src": "l1", "dst": "r1", "start": "0.5s", "size": 20_000},
            ]},
        ],
        "output": {"series": {"interval": "5ms", "workloads": [1]}},
    }));
    let written: Vec<usize> = (0..w.records.len()).filter(|&i| w.records[i].workload == 1).collect();
    assert_eq!(written.len(), 2);
    assert!(written[0] > 0, "Poisson flows start before the written ones");
    for &i in &written {
        let acked: Vec<f64> = rows(&w, "acked_bytes", &format!("flow{i}")).into_iter().map(|r| r.1).collect();
        let size = w.records[i].size.unwrap() as f64;
        assert!(acked.windows(2).all(|p| p[0] <= p[1]), "flow {i}: {acked:?}");
        assert!(acked[acked.len() - 1] > 0.5 * size && acked[acked.len() - 1] <= size, "flow {i}: {acked:?}");
    }
    let sampled: std::collections::BTreeSet<&str> = (0..w.series.time.len())
        .filter(|&i| w.series.metric[i].name() == "acked_bytes")
        .map(|i| w.series.target[i].as_str())
        .collect();
    assert_eq!(sampled.len(), 2, "only the written flows: {sampled:?}");
}

/// A run sampled every `interval` on one link (5 rows a sample) and one flow (4 rows).
fn sampled_run(duration: &str, interval: &str, drain: bool) -> serde_json::Value {
    json!({
        "duration": duration,
        "drain": drain,
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": "1MB"}]}],
        "output": {"series": {"interval": interval, "links": ["bottleneck"], "flows": [0]}},
    })
}

/// A run that does not drain ends at `duration`: its series is sized up to there, not up to
/// `max_time` (`duration` + 300 s), which refused a 0.4 s run sampled every 10 us for 78 GiB.
#[test]
fn a_series_without_draining_is_sized_against_the_runs_end() {
    let build = |s: serde_json::Value| scenario::build(&s.to_string(), Path::new("."));
    // 4 x 10^4 samples of 9 rows: 144 MB.
    let w = build(sampled_run("0.4s", "10us", false));
    assert!(w.is_ok(), "{}", w.err().unwrap());
    // Draining, the run may go on to max_time: 3 x 10^7 samples of 9 rows, 100 GiB.
    let e = build(sampled_run("0.4s", "10us", true)).err().expect("refused");
    assert_eq!(e.field, "output.series.interval");
    assert!(
        e.message.contains("2.704e8 series rows (9 per sample") && e.message.contains("until max_time = 300.4 s)"),
        "{e}"
    );
    // Without draining, a long run is still refused, and the message says what it was sized by.
    let e = build(sampled_run("10000s", "10us", false)).err().expect("refused");
    assert!(
        e.message.contains("9.000e9 series rows (9 per sample") && e.message.contains("until duration = 10000 s)"),
        "{e}"
    );
}
