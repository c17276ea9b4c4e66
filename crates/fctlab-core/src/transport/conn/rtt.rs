//! Round-trip time estimation and the retransmission timeout (RFC 6298).

use crate::units::Time;

/// SRTT, RTTVAR and RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    base_rto: Time,
    min_rto: Time,
    max_rto: Time,
    /// RFC 6298's clock granularity G: RTO = SRTT + max(G, 4 RTTVAR).
    granularity: Time,
    backoff: u32,
}

impl RttEstimator {
    /// An estimator with no sample yet: RTO = `initial` (RFC 6298 sec. 2.1).
    pub fn new(initial: Time, min_rto: Time, max_rto: Time) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: Time::ZERO,
            base_rto: initial,
            min_rto,
            max_rto,
            granularity: Time::ZERO,
            backoff: 0,
        }
    }

    /// The same estimator with clock granularity `g` (RFC 6298's G; 0 by default, the
    /// simulator's clock being exact). With G = 0 and a path whose RTT hardly varies, RTTVAR
    /// decays towards 0 and the RTO towards SRTT itself, so a few milliseconds of extra delay
    /// fire a spurious timeout once SRTT exceeds `min_rto`; a G of the order of `min_rto` keeps
    /// RTO >= SRTT + G, much as Linux keeps RTO >= SRTT + 200 ms.
    pub fn with_granularity(mut self, g: Time) -> RttEstimator {
        self.granularity = g;
        self
    }

    /// Takes one RTT measurement (RFC 6298 sec. 2.2-2.3) and clears the backoff (sec. 5.7).
    pub fn sample(&mut self, r: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Time(r.0 / 2);
            }
            Some(s) => {
                let err = s.0.abs_diff(r.0);
                // RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|;  SRTT <- 7/8 SRTT + 1/8 R'.
                self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Time((7 * s.0 + r.0) / 8));
            }
        }
        let s = self.srtt.unwrap_or(r);
        // RTO <- SRTT + max(G, K*RTTVAR), K = 4.
        self.base_rto = (s + Time(4 * self.rttvar.0).max(self.granularity)).max(self.min_rto);
        self.backoff = 0;
    }

    /// Doubles the RTO after a timeout (RFC 6298 sec. 5.5).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// The current retransmission timeout, backoff included, within [min, max].
    pub fn rto(&self) -> Time {
        let r = Time(self.base_rto.0.saturating_mul(1u64 << self.backoff));
        r.max(self.min_rto).min(self.max_rto)
    }

    /// Smoothed RTT, once measured.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Time::from_secs(1), Time::from_ms(200), Time::from_secs(60))
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = est();
        assert_eq!(e.rto(), Time::from_secs(1));
        e.sample(Time::from_ms(100));
        // RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.rto(), Time::from_ms(300));
    }

    /// A constant RTT drives RTTVAR and so 4 RTTVAR to 0: RTO falls to SRTT with G = 0, and to
    /// SRTT + G with a granularity.
    #[test]
    fn granularity_keeps_the_rto_above_a_steady_rtt() {
        let mut exact = RttEstimator::new(Time::from_secs(1), Time::from_ms(200), Time::from_secs(60));
        let mut coarse = exact.clone().with_granularity(Time::from_ms(200));
        for _ in 0..200 {
            exact.sample(Time::from_ms(1600));
            coarse.sample(Time::from_ms(1600));
        }
        assert!(exact.rto() < Time::from_ms(1601), "{:?}", exact.rto());
        assert_eq!(coarse.rto(), Time::from_ms(1800));
    }

    #[test]
    fn rto_is_floored_and_backs_off_exponentially() {
        let mut e = est();
        e.sample(Time::from_ms(10));
        e.sample(Time::from_ms(10));
        assert_eq!(e.rto(), Time::from_ms(200));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), Time::from_ms(800));
        e.sample(Time::from_ms(10));
        assert_eq!(e.rto(), Time::from_ms(200));
    }
}
