//! R-TCP (RCP thesis sec. 6.1.1): TCP whose window is the RCP routers' rate x RTT, paced at
//! that rate, with TCP's loss recovery. The first tests drive the sans-IO sender by hand; the
//! rest run whole scenarios over RCP routers.

mod common;

use fctlab_core::net::packet::{CongestionHeader, Packet, PacketKind};
use fctlab_core::protocol::rcp::header::{RcpEcho, RcpHeader};
use fctlab_core::protocol::rtcp::RtcpConfig;
use fctlab_core::protocol::CcConfig;
use fctlab_core::protocol::Law;
use fctlab_core::scenario;
use fctlab_core::transport::app::App;
use fctlab_core::transport::tcp::{TcpConfig, TcpSender};
use fctlab_core::transport::{Endpoint, FlowAddr};
use fctlab_core::units::{Rate, Time};
use fctlab_core::world::World;
use serde_json::json;
use std::path::Path;

const MSS: u64 = 1460;
/// TCP/IP (40) and RCP (12) headers.
const HEADER: u64 = 52;
const WIRE: u64 = MSS + HEADER;
const ADDR: FlowAddr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };

// ---------------------------------------------------------------- the sans-IO sender

/// An R-TCP sender of `segments` segments whose SYN left at 0 and whose SYN-ACK, carrying
/// `rate_kbps`, arrives at `rtt`; returns it with what it sent on the SYN-ACK. Sec. 6.1.1's
/// mechanism alone: the fallback to TCP (sec. 6.2.2) is off, see `established_with`.
fn established(segments: u64, rate_kbps: u32, rtt: Time) -> (TcpSender, Vec<Packet>) {
    established_with(segments, rate_kbps, rtt, false)
}

/// [`established`], with the fallback to TCP on or off.
fn established_with(segments: u64, rate_kbps: u32, rtt: Time, fallback: bool) -> (TcpSender, Vec<Packet>) {
    let rtcp = RtcpConfig { fallback, ..RtcpConfig::default() };
    let cfg = TcpConfig { header: HEADER as u32, cc: CcConfig::Rtcp(rtcp), ..TcpConfig::default() };
    let mut s = TcpSender::new(cfg, ADDR, App::Bulk { size: segments * MSS }, Time::ZERO);
    let mut out = Vec::new();
    s.start(Time::ZERO, Time::ZERO, &mut out);
    out.clear();
    let mut synack = ADDR.reverse(PacketKind::SynAck, rtt);
    synack.ts_echo = Time::ZERO;
    synack.cc = CongestionHeader::RcpFeedback(RcpEcho { rate_kbps });
    s.on_packet(rtt, &synack, &mut out);
    (s, out)
}

/// The receiver's ACK of the first `cum` segments, echoing `rate_kbps` and the timestamp `ts`.
fn ack(cum: u64, sack: Option<(u64, u64)>, rate_kbps: u32, ts: Time, now: Time) -> Packet {
    let mut p = ADDR.reverse(PacketKind::Ack, now);
    p.ack = cum * MSS;
    if let Some((a, b)) = sack {
        p.sack = fctlab_core::net::packet::SackBlocks::of(&[(a * MSS, b * MSS)]);
    }
    p.ts_echo = ts;
    p.cc = CongestionHeader::RcpFeedback(RcpEcho { rate_kbps });
    p
}

/// The thesis's window in payload bytes, written out independently of the code under test:
/// floor(rate x rtt / wire size) packets' worth of bytes, `rate x rtt x MSS / wire` rounded
/// down to a byte.
fn thesis_window(rate_bps: u64, rtt: Time) -> u64 {
    (rate_bps as u128 * rtt.ps() as u128 * MSS as u128 / (8 * 1_000_000_000_000u128 * WIRE as u128)) as u64
}

/// Runs the sender's own wake-ups until `until`, recording when each data packet left.
fn run_timers(s: &mut TcpSender, until: Time, sent: &mut Vec<(Time, Packet)>) {
    let mut out = Vec::new();
    while let Some(t) = s.poll_timeout().filter(|&t| t <= until) {
        s.on_timeout(t, &mut out);
        sent.extend(out.drain(..).map(|p| (t, p)));
    }
}

#[test]
fn nothing_but_the_syn_leaves_before_the_first_rate_and_the_syn_asks_for_any_rate() {
    let cfg = TcpConfig { header: HEADER as u32, cc: CcConfig::Rtcp(RtcpConfig::default()), ..TcpConfig::default() };
    let mut s = TcpSender::new(cfg, ADDR, App::Bulk { size: 100 * MSS }, Time::ZERO);
    let mut out = Vec::new();
    s.start(Time::ZERO, Time::ZERO, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, PacketKind::Syn);
    assert_eq!(out[0].wire as u64, HEADER);
    assert_eq!(out[0].cc, CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 0, age_kib: 0 }));
    // The only wake-up is the SYN's timeout.
    assert_eq!(s.poll_timeout(), Some(Time::from_secs(1)));
}

#[test]
fn the_window_is_rate_times_srtt_over_the_wire_size_on_every_ack() {
    let rtt = Time::from_ms(20);
    let (mut s, _) = established(10_000, 50_000, rtt);
    // SYN-ACK: 50 Mb/s x 20 ms = 125,000 wire bytes = 82.67 packets of 1512 B.
    assert_eq!(s.cwnd(), thesis_window(50_000_000, rtt));
    assert_eq!(s.cwnd(), 125_000 * MSS / WIRE);
    assert_eq!(s.pacing_rate(), Some(Rate::from_mbps(50)));

    let mut out = Vec::new();
    let mut sent = Vec::new();
    run_timers(&mut s, Time::from_ms(40), &mut sent);
    // An ACK of new data with the same rate and the same RTT: no slow-start growth.
    let t = Time::from_ms(40);
    s.on_packet(t, &ack(10, None, 50_000, t - rtt, t), &mut out);
    assert_eq!(s.cwnd(), thesis_window(50_000_000, rtt), "slow start would have added a segment");
    // A lower rate and a longer RTT sample: SRTT = 7/8 x 20 + 1/8 x 28 = 21 ms.
    let t = Time::from_ms(41);
    s.on_packet(t, &ack(20, None, 10_000, t - Time::from_ms(28), t), &mut out);
    assert_eq!(s.cwnd(), thesis_window(10_000_000, Time::from_ms(21)));
    assert_eq!(s.pacing_rate(), Some(Rate::from_mbps(10)));
    // A rate of one packet per several RTTs still leaves a window of one segment.
    let t = Time::from_ms(42);
    s.on_packet(t, &ack(21, None, 100, t - Time::from_ms(21), t), &mut out);
    assert_eq!(s.cwnd(), MSS);
}

#[test]
fn unlimited_feedback_paces_at_the_default_rate() {
    let rtt = Time::from_ms(10);
    let (s, out) = established(10_000, u32::MAX, rtt);
    assert_eq!(s.pacing_rate(), Some(RtcpConfig::default().unlimited_rate));
    assert_eq!(s.cwnd(), thesis_window(10_000_000_000, rtt));
    assert_eq!(out.len(), 1, "paced even when unlimited: one packet, then the clock");
}

#[test]
fn packets_leave_one_wire_time_at_the_rate_apart_whatever_the_acks_do() {
    // 12.096 Mb/s: one 1512-byte packet per millisecond.
    let rate_kbps = 12_096;
    let gap = |kbps: u64| Rate::from_bps(kbps * 1000).tx_time(WIRE);
    assert_eq!(gap(12_096), Time::from_ms(1));
    let rtt = Time::from_ms(50);
    let (mut s, first) = established(1000, rate_kbps, rtt);
    assert_eq!(first.len(), 1, "the SYN-ACK opens a window of 49 packets, but only one leaves");
    let mut sent: Vec<(Time, Packet)> = first.into_iter().map(|p| (rtt, p)).collect();
    // Pacing, not the window, holds the sender back: its wake-up is the clock's next tick.
    assert_eq!(s.poll_timeout(), Some(rtt + Time::from_ms(1)));
    run_timers(&mut s, Time::from_ms(100), &mut sent);
    assert_eq!(sent.len() as u64, s.cwnd() / MSS, "the whole window, one per gap");
    // Window full: no pacing wake-up until an ACK, only the retransmission timer.
    let last = sent.last().unwrap().0;
    assert!(s.poll_timeout().unwrap() > last + Time::from_ms(100), "{:?}", s.poll_timeout());

    // Every ACK of the first window arrives at once, with a rate halved to one packet per 2 ms.
    let t = Time::from_ms(110);
    let mut out = Vec::new();
    let n = sent.len() as u64;
    for k in 1..=n {
        s.on_packet(t, &ack(k, None, rate_kbps / 2, t - rtt, t), &mut out);
    }
    assert_eq!(out.len(), 1, "a burst of ACKs releases one packet, not a window");
    sent.extend(out.drain(..).map(|p| (t, p)));
    run_timers(&mut s, Time::from_ms(150), &mut sent);

    let data: Vec<(Time, u32)> =
        sent.iter().filter(|(_, p)| p.kind == PacketKind::Data).map(|(t, p)| (*t, p.wire)).collect();
    assert!(data.len() as u64 > n + 10);
    for w in data.windows(2) {
        let ((t0, wire), (t1, _)) = (w[0], w[1]);
        assert_eq!(wire as u64, WIRE);
        // The gap is set at the rate in force when the earlier packet left.
        let kbps = if t0 < t { 12_096 } else { 6_048 };
        assert!(t1 - t0 >= gap(kbps), "packets at {t0} and {t1}: closer than {}", gap(kbps));
    }
    assert_eq!(data[(n + 1) as usize].0 - data[n as usize].0, Time::from_ms(2), "the new rate's gap, exactly");
}

#[test]
fn fast_recovery_keeps_the_rate_window_and_repairs_the_hole() {
    let rtt = Time::from_ms(20);
    let (mut s, first) = established(1000, 60_480, rtt);
    let mut sent: Vec<(Time, Packet)> = first.into_iter().map(|p| (rtt, p)).collect();
    run_timers(&mut s, Time::from_ms(40), &mut sent);
    let w = s.cwnd();
    // Segment 0 is lost: ACKs SACK 1..k for k = 1..4.
    let mut out = Vec::new();
    let t = Time::from_ms(41);
    for k in 2..=5 {
        s.on_packet(t, &ack(0, Some((1, k)), 60_480, t - rtt, t), &mut out);
        assert_eq!(s.cwnd(), w, "no halving, not even until the next ACK: the window is the rate's");
    }
    let mut resent: Vec<(Time, Packet)> = out.drain(..).map(|p| (t, p)).collect();
    run_timers(&mut s, Time::from_ms(45), &mut resent);
    assert!(resent.iter().any(|(_, p)| p.seq == 0), "segment 0 retransmitted");
    assert_eq!(s.stats().fast_recoveries, 1);
    assert_eq!(s.stats().retx_pkts, 1);
    assert_eq!(s.stats().timeouts, 0);
}

// ---------------------------------------------------------------- whole scenarios

fn fair_rate(w: &World, from: u32, to: u32) -> f64 {
    let l = w.links.iter().find(|l| l.from == from && l.to == to).expect("link");
    match l.law() {
        Some(Law::Rcp(r)) => r.fair_rate(),
        _ => panic!("not an RCP port"),
    }
}

/// ```text
///   l0..l3 --1G-- rl ==100M, 10 ms, RCP== rr --1G-- r0..r3
/// ```
/// The routers start cold (R = 0.05 C, d = 0.2 s) and reach C/N within about 8 s.
#[test]
fn long_lived_flows_converge_to_the_fair_share_with_an_empty_queue() {
    let flows: Vec<_> =
        (0..4).map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": "0s", "stop": "15s"})).collect();
    let downlinks: Vec<String> = (0..4).map(|i| format!("rr->r{i}")).collect();
    let mut links = downlinks.clone();
    links.push("bottleneck".into());
    let mut w = common::world(&json!({
        "duration": "15s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "rcp", "limit": "2MB"}},
        "transport": {"protocol": "rtcp"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "50ms", "links": links, "flows": [0, 1, 2, 3]}},
    }));
    w.run();
    // Node 0 is rl, node 1 rr: C/R is the number of flows.
    let r = fair_rate(&w, 0, 1);
    assert!((100e6 / r - 4.0).abs() < 0.2, "C/R = {}", 100e6 / r);
    let rates: Vec<f64> =
        downlinks.iter().map(|d| common::series_mean(&w, "throughput_bps", d, 10.0, 15.0) / 1e6).collect();
    for (d, got) in downlinks.iter().zip(&rates) {
        // The window is a whole number of packets below rate x RTT, so each flow runs a
        // little under R (about 1.4 % here, 41 of 41.6 packets), with R at C/N.
        assert!((got - 25.0).abs() < 0.03 * 25.0, "{d}: {got} Mb/s, fair share 25");
    }
    let spread = rates.iter().cloned().fold(f64::MIN, f64::max) - rates.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread < 0.01 * 25.0, "unequal shares {rates:?}");
    let q = common::series_mean(&w, "queue_bytes", "bottleneck", 10.0, 15.0);
    assert!(q < 2.0 * WIRE as f64, "steady-state queue {q} B");
    assert!(w.records.iter().all(|r| r.retx_bytes == 0 && r.timeouts == 0), "nothing lost");
    // The window follows R x SRTT / wire size: SRTT lies between the propagation RTT and
    // that plus a millisecond (serialization and the sub-packet queue).
    for f in 0..4 {
        let cwnd = common::series_mean(&w, "cwnd_bytes", &format!("flow{f}"), 10.0, 15.0);
        let rtt = w.records[f].rtt_prop;
        let (lo, hi) = (thesis_window(r as u64, rtt), thesis_window(r as u64, rtt + Time::from_ms(1)));
        assert!(lo as f64 <= cwnd && cwnd <= hi as f64, "flow {f}: cwnd {cwnd} outside [{lo}, {hi}]");
    }
}

/// R-TCP and RCP hosts over the same RCP routers get about the same rate: both take R. The
/// R-TCP flows run about 2 % slower: their window, a whole number of packets at most
/// R x SRTT, is a little short of what the data packets' RTT at R needs (a window a few
/// packets larger closes the gap), while the RCP hosts pace at R unbounded.
#[test]
fn rtcp_and_rcp_flows_share_a_bottleneck_equally() {
    let flows: Vec<_> =
        (0..4).map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": "0s", "stop": "15s"})).collect();
    let downlinks: Vec<String> = (0..4).map(|i| format!("rr->r{i}")).collect();
    let mut w = common::world(&json!({
        "duration": "15s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "rcp", "limit": "2MB"}},
        "transport": {"protocol": "rtcp"},
        "transports": {"rcp": {"protocol": "rcp"}},
        "workload": [{"kind": "long_lived", "flows": flows[..2]},
                     {"kind": "long_lived", "flows": flows[2..], "transport": "rcp"}],
        "output": {"series": {"interval": "50ms", "links": downlinks}},
    }));
    w.run();
    let rates: Vec<f64> =
        downlinks.iter().map(|d| common::series_mean(&w, "throughput_bps", d, 10.0, 15.0) / 1e6).collect();
    for (d, got) in downlinks.iter().zip(&rates) {
        assert!((got - 25.0).abs() < 0.05 * 25.0, "{d}: {got} Mb/s, fair share 25");
    }
    let (rtcp, rcp) = ((rates[0] + rates[1]) / 2.0, (rates[2] + rates[3]) / 2.0);
    assert!((rtcp - rcp).abs() < 0.03 * rcp, "R-TCP {rtcp} Mb/s vs RCP {rcp} Mb/s");
}

/// One flow on an idle 100 Mb/s, 40 ms RTT path whose router starts at R = C.
fn idle_path(protocol: &str, size: u64, drops: serde_json::Value) -> fctlab_core::metrics::FlowRecord {
    let mut w = common::world(&json!({
        "duration": "1s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "20ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "rcp", "limit": "2MB", "initial_rate": 1.0}},
        "transport": {"protocol": protocol},
        "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "100ms", "size": size}]}],
        "loss": [{"link": "bottleneck", "drop": drops}],
    }));
    w.run();
    w.records[0].clone()
}

/// SYN and SYN-ACK take one RTT and bring the rate C; the flow then leaves paced at C, and
/// its last byte arrives half an RTT after it left: FCT = 1.5 RTT + L_wire / C, plus the
/// store-and-forward of a packet on the two 1 Gb/s host links (12 us each) and the SYN's
/// and SYN-ACK's serialization: under 0.1 ms in all.
#[test]
fn a_short_flow_on_an_idle_bottleneck_finishes_in_one_and_a_half_rtts_plus_l_over_c() {
    let rtt = 0.040;
    for size in [100_000u64, 1_000_000] {
        let wire = (size + size.div_ceil(MSS) * HEADER) as f64 * 8.0;
        let bound = 1.5 * rtt + wire / 100e6;
        let fct = idle_path("rtcp", size, json!([])).fct().expect("completes").as_secs_f64();
        assert!(fct >= bound, "{size} B: {fct} s beats 1.5 RTT + L/C = {bound} s");
        // 1 MB lasts two RTTs; the integer window (rate x SRTT of the small SYN, a little
        // below the data packets' RTT) costs a few packet times per RTT.
        let slack = if size > 100_000 { 0.5e-3 } else { 0.1e-3 };
        assert!(fct <= bound + slack, "{size} B: {fct} s, expected 1.5 RTT + L/C = {bound} s (+{slack})");
    }
    // TCP's slow start from IW 4 needs several RTTs for the same 100 KB.
    let tcp = idle_path("tcp", 100_000, json!([])).fct().unwrap().as_secs_f64();
    assert!(tcp > 1.5 * rtt + 3.0 * rtt, "TCP {tcp} s");
}

#[test]
fn scripted_losses_are_repaired_by_sack_recovery_without_a_timeout() {
    let size = 300 * MSS;
    let clean = idle_path("rtcp", size, json!([]));
    for drops in [
        json!([{"flow": 0, "segment": 30}]),
        json!([{"flow": 0, "segment": 30}, {"flow": 0, "segment": 32}, {"flow": 0, "segment": 35}]),
    ] {
        let n = drops.as_array().unwrap().len() as u64;
        let r = idle_path("rtcp", size, drops);
        assert_eq!(r.delivered, size);
        // The whole flow leaves within the first window, so the recovery also sends its one
        // rescue retransmission of the last segment (RFC 6675 NextSeg rule (4)).
        assert_eq!((r.retx_bytes / MSS, r.timeouts), (n + 1, 0), "one retransmission per loss and the rescue");
        // The hole is found an RTT after the loss and repaired half an RTT later, while new
        // data keeps flowing at the full rate (no window cut).
        let extra = (r.fct().unwrap() - clean.fct().unwrap()).as_secs_f64();
        assert!(extra < 0.040, "{n} losses cost {extra} s, more than an RTT");
    }
    // A lost last segment has nothing after it to reveal the loss: the RTO repairs it.
    let r = idle_path("rtcp", size, json!([{"flow": 0, "segment": 300}]));
    assert_eq!((r.retx_bytes / MSS, r.timeouts), (1, 1));
}

#[test]
fn bad_rtcp_transports_are_refused_naming_the_field() {
    let base = |transport: serde_json::Value| {
        json!({
            "duration": "1s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps", "bottleneck_delay": "1ms"},
            "queues": {"router": {"kind": "rcp"}},
            "transports": {"r": transport},
            "workload": [{"kind": "flows", "transport": "r", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": 1000}]}],
        })
        .to_string()
    };
    let err = |t| scenario::build(&base(t), Path::new(".")).err().expect("refused");
    let e = err(json!({"protocol": "rtcp", "rate": "1Gbps"}));
    assert_eq!(e.field, "transports.r.rate");
    assert!(e.message.contains("unknown field"), "{e}");
    let e = err(json!({"protocol": "r-tcp"}));
    assert_eq!(e.field, "transports.r.protocol");
    assert!(e.message.contains("rtcp"), "the message lists the protocols: {e}");
    let e = err(json!({"protocol": "rtcp", "fixed_rate": "10Mbps"}));
    assert_eq!(e.field, "transports.r.fixed_rate");
    assert!(e.message.contains("rcp"), "{e}");
    // And a good one is accepted.
    assert!(scenario::build(&base(json!({"protocol": "rtcp"})), Path::new(".")).is_ok());
}

// ---------------------------------------------------------------- the fallback to TCP (sec. 6.2.2)

/// ```text
///   s0 --1G-- a ==100M, 10 ms, RCP== b ==100M, 10 ms, drop-tail 500 KB== c --1G-- d0
///                                    s1 --1G--/                          \--1G-- d1
/// ```
/// An R-TCP flow s0 -> d0 (RTT 40 ms) alone: the RCP link gives it C. At 5 s a TCP flow
/// s1 -> d1 joins on the drop-tail link, which becomes the bottleneck; the RCP link sees no
/// change, so its rate stays C (thesis Fig. 6.17). Returns the run.
fn non_rcp_bottleneck(fallback: bool) -> World {
    let nodes: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|n| json!({"name": n, "kind": "router"}))
        .chain(["s0", "s1", "d0", "d1"].iter().map(|n| json!({"name": n, "kind": "host"})))
        .collect();
    let mut w = common::world(&json!({
        "duration": "15s",
        "topology": {"kind": "graph", "nodes": nodes, "links": [
            {"a": "a", "b": "b", "rate": "100Mbps", "delay": "10ms"},
            {"a": "b", "b": "c", "rate": "100Mbps", "delay": "10ms"},
            {"a": "s0", "b": "a", "rate": "1Gbps", "delay": "0ms"},
            {"a": "s1", "b": "b", "rate": "1Gbps", "delay": "0ms"},
            {"a": "d0", "b": "c", "rate": "1Gbps", "delay": "0ms"},
            {"a": "d1", "b": "c", "rate": "1Gbps", "delay": "0ms"}]},
        "queues": {"router": {"kind": "droptail", "limit": "500KB"},
                   "links": {"a->b": {"kind": "rcp", "limit": "2MB", "initial_rate": 1.0}}},
        "transport": {"protocol": "rtcp", "fallback": fallback},
        "transports": {"tcp": {"protocol": "tcp"}},
        "workload": [{"kind": "long_lived", "flows": [{"src": "s0", "dst": "d0", "start": "0s"}]},
                     {"kind": "long_lived", "transport": "tcp", "flows": [{"src": "s1", "dst": "d1", "start": "5s"}]}],
        "output": {"series": {"interval": "50ms", "links": ["s0->a", "s1->b"], "flows": [0]}},
    }));
    w.run();
    w
}

/// Sec. 6.2.2: the drop-tail queue doubles the RTT while the RCP rate stays C, so the R-TCP
/// flow switches to TCP within 10 RTTs (0.4 s) of the join, its rate halving, and the TCP flow
/// gets a share. Without the fallback it keeps sending at C and the TCP flow starves.
#[test]
fn a_non_rcp_bottleneck_switches_rtcp_to_tcp_within_ten_rtts() {
    let w = non_rcp_bottleneck(true);
    let rate = common::series_rows(&w, "send_rate_bps", "flow0");
    let before = rate.iter().filter(|(t, _)| *t > 4.0 && *t <= 5.0).map(|&(_, v)| v).fold(f64::MAX, f64::min);
    assert!(before > 95e6, "alone at the RCP rate C before the join: {before}");
    let switched = rate.iter().find(|(t, v)| *t > 5.0 && *v < 0.75 * 100e6).map(|&(t, _)| t);
    assert!(switched.is_some_and(|t| t <= 5.0 + 0.4), "switch at {switched:?} s, join at 5 s, RTT 40 ms");
    let tcp = common::series_mean(&w, "throughput_bps", "s1->b", 10.0, 15.0) / 1e6;
    assert!(tcp > 20.0, "the TCP flow's share {tcp} Mb/s");

    let w = non_rcp_bottleneck(false);
    let tcp = common::series_mean(&w, "throughput_bps", "s1->b", 10.0, 15.0) / 1e6;
    let rtcp = common::series_mean(&w, "throughput_bps", "s0->a", 10.0, 15.0) / 1e6;
    assert!(tcp < 5.0 && rtcp > 95.0, "without the fallback: R-TCP {rtcp}, TCP {tcp} Mb/s");
}

/// No RCP router on the path: the SYN-ACK brings no rate and the flow runs TCP from its first
/// window, so a 100 KB transfer takes TCP's slow-start rounds; without the fallback it leaves at
/// the 10 Gb/s "unlimited" rate in one window.
#[test]
fn a_path_without_rcp_routers_runs_tcp_from_the_handshake() {
    let fct = |transport: serde_json::Value| {
        let mut w = common::world(&json!({
            "duration": "2s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "100Mbps",
                         "bottleneck_delay": "20ms", "access_rate": "1Gbps"},
            "queues": {"router": {"kind": "droptail", "limit": "2MB"}},
            "transport": transport,
            "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "size": 100_000}]}],
        }));
        w.run();
        w.records[0].fct().expect("completes").as_secs_f64()
    };
    let fallback = fct(json!({"protocol": "rtcp"}));
    let tcp = fct(json!({"protocol": "tcp", "header": HEADER}));
    let unlimited = fct(json!({"protocol": "rtcp", "fallback": false}));
    assert!((fallback - tcp).abs() < 0.01 * tcp, "R-TCP fallen back {fallback} s, TCP {tcp} s");
    assert!(unlimited < 0.5 * tcp, "without the fallback, one window at 10 Gb/s: {unlimited} s");
}

/// No false positive on an all-RCP path: one R-TCP flow alone, three more join at 3 s; the
/// join's queue lengthens the RTT but RCP cuts its rate, so every flow keeps the rate's window
/// (R x SRTT, not a NewReno sawtooth) and they share C.
#[test]
fn joins_on_an_rcp_bottleneck_do_not_switch_rtcp_to_tcp() {
    let flows: Vec<_> = (0..4)
        .map(|i| json!({"src": format!("l{i}"), "dst": format!("r{i}"), "start": if i == 0 { "0s" } else { "3s" }}))
        .collect();
    let mut w = common::world(&json!({
        "duration": "10s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "rcp", "limit": "2MB"}},
        "transport": {"protocol": "rtcp"},
        "workload": [{"kind": "long_lived", "flows": flows}],
        "output": {"series": {"interval": "50ms", "links": ["bottleneck"], "flows": [0, 1, 2, 3]}},
    }));
    w.run();
    let r = common::series_mean(&w, "rcp_rate_bps", "bottleneck", 8.0, 10.0);
    for f in 0..4 {
        let cwnd = common::series_mean(&w, "cwnd_bytes", &format!("flow{f}"), 8.0, 10.0);
        let rtt = w.records[f].rtt_prop;
        let (lo, hi) = (thesis_window(r as u64, rtt), thesis_window(r as u64, rtt + Time::from_ms(1)));
        assert!(
            lo as f64 * 0.98 <= cwnd && cwnd <= hi as f64 * 1.02,
            "flow {f}: cwnd {cwnd}, rate window [{lo}, {hi}]"
        );
    }
}
