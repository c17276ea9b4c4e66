//! DCTCP's sender (sec. 3.1 "Sender side"; RFC 8257 sec. 3.3): the estimate alpha of the
//! fraction of bytes marked, updated once per window of data,
//!
//! ```text
//! (1)  alpha <- (1 - g) alpha + g F          F: the fraction of bytes acknowledged with ECE
//!                                               in the last window (one RTT)
//! ```
//!
//! and, on ECE (at most once per window, by RFC 3168's rule the TCP sender keeps),
//!
//! ```text
//! (2)  cwnd <- cwnd (1 - alpha / 2)
//! ```
//!
//! with ssthresh set to the new cwnd and a floor of two segments (Linux's `dctcp_ssthresh`).
//! Growth and the reaction to loss are NewReno's (RFC 8257 sec. 3.4: a loss halves as in
//! TCP). The observation window runs from the first ACK past `WindowEnd` to the next, where
//! `WindowEnd` is the highest byte sent when the window began (RFC 8257 sec. 3.3 steps 1-9).
//! As in the paper's ns-2 code and RFC 3168, the window keeps growing after a reduction
//! (Linux freezes growth in its CWR state until the reduction's window is acknowledged).

use crate::protocol::label::LabelCtx;
use crate::protocol::newreno::NewReno;
use crate::protocol::{WindowConfig, WindowCtx};
use crate::transport::cc::hystart::HyStartMode;
use crate::transport::cc::{CcState, CongestionControl, EcnAck, RttSample};
use crate::units::Time;

/// DCTCP's constants.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct DctcpConfig {
    /// The weight g of the newest window's fraction in (1) (paper and RFC 8257: 1/16).
    pub g: f64,
    /// alpha before the first window ends (RFC 8257 sec. 3.3 and Linux: 1, the cautious
    /// choice: the first mark halves the window).
    pub alpha0: f64,
}

impl Default for DctcpConfig {
    fn default() -> DctcpConfig {
        DctcpConfig { g: 1.0 / 16.0, alpha0: 1.0 }
    }
}

impl WindowConfig for DctcpConfig {
    type Controller = Dctcp;

    fn build(self, ctx: WindowCtx) -> Dctcp {
        Dctcp::new(self, ctx.hystart)
    }

    /// `dctcp-iw10`.
    fn label(&self, at: LabelCtx) -> String {
        format!("dctcp-iw{}", at.iw)
    }
}

/// DCTCP's window.
#[derive(Clone, Debug)]
pub struct Dctcp {
    reno: NewReno,
    g: f64,
    alpha: f64,
    /// The highest byte sent when the observation window began (RFC 8257 `WindowEnd`).
    window_end: u64,
    /// Bytes acknowledged in this window, and those with ECE.
    acked: u64,
    marked: u64,
}

impl Dctcp {
    /// DCTCP with `cfg`, slow start ending as `hystart` says.
    pub fn new(cfg: DctcpConfig, hystart: HyStartMode) -> Dctcp {
        Dctcp { reno: NewReno::new(hystart), g: cfg.g, alpha: cfg.alpha0, window_end: 0, acked: 0, marked: 0 }
    }

    /// The current estimate alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn wants_feedback(&self) -> bool {
        false
    }
    fn wants_rtt_samples(&self) -> bool {
        self.reno.wants_rtt_samples()
    }
    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        self.reno.on_rtt_sample(st, s);
    }
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        self.reno.on_ack(st, now, acked, srtt);
    }
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.reno.on_congestion(st, now, flight);
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.reno.on_timeout(st, now, flight);
    }

    fn on_ecn_ack(&mut self, _st: &mut CcState, a: &EcnAck) {
        self.acked += a.acked;
        if a.ece {
            self.marked += a.acked;
        }
        if a.una <= self.window_end {
            return;
        }
        // The window ends: (1) with F over its bytes.
        if self.acked > 0 {
            let f = self.marked as f64 / self.acked as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        }
        self.window_end = a.high;
        self.acked = 0;
        self.marked = 0;
    }

    fn on_ecn_echo(&mut self, st: &mut CcState, _now: Time, _flight: u64) {
        // (2), never below two segments.
        let cwnd = (st.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
        st.ssthresh = cwnd.max(2 * st.mss);
        st.cwnd = st.ssthresh;
    }

    fn cc_metric(&self) -> Option<(&'static str, f64)> {
        Some(("dctcp_alpha", self.alpha))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(cwnd: u64) -> CcState {
        CcState { cwnd, ssthresh: u64::MAX, mss: 1000, abc: 1000 }
    }

    fn ack(acked: u64, ece: bool, una: u64, high: u64) -> EcnAck {
        EcnAck { acked, ece, una, high }
    }

    /// (1) once per window: g = 1/16, alpha from 1; a window with a quarter of its bytes
    /// marked gives alpha = 15/16 + 1/64; a window with none, (15/16) alpha.
    #[test]
    fn alpha_moves_by_g_towards_each_windows_marked_fraction() {
        let mut d = Dctcp::new(DctcpConfig::default(), HyStartMode::Off);
        let mut s = st(10_000);
        // The first ACK past WindowEnd = 0 closes an empty window: alpha stays, the window
        // now ends at byte 10,000.
        d.on_ecn_ack(&mut s, &ack(0, false, 1, 10_000));
        assert_eq!(d.alpha(), 1.0);
        // 8,000 bytes acknowledged in four ACKs, one of them with ECE; the fourth passes 10,000.
        for (i, ece) in [false, true, false].into_iter().enumerate() {
            d.on_ecn_ack(&mut s, &ack(2000, ece, 2000 * (i as u64 + 1), 20_000));
            assert_eq!(d.alpha(), 1.0, "no update inside the window");
        }
        d.on_ecn_ack(&mut s, &ack(2000, false, 10_001, 20_000));
        assert!((d.alpha() - (15.0 / 16.0 + 0.25 / 16.0)).abs() < 1e-12, "{}", d.alpha());
        let a = d.alpha();
        d.on_ecn_ack(&mut s, &ack(5000, false, 15_000, 30_000));
        d.on_ecn_ack(&mut s, &ack(5000, false, 20_001, 30_000));
        assert!((d.alpha() - a * 15.0 / 16.0).abs() < 1e-12);
    }

    /// (2): alpha = 1 halves, alpha = 0.1 takes 5% off, and two segments is the floor.
    #[test]
    fn the_window_shrinks_by_half_alpha() {
        let mut d = Dctcp::new(DctcpConfig::default(), HyStartMode::Off);
        let mut s = st(20_000);
        d.on_ecn_echo(&mut s, Time::ZERO, 20_000);
        assert_eq!((s.cwnd, s.ssthresh), (10_000, 10_000));
        let mut d = Dctcp::new(DctcpConfig { alpha0: 0.1, ..DctcpConfig::default() }, HyStartMode::Off);
        let mut s = st(20_000);
        d.on_ecn_echo(&mut s, Time::ZERO, 20_000);
        assert_eq!(s.cwnd, 19_000);
        let mut s = st(2_500);
        Dctcp::new(DctcpConfig::default(), HyStartMode::Off).on_ecn_echo(&mut s, Time::ZERO, 2_500);
        assert_eq!(s.cwnd, 2_000);
    }

    /// A loss halves the flight as NewReno does, whatever alpha is.
    #[test]
    fn a_loss_halves_as_tcp() {
        let mut d = Dctcp::new(DctcpConfig { alpha0: 0.0, ..DctcpConfig::default() }, HyStartMode::Off);
        let mut s = st(20_000);
        d.on_congestion(&mut s, Time::ZERO, 20_000);
        assert_eq!(s.cwnd, 10_000);
    }
}
