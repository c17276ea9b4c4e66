//! DCQCN's RP (Zhu et al. 2015, sec. 3.1, "RP algorithm"), the sender's rate law. RC is the
//! current rate, RT the target rate, alpha the estimate of congestion.
//!
//! ```text
//!   on a CNP:        RT = RC,  RC = RC (1 - alpha/2),  alpha = (1 - g) alpha + g   (eqs. 1, 2)
//!   every K without a CNP:                            alpha = (1 - g) alpha       (eq. 3)
//!   fast recovery:   RC = (RT + RC) / 2                                           (eq. 4)
//!   additive:        RT = RT + R_AI,      RC = (RT + RC) / 2                      (eq. 5)
//!   hyper-additive:  RT = RT + i R_HAI,   RC = (RT + RC) / 2                      (eq. 6)
//! ```
//!
//! A rate increase event is an expiry of the timer (every T) or of the byte counter (every B
//! bytes sent); each counts its own expiries since the last CNP, which resets both. With the
//! counts after the expiry, t of the timer and b of the byte counter: fast recovery while
//! max(t, b) <= F (the first F expiries of either), hyper-additive once min(t, b) > F, with
//! i = min(t, b) - F, and additive in between. Without a byte counter (HPCC's simulator's NIC,
//! `rdma-hw.cc` `RateIncEventMlx`) the timer alone counts: F fast recovery stages, one additive
//! step, then hyper-additive with i = t - F - 1. RT and RC never exceed the line rate, and RC
//! never falls below the minimum rate. The first CNP finds alpha = 1 (the paper's initial
//! value), so it halves the rate.
//!
//! HPCC's simulator's RP (`rdma-hw.cc`, "Mellanox's version of DCQCN") differs in three ways,
//! each a key, all off by default (the paper's law):
//! - `rate_decrease_interval` (its `RATE_DECREASE_INTERVAL`): a CNP only raises two flags. From
//!   the first CNP on, every `rate_decrease_interval` a check cuts RC by alpha / 2 if a CNP came
//!   since the last check (eq. 1, at most one cut per interval however many CNPs), and every K
//!   alpha moves to (1 - g) alpha + g if a CNP came in that tick, else (1 - g) alpha (eqs. 2-3
//!   by tick, not by CNP). The first CNP sets alpha = 1 and cuts at the first check. The rate
//!   increase timer starts at a cut. With it the NP marks every marked packet's ACK
//!   (`cnp_interval = 0`), as the simulator's receiver does.
//! - `clamp_target = false` (its `CLAMP_TARGET_RATE 0`): a cut sets RT = RC only if a rate
//!   increase came since the last cut; during a run of cuts RT keeps the rate the flow had
//!   before the congestion, and recovery aims back at it.
//! - `hyper_step = "fixed"` (its `HyperIncreaseMlx`): each hyper-additive step adds R_HAI, not
//!   i R_HAI (eq. 6).
//!
//! Timing: the alpha timer (K) starts at the first CNP and restarts at each CNP; the rate
//! increase timer (T) restarts at each CNP. The byte counter is read when an ACK arrives or a
//! timer fires, and every B bytes sent by then counts one expiry, in order. Both timers stop
//! being needed at line rate with RT = RC, but keep running (cheap: one wake-up per K or T).

use crate::net::packet::CongestionHeader;
use crate::protocol::RateLawConfig;
use crate::transport::paced::law::{LawCtx, RateControl, RateFeedback};
use crate::units::{Rate, Time};

/// DCQCN's RP settings (the paper's names; defaults in `params.rs`, each with its source).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct DcqcnConfig {
    /// The line rate: where a flow starts, the ceiling of RT and RC.
    pub line_rate: Rate,
    /// The least rate RC is cut to.
    pub min_rate: Rate,
    /// g, the weight of a CNP in alpha (eqs. 2, 3).
    pub g: f64,
    /// K, the alpha timer (eq. 3).
    pub alpha_timer: Time,
    /// T, the rate increase timer.
    pub timer: Time,
    /// B, the byte counter, bytes (0: no byte counter).
    pub byte_counter: u64,
    /// F, the number of fast recovery stages.
    pub fast_recovery: u32,
    /// R_AI, the additive step (eq. 5).
    pub rate_ai: Rate,
    /// R_HAI, the hyper-additive step (eq. 6).
    pub rate_hai: Rate,
    /// Eq. 1's RT = RC at every cut (true, the paper), or only after an increase since the last
    /// cut (false, HPCC's simulator's `CLAMP_TARGET_RATE 0`).
    pub clamp_target: bool,
    /// How a hyper-additive step grows.
    pub hyper_step: HyperStep,
    /// None: each CNP cuts at once and moves alpha (the paper). Some(interval): HPCC's
    /// simulator's periodic check (see the module docs).
    pub rate_decrease_interval: Option<Time>,
}

/// The size of the i-th hyper-additive step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HyperStep {
    /// i R_HAI (the paper's eq. 6).
    Growing,
    /// R_HAI whatever i (HPCC's simulator).
    Fixed,
}

impl RateLawConfig for DcqcnConfig {
    type Law = Dcqcn;

    fn build(self) -> Dcqcn {
        Dcqcn::new(self)
    }

    /// `dcqcn`.
    fn label(&self) -> String {
        "dcqcn".to_string()
    }
}

/// Which increase an expiry makes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Eq. 4.
    FastRecovery,
    /// Eq. 5.
    Additive,
    /// Eq. 6, with its i.
    Hyper(u32),
}

/// The RP of one flow.
#[derive(Clone, Debug)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    /// RC, bit/s.
    rc: f64,
    /// RT, bit/s.
    rt: f64,
    alpha: f64,
    /// When alpha next decays (None before the first CNP).
    alpha_at: Option<Time>,
    /// When the rate increase timer next expires (None before the first CNP).
    increase_at: Option<Time>,
    /// When the periodic cut check next runs (`rate_decrease_interval` only).
    cut_at: Option<Time>,
    /// A CNP came since the last alpha tick (`rate_decrease_interval` only).
    cnp_for_alpha: bool,
    /// A CNP came since the last cut check (`rate_decrease_interval` only).
    cnp_for_cut: bool,
    /// Timer expiries since the last CNP.
    t: u32,
    /// Byte counter expiries since the last CNP.
    b: u32,
    /// Bytes sent when the byte counter last expired or was reset.
    bytes_mark: u64,
}

impl Dcqcn {
    /// An RP at line rate, alpha = 1, no CNP yet.
    pub fn new(cfg: DcqcnConfig) -> Dcqcn {
        let line = cfg.line_rate.bps_f64();
        Dcqcn {
            cfg,
            rc: line,
            rt: line,
            alpha: 1.0,
            alpha_at: None,
            increase_at: None,
            cut_at: None,
            cnp_for_alpha: false,
            cnp_for_cut: false,
            t: 0,
            b: 0,
            bytes_mark: 0,
        }
    }

    /// RC, bit/s.
    pub fn rate(&self) -> f64 {
        self.rc
    }

    /// RT, bit/s.
    pub fn target(&self) -> f64 {
        self.rt
    }

    /// alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Which increase the next expiry makes with `t` timer and `b` byte counter expiries. Without
    /// a byte counter (`byte_counter = 0`, as HPCC's simulator's NIC) the timer alone counts:
    /// F fast recovery stages, one additive, then hyper-additive.
    pub fn stage(&self, t: u32, b: u32) -> Stage {
        let f = self.cfg.fast_recovery;
        if self.cfg.byte_counter == 0 {
            return match t {
                t if t <= f => Stage::FastRecovery,
                t if t == f + 1 => Stage::Additive,
                t => Stage::Hyper(t - f - 1),
            };
        }
        if t.max(b) <= f {
            Stage::FastRecovery
        } else if t.min(b) > f {
            Stage::Hyper(t.min(b) - f)
        } else {
            Stage::Additive
        }
    }

    /// A CNP at `now`, `sent` bytes sent so far: eqs. 1 and 2 (the paper), or the flags the
    /// periodic checks read (`rate_decrease_interval`).
    pub fn on_cnp(&mut self, now: Time, sent: u64) {
        if let Some(interval) = self.cfg.rate_decrease_interval {
            if self.alpha_at.is_none() {
                // The first CNP (rdma-hw.cc `cnp_received_mlx`): alpha = 1, the ticks start,
                // the first check 1 ns after the alpha tick it coincides with cuts.
                self.alpha = 1.0;
                self.rt = self.rc;
                self.alpha_at = Some(now + self.cfg.alpha_timer);
                self.cut_at = Some(now + interval + Time::from_ns(1));
            } else {
                self.cnp_for_alpha = true;
            }
            self.cnp_for_cut = true;
            return;
        }
        self.cut(sent);
        // Eq. 2.
        self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g;
        self.alpha_at = Some(now + self.cfg.alpha_timer);
        self.increase_at = Some(now + self.cfg.timer);
    }

    /// Eq. 1 (with clamp_target = false, RT holds through cuts with no increase between), and
    /// the increase counts start over.
    fn cut(&mut self, sent: u64) {
        let min = self.cfg.min_rate.bps_f64();
        if self.cfg.clamp_target || self.t > 0 || self.b > 0 {
            self.rt = self.rc;
        }
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(min);
        self.t = 0;
        self.b = 0;
        self.bytes_mark = sent;
    }

    /// One expiry of the timer or the byte counter, the counts already advanced: eqs. 4-6.
    fn increase(&mut self) {
        let line = self.cfg.line_rate.bps_f64();
        match self.stage(self.t, self.b) {
            Stage::FastRecovery => {}
            // Eq. 5.
            Stage::Additive => self.rt = (self.rt + self.cfg.rate_ai.bps_f64()).min(line),
            // Eq. 6.
            Stage::Hyper(i) => {
                let steps = if self.cfg.hyper_step == HyperStep::Fixed { 1.0 } else { i as f64 };
                self.rt = (self.rt + steps * self.cfg.rate_hai.bps_f64()).min(line);
            }
        }
        // Eqs. 4-6.
        self.rc = ((self.rt + self.rc) / 2.0).min(line);
    }

    /// The timer expiries due by `now`, in time order (at a tie: alpha, the cut check, the
    /// increase), then the byte counter's by `sent`.
    pub fn advance(&mut self, now: Time, sent: u64) {
        let due = |t: Option<Time>| t.filter(|&t| t <= now);
        loop {
            let (alpha, cut, inc) = (due(self.alpha_at), due(self.cut_at), due(self.increase_at));
            let first = [alpha, cut, inc].into_iter().flatten().min();
            let Some(at) = first else { break };
            let g = self.cfg.g;
            if alpha == Some(at) {
                // Eq. 3 (by tick with rate_decrease_interval: eq. 2 if a CNP came in it).
                let up = if self.cnp_for_alpha { g } else { 0.0 };
                self.alpha = (1.0 - g) * self.alpha + up;
                self.cnp_for_alpha = false;
                self.alpha_at = Some(at + self.cfg.alpha_timer);
            } else if cut == Some(at) {
                if self.cnp_for_cut {
                    self.cnp_for_cut = false;
                    self.cut(sent);
                    self.increase_at = Some(at + self.cfg.timer);
                }
                self.cut_at = self.cfg.rate_decrease_interval.map(|i| at + i);
            } else {
                self.t += 1;
                self.increase();
                self.increase_at = Some(at + self.cfg.timer);
            }
        }
        let bc = self.cfg.byte_counter;
        if bc > 0 && self.increase_at.is_some() {
            while sent >= self.bytes_mark + bc {
                self.bytes_mark += bc;
                self.b += 1;
                self.increase();
            }
        }
    }
}

impl RateControl for Dcqcn {
    fn initial_rate(&self) -> f64 {
        self.rc
    }

    fn header(&self, _ctx: LawCtx) -> CongestionHeader {
        CongestionHeader::None
    }

    fn on_feedback(&mut self, fb: &RateFeedback) -> Option<f64> {
        self.advance(fb.now, fb.sent_bytes);
        if fb.ece {
            self.on_cnp(fb.now, fb.sent_bytes);
        }
        Some(self.rc)
    }

    fn next_timer(&self) -> Option<Time> {
        [self.alpha_at, self.cut_at, self.increase_at].into_iter().flatten().min()
    }

    fn on_timer(&mut self, now: Time, sent_bytes: u64) -> Option<f64> {
        self.advance(now, sent_bytes);
        Some(self.rc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1_000_000;

    /// 40 Gb/s, F = 5, R_AI = 40 Mb/s, R_HAI = 400 Mb/s, g = 1/256, K = T = 55 us, B = 10 MB.
    fn cfg() -> DcqcnConfig {
        DcqcnConfig {
            line_rate: Rate::from_gbps(40),
            min_rate: Rate::from_mbps(100),
            g: 1.0 / 256.0,
            alpha_timer: Time::from_us(55),
            timer: Time::from_us(55),
            byte_counter: 10 * MB,
            fast_recovery: 5,
            rate_ai: Rate::from_mbps(40),
            rate_hai: Rate::from_mbps(400),
            clamp_target: true,
            hyper_step: HyperStep::Growing,
            rate_decrease_interval: None,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    fn ack(now: Time, ece: bool, sent: u64) -> RateFeedback {
        RateFeedback { ece, sent_bytes: sent, ..RateFeedback::of(now, CongestionHeader::None, None) }
    }

    /// A hand-made trace: a CNP, the timer's F fast recovery stages, then additive increase,
    /// then, once the byte counter has expired more than F times too, hyper-additive increase;
    /// every expected number is computed here from eqs. 1-6.
    #[test]
    fn the_rate_after_a_cnp_and_each_increase_stage_follows_eqs_1_to_6() {
        let c = cfg();
        let g = c.g;
        let (line, ai, hai) = (40e9, 40e6, 400e6);
        let us = Time::from_us;
        let mut rp = Dcqcn::new(c);
        assert_eq!(rp.initial_rate(), line);
        assert_eq!(rp.next_timer(), None, "no timer before a CNP");

        // CNP at 0: alpha = 1, RT = 40 G, RC = 40 G (1 - 1/2) = 20 G, alpha = (1 - g) + g = 1.
        let r = rp.on_feedback(&ack(us(0), true, 0)).unwrap();
        let (mut rc, mut rt, mut alpha) = (line * (1.0 - 1.0 / 2.0), line, (1.0 - g) * 1.0 + g);
        assert!(close(r, rc) && close(rp.target(), rt) && close(rp.alpha(), alpha), "{r}");
        assert_eq!(rp.next_timer(), Some(us(55)));

        // A second CNP at 10 us: RT = RC = 20 G, RC = 20 G (1 - alpha/2), alpha moves up by g.
        let r = rp.on_feedback(&ack(us(10), true, 0)).unwrap();
        rt = rc;
        rc *= 1.0 - alpha / 2.0;
        alpha = (1.0 - g) * alpha + g;
        assert!(close(r, rc) && close(rp.target(), rt) && close(rp.alpha(), alpha));

        // Timer expiries at 65, 120, ... us (T = 55 after the CNP at 10): alpha decays at the
        // same instants (K = 55 too, eq. 3), RC halves its distance to RT five times (eq. 4).
        for k in 1..=5u64 {
            let now = us(10 + 55 * k);
            let r = rp.on_timer(now, 0).unwrap();
            alpha *= 1.0 - g;
            rc = (rt + rc) / 2.0;
            assert!(close(r, rc), "fast recovery stage {k}: {r} != {rc}");
            assert!(close(rp.alpha(), alpha), "eq. 3 at stage {k}");
            assert!(close(rp.target(), rt), "RT holds during fast recovery");
        }
        // The sixth expiry: additive increase (eq. 5).
        let r = rp.on_timer(us(10 + 55 * 6), 0).unwrap();
        rt += ai;
        rc = (rt + rc) / 2.0;
        assert!(close(r, rc) && close(rp.target(), rt), "additive: {r} != {rc}");
        // The byte counter: 60 MB sent, six expiries of B = 10 MB, in order: the first five
        // leave min(t, b) <= F (additive, since t = 6 > F); the sixth makes b = 6 > F with
        // t = 6: hyper-additive with i = min(6, 6) - 5 = 1.
        let r = rp.on_feedback(&ack(us(10 + 55 * 6 + 1), false, 60 * MB)).unwrap();
        for _ in 0..5 {
            rt += ai;
            rc = (rt + rc) / 2.0;
        }
        rt += 1.0 * hai;
        rc = (rt + rc) / 2.0;
        assert!(close(r, rc) && close(rp.target(), rt), "hyper, i = 1: {r} != {rc}");
        // The next timer expiry: t = 7, b = 6: i = 1 again; then 10 MB more: b = 7, i = 2.
        let r = rp.on_timer(us(10 + 55 * 7), 60 * MB).unwrap();
        alpha *= (1.0 - g) * (1.0 - g);
        rt += hai;
        rc = (rt + rc) / 2.0;
        assert!(close(r, rc), "{r} != {rc}");
        let r = rp.on_feedback(&ack(us(10 + 55 * 7 + 1), false, 70 * MB)).unwrap();
        rt += 2.0 * hai;
        rc = (rt + rc) / 2.0;
        assert!(close(r, rc) && close(rp.target(), rt), "hyper, i = 2: {r} != {rc}");
        assert!(close(rp.alpha(), alpha));
    }

    #[test]
    fn rates_stay_between_the_minimum_and_the_line_rate() {
        let us = Time::from_us;
        let mut rp = Dcqcn::new(cfg());
        for k in 0..2000 {
            rp.on_feedback(&ack(us(k), true, 0));
        }
        assert_eq!(rp.rate(), 100e6, "clamped at the minimum rate");
        let mut now = us(2000);
        for _ in 0..10_000 {
            now = rp.next_timer().unwrap();
            rp.on_timer(now, 0);
        }
        assert!(now > us(2000));
        assert_eq!(rp.target(), 40e9, "RT clamped at line rate");
        assert!(rp.rate() <= 40e9 && rp.rate() > 39.9e9);
        assert_eq!(rp.stage(5, 5), Stage::FastRecovery);
        assert_eq!(rp.stage(6, 0), Stage::Additive);
        assert_eq!(rp.stage(5, 9), Stage::Additive);
        assert_eq!(rp.stage(6, 7), Stage::Hyper(1));
        // Without a byte counter the timer alone counts: F fast recovery stages, one additive
        // step, then hyper (HPCC's simulator's RateIncEventMlx with its stage count).
        let timer_only = Dcqcn::new(DcqcnConfig { byte_counter: 0, ..rp.cfg });
        assert_eq!(timer_only.stage(5, 0), Stage::FastRecovery);
        assert_eq!(timer_only.stage(6, 0), Stage::Additive);
        assert_eq!(timer_only.stage(8, 0), Stage::Hyper(2));
    }

    /// HPCC's simulator's choices: with clamp_target = false a run of cuts with no increase
    /// between them leaves RT where it was before the first (line rate here), and the first
    /// fast recovery takes RC halfway back to it; with the paper's clamp RT follows each cut.
    /// With hyper_step = "fixed" each hyper step adds R_HAI.
    #[test]
    fn the_simulators_target_holds_through_a_run_of_cuts_and_its_hyper_steps_are_fixed() {
        let us = Time::from_us;
        let sim = DcqcnConfig {
            byte_counter: 0,
            fast_recovery: 1,
            clamp_target: false,
            hyper_step: HyperStep::Fixed,
            ..cfg()
        };
        let mut rp = Dcqcn::new(sim);
        let mut paper = Dcqcn::new(DcqcnConfig { clamp_target: true, ..sim });
        for k in 0..5 {
            rp.on_feedback(&ack(us(k), true, 0));
            paper.on_feedback(&ack(us(k), true, 0));
        }
        assert_eq!(rp.target(), 40e9, "RT kept through five cuts without an increase");
        assert!(close(rp.rate(), paper.rate()), "the cuts themselves are the same");
        assert!(paper.target() < 20e9 && paper.target() > paper.rate(), "the paper's RT: the rate before the last cut");
        let rc = rp.rate();
        rp.on_timer(us(4 + 55), 0); // fast recovery
        assert!(close(rp.rate(), (40e9 + rc) / 2.0));
        // An increase came: the next cut clamps RT to RC again.
        rp.on_feedback(&ack(us(4 + 56), true, 0));
        let rt = rp.target();
        assert!(rt < 40e9 && close(rt, (40e9 + rc) / 2.0), "{rt}");
        // F = 1: t = 1 fast recovery, t = 2 additive, t = 3.. hyper by R_HAI each.
        let mut now = us(4 + 56);
        let mut targets = Vec::new();
        for _ in 0..5 {
            now += us(55);
            rp.on_timer(now, 0);
            targets.push(rp.target());
        }
        let steps: Vec<f64> = targets.windows(2).map(|w| ((w[1] - w[0]) / 1e6).round()).collect();
        assert_eq!(steps, vec![40.0, 400.0, 400.0, 400.0], "additive once, then R_HAI per step");
    }

    /// HPCC's simulator's periodic RP (rate_decrease_interval = 4 us, K = 1 us): the first CNP
    /// sets alpha = 1 and cuts at the first check, alpha moves per tick by whether a CNP came,
    /// three CNPs within one interval make one cut, a check with no CNP none; every expected
    /// number computed here from the rules in the module docs.
    #[test]
    fn the_simulators_periodic_rp_cuts_at_most_once_per_interval() {
        let us = Time::from_us;
        let ns = Time::from_ns;
        let c = DcqcnConfig {
            alpha_timer: us(1),
            timer: us(300),
            byte_counter: 0,
            rate_decrease_interval: Some(us(4)),
            ..cfg()
        };
        let (g, line) = (c.g, 40e9);
        let mut rp = Dcqcn::new(c);
        rp.on_feedback(&ack(us(0), true, 0));
        assert_eq!(rp.rate(), line, "the first CNP does not cut by itself");
        assert_eq!(rp.next_timer(), Some(us(1)));
        // Ticks at 1..4 us without a CNP, then the check at 4 us + 1 ns cuts.
        let mut alpha = (1.0 - g).powi(4);
        rp.on_timer(us(4) + ns(1), 0);
        let mut rc = line * (1.0 - alpha / 2.0);
        assert!(close(rp.rate(), rc) && close(rp.alpha(), alpha), "{} {}", rp.rate(), rp.alpha());
        // CNPs at 5.2, 5.5 and 6.5 us: the ticks at 6 and 7 see one, those at 5 and 8 none; one
        // cut at 8 us + 1 ns.
        for t in [ns(5200), ns(5500), ns(6500)] {
            rp.on_feedback(&ack(t, true, 0));
        }
        rp.on_timer(us(8) + ns(1), 0);
        alpha *= 1.0 - g; // 5
        alpha = (1.0 - g) * alpha + g; // 6
        alpha = (1.0 - g) * alpha + g; // 7
        alpha *= 1.0 - g; // 8
        rc *= 1.0 - alpha / 2.0;
        assert!(close(rp.alpha(), alpha) && close(rp.rate(), rc), "one cut for three CNPs");
        // No CNP until the check at 12 us + 1 ns: no cut; the increase timer runs from the cut.
        rp.on_timer(us(12) + ns(1), 0);
        assert!(close(rp.rate(), rc));
        assert_eq!(rp.next_timer(), Some(us(13)));
        let rt = rp.target();
        rp.on_timer(us(308) + ns(1), 0);
        assert!(close(rp.rate(), (rt + rc) / 2.0), "fast recovery 300 us after the cut");
    }
}
