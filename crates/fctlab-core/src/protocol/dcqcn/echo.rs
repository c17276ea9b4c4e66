//! DCQCN's NP (Zhu et al. 2015, sec. 3.1, "NP algorithm"): when a CE-marked packet of a flow
//! arrives and no CNP was sent for the flow in the last N microseconds, a CNP is sent at once;
//! so at most one CNP per N per flow.
//!
//! In fctlab the CNP is the ECE flag of the receiver's next ACK (with one ACK per packet, the
//! default, the ACK of the marked packet itself). With delayed ACKs it rides the next ACK that
//! leaves, whatever it covers. N runs from the marked packet that raised the CNP.

use crate::transport::exact_echo::ExactEcho;
use crate::units::Time;

/// The NP's state for one flow.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DcqcnEcho {
    /// N: the least time between two CNPs of the flow.
    interval: Time,
    /// When the last CNP was raised (None: never).
    last: Option<Time>,
    /// A CNP waits for the next ACK.
    cnp: bool,
}

impl DcqcnEcho {
    /// An NP that raises at most one CNP per `interval`.
    pub const fn new(interval: Time) -> DcqcnEcho {
        DcqcnEcho { interval, last: None, cnp: false }
    }
}

impl ExactEcho for DcqcnEcho {
    #[inline]
    fn on_data(&mut self, ce: bool, _pending: u32, now: Time) -> bool {
        if ce && self.last.is_none_or(|t| now >= t.saturating_add(self.interval)) {
            self.cnp = true;
            self.last = Some(now);
        }
        false
    }
    #[inline]
    fn ece(&self) -> bool {
        self.cnp
    }
    #[inline]
    fn on_ack_sent(&mut self) {
        self.cnp = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One CNP per N = 50 us however many marked packets arrive; unmarked packets raise none.
    #[test]
    fn at_most_one_cnp_per_interval() {
        let us = Time::from_us;
        let mut np = DcqcnEcho::new(us(50));
        let mut cnps = Vec::new();
        // A marked packet every 10 us from 0 to 200 us; an unmarked one at 5 us past each.
        for k in 0..=20 {
            for (t, ce) in [(us(10 * k), true), (us(10 * k + 5), false)] {
                np.on_data(ce, 0, t);
                if np.ece() {
                    cnps.push(t);
                }
                np.on_ack_sent();
            }
        }
        assert_eq!(cnps, vec![us(0), us(50), us(100), us(150), us(200)]);
        // A CNP stays raised until an ACK carries it.
        let mut np = DcqcnEcho::new(us(50));
        np.on_data(true, 0, us(0));
        np.on_data(false, 1, us(1));
        assert!(np.ece(), "the CNP waits for the next ACK");
        np.on_ack_sent();
        assert!(!np.ece());
        np.on_data(true, 0, us(49));
        assert!(!np.ece(), "49 us after the last CNP: none");
    }
}
