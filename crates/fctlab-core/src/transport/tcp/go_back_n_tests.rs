//! The window loop with go-back-N recovery: a NACK (or a timeout) makes it resend everything
//! from the hole, in order, and nothing else repairs losses.

use super::{TcpConfig, TcpSender};
use crate::net::packet::{Packet, PacketKind};
use crate::transport::app::App;
use crate::transport::conn::LossRecovery;
use crate::transport::{Endpoint, FlowAddr};
use crate::units::Time;

const ADDR: FlowAddr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
const MSS: u64 = 1000;

/// A cumulative ACK (or NACK) of the first `segs` segments, arriving at `at` us.
fn ack(kind: PacketKind, segs: u64, at: u64) -> Packet {
    let mut p = ADDR.reverse(kind, Time::from_us(at));
    p.ack = segs * MSS;
    p.ts_echo = Time::from_us(at.saturating_sub(10));
    p
}

/// The data segments `pkts` carry, as segment indices (a paced loop's empty probes left out).
fn segs(pkts: &[Packet]) -> Vec<u64> {
    pkts.iter().filter(|p| p.kind == PacketKind::Data && p.len > 0).map(|p| p.seq / MSS).collect()
}

fn window_sender(recovery: LossRecovery) -> (TcpSender, Vec<u64>) {
    let cfg = TcpConfig { mss: MSS as u32, iw: 10, queue_pair: true, recovery, ..TcpConfig::default() };
    let mut s = TcpSender::new(cfg, ADDR, App::Bulk { size: 40 * MSS }, Time::ZERO);
    let mut out = Vec::new();
    s.start(Time::ZERO, Time::from_us(10), &mut out);
    (s, segs(&out))
}

fn feed(s: &mut impl Endpoint, p: &Packet) -> Vec<u64> {
    let mut out = Vec::new();
    s.on_packet(Time::from_us(20), p, &mut out);
    segs(&out)
}

#[test]
fn a_nack_makes_the_window_resend_from_the_hole_in_order() {
    let (mut s, first) = window_sender(LossRecovery::GoBackN);
    assert_eq!(first, (0..10).collect::<Vec<_>>());
    // Segment 2 is lost: the ACKs of 0 and 1 slide the window (slow start: two more each).
    assert_eq!(feed(&mut s, &ack(PacketKind::Ack, 1, 20)), [10, 11]);
    assert_eq!(feed(&mut s, &ack(PacketKind::Ack, 2, 21)), [12, 13]);
    // The NACK of 2: everything from 2 again, in order, in the halved window (NewReno: half of
    // the 12 segments in flight).
    assert_eq!(feed(&mut s, &ack(PacketKind::Nack, 2, 22)), [2, 3, 4, 5, 6, 7]);
    assert_eq!(s.cwnd(), 6 * MSS);
    assert_eq!((s.stats().fast_recoveries, s.stats().retx_pkts), (1, 6));
    // A second NACK of the same hole (its interval passed) steps back again, without a
    // second cut in the same episode.
    assert_eq!(feed(&mut s, &ack(PacketKind::Nack, 2, 600)), [2, 3, 4, 5, 6, 7]);
    assert_eq!((s.cwnd(), s.stats().fast_recoveries), (6 * MSS, 1));
    // Cumulative ACKs of the resent segments send the next ones in order, past the old
    // HighData as new data.
    assert_eq!(feed(&mut s, &ack(PacketKind::Ack, 4, 610)), [8, 9]);
    assert_eq!(feed(&mut s, &ack(PacketKind::Ack, 8, 611)), [10, 11, 12, 13]);
    assert_eq!(s.stats().retx_pkts, 18, "2..8 twice, then 8..14: all sent before");
    assert_eq!(feed(&mut s, &ack(PacketKind::Ack, 10, 612)), [14, 15]);
    assert_eq!(s.stats().retx_pkts, 18, "14 and 15 are new");
    assert_eq!(s.scoreboard().pipe(), s.scoreboard().pipe_from_scratch());
}

#[test]
fn go_back_n_does_no_duplicate_ack_recovery_and_a_stale_nack_is_ignored() {
    let (mut gbn, _) = window_sender(LossRecovery::GoBackN);
    let (mut sel, _) = window_sender(LossRecovery::Selective);
    feed(&mut gbn, &ack(PacketKind::Ack, 2, 20));
    feed(&mut sel, &ack(PacketKind::Ack, 2, 20));
    // Three duplicate ACKs: selective repeat's fast retransmit, nothing in go-back-N.
    let dup = ack(PacketKind::Ack, 2, 21);
    let sel_sent: Vec<u64> = (0..3).flat_map(|_| feed(&mut sel, &dup)).collect();
    let gbn_sent: Vec<u64> = (0..3).flat_map(|_| feed(&mut gbn, &dup)).collect();
    assert_eq!(sel_sent, [2]);
    assert!(gbn_sent.is_empty());
    assert_eq!(gbn.stats().retx_pkts, 0);
    // A NACK below the cumulative ACK is older than what it acknowledges: no step back.
    feed(&mut gbn, &ack(PacketKind::Ack, 5, 22));
    assert!(feed(&mut gbn, &ack(PacketKind::Nack, 3, 23)).iter().all(|&i| i >= 12));
    assert_eq!(gbn.stats().retx_pkts, 0);
}

#[test]
fn a_timeout_makes_the_window_go_back_to_the_first_unacknowledged_segment() {
    let (mut s, _) = window_sender(LossRecovery::GoBackN);
    feed(&mut s, &ack(PacketKind::Ack, 3, 20));
    let at = s.poll_timeout().unwrap();
    let mut out = Vec::new();
    s.on_timeout(at, &mut out);
    // cwnd 1 MSS after the timeout: segment 3 alone, then slow start resends 4, 5, ... in order.
    assert_eq!(segs(&out), [3]);
    let mut out = Vec::new();
    s.on_packet(at + Time::from_us(10), &ack(PacketKind::Ack, 4, 0), &mut out);
    assert_eq!(segs(&out), [4, 5]);
    assert_eq!((s.stats().timeouts, s.stats().retx_pkts), (1, 3));
}
