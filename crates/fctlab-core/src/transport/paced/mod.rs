//! The paced, rate-based sender shared by every rate-based protocol (RCP, fixed rate, ...):
//! reliability and pacing here, the rate itself from a [`law::RateLaw`]. The receiver is the
//! TCP receiver, which echoes the forward packet's congestion header in its ACKs.
//!
//! | file | concern |
//! |---|---|
//! | `mod.rs` | the sender: handshake, pacing clock, SACK scoreboard, retransmissions, probes |
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
use super::tcp::rtt::RttEstimator;
use super::tcp::scoreboard::{Scoreboard, SACKED};
use super::tcp::segments::Segments;
use super::tcp::{TcpConfig, TcpSender};
use super::{Endpoint, FlowAddr};
use crate::net::packet::{CongestionHeader, Packet, PacketKind};
use crate::units::Time;
use law::{LawCtx, RateConfig, RateControl, RateLaw};
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
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Closed,
    SynSent,
    /// The SYN-ACK showed no router of the law's kind: waiting to be replaced by TCP.
    FallingBack,
    Sending,
    Done,
}

/// One paced sending endpoint.
#[derive(Clone, Debug)]
pub struct PacedSender {
    cfg: PacedConfig,
    law: RateLaw,
    addr: FlowAddr,
    app: AppState,
    segs: Segments,
    board: Scoreboard,
    state: State,
    /// The rate to send at, bit/s.
    rate: f64,
    rtt: RttEstimator,
    nxt: u32,
    rxt_scan: u32,
    next_send: Time,
    /// When the last packet left (the start of the gap `next_send` ends).
    last_send: Time,
    probe_at: Time,
    /// The timestamp of the last probe sent, until an ACK echoes it.
    probe_ts: Option<Time>,
    rto_at: Option<Time>,
    sent_bytes: u64,
    /// The sending rate over windows of two SRTTs.
    send_rate: SendRate,
    /// Payload bytes retransmitted.
    pub retx_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
}

impl PacedSender {
    /// A sender for `app` starting at `start`.
    pub fn new(cfg: PacedConfig, addr: FlowAddr, app: App, start: Time) -> PacedSender {
        let law = RateLaw::new(cfg.law);
        PacedSender {
            cfg,
            addr,
            app: AppState::new(app, start),
            segs: Segments::new(cfg.mss),
            board: Scoreboard::new(),
            state: State::Closed,
            rate: law.initial_rate(),
            law,
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, Time::from_secs(60)),
            nxt: 0,
            rxt_scan: 0,
            next_send: start,
            last_send: start,
            probe_at: Time::MAX,
            probe_ts: None,
            rto_at: None,
            sent_bytes: 0,
            send_rate: SendRate::default(),
            retx_bytes: 0,
            timeouts: 0,
        }
    }

    /// The current sending rate, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Payload bytes cumulatively acknowledged (the flow's progress).
    pub fn acked_bytes(&self) -> u64 {
        self.segs.bytes_below(self.board.una())
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
        self.state == State::FallingBack
    }

    /// The TCP sender this flow becomes (see the module docs): it takes the application, the
    /// segments written so far and the SYN-ACK `synack` (its RTT sample), and sends its first
    /// window into `out`. Only valid when [`PacedSender::falls_back`].
    pub fn to_tcp(&self, now: Time, synack: &Packet, out: &mut Vec<Packet>) -> TcpSender {
        debug_assert!(self.falls_back());
        let cfg = self.cfg.fallback.expect("a sender falls back only with a fallback config");
        TcpSender::after_handshake(cfg, self.addr, self.app.clone(), self.segs.clone(), now, synack, out)
    }

    /// True once every byte is acknowledged.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Sends the SYN, or without a handshake the first data at the fixed rate.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        let (n, _) = self.app.poll(now);
        self.segs.write(n);
        if self.cfg.handshake {
            self.state = State::SynSent;
            self.send_syn(now, out);
        } else {
            self.take_rate(now, CongestionHeader::None);
            self.state = State::Sending;
            self.next_send = now;
            self.pump(now, out);
        }
    }

    fn header(&self, kind: PacketKind, wire: u32) -> CongestionHeader {
        let srtt = self.rtt.srtt();
        self.law.header(LawCtx { kind, srtt, sent_bytes: self.sent_bytes, rate_bps: self.rate, wire })
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mut p = self.addr.forward(PacketKind::Syn, now);
        p.wire = self.cfg.header;
        p.cc = self.header(PacketKind::Syn, p.wire);
        out.push(p);
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Hands the law an echoed header; the rate it gives is the new pacing rate.
    ///
    /// While the next packet is more than an RTT away (the probing regime), a higher rate also
    /// shortens the gap under way: it is re-timed from the last packet at the new rate. A law
    /// that starts from almost nothing and rises once per interval (PIQI-RCP) would otherwise
    /// wait out the first, longest gap whatever the feedback says meanwhile. Above one packet
    /// per RTT the new rate applies from the next gap on.
    fn take_rate(&mut self, now: Time, cc: CongestionHeader) {
        let srtt = self.rtt.srtt();
        let Some(r) = self.law.on_feedback(now, cc, srtt) else { return };
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

    /// The next segment to send: a lost one first, else new data (skipping SACKed segments).
    fn next_segment(&mut self) -> Option<(u32, bool)> {
        if let Some(i) = self.board.next_lost(self.rxt_scan, self.nxt) {
            if self.board.get(i) & super::tcp::scoreboard::RETX == 0 {
                self.rxt_scan = i + 1;
                return Some((i, true));
            }
        }
        while self.nxt < self.segs.count() && self.board.get(self.nxt) & SACKED != 0 {
            self.nxt += 1;
        }
        if self.nxt < self.segs.count() {
            let i = self.nxt;
            self.nxt += 1;
            return Some((i, false));
        }
        None
    }

    /// Sends what the pacing clock allows by `now`.
    fn pump(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.state != State::Sending {
            return;
        }
        // After an idle period the clock restarts at `now` rather than bursting to catch up.
        if self.next_send < now {
            self.next_send = now;
        }
        while self.next_send <= now {
            let Some((i, retx)) = self.next_segment() else { break };
            let (a, b) = self.segs.range(i);
            let mut p = self.addr.forward(PacketKind::Data, now);
            p.seq = a;
            p.len = (b - a) as u32;
            p.fin = self.app.total() == Some(b);
            p.wire = p.len + self.cfg.header;
            p.cc = self.header(PacketKind::Data, p.wire);
            out.push(p);
            self.send_rate.on_send(now, p.wire, self.rtt.srtt());
            self.sent_bytes += b - a;
            if retx {
                self.board.on_retransmit(i);
                self.retx_bytes += b - a;
            } else {
                self.board.on_sent(i);
            }
            self.last_send = now;
            self.next_send += self.gap(p.wire);
            if self.rto_at.is_none() {
                self.rto_at = Some(now + self.rtt.rto());
            }
        }
        self.maybe_probe(now, out);
    }

    /// A zero-length probe once per RTT while the pacing gap exceeds the RTT.
    fn maybe_probe(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(srtt) = self.rtt.srtt() else { return };
        let waiting = self.next_send > now + srtt && self.has_work();
        if !waiting {
            self.probe_at = Time::MAX;
            return;
        }
        if self.probe_at == Time::MAX {
            self.probe_at = now + srtt;
        } else if self.probe_at <= now {
            let mut p = self.addr.forward(PacketKind::Data, now);
            p.seq = self.segs.range(self.board.una().min(self.segs.count().saturating_sub(1))).0;
            p.len = 0;
            p.wire = self.cfg.header;
            p.cc = self.header(PacketKind::Data, p.wire);
            out.push(p);
            self.probe_at = now + srtt;
            self.probe_ts = Some(now);
        }
    }

    fn has_work(&self) -> bool {
        self.board.una() < self.segs.count()
    }

    /// True if the pacing clock has a packet to send when it ticks.
    fn can_send(&self) -> bool {
        self.nxt < self.segs.count() || self.board.next_lost(self.rxt_scan, self.nxt).is_some()
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        self.take_rate(now, pkt.cc);
        for &(s, e) in pkt.sack.iter() {
            let mut i = self.segs.first_at_or_after(s);
            while i < self.segs.count() && self.segs.range(i).1 <= e {
                self.board.on_sacked(i);
                i += 1;
            }
        }
        let ack_seg = self.segs.segs_below(pkt.ack);
        if ack_seg > self.board.una() {
            self.board.advance(ack_seg);
            self.nxt = self.nxt.max(ack_seg);
            self.rxt_scan = self.rxt_scan.max(ack_seg);
            self.rtt.sample(now - pkt.ts_echo);
            self.rto_at = if self.has_work() { Some(now + self.rtt.rto()) } else { None };
        } else if self.probe_ts.is_some_and(|t| t == pkt.ts_echo) {
            // The ACK of a probe times the path too (its timestamp is unambiguous): a flow
            // that sends less than a packet per RTT would otherwise keep the RTT of its last
            // data, which a queue may have inflated long ago, and report it to the routers.
            self.rtt.sample(now - pkt.ts_echo);
            self.probe_ts = None;
        }
        self.board.mark_losses(3);
        if !self.has_work() && self.app.next_event().is_none() {
            self.state = State::Done;
            self.rto_at = None;
            return;
        }
        self.pump(now, out);
    }
}

impl Endpoint for PacedSender {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match (pkt.kind, self.state) {
            (PacketKind::SynAck, State::SynSent) => {
                if self.cfg.fallback.is_some() && !self.law.path_has_routers(pkt.cc) {
                    self.state = State::FallingBack;
                    self.rto_at = None;
                    return;
                }
                self.take_rate(now, pkt.cc);
                self.rtt.sample(now - pkt.ts_echo);
                self.state = State::Sending;
                self.rto_at = None;
                self.next_send = now;
                self.pump(now, out);
            }
            (PacketKind::Ack, State::Sending) => self.on_ack(now, pkt, out),
            _ => {}
        }
    }

    fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.app.next_event().is_some_and(|t| t <= now) {
            let (n, stopped) = self.app.poll(now);
            self.segs.write(n);
            if stopped {
                self.segs.truncate(self.nxt);
            }
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.timeouts += 1;
            self.rtt.back_off();
            match self.state {
                State::SynSent => self.send_syn(now, out),
                State::Sending => {
                    self.board.on_timeout(self.nxt);
                    self.rxt_scan = self.board.una();
                    self.rto_at = Some(now + self.rtt.rto());
                }
                _ => {}
            }
        }
        self.pump(now, out);
    }

    fn poll_timeout(&self) -> Option<Time> {
        let mut t = self.rto_at.unwrap_or(Time::MAX);
        if self.state == State::Sending {
            if self.can_send() {
                t = t.min(self.next_send);
            }
            t = t.min(self.probe_at);
        }
        if let Some(w) = self.app.next_event() {
            t = t.min(w);
        }
        (t != Time::MAX).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    fn sender(handshake: bool) -> PacedSender {
        let cfg = PacedConfig {
            mss: 960,
            header: 40,
            initial_rto: Time::from_ms(500),
            min_rto: Time::from_ms(200),
            law: RateConfig::Fixed(Rate::from_mbps(8)),
            handshake,
            fallback: None,
        };
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        PacedSender::new(cfg, addr, App::Bulk { size: 3 * 960 }, Time::ZERO)
    }

    #[test]
    fn a_fixed_rate_sender_without_handshake_paces_data_from_the_start() {
        let mut s = sender(false);
        let mut out = Vec::new();
        s.start(Time::ZERO, &mut out);
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
        s.start(Time::ZERO, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, PacketKind::Syn);
        assert_eq!(s.poll_timeout(), Some(Time::from_ms(500)), "only the SYN's retry is due");
    }
}
