//! Congestion controllers: the algorithm, kept apart from the connection state.
//!
//! A controller reads and writes only [`CcState`] (cwnd and ssthresh in bytes); the TCP
//! sender owns the sequence space, the scoreboard, the RTT estimator and the recovery state,
//! and calls the hooks below at the moments RFC 5681 / RFC 6675 name. Dispatch is static
//! through [`Controller`].
//!
//! Window-based explicit-feedback protocols are controllers too (the shape of ns-3's
//! `CongControl` and smoltcp's `pacing_rate`): besides the loss hooks a controller may stamp a
//! congestion header on outgoing packets ([`CongestionControl::header`]), take the header the
//! receiver echoes ([`CongestionControl::on_feedback`]), give a pacing rate, and declare that
//! losses do not move its window ([`CongestionControl::reacts_to_loss`]).
//!
//! | file | controller |
//! |---|---|
//! | `newreno.rs` | NewReno window growth (RFC 5681, RFC 6582) |
//! | `cubic.rs` | CUBIC (RFC 9438) |
//! | `hystart.rs` | leaving slow start early: Linux's HyStart, HyStart++ (RFC 9406) |
//! | `xcp.rs` | XCP: the window moved by the routers' feedback (seed 003 eq. 2) |
//! | `rtcp.rs` | R-TCP: the window is RCP's rate x RTT, packets paced at the rate (RCP thesis sec. 6.1.1) |

pub mod cubic;
pub mod hystart;
pub mod newreno;
pub mod rtcp;
pub mod xcp;

use crate::net::packet::{CongestionHeader, PacketKind};
use crate::units::{Rate, Time};
pub use cubic::Cubic;
pub use hystart::{HyStart, HyStartMode, RttSample};
pub use newreno::NewReno;
pub use rtcp::{Rtcp, RtcpConfig};
pub use xcp::Xcp;

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
}

/// The hooks of a congestion-control algorithm; every hook has a no-op or standard default.
pub trait CongestionControl {
    /// An ACK that advanced the cumulative point gave an RTT sample; called before the ACK's
    /// window hooks (Linux's `pkts_acked` before `cong_avoid`).
    fn on_rtt_sample(&mut self, _st: &mut CcState, _s: &RttSample) {}
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
    /// The congestion header of an outgoing SYN or data packet (plain TCP: none).
    fn header(&self, _st: &CcState, _ctx: HeaderCtx) -> CongestionHeader {
        CongestionHeader::None
    }
    /// The congestion header a SYN-ACK or ACK echoes. Returns true if the window follows that
    /// feedback, so that the ACK-clocked growth of [`CongestionControl::on_ack`] is skipped.
    fn on_feedback(&mut self, _st: &mut CcState, _echo: CongestionHeader, _srtt: Option<Time>) -> bool {
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

/// Which controller a flow uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// NewReno (RFC 6582) window growth; loss recovery is SACK-based (RFC 6675).
    NewReno,
    /// CUBIC (RFC 9438).
    Cubic,
}

/// How a connection's window moves: the controller it builds (config, not state).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum CcConfig {
    /// A loss-based controller (NewReno, CUBIC).
    Loss(CcKind),
    /// XCP's feedback-driven window over a loss-based reaction, asking for `desired_bps`.
    Xcp {
        /// The reaction to loss.
        loss: CcKind,
        /// The rate the sender asks the routers for, bit/s.
        desired_bps: f64,
    },
    /// R-TCP: RCP's rate x RTT as the window, paced at the rate.
    Rtcp(RtcpConfig),
}

impl CcConfig {
    /// The loss-based controller underneath, if any (for labels).
    pub fn loss_kind(&self) -> Option<CcKind> {
        match *self {
            CcConfig::Loss(k) | CcConfig::Xcp { loss: k, .. } => Some(k),
            CcConfig::Rtcp(_) => None,
        }
    }
}

/// A loss-based controller, statically dispatched (what XCP falls back on for losses).
#[derive(Clone, Debug)]
pub enum LossBased {
    /// NewReno.
    NewReno(NewReno),
    /// CUBIC.
    Cubic(Cubic),
}

impl LossBased {
    /// A fresh controller of the given kind, leaving slow start as `hystart` says.
    pub fn new(kind: CcKind, hystart: HyStartMode) -> LossBased {
        match kind {
            CcKind::NewReno => LossBased::NewReno(NewReno::new(hystart)),
            CcKind::Cubic => LossBased::Cubic(Cubic::new(hystart)),
        }
    }
}

macro_rules! each_loss {
    ($self:ident, $c:ident => $body:expr) => {
        match $self {
            LossBased::NewReno($c) => $body,
            LossBased::Cubic($c) => $body,
        }
    };
}

impl CongestionControl for LossBased {
    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        each_loss!(self, c => c.on_rtt_sample(st, s))
    }
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        each_loss!(self, c => c.on_ack(st, now, acked, srtt))
    }
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_loss!(self, c => c.on_congestion(st, now, flight))
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_loss!(self, c => c.on_timeout(st, now, flight))
    }
    fn on_recovery_end(&mut self, st: &mut CcState, now: Time) {
        each_loss!(self, c => c.on_recovery_end(st, now))
    }
}

/// A connection's controller, statically dispatched.
#[derive(Clone, Debug)]
pub enum Controller {
    /// NewReno or CUBIC.
    Loss(LossBased),
    /// XCP.
    Xcp(Xcp),
    /// R-TCP.
    Rtcp(Rtcp),
}

impl Controller {
    /// A fresh controller for a connection of `mss`-byte segments under `header` bytes of
    /// headers and a receive window of `rwnd` bytes; a loss-based one leaves slow start as
    /// `hystart` says.
    pub fn new(cfg: CcConfig, hystart: HyStartMode, mss: u32, header: u32, rwnd: u64) -> Controller {
        match cfg {
            CcConfig::Loss(kind) => Controller::Loss(LossBased::new(kind, hystart)),
            CcConfig::Xcp { loss, desired_bps } => Controller::Xcp(Xcp::new(loss, desired_bps)),
            CcConfig::Rtcp(r) => Controller::Rtcp(Rtcp::new(r, mss, header, rwnd)),
        }
    }
}

macro_rules! each_cc {
    ($self:ident, $c:ident => $body:expr) => {
        match $self {
            Controller::Loss($c) => $body,
            Controller::Xcp($c) => $body,
            Controller::Rtcp($c) => $body,
        }
    };
}

impl CongestionControl for Controller {
    #[inline]
    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        each_cc!(self, c => c.on_rtt_sample(st, s))
    }
    #[inline]
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        each_cc!(self, c => c.on_ack(st, now, acked, srtt))
    }
    fn on_loss_signal(&mut self, st: &mut CcState, now: Time) {
        each_cc!(self, c => c.on_loss_signal(st, now))
    }
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_cc!(self, c => c.on_congestion(st, now, flight))
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_cc!(self, c => c.on_timeout(st, now, flight))
    }
    fn on_recovery_end(&mut self, st: &mut CcState, now: Time) {
        each_cc!(self, c => c.on_recovery_end(st, now))
    }
    #[inline]
    fn header(&self, st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        each_cc!(self, c => c.header(st, ctx))
    }
    #[inline]
    fn on_feedback(&mut self, st: &mut CcState, echo: CongestionHeader, srtt: Option<Time>) -> bool {
        each_cc!(self, c => c.on_feedback(st, echo, srtt))
    }
    fn pacing_rate(&self) -> Option<Rate> {
        each_cc!(self, c => c.pacing_rate())
    }
    #[inline]
    fn reacts_to_loss(&self) -> bool {
        each_cc!(self, c => c.reacts_to_loss())
    }
}
