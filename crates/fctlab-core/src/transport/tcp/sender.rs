//! The TCP sender's window loop: cwnd from the congestion controller, NextSeg rules (3) and
//! (4) and SACK-based fast recovery (RFC 6675), the reaction to a timeout (RFC 5681 eq. 4),
//! and the pacing clock of controllers that pace (R-TCP). The handshake, scoreboard, RTO
//! timer, ACK intake and the sending of segments are the [`Connection`]'s
//! (`transport/conn/`); a second sending loop beside the window (RC3's) is the one optional
//! plug-in, called at the points `hook.rs` lists.
//!
//! With go-back-N recovery ([`LossRecovery::GoBackN`], a queue pair's default) there is no
//! SACK-based repair: no duplicate-ACK count, nothing marked lost, no NextSeg rules (3) and
//! (4); the receiver sends no SACK block, so the ACK intake's SACK steps return at their first
//! test and the scoreboard only counts what is in flight. A NACK acknowledges cumulatively like an ACK, then opens a loss episode as fast
//! recovery does (the same once-per-episode reaction of the controller, until the cumulative
//! ACK passes the highest segment sent) and steps back ([`Connection::go_back`]): the window
//! sends again from the hole, in order. A timeout steps back the same way after its usual
//! reaction.

use super::config::TcpConfig;
use super::hook::WindowHook;
use super::nextseg::TailRepair;
use super::pacer::Pacer;
use crate::net::packet::{CongestionHeader, Packet, PacketKind};
use crate::protocol::{Controller, Hook};
use crate::transport::app::{App, AppState};
use crate::transport::cc::{CcState, CongestionControl, EcnAck, Feedback, HeaderCtx, RttSample};
use crate::transport::conn::rtt::RttEstimator;
use crate::transport::conn::scoreboard::Scoreboard;
use crate::transport::conn::segments::Segments;
use crate::transport::conn::{Connection, LossRecovery, Stamp, State};
use crate::transport::ecn::EcnSender;
use crate::transport::{Endpoint, FlowAddr};
use crate::units::Time;

pub use crate::transport::conn::SenderStats;

/// The most segments a sender keeps in flight (RFC 6675 `pipe`), whatever its window allows,
/// unless its initial window is larger: 2^20.
///
/// A window is a number a controller computes, and a plug-in's may be anything up to
/// [`crate::plugin::bounds::MAX_WINDOW`]: without this bound, a window of 2^50 bytes on a
/// long-lived flow sends without end inside one event, every packet queued at the host's NIC
/// (about 300 bytes each, [`crate::limits::BYTES_PER_QUEUED_SEGMENT`]). With it, one event
/// sends at most 2^20 packets, and a flow holds at most about 320 MB at its host. It never binds
/// a real TCP's window at an MSS of 1,024 bytes or more: RFC 7323's window scale caps a
/// receive window at 2^30 bytes. (The build's memory estimate counts an initial window on its
/// own, so a larger one is kept.)
pub const MAX_FLIGHT_SEGMENTS: u64 = 1 << 20;

/// Loss-recovery state (ns-3's Open / Recovery / Loss).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Recovery {
    Open,
    /// Fast recovery until the cumulative ACK reaches `point` (RFC 6675 RecoveryPoint).
    Fast {
        point: u32,
    },
    /// After a timeout, until the cumulative ACK reaches `point`; no fast retransmit meanwhile.
    Loss {
        point: u32,
    },
}

/// What NextSeg() chose (RFC 6675 sec. 4).
#[derive(Copy, Clone, Debug)]
enum NextSeg {
    /// Rule (1) or (3): retransmit segment `i`; HighRxt moves to it.
    Lost(u32),
    /// Rule (2): the first transmission of segment `i` (HighData).
    New(u32),
    /// Rule (4): rescue-retransmit segment `i` in the episode ending at the RecoveryPoint.
    Rescue(u32, u32),
}

/// The congestion header the window's controller stamps on a packet.
#[inline]
fn window_header<'a>(ctrl: &'a Controller, cc: &'a CcState) -> impl Fn(Stamp) -> CongestionHeader + 'a {
    move |s: Stamp| {
        ctrl.header(cc, HeaderCtx { kind: s.kind, srtt: s.srtt, sent_bytes: s.sent_bytes, remaining: s.remaining })
    }
}

/// One TCP sending endpoint.
#[derive(Debug)]
pub struct TcpSender {
    cfg: TcpConfig,
    conn: Connection,
    cc: CcState,
    ctrl: Controller,
    /// The controller takes RTT samples ([`CongestionControl::wants_rtt_samples`], asked once).
    rtt_samples: bool,
    /// The controller reads echoed headers ([`CongestionControl::wants_feedback`], asked once).
    feedback: bool,
    recovery: Recovery,
    dupacks: u32,
    /// NextSeg rules (3) and (4), in fast recovery.
    tail: TailRepair,
    /// The sending loop beside the window, if any (see `hook.rs`).
    hook: Option<Hook>,
    /// The pacing clock, for controllers that give a pacing rate (R-TCP); `None` for
    /// window-only TCP.
    pacer: Option<Pacer>,
    /// Retransmission timeouts since the cumulative ACK last advanced.
    timeouts_in_row: u32,
    /// Probe mode ([`CongestionControl::probe_after_timeouts`]): timeouts send probes, not data.
    probing: bool,
    /// The most bytes in flight whatever cwnd says: [`MAX_FLIGHT_SEGMENTS`] (or the initial
    /// window, if larger) segments.
    flight_cap: u64,
}

impl TcpSender {
    /// A sender for `app` that will start at `start`.
    pub fn new(cfg: TcpConfig, addr: FlowAddr, app: App, start: Time) -> TcpSender {
        let ctrl = Controller::new(cfg.cc, cfg.hystart, cfg.mss, cfg.header, cfg.rwnd, addr.flow);
        let rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto).with_granularity(cfg.rto_granularity);
        let mut conn = Connection::new(addr, AppState::new(app, start), cfg.mss, cfg.header, rtt);
        conn.ecn = EcnSender::new(cfg.ecn);
        conn.stamps_remaining = cfg.cc.stamps_remaining();
        TcpSender {
            cfg,
            conn,
            cc: CcState {
                cwnd: cfg.iw as u64 * cfg.mss as u64,
                ssthresh: cfg.initial_ssthresh,
                mss: cfg.mss as u64,
                abc: cfg.abc as u64 * cfg.mss as u64,
            },
            pacer: ctrl.pacing_rate().map(Pacer::new),
            rtt_samples: ctrl.wants_rtt_samples(),
            feedback: ctrl.wants_feedback(),
            ctrl,
            recovery: Recovery::Open,
            dupacks: 0,
            tail: TailRepair::default(),
            hook: cfg.hook.map(|h| Hook::new(h, cfg.prio)),
            timeouts_in_row: 0,
            probing: false,
            flight_cap: MAX_FLIGHT_SEGMENTS.max(cfg.iw as u64) * cfg.mss as u64,
        }
    }

    /// A sender that takes over a connection another sender opened (a rate-based sender
    /// falling back to TCP, RCP thesis sec. 6.2.2): the application `app` and the segments
    /// `segs` it has written, none sent yet; `synack` is the SYN-ACK that ends the handshake
    /// (its RTT sample is the first). The first window leaves into `out`.
    pub fn after_handshake(
        cfg: TcpConfig,
        addr: FlowAddr,
        app: AppState,
        segs: Segments,
        now: Time,
        synack: &Packet,
        out: &mut Vec<Packet>,
    ) -> TcpSender {
        debug_assert!(cfg.hook.is_none(), "a hook tracks writes from the start");
        let mut s = TcpSender::new(cfg, addr, App::Bulk { size: 0 }, now);
        s.conn.adopt(app, segs);
        s.on_synack(now, synack, out);
        s
    }

    /// Opens the connection: the application writes and the SYN leaves. A queue pair
    /// ([`TcpConfig::queue_pair`]) has no handshake: `path_rtt`, the flow's base RTT, is its
    /// first RTT sample and what its controller would have learnt from the SYN-ACK, and the
    /// first window leaves at once.
    pub fn start(&mut self, now: Time, path_rtt: Time, out: &mut Vec<Packet>) {
        self.poll_app(now);
        if !self.cfg.queue_pair {
            return self.send_syn(now, out);
        }
        self.conn.establish_without_handshake();
        self.conn.rtt.sample(path_rtt);
        // What the SYN-ACK would have brought: the echo of the SYN's header, untouched by the
        // path (no queue yet), and the path's RTT.
        let mut first = self.conn.addr.reverse(PacketKind::SynAck, now);
        first.ts_echo = now.saturating_sub(path_rtt);
        first.cc = self.header(PacketKind::Syn).feedback();
        self.take_feedback(now, &first);
        self.send_more(now, out);
        self.run_hook(now, out);
        self.conn.check_done();
    }

    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd
    }

    /// The window's sending rate on the wire, cwnd x (mss + header) / mss x 8 / SRTT in bit/s
    /// (0 before the first RTT sample), headers counted as the paced senders count them: the
    /// primary loop's window, so RC3's low-priority copies are not in it.
    pub fn send_rate_bps(&self) -> f64 {
        let wire = (self.cfg.mss + self.cfg.header) as f64 / self.cfg.mss as f64;
        match self.conn.rtt.srtt() {
            Some(srtt) if srtt > Time::ZERO => self.cc.cwnd as f64 * wire * 8.0 / srtt.as_secs_f64(),
            _ => 0.0,
        }
    }

    /// Payload bytes cumulatively acknowledged (the flow's progress).
    pub fn acked_bytes(&self) -> u64 {
        self.conn.acked_bytes()
    }

    /// Slow-start threshold in bytes.
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh
    }

    /// True once every written byte is acknowledged and the application is done.
    pub fn is_done(&self) -> bool {
        self.conn.state() == State::Done
    }

    /// The scoreboard (for RC3's loop and for tests).
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.conn.board
    }

    /// The segment map (for RC3's loop and for tests).
    pub fn segments(&self) -> &Segments {
        &self.conn.segs
    }

    /// The next segment the primary loop sends for the first time (HighData).
    pub fn high_data(&self) -> u32 {
        self.conn.nxt
    }

    /// True while the handshake is done and data may flow.
    pub fn is_established(&self) -> bool {
        self.conn.is_established()
    }

    /// The connection core under the window loop.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Counters for the flow table.
    pub fn stats(&self) -> &SenderStats {
        &self.conn.stats
    }

    /// The pacing rate, for paced senders (R-TCP).
    pub fn pacing_rate(&self) -> Option<crate::units::Rate> {
        self.pacer.as_ref().map(Pacer::rate)
    }

    /// The congestion controller.
    pub fn controller(&self) -> &Controller {
        &self.ctrl
    }

    /// The sending loop beside the window (for tests).
    #[cfg(test)]
    pub(crate) fn hook(&self) -> &Option<Hook> {
        &self.hook
    }

    /// Configuration of this connection.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Lets the hook send after the window loop (RC3: the tail of what was written, at low
    /// priority), each packet through the connection with the controller's header.
    fn run_hook(&mut self, now: Time, out: &mut Vec<Packet>) {
        let (ctrl, cc, pacer) = (&self.ctrl, &self.cc, &mut self.pacer);
        self.hook.after_send(&mut self.conn, |conn, i, prio| {
            match conn.emit_low_priority(now, i, prio, window_header(ctrl, cc), out) {
                Some(wire) => {
                    if let Some(p) = pacer {
                        p.on_send(now, wire);
                    }
                    true
                }
                None => false,
            }
        });
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        let cc = self.header(PacketKind::Syn);
        self.conn.send_syn(now, self.cfg.prio, cc, out);
    }

    fn poll_app(&mut self, now: Time) {
        let (first, end) = self.conn.write_app(now);
        self.hook.on_write(first, end);
    }

    /// A packet of `wire` bytes left: the pacing clock, if any, ticks.
    #[inline]
    fn tick_pacer(&mut self, now: Time, wire: u32) {
        if let Some(pacer) = &mut self.pacer {
            pacer.on_send(now, wire);
        }
    }

    /// The controller's congestion header for an outgoing packet.
    #[inline]
    fn header(&self, kind: PacketKind) -> CongestionHeader {
        window_header(&self.ctrl, &self.cc)(self.conn.stamp(kind, self.cfg.header))
    }

    /// Hands the controller the header the ACK or SYN-ACK `pkt` echoes; returns true if the
    /// window follows it. A pacing controller's rate goes to the clock.
    #[inline(always)]
    fn take_feedback(&mut self, now: Time, pkt: &Packet) -> bool {
        if !self.feedback {
            return false;
        }
        let fb = Feedback {
            echo: pkt.cc,
            srtt: self.conn.rtt.srtt(),
            now,
            ack: if matches!(pkt.kind, PacketKind::Ack | PacketKind::Nack) {
                pkt.sacks().fold(pkt.ack, |a, (_, end)| a.max(end))
            } else {
                0
            },
            high: self.conn.segs.bytes_below(self.conn.nxt),
        };
        let follows = self.ctrl.on_feedback(&mut self.cc, &fb);
        if let Some(p) = &mut self.pacer {
            match self.ctrl.pacing_rate() {
                Some(rate) => p.set_rate(rate),
                // The controller stopped pacing (R-TCP fell back to TCP).
                None => self.pacer = None,
            }
        }
        follows
    }

    /// The ACK of a controller that ignores losses (R-TCP): recovery ends where TCP's would,
    /// and the window comes from the echoed feedback alone, in and out of recovery (no loss
    /// hook runs).
    #[inline(never)]
    fn feedback_only_ack(&mut self, now: Time, una: u32, pkt: &Packet) {
        if let Recovery::Fast { point } | Recovery::Loss { point } = self.recovery {
            if una >= point {
                self.recovery = Recovery::Open;
            }
        }
        self.take_feedback(now, pkt);
    }

    /// RFC 6675 sec. 4 NextSeg(): the next segment to send, or `None`. Rules (1) and (2) are
    /// the connection's; rules (3) and (4) apply in fast recovery only (NextSeg's context; the
    /// open state has nothing to repair and after a timeout everything outstanding is already
    /// lost).
    fn next_seg(&mut self) -> Option<NextSeg> {
        // (1) The first lost segment above HighRxt not yet retransmitted.
        if let Some(i) = self.conn.next_lost() {
            return Some(NextSeg::Lost(i));
        }
        // (2) New data, if the receiver's window allows.
        if let Some(i) = self.conn.next_new() {
            if (i - self.conn.board.una()) as u64 * (self.cfg.mss as u64) < self.cfg.rwnd {
                return Some(NextSeg::New(i));
            }
        }
        let Recovery::Fast { point } = self.recovery else { return None };
        if self.cfg.recovery == LossRecovery::GoBackN {
            return None;
        }
        // (3) An un-SACKed segment above HighRxt below the highest SACK, lost or not.
        if let Some(i) = self.tail.rule3(&self.conn.board, self.conn.rxt_scan) {
            return Some(NextSeg::Lost(i));
        }
        // (4) The rescue retransmission of the highest outstanding un-SACKed segment.
        self.tail.rule4(&self.conn.board, self.conn.nxt).map(|i| NextSeg::Rescue(i, point))
    }

    /// RFC 6675 sec. 5 step (C): send while cwnd - pipe >= 1 SMSS, choosing by NextSeg(),
    /// and never more than [`MAX_FLIGHT_SEGMENTS`] in flight. SACKed data is skipped. A paced
    /// sender also waits for its clock: what the window allows leaves one packet per gap. What
    /// it sends arms the timer if it is off (RFC 6298 sec. 5.1).
    fn send_more(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mss = self.cfg.mss as u64;
        // No hook runs in the loop: the window is the same for every packet it sends.
        let window = self.cc.cwnd.min(self.flight_cap);
        let mut sent = false;
        if let Some(p) = &mut self.pacer {
            p.begin_pass();
        }
        loop {
            if (self.conn.board.pipe() as u64 + 1) * mss > window {
                break;
            }
            let Some(next) = self.next_seg() else { break };
            if let Some(p) = &mut self.pacer {
                if !p.ready(now) {
                    break;
                }
            }
            let prio = self.cfg.prio;
            let header = window_header(&self.ctrl, &self.cc);
            let wire = match next {
                // (C.2) HighRxt moves to a retransmission of rule (1) or (3).
                NextSeg::Lost(i) => self.conn.retransmit_lost(now, i, prio, header, out),
                NextSeg::New(i) => {
                    if self.hook.holds_back(i, self.cc.cwnd, mss) {
                        break;
                    }
                    let again = self.hook.is_repair(&self.conn.board, i);
                    self.conn.send_new(now, i, again, prio, header, out)
                }
                // (C.3) A rescue leaves HighRxt alone and sets RescueRxt = RecoveryPoint.
                NextSeg::Rescue(i, point) => {
                    self.tail.rescued(point);
                    self.conn.retransmit(now, i, prio, header, out)
                }
            };
            self.tick_pacer(now, wire);
            sent = true;
        }
        if sent {
            self.conn.arm_rto(now);
        }
    }

    fn on_synack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if self.conn.state() != State::SynSent {
            return;
        }
        self.conn.establish(now, pkt);
        // An explicit controller's first feedback (R-TCP: its first rate and, with the
        // handshake's RTT sample, its first window).
        self.take_feedback(now, pkt);
        self.send_more(now, out);
        self.run_hook(now, out);
        self.conn.check_done();
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if !self.conn.is_established() {
            return;
        }
        // Any ACK ends probe mode (the path delivers again), and the count of timeouts restarts.
        if self.probing {
            self.probing = false;
            self.timeouts_in_row = 0;
        }
        if self.hook.takes_ack(&mut self.conn, now, pkt) {
            return;
        }
        let una0 = self.conn.board.una();
        let new_sack = self.conn.take_sack(pkt, &mut self.hook);
        let ack_seg = self.conn.segs.segs_below(pkt.ack);
        self.hook.on_ack(ack_seg);
        let mut acked = 0;
        if ack_seg > una0 {
            acked = self.conn.take_cumulative(ack_seg, pkt.ack, &mut self.hook);
            let rtt = now - pkt.ts_echo;
            self.conn.rtt.sample(rtt);
            if self.rtt_samples {
                let high = self.conn.segs.bytes_below(self.conn.nxt);
                self.ctrl.on_rtt_sample(&mut self.cc, &RttSample { now, rtt, una: pkt.ack, high });
            }
            self.dupacks = 0;
            self.timeouts_in_row = 0;
            self.conn.stop_rto();
        } else if una0 < self.conn.nxt && (new_sack || pkt.sack.n == 0) && self.cfg.recovery == LossRecovery::Selective
        {
            self.dupacks += 1;
        }
        self.conn.board.mark_losses(self.cfg.dupthresh);
        if self.conn.ecn.is_on() {
            self.take_ecn(now, pkt, acked);
        }

        let una = self.conn.board.una();
        if !self.ctrl.reacts_to_loss() {
            self.feedback_only_ack(now, una, pkt);
        } else {
            match self.recovery {
                Recovery::Fast { point } if una >= point => {
                    self.ctrl.on_recovery_end(&mut self.cc, now);
                    self.recovery = Recovery::Open;
                }
                Recovery::Loss { point } if una >= point => self.recovery = Recovery::Open,
                // Outside recovery an explicit controller's window follows the feedback (XCP);
                // a loss-based one grows by the ACK.
                Recovery::Open => {
                    let follows_feedback = self.take_feedback(now, pkt);
                    if !follows_feedback && acked > 0 {
                        self.ctrl.on_ack(&mut self.cc, now, acked, self.conn.rtt.srtt());
                    }
                }
                Recovery::Loss { .. } if acked > 0 => {
                    self.ctrl.on_ack(&mut self.cc, now, acked, self.conn.rtt.srtt());
                }
                _ => {}
            }
        }
        if pkt.kind == PacketKind::Nack {
            self.on_nack(now, ack_seg >= una0);
        }
        if self.recovery == Recovery::Open
            && una < self.conn.nxt
            && (self.dupacks >= self.cfg.dupthresh || self.conn.board.is_lost(una))
        {
            self.enter_fast_recovery(now, out);
        }
        self.send_more(now, out);
        // RFC 6298 sec. 5.2-5.3: the timer runs while anything is outstanding.
        if self.conn.board.una() < self.conn.nxt.max(self.conn.board.sack_high()) || self.hook.keeps_timer(&self.conn) {
            self.conn.arm_rto(now);
        } else {
            self.conn.stop_rto();
        }
        self.conn.check_done();
    }

    /// The ECN part of an ACK (RFC 3168 sec. 6.1.2, `transport/ecn.rs`): the controller counts
    /// it, and ECE reduces the window once per window of data, outside loss recovery, for a
    /// controller that reacts to congestion.
    #[inline(never)]
    fn take_ecn(&mut self, now: Time, pkt: &Packet, acked: u64) {
        let high = self.conn.segs.bytes_below(self.conn.nxt);
        let una = self.conn.acked_bytes();
        let ece = pkt.ecn.ece();
        self.ctrl.on_ecn_ack(&mut self.cc, &EcnAck { acked, ece, una, high });
        if ece && self.ctrl.reacts_to_loss() && self.conn.ecn.may_reduce(una, self.recovery != Recovery::Open) {
            let flight = self.flight_size();
            self.ctrl.on_ecn_echo(&mut self.cc, now, flight);
            self.conn.ecn.reduced(high, true);
        }
    }

    /// FlightSize (RFC 5681): data sent by the primary loop and not cumulatively acknowledged.
    /// ssthresh halves this, as RFC 6675 sec. 5 (4.2) and ns-3.16 do (not `pipe`, which
    /// excludes what is SACKed or lost and would halve the window a second time).
    fn flight_size(&self) -> u64 {
        (self.conn.nxt.saturating_sub(self.conn.board.una())) as u64 * self.cfg.mss as u64
    }

    /// RFC 6675 sec. 5 steps (4.1)-(4.3): ssthresh and cwnd from the flight, RecoveryPoint =
    /// HighData, retransmit the first unacknowledged segment at once. A controller that does
    /// not react to loss (R-TCP) keeps its window, and a paced sender retransmits at its
    /// clock's next slot (the segment is marked lost, and lost segments go first).
    fn enter_fast_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.conn.stats.fast_recoveries += 1;
        let flight = self.flight_size();
        // RFC 3168 sec. 6.1.2: no second reduction for ECE in the window the loss reduced.
        self.conn.ecn.reduced(self.conn.segs.bytes_below(self.conn.nxt), false);
        self.ctrl.on_loss_signal(&mut self.cc, now);
        if self.ctrl.reacts_to_loss() {
            self.ctrl.on_congestion(&mut self.cc, now, flight);
        }
        self.recovery = Recovery::Fast { point: self.conn.nxt };
        let una = self.conn.board.una();
        self.tail.enter(una);
        self.conn.board.force_lost(una);
        if self.pacer.as_mut().is_some_and(|p| !p.ready(now)) {
            self.conn.rxt_scan = una;
            return;
        }
        let header = window_header(&self.ctrl, &self.cc);
        let wire = self.conn.retransmit_lost(now, una, self.cfg.prio, header, out);
        self.tick_pacer(now, wire);
    }

    /// Go-back-N's NACK (after its cumulative ACK was taken): the first NACK outside a loss
    /// episode opens one (the controller's reaction to a loss, as [`Self::enter_fast_recovery`]
    /// has it, until the cumulative ACK passes the highest segment sent); every NACK then steps
    /// back to the hole. A NACK older than the cumulative ACK (`current` false) is ignored.
    #[cold]
    fn on_nack(&mut self, now: Time, current: bool) {
        if self.cfg.recovery != LossRecovery::GoBackN || !current {
            return;
        }
        if self.recovery == Recovery::Open && self.conn.board.una() < self.conn.nxt {
            self.conn.stats.fast_recoveries += 1;
            let flight = self.flight_size();
            self.conn.ecn.reduced(self.conn.segs.bytes_below(self.conn.nxt), false);
            self.ctrl.on_loss_signal(&mut self.cc, now);
            if self.ctrl.reacts_to_loss() {
                self.ctrl.on_congestion(&mut self.cc, now, flight);
            }
            self.recovery = Recovery::Fast { point: self.conn.sent_high() };
        }
        self.conn.go_back();
    }

    /// RFC 6298 sec. 5.4-5.6 and RFC 5681 eq. 4, once the connection has counted the timeout
    /// and backed off: everything outstanding is lost, cwnd = 1 MSS; SACK information is kept.
    /// Go-back-N steps back to the first unacknowledged segment instead.
    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        let end = self.conn.nxt.max(self.conn.board.sack_high());
        let flight = self.flight_size();
        self.conn.ecn.reduced(self.conn.segs.bytes_below(self.conn.nxt), false);
        // R-TCP's window is the rate's alone: a timeout does not collapse it.
        self.ctrl.on_loss_signal(&mut self.cc, now);
        if self.ctrl.reacts_to_loss() {
            self.ctrl.on_timeout(&mut self.cc, now, flight);
        }
        self.recovery = Recovery::Loss { point: self.conn.sent_high() };
        if self.cfg.recovery == LossRecovery::GoBackN {
            self.conn.go_back();
        } else {
            self.conn.board.on_timeout(end);
        }
        self.hook.on_timeout(self.conn.board.una());
        self.dupacks = 0;
        self.conn.rxt_scan = self.conn.board.una();
        self.timeouts_in_row += 1;
        self.probing |= self.ctrl.probe_after_timeouts().is_some_and(|n| self.timeouts_in_row >= n);
        if self.probing {
            let header = window_header(&self.ctrl, &self.cc);
            self.conn.send_probe(now, self.cfg.prio, header, out);
        } else {
            self.send_more(now, out);
        }
        self.conn.restart_rto(now);
    }
}

impl Endpoint for TcpSender {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::SynAck => self.on_synack(now, pkt, out),
            PacketKind::Ack | PacketKind::Nack => self.on_ack(now, pkt, out),
            PacketKind::Syn | PacketKind::Data => {}
        }
    }

    fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.conn.app.next_event().is_some_and(|t| t <= now) {
            self.poll_app(now);
            if self.conn.is_established() {
                self.send_more(now, out);
                self.run_hook(now, out);
                self.conn.check_done();
            }
        }
        if self.pacer.as_ref().and_then(Pacer::wake_at).is_some_and(|t| t <= now) {
            if self.conn.is_established() {
                self.send_more(now, out);
                self.conn.check_done();
            } else if let Some(p) = &mut self.pacer {
                p.begin_pass();
            }
        }
        match self.conn.take_rto(now) {
            Some(State::SynSent) => self.send_syn(now, out),
            Some(State::Established) => self.on_rto(now, out),
            _ => {}
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        let t = self.conn.next_deadline();
        match self.pacer.as_ref().and_then(Pacer::wake_at) {
            Some(w) => Some(t.map_or(w, |t| t.min(w))),
            None => t,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::packet::SackBlocks;
    use crate::protocol::pfabric::PFabricConfig;
    use crate::protocol::CcConfig;

    pub(crate) fn blocks(bs: &[(u64, u64)]) -> SackBlocks {
        SackBlocks::of(bs)
    }

    pub(crate) const MSS: u64 = 1000;

    /// An established sender with `cfg`, with what it sent after the SYN-ACK.
    pub(crate) fn established(cfg: TcpConfig, segments: u64) -> (TcpSender, Vec<Packet>) {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut s = TcpSender::new(cfg, addr, App::Bulk { size: segments * MSS }, Time::ZERO);
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::ZERO, &mut out);
        let mut synack = addr.reverse(PacketKind::SynAck, Time::from_ms(10));
        synack.ts_echo = Time::ZERO;
        out.clear();
        s.on_packet(Time::from_ms(10), &synack, &mut out);
        (s, out)
    }

    pub(crate) fn ack(cum_segs: u64, sack: &[(u64, u64)], prio: u8) -> Packet {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut p = addr.reverse(PacketKind::Ack, Time::from_ms(20));
        p.ack = cum_segs * MSS;
        p.sack = blocks(&sack.iter().map(|&(a, b)| (a * MSS, b * MSS)).collect::<Vec<_>>());
        p.prio = prio;
        p.ts_echo = Time::from_ms(10);
        p
    }

    /// Feeds `a` to `s`; returns the segments sent in answer (RC3's low-priority ones too).
    pub(crate) fn feed(s: &mut TcpSender, a: &Packet) -> Vec<u64> {
        let mut out = Vec::new();
        s.on_packet(Time::from_ms(20), a, &mut out);
        out.iter().map(|p| p.seq / MSS).collect()
    }

    /// pFabric's probe mode: the fifth timeout in a row sends a header-only probe instead of
    /// data, and so does every timeout after it, until an ACK brings the retransmissions back.
    #[test]
    fn pfabric_probes_after_five_timeouts_in_a_row_until_an_ack() {
        let cfg = TcpConfig {
            mss: MSS as u32,
            iw: 4,
            cc: CcConfig::PFabric(PFabricConfig { max_cwnd: 4 * MSS }),
            ..TcpConfig::default()
        };
        let (mut s, out) = established(cfg, 4);
        assert_eq!(out.len(), 4);
        let mut sent = Vec::new();
        for _ in 0..7 {
            let at = s.poll_timeout().unwrap();
            let mut out = Vec::new();
            s.on_timeout(at, &mut out);
            sent.push(out.iter().map(|p| p.len).collect::<Vec<_>>());
        }
        let mss = MSS as u32;
        assert_eq!(sent, [vec![mss], vec![mss], vec![mss], vec![mss], vec![0], vec![0], vec![0]]);
        // The probe's ACK (nothing new acknowledged) ends probe mode: the lost first segment
        // leaves at once, and the next timeout retransmits data again.
        assert_eq!(feed(&mut s, &ack(0, &[], 0)), [0]);
        let at = s.poll_timeout().unwrap();
        let mut out = Vec::new();
        s.on_timeout(at, &mut out);
        assert_eq!(out.iter().map(|p| p.len).collect::<Vec<_>>(), [mss]);
        assert_eq!(s.stats().timeouts, 8);
    }

    /// A window far beyond any path (a plug-in's may be up to 2^50 bytes) on a long-lived flow:
    /// one event sends up to MAX_FLIGHT_SEGMENTS in flight, not without end, and ACKs keep it
    /// there.
    #[test]
    fn a_huge_window_sends_at_most_the_flight_cap_in_one_event() {
        let cfg = TcpConfig { mss: MSS as u32, iw: 4, ..TcpConfig::default() };
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut s = TcpSender::new(cfg, addr, App::LongLived { stop: Time::from_secs(100) }, Time::ZERO);
        let mut out = Vec::new();
        s.start(Time::ZERO, Time::ZERO, &mut out);
        let mut synack = addr.reverse(PacketKind::SynAck, Time::from_ms(10));
        synack.ts_echo = Time::ZERO;
        s.cc.cwnd = crate::plugin::bounds::MAX_WINDOW;
        out.clear();
        s.on_packet(Time::from_ms(10), &synack, &mut out);
        assert_eq!(out.len() as u64, MAX_FLIGHT_SEGMENTS);
        assert_eq!(s.scoreboard().pipe() as u64, MAX_FLIGHT_SEGMENTS);
        // An ACK of two segments lets two more leave.
        assert_eq!(feed(&mut s, &ack(2, &[], 0)), [MAX_FLIGHT_SEGMENTS, MAX_FLIGHT_SEGMENTS + 1]);
        // An initial window above the cap is sent whole (the build's memory estimate counts it).
        let cfg = TcpConfig { iw: MAX_FLIGHT_SEGMENTS as u32 + 3, ..cfg };
        let mut s = TcpSender::new(cfg, addr, App::LongLived { stop: Time::from_secs(100) }, Time::ZERO);
        s.start(Time::ZERO, Time::ZERO, &mut out);
        out.clear();
        s.on_packet(Time::from_ms(10), &synack, &mut out);
        assert_eq!(out.len() as u64, MAX_FLIGHT_SEGMENTS + 3);
    }

    /// Segments 0..10 in flight (IW 10, nothing more to send); 0, 7 and 9 are lost.
    #[test]
    fn rules_3_and_4_repair_holes_with_fewer_than_dupthresh_sacks_above() {
        let cfg = TcpConfig { mss: MSS as u32, iw: 10, ..TcpConfig::default() };
        let (mut s, out) = established(cfg, 10);
        assert_eq!(out.len(), 10);
        // Two duplicate ACKs: the open state repairs nothing, whatever the window allows.
        assert!(feed(&mut s, &ack(0, &[(1, 2)], 0)).is_empty());
        assert!(feed(&mut s, &ack(0, &[(1, 3)], 0)).is_empty());
        // The third: fast retransmit of 0, cwnd 5 segments, pipe 1 + 6 (3..10 less SACKed 3).
        assert_eq!(feed(&mut s, &ack(0, &[(1, 4)], 0)), vec![0]);
        assert!(feed(&mut s, &ack(0, &[(1, 5)], 0)).is_empty());
        assert!(feed(&mut s, &ack(0, &[(1, 6)], 0)).is_empty());
        // pipe 4 < cwnd 5. Nothing is lost (7 and 9 have at most one SACK above), no new data,
        // nothing un-SACKed below the highest SACK: the rescue retransmits the highest
        // outstanding segment, 9, once for the episode.
        assert_eq!(feed(&mut s, &ack(0, &[(1, 7)], 0)), vec![9]);
        // 8 SACKed: 7 lies below the highest SACK, un-SACKed: rule (3) retransmits it.
        assert_eq!(feed(&mut s, &ack(0, &[(8, 9), (1, 7)], 0)), vec![7]);
        assert_eq!(s.stats().retx_pkts, 3);
        assert_eq!(s.scoreboard().pipe(), s.scoreboard().pipe_from_scratch());
        // More duplicate ACKs bring no second rescue nor a second copy of 7.
        assert!(feed(&mut s, &ack(1, &[(8, 9), (2, 7)], 0)).is_empty());
        assert_eq!(feed(&mut s, &ack(7, &[(8, 9)], 0)), Vec::<u64>::new());
        assert_eq!(s.stats().retx_pkts, 3);
        // The retransmissions of 7 and 9 complete the flow within the episode.
        feed(&mut s, &ack(10, &[], 0));
        assert!(s.is_done());
        assert_eq!(s.stats().timeouts, 0);
    }
}
