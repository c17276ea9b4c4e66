//! The PIQI-RCP router (Jain and Loguinov, IWQoS 2007; seed 003 sec. II eq. 6 and sec. III-E):
//! a proportional-integral controller of the port's input rate against a virtual capacity,
//! with no queue term ("queue independent"). Every control interval T (10 ms):
//!
//! ```text
//!   e_l(t) = 1 - y_l(t) / (gamma_l C_l)
//!   R_l(t) = R_l(t - T) [1 + kappa1 e_l(t) + kappa2 e_l(t - T)]        (eq. 6)
//! ```
//! with y_l the bits offered to the port in the interval (dropped packets included) divided by
//! T, and gamma = 0.95. Each interval has a number (the Interval Number field); a forward packet
//! leaving the port gets R_l, the interval number and the router's id when R_l is below the rate
//! it carries, so the receiver sees the path's smallest rate, from which interval of which
//! router. The end host runs its law once per new interval number (`protocol/piqi/host.rs`).
//!
//! Assumptions, where seed 003 is silent:
//! - kappa1 and kappa2. Seed 003 gives "alpha = 0.5" and "alpha1 = alpha2 = alpha" but not how
//!   the alphas make the kappas. Eq. 6 is the velocity form of a PI controller: with
//!   proportional gain K_p and integral gain K_i per interval, kappa1 = K_p + K_i and
//!   kappa2 = -K_p. Read alpha1 = alpha2 as K_p = K_i and alpha as kappa1, the gain on the
//!   current error: kappa1 = 0.5, kappa2 = -0.25 (the defaults). The other reading,
//!   K_p = K_i = alpha (kappa1 = 1, kappa2 = -0.5), was run on seed 003's Fig. 5 (1 Gb/s, a
//!   220 ms flow, then a 30 ms one): R swings between 140 and 1000 Mb/s and the queue between 0
//!   and 1,400 packets for as long as both flows last, a limit cycle; with the defaults both
//!   flows hold 475 +- 3 Mb/s over an empty queue. Integral gains of 0.3 and above oscillate
//!   there, 0.2 and below settle several times slower after a join (seed 003 Fig. 8's setup:
//!   4.1 s at K_i = 0.1, 1.8 s at 0.25).
//! - R starts at gamma C (an idle port's share) and stays within [1e-4 C, C]: eq. 6 is
//!   multiplicative, so R must stay positive when an overload makes the bracket negative, and
//!   on a port that is nobody's bottleneck e stays positive and R would grow without bound.
//! - The interval number wraps at 2^32 (4.3e7 s of 10 ms intervals).

use crate::error::{SpecError, SpecResult};
use crate::metrics::metric::Metric;
use crate::net::packet::{CongestionHeader, Packet};
use crate::protocol::piqi::header::PiqiHeader;
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::units::{Rate, Time};

/// Series metric: the port's rate R_l, bit/s (seed 003 eq. 6).
pub const RATE_BPS: &str = "piqi_rate_bps";
/// The series metrics of a `piqi` port.
pub const METRICS: &[&str] = &[RATE_BPS];

/// PIQI-RCP router parameters (seed 003's values as defaults where it gives them); a `piqi`
/// queue's keys over these defaults. The queue (seed 003 eq. 6) is a drop-tail FIFO whose PI
/// controller stamps one rate and its interval number (`kind.rs`).
#[derive(Copy, Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PiqiParams {
    /// Virtual capacity gamma_l as a fraction of C (seed 003: 0.95).
    pub gamma: f64,
    /// Control interval T (seed 003: 10 ms).
    #[serde(deserialize_with = "crate::quantity::time")]
    pub interval: Time,
    /// Gain on the current error e_l(t) (K_p + K_i).
    pub kappa1: f64,
    /// Gain on the previous error e_l(t - T) (-K_p).
    pub kappa2: f64,
}

impl Default for PiqiParams {
    fn default() -> Self {
        PiqiParams { gamma: 0.95, interval: Time::from_ms(10), kappa1: 0.5, kappa2: -0.25 }
    }
}

impl PiqiParams {
    /// Checks the ranges: 0 < gamma <= 1, interval > 0, kappa1 + kappa2 > 0 (an integral
    /// action that raises R while the port is under its virtual capacity), |kappa| <= 10.
    pub fn validate(&self) -> SpecResult<()> {
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(SpecError::new("gamma", format!("expected 0 < gamma <= 1, got {}", self.gamma)));
        }
        if self.interval == Time::ZERO {
            return Err(SpecError::new("interval", "expected an interval > 0, got 0"));
        }
        for (f, v) in [("kappa1", self.kappa1), ("kappa2", self.kappa2)] {
            if v.is_nan() || v.abs() > 10.0 {
                return Err(SpecError::new(f, format!("expected -10 <= {f} <= 10, got {v}")));
            }
        }
        let integral = self.kappa1 + self.kappa2;
        if integral.is_nan() || integral <= 0.0 {
            return Err(SpecError::new(
                "kappa2",
                format!("expected kappa1 + kappa2 > 0 (the integral gain), got {} + {}", self.kappa1, self.kappa2),
            ));
        }
        Ok(())
    }
}

/// The lowest R, as a fraction of C.
const FLOOR_FRACTION: f64 = 1e-4;

/// The PIQI-RCP law of one port.
#[derive(Debug)]
pub struct PiqiLaw {
    p: PiqiParams,
    /// R_l, bit/s.
    rate: f64,
    /// e_l(t - T).
    prev_error: f64,
    /// The Interval Number of R_l.
    number: u32,
    /// Wire bytes offered to the port since the last tick.
    arrived: u64,
    last_tick: Time,
}

impl PiqiLaw {
    /// A law with `p` on a port of `capacity`: R = gamma C until the first interval ends.
    pub fn new(capacity: Rate, p: PiqiParams) -> PiqiLaw {
        PiqiLaw { p, rate: p.gamma * capacity.bps_f64(), prev_error: 0.0, number: 0, arrived: 0, last_tick: Time::ZERO }
    }

    /// R_l, bit/s.
    pub fn fair_rate(&self) -> f64 {
        self.rate
    }

    /// The number of the interval R_l was computed in (0 before the first tick).
    pub fn interval_number(&self) -> u32 {
        self.number
    }
}

impl RouterLaw for PiqiLaw {
    #[inline]
    fn on_arrival(&mut self, _ctx: &PortCtx, _now: Time, pkt: &Packet, _queued_bytes_before: u64) {
        self.arrived += pkt.wire as u64;
    }

    #[inline]
    fn on_departure(&mut self, ctx: &PortCtx, _now: Time, pkt: &mut Packet, _queued_bytes_after: u64) {
        if let CongestionHeader::Piqi(PiqiHeader { rate, interval, id }) = &mut pkt.cc {
            if self.rate < *rate as f64 {
                *rate = self.rate as f32;
                *interval = self.number;
                *id = ctx.router;
            }
        }
    }

    fn first_tick(&self) -> Option<Time> {
        Some(self.p.interval)
    }

    /// Eq. 6 over the interval that ends at `now`.
    fn tick(&mut self, ctx: &PortCtx, now: Time, _queued_bytes: u64) -> Option<Time> {
        let t = (now - self.last_tick).as_secs_f64();
        self.last_tick = now;
        if t > 0.0 {
            let c = ctx.capacity.bps_f64();
            let y = self.arrived as f64 * 8.0 / t;
            let e = 1.0 - y / (self.p.gamma * c);
            let r = self.rate * (1.0 + self.p.kappa1 * e + self.p.kappa2 * self.prev_error);
            self.rate = r.clamp(FLOOR_FRACTION * c, c);
            self.prev_error = e;
            self.number = self.number.wrapping_add(1);
        }
        self.arrived = 0;
        Some(now + self.p.interval)
    }

    fn metric_count(&self) -> usize {
        1
    }

    fn metrics(&self, _ctx: &PortCtx, out: &mut impl FnMut(Metric, f64)) {
        out(Metric::Law(RATE_BPS), self.rate);
    }
}

/// The router-cost benchmark's port (`crate::qdisc::cost`): the law on `ctx` with default
/// parameters, and the header its hosts stamp.
pub fn cost_port(ctx: PortCtx) -> (PiqiLaw, CongestionHeader) {
    let cc = CongestionHeader::Piqi(PiqiHeader { rate: f32::INFINITY, interval: 0, id: 0 });
    (PiqiLaw::new(ctx.capacity, PiqiParams::default()), cc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::pkt;

    const CTX: PortCtx = PortCtx { router: 7, link: 0, capacity: Rate::from_mbps(100) };

    fn law(kappa1: f64, kappa2: f64) -> PiqiLaw {
        PiqiLaw::new(CTX.capacity, PiqiParams { kappa1, kappa2, ..PiqiParams::default() })
    }

    /// Offers `mbps` (as one packet) during the 10 ms interval `k` and ticks at its end.
    fn interval(l: &mut PiqiLaw, k: u64, mbps: f64) {
        if mbps > 0.0 {
            l.on_arrival(&CTX, Time::ZERO, &pkt((mbps * 1e6 * 0.01 / 8.0) as u32, 0), 0);
        }
        l.tick(&CTX, Time::from_ms(10 * k), 0);
    }

    #[test]
    fn eq_6_moves_r_by_kappa1_of_this_error_and_kappa2_of_the_last() {
        let mut l = law(0.5, -0.45);
        // y = gamma C: e = 0, R stays at gamma C.
        interval(&mut l, 1, 95.0);
        assert!((l.fair_rate() - 95e6).abs() < 1.0, "{}", l.fair_rate());
        // y = 1.5 gamma C: e = -0.5.
        interval(&mut l, 2, 142.5);
        let r2 = 95e6 * (1.0 - 0.5 * 0.5);
        assert!((l.fair_rate() - r2).abs() < 1.0, "{}", l.fair_rate());
        // e = 0 again: the previous -0.5 counts with kappa2.
        interval(&mut l, 3, 95.0);
        let r3 = r2 * (1.0 + 0.45 * 0.5);
        assert!((l.fair_rate() - r3).abs() < 1.0, "{}", l.fair_rate());
        assert_eq!(l.interval_number(), 3);
    }

    #[test]
    fn r_stays_between_the_floor_and_the_capacity() {
        let mut l = law(0.5, -0.45);
        interval(&mut l, 1, 0.0);
        assert_eq!(l.fair_rate(), 100e6, "an idle port offers at most C");
        interval(&mut l, 2, 1000.0);
        interval(&mut l, 3, 1000.0);
        assert!(l.fair_rate() >= 1e4 && l.fair_rate() < 1e6, "{}", l.fair_rate());
    }

    #[test]
    fn a_lower_rate_upstream_stands_and_a_higher_one_is_replaced_with_our_interval() {
        let mut l = law(0.5, -0.45);
        interval(&mut l, 1, 95.0);
        let stamp = |l: &mut PiqiLaw, rate: f32| {
            let mut p = pkt(1000, 0);
            p.cc = CongestionHeader::Piqi(PiqiHeader { rate, interval: 99, id: 3 });
            l.on_departure(&CTX, Time::ZERO, &mut p, 0);
            p.cc
        };
        assert_eq!(stamp(&mut l, 1e6), CongestionHeader::Piqi(PiqiHeader { rate: 1e6, interval: 99, id: 3 }));
        assert_eq!(stamp(&mut l, f32::INFINITY), CongestionHeader::Piqi(PiqiHeader { rate: 95e6, interval: 1, id: 7 }));
    }

    #[test]
    fn gains_without_integral_action_are_refused() {
        let p = PiqiParams { kappa1: 0.5, kappa2: -0.5, ..PiqiParams::default() };
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("kappa2") && e.contains("integral"), "{e}");
        assert!(PiqiParams { gamma: 1.2, ..PiqiParams::default() }.validate().is_err());
        assert!(PiqiParams::default().validate().is_ok());
    }
}
