//! RCP end to end: convergence to max-min fair rates, C/R following the number of flows, and
//! the stamped rate being the smallest along the path.

mod common;

use fctlab_core::protocol::Law;
use fctlab_core::units::Time;
use fctlab_core::world::World;
use serde_json::json;

use common::run;

fn fair_rate(w: &World, from: u32, to: u32) -> f64 {
    let l = w.links.iter().find(|l| l.from == from && l.to == to).expect("link");
    match l.law() {
        Some(Law::Rcp(r)) => r.fair_rate(),
        _ => panic!("not an RCP port"),
    }
}

fn rcp_queues() -> serde_json::Value {
    json!({"router": {"kind": "rcp", "limit": "2MB"}})
}

// The routers start from the ns-2 code's state (R = 0.05 C, d = 0.2 s) and take a few
// seconds to reach the fair rate from a cold start; the tests measure after that.

/// ```text
///   l0..l3 --1G-- rl ==100M, 10 ms, RCP== rr --1G-- r0..r3
/// ```
#[test]
fn long_lived_flows_share_a_dumbbell_equally_with_an_empty_queue() {
    let flows: Vec<_> =
        (0..4).map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": "0s", "stop": "15s"})).collect();
    let downlinks: Vec<String> = (0..4).map(|i| format!("rr->r{i}")).collect();
    let mut links = downlinks.clone();
    links.push("bottleneck".into());
    let w = run(json!({
        "duration": "15s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": rcp_queues(),
        "transport": {"protocol": "rcp"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "50ms", "links": links}},
    }));
    // Node 0 is rl, node 1 rr: C/R is the number of flows.
    let n_est = 100e6 / fair_rate(&w, 0, 1);
    assert!((n_est - 4.0).abs() < 0.25, "C/R = {n_est}");
    for d in &downlinks {
        let r = common::series_mean(&w, "throughput_bps", d, 10.0, 15.0) / 1e6;
        assert!((r - 25.0).abs() < 1.5, "{d}: {r} Mb/s");
    }
    let q = common::series_mean(&w, "queue_bytes", "bottleneck", 10.0, 15.0);
    assert!(q < 3_000.0, "steady-state queue {q} B (two packets)");
}

/// Fig. 3.3: 8 flows (A) bottlenecked at a 400 Mb/s link, 4 flows (B) at an 80 Mb/s link and
/// then crossing the 400 Mb/s link too: B gets 20 Mb/s each, A (400 - 80) / 8 = 40 Mb/s each.
///
/// ```text
///   b0..b3 -- x ==80M== y ==400M== z -- d
///   a0..a7 ----------- y
/// ```
#[test]
fn two_groups_with_different_bottlenecks_get_their_max_min_rates() {
    let mut nodes = vec![
        json!({"name": "x", "kind": "router"}),
        json!({"name": "y", "kind": "router"}),
        json!({"name": "z", "kind": "router"}),
        json!({"name": "d", "kind": "host"}),
    ];
    let mut links = vec![
        json!({"a": "x", "b": "y", "rate": "80Mbps", "delay": "5ms", "name": "linkB"}),
        json!({"a": "y", "b": "z", "rate": "400Mbps", "delay": "5ms", "name": "linkC"}),
        json!({"a": "z", "b": "d", "rate": "10Gbps", "delay": "1ms"}),
    ];
    let mut flows = Vec::new();
    let mut uplinks = Vec::new();
    for (group, n, router) in [("b", 4, "x"), ("a", 8, "y")] {
        for i in 0..n {
            let h = format!("{group}{i}");
            nodes.push(json!({"name": h, "kind": "host"}));
            links.push(json!({"a": h, "b": router, "rate": "1Gbps", "delay": "1ms"}));
            flows.push(json!({"src": h, "dst": "d", "start": "0s", "stop": "15s"}));
            uplinks.push(format!("{h}->{router}"));
        }
    }
    let mut series_links = uplinks.clone();
    series_links.extend(["linkB".to_string(), "linkC".to_string()]);
    let w = run(json!({
        "duration": "15s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "queues": rcp_queues(),
        "transport": {"protocol": "rcp"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "50ms", "links": series_links}},
    }));
    // Both bottlenecks run with an almost empty queue in steady state: under 1% of the
    // bandwidth-delay product of their shortest round trip (B's 24 ms, A's 14 ms): a few
    // packets of pacing jitter among 12 flows.
    for (l, bdp_bytes) in [("linkB", 80e6 * 0.024 / 8.0), ("linkC", 400e6 * 0.014 / 8.0)] {
        let q = common::series_mean(&w, "queue_bytes", l, 10.0, 15.0);
        assert!(q < 0.01 * bdp_bytes, "{l}: steady-state queue {q} B, 1% of C x RTT is {} B", 0.01 * bdp_bytes);
    }
    for u in &uplinks {
        let r = common::series_mean(&w, "throughput_bps", u, 10.0, 15.0) / 1e6;
        let want = if u.starts_with('b') { 20.0 } else { 40.0 };
        assert!((r - want).abs() < 0.08 * want, "{u}: {r} Mb/s, max-min fair {want}");
    }
    // Link C's R is A's share: C/R = 8 + 4 x (20/40) = 10.
    let n_est = 400e6 / fair_rate(&w, 1, 2);
    assert!((n_est - 10.0).abs() < 0.6, "C/R on link C = {n_est}");
}

/// Fig. 3.2: C/R follows the number of flows as 10 more flows join and leave.
#[test]
fn c_over_r_returns_to_the_number_of_flows_after_flows_leave() {
    let mut flows: Vec<_> = (0..10)
        .map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": "0s", "stop": "20s"}))
        .collect();
    flows.extend(
        (10..20).map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": "8s", "stop": "14s"})),
    );
    let s = json!({
        "duration": "20s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 20, "bottleneck_rate": "200Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        // d starts near the path RTT: from the ns-2 code's 0.2 s, d decays at a rate
        // proportional to R/C (sec. 3.5), which is slow with many flows.
        "queues": {"router": {"kind": "rcp", "limit": "2MB", "initial_rtt": "25ms"}},
        "transport": {"protocol": "rcp"},
        "workload": [{"kind": "long_lived", "flows": flows}],
    });
    let mut w = common::world(&s);
    let n = |w: &World| 200e6 / fair_rate(w, 0, 1);
    // A standing queue of a packet or two (pacing jitter) keeps y a few percent below C in
    // equilibrium (alpha (C - y) = beta q / d), so C/R sits a few percent above N.
    w.run_until(Time::from_ms(7900));
    assert!((n(&w) - 10.0).abs() < 1.0, "10 flows: C/R = {}", n(&w));
    // Ten flows joining at once at the old rate overload the link for a round trip; R dips and
    // climbs back at alpha per RTT, so C/R approaches 20 from above over seconds.
    w.run_until(Time::from_ms(13900));
    assert!((n(&w) - 20.0).abs() < 2.5, "20 flows: C/R = {}", n(&w));
    // After 10 flows leave, eq. 3.3 raises R by a factor 1 + alpha (T/d) (C - y)/C per 10 ms
    // interval (T/d = 0.5 here): C/R halves in some tens of intervals, not a few.
    let mut back = None;
    for k in 1..=60 {
        w.run_until(Time::from_ms(14000 + 50 * k));
        if (n(&w) - 10.0).abs() < 1.0 {
            back = Some(50 * k);
            break;
        }
    }
    let ms = back.unwrap_or_else(|| panic!("C/R still {} 3 s after the flows left", n(&w)));
    eprintln!("C/R back within 10% of 10 flows {ms} ms after 10 of 20 flows left");
    assert!(ms <= 1000, "C/R took {ms} ms to return");
}

/// A flow crossing two RCP links of 100 and 50 Mb/s is paced at the 50 Mb/s link's rate,
/// whatever the order of the links: the stamped rate is the smallest along the path.
#[test]
fn the_stamped_rate_is_the_smallest_along_the_path() {
    for (first, second) in [("100Mbps", "50Mbps"), ("50Mbps", "100Mbps")] {
        let s = json!({
            "duration": "10s",
            "topology": {"kind": "graph",
                "nodes": [{"name": "s", "kind": "host"}, {"name": "x", "kind": "router"},
                          {"name": "y", "kind": "router"}, {"name": "z", "kind": "router"}, {"name": "d", "kind": "host"}],
                "links": [{"a": "s", "b": "x", "rate": "1Gbps", "delay": "1ms"},
                          {"a": "x", "b": "y", "rate": first, "delay": "5ms"},
                          {"a": "y", "b": "z", "rate": second, "delay": "5ms"},
                          {"a": "z", "b": "d", "rate": "1Gbps", "delay": "1ms", "name": "last"}]},
            "queues": rcp_queues(),
            "transport": {"protocol": "rcp"},
            "workload": [{"kind": "long_lived", "flows": [{"src": "s", "dst": "d", "start": "0s", "stop": "10s"}]}],
            "output": {"series": {"interval": "50ms", "links": ["last"]}},
        });
        let w = run(s);
        let got = common::series_mean(&w, "throughput_bps", "last", 8.0, 10.0) / 1e6;
        assert!((got - 50.0).abs() < 2.0, "{first} then {second}: {got} Mb/s");
    }
}

/// The series report what Figs. 3.2 - 3.5 plot: on an RCP port, `active_flows` is exactly the
/// number of flows crossing it at the sample time, and C / `rcp_rate_bps` settles at that
/// number in each phase (4, then 6, then 4 flows); a drop-tail port has `active_flows` but no
/// RCP rows.
///
/// ```text
///   l0..l5 --1G-- rl ==100M, 10 ms, RCP== rr --1G-- r0..r5
/// ```
#[test]
fn series_give_each_rcp_port_its_fair_rate_and_active_flows() {
    // (start, stop) of each flow, off the sampling grid.
    let spans: Vec<(f64, f64)> =
        vec![(0.0, 12.02), (0.0, 12.02), (0.0, 12.02), (0.0, 12.02), (3.01, 8.01), (3.01, 8.01)];
    let flows: Vec<_> = spans
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": a, "stop": b}))
        .collect();
    // An interval off the routers' 10 ms control grid, so no sample shares an instant with a
    // rate update.
    let mut w = common::world(&json!({
        "duration": "12.1s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 6, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "rcp", "limit": "2MB", "initial_rtt": "25ms"}},
        "transport": {"protocol": "rcp"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "12345us", "links": ["bottleneck", "l4->rl"]}},
    }));
    for k in [1u64, 7, 300, 500] {
        w.run_until(Time::from_us(12_345 * k));
        let Some(Law::Rcp(q)) = w.links[0].law() else { panic!("the bottleneck is an RCP port") };
        let (r, d) = (q.fair_rate(), q.avg_rtt());
        let s = &w.series;
        let n = s.time.len();
        let i = (0..n).rev().find(|&i| s.metric[i].name() == "rcp_rate_bps").expect("R rows");
        assert_eq!((s.time[i], s.value[i], s.value[i + 1]), (Time::from_us(12_345 * k), r, d), "sample {k}: R and d");
    }
    w.run();
    let rows = |metric: &str, target: &str| common::series_rows(&w, metric, target);
    let active = rows("active_flows", "bottleneck");
    assert!(active.len() >= 970, "{} samples", active.len());
    for &(t, n) in &active {
        let want = spans.iter().filter(|&&(a, b)| a <= t && t < b).count() as f64;
        assert_eq!(n, want, "active flows at {t} s");
    }
    for &(t, n) in &rows("active_flows", "l4->rl") {
        assert_eq!(n, if (3.01..8.01).contains(&t) { 1.0 } else { 0.0 }, "l4's uplink at {t} s");
    }
    assert!(rows("rcp_rate_bps", "l4->rl").is_empty(), "a host NIC is not an RCP port");
    let rates = rows("rcp_rate_bps", "bottleneck");
    assert_eq!(rates.len(), active.len(), "one R per sample");
    for (from, to, n) in [(2.5, 3.0, 4.0), (7.5, 8.0, 6.0), (11.5, 12.0, 4.0)] {
        let c_over_r = common::series_mean(&w, "rcp_rate_bps", "bottleneck", from, to);
        let c_over_r = 100e6 / c_over_r;
        eprintln!("C/R over ({from}, {to}] s: {c_over_r:.2} for {n} flows");
        assert!((c_over_r - n).abs() < 0.1 * n, "C/R {c_over_r} with {n} flows in ({from}, {to}] s");
    }
    let d = common::series_mean(&w, "rcp_avg_rtt_s", "bottleneck", 11.0, 12.0);
    assert!((0.02..0.03).contains(&d), "average RTT d = {d} s, path RTT about 24 ms");
}

/// A fixed-rate flow without handshake completes in half a round trip plus L / R on an idle
/// path (its first packet leaves at the start); with the handshake, one round trip more.
#[test]
fn a_fixed_rate_flow_without_handshake_takes_half_a_round_trip_plus_l_over_r() {
    for handshake in [false, true] {
        let w = run(json!({
            "duration": "1s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                         "bottleneck_delay": "10ms", "access_rate": "10Gbps"},
            "queues": {"router": {"kind": "droptail"}},
            "transport": {"protocol": "rcp", "mss": 960, "header": 40, "fixed_rate": "8Mbps", "handshake": handshake},
            "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "size": 96_000}]}],
        }));
        let r = &w.records[0];
        // 100 packets of 1000 B: the last leaves 99 gaps of 1 ms after the first, then crosses
        // the 10 ms link and three serializations.
        let tx = 8000.0 / 10e9 * 2.0 + 8000.0 / 100e6;
        let want = if handshake { 0.02 } else { 0.0 } + 0.099 + 0.01 + tx;
        let fct = r.fct().expect("completed").as_secs_f64();
        assert!((fct - want).abs() < 1e-4, "handshake {handshake}: FCT {fct} s, expected {want}");
        let ideal = r.ideal.as_secs_f64();
        let want_ideal = if handshake { 0.03 } else { 0.01 } + 96_000.0 * 8.0 * 1000.0 / 960.0 / 100e6;
        assert!((ideal - want_ideal).abs() < 1e-9, "ideal {ideal} vs {want_ideal}");
    }
}

/// One 100 KB `rcp` flow over drop-tail routers only (thesis sec. 6.2.2): the SYN-ACK brings
/// no rate and the flow runs TCP from its first window, so it finishes as a TCP flow with the
/// same settings does (slow start over a 40 ms round trip; only its SYN, which carried the
/// 12-byte RCP header, is a little longer); without the fallback it paces at the 10 Gb/s
/// "unlimited" rate and finishes in about one round trip. After the switch the packets carry
/// no RCP header: the forward path carries TCP's bytes plus the SYN's 12 per hop.
#[test]
fn an_rcp_flow_on_a_path_without_rcp_routers_runs_tcp() {
    let run_one = |transport: serde_json::Value| {
        let w = run(json!({
            "duration": "3s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                         "bottleneck_delay": "20ms", "access_rate": "1Gbps"},
            "queues": {"router": {"kind": "droptail", "limit": "2MB"}},
            "transport": transport,
            "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "size": 100_000}]}],
        }));
        let r = &w.records[0];
        let bytes: u64 = w.path(0).iter().map(|&l| w.links[l as usize].stats.bytes_sent).sum();
        (r.fct().expect("completes").as_secs_f64(), bytes, w.path(0).len() as u64)
    };
    let (rcp, rcp_bytes, hops) = run_one(json!({"protocol": "rcp", "iw": 2}));
    let (tcp, tcp_bytes, _) = run_one(json!({"protocol": "tcp", "iw": 2}));
    let (unlimited, _, _) = run_one(json!({"protocol": "rcp", "fallback": false}));
    assert!((rcp - tcp).abs() < 50e-6, "RCP fallen back {rcp} s, TCP {tcp} s");
    assert_eq!(rcp_bytes, tcp_bytes + 12 * hops, "after the switch the packets are TCP's");
    assert!(unlimited < 0.5 * tcp, "without the fallback, one window at 10 Gb/s: {unlimited} s");
}

/// With an RCP router on the path the fallback never engages: the flow paces at the stamped
/// rate exactly as without the option.
#[test]
fn the_fallback_leaves_rcp_paths_alone() {
    let run_one = |fallback: bool| {
        let w = run(json!({
            "duration": "3s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                         "bottleneck_delay": "20ms", "access_rate": "1Gbps"},
            "queues": rcp_queues(),
            "transport": {"protocol": "rcp", "fallback": fallback},
            "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "size": 1_000_000}]}],
        }));
        w.records[0].fct().expect("completes")
    };
    assert_eq!(run_one(true), run_one(false));
}
