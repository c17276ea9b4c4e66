//! TIMELY's rate law, Algorithm 1 of the paper (Mittal et al. 2015, sec. 4.3):
//!
//! ```text
//!   new_rtt_diff = new_rtt - prev_rtt;  prev_rtt = new_rtt
//!   rtt_diff = (1 - alpha) rtt_diff + alpha new_rtt_diff                  (EWMA)
//!   normalized_gradient = rtt_diff / minRTT
//!   if new_rtt < Tlow:      rate = rate + delta                           (additive)
//!   elif new_rtt > Thigh:   rate = rate (1 - beta (1 - Thigh / new_rtt))  (multiplicative)
//!   elif gradient <= 0:     rate = rate + N delta                         (N = 5 in HAI, else 1)
//!   else:                   rate = rate (1 - beta normalized_gradient)
//! ```
//!
//! HAI: N = 5 once the gradient has been <= 0 for five completion events in a row (this one
//! included); a gradient above 0 resets the count, and so does any decrease. The Tlow branch
//! adds delta whatever the count. With `hai_after = "increases"` (HPCC's simulator,
//! `UpdateRateTimely`'s `m_incStage`) the count is of increases in a row, whichever branch
//! made them, and every increase after five of them adds N delta, the Tlow branch's too; a
//! decrease resets it.
//!
//! A completion event is the paper's rate update point (one per segment of 16-64 KB); here,
//! as in HPCC's simulator (`rdma-hw.cc`, `UpdateRateTimely`), it is one per round trip: the
//! first ACK at least one RTT (the last update's sample) after the previous update, its own
//! RTT sample the new_rtt. HPCC's simulator counts the round by sequence (the ACK past every
//! byte sent at the last update), which on a lossless fabric is the same instant; by time, a
//! loss recovery, whose ACKs do not advance, does not freeze the rate. The first such ACK only
//! sets prev_rtt. The rate stays between the minimum rate and
//! the line rate, and never becomes negative (a gradient above 1 / beta would cut it to 0:
//! the minimum rate then).

use crate::net::packet::CongestionHeader;
use crate::protocol::RateLawConfig;
use crate::transport::paced::law::{LawCtx, RateControl, RateFeedback};
use crate::units::{Rate, Time};

/// TIMELY's settings (the paper's names; defaults in `params.rs`, each with its source).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TimelyConfig {
    /// The line rate: where a flow starts, the ceiling.
    pub line_rate: Rate,
    /// The floor of the rate.
    pub min_rate: Rate,
    /// alpha, the EWMA weight of the newest RTT difference.
    pub alpha: f64,
    /// beta, the multiplicative decrease factor.
    pub beta: f64,
    /// delta, the additive step.
    pub delta: Rate,
    /// Tlow: below it the rate always climbs.
    pub t_low: Time,
    /// Thigh: above it the rate always falls.
    pub t_high: Time,
    /// minRTT, the gradient's normalizer.
    pub min_rtt: Time,
    /// N: HAI's step in deltas, and the completions of gradient <= 0 that start it.
    pub hai: u32,
    /// What HAI counts.
    pub hai_after: HaiAfter,
}

/// What starts HAI.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HaiAfter {
    /// N completions in a row with gradient <= 0, this one included (the paper).
    Gradient,
    /// N increases in a row before this one, any branch (HPCC's simulator).
    Increases,
}

impl RateLawConfig for TimelyConfig {
    type Law = Timely;

    fn build(self) -> Timely {
        Timely::new(self, self.line_rate.bps_f64())
    }

    /// `timely`.
    fn label(&self) -> String {
        "timely".to_string()
    }
}

/// Which branch of Algorithm 1 an update took.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Branch {
    /// new_rtt < Tlow.
    BelowTlow,
    /// new_rtt > Thigh.
    AboveThigh,
    /// Gradient <= 0, N = 1.
    Negative,
    /// Gradient <= 0 in HAI, N = 5.
    Hai,
    /// Gradient > 0.
    Positive,
}

/// TIMELY's state for one flow.
#[derive(Clone, Debug)]
pub struct Timely {
    cfg: TimelyConfig,
    /// bit/s.
    rate: f64,
    prev_rtt: Option<Time>,
    /// The EWMA of RTT differences, seconds.
    rtt_diff: f64,
    /// Completions in a row with gradient <= 0 (the paper), or increases in a row (HPCC's
    /// simulator).
    negative: u32,
    /// The next update waits for an ACK at or after this time.
    next_update: Time,
}

impl Timely {
    /// A law starting at `rate` bit/s.
    pub fn new(cfg: TimelyConfig, rate: f64) -> Timely {
        Timely { cfg, rate, prev_rtt: None, rtt_diff: 0.0, negative: 0, next_update: Time::ZERO }
    }

    /// The rate, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The EWMA of RTT differences, seconds.
    pub fn rtt_diff(&self) -> f64 {
        self.rtt_diff
    }

    /// Algorithm 1 on the sample `new_rtt`; None for the first sample (no difference yet).
    pub fn update(&mut self, new_rtt: Time) -> Option<Branch> {
        let c = self.cfg;
        let prev = self.prev_rtt.replace(new_rtt)?;
        let new_rtt_diff = new_rtt.as_secs_f64() - prev.as_secs_f64();
        self.rtt_diff = (1.0 - c.alpha) * self.rtt_diff + c.alpha * new_rtt_diff;
        let gradient = self.rtt_diff / c.min_rtt.as_secs_f64();
        // The decrease branches' factor; None: an increase.
        let factor = if new_rtt < c.t_low {
            None
        } else if new_rtt > c.t_high {
            Some(1.0 - c.beta * (1.0 - c.t_high.as_secs_f64() / new_rtt.as_secs_f64()))
        } else if gradient <= 0.0 {
            None
        } else {
            Some((1.0 - c.beta * gradient).max(0.0))
        };
        let branch = match factor {
            Some(f) => {
                self.rate *= f;
                self.negative = 0;
                if new_rtt > c.t_high {
                    Branch::AboveThigh
                } else {
                    Branch::Positive
                }
            }
            None => {
                let hai = match c.hai_after {
                    // The paper: gradients <= 0 in a row, this one included; never below Tlow.
                    HaiAfter::Gradient => {
                        self.negative = if gradient <= 0.0 { self.negative + 1 } else { 0 };
                        new_rtt >= c.t_low && self.negative >= c.hai
                    }
                    // HPCC's simulator: increases in a row before this one, any branch.
                    HaiAfter::Increases => {
                        let hai = self.negative >= c.hai;
                        self.negative += 1;
                        hai
                    }
                };
                self.rate += if hai { c.hai as f64 } else { 1.0 } * c.delta.bps_f64();
                match (new_rtt < c.t_low, hai) {
                    (true, _) => Branch::BelowTlow,
                    (false, true) => Branch::Hai,
                    (false, false) => Branch::Negative,
                }
            }
        };
        self.rate = self.rate.clamp(c.min_rate.bps_f64(), c.line_rate.bps_f64());
        Some(branch)
    }
}

impl RateControl for Timely {
    fn initial_rate(&self) -> f64 {
        self.rate
    }

    fn header(&self, _ctx: LawCtx) -> CongestionHeader {
        CongestionHeader::None
    }

    fn on_feedback(&mut self, fb: &RateFeedback) -> Option<f64> {
        let rtt = fb.rtt?;
        if fb.now < self.next_update {
            return None;
        }
        self.next_update = fb.now + rtt;
        self.update(rtt).map(|_| self.rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's Table 1: alpha 0.875, beta 0.8, delta 10 Mb/s, Tlow 50 us, Thigh 500 us,
    /// minRTT 20 us, N = 5; a 10 Gb/s line, 100 Mb/s floor.
    fn cfg() -> TimelyConfig {
        TimelyConfig {
            line_rate: Rate::from_gbps(10),
            min_rate: Rate::from_mbps(100),
            alpha: 0.875,
            beta: 0.8,
            delta: Rate::from_mbps(10),
            t_low: Time::from_us(50),
            t_high: Time::from_us(500),
            min_rtt: Time::from_us(20),
            hai: 5,
            hai_after: HaiAfter::Gradient,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    /// A hand-made RTT sequence through every branch of Algorithm 1, the expected rate computed
    /// here from the algorithm's lines.
    #[test]
    fn algorithm_1_on_a_hand_made_rtt_sequence() {
        let (alpha, beta, delta, min_rtt, t_high) = (0.875, 0.8, 10e6, 20e-6, 500e-6);
        let mut x = Timely::new(cfg(), 5e9);
        let mut rate = 5e9;
        let mut diff = 0.0;
        let mut prev = 60e-6;
        assert_eq!(x.update(Time::from_us(60)), None, "the first sample only sets prev_rtt");
        let mut step = |x: &mut Timely, rtt_us: u64, want: Branch, rate: &mut f64, diff: &mut f64| {
            let new = rtt_us as f64 * 1e-6;
            *diff = (1.0 - alpha) * *diff + alpha * (new - prev);
            prev = new;
            let g = *diff / min_rtt;
            *rate = match want {
                Branch::BelowTlow | Branch::Negative => *rate + delta,
                Branch::Hai => *rate + 5.0 * delta,
                Branch::AboveThigh => *rate * (1.0 - beta * (1.0 - t_high / new)),
                Branch::Positive => *rate * (1.0 - beta * g),
            };
            assert_eq!(x.update(Time::from_us(rtt_us)), Some(want), "rtt {rtt_us} us");
            assert!(close(x.rate(), *rate), "rtt {rtt_us} us: {} != {rate}", x.rate());
            assert!(close(x.rtt_diff(), *diff));
        };
        // 40 us < Tlow: + delta.
        step(&mut x, 40, Branch::BelowTlow, &mut rate, &mut diff);
        // 600 us > Thigh: x (1 - beta (1 - 500/600)).
        step(&mut x, 600, Branch::AboveThigh, &mut rate, &mut diff);
        // Back to 100 us: a negative gradient, + delta; four more at 100 us keep rtt_diff
        // negative (it decays by 1 - alpha), the fifth in a row enters HAI: + 5 delta.
        step(&mut x, 100, Branch::Negative, &mut rate, &mut diff);
        for _ in 0..3 {
            step(&mut x, 100, Branch::Negative, &mut rate, &mut diff);
        }
        step(&mut x, 100, Branch::Hai, &mut rate, &mut diff);
        step(&mut x, 100, Branch::Hai, &mut rate, &mut diff);
        // 104 us: rtt_diff turns positive, x (1 - beta gradient); HAI's count restarts.
        step(&mut x, 104, Branch::Positive, &mut rate, &mut diff);
        step(&mut x, 100, Branch::Negative, &mut rate, &mut diff);
    }

    #[test]
    fn one_update_per_round_trip_and_the_rate_stays_within_its_bounds() {
        let mut x = Timely::new(cfg(), 10e9);
        let fb = |now_us, rtt_us| RateFeedback {
            rtt: Some(Time::from_us(rtt_us)),
            ..RateFeedback::of(Time::from_us(now_us), CongestionHeader::None, None)
        };
        assert_eq!(x.on_feedback(&fb(100, 100)), None, "first sample: the next update at 200 us");
        assert_eq!(x.on_feedback(&fb(199, 300)), None, "within the round trip");
        assert_eq!(x.on_feedback(&fb(200, 20)), Some(10e9), "below Tlow, at line rate");
        assert_eq!(x.on_feedback(&fb(210, 20)), None, "the next update at 220 us");
        // A steep rise: the gradient above 1 / beta would cut below 0; the floor holds.
        assert_eq!(x.on_feedback(&fb(220, 400)), Some(100e6));
    }

    /// HPCC's simulator's HAI: RTTs below Tlow (a fabric's usual case) add delta five times,
    /// then N delta each; the paper's law adds delta every time there; a decrease resets the
    /// count.
    #[test]
    fn hai_after_five_increases_of_any_branch_in_the_simulators_law() {
        let sim = TimelyConfig { hai_after: HaiAfter::Increases, ..cfg() };
        let (mut x, mut paper) = (Timely::new(sim, 1e9), Timely::new(cfg(), 1e9));
        x.update(Time::from_us(20));
        paper.update(Time::from_us(20));
        let mut steps = Vec::new();
        for _ in 0..8 {
            let before = x.rate();
            assert_eq!(x.update(Time::from_us(20)), Some(Branch::BelowTlow));
            paper.update(Time::from_us(20));
            steps.push(((x.rate() - before) / 1e6).round());
        }
        assert_eq!(steps, vec![10.0, 10.0, 10.0, 10.0, 10.0, 50.0, 50.0, 50.0]);
        assert!(close(paper.rate(), 1e9 + 8.0 * 10e6), "the paper: delta below Tlow");
        // A decrease (RTT above Thigh) resets the count: delta again.
        assert_eq!(x.update(Time::from_us(600)), Some(Branch::AboveThigh));
        let before = x.rate();
        x.update(Time::from_us(20));
        assert!(close(x.rate() - before, 10e6));
    }
}
