//! PIQI-RCP's end-host law (seed 003 sec. II eqs. 7-8; Jain and Loguinov, IWQoS 2007):
//!
//! ```text
//!   x_i(t) = x_i(t - T) + tau1 e_i(t) + tau2 delta_i(t)
//!   e_i(t)     = R_l(t - D_i<-) - x_i(t - T)                           (eq. 7)
//!   delta_i(t) = R_l(t - D_i<-) - R_l(t - T - D_i<-)                   (eq. 8)
//! ```
//! run once per control interval T of the flow's bottleneck router l, whose rate R_l comes
//! back with its Interval Number and router ID (`protocol/piqi/router.rs`): the first echo of a new
//! interval number runs the law, the other echoes of that interval change nothing. tau1 = 0.01,
//! tau2 = 0.1 (seed 003).
//!
//! Assumptions, where seed 003 is silent:
//! - The flow starts from x = 0, so its first rate is tau1 R (delta is 0 at the first echo: no
//!   earlier rate of that router is known). Nothing but the SYN leaves before the SYN-ACK
//!   brings R.
//! - When echoes skip intervals (a flow that sends less than a packet per interval, or ACKs
//!   lost), the m intervals since the last update apply eq. 7's term m times with the rate
//!   just echoed, x <- R - (1 - tau1)^m (R - x), and delta once, over the whole gap.
//! - When the bottleneck changes (another router ID), delta is 0: two routers' rates are not a
//!   change of one.
//! - A path without a PIQI-RCP router echoes no rate, and the flow sends at `unlimited`.

use crate::net::packet::CongestionHeader;
use crate::protocol::piqi::header::{PiqiEcho, PiqiHeader};
use crate::protocol::RateLawConfig;
use crate::transport::paced::law::{LawCtx, RateControl, RateFeedback};
use crate::units::Rate;

/// Longest gap, in intervals, one echo may apply (the host's state is settled long before).
const MAX_GAP: u32 = 1000;

/// PIQI-RCP's host settings (seed 003 eqs. 7-8): gains `tau1`, `tau2`; `unlimited` on a path
/// without PIQI-RCP routers.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PiqiConfig {
    /// Gain on the gap to the router's rate (seed 003: 0.01).
    pub tau1: f64,
    /// Gain on the router's last change of rate (seed 003: 0.1).
    pub tau2: f64,
    /// The rate used when no router gave one.
    pub unlimited: Rate,
}

impl RateLawConfig for PiqiConfig {
    type Law = PiqiHost;

    fn build(self) -> PiqiHost {
        PiqiHost::new(self.tau1, self.tau2, self.unlimited)
    }

    /// `piqi`.
    fn label(&self) -> String {
        "piqi".to_string()
    }
}

/// The PIQI-RCP end host.
#[derive(Clone, Debug)]
pub struct PiqiHost {
    tau1: f64,
    tau2: f64,
    unlimited: Rate,
    /// x_i, bit/s.
    rate: f64,
    /// The last update's (router ID, interval number, R).
    last: Option<(u32, u32, f64)>,
}

impl PiqiHost {
    /// A host with gains `tau1`, `tau2` that sends at `unlimited` on a path without PIQI-RCP
    /// routers.
    pub fn new(tau1: f64, tau2: f64, unlimited: Rate) -> PiqiHost {
        PiqiHost { tau1, tau2, unlimited, rate: 0.0, last: None }
    }
}

impl RateControl for PiqiHost {
    /// One bit per second: nothing leaves before the SYN-ACK brings the first rate.
    fn initial_rate(&self) -> f64 {
        1.0
    }

    fn header(&self, _ctx: LawCtx) -> CongestionHeader {
        CongestionHeader::Piqi(PiqiHeader { rate: f32::INFINITY, interval: 0, id: 0 })
    }

    fn on_feedback(&mut self, fb: &RateFeedback) -> Option<f64> {
        let echo = fb.echo;
        let CongestionHeader::PiqiFeedback(PiqiEcho { rate, interval, id }) = echo else { return None };
        if !rate.is_finite() {
            self.rate = self.unlimited.bps_f64();
            return Some(self.rate);
        }
        let r = rate as f64;
        let (gap, delta) = match self.last {
            Some((l_id, l_int, _)) if l_id == id && l_int == interval => return None,
            Some((l_id, l_int, l_r)) if l_id == id => (interval.wrapping_sub(l_int).min(MAX_GAP), r - l_r),
            _ => (1, 0.0),
        };
        self.last = Some((id, interval, r));
        // Eqs. 7-8, over `gap` intervals.
        let x = r - (1.0 - self.tau1).powi(gap as i32) * (r - self.rate) + self.tau2 * delta;
        self.rate = x.max(1.0);
        Some(self.rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;

    fn fb(id: u32, interval: u32, rate: f32) -> CongestionHeader {
        CongestionHeader::PiqiFeedback(PiqiEcho { rate, interval, id })
    }

    fn host() -> PiqiHost {
        PiqiHost::new(0.01, 0.1, Rate::from_gbps(10))
    }

    #[test]
    fn once_per_interval_eqs_7_and_8_move_x_by_tau1_of_the_gap_and_tau2_of_the_change() {
        let mut h = host();
        let t = Time::ZERO;
        assert_eq!(h.on_feedback(&RateFeedback::of(t, fb(4, 10, 100e6), None)), Some(1e6), "from 0: tau1 R, no delta");
        assert_eq!(h.on_feedback(&RateFeedback::of(t, fb(4, 10, 100e6), None)), None, "same interval: nothing");
        // R falls to 90: x = 1 + 0.01 (90 - 1) + 0.1 (90 - 100) Mb/s.
        let x = h.on_feedback(&RateFeedback::of(t, fb(4, 11, 90e6), None)).unwrap();
        assert!((x - (1e6 + 0.01 * 89e6 - 1e6)).abs() < 1e-3, "{x}");
    }

    #[test]
    fn skipped_intervals_apply_eq_7_once_per_interval() {
        let mut a = host();
        let mut b = host();
        a.on_feedback(&RateFeedback::of(Time::ZERO, fb(1, 0, 50e6), None));
        b.on_feedback(&RateFeedback::of(Time::ZERO, fb(1, 0, 50e6), None));
        for k in 1..=5 {
            a.on_feedback(&RateFeedback::of(Time::ZERO, fb(1, k, 50e6), None));
        }
        let xb = b.on_feedback(&RateFeedback::of(Time::ZERO, fb(1, 5, 50e6), None)).unwrap();
        assert!((a.rate - xb).abs() < 1e-6, "{} vs {xb}", a.rate);
    }

    #[test]
    fn a_new_bottleneck_gives_no_delta_and_no_router_gives_unlimited() {
        let mut h = host();
        h.on_feedback(&RateFeedback::of(Time::ZERO, fb(1, 0, 50e6), None));
        let x = h.on_feedback(&RateFeedback::of(Time::ZERO, fb(2, 7, 10e6), None)).unwrap();
        assert!((x - (0.5e6 + 0.01 * (10e6 - 0.5e6))).abs() < 1e-3, "{x}");
        assert_eq!(h.on_feedback(&RateFeedback::of(Time::ZERO, fb(0, 0, f32::INFINITY), None)), Some(10e9));
    }
}
