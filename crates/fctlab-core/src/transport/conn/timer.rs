//! The retransmission timer (RFC 6298 sec. 5): one deadline per connection, armed by the
//! first segment sent while it is off, restarted by an ACK of new data, stopped when nothing is
//! outstanding, and backed off exponentially when it fires.

use super::{Connection, State};
use crate::units::Time;

impl Connection {
    /// The timer's deadline, if it runs.
    #[inline]
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_at
    }

    /// RFC 6298 sec. 5.1: starts the timer (one RTO from `now`) unless it is running.
    #[inline]
    pub fn arm_rto(&mut self, now: Time) {
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    /// RFC 6298 sec. 5.3 (and 5.6 after a timeout): restarts the timer one RTO from `now`.
    #[inline]
    pub fn restart_rto(&mut self, now: Time) {
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// RFC 6298 sec. 5.2: stops the timer.
    #[inline]
    pub fn stop_rto(&mut self) {
        self.rto_at = None;
    }

    /// If the timer is due at `now`: stops it, counts the timeout and doubles the RTO (RFC 6298
    /// sec. 5.5), and returns the state it fired in, for the loop to react (a SYN is retried,
    /// sec. 5.4's retransmission is the loop's choice). `None` if it is not due.
    #[inline]
    pub fn take_rto(&mut self, now: Time) -> Option<State> {
        if self.rto_at.is_none_or(|t| t > now) {
            return None;
        }
        self.rto_at = None;
        self.stats.timeouts += 1;
        self.rtt.back_off();
        Some(self.state)
    }
}
