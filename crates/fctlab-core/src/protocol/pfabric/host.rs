//! pFabric's rate control (sec. 4.2), minimal by design: the switches schedule, the hosts
//! only avoid persistent congestion collapse.
//!
//! - A flow starts at line rate: its window is one bandwidth-delay product (`iw`, given by the
//!   scenario), and it never grows beyond it.
//! - Losses detected by SACK are repaired without a cut: in pFabric a drop is the switch's
//!   decision to serve something more urgent, not a sign of congestion.
//! - A retransmission timeout (a small fixed RTO, about three RTTs, from `min_rto` /
//!   `initial_rto` / `max_rto`) sets ssthresh = cwnd / 2 (at least two segments) and cwnd = one
//!   segment; the window then grows by slow start up to ssthresh and by one segment per window
//!   above it (the authors' simulator).
//!
//! - After [`PROBE_AFTER`] timeouts in a row the flow enters probe mode: at each timeout it
//!   sends a minimum-size probe (a header-only packet the receiver answers at once) instead of
//!   data, and leaves probe mode, retransmitting again, when an ACK comes back (the TCP sender
//!   runs it: [`CongestionControl::probe_after_timeouts`]). The paper's probes carry one byte
//!   of payload; fctlab's carry none, as RCP's probes do.

use crate::net::packet::CongestionHeader;
use crate::protocol::label::LabelCtx;
use crate::protocol::pfabric::PFabricHeader;
use crate::protocol::{WindowConfig, WindowCtx};
use crate::transport::cc::{CcState, CongestionControl, HeaderCtx};
use crate::units::Time;

/// Timeouts in a row that start probe mode (the paper's implementation: 5).
pub const PROBE_AFTER: u32 = 5;

/// pFabric's host settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PFabricConfig {
    /// The window's ceiling, bytes: its first window, one BDP.
    pub max_cwnd: u64,
}

impl WindowConfig for PFabricConfig {
    type Controller = PFabric;

    fn build(self, _ctx: WindowCtx) -> PFabric {
        PFabric::new(self.max_cwnd)
    }

    /// `pfabric-iw10`.
    fn label(&self, at: LabelCtx) -> String {
        format!("pfabric-iw{}", at.iw)
    }

    /// The flow's remaining bytes are its packets' priority.
    fn stamps_remaining(&self) -> bool {
        true
    }
}

/// pFabric's window.
#[derive(Clone, Debug)]
pub struct PFabric {
    /// The window's ceiling, bytes: the initial window, one BDP.
    max_cwnd: u64,
    /// ACKs counted towards the next segment of additive increase.
    acks: u64,
}

impl PFabric {
    /// pFabric with a ceiling (the initial window) of `max_cwnd` bytes.
    pub fn new(max_cwnd: u64) -> PFabric {
        PFabric { max_cwnd, acks: 0 }
    }
}

impl CongestionControl for PFabric {
    fn wants_feedback(&self) -> bool {
        false
    }
    fn on_ack(&mut self, st: &mut CcState, _now: Time, acked: u64, _srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if st.cwnd < st.ssthresh {
            st.cwnd += st.mss;
        } else {
            self.acks += 1;
            if self.acks * st.mss >= st.cwnd {
                self.acks = 0;
                st.cwnd += st.mss;
            }
        }
        st.cwnd = st.cwnd.min(self.max_cwnd.max(st.mss));
    }

    /// A SACK-detected loss: repaired, no cut.
    fn on_congestion(&mut self, _st: &mut CcState, _now: Time, _flight: u64) {}

    fn on_recovery_end(&mut self, _st: &mut CcState, _now: Time) {}

    fn on_timeout(&mut self, st: &mut CcState, _now: Time, _flight: u64) {
        st.ssthresh = (st.cwnd / 2).max(2 * st.mss);
        st.cwnd = st.mss;
        self.acks = 0;
    }

    fn probe_after_timeouts(&self) -> Option<u32> {
        Some(PROBE_AFTER)
    }

    #[inline]
    fn header(&self, _st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        CongestionHeader::PFabric(PFabricHeader { remaining: ctx.remaining.min(u32::MAX as u64) as u32 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;

    fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState { cwnd, ssthresh, mss: 1000, abc: 1000 }
    }

    #[test]
    fn the_window_never_grows_past_one_bdp_and_losses_do_not_cut_it() {
        let mut p = PFabric::new(12_000);
        let mut s = st(12_000, u64::MAX);
        p.on_ack(&mut s, Time::ZERO, 1000, None);
        assert_eq!(s.cwnd, 12_000);
        p.on_congestion(&mut s, Time::ZERO, 12_000);
        p.on_recovery_end(&mut s, Time::ZERO);
        assert_eq!(s.cwnd, 12_000);
    }

    /// A timeout: ssthresh = 6 segments, cwnd = 1; slow start to 6, then one segment per window.
    #[test]
    fn a_timeout_restarts_from_one_segment_and_grows_back() {
        let mut p = PFabric::new(12_000);
        let mut s = st(12_000, u64::MAX);
        p.on_timeout(&mut s, Time::ZERO, 12_000);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 6000));
        for _ in 0..5 {
            p.on_ack(&mut s, Time::ZERO, 1000, None);
        }
        assert_eq!(s.cwnd, 6000);
        for _ in 0..6 {
            p.on_ack(&mut s, Time::ZERO, 1000, None);
        }
        assert_eq!(s.cwnd, 7000, "six ACKs of a six-segment window add one");
    }

    #[test]
    fn the_header_carries_the_remaining_bytes() {
        let ctx = |remaining| HeaderCtx { kind: PacketKind::Data, srtt: None, sent_bytes: 0, remaining };
        let p = PFabric::new(12_000);
        assert_eq!(p.header(&st(1, 1), ctx(5000)), CongestionHeader::PFabric(PFabricHeader { remaining: 5000 }));
        assert_eq!(
            p.header(&st(1, 1), ctx(u64::MAX)),
            CongestionHeader::PFabric(PFabricHeader { remaining: u32::MAX })
        );
    }
}
