//! Leaving slow start before the first loss: HyStart as Linux's CUBIC runs it, and HyStart++
//! (RFC 9406).
//!
//! Standard slow start doubles the window each round trip until a queue overflows, and the
//! overflow of the last doubling can drop a window's worth of packets. Both detectors below
//! watch the round trip instead and end slow start (ssthresh = cwnd) when a queue starts to
//! build.
//!
//! **Linux** (`net/ipv4/tcp_cubic.c`, on by default with `hystart_detect = 3`): per RTT
//! sample, in slow start, once cwnd >= [`LOW_WINDOW`] segments:
//! - *ACK train*: ACKs that arrive within [`ACK_DELTA`] of each other form a train; when the
//!   train of one round has lasted longer than half the minimum RTT, the window already fills
//!   the path (its ACKs span half a round trip at the bottleneck's rate, and it doubles once
//!   more);
//! - *delay*: the smallest of the first [`MIN_SAMPLES`] RTT samples of a round exceeds the
//!   minimum RTT by clamp(minRTT / 8, 4 ms, 16 ms).
//!
//! A round starts when the cumulative ACK passes what was sent at the start of the previous
//! one (`end_seq` = SND.NXT). Linux adds to the ACK-train threshold a cushion for TSO/GRO
//! aggregation (`hystart_ack_delay`, up to 1 ms from the pacing rate); the simulator sends
//! and acknowledges packet by packet, so there is no aggregation and no cushion. After a
//! timeout everything starts afresh (Linux's `bictcp_reset` clears the minimum RTT too); RTT
//! samples within a second of a congestion-avoidance epoch's start do not lower the minimum.
//!
//! **HyStart++** (RFC 9406 sec. 4.2): the delay detector only, comparing each round's minimum
//! RTT with the previous round's (after [`N_RTT_SAMPLE`] samples, an increase of
//! clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)); then Conservative Slow Start, growing a quarter
//! as fast, for [`CSS_ROUNDS`] rounds before congestion avoidance, or back to slow start if
//! the RTT falls below the baseline (a false exit). Used for the initial slow start only (sec.
//! 4.3): after a loss or a timeout the connection uses standard slow start. The per-ACK limit L
//! is the sender's appropriate-byte-counting limit ([`CcState::abc`]).

use crate::transport::cc::{CcState, RttSample};
use crate::units::Time;

/// Linux's `hystart_low_window`: the detectors run from this window (segments) on.
pub const LOW_WINDOW: u64 = 16;
/// Linux's `hystart_ack_delta_us`: ACKs closer than this belong to one train.
pub const ACK_DELTA: Time = Time::from_ms(2);
/// Linux's `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
pub const MIN_SAMPLES: u32 = 8;
/// Linux's `HYSTART_DELAY_MIN` and RFC 9406's MIN_RTT_THRESH.
pub const DELAY_MIN: Time = Time::from_ms(4);
/// Linux's `HYSTART_DELAY_MAX` and RFC 9406's MAX_RTT_THRESH.
pub const DELAY_MAX: Time = Time::from_ms(16);
/// RFC 9406 N_RTT_SAMPLE.
pub const N_RTT_SAMPLE: u32 = 8;
/// RFC 9406 CSS_GROWTH_DIVISOR.
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// RFC 9406 CSS_ROUNDS.
pub const CSS_ROUNDS: u32 = 5;
/// Linux discards RTT samples this soon after a congestion-avoidance epoch starts (`HZ`).
pub const EPOCH_QUIET: Time = Time::from_secs(1);

/// Which slow-start exit a loss-based controller uses (scenario key `hystart`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
pub enum HyStartMode {
    /// Standard slow start until loss or ssthresh (RFC 5681).
    #[default]
    #[serde(rename = "off")]
    Off,
    /// Linux CUBIC's ACK-train and delay detectors.
    #[serde(rename = "linux")]
    Linux,
    /// RFC 9406's delay detector and Conservative Slow Start.
    #[serde(rename = "hystart++")]
    PlusPlus,
}

/// One measurement round: what Linux's `bictcp_hystart_reset` starts.
#[derive(Copy, Clone, Debug)]
struct Round {
    /// SND.NXT when the round began: the round ends when the cumulative ACK passes it.
    end: u64,
    /// When the round began (`round_start`).
    start: Time,
    /// The last ACK of the current train (`last_ack`).
    last_ack: Time,
    /// The smallest RTT sample of the round so far.
    min_rtt: Option<Time>,
    /// RTT samples in the round.
    samples: u32,
}

impl Round {
    fn new(s: &RttSample) -> Round {
        Round { end: s.high, start: s.now, last_ack: s.now, min_rtt: None, samples: 0 }
    }
}

/// The slow-start exit's state; `HyStart::new(HyStartMode::Off)` does nothing.
#[derive(Clone, Debug, Default)]
pub struct HyStart {
    mode: HyStartMode,
    /// Linux: the exit was found (until a timeout). HyStart++: the initial slow start is over.
    done: bool,
    /// Linux: the smallest RTT sample of the connection (`delay_min`).
    delay_min: Option<Time>,
    /// The current round, from the first sample on.
    round: Option<Round>,
    /// HyStart++: the previous round's minimum RTT.
    last_round_min: Option<Time>,
    /// HyStart++: in Conservative Slow Start, its baseline RTT and the rounds it has lasted.
    css: Option<(Time, u32)>,
}

/// clamp(min_rtt / 8, 4 ms, 16 ms): Linux's `HYSTART_DELAY_THRESH(delay_min >> 3)` and RFC
/// 9406's RttThresh.
fn delay_threshold(min_rtt: Time) -> Time {
    Time(min_rtt.0 / 8).clamp(DELAY_MIN, DELAY_MAX)
}

impl HyStart {
    /// A fresh slow-start exit.
    pub fn new(mode: HyStartMode) -> HyStart {
        HyStart { mode, ..HyStart::default() }
    }

    /// Whether the exit runs at all (not `Off`).
    pub fn is_on(&self) -> bool {
        self.mode != HyStartMode::Off
    }

    /// Takes one RTT sample, before the ACK's window growth (Linux's `pkts_acked` runs before
    /// `cong_avoid`); may end slow start by setting ssthresh = cwnd. `quiet`: the sample falls
    /// within [`EPOCH_QUIET`] of a congestion-avoidance epoch's start.
    pub fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample, quiet: bool) {
        match self.mode {
            HyStartMode::Off => {}
            HyStartMode::Linux => self.linux(st, s, quiet),
            HyStartMode::PlusPlus => self.plus_plus(st, s),
        }
    }

    /// The bytes slow start adds for an ACK that may add `inc` (min(N, L x SMSS)): a quarter
    /// in HyStart++'s Conservative Slow Start.
    #[inline]
    pub fn growth(&self, inc: u64) -> u64 {
        if self.css.is_some() {
            inc / CSS_GROWTH_DIVISOR
        } else {
            inc
        }
    }

    /// Fast recovery began: HyStart++ is over (standard slow start from now on).
    pub fn on_congestion(&mut self) {
        if self.mode == HyStartMode::PlusPlus {
            self.done = true;
            self.css = None;
        }
    }

    /// A retransmission timeout: Linux starts HyStart afresh (`bictcp_reset`,
    /// `bictcp_hystart_reset`); HyStart++ is over.
    pub fn on_timeout(&mut self) {
        match self.mode {
            HyStartMode::Off => {}
            HyStartMode::Linux => *self = HyStart::new(HyStartMode::Linux),
            HyStartMode::PlusPlus => self.on_congestion(),
        }
    }

    /// `cubictcp_acked` and `hystart_update`.
    fn linux(&mut self, st: &mut CcState, s: &RttSample, quiet: bool) {
        if !quiet {
            self.delay_min = Some(self.delay_min.map_or(s.rtt, |d| d.min(s.rtt)));
        }
        if self.done || !st.in_slow_start() {
            return;
        }
        let Some(delay_min) = self.delay_min else { return };
        let round = match &mut self.round {
            Some(r) if s.una <= r.end => r,
            r => r.insert(Round::new(s)),
        };
        if st.cwnd < LOW_WINDOW * st.mss {
            return;
        }
        // ACK train: a train lasting past delay_min / 2 (no aggregation cushion, see above).
        if s.now.saturating_sub(round.last_ack) <= ACK_DELTA {
            round.last_ack = s.now;
            if s.now.saturating_sub(round.start) > Time(delay_min.0 / 2) {
                self.done = true;
            }
        }
        // Delay: the round's smallest sample, after MIN_SAMPLES of them, above the minimum RTT
        // by the threshold.
        let min_rtt = round.min_rtt.map_or(s.rtt, |m| m.min(s.rtt));
        round.min_rtt = Some(min_rtt);
        if round.samples < MIN_SAMPLES {
            round.samples += 1;
        } else if min_rtt > delay_min + delay_threshold(delay_min) {
            self.done = true;
        }
        if self.done {
            st.ssthresh = st.cwnd;
        }
    }

    /// RFC 9406 sec. 4.2.
    fn plus_plus(&mut self, st: &mut CcState, s: &RttSample) {
        if self.done || !st.in_slow_start() {
            return;
        }
        // A round ends when windowEnd is acknowledged; the next starts with windowEnd = SND.NXT.
        let ended = self.round.is_none_or(|r| s.una > r.end);
        if ended {
            if let Some((_, rounds)) = &mut self.css {
                *rounds += 1;
                if *rounds >= CSS_ROUNDS {
                    // CSS_ROUNDS rounds of CSS: congestion avoidance.
                    st.ssthresh = st.cwnd;
                    self.done = true;
                    self.css = None;
                    return;
                }
            }
            self.last_round_min = self.round.and_then(|r| r.min_rtt);
            self.round = Some(Round::new(s));
        }
        let Some(round) = &mut self.round else { return };
        let min_rtt = round.min_rtt.map_or(s.rtt, |m| m.min(s.rtt));
        round.min_rtt = Some(min_rtt);
        round.samples += 1;
        if round.samples < N_RTT_SAMPLE {
            return;
        }
        match self.css {
            None => {
                if let Some(last) = self.last_round_min {
                    if min_rtt >= last + delay_threshold(last) {
                        // Exit slow start into CSS, with the round's minimum as the baseline.
                        self.css = Some((min_rtt, 0));
                    }
                }
            }
            // The RTT fell below the baseline: a false exit, back to slow start.
            Some((baseline, _)) if min_rtt < baseline => self.css = None,
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn st(cwnd_segments: u64) -> CcState {
        CcState { cwnd: cwnd_segments * MSS, ssthresh: u64::MAX, mss: MSS, abc: MSS }
    }

    fn sample(now_us: u64, rtt_us: u64, una: u64, high: u64) -> RttSample {
        RttSample { now: Time::from_us(now_us), rtt: Time::from_us(rtt_us), una, high }
    }

    #[test]
    fn off_never_ends_slow_start() {
        let mut h = HyStart::new(HyStartMode::Off);
        let mut s = st(100);
        for i in 0..100 {
            h.on_rtt_sample(&mut s, &sample(i * 10, 500_000, i * MSS, 200 * MSS), false);
        }
        assert_eq!(s.ssthresh, u64::MAX);
        assert_eq!(h.growth(MSS), MSS);
    }

    #[test]
    fn linux_delay_detector_fires_after_eight_samples_above_the_threshold() {
        // minRTT 20 ms from the first round; threshold clamp(2.5 ms, 4, 16) = 4 ms.
        let mut h = HyStart::new(HyStartMode::Linux);
        let mut s = st(32);
        h.on_rtt_sample(&mut s, &sample(0, 20_000, MSS, 32 * MSS), false);
        // A new round (una passes 32 MSS) whose samples are 24.5 ms, 2.5 ms apart (no train).
        for i in 0..8 {
            h.on_rtt_sample(&mut s, &sample(30_000 + i * 2_500, 24_500, (33 + i) * MSS, 64 * MSS), false);
            assert_eq!(s.ssthresh, u64::MAX, "sample {i}: fewer than 8 samples decide nothing");
        }
        h.on_rtt_sample(&mut s, &sample(60_000, 24_500, 42 * MSS, 64 * MSS), false);
        assert_eq!(s.ssthresh, s.cwnd, "24.5 ms > 20 + 4 ms: slow start ends");
    }

    #[test]
    fn linux_delay_below_the_threshold_keeps_slow_start() {
        let mut h = HyStart::new(HyStartMode::Linux);
        let mut s = st(32);
        h.on_rtt_sample(&mut s, &sample(0, 20_000, MSS, 32 * MSS), false);
        for i in 0..20 {
            h.on_rtt_sample(&mut s, &sample(30_000 + i * 2_500, 23_900, (33 + i) * MSS, 64 * MSS), false);
        }
        assert_eq!(s.ssthresh, u64::MAX, "23.9 ms < 24 ms");
    }

    #[test]
    fn linux_ack_train_fires_past_half_the_minimum_rtt() {
        // minRTT 20 ms; ACKs every 1 ms of one round: the train passes 10 ms at the 11th ACK.
        let mut h = HyStart::new(HyStartMode::Linux);
        let mut s = st(32);
        for i in 0..=10 {
            h.on_rtt_sample(&mut s, &sample(100_000 + i * 1_000, 20_000, (1 + i) * MSS, 64 * MSS), false);
            assert_eq!(s.ssthresh, u64::MAX, "ACK {i}: the train spans {i} ms <= 10 ms");
        }
        h.on_rtt_sample(&mut s, &sample(111_000, 20_000, 12 * MSS, 64 * MSS), false);
        assert_eq!(s.ssthresh, 32 * MSS);
    }

    #[test]
    fn linux_a_gap_breaks_the_train_for_the_round() {
        let mut h = HyStart::new(HyStartMode::Linux);
        let mut s = st(32);
        h.on_rtt_sample(&mut s, &sample(100_000, 20_000, MSS, 64 * MSS), false);
        // 3 ms gap: the train stops at its first ACK, and no later ACK of the round extends it.
        for i in 1..30 {
            h.on_rtt_sample(&mut s, &sample(100_000 + 2_000 + i * 1_000, 20_000, (1 + i) * MSS, 64 * MSS), false);
        }
        assert_eq!(s.ssthresh, u64::MAX);
    }

    #[test]
    fn linux_waits_for_the_low_window_and_restarts_after_a_timeout() {
        let mut h = HyStart::new(HyStartMode::Linux);
        let mut s = st(15);
        for i in 0..30 {
            h.on_rtt_sample(&mut s, &sample(100_000 + i * 1_000, 20_000, (1 + i) * MSS, 64 * MSS), false);
        }
        assert_eq!(s.ssthresh, u64::MAX, "15 segments < hystart_low_window");
        s.cwnd = 16 * MSS;
        h.on_rtt_sample(&mut s, &sample(200_000, 20_000, 100 * MSS, 200 * MSS), false);
        for i in 1..=11 {
            h.on_rtt_sample(&mut s, &sample(200_000 + i * 1_000, 20_000, (100 + i) * MSS, 200 * MSS), false);
        }
        assert_eq!(s.ssthresh, 16 * MSS);
        // A timeout clears the exit and the minimum RTT: a 100 ms path is measured afresh.
        h.on_timeout();
        s.ssthresh = u64::MAX;
        for i in 0..=11 {
            h.on_rtt_sample(&mut s, &sample(300_000 + i * 1_000, 100_000, (300 + i) * MSS, 400 * MSS), false);
        }
        assert_eq!(s.ssthresh, u64::MAX, "the train spans 11 ms < 100 ms / 2");
    }

    #[test]
    fn linux_quiet_samples_do_not_lower_the_minimum() {
        let mut h = HyStart::new(HyStartMode::Linux);
        let mut s = st(32);
        h.on_rtt_sample(&mut s, &sample(0, 20_000, MSS, 32 * MSS), false);
        h.on_rtt_sample(&mut s, &sample(1_000, 5_000, 2 * MSS, 32 * MSS), true);
        assert_eq!(h.delay_min, Some(Time::from_ms(20)));
    }

    /// One HyStart++ round of `n` samples of `rtt_us`, 3 ms apart, acknowledging up to
    /// `*una` and with SND.NXT at `high`.
    fn pp_round(h: &mut HyStart, s: &mut CcState, t: &mut u64, una: &mut u64, high: u64, n: u64, rtt_us: u64) {
        for _ in 0..n {
            *una += MSS;
            *t += 3_000;
            h.on_rtt_sample(s, &sample(*t, rtt_us, *una, high), false);
        }
    }

    #[test]
    fn plus_plus_enters_css_then_congestion_avoidance_after_five_rounds() {
        let mut h = HyStart::new(HyStartMode::PlusPlus);
        let mut s = st(32);
        let (mut t, mut una) = (0, 0);
        // Round 1 at 20 ms, round 2 at 24 ms = 20 + 4: CSS at its 8th sample.
        pp_round(&mut h, &mut s, &mut t, &mut una, 10 * MSS, 10, 20_000);
        pp_round(&mut h, &mut s, &mut t, &mut una, 20 * MSS, 7, 24_000);
        assert_eq!(h.growth(MSS), MSS, "7 samples: still slow start");
        pp_round(&mut h, &mut s, &mut t, &mut una, 20 * MSS, 1, 24_000);
        assert_eq!(h.growth(MSS), MSS / 4, "Conservative Slow Start grows by a quarter");
        assert_eq!(s.ssthresh, u64::MAX);
        // Five more rounds without a fall below the baseline: congestion avoidance.
        let mut high = 20 * MSS;
        for _ in 0..4 {
            let n = high / MSS - una / MSS;
            pp_round(&mut h, &mut s, &mut t, &mut una, high, n, 24_000);
            high += 10 * MSS;
            pp_round(&mut h, &mut s, &mut t, &mut una, high, 1, 24_000);
        }
        assert_eq!(s.ssthresh, u64::MAX, "four CSS rounds");
        let n = high / MSS - una / MSS + 1;
        pp_round(&mut h, &mut s, &mut t, &mut una, high, n, 24_000);
        assert_eq!(s.ssthresh, s.cwnd, "the fifth round ends CSS");
        assert_eq!(h.growth(MSS), MSS);
    }

    #[test]
    fn plus_plus_returns_to_slow_start_when_the_rtt_falls_below_the_baseline() {
        let mut h = HyStart::new(HyStartMode::PlusPlus);
        let mut s = st(32);
        let (mut t, mut una) = (0, 0);
        pp_round(&mut h, &mut s, &mut t, &mut una, 10 * MSS, 10, 20_000);
        pp_round(&mut h, &mut s, &mut t, &mut una, 20 * MSS, 10, 24_000);
        assert_eq!(h.growth(MSS), MSS / 4);
        pp_round(&mut h, &mut s, &mut t, &mut una, 40 * MSS, 8, 21_000);
        assert_eq!(h.growth(MSS), MSS, "21 ms < the 24 ms baseline: a false exit");
    }

    #[test]
    fn plus_plus_is_for_the_initial_slow_start_only() {
        let mut h = HyStart::new(HyStartMode::PlusPlus);
        let mut s = st(32);
        h.on_congestion();
        let (mut t, mut una) = (0, 0);
        pp_round(&mut h, &mut s, &mut t, &mut una, 10 * MSS, 10, 20_000);
        pp_round(&mut h, &mut s, &mut t, &mut una, 20 * MSS, 10, 40_000);
        assert_eq!((s.ssthresh, h.growth(MSS)), (u64::MAX, MSS));
    }
}
