//! CUBIC window growth (RFC 9438), with C = 0.4, beta_cubic = 0.7, fast convergence and the
//! Reno-friendly region on, and Reno slow start (RFC 5681) below ssthresh, which HyStart may
//! end early (`transport/cc/hystart.rs`: Linux turns it on with CUBIC).
//!
//! "Fig. N" in the comments is the RFC's numbered equation (RFC 9438 numbers its equations
//! as figures: Fig. 1 W_cubic, Fig. 2 K, Fig. 4 W_est, Fig. 5 multiplicative decrease).
//!
//! The RFC counts windows in segments and time in seconds; [`CcState`] counts bytes. The
//! controller keeps W_max, cwnd_prior and W_est in bytes (as `f64`) and converts only where
//! C (segments/s^3) enters: W_cubic(t) = C (t - K)^3 MSS + W_max. Growth per ACK is scaled by
//! the bytes it acknowledges (the RFC's byte-counting reading of "per new ACK"), and the
//! sub-byte part of each increment is carried over so that slow growth near W_max is not lost
//! to integer truncation.
//!
//! Choices the RFC leaves open, made here:
//! - The target uses the smoothed RTT the sender passes; before the first RTT sample it uses
//!   [`DEFAULT_RTT`] (100 ms).
//! - The epoch (t_epoch, cwnd_epoch, K, W_est) starts at the first ACK in congestion
//!   avoidance, so recovery time does not count towards t.
//! - When no W_max is defined at the start of an epoch (after a timeout, sec. 4.8; or when the
//!   first slow start ends at a configured ssthresh without loss, sec. 4.10), or when W_max is
//!   below cwnd_epoch (Fig. 2 would give a negative K), K = 0 and W_max = cwnd_epoch.
//! - In the Reno-friendly region (W_cubic(t) < W_est) cwnd becomes the larger of W_est and the
//!   cubic step, never less than it was: an ACK never shrinks the window, which the RFC's
//!   literal "cwnd = W_est" would do when cwnd has already run ahead of W_est.
//! - Arithmetic uses only IEEE-754 +, -, *, / (correctly rounded everywhere) and a Newton cube
//!   root of our own, because std's `cbrt`/`powi` may differ in the last bits across
//!   platforms, and runs must be bit-identical on every machine.
//!
//! Not modelled, for want of a hook in [`CongestionControl`]: excluding application-limited
//! periods from t (sec. 4.2; harmless while every flow is a bulk transfer) and undoing
//! spurious congestion events (sec. 4.9, a MAY).

use crate::transport::cc::hystart::{HyStart, HyStartMode, EPOCH_QUIET};
use crate::transport::cc::{CcState, CongestionControl, RttSample};
use crate::units::Time;

/// C, the aggressiveness of the cubic function, in segments per second cubed (sec. 5).
pub const C: f64 = 0.4;
/// beta_cubic, the multiplicative decrease factor (sec. 4.6).
pub const BETA_CUBIC: f64 = 0.7;
/// beta_cubic as the exact ratio 7/10, so that byte windows reduce without float rounding.
const BETA_NUM: u64 = 7;
const BETA_DEN: u64 = 10;
/// alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic), the Reno-friendly additive increase
/// per RTT (sec. 4.3) that gives AIMD(alpha_cubic, 0.7) Reno's average window.
pub const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC);
/// The RTT the target W_cubic(t + RTT) uses before the sender has an RTT sample.
pub const DEFAULT_RTT: Time = Time::from_ms(100);

/// CUBIC congestion controller state (RFC 9438); build with `Cubic::default()`.
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    /// W_max in bytes: cwnd before the last reduction, lowered by fast convergence; `None`
    /// before the first congestion event and after a timeout (sec. 4.8).
    w_max: Option<f64>,
    /// cwnd_prior in bytes: cwnd when ssthresh was last set (sec. 4.1 definitions).
    cwnd_prior: Option<f64>,
    /// The current congestion-avoidance stage; `None` until its first ACK.
    epoch: Option<Epoch>,
    /// Fraction of a byte of window growth not yet added to the integer cwnd, in [0, 1).
    carry: f64,
    /// The slow-start exit (Linux's HyStart by default in scenarios; off in `default()`).
    hystart: HyStart,
}

/// One congestion-avoidance stage: the quantities fixed at its start, and W_est.
#[derive(Copy, Clone, Debug)]
struct Epoch {
    /// t_epoch.
    start: Time,
    /// K, seconds (Fig. 2).
    k: f64,
    /// W_est, the Reno-friendly window estimate, bytes (Fig. 4).
    w_est: f64,
}

impl Cubic {
    /// CUBIC leaving slow start as `hystart` says.
    pub fn new(hystart: HyStartMode) -> Cubic {
        Cubic { hystart: HyStart::new(hystart), ..Cubic::default() }
    }

    /// Starts a congestion-avoidance stage at `now` with cwnd_epoch = `cwnd` bytes.
    fn start_epoch(&mut self, now: Time, cwnd: f64, mss: f64) -> Epoch {
        let k = match self.w_max {
            // Fig. 2: K = cbrt((W_max - cwnd_epoch) / C), in segments.
            Some(w_max) if w_max > cwnd => cube_root((w_max - cwnd) / mss / C),
            // Sec. 4.8 / 4.10: K = 0 and W_max = cwnd_epoch.
            _ => {
                self.w_max = Some(cwnd);
                0.0
            }
        };
        // Sec. 4.10: a first slow start that ends without loss sets cwnd_prior = cwnd.
        self.cwnd_prior.get_or_insert(cwnd);
        // Sec. 4.3: W_est = cwnd_epoch at the start of the stage.
        let epoch = Epoch { start: now, k, w_est: cwnd };
        self.epoch = Some(epoch);
        epoch
    }

    /// W_cubic(t) in bytes, t in seconds since the epoch start (Fig. 1).
    fn w_cubic(&self, t: f64, k: f64, mss: f64) -> f64 {
        let d = t - k;
        C * d * d * d * mss + self.w_max.unwrap_or(0.0)
    }

    /// Sec. 4.6 and 4.7: updates W_max and cwnd_prior, sets ssthresh (Fig. 5) and ends the epoch.
    fn reduce(&mut self, st: &mut CcState, flight: u64) {
        let cwnd = st.cwnd as f64 + self.carry;
        // Sec. 4.7, fast convergence: a loss below W_max means the saturation point fell, so
        // release more bandwidth by remembering less than the current window.
        self.w_max = Some(match self.w_max {
            Some(w_max) if cwnd < w_max => cwnd * (1.0 + BETA_CUBIC) / 2.0,
            _ => cwnd,
        });
        self.cwnd_prior = Some(cwnd);
        // Fig. 5: ssthresh = flight_size * beta_cubic, at least 2 MSS. The RFC uses flight_size,
        // not cwnd, so that an under-used window cannot set a high ssthresh.
        let reduced = (flight as u128 * BETA_NUM as u128 / BETA_DEN as u128) as u64;
        st.ssthresh = reduced.max(2 * st.mss);
        self.epoch = None;
        self.carry = 0.0;
    }
}

impl CongestionControl for Cubic {
    fn wants_rtt_samples(&self) -> bool {
        self.hystart.is_on()
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        // Linux discards samples within a second of an epoch's start for the minimum RTT.
        let quiet = self.epoch.is_some_and(|e| s.now.saturating_sub(e.start) < EPOCH_QUIET);
        self.hystart.on_rtt_sample(st, s, quiet);
    }

    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if st.in_slow_start() {
            // Sec. 4.10 with Reno slow start, RFC 5681 eq. 2: cwnd += min(N, SMSS) (RFC 3465:
            // min(N, L x SMSS)).
            // HyStart++'s Conservative Slow Start grows by a quarter of that.
            st.cwnd += self.hystart.growth(acked.min(st.abc));
            return;
        }
        let mss = st.mss as f64;
        let cwnd = st.cwnd as f64 + self.carry;
        let epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now, cwnd, mss),
        };
        let t = now.saturating_sub(epoch.start).as_secs_f64();
        let rtt = srtt.unwrap_or(DEFAULT_RTT).as_secs_f64();

        // Sec. 4.2: target = W_cubic(t + RTT), bounded to [cwnd, 1.5 cwnd] so the increase
        // rate never falls and stays below slow start's.
        let target = self.w_cubic(t + rtt, epoch.k, mss).clamp(cwnd, 1.5 * cwnd);
        // Sec. 4.4 / 4.5 (concave and convex alike): cwnd += (target - cwnd) / cwnd per
        // segment acknowledged; a stretch ACK may not carry cwnd past the target.
        let cubic_next = (cwnd + (target - cwnd) * acked as f64 / cwnd).min(target);

        // Fig. 4: W_est += alpha * segments_acked / cwnd (in bytes: alpha * MSS * acked / cwnd),
        // with alpha = 1 once W_est has reached cwnd_prior (sec. 4.3).
        let alpha = match self.cwnd_prior {
            Some(prior) if epoch.w_est < prior => ALPHA_CUBIC,
            _ => 1.0,
        };
        let w_est = epoch.w_est + alpha * mss * acked as f64 / cwnd;
        self.epoch = Some(Epoch { w_est, ..epoch });

        // Sec. 4.3: Reno-friendly region when W_cubic(t) < W_est; take the larger window.
        let next = if self.w_cubic(t, epoch.k, mss) < w_est { cubic_next.max(w_est) } else { cubic_next };
        let whole = next.floor();
        st.cwnd = whole as u64;
        self.carry = next - whole;
    }

    fn on_congestion(&mut self, st: &mut CcState, _now: Time, flight: u64) {
        self.reduce(st, flight);
        // Fig. 5: cwnd = max(ssthresh, 2 MSS) on loss; ssthresh already carries the floor.
        st.cwnd = st.ssthresh;
        self.hystart.on_congestion();
    }

    fn on_timeout(&mut self, st: &mut CcState, _now: Time, flight: u64) {
        // Sec. 4.8: ssthresh as in sec. 4.6, cwnd as Reno (RFC 5681: one segment).
        self.reduce(st, flight);
        st.cwnd = st.mss;
        // Sec. 4.8: the next stage starts with K = 0 and W_max = cwnd_epoch.
        self.w_max = None;
        self.hystart.on_timeout();
    }
}

/// Cube root by Newton's method with basic IEEE-754 operations only, bit-identical on every
/// platform (unlike `f64::cbrt`, whose last bits the standard library leaves unspecified).
fn cube_root(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    if x < 0.0 {
        return -cube_root(-x);
    }
    // Start at 2^floor(e/3) for x = m 2^e: below the root by less than a factor of 2, from
    // where eight Newton steps reach full double precision.
    let e = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let mut y = f64::from_bits(((e.div_euclid(3) + 1023) as u64) << 52);
    for _ in 0..8 {
        y -= (y * y * y - x) / (3.0 * y * y);
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::newreno::NewReno;

    const MSS: u64 = 1000;

    fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState { cwnd, ssthresh, mss: MSS, abc: MSS }
    }

    /// One RTT of ACK clocking: one ACK of one MSS per segment of the window, evenly spaced
    /// from `t0`; returns the time of the next round. Checks that no ACK shrinks the window.
    fn one_round<T: CongestionControl>(cc: &mut T, s: &mut CcState, t0: Time, rtt: Time) -> Time {
        let n = (s.cwnd / s.mss).max(1);
        let mss = s.mss;
        for i in 0..n {
            let before = s.cwnd;
            cc.on_ack(s, t0 + Time(rtt.ps() * i / n), mss, Some(rtt));
            assert!(s.cwnd >= before, "an ACK shrank cwnd from {before} to {}", s.cwnd);
        }
        t0 + rtt
    }

    /// A loss at `cwnd` = flight, then recovery ending: the window CUBIC resumes from.
    fn loss_at(c: &mut Cubic, s: &mut CcState, now: Time) {
        let flight = s.cwnd;
        c.on_congestion(s, now, flight);
        c.on_recovery_end(s, now);
    }

    #[test]
    fn cube_root_is_accurate() {
        for &x in &[75.0, 750.0, 27.0, 1e-6, 3.5e9, 0.4] {
            let y = cube_root(x);
            assert!(((y - x.cbrt()) / x.cbrt()).abs() < 1e-15, "cbrt({x}) = {y}");
        }
        assert_eq!(cube_root(0.0), 0.0);
        assert!((cube_root(-8.0) + 2.0).abs() < 1e-15);
    }

    #[test]
    fn k_follows_eq2_for_a_known_w_max() {
        // Loss at W_max = 100 MSS: cwnd_epoch = 70 MSS, K = cbrt(30 / 0.4) = cbrt(75) s.
        let (mut c, mut s) = (Cubic::default(), st(100_000, u64::MAX));
        loss_at(&mut c, &mut s, Time::ZERO);
        assert_eq!((s.cwnd, s.ssthresh), (70_000, 70_000));
        c.on_ack(&mut s, Time::from_ms(10), MSS, Some(Time::from_ms(10)));
        let e = c.epoch.expect("the first ACK in congestion avoidance starts an epoch");
        assert_eq!(e.start, Time::from_ms(10));
        assert!((e.k - 4.217_163_326_508_746).abs() < 1e-12, "K = {}", e.k);
        assert_eq!(c.w_max, Some(100_000.0));
    }

    #[test]
    fn window_regains_w_max_after_k_then_probes_convexly() {
        // W_max = 1000 MSS at a 100 ms RTT: a large BDP, so the cubic curve (not W_est) rules.
        // K = cbrt(300 / 0.4) = 9.0856 s.
        let rtt = Time::from_ms(100);
        let (mut c, mut s) = (Cubic::default(), st(1_000_000, u64::MAX));
        loss_at(&mut c, &mut s, Time::ZERO);
        let t0 = rtt;
        let k = cube_root(300.0 / C);
        let mut samples = Vec::new(); // (seconds since the epoch, cwnd in MSS)
        let mut t = t0;
        while t.saturating_sub(t0).as_secs_f64() < k + 3.05 {
            samples.push((t.saturating_sub(t0).as_secs_f64(), s.cwnd as f64 / MSS as f64));
            t = one_round(&mut c, &mut s, t, rtt);
        }
        let at = |x: f64| {
            samples.iter().min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs())).map(|p| p.1).unwrap_or(0.0)
        };
        // Concave: below W_max until K (less one RTT of look-ahead), growth slowing down.
        for &(ts, w) in &samples {
            if ts <= k - 0.1 {
                assert!(w <= 1000.0, "cwnd {w} above W_max at t = {ts}");
            }
        }
        assert!(at(1.0) - at(0.0) > 4.0 * (at(k) - at(k - 1.0)), "concave growth does not slow");
        // At K the window is back at W_max.
        assert!((at(k) - 1000.0).abs() < 2.0, "cwnd at K = {}", at(k));
        // Convex: growth speeds up after K and follows W_cubic(t) = W_max + C (t - K)^3.
        let (g1, g2, g3) = (at(k + 1.0) - at(k), at(k + 2.0) - at(k + 1.0), at(k + 3.0) - at(k + 2.0));
        assert!(0.0 < g1 && g1 < g2 && g2 < g3, "convex growth {g1} {g2} {g3}");
        assert!((at(k + 3.0) - (1000.0 + C * 27.0)).abs() < 2.0, "cwnd at K + 3 s = {}", at(k + 3.0));
    }

    #[test]
    fn loss_keeps_seventy_percent_and_fast_convergence_lowers_w_max() {
        let (mut c, mut s) = (Cubic::default(), st(100_000, u64::MAX));
        c.on_congestion(&mut s, Time::ZERO, 100_000);
        assert_eq!((s.cwnd, s.ssthresh), (70_000, 70_000));
        assert_eq!((c.w_max, c.cwnd_prior), (Some(100_000.0), Some(100_000.0)));
        // A second loss at 90 MSS, before W_max was regained: W_max = 90 * (1 + 0.7) / 2.
        s.cwnd = 90_000;
        c.on_congestion(&mut s, Time::from_secs(1), 90_000);
        assert_eq!((s.cwnd, s.ssthresh), (63_000, 63_000));
        assert!((c.w_max.unwrap_or(0.0) - 76_500.0).abs() < 1e-6, "{:?}", c.w_max);
        // A loss above W_max remembers cwnd itself.
        s.cwnd = 80_000;
        c.on_congestion(&mut s, Time::from_secs(2), 80_000);
        assert_eq!(c.w_max, Some(80_000.0));
        // ssthresh follows flight_size, not cwnd, and keeps two segments.
        c.on_congestion(&mut s, Time::from_secs(3), 1_000);
        assert_eq!((s.cwnd, s.ssthresh), (2_000, 2_000));
    }

    #[test]
    fn reno_friendly_region_grows_at_least_like_reno_at_small_bdp() {
        // 1 ms RTT, losses whenever cwnd reaches 20 MSS: K = cbrt(6 / 0.4) = 2.5 s is 2,500
        // RTTs, so the cubic curve is flat and CUBIC must grow by W_est to keep up with Reno.
        let rtt = Time::from_ms(1);
        let limit = 20 * MSS;
        let run = |cc: &mut dyn FnMut(&mut CcState, Time, bool)| {
            let mut s = st(limit, limit);
            let (mut t, mut sum, mut min_growth) = (Time::ZERO, 0u64, u64::MAX);
            for round in 0..400 {
                sum += s.cwnd;
                let before = s.cwnd;
                let lose = s.cwnd >= limit;
                cc(&mut s, t, lose);
                if round > 0 && s.cwnd > before {
                    min_growth = min_growth.min(s.cwnd - before);
                }
                t += rtt;
            }
            (sum as f64 / 400.0 / MSS as f64, min_growth)
        };
        let mut cubic = Cubic::default();
        let (cubic_avg, cubic_min_growth) = run(&mut |s, t, lose| {
            if lose {
                loss_at(&mut cubic, s, t);
            } else {
                one_round(&mut cubic, s, t, rtt);
            }
        });
        let mut reno = NewReno::default();
        let (reno_avg, _) = run(&mut |s, t, lose| {
            if lose {
                let flight = s.cwnd;
                reno.on_congestion(s, t, flight);
            } else {
                one_round(&mut reno, s, t, rtt);
            }
        });
        assert!(cubic_avg >= reno_avg, "CUBIC average {cubic_avg} MSS < Reno's {reno_avg}");
        // alpha_cubic = 0.53 MSS per RTT (less the fraction of the window that is not a whole
        // segment), where the cubic curve alone gives < 0.01 MSS.
        assert!(cubic_min_growth >= 45 * MSS / 100, "slowest CUBIC growth {cubic_min_growth} B per RTT");
    }

    #[test]
    fn timeout_drops_to_one_segment_and_restarts_the_epoch() {
        let (mut c, mut s) = (Cubic::default(), st(50_000, 30_000));
        c.on_ack(&mut s, Time::from_secs(1), MSS, None);
        assert_eq!(c.epoch.map(|e| e.start), Some(Time::from_secs(1)));
        let prior = s.cwnd as f64 + c.carry;

        c.on_timeout(&mut s, Time::from_secs(2), 50_000);
        assert_eq!((s.cwnd, s.ssthresh), (MSS, 35_000));
        assert!(c.epoch.is_none() && c.w_max.is_none());

        // Slow start back to ssthresh, then a fresh epoch with K = 0 and W_max = W_est = cwnd_epoch.
        let mut now = Time::from_secs(3);
        while s.in_slow_start() {
            c.on_ack(&mut s, now, MSS, None);
            now += Time::from_ms(1);
        }
        assert!(c.epoch.is_none(), "slow start must not start an epoch");
        let cwnd_epoch = s.cwnd as f64;
        c.on_ack(&mut s, now, MSS, None);
        let e = c.epoch.expect("epoch restarted");
        assert_eq!((e.start, e.k), (now, 0.0));
        assert_eq!(c.w_max, Some(cwnd_epoch));
        assert_eq!(c.cwnd_prior, Some(prior));
        assert!(e.w_est > cwnd_epoch && e.w_est < cwnd_epoch + MSS as f64);
    }

    #[test]
    fn slow_start_below_ssthresh_adds_one_mss_per_ack() {
        let (mut c, mut s) = (Cubic::default(), st(4_000, u64::MAX));
        c.on_ack(&mut s, Time::ZERO, MSS, None);
        assert_eq!(s.cwnd, 5_000);
        // A stretch ACK adds one MSS at most; an ACK of nothing adds nothing.
        c.on_ack(&mut s, Time::ZERO, 3 * MSS, None);
        c.on_ack(&mut s, Time::ZERO, 0, None);
        assert_eq!(s.cwnd, 6_000);
        assert!(c.epoch.is_none() && c.w_max.is_none());
    }

    #[test]
    fn missing_srtt_means_100ms() {
        let grow = |srtt: Option<Time>| {
            let (mut c, mut s) = (Cubic::default(), st(100_000, u64::MAX));
            loss_at(&mut c, &mut s, Time::ZERO);
            for i in 0..2_000u64 {
                c.on_ack(&mut s, Time::from_ms(5 * i), MSS, srtt);
            }
            s.cwnd
        };
        assert_eq!(grow(None), grow(Some(DEFAULT_RTT)));
        assert_ne!(grow(None), grow(Some(Time::from_ms(1))));
    }
}
