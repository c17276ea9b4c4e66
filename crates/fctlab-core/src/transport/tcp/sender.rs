//! The TCP sender: handshake, the window-controlled send loop, ACK processing, SACK-based
//! fast recovery (RFC 6675) and retransmission timeouts (RFC 6298).
//!
//! Segment indices, not bytes, drive the loop; [`Segments`] maps them to byte ranges. `nxt`
//! is the RFC's HighData: the next segment the primary loop sends for the first time.

use super::config::TcpConfig;
use super::nextseg::TailRepair;
use super::pacer::Pacer;
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, LP_SENT, SACKED, SENT};
use super::segments::Segments;
use crate::net::packet::{CongestionHeader, Packet, PacketKind, SackBlocks};
use crate::protocol::rc3::{Rc3Window, RlpLoop};
use crate::transport::app::{App, AppState};
use crate::transport::cc::{CcState, CongestionControl, Controller, HeaderCtx, RttSample};
use crate::transport::{Endpoint, FlowAddr};
use crate::units::Time;

/// Counters a sender reports when its flow ends.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data packets sent, retransmissions included.
    pub data_pkts: u64,
    /// Payload bytes sent, retransmissions included.
    pub data_bytes: u64,
    /// Data packets retransmitted.
    pub retx_pkts: u64,
    /// Payload bytes retransmitted.
    pub retx_bytes: u64,
    /// Retransmission timeouts (SYN timeouts included).
    pub timeouts: u64,
    /// Fast recovery episodes.
    pub fast_recoveries: u64,
    /// Packets sent by RC3's low-priority loop.
    pub low_priority_pkts: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Closed,
    SynSent,
    Established,
    Done,
}

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

/// One TCP sending endpoint.
#[derive(Clone, Debug)]
pub struct TcpSender {
    cfg: TcpConfig,
    addr: FlowAddr,
    app: AppState,
    segs: Segments,
    state: State,
    nxt: u32,
    board: Scoreboard,
    cc: CcState,
    ctrl: Controller,
    /// The controller takes RTT samples ([`CongestionControl::wants_rtt_samples`], asked once).
    rtt_samples: bool,
    rtt: RttEstimator,
    rto_at: Option<Time>,
    recovery: Recovery,
    dupacks: u32,
    /// HighRxt + 1: rule (1) and rule (3) look at segments from here on.
    rxt_scan: u32,
    /// NextSeg rules (3) and (4), in fast recovery.
    tail: TailRepair,
    /// SACK blocks of the previous ACK: everything inside them is already on the scoreboard.
    last_sack: SackBlocks,
    /// RC3's low-priority loop, if the connection runs RC3.
    rlp: Option<RlpLoop>,
    /// RC3 with `Rc3Window::Span`: the cumulative ACK point as priority-0 ACKs report it,
    /// the left edge of the authors' window (see [`Rc3Window`]).
    una0: u32,
    /// The pacing clock, for controllers that give a pacing rate (R-TCP); `None` for
    /// window-only TCP.
    pacer: Option<Pacer>,
    /// Counters for the flow table.
    pub stats: SenderStats,
}

impl TcpSender {
    /// A sender for `app` that will start at `start`.
    pub fn new(cfg: TcpConfig, addr: FlowAddr, app: App, start: Time) -> TcpSender {
        let ctrl = Controller::new(cfg.cc, cfg.hystart, cfg.mss, cfg.header, cfg.rwnd);
        TcpSender {
            cfg,
            addr,
            app: AppState::new(app, start),
            segs: Segments::new(cfg.mss),
            state: State::Closed,
            nxt: 0,
            board: Scoreboard::new(),
            cc: CcState {
                cwnd: cfg.iw as u64 * cfg.mss as u64,
                ssthresh: cfg.initial_ssthresh,
                mss: cfg.mss as u64,
                abc: cfg.abc as u64 * cfg.mss as u64,
            },
            pacer: ctrl.pacing_rate().map(Pacer::new),
            rtt_samples: ctrl.wants_rtt_samples(),
            ctrl,
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto).with_granularity(cfg.rto_granularity),
            rto_at: None,
            recovery: Recovery::Open,
            dupacks: 0,
            rxt_scan: 0,
            tail: TailRepair::default(),
            last_sack: SackBlocks::default(),
            rlp: cfg.rc3.map(RlpLoop::new),
            una0: 0,
            stats: SenderStats::default(),
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
        debug_assert!(cfg.rc3.is_none(), "RC3's loop tracks writes from the start");
        let mut s = TcpSender::new(cfg, addr, App::Bulk { size: 0 }, now);
        s.app = app;
        s.segs = segs;
        s.state = State::SynSent;
        s.on_synack(now, synack, out);
        s
    }

    /// Opens the connection: the application writes and the SYN leaves.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.poll_app(now);
        self.state = State::SynSent;
        self.send_syn(now, out);
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
        match self.rtt.srtt() {
            Some(srtt) if srtt > Time::ZERO => self.cc.cwnd as f64 * wire * 8.0 / srtt.as_secs_f64(),
            _ => 0.0,
        }
    }

    /// Payload bytes cumulatively acknowledged (the flow's progress).
    pub fn acked_bytes(&self) -> u64 {
        self.segs.bytes_below(self.board.una())
    }

    /// Slow-start threshold in bytes.
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh
    }

    /// True once every written byte is acknowledged and the application is done.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// The scoreboard (for RC3's loop and for tests).
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.board
    }

    /// The segment map (for RC3's loop and for tests).
    pub fn segments(&self) -> &Segments {
        &self.segs
    }

    /// The next segment the primary loop sends for the first time (HighData).
    pub fn high_data(&self) -> u32 {
        self.nxt
    }

    /// True while the handshake is done and data may flow.
    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    /// The pacing rate, for paced senders (R-TCP).
    pub fn pacing_rate(&self) -> Option<crate::units::Rate> {
        self.pacer.as_ref().map(Pacer::rate)
    }

    /// The congestion controller.
    pub fn controller(&self) -> &Controller {
        &self.ctrl
    }

    /// Configuration of this connection.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Sends segment `i` once at low priority `prio` (RC3's RLP loop), unless it was already
    /// sent that way or is known to have arrived; returns true if a packet left.
    pub fn emit_low_priority(&mut self, now: Time, i: u32, prio: u8, out: &mut Vec<Packet>) -> bool {
        if i < self.board.una() || self.board.get(i) & (SACKED | LP_SENT) != 0 {
            return false;
        }
        self.board.on_lp_sent(i);
        self.emit(now, i, false, prio, out);
        self.stats.low_priority_pkts += 1;
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        true
    }

    /// True if RC3's low-priority copy of segment `i` is known lost (see
    /// [`RlpLoop::copy_lost`]). The primary loop's sending of such a segment is a repair,
    /// counted as a retransmission; sending one whose low-priority copy may still be on its
    /// way is not.
    fn lp_copy_lost(&self, i: u32) -> bool {
        self.board.get(i) & LP_SENT != 0 && self.rlp.as_ref().is_some_and(|r| r.copy_lost(i))
    }

    /// Tells the RLP loop that segment `i` (with scoreboard flags `f`) arrived, if only its
    /// low-priority copy can have carried it.
    fn note_lp_delivery(&mut self, i: u32, f: u8) {
        if f & (LP_SENT | SENT) == LP_SENT {
            if let Some(r) = &mut self.rlp {
                r.note_delivered(i);
            }
        }
    }

    /// Runs RC3's low-priority loop over what was written since it last ran.
    fn run_rlp(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let Some(mut rlp) = self.rlp.take() {
            rlp.run(self, now, out);
            self.rlp = Some(rlp);
        }
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mut p = self.addr.forward(PacketKind::Syn, now);
        p.wire = self.cfg.header;
        p.prio = self.cfg.prio;
        p.cc = self.header(PacketKind::Syn);
        out.push(p);
        self.rto_at = Some(now + self.rtt.rto());
    }

    fn poll_app(&mut self, now: Time) {
        let (n, stopped) = self.app.poll(now);
        let first = self.segs.count();
        self.segs.write(n);
        if let Some(rlp) = &mut self.rlp {
            rlp.on_write(first, self.segs.count());
        }
        if stopped {
            // A long-lived writer stopped: the stream ends after what the primary loop sent.
            self.segs.truncate(self.nxt);
        }
    }

    fn emit(&mut self, now: Time, i: u32, retx: bool, prio: u8, out: &mut Vec<Packet>) {
        let (a, b) = self.segs.range(i);
        let mut p = self.addr.forward(PacketKind::Data, now);
        p.seq = a;
        p.len = (b - a) as u32;
        p.fin = self.app.total() == Some(b);
        p.wire = p.len + self.cfg.header;
        p.prio = prio;
        p.cc = self.header(PacketKind::Data);
        if let Some(pacer) = &mut self.pacer {
            pacer.on_send(now, p.wire);
        }
        out.push(p);
        self.stats.data_pkts += 1;
        self.stats.data_bytes += b - a;
        if retx {
            self.stats.retx_pkts += 1;
            self.stats.retx_bytes += b - a;
        }
    }

    /// The controller's congestion header for an outgoing packet.
    #[inline]
    fn header(&self, kind: PacketKind) -> CongestionHeader {
        self.ctrl.header(&self.cc, HeaderCtx { kind, srtt: self.rtt.srtt(), sent_bytes: self.stats.data_bytes })
    }

    /// Hands the controller the header an ACK or SYN-ACK echoes; returns true if the window
    /// follows it. A pacing controller's rate goes to the clock.
    #[inline]
    fn take_feedback(&mut self, echo: CongestionHeader) -> bool {
        let follows = self.ctrl.on_feedback(&mut self.cc, echo, self.rtt.srtt());
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
    fn feedback_only_ack(&mut self, una: u32, echo: CongestionHeader) {
        if let Recovery::Fast { point } | Recovery::Loss { point } = self.recovery {
            if una >= point {
                self.recovery = Recovery::Open;
            }
        }
        self.take_feedback(echo);
    }

    fn retransmit(&mut self, now: Time, i: u32, out: &mut Vec<Packet>) {
        self.board.on_retransmit(i);
        self.emit(now, i, true, self.cfg.prio, out);
    }

    /// RFC 6675 sec. 4 NextSeg(): the next segment to send, or `None`. Rules (3) and (4)
    /// apply in fast recovery only (NextSeg's context; the open state has nothing to repair
    /// and after a timeout everything outstanding is already lost).
    fn next_seg(&mut self) -> Option<NextSeg> {
        // (1) The first lost segment above HighRxt not yet retransmitted.
        if let Some(i) = self.board.next_lost(self.rxt_scan, self.nxt) {
            return Some(NextSeg::Lost(i));
        }
        // (2) New data, if the receiver's window allows.
        while self.nxt < self.segs.count() && self.board.get(self.nxt) & SACKED != 0 {
            self.nxt += 1;
        }
        let in_rwnd = (self.nxt - self.board.una()) as u64 * (self.cfg.mss as u64) < self.cfg.rwnd;
        if self.nxt < self.segs.count() && in_rwnd {
            return Some(NextSeg::New(self.nxt));
        }
        let Recovery::Fast { point } = self.recovery else { return None };
        // (3) An un-SACKed segment above HighRxt below the highest SACK, lost or not.
        if let Some(i) = self.tail.rule3(&self.board, self.rxt_scan) {
            return Some(NextSeg::Lost(i));
        }
        // (4) The rescue retransmission of the highest outstanding un-SACKed segment.
        self.tail.rule4(&self.board, self.nxt).map(|i| NextSeg::Rescue(i, point))
    }

    /// RFC 6675 sec. 5 step (C): send while cwnd - pipe >= 1 SMSS, choosing by NextSeg().
    /// SACKed data is skipped. A paced sender also waits for its clock: what the window
    /// allows leaves one packet per gap.
    fn send_more(&mut self, now: Time, out: &mut Vec<Packet>) {
        let mss = self.cfg.mss as u64;
        let mut sent = false;
        if let Some(p) = &mut self.pacer {
            p.begin_pass();
        }
        loop {
            if (self.board.pipe() as u64 + 1) * mss > self.cc.cwnd {
                break;
            }
            let Some(next) = self.next_seg() else { break };
            if let Some(p) = &mut self.pacer {
                if !p.ready(now) {
                    break;
                }
            }
            match next {
                // (C.2) HighRxt moves to a retransmission of rule (1) or (3).
                NextSeg::Lost(i) => {
                    self.rxt_scan = i + 1;
                    self.retransmit(now, i, out);
                }
                NextSeg::New(i) => {
                    if self.span_full(i) {
                        break;
                    }
                    self.nxt += 1;
                    let again = self.lp_copy_lost(i);
                    self.board.on_sent(i);
                    self.emit(now, i, again, self.cfg.prio, out);
                }
                // (C.3) A rescue leaves HighRxt alone and sets RescueRxt = RecoveryPoint.
                NextSeg::Rescue(i, point) => {
                    self.tail.rescued(point);
                    self.retransmit(now, i, out);
                }
            }
            sent = true;
        }
        if sent && self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    /// RC3 with the authors' window accounting ([`Rc3Window::Span`]): true if new segment `i`
    /// lies beyond cwnd counted from the priority-0 cumulative ACK point, data already SACKed
    /// or delivered by low-priority copies included.
    fn span_full(&self, i: u32) -> bool {
        match self.cfg.rc3 {
            Some(c) if c.window == Rc3Window::Span => {
                (i + 1).saturating_sub(self.una0) as u64 * self.cfg.mss as u64 > self.cc.cwnd
            }
            _ => false,
        }
    }

    /// [`Rc3Window::Span`]: data is left to send while the window's left edge lags behind
    /// HighData, so the retransmission timer stays armed (as ns-3's does while
    /// `HeadSequence < NextTxSequence`), even with nothing of the primary loop's in flight.
    fn span_stalled(&self) -> bool {
        matches!(self.cfg.rc3, Some(c) if c.window == Rc3Window::Span)
            && self.una0 < self.nxt
            && self.board.una() < self.segs.count()
    }

    fn on_synack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if self.state != State::SynSent {
            return;
        }
        self.rtt.sample(now - pkt.ts_echo);
        // An explicit controller's first feedback (R-TCP: its first rate and, with the
        // handshake's RTT sample, its first window).
        self.take_feedback(pkt.cc);
        self.state = State::Established;
        self.rto_at = None;
        self.send_more(now, out);
        self.run_rlp(now, out);
        self.check_done();
    }

    /// Marks the segments of `pkt`'s SACK blocks; returns true if one the primary loop had
    /// sent is newly SACKed (loss evidence).
    fn take_sack(&mut self, pkt: &Packet) -> bool {
        let mut news = false;
        for &(s, e) in pkt.sack.iter() {
            // Only the parts the previous ACK did not report can hold news: a block usually
            // grows by one segment per ACK, so this keeps SACK processing O(1) per ACK.
            for (s, e) in uncovered(s, e, &self.last_sack) {
                let mut i = self.segs.first_at_or_after(s);
                while i < self.segs.count() && self.segs.range(i).1 <= e {
                    let f = self.board.get(i);
                    if self.board.on_sacked(i) {
                        news |= f & SENT != 0;
                        self.note_lp_delivery(i, f);
                    }
                    i += 1;
                }
            }
        }
        self.last_sack = pkt.sack;
        news
    }

    /// Moves the cumulative ACK point to segment `ack_seg`; returns the bytes newly
    /// acknowledged that the primary loop had sent (what the window may grow for).
    fn take_cumulative(&mut self, ack_seg: u32, ack: u64) -> u64 {
        let una0 = self.board.una();
        let bytes = ack - self.segs.range(una0).0;
        if self.rlp.is_some() {
            for i in una0..ack_seg {
                let f = self.board.get(i);
                if f & SACKED == 0 {
                    self.note_lp_delivery(i, f);
                }
            }
        }
        let primary = self.board.advance(ack_seg);
        // The "ACK bump" (RC3 sec. 4.1.2): data beyond HighData already delivered is not sent.
        self.nxt = self.nxt.max(ack_seg);
        self.rxt_scan = self.rxt_scan.max(ack_seg);
        if primary == ack_seg - una0 {
            bytes
        } else {
            (primary as u64 * self.cfg.mss as u64).min(bytes)
        }
    }

    /// An ACK of low-priority data (RC3): it updates the scoreboard and the cumulative point,
    /// nothing else: no window change, no duplicate-ACK count, no RTT sample, nothing sent.
    fn on_low_priority_ack(&mut self, now: Time, pkt: &Packet) {
        self.take_sack(pkt);
        let ack_seg = self.segs.segs_below(pkt.ack);
        if ack_seg > self.board.una() {
            self.take_cumulative(ack_seg, pkt.ack);
        }
        if self.rto_at.is_none() && self.span_stalled() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        self.check_done();
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if self.state != State::Established {
            return;
        }
        if pkt.prio != self.cfg.prio && self.rlp.is_some() {
            self.on_low_priority_ack(now, pkt);
            return;
        }
        let una0 = self.board.una();
        let new_sack = self.take_sack(pkt);
        let ack_seg = self.segs.segs_below(pkt.ack);
        self.una0 = self.una0.max(ack_seg);
        let mut acked = 0;
        if ack_seg > una0 {
            acked = self.take_cumulative(ack_seg, pkt.ack);
            let rtt = now - pkt.ts_echo;
            self.rtt.sample(rtt);
            if self.rtt_samples {
                let high = self.segs.bytes_below(self.nxt);
                self.ctrl.on_rtt_sample(&mut self.cc, &RttSample { now, rtt, una: pkt.ack, high });
            }
            self.dupacks = 0;
            self.rto_at = None;
        } else if una0 < self.nxt && (new_sack || pkt.sack.n == 0) {
            self.dupacks += 1;
        }
        self.board.mark_losses(self.cfg.dupthresh);

        let una = self.board.una();
        if !self.ctrl.reacts_to_loss() {
            self.feedback_only_ack(una, pkt.cc);
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
                    let follows_feedback = self.take_feedback(pkt.cc);
                    if !follows_feedback && acked > 0 {
                        self.ctrl.on_ack(&mut self.cc, now, acked, self.rtt.srtt());
                    }
                }
                Recovery::Loss { .. } if acked > 0 => {
                    self.ctrl.on_ack(&mut self.cc, now, acked, self.rtt.srtt());
                }
                _ => {}
            }
        }
        if self.recovery == Recovery::Open
            && una < self.nxt
            && (self.dupacks >= self.cfg.dupthresh || self.board.is_lost(una))
        {
            self.enter_fast_recovery(now, out);
        }
        self.send_more(now, out);
        if self.board.una() < self.nxt.max(self.board.sack_high()) || self.span_stalled() {
            if self.rto_at.is_none() {
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else {
            self.rto_at = None;
        }
        self.check_done();
    }

    /// FlightSize (RFC 5681): data sent by the primary loop and not cumulatively acknowledged.
    /// ssthresh halves this, as RFC 6675 sec. 5 (4.2) and ns-3.16 do (not `pipe`, which
    /// excludes what is SACKed or lost and would halve the window a second time).
    fn flight_size(&self) -> u64 {
        (self.nxt.saturating_sub(self.board.una())) as u64 * self.cfg.mss as u64
    }

    /// RFC 6675 sec. 5 steps (4.1)-(4.3): ssthresh and cwnd from the flight, RecoveryPoint =
    /// HighData, retransmit the first unacknowledged segment at once. A controller that does
    /// not react to loss (R-TCP) keeps its window, and a paced sender retransmits at its
    /// clock's next slot (the segment is marked lost, and lost segments go first).
    fn enter_fast_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.fast_recoveries += 1;
        let flight = self.flight_size();
        self.ctrl.on_loss_signal(&mut self.cc, now);
        if self.ctrl.reacts_to_loss() {
            self.ctrl.on_congestion(&mut self.cc, now, flight);
        }
        self.recovery = Recovery::Fast { point: self.nxt };
        let una = self.board.una();
        self.tail.enter(una);
        self.board.force_lost(una);
        if self.pacer.as_mut().is_some_and(|p| !p.ready(now)) {
            self.rxt_scan = una;
            return;
        }
        self.rxt_scan = una + 1;
        self.retransmit(now, una, out);
    }

    /// RFC 6298 sec. 5.4-5.6 and RFC 5681 eq. 4: everything outstanding is lost, cwnd = 1 MSS,
    /// the RTO doubles; SACK information is kept.
    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.rto_at = None;
        self.stats.timeouts += 1;
        self.rtt.back_off();
        match self.state {
            State::SynSent => self.send_syn(now, out),
            State::Established => {
                let end = self.nxt.max(self.board.sack_high());
                let flight = self.flight_size();
                // R-TCP's window is the rate's alone: a timeout does not collapse it.
                self.ctrl.on_loss_signal(&mut self.cc, now);
                if self.ctrl.reacts_to_loss() {
                    self.ctrl.on_timeout(&mut self.cc, now, flight);
                }
                self.board.on_timeout(end);
                // The authors' code retransmits from its stale left edge, whose priority-0
                // ACK reports the true cumulative point; fctlab takes that point at once.
                self.una0 = self.una0.max(self.board.una());
                self.recovery = Recovery::Loss { point: self.nxt };
                self.dupacks = 0;
                self.rxt_scan = self.board.una();
                self.send_more(now, out);
                self.rto_at = Some(now + self.rtt.rto());
            }
            State::Closed | State::Done => {}
        }
    }

    fn check_done(&mut self) {
        if self.board.una() >= self.segs.count() {
            self.rto_at = None;
        }
        if self.state == State::Established && self.app.next_event().is_none() && self.board.una() >= self.segs.count()
        {
            self.state = State::Done;
            self.rto_at = None;
        }
    }
}

/// The parts of `[s, e)` outside every block of `seen` (at most four pieces).
fn uncovered(s: u64, e: u64, seen: &SackBlocks) -> impl Iterator<Item = (u64, u64)> {
    let mut pieces = [(s, e), (0, 0), (0, 0), (0, 0)];
    let mut n = 1;
    for &(a, b) in seen.iter() {
        let mut next = [(0, 0); 4];
        let mut m = 0;
        for &(x, y) in &pieces[..n] {
            // [x, y) minus [a, b): up to two pieces.
            if b <= x || y <= a {
                next[m] = (x, y);
                m += 1;
                continue;
            }
            if x < a {
                next[m] = (x, a);
                m += 1;
            }
            if b < y && m < 4 {
                next[m] = (b, y);
                m += 1;
            }
        }
        pieces = next;
        n = m;
    }
    pieces.into_iter().take(n)
}

impl Endpoint for TcpSender {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::SynAck => self.on_synack(now, pkt, out),
            PacketKind::Ack => self.on_ack(now, pkt, out),
            PacketKind::Syn | PacketKind::Data => {}
        }
    }

    fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.app.next_event().is_some_and(|t| t <= now) {
            self.poll_app(now);
            if self.state == State::Established {
                self.send_more(now, out);
                self.run_rlp(now, out);
                self.check_done();
            }
        }
        if self.pacer.as_ref().and_then(Pacer::wake_at).is_some_and(|t| t <= now) {
            if self.state == State::Established {
                self.send_more(now, out);
                self.check_done();
            } else if let Some(p) = &mut self.pacer {
                p.begin_pass();
            }
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_rto(now, out);
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        let t = match (self.rto_at, self.app.next_event()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match self.pacer.as_ref().and_then(Pacer::wake_at) {
            Some(w) => Some(t.map_or(w, |t| t.min(w))),
            None => t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(bs: &[(u64, u64)]) -> SackBlocks {
        let mut sb = SackBlocks::default();
        for &b in bs {
            sb.blocks[sb.n as usize] = b;
            sb.n += 1;
        }
        sb
    }

    const MSS: u64 = 1000;

    /// An established RC3 sender of `segments` segments, with what it sent after the SYN-ACK.
    fn rc3_sender(segments: u64) -> (TcpSender, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: MSS as u32,
            iw: 4,
            rc3: Some(crate::protocol::rc3::Rc3Config::default()),
            ..TcpConfig::default()
        };
        established(cfg, segments)
    }

    /// An established sender with `cfg`, with what it sent after the SYN-ACK.
    fn established(cfg: TcpConfig, segments: u64) -> (TcpSender, Vec<Packet>) {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut s = TcpSender::new(cfg, addr, App::Bulk { size: segments * MSS }, Time::ZERO);
        let mut out = Vec::new();
        s.start(Time::ZERO, &mut out);
        let mut synack = addr.reverse(PacketKind::SynAck, Time::from_ms(10));
        synack.ts_echo = Time::ZERO;
        out.clear();
        s.on_packet(Time::from_ms(10), &synack, &mut out);
        (s, out)
    }

    fn ack(cum_segs: u64, sack: &[(u64, u64)], prio: u8) -> Packet {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut p = addr.reverse(PacketKind::Ack, Time::from_ms(20));
        p.ack = cum_segs * MSS;
        p.sack = blocks(&sack.iter().map(|&(a, b)| (a * MSS, b * MSS)).collect::<Vec<_>>());
        p.prio = prio;
        p.ts_echo = Time::from_ms(10);
        p
    }

    #[test]
    fn rc3_sends_the_first_window_at_p0_and_the_rest_backwards_at_low_priority() {
        let (_, out) = rc3_sender(100);
        let p0: Vec<u64> = out.iter().filter(|p| p.prio == 0).map(|p| p.seq / MSS).collect();
        let lp: Vec<(u64, u8)> = out.iter().filter(|p| p.prio > 0).map(|p| (p.seq / MSS, p.prio)).collect();
        assert_eq!(p0, vec![0, 1, 2, 3]);
        assert_eq!(lp.len(), 96);
        assert_eq!(lp[0], (99, 1), "the last segment leaves first, at P1");
        assert_eq!(lp[39], (60, 1));
        assert_eq!(lp[40], (59, 2), "the 41st from the tail is P2");
        assert_eq!(lp[95], (4, 2));
    }

    #[test]
    fn low_priority_acks_never_change_cwnd_nor_trigger_recovery() {
        let (mut s, _) = rc3_sender(100);
        let cwnd = s.cwnd();
        let mut out = Vec::new();
        // Low-priority ACKs: holes at 4..50 and 60..62 below SACKed data, cumulative ACK at 0.
        for top in 70..100 {
            let a = ack(0, &[(top, 100), (50, 60)], 1);
            s.on_packet(Time::from_ms(20), &a, &mut out);
        }
        assert_eq!(s.cwnd(), cwnd);
        assert!(out.is_empty(), "no new traffic on low-priority ACKs");
        assert_eq!(s.stats.fast_recoveries, 0);
        assert_eq!(s.scoreboard().pipe(), 4, "the first window is still in flight");
    }

    #[test]
    fn ack_bump_moves_high_data_past_what_low_priority_delivered() {
        let (mut s, _) = rc3_sender(100);
        let mut out = Vec::new();
        // Low-priority data 4..60 arrived; the P0 ACK of the first window acknowledges 60.
        s.on_packet(Time::from_ms(20), &ack(60, &[(70, 100)], 0), &mut out);
        assert!(s.high_data() >= 60, "HighData bumped to the cumulative ACK");
        // The primary loop now sends only the hole 60..70, skipping SACKed data.
        let sent: Vec<u64> = out.iter().map(|p| p.seq / MSS).collect();
        assert!(sent.iter().all(|&k| (60..70).contains(&k)), "{sent:?}");
        assert!(!sent.is_empty());
        // One ACK grows the window by one segment, however much it acknowledges.
        assert_eq!(s.cwnd(), 5 * MSS);
    }

    #[test]
    fn uncovered_subtracts_every_seen_block() {
        let seen = blocks(&[(10, 20), (30, 40)]);
        let got: Vec<_> = uncovered(5, 45, &seen).collect();
        assert_eq!(got, vec![(5, 10), (20, 30), (40, 45)]);
        assert_eq!(uncovered(12, 18, &seen).count(), 0);
        assert_eq!(uncovered(0, 5, &seen).collect::<Vec<_>>(), vec![(0, 5)]);
    }

    /// Feeds `a` to `s`; returns the segments sent in answer (RC3's low-priority ones too).
    fn feed(s: &mut TcpSender, a: &Packet) -> Vec<u64> {
        let mut out = Vec::new();
        s.on_packet(Time::from_ms(20), a, &mut out);
        out.iter().map(|p| p.seq / MSS).collect()
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
        assert_eq!(s.stats.retx_pkts, 3);
        assert_eq!(s.scoreboard().pipe(), s.scoreboard().pipe_from_scratch());
        // More duplicate ACKs bring no second rescue nor a second copy of 7.
        assert!(feed(&mut s, &ack(1, &[(8, 9), (2, 7)], 0)).is_empty());
        assert_eq!(feed(&mut s, &ack(7, &[(8, 9)], 0)), Vec::<u64>::new());
        assert_eq!(s.stats.retx_pkts, 3);
        // The retransmissions of 7 and 9 complete the flow within the episode.
        feed(&mut s, &ack(10, &[], 0));
        assert!(s.is_done());
        assert_eq!(s.stats.timeouts, 0);
    }

    /// RC3: SACKs of low-priority data far above the primary loop's window are no rule-(3)
    /// evidence against the primary segments still in flight below them.
    #[test]
    fn low_priority_sacks_do_not_count_as_rule_3_evidence() {
        let cfg = TcpConfig {
            mss: MSS as u32,
            iw: 8,
            rwnd: 8 * MSS,
            rc3: Some(crate::protocol::rc3::Rc3Config::default()),
            ..TcpConfig::default()
        };
        let (mut s, out) = established(cfg, 100);
        let p0: Vec<u64> = out.iter().filter(|p| p.prio == 0).map(|p| p.seq / MSS).collect();
        assert_eq!(p0, (0..8).collect::<Vec<_>>());
        // The low-priority copies of 10..100 arrived.
        feed(&mut s, &ack(0, &[(10, 100)], 1));
        // Primary SACKs of 1..4: fast retransmit of 0, cwnd 4 segments.
        feed(&mut s, &ack(0, &[(1, 2), (10, 100)], 0));
        feed(&mut s, &ack(0, &[(1, 3), (10, 100)], 0));
        assert_eq!(feed(&mut s, &ack(0, &[(1, 4), (10, 100)], 0)), vec![0]);
        assert!(feed(&mut s, &ack(0, &[(1, 5), (10, 100)], 0)).is_empty());
        // pipe 3 (0's copy, 6 and 7) < cwnd 4; the receiver's window holds no new data. 6 and
        // 7 lie below SACKed low-priority data but above the primary loop's highest SACK (5):
        // not rule (3)'s, so the one retransmission is the rescue of the highest, 7.
        assert_eq!(feed(&mut s, &ack(0, &[(1, 6), (10, 100)], 0)), vec![7]);
        assert_eq!((s.scoreboard().sack_high(), s.scoreboard().sack_high_primary()), (100, 6));
        assert!(feed(&mut s, &ack(0, &[(1, 7), (10, 100)], 0)).is_empty());
        assert_eq!(s.stats.retx_pkts, 2);
        assert_eq!(s.scoreboard().pipe(), s.scoreboard().pipe_from_scratch());
    }

    /// RC3 with the authors' window ([`Rc3Window::Span`]): low-priority copies delivered all
    /// but segments 20 and 50. The RFC 6675 pipe repairs both holes at once; the authors'
    /// accounting counts the delivered data between them in the window, so 50 waits for the
    /// priority-0 ACK that covers 20.
    #[test]
    fn span_window_repairs_far_apart_holes_one_per_priority0_ack() {
        use crate::protocol::rc3::{Rc3Config, Rc3Window};
        let holes = [(20, [(21, 50), (51, 100)])];
        let mut sent = Vec::new();
        for window in [Rc3Window::Pipe, Rc3Window::Span] {
            let mut rc3 = Rc3Config::default();
            rc3.window = window;
            let cfg = TcpConfig { mss: MSS as u32, iw: 4, rc3: Some(rc3), ..TcpConfig::default() };
            let (mut s, _) = established(cfg, 100);
            let (cum, sack) = holes[0];
            assert!(feed(&mut s, &ack(cum, &sack, 1)).is_empty(), "low-priority ACKs send nothing");
            sent.push(feed(&mut s, &ack(cum, &sack, 0)));
            if window == Rc3Window::Span {
                assert!(s.span_stalled(), "the retransmission timer stays armed");
                assert_eq!(feed(&mut s, &ack(50, &[(51, 100)], 0)), vec![50]);
                feed(&mut s, &ack(100, &[], 0));
                assert!(s.is_done());
            }
        }
        assert_eq!(sent, vec![vec![20, 50], vec![20]]);
    }
}
