//! The window host law's interface: a congestion controller, kept apart from the connection
//! state.
//!
//! A controller reads and writes only [`CcState`] (cwnd and ssthresh in bytes); the TCP
//! sender owns the sequence space, the scoreboard, the RTT estimator and the recovery state,
//! and calls the hooks below at the moments RFC 5681 / RFC 6675 name. Dispatch is static
//! through the registry's closed list, `crate::protocol::Controller`; this module is what the
//! protocols implement, and imports none of them.
//!
//! Window-based explicit-feedback protocols are controllers too (the shape of ns-3's
//! `CongControl` and smoltcp's `pacing_rate`): besides the loss hooks a controller may stamp a
//! congestion header on outgoing packets ([`CongestionControl::header`]), take the header the
//! receiver echoes ([`CongestionControl::on_feedback`]), give a pacing rate, and declare that
//! losses do not move its window ([`CongestionControl::reacts_to_loss`]).
//!
//! The controllers live with their protocols: `protocol/newreno/`, `protocol/cubic/` (and
//! HyStart, `hystart.rs`, which reads [`RttSample`]), `protocol/xcp/host.rs`,
//! `protocol/rtcp/`.

pub mod hystart;

use crate::net::packet::{CongestionHeader, PacketKind};
use crate::units::{Rate, Time};

/// The window state a controller may change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CcState {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` = unlimited).
    pub ssthresh: u64,
    /// Sender maximum segment size, bytes.
    pub mss: u64,
    /// Most bytes one ACK may add to cwnd in slow start: L x MSS of appropriate byte counting
    /// (RFC 3465 sec. 2.2); `mss` for RFC 5681 eq. 2.
    pub abc: u64,
}

impl CcState {
    /// True while cwnd is below ssthresh (RFC 5681 sec. 3.1).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What a controller's congestion header may carry of the connection.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HeaderCtx {
    /// The packet being sent (SYN or data).
    pub kind: PacketKind,
    /// The sender's smoothed RTT, if it has a sample.
    pub srtt: Option<Time>,
    /// Payload bytes sent so far, retransmissions included (not counting this packet).
    pub sent_bytes: u64,
    /// Bytes of the flow neither acknowledged nor SACKed (`u64::MAX` for a flow of unknown
    /// size): pFabric's priority.
    pub remaining: u64,
}

/// What an ACK of an ECN-capable connection tells the controller (RFC 3168, RFC 8257 sec. 3.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EcnAck {
    /// Payload bytes it newly acknowledged (cumulatively).
    pub acked: u64,
    /// Its ECE flag.
    pub ece: bool,
    /// The cumulative acknowledgment after it (SND.UNA), a byte offset.
    pub una: u64,
    /// The highest byte sent so far (SND.NXT), a byte offset.
    pub high: u64,
}

/// What one RTT sample tells a controller (Linux's `struct ack_sample` with the sequence
/// numbers a round is measured by; HyStart's slow-start exit reads it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RttSample {
    /// When the ACK arrived.
    pub now: Time,
    /// Its RTT sample.
    pub rtt: Time,
    /// Bytes cumulatively acknowledged after it (SND.UNA).
    pub una: u64,
    /// Bytes sent so far (SND.NXT, HighData).
    pub high: u64,
}

/// What a SYN-ACK or ACK tells an explicit controller ([`CongestionControl::on_feedback`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Feedback {
    /// The congestion header it echoes.
    pub echo: CongestionHeader,
    /// The sender's smoothed RTT after it, if there is a sample.
    pub srtt: Option<Time>,
    /// When it arrived.
    pub now: Time,
    /// The highest byte the receiver reports holding, a byte offset: its cumulative
    /// acknowledgment or, above it, the end of its highest SACK block (0 for the SYN-ACK). Past
    /// a given SND.NXT, it shows a packet sent after that point arrived, losses or not.
    pub ack: u64,
    /// The highest byte sent so far (SND.NXT), a byte offset.
    pub high: u64,
}

impl Feedback {
    /// The feedback of `echo` alone (no RTT, at time zero, nothing sent): for tests.
    pub fn of(echo: CongestionHeader) -> Feedback {
        Feedback { echo, srtt: None, now: Time::ZERO, ack: 0, high: 0 }
    }
}

/// The hooks of a congestion-control algorithm; every hook has a no-op or standard default.
pub trait CongestionControl {
    /// An ACK that advanced the cumulative point gave an RTT sample; called before the ACK's
    /// window hooks (Linux's `pkts_acked` before `cong_avoid`).
    fn on_rtt_sample(&mut self, _st: &mut CcState, _s: &RttSample) {}
    /// Whether [`CongestionControl::on_rtt_sample`] does anything (the sender asks once, at
    /// the start, and skips the hook's per-ACK cost otherwise).
    fn wants_rtt_samples(&self) -> bool {
        false
    }
    /// An ACK acknowledged `acked` new bytes outside loss recovery.
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>);
    /// Loss detected by duplicate ACKs / SACK: entering fast recovery with `flight` bytes out.
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64);
    /// Retransmission timeout with `flight` bytes out (RFC 5681 eq. 4, cwnd = 1 MSS).
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.on_congestion(st, now, flight);
        st.cwnd = st.mss;
    }
    /// Fast recovery ended (the cumulative ACK passed the recovery point).
    fn on_recovery_end(&mut self, st: &mut CcState, _now: Time) {
        st.cwnd = st.ssthresh;
    }
    /// A loss was detected (fast retransmit or timeout), whether or not the controller reacts
    /// to loss; called before the loss hooks. A controller may change its mode here (R-TCP
    /// falls back to TCP).
    fn on_loss_signal(&mut self, _st: &mut CcState, _now: Time) {}
    /// Every ACK of an ECN-capable connection, before its window hooks (DCTCP counts the
    /// bytes marked here).
    fn on_ecn_ack(&mut self, _st: &mut CcState, _ack: &EcnAck) {}
    /// ECE asks for a reduction, at most once per window of data (RFC 3168 sec. 6.1.2; the
    /// sender keeps that rule) and never in loss recovery. The default is RFC 3168's: the
    /// window and ssthresh as for a loss, without a retransmission.
    fn on_ecn_echo(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.on_congestion(st, now, flight);
        st.cwnd = st.cwnd.min(st.ssthresh);
    }
    /// After this many retransmission timeouts in a row the sender stops retransmitting data at
    /// each timeout and sends a header-only probe instead, until an ACK comes back (pFabric's
    /// probe mode); None: never.
    fn probe_after_timeouts(&self) -> Option<u32> {
        None
    }
    /// A state variable of the controller for the flow's series, named (DCTCP's alpha).
    fn cc_metric(&self) -> Option<(&'static str, f64)> {
        None
    }
    /// The congestion header of an outgoing SYN or data packet (plain TCP: none).
    fn header(&self, _st: &CcState, _ctx: HeaderCtx) -> CongestionHeader {
        CongestionHeader::None
    }
    /// Whether [`CongestionControl::on_feedback`] does anything (the sender asks once, at the
    /// start, and skips building the [`Feedback`] of every ACK otherwise).
    fn wants_feedback(&self) -> bool {
        true
    }
    /// A SYN-ACK or ACK echoes a congestion header ([`Feedback`]: the header, with where the
    /// connection stands). Returns true if the window follows that feedback, so that the
    /// ACK-clocked growth of [`CongestionControl::on_ack`] is skipped.
    fn on_feedback(&mut self, _st: &mut CcState, _fb: &Feedback) -> bool {
        false
    }
    /// The rate packets are paced at, for controllers that pace (whatever the window allows,
    /// packets leave no closer than `wire bits / rate`).
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// False if losses leave the window alone (they are still repaired): no halving on fast
    /// recovery, no collapse on a timeout, no hook called for either.
    fn reacts_to_loss(&self) -> bool {
        true
    }
}
