//! The steady state of N identical long-lived DCTCP flows through one bottleneck (DCTCP paper,
//! sec. 3.3), in packets, and how closely that analysis can pin the fraction of marked packets.
//!
//! With C x RTT the bandwidth-delay product and K the marking threshold, the windows meet the
//! threshold at
//!
//! ```text
//! W*     = (C x RTT + K) / N
//! alpha:   alpha^2 (1 - alpha/4) = (2 W* + 1) / (W* + 1)^2,   alpha ~ sqrt(2 / W*)
//! D      = (W* + 1) alpha / 2           each flow's cut = the sawtooth's period in RTTs
//! A      = N D ~ (1/2) sqrt(2 N (C x RTT + K))
//! Q_max  = K + N,   Q_min = Q_max - A
//! ```
//!
//! The analysis takes alpha as constant over a sawtooth. DCTCP's alpha is the moving average
//! of the per-window fraction F (`host.rs`, eq. 1), so in steady state it rises by g (1 - alpha) once per sawtooth,
//! in the window that carries the marks, and decays by (1 - g) in each of the other D - 1; the
//! cut comes at the first marked ACK, before that window's update, so it uses alpha at its
//! trough,
//!
//! ```text
//!        alpha_cut = g (1 - g)^(D-1) / (1 - (1 - g)^D),   D = (W* + 1) alpha_cut / 2
//! ```
//!
//! and with one marked window in D the marked fraction is 1 / D, above the analysis's alpha where the
//! sawtooth lasts several windows (+6% at W* = 74 with g = 1/16), about equal to it at a few.
//! [`SawtoothQueue::alpha_tolerance`] adds that to the analysis's other two approximations of
//! alpha: the square root, and windows counted in whole packets.

/// The shape of the queue under N identical long-lived DCTCP flows (sec. 3.3), in packets:
/// `bdp` = C x RTT in packets, `k` the marking threshold.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SawtoothQueue {
    /// W* = (C x RTT + K) / N: the window at which the queue reaches K.
    pub w_star: f64,
    /// Q_max = K + N: the queue when the windows reach W* + 1.
    pub q_max: f64,
    /// A = N D = (1/2) sqrt(2 N (C x RTT + K)): the amplitude of the oscillation.
    pub amplitude: f64,
    /// Q_min = Q_max - A.
    pub q_min: f64,
    /// T_C = D = (1/2) sqrt(2 (C x RTT + K) / N): the period, in round-trip times.
    pub period_rtts: f64,
}

impl SawtoothQueue {
    /// The analysis of sec. 3.3 for `n` flows, `bdp` = C x RTT and threshold `k`, in packets.
    pub fn new(n: f64, bdp: f64, k: f64) -> SawtoothQueue {
        let q_max = k + n;
        let amplitude = 0.5 * (2.0 * n * (bdp + k)).sqrt();
        SawtoothQueue {
            w_star: (bdp + k) / n,
            q_max,
            amplitude,
            q_min: q_max - amplitude,
            period_rtts: 0.5 * (2.0 * (bdp + k) / n).sqrt(),
        }
    }

    /// The paper's guideline for a queue that never drains (Q_min > 0): K > (C x RTT) / 7.
    pub fn k_guideline(bdp: f64) -> f64 {
        bdp / 7.0
    }

    /// The analysis's alpha ~ sqrt(2 / W*).
    pub fn alpha(&self) -> f64 {
        (2.0 / self.w_star).sqrt()
    }

    /// The analysis's alpha before its approximation: the root in (0, 1] of alpha^2 (1 - alpha/4) =
    /// (2 W* + 1) / (W* + 1)^2 (1 where there is none, W* below about 1.4: every packet marked).
    pub fn alpha_exact(&self) -> f64 {
        let w = self.w_star;
        let rhs = (2.0 * w + 1.0) / ((w + 1.0) * (w + 1.0));
        bisect(|a| a * a * (1.0 - a / 4.0) - rhs, 1.0)
    }

    /// The marked fraction 1 / D when the cut uses the trough of DCTCP's moving average with
    /// weight `g` (module docs), where the analysis holds alpha constant.
    pub fn alpha_ewma(&self, g: f64) -> f64 {
        let half = (self.w_star + 1.0) / 2.0;
        let trough = |d: f64| g * (1.0 - g).powf(d - 1.0) / (1.0 - (1.0 - g).powf(d));
        let alpha_cut = bisect(|a| a - trough(half * a), 1.0);
        1.0 / (half * alpha_cut)
    }

    /// The relative distance from sqrt(2 / W*) within which the analysis cannot tell a marked
    /// fraction (or a mean alpha) apart: the square root's error against the exact root, the
    /// moving average's bias where it raises the fraction ([`SawtoothQueue::alpha_ewma`]), and
    /// 1 / W* for windows of whole packets (a flow's marked span is one window give or take a
    /// packet).
    pub fn alpha_tolerance(&self, g: f64) -> f64 {
        let (approx, exact) = (self.alpha(), self.alpha_exact());
        (approx - exact).abs() / approx + (self.alpha_ewma(g) / exact - 1.0).max(0.0) + 1.0 / self.w_star
    }
}

/// The root in (0, `hi`] of an increasing `f` (`hi` if f stays below 0 there).
fn bisect(f: impl Fn(f64) -> f64, hi: f64) -> f64 {
    if f(hi) <= 0.0 {
        return hi;
    }
    let (mut lo, mut hi) = (0.0, hi);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C x RTT at 10 Gb/s, RTT 100 us, 1,500-byte packets.
    const BDP_10G: f64 = 10e9 * 100e-6 / (1500.0 * 8.0);

    /// Sec. 3.3 at 10 Gb/s, RTT 100 us (C x RTT = 83.3 packets), K = 40, two flows:
    /// Q_max = 42, A = (1/2) sqrt(4 x 123.3) = 11.1.
    #[test]
    fn the_sawtooth_of_two_flows_at_10_gbps() {
        let s = SawtoothQueue::new(2.0, BDP_10G, 40.0);
        assert_eq!(s.q_max, 42.0);
        assert!((s.amplitude - 0.5 * (4.0 * (BDP_10G + 40.0)).sqrt()).abs() < 1e-12);
        assert!((s.amplitude - 11.10).abs() < 0.01, "{}", s.amplitude);
        assert!((s.q_min - 30.90).abs() < 0.01);
        // Q_min > 0 for every N exactly when K exceeds about C x RTT / 7: at the guideline's
        // K the worst N leaves the queue just above zero.
        let k = SawtoothQueue::k_guideline(BDP_10G);
        let worst = (1..200).map(|n| SawtoothQueue::new(n as f64, BDP_10G, k).q_min).fold(f64::INFINITY, f64::min);
        assert!(worst > -1.0 && worst < 2.0, "{worst}");
    }

    /// The exact root solves the cubic and nears sqrt(2 / W*) as W* grows; below W* of
    /// about 1.4 there is none and every packet is marked.
    #[test]
    fn the_exact_alpha_solves_the_cubic() {
        for w in [2.5, 10.0, 74.17, 500.0] {
            let s = SawtoothQueue { w_star: w, ..SawtoothQueue::new(1.0, w, 0.0) };
            let a = s.alpha_exact();
            assert!((a * a * (1.0 - a / 4.0) - (2.0 * w + 1.0) / ((w + 1.0) * (w + 1.0))).abs() < 1e-12, "{w}");
        }
        let s = SawtoothQueue::new(2.0, BDP_10G, 65.0);
        assert!((s.w_star - 74.17).abs() < 0.01);
        assert!((s.alpha() - 0.1642).abs() < 1e-4 && (s.alpha_exact() - 0.1661).abs() < 1e-4);
        assert_eq!(SawtoothQueue::new(1.0, 1.0, 0.0).alpha_exact(), 1.0);
    }

    /// Two flows at 10 Gb/s, K = 65, g = 1/16: the sawtooth lasts D = 5.67 windows, the cut
    /// uses alpha = 0.151 and one marked window in D is 0.176, 6% above the exact 0.166; the
    /// tolerance is 1.1% (root) + 6.2% (moving average) + 1.3% (whole packets). With ten flows
    /// (W* = 14.8, D = 2.7) the moving average changes nothing and whole packets dominate.
    #[test]
    fn the_moving_average_raises_the_marked_fraction_of_long_sawtooths() {
        let s = SawtoothQueue::new(2.0, BDP_10G, 65.0);
        let f = s.alpha_ewma(1.0 / 16.0);
        assert!((f - 0.1764).abs() < 1e-3, "{f}");
        let tol = s.alpha_tolerance(1.0 / 16.0);
        assert!((tol - 0.087).abs() < 1e-3, "{tol}");
        let s = SawtoothQueue::new(10.0, BDP_10G, 65.0);
        assert!((s.alpha_ewma(1.0 / 16.0) / s.alpha_exact() - 1.0).abs() < 0.01);
        assert!((s.alpha_tolerance(1.0 / 16.0) - 1.0 / s.w_star).abs() < 0.01);
        // As g falls the average spans many sawtooths, the cut uses alpha's mean, and the
        // fraction tends to the constant-alpha sawtooth's sqrt(2 / (W* + 1)).
        let two = SawtoothQueue::new(2.0, BDP_10G, 65.0);
        let slow = two.alpha_ewma(1e-4);
        assert!((slow - (2.0 / (two.w_star + 1.0)).sqrt()).abs() < 1e-3, "{slow}");
    }
}
