//! JetMax's end-host law (seed 003 sec. II eq. 3; Zhang, Leonard, Loguinov 2006/2008):
//!
//! ```text
//!   x_i(t) = x_i(t - D_i) - tau (x_i(t - D_i) - g_l(t - D_i<-))      (eq. 3), 0 < tau < 2
//! ```
//! once per RTT D_i, with g_l the rate the flow's bottleneck router offered (the smallest on the
//! path: see `protocol/jetmax/router.rs`). The flow starts from x = 0, so its first rate is tau g and it
//! closes (1 - tau) of the remaining gap every RTT: within 1% of g after six updates with tau =
//! 0.6, whatever the link's capacity (the paper's capacity-independent convergence).
//!
//! Every packet carries the flow's bottleneck RT, learned from the RS echoed with the rate (the
//! bottleneck switches when another router offers less), and its inter-packet interval
//! `wire bits / x`, from which routers count their flows. Assumptions: the RTT of eq. 3 is the
//! sender's SRTT (the update waits one SRTT after the previous one, feedback in between is only
//! used to follow RS); a path without a JetMax router echoes no rate and the flow sends at
//! `unlimited`.

use crate::net::packet::CongestionHeader;
use crate::protocol::jetmax::header::{JetMaxEcho, JetMaxHeader, JETMAX_NO_ROUTER};
use crate::protocol::RateLawConfig;
use crate::transport::paced::law::{LawCtx, RateControl, RateFeedback};
use crate::units::{Rate, Time};

/// JetMax's host settings (seed 003 eq. 3): gain `tau`; `unlimited` on a path without JetMax
/// routers.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JetMaxConfig {
    /// The gain tau, 0 < tau < 2 (seed 003: 0.6).
    pub tau: f64,
    /// The rate used when no router offered one.
    pub unlimited: Rate,
}

impl RateLawConfig for JetMaxConfig {
    type Law = JetMaxHost;

    fn build(self) -> JetMaxHost {
        JetMaxHost::new(self.tau, self.unlimited)
    }

    /// `jetmax`.
    fn label(&self) -> String {
        "jetmax".to_string()
    }
}

/// The JetMax end host.
#[derive(Clone, Debug)]
pub struct JetMaxHost {
    tau: f64,
    unlimited: Rate,
    /// x_i, bit/s.
    rate: f64,
    /// RT: the bottleneck router.
    rt: u16,
    /// When eq. 3 may run again (None: never ran).
    next_update: Option<Time>,
}

impl JetMaxHost {
    /// A host with gain `tau` that sends at `unlimited` on a path without JetMax routers.
    pub fn new(tau: f64, unlimited: Rate) -> JetMaxHost {
        JetMaxHost { tau, unlimited, rate: 0.0, rt: JETMAX_NO_ROUTER, next_update: None }
    }

    /// The flow's bottleneck router (`JETMAX_NO_ROUTER` before the first feedback).
    pub fn bottleneck(&self) -> u16 {
        self.rt
    }
}

impl RateControl for JetMaxHost {
    /// One bit per second: nothing leaves before the SYN-ACK brings the first rate.
    fn initial_rate(&self) -> f64 {
        1.0
    }

    fn header(&self, ctx: LawCtx) -> CongestionHeader {
        let ipi = if self.rate > 0.0 { (ctx.wire as f64 * 8.0 / self.rate) as f32 } else { 0.0 };
        CongestionHeader::JetMax(JetMaxHeader { rt: self.rt, rs: JETMAX_NO_ROUTER, rate: f32::INFINITY, ipi })
    }

    fn on_feedback(&mut self, fb: &RateFeedback) -> Option<f64> {
        let (now, echo, srtt) = (fb.now, fb.echo, fb.srtt);
        let CongestionHeader::JetMaxFeedback(JetMaxEcho { rs, rate }) = echo else { return None };
        if rs != JETMAX_NO_ROUTER {
            self.rt = rs;
        }
        if self.next_update.is_some_and(|t| now < t) {
            return None;
        }
        self.next_update = Some(now + srtt.unwrap_or(Time::ZERO));
        let g = if rate.is_finite() { rate as f64 } else { self.unlimited.bps_f64() };
        // Eq. 3.
        self.rate -= self.tau * (self.rate - g);
        Some(self.rate.max(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(rs: u16, rate: f32) -> CongestionHeader {
        CongestionHeader::JetMaxFeedback(JetMaxEcho { rs, rate })
    }

    #[test]
    fn eq_3_closes_sixty_percent_of_the_gap_once_per_rtt() {
        let mut h = JetMaxHost::new(0.6, Rate::from_gbps(10));
        let rtt = Some(Time::from_ms(50));
        assert_eq!(h.on_feedback(&RateFeedback::of(Time::ZERO, fb(4, 100e6), rtt)), Some(60e6));
        assert_eq!(h.bottleneck(), 4);
        assert_eq!(
            h.on_feedback(&RateFeedback::of(Time::from_ms(20), fb(5, 100e6), rtt)),
            None,
            "within the RTT: no update"
        );
        assert_eq!(h.bottleneck(), 5, "but the bottleneck follows RS at once");
        let x = h.on_feedback(&RateFeedback::of(Time::from_ms(50), fb(5, 100e6), rtt)).unwrap();
        assert!((x - 84e6).abs() < 1e-6, "{x}");
    }

    #[test]
    fn six_updates_reach_one_percent_of_the_offered_rate_at_any_capacity() {
        for g in [1e6, 1e9, 1e10] {
            let mut h = JetMaxHost::new(0.6, Rate::from_gbps(10));
            let mut x = 0.0;
            for k in 0..6 {
                x = h
                    .on_feedback(&RateFeedback::of(Time::from_ms(100 * k), fb(1, g as f32), Some(Time::from_ms(100))))
                    .unwrap();
            }
            assert!((g - x) / g < 0.01 && (g - x) / g > 0.0, "{x} of {g}: overshoot-free, within 1%");
        }
    }
}
