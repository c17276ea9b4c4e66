//! HPCC's sender (Li et al. 2019, sec. 3.3, Algorithm 1) as a window controller: the window W
//! from the telemetry every ACK echoes, the pacing rate R = W / T.
//!
//! Per ACK with records of the same ports as the previous ACK's (`L`):
//!
//! ```text
//!   u'_i = min(qlen_i, L_i.qlen) / (B_i T) + txRate_i / B_i        eq. (2), per port i
//!   u'   = max_i u'_i,  tau = ts_i - L_i.ts of that port (at most T)
//!   U    = (1 - tau / T) U + (tau / T) u'                          eq. (3)
//!   W    = W_c / (U / eta) + W_AI   if U >= eta or incStage >= maxStage   eq. (4)
//!          W_c + W_AI               otherwise
//! ```
//!
//! `W_c`, the reference window, and `incStage` move only once per round trip: on the first
//! ACK above the `SND.NXT` of the last such update (`lastUpdateSeq`); the other ACKs compute W
//! from the unchanged `W_c` (the paper's fast reaction without overreaction). "Above" counts
//! SACKed bytes: the paper's fabric is lossless and its cumulative ACK always advances, while
//! over a lossy one a hole would hold the cumulative ACK, and W_c with it, for the whole
//! recovery. The records give `qlen / B` and `txBytes / B` directly (`header.rs`).
//!
//! - A flow starts at line rate: W = W_init = B_nic T, the NIC's bandwidth-delay product.
//! - T is the base RTT: `base_rtt` if given (the authors' simulation uses the fabric's largest),
//!   else the flow's handshake RTT (the SYN / SYN-ACK exchange, before any data queues).
//! - W stays within [W_init / 100, W_init] (the authors' simulation bounds the rate between its
//!   minimum rate, 1% of 100 Gb/s, and line rate). The window the TCP sender uses is at least
//!   one segment; the pacing rate carries a smaller W.
//! - `W_AI` defaults to W_init / 2500: the authors' simulation adds 40 Mb/s per step at
//!   100 Gb/s (`RATE_AI = 10 * bw / 25` Mb/s).
//! - Losses are repaired by TCP's SACK recovery and leave W alone: the paper runs over a
//!   lossless fabric (PFC), and W follows the telemetry only.
//! - An ACK more than 8 ms after the previous one, or whose path pushed a different number of
//!   records, only refreshes `L` (the 24-bit timestamps wrap every 16.8 ms).
//! - The flow's series gets U as `hpcc_u`.

use crate::net::packet::{CongestionHeader, PacketKind};
use crate::protocol::hpcc::header::IntStack;
use crate::protocol::label::LabelCtx;
use crate::protocol::{WindowConfig, WindowCtx};
use crate::transport::cc::{CcState, CongestionControl, Feedback, HeaderCtx};
use crate::units::{Rate, Time};

/// The longest gap between two ACKs whose records are compared (half the timestamp wrap).
const STALE: Time = Time::from_ns(1 << 23);

/// HPCC's constants for one flow.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct HpccConfig {
    /// The NIC's rate B_nic: W_init = B_nic T.
    pub line_rate: Rate,
    /// The base RTT T; None: the flow's handshake RTT.
    pub base_rtt: Option<Time>,
    /// Target utilization eta (the paper: 0.95).
    pub eta: f64,
    /// Additive-increase steps before a multiplicative one (the paper: 5).
    pub max_stage: u32,
    /// The additive step W_AI, bytes; None: W_init / 2500.
    pub w_ai: Option<f64>,
}

impl HpccConfig {
    /// The paper's constants for a NIC of `line_rate`.
    pub fn new(line_rate: Rate) -> HpccConfig {
        HpccConfig { line_rate, base_rtt: None, eta: 0.95, max_stage: 5, w_ai: None }
    }
}

impl WindowConfig for HpccConfig {
    type Controller = Hpcc;

    fn build(self, _ctx: WindowCtx) -> Hpcc {
        Hpcc::new(self)
    }

    /// `hpcc`.
    fn label(&self, _at: LabelCtx) -> String {
        "hpcc".to_string()
    }
}

/// HPCC's window and pacing law.
#[derive(Clone, Debug)]
pub struct Hpcc {
    cfg: HpccConfig,
    /// T, s (0 until known).
    t: f64,
    w_init: f64,
    w_ai: f64,
    /// The window W and the reference window W_c, bytes.
    w: f64,
    wc: f64,
    /// The normalized inflight estimate U.
    u: f64,
    inc_stage: u32,
    last_update_seq: u64,
    /// The previous ACK's records L, and when it came.
    prev: Option<(IntStack, Time)>,
}

impl Hpcc {
    /// A flow that has not heard from the path yet.
    pub fn new(cfg: HpccConfig) -> Hpcc {
        Hpcc {
            cfg,
            t: 0.0,
            w_init: 0.0,
            w_ai: 0.0,
            w: 0.0,
            wc: 0.0,
            u: 0.0,
            inc_stage: 0,
            last_update_seq: 0,
            prev: None,
        }
    }

    /// The window W, bytes (0 before the handshake).
    pub fn window(&self) -> f64 {
        self.w
    }

    /// The estimate U.
    pub fn utilization(&self) -> f64 {
        self.u
    }

    /// Sets T and the windows from it (at the first feedback).
    fn start(&mut self, t: Time) {
        let ps = t.ps().max(1);
        self.t = ps as f64 * 1e-12;
        self.w_init = self.cfg.line_rate.bps() as f64 * ps as f64 / 8e12;
        self.w_ai = self.cfg.w_ai.unwrap_or(self.w_init / 2500.0);
        self.w = self.w_init;
        self.wc = self.w_init;
    }

    /// Eq. (2)-(3): U from the records `now` against `prev`; false if no port gave a sample.
    fn measure_inflight(&mut self, now: &IntStack, prev: &IntStack) -> bool {
        let (mut u_max, mut tau) = (None::<f64>, 0.0);
        for (h, l) in now.recorded().iter().zip(prev.recorded()) {
            let dt = h.dt_ns(*l);
            if dt == 0 {
                continue;
            }
            let u = h.qdelay_s().min(l.qdelay_s()) / self.t + h.dbusy_ns(*l) as f64 / dt as f64;
            if u_max.is_none_or(|m| u > m) {
                u_max = Some(u);
                tau = dt as f64 * 1e-9;
            }
        }
        let Some(u) = u_max else { return false };
        let tau = tau.min(self.t);
        self.u = (1.0 - tau / self.t) * self.u + tau / self.t * u;
        true
    }

    /// Eq. (4): W from U and W_c; W_c and incStage move if `update_wc`.
    fn compute_wind(&mut self, update_wc: bool) {
        let eta = self.cfg.eta;
        let (w, stage) = if self.u >= eta || self.inc_stage >= self.cfg.max_stage {
            (self.wc / (self.u / eta) + self.w_ai, 0)
        } else {
            (self.wc + self.w_ai, self.inc_stage + 1)
        };
        self.w = w.clamp(self.w_init / 100.0, self.w_init);
        if update_wc {
            self.inc_stage = stage;
            self.wc = self.w;
        }
    }

    fn set_window(&self, st: &mut CcState) {
        st.cwnd = (self.w.ceil() as u64).max(st.mss);
    }
}

impl CongestionControl for Hpcc {
    fn on_ack(&mut self, _st: &mut CcState, _now: Time, _acked: u64, _srtt: Option<Time>) {}
    fn on_congestion(&mut self, _st: &mut CcState, _now: Time, _flight: u64) {}

    /// Every SYN and data packet asks the ports for their records.
    #[inline]
    fn header(&self, _st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        debug_assert!(matches!(ctx.kind, PacketKind::Syn | PacketKind::Data));
        IntStack::default().forward()
    }

    /// Algorithm 1's NewAck.
    fn on_feedback(&mut self, st: &mut CcState, fb: &Feedback) -> bool {
        let Some(now) = IntStack::of(&fb.echo) else { return true };
        if self.t == 0.0 {
            let Some(t) = self.cfg.base_rtt.or(fb.srtt) else { return true };
            self.start(t);
            self.last_update_seq = fb.high;
            self.prev = Some((now, fb.now));
            self.set_window(st);
            return true;
        }
        let fresh = match self.prev {
            Some((l, at)) => l.nhop == now.nhop && fb.now.saturating_sub(at) <= STALE,
            None => false,
        };
        if fresh && now.nhop > 0 {
            let (l, _) = self.prev.unwrap();
            if self.measure_inflight(&now, &l) {
                let update_wc = fb.ack > self.last_update_seq;
                self.compute_wind(update_wc);
                if update_wc {
                    self.last_update_seq = fb.high;
                }
                self.set_window(st);
            }
        }
        self.prev = Some((now, fb.now));
        true
    }

    /// R = W / T; line rate before the first feedback.
    fn pacing_rate(&self) -> Option<Rate> {
        if self.t == 0.0 {
            return Some(self.cfg.line_rate);
        }
        Some(Rate::from_bps((self.w * 8.0 / self.t).max(1.0) as u64))
    }

    fn reacts_to_loss(&self) -> bool {
        false
    }

    fn cc_metric(&self) -> Option<(&'static str, f64)> {
        Some(("hpcc_u", self.u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::hpcc::header::IntHop;

    const MSS: u64 = 1000;

    fn st() -> CcState {
        CcState { cwnd: MSS, ssthresh: u64::MAX, mss: MSS, abc: MSS }
    }

    /// The echo of one port's record at `ts_ns` after `busy_ns` of transmission with a queue of
    /// `q_ns`.
    fn echo(ts_ns: u64, busy_ns: u64, q_ns: u64) -> CongestionHeader {
        let mut s = IntStack::default();
        s.push(IntHop::new(Time::from_ns(ts_ns), Time::from_ns(busy_ns), Time::from_ns(q_ns)));
        s.forward().feedback()
    }

    fn fb(echo: CongestionHeader, now_ns: u64, ack: u64, high: u64) -> Feedback {
        Feedback { echo, srtt: Some(Time::from_us(10)), now: Time::from_ns(now_ns), ack, high }
    }

    /// 10 Gb/s and T = 10 us: W_init = 12.5 kB, W_AI = 5 B.
    fn hpcc() -> (Hpcc, CcState) {
        let mut h = Hpcc::new(HpccConfig::new(Rate::from_gbps(10)));
        let mut s = st();
        h.on_feedback(&mut s, &fb(echo(0, 0, 0), 0, 0, 0));
        (h, s)
    }

    #[test]
    fn a_flow_starts_at_one_bdp_paced_at_line_rate() {
        let (h, s) = hpcc();
        assert_eq!((h.window(), s.cwnd), (12_500.0, 12_500));
        assert_eq!(h.pacing_rate(), Some(Rate::from_gbps(10)));
        assert!((h.w_ai - 5.0).abs() < 1e-9);
    }

    /// A hand-made trace: the port sends at line rate with a 4.8 us queue, then idles.
    #[test]
    fn the_window_follows_eqs_2_to_4_on_a_hand_made_trace() {
        let (mut h, mut s) = hpcc();
        // 2 us later: busy all the while (txRate = B) and the queue min(4.8 us, 0) = 0 against the
        // first record: u' = 1, tau = 2 us, U = 0.2 * 1 = 0.2 < eta. The ACK is above
        // lastUpdateSeq (0): W_c = W_c + W_AI, incStage 1.
        h.on_feedback(&mut s, &fb(echo(2000, 2000, 4800), 2000, 1000, 20_000));
        assert!((h.u - 0.2).abs() < 1e-9);
        assert!((h.wc - 12_500.0).abs() < 1e-9, "clamped at W_init");
        assert_eq!(h.inc_stage, 1);
        // 10 us later (tau = T): queue min(4.8, 4.8) us = 0.48 T, busy all along: u' = 1.48,
        // U = 1.48 >= eta: W = W_c / (1.48 / 0.95) + W_AI. The ACK (5000) is not above
        // lastUpdateSeq (20000): W_c and incStage stay.
        h.on_feedback(&mut s, &fb(echo(12_000, 12_000, 4800), 12_000, 5000, 30_000));
        assert!((h.u - 1.48).abs() < 1e-9);
        let w = 12_500.0 / (1.48 / 0.95) + 5.0;
        assert!((h.window() - w).abs() < 1e-6, "{}", h.window());
        assert_eq!(s.cwnd, w.ceil() as u64);
        assert!((h.wc - 12_500.0).abs() < 1e-9 && h.inc_stage == 1, "no reference update within the RTT");
        let rate = h.pacing_rate().unwrap().bps_f64();
        assert!((rate - w * 8.0 / 10e-6).abs() < 1.0, "R = W / T");
        // Past lastUpdateSeq: the same cut moves W_c, and incStage restarts.
        h.on_feedback(&mut s, &fb(echo(22_000, 22_000, 4800), 22_000, 21_000, 40_000));
        assert!((h.wc - h.window()).abs() < 1e-9 && h.inc_stage == 0);
        // An idle port (no transmission, no queue) for a full T: U = 0, additive increase.
        let wc = h.wc;
        h.on_feedback(&mut s, &fb(echo(32_000, 22_000, 0), 32_000, 41_000, 50_000));
        assert!(h.u.abs() < 1e-9);
        assert!((h.wc - (wc + 5.0)).abs() < 1e-9 && h.inc_stage == 1);
    }

    #[test]
    fn after_max_stage_additive_steps_the_step_is_multiplicative() {
        let (mut h, mut s) = hpcc();
        h.wc = 6000.0;
        // Half-busy port, no queue, tau = T each time: U = 0.5 < eta.
        let mut t = 0;
        for k in 1..=5u64 {
            t += 10_000;
            h.on_feedback(&mut s, &fb(echo(t, t / 2, 0), t, k * 1000, k * 1000));
        }
        assert_eq!(h.inc_stage, 5);
        assert!((h.wc - 6025.0).abs() < 1e-9, "five additive steps");
        t += 10_000;
        h.on_feedback(&mut s, &fb(echo(t, t / 2, 0), t, 6000, 6000));
        assert!((h.wc - (6025.0 / (0.5 / 0.95) + 5.0)).abs() < 1e-6, "incStage = maxStage: MI");
        assert_eq!(h.inc_stage, 0);
    }

    #[test]
    fn a_stale_or_rerouted_echo_only_refreshes_the_records() {
        let (mut h, mut s) = hpcc();
        h.on_feedback(&mut s, &fb(echo(20_000_000, 0, 0), 20_000_000, 1000, 1000));
        assert_eq!((h.u, h.window()), (0.0, 12_500.0), "20 ms later: no sample");
        let mut two = IntStack::default();
        two.push(IntHop::new(Time::from_ns(20_001_000), Time::ZERO, Time::ZERO));
        two.push(IntHop::new(Time::from_ns(20_001_000), Time::ZERO, Time::ZERO));
        h.on_feedback(&mut s, &fb(two.forward().feedback(), 20_001_000, 2000, 2000));
        assert_eq!(h.u, 0.0, "two records against one: no sample");
    }
}
