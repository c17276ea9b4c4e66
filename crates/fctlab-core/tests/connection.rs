//! The connection core (`transport/conn/`) seen through both senders built on it: the TCP
//! window loop and the paced loop open, retry and time out the same way, because the
//! handshake and the retransmission timer (RFC 6298) are the core's, not the loops'.

mod common;

use fctlab_core::net::packet::{Packet, PacketKind};
use fctlab_core::protocol::rcp::FixedConfig;
use fctlab_core::protocol::RateConfig;
use fctlab_core::transport::app::App;
use fctlab_core::transport::conn::LossRecovery;
use fctlab_core::transport::ecn::EcnMode;
use fctlab_core::transport::endpoint::Sender;
use fctlab_core::transport::paced::{PacedConfig, PacedSender};
use fctlab_core::transport::tcp::{TcpConfig, TcpSender};
use fctlab_core::transport::{Endpoint, FlowAddr};
use fctlab_core::units::{Rate, Time};

const ADDR: FlowAddr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
const MSS: u32 = 1000;

/// A TCP sender and a paced sender (8 Mb/s, fixed) of one flow of `size` bytes, with the same
/// segment size, headers and timer bounds (initial RTO 500 ms, floor 200 ms).
fn both(size: u64) -> [(&'static str, Sender); 2] {
    let app = App::Bulk { size };
    let tcp = TcpConfig {
        mss: MSS,
        header: 40,
        iw: 4,
        initial_rto: Time::from_ms(500),
        min_rto: Time::from_ms(200),
        ..TcpConfig::default()
    };
    let paced = PacedConfig {
        mss: MSS,
        header: 40,
        initial_rto: Time::from_ms(500),
        min_rto: Time::from_ms(200),
        law: RateConfig::Fixed(FixedConfig(Rate::from_mbps(8))),
        handshake: true,
        fallback: None,
        queue_pair: false,
        ecn: EcnMode::Off,
        nic_pull: false,
        recovery: LossRecovery::Selective,
    };
    [
        ("tcp", Sender::Tcp(TcpSender::new(tcp, ADDR, app, Time::ZERO))),
        ("paced", Sender::Paced(PacedSender::new(paced, ADDR, app, Time::ZERO))),
    ]
}

/// What left, as (kind, first byte, payload bytes, wire bytes).
fn sent(out: &[Packet]) -> Vec<(PacketKind, u64, u32, u32)> {
    out.iter().map(|p| (p.kind, p.seq, p.len, p.wire)).collect()
}

/// Fires the sender's timer at the time it asked for; returns that time and what left.
fn fire(s: &mut Sender) -> (Time, Vec<(PacketKind, u64, u32, u32)>) {
    let t = s.poll_timeout().expect("a timer is running");
    let mut out = Vec::new();
    s.on_timeout(t, &mut out);
    (t, sent(&out))
}

fn reply(kind: PacketKind, at: Time, echo: Time, ack: u64) -> Packet {
    let mut p = ADDR.reverse(kind, at);
    p.ts_echo = echo;
    p.ack = ack;
    p
}

/// RFC 6298 sec. 2.1 and 5.5: the SYN is retried one initial RTO after it left, and each
/// retry doubles the wait; every retry counts as a timeout.
#[test]
fn a_lost_syn_is_retried_after_the_initial_rto_doubling_each_time_in_both_senders() {
    let syn = (PacketKind::Syn, 0, 0, 40);
    for (name, mut s) in both(10 * MSS as u64) {
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::ZERO, &mut out);
        assert_eq!(sent(&out), vec![syn], "{name}");
        assert_eq!(fire(&mut s), (Time::from_ms(500), vec![syn]), "{name}");
        assert_eq!(fire(&mut s), (Time::from_ms(1500), vec![syn]), "{name}");
        assert_eq!(fire(&mut s), (Time::from_ms(3500), vec![syn]), "{name}");
        assert_eq!(s.loss_stats(), (0, 3), "{name}: three timeouts, nothing retransmitted");
        assert_eq!(s.poll_timeout(), Some(Time::from_ms(7500)), "{name}");
    }
}

/// The SYN-ACK's echo is the first RTT sample (10 ms: RTO = max(10 + 4 x 5, 200) ms). The one
/// data segment is lost: the timer fires one RTO after it left, the segment is sent again at
/// once, the RTO doubles, and the ACK of the copy ends the flow with the timer stopped.
#[test]
fn a_lost_segment_times_out_one_rto_after_it_left_in_both_senders() {
    let data = (PacketKind::Data, 0, MSS, MSS + 40);
    for (name, mut s) in both(MSS as u64) {
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::ZERO, &mut out);
        out.clear();
        s.on_packet(Time::from_ms(10), &reply(PacketKind::SynAck, Time::from_ms(10), Time::ZERO, 0), &mut out);
        assert_eq!(sent(&out), vec![data], "{name}: the segment leaves with the SYN-ACK");
        assert_eq!(fire(&mut s), (Time::from_ms(210), vec![data]), "{name}: the retransmission");
        assert_eq!(s.loss_stats(), (MSS as u64, 1), "{name}");
        assert_eq!(s.poll_timeout(), Some(Time::from_ms(610)), "{name}: backed off to 400 ms");
        out.clear();
        s.on_packet(
            Time::from_ms(220),
            &reply(PacketKind::Ack, Time::from_ms(220), Time::from_ms(210), MSS as u64),
            &mut out,
        );
        assert!(out.is_empty(), "{name}");
        assert!(s.is_done(), "{name}");
        assert_eq!(s.acked_bytes(), MSS as u64, "{name}");
        assert_eq!(s.poll_timeout(), None, "{name}: nothing outstanding, no timer");
    }
}

/// A scenario that lowers `min_rto` without giving `initial_rto` lowers the SYN's first timeout
/// with it (five floors, `plan::initial_rto`): 40 one-segment flows over
/// uplinks that lose 10% of packets, `min_rto` 1 ms, so a lost SYN or SYN-ACK is retried after
/// 5 ms, not after TCP's default 1 s (a p99 FCT of 1 s in a 10 ms run on a fat tree).
#[test]
fn a_lowered_min_rto_lowers_the_first_timeout_with_it() {
    let flows: Vec<_> = (0..40)
        .map(|i| serde_json::json!({"src": format!("l{}", i % 4), "dst": format!("r{}", i % 4), "start": format!("{}us", 250 * i), "size": 1000}))
        .collect();
    let scenario = |transport: serde_json::Value| {
        serde_json::json!({
            "seed": 3,
            "duration": "10ms",
            "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "10Gbps",
                         "bottleneck_delay": "10us", "access_rate": "10Gbps"},
            "transport": transport,
            "loss": [{"link": "hosts", "p": 0.1}],
            "workload": [{"kind": "flows", "flows": flows}],
        })
    };
    let w = common::run(scenario(serde_json::json!({"min_rto": "1ms"})));
    let fcts: Vec<f64> = w.records.iter().map(|r| r.fct().expect("completed").as_secs_f64()).collect();
    let timed_out = w.records.iter().filter(|r| r.timeouts > 0).count();
    assert!(timed_out >= 10, "only {timed_out} flows timed out: the loss does not exercise the timer");
    let worst = fcts.iter().cloned().fold(0.0, f64::max);
    assert!(worst < 0.1, "a flow took {worst} s: a lost SYN waited for the default initial RTO");
    // Given, `initial_rto` is kept as it is.
    let w = common::run(scenario(serde_json::json!({"min_rto": "1ms", "initial_rto": "1s"})));
    let worst = w.records.iter().map(|r| r.fct().unwrap().as_secs_f64()).fold(0.0, f64::max);
    assert!(worst >= 1.0, "{worst}");
}
