//! The RCP router law (Dukkipati's thesis, ch. 3 and 6): one fair rate R per control interval,
//! stamped into forward packets on their way out of the port's FIFO ([`crate::qdisc::ExplicitQueue`]).
//!
//! Once per interval T = min(T_max, d) (eq. 3.3):
//!
//! ```text
//!   R <- R (1 + (T/d) (alpha (eta C - y) - beta q / d) / (eta C))
//! ```
//! with y the bits that arrived for the link in the interval divided by T (dropped packets
//! included), q the queue in bits, d the running average RTT, clamped to [floor, eta C]
//! (to C/theta with differential sharing, sec. 3.6). The RTT average follows sec. 3.5: the
//! data path averages the RTT fields of the interval's packets (eq. 3.6, d_T); the control path
//! smooths d <- g d_T + (1 - g) d with g = T/d if d_T >= d, else g = (R/C)(T/d)(d_T/d).
//! Seed 003's router (`RcpVariant::Seed003`, its eq. 5 is eq. 3.3) runs every T_max = 10 ms
//! whatever d, and d is "a moving average of RTTs sampled by link l": the interval's mean RTT
//! smoothed in with gain T/d both ways. The thesis's slow way down (gain times R / C) keeps d
//! high for a long time after a queue has made R small and the RTT fields large, which slows
//! the recovery that follows (seed 003 Fig. 8).
//! The thesis's original averaging (`RcpVariant::FixedGain`, sec. 3.5 and 004:2584-2587:
//! "d = theta rtt_p + (1 - theta) d, where theta is the fixed gain of the moving average") takes
//! in every packet's RTT field with a fixed gain, `FIXED_RTT_GAIN` = 0.02 (the value of the
//! ns-2 code; the thesis gives none). Sec. 5.3 replaces it with eqs. 5.16-5.17 (the default)
//! because, under heterogeneous RTTs, "the RTT estimate itself was unstable".
//!
//! `RcpVariant::UnknownRate` is the thesis's eq. 6.2 (end of ch. 6), for a link whose rate the
//! router does not know or that varies (wireless, input-queued switches): C is replaced where it
//! appears, the spare capacity C - y by minus the queue's growth rate q_dot, the equivalent
//! number of flows C / R by y / R:
//!
//! ```text
//!   R <- R (1 + (T/d) (-alpha q_dot - beta q / d) / y)
//! ```
//! with q_dot := theta while the queue is empty, "a user-defined value which determines the
//! increase in R(t) when there is no queue built up". We take theta as a fraction of y with the
//! sign that raises R: with an empty queue -q_dot = theta y, so R grows by the factor
//! 1 + alpha theta T / d per interval until a queue forms. When the queue drains (q_dot < 0)
//! the output rate y - q_dot exceeds y; the denominator is the larger of the two, which keeps
//! one interval's change bounded when the input stops. R is at least 0.01 MTU / d (App. F's
//! MIN_RATE, which needs no C) and has no ceiling but the header's 4.29 Tbps: a router that
//! does not know its rate cannot cap R at it, so on an idle link R keeps growing by
//! 1 + alpha theta T / d per interval and the next flow to arrive starts fast, until the queue
//! it builds brings R down (the q_dot term reacts within one interval).
//!
//! On departure, a forward RCP packet whose rate field is above R gets R (theta R for flows
//! older than the threshold), so the receiver sees the path's smallest rate.

use crate::error::{SpecError, SpecResult};
use crate::metrics::metric::Metric;
use crate::net::packet::{CongestionHeader, Packet};
use crate::protocol::rcp::header::RcpHeader;
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::units::{Rate, Time};

/// Series metric: the port's fair rate R, bit/s (thesis eq. 3.3).
pub const RATE_BPS: &str = "rcp_rate_bps";
/// Series metric: the port's running average RTT d, s (thesis sec. 3.5).
pub const AVG_RTT_S: &str = "rcp_avg_rtt_s";
/// Series metric: the port's mean RTT field over the control interval so far, s (thesis eq.
/// 5.16's d_T).
pub const INTERVAL_RTT_S: &str = "rcp_interval_rtt_s";
/// The series metrics of an `rcp` port, in the order it emits them.
pub const METRICS: &[&str] = &[RATE_BPS, AVG_RTT_S, INTERVAL_RTT_S];

/// RCP router parameters (thesis values as defaults).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RcpParams {
    /// Gain on spare capacity (thesis: 0.1).
    pub alpha: f64,
    /// Gain on the standing queue (thesis: 1.0).
    pub beta: f64,
    /// Target utilization (thesis: 1, or 0.95 "for headroom").
    pub eta: f64,
    /// Longest control interval (thesis: 10 ms).
    pub max_interval: Time,
    /// Initial rate as a fraction of C (the ns-2 code: 0.05).
    pub initial_fraction: f64,
    /// Initial average RTT (the ns-2 code: 0.2 s).
    pub initial_rtt: Time,
    /// Differential sharing (sec. 3.6): flows older than `threshold` bytes get `theta` R.
    pub differential: Option<(u64, f64)>,
    /// The thesis's router, or seed 003's.
    pub variant: RcpVariant,
}

/// Which description of the RCP router a port follows.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum RcpVariant {
    /// The thesis (ch. 3): interval min(T_max, d); d smoothed fast upwards and, downwards, in
    /// proportion to R / C (sec. 3.5).
    #[default]
    Thesis,
    /// Seed 003 (eq. 5, sec. III-F): a fixed interval T_max (10 ms) and d a moving average of
    /// the RTTs the packets carry, smoothed with gain T / d both ways.
    Seed003,
    /// The thesis's Appendix F specification (the Linux router): the thesis's law, but y
    /// counts RCP packets only, RTT fields of `MAX_ALLOWABLE_RTT_US` or more are ignored, and R
    /// is at least `MIN_RATE` = 0.01 MTU / d (not 1e-5 C).
    AppendixF,
    /// The thesis's original averaging (sec. 3.5's first equation; 004:2584-2587): every
    /// packet's RTT field enters d = g rtt_p + (1 - g) d with the fixed gain
    /// [`FIXED_RTT_GAIN`]; the law is otherwise the thesis's.
    FixedGain,
    /// Eq. 6.2 (end of ch. 6): the thesis's router for a link of unknown or varying rate, which
    /// uses the queue's growth rate instead of C - y and y / R instead of C / R; `theta` is the
    /// spare capacity assumed while the queue is empty, as a fraction of y (see the module
    /// docs; f32 keeps the port's size).
    UnknownRate {
        /// Eq. 6.2's theta, in (0, 10].
        theta: f32,
    },
}

/// The fixed per-packet gain of [`RcpVariant::FixedGain`] (the ns-2 code's RTT_GAIN).
pub const FIXED_RTT_GAIN: f64 = 0.02;

/// App. F's MAX_ALLOWABLE_RTT (20 s), in the header's microseconds: RTT fields at or above it
/// are not averaged.
pub const MAX_ALLOWABLE_RTT_US: u32 = 20_000_000;
/// The MTU, bytes, in App. F's MIN_RATE = 0.01 MTU / avg_rtt.
pub const MTU: f64 = 1500.0;

impl Default for RcpParams {
    fn default() -> Self {
        RcpParams {
            alpha: 0.1,
            beta: 1.0,
            eta: 1.0,
            max_interval: Time::from_ms(10),
            initial_fraction: 0.05,
            initial_rtt: Time::from_ms(200),
            differential: None,
            variant: RcpVariant::Thesis,
        }
    }
}

impl RcpParams {
    /// Refuses parameters the law cannot run with on a port of `capacity`, in this order:
    /// gains and fractions out of range, a differential `theta` outside (0, 1), a capacity
    /// beyond the 32-bit kbit/s rate field of RCP's header, a zero interval or initial RTT.
    /// Field names are those of the scenario's `rcp` queue.
    pub fn validate(&self, capacity: Rate) -> SpecResult<()> {
        for (f, v, lo, hi) in [
            ("alpha", self.alpha, 0.0, 10.0),
            ("beta", self.beta, 0.0, 10.0),
            ("eta", self.eta, 0.0, 1.0),
            ("initial_rate", self.initial_fraction, 0.0, 1.0),
        ] {
            if !(v > lo && v <= hi) {
                return Err(SpecError::new(f, format!("expected {lo} < {f} <= {hi}, got {v}")));
            }
        }
        if let RcpVariant::UnknownRate { theta } = self.variant {
            if !(theta > 0.0 && theta <= 10.0) {
                return Err(SpecError::new("theta", format!("expected 0 < theta <= 10, got {theta}")));
            }
        }
        if let Some((_, theta)) = self.differential {
            if !(theta > 0.0 && theta < 1.0) {
                return Err(SpecError::new("differential.theta", format!("expected 0 < theta < 1, got {theta}")));
            }
        }
        // RCP's header carries the rate in 32 bits of kbit/s (thesis Fig. 6.2).
        if capacity.bps() / 1000 >= u32::MAX as u64 {
            return Err(SpecError::new(
                "kind",
                format!(
                    "an rcp queue on a {capacity} link: expected links of at most 4.29 Tbps, the most RCP's 32-bit \
                     rate field in kbit/s can carry"
                ),
            ));
        }
        if self.max_interval == Time::ZERO || self.initial_rtt == Time::ZERO {
            return Err(SpecError::new("interval", "expected interval and initial_rtt > 0, got 0"));
        }
        Ok(())
    }
}

/// The largest rate RCP's header carries (32 bits of kbit/s), bit/s.
const HEADER_MAX_BPS: f64 = (u32::MAX - 1) as f64 * 1e3;

/// The lowest rate, as a fraction of C.
const FLOOR_FRACTION: f64 = 1e-5;

/// The RCP law of one output port.
#[derive(Debug)]
pub struct RcpLaw {
    p: RcpParams,
    /// The fair rate R, bit/s.
    rate: f64,
    /// The smoothed average RTT d, s.
    avg_rtt: f64,
    arrived_bytes: u64,
    rtt_sum: f64,
    rtt_n: u32,
    /// The queue at the last control step, bytes (eq. 6.2's q(t - T)); u32 keeps the port's
    /// size, and saturates at 4 GiB.
    last_queue: u32,
    last_tick: Time,
    /// (time, R) after every update once `record_history` asked for it (None keeps the law,
    /// and so every port, one word smaller than a separate flag would).
    history: Option<Vec<(Time, f64)>>,
}

impl RcpLaw {
    /// The law for a link of `capacity`.
    pub fn new(capacity: Rate, p: RcpParams) -> RcpLaw {
        let c = capacity.bps_f64();
        RcpLaw {
            p,
            rate: p.initial_fraction * c,
            avg_rtt: p.initial_rtt.as_secs_f64(),
            arrived_bytes: 0,
            rtt_sum: 0.0,
            rtt_n: 0,
            last_queue: 0,
            last_tick: Time::ZERO,
            history: None,
        }
    }

    /// Records R after every control interval (for tests and figures).
    pub fn record_history(&mut self) {
        self.history.get_or_insert_with(Vec::new);
    }

    /// (time, R) after every control interval since `record_history` (empty without it).
    pub fn history(&self) -> &[(Time, f64)] {
        self.history.as_deref().unwrap_or(&[])
    }

    /// The current fair rate R, bit/s.
    pub fn fair_rate(&self) -> f64 {
        self.rate
    }

    /// The current average RTT d, s.
    pub fn avg_rtt(&self) -> f64 {
        self.avg_rtt
    }

    /// The control interval: T = min(T_max, d) (thesis), T_max (seed 003).
    fn interval(&self) -> Time {
        match self.p.variant {
            RcpVariant::Thesis | RcpVariant::AppendixF | RcpVariant::FixedGain | RcpVariant::UnknownRate { .. } => {
                Time::from_secs_f64(self.avg_rtt).min(self.p.max_interval).max(Time::from_us(1))
            }
            RcpVariant::Seed003 => self.p.max_interval,
        }
    }

    /// Eq. 6.2's relative change of R over an interval of `t` s with input rate `y` and queue
    /// `q` (bits): no C anywhere (module docs).
    fn eq_6_2(&self, theta: f64, t: f64, y: f64, q: f64) -> f64 {
        let d = self.avg_rtt;
        if q <= 0.0 {
            // -q_dot := theta y: the y of the numerator and of the denominator cancel.
            return (t / d) * self.p.alpha * theta;
        }
        let q_dot = (q - self.last_queue as f64 * 8.0) / t;
        let flows_rate = y.max(y - q_dot);
        if flows_rate <= 0.0 {
            return 0.0;
        }
        (t / d) * (-self.p.alpha * q_dot - self.p.beta * q / d) / flows_rate
    }

    fn ceiling(&self, capacity: f64) -> f64 {
        match (self.p.variant, self.p.differential) {
            // Eq. 6.2 knows no C (module docs).
            (RcpVariant::UnknownRate { .. }, _) => HEADER_MAX_BPS,
            (_, Some((_, theta))) => capacity / theta,
            (_, None) => self.p.eta * capacity,
        }
    }
}

impl RouterLaw for RcpLaw {
    /// Counts the arrival's bytes and RTT field into the interval, dropped or not.
    #[inline]
    fn on_arrival(&mut self, _ctx: &PortCtx, _now: Time, pkt: &Packet, _queued_bytes_before: u64) {
        let appendix_f = self.p.variant == RcpVariant::AppendixF;
        if let CongestionHeader::Rcp(RcpHeader { rtt_us, .. }) = pkt.cc {
            self.arrived_bytes += pkt.wire as u64;
            let valid = rtt_us > 0 && !(appendix_f && rtt_us >= MAX_ALLOWABLE_RTT_US);
            if valid {
                self.rtt_sum += rtt_us as f64 * 1e-6;
                self.rtt_n = self.rtt_n.saturating_add(1);
                if self.p.variant == RcpVariant::FixedGain {
                    // The original per-packet moving average (sec. 3.5).
                    self.avg_rtt = FIXED_RTT_GAIN * rtt_us as f64 * 1e-6 + (1.0 - FIXED_RTT_GAIN) * self.avg_rtt;
                }
            }
        } else if !appendix_f {
            // The thesis's and seed 003's y is everything offered; App. F's only RCP traffic.
            self.arrived_bytes += pkt.wire as u64;
        }
    }

    /// Lowers a forward RCP packet's rate field to R (theta R for old flows).
    #[inline]
    fn on_departure(&mut self, ctx: &PortCtx, _now: Time, pkt: &mut Packet, _queued_bytes_after: u64) {
        if let CongestionHeader::Rcp(RcpHeader { rate_kbps, age_kib, .. }) = &mut pkt.cc {
            let share = match self.p.differential {
                Some((threshold, theta)) if *age_kib as u64 * 1024 > threshold => theta * self.rate,
                _ => self.rate,
            };
            let cap = match self.p.variant {
                RcpVariant::UnknownRate { .. } => HEADER_MAX_BPS,
                _ => ctx.capacity.bps_f64(),
            };
            let share = (share.min(cap) / 1e3).clamp(1.0, u32::MAX as f64 - 1.0) as u32;
            if *rate_kbps > share {
                *rate_kbps = share;
            }
        }
    }

    fn first_tick(&self) -> Option<Time> {
        Some(self.interval())
    }

    fn tick(&mut self, ctx: &PortCtx, now: Time, queued_bytes: u64) -> Option<Time> {
        let capacity = ctx.capacity.bps_f64();
        let t = (now - self.last_tick).as_secs_f64();
        self.last_tick = now;
        if t > 0.0 {
            let d = self.avg_rtt;
            let eta_c = self.p.eta * capacity;
            let y = self.arrived_bytes as f64 * 8.0 / t;
            let q = queued_bytes as f64 * 8.0;
            let change = match self.p.variant {
                RcpVariant::UnknownRate { theta } => self.eq_6_2(theta as f64, t, y, q),
                // Eq. 3.3.
                _ => (t / d) * (self.p.alpha * (eta_c - y) - self.p.beta * q / d) / eta_c,
            };
            let floor = match self.p.variant {
                // App. F's MIN_RATE = 0.01 MTU / avg_rtt.
                RcpVariant::AppendixF | RcpVariant::UnknownRate { .. } => 0.01 * MTU * 8.0 / d,
                _ => FLOOR_FRACTION * capacity,
            };
            self.rate = (self.rate * (1.0 + change)).clamp(floor, self.ceiling(capacity));
            // Sec. 3.5: smooth the interval's mean RTT into d (eq. 3.6 for the mean).
            if self.rtt_n > 0 && self.p.variant != RcpVariant::FixedGain {
                let dt = self.rtt_sum / self.rtt_n as f64;
                let gain = match self.p.variant {
                    RcpVariant::Thesis | RcpVariant::UnknownRate { .. } if dt < d => {
                        (self.rate / capacity) * (t / d) * (dt / d)
                    }
                    _ => t / d,
                };
                let gain = gain.min(1.0);
                self.avg_rtt = gain * dt + (1.0 - gain) * d;
            }
        }
        self.arrived_bytes = 0;
        self.rtt_sum = 0.0;
        self.rtt_n = 0;
        self.last_queue = queued_bytes.min(u32::MAX as u64) as u32;
        if let Some(h) = &mut self.history {
            h.push((now, self.rate));
        }
        Some(now + self.interval())
    }

    /// R, d and the mean RTT field of the interval so far (eq. 5.16's d_T, over the part of
    /// the control interval that has elapsed; NaN before its first RCP packet).
    fn metric_count(&self) -> usize {
        3
    }

    fn metrics(&self, _ctx: &PortCtx, out: &mut impl FnMut(Metric, f64)) {
        out(Metric::Law(RATE_BPS), self.rate);
        out(Metric::Law(AVG_RTT_S), self.avg_rtt);
        let d_t = if self.rtt_n > 0 { self.rtt_sum / self.rtt_n as f64 } else { f64::NAN };
        out(Metric::Law(INTERVAL_RTT_S), d_t);
    }
}

/// The router-cost benchmark's port (`crate::qdisc::cost`): the law on `ctx` with default
/// parameters, and the header its hosts stamp.
pub fn cost_port(ctx: PortCtx) -> (RcpLaw, CongestionHeader) {
    let cc = CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 50_000, age_kib: 100 });
    (RcpLaw::new(ctx.capacity, RcpParams::default()), cc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::pkt;
    use crate::qdisc::{ExplicitQueue, Limit, QueueDiscipline};

    /// An RCP port on a link of `mbps`.
    fn queue(mbps: u64, limit: Limit, p: RcpParams) -> ExplicitQueue<RcpLaw> {
        let capacity = Rate::from_mbps(mbps);
        ExplicitQueue::new(PortCtx { router: 0, link: 0, capacity }, limit, RcpLaw::new(capacity, p))
    }

    fn rcp_pkt(rate_kbps: u32, rtt_ms: u32) -> Packet {
        let mut p = pkt(1000, 0);
        p.cc = CongestionHeader::Rcp(RcpHeader { rate_kbps, rtt_us: rtt_ms * 1000, age_kib: 0 });
        p
    }

    #[test]
    fn departing_packets_carry_the_smaller_of_their_rate_and_r() {
        let mut q = queue(100, Limit::Packets(10), RcpParams::default());
        let mut d = Vec::new();
        q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 10), &mut d);
        q.enqueue(Time::ZERO, rcp_pkt(1, 10), &mut d);
        let a = q.dequeue(Time::ZERO).unwrap();
        let b = q.dequeue(Time::ZERO).unwrap();
        assert_eq!(a.cc, CongestionHeader::Rcp(RcpHeader { rate_kbps: 5_000, rtt_us: 10_000, age_kib: 0 }));
        assert_eq!(b.cc, CongestionHeader::Rcp(RcpHeader { rate_kbps: 1, rtt_us: 10_000, age_kib: 0 }), "never raised");
    }

    #[test]
    fn spare_capacity_raises_r_and_overload_lowers_it() {
        let p = RcpParams { initial_rtt: Time::from_ms(100), ..RcpParams::default() };
        let mut q = queue(100, Limit::Packets(1_000_000), p);
        let mut now = Time::ZERO;
        let mut d = Vec::new();
        let r0 = q.law().fair_rate();
        now += Time::from_ms(10);
        q.tick(now);
        assert!(q.law().fair_rate() > r0, "an idle link raises R");
        // 200 Mb/s arriving on a 100 Mb/s link: R must fall.
        let r1 = q.law().fair_rate();
        for _ in 0..250 {
            q.enqueue(now, rcp_pkt(u32::MAX, 100), &mut d);
        }
        now += Time::from_ms(10);
        q.tick(now);
        assert!(q.law().fair_rate() < r1);
    }

    #[test]
    fn history_records_r_after_each_interval_only_when_asked() {
        let mut q = queue(100, Limit::Packets(10), RcpParams::default());
        q.tick(Time::from_ms(10));
        assert!(q.law().history().is_empty());
        q.law_mut().record_history();
        q.tick(Time::from_ms(20));
        q.tick(Time::from_ms(30));
        let r = q.law().fair_rate();
        assert_eq!(q.law().history().len(), 2);
        assert_eq!(q.law().history()[1], (Time::from_ms(30), r));
    }

    #[test]
    fn eq_3_3_one_step_by_hand() {
        let p = RcpParams { initial_rtt: Time::from_ms(100), ..RcpParams::default() };
        let mut q = queue(100, Limit::Packets(1_000_000), p);
        let mut d = Vec::new();
        // 50 packets of 1000 B in 10 ms = 40 Mb/s arriving, all still queued (400 kbit).
        for _ in 0..50 {
            q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 100), &mut d);
        }
        q.tick(Time::from_ms(10));
        let (c, r, t, dd) = (100e6, 5e6, 0.01, 0.1);
        let want = r * (1.0 + (t / dd) * (0.1 * (c - 40e6) - 1.0 * 400e3 / dd) / c);
        assert!((q.law().fair_rate() - want).abs() < 1e-6, "{} vs {want}", q.law().fair_rate());
    }

    /// Packets with a 20 ms RTT field for 10 ms, after which `tick` runs; returns the next tick
    /// the new d and R / C, for a port whose d starts at 200 ms and whose R starts at 5% of C.
    fn fall_of_d(variant: RcpVariant) -> (Time, f64, f64) {
        let p = RcpParams { max_interval: Time::from_ms(10), variant, ..RcpParams::default() };
        let mut q = queue(100, Limit::Packets(1_000_000), p);
        let mut d = Vec::new();
        q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 20), &mut d);
        let next = q.tick(Time::from_ms(10)).unwrap();
        (next, q.law().avg_rtt(), q.law().fair_rate() / 100e6)
    }

    #[test]
    fn seed_003s_router_averages_the_rtt_the_same_way_down_as_up() {
        // Thesis: gain (R/C)(T/d)(d_T/d) = (R/C) x 0.05 x 0.1 on the way down, R as just updated.
        let (_, thesis, r) = fall_of_d(RcpVariant::Thesis);
        let g = r * 0.05 * 0.1;
        assert!((thesis - (g * 0.02 + (1.0 - g) * 0.2)).abs() < 1e-9, "{thesis}");
        // Seed 003: gain T/d = 0.05 whatever R.
        let (next, seed, _) = fall_of_d(RcpVariant::Seed003);
        assert!((seed - (0.05 * 0.02 + 0.95 * 0.2)).abs() < 1e-9, "{seed}");
        assert_eq!(next, Time::from_ms(20), "a fixed 10 ms interval");
    }

    #[test]
    fn the_fixed_gain_variant_averages_every_packet_with_gain_0_02() {
        let p = RcpParams { variant: RcpVariant::FixedGain, ..RcpParams::default() };
        let mut q = queue(100, Limit::Packets(1_000_000), p);
        let mut d = Vec::new();
        q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 20), &mut d);
        q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 20), &mut d);
        // Per packet, before any tick: 0.2 -> 0.02 x 0.02 + 0.98 x 0.2, twice.
        let once = 0.02 * 0.02 + 0.98 * 0.2;
        let want = 0.02 * 0.02 + 0.98 * once;
        assert!((q.law().avg_rtt() - want).abs() < 1e-12, "{}", q.law().avg_rtt());
        // The tick leaves d alone (no eq. 5.17 on top), however small R is.
        q.tick(Time::from_ms(10));
        assert!((q.law().avg_rtt() - want).abs() < 1e-12, "{}", q.law().avg_rtt());
        // The thesis's averaging would have moved d only by (R/C)(T/d)(d_T/d) of the gap.
        let (_, thesis, _) = fall_of_d(RcpVariant::Thesis);
        assert!(thesis > want + 0.001, "{thesis} vs {want}");
    }

    #[test]
    fn the_interval_rtt_row_is_the_mean_rtt_field_since_the_last_tick() {
        let mut q = queue(100, Limit::Packets(1_000_000), RcpParams::default());
        let mut d = Vec::new();
        let rows = |q: &ExplicitQueue<RcpLaw>| {
            let mut v = Vec::new();
            q.law()
                .metrics(&PortCtx { router: 0, link: 0, capacity: Rate::from_mbps(100) }, &mut |m, x| v.push((m, x)));
            v
        };
        assert!(rows(&q)[2].1.is_nan(), "no packet yet");
        q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 10), &mut d);
        q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 30), &mut d);
        let r = rows(&q);
        assert_eq!(r.len(), q.law().metric_count());
        assert_eq!(r[2].0, Metric::Law(INTERVAL_RTT_S));
        assert!((r[2].1 - 0.02).abs() < 1e-12);
    }

    #[test]
    fn the_thesis_interval_follows_d_below_its_maximum_and_seed_003s_does_not() {
        for (variant, want) in [(RcpVariant::Thesis, Time::from_ms(5)), (RcpVariant::Seed003, Time::from_ms(10))] {
            let p = RcpParams { initial_rtt: Time::from_ms(5), variant, ..RcpParams::default() };
            let q = queue(100, Limit::Packets(10), p);
            assert_eq!(q.first_tick(), Some(want), "{variant:?}");
        }
    }

    #[test]
    fn appendix_f_counts_rcp_traffic_only_and_drops_absurd_rtts() {
        let p = RcpParams { initial_rtt: Time::from_ms(100), variant: RcpVariant::AppendixF, ..RcpParams::default() };
        let mut q = queue(100, Limit::Packets(1_000_000), p);
        let mut d = Vec::new();
        // 50 RCP packets (40 Mb/s over 10 ms), 50 plain TCP ones, and one RCP packet claiming
        // a 30 s RTT: y = 40 Mb/s (+ the one packet), the mean RTT stays 100 ms.
        for _ in 0..50 {
            q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 100), &mut d);
            q.enqueue(Time::ZERO, pkt(1000, 0), &mut d);
        }
        q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 30_000), &mut d);
        let queued = q.bytes() as f64 * 8.0;
        q.tick(Time::from_ms(10));
        let (c, r, t, dd) = (100e6, 5e6, 0.01, 0.1);
        let y = 51.0 * 8000.0 / t;
        let want = r * (1.0 + (t / dd) * (0.1 * (c - y) - 1.0 * queued / dd) / c);
        assert!((q.law().fair_rate() - want.max(0.01 * 1500.0 * 8.0 / dd)).abs() < 1e-6, "{}", q.law().fair_rate());
        assert!((q.law().avg_rtt() - 0.1).abs() < 1e-12, "the 30 s field is not averaged");
    }

    #[test]
    fn appendix_f_floors_r_at_a_hundredth_of_an_mtu_per_rtt() {
        let p = RcpParams { initial_rtt: Time::from_ms(100), variant: RcpVariant::AppendixF, ..RcpParams::default() };
        let mut q = queue(100, Limit::Packets(1_000_000), p);
        let mut d = Vec::new();
        // A huge standing queue drives eq. 3.3's factor negative.
        for _ in 0..100_000 {
            q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 100), &mut d);
        }
        q.tick(Time::from_ms(10));
        assert!((q.law().fair_rate() - 0.01 * 1500.0 * 8.0 / 0.1).abs() < 1e-9, "{}", q.law().fair_rate());
    }

    #[test]
    fn differential_sharing_gives_old_flows_theta_r() {
        let p = RcpParams { differential: Some((10_000, 0.5)), initial_fraction: 0.2, ..RcpParams::default() };
        let mut q = queue(100, Limit::Packets(10), p);
        let mut d = Vec::new();
        let mut young = rcp_pkt(u32::MAX, 10);
        let mut old = rcp_pkt(u32::MAX, 10);
        if let CongestionHeader::Rcp(RcpHeader { age_kib, .. }) = &mut old.cc {
            *age_kib = 50;
        }
        young.seq = 1;
        q.enqueue(Time::ZERO, young, &mut d);
        q.enqueue(Time::ZERO, old, &mut d);
        let rate = |p: Packet| match p.cc {
            CongestionHeader::Rcp(RcpHeader { rate_kbps, .. }) => rate_kbps,
            _ => 0,
        };
        assert_eq!(rate(q.dequeue(Time::ZERO).unwrap()), 20_000);
        assert_eq!(rate(q.dequeue(Time::ZERO).unwrap()), 10_000);
    }

    /// Eq. 6.2 with an empty queue: R grows by 1 + alpha theta T / d per interval whatever the
    /// input (theta = 1 matches eq. 3.3 on an idle link); a queue that grows by as much as
    /// arrives lowers R; and nothing caps R at the port's capacity.
    #[test]
    fn eq_6_2_grows_r_on_an_empty_queue_and_cuts_it_as_the_queue_grows() {
        let unknown = |theta: f32| RcpParams {
            alpha: 0.5,
            initial_rtt: Time::from_ms(10),
            initial_fraction: 1.0,
            variant: RcpVariant::UnknownRate { theta },
            ..RcpParams::default()
        };
        let mut q = queue(100, Limit::Packets(1_000_000), unknown(0.5));
        let mut now = Time::ZERO;
        let r0 = q.law().fair_rate();
        now += Time::from_ms(10);
        q.tick(now);
        let r1 = q.law().fair_rate();
        assert!((r1 / r0 - (1.0 + 0.5 * 0.5)).abs() < 1e-12, "{r1} / {r0}");
        assert!(r1 > 100e6, "no ceiling at C: {r1}");
        // 125 packets of 1000 B (100 Mb/s over 10 ms), none leaving: q_dot = y, so
        // R (1 + (T/d)(-alpha y - beta q / d) / y) = R (1 - 0.5 - 1) is floored.
        let mut d = Vec::new();
        for _ in 0..125 {
            q.enqueue(now, rcp_pkt(u32::MAX, 10), &mut d);
        }
        now += Time::from_ms(10);
        q.tick(now);
        let floor = 0.01 * 1500.0 * 8.0 / 0.01;
        assert!((q.law().fair_rate() - floor).abs() < 1e-6, "{}", q.law().fair_rate());
        assert!(unknown(0.0).validate(Rate::from_mbps(100)).is_err(), "theta must be > 0");
        assert!(unknown(11.0).validate(Rate::from_mbps(100)).is_err(), "theta must be <= 10");
    }

    /// A queue that holds steady (q_dot = 0) lowers R by beta q / d over the input y only.
    #[test]
    fn eq_6_2_standing_queue_term() {
        let p = RcpParams {
            beta: 0.5,
            initial_rtt: Time::from_ms(10),
            initial_fraction: 0.5,
            variant: RcpVariant::UnknownRate { theta: 1.0 },
            ..RcpParams::default()
        };
        let mut q = queue(100, Limit::Packets(1_000_000), p);
        let mut d = Vec::new();
        // 50 packets queued at the first tick, then 50 more arriving while 50 leave.
        for _ in 0..50 {
            q.enqueue(Time::ZERO, rcp_pkt(u32::MAX, 10), &mut d);
        }
        q.tick(Time::from_ms(10));
        let r1 = q.law().fair_rate();
        for _ in 0..50 {
            q.enqueue(Time::from_ms(15), rcp_pkt(u32::MAX, 10), &mut d);
            q.dequeue(Time::from_ms(15)).unwrap();
        }
        q.tick(Time::from_ms(20));
        // y = 50 x 8000 bits / 10 ms = 40 Mb/s, q = 400 kbit, d = 10 ms.
        let want = r1 * (1.0 - 0.5 * 400e3 / 0.01 / 40e6);
        assert!((q.law().fair_rate() - want).abs() < 1e-6 * want, "{} vs {want}", q.law().fair_rate());
    }
}
