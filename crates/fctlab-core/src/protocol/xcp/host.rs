//! XCP's end-host window law (Katabi et al. 2002; seed 003 eq. 2) as a congestion controller.
//!
//! - Every data packet carries the XCP header: the window, the RTT (zero before the first
//!   sample) and the window change the sender wants per packet to reach its desired rate in one
//!   RTT, `(r rtt - cwnd) / (cwnd / mss)`; routers only lower it. The SYN carries none.
//! - Each echoed feedback moves the window, `W <- max(W + H, s)` (eq. 2, s = one MSS), with
//!   the sub-byte remainder carried over. There is no slow start: outside loss recovery the
//!   window follows the feedback alone.
//! - Losses are TCP's to repair; the window reacts as the loss-based controller underneath
//!   (NewReno by default) does: halved on fast recovery, one segment on a timeout, and grown
//!   by that controller's ACK rule until the timeout's recovery ends.

use crate::net::packet::{CongestionHeader, PacketKind};
use crate::protocol::label::{window_label, LabelCtx};
use crate::protocol::xcp::header::{XcpEcho, XcpHeader};
use crate::protocol::{CcKind, LossBased, WindowConfig, WindowCtx};
use crate::transport::cc::hystart::HyStartMode;
use crate::transport::cc::{CcState, CongestionControl, Feedback, HeaderCtx};
use crate::units::Time;

/// XCP's host settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct XcpConfig {
    /// The reaction to loss.
    pub loss: CcKind,
    /// The rate the sender asks the routers for, bit/s.
    pub desired_bps: f64,
}

impl WindowConfig for XcpConfig {
    type Controller = Xcp;

    fn build(self, _ctx: WindowCtx) -> Xcp {
        Xcp::new(self.loss, self.desired_bps)
    }

    /// `xcp-newreno-iw1`: XCP over its loss-based window.
    fn label(&self, at: LabelCtx) -> String {
        window_label("xcp", self.loss.name(), at)
    }

    fn loss_kind(&self) -> Option<CcKind> {
        Some(self.loss)
    }
}

/// XCP's window law over a loss-based controller.
#[derive(Clone, Debug)]
pub struct Xcp {
    /// The loss reaction.
    loss: LossBased,
    /// The rate the sender asks for, bit/s.
    desired_bps: f64,
    /// The fraction of a byte of window the feedback left over.
    carry: f64,
}

impl Xcp {
    /// An XCP window asking for `desired_bps`, reacting to loss as `loss` does.
    pub fn new(loss: CcKind, desired_bps: f64) -> Xcp {
        Xcp { loss: LossBased::new(loss, HyStartMode::Off), desired_bps, carry: 0.0 }
    }
}

impl CongestionControl for Xcp {
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        self.loss.on_ack(st, now, acked, srtt)
    }
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.loss.on_congestion(st, now, flight)
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.loss.on_timeout(st, now, flight)
    }
    fn on_recovery_end(&mut self, st: &mut CcState, now: Time) {
        self.loss.on_recovery_end(st, now)
    }

    /// The window, the RTT, and the change wanted per packet to reach the desired rate in one
    /// RTT, `(r rtt - cwnd) / (cwnd / mss)` (one MSS before any RTT sample).
    fn header(&self, st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        if ctx.kind == PacketKind::Syn {
            return CongestionHeader::None;
        }
        let cwnd = st.cwnd as f64;
        let rtt = ctx.srtt.unwrap_or(Time::ZERO);
        let wanted = self.desired_bps / 8.0 * rtt.as_secs_f64() - cwnd;
        let feedback =
            if rtt == Time::ZERO { st.mss as f64 } else { wanted.max(0.0) / (cwnd / st.mss as f64).max(1.0) };
        let rtt_us = (rtt.ps() / 1_000_000).min(u32::MAX as u64) as u32;
        CongestionHeader::Xcp(XcpHeader { cwnd: cwnd as f32, rtt_us, feedback: feedback as f32 })
    }

    /// Eq. 2: the window moves by the echoed feedback, never below one segment.
    fn on_feedback(&mut self, st: &mut CcState, fb: &Feedback) -> bool {
        if let CongestionHeader::XcpFeedback(XcpEcho { feedback }) = fb.echo {
            let w = st.cwnd as f64 + self.carry + feedback as f64;
            let w = w.max(st.mss as f64);
            st.cwnd = w.floor() as u64;
            self.carry = w - w.floor();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feedback_moves_the_window_and_keeps_the_fraction() {
        let mut x = Xcp::new(CcKind::NewReno, 100e9);
        let mut st = CcState { cwnd: 10_000, ssthresh: u64::MAX, mss: 1000, abc: 1000 };
        assert!(x.on_feedback(&mut st, &Feedback::of(CongestionHeader::XcpFeedback(XcpEcho { feedback: 250.5 }))));
        assert_eq!(st.cwnd, 10_250);
        x.on_feedback(&mut st, &Feedback::of(CongestionHeader::XcpFeedback(XcpEcho { feedback: 0.5 })));
        assert_eq!(st.cwnd, 10_251, "two halves make a byte");
        x.on_feedback(&mut st, &Feedback::of(CongestionHeader::XcpFeedback(XcpEcho { feedback: -1e9 })));
        assert_eq!(st.cwnd, 1000, "never below one segment");
    }

    #[test]
    fn the_header_asks_for_the_desired_rate_in_one_rtt() {
        let x = Xcp::new(CcKind::NewReno, 8e6);
        let st = CcState { cwnd: 50_000, ssthresh: u64::MAX, mss: 1000, abc: 1000 };
        let ctx = HeaderCtx { kind: PacketKind::Data, srtt: Some(Time::from_ms(100)), sent_bytes: 0, remaining: 0 };
        // 8 Mb/s x 100 ms = 100 kB wanted, 50 kB more over 50 packets: 1 kB each.
        let CongestionHeader::Xcp(XcpHeader { cwnd, rtt_us, feedback }) = x.header(&st, ctx) else { panic!() };
        assert_eq!((cwnd, rtt_us, feedback), (50_000.0, 100_000, 1000.0));
        assert_eq!(x.header(&st, HeaderCtx { kind: PacketKind::Syn, ..ctx }), CongestionHeader::None);
    }
}
