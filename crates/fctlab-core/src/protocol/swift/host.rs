//! Swift's sender (Kumar et al. 2020, sec. 3, Algorithm 1) as a window controller over
//! fctlab's TCP: AIMD on the delay each ACK measures against a target delay (`target.rs`).
//!
//! On an ACK with a delay sample, `num_acked` packets newly acknowledged:
//!
//! ```text
//! retransmit_cnt = 0
//! delay < target:  cwnd += ai / cwnd x num_acked     (cwnd >= 1)
//!                  cwnd += ai x num_acked            (cwnd < 1)
//! otherwise, if can_decrease:
//!                  cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf)
//! ```
//!
//! on a retransmission timeout, `retransmit_cnt += 1` and cwnd = min_cwnd once it reaches
//! RETX_RESET_THRESHOLD, else cwnd *= 1 - max_mdf if can_decrease; on fast recovery,
//! `retransmit_cnt = 0` and cwnd *= 1 - max_mdf if can_decrease. After each, cwnd is clamped
//! to [min_cwnd, max_cwnd], and a smaller cwnd than before the event sets t_last_decrease to
//! now. can_decrease = (now - t_last_decrease >= rtt): at most one decrease per round trip.
//!
//! How it sits on the window loop:
//!
//! - The delay is the ACK's RTT sample (now minus the echoed timestamp): the fabric delay.
//!   fctlab has no NIC or host stack delay, so the endpoint delay is zero and the endpoint
//!   window (ecwnd) would never bind: only the fabric window exists, and cwnd = fcwnd. `rtt`
//!   in can_decrease and in the pacing delay is the same latest sample.
//! - The window moves on every ACK that advances the cumulative point (the sender's RTT
//!   sample hook, in and out of loss recovery); an ACK that acknowledges nothing new carries
//!   no sample and changes nothing. A loss repaired by fast recovery keeps the window the
//!   decrease left when recovery ends (no return to ssthresh).
//! - cwnd is kept in packets, as a real number. The TCP window is cwnd x MSS bytes, at least
//!   one segment: below one packet, one packet may be in flight and the pacing clock spaces
//!   packets by the pacing delay rtt / cwnd (sec. 3.4), as the rate of one packet (with its
//!   headers) per rtt / cwnd. At one packet or more the clock runs at 2^64 - 1 bit/s, one
//!   picosecond per packet: the window alone limits sending.
//! - The pacing rate reaches the clock where the window loop takes it, on the ACKs outside
//!   loss recovery (and the SYN-ACK); in recovery the last rate stands.
//! - The flow's series gets the target delay as `swift_target_s`.

use super::target::TargetDelay;
use crate::protocol::label::LabelCtx;
use crate::protocol::{WindowConfig, WindowCtx};
use crate::transport::cc::{CcState, CongestionControl, Feedback, RttSample};
use crate::units::{Rate, Time};

/// The pacing rate of a window of one packet or more: no spacing a link could see.
const UNPACED: Rate = Rate::from_bps(u64::MAX);

/// Swift's constants (config, not state). The paper gives the law and its parameters' names;
/// where a default's source is not the paper, its comment says so (docs/protocols.md).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SwiftConfig {
    /// base_target: the target for one hop and few flows (25 us: a datacenter value, of the
    /// order of the paper's short-RPC latencies, not a setting the paper tabulates).
    pub base_target: Time,
    /// The hops of the flows' paths (fctlab's packets carry no TTL: a scenario key, 1 by
    /// default).
    pub hops: u32,
    /// h, the target added per hop (1 us: not a setting the paper tabulates).
    pub h: Time,
    /// fs_range, the most the flow-based part adds (5 x base_target = 125 us, the ratio
    /// htsim's Swift uses; not a setting the paper tabulates).
    pub fs_range: Time,
    /// fs_min_cwnd, packets: the window at and below which the flow-based part is fs_range
    /// (0.1, as htsim's Swift).
    pub fs_min_cwnd: f64,
    /// fs_max_cwnd, packets: the window at and above which it is zero (100, as htsim's Swift).
    pub fs_max_cwnd: f64,
    /// ai, packets per round trip (1: TCP's additive increase).
    pub ai: f64,
    /// beta, the multiplicative decrease constant (0.8, as htsim's Swift).
    pub beta: f64,
    /// max_mdf, the largest multiplicative decrease (0.5: TCP's halving, as htsim's Swift).
    pub max_mdf: f64,
    /// RETX_RESET_THRESHOLD: timeouts in a row that reset cwnd to min_cwnd (5, as htsim's
    /// Swift).
    pub retx_reset: u32,
    /// min_cwnd, packets (sec. 3.4: "down to a minimum of 0.001 packets").
    pub min_cwnd: f64,
    /// max_cwnd, packets (unbounded by default: the sender's flight cap and the receiver's
    /// window bound it).
    pub max_cwnd: f64,
}

impl Default for SwiftConfig {
    fn default() -> SwiftConfig {
        SwiftConfig {
            base_target: Time::from_us(25),
            hops: 1,
            h: Time::from_us(1),
            fs_range: Time::from_us(125),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            retx_reset: 5,
            min_cwnd: 0.001,
            max_cwnd: f64::INFINITY,
        }
    }
}

impl WindowConfig for SwiftConfig {
    type Controller = Swift;

    fn build(self, ctx: WindowCtx) -> Swift {
        Swift::new(self, ctx.mss, ctx.header)
    }

    /// `swift-iw10`.
    fn label(&self, at: LabelCtx) -> String {
        format!("swift-iw{}", at.iw)
    }
}

/// Swift's window and pacing delay, one flow.
#[derive(Clone, Debug)]
pub struct Swift {
    cfg: SwiftConfig,
    target: TargetDelay,
    /// Segment payload and wire bytes.
    mss: f64,
    wire: f64,
    /// cwnd, packets (0 until the first event reads the initial window).
    cwnd: f64,
    /// The latest RTT sample (zero before the first).
    rtt: Time,
    t_last_decrease: Time,
    retransmit_cnt: u32,
    /// Bytes cumulatively acknowledged at the last sample.
    una: u64,
    /// The target of the last ACK, s (the flow's series).
    last_target: f64,
}

impl Swift {
    /// A flow of `mss`-byte segments under `header` bytes of headers.
    pub fn new(cfg: SwiftConfig, mss: u32, header: u32) -> Swift {
        let target = TargetDelay::new(&cfg);
        Swift {
            cfg,
            target,
            mss: mss as f64,
            wire: (mss + header) as f64,
            cwnd: 0.0,
            rtt: Time::ZERO,
            t_last_decrease: Time::ZERO,
            retransmit_cnt: 0,
            una: 0,
            last_target: target.at(cfg.fs_max_cwnd),
        }
    }

    /// cwnd, packets (0 before the first event).
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// The target delay at the current window, s.
    pub fn target_delay(&self) -> f64 {
        self.target.at(self.cwnd)
    }

    /// The pacing delay between packets: rtt / cwnd below one packet, zero otherwise.
    pub fn pacing_delay(&self) -> Time {
        if self.cwnd >= 1.0 || self.cwnd == 0.0 {
            return Time::ZERO;
        }
        Time::from_secs_f64(self.rtt.as_secs_f64() / self.cwnd)
    }

    /// The window from the connection's, at the first event (the initial window).
    fn take(&mut self, st: &CcState) {
        if self.cwnd == 0.0 {
            self.cwnd = st.cwnd as f64 / self.mss;
        }
    }

    fn can_decrease(&self, now: Time) -> bool {
        now.saturating_sub(self.t_last_decrease) >= self.rtt
    }

    /// The clamp to [min_cwnd, max_cwnd], t_last_decrease, and the TCP window: cwnd segments,
    /// at least one.
    fn settle(&mut self, st: &mut CcState, now: Time, before: f64) {
        self.cwnd = self.cwnd.max(self.cfg.min_cwnd).min(self.cfg.max_cwnd);
        if self.cwnd < before {
            self.t_last_decrease = now;
        }
        st.cwnd = ((self.cwnd * self.mss) as u64).max(st.mss);
    }

    /// Algorithm 1's ACK: `delay` measured at `now`, `num_acked` packets newly acknowledged.
    fn on_delay(&mut self, now: Time, delay: Time, num_acked: f64) {
        self.retransmit_cnt = 0;
        let target = self.target.at(self.cwnd);
        self.last_target = target;
        let d = delay.as_secs_f64();
        if d < target {
            if self.cwnd >= 1.0 {
                self.cwnd += self.cfg.ai / self.cwnd * num_acked;
            } else {
                self.cwnd += self.cfg.ai * num_acked;
            }
        } else if self.can_decrease(now) {
            let factor = (1.0 - self.cfg.beta * (d - target) / d).max(1.0 - self.cfg.max_mdf);
            self.cwnd *= factor;
        }
    }
}

impl CongestionControl for Swift {
    fn wants_rtt_samples(&self) -> bool {
        true
    }

    /// Algorithm 1's ACK, with the packets the cumulative point moved by.
    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        self.take(st);
        let before = self.cwnd;
        let num_acked = s.una.saturating_sub(self.una) as f64 / self.mss;
        self.una = self.una.max(s.una);
        self.rtt = s.rtt;
        self.on_delay(s.now, s.rtt, num_acked);
        self.settle(st, s.now, before);
    }

    /// The window moved with the ACK's sample.
    fn on_ack(&mut self, _st: &mut CcState, _now: Time, _acked: u64, _srtt: Option<Time>) {}

    /// Fast recovery.
    fn on_congestion(&mut self, st: &mut CcState, now: Time, _flight: u64) {
        self.take(st);
        let before = self.cwnd;
        self.retransmit_cnt = 0;
        if self.can_decrease(now) {
            self.cwnd *= 1.0 - self.cfg.max_mdf;
        }
        self.settle(st, now, before);
    }

    /// Retransmission timeout.
    fn on_timeout(&mut self, st: &mut CcState, now: Time, _flight: u64) {
        self.take(st);
        let before = self.cwnd;
        self.retransmit_cnt += 1;
        if self.retransmit_cnt >= self.cfg.retx_reset {
            self.cwnd = self.cfg.min_cwnd;
        } else if self.can_decrease(now) {
            self.cwnd *= 1.0 - self.cfg.max_mdf;
        }
        self.settle(st, now, before);
    }

    /// The window the decreases left stands.
    fn on_recovery_end(&mut self, _st: &mut CcState, _now: Time) {}

    /// Only so that the window loop hands the pacing rate to its clock on every ACK.
    fn on_feedback(&mut self, _st: &mut CcState, _fb: &Feedback) -> bool {
        false
    }

    /// One packet per pacing delay below one packet; unpaced otherwise.
    fn pacing_rate(&self) -> Option<Rate> {
        let gap = self.pacing_delay();
        if gap == Time::ZERO {
            return Some(UNPACED);
        }
        Some(Rate::from_bps(((self.wire * 8.0 / gap.as_secs_f64()).round() as u64).max(1)))
    }

    fn cc_metric(&self) -> Option<(&'static str, f64)> {
        Some(("swift_target_s", self.last_target))
    }
}
