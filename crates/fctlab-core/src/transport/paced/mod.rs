//! The paced, rate-based sender shared by every rate-based protocol (RCP, fixed rate, ...):
//! reliability and pacing here, the rate itself from a [`RateLaw`]. The receiver is the
//! TCP receiver, which echoes the forward packet's congestion header in its ACKs.
//!
//! | file | concern |
//! |---|---|
//! | `mod.rs` | the paced loop: pacing clock, probes, the fallback to TCP; handshake, SACK scoreboard, timer and retransmission choice are the [`Connection`]'s (`transport/conn/`) |
//! | `law/mod.rs` | the rate-law interface, the list of laws and their static dispatch |
//! | `law/rcp.rs` | RCP's host law (the routers' stamped rate) and the fixed-rate law |
//! | `law/jetmax.rs` | JetMax's host law (seed 003 eq. 3) |
//! | `law/piqi.rs` | PIQI-RCP's host law (seed 003 eqs. 7-8) |
//! | `send_rate.rs` | the sending rate averaged over two RTTs, for the series |
//!
//! - The SYN carries the law's header; data starts after the SYN-ACK, one packet every
//!   `wire bits / rate`, the rate updated by the law on each ACK.
//! - When the rate falls below one packet per RTT, a zero-length probe leaves once per RTT so
//!   feedback keeps coming (as the ns-2 host does); its ACK is also an RTT sample.
//! - Losses are repaired exactly: the receiver's SACK blocks mark what arrived, a segment with
//!   three SACKed segments above it is lost (RFC 6675 IsLost), and lost segments go before new
//!   data in the paced schedule; a retransmission timeout marks everything outstanding lost.
//!   The thesis's simulations instead waited about two RTTs after the last packet and resent
//!   whatever was unacknowledged; both send every missing byte once per loss, the SACK rule
//!   sooner and without resending what arrived.
//! - With go-back-N recovery (`PacedConfig::recovery`, a queue pair's default) the receiver
//!   keeps only in-order data and NACKs a hole; a NACK acknowledges cumulatively and sends the
//!   loop back to the hole ([`Connection::go_back`]): the next packets in the paced schedule
//!   resend everything from there in order, at the law's rate. A timeout steps back the same
//!   way. No SACK block is read and the rate law hears of neither.
//! - Fallback to TCP (RCP thesis sec. 6.2.2, `PacedConfig::fallback`): a SYN-ACK whose
//!   header shows no router of the law's kind on the path (RCP: the rate still "unlimited")
//!   leaves the sender in `FallingBack`; the flow's [`crate::transport::endpoint::Sender`]
//!   then replaces it with a TCP sender that takes over the application, the segments and the
//!   handshake's RTT sample ([`PacedSender::to_tcp`]) and sends its first window at once.
//!   Nothing but the SYN has left by then, so the switch loses nothing. Without it the flow
//!   would pace at the law's "unlimited" rate (10 Gb/s) into a path that cannot carry it.
//! - A fixed-rate sender may skip the handshake (`handshake = false`) and send its first packet
//!   when the flow starts, as the thesis's study of the optimal rate does (Figs. 3.6 - 3.8): a
//!   SYN that queued behind data would bunch the next flows' starts at the end of each busy
//!   period.

pub mod law;
pub mod send_rate;

use super::app::{App, AppState};
use super::conn::rtt::RttEstimator;
use super::conn::{Connection, LossRecovery, SenderStats, Stamp, State};
use super::ecn::{EcnMode, EcnSender};
use super::tcp::{TcpConfig, TcpSender};
use super::{Endpoint, FlowAddr};
use crate::net::packet::{CongestionHeader, Packet, PacketKind};
use crate::protocol::{RateConfig, RateLaw};
use crate::units::Time;
use law::{LawCtx, RateControl, RateFeedback};
use send_rate::SendRate;

/// Paced sender settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PacedConfig {
    /// Payload bytes per packet.
    pub mss: u32,
    /// Header bytes per packet, the congestion header included (RCP: 40 + 12).
    pub header: u32,
    /// Timeout before any RTT sample (SYN retry; the ns-2 RCP host: 0.5 s).
    pub initial_rto: Time,
    /// Lower bound of the retransmission timeout.
    pub min_rto: Time,
    /// The rate law.
    pub law: RateConfig,
    /// Open with SYN / SYN-ACK; a fixed-rate sender may skip it and send data at once.
    pub handshake: bool,
    /// The TCP the flow becomes when the SYN-ACK shows no router of the law's kind on the path
    /// (thesis sec. 6.2.2); `None`: pace at the law's "unlimited" rate instead.
    pub fallback: Option<TcpConfig>,
    /// An RDMA queue pair: no handshake (whatever `handshake` says), and the path's base RTT is
    /// the first RTT sample.
    pub queue_pair: bool,
    /// Which packets leave ECN-capable ([`EcnMode::Off`]: none); the receiver's echo is its
    /// own config's, and the law reads it as [`law::RateFeedback::ece`].
    pub ecn: EcnMode,
    /// An RDMA NIC's scheduling (queue pairs in a fabric): one packet of the flow in its NIC at
    /// a time, the next `wire / rate` after the last one left the NIC
    /// ([`PacedSender::on_transmitted`]), as HPCC's simulator's NIC asks a queue pair for a
    /// packet (`UpdateNextAvail` at dequeue). Otherwise packets are paced into the NIC's queue,
    /// where they wait when the NIC is busier than the flow's rate allows.
    pub nic_pull: bool,
    /// How losses are repaired: SACK's selective repeat, or go-back-N (a queue pair's default).
    pub recovery: LossRecovery,
}

/// The congestion header the rate law stamps on a packet sent at `rate_bps`.
#[inline]
fn law_header(law: &RateLaw, rate_bps: f64) -> impl Fn(Stamp) -> CongestionHeader + '_ {
    move |s: Stamp| law.header(LawCtx { kind: s.kind, srtt: s.srtt, sent_bytes: s.sent_bytes, rate_bps, wire: s.wire })
}

/// One paced sending endpoint: the paced loop over a [`Connection`].
#[derive(Debug)]
pub struct PacedSender {
    cfg: PacedConfig,
    law: RateLaw,
    conn: Connection,
    /// The SYN-ACK showed no router of the law's kind: waiting to be replaced by TCP.
    falling_back: bool,
    /// The rate to send at, bit/s.
    rate: f64,
    next_send: Time,
    /// When the last packet left (the start of the gap `next_send` ends).
    last_send: Time,
    probe_at: Time,
    /// The timestamp of the last probe sent, until an ACK echoes it.
    probe_ts: Option<Time>,
    /// The sending rate over windows of two SRTTs.
    send_rate: SendRate,
    /// Packets handed to the NIC that have not left it yet (`nic_pull`).
    in_nic: u32,
}

impl PacedSender {
    /// A sender for `app` starting at `start`.
    pub fn new(cfg: PacedConfig, addr: FlowAddr, app: App, start: Time) -> PacedSender {
        let law = RateLaw::new(cfg.law);
        let rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, Time::from_secs(60));
        let mut conn = Connection::new(addr, AppState::new(app, start), cfg.mss, cfg.header, rtt);
        conn.ecn = EcnSender::new(cfg.ecn);
        PacedSender {
            cfg,
            conn,
            falling_back: false,
            rate: law.initial_rate(),
            law,
            next_send: start,
            last_send: start,
            probe_at: Time::MAX,
            probe_ts: None,
            send_rate: SendRate::default(),
            in_nic: 0,
        }
    }

    /// Whether the flow waits for [`PacedSender::on_transmitted`] (`nic_pull`).
    pub fn wants_transmitted(&self) -> bool {
        self.cfg.nic_pull
    }

    /// A packet of `len` payload bytes and `wire` bytes this sender handed its NIC started onto
    /// the wire at `now` (`nic_pull`): the next one may follow `wire / rate` later (a probe,
    /// without payload, leaves the pacing clock as it is).
    pub fn on_transmitted(&mut self, now: Time, len: u32, wire: u32, out: &mut Vec<Packet>) {
        self.in_nic = self.in_nic.saturating_sub(1);
        if len > 0 {
            self.last_send = now;
            self.next_send = now + self.gap(wire);
        }
        if self.conn.is_established() && !self.is_done() {
            self.pump(now, out);
        }
    }

    /// Whether a packet may go to the NIC now: always, unless the NIC still holds one
    /// (`nic_pull`).
    #[inline]
    fn nic_free(&self) -> bool {
        !self.cfg.nic_pull || self.in_nic == 0
    }

    /// The current sending rate, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Payload bytes cumulatively acknowledged (the flow's progress).
    pub fn acked_bytes(&self) -> u64 {
        self.conn.acked_bytes()
    }

    /// The sending rate averaged over the last closed window of two SRTTs, bit/s: the wire
    /// bits of data packets, retransmissions included (probes are not counted); see
    /// [`send_rate`].
    pub fn send_rate_bps(&self) -> f64 {
        self.send_rate.bps()
    }

    /// True after a SYN-ACK that calls for the fallback to TCP: the owner must then replace
    /// this sender by [`PacedSender::to_tcp`].
    pub fn falls_back(&self) -> bool {
        self.falling_back
    }

    /// The TCP sender this flow becomes (see the module docs): it takes the application, the
    /// segments written so far and the SYN-ACK `synack` (its RTT sample), and sends its first
    /// window into `out`. Only valid when [`PacedSender::falls_back`].
    pub fn to_tcp(&self, now: Time, synack: &Packet, out: &mut Vec<Packet>) -> TcpSender {
        debug_assert!(self.falls_back());
        let cfg = self.cfg.fallback.expect("a sender falls back only with a fallback config");
        let c = &self.conn;
        TcpSender::after_handshake(cfg, c.addr, c.app.clone(), c.segs.clone(), now, synack, out)
    }

    /// True once every byte is acknowledged.
    pub fn is_done(&self) -> bool {
        self.conn.state() == State::Done
    }

    /// The connection core under the paced loop.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Counters for the flow table.
    pub fn stats(&self) -> &SenderStats {
        self.conn.stats()
    }

    /// Sends the SYN, or without a handshake the first data at the fixed rate.
    pub fn start(&mut self, now: Time, path_rtt: Time, out: &mut Vec<Packet>) {
        self.conn.write_app(now);
        if self.cfg.queue_pair {
            self.conn.rtt.sample(path_rtt);
        }
        if self.cfg.handshake && !self.cfg.queue_pair {
            self.send_syn(now, out);
        } else {
            self.take_rate(now, &RateFeedback::of(now, CongestionHeader::None, None));
            self.conn.establish_without_handshake();
            self.next_send = now;
            self.pump(now, out);
        }
    }

    fn header(&self, kind: PacketKind, wire: u32) -> CongestionHeader {
        law_header(&self.law, self.rate)(self.conn.stamp(kind, wire))
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        let cc = self.header(PacketKind::Syn, self.cfg.header);
        self.conn.send_syn(now, 0, cc, out);
    }

    /// Hands the law an echoed header; the rate it gives is the new pacing rate.
    ///
    /// While the next packet is more than an RTT away (the probing regime), a higher rate also
    /// shortens the gap under way: it is re-timed from the last packet at the new rate. A law
    /// that starts from almost nothing and rises once per interval (PIQI-RCP) would otherwise
    /// wait out the first, longest gap whatever the feedback says meanwhile. Above one packet
    /// per RTT the new rate applies from the next gap on.
    fn take_rate(&mut self, now: Time, fb: &RateFeedback) {
        let Some(r) = self.law.on_feedback(fb) else { return };
        self.set_rate(now, r);
    }

    /// The feedback `pkt` (a SYN-ACK or ACK arriving at `now`) gives the law.
    fn feedback(&self, now: Time, pkt: &Packet) -> RateFeedback {
        let acked = self.conn.acked_bytes();
        RateFeedback {
            now,
            echo: pkt.cc,
            srtt: self.conn.rtt.srtt(),
            rtt: Some(now.saturating_sub(pkt.ts_echo)),
            ece: pkt.ecn.ece(),
            sent_bytes: self.conn.stats().data_bytes,
            acked: acked.max(pkt.ack),
        }
    }

    /// Paces at `r` from now on (see [`PacedSender::take_rate`]).
    fn set_rate(&mut self, now: Time, r: f64) {
        let srtt = self.conn.rtt.srtt();
        let old = self.rate;
        self.rate = r;
        if r > old && srtt.is_some_and(|s| self.next_send > now + s) {
            let gap = (self.next_send - self.last_send).as_secs_f64() * old / r;
            self.next_send = (self.last_send + Time::from_secs_f64(gap)).max(now);
        }
    }

    fn gap(&self, wire: u32) -> Time {
        Time::from_secs_f64(wire as f64 * 8.0 / self.rate)
    }

    /// Sends what the pacing clock allows by `now`: a lost segment first, else new data
    /// (NextSeg rules (1) and (2), the connection's).
    fn pump(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.conn.is_established() {
            return;
        }
        // After an idle period the clock restarts at `now` rather than bursting to catch up.
        if self.next_send < now {
            self.next_send = now;
        }
        while self.next_send <= now && self.nic_free() {
            let header = law_header(&self.law, self.rate);
            let wire = if let Some(i) = self.conn.next_lost() {
                self.conn.retransmit_lost(now, i, 0, header, out)
            } else if let Some(i) = self.conn.next_new() {
                self.conn.send_new(now, i, false, 0, header, out)
            } else {
                break;
            };
            self.send_rate.on_send(now, wire, self.conn.rtt.srtt());
            self.last_send = now;
            self.next_send += self.gap(wire);
            self.in_nic += u32::from(self.cfg.nic_pull);
            self.conn.arm_rto(now);
        }
        self.maybe_probe(now, out);
    }

    /// A zero-length probe once per RTT while the pacing gap exceeds the RTT.
    fn maybe_probe(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(srtt) = self.conn.rtt.srtt() else { return };
        let waiting = self.next_send > now + srtt && !self.conn.all_acked();
        if !waiting {
            self.probe_at = Time::MAX;
            return;
        }
        if self.probe_at == Time::MAX {
            self.probe_at = now + srtt;
        } else if self.probe_at <= now && self.nic_free() {
            self.conn.send_probe(now, 0, law_header(&self.law, self.rate), out);
            self.in_nic += u32::from(self.cfg.nic_pull);
            self.probe_at = now + srtt;
            self.probe_ts = Some(now);
        }
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let fb = self.feedback(now, pkt);
        self.take_rate(now, &fb);
        let go_back_n = self.cfg.recovery == LossRecovery::GoBackN;
        if !go_back_n {
            self.conn.take_sack(pkt, &mut ());
        }
        let ack_seg = self.conn.segs.segs_below(pkt.ack);
        let current = ack_seg >= self.conn.board.una();
        if ack_seg > self.conn.board.una() {
            self.conn.take_cumulative(ack_seg, pkt.ack, &mut ());
            self.conn.rtt.sample(now - pkt.ts_echo);
            // RFC 6298 sec. 5.2-5.3.
            if self.conn.all_acked() {
                self.conn.stop_rto();
            } else {
                self.conn.restart_rto(now);
            }
        } else if self.probe_ts.is_some_and(|t| t == pkt.ts_echo) {
            // The ACK of a probe times the path too (its timestamp is unambiguous): a flow
            // that sends less than a packet per RTT would otherwise keep the RTT of its last
            // data, which a queue may have inflated long ago, and report it to the routers.
            self.conn.rtt.sample(now - pkt.ts_echo);
            self.probe_ts = None;
        }
        if !go_back_n {
            self.conn.board.mark_losses(3);
        } else if pkt.kind == PacketKind::Nack && current {
            // A NACK older than the cumulative ACK says nothing any more.
            self.conn.go_back();
        }
        if self.conn.finish_if_complete() {
            return;
        }
        self.pump(now, out);
    }
}

impl Endpoint for PacedSender {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::SynAck if self.conn.state() == State::SynSent && !self.falling_back => {
                if self.cfg.fallback.is_some() && !self.law.path_has_routers(pkt.cc) {
                    self.falling_back = true;
                    self.conn.stop_rto();
                    return;
                }
                let fb = self.feedback(now, pkt);
                self.take_rate(now, &fb);
                self.conn.establish(now, pkt);
                self.next_send = now;
                self.pump(now, out);
            }
            PacketKind::Ack | PacketKind::Nack if self.conn.is_established() => self.on_ack(now, pkt, out),
            _ => {}
        }
    }

    fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.conn.app.next_event().is_some_and(|t| t <= now) {
            self.conn.write_app(now);
        }
        match self.conn.take_rto(now) {
            Some(State::SynSent) => self.send_syn(now, out),
            // RFC 6298 sec. 5.4-5.6: everything outstanding is lost (SACKed data stays
            // SACKed) and goes first in the paced schedule; the timer restarts backed off.
            // Go-back-N steps back to the first unacknowledged segment instead.
            Some(State::Established) => {
                let c = &mut self.conn;
                if self.cfg.recovery == LossRecovery::GoBackN {
                    c.go_back();
                } else {
                    c.board.on_timeout(c.nxt);
                    c.rxt_scan = c.board.una();
                }
                c.restart_rto(now);
            }
            _ => {}
        }
        if self.conn.is_established() && self.law.next_timer().is_some_and(|t| t <= now) {
            if let Some(r) = self.law.on_timer(now, self.conn.stats().data_bytes) {
                self.set_rate(now, r);
            }
        }
        self.pump(now, out);
    }

    fn poll_timeout(&self) -> Option<Time> {
        let mut t = self.conn.rto_deadline().unwrap_or(Time::MAX);
        if self.conn.is_established() {
            if self.conn.has_data_to_send() && self.nic_free() {
                t = t.min(self.next_send);
            }
            t = t.min(self.probe_at);
            if let Some(w) = self.law.next_timer() {
                t = t.min(w);
            }
        }
        if let Some(w) = self.conn.app.next_event() {
            t = t.min(w);
        }
        (t != Time::MAX).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::rcp::FixedConfig;
    use crate::units::Rate;

    fn sender(handshake: bool) -> PacedSender {
        sender_with(handshake, false)
    }

    fn sender_with(handshake: bool, nic_pull: bool) -> PacedSender {
        let cfg = PacedConfig {
            mss: 960,
            header: 40,
            initial_rto: Time::from_ms(500),
            min_rto: Time::from_ms(200),
            law: RateConfig::Fixed(FixedConfig(Rate::from_mbps(8))),
            handshake,
            fallback: None,
            queue_pair: false,
            ecn: EcnMode::Off,
            nic_pull,
            recovery: LossRecovery::Selective,
        };
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        PacedSender::new(cfg, addr, App::Bulk { size: 3 * 960 }, Time::ZERO)
    }

    #[test]
    fn a_fixed_rate_sender_without_handshake_paces_data_from_the_start() {
        let mut s = sender(false);
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::ZERO, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].kind, out[0].seq, out[0].len), (PacketKind::Data, 0, 960));
        // 1000 wire bytes at 8 Mb/s: the next packet 1 ms later.
        assert_eq!(s.poll_timeout(), Some(Time::from_ms(1)));
        out.clear();
        s.on_timeout(Time::from_ms(1), &mut out);
        assert_eq!((out[0].kind, out[0].seq), (PacketKind::Data, 960));
    }

    #[test]
    fn with_a_handshake_the_sender_opens_with_a_syn_and_waits() {
        let mut s = sender(true);
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::ZERO, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, PacketKind::Syn);
        assert_eq!(s.poll_timeout(), Some(Time::from_ms(500)), "only the SYN's retry is due");
    }

    /// With `nic_pull` the NIC holds one packet of the flow at a time: nothing more leaves until
    /// the NIC says it sent it, and the next one is due `wire / rate` after that, not after the
    /// handing over (HPCC's NIC: `m_nextAvail` from the dequeue).
    #[test]
    fn a_pulled_sender_waits_for_its_nic_and_paces_from_the_departure() {
        let ms = Time::from_ms;
        let mut s = sender_with(false, true);
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::ZERO, &mut out);
        assert_eq!(out.len(), 1);
        out.clear();
        assert_eq!(s.poll_timeout(), Some(ms(500)), "only the retransmission timer: the NIC holds a packet");
        s.on_timeout(ms(1), &mut out);
        assert!(out.is_empty(), "the pacing gap has passed but the NIC still holds the first");
        // The NIC sends it at 3 ms (it was busy): the next is due 1 ms later, at 4 ms.
        s.on_transmitted(ms(3), 960, 1000, &mut out);
        assert!(out.is_empty());
        assert_eq!(s.poll_timeout(), Some(ms(4)));
        s.on_timeout(ms(4), &mut out);
        assert_eq!((out.len(), out[0].seq), (1, 960));
        // A sender that does not pull paces into the NIC: the second packet left at 1 ms.
        let mut p = sender(false);
        let mut out = Vec::new();
        p.start(Time::ZERO, Time::ZERO, &mut out);
        p.on_timeout(ms(1), &mut out);
        assert_eq!(out.len(), 2);
    }

    const MSS: u64 = 1000;

    /// A NACK whose cumulative ACK covers the first `segs` segments, arriving at `at`.
    fn nack(segs: u64, at: Time) -> Packet {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut p = addr.reverse(PacketKind::Nack, at);
        p.ack = segs * MSS;
        p.ts_echo = Time::from_ms(2);
        p
    }

    /// The data segments `pkts` carry, as segment indices (empty probes left out).
    fn segs(pkts: &[Packet]) -> Vec<u64> {
        pkts.iter().filter(|p| p.kind == PacketKind::Data && p.len > 0).map(|p| p.seq / MSS).collect()
    }

    fn go_back_n_sender() -> PacedSender {
        let cfg = PacedConfig {
            mss: MSS as u32,
            header: 0,
            initial_rto: Time::from_ms(500),
            min_rto: Time::from_ms(200),
            // 1,000 B at 8 Mb/s: one packet per ms.
            law: RateConfig::Fixed(FixedConfig(Rate::from_mbps(8))),
            handshake: false,
            fallback: None,
            queue_pair: true,
            ecn: EcnMode::Off,
            recovery: LossRecovery::GoBackN,
            nic_pull: false,
        };
        PacedSender::new(cfg, FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 }, App::Bulk { size: 10 * MSS }, Time::ZERO)
    }

    /// Runs `s`'s timers up to `until` ms; returns the segments sent.
    fn run_until(s: &mut PacedSender, until: u64) -> Vec<u64> {
        let mut sent = Vec::new();
        while let Some(t) = s.poll_timeout().filter(|&t| t <= Time::from_ms(until)) {
            let mut out = Vec::new();
            s.on_timeout(t, &mut out);
            sent.extend(segs(&out));
        }
        sent
    }

    #[test]
    fn a_nack_makes_the_paced_loop_resend_from_the_hole_in_order_at_its_rate() {
        let mut s = go_back_n_sender();
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::from_us(10), &mut out);
        let mut sent = segs(&out);
        sent.extend(run_until(&mut s, 4));
        assert_eq!(sent, [0, 1, 2, 3, 4]);
        // 1 arrived, 2 was lost: the NACK of 2 at 4.5 ms. The next slots resend 2, 3, 4, then
        // go on with 5.
        let mut out = Vec::new();
        s.on_packet(Time::from_us(4500), &nack(2, Time::from_us(4500)), &mut out);
        assert!(segs(&out).is_empty(), "the pacing clock decides when");
        assert_eq!(run_until(&mut s, 8), [2, 3, 4, 5]);
        assert_eq!(s.stats().retx_pkts, 3);
        // Nothing more is acknowledged: the rest leaves, then the timeout (200 ms after the NACK
        // advanced the cumulative ACK) goes back to 2 as well.
        let sent = run_until(&mut s, 207);
        assert_eq!(sent, [6, 7, 8, 9, 2, 3, 4]);
        assert_eq!((s.stats().timeouts, s.stats().retx_pkts), (1, 6));
    }
}
