//! Congestion controllers: the algorithm, kept apart from the connection state.
//!
//! A controller reads and writes only [`CcState`] (cwnd and ssthresh in bytes); the TCP
//! sender owns the sequence space, the scoreboard, the RTT estimator and the recovery state,
//! and calls the hooks below at the moments RFC 5681 / RFC 6675 name. Dispatch is static
//! through [`Controller`].

pub mod cubic;
pub mod newreno;

use crate::units::Time;
pub use cubic::Cubic;
pub use newreno::NewReno;

/// The window state a controller may change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CcState {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` = unlimited).
    pub ssthresh: u64,
    /// Sender maximum segment size, bytes.
    pub mss: u64,
}

impl CcState {
    /// True while cwnd is below ssthresh (RFC 5681 sec. 3.1).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// The hooks of a congestion-control algorithm; every hook has a no-op or standard default.
pub trait CongestionControl {
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

/// A controller, statically dispatched.
#[derive(Clone, Debug)]
pub enum Controller {
    /// NewReno.
    NewReno(NewReno),
    /// CUBIC.
    Cubic(Cubic),
}

impl Controller {
    /// A fresh controller of the given kind.
    pub fn new(kind: CcKind) -> Controller {
        match kind {
            CcKind::NewReno => Controller::NewReno(NewReno),
            CcKind::Cubic => Controller::Cubic(Cubic::default()),
        }
    }
}

macro_rules! each_cc {
    ($self:ident, $c:ident => $body:expr) => {
        match $self {
            Controller::NewReno($c) => $body,
            Controller::Cubic($c) => $body,
        }
    };
}

impl CongestionControl for Controller {
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        each_cc!(self, c => c.on_ack(st, now, acked, srtt))
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
}
