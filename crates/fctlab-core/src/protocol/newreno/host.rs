//! NewReno window growth (RFC 5681 sec. 3.1, RFC 6582), as ns-3 implements it.

use crate::transport::cc::hystart::{HyStart, HyStartMode};
use crate::transport::cc::{CcState, CongestionControl, RttSample};
use crate::units::Time;

/// Slow start +1 MSS per ACK of new data (+ up to L MSS with appropriate byte counting), congestion avoidance +MSS*MSS/cwnd per ACK,
/// ssthresh = max(flight / 2, 2 MSS) on loss.
/// Slow start may end early by HyStart (off by default, as in ns-3).
#[derive(Clone, Debug, Default)]
pub struct NewReno {
    hystart: HyStart,
}

impl NewReno {
    /// NewReno leaving slow start as `hystart` says.
    pub fn new(hystart: HyStartMode) -> NewReno {
        NewReno { hystart: HyStart::new(hystart) }
    }
}

impl CongestionControl for NewReno {
    fn wants_rtt_samples(&self) -> bool {
        self.hystart.is_on()
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        self.hystart.on_rtt_sample(st, s, false);
    }

    fn on_ack(&mut self, st: &mut CcState, _now: Time, acked: u64, _srtt: Option<Time>) {
        if acked == 0 {
            return;
        }
        if st.in_slow_start() {
            // RFC 5681 eq. 2: cwnd += min(N, SMSS); with appropriate byte counting (RFC 3465
            // sec. 2.2) cwnd += min(N, L x SMSS).
            st.cwnd += self.hystart.growth(acked.min(st.abc));
        } else {
            // RFC 5681 eq. 3: cwnd += SMSS*SMSS/cwnd, at least one byte.
            st.cwnd += (st.mss * st.mss / st.cwnd).max(1);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, _now: Time, flight: u64) {
        // RFC 5681 eq. 4.
        st.ssthresh = (flight / 2).max(2 * st.mss);
        st.cwnd = st.ssthresh;
        self.hystart.on_congestion();
    }

    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        self.on_congestion(st, now, flight);
        st.cwnd = st.mss;
        self.hystart.on_timeout();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(cwnd: u64, ssthresh: u64) -> CcState {
        CcState { cwnd, ssthresh, mss: 1000, abc: 1000 }
    }

    #[test]
    fn slow_start_adds_one_mss_per_ack() {
        let mut s = st(4000, u64::MAX);
        NewReno::default().on_ack(&mut s, Time::ZERO, 1000, None);
        assert_eq!(s.cwnd, 5000);
        // A stretch ACK still adds one MSS at most.
        NewReno::default().on_ack(&mut s, Time::ZERO, 3000, None);
        assert_eq!(s.cwnd, 6000);
    }

    #[test]
    fn appropriate_byte_counting_adds_up_to_l_segments_per_ack() {
        // RFC 3465 L = 2 (Linux's growth per delayed ACK, RC3 paper sec. 5.2).
        let mut s = CcState { abc: 2000, ..st(4000, u64::MAX) };
        NewReno::default().on_ack(&mut s, Time::ZERO, 2000, None);
        assert_eq!(s.cwnd, 6000, "a delayed ACK of two segments adds two");
        NewReno::default().on_ack(&mut s, Time::ZERO, 5000, None);
        assert_eq!(s.cwnd, 8000, "a stretch ACK of five adds two");
        NewReno::default().on_ack(&mut s, Time::ZERO, 1000, None);
        assert_eq!(s.cwnd, 9000);
        // Congestion avoidance is unchanged.
        let mut ca = CcState { abc: 2000, ..st(10_000, 10_000) };
        NewReno::default().on_ack(&mut ca, Time::ZERO, 2000, None);
        assert_eq!(ca.cwnd, 10_100);
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window() {
        let mut s = st(10_000, 10_000);
        for _ in 0..10 {
            NewReno::default().on_ack(&mut s, Time::ZERO, 1000, None);
        }
        // Ten ACKs of one window grow cwnd by at most one MSS.
        assert!(s.cwnd > 10_000 && s.cwnd <= 11_000, "{}", s.cwnd);
    }

    #[test]
    fn loss_halves_the_flight_but_keeps_two_segments() {
        let mut s = st(20_000, u64::MAX);
        NewReno::default().on_congestion(&mut s, Time::ZERO, 20_000);
        assert_eq!((s.cwnd, s.ssthresh), (10_000, 10_000));
        NewReno::default().on_timeout(&mut s, Time::ZERO, 1_000);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 2000));
    }
}
